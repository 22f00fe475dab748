"""Photo → scored hand: detect → layout → rule-aware correction → score (or waits).

``recognize(image)`` runs the detector; ``recognize_detections(dets)`` starts from tile
detections (tests, automatic tables that report where tiles lie). Both return a
:class:`Recognition` whose :meth:`~Recognition.to_dict` is the JSON of
``tilecam recognize --json`` and of the HTTP API::

    {"image", "tiles": [{"code", "box", "confidence", "rotation", "face_down", "role"}],
     "hand", "melds", "corrections", "alternatives", "reading_confidence", "hand_confidence",
     "score" | "waits" | "unscorable", "winning_tile", "notes", "ms"}

``reading_confidence`` (0..1): the model's own probability that every final code is
right, the boxes taken as found (:attr:`Recognition.reading_confidence`); it runs high.
``hand_confidence`` (0..1 or null): the calibrated probability that the final tile
multiset is exactly right, missed and extra tiles included (:mod:`vision.confidence`;
null for a model without a calibration).

``alternatives``: other possible readings within 4× of the chosen one's probability,
each ``{"hand", "ratio", "corrections", "winning", "score"}`` where ``ratio`` =
P(chosen) / P(this reading) (below 1: the detector preferred it, e.g. a non-winning
reading when a slightly less probable one wins). ``tiles`` holds the final (corrected)
codes, one entry per detection in detector order;
``role`` is standing / meld / flower / winning / ignored. Exactly one of ``score`` (a
win), ``waits`` (a hand one tile short of a win, or a hand shown as a win that is not
one: then ``unscorable`` says so too) or ``unscorable`` (why it cannot be scored) is
present; ``waits`` and ``unscorable`` may come together.

``context`` holds the win context of :func:`scoring.score` (``self_drawn``,
``last_of_kind``, ``kong``, ``last_wall_tile``, ``seat_wind``, ``prevalent_wind``,
``discarder``, ``version``, ``settings`` and rule-specific fields) plus two keys of
this step: ``hidden_kongs`` (kinds of concealed kongs shown all face down, in layout
order) and ``claim_win`` (True/False: the hand is / is not shown as a win; default:
decided by its tile count; ``win`` given as a bool means the same, while a string
``win`` is left to the rule set, e.g. Xiamen's win type).

>>> from vision.layout_scene import SceneBuilder
>>> b = SceneBuilder().standing("123m456p789s").meld("EEE", sideways=1).standing("N", apart=True)
>>> ctx = {"self_drawn": True, "indicator": "C"}
>>> r = recognize_detections(b.win("N").detections(), rules="zhenjiang", context=ctx)
>>> r.hand_text, r.melds[0].claimed_from, r.score.total
('[EEE,2]123m456p789sNN', 2, 1)
"""

from __future__ import annotations

import functools
import itertools
import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from vision.classes import BACK, BONUS, BONUS_IDS, CLASSES
from vision.correct import (
    Correction,
    CorrectionResult,
    CorrectParams,
    Reading,
    correct,
    winning_shape_check,
)
from vision.detections import Detections
from vision.layout import (
    FLOWER,
    IGNORED,
    MELD,
    STANDING,
    WINNING,
    Layout,
    LayoutParams,
    analyze,
    bonus_alternative,
)
from vision.layout_edges import edge_note, rows_past_edge
from vision.layout_stack import split_stack, stacked_boxes
from vision.tile_size import hand_tile_px, size_note

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from scoring import Hand, Meld, Score, Waits

#: ``context`` keys passed on to :func:`scoring.waits` (the others describe the win).
_WAITS_KEYS = ("seat_wind", "prevalent_wind", "version", "settings")
_WIN_KEYS = ("self_drawn", "last_of_kind", "kong", "last_wall_tile", "discarder")
_OWN_KEYS = ("hidden_kongs", "win")


@dataclass(frozen=True)
class Recognition:
    """The result of one recognition (see module doc)."""

    detections: Detections
    layout: Layout
    correction: CorrectionResult
    codes: tuple[str, ...]
    roles: tuple[str, ...]
    hand: Hand | None
    rules: str
    image: str | None = None
    score: Score | None = None
    waits: Waits | None = None
    unscorable: str | None = None
    winning_tile: str | None = None
    alternatives: tuple[dict[str, Any], ...] = ()
    notes: tuple[str, ...] = ()
    ms: Mapping[str, float] = field(default_factory=dict)
    #: The model's hand-confidence calibration (manifest ``calibration``), if it has one.
    calibration: Mapping[str, Any] | None = None

    @property
    def hand_text(self) -> str | None:
        """The hand in bracket notation (RULES.md), or None when there is none."""
        if self.hand is None:
            return None
        from scoring import format_hand

        return format_hand(self.hand)

    @property
    def reading_confidence(self) -> float:
        """The model's probability that every tile's final code is right, boxes taken as
        found: the product over tiles of the (fused) probability of the final code (a code
        outside a tile's top-k counts 0.001). Empty image: 0. It says nothing about tiles
        missed or found twice; how well it is calibrated is measured in
        ``bench/layout_eval.py photos`` (README)."""
        from vision.confidence import code_probabilities

        if not len(self.detections):
            return 0.0
        return math.exp(float(np.log(code_probabilities(self)).sum()))

    @property
    def hand_confidence(self) -> float | None:
        """The calibrated probability (0..1) that the final tile multiset is exactly right
        — missed and extra boxes included — from the model's calibration
        (:mod:`vision.confidence`); None when the model has none."""
        from vision.confidence import hand_confidence

        return hand_confidence(self, self.calibration)

    @property
    def melds(self) -> tuple[Meld, ...]:
        return self.hand.melds if self.hand is not None else ()

    def tiles(self) -> list[dict[str, Any]]:
        """One dict per detection: ``code, box, confidence, rotation, face_down, role``;
        a corrected tile's confidence is the detector's probability of its new code."""
        changed = {c.tile: c for c in self.correction.best.changes}
        out = []
        d = self.detections
        for i in range(len(d)):
            conf = float(d.confidences[i])
            if i in changed:
                conf = changed[i].p_after
            out.append(
                {
                    "code": self.codes[i],
                    "box": [round(float(v), 1) for v in d.boxes[i]],
                    "confidence": round(conf, 4),
                    "rotation": int(d.rotations[i]),
                    "face_down": self.codes[i] == BACK,
                    "role": self.roles[i],
                }
            )
        return out

    def melds_json(self) -> list[dict[str, Any]]:
        """Melds with their notation, claim source, the tiles (detection indices) and
        ``claim_margin``: how clearly the sideways tile is the one, in log-odds (None when
        the sideways model did not judge it; under 2 the claim source may be wrong and a
        note says so, see :class:`vision.layout.LayoutParams`)."""
        from scoring.notation import format_meld

        out = []
        for m, lay in zip(self.melds, self.layout.melds, strict=False):
            out.append(
                {
                    "notation": format_meld(m),
                    "kind": m.kind,
                    "tiles": list(m.tiles),
                    "claimed_from": m.claimed_from,
                    "claimed_index": m.claimed_index,
                    "added": m.added,
                    "concealed": m.concealed,
                    "face_up": lay.face_up,
                    "detections": list(lay.detections),
                    "claim_margin": lay.claim_margin,
                }
            )
        return out

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready result (see module doc)."""
        hc = self.hand_confidence
        out: dict[str, Any] = {
            "image": self.image,
            "rules": self.rules,
            "tiles": self.tiles(),
            "hand": self.hand_text,
            "winning_tile": self.winning_tile,
            "melds": self.melds_json(),
            "corrections": [c.to_dict() for c in self.correction.best.changes],
            "alternatives": list(self.alternatives),
            "reading_confidence": round(self.reading_confidence, 4),
            "hand_confidence": None if hc is None else round(hc, 4),
        }
        if self.score is not None:
            out["score"] = self.score.to_dict()
        if self.waits is not None:
            out["waits"] = self.waits.to_dict()
        if self.unscorable is not None:
            out["unscorable"] = self.unscorable
        out["notes"] = list(self.notes)
        out["ms"] = {k: round(v, 2) for k, v in self.ms.items()}
        return out


def _split_context(
    context: Mapping[str, Any] | None,
) -> tuple[dict[str, Any], bool | None, tuple[str, ...]]:
    """Split off this step's keys: ``claim_win`` (or ``win`` given as a bool; a string
    ``win`` is a rule set's win type, e.g. Xiamen 游金, and stays) and ``hidden_kongs``."""
    ctx = dict(context or {})
    win = ctx.pop("claim_win", None)
    if win is None and (ctx.get("win") is None or isinstance(ctx.get("win"), bool)):
        win = ctx.pop("win", None)
    hidden = ctx.pop("hidden_kongs", None) or ()
    if isinstance(hidden, str):
        hidden = tuple(h for h in hidden.replace(",", " ").split() if h)
    if win is not None and not isinstance(win, bool):
        raise ValueError(f"context 'claim_win' must be true or false, not {win!r}")
    return ctx, win, tuple(hidden)


