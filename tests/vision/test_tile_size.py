"""Tiles small in the picture (``vision.tile_size``) and the note
``vision.recognize.recognize`` adds for them: under 30 px across, about half the hands of
the synthetic table scenes are misread, against a sixth of those with larger tiles."""

from __future__ import annotations

import numpy as np
import pytest

from vision.detections import Detections
from vision.layout_scene import SceneBuilder
from vision.recognize import Recognition, recognize
from vision.tile_size import SMALL_TILE_PX, SMALL_TILES, hand_tile_px, size_note


def _won_hand(scale: float) -> Detections:
    """A winning hand, its tiles ``scale`` times the builder's size, laid from (20, 20)."""
    b = SceneBuilder().standing("123m456p789sEEEN").win("N")
    return b.detections(scale=scale, origin=(20.0, 20.0))


def _recognize(d: Detections) -> Recognition:
    w = int(d.boxes[:, 2].max()) + 40
    h = int(d.boxes[:, 3].max()) + 40
    lit = np.full((h, w, 3), 220, np.uint8)  # not dark (vision.exposure.dark_note)
    return recognize(lit, "mcr", detector=lambda image: d)


def test_the_hand_tile_size_is_the_median_short_side_of_its_rows_boxes() -> None:
    d = _won_hand(1.0)
    short = np.minimum(d.boxes[:, 2] - d.boxes[:, 0], d.boxes[:, 3] - d.boxes[:, 1])
    assert hand_tile_px(d.boxes, [list(range(len(d)))]) == pytest.approx(float(np.median(short)))
    assert hand_tile_px(d.boxes, [[]]) is None


def test_small_tiles_get_a_note_that_a_closer_photo_reads_better() -> None:
    """Rule: hand tiles under ``SMALL_TILE_PX`` (30 px) across get the note; the reading
    itself is unchanged (the same hand and score as at full size)."""
    big = _recognize(_won_hand(1.0))
    small_d = _won_hand(0.5)
    px = hand_tile_px(small_d.boxes, [list(range(len(small_d)))])
    assert px is not None and px < SMALL_TILE_PX
    small = _recognize(small_d)
    assert big.score is not None and small.score is not None
    assert small.hand_text == big.hand_text and small.score.total == big.score.total
    notes = [n for n in small.notes if SMALL_TILES in n]
    assert len(notes) == 1 and f"about {px:.0f} px" in notes[0]
    assert any(SMALL_TILES in n for n in small.to_dict()["notes"])
    assert not any(SMALL_TILES in n for n in big.notes)


def test_tiles_of_thirty_pixels_or_more_get_no_note() -> None:
    assert size_note(SMALL_TILE_PX) is None
    assert size_note(SMALL_TILE_PX - 0.5) is not None

