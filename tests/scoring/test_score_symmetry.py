"""Metamorphic checks of the three rule sets: the rules never name a suit, and, but for a
few fans, never tell a rank from its mirror (n ↔ 10 - n), so a hand whose suits are
swapped or whose ranks are mirrored — with its gold / 百搭 moved along — scores the same.

MCR exceptions, from its fan table: 推不倒 (Reversible Tiles: 1234589p, 245689s, 白) and
绿一色 (All Green: 23468s, 發) name tiles, so hands showing either are left out; mirroring
turns 全大 into 全小 and 大于五 into 小于五 (and back). A hand can have two readings of one
highest total (11223344m won on 3m: 123m 123m 44m, 边张, or 11m 234m 234m, 坎张); the
engine keeps the first (就高不就低), and mirroring may make the other first — so an MCR
fan list is checked to be one of the changed hand's highest readings, and Xiamen (a gold
read as itself or as a wild tile) is compared by total, legality and payments.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable

import pytest
from test_wild_rulesets_fuzz import complete_standing

import scoring
from scoring import tiles as T
from scoring.hand import Hand, HandError, Meld
from scoring.mcr.calculator import reading_tables, table_total
from scoring.mcr.engine import build_win, scored_fans
from scoring.mcr.samples import random_win
from scoring.rulesets.base import WinContext
from scoring.rulesets.zhenjiang import wild_from_indicator

TileMap = Callable[[str], str]
NAMED_TILES = {"推不倒", "绿一色"}
MIRRORED_FANS = {"全大": "全小", "全小": "全大", "大于五": "小于五", "小于五": "大于五"}


def suited(change: Callable[[int, str], str]) -> TileMap:
    """A map of tile codes changing suited tiles only (``change(rank, suit)``)."""
    return lambda t: change(int(t[0]), t[1]) if t[1:] in ("m", "p", "s") else t


def swap_suits(order: str) -> TileMap:
    """m, p, s → ``order``'s suits; e.g. ``swap_suits("psm")``.

    >>> swap_suits("psm")("3m"), swap_suits("psm")("C")
    ('3p', 'C')
    """
    to = dict(zip("mps", order, strict=True))
    return suited(lambda rank, suit: f"{rank}{to[suit]}")


mirror = suited(lambda rank, suit: f"{10 - rank}{suit}")


def moved(hand: Hand, change: TileMap) -> Hand:
    """``hand`` with every tile changed; a mirrored chow keeps its claimed tile."""
    melds = []
    for m in hand.melds:
        tiles = tuple(sorted((change(t) for t in m.tiles), key=T.index))
        index = m.claimed_index
        if m.kind == "chow" and index is not None and tiles[0] != change(m.tiles[0]):
            index = 2 - index  # the run reversed: its claimed tile is now at the other end
        melds.append(Meld(m.kind, tiles, m.claimed_from, index, m.added))
    return Hand(tuple(melds), tuple(change(t) for t in hand.standing), hand.flowers)


CHANGES = [(f"suits {order}", swap_suits(order))
           for order in ("".join(p) for p in itertools.permutations("mps")) if order != "mps"]
CHANGES.append(("mirror", mirror))


def same_score(a: scoring.Score, b: scoring.Score, fans: bool,
               rename: dict[str, str] | None = None) -> bool:
    def names(s: scoring.Score, table: dict[str, str]) -> list[tuple[str, int]]:
        return sorted((table.get(f.zh, f.zh), f.count) for f in s.fans)

    if (a.legal, a.total, a.settlement.payments) != (b.legal, b.total, b.settlement.payments):
        return False
    return not fans or names(a, rename or {}) == names(b, {})


def highest_readings(hand: Hand, ctx: dict[str, object]) -> list[list[tuple[str, int]]]:
    """The fan lists (name, count; before flowers) of every MCR reading of ``hand`` with the
    highest total."""
    win = build_win(hand, WinContext(**ctx), "mil-2015")  # type: ignore[arg-type]
    tables = reading_tables(win)
    best = max(table_total(t, win.version) for t, _ in tables)
    return [sorted((f.zh, f.count) for f in scored_fans(t, r, win))
            for t, r in tables if table_total(t, win.version) == best]


@pytest.mark.parametrize("seed", range(2))
def test_mcr_scores_the_same_with_suits_swapped_or_ranks_mirrored(seed: int) -> None:
    """MCR's fans name no suit (but 推不倒, 绿一色) and mirror into each other."""
    rng = random.Random(5800 + seed)
    checked = ties = 0
    for _ in range(300):
        hand, ctx = random_win(rng)
        base = scoring.score(hand, **ctx)
        for name, change in CHANGES:
            changed = moved(hand, change)
            other = scoring.score(changed, **ctx)
            if NAMED_TILES & {f.zh for f in (*base.fans, *other.fans)}:
                continue
            assert same_score(base, other, False), (name, scoring.format_hand(hand))
            rename = MIRRORED_FANS if name == "mirror" else {}
            fans = sorted((rename.get(f.zh, f.zh), f.count) for f in base.fans
                          if f.zh != "花牌")
            if fans != sorted((f.zh, f.count) for f in other.fans if f.zh != "花牌"):
                ties += 1
                assert fans in highest_readings(changed, ctx), (
                    name, scoring.format_hand(hand), base.fans, other.fans)
            checked += 1
    assert checked >= 1700 and ties < checked // 20


def wild_hand(rng: random.Random, rules: str) -> tuple[Hand, dict[str, object]]:
    """A complete Xiamen (17 tiles, flowers, a gold) or Zhenjiang (14 tiles, a 百搭) hand
    with some tiles the wild kind, and its scoring keywords."""
    wild = rng.choice(T.KINDS)
    sets = 5 if rules == "xiamen" else 4
    standing = complete_standing(rng, sets, wild)
    flowers = tuple(rng.sample(T.FLOWERS, rng.randrange(3))) if rules == "xiamen" else ()
    key = "gold" if rules == "xiamen" else "wild"
    return Hand((), tuple(standing), flowers), {key: wild, "self_drawn": rng.random() < 0.5}


@pytest.mark.parametrize("rules", ["xiamen", "zhenjiang"])
def test_wild_rule_sets_score_the_same_with_suits_swapped_or_ranks_mirrored(
    rules: str,
) -> None:
    """Xiamen's 金 and Zhenjiang's 百搭 move with the tiles; nothing else changes."""
    rng = random.Random(5810)
    checked = legal = 0
    for _ in range(300):
        hand, kw = wild_hand(rng, rules)
        try:
            base = scoring.score(hand, rules=rules, **kw)
        except HandError:
            continue
        legal += base.legal
        for name, change in CHANGES:
            kw2 = {k: change(v) if isinstance(v, str) else v for k, v in kw.items()}
            other = scoring.score(moved(hand, change), rules=rules, **kw2)
            assert same_score(base, other, rules == "zhenjiang"), (
                name, scoring.format_hand(hand), kw, base.fans, other.fans)
            checked += 1
    assert legal >= 100 and checked >= 1200


def test_zhenjiang_indicators_move_with_their_wild() -> None:
    """The 百搭 is the next rank of the indicator's suit: swapping suits moves both."""
    for order in ("psm", "smp"):
        change = swap_suits(order)
        for indicator in T.KINDS:
            assert wild_from_indicator(change(indicator)) == change(
                wild_from_indicator(indicator))
