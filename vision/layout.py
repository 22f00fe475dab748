"""Detections → the hand's layout: rows, melds with their claim source, flowers,
standing tiles and the winning tile.

How players lay out a hand and how tilecam reads it. Seed 003 (鸣牌的摆放) gives the
sideways tile of a chow, pung and melded kong and its position for a pung and a kong;
that a chow comes from the left, how an added kong lies and the face-down ends of a
concealed kong are the game's rules and common practice, not that section's:

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
"left" always means the left of the player who owns the row. Players often leave their
tiles either way up, so a row's tiles decide its side only when they agree
(:func:`row_faces_away`); a row whose tiles do not faces like the nearest row whose tiles
do. Without 180/270 rotations (a detector with no rotation classifier), or when no row's
tiles agree, the picture's side is judged from the layout: the winning tile apart at the
right end, melds beyond the standing row. Tiles agreeing only loosely (under
``LayoutParams.turn_firm`` of their votes or fewer than ``turn_firm_votes`` sure tiles,
as a short row left either way up does by chance) give way to such a cue when the
picture shows one. Once the hand's rows are chosen they face one way, decided by those
rows alone (:func:`hand_faces_away`): a player's rows all lie on the player's side of
the table, and another player's rows say nothing of it.

Only the hand's rows are read: the row with the most hand tiles and the rows chained
to it (within ``LayoutParams.hand_row_distance`` tile heights, facing the same way),
choosing the set whose tile count is a hand's. A wall, discards or another player's
melds elsewhere in the picture get the role ``ignored``, and so does a heap of tiles
that lies across several rows' width (``LayoutParams.pile_spread``).

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
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from vision.classes import BACK, BONUS, CLASSES
from vision.detections import Detections
from vision.layout_geometry import (
    Frame,
    canonical_frame,
    gaps_along,
    link_rows,
    pitch_ratios,
    row_spread,
    stacked_on,
)
from vision.layout_hand import (
    Row,
    RowParse,
    across_votes,
    face_up_kongs,
    select_hand_rows,
    slightly_apart,
    winning_tile,
)
from vision.layout_rows import LayoutParams, MeldLayout, RowItem, parse_row
from vision.layout_sideways import (
    claim_margin,
    row_features,
    sideways_odds,
    sideways_probability,
)
from vision.postprocess import edge_gaps, iou_matrix

if TYPE_CHECKING:
    from scoring.hand import Hand, Meld

__all__ = [
    "FLOWER",
    "IGNORED",
    "MELD",
    "ROLES",
    "STANDING",
    "WINNING",
    "Layout",
    "LayoutParams",
    "MeldLayout",
    "Row",
    "SideReading",
    "analyze",
    "flowers_among_standing",
    "meld_as_written",
    "read_sides",
]

STANDING = "standing"
MELD = "meld"
FLOWER = "flower"
WINNING = "winning"
IGNORED = "ignored"
ROLES = (STANDING, MELD, FLOWER, WINNING, IGNORED)


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
    #: For each tile the sideways model judged: its log-odds over the layout's threshold
    #: (> 0 sideways); how sure the layout was (a flip's cost, :func:`analyze`'s ``flip``).
    side_margins: tuple[tuple[int, float], ...] = ()
    #: How the rules read a shown meld's tiles (:func:`scoring.stand_ins`; Xiamen, gold
    #: 5m: ``(("5m", "P"),)``): what :meth:`hand` gives every hand it builds unless told
    #: otherwise. :func:`analyze` knows no rules and leaves it empty;
    #: :func:`vision.recognize.recognize_detections` sets it before the correction, so
    #: that every reading's hand (:func:`vision.correct.correct`) counts a stand-in as
    #: the tile it is. Not part of the layout's equality.
    melded_as: tuple[tuple[str, str], ...] = field(default=(), compare=False)

    @property
    def hand_detections(self) -> list[int]:
        """The hand's tiles (not its flowers): standing, every meld's, then the winning one."""
        out = [*self.standing, *(i for m in self.melds for i in m.detections)]
        if self.winning is not None:
            out.append(self.winning)
        return out

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
        melded_as: Sequence[tuple[str, str]] | None = None,
    ) -> Hand:
        """The :class:`scoring.Hand` under ``codes`` (one code per detection).

        The winning tile set apart goes last in the standing tiles. ``hidden_kinds``
        gives, in order, the kinds of concealed kongs shown all face down. ``melded_as``
        (default: :attr:`melded_as`): how the rules read a shown meld's tiles
        (:func:`scoring.stand_ins`; Xiamen, gold 5m: ``(("5m", "P"),)``, a meld's 5m is
        a 白板 standing in), given to the hand (:attr:`scoring.hand.Hand.melded_as`) so
        that its copies are counted as the tiles are — four golds standing beside the
        chow ``[456m]`` — and a claimed chow that is a set only with its stand-in read
        as the kind it stands in for (``4m P 6m``) is that chow
        (:func:`meld_as_written`). Raises ``scoring.HandError`` when the codes make no
        valid hand.

        >>> from vision.layout_rows import MeldLayout
        >>> lay = Layout(melds=(MeldLayout((0, 1, 2), 0, 1),), standing=(3, 4, 5, 6, 7))
        >>> codes = ["4m", "P", "6m", "5m", "5m", "5m", "5m", "E"]
        >>> lay.hand(codes, melded_as=(("5m", "P"),)).melds[0].tiles
        ('4m', '5m', '6m')
        >>> replace(lay, melded_as=(("5m", "P"),)).hand(codes).standing[:4]
        ('5m', '5m', '5m', '5m')
        >>> lay.hand(codes)
        Traceback (most recent call last):
        ...
        scoring.hand.HandError: chow 4m6mP is not three consecutive tiles of one suit
        """
        from scoring.hand import Hand

        stand_ins = self.melded_as if melded_as is None else tuple(melded_as)
        hidden = list(hidden_kinds)
        melds = []
        for m in self.melds:
            all_down = m.concealed and all(codes[i] == BACK for i in m.detections)
            melds.append(meld_as_written(m, codes, hidden.pop(0) if all_down and hidden
                                         else None, stand_ins))
        standing = [codes[i] for i in self.standing]
        if self.winning is not None:
            standing.append(codes[self.winning])
        flowers = [codes[i] for i in self.flowers]
        return Hand(tuple(melds), tuple(standing), tuple(flowers), melded_as=stand_ins)


def flowers_among_standing(layout: Layout) -> list[int]:
    """The tiles ``layout`` lays among its flowers that stand *between two standing
    tiles* of one row (the winning tile counts as one): the nearest tiles that are not
    flowers on either side of it in the row's reading order are standing tiles. Flowers
    are set aside as they are drawn and laid apart from the standing tiles — at a row's
    end, beyond the melds, in a row of their own — so a "flower" standing among them is
    more likely a kind misread (:func:`vision.recognize.reread_standing_flower`). In the
    rows' reading order, rows as :attr:`Layout.rows` lists them.

    >>> from vision.layout_scene import SceneBuilder
    >>> b = SceneBuilder().standing("123m456p78s").standing("1f").standing("EEEN")
    >>> flowers_among_standing(analyze(b.win("N").detections()))
    [8]
    >>> b = SceneBuilder().standing("123m456p789sEEEN").win("N").flowers("1f2f")
    >>> flowers_among_standing(analyze(b.detections()))
    []
    """
    standing = set(layout.standing)
    if layout.winning is not None:
        standing.add(layout.winning)
    flowers = set(layout.flowers)
    out = []
    for row in layout.rows:
        tiles = row.detections
        for k, d in enumerate(tiles):
            if d not in flowers:
                continue
            left = next((x for x in reversed(tiles[:k]) if x not in flowers), None)
            right = next((x for x in tiles[k + 1:] if x not in flowers), None)
            if left in standing and right in standing:
                out.append(d)
    return out


def meld_as_written(
    m: MeldLayout, codes: Sequence[str], hidden_kind: str | None = None,
    melded_as: Sequence[tuple[str, str]] = (),
) -> Meld:
    """``m.meld(codes, hidden_kind)`` (:meth:`MeldLayout.meld`), but a claimed chow that is
    a set only with its stand-ins (``melded_as``: (written kind, the tile it is) pairs,
    :func:`scoring.stand_ins`) read as the kinds they stand in for is that chow, as the
    notation writes it: Xiamen, gold 5m, ``4m P 6m`` is ``[456m]``, its 5m a 白板
    (:attr:`scoring.hand.Hand.melded_as`). A pung or kong of 白板 stays as read, as
    :meth:`vision.correct._Table.written` reads it.

    >>> from vision.layout_rows import MeldLayout
    >>> m = MeldLayout((0, 1, 2), 0, 1)
    >>> meld_as_written(m, ["4m", "P", "6m"], None, (("5m", "P"),)).tiles
    ('4m', '5m', '6m')
    >>> meld_as_written(m, ["P", "P", "P"], None, (("5m", "P"),)).tiles
    ('P', 'P', 'P')
    """
    from scoring.hand import HandError

    try:
        return m.meld(codes, hidden_kind)
    except HandError as exc:
        error = exc
    as_written = {tile: written for written, tile in melded_as}
    tiles = [codes[i] for i in m.detections]
    written = [as_written.get(t, t) for t in tiles]
    if m.concealed or len(tiles) != 3 or written == tiles or len(set(written)) != 3:
        raise error
    trial = list(codes)
    for i, t in zip(m.detections, written, strict=True):
        trial[i] = t
    try:
        return m.meld(trial, hidden_kind)
    except HandError:
        raise error from None


def _sideways_flags(
    f: Frame, row: list[int], params: LayoutParams, p_side: npt.NDArray[np.float64] | None,
    back: npt.NDArray[np.bool_], odds_out: dict[int, float] | None = None,
) -> dict[int, bool]:
    """Which tiles of a row lie sideways. With the classifier's sideways probabilities
    ``p_side`` ``(n,)`` and ``params.sideways_model``, a row of 3 or more tiles is judged
    by that model of the probability and the box shape (:mod:`vision.layout_sideways`):
    sideways above ``params.sideways_min_odds``.
    Otherwise by the detector's rotation (90/270 relative to the row); when most of a row
    claims to be sideways the rotations are not trusted (e.g. rotation guessed from box
    shape under a low camera, or tiles standing on their edge); then a box clearly wider
    and lower than the row's median box is sideways. ``odds_out`` receives each judged
    tile's log-odds over the threshold."""
    if p_side is not None and params.sideways_model is not None and len(row) >= 3:
        log_w, log_h = row_features(f.w, f.h, row)
        odds = sideways_odds(p_side[row], log_w, log_h, back[row], params.sideways_model)
        if odds_out is not None:
            odds_out.update((i, o - params.sideways_min_odds)
                            for i, o in zip(row, odds.tolist(), strict=True))
        return {i: bool(o > params.sideways_min_odds)
                for i, o in zip(row, odds.tolist(), strict=True)}
    rot_side = {i: int(f.rotation[i]) in (90, 270) for i in row}
    if len(row) < 4 or sum(rot_side.values()) <= 0.6 * len(row):
        return rot_side
    mw = statistics.median(f.w[row].tolist())
    mh = statistics.median(f.h[row].tolist())
    return {i: bool(f.w[i] > params.wide_ratio * mw and f.h[i] < 0.92 * mh) for i in row}


