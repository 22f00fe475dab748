"""Photo → scored hand: detect → layout → rule-aware correction → score (or waits).

``recognize(image)`` runs the detector; ``recognize_detections(dets)`` starts from tile
detections (tests, automatic tables that report where tiles lie). Both return a
:class:`Recognition` whose :meth:`~Recognition.to_dict` is the JSON of
``tilecam recognize --json`` and of the HTTP API::

    {"image", "tiles": [{"code", "box", "confidence", "rotation", "face_down", "role"}],
     "hand", "melds", "corrections", "alternatives", "reading_confidence", "hand_confidence",
     "score_confidence", "score" | "waits" | "unscorable", "winning_tile", "notes", "ms",
     "model"}

``model``: the name and version of the model that read the photo (the detector's
``meta["model"]``, e.g. ``tilecam-tiles-yolo11n@2026-12-05.35``), so that a hand recorded
from it says which model read it; null for detections given without one (an automatic
table's).

``reading_confidence`` (0..1): the model's own probability that every final code is
right, the boxes taken as found (:attr:`Recognition.reading_confidence`); it runs high.
``hand_confidence`` (0..1 or null): the calibrated probability that the final tile
multiset is exactly right, missed and extra tiles included (:mod:`vision.confidence`;
null for a model without a calibration). ``score_confidence`` (0..1 or null): the same
up to the codes the rule set scores alike (under MCR, which flower or season a bonus
tile is) — how likely the tiles the score counts are right; equal to
``hand_confidence`` under rules with no such codes.

``alternatives``: other possible readings within 4× of the chosen one's probability,
each ``{"hand", "ratio", "corrections", "winning", "score", "same_score"}`` where ``ratio`` =
P(chosen) / P(this reading) (below 1: the detector preferred it, e.g. a non-winning
reading when a slightly less probable one wins) and ``same_score`` says the reading's
hand differs from the chosen one at most in codes the rule set scores alike (under MCR,
which flower or season a bonus tile is), so its score is the chosen one's (a reading
may also give the very same hand, read another way: which tile is which, or a
tile outside the hand). ``tiles`` holds the
final (corrected) codes, one entry per detection in detector order;
``role`` is standing / meld / flower / winning / ignored. Exactly one of ``score`` (a
win), ``waits`` (a hand one tile short of a win, or a hand shown as a win that is not
one: then ``unscorable`` says so too) or ``unscorable`` (why it cannot be scored) is
present; ``waits`` and ``unscorable`` may come together. A hand of a win's size that is
no win (it drew and must discard; no tile set apart) has ``unscorable`` saying so and
``discards``: each discard with the waits of what is kept, best first
(:func:`scoring.discards`).

``context`` holds the win context of :func:`scoring.score` (``self_drawn``,
``last_of_kind``, ``kong``, ``last_wall_tile``, ``seat_wind``, ``prevalent_wind``,
``discarder``, ``version``, ``settings`` and rule-specific fields) plus two keys of
this step: ``hidden_kongs`` (kinds of concealed kongs shown all face down, in layout
order) and ``claim_win`` (True/False: the hand is / is not shown as a win; default:
decided by its tile count; ``win`` given as a bool means the same, while a string
``win`` is left to the rule set, e.g. Xiamen's win type).

The steps between layout and score that change what was read are rules of their own
modules, tried in a fixed order by :func:`recognize_detections`: boxes scored under the
detector's threshold (:mod:`vision.weak_boxes`), flowers read as kinds
(:mod:`vision.flower_rereads`), a kind read as a flower standing among the standing tiles
of a win claimed one tile short (:func:`reread_standing_flower`), boxes and sideways
tiles (:mod:`vision.tile_rereads`), all held to one :class:`vision.rewrite.WinTest`
(whose layouts read a shown meld's tiles as the rules do: :attr:`Layout.melded_as`).

>>> from vision.layout_scene import SceneBuilder
>>> b = SceneBuilder().standing("123m456p789s").meld("EEE", sideways=1).standing("N", apart=True)
>>> ctx = {"self_drawn": True, "indicator": "C"}
>>> r = recognize_detections(b.win("N").detections(), rules="zhenjiang", context=ctx)
>>> r.hand_text, r.melds[0].claimed_from, r.score.total
('[EEE,2]123m456p789sNN', 2, 1)
"""

from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from vision import level_reread
from vision.classes import BACK, BONUS
from vision.correct import (
    Correction,
    CorrectionResult,
    CorrectParams,
    Reading,
    claims_chows,
    correct,
    no_chow_wording,
    winning_shape_check,
    with_rereads_first,
)
from vision.detections import Detections
from vision.exposure import dark_note
from vision.flower_rereads import (
    flower_as_kind_win,
    flower_not_win,
    reread_doubtful_apart_flowers,
    reread_extra_as_flower,
    reread_flower_runs,
    reread_flowers_read_twice,
    reread_row_flowers_as_kinds,
    reread_set_apart_flowers,
)
from vision.layout import Layout, LayoutParams, analyze, flowers_among_standing
from vision.layout_edges import edge_note, rows_past_edge
from vision.rewrite import Rewrite, WinTest, as_laid_ratio, index_of_box
from vision.sharpness import blur_note
from vision.tile_rereads import (
    drop_straddling_box,
    flip_unclear_sideways,
    reread_back_or_white,
    split_stacked_box,
)
from vision.tile_size import hand_tile_px, size_note
from vision.weak_boxes import (
    below_threshold_as_weak,
    complete_from_weak,
    take_weak_added_tile,
    take_weak_flowers,
)

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from scoring import Discards, Hand, Meld, Score, Waits
    from vision.imageio import ImageSource, Photo

