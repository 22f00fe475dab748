"""tilecam's rules engine: pure Python, standard library only.

Chinese Official (MCR, 国标) with its rule versions, Xiamen (厦门) and Zhenjiang (镇江),
each a rule set in :mod:`scoring.rulesets` chosen with ``rules=``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from scoring import tiles as T
from scoring.hand import Hand, HandError, Meld, NotAWinningHand
from scoring.notation import format_hand, parse_hand
from scoring.rulesets import get_rule_set, rule_sets
from scoring.rulesets.base import (
    Discard,
    Discards,
    Payment,
    RuleSet,
    Score,
    ScoredFan,
    Setting,
    Settlement,
    UsefulDraw,
    Waits,
    WaitTile,
    WinContext,
)

__all__ = [
    "Discard",
    "Discards",
    "Hand",
    "HandError",
    "Meld",
    "NotAWinningHand",
    "Payment",
    "RuleSet",
    "Score",
    "ScoredFan",
    "Setting",
    "Settlement",
    "UsefulDraw",
    "WaitTile",
    "Waits",
    "WinContext",
    "check_context",
    "discards",
    "drew",
    "format_hand",
    "get_rule_set",
    "parse_hand",
    "resolved_settings",
    "rule_sets",
    "score",
    "shape_wins",
    "waits",
]


def _prepare(
    hand: str | Hand,
    rules: str,
    version: str | None,
    settings: Mapping[str, Any] | None,
    context_kwargs: dict[str, Any],
    rule_context: Mapping[str, Any],
) -> tuple[RuleSet, Hand, WinContext, dict[str, Any]]:
    rule_set = get_rule_set(rules)
    if isinstance(hand, str):
        hand = parse_hand(hand)
    elif not isinstance(hand, Hand):
        raise HandError(f"a hand string or Hand is needed, not {type(hand).__name__}")
    context, resolved = _win_context(rule_set, version, settings, context_kwargs, rule_context)
    return rule_set, hand, context, resolved


def _win_context(
    rule_set: RuleSet,
    version: str | None,
    settings: Mapping[str, Any] | None,
    generic: Mapping[str, Any],
    rule_context: Mapping[str, Any],
) -> tuple[WinContext, dict[str, Any]]:
    """The :class:`WinContext` of the generic fields and the rule set's own, and the
    resolved settings; :class:`HandError` naming what is wrong."""
    resolved = resolved_settings(rule_set, version, settings)
    return WinContext(**generic, extra=rule_set.resolve_context(rule_context)), resolved


def check_context(
    rules: str = "mcr",
    *,
    version: str | None = None,
    settings: Mapping[str, Any] | None = None,
    **fields: Any,
) -> None:
    """Check a win context on its own, before any hand: the rule set, its ``version`` and
    ``settings``, the generic fields of :class:`WinContext` (``self_drawn``, winds,
    ``discarder`` …) and the rule set's own fields with what it needs whatever the hand
    (the Xiamen gold, the Zhenjiang 百搭). :class:`HandError` naming what is wrong; what
    the fields say of the hand (a 杠开 with no kong) is :func:`score`'s to check.

    >>> check_context("mcr", self_drawn=True, seat_wind="S")
    >>> check_context("xiamen", gold="9z")
    Traceback (most recent call last):
    ...
    scoring.hand.HandError: the gold '9z' is not a tile code
    """
    rule_set = get_rule_set(rules)
    given = dict(fields)
    generic = {f.name: given.pop(f.name) for f in dataclasses.fields(WinContext)
               if f.name != "extra" and f.name in given}
    rule_set.check_context(*_win_context(rule_set, version, settings, generic, given))


def resolved_settings(
    rule_set: RuleSet, version: str | None, settings: Mapping[str, Any] | None
) -> dict[str, Any]:
    """``rule_set``'s settings with ``settings`` and the rule ``version`` laid over its
    defaults; :class:`HandError` naming what is wrong (not a mapping, no versions, an
    unknown setting or a bad value).

    >>> resolved_settings(get_rule_set("mcr"), "98-strict", {"min_fan": 6})["version"]
    '98-strict'
    """
    if settings is not None and not isinstance(settings, Mapping):
        kind = type(settings).__name__
        raise HandError(f"settings must be a mapping of name to value, not {kind}")
    given = dict(settings or {})
    if version is not None:
        if "version" not in rule_set.settings():
            raise HandError(f"rules {rule_set.name!r} have no versions")
        if "version" in given and given["version"] != version:
            raise HandError(f"version {version!r} and settings version {given['version']!r} "
                            "both give the rule version: give one")
        given["version"] = version
    return rule_set.resolve_settings(given)


def score(
    hand: str | Hand,
    *,
    rules: str = "mcr",
    version: str | None = None,
    self_drawn: bool = False,
    last_of_kind: bool = False,
    kong: bool = False,
    last_wall_tile: bool = False,
    seat_wind: str = "E",
    prevalent_wind: str = "E",
    flowers: int = 0,
    discarder: int | None = None,
    settings: Mapping[str, Any] | None = None,
    **rule_context: Any,
) -> Score:
    """Score a winning hand under ``rules`` (default MCR, version mil-2015).

    ``hand``: notation string or :class:`Hand`; its last standing tile is the winning tile.
    Flags describe the win (see :class:`WinContext`); ``settings`` and ``rule_context``
    are rule-set specific (see ``get_rule_set(rules).describe()``).
    Raises :class:`HandError` naming what is wrong.
    """
    rule_set, parsed, context, resolved = _prepare(
        hand,
        rules,
        version,
        settings,
        dict(
            self_drawn=self_drawn,
            last_of_kind=last_of_kind,
            kong=kong,
            last_wall_tile=last_wall_tile,
            seat_wind=seat_wind,
            prevalent_wind=prevalent_wind,
            flowers=flowers,
            discarder=discarder,
        ),
        rule_context,
    )
    return rule_set.score(parsed, context, resolved)


def waits(
    hand: str | Hand,
    *,
    rules: str = "mcr",
    version: str | None = None,
    seat_wind: str = "E",
    prevalent_wind: str = "E",
    flowers: int = 0,
    settings: Mapping[str, Any] | None = None,
    **rule_context: Any,
) -> Waits:
    """Wait analysis of a hand one tile short of a win (13 standing+meld tiles in MCR):
    the tiles it waits on with the best score on each, or its shanten when not ready."""
    rule_set, parsed, context, resolved = _prepare(
        hand,
        rules,
        version,
        settings,
        dict(seat_wind=seat_wind, prevalent_wind=prevalent_wind, flowers=flowers),
        rule_context,
    )
    return rule_set.waits(parsed, context, resolved)


def drew(hand: str | Hand, rules: str = "mcr") -> bool:
    """Whether ``hand`` is of a win's size — a hand that drew and must discard, for
    :func:`discards` — rather than one tile short of a win, for :func:`waits`; a hand of
    any other size is a :class:`HandError` naming both sizes (what ``tilecam waits`` and
    ``POST /v1/waits`` take).

    >>> drew("1112345678999m"), drew("1112345678999m1p")
    (False, True)
    >>> try:
    ...     drew("1112345678999m1p2p")
    ... except HandError as exc:
    ...     print(str(exc)[:30], "holds 13" in str(exc), "holds 14" in str(exc))
    wrong number of tiles: 15 (a C True True
    """
    rule_set = get_rule_set(rules)
    if isinstance(hand, str):
        hand = parse_hand(hand)
    size = rule_set.hand_size
    if hand.tile_count not in (size - 1, size):
        raise HandError(
            f"wrong number of tiles: {hand.tile_count} (a {rule_set.title} hand one tile "
            f"short of a win holds {size - 1}, to see its waits; a hand that drew holds "
            f"{size}, to see what to discard; each kong counted as 3)")
    return hand.tile_count == size


def discards(
    hand: str | Hand,
    *,
    rules: str = "mcr",
    version: str | None = None,
    seat_wind: str = "E",
    prevalent_wind: str = "E",
    flowers: int = 0,
    settings: Mapping[str, Any] | None = None,
    **rule_context: Any,
) -> Discards:
    """What to discard from a hand of a win's size (14 tiles in MCR, kongs counted as 3)
    that is no win — a hand that drew and must let a tile go (何切): each distinct standing
    tile with the :func:`waits` of the rest, best first (:class:`Discards`). A hand of
    another size is a :class:`HandError` naming the size needed.

    A discard that leaves the hand ready lists its waits; one of them whose last copy is
    the tile discarded stays listed with 0 left and no score. A discard that leaves it
    not ready lists its useful draws (有效牌, :class:`UsefulDraw`): the kinds whose draw
    lowers its shanten, with the copies left of each (4 less those the hand and its
    melds hold and the discard), which rank the discards of one shanten — where the
    rules count their shapes alone (:meth:`RuleSet.draw_shanten`; else None, and those
    discards rank by tile order).

    >>> d = discards("[EEE,2]123m456p789sN1s")
    >>> [(x.tile, x.waits.shanten, [w.tile for w in x.waits.waits]) for x in d.ready_after]
    [('1s', 0, ['N']), ('N', 0, ['1s'])]
    >>> [w.remaining for w in d.ready_after[0].waits.waits]  # N: 4 less the one held
    [3]
    """
    from scoring.rulesets.base import discard_order

    rule_set, parsed, context, resolved = _prepare(
        hand,
        rules,
        version,
        settings,
        dict(seat_wind=seat_wind, prevalent_wind=prevalent_wind, flowers=flowers),
        rule_context,
    )
    if parsed.tile_count != rule_set.hand_size:
        raise HandError(
            f"wrong number of tiles to discard from: {parsed.tile_count} (a {rule_set.title} "
            f"hand that drew holds {rule_set.hand_size}, each kong counted as 3)"
        )
    held = rule_set.held(parsed, context)  # the discarded copy too: it lies dead
    wilds = rule_set.wild_kinds(context)
    out = []
    for tile in dict.fromkeys(parsed.standing):
        kept = list(parsed.standing)
        kept.remove(tile)
        rest = Hand(parsed.melds, tuple(kept), parsed.flowers)
        w = rule_set.waits(rest, context, resolved)
        gone = T.index(tile)
        # the discarded copy lies dead in the discards: one fewer of its kind to wait on,
        # and a wait whose last copy it was can no longer be won on (listed, unscored)
        w = dataclasses.replace(w, waits=tuple(
            _dead(t) if T.index(t.tile) == gone else t for t in w.waits))
        useful = None if w.ready else _useful_draws(rule_set, rest, held, w.shanten, context,
                                                    resolved)
        out.append(Discard(tile, w, useful))
    on_discard, self_drawn, win = _as_won(rule_set, parsed, context, resolved)
    return Discards(rule_set.name, resolved.get("version"), str(parsed),
                    tuple(sorted(out, key=lambda d: discard_order(d, wilds))), win, on_discard,
                    self_drawn)


def _dead(t: WaitTile) -> WaitTile:
    """``t`` with the copy just discarded taken from its tiles left; no score when none is
    left (no win is left on it, as on a kind the hand holds four of)."""
    left = max(0, t.remaining - 1)
    if left:
        return dataclasses.replace(t, remaining=left)
    return WaitTile(t.tile, 0, None, None)


def _useful_draws(rule_set: RuleSet, kept: Hand, held: list[int], shanten: int,
                  context: WinContext,
                  settings: Mapping[str, Any]) -> tuple[UsefulDraw, ...] | None:
    """The useful draws (有效牌) of ``kept``, a hand one tile short of a win that is
    ``shanten`` (1 or more) from ready: each kind of which a copy is left (4 less
    ``held``: the tiles of the hand that drew, the copy discarded among them) whose draw
    makes a hand of a win's size whose best discard is nearer
    (:meth:`RuleSet.draw_shanten`; None where the rules count no shape alone). A draw
    the rules refuse (a fifth 白板 in Xiamen, counting the melds' stand-ins) is none."""
    left = {T.code(k): T.COPIES - held[k] for k in range(T.NUM_KINDS)}
    draws = [tile for tile, n in left.items() if n > 0]
    try:
        after = rule_set.draw_shanten(kept, draws, context, settings)
    except HandError:  # one draw refused: ask them one by one
        after = tuple(_one_draw(rule_set, kept, tile, context, settings) for tile in draws)
    if after is None:  # rules that count no shape alone: not counted
        return None
    return tuple(UsefulDraw(tile, left[tile]) for tile, s in zip(draws, after, strict=True)
                 if s < shanten)


def _one_draw(rule_set: RuleSet, kept: Hand, tile: str, context: WinContext,
              settings: Mapping[str, Any]) -> int:
    """:meth:`RuleSet.draw_shanten` of one draw; one the rules refuse is no nearer (a
    number of tiles from ready no hand is)."""
    try:
        after = rule_set.draw_shanten(kept, [tile], context, settings)
    except HandError:
        return T.NUM_KINDS
    return T.NUM_KINDS if after is None else after[0]


def _as_won(rule_set: RuleSet, hand: Hand, context: WinContext,
            settings: Mapping[str, Any]) -> tuple[Score | None, Score | None, Score | None]:
    """``hand`` scored as a win on its last tile on a discard and self-drawn (each None
    where the scorer refuses it), and the win it is — the first legal one of the two,
    else, when it has a winning shape, the first scored (under MCR's 8 fan, a context
    the rules refuse); all None when it is no win. A rule set with fields that say what
    the tiles are (the gold, the 百搭: ``tile_context``) answers a hand of no winning
    shape with a score that is not legal (a 诈胡), so its shape is asked apart
    (:func:`shape_wins`); one without them (MCR) refuses such a hand."""
    ways: list[Score | None] = []
    for drawn in (False, True):
        try:
            ways.append(rule_set.score(hand, dataclasses.replace(context, self_drawn=drawn),
                                       settings))
        except HandError:
            ways.append(None)
    scored = [s for s in ways if s is not None]
    win = next((s for s in scored if s.legal), None)
    if win is None and scored and (not rule_set.tile_context
                                   or shape_wins(rule_set, hand, context.extra, settings)):
        win = scored[0]
    return (ways[0], ways[1], win) if win is not None else (None, None, None)


def shape_wins(rule_set: RuleSet, hand: Hand, context: Mapping[str, Any],
               settings: Mapping[str, Any]) -> bool:
    """Whether ``hand`` has a winning shape under ``rule_set``, a rule set with fields
    that say what the tiles are (:attr:`~scoring.rulesets.base.RuleSet.tile_context`:
    the Xiamen gold, the Zhenjiang 百搭), which answers a hand of no winning shape with a
    score that is not legal (a 诈胡) rather than refusing it. The hand is scored as a
    self-drawn win with only those of the win-context fields ``context`` (given or
    resolved) that say what the tiles are — the others, a discarder, a 杠开 with no kong,
    may make the win illegal, not the shape — under ``settings`` (resolved:
    :func:`resolved_settings`); a hand or field the scorer refuses is no winning shape.
    A win of no shape at all (Xiamen 三金倒: ``RuleSet.shape_free_wins``) is for the
    caller to ask with the whole context. Without ``tile_context`` (MCR) this is only
    whether the self-drawn win is legal: MCR refuses a hand of no winning shape instead.
    Used by :func:`discards` (is the hand that drew a win?) and by the reader of photos
    (``vision.correct.winning_shape_check``).

    >>> zj = get_rule_set("zhenjiang")
    >>> plain = resolved_settings(zj, None, None)
    >>> [shape_wins(zj, parse_hand(h), {"indicator": "1m", "kong": True}, plain)
    ...  for h in ("111p456m789m123pSS", "111p456m789m123pSN", "111p46m789m123pSS2m")]
    [True, False, True]
    """
    tiles = {k: v for k, v in context.items() if k in rule_set.tile_context}
    try:
        return rule_set.score(hand, WinContext(self_drawn=True,
                                               extra=rule_set.resolve_context(tiles)),
                              settings).legal
    except HandError:
        return False