def _waits_kwargs(ctx: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in ctx.items() if k not in _WIN_KEYS}


def _with_winning(hand: Hand, tile: str) -> Hand:
    """``hand`` with one copy of ``tile`` moved to the end of the standing tiles."""
    standing = list(hand.standing)
    standing.reverse()
    standing.remove(tile)
    standing.reverse()
    return replace(hand, standing=(*standing, tile))


def _without_last(hand: Hand) -> Hand:
    return replace(hand, standing=hand.standing[:-1])


def _score_unmarked_winning(
    hand: Hand, rules: str, ctx: Mapping[str, Any]
) -> tuple[Score, list[str]]:
    """Winning tile not set apart: score the hand on its last standing tile (the right
    end of the standing row, where players put it), and say what the other choices
    would score."""
    import scoring
    from scoring.tiles import sort_key

    chosen = scoring.score(hand, rules=rules, **ctx)
    totals = {}
    for tile in sorted(set(hand.standing[:-1]) - {hand.standing[-1]}, key=sort_key):
        try:
            totals[tile] = scoring.score(_with_winning(hand, tile), rules=rules, **ctx).total
        except scoring.HandError:
            continue
    note = (
        f"the winning tile is not set apart: scored on the last standing tile, "
        f"{hand.standing[-1]} ({chosen.total})"
    )
    if totals:
        others = ", ".join(f"{t} {v}" for t, v in totals.items())
        note += f"; on another tile it would score: {others}"
    return chosen, [note]


def face_up_kong_note(
    hand: Hand, layout: Layout, score: Score, rules: str, ctx: Mapping[str, Any]
) -> str | None:
    """What the hand would score if its kongs shown face up (read as concealed, see
    :func:`vision.layout_hand.face_up_kongs`) had been claimed, or None when it has none
    (or that hand cannot be scored). The claim source does not change the fans."""
    import scoring
    from scoring.hand import Meld

    if not any(m.face_up for m in layout.melds):
        return None
    melds = tuple(
        Meld("kong", m.tiles, claimed_from=2) if lay.face_up else m
        for m, lay in zip(hand.melds, layout.melds, strict=True)
    )
    try:
        claimed = scoring.score(replace(hand, melds=melds), rules=rules, **ctx).total
    except scoring.HandError:
        return None
    return (
        f"scored with the kong(s) shown face up as concealed ({score.total}); "
        f"if claimed (明杠) the hand would score {claimed}"
    )


def deduce_winning(layout: Layout, codes: Sequence[str]) -> tuple[Layout, str | None]:
    """A winning tile not set apart is still known when every standing tile is one kind
    (a hand of melds and a pair, say): whichever copy it was, the win was on that kind,
    so the last standing tile becomes the winning one. Returns the layout (unchanged when
    there is nothing to deduce) and a note, or None.

    >>> from vision.layout_rows import MeldLayout
    >>> lay = Layout(melds=(MeldLayout((0, 1, 2), 0, 1),), standing=(3, 4))
    >>> new, note = deduce_winning(lay, ["E", "E", "E", "2m", "2m"])
    >>> new.winning, new.standing, note is not None
    (4, (3,), True)
    >>> deduce_winning(Layout(standing=(0, 1)), ["2m", "3m"])[0].winning is None
    True
    """
    if layout.winning is not None or not layout.standing:
        return layout, None
    kinds = {codes[i] for i in layout.standing}
    if len(kinds) != 1:
        return layout, None
    kind = kinds.pop()
    note = f"the winning tile is not set apart, but every standing tile is {kind}: won on {kind}"
    return replace(layout, standing=layout.standing[:-1], winning=layout.standing[-1]), note


def _alternative(
    reading: Reading, layout: Layout, rules: str, ctx: Mapping[str, Any], hidden: Sequence[str],
    chosen_cost: float,
) -> dict[str, Any]:
    import scoring

    entry: dict[str, Any] = {
        "hand": None,
        "ratio": round(math.exp(reading.cost - chosen_cost), 3),
        "corrections": [c.to_dict() for c in reading.changes],
        "winning": reading.winning,
        "score": None,
    }
    try:
        hand = layout.hand(reading.codes, hidden)
        entry["hand"] = scoring.format_hand(hand)
        if reading.winning and layout.winning is not None:
            entry["score"] = scoring.score(hand, rules=rules, **ctx).total
    except scoring.HandError as exc:
        entry["unscorable"] = str(exc)
    return entry


@dataclass(frozen=True)
class WinTest:
    """What a rule that changes the tiles must reach: a **winning** corrected reading of
    exactly ``hand_size`` tiles under ``rules`` (:func:`vision.correct.correct` with the
    win claimed) that the scorer can take — not one whose kong is all face down with no
    kind given (a rule's guess must not end in "turn one tile face up") — and that
    overrides no more of what was read than a win may: at most ``max_ratio`` (default
    :attr:`CorrectParams.max_win_ratio`) times less probable than ``base_ratio()``, the
    ratio the hand *as laid out* needs to be physically possible (1 when its top-1 reading
    is; asked only when a win goes past ``max_ratio``). It is
    :func:`vision.correct.correct`'s own rule for a win, kept across the rule's new
    layout: the guess is made only so the hand wins, so codes its layout makes a physical
    necessity (a meld that is not a set until a surely read tile is read as another) count
    as forcing the win — the error a false win claim shows."""

    rules: str
    hand_size: int
    is_winning: Any
    hidden_kinds: Sequence[str] = ()
    base_ratio: Callable[[], float] = lambda: 1.0
    max_ratio: float = CorrectParams.max_win_ratio

    def wins(self, dets: Detections, layout: Layout) -> CorrectionResult | None:
        """The correction of ``layout`` when its best reading is such a win, else None."""
        if layout.tile_count != self.hand_size:
            return None
        result = correct(dets, layout, rules=self.rules, claim_win=True,
                         hand_size=self.hand_size, is_winning=self.is_winning,
                         hidden_kinds=self.hidden_kinds)
        if not result.best.winning:
            return None
        if result.best.ratio > self.max_ratio and (
            result.best.ratio > self.max_ratio * self.base_ratio()
        ):
            return None
        from scoring.hand import HandError

        try:
            layout.hand(result.best.codes, self.hidden_kinds)
        except HandError:
            return None
        return result


def _box_text(box: Any) -> str:
    """An xyxy box as notes write it, in whole pixels: ``"x1,y1,x2,y2"``."""
    return ",".join(str(round(float(v))) for v in box)


@dataclass(frozen=True)
class Rewrite:
    """What a reading-changing rule made of the hand: the detections and their layout,
    the notes saying what it did, the tiles it re-read (listed with the corrections), and
    the winning correction it checked — the one the recognition then reports."""

    dets: Detections
    layout: Layout
    notes: tuple[str, ...]
    result: CorrectionResult
    changes: tuple[Correction, ...] = ()


#: Most weakly seen tiles one hand may take (:func:`complete_from_weak`).
MAX_WEAK_TAKEN = 2


def _as_laid_ratio(
    dets: Detections, layout: Layout, rules: str, size: int, check: Any,
    hidden: Sequence[str],
) -> Callable[[], float]:
    """How many times less probable than the top-1 reading the most probable physically
    possible reading of ``layout`` is (:func:`vision.correct.correct`, no win claimed),
    worked out on the first call only (:attr:`WinTest.base_ratio`)."""

    @functools.cache
    def ratio() -> float:
        as_laid = correct(dets, layout, rules=rules, claim_win=False, hand_size=size,
                          is_winning=check, hidden_kinds=hidden)
        return as_laid.best.ratio

    return ratio


#: A weak box lying this much over a kept box of the same code (over the smaller area) is
#: a second look at that tile (:func:`second_look`).
SECOND_LOOK_COVER = 0.45


def second_look(weak: Detections, i: int, kept: Detections) -> bool:
    """Whether weak box ``i`` is a second look at a tile ``kept`` already holds: it lies
    :data:`SECOND_LOOK_COVER` or more over a kept box (over the smaller area) that reads
    the same code. Touching tiles overlap far less, except in rows tilted near 45°, where
    the axis-aligned boxes of neighbours overlap much — but a missed neighbour seldom
    reads the same face as the tile it overlaps (a real photo's missed tiles lay 70 % and
    85 % over their neighbours, read as other codes)."""
    from vision.postprocess import box_cover

    if not len(kept):
        return False
    same = kept.class_ids == weak.class_ids[i]
    return bool((same & (box_cover(weak.boxes[i], kept.boxes) >= SECOND_LOOK_COVER)).any())


