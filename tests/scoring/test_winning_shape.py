"""``scoring.shape_wins``: the winning-shape question of a rule set with fields that say
what the tiles are (Xiamen's gold, Zhenjiang's 百搭), asked by :func:`scoring.discards`
of the hand that drew and by the reader of photos (``vision.correct``)."""

from __future__ import annotations

from typing import Any

import pytest

import scoring
from scoring import parse_hand

XM_WON = "123m456m789m234p567p9s9s"  # gold 9s: plain sets and a pair
ZJ_WON = "111p456m789m123pSS"
ZJ_WILD = "111p46m789m123pSS2m"  # indicator 1m: the 百搭 2m stands for 5m
ZJ_NONE = "111p456m789m123pSN"


def _wins(rules: str, hand: str, context: dict[str, Any]) -> bool:
    rule_set = scoring.get_rule_set(rules)
    return scoring.shape_wins(rule_set, parse_hand(hand), context,
                              scoring.resolved_settings(rule_set, None, None))


@pytest.mark.parametrize(("rules", "hand", "context", "wins"), [
    ("zhenjiang", ZJ_WON, {"indicator": "1m"}, True),
    ("zhenjiang", ZJ_WILD, {"indicator": "1m"}, True),
    ("zhenjiang", ZJ_WILD, {"wild": "2m"}, True),
    ("zhenjiang", ZJ_WILD, {"indicator": "8s"}, False),  # 2m is no 百搭 then
    ("zhenjiang", ZJ_NONE, {"indicator": "1m"}, False),  # an incomplete hand: not legal
    ("xiamen", XM_WON, {"gold": "9s"}, True),
    ("xiamen", "123m4m9s6m789m234p567p5s5s", {"gold": "9s"}, True),  # gold for 5m
    ("xiamen", "123m4m9s6m789m234p567p5s5s", {"gold": "1s"}, False),
])
def test_the_self_drawn_score_with_the_tile_fields_decides(
    rules: str, hand: str, context: dict[str, Any], wins: bool
) -> None:
    assert _wins(rules, hand, context) is wins
    assert scoring.score(hand, rules=rules, self_drawn=True, **context).legal is wins


def test_fields_that_do_not_say_what_the_tiles_are_are_left_out() -> None:
    """A discard win holding a gold is no legal Xiamen win, but its shape wins; so does a
    Zhenjiang 杠开 with no kong, and a field the rules do not have is not looked at."""
    assert not scoring.score(XM_WON, rules="xiamen", gold="9s", discarder=2).legal
    assert _wins("xiamen", XM_WON, {"gold": "9s", "discarder": 2, "self_drawn": False})
    assert _wins("zhenjiang", ZJ_WON, {"indicator": "1m", "kong": True, "nothing": 1})


def test_a_resolved_context_answers_as_the_given_one() -> None:
    """:func:`scoring.discards` passes the context resolved (every field, defaults
    filled); the reader of photos passes what it was given."""
    rule_set = scoring.get_rule_set("zhenjiang")
    settings = scoring.resolved_settings(rule_set, None, None)
    resolved = rule_set.resolve_context({"indicator": "1m"})
    assert set(resolved) > {"indicator"}
    for hand in (ZJ_WON, ZJ_WILD, ZJ_NONE):
        assert scoring.shape_wins(rule_set, parse_hand(hand), resolved, settings) is (
            _wins("zhenjiang", hand, {"indicator": "1m"}))


@pytest.mark.parametrize(("rules", "context"), [
    ("xiamen", {"gold": "9z"}), ("xiamen", {}), ("zhenjiang", {"indicator": "2f"}),
    ("zhenjiang", {}),
])
def test_a_tile_field_the_rules_refuse_is_no_win_not_an_error(
    rules: str, context: dict[str, Any]
) -> None:
    assert _wins(rules, XM_WON if rules == "xiamen" else ZJ_WON, context) is False


def test_a_hand_of_no_winning_shape_has_no_discard_win() -> None:
    """:func:`scoring.discards`: the hand that drew, scored as a win when its shape wins
    (legal or not), else None (a 诈胡 is no win)."""
    won = scoring.discards(XM_WON, rules="xiamen", gold="9s").win
    assert won is not None and won.legal
    assert scoring.discards(ZJ_WON, rules="zhenjiang", indicator="1m").win is not None
    assert scoring.discards(ZJ_NONE, rules="zhenjiang", indicator="1m").win is None


def test_a_win_of_no_shape_is_the_callers_to_ask() -> None:
    """三金倒: three golds win whatever else is held, but only with the win named; the
    shape question does not name it."""
    hand = "5m5m1m9m3p7pESWNCFP1s4s9s5m"
    assert not _wins("xiamen", hand, {"gold": "5m", "win": "three_golds"})
    assert scoring.score(hand, rules="xiamen", gold="5m", win="three_golds").legal
