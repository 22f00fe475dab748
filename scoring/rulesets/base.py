"""The rule-set interface every scoring rule set implements, and the result types.

A rule set is one module in :mod:`scoring.rulesets` that defines ``RULE_SET``, an
instance of a :class:`RuleSet` subclass. The registry (:func:`scoring.rule_sets`)
discovers these modules, so adding a rule set never touches the engine.

A rule set states:

- ``name`` (the ``rules=`` value), ``title``, ``hand_size`` (tiles in a winning hand,
  each kong counted as 3: 14 for MCR, 17 for Xiamen);
- ``settings()``: every setting with its default and description (a version preset,
  chip values, ...); :meth:`RuleSet.resolve_settings` checks and fills them;
- ``context_fields()``: rule-specific win context (wild-tile indicator, 游金 state, ...)
  that callers pass as keyword arguments and that arrives in ``WinContext.extra``;
- ``score(hand, context, settings) -> Score``, ``waits(hand, context, settings) -> Waits``
  and ``settle(hand, total, legal, context, settings) -> Settlement``; a score says
  whether its win is self-drawn (``Score.self_drawn``) by the rule set's own reading.
"""

from __future__ import annotations

import dataclasses
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from scoring import tiles as T
from scoring.hand import Hand, HandError
from scoring.notation import fold_width

#: The largest number a setting or rule-specific context field takes: chips, points, fan,
#: factors and counts of hands are far below it, and a bound keeps a score's figures
#: quick to work out and print (a 底 of 10⁴⁰⁰⁰ was scored into a 4,000-digit answer; the
#: dealer's streak, a power, has its own bound: ``xiamen_money.MOST_BASE``).
MOST_SETTING = 10**9

SEAT_NAMES: dict[int, str] = {1: "left", 2: "opposite", 3: "right"}
"""Seat offsets relative to the winner (1 上家 left, 2 对家 opposite, 3 下家 right)."""


def _shown(value: Any) -> str:
    """``value`` as an error message shows it: a number of 30 digits or more by its
    length (Python will not print one of more than 4,300).

    >>> _shown(10**5000)
    'a number of about 5,001 digits'
    """
    if isinstance(value, int) and abs(value) >= 10**30:
        return f"a number of about {int(abs(value).bit_length() * 0.30103) + 1:,} digits"
    return repr(value)