#: ``context`` keys passed on to :func:`scoring.waits` (the others describe the win).
_WAITS_KEYS = ("seat_wind", "prevalent_wind", "version", "settings")
_WIN_KEYS = ("self_drawn", "last_of_kind", "kong", "last_wall_tile", "discarder")
_OWN_KEYS = ("hidden_kongs", "win")


@dataclass(frozen=True, eq=False)
class Recognition:
    """The result of one recognition (see module doc). Compared and hashed by identity
    (``eq=False``), as its :class:`~vision.detections.Detections` is: compare readings
    by their :meth:`to_dict` or :attr:`hand_text`."""

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
    #: For a hand of a win's size read as no win (it drew and must discard): each
    #: discard with the waits of what is kept, best first (:func:`scoring.discards`).
    discards: Discards | None = None
    winning_tile: str | None = None
    alternatives: tuple[dict[str, Any], ...] = ()
    notes: tuple[str, ...] = ()
    ms: Mapping[str, float] = field(default_factory=dict)
    #: The model's hand-confidence calibration (manifest ``calibration``), if it has one.
    calibration: Mapping[str, Any] | None = None
    #: The tiles read make the win the photo shows (a winning shape claimed as a win),
    #: but the scorer refused it for the win context (``unscorable`` says why: a 和绝张
    #: the hand contradicts, a 杠开 with no kong): how sure the reading is does not hang
    #: on that (:mod:`vision.confidence`).
    refused_win: bool = False

    @property
    def hand_text(self) -> str | None:
        """The hand in bracket notation (RULES.md), or None when there is none (no hand
        could be built, or no tile was read: an empty hand has no notation)."""
        if self.hand is None or not (self.hand.standing or self.hand.melds
                                     or self.hand.flowers):
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
    def score_confidence(self) -> float | None:
        """The calibrated probability (0..1) that the final tile multiset is right up to
        the codes the rule set scores alike (:attr:`scoring.rulesets.base.RuleSet.score_alike`;
        :func:`vision.confidence.score_confidence`); None when the model has no fit for it."""
        from vision.confidence import score_confidence

        return score_confidence(self, self.calibration)

    @property
    def melds(self) -> tuple[Meld, ...]:
        return self.hand.melds if self.hand is not None else ()

    def tiles(self) -> list[dict[str, Any]]:
        """One dict per detection: ``code, box, confidence, rotation, face_down, role,
        order``; a corrected tile's confidence is the detector's probability of its new
        code. ``order``: a standing tile's place in the hand's standing tiles as the
        layout reads them (0 at the left end; the winning tile set apart last), which is
        the order the notation writes and the scorer takes (the last is the winning tile
        when none is set apart); None for meld, flower and ignored tiles."""
        changed = {c.tile: c for c in self.correction.best.changes}
        order = {i: k for k, i in enumerate(self.layout.standing)}
        if self.layout.winning is not None:
            order[self.layout.winning] = len(self.layout.standing)
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
                    "order": order.get(i),
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
        hc, sc = self.hand_confidence, self.score_confidence
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
            "score_confidence": None if sc is None else round(sc, 4),
        }
        if self.score is not None:
            out["score"] = self.score.to_dict()
        if self.waits is not None:
            out["waits"] = self.waits.to_dict()
        if self.unscorable is not None:
            out["unscorable"] = self.unscorable
        if self.discards is not None:
            out["discards"] = self.discards.to_dict()
        out["notes"] = list(self.notes)
        out["ms"] = {k: round(v, 2) for k, v in self.ms.items()}
        model = self.detections.meta.get("model")
        out["model"] = None if model is None else str(model)
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
    from scoring import HandError
    from scoring import tiles as T

    if win is not None and not isinstance(win, bool):
        raise HandError(f"context 'claim_win' must be true or false, not {win!r}")
    for kind in hidden:
        if kind not in T.KINDS:
            raise HandError(f"hidden_kongs: {kind!r} is not a tile kind (e.g. 5p, E, C)")
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


#: How the note of a hand scored on its last standing tile begins, and what comes before
#: the other tiles' totals in it (:func:`_score_unmarked_winning`; the annotated panel,
#: :mod:`vision.render`, reads them back).
UNMARKED_WINNING_NOTE = "the winning tile is not set apart: scored on the last standing tile"
OTHER_WINNING_SCORES = "; on another tile it would score: "


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
    if (str(ctx.get("win")) in scoring.get_rule_set(rules).shape_free_wins
            and all(v == chosen.total for v in totals.values())):
        # a win with no winning tile (Xiamen 三金倒; 三游, won by discarding the third
        # gold), which scores alike whichever tile is last: nothing to set apart
        return chosen, []
    note = f"{UNMARKED_WINNING_NOTE}, {hand.standing[-1]} ({chosen.total})"
    if totals:
        others = ", ".join(f"{t} {v}" for t, v in totals.items())
        note += f"{OTHER_WINNING_SCORES}{others}"
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
    chosen_cost: float, chosen_key: str | None,
) -> dict[str, Any]:
    """One of ``alternatives`` (see module doc); ``chosen_key``: the chosen hand's
    :meth:`scoring.rulesets.base.RuleSet.score_key` (None without a hand)."""
    import scoring

    entry: dict[str, Any] = {
        "hand": None,
        "ratio": round(math.exp(reading.cost - chosen_cost), 3),
        "corrections": [c.to_dict() for c in reading.changes],
        "winning": reading.winning,
        "score": None,
        "same_score": False,
    }
    try:
        hand = layout.hand(reading.codes, hidden)
        entry["hand"] = scoring.format_hand(hand)
        entry["same_score"] = (chosen_key is not None
                               and scoring.get_rule_set(rules).score_key(hand) == chosen_key)
        if reading.winning:  # on the last standing tile when none is set apart, as chosen
            entry["score"] = scoring.score(hand, rules=rules, **ctx).total
    except scoring.HandError as exc:
        entry["unscorable"] = str(exc)
    return entry