def complete_from_weak(
    dets: Detections, layout: Layout, params: LayoutParams, test: WinTest
) -> Rewrite | None:
    """A hand short of tiles takes boxes the detector saw too weakly to keep, when the
    rules say so: a box of ``dets.weak`` is added only if the layout then puts it in the
    hand (not among other rows), and the additions end only in a **winning** reading with
    exactly ``test.hand_size`` tiles (the correction's best). Otherwise None: a hand that
    is short for real (waiting, or a tile hidden) is never filled by a guess. Candidates
    are tried best score first, at most :data:`MAX_WEAK_TAKEN`; a second look at a tile
    already seen (:func:`second_look`) is never taken. The rewrite's detections have the
    taken boxes appended after the others, and a note per taken tile."""
    weak = dets.weak
    hand_size = test.hand_size
    short = hand_size - layout.tile_count
    if weak is None or not len(weak) or not 1 <= short <= MAX_WEAK_TAKEN:
        return None
    base, lay, notes = dets, layout, []
    untried = [i for i in np.argsort(-weak.confidences, kind="stable").tolist()
               if not second_look(weak, i, dets)]
    while lay.tile_count < hand_size and untried:
        for j, i in enumerate(untried):
            trial = base.join(weak.select([i]))
            t_lay = analyze(trial, params)
            role = t_lay.roles(len(trial))[-1]
            if role in (STANDING, MELD, WINNING) and t_lay.tile_count == lay.tile_count + 1:
                notes.append(
                    f"took a weakly seen tile ({weak.codes[i]}, score "
                    f"{float(weak.confidences[i]):.2f}, box {_box_text(weak.boxes[i])}) to "
                    "complete the hand"
                )
                base, lay = trial, t_lay
                del untried[j]
                break
        else:
            break
    result = test.wins(base, lay)
    return None if result is None else Rewrite(base, lay, tuple(notes), result)


#: Most weakly seen flowers one picture may take (:func:`take_weak_flowers`).
MAX_WEAK_FLOWERS = 4


def take_weak_flowers(
    dets: Detections, layout: Layout, params: LayoutParams
) -> tuple[Detections, Layout, tuple[str, ...]]:
    """Flowers the detector saw too weakly to keep: a box of ``dets.weak`` whose top-k
    holds a bonus code with probability at least ``params.flower_alt_p`` is added when the
    layout then lays it among the hand's flowers and nothing else changes (the same tile
    count). A flower is never part of the hand's shape, so this needs no win; flowers of
    an unfamiliar set are what the detector scores lowest (on held-out art 17 of the 40
    scenes whose boxes miss a hand tile miss only a flower, and a weak box lies on it).
    A weak box lying :data:`WEAK_FLOWER_COVER` or more over a kept box is a second look at
    tiles already seen and never taken (a box straddling two flowers of the row read as a
    third), and so is one whose likeliest bonus code is a flower already kept and read at
    top-1 ≥ :data:`WEAK_FLOWER_SURE_P` (each flower shows once: a second look at it, or
    dice and discards). Best score first, at most :data:`MAX_WEAK_FLOWERS`; the taken
    boxes are appended after the others and leave ``weak``, with a note each. Returns the
    detections, their layout and the notes (unchanged and empty when none is taken)."""
    weak = dets.weak
    if weak is None or not len(weak):
        return dets, layout, ()
    shown = _surely_read_flowers(dets)  # kept, then also those taken here
    maybe = [
        i for i in np.argsort(-weak.confidences, kind="stable").tolist()
        if bonus_alternative(weak, i, params.flower_alt_p)
        and _likeliest_bonus(weak, i) not in shown
    ]
    taken: list[int] = []
    notes: list[str] = []
    for i in maybe[: 2 * MAX_WEAK_FLOWERS]:
        if _over_kept(weak.boxes[i], dets) or _likeliest_bonus(weak, i) in shown:
            continue
        trial = dets.join(weak.select([i]))
        t_lay = analyze(trial, params)
        if t_lay.roles(len(trial))[-1] != FLOWER or t_lay.tile_count != layout.tile_count:
            continue
        notes.append(
            f"took a weakly seen flower ({weak.codes[i]}, score "
            f"{float(weak.confidences[i]):.2f}, box {_box_text(weak.boxes[i])})"
        )
        dets, layout = trial, t_lay
        shown = _surely_read_flowers(dets)
        taken.append(i)
        if len(taken) == MAX_WEAK_FLOWERS:
            break
    if taken:
        rest = np.ones(len(weak), bool)
        rest[taken] = False
        dets = replace(dets, weak=weak.select(rest))
    return dets, layout, tuple(notes)


#: A weak box lying this much over a kept box (over the smaller area) is a second look at
#: kept tiles, not a flower of its own (:func:`take_weak_flowers`).
WEAK_FLOWER_COVER = 0.55


#: A kept flower read at least this surely (top-1) is not taken a second time from a weak
#: box (:func:`take_weak_flowers`; on the training photos 5 copies gained, none lost).
WEAK_FLOWER_SURE_P = 0.9


def _surely_read_flowers(dets: Detections) -> set[str]:
    """The bonus codes of ``dets``' tiles read at top-1 ≥ :data:`WEAK_FLOWER_SURE_P`."""
    return {dets.codes[i] for i in range(len(dets))
            if dets.codes[i] in BONUS and float(dets.topk_probs[i, 0]) >= WEAK_FLOWER_SURE_P}


def _likeliest_bonus(dets: Detections, i: int) -> str | None:
    """The likeliest bonus code among tile ``i``'s top-k readings, or None."""
    for c in dets.topk_ids[i].tolist():
        if int(c) in BONUS_IDS:
            return CLASSES[int(c)]
    return None


def _over_kept(box: npt.NDArray[np.float32], dets: Detections) -> bool:
    """Whether ``box`` lies :data:`WEAK_FLOWER_COVER` or more over a box of ``dets``."""
    from vision.postprocess import box_cover

    return bool(len(dets) and float(box_cover(box, dets.boxes).max()) >= WEAK_FLOWER_COVER)


def _flower_alternative(dets: Detections, i: int) -> tuple[int, float] | None:
    """The likeliest bonus code among tile ``i``'s alternatives (not its top-1): its
    position in the top-k and its probability, or None."""
    for j in range(1, dets.topk_ids.shape[1]):
        if int(dets.topk_ids[i, j]) in BONUS_IDS:
            return j, float(dets.topk_probs[i, j])
    return None


def flower_not_win(
    dets: Detections, layout: Layout, result: CorrectionResult, params: LayoutParams,
    hand_size: int,
) -> tuple[Detections, Correction] | None:
    """A win made by reading a doubtful winning tile as another kind, where the tile is
    likelier a flower: a hand one tile short (听) with a flower lying apart that the
    detector read as a kind shows as many tiles as a won hand, and the layout takes that
    lone tile for the winning tile set apart; the correction then reads it as whatever
    kind completes the hand. Never force a win: when the tile the layout took for the
    winning one (``layout.winning``) was changed by the winning reading from one kind to
    another, and has at least as much probability of being a bonus tile (any, summed over
    its top-k) as of being the kind that made the win, it is read as its likeliest bonus
    code — kept only if the layout then lays it among the flowers and the hand is one tile
    short (``hand_size`` - 1). Returns those detections and the change, or None. Measured
    on hands shown waiting (``tilecam dataset synth --waiting``, README "Hands that do not
    win"); used only when the win was inferred from the tile count, not claimed."""
    i = layout.winning
    c = next((c for c in result.best.changes if c.tile == i), None)
    if i is None or c is None or c.before in BONUS or c.after in BONUS:
        return None
    p_bonus = float(sum(p for cid, p in zip(dets.topk_ids[i].tolist(),
                                              dets.topk_probs[i].tolist(), strict=True)
                        if int(cid) in BONUS_IDS))
    alt = _flower_alternative(dets, i)
    if alt is None or p_bonus < c.p_after:
        return None
    j, _ = alt
    change = Correction(i, c.before, CLASSES[int(dets.topk_ids[i, j])], c.p_before, p_bonus)
    trial = _promote(dets, [(i, j)])
    t_lay = analyze(trial, params)
    if t_lay.roles(len(trial))[i] != FLOWER or t_lay.tile_count != hand_size - 1:
        return None
    return trial, change


#: A tile left out of the hand is re-read as a flower (:func:`reread_set_apart_flowers`)
#: when its top-k gives a bonus code at least this probability (chosen on the choice
#: sets; 0.1, the layout's ``flower_alt_p``, took fewer of them).
SET_APART_FLOWER_P = 0.05


