"""An added kong (加杠, seed 003 鸣牌的摆放) the detector half sees — one box over the sideways
tile and the tile added on it (found by its shape, :mod:`vision.layout_stack`, read by
``vision.tile_rereads.split_stacked_box``), or the added tile only as a weak box
(``vision.weak_boxes.take_weak_added_tile``)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import scoring
from vision.classes import class_id
from vision.detections import Detections
from vision.layout import analyze
from vision.layout_scene import SceneBuilder
from vision.layout_stack import split_stack, stacked_boxes
from vision.recognize import recognize_detections


def needs_mcr() -> None:
    if "mcr" not in scoring.rule_sets():
        pytest.skip("the MCR rule set is not in scoring yet")


def merged(d: Detections, base: int, top: int) -> Detections:
    """``d`` with the boxes of ``base`` and ``top`` (the tile added on it) seen as one box
    (read as base was) — what the detector gives for a stack."""
    boxes = d.boxes.copy()
    boxes[base, :2] = np.minimum(boxes[base, :2], boxes[top, :2])
    boxes[base, 2:] = np.maximum(boxes[base, 2:], boxes[top, 2:])
    return dataclasses.replace(d, boxes=boxes).select([i for i in range(len(d)) if i != top])


def read_as(d: Detections, i: int, code: str) -> Detections:
    """``d`` with tile ``i`` read as ``code`` (its top-1)."""
    ids = d.class_ids.copy()
    ids[i] = class_id(code)
    topk = d.topk_ids.copy()
    topk[i, 0] = ids[i]
    return dataclasses.replace(d, class_ids=ids, topk_ids=topk)


def stack_scene(code: str = "P", sideways: int = 2) -> tuple[Detections, int]:
    """A won hand with an added kong of ``code`` whose two stacked tiles are one box: the
    detections and that box's index."""
    b = SceneBuilder().standing("123m456p789s9s").meld(code * 3, sideways=sideways, added=code)
    d = b.win("9s").row().detections()
    base, top = stacked_pair(d)
    return merged(d, base, top), base


def stacked_pair(d: Detections) -> tuple[int, int]:
    """The sideways tile of the scene's added kong and the tile on it (further up)."""
    side = [i for i in range(len(d)) if d.rotations[i] in (90, 270)]
    top, base = sorted(side, key=lambda i: float(d.boxes[i, 1]))
    return base, top


def test_a_stack_box_is_found_with_the_pairs_kind() -> None:
    d, base = stack_scene()
    [s] = stacked_boxes(d)
    assert s.tile == base and s.code == "P"
    assert s.across > 1.1 and s.beyond >= 0.2


def test_a_single_sideways_tile_is_no_stack() -> None:
    d = SceneBuilder().standing("123m456p789s9s").meld("PPP", sideways=2).win("9s").row()
    assert stacked_boxes(d.detections()) == []


def test_a_box_too_big_all_round_is_no_stack() -> None:
    """A loose box over an upright tile reaches past its neighbours on both sides across
    the row: not the shape of a tile with another lying beyond it."""
    d = SceneBuilder().standing("123m456p789s99s").standing("PPP", apart=True).win("9s")
    dets = d.row().detections()
    k = len(dets) - 2  # the last P
    boxes = dets.boxes.copy()
    h = boxes[k, 3] - boxes[k, 1]
    boxes[k, 1] -= 0.15 * h
    boxes[k, 3] += 0.15 * h
    boxes[k, 2] += 0.1 * h
    assert stacked_boxes(dataclasses.replace(dets, boxes=boxes)) == []


def test_a_stack_needs_a_pair_of_its_kind_beside_it() -> None:
    d, base = stack_scene()
    pair = [i for i in range(len(d)) if d.codes[i] == "P" and i != base]
    assert stacked_boxes(read_as(d, pair[0], "F")) == []


