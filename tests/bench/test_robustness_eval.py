"""The photo changes of ``bench/robustness_eval.py``: each is what its name says, and the
same on every run."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest


@pytest.fixture(scope="module")
def bench(bench_module: Callable[[str], ModuleType]) -> ModuleType:
    return bench_module("robustness_eval")


def _photo() -> np.ndarray:
    rng = np.random.default_rng(3)
    img = np.full((64, 80, 3), 180, np.uint8)
    img[20:44, 30:50] = rng.integers(0, 80, (24, 20, 3), dtype=np.uint8)  # a dark glyph
    return img


def test_every_change_keeps_a_colour_photo_and_repeats_itself(bench: ModuleType) -> None:
    img = _photo()
    for name, change in bench.CONDITIONS.items():
        if change is None:
            continue
        a = change(img, bench.photo_rng(0, name, Path("x.jpg")))
        b = change(img, bench.photo_rng(0, name, Path("x.jpg")))
        assert a.dtype == np.uint8 and a.ndim == 3 and a.shape[2] == 3, name
        assert np.array_equal(a, b), name
        assert not np.array_equal(a, img), name


def test_the_changes_do_what_their_names_say(bench: ModuleType) -> None:
    img = _photo()
    rng = np.random.default_rng(0)
    assert bench.dim(img, rng).mean() < 0.5 * img.mean()
    assert bench.overexposed(img, rng).mean() > img.mean()
    warm = bench.warm_light(img, rng).astype(float)
    assert warm[..., 2].mean() > warm[..., 0].mean()  # red over blue (BGR)
    assert bench.half_size(img, rng).shape == (32, 40, 3)
    turned = bench.upside_down(img, rng)
    assert turned[0, 0].tolist() == img[-1, -1].tolist()
    assert np.array_equal(bench.upside_down(turned, rng), img)  # twice: as taken
    side = bench.quarter_turn(img, rng)
    assert side.shape == (80, 64, 3) and side[0, -1].tolist() == img[0, 0].tolist()
    def edges(x: np.ndarray) -> float:
        return float(np.abs(np.diff(x.astype(float), axis=1)).mean())

    assert edges(bench.blur(img, rng)) < edges(img)
    assert np.abs(bench.noise(img, rng).astype(float) - img).std() > 5


def test_another_seed_draws_other_changes(bench: ModuleType) -> None:
    img = _photo()
    a = bench.noise(img, bench.photo_rng(0, "noise", Path("x.jpg")))
    b = bench.noise(img, bench.photo_rng(1, "noise", Path("x.jpg")))
    assert not np.array_equal(a, b)


def test_boxes_found_on_a_turned_photo_are_turned_back_onto_the_photo_as_taken(
    bench: ModuleType,
) -> None:
    """A box drawn on the photo, found on its turned copy, lands on itself again (the
    matching at IoU 0.5 depends on it); so does a tile's rotation."""
    import cv2

    from vision.detections import Detections

    img = np.zeros((60, 100), np.uint8)
    img[10:30, 40:55] = 255  # a tile, upright, at x 40-55, y 10-30
    for name, quarters in bench.TURNED.items():
        turned = bench.CONDITIONS[name](cv2.cvtColor(img, cv2.COLOR_GRAY2BGR), None)[..., 0]
        ys, xs = np.nonzero(turned)
        found = Detections.from_lists(
            [[xs.min(), ys.min(), xs.max() + 1, ys.max() + 1]], ["1m"],
            rotations=[90 * quarters], image_size=(turned.shape[1], turned.shape[0]))
        back = bench.turned_back(found, quarters)
        assert back.boxes.tolist() == [[40.0, 10.0, 55.0, 30.0]], name
        assert back.rotations.tolist() == [0] and back.image_size == (100, 60), name
