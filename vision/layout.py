"""Detections → the hand's layout: rows, melds with their claim source, flowers,
standing tiles and the winning tile.

How players lay out a hand (seed 003, 鸣牌的摆放) and how tilecam reads it:

- Standing tiles (立牌) stand in a row. A tile set a little apart at the end of that
  row (in the player's reading order) is the winning tile; when none is set apart the
  winning tile is unknown (``Layout.winning is None``; :meth:`Layout.hand` then keeps
  the standing tiles in row order, so the right-most one comes last).
- A claimed set lies face up with the claimed tile turned sideways (rotation 90/270
  relative to its row). Its position gives the claim source, as the seed says for a
  pung (碰): sideways on the left = from the left player (上家, offset 1), in the middle =
  from the player opposite (对家, offset 2), on the right = from the right player (下家,
  offset 3). A melded kong (大明杠) is laid out the same way; from the player opposite
  either middle tile is sideways. A chow (吃) is always claimed from the left; its
  sideways tile says which tile was claimed (``claimed_index``).
- An added kong (加杠) is a claimed pung with the fourth tile on its sideways tile,
  just beyond it, or lying sideways right beside it; the claim source is the pung's.
- A concealed kong (暗杠) shows face-down tiles: the two ends face down, or all four.
  A longer run of face-down tiles is a wall, not a kong.
- Flowers (``1f``-``8f``) are bonus tiles; they break a row into groups.

Rows seen from across the table (tiles at rotation 180) are read right to left, so
"left" always means the left of the player who owns the row. Without 180/270
rotations (a detector with no rotation classifier) the picture's side is judged from
the layout: the winning tile apart at the right end, melds beyond the standing row.

Only the hand's rows are read: the row with the most hand tiles and the rows chained
to it (within ``LayoutParams.hand_row_distance`` tile heights, facing the same way),
choosing the set whose tile count is a hand's. A wall, discards or another player's
melds elsewhere in the picture get the role ``ignored``.

The layout holds detection indices only; :meth:`Layout.hand` turns it into a
:class:`scoring.Hand` for a given reading of the codes (the correction step tries
several readings over one layout).

>>> from vision.layout_scene import SceneBuilder
>>> s = SceneBuilder().standing("123m456p789s").meld("EEE", sideways=1).win("N").row()
>>> lay = analyze(s.detections())
>>> lay.hand(s.detections().codes).standing[-1], lay.melds[0].claimed_from
('N', 2)
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from vision.classes import BACK, BONUS, KINDS
from vision.detections import Detections
from vision.layout_geometry import (
    Frame,
    canonical_frame,
    gaps_along,
    link_rows,
    pitch_ratios,
    stacked_on,
)

if TYPE_CHECKING:
    from scoring.hand import Hand, Meld

STANDING = "standing"
MELD = "meld"
FLOWER = "flower"
WINNING = "winning"
IGNORED = "ignored"
ROLES = (STANDING, MELD, FLOWER, WINNING, IGNORED)


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
    #: DP costs: a sideways or face-down tile left standing; a meld right against
    #: standing tiles with no gap; a set of the wrong codes; a gap inside a meld
    cost_odd_standing: float = 3.0
    cost_no_gap: float = 2.0
    cost_bad_codes: float = 2.0
    #: four tiles with one sideways that are not one kind (more likely a set + a tile)
    cost_bad_kong: float = 3.5
    #: tiles in a hand (kongs count 3) when it is won; one less while waiting
    hand_size: int = 14
    #: rows further than this (in tile heights) from the standing row are not the hand's
    hand_row_distance: float = 2.6
    cost_inner_gap: float = 3.0


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


@dataclass(frozen=True)
class Row:
    """A row of tiles: detection indices in the owner's reading order, and whether the
    row is seen upside down (from across the table)."""

    detections: tuple[int, ...]
    upside_down: bool


@dataclass(frozen=True)
class Layout:
    """Where every tile of one hand lies (detection indices; see module doc)."""

    melds: tuple[MeldLayout, ...] = ()
    standing: tuple[int, ...] = ()
    winning: int | None = None
    flowers: tuple[int, ...] = ()
    ignored: tuple[int, ...] = ()
    rows: tuple[Row, ...] = ()
    notes: tuple[str, ...] = ()
    frame_rotation: int = 0
    tilt_deg: float = 0.0
    sideways: frozenset[int] = field(default_factory=frozenset)

    @property
    def tile_count(self) -> int:
        """Tiles for the hand size (kongs count 3), winning tile included."""
        return len(self.standing) + (self.winning is not None) + 3 * len(self.melds)

    def roles(self, n: int) -> list[str]:
        """The role of each of ``n`` detections: standing/meld/flower/winning/ignored."""
        out = [IGNORED] * n
        for i in self.standing:
            out[i] = STANDING
        for m in self.melds:
            for i in m.detections:
                out[i] = MELD
        for i in self.flowers:
            out[i] = FLOWER
        if self.winning is not None:
            out[self.winning] = WINNING
        return out

    def meld_of(self, n: int) -> list[int | None]:
        """For each of ``n`` detections, the index of its meld in :attr:`melds`, or None."""
        out: list[int | None] = [None] * n
        for k, m in enumerate(self.melds):
            for i in m.detections:
                out[i] = k
        return out

    def hand(
        self,
        codes: Sequence[str],
        hidden_kinds: Sequence[str] = (),
    ) -> Hand:
        """The :class:`scoring.Hand` under ``codes`` (one code per detection).

        The winning tile set apart goes last in the standing tiles. ``hidden_kinds``
        gives, in order, the kinds of concealed kongs shown all face down. Raises
        ``scoring.HandError`` when the codes make no valid hand.
        """
        from scoring.hand import Hand

        hidden = list(hidden_kinds)
        melds = []
        for m in self.melds:
            all_down = m.concealed and all(codes[i] == BACK for i in m.detections)
            melds.append(m.meld(codes, hidden.pop(0) if all_down and hidden else None))
        standing = [codes[i] for i in self.standing]
        if self.winning is not None:
            standing.append(codes[self.winning])
        flowers = [codes[i] for i in self.flowers]
        return Hand(tuple(melds), tuple(standing), tuple(flowers))


def _sideways_flags(f: Frame, row: list[int], params: LayoutParams) -> dict[int, bool]:
    """Which tiles of a row lie sideways: the detector's rotation (90/270 relative to the
    row). When most of a row claims to be sideways the rotations are not trusted (e.g.
    rotation guessed from box shape under a low camera, or tiles standing on their
    edge); then a box clearly wider and lower than the row's median box is sideways."""
    rot_side = {i: int(f.rotation[i]) in (90, 270) for i in row}
    if len(row) < 4 or sum(rot_side.values()) <= 0.6 * len(row):
        return rot_side
    mw = statistics.median(f.w[row].tolist())
    mh = statistics.median(f.h[row].tolist())
    return {i: bool(f.w[i] > params.wide_ratio * mw and f.h[i] < 0.92 * mh) for i in row}


