"""Rule-aware correction: the most probable *legal* reading of the tiles.

The detector gives every tile its top-k codes with probabilities. The top-1 reading of
a hand can be impossible: a fifth copy of a kind, a second copy of a flower, a meld
that is not a set, or — when the hand has the size of a win — no winning shape. This
step searches the readings best first (the product of the tiles' probabilities, tiles
assumed independent; cost = −log of the ratio to the top-1 reading) and keeps the
first one that is legal, with the tiles it changed, from what, to what, and how sure
(the probability ratio of the two codes).

Two kinds of constraints:

- *physical* (copy counts — a kong shown all face down counting four of the kind given
  for it, a Xiamen 白板 standing in for the gold in a shown chow counting as a 白板 —, one
  of each flower, melds being sets, no meld tile read as a Xiamen gold's own face — golds
  are never melded; with 白板 the gold, no 白板 in a meld —, a tile the layout laid
  among the flowers being a flower): the top-1 reading is impossible, so the cheapest
  legal reading is taken however unlikely (within the search bound); a tile of a shown
  meld that is not a set may also take the kind its meld-mates call for when its own
  readings hold none, at :data:`MELD_FILL_P` (only a tile read less surely than
  :data:`MELD_FILL_BELOW`); a tile read at least
  :data:`SURE_P` surely may only become a code at most :data:`SURE_MAX_RATIO` times less
  probable, so strong evidence is not overridden to mend a layout's wrong grouping;
- *winning shape*: a reading that makes the hand a win is taken only when it is at most
  ``CorrectParams.max_win_ratio`` times less probable than the best physically possible
  reading. Strong evidence is never overridden to force a win: such a hand is reported
  as not winning (the caller then shows its waits);
- *ready* (听), when asked for (``CorrectParams.max_ready_ratio`` > 0): a hand one tile
  short of a win with no win claimed takes a reading that makes it ready — some tile
  would complete it — when at most that many times less probable than the best
  physically possible one. A weak constraint (many misread 13-tile hands are still
  ready), so it is used with a small ratio (4 in :func:`vision.recognize.recognize`).

Possible readings whose probability is within ``close_ratio`` of the chosen one (either
way) are returned as alternatives, winning or not.

How the bound on readings is spent (:func:`_find`): an impossible top-1 reading is first
made possible with the tiles involved (and those their changes need changed too,
:func:`_reach`) alone, then every reading is searched best first — a reading that keeps
the impossibility untouched is skipped —; with a win claimed, a quarter of the bound is
kept, while no win has been found, for the readings with at most :data:`FEW_CHANGES`
tiles changed (many unsure tiles elsewhere can put hundreds of readings ahead of a
one-tile misread). A search cut by the bound says so in its notes, and never that no win
exists within ``max_win_ratio``.

>>> from vision.layout_scene import SceneBuilder
>>> from vision.layout import analyze
>>> s = SceneBuilder().standing("123m456p78sEEECC").win("9p")
>>> d = s.uncertain([("9p", 0.6), ("9s", 0.4)]).detections()
>>> res = correct(d, analyze(d))
>>> [(c.before, c.after) for c in res.best.changes], res.best.winning, res.problems
([('9p', '9s')], True, ('not a winning hand',))
"""

from __future__ import annotations

import heapq
import math
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from vision.classes import BACK, BONUS, CLASSES, KINDS
from vision.detections import Detections
from vision.layout import Layout

if TYPE_CHECKING:
    from scoring.hand import Hand
    from scoring.rulesets.base import RuleSet

_KIND_INDEX = {c: i for i, c in enumerate(KINDS)}
_BONUS = frozenset(BONUS)
_MIN_P = 1e-6
#: 白板's code: under Xiamen it stands in for the gold's face, unless it is the gold itself
_WHITE = "P"
#: probability given to a kind that is not among a meld tile's readings but is the only
#: way (with its meld-mates as read) to make the meld a set (0: such kinds not tried)
MELD_FILL_P = 0.001
#: a meld tile read at least this surely (top-1 probability) is never given fillers: its
#: meld is more likely grouped wrong by the layout than the tile misread (on the training
#: photos three such fills overrode readings of 0.995-0.9997)
MELD_FILL_BELOW = 0.9
#: a tile read at least this surely (top-1 probability) keeps its reading unless another
#: of its readings is at most :data:`SURE_MAX_RATIO` times less probable. Changed by more,
#: such tiles were wrong every time (11 of 11 on the training-art choice scenes, ratios
#: 1,300-137,000, 4 of 4 on the training photos): the layout had made a kong of a wall's
#: face-down tiles or grouped a meld wrongly, and the count or set problem was its own.
#: The reading then keeps its problem rather than being "corrected" against strong
#: evidence. (A fifth copy among tiles read at 0.99 and 0.005 is still mended.)
SURE_P = 0.9
SURE_MAX_RATIO = 1000.0


@dataclass(frozen=True)
class CorrectParams:
    """Search bounds and decision ratios (probability ratios, not logs)."""

    #: readings popped from the search queue at most, all steps of :func:`_find` together
    #: (with a win claimed, a quarter kept for the readings of few changed tiles while no
    #: win is found): the bound that makes the answer the
    #: same on any machine and under any load (600: on the 300 training-art scenes of
    #: ``/tmp/s8/choice2`` one hand, wrong either way, reads otherwise than under the
    #: former 20 ms cap, and a search takes at most ~55 ms on a slow 2-core CPU; model
    #: card step 48)
    max_readings: int = 600
    #: an optional wall-time cap, milliseconds (None: none). A time cap makes the
    #: reading depend on the machine's speed and load — 20 ms stopped a fifth of the
    #: searches on those scenes — so it is off unless a caller needs a hard latency bound
    max_ms: float | None = None
    #: never consider readings this many times less probable than the top-1 reading
    max_ratio: float = 1e6
    #: a win-making reading is taken only if at most this many times less probable than
    #: the best physically possible reading
    max_win_ratio: float = 10.0
    #: a hand one tile short of a win, no win claimed: a reading that makes it ready
    #: (听: one tile would complete it) is taken over a more probable one that does not
    #: when at most this many times less probable (0: never)
    max_ready_ratio: float = 0.0
    #: ... looking at most this many readings over for readiness (each look tries the 34
    #: kinds as the completing tile), so a frame with many near readings stays fast (8:
    #: the waiting hands at the table read the same with 4, 8, 20 or 100; a 13-tile hand
    #: with nine uncertain tiles took +42 ms with 100, +8 ms with 8)
    max_ready_checks: int = 8
    #: other legal readings within this ratio of the chosen one are alternatives
    close_ratio: float = 4.0
    #: at most this many alternatives
    max_alternatives: int = 3


