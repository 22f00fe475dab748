"""Score a reported hand with the table's rule set and place its payments on the sheet.

:func:`evaluate` takes what a camera, an automatic table or a referee reports
(:class:`HandReport`) and the hand's place in the session, and returns the
content of a hand revision: the outcome, the scorer's answer and four
settlement numbers by player position. Bad input raises ``ValueError``
(``scoring.HandError`` included) with a message naming what is wrong.
"""

from __future__ import annotations

import inspect
import json
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import cache
from typing import Any

from scoring.hand import HandError, NotAWinningHand
from tilecam.tables.flow import WINDS, Place, offset, wind_at_offset
from tilecam.tables.settlement import SEAT_OFFSETS, place_payments, place_transfers

OUTCOMES = ("win", "draw")
#: Rule-set context fields the sheet fills from the hand's place when a report leaves
#: them out: the winner is the dealer (always from the seats: a ``dealer`` that says
#: otherwise is refused, :class:`DealerClash`); hands in a row the dealer won before (连庄);
#: drawn hands in a row before (臭庄); the chips each payer has (the place's ``stacks``,
#: where the rule set plays with chip stacks). Xiamen has them all.
PLACE_FIELDS = ("dealer", "dealer_repeats", "drawn_hands", "chips_left", "chips_opposite",
                "chips_right")


@cache
def score_parameters() -> frozenset[str]:
    """The names :func:`scoring.score` takes as parameters of its own (``hand``,
    ``rules``, ``self_drawn``, ``seat_wind``, ``flowers`` …): all but its
    ``**rule_context``. The sheet gives each of them itself (:func:`_score`: the report's
    fields, the table's rules, the hand's place), so a hand's ``context`` — the rule set's
    own fields, passed on as ``**rule_context`` — may not hold one.

    >>> sorted(score_parameters())[:4]
    ['discarder', 'flowers', 'hand', 'kong']
    """
    import scoring

    return frozenset(name for name, p in inspect.signature(scoring.score).parameters.items()
                     if p.kind is not inspect.Parameter.VAR_KEYWORD)


#: Where a hand reported in JSON (a table's ``POST …/hands``, a referee's correction)
#: gives what each of :func:`scoring.score`'s own parameters takes: said when its
#: ``context`` sets one (:func:`context_clash`).
REPORT_GIVES: dict[str, str] = {
    "hand": "give it as the field hand",
    "rules": "the table plays its event's rule set",
    "version": "the table plays its event's rule version",
    "settings": "the table plays its event's rule settings",
    "seat_wind": "the winner's seat wind is the field winner",
    "prevalent_wind": "the sheet takes the round's wind from the hand's place",
    "discarder": "give the discarder's seat wind as the field discarder",
    **{name: f"give it as the field {name}"
       for name in ("self_drawn", "last_of_kind", "kong", "last_wall_tile", "flowers")},
}
#: The same for a camera frame (``POST …/frames``), whose hand is the one it shows.
FRAME_GIVES: dict[str, str] = {**REPORT_GIVES, "hand": "the hand is read from the image"}


class DealerClash(HandError):
    """A hand's ``context`` gives ``dealer`` against the seats: seat E deals every hand of
    a sheet, so its winner is the dealer exactly when the winner sits E (the sheet fills
    ``dealer`` from the seat itself, :func:`_winner_context`). A ``HandError``, so a camera
    frame's context that says it is a 400 ``invalid_context`` as soon as it is read; the
    sheet answers a table's or a referee's report so too
    (:func:`tilecam.tables.sheet._evaluate`), and a stored hand scored again at a new
    place with such a flag (recorded before the sheet refused it) goes ``pending`` with
    this message for a referee to correct."""


