"""MCR scoring of a :class:`~scoring.hand.Hand`: checks, fans, legality, settlement, waits.

>>> from scoring.notation import parse_hand
>>> from scoring.rulesets.base import WinContext
>>> r = score_hand(parse_hand("11223344556677s"), WinContext(self_drawn=True), "mil-2015")
>>> r.total, [f.zh for f in r.fans]
(89, ['连七对', '自摸'])
"""

from __future__ import annotations

from dataclasses import dataclass

from scoring import tiles as T
from scoring.hand import Hand, HandError, NotAWinningHand
from scoring.mcr.calculator import ALL, Table, Win, best_table, fan_value, reading_texts
from scoring.mcr.decompose import CHOW, KONG, PUNG, Reading, Set
from scoring.mcr.fans import FANS, ORDER
from scoring.mcr.versions import VERSIONS
from scoring.mcr.waits import formal_waits, shanten
from scoring.notation import format_hand
from scoring.rulesets.base import Payment, ScoredFan, Settlement, WaitTile, WinContext

_INDEX = {code: i for i, code in enumerate(T.KINDS)}

HAND_SIZE = 14
MIN_FAN = 8


@dataclass(frozen=True)
class McrResult:
    """Fans (flowers included), total, fan before flowers, legality."""

    fans: tuple[ScoredFan, ...]
    total: int
    base: int
    flowers: int
    legal: bool


def meld_sets(hand: Hand) -> tuple[tuple[Set, ...], int]:
    """Melds as sets, and how many were claimed from other players."""
    sets: list[Set] = []
    claimed = 0
    for m in hand.melds:
        tile = _INDEX[m.tiles[0]]
        if m.kind == "chow":
            sets.append((CHOW, tile, False))
        elif m.kind == "pung":
            sets.append((PUNG, tile, False))
        else:
            sets.append((KONG, tile, m.claimed_from is None))
        if m.claimed_from is not None:
            claimed += 1
    return tuple(sets), claimed


def build_win(hand: Hand, context: WinContext, version: str) -> Win:
    """Check the hand and its context and gather what the fan checks need.

    Raises :class:`HandError` for a wrong tile count or a context that cannot happen.
    """
    if len(hand.melds) > 4:
        raise HandError(f"{len(hand.melds)} melds: a hand has at most 4 sets besides the pair")
    n = hand.tile_count
    if n != HAND_SIZE:
        raise HandError(
            f"wrong number of tiles: {n} (a winning MCR hand has 14, each kong counted as 3; "
            f"{len(hand.standing)} standing + {len(hand.melds)} melds)"
        )
    idx = _INDEX
    counts = [0] * T.NUM_KINDS
    for t in hand.standing:
        counts[idx[t]] += 1
    win_code = hand.standing[-1]
    win = idx[win_code]
    before = list(counts)
    before[win] -= 1
    melds, claimed = meld_sets(hand)
    all_counts = list(counts)
    held_in_melds = 0
    for m in hand.melds:
        for t in m.tiles:
            i = idx[t]
            all_counts[i] += 1
            if i == win:
                held_in_melds += 1
    if context.last_of_kind and before[win]:
        raise HandError(
            f"和绝张 (last of its kind) cannot happen: the standing hand holds another {win_code}"
        )
    if context.kong and context.self_drawn and not any(m.kind == "kong" for m in hand.melds):
        raise HandError("杠上开花 (win on a kong replacement tile) needs a kong among the melds")
    if context.kong and not context.self_drawn and context.last_wall_tile:
        raise HandError(
            "抢杠和 (robbing the kong) and 海底捞月 (the last discard) cannot both happen: the "
            "robbed tile is not a discard, and no kong is added once the wall is empty"
        )
    if context.kong and not context.self_drawn and (before[win] or held_in_melds):
        raise HandError(
            f"抢杠和 (robbing the kong) cannot happen: the winner holds {win_code} "
            "(another player adds the fourth copy of it to a pung)"
        )
    return Win(
        counts=counts,
        before=before,
        all_counts=all_counts,
        win=win,
        melds=melds,
        claimed=claimed,
        self_drawn=context.self_drawn,
        last_of_kind=context.last_of_kind,
        kong=context.kong,
        last_wall_tile=context.last_wall_tile,
        seat=27 + T.WIND_INDEX[context.seat_wind],
        prevalent=27 + T.WIND_INDEX[context.prevalent_wind],
        version=VERSIONS[version],
    )