@dataclass(frozen=True)
class Correction:
    """Detection ``tile`` read as ``after`` instead of the top-1 ``before``; ``p_before``
    and ``p_after`` are the detector's probabilities, ``ratio`` = p_before / p_after."""

    tile: int
    before: str
    after: str
    p_before: float
    p_after: float

    @property
    def ratio(self) -> float:
        return self.p_before / max(self.p_after, _MIN_P)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ``{"tile", "from", "to", "p_from", "p_to", "ratio"}``."""
        return {
            "tile": self.tile,
            "from": self.before,
            "to": self.after,
            "p_from": round(self.p_before, 4),
            "p_to": round(self.p_after, 4),
            "ratio": round(self.ratio, 3),
        }


@dataclass(frozen=True)
class Reading:
    """One reading of every detection's code. ``cost`` = ln(P(top-1 reading) /
    P(this reading)) ≥ 0; ``winning``: the hand has a winning shape; ``legal``: no
    physical impossibility."""

    codes: tuple[str, ...]
    changes: tuple[Correction, ...]
    cost: float
    legal: bool
    winning: bool

    @property
    def ratio(self) -> float:
        """How many times less probable than the top-1 reading."""
        return math.exp(self.cost)


@dataclass(frozen=True)
class CorrectionResult:
    """The chosen reading, close alternatives (best first), what was wrong with the top-1
    reading, and how much was searched."""

    best: Reading
    alternatives: tuple[Reading, ...] = ()
    problems: tuple[str, ...] = ()
    claim_win: bool = False
    searched: int = 0
    notes: tuple[str, ...] = field(default=())


def with_rereads_first(result: CorrectionResult,
                       rereads: Sequence[Correction]) -> CorrectionResult:
    """``result``, a correction of detections some of whose tiles a rule re-read first
    (``rereads``: each from the detector's top-1 to the code the rule gave it, a flower
    read as a kind, a kind as a flower), with those changes listed first among its best
    reading's changes, one per tile from what the detector read: a re-read tile that the
    correction then read as another code is one change from the detector's top-1 and its
    probability to that code (seventy-sixth session; before, the correction's change
    named the re-read code as if the detector had read it, and the re-read was dropped),
    one it left as re-read is the re-read (kept when the reading still holds that code),
    and one it read back as the detector's top-1 is none.

    >>> re = Correction(7, "1f", "2m", 0.6, 0.3)
    >>> then = Correction(7, "2m", "3m", 0.3, 0.08)
    >>> best = Reading(("3m",) * 8, (then,), 1.3, True, True)
    >>> [(c.before, c.after, round(c.ratio, 2)) for c in
    ...  with_rereads_first(CorrectionResult(best), [re]).best.changes]
    [('1f', '3m', 7.5)]
    """
    own = {c.tile: c for c in result.best.changes}
    first: list[Correction] = []
    for c in rereads:
        later = own.get(c.tile)
        if later is None:
            if result.best.codes[c.tile] == c.after:
                first.append(c)
        elif later.after != c.before:
            first.append(Correction(c.tile, c.before, later.after, c.p_before, later.p_after))
    dropping = {c.tile for c in rereads}
    return replace(result, best=replace(result.best, changes=(
        *first, *[c for c in result.best.changes if c.tile not in dropping])))


# --------------------------------------------------------------------------- shapes
def _is_std(counts: list[int], sets: int) -> bool:
    from scoring.wild import is_complete

    return sum(counts) == 3 * sets + 2 and is_complete(counts, 0)


_KNITTED = ((0, 3, 6), (1, 4, 7), (2, 5, 8))


def _knitted_permutations() -> list[tuple[int, ...]]:
    """The 6 knitted straights (组合龙) as kind indices."""
    out = []
    for a in range(3):
        for b in range(3):
            for c in range(3):
                if len({a, b, c}) == 3:
                    out.append(
                        tuple(sorted([s * 9 + r for s, k in zip((0, 1, 2), (a, b, c), strict=True)
                                      for r in _KNITTED[k]]))
                    )
    return out


_KNITTED_STRAIGHTS = _knitted_permutations()
_ORPHANS = (0, 8, 9, 17, 18, 26, *range(27, 34))


def mcr_winning_shape(hand: Hand) -> bool:
    """True if ``hand`` (14 tiles, kongs as 3) has an MCR winning shape: four sets and a
    pair, seven pairs, thirteen orphans, honours and knitted tiles (全不靠, 七星不靠), or a
    knitted straight (组合龙) with a set and a pair."""
    sets = 4 - len(hand.melds)
    counts = [0] * 34
    for t in hand.standing:
        counts[_KIND_INDEX[t]] += 1
    if sum(counts) != 3 * sets + 2:
        return False
    if _is_std(counts, sets):
        return True
    if not hand.melds:
        if all(c in (0, 2, 4) for c in counts):
            return True
        if all(counts[i] >= 1 for i in _ORPHANS) and sum(counts[i] for i in _ORPHANS) == 14:
            return True
        if max(counts) == 1:
            have = {i for i, c in enumerate(counts) if c}
            suited = {i for i in have if i < 27}
            if any(suited <= set(k) for k in _KNITTED_STRAIGHTS):
                return True
    if sets >= 1:
        for k in _KNITTED_STRAIGHTS:
            if all(counts[i] >= 1 for i in k):
                rest = list(counts)
                for i in k:
                    rest[i] -= 1
                if _is_std(rest, sets - 3):
                    return True
    return False


def claims_chows(rules: str) -> bool:
    """Whether the rules of ``rules`` claim chows (their ``game``'s ``claims``; MCR and
    Xiamen do, Zhenjiang does not): under those that do not, a shown meld of three in a
    row is no set, and the correction mends a meld into a pung or kong only.

    >>> claims_chows("mcr"), claims_chows("zhenjiang")
    (True, False)
    """
    import scoring

    claims = scoring.get_rule_set(rules).game.get("claims")
    return claims is None or "chow" in claims


#: A shown meld not all of one kind, in the words of rules that claim no chows.
_NO_CHOW = "meld {} is not a pung or kong (these rules claim no chows)"


def no_chow_problem(tiles: Sequence[str]) -> str:
    """What is wrong with a shown meld of ``tiles`` not all of one kind under rules that
    claim no chows (Zhenjiang): it is no pung or kong — not "a chow that is not three in
    a row", which is MCR's (:class:`scoring.hand.Meld`) and the scorer's word for it.

    >>> no_chow_problem(["5p", "5p", "2m"])
    'meld 2m5p5p is not a pung or kong (these rules claim no chows)'
    """
    from scoring.tiles import sort_key

    return _NO_CHOW.format("".join(sorted(tiles, key=sort_key)))


def no_chow_wording(message: str, chows: bool) -> str:
    """``message``, a reason a hand could not be made, in the words of rules that claim
    no chows (``chows`` false): a shown meld that is "not three consecutive tiles" is no
    pung or kong (:func:`no_chow_problem`); any other message, or any under rules that
    claim chows, as it is.

    >>> no_chow_wording("chow 2m5p5p is not three consecutive tiles of one suit", False)
    'meld 2m5p5p is not a pung or kong (these rules claim no chows)'
    >>> no_chow_wording("chow 2m5p5p is not three consecutive tiles of one suit", True)
    'chow 2m5p5p is not three consecutive tiles of one suit'
    """
    import re

    found = None if chows else re.fullmatch(
        r"chow (\S+) is not three consecutive tiles of one suit", message)
    if found is None:
        return message
    return _NO_CHOW.format(found.group(1))


def winning_shape_check(
    rules: str, score_kwargs: Mapping[str, Any] | None = None
) -> Callable[[Hand], bool]:
    """A predicate ``hand -> bool``: does the hand have a winning shape under ``rules``?
    MCR uses :func:`mcr_winning_shape`; other rule sets ask :func:`scoring.shape_wins`
    (what :func:`scoring.discards` asks of the hand that drew): the hand scored as a
    self-drawn win with only the fields of ``score_kwargs`` that say what the tiles are
    (:attr:`scoring.rulesets.base.RuleSet.tile_context`: the gold, the 百搭), under the
    rules' default settings; a hand the scorer refuses, or scores as not legal (regional
    rule sets answer an incomplete hand with ``legal=False``), is not a win. The parts of
    the context that decide which tiles win are asked too (``shape_wins(…, whole=True)``,
    :meth:`~scoring.rulesets.base.RuleSet.shape_context`; seventy-sixth session): a
    Zhenjiang 百搭 won on a discard or robbed from a kong is its own face, a Xiamen gold
    cannot be won on a discard, 游金/双游/三游 have a shape of their own — the context's
    ``self_drawn`` etc. as :func:`scoring.score` reads them (left out: a discard win).
    When ``score_kwargs`` names a win that needs no shape
    (:attr:`~scoring.rulesets.base.RuleSet.shape_free_wins`: 三金倒, 三游), a hand of no
    winning shape is asked ``scoring.score`` with them all too. A shape the context
    alone forbids (a Xiamen gold held on a discard win) is still a winning shape: the
    score says why it is not legal, and the search does not re-read the gold as some
    other tile to make a legal discard win (sixty-eighth session). The predicate's
    ``shape_only`` is the question without the win's origin and type (the tiles' fields
    alone, as before): :func:`correct` falls back on it when no reading within
    ``max_win_ratio`` is a win on the context, so that a sure 诈胡 is still scored and its
    score says why. One score per reading and question: each answer is kept by the
    reading's notation."""
    if rules == "mcr":
        return mcr_winning_shape
    import scoring

    kwargs = dict(score_kwargs or {})
    rule_set = scoring.get_rule_set(rules)
    settings = scoring.resolved_settings(rule_set, None, None)
    cache: dict[str, bool] = {}

    def legal(hand: Hand, given: Mapping[str, Any]) -> bool:
        try:
            return bool(scoring.score(hand, rules=rules, **given).legal)
        except scoring.HandError:
            return False

    # a win type that makes a hand a win no shape is (Xiamen 三金倒: three golds win
    # whatever else is held): asked with the whole context, after the shape
    typed = str(kwargs.get("win")) in rule_set.shape_free_wins

    plain: dict[str, bool] = {}

    def shape_only(hand: Hand) -> bool:
        key = scoring.format_hand(hand)
        if key not in plain:
            plain[key] = (scoring.shape_wins(rule_set, hand, kwargs, settings)
                          or (typed and legal(hand, kwargs)))
        return plain[key]

    same = _SameQuestion.of(rule_set, kwargs)

    def check(hand: Hand) -> bool:
        key = scoring.format_hand(hand)
        if key not in cache:
            cache[key] = (shape_only(hand) if same(hand) else (
                scoring.shape_wins(rule_set, hand, kwargs, settings, whole=True)
                or (typed and legal(hand, kwargs))))
        return cache[key]

    key = (rules, repr(sorted(kwargs.items(), key=lambda kv: str(kv[0]))))
    return _ShapeCheck(check, rule_set.stand_ins(kwargs), shape_only, key,
                       _unmelded_faces(rule_set, kwargs))


