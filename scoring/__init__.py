"""tilecam's rules engine: pure Python, standard library only.

Chinese Official (MCR, 国标) with its rule versions, Xiamen (厦门) and Zhenjiang (镇江),
each a rule set in :mod:`scoring.rulesets` chosen with ``rules=``.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from scoring import tiles as T
from scoring.hand import Hand, HandError, Meld, NotAWinningHand, TooManyCopies, normalize_code
from scoring.notation import _tile_groups, fold_width, format_hand, format_tiles, parse_hand
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
    "shape_question",
    "shape_wins",
    "stand_ins",
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
    if not isinstance(hand, (str, Hand)):
        raise HandError(f"a hand string or Hand is needed, not {type(hand).__name__}")
    try:
        context, resolved = _win_context(rule_set, version, settings, context_kwargs,
                                         rule_context)
    except HandError:
        if isinstance(hand, str):
            # a hand that is none says so first, as before the context; copies counted as
            # written are not (the context decides how meld tiles read: stand-ins)
            with contextlib.suppress(TooManyCopies):
                parse_hand(hand)
        raise
    try:
        parsed = _read_hand(rule_set, hand, context.extra)
    except TooManyCopies:  # counted as the context reads meld tiles: one that is none
        rule_set.check_context(context, resolved)  # (no gold given) says so first
        raise
    return rule_set, parsed, context, resolved


def _read_hand(rule_set: RuleSet, hand: str | Hand, extra: Mapping[str, Any]) -> Hand:
    """``hand`` parsed, or checked again, with its meld tiles read as ``rule_set`` reads
    them under the rule-specific fields ``extra`` (:meth:`RuleSet.stand_ins`: a Xiamen
    meld's tile of the gold's kind is a 白板, so a hand may hold it and four golds)."""
    melded_as = rule_set.stand_ins(extra)
    if isinstance(hand, str):
        return parse_hand(hand, melded_as=melded_as)
    if hand.melded_as == melded_as:
        return hand
    return dataclasses.replace(hand, melded_as=melded_as)


def stand_ins(rules: str = "mcr", **rule_context: Any) -> tuple[tuple[str, str], ...]:
    """The meld tiles ``rules`` read as another tile under the rule-specific context
    fields given — (written kind, the tile it is) pairs, for :func:`parse_hand` and
    :class:`Hand` (``melded_as=``), whose copy count then counts them as the tiles they
    are. Xiamen: a meld's tile of the gold's kind is a 白板 (``P``) standing in; none
    under MCR and Zhenjiang (a 百搭 melded is its own face), nor when the fields do not
    say (no gold given: :func:`check_context` refuses it). :func:`score`, :func:`waits`
    and :func:`discards` read a hand so by themselves; a caller that parses a hand
    before it asks them (``tilecam waits``, the API) parses it with these.

    >>> stand_ins("xiamen", gold="5m"), stand_ins("xiamen", indicator="P"), stand_ins("mcr")
    ((('5m', 'P'),), (), ())
    >>> gold = stand_ins("xiamen", gold="5m")  # [555m,1] is 3 白板: four golds may stand
    >>> parse_hand("[555m,1]5555m123p456pPEE", melded_as=gold).standing[:4]
    ('5m', '5m', '5m', '5m')
    """
    return get_rule_set(rules).stand_ins(rule_context)


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
    seen: str | Iterable[str] | None = None,
    **rule_context: Any,
) -> Waits:
    """Wait analysis of a hand one tile short of a win (13 standing+meld tiles in MCR):
    the tiles it waits on with the best score on each, or its shanten when not ready.

    ``seen``: the tiles the player sees elsewhere — others' discards and melds — in the
    notation (``"1m1m5pEE"``, ``"115m E, E"``: spaces and commas part groups) or as
    codes; each wait's tiles left are 4 less the hand's and these. A wait with none left
    is listed with 0 left and no score (a dead wait), and a ready hand whose every wait
    is dead is ready in form only (:attr:`Waits.live` false). Bonus tiles are ignored:
    no hand waits on one and a draw of one is replaced, so they change no count (a list
    of every tile shown may hold them), except under rules played without them
    (Zhenjiang), which refuse them as they refuse them in a hand. A wild seen (the
    Xiamen gold, the Zhenjiang 百搭) counts as its kind; Zhenjiang's 百搭 discards named
    in the context (``first_wild_discard``, ``wild_after_pung``) are among the tiles
    seen: that kind counts the more of the two. A kind seen more often than the 4 copies
    less the hand's leave is a :class:`HandError` naming the kind and both counts.

    With ``seen`` given, a wait is also scored as the rules score a win on the last tile
    of its kind where they have one (MCR 和绝张, 4 fan: :func:`_last_of_kind`): when the
    other three copies are in sight — among ``seen`` and in the hand's own melds — and
    the hand holds none standing (concealed), both its discard and its self-drawn score
    count it. Without ``seen`` no wait counts it: the hand's melds alone do not say that
    the rest of the table shows none (``seen=""`` says so: nothing seen elsewhere).

    >>> w = waits("123m456p789s1122z", seen="EES")  # waits on E and S: both E are seen
    >>> [(t.tile, t.remaining, t.discard is None) for t in w.waits], w.live, w.seen
    ([('E', 0, True), ('S', 1, False)], True, 'EES')
    >>> w = waits("[345m,1]45m789s123sEE", seen="33m")  # 3m: one in the chow, two seen
    >>> [(t.tile, t.remaining, t.discard.total, t.self_drawn.legal) for t in w.waits]
    [('3m', 1, 7, True), ('6m', 4, 2, False)]
    >>> [f.zh for f in w.waits[0].discard.fans]
    ['和绝张', '一般高', '老少副', '缺一门']
    >>> waits("[345m,1]45m789s123sEE").waits[0].discard.total  # no seen: no 和绝张
    3
    """
    gone = _seen_counts(seen, rules)
    rule_set, parsed, context, resolved = _prepare(
        hand,
        rules,
        version,
        settings,
        dict(seat_wind=seat_wind, prevalent_wind=prevalent_wind, flowers=flowers),
        rule_context,
    )
    found = rule_set.waits(parsed, context, resolved)
    if gone is None:
        return found
    held = rule_set.held(parsed, context, gone)
    left = _last_of_kind(rule_set, parsed, _left(found.waits, held), held, context, resolved)
    return dataclasses.replace(found, waits=left, seen=_seen_text(gone))


#: The longest ``seen`` text taken (the API caps the field at 600 characters too).
_SEEN_MAX_CHARS = 1000


def _seen_counts(seen: str | Iterable[str] | None, rules: str) -> list[int] | None:
    """The 34 counts of the tiles ``seen`` (:func:`waits`; bonus tiles left out), None
    when none are given; a :class:`HandError` beginning ``seen:`` for a code that is none,
    a meld in brackets, or a bonus tile under rules played without them. Too many of a
    kind for the hand is :meth:`RuleSet.held`'s to refuse
    (:func:`~scoring.rulesets.base.with_seen`). A Chinese keyboard's characters read as
    in hand notation (:func:`~scoring.notation.fold_width`: ``【】``, ``，`` and ``、``
    as commas, full-width ranks and letters), errors quoting the text as given."""
    if seen is None:
        return None
    if isinstance(seen, str):
        folded = fold_width(seen)  # one for one: its positions are those of seen
        if "[" in folded or "]" in folded:
            raise HandError(f"seen: give the tiles alone, in groups ({seen!r}: write a meld "
                            "seen as its tiles, e.g. 555p, without brackets)")
        if len(seen) > _SEEN_MAX_CHARS:
            raise HandError(f"seen: {len(seen)} characters; the tiles seen elsewhere are "
                            f"given in at most {_SEEN_MAX_CHARS} (a table holds 144 tiles)")
        codes = []
        text = folded.replace(",", " ")
        at = 0
        for group in text.split():  # spaces and commas end a group: "1, 5m" is no 1m
            at = text.index(group, at)
            try:  # the group as given: an error names its characters as typed
                codes += _tile_groups(seen[at : at + len(group)], at, seen)
            except HandError as exc:
                raise HandError(f"seen: {exc}") from None
            at += len(group)
    elif isinstance(seen, Iterable) and not isinstance(seen, (bytes, Mapping)):
        codes = []
        for n, tile in enumerate(seen):
            if not isinstance(tile, str):
                raise HandError(f"seen: tile {n + 1} is {type(tile).__name__}, not a tile code")
            try:
                codes.append(normalize_code(fold_width(tile).strip()))
            except HandError:
                raise HandError(f"seen: unknown tile code {tile.strip()!r} (seen tile "
                                f"{n + 1})") from None
    else:
        raise HandError(f"seen: the tiles seen elsewhere as notation or tile codes, not "
                        f"{type(seen).__name__}")
    flowers = [c for c in codes if T.is_flower(c)]
    if flowers:
        rule_set = get_rule_set(rules)
        if not rule_set.game.get("flowers", True):
            raise HandError(f"seen: {rule_set.title} plays without flowers: "
                            f"{' '.join(flowers)} cannot be seen (leave them out)")
    counts = [0] * T.NUM_KINDS
    for c in codes:
        if not T.is_flower(c):
            counts[T.index(c)] += 1
    return counts


def _seen_text(counts: Sequence[int]) -> str:
    """The tiles of ``counts`` in the notation, kinds in order (``"115pEE"``)."""
    return format_tiles([T.code(k) for k, n in enumerate(counts) for _ in range(n)])


def _left(found: tuple[WaitTile, ...], held: Sequence[int]) -> tuple[WaitTile, ...]:
    """``found`` with each wait's tiles left set to 4 less ``held`` (the tiles out of the
    wall: :meth:`RuleSet.held`, with the copy just discarded and the tiles seen); a wait
    with none left keeps no score (no win is left on it, as on a kind the hand holds
    four of)."""
    out = []
    for t in found:
        left = T.COPIES - held[T.index(t.tile)]
        if left <= 0:
            out.append(t if t.remaining == 0 and t.discard is None and t.self_drawn is None
                       else WaitTile(t.tile, 0, None, None))
        else:
            out.append(t if left == t.remaining else dataclasses.replace(t, remaining=left))
    return tuple(out)


def _last_of_kind(rule_set: RuleSet, kept: Hand, found: tuple[WaitTile, ...],
                  held: Sequence[int], context: WinContext,
                  settings: Mapping[str, Any]) -> tuple[WaitTile, ...]:
    """``found`` (the waits of ``kept``, a hand one tile short of a win, with their tiles
    left: :func:`_left`) with each wait on the last tile of its kind scored as such (MCR
    和绝张, ``last_of_kind``), where the rules read that field (:attr:`RuleSet.win_fields`;
    not Xiamen or Zhenjiang, which have no such win). A wait is one when the other three
    copies are in sight — ``held`` (the tiles out of the wall: :meth:`RuleSet.held`, the
    tiles seen elsewhere and, in :func:`discards`, the copy just discarded) holds three
    of its kind — and ``kept`` holds none of it standing: they are in its melds, seen
    elsewhere or discarded. Its discard and self-drawn scores are the rules' scores of
    the win with that field (a score the rules refuse so is kept as it was). Only
    :func:`waits` and :func:`discards` given ``seen`` ask this: without it the table is
    not known."""
    if "last_of_kind" not in rule_set.win_fields:
        return found
    out = []
    for t in found:
        k = T.index(t.tile)
        if held[k] != T.COPIES - 1 or t.tile in kept.standing:
            out.append(t)
            continue
        won = dataclasses.replace(kept, standing=(*kept.standing, t.tile))
        scores: list[Score | None] = []
        for drawn, before in ((False, t.discard), (True, t.self_drawn)):
            if before is None:
                scores.append(None)
                continue
            try:
                scores.append(rule_set.score(
                    won, dataclasses.replace(context, self_drawn=drawn, last_of_kind=True),
                    settings))
            except HandError:
                scores.append(before)
        out.append(dataclasses.replace(t, discard=scores[0], self_drawn=scores[1]))
    return tuple(out)


def drew(hand: str | Hand, rules: str = "mcr", **rule_context: Any) -> bool:
    """Whether ``hand`` is of a win's size — a hand that drew and must discard, for
    :func:`discards` — rather than one tile short of a win, for :func:`waits`; a hand of
    any other size is a :class:`HandError` naming both sizes (what ``tilecam waits`` and
    ``POST /v1/waits`` take). ``rule_context``: the rule-specific fields, which say how a
    hand given as notation reads its meld tiles (:func:`stand_ins`: the Xiamen gold).

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
        hand = parse_hand(hand, melded_as=rule_set.stand_ins(rule_context))
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
    seen: str | Iterable[str] | None = None,
    **rule_context: Any,
) -> Discards:
    """What to discard from a hand of a win's size (14 tiles in MCR, kongs counted as 3)
    that is no win — a hand that drew and must let a tile go (何切): each distinct standing
    tile with the :func:`waits` of the rest, best first (:class:`Discards`). A hand of
    another size is a :class:`HandError` naming the size needed.

    A discard that leaves the hand ready lists its waits; one of them whose last copy is
    the tile discarded (or seen elsewhere: ``seen``, as :func:`waits` takes it, the hand
    that drew holding the tile to discard) stays listed with 0 left and no score. A
    discard whose every wait is so is ready in form only (:attr:`Discard.live` false):
    it ranks after every ready discard with a live wait and before those one from ready
    (:func:`~scoring.rulesets.base.discard_order`). A discard that leaves it not ready
    lists its useful draws (有效牌, :class:`UsefulDraw`): the kinds whose draw lowers
    its shanten, with the copies left of each (4 less those the hand and its melds hold,
    the discard and those seen), which rank the discards of one shanten — where the
    rules count their shapes alone (:meth:`RuleSet.draw_shanten`; else None, and those
    discards rank by tile order).

    With ``seen`` given, a wait on the last tile of its kind scores it as :func:`waits`
    does (MCR 和绝张): the other three copies in sight — seen elsewhere, in the hand's
    melds or the copy discarded — and none kept standing; so does the hand as it stands
    won on its last tile (``win``, ``win_on_discard``, ``win_self_drawn``) when the other
    three are seen or in its melds and it holds no other standing.

    >>> d = discards("[EEE,2]123m456p789sN1s")
    >>> [(x.tile, x.waits.shanten, [w.tile for w in x.waits.waits]) for x in d.ready_after]
    [('1s', 0, ['N']), ('N', 0, ['1s'])]
    >>> [w.remaining for w in d.ready_after[0].waits.waits]  # N: 4 less the one held
    [3]
    >>> d = discards("[EEE,2]123m456p789sN1s", seen="NNN")  # the other N seen
    >>> [(x.tile, x.live, [(w.tile, w.remaining) for w in x.waits.waits])
    ...  for x in d.discards[:2]]  # 1s: waits on N in form only, after the live N
    [('N', True, [('1s', 3)]), ('1s', False, [('N', 0)])]
    >>> d = discards("[345m,1]345m789s123sEE", seen="3m")  # let 3m go: one in the chow,
    >>> x = next(x for x in d.discards if x.tile == "3m")  # one seen, one discarded
    >>> [(w.tile, w.remaining, "和绝张" in [f.zh for f in w.discard.fans]) for w in x.waits.waits]
    [('3m', 1, True), ('6m', 4, False)]
    """
    from scoring.rulesets.base import discard_order

    gone = _seen_counts(seen, rules)
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
    # the discarded copy too: it lies dead in the discards, one fewer of its kind to wait
    # on, and a wait whose last copy it was can no longer be won on (listed, unscored)
    held = rule_set.held(parsed, context, gone)
    wilds = rule_set.wild_kinds(context)
    shown = "" if gone is None else _seen_text(gone)
    out = []
    for tile in dict.fromkeys(parsed.standing):
        kept = list(parsed.standing)
        kept.remove(tile)
        rest = dataclasses.replace(parsed, standing=tuple(kept))
        w = rule_set.waits(rest, context, resolved)
        left = _left(w.waits, held)
        if gone is not None:  # the tiles in sight known: 和绝张 where the rules have it
            left = _last_of_kind(rule_set, rest, left, held, context, resolved)
        w = dataclasses.replace(w, waits=left, seen=shown)
        useful = None if w.ready else _useful_draws(rule_set, rest, held, w.shanten, context,
                                                    resolved)
        out.append(Discard(tile, w, useful))
    last = parsed.standing[-1]  # the hand as it stands won on its last tile: 和绝张 too
    on_discard, self_drawn, win = _as_won(
        rule_set, parsed, context, resolved,
        last_of_kind=(gone is not None and "last_of_kind" in rule_set.win_fields
                      and held[T.index(last)] == T.COPIES and parsed.standing.count(last) == 1))
    return Discards(rule_set.name, resolved.get("version"), str(parsed),
                    tuple(sorted(out, key=lambda d: discard_order(d, wilds))), win, on_discard,
                    self_drawn, shown)


