"""Boxes the detector scored under its threshold, taken back by rule (vision.weak_boxes):
a weakly seen tile completing a win, a weakly seen flower laid with the flowers — tried
end to end through ``recognize_detections``."""

from __future__ import annotations

import dataclasses

import numpy as np

from vision.classes import CLASSES
from vision.detections import Detections
from vision.layout_scene import SceneBuilder
from vision.recognize import recognize_detections


def _one_tile_weak(d: Detections, index: int, code: str | None = None,
                   shift: float = 0.0) -> Detections:
    """``d`` with tile ``index`` moved to ``weak`` (score 0.25; read as ``code`` if given,
    moved ``shift`` tile heights down)."""
    import dataclasses

    keep = [i for i in range(len(d)) if i != index]
    weak = d.select([index])
    box = weak.boxes.copy()
    box[:, [1, 3]] += shift * float(box[0, 3] - box[0, 1])
    ids = weak.class_ids if code is None else np.array([CLASSES.index(code)], np.int64)
    weak = Detections(box, ids, np.array([0.25], np.float32), weak.rotations, ids[:, None],
                      np.array([[0.9]], np.float32), d.image_size)
    return dataclasses.replace(d.select(keep), weak=weak)


def _won() -> Detections:
    return SceneBuilder().standing("123m456p789s11sEE").win("E").detections()


def test_a_weakly_seen_tile_that_completes_a_win_is_taken() -> None:
    """Rule-aware correction: a claimed-size hand one tile short takes a box the detector
    scored under its threshold when it lies in the hand and the reading then wins."""
    d = _won()
    five = d.codes.index("5p")
    r = recognize_detections(_one_tile_weak(d, five), "mcr")
    assert r.hand_text is not None and "456p" in r.hand_text
    assert r.score is not None
    assert any(n.startswith("took a weakly seen tile (5p, score 0.25") for n in r.notes)
    assert len(r.codes) == len(d)


def test_a_weak_tile_that_makes_no_win_is_left_out() -> None:
    d = _won()
    r = recognize_detections(_one_tile_weak(d, d.codes.index("5p"), code="9m"), "mcr")
    assert not any("weakly seen" in n for n in r.notes)
    assert len(r.codes) == len(d) - 1 and r.score is None


def test_a_weak_tile_away_from_the_hand_is_left_out() -> None:
    d = _won()
    r = recognize_detections(_one_tile_weak(d, d.codes.index("5p"), shift=4.0), "mcr")
    assert not any("weakly seen" in n for n in r.notes)


def _short_with_weak_over_the_last_e(code: str) -> Detections:
    """123m456p789s11sEE (one tile short: waits on 1s and E) and a weak box read as
    ``code`` lying 60 % over the last kept E (shifted 0.4 tile widths along the row)."""
    d = _won()
    short = _one_tile_weak(d, len(d) - 1, code=code)
    assert short.weak is not None
    kept_e = short.boxes[-1]
    width = float(kept_e[2] - kept_e[0])
    over = short.weak.boxes.copy()
    over[0] = kept_e + np.array([0.4 * width, 0, 0.4 * width, 0], np.float32)
    return dataclasses.replace(short, weak=dataclasses.replace(short.weak, boxes=over))


def test_a_weak_second_look_at_a_kept_tile_is_not_taken_as_a_missed_one() -> None:
    """Never force a win: a weak box read as E lying 60 % over a kept E is a second look
    at that tile, not a tile missed. Taken, it would make a pung of E and a win (on
    synthetic waiting hands 3 of 9 false wins at the table were such boxes); it is left
    out, and the hand is read as waiting on 1s and E."""
    r = recognize_detections(_short_with_weak_over_the_last_e("E"), "mcr")
    assert not any("weakly seen" in n for n in r.notes) and r.score is None
    assert r.waits is not None and sorted(w.tile for w in r.waits.waits) == ["1s", "E"]


def test_a_weak_box_over_a_tile_of_another_face_may_complete_the_hand() -> None:
    """In rows tilted near 45° the axis-aligned boxes of neighbours overlap much; a weak
    box over a kept tile that reads another face is a missed neighbour and may be taken
    (a real photo's two missed tiles lay 70 % and 85 % over their neighbours)."""
    r = recognize_detections(_short_with_weak_over_the_last_e("1s"), "mcr")
    assert any("weakly seen tile (1s" in n for n in r.notes) and r.score is not None


