"""A weakly seen box beside the hand's row is no flower of the hand (issue 6, "never
override strong evidence"): :func:`vision.weak_boxes.take_weak_flowers` takes a box the
detector scored under its threshold only where a player lays flowers — in line with a
row of tiles the detector kept (the hand's row, or a row of flowers), not in a row of its
own. The bad case, hk-photos val ``hand_052`` (three copies): a die lying beside the
standing tiles was read 8f at score 0.16-0.19 and taken, so a hand read right by the
detector gained a flower (1 fan in MCR) it does not hold."""

from __future__ import annotations

import dataclasses

import numpy as np

from vision.classes import CLASSES
from vision.detections import Detections
from vision.layout_scene import SceneBuilder
from vision.recognize import recognize_detections


def _with_weak_box(d: Detections, like: int, code: str, down: float, along: float,
                   score: float = 0.18) -> Detections:
    """``d`` with one weak box read ``code`` (top-1 0.83, score ``score``): tile ``like``'s
    box moved ``down`` tile heights across the row and ``along`` tile widths along it."""
    box = d.boxes[like].copy()
    w, h = float(box[2] - box[0]), float(box[3] - box[1])
    box[[0, 2]] += along * w
    box[[1, 3]] += down * h
    ids = np.array([[CLASSES.index(code)]], np.int64)
    weak = Detections(box[None].astype(np.float32), ids[:, 0],
                      np.array([score], np.float32), d.rotations[[like]], ids,
                      np.array([[0.83]], np.float32), d.image_size)
    return dataclasses.replace(d, weak=weak)


def _won_with_a_flower() -> Detections:
    """A won MCR hand, 14 standing tiles in one row, the flower 7f laid at its end."""
    return SceneBuilder().standing("123m456p789s11sEE").win("E").flowers("7f").detections()


def test_a_weak_flower_box_beside_the_row_like_a_die_is_not_taken() -> None:
    """hand_052: a weak 8f box lying a tile's height off the row, alongside its standing
    tiles (no row of kept tiles holds it) stays out: the hand keeps its one flower."""
    d = _won_with_a_flower()
    r = recognize_detections(_with_weak_box(d, d.codes.index("9s"), "8f", 1.1, 0.0), "mcr")
    assert r.hand is not None and r.hand.flowers == ("7f",)
    assert not any("weakly seen flower" in n for n in r.notes)


def test_two_weak_flower_boxes_beside_the_row_like_dice_are_not_taken() -> None:
    """hand_052 (second copy): a pair of dice read 2f and 8f, touching each other beside
    the row — a row of weak boxes alone is no row of the hand's flowers."""
    d = _won_with_a_flower()
    one = _with_weak_box(d, d.codes.index("9s"), "2f", 1.1, 0.0)
    two = _with_weak_box(d, d.codes.index("9s"), "8f", 1.1, 1.0, score=0.11)
    assert one.weak is not None and two.weak is not None
    r = recognize_detections(dataclasses.replace(d, weak=one.weak.join(two.weak)), "mcr")
    assert r.hand is not None and r.hand.flowers == ("7f",)
    assert not any("weakly seen flower" in n for n in r.notes)


def test_a_weak_flower_box_in_line_after_the_kept_flower_is_still_taken() -> None:
    """The rule's good use stays (hk val: every right take lay in line with the row): a
    weak 8f box just past the kept 7f at the row's end is taken, with its note."""
    d = _won_with_a_flower()
    r = recognize_detections(_with_weak_box(d, d.codes.index("7f"), "8f", 0.0, 1.05), "mcr")
    assert r.hand is not None and sorted(r.hand.flowers) == ["7f", "8f"]
    assert any(n.startswith("took a weakly seen flower (8f") for n in r.notes)


def test_a_lone_weak_flower_set_apart_from_a_hand_with_no_flowers_is_still_taken() -> None:
    """A flower may lie alone, set apart from the hand (held-out art 000134, 000125: the
    scene's only flower, weakly seen, in a row of its own): with no flower laid elsewhere
    it is where the hand's flowers lie, and it is taken."""
    d = SceneBuilder().standing("123m456p789s11sEE").win("E").detections()
    r = recognize_detections(_with_weak_box(d, d.codes.index("5p"), "8f", 1.6, 0.0), "mcr")
    assert r.hand is not None and r.hand.flowers == ("8f",)
    assert any(n.startswith("took a weakly seen flower (8f") for n in r.notes)