def _with_claim_margin(
    m: MeldLayout, side_odds: dict[int, float], params: LayoutParams
) -> MeldLayout:
    """``m`` with its :attr:`MeldLayout.claim_margin` (and whether that is under
    ``params.claim_note_margin``) when it is a claimed meld whose tiles the sideways model
    judged (``side_odds``: detection → log-odds over the threshold). Added kongs (加杠)
    are left as they are: their fourth tile lies on or beside the sideways one."""
    if m.concealed or m.added or m.sideways is None or not side_odds:
        return m
    margin = claim_margin(side_odds, m.detections, m.sideways)
    if margin is None:
        return m
    margin = round(margin, 3)
    return replace(m, claim_margin=margin, claim_unclear=margin < params.claim_note_margin)


def bonus_alternative(dets: Detections, k: int, min_p: float) -> bool:
    """Whether detection ``k``'s top-k holds a bonus code with probability ≥ ``min_p``.

    >>> ids = np.array([[CLASSES.index("P"), CLASSES.index("3f")]])
    >>> d = Detections(np.array([[0, 0, 10, 14]], np.float32), ids[:, 0],
    ...                np.ones(1, np.float32), np.zeros(1, np.int64), ids,
    ...                np.array([[0.6, 0.3]], np.float32))
    >>> bonus_alternative(d, 0, 0.1), bonus_alternative(d, 0, 0.5)
    (True, False)
    """
    return any(
        CLASSES[int(c)] in BONUS and p >= min_p
        for c, p in zip(dets.topk_ids[k].tolist(), dets.topk_probs[k].tolist(), strict=True)
    )


