"""Reading one row of tiles: which tiles are melds, standing tiles or flowers.

A row (tiles in its owner's reading order, with the gaps between them in tile widths)
is split by a small dynamic programme: each tile is standing, a flower, or starts a
meld of 3 or 4 tiles; costs are paid for a sideways or face-down tile left standing, a
meld touching standing tiles without a gap, tiles that make no set, and a wide gap
inside a meld. The cheapest split wins. See :mod:`vision.layout` for the conventions.

>>> codes = ["1m", "2m", "3m", "E", "E", "E"]
>>> items = [RowItem(i, c, i == 3, False, None) for i, c in enumerate(codes)]
>>> melds, runs, flowers = parse_row(items, [0.0, 0.0, 0.8, 0.0, 0.0], LayoutParams())
>>> [m.detections for m in melds], runs, [m.claimed_from for m in melds]
([(3, 4, 5)], [[0, 1, 2]], [1])
"""

from __future__ import annotations

import dataclasses
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from vision.classes import BACK, KINDS
from vision.layout_sideways import SIDEWAYS_MODEL

if TYPE_CHECKING:
    from scoring.hand import Meld


@dataclass(frozen=True)
class LayoutParams:
    """Tunable thresholds (lengths in tile widths, i.e. the short side of a tile)."""

    #: a gap this much wider than touching tiles (or than a long row's median gap,
    #: within -0.3..0.2) splits the row (melds, the winning tile set apart)
    group_gap: float = 0.2
    #: tiles further apart than this along a row belong to different rows
    row_link_gap: float = 3.0
    #: share of the smaller tile's height two tiles of one row overlap across it
    row_overlap: float = 0.5
    #: a box this much wider than its row's upright tiles is lying sideways
    wide_ratio: float = 1.22
    #: with the classifier's rotation probabilities, sideways tiles are judged by this
    #: logistic model of those and the box's shape (:mod:`vision.layout_sideways`);
    #: None: by the rotation alone
    sideways_model: tuple[float, ...] | None = SIDEWAYS_MODEL
    #: ... and called sideways above these log-odds (-1: probability 0.27): the row's
    #: split pays for a sideways tile left standing, but a claimed tile missed loses its
    #: meld's claim source (chosen on the choice scenes, README "Reading a hand")
    sideways_min_odds: float = -1.0
    #: a claimed meld whose sideways call is surer than this by less (log-odds) gets a
    #: note: its claim source may be wrong (README "Reading a hand")
    claim_note_margin: float = 2.0
    #: DP costs: a sideways or face-down tile left standing; a meld right against
    #: standing tiles with no gap; a set of the wrong codes; a gap inside a meld
    cost_odd_standing: float = 3.0
    cost_no_gap: float = 2.0
    cost_bad_codes: float = 2.0
    #: four tiles with one sideways that are not one kind (more likely a set + a tile)
    cost_bad_kong: float = 3.5
    #: rows running at least this many degrees off the picture's axes get a note: near
    #: 45° which tiles lie sideways is uncertain (README "Reading a hand": with right
    #: codes, hands read right drop from 83–89 % under 30° to 46–61 % at 35–45°)
    warn_tilt_deg: float = 35.0
    #: tiles in a hand (kongs count 3) when it is won; one less while waiting
    hand_size: int = 14
    #: a hand over ``hand_size`` reads four touching standing tiles of a kind as a kong
    #: shown face up (:func:`vision.layout_hand.face_up_kongs`)
    face_up_kongs: bool = True
    #: rows further than this (in tile heights) from the standing row are not the hand's
    hand_row_distance: float = 2.6
    #: rows of standing tiles or melds this near (in tile heights) to the standing row
    #: may be the hand's even when their tiles say they face the other way (a hand laid
    #: in two rows of bamboo, whose faces look alike turned 180°)
    hand_row_beside: float = 1.5
    #: a "row" whose tiles lie further than this (tile heights) off one straight line
    #: (:func:`vision.layout_geometry.row_spread`) is a heap of tiles that
    #: :func:`vision.layout_geometry.link_rows` chained together, never the hand's: a
    #: row lies in a band one tile high, while a heap is several tiles deep (truth boxes
    #: of the five synthetic choice sets: 1,282 rows holding hand tiles spread at most
    #: 0.73; 34 rows of other tiles over 1.5, up to 3.1)
    pile_spread: float = 1.5
    cost_inner_gap: float = 1.5
    #: a tile found lying on a meld's sideways tile left out of the meld (no kong)
    cost_loose_stacked: float = 1.0
    #: a tile read as a kind is taken for a flower when it lies in one gap-separated
    #: group with a tile read as a flower and its top-k gives a bonus code at least this
    #: probability (the correction then re-reads it; flowers are laid apart together)
    flower_alt_p: float = 0.1
    #: a row's tiles say which way up it is seen (0 vs 180) only when their votes agree
    #: this much: ``|sum of signed margins| / sum of margins`` (1: every tile the same
    #: way up). Players often leave their tiles either way up (most of the real photos
    #: show such hands); below it the row is read by the layout's cues, as without a
    #: rotation classifier (:func:`vision.layout_hand.across_votes`), or faces the
    #: way of the nearest row whose tiles agree
    turn_agreement: float = 0.5
    #: ... and only when the vote's margin is at least this many sure tiles
    #: (``|sum of signed margins|``): two or three tiles of a short meld row agree by
    #: chance half the time or a quarter when their owner left them either way up
    turn_votes: float = 3.0
    #: a row's tiles outweigh the layout's cues (:func:`vision.layout_hand.across_votes`)
    #: only when they agree this much (same ratio as ``turn_agreement``); when no row's
    #: tiles agree so firmly, a cue of at least ``turn_cue_votes`` decides the side
    turn_firm: float = 0.9
    turn_cue_votes: int = 2
    turn_firm_votes: float = 5.0


