"""Which rows are the hand's and which way the hand faces (``vision.layout``): one hand
faces one way, decided by its own rows, not by another player's; a heap of tiles chained
into one "row" is not the hand; an added-kong tile (加杠, seed 003 鸣牌的摆放) lying
between the meld row and the flowers beyond it does not join the two. Hands are written
in RULES.md notation."""

from __future__ import annotations

import dataclasses

from scoring.notation import format_meld, parse_hand
from vision.detections import Detections
from vision.layout import analyze, lift_added_tiles, read_sides
from vision.layout_geometry import canonical_frame, link_rows
from vision.layout_hand import Row, RowParse, rows_not_heaps
from vision.layout_rows import LayoutParams
from vision.layout_scene import SceneBuilder, split_codes


def melds_and_standing(text: str) -> tuple[list[str], list[str]]:
    """A hand's melds (any order) and its standing tiles, the winning one last."""
    hand = parse_hand(text)
    return sorted(format_meld(m) for m in hand.melds), list(hand.standing)


def read(d: Detections) -> tuple[list[str], list[str]]:
    """:func:`melds_and_standing` of the hand the layout reads from ``d``."""
    hand = analyze(d).hand(d.codes)
    return sorted(format_meld(m) for m in hand.melds), list(hand.standing)


# ------------------------------------------------ one hand, one side, decided by its rows
def _hand_either_way_up(builder: SceneBuilder, upside_down: bool = False) -> SceneBuilder:
    """A hand in one row, its face-up tiles left either way up (4 of its 11 upright
    tiles turned, and the claimed tile: no agreement), a pung claimed from the left, the
    winning tile set apart at its owner's right end; ``upside_down``: seen from across
    the table."""
    return (builder.standing("123m456p").meld("CCC", sideways=0).standing("99s")
            .turned(1, 3, 5, 6, 7).win("9s").row(upside_down=upside_down))


def test_a_hand_does_not_take_its_side_from_another_players_row_beside_it() -> None:
    """Another player's tiles (a row of discards, every tile seen from across the table)
    lie just beyond a hand whose tiles lie either way up. The hand's side is decided by
    its own rows — here the tile set apart at the right end: seen from the camera's
    side — not by the nearest row whose tiles agree (until the seventy-fourth session
    the hand took the discards' side and read mirrored)."""
    b = _hand_either_way_up(SceneBuilder().standing("2468m13p").row(upside_down=True))
    d = b.detections()
    lay = analyze(d)
    assert lay.winning is not None and d.codes[lay.winning] == "9s"
    assert read(d) == melds_and_standing("[CCC,1]123m456p99s9s")
    assert not any(r.upside_down for r in lay.rows)


def test_another_players_row_far_away_does_not_keep_the_hand_from_its_own_cue() -> None:
    """A hand seen from across the table, its tiles either way up, and far from it
    another player's row whose tiles agree. That row says nothing of the hand: the
    hand's own layout (the tile set apart at its owner's right end, the camera's left)
    says it is seen from across, and it reads from its owner's side (until the
    seventy-fourth session one agreeing row anywhere kept the hand facing the camera,
    mirrored, with no note)."""
    far = SceneBuilder().standing("2468m13p").row().row().row().row()
    d = _hand_either_way_up(far, upside_down=True).detections()
    lay = analyze(d)
    assert lay.winning is not None and d.codes[lay.winning] == "9s"
    assert read(d) == melds_and_standing("[CCC,1]123m456p99s9s")
    assert [r.upside_down for r in lay.rows] == [True]


def test_the_rows_of_one_hand_face_one_way() -> None:
    """A hand in two rows: the standing row's tiles all upright (agreeing firmly), the
    four upright tiles of the meld row all turned — they agree (4 votes) but only as a
    short row left either way up does by chance. A player's rows all lie on the
    player's side of the table: the firm row decides for both, and the melds' claim
    sources read from the owner's side (until the seventy-fourth session the meld row
    faced its own way and its claims read mirrored)."""
    b = (SceneBuilder().meld("CCC", sideways=0).meld("789p", sideways=0).turned(1, 2, 4, 5)
         .row().standing("123m456p99sN").win("N").row())
    d = b.detections()
    lay = analyze(d)
    assert [r.upside_down for r in lay.rows] == [False, False]
    assert read(d) == melds_and_standing("[CCC,1][789p,1]123m456p99sNN")


# ------------------------------------------------ a heap of tiles is not the hand
def _with_heap(hand: Detections) -> Detections:
    """``hand`` and, above it, a heap of 20 tiles pushed together (another player's
    discards): five layers of four, each layer 0.45 tile heights nearer than the one
    before (its tiles overlap the layer's across the rows by over half a tile, so
    :func:`link_rows` chains them all into one "row") and every other one shifted half
    a tile along; some tiles turned, some sideways."""
    w, h = 40.0, 54.0
    kinds = split_codes("1s2p5mP9p3s7mE4p8s2mN6p1mS9s3mC5s7p")
    boxes, rotations = [], []
    for layer in range(5):
        for i in range(4):
            sideways = (layer + i) % 4 == 0
            bw, bh = (h, w) if sideways else (w, h)
            cx = 150 + (i + 0.5 * (layer % 2)) * 1.05 * w
            cy = 150 + layer * 0.45 * h
            boxes.append([cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2])
            rotations.append(270 if sideways else 180 if (i + layer) % 3 == 0 else 0)
    return Detections.from_lists(hand.boxes.tolist() + boxes, hand.codes + kinds, None,
                                 hand.rotations.tolist() + rotations)