@dataclass(frozen=True)
class _SameQuestion:
    """Whether the whole context asks of a hand what its tiles' fields alone ask
    (:func:`scoring.shape_wins` with and without ``whole``): the rules narrow the whole
    context (:meth:`~scoring.rulesets.base.RuleSet.shape_context`) to the very context
    ``shape_only`` scores — a self-drawn win with only the tiles' fields — for most
    hands (Xiamen: any but a 游金 or a gold won on a discard; Zhenjiang: a self-drawn
    win). The hand is then scored once for both questions: a search whose readings win
    on neither scores each again by its tiles alone (:func:`_shape_only_win`), which
    doubled the scoring of a Xiamen reading (fuzz seed 179 item 1013: seven searches of
    600 readings, ~1.6 s of CPU; seventy-ninth session).

    ``whole``: the whole context as :func:`scoring.shape_wins` builds it (``version`` and
    ``settings`` left out, the general fields apart from the rule set's own); ``plain``:
    the tiles' fields alone; either None when the scorer refuses it (then no hand is
    asked once for both: :func:`scoring.shape_wins` answers each)."""

    rule_set: RuleSet | None
    whole: Any = None
    plain: Any = None

    @classmethod
    def of(cls, rule_set: RuleSet, context: Mapping[str, Any]) -> _SameQuestion:
        """The two contexts of ``context`` under ``rule_set``, built once
        (:func:`scoring.shape_question`)."""
        import scoring

        try:
            whole = scoring.shape_question(rule_set, context, whole=True)
            plain = scoring.shape_question(rule_set, context)
        except (scoring.HandError, TypeError, ValueError):
            return cls(None)
        return cls(rule_set, whole, plain)

    def __call__(self, hand: Hand) -> bool:
        """Whether ``hand`` is asked the same under the whole context and by its tiles."""
        from scoring.hand import HandError

        if self.rule_set is None:
            return False
        try:
            return bool(self.rule_set.shape_context(hand, self.whole) == self.plain)
        except HandError:
            return False


def _unmelded_faces(rule_set: RuleSet, context: Mapping[str, Any]) -> frozenset[str]:
    """The tile faces no meld shows under ``rule_set`` and the win ``context`` (Xiamen:
    the gold's, ``Xiamen.unmelded_faces``; gold P included, where no stand-in says so);
    none under rules that do not say (MCR, Zhenjiang: a 百搭 melded is its own face)."""
    return frozenset(rule_set.unmelded_faces(context))


@dataclass(frozen=True)
class _ShapeCheck:
    """:func:`winning_shape_check`'s predicate under regional rules, which also says how
    those rules read a shown meld's tiles under the context given (``stand_ins``: (written
    kind, the tile it is) pairs, :func:`scoring.stand_ins`; Xiamen with gold 5m:
    ``(("5m", "P"),)``); :func:`correct` takes them from it when not told."""

    test: Callable[[Hand], bool]
    stand_ins: tuple[tuple[str, str], ...] = ()
    #: the winning shape with only the fields that say what the tiles are (not the win's
    #: origin or type): what :func:`correct` falls back on (None: no fallback)
    shape_only: Callable[[Hand], bool] | None = None
    #: the question it answers, ``(rules, the context given)``: two predicates with one
    #: key answer alike (:class:`vision.rewrite.RecentCorrections` keeps corrections by it)
    key: tuple[str, str] | None = field(default=None, compare=False)
    #: the tile faces no meld shows (Xiamen: the gold's, 白板 when it is the gold):
    #: :func:`correct` names a meld showing one (:func:`gold_in_meld_problem`)
    unmelded: frozenset[str] = frozenset()

    def __call__(self, hand: Hand) -> bool:
        return self.test(hand)


# --------------------------------------------------------------------------- search
@dataclass(frozen=True)
class _Slot:
    det: int
    codes: tuple[str, ...]  # best first
    probs: tuple[float, ...]
    deltas: tuple[float, ...]  # cost over the slot's top-1, ascending


def meld_fillers(mates: Sequence[str], chows: bool = True) -> tuple[str, ...]:
    """The kinds that make a set of a shown meld with ``mates``, the other tiles of the
    meld as read: their kind when they are all one kind (a pung or kong), else for two
    tiles of one suit one or two apart, the tiles that make a chow (``chows``: where the
    rules claim chows at all; Zhenjiang does not).

    >>> meld_fillers(["S", "S"]), meld_fillers(["4m", "5m"]), meld_fillers(["1p", "3p"])
    (('S',), ('3m', '6m'), ('2p',))
    >>> meld_fillers(["9s", "8s"]), meld_fillers(["E", "S"]), meld_fillers(["2m", "2p"])
    (('7s',), (), ())
    >>> meld_fillers(["4m", "5m"], chows=False)
    ()
    """
    if not mates or any(t not in _KIND_INDEX for t in mates):
        return ()
    if len(set(mates)) == 1:
        return (mates[0],)
    if len(mates) != 2 or not chows:
        return ()
    a, b = sorted(_KIND_INDEX[t] for t in mates)
    if b >= 27 or a // 9 != b // 9:
        return ()
    suit, lo, hi = a // 9, a % 9, b % 9
    ranks = {1: (lo - 1, hi + 1), 2: (lo + 1,)}.get(hi - lo, ())
    return tuple(KINDS[suit * 9 + r] for r in ranks if 0 <= r <= 8)


