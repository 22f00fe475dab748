"""Which rows of a picture hold the hand, which way it faces, and its winning tile.

Works on rows already read by :func:`vision.layout_rows.parse_row` (:class:`RowParse`).
See :mod:`vision.layout` for the conventions.
"""

from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import dataclass, field

from vision.classes import BACK, BONUS
from vision.layout_rows import LayoutParams, MeldLayout


@dataclass(frozen=True)
class Row:
    """A row of tiles: detection indices in the owner's reading order, and whether the
    row is seen upside down (from across the table)."""

    detections: tuple[int, ...]
    upside_down: bool


@dataclass
class RowParse:
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
    #: tiles found lying on this row's sideways tiles that no meld took as its kong tile
    loose: list[int] = field(default_factory=list)
    #: how far its tiles lie off one straight line, in tile heights
    #: (:func:`vision.layout_geometry.row_spread`): well under one for a row, several
    #: for a heap of tiles chained into one
    spread: float = 0.0

    @property
    def count(self) -> int:
        """Tiles for the hand size: kongs count 3."""
        return 3 * len(self.melds) + sum(len(r) for r in self.runs)

    @property
    def standing_count(self) -> int:
        return sum(len(r) for r in self.runs)


def select_hand_rows(parses: list[RowParse], params: LayoutParams) -> list[int]:
    """Which rows hold the hand: the row with the most tiles of a hand (melds and standing
    tiles), and rows near it
    (each within ``hand_row_distance`` tile heights of the standing row or of another
    near row) seen from the same side, choosing among
    those the set whose tile count is a hand's (won, else waiting) and, at equal count,
    the nearest rows. Other rows (a wall, discards, another player's melds) are left
    out, and so are heaps of tiles chained into one "row" (:func:`rows_not_heaps`)."""
    if not parses:
        return []
    rows = rows_not_heaps(parses, params)
    main = max(rows, key=lambda k: (parses[k].count, parses[k].standing_count, parses[k].cy))
    m = parses[main]
    # a row of hand tiles right beside the standing row is the player's own whichever way
    # its (often symmetric) faces vote: another player's tiles lie a table's width away
    beside = params.hand_row_beside * max(m.height, 1e-6)
    pool = [
        k
        for k, p in enumerate(parses)
        if k != main and k in rows
        and (p.row.upside_down == m.row.upside_down or not p.oriented or not m.oriented
             or (abs(p.cy - m.cy) <= beside and bool(p.runs or p.melds)))
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
        # no set of rows makes a hand (missed tiles): the count nearest to a hand's
        near_size = 0 if fit else -abs(count - params.hand_size)
        key = (fit, near_size, shown, -far)
        if best_key is None or key > best_key:
            best_key, best_set = key, [main, *chosen]
    return owner_order(best_set, parses)


def rows_not_heaps(parses: list[RowParse], params: LayoutParams) -> list[int]:
    """The rows of ``parses`` (indices) that may hold a hand: those lying along one line,
    within ``params.pile_spread`` tile heights (:attr:`RowParse.spread`). A heap of tiles
    (discards pushed together) that :func:`vision.layout_geometry.link_rows` chained into
    one "row" holds more tiles than a hand and would be taken for it. Every row when all
    of them spread so far (a picture of a heap alone: read what there is)."""
    rows = [k for k, p in enumerate(parses) if p.spread <= params.pile_spread]
    return rows or list(range(len(parses)))


def owner_order(rows: list[int], parses: list[RowParse]) -> list[int]:
    """Hand rows ``rows`` (indices into ``parses``) in their owner's order, far to near:
    by the picture's ``cy`` from the top, or from the bottom when most of their tiles are
    seen from across the table (rows upside down) — so a hand laid in two rows reads the
    same from either side, its last standing tile at the right end of the owner's near
    row."""
    upside = sum(parses[k].count for k in rows if parses[k].row.upside_down)
    across = 2 * upside > sum(parses[k].count for k in rows)
    return sorted(rows, key=lambda k: -parses[k].cy if across else parses[k].cy)


def apart_at_start(runs: list[list[int]]) -> bool:
    """A single tile set apart at the start of a row's standing tiles but not at the end."""
    return len(runs) >= 2 and len(runs[0]) == 1 and len(runs[-1]) > 1


def apart_at_end(runs: list[list[int]]) -> bool:
    return len(runs) >= 2 and len(runs[-1]) == 1 and len(runs[0]) > 1


def across_votes(parses: list[RowParse]) -> int:
    """For rows read as if upright, the layout cues' votes that the hand faces away from
    the camera (> 0: the picture is upside down). Players set the winning tile apart at
    the right end of the standing row and lay melds and flowers beyond it (towards the
    table centre): +2 / −2 for a tile apart at the start / end of the standing row, ±1
    for each meld or flower row nearer / further than it; 0 when the layout shows no cue."""
    hand = max(range(len(parses)), key=lambda k: (parses[k].count, parses[k].standing_count))
    h = parses[hand]
    near = [k for k, p in enumerate(parses) if abs(p.cy - h.cy) <= 2.6 * h.height]
    main = max(near, key=lambda k: (parses[k].standing_count, parses[k].count))
    m = parses[main]
    votes = 0
    if apart_at_start(m.runs):
        votes += 2
    elif apart_at_end(m.runs):
        votes -= 2
    for k, p in enumerate(parses):
        if k == main or p.standing_count > 1 or not (p.melds or p.flowers):
            continue
        if abs(p.cy - m.cy) <= 2.6 * m.height:
            votes += 1 if p.cy > m.cy else -1
    return votes


#: Gap (tile widths) after a lone tile at the start of the standing row for it to be the
#: winning tile set apart there (:func:`winning_tile`): at the end any split (``group_gap``)
#: will do, as the last standing tile is the default anyway; at the start a gap a hand
#: leaves by chance (0.2–0.3) would move the winning tile to the other end. (0.5 lost a
#: winning tile set 0.41 apart in a row read end to end: turned-choice scene 192.)
START_APART_GAP = 0.35

#: Standing tiles a row holds to be part of the standing row when a hand is laid in two
#: rows (:func:`winning_tile` then looks at the near one, where the owner's last tiles are).
WRAPPED_ROW_TILES = 4

#: How many median absolute deviations beyond the row's usual gap the gap before a
#: slightly-apart winning tile must be (:func:`slightly_apart`): 3 until the thirty-fourth
#: session; 2.5 reads one more choice2 and turned-choice scene each and the same 1,000
#: builder scenes (2 and 1.5, thirteenth session, took a tile not set apart there).
SLIGHTLY_APART_MAD = 2.5


def slightly_apart(parses: list[RowParse]) -> int | None:
    """The last standing tile of the standing row (``parses`` far to near; the row as
    :func:`winning_tile` takes it) when the gap before it, though under
    the row's split threshold, stands out: above 0.1 tile widths, the widest in its run,
    and beyond the row's usual gap by :data:`SLIGHTLY_APART_MAD` times the gaps' spread
    (median absolute deviation). None otherwise."""
    with_standing = [p for p in parses if p.runs]
    if not with_standing:
        return None
    # the standing row as winning_tile takes it: the nearest holding a part of it
    wrapped = [q for q in with_standing if q.standing_count >= WRAPPED_ROW_TILES]
    p = wrapped[-1] if wrapped else max(with_standing, key=lambda q: q.standing_count)
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
    if last > max(0.1, usual + SLIGHTLY_APART_MAD * spread) and all(last > g for g in inner):
        return run[-1]
    return None




def winning_tile(runs: list[tuple[int, list[int]]],
                 start_gaps: dict[int, float] | None = None) -> int | None:
    """The tile set apart from the standing tiles: a run of one tile at the end (else,
    after a gap of :data:`START_APART_GAP` or more — ``start_gaps``: row → the gap after
    its first tile, in tile widths; unknown: any — at the start) of the standing row, or
    a lone tile in a row of its own. ``runs``: ``(row, detections)`` in reading order,
    rows far to near. The standing row is the nearest row holding
    :data:`WRAPPED_ROW_TILES` standing tiles or more (a hand laid in two rows ends on the
    near one), else the row holding the most. None when no tile, or more than one, is
    set apart.

    >>> winning_tile([(0, [0, 1, 2, 3, 4, 5]), (1, [6, 7, 8, 9, 10]), (1, [11])])
    11
    >>> winning_tile([(0, [0]), (0, [1, 2, 3, 4])], {0: 0.25}) is None
    True
    """
    if len(runs) < 2:
        return None
    per_row = Counter[int]()
    for row_no, run in runs:
        per_row[row_no] += len(run)
    wrapped = [r for r, n in per_row.items() if n >= WRAPPED_ROW_TILES]
    main_row = max(wrapped) if wrapped else per_row.most_common(1)[0][0]
    main_runs = [run for row_no, run in runs if row_no == main_row]
    singles_elsewhere = [run for row_no, run in runs if row_no != main_row and len(run) == 1]
    if len(main_runs) >= 2:
        if len(main_runs[-1]) == 1:
            return main_runs[-1][0]
        if (len(main_runs[0]) == 1 and len(main_runs[-1]) > 1 and len(main_runs) == 2
                and (start_gaps or {}).get(main_row, START_APART_GAP) >= START_APART_GAP):
            return main_runs[0][0]
        return None
    if len(singles_elsewhere) == 1 and len(runs) == 2:
        return singles_elsewhere[0][0]
    return None


def face_up_kongs(
    runs: list[tuple[int, list[int]]], codes: list[str], excess: int
) -> tuple[list[tuple[int, list[int]]], list[MeldLayout]]:
    """Kongs laid as four touching standing tiles of one kind, none sideways or face
    down (as many players show a kong, against seed 003's layout): in a hand ``excess``
    tiles over its size (kongs count 3), up to ``excess`` runs of four equal codes
    inside the standing ``runs`` (``(row, detections)`` in reading order) become
    concealed kongs marked ``face_up`` — each explains one tile over. Which of 暗杠 and
    明杠 it was the picture does not say; a concealed kong is how the layout reads
    every set that shows no claimed tile. Returns the runs without the kongs' tiles (a
    run's other tiles stay one run: a kong taken from inside a run sets none of them
    apart) and the kongs.

    >>> codes = ["2m", "1m", "1m", "1m", "1m", "3m"]
    >>> runs, kongs = face_up_kongs([(0, [0, 1, 2, 3, 4, 5])], codes, 1)
    >>> runs, [(k.detections, k.concealed, k.face_up) for k in kongs]
    ([(0, [0, 5])], [((1, 2, 3, 4), True, True)])
    >>> face_up_kongs([(0, [0, 1, 2, 3, 4, 5])], codes, 0)[1]
    []
    """
    kongs: list[MeldLayout] = []
    out: list[tuple[int, list[int]]] = []
    for row_no, run in runs:
        rest: list[int] = []
        k = 0
        while k < len(run):
            four = run[k : k + 4]
            kind = codes[four[0]]
            if (len(kongs) < excess and len(four) == 4 and kind not in (BACK, *BONUS)
                    and all(codes[d] == kind for d in four)):
                kongs.append(MeldLayout(tuple(four), None, None, concealed=True, face_up=True))
                k += 4
            else:
                rest.append(run[k])
                k += 1
        if rest:
            out.append((row_no, rest))
    return out, kongs
