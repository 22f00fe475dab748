"""Image loading after the image-input review: a TIFF whose size tags the check and libtiff
would read differently, a progressive JPEG of repeated scans, JPEG padding bytes, the
reduced decode of a nearly square turned photo, encoded bytes in an array, and error
messages that name the real problem."""

from __future__ import annotations

import os
import struct
import threading
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.imageio import (
    MAX_DECODABLE_PIXELS,
    MAX_JPEG_SCANS,
    ImageError,
    image_size_from_header,
    load_image,
    load_image_reduced,
    sniff_format,
)


def _encode(ext: str, img: np.ndarray, *params: int) -> bytes:
    ok, enc = cv2.imencode(ext, img, list(params))
    assert ok
    return enc.tobytes()


def _photo(h: int = 48, w: int = 64) -> np.ndarray:
    """A textured BGR picture (so every scan of a JPEG holds data)."""
    rng = np.random.default_rng(7)
    small = rng.integers(0, 255, (max(1, h // 8), max(1, w // 8), 3), np.uint8)
    return np.asarray(cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR), np.uint8)


def _with_exif_orientation(jpeg: bytes, orientation: int) -> bytes:
    ifd = struct.pack(">H", 1) + struct.pack(">HHIHH", 0x0112, 3, 1, orientation, 0)
    payload = b"Exif\x00\x00" + b"MM\x00*" + struct.pack(">I", 8) + ifd + struct.pack(">I", 0)
    return jpeg[:2] + b"\xff\xe1" + struct.pack(">H", len(payload) + 2) + payload + jpeg[2:]


# ------------------------------------------------------------------ 1: TIFF size tags
def _grey_tiff(width: int, height: int, mode: str = "plain") -> bytes:
    """A deflate-compressed grey TIFF of ``width × height`` zeros (little-endian).

    ``mode``: ``"plain"`` (LONG sizes), ``"duplicate"`` (ImageWidth and ImageLength each
    repeated with 10 after the real value: libtiff keeps the first), ``"long8"``
    (ImageWidth typed LONG8, its 8-byte value stored after the IFD)."""
    comp = zlib.compressobj(9)
    strip = comp.compress(b"\0" * (width * height)) + comp.flush()

    def long(v: int) -> bytes:
        return struct.pack("<I", v)

    def short(v: int) -> bytes:
        return struct.pack("<HH", v, 0)

    tags: list[tuple[int, int, bytes | None]] = [(256, 4, long(width))]
    if mode == "duplicate":
        tags.append((256, 4, long(10)))
    tags.append((257, 4, long(height)))
    if mode == "duplicate":
        tags.append((257, 4, long(10)))
    tags += [(258, 3, short(8)), (259, 3, short(8)), (262, 3, short(1)), (273, 4, None),
             (277, 3, short(1)), (278, 4, long(height)), (279, 4, long(len(strip)))]
    end_of_ifd = 8 + 2 + 12 * len(tags) + 4
    extra = b""
    if mode == "long8":
        tags[0] = (256, 16, long(end_of_ifd))
        extra = struct.pack("<Q", width)
    entries = b"".join(
        struct.pack("<HHI", tag, typ, 1) + (value if value is not None
                                            else long(end_of_ifd + len(extra)))
        for tag, typ, value in tags
    )
    return b"II*\0" + long(8) + struct.pack("<H", len(tags)) + entries + long(0) + extra + strip


def test_a_plain_tiff_of_long_sizes_still_loads() -> None:
    data = _grey_tiff(30, 20)
    assert image_size_from_header(data) == ("tiff", 30, 20)
    assert load_image(data).shape == (20, 30, 3)


def test_tiff_repeating_its_size_tags_is_refused_not_decoded_at_libtiffs_size() -> None:
    """libtiff keeps the first of a repeated tag (300×300 here), the old check the last
    (10×10): the check passed and the whole image was decoded."""
    data = _grey_tiff(300, 300, "duplicate")
    with pytest.raises(ImageError, match="ImageWidth tag appears twice"):
        load_image(data, max_pixels=1_000)
    with pytest.raises(ImageError, match="twice"):
        image_size_from_header(data)


def test_tiff_size_of_another_type_than_short_or_long_is_refused() -> None:
    """A LONG8's 4-byte value field is an offset: read as the value it gave a small size."""
    data = _grey_tiff(300, 300, "long8")
    with pytest.raises(ImageError, match=r"ImageWidth .*field type 16.*SHORT \(3\) or LONG"):
        load_image(data, max_pixels=1_000)


# ------------------------------------------------------------------ 2: JPEG scans
def _progressive(img: np.ndarray, *params: int) -> bytes:
    return _encode(".jpg", img, cv2.IMWRITE_JPEG_PROGRESSIVE, 1, *params)


def _repeat_last_scan(jpeg: bytes, times: int) -> bytes:
    last_sos, eoi = jpeg.rfind(b"\xff\xda"), len(jpeg) - 2
    assert jpeg[eoi:] == b"\xff\xd9"
    return jpeg[:eoi] + jpeg[last_sos:eoi] * times + jpeg[eoi:]


def test_progressive_jpeg_of_more_scans_than_the_limit_is_refused_before_decoding() -> None:
    data = _repeat_last_scan(_progressive(_photo()), MAX_JPEG_SCANS)
    with pytest.raises(ImageError, match=f"more than {MAX_JPEG_SCANS} scans"):
        load_image(data)
    with pytest.raises(ImageError, match="scans"):
        load_image_reduced(data, min_long_side=8)


def test_progressive_jpeg_of_ordinary_scans_still_loads() -> None:
    data = _progressive(_photo())
    assert data.count(b"\xff\xda") >= 6  # libjpeg's progression: several scans
    assert load_image(data).shape == (48, 64, 3)
    # a few repeats more (libjpeg warns, decodes): under the limit, still read
    assert load_image(_repeat_last_scan(data, 20)).shape == (48, 64, 3)


def test_scan_count_skips_restart_markers_and_stuffed_bytes() -> None:
    """Scans with RSTn markers in their data: those are not scans; repeated scans are."""
    data = _progressive(_photo(256, 256), cv2.IMWRITE_JPEG_RST_INTERVAL, 1)
    assert any(bytes([0xFF, m]) in data for m in range(0xD0, 0xD8))
    assert load_image(data).shape == (256, 256, 3)
    with pytest.raises(ImageError, match="scans"):
        load_image(_repeat_last_scan(data, MAX_JPEG_SCANS))


def test_sos_bytes_inside_a_comment_between_scans_are_not_counted() -> None:
    """An 0xFF 0xDA pair inside a segment is data, not a scan: the walk skips segments."""
    data = _progressive(_photo())
    second_sos = data.find(b"\xff\xda", data.find(b"\xff\xda") + 2)
    body = b"\xff\xda" * (MAX_JPEG_SCANS + 10)
    comment = b"\xff\xfe" + struct.pack(">H", len(body) + 2) + body
    padded = data[:second_sos] + comment + data[second_sos:]
    assert np.array_equal(load_image(padded), load_image(data))


def test_fill_bytes_and_tem_markers_between_scans_are_crossed_and_scans_still_counted(
) -> None:
    """Runs of 0xFF fill bytes and standalone TEM markers (0xFF 0x01) between scans are
    passed over as libjpeg passes them (the walk finds the next marker with a length in
    C now: a byte loop took seconds on a crafted 15 MB file), and the scans after them
    still count."""
    data = _progressive(_photo())
    last_sos, eoi = data.rfind(b"\xff\xda"), len(data) - 2
    scan = data[last_sos:eoi]
    padded = data[:eoi] + (b"\xff" * 500 + b"\xff\x01" * 500 + scan) * MAX_JPEG_SCANS + data[eoi:]
    with pytest.raises(ImageError, match="scans"):
        load_image(padded)
    few = data[:eoi] + (b"\xff" * 50 + b"\xff\x01" * 50 + scan) * 3 + data[eoi:]
    assert load_image(few).shape == (48, 64, 3)


def test_a_reserved_marker_with_a_made_up_length_hides_no_scan_from_the_count() -> None:
    """Second review: a marker 0x02-0xBF inside a scan with restart intervals was read as
    a segment, its made-up "length" jumping over the next scan header — libjpeg reads no
    length there and decodes the scan: 1,000 scans hidden so cost 19 s of decoding at
    12 MP. Only markers libjpeg follows with a length are walked as segments."""
    data = _progressive(_photo(), cv2.IMWRITE_JPEG_RST_INTERVAL, 1)
    eoi, last = len(data) - 2, data.rfind(b"\xff\xda")
    header = data[last : last + 2 + struct.unpack(">H", data[last + 2 : last + 4])[0]]
    scan = data[last + len(header) : eoi]
    first_rst = next(i for i in range(len(scan) - 1)
                     if scan[i] == 0xFF and 0xD0 <= scan[i + 1] <= 0xD7)
    unit = header + scan[:first_rst] + b"\xff\x02" + struct.pack(">H", 2 + len(header))
    with pytest.raises(ImageError, match="scans"):
        load_image(data[:eoi] + unit * MAX_JPEG_SCANS + data[eoi:])


def test_baseline_jpeg_is_not_scan_counted() -> None:
    """A baseline JPEG's scans each carry every block's data (no amplification)."""
    data = _encode(".jpg", _photo())
    assert load_image(data).shape == (48, 64, 3)


# ------------------------------------------------------------------ 4: JPEG padding
def test_jpeg_with_extraneous_bytes_between_segments_decodes_as_libjpeg_does() -> None:
    data = _encode(".jpg", _photo(96, 128))
    assert data[2:4] == b"\xff\xe0"  # APP0 (JFIF) first
    cut = 4 + struct.unpack(">H", data[4:6])[0]
    padded = data[:cut] + b"\x00\x00\xff\x00" + data[cut:]  # garbage and a stuffed FF 00
    assert image_size_from_header(padded) == ("jpeg", 128, 96)
    assert np.array_equal(load_image(padded), load_image(data))


# ------------------------------------------------------------------ 5: reduced, turned
@pytest.mark.parametrize(("w", "h", "min_long"), [(64, 57, 8), (2050, 2049, 1024)])
def test_reduced_decode_of_a_nearly_square_turned_jpeg_reports_the_turned_size(
    w: int, h: int, min_long: int
) -> None:
    """Sides that round to one length at a reduction gave no sign of the EXIF turn."""
    data = _with_exif_orientation(_encode(".jpg", _photo(h, w)), 6)
    full = load_image(data)
    assert full.shape[:2] == (w, h)  # turned: height = stored width
    img, size = load_image_reduced(data, min_long_side=min_long)
    assert size == (h, w) == (full.shape[1], full.shape[0])
    assert max(img.shape[:2]) >= min_long
    # boxes scale by full / reduced per axis: the reduced picture is turned as the full one
    assert (img.shape[0] > img.shape[1]) == (full.shape[0] > full.shape[1])


def test_reduced_decode_of_an_unturned_square_size_still_reduces() -> None:
    data = _encode(".jpg", _photo(64, 64))
    img, size = load_image_reduced(data, min_long_side=8)
    assert img.shape == (8, 8, 3) and size == (64, 64)


# ------------------------------------------------------------------ 6: encoded arrays
@pytest.mark.parametrize("shape", [(-1, 1), (1, -1), (-1,)])
def test_encoded_bytes_in_a_uint8_array_are_decoded_not_taken_as_pixels(
    shape: tuple[int, ...]
) -> None:
    data = _encode(".jpg", _photo())
    buf = np.frombuffer(data, np.uint8).reshape(shape)
    assert np.array_equal(load_image(buf), load_image(data))
    img, size = load_image_reduced(buf, min_long_side=8)
    assert size == (64, 48) and img.shape == (6, 8, 3)  # 1/8


def test_a_one_pixel_wide_grey_array_is_still_pixels() -> None:
    column = np.arange(50, dtype=np.uint8).reshape(-1, 1)
    assert load_image(column).shape == (50, 1, 3)


def test_a_flat_array_that_is_no_image_names_the_bytes_way() -> None:
    with pytest.raises(ImageError, match=r"tobytes\(\)"):
        load_image(np.zeros(100, np.uint8))


def test_encoded_array_still_checks_the_header_limits() -> None:
    buf = np.frombuffer(_encode(".png", _photo()), np.uint8).reshape(-1, 1)
    with pytest.raises(ImageError, match="too large"):
        load_image(buf, max_pixels=100)


# ------------------------------------------------------------------ 7: messages
def test_text_starting_with_bm_is_not_an_image_not_a_huge_bmp() -> None:
    text = b"BMW is a car maker and this is plain text, not a bitmap at all.\n"
    assert sniff_format(text) is None
    with pytest.raises(ImageError, match="not an image"):
        load_image(text)
    assert sniff_format(_encode(".bmp", _photo())) == "bmp"
    assert load_image(_encode(".bmp", _photo())).shape == (48, 64, 3)


def test_float_tiff_is_named_unsupported_not_corrupt() -> None:
    data = _encode(".tiff", np.full((8, 8, 3), 0.5, np.float32))
    with pytest.raises(ImageError, match="floating-point samples") as err:
        load_image(data)
    assert "corrupt" not in str(err.value)


def test_png_side_over_libpngs_limit_is_named_before_decoding() -> None:
    ihdr = struct.pack(">IIBBBBB", 1_000_001, 1, 8, 0, 0, 0, 0)
    crc = struct.pack(">I", zlib.crc32(b"IHDR" + ihdr) & 0xFFFFFFFF)
    data = b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + b"IHDR" + ihdr + crc
    with pytest.raises(ImageError, match="a side over 1,000,000 pixels"):
        load_image(data)


def test_decodable_pixel_ceiling_is_opencvs() -> None:
    assert MAX_DECODABLE_PIXELS == 2**30


def _feed(fifo: Path, payload: bytes) -> threading.Thread:
    """A daemon thread writing ``payload`` into the named pipe ``fifo`` once it is opened."""

    def write() -> None:
        with fifo.open("wb") as f:
            f.write(payload)

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    return writer


def _finish(fifo: Path, writer: threading.Thread) -> None:
    """Let a writer no one read from go (its open waits for a reader)."""
    if writer.is_alive():
        fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
        writer.join(5)
        os.close(fd)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_a_pipe_is_read_not_reported_empty(tmp_path: Path) -> None:
    data = _encode(".png", _photo())
    fifo = tmp_path / "photo.png"
    os.mkfifo(fifo)
    writer = _feed(fifo, data)
    try:
        assert np.array_equal(load_image(fifo), load_image(data))
    finally:
        _finish(fifo, writer)
    writer = _feed(fifo, b"")
    try:
        with pytest.raises(ImageError, match="not a regular file"):
            load_image(fifo)
    finally:
        _finish(fifo, writer)
