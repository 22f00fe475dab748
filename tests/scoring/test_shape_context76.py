"""``scoring.shape_wins(…, whole=True)`` and the rules' ``shape_context`` / ``win_counts``
hooks (session 76): what of a whole win context decides which tiles win, and the tile
counts a win is declared on (RULES.md; docs/regional-rules.md)."""

from __future__ import annotations

from typing import Any

import pytest

import scoring
from scoring import parse_hand


def _wins(rules: str, hand: str, context: dict[str, Any], whole: bool = True) -> bool:
    rule_set = scoring.get_rule_set(rules)
    return scoring.shape_wins(rule_set, parse_hand(hand), context,
                              scoring.resolved_settings(rule_set, None, None), whole=whole)


ZJ_BAIDA_LAST = "111p456m789m123pS2m"  # complete only with the last tile, 百搭 2m, wild


@pytest.mark.parametrize(("context", "wins"), [
    ({"indicator": "1m", "self_drawn": True}, True),
    ({"indicator": "1m", "self_drawn": True, "kong": True}, True),  # 杠开: the score's to say
    ({"indicator": "1m", "discarder": 1}, False),
    ({"indicator": "1m"}, False),  # a discard win unless self-drawn, as score() reads it
    ({"indicator": "1m", "kong": True}, False),  # robbed from a kong
    ({"indicator": "1m", "tian_hu": True, "dealer": True}, True),  # 天胡: self-drawn
])
def test_zhenjiang_a_baida_won_on_a_discard_or_robbed_is_its_own_face(
        context: dict[str, Any], wins: bool) -> None:
    assert _wins("zhenjiang", ZJ_BAIDA_LAST, context) is wins
    assert _wins("zhenjiang", ZJ_BAIDA_LAST, context, whole=False)  # discards' question


def test_xiamen_a_discarded_gold_cannot_be_won_on_but_a_held_one_is_a_shape() -> None:
    """RULES.md: "A discarded gold cannot be claimed or won on"; a gold held on a discard
    win is a winning shape the score refuses (sixty-eighth session)."""
    won_on_gold = "123m456p789s123s7799p5m"
    assert not _wins("xiamen", won_on_gold, {"gold": "5m", "discarder": 1})
    assert _wins("xiamen", won_on_gold, {"gold": "5m", "self_drawn": True})
    held = "123m456m789m234p56p9s5s5s"
    assert _wins("xiamen", held, {"gold": "9s", "discarder": 1})
    assert not scoring.score(held, rules="xiamen", gold="9s", discarder=1).legal


def test_xiamen_you_jin_is_asked_as_you_jin() -> None:
    plain_only = "123m456p789s123s778p5m9p"  # a plain self-drawn shape, no 游金
    assert _wins("xiamen", plain_only, {"gold": "5m", "self_drawn": True})
    assert not _wins("xiamen", plain_only, {"gold": "5m", "win": "游金"})
    assert _wins("xiamen", "123m456p789s123s777p5m9p", {"gold": "5m", "win": "游金"})
    assert _wins("xiamen", plain_only, {"gold": "5m", "win": "游金"}, whole=False)


def test_the_tile_counts_a_win_is_declared_on() -> None:
    xiamen = scoring.get_rule_set("xiamen")
    assert xiamen.win_counts({"gold": "9s", "win": "三游"}) == (16, 17)
    assert xiamen.win_counts({"gold": "9s", "win": "三金倒", "opening": True}) == (16,)
    assert xiamen.win_counts({"gold": "9s", "win": "三金倒", "opening": True,
                              "dealer": True}) == (17,)
    assert xiamen.win_counts({"gold": "9s", "self_drawn": True}) == (17,)
    assert xiamen.win_counts({"win": "no such win"}) == (17,)
    assert scoring.get_rule_set("zhenjiang").win_counts({"indicator": "1m"}) == (14,)
    assert scoring.get_rule_set("mcr").win_counts({}) == (14,)