def reread_set_apart_flowers(
    dets: Detections, layout: Layout, params: LayoutParams
) -> tuple[Detections, Layout, tuple[str, ...], tuple[Correction, ...]]:
    """Flowers read as kinds and so left out of the hand: tiles the layout ignores (apart
    from the hand, in no meld) whose top-k holds a bonus code at
    :data:`SET_APART_FLOWER_P` or more are read as that flower (no two as one flower, none
    as a flower already read; likeliest readings first), all together, and kept
    only if the layout then lays them among the flowers, lays no other tile read as a kind
    there, **and** the hand itself is the same
    detections with the same tile count (a flower is no part of the hand's shape, so this
    needs no win). Why: on an unfamiliar set the classifier reads whole rows of flowers set
    apart as white dragons or dots (held-out art: 6 of the 13 scenes whose only misread
    tiles were flowers read as kinds had them all ignored). Returns the detections, their
    layout, a note and a :class:`Correction` per re-read tile (unchanged and empty when
    none is kept)."""
    options: list[tuple[float, int, int]] = []
    for i, role in enumerate(layout.roles(len(dets))):
        if role != IGNORED or dets.codes[i] in BONUS or dets.codes[i] == BACK:
            continue
        options += [(float(dets.topk_probs[i, j]), i, j) for j in range(1, dets.topk_ids.shape[1])
                    if int(dets.topk_ids[i, j]) in BONUS_IDS
                    and dets.topk_probs[i, j] >= SET_APART_FLOWER_P]
    # each flower exists once: likeliest readings first, none a flower already read
    used = {dets.codes[i] for i in layout.flowers}
    chosen: dict[int, int] = {}
    for _, i, j in sorted(options, reverse=True):
        code = CLASSES[int(dets.topk_ids[i, j])]
        if i not in chosen and code not in used:
            chosen[i] = j
            used.add(code)
    kept = _laid_as_flowers(dets, layout, params, sorted(chosen),
                            lambda tiles: _promote(dets, [(i, chosen[i]) for i in tiles]))
    if kept is None:
        return dets, layout, (), ()
    tiles, trial, t_lay = kept
    changes, notes = _rereads(
        dets, trial, [(float(dets.topk_probs[i, chosen[i]]), i) for i in tiles],
        "set apart from the hand, it may be a flower")
    return trial, t_lay, notes, changes


def _laid_as_flowers(
    dets: Detections, layout: Layout, params: LayoutParams, tiles: list[int],
    read: Callable[[list[int]], Detections],
) -> tuple[list[int], Detections, Layout] | None:
    """The tiles of ``tiles`` (ignored by ``layout``) that, read as flowers by ``read``
    (tiles → detections with their new codes), the layout lays among the flowers while
    the hand stays the same detections with the same tile count and no tile read as a
    kind lies among the flowers: those it does not lay there are dropped and the rest
    tried again. Returns the tiles, the detections and their layout, or None."""
    hand = sorted(layout.hand_detections)
    while tiles:
        trial = read(tiles)
        t_lay = analyze(trial, params)
        if t_lay.tile_count != layout.tile_count or sorted(t_lay.hand_detections) != hand:
            return None
        t_roles = t_lay.roles(len(trial))
        if any(t_roles[i] == FLOWER and trial.codes[i] not in BONUS and i not in layout.flowers
               for i in range(len(trial))):
            return None  # a kind now laid among the flowers that no flower reading is left for
        laid = [i for i in tiles if t_roles[i] == FLOWER]
        if len(laid) == len(tiles):
            return tiles, trial, t_lay
        tiles = laid  # try again with only those the layout took for flowers
    return None


def reread_doubtful_apart_flowers(
    dets: Detections, layout: Layout, params: LayoutParams
) -> tuple[Detections, Layout, tuple[str, ...], tuple[Correction, ...]]:
    """Flowers of an unfamiliar set set apart and read as kinds with no bonus code among
    their alternatives (which :func:`reread_set_apart_flowers` needs): tiles the layout
    ignores whose top-1 probability is below :data:`FLOWER_RUN_WEAK_P`
    (:func:`vision.flower_runs.doubtful_apart`; weakest first, no more than bonus codes
    are free) are read as bonus codes (:func:`vision.flower_runs.as_flowers`), all
    together, kept on the same conditions: the layout lays each among the flowers (those
    it does not are dropped and the rest tried again), lays no tile read as a kind there,
    and the hand is the same detections with the same tile count. Which flower each is
    was not read, and the notes say so. Returns the detections, their layout, a note and
    a :class:`Correction` per re-read tile (unchanged and empty when none is kept)."""
    from vision.flower_runs import as_flowers, doubtful_apart

    used = {dets.codes[i] for i in layout.flowers}
    doubtful = doubtful_apart(dets, layout, FLOWER_RUN_WEAK_P)[: len(BONUS) - len(used)]
    kept = _laid_as_flowers(dets, layout, params, doubtful,
                            lambda tiles: as_flowers(dets, tiles, used))
    if kept is None:
        return dets, layout, (), ()
    tiles, trial, t_lay = kept
    changes, notes = _guessed_flowers(
        dets, trial, tiles, "set apart from the hand and read doubtfully, it lies with the "
        "flowers", show_p=False)
    return trial, t_lay, notes, changes


def _guessed_flowers(
    dets: Detections, trial: Detections, tiles: Sequence[int], why: str, show_p: bool
) -> tuple[tuple[Correction, ...], tuple[str, ...]]:
    """The :class:`Correction` and the note of each of ``tiles`` that ``trial`` reads as a
    flower by :func:`vision.flower_runs.as_flowers` (its new probability: the bonus codes'
    together in its top-k; ``show_p``: the note gives it). ``why`` ends each note, and a
    tile given a free code adds that which flower was not read."""
    from vision.flower_runs import bonus_probability

    changes = tuple(
        Correction(i, dets.codes[i], trial.codes[i], float(dets.topk_probs[i, 0]),
                   bonus_probability(dets, i))
        for i in sorted(tiles)
    )
    notes = tuple(
        f"read tile {c.tile} ({c.before}, p {c.p_before:.2f}) as a flower ("
        + (f"{c.after}, p {c.p_after:.2f} as any flower" if show_p else c.after)
        + f"): {why}"
        + ("" if float(trial.topk_probs[c.tile, 0]) > 0 else "; which flower was not read")
        for c in changes
    )
    return changes, notes


#: A tile is re-read (as a flower, or a back as a white dragon and back) only when that
#: reading is at most this many times less probable than its top reading (the
#: correction's ``max_win_ratio``).
REREAD_RATIO = 10.0


#: A hand box covered this much (over the smaller area) by another box may straddle two
#: tiles (:func:`drop_straddling_box`); real neighbours overlap far less.
STRADDLE_COVER = 0.55
#: Most such boxes one hand tries to leave out.
MAX_STRADDLE_TRIED = 3


def drop_straddling_box(
    dets: Detections, layout: Layout, params: LayoutParams, test: WinTest
) -> Rewrite | None:
    """A hand one tile over its size whose extra may be a box lying across two touching
    tiles (half of each; the detector's commonest extra box in a row): a hand box that
    another box covers by at least :data:`STRADDLE_COVER` is left out — most covered
    first, at most :data:`MAX_STRADDLE_TRIED` — only if the corrected reading then
    **wins** with exactly ``test.hand_size`` tiles. The rewrite's detections lack that
    box; a note gives its code, score and box. Otherwise None."""
    from vision.postprocess import box_cover

    if layout.tile_count != test.hand_size + 1 or len(dets) < 2:
        return None
    covers = []
    for i in layout.hand_detections:
        others = np.delete(dets.boxes, i, axis=0)
        cover = float(box_cover(dets.boxes[i], others).max())
        if cover >= STRADDLE_COVER:
            covers.append((cover, i))
    for cover, i in sorted(covers, reverse=True)[:MAX_STRADDLE_TRIED]:
        trial = dets.select([k for k in range(len(dets)) if k != i])
        t_lay = analyze(trial, params)
        result = test.wins(trial, t_lay)
        if result is None:
            continue
        note = (
            f"left out a box ({dets.codes[i]}, score {float(dets.confidences[i]):.2f}, box "
            f"{_box_text(dets.boxes[i])}) lying {cover:.0%} over another: the hand had one "
            "tile too many"
        )
        return Rewrite(trial, t_lay, (note,), result)
    return None


#: A tile's sideways judgement is tried the other way only when its log-odds lie this
#: close to the layout's threshold (:func:`flip_unclear_sideways`).
MAX_FLIP_MARGIN = 5.0
#: The most unsure tiles tried alone ...
MAX_FLIP_TRIED = 6
#: ... and the most unsure of them tried two at a time (each trial is a layout: bounded).
MAX_FLIP_PAIRED = 3


