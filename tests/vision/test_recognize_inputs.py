"""``vision.recognize`` takes what ``load_image`` takes and names the image it read from a
path of either kind (session 73 review "detectin", finding 6)."""

from __future__ import annotations

import inspect
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.detections import Detections
from vision.recognize import recognize


def _no_tiles(pixels: np.ndarray) -> Detections:
    return Detections.empty((int(pixels.shape[1]), int(pixels.shape[0])))


@pytest.fixture
def photo(tmp_path: Path) -> Path:
    ok, enc = cv2.imencode(".png", np.full((48, 64, 3), 90, np.uint8))
    assert ok
    path = tmp_path / "hand.png"
    path.write_bytes(enc.tobytes())
    return path


def test_a_pathlib_path_keeps_the_image_name_as_a_str_does(photo: Path) -> None:
    """F6: ``recognize(Path(...))`` gave ``"image": null``."""
    by_str = recognize(str(photo), detector=_no_tiles)
    by_path = recognize(photo, detector=_no_tiles)
    assert by_str.image == by_path.image == str(photo)
    assert by_path.to_dict()["image"] == str(photo)


def test_bytes_and_arrays_of_every_kind_load_without_a_name(photo: Path) -> None:
    data = photo.read_bytes()
    pixels = cv2.imread(str(photo))
    for image in (data, bytearray(data), memoryview(data), pixels,
                  pixels.astype(np.uint16) * 257, pixels.astype(">u2") * 257):
        assert recognize(image, detector=_no_tiles).image is None


def test_the_type_hint_names_what_load_image_takes() -> None:
    """F6: the hint was ``str | bytes | NDArray[uint8]``: mypy refused a Path."""
    assert inspect.signature(recognize).parameters["image"].annotation == "ImageSource"
