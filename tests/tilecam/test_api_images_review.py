"""Image endpoints after the image-input review: a TIFF whose size tags libtiff reads
otherwise and a progressive JPEG of repeated scans are 400 before any decoding or slot,
text starting "BM" is 415, a side over the decoder's limit 413, and ``max_pixels`` above
the library's 40 MP default is honoured through detection and recognition."""

from __future__ import annotations

import json
import struct
import zlib
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np
import pytest
from fastapi.testclient import TestClient
from test_api_images import assert_error

from tilecam.api.deps import get_detector
from tilecam.app import create_app
from tilecam.settings import Settings
from vision.detect import Detector
from vision.detections import Detections
from vision.imageio import DEFAULT_MAX_PIXELS, MAX_JPEG_SCANS, Photo


class FakeDetector:
    """Finds nothing; records the image shapes it was given."""

    def __init__(self) -> None:
        self.shapes: list[tuple[int, ...]] = []

    def __call__(self, image: np.ndarray | Photo) -> Detections:
        picture = image.picture if isinstance(image, Photo) else image  # the routes send a Photo
        self.shapes.append(picture.shape)
        return Detections.from_lists([], [], [],
                                     image_size=(picture.shape[1], picture.shape[0]))


SETTINGS = Settings(
    load_model=False, max_upload_bytes=2_000_000, max_pixels=2_000_000, request_timeout_s=5.0
)


@pytest.fixture()
def fake() -> FakeDetector:
    return FakeDetector()


@pytest.fixture()
def client(fake: FakeDetector) -> Iterator[TestClient]:
    app = create_app(SETTINGS)
    app.dependency_overrides[get_detector] = lambda: fake
    with TestClient(app, raise_server_exceptions=False) as c:
        yield c


def _post(client: TestClient, data: bytes, route: str = "/v1/detect"):  # type: ignore[no-untyped-def]
    return client.post(route, files={"image": ("x.img", data, "application/octet-stream")})


def _jpeg(img: np.ndarray, *params: int) -> bytes:
    ok, buf = cv2.imencode(".jpg", img, list(params))
    assert ok
    return buf.tobytes()


def _textured(h: int, w: int) -> np.ndarray:
    small = np.random.default_rng(3).integers(0, 255, (h // 8, w // 8, 3), np.uint8)
    return np.asarray(cv2.resize(small, (w, h)), np.uint8)


def test_tiff_with_a_repeated_width_tag_is_400_before_decoding(
    client: TestClient, fake: FakeDetector
) -> None:
    """libtiff keeps the first ImageWidth (3000 here: 9 MP, over the 2 MP limit), the old
    check kept the last (10)."""
    comp = zlib.compressobj(9)
    strip = comp.compress(b"\0" * (3000 * 3000)) + comp.flush()
    tags = [(256, 3000), (256, 10), (257, 3000), (258, 8), (259, 8), (262, 1), (273, 0),
            (277, 1), (278, 3000), (279, len(strip))]
    data_at = 8 + 2 + 12 * len(tags) + 4
    ifd = struct.pack("<H", len(tags)) + b"".join(
        struct.pack("<HHII", tag, 4, 1, data_at if tag == 273 else value) for tag, value in tags
    ) + struct.pack("<I", 0)
    data = b"II*\0" + struct.pack("<I", 8) + ifd + strip
    assert_error(_post(client, data), 400, "invalid_image", "ImageWidth tag appears twice")
    assert fake.shapes == []


def test_progressive_jpeg_scan_bomb_is_400_before_decoding(
    client: TestClient, fake: FakeDetector
) -> None:
    good = _jpeg(_textured(240, 320), cv2.IMWRITE_JPEG_PROGRESSIVE, 1)
    last_sos, eoi = good.rfind(b"\xff\xda"), len(good) - 2
    bomb = good[:eoi] + good[last_sos:eoi] * MAX_JPEG_SCANS + good[eoi:]
    assert_error(_post(client, bomb), 400, "invalid_image", f"more than {MAX_JPEG_SCANS} scans")
    assert fake.shapes == []
    assert _post(client, good).status_code == 200
    assert fake.shapes == [(240, 320, 3)]


def test_text_starting_with_bm_is_415_not_413(client: TestClient) -> None:
    text = b"BMW is a car maker and this is plain text, not a bitmap at all.\n"
    assert_error(_post(client, text), 415, "unsupported_image", "not an image")


def test_png_side_over_the_decoders_limit_is_413_naming_the_side(client: TestClient) -> None:
    ihdr = struct.pack(">IIBBBBB", 1, 1_500_000, 8, 0, 0, 0, 0)  # 1.5 MP: under max_pixels
    crc = struct.pack(">I", zlib.crc32(b"IHDR" + ihdr) & 0xFFFFFFFF)
    data = b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + b"IHDR" + ihdr + crc
    assert_error(_post(client, data), 413, "image_too_large", "side over 1,000,000 pixels")


# ------------------------------------------------------------------ 3: max_pixels > 40 MP
class EmptyBackend:
    """A detector backend that finds nothing (its one candidate is under every threshold)."""

    name = "fake"
    input_shape: tuple[int | None, ...] = (1, 3, 640, 640)

    def run(self, batch: np.ndarray) -> np.ndarray:
        rows = [[100, 100, 30, 40, 0.01, 0.01]]
        out = np.asarray(rows, np.float32).T[None]
        return np.repeat(out, len(batch), axis=0)


def _detector(tmp_path: Path) -> Detector:
    manifest = {"name": "test-model", "detector": {
        "file": "det.onnx", "imgsz": 640, "names": ["1m", "2m"], "input": "rgb",
        "zoom": {"below_px": 0}}}
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    return Detector(tmp_path, backend=EmptyBackend())


def test_max_pixels_above_the_library_default_is_honoured_end_to_end(tmp_path: Path) -> None:
    """An image between 40 MP and ``max_pixels`` was decoded, then refused again by the
    detector's and the recognizer's own 40 MP check: a 500. Now it is read, and one over
    ``max_pixels`` is still 413 from its header."""
    width, height = 6500, 6400  # 41.6 MP
    assert width * height > DEFAULT_MAX_PIXELS
    settings = Settings(load_model=False, max_pixels=42_000_000, request_timeout_s=60.0)
    app = create_app(settings)
    detector = _detector(tmp_path)
    app.dependency_overrides[get_detector] = lambda: detector
    data = _jpeg(np.full((height, width, 3), 150, np.uint8))
    over = bytearray(_jpeg(np.full((16, 16, 3), 150, np.uint8)))
    sof = over.find(b"\xff\xc0")
    over[sof + 5 : sof + 9] = struct.pack(">HH", 6400, 6600)  # 42.2 MP, header only
    with TestClient(app, raise_server_exceptions=False) as c:
        r = _post(c, data)
        assert r.status_code == 200, r.text
        assert r.json()["image_size"] == [width, height]
        r = c.post("/v1/recognize", files={"image": ("big.jpg", data, "image/jpeg")},
                   data={"rules": "mcr"})
        assert r.status_code == 200, r.text
        assert r.json()["image_size"] == [width, height]
        assert_error(_post(c, bytes(over)), 413, "image_too_large", "42.2 megapixels")
