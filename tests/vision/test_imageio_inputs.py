"""What ``load_image`` (and so ``vision.detect``/``vision.recognize``) says about paths it
cannot read, uint16 arrays, and formats it knows but does not decode (session 73 review
"detectin", findings 5, 7 and 8)."""

from __future__ import annotations

import struct
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.imageio import ImageError, load_image, load_image_reduced, uint16_bits


def _picture() -> np.ndarray:
    rng = np.random.default_rng(3)
    return np.asarray(cv2.resize(rng.integers(0, 256, (6, 8, 3), np.uint8), (64, 48)), np.uint8)


# ----------------------------------------------------------------------------- F5 paths
def test_an_empty_path_is_refused_as_empty_not_as_the_current_folder() -> None:
    """F5: ``''`` said ". is a directory, not an image file". (``Path("")`` is ``Path(".")``
    itself, the current folder: that one stays a directory.)"""
    with pytest.raises(ImageError, match="empty path"):
        load_image("")
    with pytest.raises(ImageError, match="empty path"):
        load_image_reduced("", min_long_side=64)


@pytest.mark.parametrize("url", [
    "https://example.com/hand.jpg",
    "http://example.com/a//b.png",
    "HTTPS://EXAMPLE.COM/X.JPG",
    "ftp://host/hand.jpg",
    "data:image/jpeg;base64,/9j/4AAQ",
])
def test_a_url_is_named_as_a_url_unmangled(url: str) -> None:
    """F5: a URL said "no such image file: https:/example.com/hand.jpg" (``Path``
    collapses ``//``)."""
    with pytest.raises(ImageError, match="is a URL: download it first") as caught:
        load_image(url)
    assert str(caught.value).startswith(url)
    with pytest.raises(ImageError, match="is a URL"):
        load_image_reduced(url, min_long_side=64)


def test_a_url_like_name_of_a_file_that_exists_is_read(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """A local folder called ``http:`` is a folder, not a URL."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "http:").mkdir()
    _ok, enc = cv2.imencode(".png", _picture())
    (tmp_path / "http:" / "x.png").write_bytes(enc.tobytes())
    assert load_image("http://x.png").shape == (48, 64, 3)


def test_a_missing_path_is_named_as_given() -> None:
    with pytest.raises(ImageError, match=r"no such image file: nowhere//hand\.jpg"):
        load_image("nowhere//hand.jpg")


def test_a_nul_byte_in_a_path_is_an_image_error() -> None:
    """F5: ``'a\\x00b.jpg'`` raised a plain ``ValueError("embedded null byte")``, which an
    ``except ImageError`` missed."""
    with pytest.raises(ImageError, match="NUL byte"):
        load_image("a\x00b.jpg")
    with pytest.raises(ImageError, match="NUL byte"):
        load_image(Path("a\x00b.jpg"))


# ----------------------------------------------------------------------------- F7 uint16
def test_big_endian_uint16_reads_as_little_endian_does() -> None:
    """F7: ``>u2`` was refused: "must be uint8 (or uint16), got dtype >u2"."""
    img = _picture()
    wide = img.astype(np.uint16) * 257
    little = load_image(wide.astype("<u2"))
    big = load_image(wide.astype(">u2"))
    assert np.array_equal(little, img) and np.array_equal(big, img)


@pytest.mark.parametrize(("bits", "scale"), [(16, 257), (14, 64), (12, 16), (10, 4), (8, 1)])
def test_uint16_is_scaled_by_its_bit_depth(bits: int, scale: int) -> None:
    """F7: 12-bit camera data (0..4095) was shifted by 8 bits and came out nearly black
    (0 tiles found); each depth now comes back at the 8-bit picture's own levels."""
    img = _picture()
    img[0, 0] = 255  # the brightest pixel holds the depth's top bits
    wide = img.astype(np.uint16) * scale
    assert uint16_bits(wide) == bits
    out = load_image(wide)
    assert np.array_equal(out, img), bits


def test_bool_and_other_dtypes() -> None:
    assert load_image(np.ones((2, 3), bool)).max() == 255
    with pytest.raises(ImageError, match="uint8 \\(or uint16 or bool\\), got dtype int32"):
        load_image(np.zeros((2, 3), np.int32))
    with pytest.raises(ImageError, match="got dtype float32"):
        load_image(np.zeros((2, 3), np.float32))


# ----------------------------------------------------------------------------- F8 formats
@pytest.mark.parametrize(("ext", "name"), [(".ppm", "PPM"), (".pgm", "PGM"), (".pbm", "PBM")])
def test_binary_netpbm_is_named(ext: str, name: str) -> None:
    """F8: a binary PPM whose first bytes are printable was called "text"."""
    img = np.full((48, 64, 3), 128, np.uint8)  # mid-grey: printable bytes after the header
    if ext != ".ppm":
        img = img[..., 0]
    ok, enc = cv2.imencode(ext, img)
    assert ok
    with pytest.raises(ImageError, match=f"{name} \\(netpbm\\) files are not supported"):
        load_image(enc.tobytes())


def test_ascii_netpbm_with_a_comment_is_named_and_plain_text_is_text() -> None:
    with pytest.raises(ImageError, match="PPM \\(netpbm\\)"):
        load_image(b"P3\n# made by hand\n2 1\n255\n255 0 0 0 255 0\n")
    with pytest.raises(ImageError, match="looks like text"):
        load_image(b"P1 is the first page of the manual\n")


def _ftyp(major: bytes, *compatible: bytes) -> bytes:
    body = major + b"\x00\x00\x00\x00" + b"".join(compatible)
    return struct.pack(">I", 8 + len(body)) + b"ftyp" + body + b"\x00" * 64


@pytest.mark.parametrize(("major", "compatible", "name"), [
    (b"heis", (b"mif1", b"heic"), "HEIC"),
    (b"hevc", (b"msf1",), "HEIC"),
    (b"avis", (b"msf1", b"avif"), "AVIF"),
    (b"msf1", (b"iso8",), "HEIF"),
    (b"mif1", (b"avif",), "AVIF"),  # the compatible brands name it
    (b"heic", (), "HEIC"),
    (b"avif", (), "AVIF"),
    (b"isom", (b"mp41",), "ISO media \\(MP4/MOV family, brand 'isom'\\)"),
])
def test_iso_media_brands_are_named(major: bytes, compatible: tuple[bytes, ...],
                                    name: str) -> None:
    """F8: the sequence brands (``heis``, ``hevc``, ``avis``, ``msf1``) got "unknown
    format"."""
    with pytest.raises(ImageError, match=f"^{name} files are not supported"):
        load_image(_ftyp(major, *compatible))