#: Legacy reading only (:func:`scored_self_drawn`, a score stored without its
#: ``self_drawn``): scored win types (a score's ``details["win"]``: Xiamen's) that are
#: won without a discard whatever the report's ``self_drawn`` says: 自摸 — robbing a kong
#: included (抢杠自摸, seed 000: 以自摸论), with or without the konger's seat —, 游金,
#: 双游, 三游, 三金倒 and 天和. 天听 is won either way: self-drawn with ``self_drawn`` or
#: ``kong`` (robbing a kong), else on a discard. Scores made now say it themselves
#: (``Score.self_drawn``, each rule set's own reading).
SELF_DRAWN_WINS = frozenset({"self_drawn", "you_jin", "shuang_you", "san_you",
                             "three_golds_opening", "three_golds_later", "tian_he"})
#: Legacy reading only, as :data:`SELF_DRAWN_WINS`: scoring items (a fan's ``zh``) only
#: a win without a discard scores: Zhenjiang's 天胡 (the dealer's win on the deal).
SELF_DRAWN_ITEMS = frozenset({"天胡"})


def scored_self_drawn(score: Mapping[str, Any] | None, context: Mapping[str, Any]) -> bool:
    """Whether a win is self-drawn as its score settles it, not only as the report's flag
    says. Such a win needs no discarder to be settled, counts among the winner's
    ``self_drawn_wins`` and deals nobody in — not the konger of a Xiamen 抢杠自摸 either.

    A score (``Score.to_dict()``) says it itself: its ``self_drawn``, which each rule set
    sets by its own reading (Xiamen's 游金 … and 抢杠自摸, Zhenjiang's 天胡 with the flag or
    without, MCR's flag: :attr:`scoring.Score.self_drawn`); the sheet takes it as it is.

    A score stored by an older version lacks that field (the database keeps a revision's
    score as it was made), and so does a revision with no score: only for those, the
    name-based reading the sheet used before is kept as a fallback — ``context``'s
    ``self_drawn`` (the win flags stored with a revision, :meth:`HandReport.win_context`),
    a win type won without a discard (:data:`SELF_DRAWN_WINS`; 天听 with ``kong``), or an
    item only such a win scores (:data:`SELF_DRAWN_ITEMS`).

    >>> scored_self_drawn({"self_drawn": True, "details": {"win": "you_jin"}}, {})
    True
    >>> scored_self_drawn({"self_drawn": False, "fans": []}, {"kong": True})
    False

    A score stored without the field (an older version's), or none:

    >>> scored_self_drawn({"details": {"win": "you_jin"}}, {"self_drawn": False})
    True
    >>> scored_self_drawn({"details": {"win": "tian_ting"}}, {"kong": True})
    True
    >>> scored_self_drawn({"details": {"win": "discard"}, "fans": []}, {})
    False
    >>> scored_self_drawn(None, {"self_drawn": True})
    True
    """
    said = score.get("self_drawn") if score else None
    if isinstance(said, bool):  # the rule set's own reading (every score made now)
        return said
    return _legacy_self_drawn(score, context)


def _legacy_self_drawn(score: Mapping[str, Any] | None, context: Mapping[str, Any]) -> bool:
    """:func:`scored_self_drawn` of a score stored without ``self_drawn`` (an older
    version's) or of no score: the report's flag, or the names of the win types and items
    that only a win without a discard has (:data:`SELF_DRAWN_WINS`,
    :data:`SELF_DRAWN_ITEMS`)."""
    if context.get("self_drawn"):
        return True
    if not score:
        return False
    win = (score.get("details") or {}).get("win")
    if win in SELF_DRAWN_WINS or (win == "tian_ting" and context.get("kong")):
        return True
    return any(isinstance(f, Mapping) and f.get("zh") in SELF_DRAWN_ITEMS
               for f in score.get("fans") or ())


class ContextClash(ValueError):
    """A hand's ``context`` sets one of :func:`scoring.score`'s own parameters
    (:func:`context_clash` says which, and what gives it instead)."""