def test_no_weak_tile_is_taken_when_no_win_is_claimed() -> None:
    d = _won()
    r = recognize_detections(_one_tile_weak(d, d.codes.index("5p")), "mcr", {"win": False})
    assert not any("weakly seen" in n for n in r.notes)


def test_a_weak_back_that_makes_a_kong_of_unknown_kind_is_left_out() -> None:
    """A guess must end in a hand the scorer takes: four backs make a concealed kong
    shown all face down, whose kind nobody knows ("turn one tile face up"). Here the
    three "backs" are blank white dragons (a pung, 刻子), and the weak box is the fourth
    one: the back/white rule reads the pung, the weak box stays out."""
    b = SceneBuilder().standing("456p33345sFF")
    for _ in range(4):
        b.standing("P").uncertain([("back", 0.9), ("P", 0.1)])
    d = b.win("3s").detections()
    fourth = len(d) - 2  # the last "back", before the winning 3s
    weak = dataclasses.replace(d.select([fourth]), confidences=np.full(1, 0.2, np.float32))
    d = dataclasses.replace(d.select([i for i in range(len(d)) if i != fourth]), weak=weak)
    r = recognize_detections(d, "mcr")
    assert not any("weakly seen" in n for n in r.notes)
    assert r.unscorable is None and r.score is not None
    assert r.hand_text == "456p33345sFFPPP3s"


def _won_with_flowers() -> Detections:
    return SceneBuilder().standing("123m456p789s11sEE").win("E").flowers("2f5f").detections()


def test_a_weakly_seen_flower_laid_with_the_flowers_is_taken() -> None:
    """Flowers (花牌) score one fan each in MCR: a flower the detector scored under its
    threshold, lying with the hand's other flowers, is counted (and said in notes)."""
    d = _won_with_flowers()
    r = recognize_detections(_one_tile_weak(d, d.codes.index("5f")), "mcr")
    assert r.hand is not None and sorted(r.hand.flowers) == ["2f", "5f"]
    assert r.score is not None
    assert any(n.startswith("took a weakly seen flower (5f, score 0.25") for n in r.notes)
    assert len(r.codes) == len(d)


def test_a_flower_kept_under_the_detector_threshold_is_read_as_a_weakly_seen_one() -> None:
    """The manifest's ``bonus_conf`` keeps a box read as a flower from a lower score than
    ``conf``; a hand still takes such a flower only by the weakly-seen-flower rule (laid
    among the hand's flowers), so the reading is the one the detector's own threshold
    gives, with the note."""
    import dataclasses

    d = _won_with_flowers()
    scores = np.where(np.array(d.codes) == "5f", 0.35, 0.9).astype(np.float32)
    d = dataclasses.replace(d, confidences=scores, meta={"conf": 0.4, "confidence": "score"})
    r = recognize_detections(d, "mcr")
    assert r.hand is not None and sorted(r.hand.flowers) == ["2f", "5f"]
    assert any(n.startswith("took a weakly seen flower (5f, score 0.35") for n in r.notes)
    assert r.codes[-1] == "5f"  # taken from the weak boxes: appended after the others


def test_a_weak_flower_box_straddling_two_kept_flowers_is_not_taken() -> None:
    """WEAK_FLOWER_COVER: a weak box lying 0.55 or more over a kept box is a second look at
    the tiles already seen (the detector's commonest extra box over a row of flowers lies
    over parts of two of them), not a flower of its own."""
    d = _won_with_flowers()
    two = [i for i, c in enumerate(d.codes) if c in ("2f", "5f")]
    left, right = d.boxes[two[0]], d.boxes[two[1]]
    mid = left + 0.4 * (right - left)  # 0.6 over one flower, 0.4 over the next (choice2:
    # such boxes lay 0.57-0.64 over one of the two)
    weak = _one_tile_weak(d, two[1]).weak
    assert weak is not None
    weak = dataclasses.replace(weak, boxes=mid[None].astype(np.float32),
                               class_ids=np.array([CLASSES.index("7f")]),
                               topk_ids=np.array([[CLASSES.index("7f")]]))
    r = recognize_detections(dataclasses.replace(d, weak=weak), "mcr")
    assert r.hand is not None and sorted(r.hand.flowers) == ["2f", "5f"]
    assert not any("weakly seen" in n for n in r.notes)