def test_a_heap_of_tiles_chained_into_one_row_is_not_the_hand() -> None:
    """``LayoutParams.pile_spread``: the heap is linked into one "row" of 20 tiles, more
    than the hand's 14, that spreads 1.8 tile heights off a straight line; a row lies
    in a band one tile high, so the heap is no row of a hand and the hand is read
    (until the seventy-fourth session the heap was taken for the hand: no hand)."""
    hand = SceneBuilder().standing("123m456p789sEEEW").win("W").detections(origin=(100, 400))
    d = _with_heap(hand)
    sides = read_sides(d, LayoutParams())
    assert sorted(len(r) for r in sides.rows) == [14, 20]  # the heap is one "row"
    lay = analyze(d)
    assert read(d) == melds_and_standing("123m456p789sEEEWW")
    assert lay.winning is not None and d.codes[lay.winning] == "W"
    assert set(range(len(hand), len(d))) <= set(lay.ignored)
    # allowing any spread, the heap is taken for the hand again
    heap_allowed = analyze(d, LayoutParams(pile_spread=10.0))
    assert set(range(len(hand))) <= set(heap_allowed.ignored)


def _parsed(spread: float) -> RowParse:
    """A one-tile row spreading ``spread`` tile heights."""
    return RowParse(Row((0,), False), [], [[0]], [], [], 0.0, 1.0, spread=spread)


def test_rows_not_heaps_leaves_out_heaps_unless_nothing_else_is_there() -> None:
    """A row spreading over ``LayoutParams.pile_spread`` is no hand's; with every row
    such a heap (a picture of a heap alone) there is no better row: all are kept."""
    params = LayoutParams()
    assert rows_not_heaps([_parsed(0.2), _parsed(2.0)], params) == [0]
    assert rows_not_heaps([_parsed(2.0), _parsed(3.0)], params) == [0, 1]


# ------------------------------------------------ an added tile between two rows
def _added_kong_bridging_flowers() -> Detections:
    """A hand with an added kong (加杠) of F on a pung claimed from the left, a chow, a
    concealed kong, and two flowers laid beyond the chow, right against the meld row.
    Seen at a slant, the added tile's box reaches half a tile height over the meld row
    and over the flowers' row: it links the two (as in the synthetic held-out scenes
    83 and 186 of ``choice-heldout``)."""
    b = (SceneBuilder().flowers("67f").row()
         .meld("789m", sideways=1).meld("FFF", sideways=0, added="F").concealed_kong("W")
         .standing("3344s").win("3s").row())
    d = b.detections(row_spacing=0.95)
    boxes = d.boxes.copy()
    added = 6  # the F lying on the sideways F (detections: 6f 7f 7m 8m 9m F F ...)
    assert d.codes[added] == "F" and boxes[added, 1] == boxes[:, 1][2:].min()
    boxes[added, 1::2] += 7  # its box reaches over the meld row's far edge
    boxes[:2, 0::2] += boxes[2, 0] - boxes[0, 0]  # the flowers beyond the chow
    return dataclasses.replace(d, boxes=boxes)


def test_an_added_tile_between_the_meld_row_and_the_flowers_does_not_join_them() -> None:
    """The added tile chains the flowers into the meld row, where they would split the
    chow (7m 6f 7f 8m 9m along the row). It lies sideways on a sideways tile of its kind
    in that row, further out than it: it is lifted out before the rows are read, the
    flowers form their own row, and the chow keeps its claim (until the seventy-fourth
    session: ``[FFFF,5][WWWW]789m3344s3s``, the chow read as standing tiles)."""
    d = _added_kong_bridging_flowers()
    frame = canonical_frame(d.boxes, d.rotations)
    rows = link_rows(frame)
    assert len(rows) == 1  # the added tile joins the flowers and the hand
    lifted = lift_added_tiles(rows, frame, d.codes, LayoutParams())
    assert sorted(map(sorted, lifted)) == [[0, 1], [2, 3, 4, 5, 7, 8, *range(9, 18)], [6]]
    lay = analyze(d)
    assert read(d) == melds_and_standing("[789m,2][FFFF,5][WWWW]3344s3s")
    assert sorted(d.codes[k] for k in lay.flowers) == ["6f", "7f"]
    assert next(m for m in lay.melds if m.added).detections[-1] == 6


def test_a_sideways_tile_of_another_kind_beyond_a_claimed_tile_stays_in_its_row() -> None:
    """Only a tile of its base's kind is lifted as an added tile: a tile of another kind
    lying sideways beyond the claimed tile is not taken for a 加杠 tile there."""
    d = _added_kong_bridging_flowers()
    codes = list(d.codes)
    codes[6] = "E"
    frame = canonical_frame(d.boxes, d.rotations)
    rows = link_rows(frame)
    assert lift_added_tiles(rows, frame, codes, LayoutParams()) == rows