@dataclass(frozen=True)
class MeldLayout:
    """One meld as laid out. ``detections``: indices in the player's left-to-right order
    (an added tile stacked on the sideways tile comes last). ``sideways``: the position
    (0-based, among the three or four laid-out tiles) of the sideways tile, or None.
    ``claimed_from``: 1 left / 2 opposite / 3 right, None for a concealed kong (it has
    face-down tiles). ``added``: a kong added to a claimed pung."""

    detections: tuple[int, ...]
    sideways: int | None
    claimed_from: int | None
    added: bool = False
    concealed: bool = False
    #: how clearly the sideways tile is the one (log-odds over the layout's threshold,
    #: :func:`vision.layout_sideways.claim_margin`); None when not judged by the model
    claim_margin: float | None = None
    #: the margin is under ``LayoutParams.claim_note_margin``: the claim source may be
    #: wrong (the layout's notes say so)
    claim_unclear: bool = False
    #: four tiles of a kind laid face up with none sideways in a hand that is over its
    #: size: read as a concealed kong, though it may have been claimed (the layout's
    #: notes say so; see :func:`vision.layout_hand.face_up_kongs`)
    face_up: bool = False

    def meld(self, codes: Sequence[str], hidden_kind: str | None = None) -> Meld:
        """The :class:`scoring.Meld` for this meld under ``codes`` (code of every detection).

        A concealed kong shown all face down needs ``hidden_kind``; otherwise it takes the
        kind of its face-up tiles. Raises ``scoring.HandError`` for tiles that make no set.
        """
        from scoring.hand import HandError, Meld

        tiles = [codes[i] for i in self.detections]
        if self.concealed:
            faces = [t for t in tiles if t != BACK]
            kind = faces[0] if faces else hidden_kind
            if kind is None:
                raise HandError(
                    "a concealed kong is shown all face down, so its kind is unknown; "
                    "turn one tile face up"
                )
            if any(t != kind for t in faces):
                raise HandError(f"concealed kong shows different tiles: {''.join(faces)}")
            return Meld.kong(kind)
        if BACK in tiles:
            raise HandError("a face-down tile in a claimed meld")
        if len(tiles) == 4:
            return Meld("kong", tuple(tiles), self.claimed_from, None, self.added)
        if len(set(tiles)) == 1:
            return Meld("pung", tuple(tiles), self.claimed_from)
        meld = Meld("chow", tuple(tiles), 1)
        claimed = tiles[self.sideways] if self.sideways is not None else None
        index = meld.tiles.index(claimed) if claimed in meld.tiles else None
        return Meld("chow", meld.tiles, 1, index)


