"""A weakly seen flower whose box lies over a kept tile of another face is the tile beside
it, not a second look at it (issue 6; :func:`vision.weak_boxes.take_weak_flowers`).

``WEAK_FLOWER_COVER`` refuses a weak box lying 0.55 or more over a kept box: a second look
at tiles already seen. But a second look at a tile reads that tile's face; the
axis-aligned boxes of tiles laid touching in rows tilted well off the picture's edges lie
that much over each other too, and their faces differ. So a weak box read as a flower for
sure (top-1 ≥ ``WEAK_FLOWER_SURE_P``) that no box under it reads is taken. The real cases:
hk-photos val ``396293123…5040`` (eight flowers in 2×2 blocks, rows at 24°: the 5f, scored
0.33, lay 0.60 over the 6f beside it and the reading lost it), training photos
``hand_024`` (41°) and ``hand_071`` (33°), each losing its 1f the same way."""

from __future__ import annotations

import dataclasses

import numpy as np

from vision.classes import CLASSES
from vision.detections import Detections
from vision.layout_scene import SceneBuilder
from vision.postprocess import box_cover
from vision.recognize import recognize_detections
from vision.weak_boxes import WEAK_FLOWER_COVER


def _won_with_flowers() -> Detections:
    """A won MCR hand of 14 standing tiles, the flowers 1f 2f 3f 4f laid in line after it."""
    return SceneBuilder().standing("123m456p789s11sEE").win("E").flowers("1f2f3f4f").detections()


def _weak_over_the_last_flower(d: Detections, code: str, p: float) -> Detections:
    """``d`` with one weak box (detector score 0.33) read ``code`` at top-1 ``p``: the last
    flower's box moved 0.4 of its width on along the row, so it lies 0.6 over that box —
    as the box of the next tile does in a row tilted near 45°."""
    last = d.codes.index("4f")
    box = d.boxes[last].copy()
    box[[0, 2]] += 0.4 * float(box[2] - box[0])
    ids = np.array([[CLASSES.index(code)]], np.int64)
    weak = Detections(box[None].astype(np.float32), ids[:, 0], np.array([0.33], np.float32),
                      d.rotations[[last]], ids, np.array([[p]], np.float32), d.image_size)
    assert float(box_cover(box, d.boxes).max()) >= WEAK_FLOWER_COVER  # the premise
    return dataclasses.replace(d, weak=weak)


def test_a_sure_flower_box_over_a_tile_of_another_face_is_taken() -> None:
    """The 5040 case: a weak box read 5f for sure over the kept 4f is the tile beside it,
    taken with its note — the hand holds five flowers."""
    r = recognize_detections(_weak_over_the_last_flower(_won_with_flowers(), "5f", 0.99), "mcr")
    assert any(n.startswith("took a weakly seen flower (5f") for n in r.notes)
    assert r.hand is not None and sorted(r.hand.flowers) == ["1f", "2f", "3f", "4f", "5f"]


def test_a_box_over_a_tile_reading_that_tiles_face_is_still_a_second_look() -> None:
    """Guard: the same box read 4f, the face of the tile it lies over, is a second look at
    that tile and stays out (the flower shows once)."""
    d = _won_with_flowers()
    d = dataclasses.replace(d, topk_probs=np.minimum(d.topk_probs, 0.8).astype(np.float32))
    r = recognize_detections(_weak_over_the_last_flower(d, "4f", 0.99), "mcr")
    assert not any("weakly seen flower" in n for n in r.notes)
    assert r.hand is not None and sorted(r.hand.flowers) == ["1f", "2f", "3f", "4f"]


def test_an_unsure_flower_box_over_a_tile_of_another_face_is_not_taken() -> None:
    """Guard: read 5f at only 0.8 (under WEAK_FLOWER_SURE_P), the box over the 4f may be
    a box straddling tiles of the row, and the cover rule keeps it out."""
    r = recognize_detections(_weak_over_the_last_flower(_won_with_flowers(), "5f", 0.8), "mcr")
    assert not any("weakly seen flower" in n for n in r.notes)
    assert r.hand is not None and sorted(r.hand.flowers) == ["1f", "2f", "3f", "4f"]
