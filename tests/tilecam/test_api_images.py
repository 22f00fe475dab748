"""Image endpoints refuse bad uploads with a 4xx JSON error naming the problem.

A fake detector (dependency override) stands in for the model, so these tests
check the service's own limits: upload size (declared and streamed), pixel count
read from the header before decoding (decompression bombs), content types,
empty, truncated and non-image files, and the busy/timeout answers of the
recognition limiter.
"""

from __future__ import annotations

import asyncio
import struct
import time
import zlib
from collections.abc import Iterator

import cv2
import numpy as np
import pytest
from fastapi.testclient import TestClient

from tilecam.api.deps import RecognitionLimiter, get_detector
from tilecam.api.errors import ApiError
from tilecam.app import create_app
from tilecam.settings import Settings
from vision.detections import Detections
from vision.imageio import Photo


class FakeDetector:
    """Finds three tiles in any image; records the image shapes it was given."""

    def __init__(self) -> None:
        self.shapes: list[tuple[int, ...]] = []

    def __call__(self, image: np.ndarray | Photo) -> Detections:
        # the routes hand a detector the upload as loaded for reading (a Photo: a large
        # JPEG decoded reduced); the picture it reads is its ``picture``
        picture = image.picture if isinstance(image, Photo) else image
        self.shapes.append(picture.shape)
        h, w = picture.shape[:2]
        return Detections.from_lists(
            [(0, 0, 10, 14), (10, 0, 20, 14), (20, 0, 30, 14)],
            ["1m", "2m", "3m"],
            [0.9, 0.8, 0.7],
            image_size=(w, h),
        )


def jpeg(width: int = 320, height: int = 240) -> bytes:
    img = np.full((height, width, 3), 200, np.uint8)
    cv2.rectangle(img, (20, 20), (60, 80), (30, 30, 30), -1)
    ok, buf = cv2.imencode(".jpg", img)
    assert ok
    return buf.tobytes()