@dataclass(frozen=True)
class Setting:
    """One setting of a rule set (or one rule-specific context field).

    ``default`` fixes the type (bool, int, float or str; ``None`` means "optional str");
    ``choices`` limits the values when given. A number may not be negative — chips,
    points, fan and factors — except down to a negative default, which a context field
    uses to say "not known" (Xiamen's ``chips_left`` -1), nor more than
    :data:`MOST_SETTING`.

    >>> Setting("min_fan", 8, "fan needed").coerce("-3")
    Traceback (most recent call last):
    ...
    scoring.hand.HandError: setting min_fan=-3: must be 0 or more
    >>> Setting("base_points", 8, "points").coerce(10**12)
    Traceback (most recent call last):
    ...
    scoring.hand.HandError: setting base_points=1000000000000: must be at most 1,000,000,000
    >>> Setting("chips_left", -1, "unknown: -1").coerce(-1)
    -1
    """

    name: str
    default: Any
    description: str
    choices: tuple[Any, ...] | None = None

    def coerce(self, value: Any, what: str = "setting") -> Any:
        """Check ``value`` (strings from the CLI are converted) or raise HandError naming
        it as ``what`` (a ``setting``, a ``context field``)."""
        kind = type(self.default)
        if isinstance(value, str) and kind is not str and self.default is not None:
            text = value.strip().lower()
            try:
                if kind is bool:
                    if text not in ("1", "0", "true", "false", "yes", "no", "on", "off"):
                        raise ValueError(text)
                    value = text in ("1", "true", "yes", "on")
                elif kind is int:
                    value = int(text)
                elif kind is float:
                    value = float(text)
            except ValueError:
                raise HandError(
                    f"{what} {self.name}={value!r}: expected {kind.__name__}"
                ) from None
        int_as_float = kind is float and isinstance(value, int) and not isinstance(value, bool)
        if self.default is not None and not isinstance(value, kind) and not int_as_float:
            raise HandError(
                f"{what} {self.name}={value!r}: expected {kind.__name__}, "
                f"not {type(value).__name__}"
            )
        if kind is int and isinstance(value, bool):
            raise HandError(f"{what} {self.name}={value!r}: expected int, not bool")
        if kind in (int, float) and value < min(0, self.default):
            raise HandError(f"{what} {self.name}={_shown(value)}: must be "
                            f"{min(0, self.default)} or more")
        if kind in (int, float) and not value <= MOST_SETTING:  # NaN too
            raise HandError(f"{what} {self.name}={_shown(value)}: must be at most "
                            f"{MOST_SETTING:,}")
        if self.choices is not None and value not in self.choices:
            allowed = ", ".join(str(c) for c in self.choices)
            raise HandError(f"{what} {self.name}={value!r}: choose one of {allowed}")
        return value

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready description: ``default``, ``description``, ``type`` (``integer``,
        ``number``, ``boolean`` or ``string``), ``choices`` when limited, and a number's
        ``minimum`` and ``maximum`` (what :meth:`coerce` takes).

        >>> sorted(Setting("min_fan", 8, "fan needed").to_dict().items())
        [('default', 8), ('description', 'fan needed'), ('maximum', 1000000000), \
('minimum', 0), ('type', 'integer')]
        """
        kind = type(self.default)
        out: dict[str, Any] = {
            "default": self.default,
            "description": self.description,
            "type": {bool: "boolean", int: "integer", float: "number"}.get(kind, "string"),
        }
        if self.choices is not None:
            out["choices"] = list(self.choices)
        if kind in (int, float):
            out["minimum"] = min(0, self.default)
            out["maximum"] = MOST_SETTING
        return out


@dataclass(frozen=True)
class WinContext:
    """How the hand was won, common to all rule sets.

    ``flowers``: flower count when the hand itself lists none (bonus tiles in
    ``Hand.flowers`` count otherwise). ``discarder``: seat offset (1-3) of the player who
    discarded the winning tile, ``None`` when unknown or self-drawn. ``extra``: rule-set
    specific fields, checked against :meth:`RuleSet.context_fields`.
    """

    self_drawn: bool = False
    last_of_kind: bool = False
    kong: bool = False
    last_wall_tile: bool = False
    seat_wind: str = "E"
    prevalent_wind: str = "E"
    flowers: int = 0
    discarder: int | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in ("self_drawn", "last_of_kind", "kong", "last_wall_tile"):
            if not isinstance(getattr(self, name), bool):
                raise HandError(f"{name} must be true or false")
        for name in ("seat_wind", "prevalent_wind"):  # as a Chinese keyboard types it too
            value = getattr(self, name)
            wind = fold_width(value).strip() if isinstance(value, str) else value
            if wind not in T.WINDS:
                raise HandError(f"{name} {value!r} is not a wind (E, S, W or N)")
            object.__setattr__(self, name, wind)
        if isinstance(self.flowers, bool) or not isinstance(self.flowers, int):
            raise HandError("flowers must be a whole number")
        if not 0 <= self.flowers <= 8:
            raise HandError(f"flowers={self.flowers}: there are 8 bonus tiles")
        if self.discarder is not None:
            if isinstance(self.discarder, bool) or not isinstance(self.discarder, int) \
                    or self.discarder not in (1, 2, 3):
                raise HandError(f"discarder={self.discarder!r}: use seat offset 1, 2 or 3")
            if self.self_drawn:
                raise HandError("a self-drawn win has no discarder")

    def flower_count(self, hand: Hand) -> int:
        """Flowers of the win: ``hand.flowers`` if listed, else ``flowers``; both must agree."""
        listed = len(hand.flowers)
        if listed and self.flowers and listed != self.flowers:
            raise HandError(f"the hand shows {listed} flowers but flowers={self.flowers} was given")
        return listed or self.flowers


@dataclass(frozen=True)
class ScoredFan:
    """One scoring element of a result: a fan (MCR) or a rule set's scoring item.

    ``value``: points of one occurrence; ``count``: occurrences; ``sets``: for each
    occurrence, the sets or tiles (notation strings such as ``"567p"``) that form it.
    """

    zh: str
    en: str
    value: int
    count: int = 1
    sets: tuple[tuple[str, ...], ...] = ()

    @property
    def points(self) -> int:
        """``value * count``."""
        return self.value * self.count

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ``{"zh", "en", "value", "count", "sets"}``."""
        return {
            "zh": self.zh,
            "en": self.en,
            "value": self.value,
            "count": self.count,
            "sets": [list(s) for s in self.sets],
        }


@dataclass(frozen=True)
class Payment:
    """``payer`` (a seat name such as ``left``, or a role such as ``discarder``/``other``)
    pays ``amount`` to the winner (in the rule set's unit)."""

    payer: str
    amount: int

    def to_dict(self) -> dict[str, Any]:
        return {"payer": self.payer, "amount": self.amount}


