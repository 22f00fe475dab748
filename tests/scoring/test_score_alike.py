"""``RuleSet.score_alike``: tile codes a rule set's score never tells apart.

A camera may misread which flower or season a bonus tile is; these groups say when that
cannot change the score. Each claim is checked by scoring hands both ways.
"""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest

import scoring
from scoring.hand import Hand
from scoring.mcr.samples import random_wins
from scoring.rulesets import get_rule_set, rule_sets
from scoring.tiles import FLOWERS


def _money(s: scoring.Score) -> tuple[Any, ...]:
    """What a score pays and counts, leaving out which codes each fan lists."""
    fans = tuple((f.zh, f.value, f.count) for f in s.fans)
    pays = tuple((p.payer, p.amount) for p in s.settlement.payments)
    return s.total, s.legal, fans, pays, s.settlement.winner_receives


def _swap_within(flowers: tuple[str, ...], groups: tuple[tuple[str, ...], ...],
                 rng: random.Random) -> tuple[str, ...]:
    """``flowers`` with each code replaced by another of its group, none twice."""
    out: list[str] = []
    for code in flowers:
        group = next((g for g in groups if code in g), (code,))
        free = [c for c in group if c not in out and c not in flowers[len(out) + 1:]]
        out.append(rng.choice(free) if free else code)
    return tuple(out)


def test_every_rule_set_names_only_bonus_tiles_as_alike_and_each_once() -> None:
    for name, rule_set in rule_sets().items():
        codes = [c for g in rule_set.score_alike for c in g]
        assert len(codes) == len(set(codes)), name
        assert all(c.endswith("f") for c in codes), name


def test_mcr_flower_tiles_count_by_number_so_any_eight_are_alike() -> None:
    """MCR fan 81 花牌: one fan per bonus tile, whichever it is."""
    groups = get_rule_set("mcr").score_alike
    rng = random.Random(53)
    checked = 0
    for hand, ctx in random_wins(200, seed=53):
        ctx = {**ctx, "flowers": 0}  # the bonus tiles are shown instead of counted
        shown = tuple(rng.sample(FLOWERS, rng.randint(1, 8)))
        swapped = _swap_within(shown, groups, rng)
        one = Hand(hand.melds, hand.standing, shown)
        other = Hand(hand.melds, hand.standing, swapped)
        assert _money(scoring.score(one, **ctx)) == _money(scoring.score(other, **ctx))
        checked += shown != swapped
    assert checked >= 150


def test_mcr_alike_group_is_all_eight_bonus_tiles() -> None:
    a = scoring.score("[123m,1]456m789m55p23s 1f2f3f4f 4s")
    b = scoring.score("[123m,1]456m789m55p23s 5f6f7f8f 4s")
    assert get_rule_set("mcr").score_alike == (tuple(f"{n}f" for n in range(1, 9)),)
    assert _money(a) == _money(b)


@pytest.mark.parametrize(
    "flowers, swapped",
    [("1f", "4f"), ("1f5f", "3f8f"), ("2f3f6f", "1f4f7f"), ("5f6f7f", "6f7f8f")],
)
def test_xiamen_water_counts_which_group_a_bonus_tile_is_in_not_which_of_it(
    flowers: str, swapped: str
) -> None:
    """Xiamen 水: one per flower, +4 for all four seasons or all four flowers."""
    kw = {"rules": "xiamen", "gold": "9s", "self_drawn": True}
    a = scoring.score(f"123m456m789m234p567p5s {flowers} 5s", **kw)
    b = scoring.score(f"123m456m789m234p567p5s {swapped} 5s", **kw)
    assert _money(a) == _money(b)


def test_xiamen_groups_are_not_alike_with_each_other() -> None:
    """All four seasons earn more 水 than three seasons and a flower: the two groups of
    ``score_alike`` must stay apart."""
    kw = {"rules": "xiamen", "gold": "9s", "self_drawn": True}
    four = scoring.score("123m456m789m234p567p5s 1f2f3f4f 5s", **kw)
    mixed = scoring.score("123m456m789m234p567p5s 1f2f3f5f 5s", **kw)
    assert four.total > mixed.total
    groups = get_rule_set("xiamen").score_alike
    assert not any({"4f", "5f"} <= set(g) for g in groups)


def test_mcr_swapping_a_flower_for_a_kind_is_not_alike() -> None:
    """The groups hold bonus tiles only: a suit tile read for a flower changes the hand."""
    hand = scoring.parse_hand("[123m,1]456m789m55p23s 1f 4s")
    assert all("5p" not in g for g in get_rule_set("mcr").score_alike)
    moved = replace(hand, flowers=())
    assert scoring.score(hand).total == scoring.score(moved).total + 1


def test_score_key_names_each_bonus_tile_by_its_group() -> None:
    """Hands with one key score alike: MCR keys any bonus tile alike, Xiamen keeps seasons
    apart from flowers, Zhenjiang (no alike codes) keys a hand by its notation."""
    a = scoring.parse_hand("[123m,1]456m789m55p23s 2f7f 4s")
    b = scoring.parse_hand("[123m,1]456m789m55p23s 3f6f 4s")
    c = scoring.parse_hand("[123m,1]456m789m55p23s 3f4f 4s")
    mcr, xiamen, zj = (get_rule_set(n) for n in ("mcr", "xiamen", "zhenjiang"))
    assert mcr.score_key(a) == mcr.score_key(b) == mcr.score_key(c)
    assert xiamen.score_key(a) == xiamen.score_key(b) != xiamen.score_key(c)
    assert zj.score_key(a) == scoring.format_hand(a) != zj.score_key(b)
    plain = scoring.parse_hand("[123m,1]456m789m55p23s 4s")
    assert mcr.score_key(plain) == scoring.format_hand(plain) != mcr.score_key(a)


def test_the_rules_document_lists_the_alike_codes() -> None:
    """``GET /v1/rules`` and ``tilecam rules show`` describe each rule set: its alike codes
    are in it, so a client knows which misreadings cannot change a score."""
    assert get_rule_set("mcr").describe()["score_alike"] == [list(FLOWERS)]
    assert get_rule_set("xiamen").describe()["score_alike"] == [["1f", "2f", "3f", "4f"],
                                                                ["5f", "6f", "7f", "8f"]]
    assert get_rule_set("zhenjiang").describe()["score_alike"] == []
