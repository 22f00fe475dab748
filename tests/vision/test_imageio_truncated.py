"""JPEGs cut short that still end with an end-of-image marker are refused as truncated.

An uploader or proxy that cuts a JPEG short and puts 0xFF 0xD9 back, or a file whose
middle is lost, decodes without an error: libjpeg fills the blocks it never got with flat
grey (128, 128, 128) and only warns on stderr. :mod:`vision.imageio` asks the decoder
whether the data holds every block (a single-scan JPEG is decoded with zero padding where
its end marker was, so data that stops early runs the source dry; a file with restart
markers must hold as many as its blocks need; a progressive one must send every bit of
every coefficient in its scans, tests/vision/test_imageio_progressive.py) — never by
looking for grey, which real pictures have. Each refusal rule below failed on the code
before it.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator

import cv2
import numpy as np
import pytest
from fastapi.testclient import TestClient

from tilecam.api.deps import get_detector
from tilecam.api.errors import ApiError
from tilecam.api.upload import decode_image
from tilecam.app import create_app
from tilecam.settings import Settings
from vision.detections import Detections
from vision.imageio import ImageError, Photo, load_image, load_image_reduced

H, W = 240, 320


def _photo(h: int = H, w: int = W, seed: int = 3) -> np.ndarray:
    """A textured BGR picture (every block holds coefficients)."""
    rng = np.random.default_rng(seed)
    small = rng.integers(0, 255, (h // 8, w // 8, 3), np.uint8)
    img = cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)
    noise = rng.integers(-12, 13, img.shape)
    return np.asarray(np.clip(img.astype(np.int16) + noise, 0, 255), np.uint8)


def _jpeg(img: np.ndarray, *params: int) -> bytes:
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 90, *params])
    assert ok
    return buf.tobytes()


def _scan_data(jpeg: bytes) -> tuple[int, int]:
    """``(start, end)`` of the entropy-coded data: after the first SOS header, before EOI."""
    sos = jpeg.index(b"\xff\xda")
    (length,) = struct.unpack(">H", jpeg[sos + 2 : sos + 4])
    assert jpeg.endswith(b"\xff\xd9")
    return sos + 2 + length, len(jpeg) - 2


def _cut_tail(jpeg: bytes, keep: float) -> bytes:
    """The file cut ``keep`` of the way into its image data, its end marker put back."""
    start, end = _scan_data(jpeg)
    return jpeg[: start + int((end - start) * keep)] + b"\xff\xd9"


def _cut_middle(jpeg: bytes, lo: float, hi: float) -> bytes:
    """The file with the part of its image data from ``lo`` to ``hi`` of the way lost."""
    start, end = _scan_data(jpeg)
    return jpeg[: start + int((end - start) * lo)] + jpeg[start + int((end - start) * hi) :]


def _decoded(jpeg: bytes, flag: int = cv2.IMREAD_COLOR) -> np.ndarray:
    img = cv2.imdecode(np.frombuffer(jpeg, np.uint8), flag)
    assert img is not None
    return np.asarray(img)


def _exif(orientation: int, thumbnail: bytes) -> bytes:
    """An APP1 Exif segment as a phone writes it: IFD0 with the orientation, IFD1 with a
    JPEG thumbnail (which has its own SOI, SOS and EOI markers)."""
    ifd0 = struct.pack(">H", 1) + struct.pack(">HHIHH", 0x0112, 3, 1, orientation, 0)
    ifd1_at = 8 + len(ifd0) + 4
    thumb_at = ifd1_at + 2 + 2 * 12 + 4
    ifd1 = (struct.pack(">H", 2) + struct.pack(">HHII", 0x0201, 4, 1, thumb_at)
            + struct.pack(">HHII", 0x0202, 4, 1, len(thumbnail)))  # fmt: skip
    tiff = (b"MM\x00*" + struct.pack(">I", 8) + ifd0 + struct.pack(">I", ifd1_at) + ifd1
            + struct.pack(">I", 0) + thumbnail)  # fmt: skip
    payload = b"Exif\x00\x00" + tiff
    return b"\xff\xe1" + struct.pack(">H", len(payload) + 2) + payload


def _phone_jpeg(orientation: int = 6) -> bytes:
    """A camera-like JPEG: Exif with a thumbnail and orientation, then the picture."""
    img = _photo()
    thumb = _jpeg(cv2.resize(img, (80, 60)))
    body = _jpeg(img)
    return body[:2] + _exif(orientation, thumb) + body[2:]


# ------------------------------------------------------------------ cut short, marker back
S444 = (cv2.IMWRITE_JPEG_SAMPLING_FACTOR, cv2.IMWRITE_JPEG_SAMPLING_FACTOR_444)
S422 = (cv2.IMWRITE_JPEG_SAMPLING_FACTOR, cv2.IMWRITE_JPEG_SAMPLING_FACTOR_422)
S411 = (cv2.IMWRITE_JPEG_SAMPLING_FACTOR, cv2.IMWRITE_JPEG_SAMPLING_FACTOR_411)
PROGRESSIVE = (cv2.IMWRITE_JPEG_PROGRESSIVE, 1)
OPTIMISED = (cv2.IMWRITE_JPEG_OPTIMIZE, 1)

SINGLE_SCAN = {
    "baseline 4:2:0": (),
    "baseline 4:4:4": S444,
    "baseline 4:2:2 optimised": S422 + OPTIMISED,
    "restart every 4 MCUs": (cv2.IMWRITE_JPEG_RST_INTERVAL, 4),
    "restart every MCU row": (cv2.IMWRITE_JPEG_RST_INTERVAL, W // 16),
}


@pytest.mark.parametrize("params", SINGLE_SCAN.values(), ids=SINGLE_SCAN.keys())
@pytest.mark.parametrize("keep", [0.05, 0.5, 0.97])
def test_a_jpeg_cut_short_with_its_end_marker_put_back_is_refused_as_truncated(
    params: tuple[int, ...], keep: float
) -> None:
    """Rule: a single-scan JPEG whose entropy-coded data stops before its last block is
    refused as truncated however it ends — here with the end-of-image marker appended —
    by load_image and load_image_reduced alike, and the message says what is wrong."""
    bad = _cut_tail(_jpeg(_photo(), *params), keep)
    _decoded(bad)  # what libjpeg does: no error, the rest grey
    with pytest.raises(ImageError, match=r"truncated JPEG: .*(stops before the end|restart)"):
        load_image(bad)
    with pytest.raises(ImageError, match="truncated JPEG"):
        load_image_reduced(bad, min_long_side=40)


def test_a_grey_or_turned_phone_jpeg_cut_short_is_refused() -> None:
    """Rule: the check reads the data, not the pixels: a cut-short grey-scale JPEG, and a
    phone's JPEG with an Exif thumbnail (its own end marker inside APP1) and orientation."""
    grey = _jpeg(cv2.cvtColor(_photo(), cv2.COLOR_BGR2GRAY))
    for bad in (_cut_tail(grey, 0.6), _cut_tail(_phone_jpeg(6), 0.6)):
        with pytest.raises(ImageError, match="truncated JPEG"):
            load_image(bad)