def flip_unclear_sideways(
    dets: Detections, layout: Layout, params: LayoutParams, test: WinTest
) -> Rewrite | None:
    """A hand that does not win as laid out, where the layout was unsure which tiles lie
    sideways (faces that look alike turned a quarter — 白, 3p, 8p — in rows at a slant,
    where the box shape says little): the hand's tiles whose sideways log-odds lie within
    :data:`MAX_FLIP_MARGIN` of the threshold — the :data:`MAX_FLIP_TRIED` closest alone,
    the :data:`MAX_FLIP_PAIRED` closest two at a time — are judged the other way, cheapest
    first, and the first layout whose corrected reading **wins** with ``test.hand_size``
    tiles is taken, with a note per tile (a layout without the hand's tile count is not
    corrected). None when the hand already wins, or no such reading exists."""
    margins = dict(layout.side_margins)
    hand = set(layout.hand_detections)
    unsure = sorted((abs(m), i) for i, m in margins.items()
                    if i in hand and abs(m) <= MAX_FLIP_MARGIN)[:MAX_FLIP_TRIED]
    if not unsure or test.wins(dets, layout) is not None:
        return None
    trials: list[tuple[float, tuple[int, ...]]] = [(cost, (i,)) for cost, i in unsure]
    trials += [(a + b, (i, j))
               for (a, i), (b, j) in itertools.combinations(unsure[:MAX_FLIP_PAIRED], 2)]
    for _, tiles in sorted(trials):
        t_lay = analyze(dets, params, flip=frozenset(tiles))
        result = test.wins(dets, t_lay)
        if result is None:
            continue
        notes = tuple(
            f"read {dets.codes[i]} (box {_box_text(dets.boxes[i])}) as lying "
            f"{'upright' if margins[i] > 0 else 'sideways'}: its shape and face left it "
            f"unclear (log-odds {margins[i]:+.1f}) and the hand wins only so"
            for i in tiles
        )
        return Rewrite(dets, t_lay, notes, result)
    return None


def _index_of_box(dets: Detections, box: npt.NDArray[np.float32]) -> int:
    """The index of the detection with exactly this box, or -1."""
    hit = np.flatnonzero((dets.boxes == box).all(axis=1))
    return int(hit[0]) if len(hit) else -1


def _rereads(
    dets: Detections, trial: Detections, picks: Sequence[tuple[float, int]], why: str,
    as_flower: bool = True,
) -> tuple[tuple[Correction, ...], tuple[str, ...]]:
    """The :class:`Correction` and the note of each re-read tile: ``picks`` are
    ``(probability of the new reading, tile)``, ``trial`` holds the new codes, ``why``
    ends each note."""
    changes = tuple(
        Correction(i, dets.codes[i], trial.codes[i], float(dets.topk_probs[i, 0]), pr)
        for pr, i in picks
    )
    notes = tuple(
        f"read tile {c.tile} ({c.before}, p {c.p_before:.2f}) as "
        + (f"a flower ({c.after}, p {c.p_after:.2f})" if as_flower
           else f"{c.after} (p {c.p_after:.2f})")
        + f": {why}"
        for c in changes
    )
    return changes, notes


def _promote(dets: Detections, picks: Sequence[tuple[int, int]]) -> Detections:
    """``dets`` with, for each ``(tile, k)`` of ``picks``, the tile's k-th alternative
    moved to the front of its top-k (so it becomes the tile's code)."""
    ids, probs = dets.topk_ids.copy(), dets.topk_probs.copy()
    for i, j in picks:
        ids[i] = np.concatenate([ids[i, j:j + 1], np.delete(ids[i], j)])
        probs[i] = np.concatenate([probs[i, j:j + 1], np.delete(probs[i], j)])
    class_ids = dets.class_ids.copy()
    class_ids[[i for i, _ in picks]] = ids[[i for i, _ in picks], 0]
    return replace(dets, class_ids=class_ids, topk_ids=ids, topk_probs=probs)


#: Most boxes :func:`split_stacked_box` tries as two stacked tiles (deepest first).
MAX_STACKS_TRIED = 2


def split_stacked_box(
    dets: Detections, layout: Layout, params: LayoutParams, test: WinTest
) -> Rewrite | None:
    """A box over a kong's sideways tile and the tile added on it (加杠), which the
    detector often sees as one tile (:mod:`vision.layout_stack`: a box reaching across
    its row further than one tile can, past its neighbours on one side only, beside two
    tiles of one kind): read as those two tiles, of the pair's kind, and kept only if the
    layout then lays an added kong there and the hand **wins** with exactly
    ``test.hand_size`` tiles — also when the reading as laid out wins (most often with the
    box as the third tile of a concealed pung: one tile's box cannot take that shape).
    Otherwise None (the other rules then run as before)."""
    stacks = stacked_boxes(dets, params.row_link_gap, params.row_overlap)[:MAX_STACKS_TRIED]
    for s in stacks:
        trial = split_stack(dets, s)
        t_lay = analyze(trial, params)
        if not any(m.added and s.tile in m.detections for m in t_lay.melds):
            continue
        result = test.wins(trial, t_lay)
        if result is None:
            continue
        before = dets.codes[s.tile]
        p_before = float(dets.topk_probs[s.tile, 0])
        p_after = float(trial.topk_probs[s.tile, 0])
        change = Correction(s.tile, before, s.code, p_before, p_after)
        note = (f"tile {s.tile} ({before}, p {p_before:.2f}) is one box over two tiles, a "
                f"kong's sideways tile and the tile added on it (its box {s.across:.2f} times "
                f"as deep across the row as the tiles beside it, {s.beyond:.2f} of a tile "
                f"past them on one side): read as two {s.code} (p {p_after:.2f}, the pair "
                f"beside it), tile {len(trial) - 1} the added one")
        return Rewrite(trial, t_lay, (note,), result, (change,))
    return None


#: A weak box reading a claimed pung's kind at least this probably may be its added tile
#: (:func:`take_weak_added_tile`).
WEAK_ADDED_P = 0.1


def take_weak_added_tile(
    dets: Detections, layout: Layout, params: LayoutParams, test: WinTest
) -> Rewrite | None:
    """A tile added to a claimed pung (加杠) that the detector saw too weakly to keep: a box
    of ``dets.weak`` whose top-k gives the pung's kind at least :data:`WEAK_ADDED_P`, that
    is no second look at a tile already kept (:func:`second_look`), is taken — read as that
    kind — only if the layout then lays it on the pung's sideways tile as an added kong and
    the hand **wins** with exactly ``test.hand_size`` tiles (a kong counts 3, so the hand
    is not short without it: also when the reading as laid out wins). The box is appended
    after the others, with a note. Otherwise None."""
    weak = dets.weak
    if weak is None or not len(weak):
        return None
    codes = dets.codes
    for m in layout.melds:
        if (m.sideways is None or m.added or m.concealed or len(m.detections) != 3
                or len({codes[i] for i in m.detections}) != 1):
            continue
        kind = codes[m.detections[0]]
        base = m.detections[m.sideways]
        cid = CLASSES.index(kind)
        for i in range(len(weak)):
            hit = np.flatnonzero(weak.topk_ids[i] == cid)
            if (not len(hit) or float(weak.topk_probs[i, hit[0]]) < WEAK_ADDED_P
                    or second_look(weak, i, dets)):
                continue
            trial = dets.join(_promote(weak, [(i, int(hit[0]))]).select([i]))
            t_lay = analyze(trial, params)
            added = len(trial) - 1
            if not any(k.added and added in k.detections and base in k.detections
                       for k in t_lay.melds):
                continue
            result = test.wins(trial, t_lay)
            if result is None:
                continue
            note = (f"took a weakly seen tile ({kind}, p {float(weak.topk_probs[i, hit[0]]):.2f}, "
                    f"score {float(weak.confidences[i]):.2f}, box {_box_text(weak.boxes[i])}) "
                    f"lying on the sideways tile of a claimed pung of {kind}: an added kong")
            return Rewrite(trial, t_lay, (note,), result)
    return None


#: Most tiles :func:`reread_back_or_white` re-reads one at a time before all together.
MAX_BACK_WHITE = 4


