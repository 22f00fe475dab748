"""Image loading: every bad input gets a clear ImageError; good ones come back BGR uint8."""

from __future__ import annotations

import struct
import tracemalloc
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.imageio import (
    ImageError,
    image_size_from_header,
    load_image,
    load_image_reduced,
    sniff_format,
)


def _picture(h: int = 20, w: int = 40) -> np.ndarray:
    """Left half red, right half black (BGR)."""
    img = np.zeros((h, w, 3), np.uint8)
    img[:, : w // 2] = (0, 0, 255)
    return img


def _encode(ext: str, img: np.ndarray, *params: int) -> bytes:
    ok, enc = cv2.imencode(ext, img, list(params))
    assert ok
    return enc.tobytes()


def _with_exif_orientation(jpeg: bytes, orientation: int) -> bytes:
    """Insert an APP1 Exif segment holding only the Orientation tag (0x0112)."""
    ifd = struct.pack(">H", 1) + struct.pack(">HHIHH", 0x0112, 3, 1, orientation, 0)
    tiff = b"MM\x00*" + struct.pack(">I", 8) + ifd + struct.pack(">I", 0)
    payload = b"Exif\x00\x00" + tiff
    return jpeg[:2] + b"\xff\xe1" + struct.pack(">H", len(payload) + 2) + payload + jpeg[2:]


def _png_chunk(kind: bytes, body: bytes) -> bytes:
    crc = zlib.crc32(kind + body) & 0xFFFFFFFF
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)


def _png_bomb(width: int = 50_000, height: int = 50_000) -> bytes:
    """A tiny PNG whose header claims width × height grey pixels (all zero when inflated)."""
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    row = b"\x00" * (width + 1)
    comp = zlib.compressobj(9)
    body = comp.compress(row * 64) + comp.flush()  # only a few rows: the header is the bomb
    return (
        b"\x89PNG\r\n\x1a\n"
        + _png_chunk(b"IHDR", ihdr)
        + _png_chunk(b"IDAT", body)
        + _png_chunk(b"IEND", b"")
    )


# ------------------------------------------------------------------ good inputs
@pytest.mark.parametrize("ext", [".jpg", ".png", ".webp", ".bmp", ".tiff"])
def test_formats_decode_to_bgr_uint8(ext: str) -> None:
    img = load_image(_encode(ext, _picture()))
    assert img.dtype == np.uint8 and img.shape == (20, 40, 3)
    assert img[10, 5, 2] > 200 and img[10, 35].max() < 40


@pytest.mark.parametrize("ext", [".jpg", ".png", ".webp", ".bmp", ".tiff"])
def test_header_size_matches_image(ext: str) -> None:
    fmt, w, h = image_size_from_header(_encode(ext, _picture(33, 71)))
    assert (w, h) == (71, 33)
    assert fmt == sniff_format(_encode(ext, _picture()))


def test_webp_lossless_header_size() -> None:
    data = _encode(".webp", _picture(33, 71), cv2.IMWRITE_WEBP_QUALITY, 101)
    assert image_size_from_header(data)[1:] == (71, 33)


@pytest.mark.parametrize(
    ("orientation", "shape", "red_corner"),
    [
        (1, (20, 40), (0, 0)),
        (3, (20, 40), (-1, -1)),
        (6, (40, 20), (0, 0)),
        (8, (40, 20), (-1, -1)),
    ],
)
def test_jpeg_exif_orientation_is_applied(
    orientation: int, shape: tuple[int, int], red_corner: tuple[int, int]
) -> None:
    # Orientation 6 = rotate 90° clockwise to view: the red left half becomes the top.
    img = load_image(_with_exif_orientation(_encode(".jpg", _picture()), orientation))
    assert img.shape[:2] == shape
    assert img[red_corner][2] > 200


def test_grey_and_alpha_png_become_three_channels() -> None:
    grey = np.full((5, 6), 77, np.uint8)
    assert load_image(_encode(".png", grey)).shape == (5, 6, 3)
    bgra = np.dstack([_picture(5, 6), np.full((5, 6), 255, np.uint8)])
    out = load_image(_encode(".png", bgra))
    assert out.shape == (5, 6, 3) and out[0, 0, 2] == 255


def test_path_and_bytes_agree(tmp_path: Path) -> None:
    data = _encode(".png", _picture())
    p = tmp_path / "hand.png"
    p.write_bytes(data)
    assert np.array_equal(load_image(p), load_image(data))
    assert np.array_equal(load_image(str(p)), load_image(bytearray(data)))


def test_arrays_grey_bgra_uint16() -> None:
    assert load_image(np.zeros((4, 5, 1), np.uint8)).shape == (4, 5, 3)
    assert load_image(np.zeros((4, 5, 4), np.uint8)).shape == (4, 5, 3)
    assert load_image(np.full((4, 5, 3), 65535, np.uint16)).max() == 255


# ------------------------------------------------------------------ bad inputs
def test_not_an_image() -> None:
    with pytest.raises(ImageError, match="not an image"):
        load_image(b"hello, this is a text file and not a photo")
    with pytest.raises(ImageError, match="GIF files are not supported"):
        load_image(b"GIF89a" + b"\x00" * 40)


def test_empty_bytes_and_empty_file(tmp_path: Path) -> None:
    with pytest.raises(ImageError, match="0 bytes"):
        load_image(b"")
    p = tmp_path / "empty.jpg"
    p.write_bytes(b"")
    with pytest.raises(ImageError, match="empty image file"):
        load_image(p)