def _useful_draws(rule_set: RuleSet, kept: Hand, held: list[int], shanten: int,
                  context: WinContext,
                  settings: Mapping[str, Any]) -> tuple[UsefulDraw, ...] | None:
    """The useful draws (有效牌) of ``kept``, a hand one tile short of a win that is
    ``shanten`` (1 or more) from ready: each kind of which a copy is left (4 less
    ``held``: the tiles of the hand that drew, the copy discarded among them, and those
    seen elsewhere) whose draw
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


def _as_won(rule_set: RuleSet, hand: Hand, context: WinContext, settings: Mapping[str, Any],
            *, last_of_kind: bool = False
            ) -> tuple[Score | None, Score | None, Score | None]:
    """``hand`` scored as a win on its last tile on a discard and self-drawn (each None
    where the scorer refuses it; ``last_of_kind``: each as a win on the last tile of its
    kind, 和绝张 — :func:`discards` given ``seen`` sets it when the other three copies
    are in sight and the hand holds no other standing), and the win it is — the first
    legal one of the two,
    else, when it has a winning shape, the first scored (under MCR's 8 fan, a context
    the rules refuse); all None when it is no win. A rule set with fields that say what
    the tiles are (the gold, the 百搭: ``tile_context``) answers a hand of no winning
    shape with a score that is not legal (a 诈胡), so its shape is asked apart
    (:func:`shape_wins`); one without them (MCR) refuses such a hand."""
    ways: list[Score | None] = []
    for drawn in (False, True):
        try:
            ways.append(rule_set.score(hand, dataclasses.replace(
                context, self_drawn=drawn, last_of_kind=last_of_kind), settings))
        except HandError:
            ways.append(None)
    scored = [s for s in ways if s is not None]
    win = next((s for s in scored if s.legal), None)
    if win is None and scored and (not rule_set.tile_context
                                   or shape_wins(rule_set, hand, context.extra, settings)):
        win = scored[0]
    return (ways[0], ways[1], win) if win is not None else (None, None, None)


def shape_wins(rule_set: RuleSet, hand: Hand, context: Mapping[str, Any],
               settings: Mapping[str, Any], whole: bool = False) -> bool:
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

    ``whole``: ``context`` is the whole win context as :func:`score` takes it (its
    general fields — ``self_drawn``, ``kong``, ``discarder`` … — and the rule set's own;
    those left out are :func:`score`'s defaults: a win on a discard unless self-drawn),
    and the rules say which of it decides the shape
    (:meth:`~scoring.rulesets.base.RuleSet.shape_context`): a Zhenjiang 百搭 won on a
    discard is its own face, a Xiamen gold cannot be won on a discard, 游金 has a shape of
    its own. The reader of photos asks so, to read the tiles as a win that can be.

    >>> zj = get_rule_set("zhenjiang")
    >>> plain = resolved_settings(zj, None, None)
    >>> [shape_wins(zj, parse_hand(h), {"indicator": "1m", "kong": True}, plain)
    ...  for h in ("111p456m789m123pSS", "111p456m789m123pSN", "111p46m789m123pSS2m")]
    [True, False, True]
    >>> shape_wins(zj, parse_hand("111p46m789m123pSS2m"), {"indicator": "1m"}, plain,
    ...            whole=True)  # the 百搭 2m won on a discard is its own face
    False
    """
    try:
        shape: WinContext | None = shape_question(rule_set, context, whole)
        if whole and shape is not None:
            shape = rule_set.shape_context(hand, shape)
        return shape is not None and rule_set.score(hand, shape, settings).legal
    except HandError:
        return False