@dataclass
class _Item:
    det: int
    code: str
    sideways: bool
    back: bool
    stacked: int | None  # detection stacked on this tile
    stacked_code: str | None = None
    flower: bool = False


def _chunk_cost(
    items: list[_Item], gaps_before: list[bool], params: LayoutParams
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
            cost += 1.0
        cost += 1.0 * len(side)
        return cost, MeldLayout(dets, None, None, False, True)
    if n == 3 and len(side) == 1:
        pos = side[0]
        extra = [items[pos].stacked] if items[pos].stacked is not None else []
        if len(stacked) > len(extra):
            return None
        all_codes = codes + [items[pos].stacked_code or BACK for _ in extra]
        if not _is_set(all_codes):
            cost += params.cost_bad_codes
        src = (1, 2, 3)[pos]
        if not extra and _is_chow(codes):
            src = 1
        return cost, MeldLayout(dets + tuple(extra), pos, src, bool(extra))
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


def _is_chow(codes: Sequence[str]) -> bool:
    if len(codes) != 3 or any(c not in KINDS for c in codes):
        return False
    idx = sorted(KINDS.index(c) for c in codes)
    return idx[0] < 27 and idx[0] // 9 == idx[2] // 9 and idx == [idx[0], idx[0] + 1, idx[0] + 2]


def _is_set(codes: Sequence[str]) -> bool:
    """Three or four tiles forming a pung/kong, or three forming a chow."""
    if any(c not in KINDS for c in codes):
        return False
    return len(set(codes)) == 1 or _is_chow(codes)


@dataclass
class _RowParse:
    """One row read on its own: melds, standing runs, flowers, face-down leftovers."""

    row: Row
    melds: list[MeldLayout]
    runs: list[list[int]]
    flowers: list[int]
    ignored: list[int]
    cy: float  # centre across the rows (canonical frame), pixels
    height: float  # median long side of its tiles, pixels
    oriented: bool = True  # False when no upright face-up tile says which side it faces
    gaps: list[float] = field(default_factory=list)  # between tiles in reading order

    @property
    def count(self) -> int:
        """Tiles for the hand size: kongs count 3."""
        return 3 * len(self.melds) + sum(len(r) for r in self.runs)

    @property
    def standing_count(self) -> int:
        return sum(len(r) for r in self.runs)


def _back_runs(items: list[_Item]) -> list[int]:
    """For each item, the length of the run of consecutive face-down tiles it is in."""
    out = [0] * len(items)
    i = 0
    while i < len(items):
        if not items[i].back:
            i += 1
            continue
        j = i
        while j < len(items) and items[j].back:
            j += 1
        for k in range(i, j):
            out[k] = j - i
        i = j
    return out


def _parse_row(
    items: list[_Item], gaps: list[float], params: LayoutParams
) -> tuple[list[MeldLayout], list[list[int]], list[int]]:
    """Split one row (reading order) into melds, runs of standing tiles and flowers with
    the least cost (dynamic programming over the row). Returns the melds, the standing
    runs (detection indices, split where a gap, a meld or a flower interrupts them) and
    the flowers."""
    n = len(items)
    inf = float("inf")
    # state (position, whether the last thing placed was a meld): cost and back-pointer
    best = {(0, False): 0.0}
    back: dict[tuple[int, bool], tuple[tuple[int, bool], str, MeldLayout | None]] = {}
    # gaps are measured against touching tiles (0); a long row may still show an offset
    usual = min(0.2, max(-0.3, statistics.median(gaps))) if len(gaps) >= 4 else 0.0
    big = [g > usual + params.group_gap for g in gaps]
    back_run = _back_runs(items)

    def relax(state: tuple[int, bool], cost: float, prev: tuple[int, bool], what: str,
              meld: MeldLayout | None) -> None:
        if cost < best.get(state, inf):
            best[state] = cost
            back[state] = (prev, what, meld)

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
                if j > n or any(x.flower for x in items[i:j]):
                    continue
                if all(x.back for x in items[i:j]) and back_run[i] > 4:
                    continue  # a face-down wall, not a concealed kong
                res = _chunk_cost(items[i:j], big[i : j - 1], params)
                if res is None:
                    continue
                cost, meld = res
                if i > 0 and touching and not after_meld:
                    cost += params.cost_no_gap  # a meld right against standing tiles
                relax((j, True), here + cost, (i, after_meld), "meld", meld)
    melds: list[MeldLayout] = []
    flowers: list[int] = []
    steps: list[tuple[int, str, MeldLayout | None]] = []
    state = min(((n, False), (n, True)), key=lambda st: best.get(st, inf))
    while state[0] > 0:
        prev, what, meld = back[state]
        steps.append((prev[0], what, meld))
        state = prev
    steps.reverse()
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


def _select_hand_rows(parses: list[_RowParse], params: LayoutParams) -> list[int]:
    """Which rows hold the hand: the row with the most tiles of a hand (melds and standing
    tiles), and rows near it
    (each within ``hand_row_distance`` tile heights of the standing row or of another
    near row) seen from the same side, choosing among
    those the set whose tile count is a hand's (won, else waiting) and, at equal count,
    the nearest rows. Other rows (a wall, discards, another player's melds) are left
    out."""
    if not parses:
        return []
    main = max(
        range(len(parses)),
        key=lambda k: (parses[k].count, parses[k].standing_count, parses[k].cy),
    )
    m = parses[main]
    pool = [
        k
        for k, p in enumerate(parses)
        if k != main
        and (p.row.upside_down == m.row.upside_down or not p.oriented or not m.oriented)
        and (p.melds or p.runs or p.flowers)
    ]
    # rows chained to the standing row, each within the distance of one already near
    near: list[tuple[float, int]] = []
    reached = [m.cy]
    grew = True
    while grew:
        grew = False
        for k in pool:
            if any(k == j for _, j in near):
                continue
            step = min(abs(parses[k].cy - y) for y in reached) / max(m.height, 1e-6)
            if step <= params.hand_row_distance:
                near.append((abs(parses[k].cy - m.cy) / max(m.height, 1e-6), k))
                reached.append(parses[k].cy)
                grew = True
    near.sort()
    near = near[:8]
    best_key: tuple[float, ...] | None = None
    best_set: list[int] = [main]
    for mask in range(1 << len(near)):
        chosen = [k for b, (_, k) in enumerate(near) if mask >> b & 1]
        count = m.count + sum(parses[k].count for k in chosen)
        fit = 2 if count == params.hand_size else 1 if count == params.hand_size - 1 else 0
        far = sum(d for b, (d, _) in enumerate(near) if mask >> b & 1)
        # rows that show melds or flowers belong to a hand more surely than loose tiles
        shown = sum(1 for k in chosen if parses[k].melds or parses[k].flowers)
        key = (fit, shown, -far)
        if best_key is None or key > best_key:
            best_key, best_set = key, [main, *chosen]
    return sorted(best_set, key=lambda k: parses[k].cy)


def analyze(dets: Detections, params: LayoutParams | None = None) -> Layout:
    """Read the layout of one player's hand from ``dets`` (see module doc)."""
    params = params or LayoutParams()
    codes = dets.codes
    n = len(dets)
    if n == 0:
        return Layout()
    bonus = set(BONUS)
    tiles = list(range(n))
    frame = canonical_frame(dets.boxes, dets.rotations)
    rows_local = link_rows(frame, params.row_link_gap, params.row_overlap)
    side_local: dict[int, bool] = {}
    for r in rows_local:
        side_local.update(_sideways_flags(frame, r, params))
    # rows whose tiles all lie on sideways tiles of bigger rows are added-kong tiles
    base_of: dict[int, int] = {}
    main_rows = []
    for r in rows_local:
        bases = {}
        for k in r:
            if codes[k] in bonus or codes[k] == BACK:
                break
            for other in rows_local:
                if other is r or len(other) <= len(r):
                    continue
                hit = [b for b in other if side_local[b] and stacked_on(frame, k, b)]
                if hit:
                    bases[k] = hit[0]
                    break
        if len(bases) == len(r) and len(set(bases.values())) == len(r):
            base_of.update(bases)
        else:
            main_rows.append(r)
    stacked_by_base = {b: k for k, b in base_of.items()}
    parses: list[_RowParse] = []
    # Without a rotation classifier the detector cannot tell 180 from 0 (nor 270 from
    # 90); then the whole picture is judged by how players lay a hand out (see
    # _seen_from_across).
    sides_known = bool(np.isin(dets.rotations, (180, 270)).any())

    def parse(order: list[int], gaps: list[float], upside: bool) -> _RowParse:
        items = [
            _Item(
                tiles[k],
                codes[tiles[k]],
                side_local[k],
                codes[tiles[k]] == BACK,
                tiles[stacked_by_base[k]] if k in stacked_by_base else None,
                codes[tiles[stacked_by_base[k]]] if k in stacked_by_base else None,
                codes[tiles[k]] in bonus,
            )
            for k in order
        ]
        row_melds, runs, row_flowers = _parse_row(items, gaps, params)
        kept_runs, dropped = [], []
        for run in runs:
            keep = [d for d in run if codes[d] != BACK]
            dropped.extend(d for d in run if codes[d] == BACK)
            if keep:
                kept_runs.append(keep)
        return _RowParse(
            Row(tuple(it.det for it in items), upside),
            row_melds,
            kept_runs,
            row_flowers,
            dropped,
            statistics.median(frame.cy[order].tolist()),
            statistics.median(np.maximum(frame.w[order], frame.h[order]).tolist()),
            gaps=list(gaps),
        )

    # pitch ratio of touching tiles in this picture, for rows too short to show theirs
    all_ratios = sorted(x for r in main_rows for x in pitch_ratios(frame, r))
    touching = all_ratios[len(all_ratios) // 3] if len(all_ratios) >= 3 else None
    for r in main_rows:
        # face-down tiles show no glyph: their rotation says nothing about 0 vs 180
        upright = [k for k in r if not side_local[k] and codes[k] != BACK]
        n180 = sum(int(frame.rotation[k]) == 180 for k in upright)
        upside = n180 * 2 > len(upright)
        gaps = gaps_along(frame, r, touching)
        p = parse(r[::-1], gaps[::-1], True) if upside else parse(list(r), gaps, False)
        p.oriented = bool(upright)
        parses.append(p)
    if not sides_known and parses and _seen_from_across(parses):
        for k, r in enumerate(main_rows):
            oriented = parses[k].oriented
            parses[k] = parse(r[::-1], gaps_along(frame, r, touching)[::-1], True)
            parses[k].oriented = oriented
    chosen = _select_hand_rows(parses, params)
    notes: list[str] = []
    melds: list[MeldLayout] = []
    flowers: list[int] = []
    ignored: list[int] = []
    standing_runs: list[tuple[int, list[int]]] = []
    rows: list[Row] = []
    for k in chosen:
        p = parses[k]
        rows.append(p.row)
        melds.extend(p.melds)
        flowers.extend(p.flowers)
        ignored.extend(p.ignored)
        standing_runs.extend((len(rows) - 1, run) for run in p.runs)
    if ignored:
        notes.append(f"{len(ignored)} face-down tile(s) outside a concealed kong ignored")
    others = [d for k, p in enumerate(parses) if k not in chosen for d in p.row.detections]
    if others:
        ignored.extend(others)
        notes.append(f"{len(others)} tile(s) in rows away from the hand ignored")
    winning = _winning_tile(standing_runs)
    if winning is None:
        winning = _slightly_apart([parses[k] for k in chosen])
    standing = [d for _, run in standing_runs for d in run if d != winning]
    sideways = frozenset(tiles[k] for k, s in side_local.items() if s)
    return Layout(
        melds=tuple(melds),
        standing=tuple(standing),
        winning=winning,
        flowers=tuple(flowers),
        ignored=tuple(ignored),
        rows=tuple(rows),
        notes=tuple(notes),
        frame_rotation=frame.frame_rotation,
        tilt_deg=frame.tilt_deg,
        sideways=sideways,
    )


def _apart_at_start(runs: list[list[int]]) -> bool:
    """A single tile set apart at the start of a row's standing tiles but not at the end."""
    return len(runs) >= 2 and len(runs[0]) == 1 and len(runs[-1]) > 1


def _apart_at_end(runs: list[list[int]]) -> bool:
    return len(runs) >= 2 and len(runs[-1]) == 1 and len(runs[0]) > 1


def _seen_from_across(parses: list[_RowParse]) -> bool:
    """For rows read as if upright, do the layout cues say the hand faces away from the
    camera? Players set the winning tile apart at the right end of the standing row and
    lay melds and flowers beyond it (towards the table centre): a tile apart at the left
    end, or meld/flower rows nearer the camera than the standing row, say the picture
    is upside down."""
    hand = max(range(len(parses)), key=lambda k: (parses[k].count, parses[k].standing_count))
    h = parses[hand]
    near = [k for k, p in enumerate(parses) if abs(p.cy - h.cy) <= 2.6 * h.height]
    main = max(near, key=lambda k: (parses[k].standing_count, parses[k].count))
    m = parses[main]
    votes = 0
    if _apart_at_start(m.runs):
        votes += 2
    elif _apart_at_end(m.runs):
        votes -= 2
    for k, p in enumerate(parses):
        if k == main or p.standing_count > 1 or not (p.melds or p.flowers):
            continue
        if abs(p.cy - m.cy) <= 2.6 * m.height:
            votes += 1 if p.cy > m.cy else -1
    return votes > 0


def _slightly_apart(parses: list[_RowParse]) -> int | None:
    """The last standing tile of the standing row when the gap before it, though under
    the row's split threshold, stands out: above 0.1 tile widths, the widest in its run,
    and beyond the row's usual gap by 4 times the gaps' spread (median absolute
    deviation). None otherwise."""
    with_standing = [p for p in parses if p.runs]
    if not with_standing:
        return None
    p = max(with_standing, key=lambda q: q.standing_count)
    run = p.runs[-1]
    if len(run) < 3 or not p.gaps:
        return None
    pos = {d: k for k, d in enumerate(p.row.detections)}
    a, b = pos[run[-2]], pos[run[-1]]
    if b != a + 1:
        return None
    inner = [p.gaps[pos[d]] for d in run[:-2] if pos[d] + 1 < len(p.row.detections)]
    last = p.gaps[a]
    usual = statistics.median(p.gaps)
    spread = statistics.median(abs(g - usual) for g in p.gaps)
    if last > max(0.1, usual + 4 * spread) and all(last > g for g in inner):
        return run[-1]
    return None


def _winning_tile(runs: list[tuple[int, list[int]]]) -> int | None:
    """The tile set apart from the standing tiles: a run of one tile at the end (else at
    the start) of the row holding the most standing tiles, or a lone tile in a row of its
    own. None when no tile, or more than one, is set apart."""
    if len(runs) < 2:
        return None
    per_row = Counter[int]()
    for row_no, run in runs:
        per_row[row_no] += len(run)
    main_row = per_row.most_common(1)[0][0]
    main_runs = [run for row_no, run in runs if row_no == main_row]
    singles_elsewhere = [run for row_no, run in runs if row_no != main_row and len(run) == 1]
    if len(main_runs) >= 2:
        if len(main_runs[-1]) == 1:
            return main_runs[-1][0]
        if len(main_runs[0]) == 1 and len(main_runs[-1]) > 1 and len(main_runs) == 2:
            return main_runs[0][0]
        return None
    if len(singles_elsewhere) == 1 and len(runs) == 2:
        return singles_elsewhere[0][0]
    return None