def context_clash(context: Mapping[str, Any],
                  gives: Mapping[str, str] = REPORT_GIVES) -> str | None:
    """Why ``context`` cannot be a hand's win context: the keys in it that are
    :func:`scoring.score`'s own parameters (:func:`score_parameters`), each with what
    gives it instead (``gives``: :data:`REPORT_GIVES`, :data:`FRAME_GIVES`); None when it
    sets none. A context holds the rule set's own fields only (Xiamen's gold …).

    >>> context_clash({"gold": "5m"}) is None
    True
    >>> context_clash({"flowers": 1})
    'context may not set flowers: give it as the field flowers'
    >>> for part in context_clash({"seat_wind": "E", "hand": "1m"}, FRAME_GIVES).split("; "):
    ...     print(part)
    context may not set hand: the hand is read from the image
    context may not set seat_wind: the winner's seat wind is the field winner
    """
    clash = sorted(score_parameters().intersection(context))
    if not clash:
        return None
    return "; ".join(f"context may not set {name}: "
                     f"{gives.get(name, 'the sheet gives it to the scorer itself')}"
                     for name in clash)


@dataclass(frozen=True)
class HandReport:
    """A reported hand.

    ``outcome``: ``win`` or ``draw`` (荒庄, nobody wins). ``hand``: notation of the
    winning hand (RULES.md; its last standing tile is the winning tile).
    ``winner``/``discarder``: seat winds of this hand (``E`` is the dealer); a
    self-drawn win has no discarder. ``context``: extra rule-set win context
    (e.g. Xiamen's gold indicator). ``recognized``/``image_ref``: what a camera saw.
    """

    outcome: str = "win"
    hand: str | None = None
    winner: str | None = None
    discarder: str | None = None
    self_drawn: bool = False
    last_of_kind: bool = False
    kong: bool = False
    last_wall_tile: bool = False
    flowers: int = 0
    context: Mapping[str, Any] = field(default_factory=dict)
    recognized: Mapping[str, Any] | None = None
    image_ref: str | None = None
    note: str | None = None

    def win_context(self) -> dict[str, Any]:
        """The win flags as stored with the revision."""
        return {
            "self_drawn": self.self_drawn,
            "last_of_kind": self.last_of_kind,
            "kong": self.kong,
            "last_wall_tile": self.last_wall_tile,
            "flowers": self.flowers,
            **dict(self.context),
        }

    def same_as(self, other: HandReport) -> bool:
        """Whether two reports describe the same hand (for idempotent re-posts)."""
        return (
            self.outcome == other.outcome
            and self.hand == other.hand
            and self.winner == other.winner
            and self.discarder == other.discarder
            and self.win_context() == other.win_context()
        )


def image_flowers_clash(hand: str | None, flowers: int, name: str = "flowers") -> str | None:
    """Why a count of ``flowers`` (bonus tiles, 0-8) given with a table photo (its field
    ``flowers``; a camera frame's clash goes to the referee instead) cannot go with the
    hand read from it
    (``hand``, notation), as :mod:`vision.flower_count` gives the count's one meaning: the
    flowers of an image that shows none. An image that shows exactly ``flowers`` of them
    keeps its reading (the scorer counts them once); one that shows another number is
    refused, the message naming both counts (:func:`vision.flower_count.count_clash`).
    None when they agree, when no count is given, or when ``hand`` is none or no hand
    (nothing is scored from it).

    >>> image_flowers_clash("123m456m789m234p55s12f", 2) is None  # the two it shows
    True
    >>> image_flowers_clash("123m456m789m234p55s", 2) is None  # shows none: 2 set aside
    True
    >>> image_flowers_clash("123m456m789m234p55s1f", 2)  # doctest: +NORMALIZE_WHITESPACE
    'flowers 2: the photo shows 1 flower(s) (1f), which are read from it and counted:
    leave flowers out (it is for a photo that shows no flower)'
    """
    import scoring
    from vision.flower_count import count_clash

    if not flowers or not hand:
        return None
    try:
        shown = list(scoring.parse_hand(hand).flowers)
    except ValueError:  # no hand: nothing of it is scored
        return None
    if not shown or len(shown) == flowers:
        return None
    return count_clash(flowers, shown, name)