def shape_question(rule_set: RuleSet, context: Mapping[str, Any],
                   whole: bool = False) -> WinContext:
    """The :class:`WinContext` :func:`shape_wins` scores a hand with: a self-drawn win with
    only the fields of ``context`` that say what the tiles are; under ``whole``, the whole
    ``context`` (``version`` and ``settings`` left out), before the rules narrow it for
    the hand (:meth:`~scoring.rulesets.base.RuleSet.shape_context`). HandError for a
    field the scorer refuses. Where the narrowed whole context equals the plain one, the
    two questions are one (the reader of photos then scores a hand once for both).

    >>> x = get_rule_set("xiamen")
    >>> shape_question(x, {"gold": "5m", "self_drawn": True}).self_drawn
    True
    >>> shape_question(x, {"gold": "5m"}, whole=True).self_drawn
    False
    """
    if not whole:
        tiles = {k: v for k, v in context.items() if k in rule_set.tile_context}
        return WinContext(self_drawn=True, extra=rule_set.resolve_context(tiles))
    given = {k: v for k, v in context.items() if k not in ("version", "settings")}
    generic = {f.name: given.pop(f.name) for f in dataclasses.fields(WinContext)
               if f.name != "extra" and f.name in given}
    return WinContext(**generic, extra=rule_set.resolve_context(given))