@dataclass
class RowItem:
    det: int
    code: str
    sideways: bool
    back: bool
    stacked: int | None  # detection stacked on this tile
    stacked_code: str | None = None
    flower: bool = False
    #: read as a kind, but a bonus code is among its alternatives (see
    #: ``LayoutParams.flower_alt_p``): a flower if its group holds flowers
    maybe_flower: bool = False


def chunk_cost(
    items: list[RowItem], gaps_before: list[bool], params: LayoutParams
) -> tuple[float, MeldLayout] | None:
    """Cost and layout of reading ``items`` (3 or 4 tiles, in reading order) as one meld;
    ``gaps_before`` says which gaps inside the chunk (len(items) - 1) are wide. None if
    impossible."""
    n = len(items)
    side = [k for k, it in enumerate(items) if it.sideways]
    backs = [k for k, it in enumerate(items) if it.back]
    stacked = [k for k, it in enumerate(items) if it.stacked is not None]
    cost = params.cost_inner_gap * sum(gaps_before)
    dets = tuple(it.det for it in items)
    codes = [it.code for it in items]
    if backs:
        if n != 4 or stacked:
            return None
        faces = {c for c in codes if c != BACK}
        if len(faces) > 1:
            cost += params.cost_bad_codes
        if backs not in ([0, 3], [0, 1, 2, 3]):
            if any(gaps_before):  # a kong's four tiles lie together: not a tile apart
                return None
            cost += 1.0
        cost += 1.0 * len(side)
        return cost, MeldLayout(dets, None, None, False, True)
    if n == 3 and len(side) == 1:
        pos = side[0]
        on_claimed = items[pos].stacked
        extra = [on_claimed] if on_claimed is not None else []
        if len(stacked) > len(extra):
            return None
        plain = cost + (0.0 if is_set(codes) else params.cost_bad_codes)
        src = 1 if is_chow(codes) else (1, 2, 3)[pos]
        if not extra:
            return plain, MeldLayout(dets, pos, src)
        all_codes = [*codes, items[pos].stacked_code or BACK]
        kong = cost + (0.0 if is_set(all_codes) else params.cost_bad_codes)
        if len(set(codes)) > 1 and plain + params.cost_loose_stacked < kong:
            # only a pung grows into a kong: a tile lying on a chow's (or a mixed
            # meld's) claimed tile is some other tile that happens to lie there
            return plain + params.cost_loose_stacked, MeldLayout(dets, pos, src)
        return kong, MeldLayout(dets + tuple(extra), pos, (1, 2, 3)[pos], True)
    if n == 4 and not stacked:
        if len(side) == 1:
            pos = side[0]
            src = (1, 2, 2, 3)[pos]
            # four of a kind explain more tiles than a pung and a standing copy beside it
            cost += params.cost_bad_kong if len(set(codes)) != 1 else -0.5
            return cost, MeldLayout(dets, pos, src)
        if len(side) == 2 and side[1] == side[0] + 1:
            # added kong with the added tile lying beside the claimed one
            pos = side[0]
            src = (1, 2, 3)[pos]
            if len(set(codes)) != 1:
                cost += params.cost_bad_codes
            return cost + 0.25, MeldLayout(dets, pos, src, True)
    return None


