"""``vision.correct.winning_shape_check`` on regional rules: the question is
:func:`scoring.shape_wins`'s with the whole context (``whole=True``: the win's origin and
type where the rules say they decide the shape, seventy-sixth session), its
``shape_only`` the question :func:`scoring.discards` asks (the tiles' fields alone), each
reading's answer kept, and a win that needs no shape (Xiamen 三金倒) asked with the whole
context."""

from __future__ import annotations

from typing import Any

import pytest

import scoring
from scoring import parse_hand
from vision.correct import winning_shape_check

HANDS = {
    "xiamen": ["123m456m789m234p567p9s9s", "123m4m9s6m789m234p567p5s5s",
               "123m4m1s6m789m234p567p5s5s", "5m5m1m9m3p7pESWNCFP1s4s9s5m"],
    "zhenjiang": ["111p456m789m123pSS", "111p46m789m123pSS2m", "111p456m789m123pSN"],
}


@pytest.mark.parametrize(("rules", "context"), [
    ("xiamen", {"gold": "9s"}), ("xiamen", {"gold": "9s", "discarder": 2}),
    ("xiamen", {"gold": "5m", "win": "you_jin"}), ("zhenjiang", {"indicator": "1m"}),
    ("zhenjiang", {"wild": "2m", "discarder": 1, "kong": True}),
])
def test_it_asks_what_discards_asks(rules: str, context: dict[str, Any]) -> None:
    rule_set = scoring.get_rule_set(rules)
    settings = scoring.resolved_settings(rule_set, None, None)
    check = winning_shape_check(rules, context)
    for text in HANDS[rules]:
        hand = parse_hand(text)
        assert check(hand) is scoring.shape_wins(rule_set, hand, context, settings,
                                                 whole=True), text
        shape_only = check.shape_only  # type: ignore[attr-defined]
        assert shape_only(hand) is scoring.shape_wins(rule_set, hand, context, settings), text


def test_each_reading_is_scored_once(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[str] = []
    real = scoring.shape_wins

    def counting(rule_set: Any, hand: Any, *rest: Any, **kw: Any) -> bool:
        asked.append(str(hand))
        return real(rule_set, hand, *rest, **kw)

    monkeypatch.setattr(scoring, "shape_wins", counting)
    check = winning_shape_check("zhenjiang", {"indicator": "1m", "self_drawn": True})
    hands = [parse_hand(h) for h in HANDS["zhenjiang"]]
    first = [check(h) for h in hands]
    assert [check(h) for h in hands] == first == [True, True, False]
    assert len(asked) == len(hands)


def test_a_win_of_no_shape_is_asked_with_the_whole_context() -> None:
    """三金倒 (three golds, the rest anything): a win only when the context names it."""
    hand = parse_hand("5m5m1m9m3p7pESWNCFP1s4s9s5m")
    assert winning_shape_check("xiamen", {"gold": "5m", "win": "three_golds"})(hand)
    assert not winning_shape_check("xiamen", {"gold": "5m"})(hand)
    assert not winning_shape_check("xiamen", {"gold": "5m", "win": "you_jin"})(hand)