def reread_back_or_white(
    dets: Detections, layout: Layout, params: LayoutParams, test: WinTest
) -> Rewrite | None:
    """A tile's back and a blank white dragon (白, plain in many sets) look alike, and
    the layout decides on face-down tiles before the correction reads codes (a run of
    backs is a concealed kong; a back elsewhere is dropped). When the reading as laid
    out makes no win, a hand-row tile read as one of the two with the other within
    :data:`REREAD_RATIO` of it is read as the other — and a back outside a concealed
    kong, which cannot stand among a shown hand's tiles, whenever P is among its
    alternatives at all — one at a time, most probable first, then all of them — and
    kept only if the hand then **wins** with
    exactly ``test.hand_size`` tiles. When the reading as laid out wins already, that
    correction is returned unchanged (so it is not searched twice). Otherwise None."""
    pair = {CLASSES.index(BACK): CLASSES.index("P"), CLASSES.index("P"): CLASSES.index(BACK)}
    rows = {d for r in layout.rows for d in r.detections}
    in_melds = {d for m in layout.melds for d in m.detections}
    options: list[tuple[float, int, int]] = []
    for i in sorted(rows):
        top = int(dets.topk_ids[i, 0])
        if top not in pair:
            continue
        # a back in the hand's rows outside a concealed kong cannot be one (the layout
        # dropped it): any white-dragon reading of it is worth trying
        stray_back = top == pair[CLASSES.index("P")] and i not in in_melds
        for j in range(1, dets.topk_ids.shape[1]):
            pr = float(dets.topk_probs[i, j])
            if int(dets.topk_ids[i, j]) == pair[top] and pr > 0 and (
                stray_back or pr * REREAD_RATIO >= float(dets.topk_probs[i, 0])
            ):
                options.append((pr, i, j))
                break
    if not options:
        return None
    as_is = test.wins(dets, layout)
    if as_is is not None:
        return Rewrite(dets, layout, (), as_is)
    options.sort(reverse=True)
    tries = [[o] for o in options[:MAX_BACK_WHITE]]
    if len(options) > 1:
        tries.append(options)
    for picks in tries:
        trial = _promote(dets, [(i, j) for _, i, j in picks])
        t_lay = analyze(trial, params)
        result = test.wins(trial, t_lay)
        if result is None:
            continue
        changes, notes = _rereads(
            dets, trial, [(pr, i) for pr, i, _ in picks],
            "a tile's back and a blank white dragon look alike", as_flower=False)
        return Rewrite(trial, t_lay, notes, result, changes)
    return None


#: Most flower readings :func:`reread_extra_as_flower` pairs up when a hand is two over.
MAX_EXTRA_OPTIONS = 6


def reread_extra_as_flower(
    dets: Detections, layout: Layout, params: LayoutParams, test: WinTest
) -> Rewrite | None:
    """A hand one or two tiles over its size whose extra tiles may be flowers read as
    kinds: hand tiles whose top-k holds a bonus code at most :data:`REREAD_RATIO` times
    less probable than their reading are read as those flowers — as many as the hand is
    over, the most probable first (pairs among the :data:`MAX_EXTRA_OPTIONS` likeliest) —
    only if the layout then lays each among the flowers and the corrected reading **wins**
    with exactly ``test.hand_size`` tiles; otherwise None. (Flowers of an unfamiliar set
    are the classifier's weakest reading: on held-out art 10 of 14 hands one tile over
    were a flower read as a kind.) The rewrite's detections have the tiles' codes and
    top-k order changed; the re-reads are its changes, with a note each."""
    over = layout.tile_count - test.hand_size
    if over not in (1, 2):
        return None
    options: list[tuple[float, int, int]] = []
    for i, role in enumerate(layout.roles(len(dets))):
        if role not in (STANDING, MELD, WINNING):
            continue
        alt = _flower_alternative(dets, i)
        if alt is not None and alt[1] > 0 and alt[1] * REREAD_RATIO >= dets.topk_probs[i, 0]:
            options.append((alt[1], i, alt[0]))
    options.sort(reverse=True)
    combos = sorted(itertools.combinations(options[:MAX_EXTRA_OPTIONS], over),
                    key=lambda combo: -math.prod(pr for pr, _, _ in combo))
    for combo in combos:
        trial = _promote(dets, [(i, j) for _, i, j in combo])
        t_lay = analyze(trial, params)
        t_roles = t_lay.roles(len(trial))
        if any(t_roles[i] != FLOWER for _, i, _ in combo):
            continue
        result = test.wins(trial, t_lay)
        if result is None or any(result.best.codes[i] not in BONUS for _, i, _ in combo):
            continue
        too_many = "one tile" if over == 1 else "two tiles"
        changes, notes = _rereads(dets, trial, [(pr, i) for pr, i, _ in combo],
                                  f"the hand had {too_many} too many")
        return Rewrite(trial, t_lay, notes, result, changes)
    return None


#: A hand tile is a doubtful reading, which :func:`reread_flower_runs` may take for a
#: flower, when its top-1 probability is below this.
FLOWER_RUN_WEAK_P = 0.7
#: ... or when its top-1 is below ``FLOWER_RUN_FAIR_P`` and its top-k gives the bonus
#: codes together at least ``FLOWER_RUN_BONUS_P``.
FLOWER_RUN_FAIR_P = 0.9
FLOWER_RUN_BONUS_P = 0.03
#: Most tiles the hand may be over for :func:`reread_flower_runs` (as many flowers).
FLOWER_RUN_MAX_OVER = 4
#: Most ways of choosing the tiles :func:`reread_flower_runs` tries.
FLOWER_RUN_TRIES = 12


def reread_flower_runs(
    dets: Detections, layout: Layout, params: LayoutParams, test: WinTest
) -> Rewrite | None:
    """A hand 1–:data:`FLOWER_RUN_MAX_OVER` tiles over its size whose extra tiles may be
    flowers of an unfamiliar set read as kinds (:mod:`vision.flower_runs`): doubtful
    readings (top-1 below :data:`FLOWER_RUN_WEAK_P`, or below :data:`FLOWER_RUN_FAIR_P`
    with :data:`FLOWER_RUN_BONUS_P` on bonus codes together) lying together at a row's end or
    beside a tile read as a flower are read as bonus codes — as many as the hand is over,
    nearest the run's start first, weakest choice first — only if the layout then lays
    each among the flowers and the corrected reading **wins** with exactly
    ``test.hand_size`` tiles; otherwise None. A re-read tile with no bonus code in its
    top-k gets a free one, and its note says which flower it is was not read."""
    from vision.flower_runs import as_flowers, flower_runs, run_choices

    over = layout.tile_count - test.hand_size
    used = {dets.codes[i] for i in layout.flowers}
    if not 1 <= over <= min(FLOWER_RUN_MAX_OVER, len(BONUS) - len(used)):
        return None
    runs = flower_runs(dets, layout, FLOWER_RUN_WEAK_P, FLOWER_RUN_FAIR_P, FLOWER_RUN_BONUS_P)
    if sum(len(r) for r in runs) < over:
        return None
    choices = run_choices(runs, over, 4 * FLOWER_RUN_TRIES)
    choices.sort(key=lambda c: sum(float(dets.topk_probs[i, 0]) for i in c))
    for tiles in choices[:FLOWER_RUN_TRIES]:
        trial = as_flowers(dets, tiles, used)
        t_lay = analyze(trial, params)
        t_roles = t_lay.roles(len(trial))
        if any(t_roles[i] != FLOWER for i in tiles):
            continue
        result = test.wins(trial, t_lay)
        if result is None or any(result.best.codes[i] not in BONUS for i in tiles):
            continue
        changes, notes = _guessed_flowers(
            dets, trial, tiles, f"the hand had {over} too many tiles, and this doubtful "
            "reading lies with the flowers or at a row's end", show_p=True)
        return Rewrite(trial, t_lay, notes, result, changes)
    return None


def below_threshold_as_weak(dets: Detections) -> Detections:
    """``dets`` with the flowers and seasons scored under the detector's own threshold
    (``meta["conf"]``; kept by the manifest's lower ``bonus_conf``) moved back among the
    weak boxes, best score first as the detector orders them: a hand takes a weakly seen
    flower only by :func:`take_weak_flowers`, which asks the layout to lay it among the
    hand's flowers. Face-down tiles kept under the threshold go back too (a weakly seen
    back in a row is as often the gap between two tiles, and it would make a concealed
    kong of its neighbours). A kind kept under the threshold — by ``row_fill``, where a
    row of the tiles found goes on — stays a tile. Unchanged without ``meta["conf"]``
    (detections built by hand) or when every tile reaches it.

    >>> d = Detections.from_lists([(0, 0, 9, 12), (20, 0, 29, 12), (40, 0, 49, 12),
    ...                            (60, 0, 69, 12)], ["5p", "3f", "6p", "back"],
    ...                           [0.9, 0.35, 0.3, 0.3])
    >>> d.meta["conf"] = 0.4
    >>> moved = below_threshold_as_weak(d)
    >>> moved.codes, moved.weak.codes
    (['5p', '6p'], ['3f', 'back'])
    """
    from vision.detect import detection_scores

    conf = dets.meta.get("conf")
    if conf is None or not len(dets):
        return dets
    scores = detection_scores(dets)
    below = (scores < float(conf)) & np.array([c in BONUS or c == BACK for c in dets.codes],
                                              bool)
    if not below.any():
        return dets
    moved = dets.select(below)
    weak = moved if dets.weak is None or not len(dets.weak) else dets.weak.join(moved)
    order = np.argsort(-detection_scores(weak), kind="stable")
    return replace(dets.select(~below), weak=weak.select(order))