def png_bomb(width: int, height: int) -> bytes:
    """A valid grey PNG of ``width × height`` zero pixels: tiny file, huge when decoded."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(
            ">I", zlib.crc32(kind + data) & 0xFFFFFFFF
        )

    row = b"\x00" * (width + 1)  # filter byte + pixels
    comp = zlib.compressobj(9)
    body = b"".join(comp.compress(row) for _ in range(height)) + comp.flush()
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", body) + chunk(b"IEND", b"")


SETTINGS = Settings(
    load_model=False, max_upload_bytes=200_000, max_pixels=2_000_000, request_timeout_s=5.0
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


def assert_error(r, status: int, code: str, *words: str) -> None:  # type: ignore[no-untyped-def]
    assert r.status_code == status, r.text
    body = r.json()
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message"}, body
    assert body["error"]["code"] == code, body
    for w in words:
        assert w.lower() in body["error"]["message"].lower(), body


def test_detect_returns_tiles_of_a_good_jpeg(client: TestClient, fake: FakeDetector) -> None:
    r = client.post("/v1/detect", files={"image": ("hand.jpg", jpeg(), "image/jpeg")})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["image_size"] == [320, 240]
    assert [t["code"] for t in body["tiles"]] == ["1m", "2m", "3m"]
    assert fake.shapes == [(240, 320, 3)]


def test_detect_accepts_a_raw_image_body(client: TestClient) -> None:
    r = client.post("/v1/detect", content=jpeg(), headers={"content-type": "image/jpeg"})
    assert r.status_code == 200, r.text
    assert len(r.json()["tiles"]) == 3


def test_zero_byte_upload_is_400_empty(client: TestClient) -> None:
    r = client.post("/v1/detect", files={"image": ("e.jpg", b"", "image/jpeg")})
    assert_error(r, 400, "empty_image", "0 bytes")


def test_truncated_jpeg_is_400_naming_truncation(client: TestClient, fake: FakeDetector) -> None:
    data = jpeg()
    r = client.post("/v1/detect", files={"image": ("t.jpg", data[: len(data) // 2], "image/jpeg")})
    assert_error(r, 400, "invalid_image", "truncated")
    assert fake.shapes == []


def test_text_file_sent_as_image_is_415(client: TestClient) -> None:
    text = b"hello, this is text\n"
    r = client.post("/v1/detect", files={"image": ("a.jpg", text, "image/jpeg")})
    assert_error(r, 415, "unsupported_image", "not an image")


def test_text_content_type_of_the_image_part_is_415(client: TestClient) -> None:
    r = client.post("/v1/detect", files={"image": ("a.txt", jpeg(), "text/plain")})
    assert_error(r, 415, "unsupported_media_type", "text/plain")


def test_json_body_to_an_image_endpoint_is_415(client: TestClient) -> None:
    r = client.post("/v1/detect", json={"image": "x"})
    assert_error(r, 415, "unsupported_media_type", "multipart/form-data")


def test_form_without_image_field_is_400(client: TestClient) -> None:
    r = client.post("/v1/detect", files={"photo": ("a.jpg", jpeg(), "image/jpeg")})
    assert_error(r, 400, "missing_image", "'image'")


def test_huge_dimensions_in_header_are_413_before_decoding(
    client: TestClient, fake: FakeDetector
) -> None:
    data = bytearray(jpeg(64, 48))
    sof = data.find(b"\xff\xc0")
    data[sof + 5 : sof + 9] = struct.pack(">HH", 60000, 60000)  # height, width
    r = client.post("/v1/detect", files={"image": ("big.jpg", bytes(data), "image/jpeg")})
    assert_error(r, 413, "image_too_large", "60000×60000", "megapixels")
    assert fake.shapes == []


def test_png_decompression_bomb_is_413_before_decoding(
    client: TestClient, fake: FakeDetector
) -> None:
    bomb = png_bomb(4000, 4000)  # 16 megapixels in a few kB
    assert len(bomb) < 50_000
    r = client.post("/v1/detect", files={"image": ("bomb.png", bomb, "image/png")})
    assert_error(r, 413, "image_too_large", "4000×4000")
    assert fake.shapes == []


def test_declared_body_over_the_limit_is_413(client: TestClient) -> None:
    big = b"\xff\xd8\xff" + b"\0" * 600_000
    r = client.post("/v1/detect", content=big, headers={"content-type": "image/jpeg"})
    assert_error(r, 413, "payload_too_large", "limit")
    # the figure is the setting's, with the room kept for a form's own fields
    assert "for the form's fields" in r.json()["error"]["message"]


def test_streamed_body_over_the_limit_is_413(client: TestClient) -> None:
    def chunks() -> Iterator[bytes]:  # no Content-Length: chunked transfer
        yield b"\xff\xd8\xff"
        for _ in range(40):
            yield b"\0" * 20_000

    r = client.post("/v1/detect", content=chunks(), headers={"content-type": "image/jpeg"})
    assert r.status_code == 413, r.text
    assert r.json()["error"]["code"] in ("payload_too_large", "image_too_large")


def test_multipart_image_over_the_upload_limit_is_413(client: TestClient) -> None:
    data = b"\xff\xd8\xff" + b"\0" * 250_000  # over 200 kB, under the body cap
    r = client.post("/v1/detect", files={"image": ("x.jpg", data, "image/jpeg")})
    assert_error(r, 413, "image_too_large", "MiB")


def test_detect_without_a_model_is_503_not_ready() -> None:
    with TestClient(create_app(SETTINGS)) as c:
        r = c.post("/v1/detect", files={"image": ("a.jpg", jpeg(), "image/jpeg")})
        assert_error(r, 503, "not_ready", "not available")
        assert_error(c.get("/readyz"), 503, "not_ready", "loading is turned off")


def test_limiter_answers_busy_when_no_slot_frees_in_time() -> None:
    async def code_of(job: asyncio.Future[None]) -> str:
        try:
            await job
        except ApiError as exc:
            return exc.code
        return "ok"

    async def scenario() -> tuple[str, str]:
        limiter = RecognitionLimiter(slots=1, timeout_s=0.2)
        first = asyncio.ensure_future(limiter.run(time.sleep, 0.5))
        await asyncio.sleep(0.02)
        second = await code_of(asyncio.ensure_future(limiter.run(time.sleep, 0.01)))
        result = (await code_of(first), second)
        limiter.shutdown()
        return result

    assert asyncio.run(scenario()) == ("timeout", "busy")


def test_limiter_times_out_but_keeps_the_slot_until_the_job_ends() -> None:
    async def scenario() -> tuple[str, int, int]:
        limiter = RecognitionLimiter(slots=1, timeout_s=0.1)
        try:
            await limiter.run(time.sleep, 0.4)
            code = "none"
        except ApiError as exc:
            code = exc.code
        running_after_timeout = limiter.running
        await asyncio.sleep(0.5)
        running_later = limiter.running
        limiter.shutdown()
        return code, running_after_timeout, running_later

    assert asyncio.run(scenario()) == ("timeout", 1, 0)


def test_json_body_over_the_json_limit_is_413(client: TestClient) -> None:
    body = b'{"hand": "' + b"1m" * 600_000 + b'"}'  # 1.2 MB of JSON
    r = client.post("/v1/score", content=body, headers={"content-type": "application/json"})
    assert_error(r, 413, "payload_too_large", "limit")


def test_multipart_without_boundary_is_400(client: TestClient) -> None:
    r = client.post("/v1/detect", content=b"abc", headers={"content-type": "multipart/form-data"})
    assert_error(r, 400, "bad_request", "boundary")


def test_two_images_in_one_form_are_400(client: TestClient) -> None:
    files = [("image", ("a.jpg", jpeg(), "image/jpeg")), ("image", ("b.jpg", jpeg(), "image/jpeg"))]
    assert_error(client.post("/v1/detect", files=files), 400, "bad_request", "files")


def test_gif_is_415_naming_the_format(client: TestClient) -> None:
    gif = b"GIF89a" + b"\0" * 64
    r = client.post("/v1/detect", files={"image": ("a.gif", gif, "image/gif")})
    assert_error(r, 415, "unsupported_image", "GIF")


def test_grey_png_is_decoded_to_three_channels(client: TestClient, fake: FakeDetector) -> None:
    _, buf = cv2.imencode(".png", np.zeros((50, 60), np.uint8))
    r = client.post("/v1/detect", files={"image": ("g.png", buf.tobytes(), "image/png")})
    assert r.status_code == 200, r.text
    assert fake.shapes == [(50, 60, 3)]


def test_limiter_refuses_requests_over_the_queue_at_once() -> None:
    async def scenario() -> tuple[str, int]:
        limiter = RecognitionLimiter(slots=1, timeout_s=1.0, queue=2)
        async with limiter.admit(), limiter.admit():
            try:
                async with limiter.admit():
                    code = "admitted"
            except ApiError as exc:
                code = exc.code
        admitted_after = limiter.admitted
        limiter.shutdown()
        return code, admitted_after

    assert asyncio.run(scenario()) == ("busy", 0)


def test_an_internal_error_of_the_reader_is_not_blamed_on_the_request() -> None:
    """Only a context the scorer refuses (``scoring.HandError``) is the caller's 400
    ``invalid_context``; any other exception inside the reading is answered as the
    service's own error (500 ``internal_error``, JSON), not as a bad context."""
    import scoring

    def broken(kind: type[Exception]) -> object:
        def detect(image: np.ndarray) -> Detections:
            raise kind("something inside went wrong")

        return detect

    for kind, status, code in ((ValueError, 500, "internal_error"),
                               (scoring.HandError, 400, "invalid_context")):
        app = create_app(SETTINGS)
        app.dependency_overrides[get_detector] = lambda k=kind: broken(k)
        with TestClient(app, raise_server_exceptions=False) as c:
            r = c.post("/v1/recognize", files={"image": ("x.jpg", jpeg(), "image/jpeg")})
        assert_error(r, status, code)