def scored_fans(table: Table, reading: Reading, win: Win) -> list[ScoredFan]:
    """A fan table as :class:`ScoredFan` entries in rulebook order; each occurrence names
    its sets (whole-hand fans name every set of the reading)."""
    out = []
    everything: tuple[str, ...] | None = None
    for fan_id in sorted(table, key=ORDER.__getitem__):
        occ = table[fan_id]
        if occ[0] is ALL:  # whole-hand fans occur once
            if everything is None:
                everything = reading_texts(reading, win)
            occ = [everything]
        f = FANS[fan_id]
        out.append(ScoredFan(f.zh, f.en, fan_value(fan_id, win.version), len(occ), tuple(occ)))
    return out


def score_hand(
    hand: Hand, context: WinContext, version: str, min_fan: int = MIN_FAN
) -> McrResult:
    """Score a winning hand; :class:`HandError` if it is not one or the context is impossible."""
    win = build_win(hand, context, version)
    best = best_table(win)
    if best is None:
        raise NotAWinningHand(
            f"not a winning hand: {format_hand(hand)} does not form 4 sets and a pair, "
            "seven pairs, thirteen orphans, 全不靠/七星不靠 or 组合龙 with a set and a pair"
        )
    table, reading = best
    fans = scored_fans(table, reading, win)
    base = sum(f.points for f in fans)
    flowers = context.flower_count(hand)
    if flowers:
        f = FANS["flower_tiles"]
        sets = tuple((t,) for t in hand.flowers) if hand.flowers else ()
        fans.append(ScoredFan(f.zh, f.en, f.value, flowers, sets))
    return McrResult(tuple(fans), base + flowers, base, flowers, base >= min_fan)


def illegal_reason(base: int, min_fan: int) -> str:
    """Why a winning shape is no legal win: too few fan before flowers (起和番).

    >>> illegal_reason(5, 8)
    '5 fan before flowers, 8 needed'
    """
    return f"{base} fan before flowers, {min_fan} needed"


def settle(
    total: int, legal: bool, context: WinContext, base_points: int, base: int, min_fan: int
) -> Settlement:
    """MCR payments: self-drawn, each other player pays ``base_points + total``; on a
    discard the discarder pays ``base_points + total`` and the other two ``base_points``."""
    if not legal:
        return Settlement(
            "points",
            (),
            f"not a legal win: {illegal_reason(base, min_fan)} "
            "(错和: the penalty belongs to the table's score sheet)",
        )
    full = base_points + total
    if context.self_drawn:
        payments = tuple(Payment(name, full) for name in ("left", "opposite", "right"))
        return Settlement(
            "points", payments, f"self-drawn: each other player pays {base_points} + total"
        )
    if context.discarder is not None:
        names = {1: "left", 2: "opposite", 3: "right"}
        payments = tuple(
            Payment(names[s], full if s == context.discarder else base_points) for s in (1, 2, 3)
        )
    else:
        payments = (
            Payment("discarder", full),
            Payment("other", base_points),
            Payment("other", base_points),
        )
    return Settlement(
        "points",
        payments,
        f"discard: the discarder pays {base_points} + total, the other two pay {base_points}",
    )


def wait_analysis(
    hand: Hand, context: WinContext, version: str, min_fan: int = MIN_FAN
) -> tuple[int, list[WaitTile], list[tuple[McrResult | None, McrResult | None]]]:
    """Shanten, and for a ready hand each wait with its best discard and self-drawn score."""
    if len(hand.melds) > 4:
        raise HandError(f"{len(hand.melds)} melds: a hand has at most 4 sets besides the pair")
    n = hand.tile_count
    if n != HAND_SIZE - 1:
        raise HandError(
            f"wrong number of tiles for a wait: {n} (a waiting MCR hand has 13, each kong "
            "counted as 3)"
        )
    counts = hand.counts()
    n_melds = len(hand.melds)
    s = shanten(counts, n_melds)
    if s > 0:
        return s, [], []
    held = list(counts)
    for m in hand.melds:
        for t in m.tiles:
            held[T.index(t)] += 1
    waits: list[WaitTile] = []
    results: list[tuple[McrResult | None, McrResult | None]] = []
    plain = WinContext(
        seat_wind=context.seat_wind,
        prevalent_wind=context.prevalent_wind,
        flowers=context.flowers,
        extra=context.extra,
    )
    drawn = WinContext(
        self_drawn=True,
        seat_wind=context.seat_wind,
        prevalent_wind=context.prevalent_wind,
        flowers=context.flowers,
        extra=context.extra,
    )
    for i in formal_waits(counts, n_melds):
        code = T.code(i)
        remaining = T.COPIES - held[i]
        on_discard: McrResult | None = None
        on_draw: McrResult | None = None
        if remaining > 0:
            complete = Hand(hand.melds, (*hand.standing, code), hand.flowers)
            on_discard = score_hand(complete, plain, version, min_fan)
            on_draw = score_hand(complete, drawn, version, min_fan)
        waits.append(WaitTile(code, remaining, None, None))
        results.append((on_discard, on_draw))
    return 0, waits, results