def recognize_detections(
    dets: Detections,
    rules: str = "mcr",
    context: Mapping[str, Any] | None = None,
    *,
    image: str | None = None,
    layout_params: LayoutParams | None = None,
    ms: Mapping[str, float] | None = None,
    calibration: Mapping[str, Any] | None = None,
    flip_sideways: bool = True,
) -> Recognition:
    """Layout, correction and scoring of detections (see module doc). ``calibration``:
    the detector's hand-confidence calibration (:attr:`Detector.calibration`), which
    gives :attr:`Recognition.hand_confidence`. ``flip_sideways``: whether a hand that
    does not win may have unsure sideways judgements taken the other way
    (:func:`flip_unclear_sideways`; :func:`recognize` tries that last). Raises
    ``scoring.HandError`` (a ``ValueError``) for an unknown rule set or a bad context.

    Kongs shown as four face-up tiles (``LayoutParams.face_up_kongs``) are a second
    reading: the hand is first read without them, and read with them only when that
    first reading scores no win — a hand over its size is more often an extra box or a
    flower read as a kind than a kong laid flat, which those rules mend first."""
    params = layout_params or LayoutParams()
    dets = below_threshold_as_weak(dets)
    given = _Given(rules, context, image, ms, calibration, flip_sideways)
    if not params.face_up_kongs:
        return _recognize_once(dets, params, given)
    plain = _recognize_once(dets, replace(params, face_up_kongs=False), given)
    if plain.score is not None or plain.layout.tile_count <= _hand_size(rules):
        return plain
    # four face-up tiles as a kong is the other reading of the tiles as judged: the
    # unsure sideways calls are opened in the plain reading only (bounded cost)
    shown = _recognize_once(dets, params, replace(given, flip_sideways=False))
    face_up = any(m.face_up for m in shown.layout.melds)
    kept, other = (shown, plain) if face_up and shown.score is not None else (plain, shown)
    return _with_both_times(kept, other)


def _with_both_times(kept: Recognition, other: Recognition) -> Recognition:
    """``kept`` with ``other``'s layout, correction and scoring time added: both readings'
    time is spent, so the reported stages add up."""
    spent = {k: kept.ms.get(k, 0.0) + other.ms.get(k, 0.0) for k in ("layout", "correct", "score")}
    return replace(kept, ms={**kept.ms, **spent})


def _hand_size(rules: str) -> int:
    """Tiles of a won hand under ``rules`` (kongs counted 3)."""
    import scoring

    return int(scoring.get_rule_set(rules).hand_size)


@dataclass(frozen=True)
class _Given:
    """What :func:`recognize_detections` was asked, besides detections and layout."""

    rules: str
    context: Mapping[str, Any] | None
    image: str | None
    ms: Mapping[str, float] | None
    calibration: Mapping[str, Any] | None
    flip_sideways: bool = True
    #: whether a win that only a doubtful tile's change makes may be read with that tile
    #: as a flower (:func:`flower_not_win`); off in that second reading
    doubt_flowers: bool = True


def _recognize_once(dets: Detections, params: LayoutParams, given: _Given) -> Recognition:
    """One reading of ``dets`` with the layout settings ``params`` (see
    :func:`recognize_detections`)."""
    import scoring

    rules, context, image, ms, calibration = (
        given.rules, given.context, given.image, given.ms, given.calibration)

    timings = dict(ms or {})
    ctx, win_flag, hidden = _split_context(context)
    rule_set = scoring.get_rule_set(rules)
    size = int(rule_set.hand_size)
    t0 = time.perf_counter()
    params = replace(params, hand_size=size)
    layout = analyze(dets, params)
    dets, layout, flower_notes = take_weak_flowers(dets, layout, params)
    dets, layout, apart_notes, apart_changes = reread_set_apart_flowers(dets, layout, params)
    dets, layout, doubt_notes, doubt_changes = reread_doubtful_apart_flowers(dets, layout, params)
    apart_notes, apart_changes = (*apart_notes, *doubt_notes), (*apart_changes, *doubt_changes)
    apart_boxes = [dets.boxes[c.tile].copy() for c in apart_changes]
    check = winning_shape_check(rules, ctx)
    rewrite: Rewrite | None = None
    if win_flag is not False:
        test = WinTest(rules, size, check, hidden, base_ratio=_as_laid_ratio(
            dets, layout, rules, size, check, hidden))
        rewrite = (
            split_stacked_box(dets, layout, params, test)
            or take_weak_added_tile(dets, layout, params, test)
            or complete_from_weak(dets, layout, params, test)
            or reread_extra_as_flower(dets, layout, params, test)
            or drop_straddling_box(dets, layout, params, test)
            or reread_back_or_white(dets, layout, params, test)
            or reread_flower_runs(dets, layout, params, test)
            or (flip_unclear_sideways(dets, layout, params, test)
                if given.flip_sideways else None)
        )
    if rewrite is not None:
        dets, layout = rewrite.dets, rewrite.layout
    t1 = time.perf_counter()
    timings["layout"] = (t1 - t0) * 1000
    count = layout.tile_count
    claim_win = win_flag if win_flag is not None else count == size
    if rewrite is None:
        result = correct(
            dets, layout, rules=rules, claim_win=claim_win, hand_size=size, is_winning=check,
            hidden_kinds=hidden, params=CorrectParams(max_ready_ratio=READY_RATIO),
        )
    else:  # its winning correction was found by the rule: report that one, not a rerun
        result = rewrite.result
        if rewrite.changes:  # the re-read tiles are corrections too: list them first
            reread = {c.tile for c in rewrite.changes}
            result = replace(result, best=replace(result.best, changes=(
                *[c for c in rewrite.changes if result.best.codes[c.tile] == c.after],
                *[c for c in result.best.changes if c.tile not in reread],
            )))
    if apart_changes:  # listed first too; a rewrite may have dropped a box before them
        apart = [replace(c, tile=_index_of_box(dets, box))
                 for c, box in zip(apart_changes, apart_boxes, strict=True)]
        apart = [c for c in apart if c.tile >= 0 and result.best.codes[c.tile] == c.after]
        done = {c.tile for c in apart}
        result = replace(result, best=replace(result.best, changes=(
            *apart, *[c for c in result.best.changes if c.tile not in done])))
    t2 = time.perf_counter()
    timings["correct"] = (t2 - t1) * 1000
    if win_flag is None and given.doubt_flowers and claim_win and result.best.winning:
        other = flower_not_win(dets, layout, result, params, size)
        if other is not None:
            trial, change = other
            box = trial.boxes[change.tile].copy()
            again = _recognize_once(trial, params, replace(given, doubt_flowers=False))
            change = replace(change, tile=_index_of_box(again.detections, box))
            note = (f"read tile {change.tile} ({change.before}, p {change.p_before:.2f}) as a "
                    f"flower ({change.after}, p {change.p_after:.2f} as any flower): only "
                    "reading it as another kind made a win, and that reading is less likely; "
                    "the hand is one tile short")
            changes = again.correction.best.changes
            if change.tile >= 0 and again.codes[change.tile] == change.after:
                changes = (change, *[c for c in changes if c.tile != change.tile])
            spent = {k: again.ms.get(k, 0.0) + timings.get(k, 0.0) for k in ("layout", "correct")}
            return replace(
                again, notes=(note, *again.notes), ms={**again.ms, **spent},
                correction=replace(again.correction,
                                   best=replace(again.correction.best, changes=changes)))
    codes = result.best.codes
    deduced = None
    if claim_win and result.best.winning:
        layout, deduced = deduce_winning(layout, codes)
    roles = tuple(layout.roles(len(dets)))
    notes = [*layout.notes, *flower_notes, *apart_notes, *(rewrite.notes if rewrite else ()),
             *result.notes]
    if deduced:
        notes.append(deduced)
    if result.problems:
        notes.append("top-1 reading: " + "; ".join(result.problems))
    base: dict[str, Any] = dict(
        detections=dets, layout=layout, correction=result, codes=codes, roles=roles,
        rules=rules, image=image, calibration=calibration,
    )
    try:
        hand = layout.hand(codes, hidden)
    except scoring.HandError as exc:
        timings["score"] = 0.0
        return Recognition(hand=None, unscorable=str(exc), notes=tuple(notes), ms=timings, **base)
    score = waits = None
    unscorable = None
    winning_tile = None
    if count not in (size, size - 1) and win_flag is None:
        unscorable = (
            f"{count} tiles found (a kong counts 3): a {rule_set.title} hand shows "
            f"{size - 1} tiles while waiting and {size} when won"
        )
    elif claim_win and result.best.winning:
        try:
            if layout.winning is not None:
                score = scoring.score(hand, rules=rules, **ctx)
                winning_tile = hand.standing[-1]
            else:
                score, extra = _score_unmarked_winning(hand, rules, ctx)
                winning_tile = hand.standing[-1]
                notes.extend(extra)
            face_up = face_up_kong_note(hand, layout, score, rules, ctx)
            if face_up:
                notes.append(face_up)
        except scoring.HandError as exc:
            unscorable = str(exc)
    elif claim_win:
        unscorable = "not a winning hand"
        if layout.winning is not None:
            try:
                waits = scoring.waits(_without_last(hand), rules=rules, **_waits_kwargs(ctx))
                unscorable += f" (without the tile set apart, {hand.standing[-1]}, it is "
                unscorable += "ready)" if waits.ready else f"{waits.shanten} from ready)"
            except scoring.HandError as exc:
                notes.append(f"waits: {exc}")
    else:
        try:
            waits = scoring.waits(hand, rules=rules, **_waits_kwargs(ctx))
        except scoring.HandError as exc:
            unscorable = str(exc)
    alts = tuple(
        _alternative(r, layout, rules, ctx, hidden, result.best.cost)
        for r in result.alternatives
    )
    timings["score"] = (time.perf_counter() - t2) * 1000
    return Recognition(
        hand=hand, score=score, waits=waits, unscorable=unscorable, winning_tile=winning_tile,
        alternatives=alts, notes=tuple(notes), ms=timings, **base,
    )


