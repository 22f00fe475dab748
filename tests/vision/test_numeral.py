"""The numeral reader's cut and arithmetic (:mod:`vision.numeral`): which of four a season
or flower is, read from the top strip of its upright face."""

from __future__ import annotations

import numpy as np
import pytest

from vision.numeral import (
    ANSWERS,
    BONUS_NUMERAL,
    fuse_numerals,
    numeral_odds,
    strips_batch,
    upright_top,
)


def _tile_with_mark(quarter: int) -> tuple[np.ndarray, tuple[int, int, int, int]]:
    """A 60 × 80 tile (upright: width 60, height 80) whose face has a white mark in its
    top-left corner, drawn lying at ``quarter`` clockwise quarter turns in a black frame."""
    face = np.zeros((80, 60, 3), np.uint8)
    face[4:20, 4:20] = 255
    lying = np.rot90(face, -quarter)  # turned clockwise as it lies
    img = np.zeros((200, 200, 3), np.uint8)
    h, w = lying.shape[:2]
    img[50:50 + h, 50:50 + w] = lying
    return img, (50, 50, 50 + w, 50 + h)


@pytest.mark.parametrize("quarter", [0, 1, 2, 3])
def test_the_strip_is_the_top_of_the_upright_face_whatever_turn_the_tile_lies_at(
    quarter: int,
) -> None:
    """The strip undoes the tile's clockwise turn: the corner mark of a tile lying at any
    quarter turn lands in the strip's top-left, and only at that turn."""
    img, box = _tile_with_mark(quarter)
    strip = upright_top(img, box, quarter, (48, 80), top=0.45, expand=0.0)
    assert strip.shape == (3, 48, 80)
    left, right = strip[:, :, :30].mean(), strip[:, :, 50:].mean()
    assert left > 60 and right < 5
    for other in {0, 1, 2, 3} - {quarter}:
        wrong = upright_top(img, box, other, (48, 80), top=0.45, expand=0.0)
        assert wrong[:, :, :30].mean() < left / 2


def test_a_box_outside_the_image_gives_a_black_strip() -> None:
    img = np.full((50, 50, 3), 200, np.uint8)
    assert upright_top(img, (60, 60, 90, 100), 0).max() == 0


def test_strips_batch_cuts_every_tile_at_all_four_turns_in_0_to_1() -> None:
    img, box = _tile_with_mark(1)
    batch = strips_batch(img, np.array([box, box], np.float32), (24, 40))
    assert batch.shape == (8, 3, 24, 40) and batch.dtype == np.float32
    assert batch.min() >= 0 and batch.max() <= 1
    assert np.array_equal(batch[:4], batch[4:])
    assert batch[1].mean() > max(batch[0].mean(), batch[2].mean(), batch[3].mean())


def test_numeral_odds_weigh_each_turns_reading_by_the_rotation_and_spread_none() -> None:
    """A strip read as *none* says nothing about the numeral; the odds are the strips'
    readings weighed by how likely the tile lies at each turn."""
    assert ANSWERS[-1] == "none"
    reads = np.zeros((1, 4, 5))
    reads[0, :, 4] = 1.0  # every turn: none
    reads[0, 0] = [0, 0, 0.8, 0, 0.2]  # upright: numeral 3
    odds = numeral_odds(reads, np.array([[0.5, 0.0, 0.5, 0.0]]))
    assert odds.sum() == pytest.approx(1.0)
    assert odds[0].tolist() == pytest.approx([0.15, 0.15, 0.55, 0.15])


def test_fusing_numerals_reranks_within_the_bonus_codes_and_keeps_their_mass() -> None:
    """Rule: the numeral re-ranks the eight codes by their numeral (product of experts); it
    does not decide whether the tile is a bonus tile at all; weight 0 leaves the reading
    as it was."""
    p = np.array([[0.05, 0.3, 0.05, 0.0, 0.0, 0.1, 0.0, 0.0]])  # mass 0.5: a season 2 likely
    odds = np.array([[0.05, 0.05, 0.85, 0.05]])  # the numeral says 3
    out = fuse_numerals(p, odds, 1.0)
    assert out.sum() == pytest.approx(0.5)
    assert int(out.argmax()) == 2  # 3f
    assert out[0, :4].sum() > out[0, 4:].sum()  # the seasons stay ahead of the flowers
    assert fuse_numerals(p, odds, 0.0) == pytest.approx(p)
    assert BONUS_NUMERAL.tolist() == [0, 1, 2, 3, 0, 1, 2, 3]


def test_fusing_leaves_a_row_with_no_mass_on_the_odds_numerals_unchanged() -> None:
    p = np.array([[0.4, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]])
    assert fuse_numerals(p, np.array([[0.0, 1.0, 0.0, 0.0]]), 1.0) == pytest.approx(p)