def test_a_weak_box_read_as_a_flower_already_surely_kept_is_not_taken() -> None:
    """Each flower shows once (WEAK_FLOWER_SURE_P): a weak box whose likeliest bonus code
    is that of a flower kept and read at top-1 ≥ 0.9 is a second look at it, dice or a
    discard — not taken (training photos: 5 copies gained, none lost). Kept flowers read
    less surely (an unfamiliar set) do not bar it."""
    d = _won_with_flowers()
    r = recognize_detections(_one_tile_weak(d, d.codes.index("5f"), code="2f"), "mcr")
    assert r.hand is not None and r.hand.flowers == ("2f",)
    assert not any("weakly seen" in n for n in r.notes)
    unsure = SceneBuilder().standing("123m456p789s11sEE").win("E").flowers("2f")
    unsure.uncertain([("2f", 0.6), ("3f", 0.3)]).flowers("5f")
    d = unsure.detections()
    i = d.codes.index("5f")
    ids = np.array([[CLASSES.index("2f"), CLASSES.index("3f")]], np.int64)
    weak = dataclasses.replace(d.select([i]), class_ids=ids[:, 0], topk_ids=ids,
                               topk_probs=np.array([[0.9, 0.05]], np.float32),
                               confidences=np.full(1, 0.25, np.float32))
    d = dataclasses.replace(d.select([k for k in range(len(d)) if k != i]), weak=weak)
    r = recognize_detections(d, "mcr")
    assert any(n.startswith("took a weakly seen flower (2f") for n in r.notes)
    assert r.hand is not None and len(r.hand.flowers) == 2


def test_two_weak_boxes_read_as_the_same_flower_give_one_flower() -> None:
    """Each flower shows once (WEAK_FLOWER_SURE_P) also among the weak boxes taken: the
    first weak box read 2f at 0.95 is taken, a second one read 2f as surely is not."""
    d = SceneBuilder().standing("123m456p789s11sEE").win("E").flowers("2f5f7f").detections()
    two = [d.codes.index("2f"), d.codes.index("7f")]
    ids = np.array([[CLASSES.index("2f")]] * 2, np.int64)
    weak = dataclasses.replace(d.select(two), class_ids=ids[:, 0], topk_ids=ids,
                               topk_probs=np.full((2, 1), 0.95, np.float32),
                               confidences=np.array([0.3, 0.2], np.float32))
    d = dataclasses.replace(d.select([k for k in range(len(d)) if k not in two]), weak=weak)
    r = recognize_detections(d, "mcr")
    assert r.hand is not None and sorted(r.hand.flowers) == ["2f", "5f"]
    assert sum(n.startswith("took a weakly seen flower (2f") for n in r.notes) == 1


def test_a_weakly_seen_flower_is_taken_without_a_win_claimed() -> None:
    """A flower is never part of the hand's shape: a waiting hand takes it too."""
    d = _won_with_flowers()
    r = recognize_detections(_one_tile_weak(d, d.codes.index("5f")), "mcr", {"win": False})
    assert r.hand is not None and sorted(r.hand.flowers) == ["2f", "5f"]


def test_a_weak_box_read_as_a_kind_is_not_taken_as_a_flower() -> None:
    d = _won_with_flowers()
    r = recognize_detections(_one_tile_weak(d, d.codes.index("5f"), code="9m"), "mcr")
    assert r.hand is not None and r.hand.flowers == ("2f",)
    assert not any("weakly seen" in n for n in r.notes)


def test_a_weak_flower_away_from_the_hand_is_left_out() -> None:
    d = _won_with_flowers()
    r = recognize_detections(_one_tile_weak(d, d.codes.index("5f"), shift=5.0), "mcr")
    assert r.hand is not None and r.hand.flowers == ("2f",)
    assert not any("weakly seen" in n for n in r.notes)
