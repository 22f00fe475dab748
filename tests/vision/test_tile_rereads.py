"""Backs and blank white dragons, boxes across two tiles (vision.tile_rereads), end to end
through ``recognize_detections``."""

from __future__ import annotations

import numpy as np

from vision.classes import CLASSES
from vision.detections import Detections
from vision.layout_scene import SceneBuilder
from vision.recognize import recognize_detections


def _won() -> Detections:
    return SceneBuilder().standing("123m456p789s11sEE").win("E").detections()


def test_a_white_dragon_read_as_a_tile_back_is_reread_when_that_makes_the_win() -> None:
    """A blank white dragon (白) looks like a tile's back: read as a back it is dropped
    from the hand (a face-down tile outside a concealed kong) and no win is left; read as
    P — its close second — the hand wins, so it is re-read and listed as a correction."""
    b = SceneBuilder().standing("123m456p789sPP").standing("P")
    b.uncertain([("back", 0.55), ("P", 0.4)]).standing("E").win("E")
    r = recognize_detections(b.detections(), "mcr")
    assert r.hand_text == "123m456p789sPPPEE" and r.score is not None
    [change] = [c for c in r.to_dict()["corrections"] if c["from"] == "back"]
    assert change["to"] == "P"
    assert any("back and a blank white dragon" in n for n in r.notes)


def test_a_back_standing_among_the_hand_is_reread_as_white_even_when_sure() -> None:
    """Face-down tiles show only in a concealed kong: a back among the standing tiles is
    impossible in a hand shown as a win (the layout drops it), so its white-dragon
    reading is tried however unlikely — and kept because the hand then wins."""
    b = SceneBuilder().standing("123m456p789sPP").standing("P")
    b.uncertain([("back", 0.95), ("P", 0.04)]).standing("E").win("E")
    r = recognize_detections(b.detections(), "mcr")
    assert r.hand_text == "123m456p789sPPPEE" and r.score is not None


def test_a_back_without_a_white_dragon_reading_is_not_reread() -> None:
    b = SceneBuilder().standing("123m456p789sPP").standing("P")
    b.uncertain([("back", 0.95), ("1p", 0.04)]).standing("E").win("E")
    r = recognize_detections(b.detections(), "mcr")
    assert r.score is None
    assert not any("white dragon" in n for n in r.notes)


def test_a_sure_white_dragon_is_not_reread_as_a_back() -> None:
    """The other way round the 10x bound holds: a P read surely is not turned face down
    to make a concealed kong."""
    b = SceneBuilder().standing("123m456p789sN").standing("E", apart=True)
    b.uncertain([("back", 0.99)]).standing("EE").standing("E")
    b.uncertain([("P", 0.95), ("back", 0.04)]).standing("N", apart=True)
    r = recognize_detections(b.detections(), "mcr")
    assert r.score is None
    assert not any("white dragon" in n for n in r.notes)


def _with_box_across(d: Detections, left: int, code: str) -> Detections:
    """``d`` plus a tile-sized box lying across tile ``left`` (65 % of it) and the next
    one, read as ``code`` with p 0.9 and score 0.6."""
    a = d.boxes[left]
    x = a[0] + 0.35 * (a[2] - a[0])
    box = np.array([[x, a[1], x + a[2] - a[0], a[3]]], np.float32)
    k = d.topk_ids.shape[1]
    ids = np.full((1, k), CLASSES.index(code), np.int64)
    probs = np.zeros((1, k), np.float32)
    probs[0, 0] = 0.9
    extra = Detections(box, ids[:, 0], np.array([0.6], np.float32), np.zeros(1, np.int64),
                       ids, probs, d.image_size)
    return d.join(extra)


def test_a_box_lying_across_two_tiles_is_left_out_when_the_hand_is_one_over() -> None:
    """A box over half of two touching tiles makes the hand one tile too many; left out,
    the hand wins, so it is left out (said in notes)."""
    d = _won()
    r = recognize_detections(_with_box_across(d, 4, "5p"), "mcr")
    assert r.hand_text == "123m456p78911sEEE" and r.score is not None
    assert any(n.startswith("left out a box (5p, score 0.60") for n in r.notes)
    assert len(r.codes) == len(d)


def test_a_box_across_two_tiles_stays_when_leaving_it_out_makes_no_win() -> None:
    d = SceneBuilder().standing("123m456p789s11sEN").win("E").detections()
    r = recognize_detections(_with_box_across(d, 4, "5p"), "mcr")
    assert r.score is None and not any(n.startswith("left out a box") for n in r.notes)