@dataclass(frozen=True)
class Evaluation:
    """The scored content of a hand revision."""

    outcome: str
    hand: str | None
    total: int | None
    legal: bool | None
    score: dict[str, Any] | None
    settlement: list[int]
    note: str | None


def stand_ins(rules: str | None,
              context: Mapping[str, Any] | None = None) -> tuple[tuple[str, str], ...]:
    """The meld tiles the table's ``rules`` read as another tile under a hand's rule-set
    ``context`` (:func:`scoring.stand_ins`: under Xiamen a meld's tile of the gold's kind
    is a 白板 standing in), for parsing the hand as the scorer reads it; none without
    rules, or where the context does not say (no gold, or one that is no tile: the scorer
    refuses that itself, naming it).

    >>> stand_ins("xiamen", {"gold": "5m"}), stand_ins("xiamen", {}), stand_ins("mcr", {})
    ((('5m', 'P'),), (), ())
    """
    if not rules:
        return ()
    import scoring

    try:  # the rule set's own method: a context key such as "rules" is no keyword clash
        return tuple(scoring.get_rule_set(rules).stand_ins(dict(context or {})))
    except ValueError:  # an unknown rule set, a context the rules refuse: as written
        return ()


def normalize_hand(text: str, rules: str | None = None,
                   context: Mapping[str, Any] | None = None) -> str:
    """The hand in the scorer's canonical notation (raises ValueError when malformed),
    parsed as the table's ``rules`` read it under the hand's rule-set ``context``
    (:func:`stand_ins`): a Xiamen hand with gold 5m may hold a claimed pung ``[555m,1]``
    (three 白板) beside four golds — without the rules and context it holds 7 copies of
    5m and is refused, as the score sheet refused it before the seventy-fourth session.

    >>> normalize_hand("[555m,1]5555m123p456pPEEE", "xiamen", {"gold": "5m"})
    '[555m,1]5555m123456pPEEE'
    >>> normalize_hand("[555m,1]5555m123p456pPEEE")
    Traceback (most recent call last):
    ...
    scoring.hand.TooManyCopies: 7 copies of 5m: there are only 4 of each tile
    """
    import scoring

    return scoring.format_hand(scoring.parse_hand(text,
                                                  melded_as=stand_ins(rules, context)))


def score_key(text: str, rules: str, context: Mapping[str, Any] | None = None) -> str:
    """What of hand ``text`` (canonical notation) the ``rules`` score depends on
    (:meth:`scoring.rulesets.base.RuleSet.score_key`: each bonus tile named by the first
    code of its ``score_alike`` group; MCR: any bonus tile is one fan, so 2f and 7f are
    alike) — two readings of one camera frame that differ only in which flower it shows
    have one key. A rule set with no alike codes keys the hand by its notation. The hand
    is parsed as :func:`normalize_hand` parses it (``context``: a Xiamen gold's stand-ins).

    >>> score_key("123456789m1235p5p27f", "mcr")
    '123456789m1235p5p 1f1f'
    >>> score_key("123456789m1235p5p27f", "xiamen")
    '123456789m1235p5p 1f5f'
    >>> score_key("123456789m1235p5p27f", "zhenjiang")
    '123456789m1235p5p27f'
    >>> score_key("[555m,1]5555m123456pPEEE", "xiamen", {"gold": "5m"})
    '[555m,1]5555m123456pEEPE'
    """
    import scoring

    return scoring.get_rule_set(rules).score_key(
        scoring.parse_hand(text, melded_as=stand_ins(rules, context)))


#: Readings of a camera frame this many tiles or fewer apart may be the same tiles read
#: otherwise (a flower found late, a code that flips): :func:`tiles_apart`.
REREAD_TILES = 2