def _distinct_hands(chosen: Hand | None, alts: tuple[dict[str, Any], ...]
                    ) -> tuple[dict[str, Any], ...]:
    """``alts`` with a reading of the chosen hand in another order (two unsure tiles
    read each as the other: 1s↔4s) written as the chosen hand — "the same hand, read
    another way", as a reading of its very text is — and without a second reading of a
    hand already listed; the page once showed such a reading as another hand. The
    alternatives' hands are read with the chosen hand's stand-ins
    (:attr:`scoring.hand.Hand.melded_as`: a Xiamen chow ``[456m]`` beside four golds 5m)."""
    from scoring import format_hand, parse_hand
    from scoring.notation import canonical_hand

    chosen_key = canonical_hand(chosen) if chosen is not None else None
    seen: set[str] = set()
    out = []
    for alt in alts:
        if alt["hand"] is not None:
            melded_as = chosen.melded_as if chosen is not None else ()
            key = canonical_hand(parse_hand(alt["hand"], melded_as=melded_as))
            if key in seen:
                continue
            seen.add(key)
            if key == chosen_key and chosen is not None:
                alt = {**alt, "hand": format_hand(chosen)}
        out.append(alt)
    return tuple(out)


def check_request(rules: str, context: Mapping[str, Any] | None) -> None:
    """A rule set that exists (:class:`scoring.HandError` naming the known ones) and a
    context that is a mapping (TypeError), checked before any work.

    >>> check_request("mcr", {"self_drawn": True})
    >>> check_request("mcr", ["self_drawn"])
    Traceback (most recent call last):
    ...
    TypeError: context must be a mapping of win-context fields, e.g. {'self_drawn': True}, not list
    """
    import scoring

    scoring.get_rule_set(rules)  # an unknown rule set is named before the context
    if context is not None and not isinstance(context, Mapping):
        raise TypeError("context must be a mapping of win-context fields, e.g. "
                        f"{{'self_drawn': True}}, not {type(context).__name__}")
    # the win context as the scorer will take it: a self-draw with a discarder, a bad
    # seat, an unknown rule-set field, setting or version is refused now, not reported
    # as "unscorable"; and what the rules need whatever the hand (a Zhenjiang 百搭, a
    # Xiamen gold, a 天胡 with its dealer): without it every reading would be no win
    scoring.check_context(rules, **_split_context(context)[0])


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
    check_request(rules, context)
    params = layout_params or LayoutParams()
    dets = below_threshold_as_weak(dets)
    given = _Given(rules, context, image, ms, calibration, flip_sideways)
    if not params.face_up_kongs:
        return _recognize_once(dets, params, given)
    plain = _recognize_once(dets, replace(params, face_up_kongs=False), given)
    if plain.discards is not None and _four_alike(dets):
        return _kong_laid_flat_note(plain, context)
    if (plain.score is not None or plain.layout.tile_count <= _hand_size(rules)
            or not _four_alike(dets)):
        return plain
    # four face-up tiles as a kong is the other reading of the tiles as judged: the
    # unsure sideways calls are opened in the plain reading only (bounded cost)
    shown = _recognize_once(dets, params, replace(given, flip_sideways=False))
    face_up = any(m.face_up for m in shown.layout.melds)
    # kept: the kong's reading where it scores, or where it makes a winning shape of the
    # hand's size that the scorer refused for the win context (its reason is the one to
    # give, not the plain reading's tile count)
    kept, other = ((shown, plain) if face_up and (shown.score is not None or shown.refused_win)
                   else (plain, shown))
    return _with_both_times(kept, other)


def _kong_laid_flat_note(plain: Recognition,
                         context: Mapping[str, Any] | None) -> Recognition:
    """``plain``, a hand of a win's size that is no win (its discards), with a note when
    four touching standing tiles alike read as a kong (counted 3) make it a ready hand
    under the win ``context``: a waiting hand with a kong laid as four face-up tiles
    shows a win's count, and the picture does not say which it is; the discards stay the
    answer (a hand that drew holds four alike as often)."""
    import scoring
    from scoring.hand import Meld

    hand = plain.hand
    if hand is None:
        return plain
    notes = []
    row = list(hand.standing)
    for k in range(len(row) - 3):
        kind = row[k]
        if kind in BONUS or row[k:k + 4] != [kind] * 4 or (k and row[k - 1] == kind):
            continue
        kong = scoring.Hand((*hand.melds, Meld("kong", (kind,) * 4)),
                            tuple(row[:k] + row[k + 4:]), hand.flowers,
                            melded_as=hand.melded_as)
        try:
            waits = scoring.waits(kong, rules=plain.rules, **_waits_kwargs(
                _split_context(context)[0]))
        except scoring.HandError:
            continue
        if waits.ready:
            notes.append(f"four {kind} lie face up side by side: read as a kong (counted 3), "
                         f"the hand is ready ({scoring.format_hand(kong)}), waiting on "
                         + " ".join(w.tile for w in waits.waits))
    return replace(plain, notes=(*plain.notes, *notes)) if notes else plain


