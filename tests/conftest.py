"""Fixtures shared by the test folders."""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np
import pytest

PhotoAndTurned = Callable[[int], tuple[np.ndarray, np.ndarray]]


@pytest.fixture
def photo_and_turned() -> PhotoAndTurned:
    """``make(seed)``: a 96 px "photo" and the export's copy of it turned 30°, its corners
    filled black (the mark ``vision.evaluate.untouched_copies`` reads as a turned copy)."""

    def make(seed: int) -> tuple[np.ndarray, np.ndarray]:
        rng = np.random.default_rng(seed)
        photo = cv2.resize(rng.integers(60, 255, (16, 16, 3), dtype=np.uint8), (96, 96))
        turn = cv2.getRotationMatrix2D((48, 48), 30, 1.0)
        return photo, cv2.warpAffine(photo, turn, (96, 96), borderValue=(0, 0, 0))

    return make
