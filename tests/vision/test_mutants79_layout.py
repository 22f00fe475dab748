"""Behaviours of the layout step (``vision.layout*``) that mutation testing (session 79)
found no test pinning; each test names the rule it pins."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from vision.detections import Detections
from vision.layout import analyze, flowers_among_standing, row_turn_votes
from vision.layout_edges import rows_past_edge
from vision.layout_geometry import canonical_frame, link_rows, stacked_on
from vision.layout_hand import apart_at_start
from vision.layout_rows import (
    LayoutParams,
    MeldLayout,
    RowItem,
    _flower_groups,
    back_runs,
    chunk_cost,
    hidden_kong_fits,
    is_chow,
    is_set,
)
from vision.layout_scene import SceneBuilder
from vision.layout_sideways import claim_margin, sideways_terms
from vision.layout_stack import split_stack, stacked_boxes


def _edge_row(n: int, x0: float, y0: float = 100.0, w: float = 40.0, h: float = 60.0,
              dy: float = 0.0) -> np.ndarray:
    """``n`` boxes ``w × h`` px from ``(x0, y0)``, one ``w`` apart along x and ``dy`` px
    apart along y (a tilted row when ``dy`` is not 0)."""
    return np.asarray(
        [(x0 + i * w, y0 + i * dy, x0 + (i + 1) * w, y0 + i * dy + h) for i in range(n)],
        np.float32)


def test_a_row_of_two_tiles_at_the_edge_may_run_past_it() -> None:
    """Edges: only rows of one tile say nothing; two tiles already give the pitch."""
    b = _edge_row(2, x0=200.0)  # ends at x = 280, next tile from 280 to 320
    assert rows_past_edge(b, [[0, 1]], (300, 400)) == ["right"]


def test_a_next_tile_a_third_outside_is_reported() -> None:
    """Edges: a side is reported once the next tile is a quarter of its length outside."""
    b = _edge_row(5, x0=100.0)  # ends at x = 300, next tile 300..340
    assert rows_past_edge(b, [list(range(5))], (327, 400)) == ["right"]  # 13/40 outside


def test_a_tilted_row_running_off_the_right_still_reports_it() -> None:
    """Edges: a row end counts for a side its direction points at within 60°, so a row
    tilted 45° (a tilted photo) still runs past the right edge."""
    b = _edge_row(4, x0=100.0, y0=100.0, dy=40.0)  # next tile at x 260..300, y 260..320
    assert rows_past_edge(b, [list(range(4))], (270, 1000)) == ["right"]


def test_a_row_of_one_tile_does_not_hide_the_rows_after_it() -> None:
    """Edges: a row of one tile says nothing, and the rows after it are still looked at."""
    b = np.concatenate([_edge_row(1, x0=10.0, y0=300.0), _edge_row(5, x0=100.0)])
    assert rows_past_edge(b, [[0], [1, 2, 3, 4, 5]], (320, 400)) == ["right"]


def test_a_face_down_tile_among_standing_tiles_is_ignored_with_a_note() -> None:
    """Layout: a face-down tile outside a concealed kong is no tile of the hand; the
    layout says so in a note."""
    d = SceneBuilder().standing("123m456pX789s").meld("555p").row().detections()
    lay = analyze(d)
    assert lay.ignored == (6,) and 6 not in lay.standing
    assert "1 face-down tile(s) outside a concealed kong ignored" in lay.notes
    plain = analyze(SceneBuilder().standing("123m456p789s").meld("555p").row().detections())
    assert plain.ignored == () and plain.notes == ()


def test_a_vertical_rows_next_tile_is_measured_by_its_height() -> None:
    """Edges: along a vertical row the next tile's length is its height (60 px), so a
    tile 5 px outside the bottom (a twelfth) is not reported, one 17 px outside is."""
    b = np.asarray([(50.0, 100.0 + 60 * i, 90.0, 160.0 + 60 * i) for i in range(4)],
                   np.float32)  # next tile from y = 340 to 400
    assert rows_past_edge(b, [[0, 1, 2, 3]], (400, 395)) == []
    assert rows_past_edge(b, [[0, 1, 2, 3]], (400, 383)) == ["bottom"]  # 17 px out


def test_the_sideways_probability_is_clipped_to_one_in_a_hundred() -> None:
    """Sideways model: ``p_side`` is clipped to 0.01-0.99 before its logit, so a sure
    classifier weighs log(99) and no more either way."""
    terms = sideways_terms([0.0, 1.0, 0.5], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0],
                           [False, False, True])
    assert np.allclose(terms[:, 1], [-np.log(99), np.log(99), 0.0])
    assert terms[:, 4].tolist() == [0.0, 0.0, 1.0]


def _stack_of(builder: SceneBuilder, k: int, big: int | None = None) -> list[tuple[int, str]]:
    """``(tile, code)`` of the stacks found once box ``k`` of the builder's scene reaches
    across its row like a stack of two (0.9 of its height further) and box ``big`` (if
    any) is 0.15 of its height too big above and below (a box too big all round)."""
    d = builder.row().detections()
    boxes = d.boxes.copy()
    boxes[k, 1] -= 0.9 * (boxes[k, 3] - boxes[k, 1])
    if big is not None:
        grow = 0.15 * (boxes[big, 3] - boxes[big, 1])
        boxes[big, 1] -= grow
        boxes[big, 3] += grow
    return [(s.tile, s.code) for s in stacked_boxes(replace(d, boxes=boxes))]


def test_a_stack_must_touch_the_pair_beside_it() -> None:
    """Stack: the box touches the pair of its kind (gap along the row at most half a tile
    width); the same box set 0.8 tile widths apart from its pair is no stack."""
    assert _stack_of(SceneBuilder().standing("123m456p99s").meld("PPP", sideways=2), 10) == [
        (10, "P")]
    assert _stack_of(SceneBuilder().standing("123m456p99sPP").meld("P", sideways=0), 10) == []


def test_hidden_kinds_go_to_the_all_face_down_kongs_in_order() -> None:
    """Layout.hand: ``hidden_kinds`` names the concealed kongs shown all face down in
    the order the layout lists them (left to right)."""
    d = (SceneBuilder().standing("123m45p66s").concealed_kong("1s", all_down=True)
         .concealed_kong("1s", all_down=True).row().detections())
    hand = analyze(d).hand(d.codes, hidden_kinds=["9m", "E"])
    assert [m.tiles[0] for m in hand.melds] == ["9m", "E"]


def test_a_box_too_big_all_round_does_not_end_the_search_for_stacks() -> None:
    """Stack: a box reaching past both edges of its neighbours is no stack, and the rest
    of its row is still searched (the stack further along it is found)."""
    scene = SceneBuilder().standing("123m456p99s").meld("PPP", sideways=2)
    assert _stack_of(scene, 10, big=3) == [(10, "P")]


def test_meld_of_gives_each_tile_its_melds_index() -> None:
    """Layout.meld_of: a meld's tiles get the meld's index in ``melds``, others None."""
    d = SceneBuilder().standing("123m456p9s").meld("EEE", sideways=1).meld("234s").row()
    lay = analyze(d.detections())
    assert lay.meld_of(13) == [None] * 7 + [0, 0, 0, 1, 1, 1]


def test_a_flower_between_a_standing_tile_and_the_winning_tile_is_among_standing() -> None:
    """Flowers among standing tiles: the winning tile set apart counts as a standing
    tile, so a flower between the last standing tile and it is reported."""
    d = SceneBuilder().standing("123m456p789sEEE").standing("1f").win("N").detections()
    lay = analyze(d)
    assert lay.flowers == (12,) and lay.winning == 13
    assert flowers_among_standing(lay) == [12]


def test_no_claim_margin_when_a_tile_of_the_meld_was_not_judged() -> None:
    """Sideways model: a claimed meld has a claim margin only when the model judged
    every one of its tiles."""
    assert claim_margin({3: 2.5, 4: -4.0}, (3, 4, 5), 0) is None
    assert claim_margin({3: 2.5, 4: -4.0, 5: -3.0}, (3, 4, 5), 0) == 2.5


def _beside_kong(codes: list[str]) -> float:
    """The cost of reading four tiles as an added kong laid with its added tile beside
    the claimed one (tiles 1 and 2 sideways, no wide gap)."""
    items = [RowItem(k, c, k in (1, 2), False, None) for k, c in enumerate(codes)]
    out = chunk_cost(items, [False, False, False], LayoutParams())
    assert out is not None and out[1].added and out[1].sideways == 1
    return out[0]


def test_an_added_kong_laid_beside_of_two_kinds_costs_bad_codes() -> None:
    """Rows: an added kong whose added tile lies beside the claimed one is four tiles of
    one kind; of two kinds it costs ``cost_bad_codes`` more."""
    p = LayoutParams()
    assert _beside_kong(["5p", "5p", "6p", "5p"]) == _beside_kong(["5p"] * 4) + p.cost_bad_codes


def test_a_flip_of_a_box_found_twice_is_ignored() -> None:
    """Layout: ``flip`` turns the sideways call of tiles the layout judged; a box found
    twice is in no row, has no call, and its flip leaves the layout as it was."""
    d = SceneBuilder().standing("123m456p9s").meld("EEE", sideways=1).row().detections()
    boxes = [*d.boxes.tolist(), [x + 1.0 for x in d.boxes[2].tolist()]]  # 3m again
    twice = Detections.from_lists(boxes, [*d.codes, "3m"], [*d.confidences.tolist(), 0.5],
                                  [*d.rotations.tolist(), 0], image_size=d.image_size)
    lay = analyze(twice)
    assert lay.ignored == (10,)
    assert analyze(twice, flip=frozenset({10})) == lay


def test_a_hidden_kong_beside_a_face_down_tile_needs_a_kong_showing_two_faces() -> None:
    """Rows: four face-down tiles are a concealed kong laid all face down beside one more
    face-down tile only when that tile is the end of a kong shown face down, face, face,
    face down; beside face-down, face, face, face it is no such kong."""
    def row(text: str) -> list[RowItem]:  # b: face down, x: face up
        return [RowItem(k, "back" if c == "b" else "1m", False, c == "b", None)
                for k, c in enumerate(text)]

    assert hidden_kong_fits(row("bbbbbxxb"), 0, 4, back_runs(row("bbbbbxxb")))
    assert not hidden_kong_fits(row("bbbbbxxx"), 0, 4, back_runs(row("bbbbbxxx")))
    assert hidden_kong_fits(row("bbbbbbbb"), 0, 4, back_runs(row("bbbbbbbb")))  # two kongs


def test_a_tile_judged_sideways_gives_no_turn_vote() -> None:
    """Row side votes: only upright face-up tiles vote; a tile judged sideways (by its
    box, its rotation read 180) says nothing of which side the row faces."""
    d = SceneBuilder().standing("123m456m").row().detections()
    frame = canonical_frame(d.boxes, d.rotations)
    frame.rotation[:2] = 180
    flags = {k: k == 0 for k in range(len(d))}
    assert row_turn_votes(range(len(d)), frame, np.ones(len(d)), flags, d.codes) == (-3.0, 5.0)


def test_a_stack_between_two_tiles_of_its_pung_takes_one_on_each_side_as_its_pair() -> None:
    """Stack: the pair beside a stack may be one tile on each side of it (the pung's
    middle tile claimed); the pair is those two tiles, never the stack itself."""
    d = SceneBuilder().standing("123m456p99s").meld("PPP", sideways=1).row().detections()
    boxes = d.boxes.copy()
    boxes[9, 1] -= 0.9 * (boxes[9, 3] - boxes[9, 1])
    assert [(s.tile, s.pair) for s in stacked_boxes(replace(d, boxes=boxes))] == [(9, (8, 10))]


def _hand_with_gaps(inner: float, last: float) -> tuple[int | None, tuple[int, ...]]:
    """(winning, standing) of 14 touching standing tiles once the tiles from the sixth
    on move ``inner`` tile widths right and the last a further ``last``."""
    d = SceneBuilder().standing("123m456p789sEEENN").row().detections()
    boxes = d.boxes.copy()
    w = float(boxes[0, 2] - boxes[0, 0])
    boxes[5:, [0, 2]] += inner * w
    boxes[13, [0, 2]] += last * w
    lay = analyze(replace(d, boxes=boxes))
    return lay.winning, lay.standing


def test_a_slightly_apart_last_tile_must_have_the_widest_gap_of_its_run() -> None:
    """Hand: the last standing tile is the winning tile slightly apart only when the gap
    before it stands out and is the widest in its run: 0.15 tile widths apart in a
    touching row it is; with a 0.2 gap further inside the run it is not."""
    assert _hand_with_gaps(0.0, 0.15) == (13, tuple(range(13)))
    assert _hand_with_gaps(0.2, 0.15) == (None, tuple(range(14)))


def test_honours_in_a_row_are_no_chow() -> None:
    """Rows: a chow is three consecutive tiles of one suit; 東南西 are no chow."""
    assert not is_chow(["E", "S", "W"]) and not is_chow(["C", "F", "P"])
    assert is_chow(["7s", "8s", "9s"])


def test_a_stack_whose_pair_starts_the_row_is_found() -> None:
    """Stack: the pair beside a stack may be the first two tiles of the row (a pung
    claimed from the left laid first)."""
    scene = SceneBuilder().meld("PPP", sideways=2).standing("123m456p99s", apart=True)
    d = scene.row().detections()
    boxes = d.boxes.copy()
    boxes[2, 1] -= 0.9 * (boxes[2, 3] - boxes[2, 1])
    assert [(s.tile, s.pair) for s in stacked_boxes(replace(d, boxes=boxes))] == [(2, (1, 0))]


def test_an_added_tile_lies_on_its_base_only_when_they_overlap_by_half() -> None:
    """Geometry: a tile lies on a sideways tile when they overlap along the row by at
    least half the narrower one; the added tile moved 0.8 of its width off does not."""
    d = (SceneBuilder().standing("123m456p99s").meld("PPP", sideways=1, added="P").row()
         .detections())  # 9: the claimed P, 10: the P added on it
    boxes = d.boxes.copy()
    assert stacked_on(canonical_frame(boxes, d.rotations), 10, 9)
    boxes[10, [0, 2]] -= 0.8 * float(boxes[10, 2] - boxes[10, 0])
    assert not stacked_on(canonical_frame(boxes, d.rotations), 10, 9)


def test_two_face_down_boxes_beside_one_added_tile_are_not_both_second_boxes_of_it() -> None:
    """Added kong: face-down boxes lying on the meld in an added tile's row are second
    boxes of it only when there are no more of them than added tiles; two beside one
    added tile are not taken for second boxes (nor the kong for an added kong)."""
    b = SceneBuilder().standing("123m456p789sN").meld("PPP", sideways=1, added="P").win("N")
    d = b.detections()  # 11: the claimed P, 12: the P added on it
    x0, y0, x1, y1 = (float(v) for v in d.boxes[12])
    s = 0.7 * (x1 - x0)
    boxes = [*d.boxes.tolist(), [x0 - s, y0, x1 - s, y1], [x0 + s, y0, x1 + s, y1]]
    dd = Detections.from_lists(boxes, [*d.codes, "back", "back"],
                               [*d.confidences.tolist(), 0.6, 0.6],
                               [*d.rotations.tolist(), 0, 0], image_size=d.image_size)
    lay = analyze(dd)
    assert not any("second box" in n for n in lay.notes)
    assert not any(m.added for m in lay.melds)


def test_face_down_and_flower_boxes_make_no_set() -> None:
    """Rows: a set is of tile kinds; three face-down boxes or three flowers are no pung."""
    assert not is_set(["back"] * 3) and not is_set(["1f"] * 3)
    assert is_set(["P"] * 3) and is_set(["5p"] * 4)


def _kong_cost(text: str) -> float:
    """The cost of reading four touching tiles as a concealed kong (b: face down, x: 5p)."""
    items = [RowItem(k, "back" if c == "b" else "5p", False, c == "b", None)
             for k, c in enumerate(text)]
    out = chunk_cost(items, [False, False, False], LayoutParams())
    assert out is not None and out[1].concealed
    return out[0]


def test_a_concealed_kong_laid_all_face_down_costs_no_more_than_one_showing_two_faces() -> None:
    """Rows: a concealed kong is laid face-down, face, face, face-down, or all face down;
    both cost nothing, another pattern of backs costs 1."""
    assert _kong_cost("bbbb") == _kong_cost("bxxb") == 0.0
    assert _kong_cost("bxbb") == 1.0


def test_a_concealed_kong_showing_one_face_takes_its_kind() -> None:
    """Rows: a concealed kong takes the kind of its face-up tiles, one is enough."""
    kong = MeldLayout((0, 1, 2, 3), None, None, False, True)
    assert kong.meld(["back", "5p", "back", "back"]).tiles == ("5p",) * 4


def test_a_lone_flower_at_the_row_start_does_not_make_the_next_group_flowers() -> None:
    """Rows: tiles that may be flowers become flowers only in a gap-separated group that
    holds a flower; a flower alone before a gap leaves the group after it as it is."""
    row = [RowItem(0, "1f", False, False, None, flower=True),
           RowItem(1, "P", False, False, None, maybe_flower=True),
           RowItem(2, "P", False, False, None, maybe_flower=True)]
    assert [it.flower for it in _flower_groups(row, [True, False])] == [True, False, False]


def test_a_stack_reaching_towards_the_camera_splits_with_the_claimed_tile_in_the_row() -> None:
    """Stack split: the claimed tile is the part of the box whose edge lines up with the
    pair's; for a box reaching past the row's near edge that is its far part, and the
    added tile is the near part (each 0.55 of the box across the row)."""
    d = SceneBuilder().standing("123m456p99s").meld("PPP", sideways=2).row().detections()
    boxes = d.boxes.copy()
    low, high = float(boxes[10, 1]), float(boxes[10, 3]) + 0.9 * float(boxes[10, 3] - boxes[10, 1])
    boxes[10, 3] = high
    dd = replace(d, boxes=boxes)
    (stack,) = stacked_boxes(dd)
    split = split_stack(dd, stack)
    part = 0.55 * (high - low)
    assert np.allclose(split.boxes[10, [1, 3]], [low, low + part], atol=0.01)
    assert np.allclose(split.boxes[-1, [1, 3]], [high - part, high], atol=0.01)
    assert split.codes[10] == split.codes[-1] == "P"


def test_no_stack_beside_two_flowers_or_two_face_down_tiles() -> None:
    """Stack: the pair beside a stack is two tiles read as one kind, not flowers nor
    face-down tiles (the stack takes the pair's kind)."""
    assert _stack_of(SceneBuilder().standing("123m456p99s").meld("1f1fP", sideways=2), 10) == []
    assert _stack_of(SceneBuilder().standing("123m456p99s").meld("XXP", sideways=2), 10) == []


def test_tiles_more_than_three_widths_apart_are_two_rows() -> None:
    """Geometry: tiles share a row when the gap between them along it is at most 3 tile
    widths: two groups 3.2 widths apart are two rows, 2.8 apart one."""
    for apart, rows in ((3.2, [[0, 1, 2], [3, 4, 5]]), (2.8, [[0, 1, 2, 3, 4, 5]])):
        b = _edge_row(6, x0=100.0, w=40.0, h=54.0)
        b[3:, [0, 2]] += apart * 40.0
        f = canonical_frame(b, np.zeros(6, np.int64))
        assert link_rows(f) == rows


def test_a_pung_with_a_tile_of_another_kind_on_its_claimed_tile_is_read_as_a_kong() -> None:
    """Rows: only a pung grows into a kong, and it does even when the tile on its claimed
    tile reads as another kind (a misread the correction mends), at ``cost_bad_codes``."""
    items = [RowItem(0, "P", True, False, 3, "5p"), RowItem(1, "P", False, False, None),
             RowItem(2, "P", False, False, None)]
    out = chunk_cost(items, [False, False], LayoutParams())
    assert out is not None and out[1].added and out[1].detections == (0, 1, 2, 3)
    assert out[0] == LayoutParams().cost_bad_codes


def test_a_tile_apart_at_both_ends_is_not_apart_at_the_start() -> None:
    """Hand: a tile is set apart at the start of a row's standing tiles only when the
    row's last run is not a single tile too."""
    assert apart_at_start([[0], [1, 2, 3]])
    assert not apart_at_start([[0], [1, 2, 3], [4]])