def test_split_gives_the_claimed_tile_in_the_row_and_the_added_tile_beyond() -> None:
    d, base = stack_scene()
    [s] = stacked_boxes(d)
    split = split_stack(d, s)
    assert len(split) == len(d) + 1
    assert split.codes[base] == split.codes[-1] == "P"
    pair = [i for i in range(len(d)) if d.codes[i] == "P" and i != base]
    # the claimed tile's near edge lines up with the pair's; the added tile lies beyond
    assert split.boxes[base, 3] == pytest.approx(d.boxes[pair, 3].mean(), abs=1.0)
    assert split.boxes[-1, 1] == pytest.approx(d.boxes[base, 1])
    [meld] = [m for m in analyze(split).melds if m.added]
    assert base in meld.detections and len(split) - 1 in meld.detections


@pytest.mark.parametrize(("sideways", "source"), [(0, 5), (1, 6), (2, 7)])
def test_added_kong_seen_as_one_box_is_read_with_its_claim_source(
    sideways: int, source: int
) -> None:
    """RULES.md notation: an added kong to a pung claimed from the left, opposite or right
    is [PPPP,5], [PPPP,6] or [PPPP,7]; the stacked pair sits where the pung's sideways
    tile lies."""
    needs_mcr()
    d, _ = stack_scene(sideways=sideways)
    r = recognize_detections(d, "mcr")
    assert r.hand_text == f"[PPPP,{source}]123m456p7899s9s"
    assert r.score is not None
    assert any("one box over two tiles" in n for n in r.notes)
    # the box was read as P already: split, not read otherwise — no "P instead of P"
    assert all(c.before != c.after for c in r.correction.best.changes)


@pytest.mark.parametrize("rotation", [270, 0])
def test_a_stack_misread_as_another_kind_takes_the_pairs_kind_and_lists_the_change(
    rotation: int,
) -> None:
    """Also when the box is read upright, so that as laid out the hand wins with a
    concealed pung of P: one tile's box cannot reach that far beyond its row."""
    needs_mcr()
    d, base = stack_scene()
    d = read_as(d, base, "8s")
    rot = d.rotations.copy()
    rot[base] = rotation
    d = dataclasses.replace(d, rotations=rot, rotation_probs=None)
    r = recognize_detections(d, "mcr")
    assert r.hand_text == "[PPPP,7]123m456p7899s9s"
    change = next(c for c in r.correction.best.changes if c.tile == base)
    assert (change.before, change.after) == ("8s", "P")


def test_a_stack_that_makes_no_win_is_left_as_read() -> None:
    """The split is a guess kept only for a win: a hand that does not win with the kong
    keeps its reading (here one standing tile short of a win either way)."""
    needs_mcr()
    b = SceneBuilder().standing("123m456p789s9s").meld("PPP", sideways=2, added="P").row()
    d = b.detections()
    base, top = stacked_pair(d)
    one_box = merged(d, base, top)
    assert [s.tile for s in stacked_boxes(one_box)] == [base]
    r = recognize_detections(one_box, "mcr")
    assert r.score is None
    assert not any("one box over two tiles" in n for n in r.notes)


def test_a_stack_read_upright_beats_the_concealed_pung_it_also_makes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """As laid out, the box read as one upright P makes a winning hand with a concealed
    pung PPP; the stack's shape says it is two tiles, and the added kong wins too."""
    needs_mcr()
    import vision.recognize as rec

    d, base = stack_scene()
    rot = d.rotations.copy()
    rot[base] = 0
    d = dataclasses.replace(d, rotations=rot, rotation_probs=None)
    assert recognize_detections(d, "mcr").hand_text == "[PPPP,7]123m456p7899s9s"
    monkeypatch.setattr(rec, "split_stacked_box", lambda *a: None)
    as_laid = recognize_detections(d, "mcr")
    assert as_laid.score is not None and as_laid.hand_text == "123m456p7899sPPP9s"