@dataclass(frozen=True)
class Settlement:
    """Who pays the winner what. ``unit``: ``"points"`` (match points) or ``"chips"``."""

    unit: str
    payments: tuple[Payment, ...] = ()
    note: str = ""

    @property
    def winner_receives(self) -> int:
        """Sum of all payments."""
        return sum(p.amount for p in self.payments)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ``{"unit", "winner", "payments": [{"payer", "amount"}], "note"}``."""
        return {
            "unit": self.unit,
            "winner": self.winner_receives,
            "payments": [p.to_dict() for p in self.payments],
            "note": self.note,
        }


@dataclass(frozen=True)
class Deal:
    """How the deal (庄) goes from hand to hand at a table — what a score sheet needs to
    know who deals each hand (seat wind East) and so which player each seat wind is.

    After a hand the deal passes to the next seat counter-clockwise (下庄), unless the
    dealer won and ``stays_on_dealer_win`` (连庄), or the hand was drawn and
    ``stays_on_draw`` (荒庄 / 臭庄: the dealer deals again). A round (圈) ends when the deal
    has passed all four seats; ``rounds`` rounds make a session (None: no fixed end, a
    session by time). ``seat_changes``: the players change seats between rounds (MCR
    competitions, seed 003: 东南走之字, 西北转上); else they keep their seats.
    ``goes_on_after_false_claim``: a win declared that is none (错和, 诈和) is penalized
    and the same hand is played on (MCR seed 003: 该盘继续比赛; Zhenjiang seed 001), the
    claimant barred from winning it (停和); else the false claim ends the hand (Xiamen
    seed 000: the dealer deals it again).

    >>> Deal(stays_on_draw=True).to_dict()["stays_on_draw"]
    True
    """

    stays_on_dealer_win: bool = False
    stays_on_draw: bool = False
    rounds: int | None = 4
    seat_changes: bool = False
    goes_on_after_false_claim: bool = False

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ``{"stays_on_dealer_win", "stays_on_draw", "rounds", "seat_changes",
        "goes_on_after_false_claim"}``."""
        return {
            "stays_on_dealer_win": self.stays_on_dealer_win,
            "stays_on_draw": self.stays_on_draw,
            "rounds": self.rounds,
            "seat_changes": self.seat_changes,
            "goes_on_after_false_claim": self.goes_on_after_false_claim,
        }