def is_chow(codes: Sequence[str]) -> bool:
    if len(codes) != 3 or any(c not in KINDS for c in codes):
        return False
    idx = sorted(KINDS.index(c) for c in codes)
    return idx[0] < 27 and idx[0] // 9 == idx[2] // 9 and idx == [idx[0], idx[0] + 1, idx[0] + 2]


def is_set(codes: Sequence[str]) -> bool:
    """Three or four tiles forming a pung/kong, or three forming a chow."""
    if any(c not in KINDS for c in codes):
        return False
    return len(set(codes)) == 1 or is_chow(codes)


def back_runs(items: list[RowItem]) -> list[tuple[int, int]]:
    """For each item, the ``(start, end)`` of the run of consecutive face-down tiles it
    is in (``(k, k)`` for a face-up item ``k``)."""
    out = [(k, k) for k in range(len(items))]
    i = 0
    while i < len(items):
        if not items[i].back:
            i += 1
            continue
        j = i
        while j < len(items) and items[j].back:
            j += 1
        for k in range(i, j):
            out[k] = (i, j)
        i = j
    return out


def hidden_kong_fits(items: list[RowItem], i: int, j: int,
                     runs: list[tuple[int, int]]) -> bool:
    """Whether the face-down tiles ``items[i:j]`` can be one concealed kong laid all face
    down: the run of face-down tiles they lie in holds, on each side of them, nothing
    more than another such kong and the face-down end of a kong shown face up in the
    middle (face-down, face, face, face-down). A longer run is a face-down wall.

    >>> def row(text):  # b: face down, x: face up
    ...     return [RowItem(k, "back" if c == "b" else "1m", False, c == "b", None)
    ...             for k, c in enumerate(text)]
    >>> items = row("bbbbbxxb")  # a hidden kong beside a kong showing two faces
    >>> hidden_kong_fits(items, 0, 4, back_runs(items))
    True
    >>> items = row("bbbbbbbbbb")  # ten in a row: a wall
    >>> hidden_kong_fits(items, 0, 4, back_runs(items))
    False
    """
    start, end = runs[i]
    left, right = i - start, end - j
    if left not in (0, 1, 4, 5) or right not in (0, 1, 4, 5):
        return False

    def face_kong(first: int) -> bool:
        """``items[first:first + 4]`` lie face down, face up, face up, face down."""
        return (first >= 0 and first + 4 <= len(items)
                and [it.back for it in items[first:first + 4]] == [True, False, False, True])

    return ((left % 4 != 1 or face_kong(start - 3))
            and (right % 4 != 1 or face_kong(end - 1)))


def _flower_groups(items: list[RowItem], big: list[bool]) -> list[RowItem]:
    """Items of a gap-separated group holding a flower that may be flowers too become
    flowers: flowers are laid apart together, so a tile among them read as a kind (a
    season's pale picture read as a white dragon) is a misread flower.

    >>> row = [RowItem(0, "1f", False, False, None, flower=True),
    ...        RowItem(1, "P", False, False, None, maybe_flower=True),
    ...        RowItem(2, "P", False, False, None, maybe_flower=True)]
    >>> [it.flower for it in _flower_groups(row, [False, True])]
    [True, True, False]
    """
    out = list(items)
    start = 0
    for end in range(1, len(items) + 1):
        if end < len(items) and not big[end - 1]:
            continue
        group = range(start, end)
        if any(items[k].flower for k in group):
            for k in group:
                if items[k].maybe_flower and not items[k].flower:
                    out[k] = dataclasses.replace(items[k], flower=True)
        start = end
    return out


#: One step of a row's reading: where it starts, what it places there ("standing",
#: "meld" or "flower") and the meld it places (None for the others).
Step = tuple[int, str, MeldLayout | None]