def test_a_jpeg_whose_middle_is_lost_is_refused_as_truncated() -> None:
    """Rule: a middle part of the image data lost (the rest, end marker included, kept)
    leaves too little data for the blocks after it: refused as truncated."""
    data = _jpeg(_photo())
    for lo, hi in ((0.2, 0.4), (0.5, 0.55), (0.1, 0.9)):
        with pytest.raises(ImageError, match="truncated JPEG"):
            load_image(_cut_middle(data, lo, hi))


def test_a_jpeg_with_restart_markers_missing_some_is_refused_as_truncated() -> None:
    """Rule: a JPEG with restart markers (a DRI segment, as many cameras write) must hold
    one after every interval but the last; a lost middle takes some with it, which libjpeg
    papers over by resynchronising (the lost intervals grey): refused, naming the count."""
    data = _jpeg(_photo(), cv2.IMWRITE_JPEG_RST_INTERVAL, 20)  # 300 MCUs: 14 markers
    bad = _cut_middle(data, 0.3, 0.6)
    assert data.count(b"\xff\xd0") + data.count(b"\xff\xd1") > 0
    with pytest.raises(ImageError, match=r"truncated JPEG: .* holds \d+ of the 14 restart"):
        load_image(bad)


def test_a_progressive_jpeg_cut_short_before_its_last_scan_is_refused() -> None:
    """Rule: a progressive JPEG cut inside an early scan (its later scans lost, the end
    marker put back) is refused: its scans leave coefficients unsent."""
    data = _jpeg(_photo(), *PROGRESSIVE)
    scans = [i for i in range(len(data)) if data.startswith(b"\xff\xda", i)]
    assert len(scans) >= 6
    for scan in (0, 1, 5):  # inside the DC scan, the first AC scan, a refinement scan
        cut = (scans[scan] + scans[scan + 1]) // 2
        with pytest.raises(ImageError, match="truncated JPEG"):
            load_image(data[:cut] + b"\xff\xd9")
        with pytest.raises(ImageError, match="truncated JPEG"):
            load_image_reduced(data[:cut] + b"\xff\xd9", min_long_side=40)