def recognize(
    image: str | bytes | npt.NDArray[np.uint8],
    rules: str = "mcr",
    context: Mapping[str, Any] | None = None,
    *,
    detector: Any = None,
    detections: Detections | None = None,
    layout_params: LayoutParams | None = None,
) -> Recognition:
    """Detect the tiles in ``image`` (a path, encoded bytes or a BGR array) and read the
    hand (see module doc). ``detector``: a loaded :class:`vision.detect.Detector` (or
    any callable image → Detections); default: the shipped model. ``detections``: the
    detector's output for ``image`` when already at hand (benchmarks). ``layout_params``:
    the layout's settings (default :class:`vision.layout.LayoutParams`).

    A reading that is no win, of rows lying :data:`STRAIGHTEN_DEG` or more off the
    photo's edges, is tried again on the photo turned level (:mod:`vision.straighten`, a
    second detection) and replaced when that reading wins; so is a win with an unclear
    claim source from :data:`STRAIGHTEN_UNCLEAR_DEG`, when the level reading wins with
    every claim clear, and a doubtful win (hand confidence under
    :data:`STRAIGHTEN_WIN_BELOW`) from :data:`STRAIGHTEN_WIN_DEG`, when the level reading
    wins with every claim clear and is likelier right (its hand confidence higher). A
    reading that still does not win is read once more with the layout's unsure sideways
    judgements open to change (:func:`flip_unclear_sideways`), and replaced when that
    wins."""
    from vision.detect import detect, load_detector
    from vision.imageio import load_image

    name = str(image) if isinstance(image, str) else None
    t0 = time.perf_counter()
    pixels = load_image(image)
    t1 = time.perf_counter()
    run = detector if detector is not None else detect
    dets = below_threshold_as_weak(run(pixels) if detections is None else detections)
    t2 = time.perf_counter()
    ms = {"load": (t1 - t0) * 1000, "detect": (t2 - t1) * 1000}
    used = detector if detector is not None else load_detector()
    calibration = getattr(used, "calibration", None)
    rec = recognize_detections(dets, rules, context, image=name, ms=ms, calibration=calibration,
                               layout_params=layout_params, flip_sideways=False)
    tilt = abs(rec.layout.tilt_deg)
    no_win = rec.score is None and 0 < STRAIGHTEN_DEG <= tilt
    unclear_win = rec.score is not None and 0 < STRAIGHTEN_UNCLEAR_DEG <= tilt and _unclear(rec)
    doubtful_win = (rec.score is not None and not unclear_win and 0 < STRAIGHTEN_WIN_DEG <= tilt
                    and _confidence(rec) < STRAIGHTEN_WIN_BELOW)
    if len(dets) >= 3 and (no_win or unclear_win or doubtful_win):
        level = _recognize_straightened(pixels, dets, rec.layout.tilt_deg, run, rules,
                                        context, name, ms, calibration, layout_params)
        if doubtful_win:
            if (level.score is not None and not _unclear(level)
                    and _confidence(level) > _confidence(rec)
                    and _flower_count(level) >= _flower_count(rec)):
                return _with_size_note(level)
        elif level.score is not None and not (unclear_win and _unclear(level)):
            return _with_size_note(level)
        rec = replace(rec, ms={**rec.ms, "straighten": level.ms["straighten"]})  # time spent
    if rec.score is None and rec.layout.side_margins and _split_context(context)[1] is not False:
        flipped = recognize_detections(dets, rules, context, image=name, ms=rec.ms,
                                       calibration=calibration, layout_params=layout_params)
        if flipped.score is not None:
            rec = _with_both_times(flipped, rec)
    return _with_size_note(_with_edge_note(rec, (int(pixels.shape[1]), int(pixels.shape[0]))))


def _with_size_note(rec: Recognition) -> Recognition:
    """``rec`` with :func:`vision.tile_size.size_note` when its hand rows' tiles are small
    in the picture (under :data:`vision.tile_size.SMALL_TILE_PX`)."""
    rows = [r.detections for r in rec.layout.rows]
    note = size_note(hand_tile_px(rec.detections.boxes, rows))
    return rec if note is None else replace(rec, notes=(*rec.notes, note))


def _with_edge_note(rec: Recognition, size: tuple[int, int]) -> Recognition:
    """``rec`` with a note when it is no scored win, holds fewer tiles than a won hand and
    its hand rows run to the edges of the ``width × height`` picture
    (:mod:`vision.layout_edges`: a tile may be cut off)."""
    if rec.score is not None or not rec.layout.rows:
        return rec
    if rec.layout.tile_count >= _hand_size(rec.rules):  # no tile is missing from the count
        return rec
    rows = [r.detections for r in rec.layout.rows]
    note = edge_note(rows_past_edge(rec.detections.boxes, rows, size))
    return rec if note is None else replace(rec, notes=(*rec.notes, note))


#: A hand one tile short of a win, no win claimed: a reading that makes it ready is taken
#: when at most this many times less probable than the most probable possible one
#: (:attr:`vision.correct.CorrectParams.max_ready_ratio`; 0: never).
READY_RATIO = 4.0
#: A photo whose rows lie this many degrees or more off its edges, and whose reading is
#: no win, is read again from the photo turned level (:mod:`vision.straighten`); that
#: reading is taken when it is a win. 0: never.
STRAIGHTEN_DEG = 5.0
#: ... and from this tilt a win with a meld whose claim source is unclear
#: (:attr:`vision.layout.LayoutParams.claim_note_margin`), whose level reading is taken
#: when it is a win with every claim clear. 0: never.
STRAIGHTEN_UNCLEAR_DEG = 20.0
#: ... and from this tilt any other doubtful win (confidence under
#: :data:`STRAIGHTEN_WIN_BELOW`), whose level reading is taken when it is a win with every
#: claim clear that is likelier right (higher :func:`_confidence`). 0: never.
STRAIGHTEN_WIN_DEG = 20.0
#: ... when its confidence (:func:`_confidence`) is under this.
STRAIGHTEN_WIN_BELOW = 0.4


def _confidence(rec: Recognition) -> float:
    """How likely ``rec`` is right (0..1): its calibrated hand confidence, or the model's
    own reading confidence when the model has no calibration."""
    c = rec.hand_confidence
    return rec.reading_confidence if c is None else c


def _flower_count(rec: Recognition) -> int:
    """How many bonus tiles ``rec``'s hand shows (0 without a hand)."""
    return 0 if rec.hand is None else len(rec.hand.flowers)


def _unclear(rec: Recognition) -> bool:
    """Whether a claimed meld of ``rec`` has an unclear sideways tile."""
    return any(m.claim_unclear for m in rec.layout.melds)


def _recognize_straightened(
    pixels: npt.NDArray[np.uint8], dets: Detections, tilt: float, run: Any, rules: str,
    context: Mapping[str, Any] | None, name: str | None, ms: dict[str, float],
    calibration: Mapping[str, Any] | None, layout_params: LayoutParams | None = None,
) -> Recognition:
    """Read the hand again from the region of ``dets`` turned by ``tilt`` degrees so its
    rows lie level; the recognition's boxes are then given in ``pixels``' coordinates
    (the box around each turned box) and a note says what was done."""
    from vision.straighten import detections_back, straight_region

    t0 = time.perf_counter()
    region, a = straight_region(pixels, dets.boxes, tilt)
    level = run(region)
    ms = {**ms, "straighten": (time.perf_counter() - t0) * 1000}
    rec = recognize_detections(level, rules, context, image=name, ms=ms,
                               calibration=calibration, layout_params=layout_params,
                               flip_sideways=False)
    size = (int(pixels.shape[1]), int(pixels.shape[0]))
    note = (f"the rows lay {abs(tilt):.0f}° off the photo's edges: read again from the photo "
            "turned level")
    return replace(rec, detections=detections_back(rec.detections, a, size),
                   notes=(note, *rec.notes))