def tiles_apart(key_a: str, key_b: str) -> int:
    """How many tiles two hand keys (:func:`score_key`) differ by: the larger side of the
    difference of their tile multisets (melds, standing tiles and bonus tiles), each tile
    as written — a Xiamen meld's tile of the gold's kind too, which the rules read as a
    白板 (a key with a claimed pung of the gold's kind beside four golds is counted, not
    refused as too many copies).

    >>> tiles_apart("123456789m1235p5p 1f1f", "123456789m1235p5p 1f1f1f")
    1
    >>> tiles_apart("123456789m1235p5p", "111222333m456p7p7p")
    10
    >>> tiles_apart("[555m,1]5555m123456pPEEE", "[555m,1]5555m123456pPEE7p")
    1
    """
    a, b = _key_tiles(key_a), _key_tiles(key_b)
    if a is None or b is None:  # a key that does not parse is no re-reading of the other
        return max(sum(a.values()) if a else 0, sum(b.values()) if b else 0, REREAD_TILES + 1)
    return max(sum((a - b).values()), sum((b - a).values()))


def reread_of(key_a: str, key_b: str) -> bool:
    """Whether two hand keys may be one hand's tiles read otherwise: at most
    :data:`REREAD_TILES` apart (:func:`tiles_apart`); the camera's ``near`` test
    (:func:`tilecam.tables.stability.step`)."""
    return tiles_apart(key_a, key_b) <= REREAD_TILES


#: A meld in notation (``[555m,1]``): :func:`_key_tiles` reads each on its own.
_MELD = re.compile(r"\[[^\]]*\]")


def _key_tiles(key: str) -> Counter[str] | None:
    """The tiles of a hand key as written (None when it does not parse). Each meld and
    the rest are parsed apart, so that copies are counted within each only: the rules may
    read a meld's tiles as another tile (:func:`stand_ins`), which the key does not say."""
    import scoring

    bare, _, bonus = key.partition(" ")
    tiles: Counter[str] = Counter()
    try:
        for part in [*_MELD.findall(bare), _MELD.sub("", bare)]:
            if not part:
                continue
            hand = scoring.parse_hand(part)
            tiles.update(t for m in hand.melds for t in m.tiles)
            tiles.update(hand.standing)
            tiles.update(hand.flowers)
    except scoring.HandError:
        return None
    tiles.update(bonus[i:i + 2] for i in range(0, len(bonus), 2))
    return tiles


def _check_report(report: HandReport) -> None:
    if report.outcome not in OUTCOMES:
        raise ValueError(f"outcome {report.outcome!r}: use 'win' or 'draw'")
    for name in ("winner", "discarder"):
        value = getattr(report, name)
        if value is not None and value not in WINDS:
            raise ValueError(f"{name} {value!r} is not a seat wind of the hand (E, S, W or N)")
    if report.outcome == "draw":
        if report.winner or report.discarder or report.self_drawn:
            raise ValueError("a drawn hand (outcome 'draw') has no winner, discarder or self-draw")
        return
    if not report.hand:
        raise ValueError("a win needs the hand (tile codes in notation)")
    check_win_seats(report)


def check_win_seats(report: HandReport) -> None:
    """Raise ValueError naming what is wrong when a win's seats contradict each other (a
    discarder with a self-draw, without a winner, or the winner himself). A camera's
    frame is checked with this before it is read, so a camera sending a report that can
    never be recorded hears so on its first frame, not when the hand is revealed."""
    if report.discarder is not None:
        if report.self_drawn:
            raise ValueError("a self-drawn win has no discarder")
        if report.winner is None:
            raise ValueError("a discarder was given without the winner")
        if report.discarder == report.winner:
            raise ValueError(f"the winner ({report.winner}) cannot be the discarder")


