"""Fixtures shared by the test folders."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import cv2
import numpy as np
import pytest

PhotoAndTurned = Callable[[int], tuple[np.ndarray, np.ndarray]]
BENCH = Path(__file__).resolve().parents[1] / "bench"


@pytest.fixture(autouse=True)
def _forget_corrections() -> None:
    """Each test starts with no corrections kept (:data:`vision.rewrite.CORRECTIONS`, the
    last ones asked in a thread): a test that patches the scorer or the correction and
    asks a question an earlier test asked would else get the earlier answer."""
    rewrite = sys.modules.get("vision.rewrite")  # not imported: nothing kept
    if rewrite is not None:
        rewrite.CORRECTIONS.clear()


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


@pytest.fixture(scope="session")
def bench_module() -> Callable[[str], ModuleType]:
    """Load ``bench/<name>.py`` (scripts, not an installed package) as a module, a fresh
    one per call. (Here rather than in ``tests/bench/conftest.py``: two ``conftest.py``
    in folders without ``__init__.py`` clash under ``--doctest-modules``.)"""

    def load(name: str) -> ModuleType:
        spec = importlib.util.spec_from_file_location(name, BENCH / f"{name}.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # dataclasses look their module up while it loads
        spec.loader.exec_module(module)
        return module

    return load