def _four_alike(dets: Detections) -> bool:
    """Whether four of ``dets`` read (top-1) as one kind, face up — what a kong laid as four
    face-up tiles needs before its reading is worth a second pass (over-size hands of
    unsure tiles once paid a whole second reading for none: 62–105 ms)."""
    kinds = Counter(c for c in dets.codes if c != BACK and c not in BONUS)
    return any(n >= 4 for n in kinds.values())


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
    :func:`recognize_detections`): the layout and the rules' re-readings of it
    (:func:`_rewrite`), the correction, a doubtful win read again with a tile as a flower
    (:func:`_as_flower_instead`), then the score, the waits or why neither
    (:func:`_score_or_waits`)."""
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
    if rule_set.game.get("flowers", True):  # a game played without flowers has none twice
        dets, layout, twice_notes, twice_changes = reread_flowers_read_twice(
            dets, layout, params)
        apart_notes, apart_changes = (*apart_notes, *twice_notes), (*apart_changes,
                                                                    *twice_changes)
    else:  # a "flower" inside the row is a misread kind
        dets, layout, row_notes, row_changes = reread_row_flowers_as_kinds(dets, layout, params)
        apart_notes, apart_changes = (*apart_notes, *row_notes), (*apart_changes, *row_changes)
    apart_boxes = [dets.boxes[c.tile].copy() for c in apart_changes]
    # under rules without flowers, the tiles laid with the flowers are left out of the
    # hand; one of them may still be a claimed win's tile misread (reread_apart_flower_as_kind)
    dropped = () if rule_set.game.get("flowers", True) else tuple(layout.flowers)
    layout = without_flowers(layout, dets, rule_set)
    # every hand read from this layout reads a meld's tiles as the rules do (a Xiamen
    # chow [456m] of 4m 白板 6m, gold 5m, beside the four golds is not five 5m)
    stand_ins = tuple(rule_set.stand_ins(ctx))
    layout = replace(layout, melded_as=stand_ins)
    check = winning_shape_check(rules, ctx)
    # told it is no win, a hand over a won hand's count is no hand at all: the rules that
    # read tiles out of it (a flower read as a kind, a box found twice) are tried as for a
    # win, and the win they make is a hand that drew; the rules that add a tile to make a
    # win are not (a waiting hand is a tile short of one)
    rewrite = None
    if win_flag is not False or layout.tile_count > size:
        from vision.flower_rereads import reread_apart_flower_as_kind

        test = WinTest(rules, size, check, hidden, base_ratio=as_laid_ratio(
            dets, layout, rules, size, check, hidden), melded_as=stand_ins)
        rewrite = (_rewrite(dets, layout, params, test, given.flip_sideways,
                            adding=win_flag is not False, claimed=win_flag is True)
                   or (win_flag is True and dropped
                       and reread_apart_flower_as_kind(dets, layout, params, test, dropped))
                   or None)
    if rewrite is not None:  # (rules without flowers: any flower left out again)
        dets, layout = rewrite.dets, without_flowers(
            replace(rewrite.layout, melded_as=stand_ins), rewrite.dets, rule_set)
    t1 = time.perf_counter()
    timings["layout"] = (t1 - t0) * 1000
    count = layout.tile_count
    # a win is claimed by the tile count of a won hand, or of a win the context names
    # that the rules take on another count (Xiamen 三游 or a non-dealer's 三金倒 at the
    # opening, on 16 tiles: RuleSet.win_counts)
    claim_win = (win_flag if win_flag is not None
                 else count == size or count in rule_set.win_counts(ctx))
    if rewrite is None:
        result = correct(
            dets, layout, rules=rules, claim_win=claim_win, hand_size=size, is_winning=check,
            hidden_kinds=hidden, params=CorrectParams(max_ready_ratio=READY_RATIO),
        )
    else:  # its winning correction was found by the rule: report that one, not a rerun
        result = rewrite.result
        if rewrite.changes:  # the re-read tiles are corrections too: list them first
            result = with_rereads_first(result, rewrite.changes)
    if apart_changes:  # listed first too; a rewrite may have dropped a box before them
        apart = [replace(c, tile=index_of_box(dets, box))
                 for c, box in zip(apart_changes, apart_boxes, strict=True)]
        result = with_rereads_first(result, [c for c in apart if c.tile >= 0])
    # each re-read tile is one change from the detector's top-1, the correction's after it
    # included (with_rereads_first); the top-1 reading's problems are those with them read
    reread = bool(apart_changes or (rewrite is not None and rewrite.changes))
    t2 = time.perf_counter()
    timings["correct"] = (t2 - t1) * 1000
    if win_flag is None and given.doubt_flowers and claim_win and result.best.winning:
        instead = _as_flower_instead(dets, layout, result, params, given, size, timings)
        if instead is not None:
            return instead
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
        head = "top-1 reading after the re-reads above" if reread else "top-1 reading"
        notes.append(f"{head}: " + "; ".join(result.problems))
    base: dict[str, Any] = dict(
        detections=dets, layout=layout, correction=result, codes=codes, roles=roles,
        rules=rules, image=image, calibration=calibration,
    )
    try:
        hand = layout.hand(codes, hidden)  # with the rules' stand-ins (layout.melded_as)
    except scoring.HandError as exc:
        timings["score"] = 0.0
        return Recognition(hand=None, unscorable=no_chow_wording(str(exc), claims_chows(rules)),
                           notes=tuple(notes), ms=timings, **base)
    refused = False
    drew = None
    if count not in (size, size - 1) and win_flag is None:
        score, waits, winning_tile = None, None, None
        unscorable: str | None = (
            f"{count} tiles found (a kong counts 3): a {rule_set.title} hand shows "
            f"{size - 1} tiles while waiting and {size} when won"
        )
    else:
        score, waits, unscorable, winning_tile, refused = _score_or_waits(
            hand, layout, rules, ctx, claim_win, result.best.winning, notes)
        if score is None and waits is None and not refused and hand.tile_count == size:
            drew, why = _discards(hand, rules, ctx, notes, claim_win)
            unscorable = why if drew is not None else unscorable
    chosen_key = rule_set.score_key(hand)
    alts = _distinct_hands(hand, tuple(
        _alternative(r, layout, rules, ctx, hidden, result.best.cost, chosen_key)
        for r in result.alternatives
    ))
    timings["score"] = (time.perf_counter() - t2) * 1000
    return Recognition(
        hand=hand, score=score, waits=waits, unscorable=unscorable, winning_tile=winning_tile,
        alternatives=alts, notes=tuple(notes), ms=timings, refused_win=refused,
        discards=drew, **base,
    )


def without_flowers(layout: Layout, dets: Detections, rule_set: Any) -> Layout:
    """``layout`` with its flowers left out, and a note saying so, when ``rule_set`` plays
    without them (its ``game["flowers"]`` false: Zhenjiang): a photo of such a hand may
    still show a bonus tile from the set beside it, and the scorer refuses any flower."""
    if not layout.flowers or rule_set.game.get("flowers", True):
        return layout
    codes = dets.codes
    shown = " ".join(codes[i] for i in layout.flowers)
    note = (f"{rule_set.title} plays without flowers: the bonus tile(s) read apart from the "
            f"hand ({shown}) are left out of it")
    return replace(layout, flowers=(), notes=(*layout.notes, note))


def _rewrite(dets: Detections, layout: Layout, params: LayoutParams, test: WinTest,
             flip_sideways: bool, adding: bool = True, claimed: bool = False
             ) -> Rewrite | None:
    """The first of the rules' re-readings that makes the hand laid out a win held to
    ``test`` (each a module's rule, tried in this fixed order), or None; ``adding``
    False leaves out the rules that add a tile (a stacked box split, a weak box taken);
    ``claimed``: the win was claimed (``claim_win``), which a flower standing among the
    standing tiles needs to be read as a kind (:func:`reread_standing_flower`)."""
    return (
        (adding and split_stacked_box(dets, layout, params, test))
        or (adding and take_weak_added_tile(dets, layout, params, test))
        or (adding and complete_from_weak(dets, layout, params, test))
        or (adding and claimed and reread_standing_flower(dets, layout, params, test))
        or reread_extra_as_flower(dets, layout, params, test)
        or drop_straddling_box(dets, layout, params, test)
        or reread_back_or_white(dets, layout, params, test)
        or reread_flower_runs(dets, layout, params, test)
        or (flip_unclear_sideways(dets, layout, params, test) if flip_sideways else None)
    )


def reread_standing_flower(dets: Detections, layout: Layout, params: LayoutParams,
                           test: WinTest) -> Rewrite | None:
    """A claimed win one tile short whose missing tile stands among the standing tiles
    read as a flower: a tile read (top-1) as a flower that stands between two standing
    tiles of a row (:func:`vision.layout.flowers_among_standing`) is read as its
    likeliest kind among its alternatives instead, when the layout then stands it in
    the hand (standing or winning, the hand gaining exactly that tile), the hand is
    ``test.hand_size`` tiles and that reading wins (:meth:`WinTest.wins`), and the whole
    override is within ``test.max_ratio``: the flower's probability over the kind's
    times the winning correction's own ratio (the correction's rule for a win, across
    the re-reading). Tried likeliest first (the smallest ratio); None when none wins.

    Only for a claimed win (:func:`_rewrite`'s ``claimed``): a hand of 13 tiles (MCR)
    with a flower among them is also how a waiting hand looks, and read so, a misread
    flower would make a win the player did not claim. Under rules without flowers
    (Zhenjiang) every flower inside the hand's rows is a kind already
    (:func:`vision.flower_rereads.reread_row_flowers_as_kinds`); a flower laid apart
    (at a row's end, beyond the melds, in a row of its own) is not tried here: with a
    claimed win :func:`vision.flower_rereads.reread_apart_flower_as_kind` tries it, after
    the other rules (seventy-sixth session); without one it is left out of the hand
    (:func:`without_flowers`)."""
    # a kind laid with a flower is left to the correction (its own "laid among the
    # flowers" problem): only tiles read as flowers are tried
    return flower_as_kind_win(
        dets, layout, params, test, flowers_among_standing(layout),
        "a flower standing among the standing tiles of a win claimed one tile short")


def _with_changes_first(result: CorrectionResult, first: Sequence[Correction],
                        dropping: set[int]) -> CorrectionResult:
    """``result`` with the changes ``first`` (tiles re-read before the correction) listed
    first among its best reading's changes, and its own changes of the tiles ``dropping``
    left out."""
    return replace(result, best=replace(result.best, changes=(
        *first, *[c for c in result.best.changes if c.tile not in dropping])))


def _as_flower_instead(
    dets: Detections, layout: Layout, result: CorrectionResult, params: LayoutParams,
    given: _Given, size: int, timings: Mapping[str, float],
) -> Recognition | None:
    """The reading with a doubtful tile read as a flower instead, when only reading it as
    another kind made the win and that reading is less likely (:func:`flower_not_win`);
    None when there is no such tile."""
    other = flower_not_win(dets, layout, result, params, size)
    if other is None:
        return None
    trial, change = other
    box = trial.boxes[change.tile].copy()
    again = _recognize_once(trial, params, replace(given, doubt_flowers=False))
    change = replace(change, tile=index_of_box(again.detections, box))
    note = (f"read tile {change.tile} ({change.before}, p {change.p_before:.2f}) as a "
            f"flower ({change.after}, p {change.p_after:.2f} as any flower): only "
            "reading it as another kind made a win, and that reading is less likely; "
            "the hand is one tile short")
    correction = again.correction
    if change.tile >= 0 and again.codes[change.tile] == change.after:
        correction = _with_changes_first(correction, [change], {change.tile})
    spent = {k: again.ms.get(k, 0.0) + timings.get(k, 0.0) for k in ("layout", "correct")}
    return replace(again, notes=(note, *again.notes), ms={**again.ms, **spent},
                   correction=correction)


def _score_or_waits(
    hand: Hand, layout: Layout, rules: str, ctx: Mapping[str, Any], claim_win: bool,
    winning: bool, notes: list[str],
) -> tuple[Score | None, Waits | None, str | None, str | None, bool]:
    """``(score, waits, unscorable, winning tile, refused)`` of a hand of a won or waiting
    hand's tile count: the score of a win (``claim_win`` and ``winning``), or why the
    scorer refused that winning shape (``refused``: for the win context); for a claimed
    win that is none, why, with the waits of the hand without the tile set apart; else
    the waits. Notes on the way are added to ``notes``."""
    import scoring

    if claim_win and winning:
        try:
            if layout.winning is not None:
                score = scoring.score(hand, rules=rules, **ctx)
            else:
                score, extra = _score_unmarked_winning(hand, rules, ctx)
                notes.extend(extra)
            face_up = face_up_kong_note(hand, layout, score, rules, ctx)
            if face_up:
                notes.append(face_up)
            return score, None, None, hand.standing[-1], False
        except scoring.HandError as exc:
            return None, None, str(exc), None, True
    if claim_win:
        if rules != "mcr" and hand.tile_count == _hand_size(rules):
            # a hand of the size of a win: a regional scorer's refusal says more than
            # "no win" (a wrong count is said so below, with the waits)
            reason = _refusal(hand, rules, ctx)
            if reason is not None:
                return None, None, reason, None, True
        unscorable = "not a winning hand"
        waits = None
        if layout.winning is not None:
            try:
                waits = scoring.waits(_without_last(hand), rules=rules, **_waits_kwargs(ctx))
                unscorable += f" (without the tile set apart, {hand.standing[-1]}, it is "
                unscorable += "ready)" if waits.ready else f"{waits.shanten} from ready)"
            except scoring.HandError as exc:
                notes.append(f"waits: {exc}")
        return None, waits, unscorable, None, False
    try:
        return None, scoring.waits(hand, rules=rules, **_waits_kwargs(ctx)), None, None, False
    except scoring.HandError as exc:
        return None, None, str(exc), None, False


def _discards(hand: Hand, rules: str, ctx: Mapping[str, Any], notes: list[str],
              claim_win: bool) -> tuple[Discards | None, str]:
    """``(discards, why)`` of a hand of a win's size that is no win (:func:`scoring.discards`)
    and the ``unscorable`` that says so — "not a winning hand" when the photo was taken
    for a win, "shown as no win" when the caller said so (``claim_win`` false, whatever
    the shape); ``(None, "")`` with a note when the scorer refuses the hand's waits."""
    import scoring

    try:
        drew = scoring.discards(hand, rules=rules, **_waits_kwargs(ctx))
    except scoring.HandError as exc:
        notes.append(f"discards: {exc}")
        return None, ""
    ready = drew.ready_after
    if ready:
        what = ("ready after discarding " + " or ".join(d.tile for d in ready[:3])
                + (" …" if len(ready) > 3 else ""))
    else:
        what = f"{drew.shanten} from ready after the best discard"
    head = "not a winning hand" if claim_win else "shown as no win"
    return drew, f"{head}: {hand.tile_count} tiles, as a hand that drew ({what})"


def _refusal(hand: Hand, rules: str, ctx: Mapping[str, Any]) -> str | None:
    """Why the scorer of ``rules`` refuses ``hand``, a winning shape, as a win (a 杠开
    with no kong, a 天胡 with melds: the win context does not fit this hand), or None
    when it is no winning shape: the tiles without the last do not wait on it (a
    regional scorer may check the context before the shape, and the correction's search
    asks it only whether a reading wins, :func:`vision.correct.winning_shape_check`)."""
    import scoring

    try:
        scoring.score(hand, rules=rules, **ctx)
    except scoring.NotAWinningHand:
        return None
    except scoring.HandError as exc:
        reason = str(exc)
    else:
        return None
    # the shape with what says what the tiles are alone (a wild, a gold): the waits may
    # refuse the rest of the context as the score did (a 三金倒 with a discarder)
    rule_set = scoring.get_rule_set(rules)
    own = set(rule_set.context_fields()) - set(rule_set.tile_context)
    shape = {k: v for k, v in _waits_kwargs(ctx).items() if k not in own}
    try:
        found = scoring.waits(_without_last(hand), rules=rules, **shape)
        if hand.standing[-1] in {w.tile for w in found.waits}:
            return reason
        return reason if scoring.score(hand, rules=rules, self_drawn=True, **shape).legal \
            else None  # a win of no plain shape, scored as such (a self-drawn one)
    except scoring.HandError:
        return None


def recognize(
    image: ImageSource,
    rules: str = "mcr",
    context: Mapping[str, Any] | None = None,
    *,
    detector: Any = None,
    detections: Detections | None = None,
    layout_params: LayoutParams | None = None,
) -> Recognition:
    """Detect the tiles in ``image`` and read the hand (see module doc). ``image`` is what
    :func:`vision.imageio.load_image` takes: a path (``str`` or ``pathlib.Path``, whose
    text is the reading's ``image``), the encoded bytes of a JPEG/PNG/WebP/BMP/TIFF file
    (``bytes``, ``bytearray``, ``memoryview``), or a BGR pixel array (uint8; uint16
    scaled by its bit depth, the smallest of 8, 10, 12, 14 or 16 that holds its
    brightest value, :func:`vision.imageio.uint16_bits`; bool black and white). A
    :class:`vision.imageio.Photo` already loaded (:func:`vision.imageio.load_for_reading`:
    the service's, under its own limits) is taken as it is. ``detector``: a loaded
    :class:`vision.detect.Detector` (or any callable image → Detections); default: the
    shipped model. ``detections``: the detector's output for ``image`` when already at
    hand (benchmarks). ``layout_params``: the layout's settings (default
    :class:`vision.layout.LayoutParams`).

    A reading that is no win, of rows lying well off the photo's edges, is tried again on
    the photo turned level (:mod:`vision.straighten`, a second detection) and replaced
    when that reading wins — or, when ``context`` says the hand is no win
    (``win``/``claim_win`` false), a reading that gives neither waits nor discards, replaced
    when the level reading gives them; so are some doubtful wins of
    rows tilted further (:mod:`vision.level_reread` says which, and when the level reading
    replaces them). A reading that still does not win is read once more with the layout's
    unsure sideways judgements open to change (:func:`flip_unclear_sideways`), and
    replaced when that wins.

    A large photo (a long side of twice :data:`vision.imageio.READ_MIN_LONG_SIDE` or
    more: a 12 MP phone photo) is read from its picture reduced by 2, 4, ...
    (:func:`vision.imageio.load_for_reading`: 2016 × 1512 for 4032 × 3024; a JPEG file
    decoded reduced, not decoded whole at all) when the tiles found there are big enough
    there (:func:`vision.zoom.big_enough`) — the photo would show the detector no more of
    them — and the level re-read cuts its region from that picture too; smaller tiles
    are found in that picture too, but their region pass, their crops and the level
    re-read are cut from the photo itself (:meth:`vision.detect.Detector.detect`; a
    detector of another kind detects the photo itself again: :func:`_detect_photo`).
    Boxes are always given in the photo's pixels (EXIF orientation applied)."""
    import os

    from vision.detect import detect, load_detector
    from vision.imageio import MAX_DECODABLE_PIXELS, Photo, load_for_reading

    check_request(rules, context)  # before the detector's time is spent
    name = os.fsdecode(image) if isinstance(image, (str, os.PathLike)) else None
    t0 = time.perf_counter()
    # an array is decoded already, a Photo loaded already (the service under its own
    # TILECAM_MAX_PIXELS)
    photo = image if isinstance(image, Photo) else load_for_reading(
        image, max_array_pixels=MAX_DECODABLE_PIXELS)
    t1 = time.perf_counter()
    run = detector if detector is not None else detect
    if detections is None:
        found, picture = _detect_photo(run, photo)
    else:  # the caller's detection of the photo: the level re-read's picture follows it
        found, picture = detections, _picture_for(photo, detections.boxes)
    dets = below_threshold_as_weak(found)
    t2 = time.perf_counter()
    ms = {"load": (t1 - t0) * 1000, "detect": (t2 - t1) * 1000}
    used = detector if detector is not None else load_detector()
    calibration = getattr(used, "calibration", None)
    rec = recognize_detections(dets, rules, context, image=name, ms=ms, calibration=calibration,
                               layout_params=layout_params, flip_sideways=False)
    # told it is no win (``win``/``claim_win`` false): the level reading could not win either
    may_win = _split_context(context)[1] is not False
    why = level_reread.reason(rec, len(dets), _hand_size(rules), may_win)
    if why is not None:
        level = _recognize_straightened(photo.size, picture, dets, rec.layout.tilt_deg, run,
                                        rules, context, name, ms, calibration, layout_params)
        if level_reread.take(why, rec, level):
            return _with_picture_note(level, picture)
        rec = replace(rec, ms={**rec.ms, "straighten": level.ms["straighten"]})  # time spent
    if rec.score is None and rec.layout.side_margins and may_win:
        flipped = recognize_detections(dets, rules, context, image=name, ms=rec.ms,
                                       calibration=calibration, layout_params=layout_params)
        if flipped.score is not None:
            rec = _with_both_times(flipped, rec)
    return _with_picture_note(_with_edge_note(rec, photo.size), picture)


def _with_picture_note(rec: Recognition, pixels: npt.NDArray[np.uint8]) -> Recognition:
    """``rec`` with :func:`vision.tile_size.size_note` when its hand rows' tiles are small
    in the picture (under :data:`vision.tile_size.SMALL_TILE_PX`), else with
    :func:`vision.sharpness.blur_note` when the detector judged the frame smeared (small
    tiles look soft too, and the size note says what to do about them); and with
    :func:`vision.exposure.dark_note` when the picture ``pixels`` (BGR) is dark — then
    without the smeared note (the crops' sharpness, a variance, falls with the light:
    a photo dimmed to 0.4 measures smeared)."""
    rows = [r.detections for r in rec.layout.rows]
    dark = dark_note(pixels)
    note = size_note(hand_tile_px(rec.detections.boxes, rows))
    if note is None and dark is None:
        note = blur_note(rec.detections.meta.get("blurred"))
    notes = tuple(n for n in (note, dark) if n is not None)
    return replace(rec, notes=(*rec.notes, *notes)) if notes else rec


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


def _detect_level(run: Any, region: npt.NDArray[np.uint8]) -> Detections:
    """The detection of a level ``region`` (BGR) by ``run``: a :class:`vision.detect.Detector`
    (or :func:`vision.detect.detect`, the shipped one) at its first input size alone
    unless :data:`vision.level_reread.LEVEL_OTHER_SCALES`; any other callable as it is."""
    from vision.detect import Detector, detect

    level: Detections
    if level_reread.LEVEL_OTHER_SCALES or not (isinstance(run, Detector) or run is detect):
        level = run(region)
    elif isinstance(run, Detector):
        level = run.detect(region, other_scales=False)
    else:
        level = detect(region, other_scales=False)
    return level


def _picture_for(photo: Photo, boxes: npt.NDArray[np.float32]) -> npt.NDArray[np.uint8]:
    """The picture the tiles of ``boxes`` (in the photo's pixels) are read from: the
    ``photo``'s reduced picture (:func:`vision.imageio.load_for_reading`) when they are big
    enough there (:func:`vision.zoom.big_enough`), else the photo's own pixels."""
    from vision.zoom import big_enough

    if not photo.reduced:
        return photo.picture
    reduction = max(photo.size[0] / photo.picture.shape[1],
                    photo.size[1] / photo.picture.shape[0])
    return photo.picture if big_enough(boxes, reduction) else photo.pixels


def _detect_photo(run: Any, photo: Photo) -> tuple[Detections, npt.NDArray[np.uint8]]:
    """The detection by ``run`` of ``photo`` (boxes in its pixels) and the picture it
    read. A :class:`vision.detect.Detector` (or :func:`vision.detect.detect`) is given the
    photo itself and detects once in its reduced picture, cutting its crops from the
    photo's own pixels when the tiles are small there (:meth:`vision.detect.Detector.detect`):
    the picture read is then the pixels, else the reduced picture. Any other callable is
    given the reduced picture, and when the tiles it finds are not big enough there
    (:func:`_picture_for`) the photo's own pixels, detected again."""
    from vision.detect import Detector, detect
    from vision.imageio import Photo
    from vision.straighten import reduced_back

    if not photo.reduced:
        return run(photo.picture), photo.picture
    if isinstance(run, Detector) or run is detect:
        asked: list[bool] = []

        def pixels() -> npt.NDArray[np.uint8]:
            asked.append(True)
            return photo.pixels

        found = run(Photo(photo.picture, photo.size, decode=pixels))
        return found, (photo.pixels if asked else photo.picture)
    small = photo.picture
    found = reduced_back(run(small), photo.size, (int(small.shape[1]), int(small.shape[0])))
    picture = _picture_for(photo, found.boxes)
    return (found, small) if picture is small else (run(picture), picture)


def _recognize_straightened(
    size: tuple[int, int], picture: npt.NDArray[np.uint8], dets: Detections,
    tilt: float, run: Any, rules: str,
    context: Mapping[str, Any] | None, name: str | None, ms: dict[str, float],
    calibration: Mapping[str, Any] | None, layout_params: LayoutParams | None = None,
) -> Recognition:
    """Read the hand again from the region of ``dets`` turned by ``tilt`` degrees so its
    rows lie level, cut from ``picture`` (the ``size`` = (width, height) photo's pixels or
    its reduced picture: :func:`_picture_for`); the recognition's boxes are then given in
    the photo's pixels (the box around each turned box) and a note says what was done."""
    from vision.straighten import detections_back, from_reduced, straight_region

    t0 = time.perf_counter()
    shown = (int(picture.shape[1]), int(picture.shape[0]))
    rx, ry = shown[0] / size[0], shown[1] / size[1]  # picture px per photo px (1: the photo)
    boxes = dets.boxes if shown == size else dets.boxes * np.array([rx, ry, rx, ry],
                                                                   np.float32)
    region, a = straight_region(picture, boxes, tilt)
    if shown != size:
        a = from_reduced(a, (1 / rx, 1 / ry))
    level = _detect_level(run, region)
    ms = {**ms, "straighten": (time.perf_counter() - t0) * 1000}
    rec = recognize_detections(level, rules, context, image=name, ms=ms,
                               calibration=calibration, layout_params=layout_params,
                               flip_sideways=False)
    note = (f"the rows lay {abs(tilt):.0f}° off the photo's edges: read again from the photo "
            "turned level")
    return replace(rec, detections=detections_back(rec.detections, a, size),
                   notes=(note, *rec.notes))
