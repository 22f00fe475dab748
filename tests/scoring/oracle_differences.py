"""The reference calculator (PyPI ``pymahjonggb``) for differential tests, and the ONE list
of intended differences between it and tilecam's MCR engine under ``mil-2015``.

Never used as a scorer: only tests and ``bench/score_bench.py`` import this module.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from scoring import Hand
from scoring.mcr import engine
from scoring.mcr.calculator import reading_tables, table_total
from scoring.mcr.fans import FANS
from scoring.rulesets.base import WinContext

# Intended differences (tilecam vs pymahjonggb, mil-2015). Each is either avoided by the
# hand generator (the context is made consistent) or checked by its own test. Not a
# difference: 边张/坎张/单钓将 in a 组合龙 hand. The reference judges them on the part
# outside the 组合龙 (MIL ruling), tilecam on the whole hand's formal wait, in every
# version; the two agree on every 组合龙 win (test_knitted_wait77).
DIFFERENCES: dict[str, str] = {
    "last_tile_inferred": (
        "The reference sets 和绝张 by itself when the winner's own melds hold the other three "
        "copies of the winning tile; tilecam takes 和绝张 only from the last_of_kind flag. "
        "The generator sets the flag in that case, so the results agree."
    ),
    "impossible_context": (
        "The reference silently drops 和绝张 when the standing hand holds another copy, "
        "杠上开花 with no kong and 抢杠和 on a tile the winner holds, and scores 抢杠和 with "
        "海底捞月 on one discard; tilecam rejects these contexts with a HandError "
        "(test_mcr_context)."
    ),
    "flowers_and_minimum": (
        "The reference total includes flowers without checking the 8-fan minimum; tilecam's "
        "total also includes flowers but reports legal=False below 8 fan before flowers "
        "(totals agree; legality is tilecam's own)."
    ),
    "tie_between_readings": (
        "When two readings score the same total, tilecam keeps the first in its reading "
        "order; the reference sometimes keeps another (seen: 一色三同顺 + 平和 vs 一色三节高 + "
        "双暗刻 on a discard). Totals agree; the test accepts the reference's fans when they "
        "are exactly one of tilecam's equal-total readings."
    ),
}

_EN_TO_ID = {f.en: f.id for f in FANS.values()}
_REFERENCE_EN = {
    # reference English name -> tilecam fan id, where the names differ
    "Two Dragons Pungs": "two_dragon_pungs",
    "All Five": "all_five",
    "Robbing The Kong": "robbing_the_kong",
}
_SUIT = {"m": "W", "p": "B", "s": "T"}
_HONOUR = {"E": "F1", "S": "F2", "W": "F3", "N": "F4", "C": "J1", "F": "J2", "P": "J3"}


def ref_tile(code: str) -> str:
    """tilecam code -> reference code (``5p`` -> ``B5``, ``C`` -> ``J1``)."""
    if code in _HONOUR:
        return _HONOUR[code]
    return _SUIT[code[1]] + code[0]


def reference_args(hand: Hand, ctx: dict[str, Any]) -> dict[str, Any]:
    """Keyword arguments of ``MahjongGB.MahjongFanCalculator`` for a hand and context."""
    packs: list[tuple[str, str, int | None]] = []
    for m in hand.melds:
        if m.kind == "chow":
            index = 1 if m.claimed_index is None else m.claimed_index + 1
            packs.append(("CHI", ref_tile(m.tiles[1]), index))
        elif m.kind == "pung":
            packs.append(("PENG", ref_tile(m.tiles[0]), m.claimed_from))
        else:
            packs.append(("GANG", ref_tile(m.tiles[0]), m.claimed_from or 0))
    winds = "ESWN"
    return {
        "pack": tuple(packs),
        "hand": tuple(ref_tile(t) for t in hand.standing[:-1]),
        "winTile": ref_tile(hand.standing[-1]),
        "flowerCount": int(ctx.get("flowers", 0)),
        "isSelfDrawn": bool(ctx.get("self_drawn", False)),
        "is4thTile": bool(ctx.get("last_of_kind", False)),
        "isAboutKong": bool(ctx.get("kong", False)),
        "isWallLast": bool(ctx.get("last_wall_tile", False)),
        "seatWind": winds.index(ctx.get("seat_wind", "E")),
        "prevalentWind": winds.index(ctx.get("prevalent_wind", "E")),
        "verbose": True,
    }


def reference_score(hand: Hand, ctx: dict[str, Any]) -> tuple[int, Counter[str]]:
    """Total and fan counts (tilecam ids) from the reference calculator."""
    from MahjongGB import MahjongFanCalculator

    fans = MahjongFanCalculator(**reference_args(hand, ctx))
    counts: Counter[str] = Counter()
    total = 0
    for value, count, _zh, en in fans:
        fan_id = _REFERENCE_EN.get(en) or _EN_TO_ID.get(en)
        if fan_id is None:
            raise KeyError(f"reference fan {en!r} has no tilecam id")
        counts[fan_id] += count
        total += value * count
    return total, counts


def tilecam_fans(score: Any) -> Counter[str]:
    """Fan counts (ids) of a tilecam Score."""
    by_en = {f.en: f.id for f in FANS.values()}
    return Counter({by_en[f.en]: f.count for f in score.fans})


def equal_readings(hand: Hand, ctx: dict[str, Any], total: int) -> list[Counter[str]]:
    """The fan counts of each of tilecam's readings of ``hand`` worth ``total`` (mil-2015,
    flowers added): where two readings tie, the reference may keep either."""
    win = engine.build_win(hand, WinContext(**ctx), "mil-2015")
    out = []
    flowers = ctx.get("flowers", 0)
    for table, _ in reading_tables(win):
        if table_total(table, win.version) + flowers == total:
            counts = Counter({f: len(occ) for f, occ in table.items()})
            if flowers:
                counts["flower_tiles"] = flowers
            out.append(counts)
    return out


def reference_waits(standing: tuple[str, ...], n_melds: int) -> set[str]:
    """The tiles the reference calculator says ``standing`` (beside ``n_melds`` melds)
    waits on, over every winning form it knows (empty unless ready)."""
    from MahjongGB import (
        HonorsAndKnittedTilesShanten,
        KnittedStraightShanten,
        RegularShanten,
        SevenPairsShanten,
        ThirteenOrphansShanten,
    )

    from scoring.tiles import KINDS

    back = {ref_tile(c): c for c in KINDS}
    forms = [RegularShanten]
    if n_melds == 0:
        forms += [SevenPairsShanten, ThirteenOrphansShanten, HonorsAndKnittedTilesShanten]
    if n_melds <= 1:
        forms.append(KnittedStraightShanten)
    out: set[str] = set()
    for form in forms:
        s, useful = form(tuple(ref_tile(t) for t in standing))
        if s == 0:
            out |= {back[u] for u in useful}
    return out


def dealt_hand(rng: Any) -> tuple[list[str], list[tuple[str, str, int]]] | None:
    """A hand dealt at random (not one tile short of a win): 0-4 claimed melds as the
    reference's packs, half the time from one or two suits so that ready hands and
    knitted shapes come up too; the 13 - 3 × melds standing tiles and the packs, or None
    when the melds drew a fifth copy. ``rng``: a :class:`random.Random`."""
    from scoring.tiles import KINDS

    held = dict.fromkeys(KINDS, 0)
    packs = []
    for _meld in range(rng.choice([0, 0, 0, 1, 1, 2, 3, 4])):
        if rng.random() < 0.5:
            suit, rank = rng.choice("mps"), rng.randint(1, 7)
            tiles = [f"{rank + k}{suit}" for k in range(3)]
            packs.append(("CHI", ref_tile(tiles[1]), 1))
        else:
            tiles = [rng.choice(KINDS)] * 3
            packs.append(("PENG", ref_tile(tiles[0]), 1))
        for t in tiles:
            held[t] += 1
    if max(held.values()) > 4:
        return None
    pool = [t for t in KINDS for _ in range(4 - held[t])]
    if rng.random() < 0.5:
        suits = rng.sample(["m", "p", "s", "z"], rng.choice([1, 2]))
        some = [t for t in pool if (t[-1] if t[-1] in "mps" else "z") in suits]
        pool = some if len(some) >= 13 - 3 * len(packs) else pool
    return rng.sample(pool, 13 - 3 * len(packs)), packs