def evaluate(
    report: HandReport,
    place: Place,
    rules: str,
    version: str | None,
    rule_settings: Mapping[str, Any],
    lenient: bool = False,
    review_below: float = 0.0,
) -> Evaluation:
    """Score ``report`` at ``place`` under ``rules``; a win that cannot be settled yet
    (winner or discarder unknown, not a legal win, a winner barred from the hand by a
    false claim or a referee's 停和 earlier in it: ``place.barred``) comes back
    ``pending`` with a note.

    A hand the scorer refuses raises ``ValueError``; with ``lenient`` (a camera's
    reading, which a referee checks) it comes back ``pending`` with the scorer's reason.
    A legal win whose recognized reading (``report.recognized``) gives a
    ``score_confidence`` under ``review_below`` comes back ``pending`` too, scored, for a
    referee to confirm or correct (a camera's unsure reading is not settled on its own).
    """
    import scoring

    _check_report(report)
    zero = [0, 0, 0, 0]
    rule_set = scoring.get_rule_set(rules)
    if report.outcome == "draw":
        return _drawn(report, place, rules, rule_set, rule_settings)
    assert report.hand is not None
    hand = normalize_hand(report.hand, rules, report.context)  # a Xiamen gold's stand-ins
    if report.winner is None:
        if not lenient:  # a table's or referee's report: the hand itself must be one
            _check_some_winner(report, place, rules, version, rule_settings, hand, rule_set)
        note = "winner seat unknown: a referee must correct this hand to settle it"
        return Evaluation("pending", hand, None, None, None, zero, note)
    try:
        result = _score(report, place, rules, version, rule_settings, hand, rule_set)
    except NotAWinningHand as exc:  # a claim on tiles that are no win: 诈和
        note = f"{exc} (under {rules}): a referee decides — {rule_set.false_claim}"
        return Evaluation("pending", hand, None, False, None, zero, note)
    except ValueError as exc:
        if not lenient:
            raise
        return Evaluation("pending", hand, None, None, None, zero,
                          f"the scorer refused this hand: {exc}")
    data = result.to_dict()
    if report.winner in place.barred:
        note = (f"the player in seat {report.winner} may not win this hand (停和: a false "
                "claim or a referee's bar earlier in it): a referee corrects this record with "
                "how the hand ended")
        return Evaluation("pending", hand, result.total, result.legal, data, zero, note)
    if not result.legal:
        why = result.details.get("reason") or f"total {result.total}"
        note = (f"not a legal win under {rules} ({why}): a referee decides — "
                f"{rule_set.false_claim}")
        return Evaluation("pending", hand, result.total, False, data, zero, note)
    # the score says whether the win was on a discard (Score.self_drawn): 游金 or 天胡 is
    # self-drawn by its type, reported with the self_drawn flag or without
    if report.discarder is None and not scored_self_drawn(data, report.win_context()):
        note = "discarder unknown for a win on a discard: a referee must correct this hand"
        return Evaluation("pending", hand, result.total, True, data, zero, note)
    sure = (report.recognized or {}).get("score_confidence")
    if isinstance(sure, int | float) and not isinstance(sure, bool) and sure < review_below:
        note = (f"the camera is unsure of this reading (score confidence {sure:.0%}, under "
                f"{review_below:.0%}): a referee confirms or corrects it before it counts")
        return Evaluation("pending", hand, result.total, True, data, zero, note)
    assert report.winner is not None
    payments = result.settlement.to_dict()["payments"]
    seat_winds = place.seat_winds()
    deltas = place_payments(payments, report.winner, report.discarder, seat_winds)
    # chips passing apart from the win (Zhenjiang's 打首搭, 碰后打搭), seen from the winner
    moved = place_transfers(result.details.get("events") or (), report.winner, seat_winds)
    deltas = [a + b for a, b in zip(deltas, moved, strict=True)]
    if sum(deltas) != 0:  # pragma: no cover - both always balance
        raise ValueError(f"settlement does not balance: {deltas}")
    return Evaluation("win", hand, result.total, True, data, deltas, report.note)


def _check_some_winner(report: HandReport, place: Place, rules: str, version: str | None,
                       rule_settings: Mapping[str, Any], hand: str, rule_set: Any) -> None:
    """A win reported without its winner (and so without a discarder:
    :func:`check_win_seats`): raise the scorer's refusal (tile counts, a context field the
    rules lack) unless the hand scores for some seat or is a hand without a winning shape
    (a false claim) — the sheet holds it pending for the referee, but only a hand."""
    first: ValueError | None = None
    for seat in WINDS:
        try:
            _score(replace(report, winner=seat), place, rules, version, rule_settings, hand,
                   rule_set)
            return
        except NotAWinningHand:
            return  # a hand, though no win: held for the referee all the same
        except ValueError as exc:
            first = first or exc
    assert first is not None
    raise first


