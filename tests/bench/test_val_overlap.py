"""``bench/val_overlap.py``: each val photo is banded by the training photo whose labelled
tiles it shares most, and the bands' figures add up to the whole."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from vision.classes import CLASSES
from vision.evaluate import ImageResult, Sample


@pytest.fixture(scope="module")
def bench(bench_module: Callable[[str], ModuleType]) -> ModuleType:
    return bench_module("val_overlap")


def _sample(name: str, codes: list[str], size: float = 0.1) -> Sample:
    rows = [[CLASSES.index(c), 0.1 + 0.1 * i, 0.5, size, size] for i, c in enumerate(codes)]
    return Sample(Path(name), np.asarray(rows, np.float64).reshape(-1, 5))


def _tiles(notation: str) -> Counter[str]:
    """Tile codes written apart by spaces, as a multiset."""
    return Counter(notation.split())


def test_the_original_copy_gives_a_photos_tiles(bench: ModuleType) -> None:
    # the un-augmented copy has the tightest boxes; a turned copy lost a tile at its corner
    photo = ["1m", "1m", "E"]
    tiles = bench.tiles_by_photo([_sample("p_jpg.rf.a.jpg", photo[:2], 0.2),
                                  _sample("p_jpg.rf.b.jpg", photo, 0.1)])
    assert tiles == {"p_jpg": Counter(photo)}


def test_a_val_photo_is_banded_by_the_training_photo_it_shares_most_tiles_with(
        bench: ModuleType) -> None:
    val = {"same": _tiles("1m 2m 3m E"), "most": _tiles("1p 2p 3p 4p 5p"),
           "other": Counter(["9s", "C"]), "alone": Counter(["F"])}
    train = {"a": _tiles("E 3m 2m 1m"), "b": _tiles("1p 2p 3p 4p 6p"),
             "c": Counter(["9s"])}
    near = bench.closest(val, train)
    assert near["same"] == (1.0, "a")  # the same tiles, in another order
    assert near["most"] == (0.8, "b")
    assert near["other"] == (0.5, "c")
    assert near["alone"] == (0.0, None)  # no training photo shares a tile
    assert [bench.band(near[k][0]) for k in ("same", "most", "other", "alone")] == [
        "same tiles", "most tiles", "others", "others"]


def test_the_bands_add_up_to_all_val_copies(bench: ModuleType) -> None:
    overlaps = {"s": (1.0, "a"), "m": (0.9, "b"), "o": (0.2, "c")}
    results = [
        ImageResult("s.rf.1.jpg", 4, 4, 0, 0), ImageResult("s.rf.2.jpg", 4, 3, 1, 1),
        ImageResult("m.rf.1.jpg", 5, 5, 0, 0),
        ImageResult("o.rf.1.jpg", 2, 2, 0, 0), ImageResult("o.rf.2.jpg", 2, 1, 0, 1),
    ]
    rows = {r["band"]: r for r in bench.band_figures(results, overlaps)}
    assert rows["same tiles"]["copies"] == 2 and rows["same tiles"]["images_all_right"] == 0.5
    assert rows["most tiles"]["images_all_right"] == 1.0
    assert rows["all"]["copies"] == 5 and rows["all"]["photos"] == 3
    assert rows["all"]["images_all_right"] == 0.6
    assert rows["all but same tiles"]["copies"] == 3
    assert rows["all but same tiles"]["images_all_right"] == pytest.approx(2 / 3, abs=1e-4)
    # F1 over all copies: 15 right of 16 found, of 17 tiles
    p, r = 15 / 16, 15 / 17
    assert rows["all"]["f1"] == pytest.approx(2 * p * r / (p + r), abs=1e-4)