def parse_row(
    items: list[RowItem], gaps: list[float], params: LayoutParams
) -> tuple[list[MeldLayout], list[list[int]], list[int]]:
    """Split one row (reading order) into melds, runs of standing tiles and flowers with
    the least cost (dynamic programming over the row, :func:`_least_cost_steps`). Returns
    the melds, the standing runs (detection indices, split where a gap, a meld or a
    flower interrupts them) and the flowers."""
    # gaps are measured against touching tiles (0); a long row may still show an offset
    usual = min(0.2, max(-0.3, statistics.median(gaps))) if len(gaps) >= 4 else 0.0
    big = [g > usual + params.group_gap for g in gaps]
    back_run = back_runs(items)
    items = _flower_groups(items, big)
    return _placed(items, big, _least_cost_steps(items, big, back_run, params))


def _least_cost_steps(items: list[RowItem], big: list[bool], back_run: list[tuple[int, int]],
                      params: LayoutParams) -> list[Step]:
    """The least-cost reading of the row ``items`` as steps, first to last. ``big``:
    whether each gap between neighbours is wider than the row's usual one;
    ``back_run``: :func:`back_runs` of the items."""
    n = len(items)
    inf = float("inf")
    # state (position, whether the last thing placed was a meld): cost and back-pointer
    best = {(0, False): 0.0}
    back: dict[tuple[int, bool], tuple[tuple[int, bool], str, MeldLayout | None]] = {}

    def relax(state: tuple[int, bool], cost: float, prev: tuple[int, bool], what: str,
              meld: MeldLayout | None) -> None:
        if cost < best.get(state, inf):
            best[state] = cost
            back[state] = (prev, what, meld)

    chunks: dict[tuple[int, int], tuple[float, MeldLayout] | None] = {}

    def meld_at(i: int, j: int) -> tuple[float, MeldLayout] | None:
        """``items[i:j]`` read as one meld (the same from either state at ``i``)."""
        if (i, j) not in chunks:
            if any(x.flower for x in items[i:j]) or (
                    all(x.back for x in items[i:j])
                    and not hidden_kong_fits(items, i, j, back_run)):
                chunks[i, j] = None  # a flower among them; or a face-down wall, no kong
            else:
                chunks[i, j] = chunk_cost(items[i:j], big[i : j - 1], params)
        return chunks[i, j]

    for i in range(n):
        for after_meld in (False, True):
            here = best.get((i, after_meld), inf)
            if here == inf:
                continue
            touching = i > 0 and not big[i - 1]
            it = items[i]
            if it.flower:
                relax((i + 1, False), here, (i, after_meld), "flower", None)
                continue
            c = here + (params.cost_odd_standing if (it.sideways or it.back) else 0.0)
            if it.stacked is not None:
                c += params.cost_odd_standing
            if after_meld and touching:
                c += params.cost_no_gap  # a standing tile right against a meld
            relax((i + 1, False), c, (i, after_meld), "standing", None)
            for size in (3, 4):
                j = i + size
                res = meld_at(i, j) if j <= n else None
                if res is None:
                    continue
                cost, chunk = res
                if i > 0 and touching and not after_meld:
                    cost += params.cost_no_gap  # a meld right against standing tiles
                relax((j, True), here + cost, (i, after_meld), "meld", chunk)
    steps: list[Step] = []
    state = min(((n, False), (n, True)), key=lambda st: best.get(st, inf))
    while state[0] > 0:
        prev, what, meld = back[state]
        steps.append((prev[0], what, meld))
        state = prev
    steps.reverse()
    return steps


def _placed(items: list[RowItem], big: list[bool],
            steps: list[Step]) -> tuple[list[MeldLayout], list[list[int]], list[int]]:
    """The melds, standing runs and flowers the ``steps`` place (see :func:`parse_row`)."""
    melds: list[MeldLayout] = []
    flowers: list[int] = []
    runs: list[list[int]] = []
    current: list[int] = []
    for i, what, meld in steps:
        if what != "standing":
            if meld is not None:
                melds.append(meld)
            else:
                flowers.append(items[i].det)
            if current:
                runs.append(current)
                current = []
            continue
        if current and big[i - 1]:
            runs.append(current)
            current = []
        current.append(items[i].det)
    if current:
        runs.append(current)
    return melds, runs, flowers