def test_missing_file_and_directory(tmp_path: Path) -> None:
    with pytest.raises(ImageError, match="no such image file"):
        load_image(tmp_path / "nope.jpg")
    with pytest.raises(ImageError, match="is a directory"):
        load_image(tmp_path)


def test_truncated_jpeg() -> None:
    data = _encode(".jpg", np.random.default_rng(0).integers(0, 255, (64, 64, 3), np.uint8))
    for cut in (len(data) // 2, len(data) - 2):
        with pytest.raises(ImageError, match="truncated JPEG"):
            load_image(data[:cut])
    with pytest.raises(ImageError, match="JPEG"):
        load_image(data[:40])  # cut inside the header


def test_a_picture_with_a_flat_grey_edge_is_an_image() -> None:
    """A grey bar or backdrop of exactly (128, 128, 128) along an edge, which is also how
    libjpeg decodes the lines of a JPEG cut short behind its end marker: the picture is
    read, not refused as truncated (a check on that grey refused real pictures)."""
    img = np.random.default_rng(1).integers(0, 255, (480, 640, 3), np.uint8)
    img[-40:] = 128
    img[:, :32] = 128
    assert load_image(_encode(".jpg", img)).shape == (480, 640, 3)


def test_truncated_png() -> None:
    data = _encode(".png", np.random.default_rng(0).integers(0, 255, (64, 64, 3), np.uint8))
    with pytest.raises(ImageError, match="PNG"):
        load_image(data[: len(data) // 2])
    with pytest.raises(ImageError, match="PNG"):
        load_image(data[:20])


def test_zero_size_image_and_array() -> None:
    with pytest.raises(ImageError, match="zero size"):
        load_image(_png_bomb(0, 10))
    with pytest.raises(ImageError, match="zero size"):
        load_image(np.zeros((0, 5, 3), np.uint8))


def test_png_decompression_bomb_is_refused_before_decoding() -> None:
    bomb = _png_bomb()
    assert len(bomb) < 10_000  # a few KiB that would inflate to 2.5 GB
    tracemalloc.start()
    try:
        with pytest.raises(ImageError, match=r"too large: 50000×50000 = 2500\.0 megapixels"):
            load_image(bomb)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 10 * 2**20


def test_hundred_megapixel_jpeg_is_refused_from_its_header() -> None:
    data = bytearray(_encode(".jpg", _picture(16, 16)))
    sof = data.find(b"\xff\xc0")
    data[sof + 5 : sof + 9] = struct.pack(">HH", 10_000, 10_000)  # height, width
    with pytest.raises(ImageError, match=r"100\.0 megapixels"):
        load_image(bytes(data))


def test_limits_are_configurable() -> None:
    data = _encode(".png", _picture())
    with pytest.raises(ImageError, match="too large"):
        load_image(data, max_pixels=100)
    with pytest.raises(ImageError, match="image file too large"):
        load_image(data, max_bytes=10)
    with pytest.raises(ImageError, match="too large"):
        load_image(np.zeros((100, 100), np.uint8), max_pixels=50)


def test_bad_array_shapes_and_types() -> None:
    with pytest.raises(ImageError, match="shape"):
        load_image(np.zeros((2, 3, 2), np.uint8))
    with pytest.raises(ImageError, match="dtype"):
        load_image(np.zeros((2, 3, 3), np.float64))
    with pytest.raises(ImageError, match="cannot load an image from int"):
        load_image(42)  # type: ignore[arg-type]


def test_image_error_is_a_value_error() -> None:
    assert issubclass(ImageError, ValueError)


def test_reduced_jpeg_decode_keeps_long_side_and_reports_full_size() -> None:
    big = cv2.resize(_picture(), (2000, 1000), interpolation=cv2.INTER_NEAREST)
    data = _encode(".jpg", big)
    img, full = load_image_reduced(data, min_long_side=400)  # 1/4: 500 ≥ 400 > 250
    assert img.shape == (250, 500, 3) and full == (2000, 1000)
    img, full = load_image_reduced(_with_exif_orientation(data, 6), min_long_side=400)
    assert img.shape == (500, 250, 3) and full == (1000, 2000)
    assert img[0, 125, 2] > 200  # the red half is on top after the EXIF turn
    img, full = load_image_reduced(data, min_long_side=1500)  # no reduction possible
    assert img.shape == (1000, 2000, 3) and full == (2000, 1000)


def test_reduced_decode_of_png_and_array_is_full_size() -> None:
    img, full = load_image_reduced(_encode(".png", _picture(200, 400)), min_long_side=50)
    assert img.shape == (200, 400, 3) and full == (400, 200)
    img, full = load_image_reduced(np.zeros((30, 60), np.uint8), min_long_side=10)
    assert img.shape == (30, 60, 3) and full == (60, 30)


def test_reduced_decode_still_refuses_bad_input() -> None:
    with pytest.raises(ImageError, match="too large"):
        load_image_reduced(_png_bomb(), min_long_side=640)
    data = _encode(".jpg", np.random.default_rng(1).integers(0, 255, (64, 64, 3), np.uint8))
    with pytest.raises(ImageError, match="truncated JPEG"):
        load_image_reduced(data[: len(data) // 2], min_long_side=8)