@dataclass(frozen=True)
class _Table:
    """What the physical checks need of one layout, worked out once per correction: the
    hand's tiles (``in_hand``, :attr:`Layout.hand_detections`), those of its shown melds
    (``meld_dets``), each meld's detections and whether it is a concealed kong, the kinds
    given for kongs shown all face down (``hidden``, taken in layout order as
    :meth:`Layout.hand` takes them), the flowers, whether the rules claim chows, and how
    they read a shown meld's tiles (``read_as``: written kind → the tile it is,
    :attr:`scoring.hand.Hand.melded_as`; Xiamen with gold 5m: ``{"5m": "P"}``, and
    ``as_written`` the other way). A written kind's own face is never a meld's tile
    (``gold_faces``: Xiamen, the gold, never melded; the 白板 shows in its place), nor are
    the faces the rules name so besides (``unmelded``: Xiamen with gold P, the 白板 itself,
    which nothing stands in for)."""

    in_hand: tuple[int, ...]
    meld_dets: frozenset[int]
    melds: tuple[tuple[tuple[int, ...], bool], ...]
    hidden: tuple[str, ...] = ()
    flowers: tuple[int, ...] = ()
    chows: bool = True
    read_as: Mapping[str, str] = field(default_factory=dict)
    as_written: Mapping[str, str] = field(default_factory=dict)
    gold_faces: frozenset[str] = frozenset()

    @classmethod
    def of(cls, layout: Layout, chows: bool = True, hidden_kinds: Sequence[str] = (),
           stand_ins: Sequence[tuple[str, str]] = (),
           unmelded: frozenset[str] = frozenset()) -> _Table:
        read_as = dict(stand_ins)
        return cls(
            tuple(layout.hand_detections),
            frozenset(i for m in layout.melds for i in m.detections),
            tuple((m.detections, m.concealed) for m in layout.melds),
            tuple(hidden_kinds), tuple(layout.flowers), chows, read_as,
            {tile: written for written, tile in read_as.items()},
            frozenset(read_as) | unmelded,
        )

    def melded_golds(self, codes: Sequence[str]) -> list[int]:
        """The meld tiles (concealed kongs' faces too) that ``codes``, as read (not
        :meth:`written`: a chow's 白板 is written as the gold's kind), show as the gold's
        own face (:attr:`gold_faces`; gold P: any 白板): golds, which are never melded
        (Xiamen; none under rules that meld every face). A reading with any is impossible.

        >>> t = _Table((0, 1, 2), frozenset((0, 1, 2)), (((0, 1, 2), False),),
        ...            read_as={"5m": "P"}, as_written={"P": "5m"}, gold_faces=frozenset({"5m"}))
        >>> t.melded_golds(["5m", "5m", "5m"]), t.melded_golds(["4m", "P", "6m"])
        ([0, 1, 2], [])
        >>> replace(t, read_as={}, as_written={}, gold_faces=frozenset({"P"})).melded_golds(
        ...     ["P", "P", "P"])  # gold P: 白板 is the gold, nothing stands in for it
        [0, 1, 2]
        """
        if not self.gold_faces:
            return []
        return [i for dets, _ in self.melds for i in dets if codes[i] in self.gold_faces]

    def written(self, codes: Sequence[str]) -> Sequence[str]:
        """``codes`` with the stand-in of each shown chow that is one only with it read as
        the kind it stands in for (Xiamen, gold 5m: a claimed 4m 白板 6m is the chow 456m,
        written ``[456m]``, its 白板 counted as one through ``read_as``) written as that
        kind; ``codes`` itself when there is none. A pung or kong of 白板 stays as read.

        >>> t = _Table((0, 1, 2), frozenset((0, 1, 2)), (((0, 1, 2), False),),
        ...            read_as={"5m": "P"}, as_written={"P": "5m"})
        >>> t.written(["4m", "P", "6m"]), t.written(["P", "P", "P"])
        (['4m', '5m', '6m'], ['P', 'P', 'P'])
        """
        if not self.as_written or not self.chows:
            return codes
        out: list[str] | None = None
        for dets, concealed in self.melds:
            if concealed or len(dets) != 3:
                continue
            tiles = [codes[i] for i in dets]
            if not any(t in self.as_written for t in tiles) or _meld_ok(tiles, False):
                continue
            as_written = [self.as_written.get(t, t) for t in tiles]
            if len(set(as_written)) == 3 and _meld_ok(as_written, False):
                out = list(codes) if out is None else out
                for i, t in zip(dets, as_written, strict=True):
                    out[i] = t
        return codes if out is None else out

    def held(self, codes: Sequence[str]) -> dict[str, int]:
        """How many of each kind the hand holds under ``codes`` as read (not
        :meth:`written`: a tile's face is the tile it is): its tiles (backs left out), a
        kong with face-down ends counted as four of the kind its faces show, and a kong
        shown all face down as four of the kind given for it (``hidden``, written as the
        notation writes it: read through ``read_as``). A 白板 standing in for the gold in
        a shown chow shows a 白板 face and counts as one; a tile showing the gold's own
        face in a shown meld is a gold (Xiamen golds are never melded: seven 5m faces
        beside gold 5m are three too many, seventy-sixth session; before, every meld
        tile of the gold's kind counted as a 白板)."""
        counts: dict[str, int] = {}
        for i in self.in_hand:
            c = codes[i]
            if c != BACK:
                counts[c] = counts.get(c, 0) + 1
        hidden = iter(self.hidden)
        for dets, concealed in self.melds:
            if not concealed:
                continue
            faces = [codes[i] for i in dets if codes[i] != BACK]
            kind = faces[0] if faces else next(hidden, None)
            if kind is not None:
                kind = kind if faces else self.read_as.get(kind, kind)
                counts[kind] = counts.get(kind, 0) + 4 - len(faces)
        return counts


def _meld_fills(dets: Detections, layout: Layout, chows: bool = True,
                written: Sequence[str] | None = None,
                read_as: Mapping[str, str] | None = None,
                golds: frozenset[str] | None = None) -> dict[int, tuple[str, ...]]:
    """Per tile of a shown meld that is not a set as read (top-1 codes, ``written`` with
    its stand-ins when the rules have them, :meth:`_Table.written`): the kinds that
    would make it one with its mates (:func:`meld_fillers`), to be tried at
    :data:`MELD_FILL_P` when the tile's own readings do not hold them; none for a tile
    whose top-1 probability is :data:`MELD_FILL_BELOW` or more (strong evidence is not
    overridden to make a meld the layout may have grouped wrong). A chow's filler of a
    kind the rules read otherwise in a meld (``read_as``: Xiamen, gold 5m, ``{"5m":
    "P"}``) is the tile that shows there: the 白板 standing in, not a melded gold; a meld
    holding a tile read as the gold's face (``golds``, :attr:`_Table.gold_faces`; by
    default the kinds of ``read_as``) is mended so too, a set or not, and the gold itself
    is never a filler (golds are never melded: 5m 5m ? gives none; gold P, P P ? none)."""
    if MELD_FILL_P <= 0:
        return {}
    top = dets.codes if written is None else written
    golds = frozenset(read_as or ()) if golds is None else golds
    out: dict[int, tuple[str, ...]] = {}
    for m in layout.melds:
        codes = [top[i] for i in m.detections]
        if m.concealed or BACK in codes:
            continue
        if _meld_ok(codes, False, chows) and not any(
                dets.codes[i] in golds for i in m.detections):
            continue
        for k, i in enumerate(m.detections):
            if float(dets.topk_probs[i, 0]) >= MELD_FILL_BELOW:
                continue
            mates = codes[:k] + codes[k + 1:]
            fills = meld_fillers(mates, chows)
            if read_as and len(set(mates)) > 1:
                fills = tuple(read_as.get(f, f) for f in fills)
            fills = tuple(f for f in fills if f not in golds)
            if fills:
                out[i] = fills
    return out