@dataclass(frozen=True)
class Score:
    """A scored win. ``total`` includes flowers (or the rule set's bonus items);
    ``legal`` says whether it meets the rule set's minimum.

    ``self_drawn``: whether the win is one without a discard (自摸) as the rule set scores
    and settles it — nobody deals in (no discarder pays for it) — whatever the win
    context's ``self_drawn`` flag alone says. Each rule set sets it by its own reading
    (:meth:`RuleSet.score`): MCR, the ``self_drawn`` flag (抢杠和, robbing a kong, is a
    win on the konger's tile); Xiamen, the flag, a robbed kong (抢杠自摸) and the win
    types won without a discard (游金, 双游, 三游, 三金倒, 天和); Zhenjiang, the flag and
    天胡. A score that is no legal win says how the win was claimed.

    >>> Score("mcr", None, 8, True, (), Settlement("points"), self_drawn=True).to_dict()[
    ...     "self_drawn"]
    True
    """

    rules: str
    version: str | None
    total: int
    legal: bool
    fans: tuple[ScoredFan, ...]
    settlement: Settlement
    details: Mapping[str, Any] = field(default_factory=dict)
    self_drawn: bool = field(kw_only=True)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ``{"total", "legal", "rules", "version", "fans", "settlement",
        "self_drawn"}`` (plus ``"details"`` when a rule set reports any)."""
        out: dict[str, Any] = {
            "total": self.total,
            "legal": self.legal,
            "rules": self.rules,
            "version": self.version,
            "fans": [f.to_dict() for f in self.fans],
            "settlement": self.settlement.to_dict(),
            "self_drawn": self.self_drawn,
        }
        if self.details:
            out["details"] = dict(self.details)
        return out


@dataclass(frozen=True)
class WaitTile:
    """One tile a ready hand waits on: ``remaining`` copies not in the hand itself (nor
    among the tiles seen elsewhere, ``seen`` of :func:`scoring.waits`), and the best score
    on a discard and on a self-draw (``None`` where that win is impossible — none where
    no copy is left: a formal wait on a kind the hand holds four of, whose last copy it
    discarded, :class:`Discard`, or whose other copies are seen: a dead wait)."""

    tile: str
    remaining: int
    discard: Score | None
    self_drawn: Score | None

    def to_dict(self) -> dict[str, Any]:
        def brief(s: Score | None) -> dict[str, Any] | None:
            if s is None:
                return None
            return {
                "total": s.total,
                "legal": s.legal,
                "fans": [f.to_dict() for f in s.fans],
            }

        return {
            "tile": self.tile,
            "remaining": self.remaining,
            "discard": brief(self.discard),
            "self_drawn": brief(self.self_drawn),
        }


@dataclass(frozen=True)
class Waits:
    """Wait analysis of a hand one tile short of a win. ``shanten``: 0 when ready, else how
    many tile changes it is from ready, by the shape (a hand ready in form only is 0:
    :attr:`live`); ``waits`` is empty unless ready. ``seen``: the tiles seen elsewhere
    that the copies left do not count (notation, kinds in order; empty when none)."""

    rules: str
    version: str | None
    hand: str
    shanten: int
    waits: tuple[WaitTile, ...] = ()
    seen: str = ""

    @property
    def ready(self) -> bool:
        return self.shanten == 0

    @property
    def live(self) -> bool:
        """Whether the hand is ready with a wait it can still win on: a copy of it left
        (有效听牌). A ready hand whose every wait is dead — each copy held, discarded or
        seen elsewhere — is ready in form only (形式听牌, 空听): it cannot win until a
        draw changes its wait. A wait with a copy left that scores under the rules'
        minimum (MCR's 8 fan) is still live: the shape can win, the fan decide."""
        return self.ready and any(t.remaining > 0 for t in self.waits)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ``{"rules", "version", "hand", "ready", "live", "shanten",
        "waits", "seen"}`` (``live``: :attr:`live`; false when not ready)."""
        return {
            "rules": self.rules,
            "version": self.version,
            "hand": self.hand,
            "ready": self.ready,
            "live": self.live,
            "shanten": self.shanten,
            "waits": [w.to_dict() for w in self.waits],
            "seen": self.seen,
        }


@dataclass(frozen=True)
class UsefulDraw:
    """A kind whose draw brings a hand that is not ready one tile nearer (有效牌: its
    shanten falls by one once a tile is let go), and the ``remaining`` copies of it not
    in the hand, its melds, the discard just made or the tiles seen elsewhere."""

    tile: str
    remaining: int

    def to_dict(self) -> dict[str, Any]:
        return {"tile": self.tile, "remaining": self.remaining}


@dataclass(frozen=True)
class Discard:
    """One discard of a hand of a win's size that is no win (it drew and must discard):
    the tile let go and the :class:`Waits` of what is kept. A wait's ``remaining`` does
    not count the discarded copy (it lies in the discards, dead): a wait whose last copy
    is the one discarded stays listed, with 0 left and no score (no win is left on it).
    ``useful``: when what is kept is not ready, the draws that bring it a tile nearer
    (:class:`UsefulDraw`, kinds of which a copy is left); None when it is ready (in form
    only too), or when the rules count no shape alone (:meth:`RuleSet.draw_shanten`).
    ``live``: what is kept is ready with a copy left of a wait (:attr:`Waits.live`)."""

    tile: str
    waits: Waits
    useful: tuple[UsefulDraw, ...] | None = None

    @property
    def live(self) -> bool:
        """What is kept is ready with a wait it can still win on (:attr:`Waits.live`)."""
        return self.waits.live

    @property
    def useful_draws(self) -> int:
        """The tiles left that bring the kept hand nearer: the copies of every
        :attr:`useful` kind (0 when none are counted: a ready hand's waits say what it
        draws to)."""
        return sum(u.remaining for u in self.useful or ())

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ``{"tile", "ready", "live", "shanten", "waits", "useful",
        "useful_draws"}`` (``live``: ready with a copy left of a wait, false when ready in
        form only or not ready; ``useful``: ``[{"tile", "remaining"}]``, empty when none
        are counted; ``useful_draws`` their copies in all, null when none are counted:
        what is kept is ready)."""
        w = self.waits.to_dict()
        return {"tile": self.tile, "ready": w["ready"], "live": w["live"],
                "shanten": w["shanten"], "waits": w["waits"],
                "useful": [u.to_dict() for u in self.useful or ()],
                "useful_draws": None if self.useful is None else self.useful_draws}


def _brief_win(s: Score | None) -> dict[str, Any] | None:
    return None if s is None else {"total": s.total, "legal": s.legal}


@dataclass(frozen=True)
class Discards:
    """What to discard from a hand of a win's size that is no win (何切): every distinct
    standing tile as a :class:`Discard`, best first (:func:`discard_order`) — fewest tiles
    from ready (shanten; a discard that leaves it ready in form only, every wait dead,
    counts as one from ready and ranks after the other discards one from ready); then,
    below ready, the most useful draws (有效牌); when ready, the most wait tiles left that
    make a legal win, the highest best legal score, the most wait tiles left at all (a
    wait with no copy left counts for nothing); then the tile's kind order. ``shanten``
    is the least of the discards' by shape (0: a discard leaves the hand ready, if only in
    form: :attr:`Discard.live` says which). ``seen``: as :attr:`Waits.seen`."""

    rules: str
    version: str | None
    hand: str
    discards: tuple[Discard, ...]
    #: The hand as it stands scored as a win on its last tile (on a discard, else
    #: self-drawn): a winning shape, legal or under the rules' minimum; None when it is
    #: no win (a regional rule set's 诈胡 — not a winning shape — is none).
    win: Score | None = None
    #: That win on a discard and self-drawn, each as the rules score it (a hand that wins
    #: self-drawn alone has a discard win below the minimum, or none where the scorer
    #: refuses it); both None when the hand is no win.
    win_on_discard: Score | None = None
    win_self_drawn: Score | None = None
    seen: str = ""

    @property
    def shanten(self) -> int:
        return min(d.waits.shanten for d in self.discards) if self.discards else -1

    @property
    def ready_after(self) -> tuple[Discard, ...]:
        """The discards that leave the hand ready, best first."""
        return tuple(d for d in self.discards if d.waits.ready)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ``{"rules", "version", "hand", "win", "win_total",
        "win_on_discard", "win_self_drawn", "shanten", "discards": [...], "seen"}``
        (``win``: the hand is a win already; ``win_total`` its total, null when it is
        none; ``win_on_discard`` and ``win_self_drawn``: ``{"total", "legal"}`` of that
        win each way, null where the rules refuse it or the hand is no win; ``seen``:
        the tiles seen elsewhere counted, notation)."""
        return {
            "rules": self.rules,
            "version": self.version,
            "hand": self.hand,
            "win": self.win is not None,
            "win_total": None if self.win is None else self.win.total,
            "win_on_discard": _brief_win(self.win_on_discard),
            "win_self_drawn": _brief_win(self.win_self_drawn),
            "shanten": self.shanten,
            "discards": [d.to_dict() for d in self.discards],
            "seen": self.seen,
        }


def discard_order(d: Discard, wilds: frozenset[str] = frozenset()
                  ) -> tuple[int, bool, int, int, int, int, bool, int]:
    """Sort key of :class:`Discards`: fewest from ready; among the ready, those with a
    live wait first — a discard that leaves the hand ready in form only (every wait dead:
    no copy left, :attr:`Waits.live`; 形式听牌) cannot win until a draw changes its wait,
    and ranks after every live ready discard but before those one from ready (most of
    the draws change a dead wait into a live one, while a hand one from ready counts its
    useful draws by shape, some of them towards dead waits too: ``[EEE,2]123p456p1111mE``
    — discarding 1m or E leaves 122 draws that make a ready hand that can win, 1p's ten
    useful draws none); then the most useful draws (a hand not ready:
    :attr:`Discard.useful_draws`); the most wait tiles left that make a legal win (a wait
    scoring under the rules' minimum is no win), the highest best legal score, the most
    wait tiles left at all (a ready hand; a wait with no copy left, its last copy
    discarded or seen, counts for nothing); then a wild (``wilds``: a gold, a 百搭) kept
    rather than another tile of equal merit; then the tile's kind order."""
    w = d.waits
    live = [t for t in w.waits if t.remaining > 0]
    in_form_only = w.ready and not live

    def legal(t: WaitTile) -> list[Score]:
        return [s for s in (t.discard, t.self_drawn) if s is not None and s.legal]

    left_legal = sum(t.remaining for t in live if legal(t))
    best = max((s.total for t in live for s in legal(t)), default=0)
    left = sum(t.remaining for t in live)
    return (w.shanten, in_form_only, -d.useful_draws, -left_legal, -best, -left,
            d.tile in wilds, T.index(d.tile))


def with_seen(held: list[int], seen: Sequence[int] | None) -> list[int]:
    """``held`` (34 counts of the tiles a hand holds, standing and in melds) with
    ``seen`` (34 counts of tiles seen elsewhere) added, kind by kind: the tiles out of
    the wall; :class:`HandError` naming a kind seen more often than the 4 copies less
    those held leave, and both counts. ``held`` is changed and returned.

    >>> with_seen([3] + [0] * 33, [1] + [0] * 33)[0]
    4
    >>> with_seen([3] + [0] * 33, [2] + [0] * 33)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    scoring.hand.HandError: seen: 1m seen 2 times, but the hand holds 3 of it (standing ...
    """
    if seen is None:
        return held
    for k, n in enumerate(seen):
        if not n:
            continue
        if held[k] + n > T.COPIES:
            times = "once" if n == 1 else f"{n} times"
            raise HandError(
                f"seen: {T.code(k)} seen {times}, but the hand holds {held[k]} of it "
                f"(standing and in melds): a kind has {T.COPIES} tiles, so at most "
                f"{max(0, T.COPIES - held[k])} can be seen elsewhere")
        held[k] += n
    return held


def trial_waits(
    rules: RuleSet,
    hand: Hand,
    held: Sequence[int],
    context: WinContext,
    settings: Mapping[str, Any],
    *,
    extra: Mapping[str, Any],
    keep_flowers: bool,
) -> tuple[WaitTile, ...]:
    """The tiles a ready ``hand`` (one tile short of a win) waits on, found by trial: for
    each kind, the hand with one more tile of it is scored by ``rules`` as won on a
    discard and as self-drawn, and the kind is a wait when either win is legal.

    ``held``: the physical tiles of each kind already in the hand (34 counts, kind
    indices of :mod:`scoring.tiles`); a kind of which all four copies are held is no
    wait, and a wait's ``remaining`` is the copies not held. The trial wins keep
    ``context``'s winds, with ``extra`` laid over its rule-specific fields (the trial
    is a plain win, not the deal's first draw); ``keep_flowers``: the trial hands keep
    the hand's bonus tiles and the context's flower count (else none).
    """
    found = []
    for k in range(T.NUM_KINDS):
        if held[k] >= T.COPIES:
            continue
        tile = T.code(k)
        # the hand's reading of its meld tiles kept (Hand.melded_as: a meld's stand-in is
        # no copy of the kind it is written as, so a trial may add a copy of that kind)
        trial = dataclasses.replace(hand, standing=(*hand.standing, tile),
                                    flowers=hand.flowers if keep_flowers else ())
        results: list[Score | None] = []
        for drawn in (False, True):
            ctx = WinContext(
                self_drawn=drawn,
                seat_wind=context.seat_wind,
                prevalent_wind=context.prevalent_wind,
                flowers=context.flowers if keep_flowers else 0,
                extra={**context.extra, **extra},
            )
            s = rules.score(trial, ctx, settings)
            results.append(s if s.legal else None)
        if results[0] or results[1]:
            found.append(WaitTile(tile, T.COPIES - held[k], results[0], results[1]))
    return tuple(found)


class RuleSet(ABC):
    """A scoring rule set. Subclasses set the class attributes and implement the methods."""

    name: ClassVar[str]
    title: ClassVar[str]
    hand_size: ClassVar[int]
    #: Every setting of the rule set: name -> :class:`Setting` (a data table).
    setting_table: ClassVar[Mapping[str, Setting]] = {}
    #: Rule-specific win-context fields accepted in ``WinContext.extra``.
    context_table: ClassVar[Mapping[str, Setting]] = {}
    #: The game's shape for :meth:`describe` (tiles, claims, wild tile, wins...).
    game: ClassVar[Mapping[str, Any]] = {}
    #: Tile codes the score never tells apart, in groups: a hand in which a tile of a
    #: group stands in for another of the same group (each code still shown at most once)
    #: gets the same fans, total, legality and settlement — only the codes a fan lists
    #: differ. MCR counts bonus tiles by number alone (one group of eight); a rule set
    #: that scores which bonus tile it is says so here. Used to tell how sure a reading
    #: of a photo is *of its score* (``vision.confidence``). Default: none alike.
    score_alike: ClassVar[tuple[tuple[str, ...], ...]] = ()
    #: Whether a settlement's payments carry money paid apart from the points or chips
    #: (each payment's ``bonus``: Xiamen's 游金/双游/三游/三金倒/杀三 bonus, 课外): a score
    #: sheet keeps it in a column of its own. Default: no such money.
    money_apart: ClassVar[bool] = False
    #: How the deal passes between hands at a table (:class:`Deal`). Default: it passes
    #: every hand, four rounds, seats kept.
    deal: ClassVar[Deal] = Deal()
    #: Win-context fields naming seats seen from the winner (``winner``, ``left``,
    #: ``opposite``, ``right``; a comma-separated list where the field takes several).
    #: A score sheet, which knows the seat winds, also takes ``E``/``S``/``W``/``N``
    #: there. Default: none.
    seat_context: ClassVar[tuple[str, ...]] = ()
    #: Rule-specific context fields that say what the tiles are — a wild (百搭), a gold
    #: (金) — and so all a hand's shape depends on: whether tiles form a win or what they
    #: wait on is asked with these alone (a reader of photos tells a winning shape the
    #: scorer refuses for the rest of the context from no win). Default: none.
    tile_context: ClassVar[tuple[str, ...]] = ()
    #: Values of the context's ``win`` that make tiles a win which are no plain winning
    #: shape (Xiamen 三金倒: three golds win whatever else is held; 三游: a lone gold
    #: beside five sets): a reader's shape check asks those with the whole context too.
    #: Default: none.
    shape_free_wins: ClassVar[frozenset[str]] = frozenset()
    #: The general win-context fields (:class:`WinContext`) these rules read; the others
    #: change nothing under them, and a client may leave them out of its form (GET
    #: /v1/rules lists them as ``win_fields``). Default: all of them (MCR reads all).
    win_fields: ClassVar[tuple[str, ...]] = (
        "self_drawn", "last_of_kind", "kong", "last_wall_tile", "seat_wind", "prevalent_wind",
        "flowers", "discarder")
    #: What the rules do with a win declared that is none (a score sheet's note to the
    #: referee): the penalty, and what becomes of the hand.
    false_claim: ClassVar[str] = "a penalty for the false claim, or a correction"
    #: The penalty kinds a score sheet books for a false claim, where the hand goes on
    #: after one (:attr:`Deal.goes_on_after_false_claim`), each with the rules' name for
    #: it: MCR tells 错和 (``wrong_win``) from 诈和 (``false_win``); Zhenjiang has 诈胡
    #: (``false_win``) alone. Default: none.
    false_claim_kinds: ClassVar[Mapping[str, str]] = {}
    #: The points a referee's deduction (罚分) may take, where the rules fix them (MCR, seed
    #: 003: 5, 10, 20, 30, 40, 50 or 60); empty: any. Default: any.
    deductions: ClassVar[tuple[int, ...]] = ()
    #: Offences whose penalty grows with each repeat by one player in one hand, each with
    #: the rules' name (MCR, seed 003: 空吃/空碰/空杠, 摸牌 before the discard, 碰牌 after 3
    #: seconds), and the points of the first, second … of them (0: a warning); past the
    #: table each doubles the one before (以此类推), up to the largest of
    #: :attr:`deductions`. Default: none.
    repeat_offences: ClassVar[Mapping[str, str]] = {}
    repeat_offence_points: ClassVar[tuple[int, ...]] = ()

    def settings(self) -> Mapping[str, Setting]:
        """Every setting: name -> :class:`Setting` (default + description)."""
        return self.setting_table

    def score_key(self, hand: Hand) -> str:
        """What of ``hand`` the score depends on, as text: its notation in one order
        (:func:`scoring.notation.canonical_hand`: the same tiles given in another order
        key alike) with each bonus tile named by the first code of its
        :attr:`score_alike` group (so two hands with one key score the same under one win
        context). A rule set with no alike codes keys a hand by that notation."""
        from scoring.notation import canonical_hand

        if not self.score_alike or not hand.flowers:
            return canonical_hand(hand)
        bare = canonical_hand(dataclasses.replace(hand, flowers=()))
        return f"{bare} {''.join(sorted(self.score_code(f) for f in hand.flowers))}"

    def score_code(self, code: str) -> str:
        """The code the score counts a tile of ``code`` as: the first of its
        :attr:`score_alike` group, else ``code`` itself (any string passes: a detector's
        ``back`` too)."""
        group = next((g for g in self.score_alike if code in g), None)
        return code if group is None else group[0]

    def context_fields(self) -> Mapping[str, Setting]:
        """Rule-specific win-context fields accepted in ``WinContext.extra``."""
        return self.context_table

    def resolve_settings(self, given: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Defaults overlaid with ``given`` (checked; CLI strings converted)."""
        return _resolve(self.name, "setting", self.settings(), given)

    def resolve_context(self, given: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Context-field defaults overlaid with ``given`` (checked; strings converted)."""
        return _resolve(self.name, "context field", self.context_fields(), given)

    def stand_ins(self, extra: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
        """The meld tiles these rules read as another tile under the rule-specific context
        fields ``extra`` (given or resolved): (written kind, the tile it is) pairs, for
        :attr:`Hand.melded_as <scoring.hand.Hand.melded_as>`, which counts their copies as
        the tiles they are. Xiamen: a meld's tile of the gold's kind is a 白板 (``P``)
        standing in. Empty when the fields do not say (a gold not given, or no tile): the
        rules refuse such a context themselves. Default: none, each tile as written."""
        return ()

    def unmelded_faces(self, extra: Mapping[str, Any]) -> frozenset[str]:
        """The tile faces no meld may show under the rule-specific context fields
        ``extra`` (Xiamen: the gold's, golds are never melded). A reader of photos names a
        meld showing one. Default: none, every face may be melded."""
        return frozenset()

    def shape_context(self, hand: Hand, context: WinContext) -> WinContext | None:
        """The win context a reader of photos asks whether ``hand`` is a win with, out of
        ``context``, the whole context given (:func:`scoring.shape_wins` with
        ``whole=True``): what of it decides which tiles win — None when no reading with
        this winning tile can be a win at all. Default: a self-drawn win with only the
        :attr:`tile_context` fields (the rest may make a win illegal, not its shape).
        Zhenjiang adds the win's origin (a 百搭 won on a discard or robbed from a kong is its
        own face); Xiamen the 游金/双游/三游 win type, and None for a gold won on a discard
        (seed 000: a discarded gold cannot be claimed or won on)."""
        tiles = {k: v for k, v in context.extra.items() if k in self.tile_context}
        return WinContext(self_drawn=True, extra=self.resolve_context(tiles))

    def win_counts(self, context: Mapping[str, Any]) -> tuple[int, ...]:
        """The tile counts (each kong counted as 3) a win is declared on under the win
        ``context`` given (fields as :func:`scoring.score` takes them; a reader of photos
        takes a hand of one of these counts as a win claimed). Default: ``hand_size``.
        Xiamen: also 16 for 三游 and for a non-dealer's 三金倒 at the opening."""
        return (self.hand_size,)

    def check_context(self, context: WinContext, settings: Mapping[str, Any]) -> None:
        """Raise :class:`HandError` naming what is wrong with a win context that every
        answer needs, whatever the hand and whether it wins or waits: a field the rules
        need missing, a tile code that is none (a reader of photos refuses such a request
        before it reads the photo, instead of reporting every reading as no win). What a
        win's fields say of each other and of the hand stays in :meth:`score`. Default:
        none beyond :meth:`resolve_context`."""
        return None

    def refuse_flowers(self, flowers: int, given: str | None = None) -> None:
        """Raise :class:`HandError` for a count of ``flowers`` (bonus tiles, 0-8) under
        rules played without flowers (``game["flowers"]`` false: Zhenjiang), whatever the
        hand: every answer that takes a count words it so (``/v1/score``, ``/v1/recognize``,
        a table's hands, frames and photos, the commands). ``given``: the count as the
        caller was given it (default ``flowers=N``; the commands write ``--flowers N``).

        >>> from scoring.rulesets import get_rule_set
        >>> get_rule_set("mcr").refuse_flowers(2)
        >>> try:
        ...     get_rule_set("zhenjiang").refuse_flowers(2, "--flowers 2")
        ... except HandError as exc:
        ...     print(exc)
        Zhenjiang plays 136 tiles without flowers: --flowers 2 cannot be (leave it out)
        """
        if flowers and not self.game.get("flowers", True):
            name = self.title.split(" (", 1)[0]
            raise HandError(f"{name} plays {self.game.get('tiles', 136)} tiles without "
                            f"flowers: {given or f'flowers={flowers}'} cannot be (leave it "
                            "out)")

    @abstractmethod
    def score(self, hand: Hand, context: WinContext, settings: Mapping[str, Any]) -> Score:
        """Score a winning hand (its last standing tile is the winning tile). The score
        says whether the win is self-drawn (:attr:`Score.self_drawn`) as these rules
        settle it: a caller (a score sheet) asks the score, never the names of its win
        types or items."""

    @abstractmethod
    def waits(self, hand: Hand, context: WinContext, settings: Mapping[str, Any]) -> Waits:
        """Tiles a hand one short of a win waits on, or how far it is from ready."""

    def draw_shanten(self, hand: Hand, draws: Sequence[str], context: WinContext,
                     settings: Mapping[str, Any]) -> tuple[int, ...] | None:
        """How far ``hand``, one tile short of a win, is from ready after it draws each
        tile of ``draws`` (codes), by its shape: the shanten of its best discard then (0:
        a discard leaves it ready, a winning shape too), one for each draw. What
        :func:`scoring.discards` asks to tell the useful draws (有效牌) of a discard that
        leaves the hand not ready. HandError for a hand or draw the rules refuse.

        A rule set counts its shapes alone here (MCR ``scoring.mcr.waits.shanten``, the
        wild rule sets ``scoring.wild.shanten``). Default: None, the rules count no
        shapes alone — their discards get no useful draws and rank below ready by tile
        order: the answer :meth:`waits` gives of each discard of each hand drawn is the
        same but a few hundred times dearer (a ready hand's waits score every trial
        win)."""
        return None

    def check_one_short(self, hand: Hand, label: str) -> None:
        """HandError unless ``hand`` is one tile short of a win (``hand_size - 1`` tiles,
        each kong counted as 3); ``label`` says what asked (``"Xiamen waits"``)."""
        if hand.tile_count != self.hand_size - 1:
            raise HandError(f"{label}: a hand one tile short of a win has "
                            f"{self.hand_size - 1} tiles (each kong counted as 3), this one "
                            f"has {hand.tile_count}")

    def wild_kinds(self, context: WinContext) -> frozenset[str]:
        """The kinds that play as wilds under ``context`` (Xiamen's gold, Zhenjiang's
        百搭): what to discard keeps them on a tie (:func:`discard_order`'s last step but
        one). Default: none."""
        return frozenset()

    def held(self, hand: Hand, context: WinContext,
             seen: Sequence[int] | None = None) -> list[int]:
        """The tiles of each kind (34 counts, :mod:`scoring.tiles` order) the player
        sees out of the wall: the hand's standing tiles and its melds, any the win
        context names as gone (Zhenjiang's 百搭 discards) and ``seen``, the tiles seen
        elsewhere (34 counts: others' discards and melds; :func:`with_seen` refuses a
        kind seen more often than the copies the hand leaves): the copies left of a kind
        to draw are 4 less (as a wait's ``remaining``). Default: each tile as written."""
        out = [0] * T.NUM_KINDS
        read_as = dict(hand.melded_as)
        for t in (*hand.standing, *(read_as.get(t, t) for m in hand.melds for t in m.tiles)):
            out[T.index(t)] += 1
        return with_seen(out, seen)

    @abstractmethod
    def settle(
        self,
        hand: Hand,
        total: int,
        legal: bool,
        context: WinContext,
        settings: Mapping[str, Any],
    ) -> Settlement:
        """Payments to the winner for a win worth ``total``."""

    def draw_transfers(
        self, context: Mapping[str, Any], settings: Mapping[str, Any] | None = None
    ) -> list[dict[str, Any]]:
        """Chips that change hands in a drawn hand (nobody wins): ``[{"from", "to",
        "amount", "reason"}]`` between seat winds, from ``context``'s
        :attr:`seat_context` fields given as seat winds (``E``/``S``/``W``/``N``) and
        ``settings`` (overlaid on the defaults). Raises :class:`HandError` naming a field
        or seat that is wrong. Default: nothing is paid when nobody wins."""
        return []

    def describe(self) -> dict[str, Any]:
        """JSON-ready description of the rule set, its game shape and its settings."""
        return {
            "name": self.name,
            "title": self.title,
            "hand_size": self.hand_size,
            "settings": {k: s.to_dict() for k, s in self.settings().items()},
            "context": {k: s.to_dict() for k, s in self.context_fields().items()},
            "score_alike": [list(g) for g in self.score_alike],
            "money_apart": self.money_apart,
            "deal": self.deal.to_dict(),
            "seat_context": list(self.seat_context),
            "win_fields": list(self.win_fields),
            # what a score sheet's referee may book under these rules
            "penalties": {
                "false_claim_kinds": dict(self.false_claim_kinds),
                "deductions": list(self.deductions),
                "repeat_offences": dict(self.repeat_offences),
                "repeat_offence_points": list(self.repeat_offence_points),
            },
            **self.game,
        }


def _resolve(
    rules: str, what: str, table: Mapping[str, Setting], given: Mapping[str, Any] | None
) -> dict[str, Any]:
    out = {k: s.default for k, s in table.items()}
    if not given:
        return out
    for key, value in given.items():
        if key not in table:
            known = ", ".join(sorted(table)) or "none"
            raise HandError(f"rules {rules!r} have no {what} {key!r} (known: {known})")
        out[key] = table[key].coerce(value, what)
    return out
