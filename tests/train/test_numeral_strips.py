"""Top strips for the numeral reader (train/classifier/numeral_strips.py): the upright
strip of a set with its numeral on top carries that numeral, a strip at another turn and
a set with none carry *none*, every strip is cut at the served size."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

import numpy as np
import pytest

pytest.importorskip("PIL", reason="procedural art needs Pillow (dev extra)")

from vision.numeral import STRIP_SIZE
from vision.synth import procedural as proc

needs_font = pytest.mark.skipif(
    not proc.usable_fonts(), reason="no CJK font installed (apt-get install fonts-noto-cjk)")


@pytest.fixture(scope="module")
def strips(train_module: Callable[[str], ModuleType]) -> ModuleType:
    return train_module("classifier/numeral_strips")


def test_labels_are_the_numeral_when_printed_on_top_else_none(strips: ModuleType) -> None:
    assert [strips.label_of(c, True) for c in ("1f", "4f", "5f", "8f")] == [0, 3, 0, 3]
    assert strips.label_of("3f", False) == strips.NONE == 4
    assert "gnome-postmodern" in strips.NUMERAL_ON_TOP  # measured on, never trained on
    assert "kmahjongg-traditional" not in strips.NUMERAL_ON_TOP


def test_each_cut_gives_the_upright_strip_and_wrong_turns_labelled_none(
    strips: ModuleType,
) -> None:
    img = np.full((200, 200, 3), 90, np.uint8)
    tiles = [{"box": [40, 40, 100, 120], "rotation": 90, "code": "2f"}]
    rng = np.random.default_rng(0)
    s, labels, classes, upright = strips.tile_strips(img, tiles, [1], 2, 2, 0.06, rng)
    assert len(s) == 6 and all(x.shape == (3, *STRIP_SIZE) for x in s)
    assert labels == [1, 4, 4, 1, 4, 4] and upright == [True, False, False] * 2
    assert len(set(classes)) == 1


@needs_font
def test_flat_numbered_faces_give_labelled_strips(strips: ModuleType) -> None:
    part = strips.flat_style((0, 3, 1, 0.06, 0.5, 0.5, 0.1))
    assert part["strips"].shape == (16, 3, *STRIP_SIZE)
    up = part["upright"]
    assert up.sum() == 8 and (part["labels"][~up] == 4).all()
    numerals = part["labels"][up]
    assert sorted(numerals.tolist()) in ([0, 0, 1, 1, 2, 2, 3, 3], [4] * 8)
    again = strips.flat_style((0, 3, 1, 0.06, 0.5, 0.5, 0.1))
    assert np.array_equal(part["strips"], again["strips"])  # seeded


@needs_font
def test_a_close_up_scene_of_a_numbered_style_gives_strips(strips: ModuleType) -> None:
    part = strips._scene((0, "fresh-numbered", 5, 1, 1, 0.06, 0.0, 0.0, 0.0))
    n = len(part["labels"])
    assert n > 0 and part["strips"].shape == (n, 3, *STRIP_SIZE)
    assert part["upright"].sum() == n // 2