def _slots(dets: Detections, layout: Layout, chows: bool = True,
           written: Sequence[str] | None = None,
           read_as: Mapping[str, str] | None = None,
           golds: frozenset[str] | None = None) -> list[_Slot]:
    """Per detection of the hand, its allowed readings: kinds for hand tiles, bonus
    tiles for flowers, and for a tile of a shown meld that is not a set as read (or
    holds a gold's face, ``golds``), the kinds that would make it one
    (:func:`_meld_fills`, judged on ``written``); face-down tiles are fixed."""
    hand_dets = layout.hand_detections
    top = dets.codes
    flowers = set(layout.flowers)
    fills = _meld_fills(dets, layout, chows, written, read_as, golds)
    out = []
    for i in sorted(hand_dets) + sorted(layout.flowers):
        if top[i] == BACK:
            continue
        # a tile the layout takes for a flower keeps its own top-1 (a physical problem
        # then, see _physical_problems) and may become any bonus code it was given
        allowed = _BONUS if top[i] in _BONUS or i in flowers else _KIND_INDEX
        seen: dict[str, float] = {}
        own: float | None = None
        for cid, p in zip(dets.topk_ids[i].tolist(), dets.topk_probs[i].tolist(), strict=True):
            code = CLASSES[int(cid)]
            if code == top[i] and own is None:
                own = float(p)
            if code in allowed and code not in seen and (p > 0 or not seen):
                seen[code] = float(p)
        if top[i] not in seen:  # a kind among the flowers: its own probability, not the
            # detection's confidence (which carries the box's score too)
            seen = {top[i]: own if own is not None else float(dets.confidences[i]), **seen}
        for code in fills.get(i, ()):
            seen.setdefault(code, MELD_FILL_P)
        items = sorted(seen.items(), key=lambda kv: -kv[1])
        if items[0][0] != top[i]:  # keep the detector's own top-1 first
            items = [(top[i], seen[top[i]])] + [kv for kv in items if kv[0] != top[i]]
        if items[0][1] >= SURE_P:  # strong evidence: only near readings may replace it
            items = items[:1] + [kv for kv in items[1:]
                                 if kv[1] * SURE_MAX_RATIO >= items[0][1]]
        base = -math.log(max(items[0][1], _MIN_P))
        deltas = [max(0.0, -math.log(max(p, _MIN_P)) - base) for _, p in items]
        order = sorted(range(len(items)), key=lambda k: (deltas[k], k))
        out.append(
            _Slot(
                i,
                tuple(items[k][0] for k in order),
                tuple(items[k][1] for k in order),
                tuple(deltas[k] for k in order),
            )
        )
    return out


def _meld_ok(tiles: Sequence[str], concealed: bool, chows: bool = True) -> bool:
    """Codes of one laid-out meld make a set (fast check, no objects); a chow only where
    the rules claim chows (``chows``)."""
    if concealed:
        return len({t for t in tiles if t != BACK}) <= 1
    if BACK in tiles:
        return False
    if len(set(tiles)) == 1:
        return True
    if not chows or len(tiles) != 3 or any(t not in _KIND_INDEX for t in tiles):
        return False
    idx = sorted(_KIND_INDEX[t] for t in tiles)
    return idx[0] < 27 and idx[0] % 9 <= 6 and idx == [idx[0], idx[0] + 1, idx[0] + 2]


def _physical_problems(codes: Sequence[str], layout: Layout, chows: bool = True,
                       table: _Table | None = None) -> list[str]:
    """What makes a reading physically impossible (empty when it is possible; the search
    asks only whether, :class:`_Possible`). ``table``: the layout's :class:`_Table`
    (kinds of kongs shown all face down, the rules' stand-ins), by default one with
    neither. A meld that is a set but holds a tile read as the gold's own face
    (:meth:`_Table.melded_golds`) is named so (:func:`gold_in_meld_problem`) unless the
    gold's copies are already over 4: "7 copies of 5m" names those faces as golds."""
    from scoring.hand import HandError

    table = table or _Table.of(layout, chows)
    counts = table.held(codes)
    golds = set(table.melded_golds(codes))
    read = codes
    codes = table.written(codes)
    problems: list[str] = []
    problems += [f"{n} copies of {t} (there are 4)" for t, n in counts.items() if n > 4]
    fl = Counter(codes[i] for i in layout.flowers)
    problems += [f"{n} copies of flower {t} (there is 1)" for t, n in fl.items() if n > 1]
    problems += [f"{codes[i]} laid among the flowers" for i in layout.flowers
                 if codes[i] not in _BONUS]
    for m in layout.melds:
        tiles = [codes[i] for i in m.detections]
        if _meld_ok(tiles, m.concealed, chows):
            # (named once: beside a copy count already over, that count names them)
            shown = [read[i] for i in m.detections if i in golds]
            if shown and counts.get(shown[0], 0) <= 4:
                problems.append(gold_in_meld_problem(
                    [read[i] for i in m.detections], shown, m.concealed))
            continue
        if not chows and not m.concealed and BACK not in tiles and len(set(tiles)) > 1:
            problems.append(no_chow_problem(tiles))
            continue
        try:
            m.meld(codes, hidden_kind="E")
            problems.append(f"meld {''.join(tiles)} is not a set")
        except HandError as exc:
            problems.append(str(exc))
    return problems


def gold_in_meld_problem(tiles: Sequence[str], golds: Sequence[str],
                         concealed: bool = False) -> str:
    """The problem of a meld (``tiles`` as read; ``concealed``: a concealed kong, its
    face-down tiles left out) that is a set but holds ``golds``, tiles read as the gold's
    own face (Xiamen: golds are never melded; a 白板 stands in for the gold's face, and
    when 白板 is itself the gold nothing does: the scorer's words for a posted hand,
    "白板 is the gold here, and golds are never melded").

    >>> gold_in_meld_problem(["4m", "5m", "6m"], ["5m"])
    'meld 4m5m6m holds a tile read as the gold 5m (golds are never melded; a 白板 stands in for it)'
    >>> gold_in_meld_problem([BACK, "5m", "5m", BACK], ["5m", "5m"], concealed=True)[:50]
    'concealed kong 5m5m holds 2 tiles read as the gold'
    >>> gold_in_meld_problem(["P", "P", "P"], ["P", "P", "P"])
    'meld PPP holds 3 tiles read as the gold P (白板 is the gold here, and golds are never melded)'
    """
    n = len(golds)
    what = "a tile" if n == 1 else f"{n} tiles"
    name = "concealed kong" if concealed else "meld"
    faces = "".join(t for t in tiles if t != BACK)
    why = ("白板 is the gold here, and golds are never melded" if golds[0] == _WHITE
           else "golds are never melded; a 白板 stands in for it")
    return f"{name} {faces} holds {what} read as the gold {golds[0]} ({why})"


class _Possible:
    """Whether a reading is physically possible — :func:`_physical_problems` finds no
    problem — with the layout's index lists worked out once for a whole search (the
    search asks this of hundreds of readings)."""

    def __init__(self, layout: Layout, chows: bool = True, table: _Table | None = None
                 ) -> None:
        self.chows = chows
        self.table = table or _Table.of(layout, chows)
        self.flowers = layout.flowers
        self.melds = [(m.detections, m.concealed) for m in layout.melds]

    def __call__(self, codes: Sequence[str]) -> bool:
        """``codes``: as read (not written, :meth:`_Table.held`)."""
        if any(n > 4 for n in self.table.held(codes).values()):
            return False
        if self.table.melded_golds(codes):
            return False
        codes = self.table.written(codes)
        seen: set[str] = set()
        for i in self.flowers:
            c = codes[i]
            if c not in _BONUS or c in seen:
                return False
            seen.add(c)
        return all(_meld_ok([codes[i] for i in dets], concealed, self.chows)
                   for dets, concealed in self.melds)


def _involved(codes: Sequence[str], table: _Table) -> set[int]:
    """Detections that take part in a physical impossibility of ``codes`` (as read, not
    written): every hand tile of a kind held more than 4 times, every copy of a flower
    shown twice or kind among the flowers, every tile of a meld that is not a set (as
    written, :meth:`_Table.written`), every tile of a meld holding one read as the gold's
    own face (:meth:`_Table.melded_golds`). A possible reading changes at least one of
    them."""
    out: set[int] = set()
    over = {t for t, n in table.held(codes).items() if n > 4}
    out.update(i for i in table.in_hand if codes[i] in over)
    fl = Counter(codes[i] for i in table.flowers)
    out.update(i for i in table.flowers if fl[codes[i]] > 1 or codes[i] not in _BONUS)
    written = table.written(codes)
    golds = set(table.melded_golds(codes))
    for dets, concealed in table.melds:
        if (not _meld_ok([written[i] for i in dets], concealed, table.chows)
                or golds.intersection(dets)):
            out.update(dets)
    return out