def _drawn(report: HandReport, place: Place, rules: str, rule_set: Any,
           rule_settings: Mapping[str, Any]) -> Evaluation:
    """A drawn hand: nobody wins; the rule set's transfers of a drawn hand (Zhenjiang's
    打首搭 and 碰后打搭, seats by wind: :meth:`RuleSet.draw_transfers`) are booked, and
    named in the note."""
    hand = normalize_hand(report.hand, rules, report.context) if report.hand else None
    # the rule set's own fields only (HandError naming one it does not have, or a value
    # that is wrong): RuleSet.draw_transfers checks nothing by default; its seat fields
    # are the rule set's to check
    rule_set.resolve_context({k: v for k, v in report.context.items()
                              if k not in rule_set.seat_context})
    moves = rule_set.draw_transfers(report.context, dict(rule_settings)) if report.context else []
    deltas = place_transfers(moves, None, place.seat_winds())
    paid: dict[tuple[str, str], int] = {}
    for m in moves:  # each event: its seat gets the amount from each other seat
        key = (str(m["reason"]), str(m["to"]))
        paid[key] = paid.get(key, 0) + int(m["amount"])
    said = [f"{reason}: {seat} gets {amount}" for (reason, seat), amount in paid.items()]
    note = "; ".join([*said, *([report.note] if report.note else [])]) or None
    return Evaluation("draw", hand, None, None, None, deltas, note)


#: Names of seats seen from the winner, by seat offset (0: the winner).
SEAT_NAMES = {v: k for k, v in SEAT_OFFSETS.items()}


def _seats_from_winner(value: Any, winner: str) -> Any:
    """A seat field's ``value`` (:attr:`RuleSet.seat_context`) with each seat wind in it
    named as seen from ``winner`` (``winner``, ``left``, ``opposite``, ``right``); other
    words are left for the rule set to judge.

    >>> [_seats_from_winner(v, "S") for v in ("E, W", "left", "")]
    ['left,right', 'left', '']
    """
    if not isinstance(value, str) or not value.strip():
        return value
    words = [w.strip() for w in value.split(",")]
    return ",".join(SEAT_NAMES[0 if w == winner else offset(winner, w)] if w in WINDS
                    else w for w in words)


def reading_context(report: HandReport, rules: str) -> dict[str, Any]:
    """A camera frame's rule-specific context as the recognizer takes it (it knows no
    seats): seat fields (:attr:`RuleSet.seat_context`) named by seat wind are named as
    seen from the frame's winner, and ``dealer`` is filled from the winner's seat (E) where
    the rules have it — as :func:`_score` does for the sheet; a ``dealer`` the frame gives
    against the winner's seat is refused (:class:`DealerClash`, a 400 ``invalid_context``).
    Without a winner, seat fields given by wind are left out (only the sheet's score,
    which knows the winner then, reads them). The reading only says what the tiles show:
    the sheet scores the hand it records at its place.

    >>> reading_context(HandReport(winner="S", context={"wild_after_pung": "S, E",
    ...     "indicator": "3m"}), "zhenjiang")
    {'wild_after_pung': 'winner,left', 'indicator': '3m', 'dealer': False}
    """
    import scoring

    rule_set = scoring.get_rule_set(rules)
    if report.winner is not None:
        return _winner_context(report.context, rule_set, report.winner)
    return {name: value for name, value in report.context.items()
            if name not in rule_set.seat_context
            or not any(w.strip() in WINDS for w in str(value).split(","))}


