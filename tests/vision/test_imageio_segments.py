"""The JPEG header walk is bounded: marker segments before the first scan are counted
(:data:`vision.imageio.MAX_JPEG_HEADER_SEGMENTS`) and runs of fill bytes skipped in C, so
a 15 MB upload of empty segments costs milliseconds, not seconds, to refuse."""

from __future__ import annotations

import struct
import time

import cv2
import numpy as np
import pytest

from vision.imageio import MAX_JPEG_HEADER_SEGMENTS, ImageError, load_image


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
