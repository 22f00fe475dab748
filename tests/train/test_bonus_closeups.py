"""Bonus-tile close-up crops for the bonus reader (train/classifier/bonus_closeups.py):
every crop a face-up season or flower with its code and rotation, cut at the asked size,
the same for the same seed, and a clear error for an art set without bonus tiles."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

import numpy as np
import pytest

pytest.importorskip("PIL", reason="procedural art needs Pillow (dev extra)")

from vision.classes import BONUS, class_id
from vision.synth import procedural as proc
from vision.synth.art import ArtError, ArtSet

needs_font = pytest.mark.skipif(
    not proc.usable_fonts(), reason="no CJK font installed (apt-get install fonts-noto-cjk)")


@pytest.fixture(scope="module")
def closeups(train_module: Callable[[str], ModuleType]) -> ModuleType:
    return train_module("classifier/bonus_closeups")


@needs_font
def test_fresh_style_scene_gives_bonus_crops_with_code_and_rotation(closeups: ModuleType) -> None:
    part = closeups._scene((0, "fresh-varied", 7, 48, 2, 0.06))
    n = len(part["classes"])
    assert n > 0 and n % 2 == 0  # two variants of every tile
    assert part["crops"].shape == (n, 3, 48, 48) and part["crops"].dtype == np.uint8
    assert set(part["classes"].tolist()) <= {class_id(c) for c in BONUS}
    assert set(part["rotations"].tolist()) <= {0, 1, 2, 3}
    again = closeups._scene((0, "fresh-varied", 7, 48, 2, 0.06))
    assert np.array_equal(part["crops"], again["crops"])
    other = closeups._scene((1, "fresh-varied", 7, 48, 2, 0.06))
    assert not np.array_equal(part["crops"][:1], other["crops"][:1])


@needs_font
def test_a_fresh_style_has_the_eight_bonus_faces_only(closeups: ModuleType) -> None:
    art = closeups._fresh_art("flower", np.random.default_rng(0))
    assert isinstance(art, ArtSet) and art.codes == BONUS and art.has_bonus


def test_an_art_set_without_bonus_tiles_is_refused(closeups: ModuleType,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from vision.synth import art as art_mod

    no_bonus = ArtSet("plain", {"1m": [np.zeros((8, 6, 3), np.uint8)]})
    monkeypatch.setattr(art_mod, "load_art", lambda name: no_bonus)
    with pytest.raises(ArtError, match="no bonus tiles"):
        closeups._bonus_art("plain-test")
