"""``tilecam recognize``'s text says a regional result in its own rule set's words (review
s73 F5): Xiamen and Zhenjiang totals are chips, and a hand that is no win there is 诈胡
for the score's reason — it said "(below the minimum to win)", MCR's 起和番, which
neither rule set has. MCR's text is kept as it was."""

from __future__ import annotations

from typing import Any

import scoring
from tilecam.commands.recognize import describe


def recognized(score: scoring.Score) -> str:
    """``describe`` of a reading whose hand scored ``score``."""
    return describe({
        "image": "x.jpg", "tiles": [], "hand": "h", "melds": [], "corrections": [],
        "alternatives": [], "notes": [], "score": score.to_dict(),
    })


def total_line(text: str) -> str:
    return next(line for line in text.splitlines() if line.startswith("total:"))


def test_a_zhenjiang_false_win_is_said_as_such_not_below_a_minimum() -> None:
    s = scoring.score("123m456m789m234pES", rules="zhenjiang", indicator="1m", discarder=1)
    assert not s.legal
    text = recognized(s)
    assert "below the minimum" not in text
    assert total_line(text) == f"total: 0 chips (not a win, 诈胡: {s.details['reason']})"
    # the claimant's payments are shown signed with each seat's net, as tilecam score does
    assert "net: winner -18, left +6, opposite +6, right +6" in text


def test_a_xiamen_false_win_is_said_as_such_with_the_money_received() -> None:
    s = scoring.score("123m456m789m234p567p12s", rules="xiamen", gold="9s")
    assert not s.legal
    text = recognized(s)
    assert "below the minimum" not in text
    assert total_line(text).startswith("total: 0 chips (not a win, 诈胡: not complete")
    assert "left 0 (receives 50 apart)" in text


def test_regional_totals_are_chips_and_transfers_and_net_are_shown() -> None:
    s = scoring.score("123m456m789m234pEE", rules="zhenjiang", indicator="1m", discarder=1,
                      first_wild_discard="right")
    text = recognized(s)
    assert total_line(text) == "total: 1 chip"
    assert "transfers: winner → right 6 (打首搭)" in text
    assert "net: winner -5, left -7, opposite -6, right +18" in text
    x = scoring.score("123m456m789m234p567p9s 1f 3p", rules="xiamen", gold="9s", win="游金",
                      dealer=True)
    text = recognized(x)
    assert total_line(text) == "total: 72 chips"
    assert "left 72 (+ 50 bonus apart)" in text


def test_mcr_keeps_its_words() -> None:
    def line(**ctx: Any) -> str:
        return total_line(recognized(scoring.score(**ctx)))

    assert line(hand="[123m,1]456m789p234s5s5s", discarder=3) == (
        "total: 3 (below the minimum to win)")
    s = scoring.score("[EEE,2][SSSS,1]WWWNN55pN", discarder=2)
    assert total_line(recognized(s)) == f"total: {s.total}"
    # a score without its rule set's name (an older answer) reads as MCR, as before
    no_rules = {**s.to_dict(), "legal": False}
    no_rules.pop("rules")
    text = describe({"image": "x.jpg", "tiles": [], "hand": "h", "melds": [],
                     "corrections": [], "alternatives": [], "notes": [], "score": no_rules})
    assert total_line(text) == f"total: {s.total} (below the minimum to win)"
