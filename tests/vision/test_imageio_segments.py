"""The JPEG header walk is bounded: marker segments before the first scan are counted
(:data:`vision.imageio.MAX_JPEG_HEADER_SEGMENTS`) and runs of fill bytes skipped in C, so
a 15 MB upload of empty segments costs milliseconds, not seconds, to refuse."""

from __future__ import annotations

import struct
import time

import cv2
import numpy as np
import pytest

from vision.imageio import MAX_JPEG_HEADER_SEGMENTS, ImageError, _jpeg_header, load_image


def _jpeg(segments: bytes) -> bytes:
    """A small real JPEG with ``segments`` put right after its SOI marker."""
    rng = np.random.default_rng(5)
    img = rng.integers(0, 255, (48, 64, 3), dtype=np.uint8)
    ok, buf = cv2.imencode(".jpg", img)
    assert ok
    data = buf.tobytes()
    return data[:2] + segments + data[2:]


def _comment(text: bytes = b"") -> bytes:
    return b"\xff\xfe" + struct.pack(">H", len(text) + 2) + text


def test_a_jpeg_of_millions_of_empty_comment_segments_is_refused_quickly() -> None:
    data = _jpeg(_comment() * 2_500_000)  # 10 MB of empty COM segments
    start = time.perf_counter()
    with pytest.raises(ImageError, match="marker segments before the image data"):
        load_image(data)
    assert time.perf_counter() - start < 1.0  # before: about 3 s a header read


def test_a_jpeg_padded_with_megabytes_of_fill_bytes_reads_its_header_quickly() -> None:
    # fill bytes (0xFF) before a marker are allowed; libjpeg skips them, and so does the walk
    data = _jpeg(b"\xff" * 8_000_000 + _comment(b"x"))
    start = time.perf_counter()
    image = load_image(data)
    assert image.shape == (48, 64, 3)
    assert time.perf_counter() - start < 1.0


def test_a_camera_jpeg_with_hundreds_of_segments_still_decodes() -> None:
    # e.g. an ICC profile in many APP2 chunks and maker notes: well under the limit
    data = _jpeg(_comment(b"maker note") * (MAX_JPEG_HEADER_SEGMENTS - 10))
    assert load_image(data).shape == (48, 64, 3)


def test_megabytes_of_stuffed_pairs_between_header_segments_are_crossed_in_c() -> None:
    """libjpeg skips 0xFF 0x00 pairs between header segments (with a warning); the header
    walk crosses 10 MB of them with one regular-expression search, not a Python step per
    pair (1.1 s per walk before the seventy-first session's review, and an upload's header
    is walked three times)."""
    noise = np.random.default_rng(3).integers(0, 256, (96, 128, 3), np.uint8)
    ok, buf = cv2.imencode(".jpg", noise)
    assert ok
    data = buf.tobytes()
    first_scan = _jpeg_header(data).scan_at - 2
    crafted = data[:first_scan] + b"\xff\x00" * 5_000_000 + data[first_scan:]
    start = time.perf_counter()
    image = load_image(crafted)
    elapsed = time.perf_counter() - start
    assert np.array_equal(image, cv2.imdecode(np.frombuffer(crafted, np.uint8),
                                              cv2.IMREAD_COLOR))
    assert elapsed < 0.5, f"{elapsed:.2f} s"


def _sof_at(data: bytes) -> int:
    """Offset of the SOF0 marker's 0xC0 byte in a baseline JPEG from OpenCV."""
    at = data.find(b"\xff\xc0")
    assert at > 0
    return at + 1


def test_a_jpeg_of_more_than_8_bits_is_refused_naming_its_depth() -> None:
    """A 12- or 16-bit JPEG (medical, scientific, some raw converters) cannot be decoded
    by this OpenCV build; the error names the depth rather than calling the file corrupt
    (the seventy-first session's review found the "corrupt or truncated" text there)."""
    ok, buf = cv2.imencode(".jpg", np.full((16, 16, 3), 90, np.uint8))
    assert ok
    data = bytearray(buf.tobytes())
    data[_sof_at(bytes(data)) + 3] = 12  # the SOF's sample precision
    with pytest.raises(ImageError, match="12-bit samples and only 8-bit JPEGs"):
        load_image(bytes(data))


def test_an_undecodable_8_bit_jpeg_is_named_corrupt() -> None:
    """An 8-bit JPEG whose header parses but that the decoder refuses (here: its
    components name a quantisation table never defined) is called corrupt — the message
    was the text "None" for a moment (review 3 of the seventy-first session)."""
    ok, buf = cv2.imencode(".jpg", np.full((32, 32, 3), 90, np.uint8))
    assert ok
    data = bytearray(buf.tobytes())
    sof = _sof_at(bytes(data)) - 1
    for c in range(data[sof + 9]):
        data[sof + 10 + 3 * c + 2] = 3  # quantisation table 3, never defined
    with pytest.raises(ImageError, match="corrupt or truncated JPEG image"):
        load_image(bytes(data))