#: Kinds whose way up the classifier reads wrong more often than right on real photos:
#: their rotation margin is 0 (:func:`rotation_margins`), so they cast no vote on which
#: side a row faces. 1s: on the hk-photos originals, taken from their owner's seat, and
#: the same turned 180° (`/tmp/s58/sym_votes.py`, 219 readings), the classifier called the
#: common set's upright bird turned 71 % of the time, with a mean margin of 0.63; every
#: other kind agreed 58–100 %, the faces alike turned 180° with margins of 0.2–0.4.
TURN_UNREAD = frozenset({"1s"})


def rotation_margins(dets: Detections) -> npt.NDArray[np.float64]:
    """How much surer each tile is of its rotation than of the opposite one, ``(n,)`` 0..1.

    ``(p[r] - p[r + 180]) / (p[r] + p[r + 180])`` from the classifier's rotation
    probabilities: near 0 for a face-down tile and low for faces that look alike turned
    180° (5p, 8s in most sets; the classifier splits them about 0.5–0.8 to 0.5–0.2), near
    1 for a character or a wind; 0 for the kinds of :data:`TURN_UNREAD`. All 1 when the
    detections carry no rotation probabilities (rotations given, e.g. a scene's truth).

    >>> d = Detections.from_lists([(0, 0, 10, 14), (12, 0, 22, 14)], ["5p", "E"],
    ...                           rotations=[180, 0])
    >>> probs = np.array([[0.48, 0.01, 0.5, 0.01], [0.9, 0.0, 0.1, 0.0]], np.float32)
    >>> d2 = Detections(d.boxes, d.class_ids, d.confidences, d.rotations, d.topk_ids,
    ...                 d.topk_probs, rotation_probs=probs)
    >>> rotation_margins(d2).round(2).tolist()
    [0.02, 0.8]
    """
    n = len(dets)
    if dets.rotation_probs is None:
        return np.ones(n)
    p = dets.rotation_probs.astype(np.float64)
    r = (dets.rotations // 90).astype(np.int64) % 4
    own = p[np.arange(n), r]
    opposite = p[np.arange(n), (r + 2) % 4]
    margins = np.clip((own - opposite) / np.maximum(own + opposite, 1e-9), 0.0, 1.0)
    margins[[c in TURN_UNREAD for c in dets.codes]] = 0.0
    return np.asarray(margins)


def row_faces_away(
    row: Sequence[int],
    frame: Frame,
    margins: npt.NDArray[np.float64],
    sideways: dict[int, bool],
    codes: Sequence[str],
    params: LayoutParams,
) -> tuple[bool, bool]:
    """Whether the tiles of ``row`` (detection indices) say it is seen from across the
    table, and whether they agree enough to say it: ``(upside_down, agreed)``.

    Each face-up tile standing in the row (not sideways) votes for 0 or 180 by its
    ``margins`` entry (:func:`rotation_margins`: symmetric faces barely count); the row
    is *agreed* when ``|sum of votes| >= params.turn_agreement × sum of margins`` and
    ``>= params.turn_votes``. A row whose tiles lie either way up, as players often
    leave them, or too short to tell, is not agreed and reads as upright here (the
    caller then decides by the layout).

    >>> from vision.layout_scene import SceneBuilder
    >>> d = SceneBuilder().standing("123m456m").row().detections()
    >>> f = canonical_frame(d.boxes, d.rotations)
    >>> m, side = np.ones(len(d)), {k: False for k in range(len(d))}
    >>> row_faces_away(range(len(d)), f, m, side, d.codes, LayoutParams())
    (False, True)
    >>> f.rotation[:3] = 180  # three of six tiles turned: no agreement
    >>> row_faces_away(range(len(d)), f, m, side, d.codes, LayoutParams())
    (False, False)
    """
    return _faces_away(*row_turn_votes(row, frame, margins, sideways, codes), params)


def _faces_away(vote: float, weight: float, params: LayoutParams) -> tuple[bool, bool]:
    """:func:`row_faces_away` from the row's votes (:func:`row_turn_votes`)."""
    agreed = (weight > 0 and abs(vote) >= params.turn_agreement * weight
              and abs(vote) >= params.turn_votes)
    return bool(agreed and vote > 0), bool(agreed)


def _flowers_by_other_tiles(
    chosen: Sequence[int], parses: Sequence[RowParse], boxes: npt.NDArray[np.float32],
    codes: Sequence[str],
) -> set[int]:
    """Chosen rows holding only flowers that lie nearer face-up tiles of rows left out of
    the hand (another player's) than any tile of the hand's other rows: a player lays
    their flowers by their own tiles."""
    hand = [d for k in chosen if parses[k].melds or parses[k].runs
            for d in parses[k].row.detections]
    others = [d for j, q in enumerate(parses) if j not in chosen
              for d in q.row.detections if codes[d] != BACK]
    if not hand or not others:
        return set()
    out: set[int] = set()
    for k in chosen:
        p = parses[k]
        if p.melds or p.runs or not p.flowers:
            continue
        mine = boxes[list(p.row.detections)]
        if edge_gaps(mine, boxes[others]).min() < edge_gaps(mine, boxes[hand]).min():
            out.add(k)
    return out


def row_turn_votes(
    row: Sequence[int],
    frame: Frame,
    margins: npt.NDArray[np.float64],
    sideways: dict[int, bool],
    codes: Sequence[str],
) -> tuple[float, float]:
    """The votes of ``row``'s upright face-up tiles that it is seen from across the table:
    ``(sum of signed margins, sum of margins)``, + for a tile at 180, − at 0 (see
    :func:`row_faces_away`). Their ratio is 1 or −1 when every tile lies the same way up.

    >>> from vision.layout_scene import SceneBuilder
    >>> d = SceneBuilder().standing("123m456m").row().detections()
    >>> f = canonical_frame(d.boxes, d.rotations)
    >>> f.rotation[:2] = 180
    >>> upright = {k: False for k in range(len(d))}
    >>> row_turn_votes(range(len(d)), f, np.ones(len(d)), upright, d.codes)
    (-2.0, 6.0)
    """
    # face-down tiles show no glyph: their rotation says nothing about 0 vs 180
    votes = [
        margins[k] * (1.0 if int(frame.rotation[k]) == 180 else -1.0)
        for k in row
        if not sideways[k] and codes[k] != BACK and int(frame.rotation[k]) in (0, 180)
    ]
    return float(sum(votes)), float(sum(abs(v) for v in votes))


def _second_boxes(frame: Frame, codes: Sequence[str], bases: dict[int, int],
                  base_row: dict[int, int], down_row: dict[int, int]) -> bool:
    """Whether the face-down boxes ``down_row`` (detection → index of the meld row they lie
    on) of a row whose face-up tiles ``bases`` lie on sideways tiles (detection → that
    tile, ``base_row``: its row) are second boxes of those added tiles: no more of them
    than added tiles, each lying on a meld row of one, within 1.2 tile widths along the
    row of one, and every added tile on a face-up claimed tile."""
    if len(down_row) > len(bases) or any(codes[b] == BACK for b in bases.values()):
        return False
    if not set(down_row.values()) <= set(base_row.values()):
        return False
    return all(
        any(abs(frame.cx[k] - frame.cx[j]) <= 1.2 * max(frame.w[k], frame.w[j]) for j in bases)
        for k in down_row
    )


@dataclass(frozen=True)
class SideReading:
    """What :func:`analyze` reads from one detections container before any sideways
    judgement is flipped: which tiles may be flowers, the rotation margins, the canonical
    frame, the rows and each tile's sideways call with its log-odds over the threshold.
    Read once (:func:`read_sides`) for the flips a rule tries on the same detections
    (:func:`vision.tile_rereads.flip_unclear_sideways`); never changed after."""

    dets: Detections
    params: LayoutParams
    maybe_flower: frozenset[int]
    margins: npt.NDArray[np.float64]
    frame: Frame
    rows: tuple[list[int], ...]
    sideways: dict[int, bool]
    side_odds: dict[int, float]
    #: boxes found twice (:func:`boxes_twice`): in no row, left out of the hand
    twice: tuple[int, ...] = ()


def read_sides(dets: Detections, params: LayoutParams) -> SideReading:
    """The flip-independent part of :func:`analyze` for ``dets`` (non-empty) and ``params``.

    >>> from vision.layout_scene import SceneBuilder
    >>> d = SceneBuilder().standing("123m456p789s").meld("EEE", sideways=1).win("N").row()
    >>> dets, params = d.detections(), LayoutParams()
    >>> sides = read_sides(dets, params)
    >>> analyze(dets, params, sides=sides) == analyze(dets, params)
    True
    """
    codes = dets.codes
    bonus = set(BONUS)
    maybe_flower = frozenset(
        k for k in range(len(dets))
        if codes[k] not in bonus and codes[k] != BACK
        and bonus_alternative(dets, k, params.flower_alt_p)
    )
    margins = rotation_margins(dets)
    frame = canonical_frame(dets.boxes, dets.rotations, margins)
    twice = boxes_twice(dets)
    rows_local = link_rows(frame, params.row_link_gap, params.row_overlap)
    if twice:
        rows_local = [r for r in ([k for k in row if k not in twice] for row in rows_local) if r]
    rows_local = lift_added_tiles(rows_local, frame, codes, params)
    p_side = (
        None if dets.rotation_probs is None
        else sideways_probability(dets.rotation_probs, frame.frame_rotation, frame.tilt_deg)
    )
    back = np.array([c == BACK for c in codes], bool)
    side_local: dict[int, bool] = {}
    side_odds: dict[int, float] = {}
    for r in rows_local:
        side_local.update(_sideways_flags(frame, r, params, p_side, back, side_odds))
    return SideReading(dets, params, maybe_flower, margins, frame, tuple(rows_local),
                       side_local, side_odds, tuple(sorted(twice)))


def lift_added_tiles(rows: list[list[int]], frame: Frame, codes: Sequence[str],
                     params: LayoutParams) -> list[list[int]]:
    """``rows`` (from :func:`link_rows`: far to near, each along the row) with every
    added-kong tile (加杠) that was linked into a row set in a row of its own, and the
    rest of that row linked again without it.

    An added tile lies across the rows just beyond its pung's sideways tile, between
    the meld row and whatever lies beyond it (the flowers, a second row of the hand):
    overlapping both by about half a tile height, it can chain them into one row, which
    then mixes the flowers into the melds. A tile is taken for one when it lies sideways
    (rotation 90/270 relative to the rows), face up, on a sideways tile of its kind in
    the same row (:func:`stacked_on`), and further than that tile from the row's middle
    (the median of its centres across the rows). Once apart, :func:`_added_tile_rows`
    finds it on its base as it finds any added tile in a row of its own."""
    cy = frame.cy.tolist()
    turned = {k for k in range(len(codes)) if int(frame.rotation[k]) in (90, 270)}

    def added(k: int, row: list[int], mid: float) -> bool:
        return k in turned and codes[k] != BACK and any(
            b != k and b in turned and codes[b] == codes[k] and stacked_on(frame, k, b)
            and abs(cy[k] - mid) > abs(cy[b] - mid) for b in row)

    out: list[list[int]] = []
    for row in rows:
        mid = statistics.median(cy[k] for k in row)
        lifted = [k for k in row if added(k, row, mid)]
        if not lifted:
            out.append(row)
            continue
        rest = [k for k in row if k not in lifted]
        sub = frame.take(rest)
        out.extend([rest[i] for i in r]
                   for r in link_rows(sub, params.row_link_gap, params.row_overlap))
        out.extend([k] for k in lifted)
    out.sort(key=lambda r: sorted(cy[k] for k in r)[len(r) // 2])  # as link_rows: far to near
    return out


#: IoU over which two boxes are one tile found twice (:func:`boxes_twice`): the
#: detector's own suppression keeps none over its ``iou`` (0.5), and tiles side by side
#: or stacked overlap far less.
TWICE_IOU = 0.7


def boxes_twice(dets: Detections) -> set[int]:
    """Boxes of ``dets`` that repeat a box of higher confidence (IoU over
    :data:`TWICE_IOU`): one tile found twice, as hand-made detections (an automatic
    table, a caller's boxes) may hold, never the detector's own output. Such a box read
    as a tile beside its twin once made a pung a kong.

    >>> d = Detections.from_lists([(0, 0, 10, 14), (1, 0, 11, 14), (12, 0, 22, 14)],
    ...                           ["C", "C", "C"], [0.8, 0.9, 0.9])
    >>> boxes_twice(d)
    {0}
    """
    if len(dets) < 2:
        return set()
    over = iou_matrix(dets.boxes, dets.boxes) > TWICE_IOU
    np.fill_diagonal(over, False)
    if not over.any():
        return set()
    twice: set[int] = set()
    for i in np.argsort(-dets.confidences, kind="stable").tolist():  # surest first
        if i not in twice:  # a box no surer one took: its twins are twice
            twice.update(np.flatnonzero(over[i]).tolist())
    return twice


def analyze(
    dets: Detections, params: LayoutParams | None = None, flip: frozenset[int] = frozenset(),
    sides: SideReading | None = None,
) -> Layout:
    """Read the layout of one player's hand from ``dets`` (see module doc). ``flip``:
    detections whose sideways judgement is taken the other way (a rule's second reading
    of tiles the layout was unsure of, :func:`vision.tile_rereads.flip_unclear_sideways`).
    ``sides``: :func:`read_sides` of these same ``dets`` and ``params`` (the same objects),
    so that several flips read the frame, rows and sideways calls once; another is
    ignored.

    The stages: rows of added-kong tiles set aside (:func:`_added_tile_rows`), each
    other row parsed (:class:`_RowReader`) facing the way its tiles or the layout say
    (:func:`_orient_rows`), the hand's rows chosen and read as one hand
    (:func:`_hand_layout`)."""
    params = params or LayoutParams()
    if len(dets) == 0:
        return Layout()
    if sides is None or sides.dets is not dets or sides.params is not params:
        sides = read_sides(dets, params)
    side_local = dict(sides.sideways)
    for k in flip:
        if k in side_local:
            side_local[k] = not side_local[k]
    codes = dets.codes
    main_rows, base_of, second_boxes = _added_tile_rows(
        list(sides.rows), dets, sides.frame, side_local)
    reader = _RowReader.of(codes, dets.boxes, params, sides, side_local, main_rows,
                           {b: k for k, b in base_of.items()})
    parses, side_note = _orient_rows(reader, dets, sides.margins)
    parses, side_note = _one_side_for_the_hand(parses, side_note, reader, dets, sides.margins)
    layout = _hand_layout(parses, reader, second_boxes, side_note, sides.side_odds)
    if sides.twice:
        layout = replace(layout, ignored=(*layout.ignored, *sides.twice), notes=(
            *layout.notes, f"{len(sides.twice)} box(es) found twice at one place (over "
            f"{TWICE_IOU:.0%} overlap with a surer box) ignored"))
    return layout


def _may_match(dets: Detections, top: int, base: int) -> bool:
    """Whether tile ``top`` may be of ``base``'s kind (an added-kong tile is the pung's
    fourth copy): their top-1 classes and the alternatives the detector gave any
    probability share one."""
    def kinds(i: int) -> set[int]:
        alts = dets.topk_ids[i][dets.topk_probs[i] > 0]
        return {int(dets.class_ids[i]), *alts.tolist()}

    return bool(kinds(top) & kinds(base))


def _added_tile_rows(
    rows: list[list[int]], dets: Detections, frame: Frame, sideways: dict[int, bool],
) -> tuple[list[list[int]], dict[int, int], list[int]]:
    """``(main rows, base_of, second boxes)``: ``rows`` whose tiles all lie on sideways
    tiles of bigger rows, each lying sideways as a 加杠 tile does or one that may be of
    the kind of the tile under it (:func:`_may_match`; an upright tile of another kind
    lying just beyond a claimed tile — the hand's last tile laid in front of its melds,
    the winning tile pushed forward — is a tile of the hand), are added-kong tiles
    (``base_of``: such a tile → the sideways tile under it) and are no rows of their own;
    a face-down box lying on the meld row of such a tile, in its row, is a second box of
    it (an added tile is laid face up; no tile is laid face down on a meld): left out.
    The other rows are the main rows."""
    codes = dets.codes
    base_of: dict[int, int] = {}
    second_boxes: list[int] = []
    main_rows = []
    for r in rows:
        bases: dict[int, int] = {}
        base_row: dict[int, int] = {}
        down_row: dict[int, int] = {}
        for k in r:
            if codes[k] in BONUS:
                break
            for j, other in enumerate(rows):
                if other is r or len(other) <= len(r):
                    continue
                if codes[k] == BACK:
                    if any(stacked_on(frame, k, b) for b in other):
                        down_row[k] = j
                        break
                    continue
                hit = [b for b in other if sideways[b] and stacked_on(frame, k, b)
                       and (sideways[k] or _may_match(dets, k, b))]
                if hit:
                    bases[k], base_row[k] = hit[0], j
                    break
        if (bases and len(bases) + len(down_row) == len(r)
                and len(set(bases.values())) == len(bases)
                and (not down_row or _second_boxes(frame, codes, bases, base_row, down_row))):
            base_of.update(bases)
            second_boxes.extend(down_row)
        else:
            main_rows.append(r)
    return main_rows, base_of, second_boxes


@dataclass(frozen=True)
class _RowReader:
    """Parses the main rows of one picture, each in its owner's order
    (:meth:`read`), with what the layout knows of every tile."""

    codes: list[str]
    boxes: npt.NDArray[np.float32]  # (n, 4) xyxy, image pixels
    params: LayoutParams
    frame: Frame
    sideways: dict[int, bool]
    maybe_flower: frozenset[int]
    #: a sideways tile → the added-kong tile lying on it
    stacked_by_base: dict[int, int]
    main_rows: list[list[int]]
    #: gaps between neighbouring tiles of each main row (:func:`gaps_along`)
    row_gaps: list[list[float]]

    @classmethod
    def of(cls, codes: list[str], boxes: npt.NDArray[np.float32], params: LayoutParams,
           sides: SideReading, sideways: dict[int, bool], main_rows: list[list[int]],
           stacked_by_base: dict[int, int]) -> _RowReader:
        frame = sides.frame
        # pitch ratio of touching tiles in this picture, for rows too short to show theirs
        ratios = sorted(x for r in main_rows for x in pitch_ratios(frame, r))
        touching = ratios[len(ratios) // 3] if len(ratios) >= 3 else None
        return cls(codes, boxes, params, frame, sideways, sides.maybe_flower,
                   stacked_by_base, main_rows,
                   [gaps_along(frame, r, touching) for r in main_rows])

    def read(self, k: int, upside: bool, oriented: bool) -> RowParse:
        """Main row ``k`` parsed in its owner's order (right to left when seen from
        across the table, ``upside``); ``oriented``: whether its tiles said which way."""
        r, gaps = self.main_rows[k], self.row_gaps[k]
        p = self._parse(r[::-1], gaps[::-1], True) if upside else self._parse(list(r), gaps,
                                                                               False)
        p.oriented = oriented
        return p

    def _parse(self, order: list[int], gaps: list[float], upside: bool) -> RowParse:
        codes, stacked = self.codes, self.stacked_by_base
        items = [
            RowItem(
                k,
                codes[k],
                self.sideways[k],
                codes[k] == BACK,
                stacked.get(k),
                codes[stacked[k]] if k in stacked else None,
                codes[k] in BONUS,
                maybe_flower=k in self.maybe_flower,
            )
            for k in order
        ]
        row_melds, runs, row_flowers = parse_row(items, gaps, self.params)
        in_melds = {d for m in row_melds for d in m.detections}
        loose: list[int] = []
        for it in items:
            d = it.stacked
            if d is None or d in in_melds:
                continue
            # a tile lying on a claimed tile that made no kong with it: a flower laid
            # there if it may be one, otherwise left out (see Layout.notes)
            (row_flowers if d in self.maybe_flower else loose).append(d)
        kept_runs: list[list[int]] = []
        dropped: list[int] = []
        for run in runs:
            keep = [d for d in run if codes[d] != BACK]
            dropped.extend(d for d in run if codes[d] == BACK)
            if keep:
                kept_runs.append(keep)
        frame = self.frame
        return RowParse(
            Row(tuple(it.det for it in items), upside),
            row_melds,
            kept_runs,
            row_flowers,
            dropped,
            statistics.median(frame.cy[order].tolist()),
            statistics.median(np.maximum(frame.w[order], frame.h[order]).tolist()),
            gaps=list(gaps),
            loose=loose,
            spread=row_spread(frame, order),
        )


#: The note for a picture whose tiles lie either way up and whose layout shows no side.
SIDE_UNKNOWN_NOTE = (
    "the hand's tiles lie either way up and its layout does not show which side its "
    "owner sits (no tile set apart): read as seen from the camera's side — photographed "
    "from across the table, the claim sources and the winning tile would be mirrored"
)


def _sides_known(dets: Detections) -> bool:
    """Whether the tiles' rotations can say which side of the table a row faces.

    Without a rotation classifier the detector cannot tell 180 from 0 (nor 270 from
    90); then the whole picture is judged by how players lay a hand out (see
    :func:`across_votes`). A classifier's rotations say which side a tile faces even
    when no tile reads 180 or 270 (a hand seen from its owner's seat, its claimed tiles
    turned to 90)."""
    return dets.rotation_probs is not None or bool(np.isin(dets.rotations, (180, 270)).any())


def _firm(vote: float, weight: float, params: LayoutParams) -> bool:
    """Whether a row's votes (:func:`row_turn_votes`) agree as a hand left either way up
    rarely does by chance: at least ``params.turn_firm`` of their weight and
    ``params.turn_firm_votes`` sure tiles (and agreed, :func:`row_faces_away`)."""
    return _faces_away(vote, weight, params)[1] and abs(vote) >= max(
        params.turn_firm * weight, params.turn_firm_votes)


def _orient_rows(
    reader: _RowReader, dets: Detections, margins: npt.NDArray[np.float64],
) -> tuple[list[RowParse], str | None]:
    """Every main row parsed facing the way its owner sits, and the note to give when no
    tile says which side that is (:data:`SIDE_UNKNOWN_NOTE`, else None).

    A row's tiles vote (:func:`row_turn_votes`); where they agree only as loosely as a
    hand left either way up does by chance, a layout cue (:func:`across_votes`) decides
    for the whole picture; a row whose tiles do not agree faces the way of the nearest
    row whose tiles do. This reads every row, the hand's and the others', to choose
    the hand's rows by; :func:`_one_side_for_the_hand` then decides the hand's side from
    its own rows."""
    params = reader.params
    sides_known = _sides_known(dets)
    parses: list[RowParse] = []
    firm: list[bool] = []  # the row's tiles agree as a hand left either way up rarely does
    for k, r in enumerate(reader.main_rows):
        vote, weight = row_turn_votes(r, reader.frame, margins, reader.sideways, reader.codes)
        upside, agreed = _faces_away(vote, weight, params)
        parses.append(reader.read(k, upside, agreed))
        firm.append(_firm(vote, weight, params))

    def flip_row(k: int) -> None:
        parses[k] = reader.read(k, not parses[k].row.upside_down, parses[k].oriented)

    if sides_known and parses and not any(firm) and any(p.oriented for p in parses):
        # the rows' tiles agree only as loosely as a hand left either way up does by
        # chance: a layout cue, where the picture shows one, outweighs them
        upright = [reader.read(k, False, p.oriented) for k, p in enumerate(parses)]
        cue = across_votes(upright)
        if abs(cue) >= params.turn_cue_votes:
            parses = [reader.read(k, cue > 0, True) for k in range(len(parses))]
    undecided = [k for k, p in enumerate(parses) if not p.oriented]
    side_note = None
    if parses and (not sides_known or len(undecided) == len(parses)):
        # no tile says which side the hand faces (no rotation classifier, or every row's
        # tiles lie either way up): the layout's cues decide for the whole picture
        cue = across_votes(parses)
        if cue > 0:
            for k in range(len(parses)):
                flip_row(k)
        if sides_known and not cue:  # tiles either way up and no layout cue
            side_note = SIDE_UNKNOWN_NOTE
    else:
        for k in undecided:  # face the way of the nearest row whose tiles agree
            p = parses[k]
            near = [j for j, q in enumerate(parses) if q.oriented
                    and abs(q.cy - p.cy) <= params.hand_row_distance * max(p.height, q.height)]
            if near:
                j = min(near, key=lambda j: abs(parses[j].cy - p.cy))
                if parses[j].row.upside_down != p.row.upside_down:
                    flip_row(k)
    return parses, side_note


def _one_side_for_the_hand(
    parses: list[RowParse], side_note: str | None, reader: _RowReader, dets: Detections,
    margins: npt.NDArray[np.float64],
) -> tuple[list[RowParse], str | None]:
    """``parses`` (:func:`_orient_rows`) with the hand's rows (:func:`select_hand_rows`)
    read facing one way, decided by those rows alone (:func:`hand_faces_away`), and the
    side note to give (:data:`SIDE_UNKNOWN_NOTE` when nothing says, else None).

    A player's rows all lie on the player's side of the table, so one hand faces one
    way; the rows of other players (discards, melds across the table), however firmly
    their tiles agree, say nothing about it. Unchanged without rotations that tell the
    sides apart (:func:`_sides_known`), where the layout decides for the whole picture."""
    if not parses or not _sides_known(dets):
        return parses, side_note
    chosen = select_hand_rows(parses, reader.params)
    votes = [row_turn_votes(reader.main_rows[k], reader.frame, margins, reader.sideways,
                            reader.codes) for k in chosen]

    def cue() -> int:  # the hand's rows read upright, as across_votes takes them
        return across_votes([reader.read(k, False, True) for k in chosen])

    side = hand_faces_away(votes, cue, reader.params)
    upside, note = (False, SIDE_UNKNOWN_NOTE) if side is None else (side, None)
    if note == side_note and all(parses[k].row.upside_down == upside for k in chosen):
        return parses, side_note
    out = list(parses)
    for k in chosen:
        out[k] = reader.read(k, upside, parses[k].oriented)
    return out, note


def hand_faces_away(votes: Sequence[tuple[float, float]], cue: Callable[[], int],
                    params: LayoutParams) -> bool | None:
    """Whether one hand is seen from across the table, from its rows alone: ``votes``,
    each row's :func:`row_turn_votes` ``(sum of signed margins, sum of margins)``, and
    ``cue``, which gives its rows' layout cue (:func:`across_votes` on the rows read
    upright; asked only when needed). None when neither says.

    In order: the firmest of the rows whose tiles agree firmly (:func:`_firm`); else
    the layout cue when it has ``params.turn_cue_votes`` votes or more, as tiles that
    agree only loosely may by chance; else the row whose tiles agree most strongly
    (:func:`row_faces_away`); else the cue's sign.

    >>> p = LayoutParams()
    >>> hand_faces_away([(-6.0, 6.0), (4.0, 4.0)], lambda: 0, p)  # a firm row decides
    False
    >>> hand_faces_away([(1.0, 7.0), (4.0, 4.0)], lambda: -1, p)  # a loose one, no cue
    True
    >>> hand_faces_away([(1.0, 7.0), (4.0, 4.0)], lambda: -2, p)  # ... gives way to one
    False
    >>> hand_faces_away([(1.0, 7.0)], lambda: 0, p) is None  # nothing says
    True
    """
    agreed = [v for v, w in votes if _faces_away(v, w, params)[1]]
    firm = [v for v, w in votes if _firm(v, w, params)]
    if firm:
        return max(firm, key=abs) > 0
    layout = cue()
    if agreed and abs(layout) < params.turn_cue_votes:
        return max(agreed, key=abs) > 0
    return layout > 0 if layout else None


def _hand_layout(
    parses: list[RowParse], reader: _RowReader, second_boxes: list[int],
    side_note: str | None, side_odds: dict[int, float],
) -> Layout:
    """The :class:`Layout` of the rows that hold the hand (:func:`select_hand_rows`):
    their melds, flowers and standing tiles, the winning tile, what is left out and the
    notes saying so. ``second_boxes``: face-down boxes beside added-kong tiles (left
    out); ``side_note``: :func:`_orient_rows`' note; ``side_odds``: the sideways model's
    log-odds of each tile it judged (for the melds' claim margins)."""
    params, codes, frame = reader.params, reader.codes, reader.frame
    chosen = select_hand_rows(parses, params)
    others_flowers = _flowers_by_other_tiles(chosen, parses, reader.boxes, codes)
    chosen = [k for k in chosen if k not in others_flowers]
    notes: list[str] = []
    if others_flowers:
        n_by = sum(len(parses[k].row.detections) for k in others_flowers)
        notes.append(f"{n_by} flower(s) lying by tiles away from the hand (another player's) "
                     "left out")
    melds: list[MeldLayout] = []
    flowers: list[int] = []
    ignored: list[int] = []
    standing_runs: list[tuple[int, list[int]]] = []
    start_gaps: dict[int, float] = {}
    rows: list[Row] = []
    for k in chosen:
        p = parses[k]
        rows.append(p.row)
        melds.extend(_with_claim_margin(m, side_odds, params) for m in p.melds)
        flowers.extend(p.flowers)
        ignored.extend(p.ignored)
        standing_runs.extend((len(rows) - 1, run) for run in p.runs)
        start_gap = _gap_after_first(p)
        if start_gap is not None:
            start_gaps[len(rows) - 1] = start_gap
    if ignored:
        notes.append(f"{len(ignored)} face-down tile(s) outside a concealed kong ignored")
    left_out = [d for k in chosen for d in parses[k].loose]
    if left_out:
        ignored.extend(left_out)
        notes.append(f"{len(left_out)} tile(s) lying on a claimed tile, making no kong, ignored")
    if second_boxes:
        ignored.extend(second_boxes)
        notes.append(f"{len(second_boxes)} face-down box(es) beside a tile added to a kong "
                     "taken for a second box of it and ignored")
    others = [d for k, p in enumerate(parses) if k not in chosen for d in p.row.detections]
    if others:
        ignored.extend(others)
        notes.append(f"{len(others)} tile(s) in rows away from the hand ignored")
    notes.extend(_meld_and_tilt_notes(melds, frame.tilt_deg, params))
    excess = sum(parses[k].count for k in chosen) - params.hand_size  # kongs count 3
    in_kongs: set[int] = set()
    if params.face_up_kongs and excess > 0:
        standing_runs, kongs = face_up_kongs(standing_runs, codes, excess)
        if kongs:
            melds.extend(kongs)
            in_kongs = {d for m in kongs for d in m.detections}
            shown = ", ".join("".join(codes[d] for d in m.detections) for m in kongs)
            notes.append(
                f"four tiles of a kind laid face up with none sideways ({shown}) read as a "
                "kong; the picture does not say whether it was claimed: scored as "
                "concealed (暗杠)"
            )
    winning = winning_tile(standing_runs, start_gaps)
    if winning is None:
        winning = slightly_apart([parses[k] for k in chosen])
        if winning in in_kongs:
            winning = None
    standing = [d for _, run in standing_runs for d in run if d != winning]
    if side_note and (winning is not None or any(m.claimed_from for m in melds)):
        notes.append(side_note)  # only where the side changes the hand
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
        sideways=frozenset(k for k, s in reader.sideways.items() if s),
        side_margins=tuple(sorted((k, round(o, 3)) for k, o in side_odds.items())),
    )


def _gap_after_first(p: RowParse) -> float | None:
    """The gap (tile widths) after ``p``'s first standing tile when it is a run of its
    own, to whatever tile comes next in the row; None otherwise."""
    if not p.runs or len(p.runs[0]) != 1:
        return None
    pos = p.row.detections.index(p.runs[0][0])
    return p.gaps[pos] if pos < len(p.gaps) and pos + 1 < len(p.row.detections) else None


def _meld_and_tilt_notes(melds: list[MeldLayout], tilt_deg: float,
                         params: LayoutParams) -> list[str]:
    """Notes on melds whose sideways tile is unclear, and on rows tilted so far
    (``tilt_deg``, from ``params.warn_tilt_deg``) that every sideways call is unsure."""
    notes = []
    for m in melds:
        if m.claim_unclear:
            at = ", ".join(str(d) for d in m.detections)
            notes.append(
                f"which tile lies sideways in the meld of detections {at} is unclear "
                f"(margin {m.claim_margin:.1f}): its claim source may be wrong"
            )
    if params.warn_tilt_deg > 0 and abs(tilt_deg) >= params.warn_tilt_deg:
        notes.append(
            f"the rows lie {abs(tilt_deg):.0f}° off the picture's edges: near 45° which "
            "tiles lie sideways (the melds' claim sources) is uncertain; a photo taken "
            "square to the table reads them better"
        )
    return notes