#: how many times :func:`_reach` grows the involved tiles by those their changes need
REACH_ROUNDS = 3


def _reach(involved: set[int], codes: Sequence[str], table: _Table,
           slots: Sequence[_Slot]) -> set[int]:
    """``involved`` and, transitively (at most :data:`REACH_ROUNDS` times), the tiles its
    changes may need changed too (``codes`` as read, not written), as
    :func:`vision.set_counts._conflict_rows` grows its rows: the tiles of a kind (or
    flower) that one of their other readings would fill past its copies, and the mates
    of a tile in a shown meld. A fifth 5p read 6p beside
    four 6p is possible only when one of those 6p changes too (a 0.99 5p read otherwise
    198 times less probable was taken over such a reading 2.7 times less probable)."""
    counts = table.held(codes)
    by_code: dict[str, list[int]] = {}
    for i in (*table.in_hand, *table.flowers):
        by_code.setdefault(codes[i], []).append(i)
    flowers = Counter(codes[i] for i in table.flowers)
    meld_of = {i: dets for dets, _ in table.melds for i in dets}
    others = {s.det: s.codes[1:] for s in slots}
    out = set(involved)
    frontier = set(involved)
    for _ in range(REACH_ROUNDS):
        grown: set[int] = set()
        for i in frontier:
            for code in others.get(i, ()):
                full = flowers[code] >= 1 if code in _BONUS else counts.get(code, 0) >= 4
                if full:
                    grown.update(by_code.get(code, ()))
            grown.update(meld_of.get(i, ()))
        frontier = grown - out
        if not frontier:
            break
        out |= frontier
    return out


def _fillers(codes: Sequence[str], layout: Layout) -> tuple[str, ...]:
    """Stand-in kinds for concealed kongs shown all face down (their kind does not change
    the hand's shape): kinds the reading does not use, one per meld."""
    used = set(codes)
    free = [k for k in KINDS if k not in used]
    return tuple(free[: len(layout.melds)])


def correct(
    dets: Detections,
    layout: Layout,
    *,
    rules: str = "mcr",
    claim_win: bool | None = None,
    hand_size: int = 14,
    is_winning: Callable[[Hand], bool] | None = None,
    hidden_kinds: Sequence[str] = (),
    stand_ins: Sequence[tuple[str, str]] | None = None,
    params: CorrectParams | None = None,
) -> CorrectionResult:
    """Find the most probable legal reading of the hand laid out in ``layout``.

    ``claim_win``: the hand is shown as a win (default: its tile count equals
    ``hand_size``). ``is_winning``: winning-shape predicate (default for ``rules`` from
    :func:`winning_shape_check`). ``hidden_kinds``: kinds of all-face-down kongs (each
    counts four copies of its kind). ``stand_ins``: how the rules read a shown meld's
    tiles (:func:`scoring.stand_ins`; default: what ``is_winning`` says when it comes
    from :func:`winning_shape_check`, else none): under Xiamen a shown chow with a 白板
    standing in for the gold's face is a set, its 白板 written as the gold's kind in the
    reading's codes (as the notation writes it) and counted as a 白板, no correction;
    the hands built for the win test read a meld's tiles so too (the layout's
    ``melded_as`` set to them when it has none: :func:`vision.recognize.recognize_detections`
    sets it, a caller of this function need not). A meld showing a face the rules never
    meld (``is_winning.unmelded``, :func:`winning_shape_check`: Xiamen's gold, 白板 when it
    is the gold) is no possible reading (:func:`gold_in_meld_problem`).

    With a win claimed and no reading within ``max_win_ratio`` a win on the context, a
    reading of winning shape by the tiles' fields alone (``is_winning.shape_only``,
    :func:`winning_shape_check`: a Zhenjiang 百搭 won on a discard read as wild, a Xiamen
    gold won on a discard) within that ratio is taken as the win instead, so the score
    says why it is not legal (a 诈胡), as before the seventy-sixth session.

    The readings are searched best first (:func:`_find`), the chosen one picked from
    what the search found (:func:`_choose`) and the close others kept as alternatives
    (:func:`_alternatives`).
    """
    params = params or CorrectParams()
    if claim_win is None:
        claim_win = layout.tile_count == hand_size
    chows = claims_chows(rules)
    check = is_winning or winning_shape_check(rules)
    if stand_ins is None:
        stand_ins = getattr(check, "stand_ins", ())
    if stand_ins and not layout.melded_as:
        layout = replace(layout, melded_as=tuple(stand_ins))
    table = _Table.of(layout, chows, hidden_kinds, stand_ins,
                      getattr(check, "unmelded", frozenset()))
    base_codes = list(dets.codes)
    written = table.written(base_codes)
    slots = _slots(dets, layout, chows, written, table.read_as, table.gold_faces)
    top_problems = _physical_problems(base_codes, layout, chows, table)
    involved: set[int] = set()
    reach: set[int] = set()
    if top_problems:
        involved = _involved(base_codes, table)
        reach = _reach(involved, base_codes, table, slots)
        if not claim_win:
            # only tiles involved in an impossibility, or in mending it, can fix it
            slots = [sl for sl in slots if sl.det in reach]
    readings = _Readings(slots, base_codes, layout, hidden_kinds, check, chows, table)
    start = tuple(0 for _ in slots)
    problems = top_problems
    shape_only = getattr(check, "shape_only", None)
    if claim_win and not problems and not readings.winning(readings.build(start)):
        problems = ["not a winning hand"]
        if shape_only is not None and readings.winning(readings.build(start), shape_only):
            problems = ["a winning shape, but no win on this win context"]
    prefer_ready = (not claim_win and params.max_ready_ratio > 0
                    and layout.tile_count == hand_size - 1)
    found = _find(readings, params, claim_win, prefer_ready, involved, reach)
    if found.best_phys is None:
        n = found.popped
        found.notes.append(
            f"no possible reading found among the {n} reading{'s' * (n != 1)} looked at "
            "before the search stopped; the top-1 reading is kept" if found.stop else
            f"no possible reading within the search bounds ({n} reading{'s' * (n != 1)} "
            "looked at); the top-1 reading is kept"
        )
        top = readings.reading(start, 0.0, False, False)
        return CorrectionResult(top, (), tuple(problems), claim_win, found.popped,
                                tuple(found.notes))
    said = len(found.notes)
    chosen = _choose(found, claim_win, params)
    if claim_win and not chosen.winning and shape_only is not None:
        fallback = _shape_only_win(found, readings, shape_only, params)
        if fallback is not None:
            chosen = fallback
            del found.notes[said:]
            found.notes.append(
                f"no reading within {params.max_win_ratio:g} times the most probable one is a "
                "win on this win context; the reading of winning shape by its tiles alone is "
                "scored, and the score says why it is not legal")
    alts = _alternatives(found.readings, chosen, params)
    return CorrectionResult(chosen, alts, tuple(problems), claim_win, found.popped,
                            tuple(found.notes))


def _shape_only_win(found: _Found, readings: _Readings, shape_only: Callable[[Hand], bool],
                    params: CorrectParams) -> Reading | None:
    """The most probable reading ``found`` within ``max_win_ratio`` of the most probable
    possible one that ``shape_only`` takes for a win, marked winning (in ``found``'s
    readings too), or None."""
    if found.best_phys is None:
        return None
    bound = found.best_phys.cost + math.log(params.max_win_ratio)
    for k in sorted(range(len(found.readings)), key=lambda k: found.readings[k].cost):
        r = found.readings[k]
        if r.cost > bound:
            break
        if readings.winning(r.codes, shape_only):
            found.readings[k] = replace(r, winning=True)
            return found.readings[k]
    return None