def _winner_context(context: Mapping[str, Any], rule_set: Any, winner: str) -> dict[str, Any]:
    """``context`` as seen from ``winner``'s seat: its seat fields
    (:attr:`RuleSet.seat_context`) named by seat wind named from the winner
    (:func:`_seats_from_winner`), and ``dealer`` — the winner sits E — where the rules
    have it. A ``dealer`` given that says otherwise raises :class:`DealerClash` (before,
    it was scored as given: a non-dealer paid the dealer's 底, a non-dealer's 天胡
    settled); one that agrees is taken; a value that is no flag is left for the scorer
    to refuse.

    >>> import scoring
    >>> _winner_context({"dealer": "yes"}, scoring.get_rule_set("xiamen"), "E")["dealer"]
    True
    >>> _winner_context({"dealer": True}, scoring.get_rule_set("xiamen"), "S")
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    tilecam...DealerClash: context dealer=true, but the winner's seat S is not this hand's ...
    """
    extra = dict(context)
    for name in rule_set.seat_context:
        if name in extra:
            extra[name] = _seats_from_winner(extra[name], winner)
    fields = rule_set.context_fields()
    if "dealer" in fields:
        deals = winner == "E"
        if "dealer" in extra:
            try:
                said = fields["dealer"].coerce(extra["dealer"], "context field")
            except HandError:  # not a flag: the scorer names it
                return extra
            if said != deals:
                raise DealerClash(
                    f"context dealer={json.dumps(extra['dealer'], ensure_ascii=False)}, but "
                    f"the winner's seat {winner} is {'' if deals else 'not '}this hand's "
                    "dealer: seat E deals every hand of the sheet (leave dealer out: the "
                    "sheet takes it from the winner's seat)")
        extra["dealer"] = deals
    return extra


def _score(report: HandReport, place: Place, rules: str, version: str | None,
           rule_settings: Mapping[str, Any], hand: str, rule_set: Any) -> Any:
    """``scoring.score`` of the hand for its winner's seat and the round's wind. Context
    fields the sheet knows are filled when the rule set has them and the report leaves
    them out (:data:`PLACE_FIELDS`): ``dealer`` from the winner's seat (E; one given
    against it raises :class:`DealerClash`); the dealer's
    streak — ``dealer_repeats`` (连庄) and ``drawn_hands`` (臭庄) — from the place, where
    the deal stayed with the dealer; and the chips each payer has (``chips_left``,
    ``chips_opposite``, ``chips_right``) from the place's stacks.

    A context that sets one of ``scoring.score``'s own parameters (``flowers``,
    ``self_drawn`` …: :func:`context_clash`) raises :class:`ContextClash`, a
    ``ValueError`` naming it — never the ``TypeError`` of a keyword given twice. The
    requests refuse such a context before (``HandIn``, a camera frame's fields); this is
    the scorer's own guard, for a report made some other way."""
    import scoring

    assert report.winner is not None
    extra = _winner_context(report.context, rule_set, report.winner)  # seats, dealer
    if (problem := context_clash(extra)) is not None:
        raise ContextClash(problem)
    known = {"dealer_repeats": place.repeats, "drawn_hands": place.draws}
    if place.stacks is not None:  # the payers' chips, seen from the winner
        seats = place.seat_winds()
        for name, seat_offset in (("left", 1), ("opposite", 2), ("right", 3)):
            known[f"chips_{name}"] = place.stacks[seats[wind_at_offset(report.winner,
                                                                       seat_offset)]]
    for name in PLACE_FIELDS:
        if name in rule_set.context_fields() and name not in extra and name in known:
            extra[name] = known[name]
    discarder_offset = (
        offset(report.winner, report.discarder) if report.discarder is not None else None
    )
    return scoring.score(
        hand,
        rules=rules,
        version=version,
        self_drawn=report.self_drawn,
        last_of_kind=report.last_of_kind,
        kong=report.kong,
        last_wall_tile=report.last_wall_tile,
        seat_wind=report.winner,
        prevalent_wind=place.prevalent_wind,
        flowers=report.flowers,
        discarder=discarder_offset,
        # a table stored before tables were refused for a settings version that differs
        # from their own was played under its own: so it still is (scoring refuses two)
        settings={k: v for k, v in rule_settings.items()
                  if not (k == "version" and version is not None)},
        **extra,
    )