def test_a_truncated_jpeg_upload_is_400_invalid_image_like_any_truncated_jpeg() -> None:
    """Rule: the service answers a cut-short JPEG as it answers one without its end
    marker: 400 ``invalid_image``, the message saying "truncated" — no 500, no traceback."""
    data = _jpeg(_photo())
    for bad in (data[: len(data) // 2], _cut_tail(data, 0.5)):
        with pytest.raises(ApiError) as err:
            decode_image(bad, 2_000_000, 1 << 20)
        assert (err.value.status_code, err.value.code) == (400, "invalid_image")
        assert "truncated JPEG" in err.value.message


class _Detector:
    def __call__(self, image: np.ndarray | Photo) -> Detections:
        picture = image.picture if isinstance(image, Photo) else image  # the routes send a Photo
        h, w = picture.shape[:2]
        return Detections.from_lists([(0, 0, 10, 14)], ["1m"], [0.9], image_size=(w, h))


@pytest.fixture()
def client() -> Iterator[TestClient]:
    app = create_app(Settings(load_model=False, max_upload_bytes=1 << 20, max_pixels=2_000_000))
    app.dependency_overrides[get_detector] = lambda: _Detector()
    with TestClient(app, raise_server_exceptions=False) as c:
        yield c


def test_detect_endpoint_answers_a_cut_short_jpeg_400_truncated(client: TestClient) -> None:
    """Rule: over HTTP too: POST /v1/detect with a cut-short JPEG (end marker put back) is
    a 400 ``invalid_image`` JSON error that says "truncated"; the whole file is a 200."""
    data = _jpeg(_photo())
    r = client.post("/v1/detect", files={"image": ("t.jpg", _cut_tail(data, 0.5), "image/jpeg")})
    assert r.status_code == 400, r.text
    assert r.json()["error"]["code"] == "invalid_image"
    assert "truncated" in r.json()["error"]["message"]
    r = client.post("/v1/detect", files={"image": ("t.jpg", data, "image/jpeg")})
    assert r.status_code == 200, r.text


# ------------------------------------------------------------------ whole files still read
VALID = {
    "baseline": lambda: _jpeg(_photo()),
    "quality 100, 4:4:4": lambda: _jpeg(_photo(), cv2.IMWRITE_JPEG_QUALITY, 100, *S444),
    "quality 10, 4:1:1": lambda: _jpeg(_photo(), cv2.IMWRITE_JPEG_QUALITY, 10, *S411),
    "odd size": lambda: _jpeg(_photo(237, 317)),
    "grey": lambda: _jpeg(cv2.cvtColor(_photo(), cv2.COLOR_BGR2GRAY)),
    "progressive": lambda: _jpeg(_photo(), *PROGRESSIVE),
    "progressive optimised": lambda: _jpeg(_photo(), *PROGRESSIVE, *OPTIMISED),
    "restart every MCU": lambda: _jpeg(_photo(), cv2.IMWRITE_JPEG_RST_INTERVAL, 1),
    "restart every 7 MCUs": lambda: _jpeg(_photo(), cv2.IMWRITE_JPEG_RST_INTERVAL, 7),
    "phone: Exif thumbnail, turned": lambda: _phone_jpeg(6),
    "trailing bytes after the end": lambda: _jpeg(_photo()) + bytes(range(256)) * 8,
    "a second JPEG after the end": lambda: _phone_jpeg(1) + _jpeg(_photo(60, 80)),
    "fill bytes before the end marker": lambda: _jpeg(_photo())[:-2] + b"\xff\xff\xff\xd9",
    "flat grey bottom and side": lambda: _jpeg(_grey_edged(_photo())),
    "flat grey, progressive": lambda: _jpeg(_grey_edged(_photo()), *PROGRESSIVE),
    "flat grey, restarts": lambda: _jpeg(_grey_edged(_photo()), cv2.IMWRITE_JPEG_RST_INTERVAL, 3),
    "grey all over": lambda: _jpeg(np.full((H, W, 3), 128, np.uint8)),
}


def _grey_edged(img: np.ndarray) -> np.ndarray:
    """``img`` with its bottom third and right 40 columns flat (128, 128, 128): what
    libjpeg gives the blocks it never got, and what a grey wall or backdrop looks like."""
    img = img.copy()
    img[-img.shape[0] // 3 :] = 128
    img[:, -40:] = 128
    return img


@pytest.mark.parametrize("make", VALID.values(), ids=VALID.keys())
def test_whole_jpegs_are_read_to_the_same_pixels_without_a_warning(
    make: object, capfd: pytest.CaptureFixture[str]
) -> None:
    """Rule: no false refusals, no changed pixels — baseline and progressive, restart
    markers, phone Exif with a thumbnail, bytes after the end marker, flat grey parts (a
    grey wall is not a cut) all decode exactly as OpenCV decodes the file, at full and
    reduced scale, and the check makes libjpeg print nothing."""
    assert callable(make)
    data: bytes = make()
    capfd.readouterr()
    assert np.array_equal(load_image(data), _decoded(data))
    reduced, _ = load_image_reduced(data, min_long_side=60)
    assert np.array_equal(reduced, _decoded(data, cv2.IMREAD_REDUCED_COLOR_4))
    assert capfd.readouterr().err == ""


def test_a_progressive_jpeg_cut_at_its_last_scan_boundary_is_refused() -> None:
    """Rule: scans that leave coefficients unsent are a cut even where no scan's data is
    cut: a progressive JPEG that ends at a scan boundary, its last scan lost and its end
    marker put back, is refused as truncated (it was read before: a second decode with
    extra bytes before the end marker found no scan cut short)."""
    data = _jpeg(_photo(), *PROGRESSIVE)
    last = data.rindex(b"\xff\xda")
    partial = data[:last] + b"\xff\xd9"
    _decoded(partial)  # what libjpeg does: the picture less the luma's last bit, no error
    with pytest.raises(ImageError, match="truncated JPEG: its scans stop before the picture"):
        load_image(partial)


def test_megabytes_of_fill_bytes_before_the_end_marker_are_crossed_quickly() -> None:
    """Rule: fill bytes (0xFF) before the end-of-image marker are allowed (libjpeg skips
    them) and stripped 4 KB at a time in C: 40 MB of them cost about 0.1 s a read of a
    baseline JPEG (a byte loop in Python took 1.8-3.4 s; a progressive one's scan walk
    crosses them in about 0.5 s)."""
    import time

    data = _jpeg(_photo())
    padded = data[:-2] + b"\xff" * (40 << 20) + b"\xff\xd9"
    began = time.perf_counter()
    assert np.array_equal(load_image(padded, max_bytes=50 << 20), _decoded(data))
    assert time.perf_counter() - began < 1.0