@dataclass(frozen=True)
class _Readings:
    """How one search makes and judges readings: ``slots``, the detections it may read
    otherwise (each with its codes best first), over ``base_codes``, the top-1 code of
    every detection; a reading is the index into each slot's codes (0: its top-1)."""

    slots: Sequence[_Slot]
    base_codes: Sequence[str]
    layout: Layout
    hidden_kinds: Sequence[str]
    #: the rules' winning-shape predicate
    check: Callable[[Hand], bool]
    #: the rules claim chows (a shown meld may be one)
    chows: bool = True
    #: the layout's :class:`_Table` (kongs shown all face down, the rules' stand-ins)
    table: _Table | None = None
    #: the hand each reading's codes made (:meth:`hand_of`), kept for the search's
    #: second look at its readings (:func:`_shape_only_win`, which under Xiamen asks
    #: hundreds of them again when none wins)
    hands: dict[tuple[str, ...], Hand | None] = field(
        default_factory=dict, compare=False, repr=False)

    def build(self, idx: tuple[int, ...]) -> tuple[str, ...]:
        """Every detection's code under the reading ``idx`` (a stand-in written as the
        kind it stands in for, :meth:`_Table.written`)."""
        return self.written(self.build_read(idx))

    def build_read(self, idx: tuple[int, ...]) -> tuple[str, ...]:
        """Every detection's code under the reading ``idx`` as read (not written: what
        :meth:`_Table.held` counts)."""
        codes = list(self.base_codes)
        for s, k in zip(self.slots, idx, strict=True):
            codes[s.det] = s.codes[k]
        return tuple(codes)

    def written(self, codes: Sequence[str]) -> tuple[str, ...]:
        """``codes`` as read, written (:meth:`_Table.written`)."""
        return tuple(self.table.written(codes) if self.table is not None else codes)

    def read_of(self, reading: Reading) -> tuple[str, ...]:
        """``reading``'s codes as read: the top-1 codes with its changes."""
        codes = list(self.base_codes)
        for c in reading.changes:
            codes[c.tile] = c.after
        return tuple(codes)

    def hand_of(self, codes: Sequence[str]) -> Hand | None:
        """The hand the layout lays out with ``codes``, or None when it makes none (each
        worked out once, :attr:`hands`)."""
        from scoring.hand import HandError

        key = tuple(codes)
        if key in self.hands:
            return self.hands[key]
        try:
            hand: Hand | None = self.layout.hand(
                codes, hidden_kinds=self.hidden_kinds or _fillers(codes, self.layout))
        except HandError:
            hand = None
        self.hands[key] = hand
        return hand

    def winning(self, codes: Sequence[str],
                check: Callable[[Hand], bool] | None = None) -> bool:
        """Whether ``codes`` make a hand of winning shape (``check``: another predicate
        than the search's own)."""
        hand = self.hand_of(codes)
        return hand is not None and (check or self.check)(hand)

    def ready(self, codes: Sequence[str]) -> bool:
        """Whether ``codes`` make a hand that one more tile of some kind would win (听)."""
        from scoring.hand import Hand, HandError

        hand = self.hand_of(codes)
        if hand is None:
            return False
        shown = Counter(t for m in hand.melds for t in m.tiles)
        shown.update(hand.standing)
        for kind in KINDS:
            if shown[kind] >= 4:
                continue
            try:
                whole = Hand(hand.melds, (*hand.standing, kind), hand.flowers,
                             melded_as=hand.melded_as)
            except HandError:
                continue
            if self.check(whole):
                return True
        return False

    def reading(self, idx: tuple[int, ...], cost: float, legal: bool, win: bool,
                codes: tuple[str, ...] | None = None) -> Reading:
        """The :class:`Reading` ``idx`` (its ``codes`` when already built), its changes
        from the top-1 codes listed."""
        changes = tuple(
            Correction(s.det, s.codes[0], s.codes[k], s.probs[0], s.probs[k])
            for s, k in zip(self.slots, idx, strict=True)
            if k
        )
        return Reading(self.build(idx) if codes is None else codes, changes, cost, legal, win)


@dataclass
class _Found:
    """What a search found: every possible reading it looked at (best first), the most
    probable possible one, the most probable win and ready hand among them (when looked
    for), how many readings it popped, why it stopped early (``stop``: "readings" or
    "ms", None when it looked at every reading within its bounds), and whether every
    reading of at most :data:`FEW_CHANGES` changed tiles within the bounds was looked at
    for a win after the search stopped (``few_done``, None when not asked)."""

    readings: list[Reading] = field(default_factory=list)
    best_phys: Reading | None = None
    best_win: Reading | None = None
    best_ready: Reading | None = None
    popped: int = 0
    notes: list[str] = field(default_factory=list)
    stop: str | None = None
    few_done: bool | None = None


#: when a search with a win claimed comes to its bound on readings (less a quarter of
#: ``max_readings``, kept for this) with no win within ``max_win_ratio`` found, the rest
#: go to the readings with at most this many tiles changed, best first: the common
#: misreads (one tile, or two read each as the other), which many unsure tiles elsewhere
#: would otherwise push past the bound
FEW_CHANGES = 2


def _find(readings: _Readings, params: CorrectParams, claim_win: bool, prefer_ready: bool,
          involved: set[int], reach: set[int]) -> _Found:
    """Search the readings (:func:`_search`), at most ``params.max_readings`` of them in
    all:

    1. when the top-1 reading is impossible (``involved``: the tiles taking part, a
       possible reading changes one of them) and a win is claimed: the most probable
       possible reading changing only the tiles involved or needed to mend them
       (``reach``), as a hand with no win claimed is mended — so that unsure tiles
       elsewhere cannot spend the bound before the hand is made possible;
    2. every reading best first, from that one's bound on (a reading that changes none of
       the tiles ``involved`` is skipped: it keeps the impossibility);
    3. when a win is claimed and step 2 came to its bound less a quarter of
       ``max_readings`` with no win within ``max_win_ratio`` found (it stops there, else
       it goes on to its bound): the readings with at most :data:`FEW_CHANGES` tiles
       changed, best first, with that quarter.

    With no bound reached, the answer is that of step 2 alone: every reading within the
    bounds is looked at, in any case."""
    must = frozenset(q for q, s in enumerate(readings.slots) if s.det in involved)
    deadline = (None if params.max_ms is None
                else time.perf_counter() + params.max_ms / 1000)
    budget = params.max_readings
    used = 0
    known = None
    if involved and claim_win:
        sub = replace(readings, slots=[s for s in readings.slots if s.det in reach])
        sub_must = frozenset(q for q, s in enumerate(sub.slots) if s.det in involved)
        first = _search(sub, params, False, False, budget=budget, must=sub_must,
                        deadline=deadline, first_only=True)
        used = first.popped
        if first.best_phys is not None:
            known = replace(first.best_phys,
                            winning=readings.winning(first.best_phys.codes))
    found = _search(readings, params, claim_win, prefer_ready, budget=budget - used,
                    keep=params.max_readings // 4 if claim_win else 0, must=must,
                    known=known, deadline=deadline)
    found.popped += used
    if found.stop is not None and found.stop != "ms" and claim_win and not _win_taken(
            found, params):
        few = _search(readings, params, claim_win, False, budget=budget - found.popped,
                      must=must, known=found.best_phys, deadline=deadline,
                      max_changes=FEW_CHANGES)
        found.popped += few.popped
        found.few_done = few.stop is None
        have = {r.codes for r in found.readings}
        found.readings += [r for r in few.readings if r.codes not in have]
        for name in ("best_phys", "best_win"):
            mine, theirs = getattr(found, name), getattr(few, name)
            if theirs is not None and (mine is None or theirs.cost < mine.cost):
                setattr(found, name, theirs)
        if few.stop == "ms":
            found.stop = "ms"
    if found.stop == "ms":
        found.notes.append(f"search stopped after {params.max_ms:g} ms")
    elif found.stop:
        found.notes.append(f"search stopped after {found.popped} readings")
    found.readings.sort(key=lambda r: r.cost)
    return found