def test_a_box_cut_by_the_pictures_edge_is_no_stack() -> None:
    """The edge cuts a tile there, so its box's shape says nothing (hk val `hand_110`: a
    tilted row's last tile, cut by the edge, looked deeper than its neighbours)."""
    d, base = stack_scene()
    boxes = d.boxes - np.array([0, d.boxes[base, 1], 0, d.boxes[base, 1]], np.float32)
    size = (int(boxes[:, 2].max()) + 10, int(boxes[:, 3].max()) + 10)
    whole = dataclasses.replace(d, boxes=boxes, image_size=None)  # no edge known
    assert [s.tile for s in stacked_boxes(whole)] == [base]
    cut = dataclasses.replace(d, boxes=boxes, image_size=size)
    assert stacked_boxes(cut) == []


def test_the_two_tiles_read_from_a_stack_are_no_surer_than_the_pair_beside_it() -> None:
    d, base = stack_scene()
    conf = d.confidences.copy()
    pair = [i for i in range(len(d)) if d.codes[i] == "P" and i != base]
    conf[pair] = [0.5, 0.7]
    d = dataclasses.replace(d, confidences=conf)
    [s] = stacked_boxes(d)
    split = split_stack(d, s)
    assert split.confidences[base] == split.confidences[-1] == pytest.approx(0.5)


def test_degenerate_boxes_are_no_stack_and_no_error() -> None:
    """Boxes of zero size (a damaged detection) around a deep box: nothing to judge by."""
    d, base = stack_scene()
    boxes = d.boxes.copy()
    boxes[:, 3] = boxes[:, 1]  # every box flat
    boxes[base] = d.boxes[base]
    assert stacked_boxes(dataclasses.replace(d, boxes=boxes)) == []


def weak_added_scene(code: str = "P", weak_code: str | None = None) -> Detections:
    """A won hand with an added kong of ``code`` whose added tile the detector kept only
    as a weak box (read ``weak_code``, default ``code``)."""
    b = SceneBuilder().standing("123m456p789s9s").meld(code * 3, sideways=2, added=code)
    d = b.win("9s").row().detections()
    _, top = stacked_pair(d)
    weak = d.select([top])
    if weak_code is not None:
        weak = read_as(weak, 0, weak_code)
    weak = dataclasses.replace(weak, confidences=np.array([0.2], np.float32))
    kept = d.select([i for i in range(len(d)) if i != top])
    return dataclasses.replace(kept, weak=weak)


def test_a_weakly_seen_added_tile_makes_the_kong() -> None:
    """The pung wins as laid out ([PPP,3]); the weak box on its sideways tile, reading P,
    is the added tile (a kong counts 3: the hand is not short without it)."""
    needs_mcr()
    d = weak_added_scene()
    r = recognize_detections(d, "mcr")
    assert r.hand_text == "[PPPP,7]123m456p7899s9s"
    assert len(r.detections) == len(d) + 1
    assert any("lying on the sideways tile of a claimed pung of P" in n for n in r.notes)


def test_a_weak_box_of_another_kind_on_a_sideways_tile_is_not_taken() -> None:
    needs_mcr()
    r = recognize_detections(weak_added_scene(weak_code="8s"), "mcr")
    assert r.hand_text == "[PPP,3]123m456p7899s9s"


def test_a_weak_second_look_at_the_sideways_tile_is_not_taken() -> None:
    """A weak box lying mostly over the sideways tile itself, reading its kind, is a second
    look at that tile (``second_look``), not a tile on it."""
    needs_mcr()
    d = weak_added_scene()
    side = next(i for i in range(len(d)) if d.rotations[i] in (90, 270))
    assert d.weak is not None
    box = d.boxes[side].copy()
    box[[1, 3]] -= 0.3 * (box[3] - box[1])  # shifted a little: over 45 % of the tile
    d = dataclasses.replace(d, weak=dataclasses.replace(d.weak, boxes=box[None].copy()))
    r = recognize_detections(d, "mcr")
    assert r.hand_text == "[PPP,3]123m456p7899s9s"
