"""A reading's hand is scored once when the win context asks what its tiles ask
(seventy-ninth session). ``bench/slow_readings.py --seed 179 --items 1013`` — 22 random
tiles read under Xiamen (gold 4p, a discard win claimed) — took ~1.6 s of CPU: seven
re-readings (tiles read as flowers, a straddling box left out) each searched 600
readings with no win, scoring each hand with the whole context
(:func:`scoring.shape_wins` with ``whole``), then again by its tiles alone
(:func:`vision.correct._shape_only_win`) — the same question: Xiamen narrows a win
that is no 游金 and no gold won on a discard to a self-drawn win with the gold
(:meth:`~scoring.rulesets.base.RuleSet.shape_context`). The behaviour checked: such a
hand is scored once for both (:class:`vision.correct._SameQuestion`), a hand the
context asks otherwise is still asked so, and the answers are
:func:`scoring.shape_wins`'s. Calls are counted, never timed."""

from __future__ import annotations

import random
import warnings
from collections import Counter
from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest

import scoring
from scoring.notation import parse_hand
from scoring.rulesets.xiamen import Xiamen
from scoring.rulesets.zhenjiang import Zhenjiang
from vision.correct import winning_shape_check

#: a win (gold 9s: 9s9s the pair), a 游金-less near miss, a hand of no shape
XIAMEN_HANDS = ("123m456m789m234p567p9s9s", "123m4m9s6m789m234p567p5s5s",
                "123m4m1s6m789m234p567p5s5s", "5m5m1m9m3p7pESWNCFP1s4s9s5m")
ZHENJIANG_HANDS = ("111p456m789m123pSS", "111p46m789m123pSS2m", "111p456m789m123pSN")


def _scored(monkeypatch: pytest.MonkeyPatch, cls: Any) -> list[tuple[str, str]]:
    """Each ``cls.score`` call's hand and context, as text."""
    asked: list[tuple[str, str]] = []
    real = cls.score

    def counting(self: Any, hand: Any, context: Any, *rest: Any, **kw: Any) -> Any:
        asked.append((str(hand), repr(context)))
        return real(self, hand, context, *rest, **kw)

    monkeypatch.setattr(cls, "score", counting)
    return asked


def _both(rules: str, context: dict[str, Any], text: str,
          asked: list[tuple[str, str]] | None = None) -> tuple[bool, bool]:
    """The predicate's answer (whole context) and its ``shape_only`` answer for ``text``,
    each checked against :func:`scoring.shape_wins`, whose own scores are taken back out
    of ``asked``."""
    rule_set = scoring.get_rule_set(rules)
    settings = scoring.resolved_settings(rule_set, None, None)
    check = winning_shape_check(rules, context)
    hand = parse_hand(text)
    whole, plain = check(hand), check.shape_only(hand)  # type: ignore[attr-defined]
    mine = list(asked or ())
    assert whole is scoring.shape_wins(rule_set, hand, context, settings, whole=True)
    assert plain is scoring.shape_wins(rule_set, hand, context, settings)
    if asked is not None:
        asked[:] = mine
    return whole, plain


@pytest.mark.parametrize("text", XIAMEN_HANDS)
def test_a_discard_win_with_the_gold_held_is_scored_once(
    text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Gold 4p, won on a discard: the whole context asks what the gold alone asks
    (before: each hand scored twice, once per question)."""
    asked = _scored(monkeypatch, Xiamen)
    whole, plain = _both("xiamen", {"gold": "4p"}, text, asked)
    assert whole == plain
    assert len(asked) == 1


def test_a_gold_won_on_a_discard_is_still_no_win() -> None:
    """Gold 9s, its last tile the 9s won on a discard: no win with the whole context,
    a win by its tiles alone — not answered as one."""
    assert _both("xiamen", {"gold": "9s"}, XIAMEN_HANDS[0]) == (False, True)


@pytest.mark.parametrize(("rules", "cls", "context", "hands"), [
    ("xiamen", Xiamen, {"gold": "5m", "win": "you_jin"}, XIAMEN_HANDS),
    ("zhenjiang", Zhenjiang, {"indicator": "1m", "discarder": 1}, ZHENJIANG_HANDS),
])
def test_another_question_is_scored_apart(
    rules: str, cls: Any, context: dict[str, Any], hands: tuple[str, ...],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """游金 has a shape of its own; a Zhenjiang 百搭 won on a discard is its own face:
    the whole context is asked with its own score (each hand scored by both)."""
    asked = _scored(monkeypatch, cls)
    answers = [_both(rules, context, text, asked) for text in hands]
    assert len({ctx for _, ctx in asked}) == 2
    assert len(asked) == 2 * len(hands)
    if rules == "zhenjiang":  # the 百搭 2m won on a discard is 2m, not wild
        assert answers[1] == (False, True)


def test_fuzz_item_1013_scores_each_hand_once(
    bench_module: Callable[[str], ModuleType], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Seed 179 item 1013 (22 tiles, Xiamen, gold 4p, a discard win claimed): seven
    searches with no win scored 4,088 hands twice each (8,176 scores); each once now."""
    import vision.recognize as R

    fuzz = bench_module("fuzz_inputs")
    source = fuzz.random_detections(random.Random(179))
    for _ in range(1013):
        next(source)
    dets, rules, context = next(source)
    assert (rules, len(dets), context) == ("xiamen", 22, {"gold": "4p", "claim_win": True})
    asked = _scored(monkeypatch, Xiamen)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # zero-size boxes divide by zero
        rec = R.recognize_detections(dets, rules, context)
    assert rec.hand is not None
    counts = Counter(asked)
    assert len(counts) > 1000  # the searches looked at many hands
    assert max(counts.values()) == 1