def _win_taken(found: _Found, params: CorrectParams) -> bool:
    """Whether ``found`` holds a win that :func:`_choose` takes (within
    ``max_win_ratio`` of the most probable possible reading)."""
    return (found.best_win is not None and found.best_phys is not None
            and found.best_win.cost - found.best_phys.cost <= math.log(params.max_win_ratio))


def _search(readings: _Readings, params: CorrectParams, claim_win: bool,
            prefer_ready: bool, *, budget: int | None = None, keep: int = 0,
            must: frozenset[int] = frozenset(), known: Reading | None = None,
            deadline: float | None = None, max_changes: int | None = None,
            first_only: bool = False) -> _Found:
    """Best-first search over the readings, least cost first: each reading is a slot
    index per slot, its successors raise the last changed slot or start changing a later
    one. It stops past ``params.max_ratio``, past the bound within which a better choice
    may still come (:func:`_search_limit`), or after ``budget`` readings (default
    ``params.max_readings``; ``keep`` fewer while no win it would take is found) / at
    ``deadline`` (a ``time.perf_counter()`` value).

    ``must``: slots of which a possible reading changes one (the tiles involved in the
    top-1 reading's impossibility); they are changed first, and a reading that changes
    none of them is not looked at, nor are its successors. ``known``: a possible reading
    found before (its cost bounds the search from the start). ``max_changes``: readings
    changing more slots are not looked at. ``first_only``: stop at the first possible
    reading."""
    slots = readings.slots
    n = len(slots)
    order = sorted(range(n), key=lambda q: (q not in must, q))
    n_must = len(must)
    ready_margin = math.log(params.max_ready_ratio) if prefer_ready else 0.0
    max_cost = math.log(params.max_ratio)
    close = math.log(params.close_ratio)
    win_margin = math.log(params.max_win_ratio) if claim_win else None
    # how far past the most probable possible reading a better choice may still lie
    margin = max(close, win_margin or 0.0, ready_margin)
    possible = _Possible(readings.layout, readings.chows, readings.table)
    heap: list[tuple[float, tuple[int, ...], int]] = [(0.0, tuple(0 for _ in slots), -1)]
    found = _Found()
    seen: set[tuple[str, ...]] = set()
    if known is not None:
        found.readings.append(known)
        found.best_phys = known
        found.best_win = known if known.winning else None
        seen.add(readings.read_of(known))
    cap = params.max_readings if budget is None else budget
    ready_checks = 0
    while heap:
        if found.popped >= cap - (keep if keep and not _win_taken(found, params) else 0):
            found.stop = "readings"
            break
        if (deadline is not None and found.popped % 64 == 63
                and time.perf_counter() > deadline):
            found.stop = "ms"
            break
        cost, idx, last = heapq.heappop(heap)
        found.popped += 1
        if cost > max_cost or cost > _search_limit(found, close, margin, win_margin,
                                                   prefer_ready):
            break
        free = bool(must) and not any(idx[q] for q in must)  # nothing involved changed
        if not free:
            read = readings.build_read(idx)
            codes = readings.written(read)
            if read not in seen and possible(read):
                seen.add(read)
                win = claim_win and readings.winning(codes)
                r = readings.reading(idx, cost, True, win, codes)
                found.readings.append(r)
                if found.best_phys is None or cost < found.best_phys.cost:
                    found.best_phys = r
                if win and (found.best_win is None or cost < found.best_win.cost):
                    found.best_win = r
                if (prefer_ready and found.best_ready is None
                        and ready_checks < params.max_ready_checks
                        and cost - found.best_phys.cost <= ready_margin):
                    ready_checks += 1
                    if readings.ready(codes):
                        found.best_ready = r
                if first_only:
                    break
        # successors: raise the last changed slot, or start changing a later one (in
        # ``order``: the slots ``must`` first)
        if last >= 0:
            q = order[last]
            if idx[q] + 1 < len(slots[q].codes):
                nxt = list(idx)
                nxt[q] += 1
                c = cost - slots[q].deltas[idx[q]] + slots[q].deltas[idx[q] + 1]
                heapq.heappush(heap, (c, tuple(nxt), last))
        if max_changes is not None and sum(1 for k in idx if k) >= max_changes:
            continue
        for p in range(last + 1, n):
            if free and p >= n_must:
                break  # only slots that keep the impossibility are left
            q = order[p]
            if len(slots[q].codes) > 1:
                nxt = list(idx)
                nxt[q] = 1
                heapq.heappush(heap, (cost + slots[q].deltas[1], tuple(nxt), p))
    return found


def _search_limit(found: _Found, close: float, margin: float, win_margin: float | None,
                  prefer_ready: bool) -> float:
    """The cost past which no reading can change the choice or its alternatives: within
    ``margin`` of the most probable possible reading (the log of ``close_ratio``, or of
    ``max_win_ratio`` when a win is claimed, or the ready margin, whichever is largest);
    once a win within ``win_margin`` of it (the log of ``max_win_ratio``, None with no win
    claimed) or a ready hand is found, within ``close`` (the log of ``close_ratio``) of
    that one, which is then chosen (its alternatives may lie past the first bound);
    unbounded before any possible reading is found."""
    if found.best_phys is None:
        return math.inf
    limit = found.best_phys.cost + margin
    if (win_margin is not None and found.best_win is not None
            and found.best_win.cost - found.best_phys.cost <= win_margin):
        limit = found.best_win.cost + close
    if prefer_ready and found.best_ready is not None:
        limit = found.best_ready.cost + close
    return limit


def _choose(found: _Found, claim_win: bool, params: CorrectParams) -> Reading:
    """The reading to report from what the search ``found`` (a possible reading was
    found): a win within ``max_win_ratio`` when a win is claimed, else a ready hand that
    the search took, else the most probable possible reading; why is added to the
    found notes."""
    best_phys = found.best_phys
    assert best_phys is not None
    best_win, best_ready = found.best_win, found.best_ready
    if claim_win:
        if _win_taken(found, params):
            assert best_win is not None
            return best_win
        ratio = f"{params.max_win_ratio:g} times the most probable one"
        if best_win is not None:
            found.notes.append(
                f"a winning reading exists but is {math.exp(best_win.cost - best_phys.cost):.0f}"
                " times less probable; the hand is reported as not winning"
            )
        elif found.stop is None:
            found.notes.append(
                f"no reading within {ratio} makes it a win; the hand is reported as not "
                "winning"
            )
        elif found.few_done:
            found.notes.append(
                f"no reading within {ratio} with at most {FEW_CHANGES} tiles changed makes "
                "it a win, and the search stopped before it looked at every other; the hand "
                "is reported as not winning"
            )
        else:
            found.notes.append(
                f"no winning reading among the {found.popped} looked at: the search stopped "
                f"before it looked at every reading within {ratio}; the hand is reported as "
                "not winning"
            )
    elif best_ready is not None and best_ready is not best_phys:
        found.notes.append(
            f"a reading {math.exp(best_ready.cost - best_phys.cost):.1f} times less probable "
            "makes the hand ready (one tile from a win) and is taken"
        )
        return best_ready
    return best_phys


def _alternatives(found: list[Reading], chosen: Reading,
                  params: CorrectParams) -> tuple[Reading, ...]:
    """Possible readings within ``close_ratio`` of the ``chosen`` one either way (a win
    taken over a slightly more probable non-winning reading shows that one too), best
    first, at most ``max_alternatives``, leaving out non-winning corrections that add
    needless changes to another one. A winning reading is a hand of its own, also when
    it adds a change to another that wins (123s or 234s on an unsure 1s/4s): both are
    shown (before the sixty-eighth session the second was dropped)."""
    close = math.log(params.close_ratio)
    change_sets = [{(c.tile, c.after) for c in r.changes} for r in found]
    pool = [
        r
        for r, cs in zip(found, change_sets, strict=True)
        if r is not chosen
        and abs(r.cost - chosen.cost) <= close
        and (r.winning or not any(other and other < cs for other in change_sets))
    ]
    return tuple(sorted(pool, key=lambda r: r.cost))[: params.max_alternatives]
