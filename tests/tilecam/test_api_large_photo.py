"""``POST /v1/recognize`` with a 12 MP JPEG: handed to the recognizer as a
:class:`vision.imageio.Photo` decoded reduced (tilecam.api.upload.load_photo), under the
same limits as a whole decode; sizes and boxes stay in the photo's pixels."""

from __future__ import annotations

from collections.abc import Iterator
from typing import ClassVar

import cv2
import numpy as np
import pytest
from fastapi.testclient import TestClient

from tilecam.api.deps import get_detector
from tilecam.api.errors import ApiError
from tilecam.api.upload import load_photo
from tilecam.app import create_app
from tilecam.settings import Settings
from vision.detections import Detections

HAND = "[EEE,2]123m456p789sNN"


class SeeingDetector:
    """Finds a winning hand laid out as at the table, scaled to the picture it is given,
    and keeps the size of each picture it was given."""

    seen: ClassVar[list[tuple[int, int]]] = []

    def __call__(self, image: np.ndarray) -> Detections:
        from vision.layout_scene import SceneBuilder

        h, w = image.shape[:2]
        SeeingDetector.seen.append((w, h))
        scene = SceneBuilder().standing("123m456p789s").meld("EEE", sideways=1).standing("N")
        d = scene.win("N").detections()
        w0, h0 = d.image_size or (1, 1)
        scale = np.array([w / w0, h / h0, w / w0, h / h0], np.float32)
        return Detections(
            boxes=(d.boxes * scale).astype(np.float32), class_ids=d.class_ids,
            confidences=d.confidences, rotations=d.rotations, topk_ids=d.topk_ids,
            topk_probs=d.topk_probs, image_size=(w, h),
        )


def _jpeg(width: int, height: int) -> bytes:
    ok, buf = cv2.imencode(".jpg", np.full((height, width, 3), (40, 110, 40), np.uint8))
    assert ok
    return buf.tobytes()


@pytest.fixture()
def client() -> Iterator[TestClient]:
    app = create_app(Settings(load_model=False))
    app.dependency_overrides[get_detector] = SeeingDetector
    SeeingDetector.seen = []
    with TestClient(app, raise_server_exceptions=False) as c:
        yield c


def test_a_12mp_jpeg_is_read_from_its_reduced_picture(client: TestClient) -> None:
    r = client.post("/v1/recognize?annotate=1",
                    files={"image": ("big.jpg", _jpeg(4032, 3024), "image/jpeg")})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["hand"] == HAND
    assert body["image_size"] == [4032, 3024]
    assert SeeingDetector.seen[0] == (2016, 1512)  # the JPEG decoded reduced
    assert max(t["box"][2] for t in body["tiles"]) > 2016  # boxes in the photo's pixels
    assert body["annotated_jpeg"].startswith("data:image/jpeg;base64,")


def test_load_photo_decodes_a_large_jpeg_reduced_and_keeps_the_limits() -> None:
    data = _jpeg(4032, 3024)
    photo = load_photo(data, 40_000_000, 1 << 25)
    assert photo.picture.shape == (1512, 2016, 3) and photo.size == (4032, 3024)
    assert not photo.has_pixels
    assert photo.pixels.shape == (3024, 4032, 3)
    with pytest.raises(ApiError) as too_many:
        load_photo(data, 4032 * 3024 - 1, 1 << 25)
    assert too_many.value.status_code == 413
    with pytest.raises(ApiError) as cut:
        load_photo(data[: len(data) // 2], 40_000_000, 1 << 25)
    assert cut.value.status_code == 400
    with pytest.raises(ApiError) as not_image:
        load_photo(b"GIF89a" + bytes(100), 40_000_000, 1 << 25)
    assert not_image.value.status_code == 415
