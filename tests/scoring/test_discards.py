"""``scoring.discards`` (何切): what to discard from a hand of a win's size that is no win."""

from __future__ import annotations

import pytest

import scoring


def test_a_discard_whose_waits_make_no_legal_win_ranks_after_one_that_can_win() -> None:
    """MCR's 8-fan minimum: discarding 2m leaves two waits (6m 9m, 6 tiles) that all score
    under 8; discarding 6m or 9m leaves one wait (2m, 3 tiles) that wins self-drawn at 8.
    The discard that can win comes first (it ranked by wait tiles alone before)."""
    d = scoring.discards("678m345sFFF456s9m2m")
    assert [x.tile for x in d.ready_after][:2] == ["6m", "9m"]
    assert d.ready_after[-1].tile == "2m"


def test_a_discarded_copy_is_not_counted_among_the_tiles_left_to_wait_on() -> None:
    """Discarding one 9m of four held leaves the hand waiting on 9m among others: all four
    copies are then held or in the discards, so none is left."""
    d = scoring.discards("11123456789999m")
    nine = next(x for x in d.discards if x.tile == "9m")
    assert {w.tile: w.remaining for w in nine.waits.waits}["9m"] == 0


def test_a_hand_of_another_size_is_refused_naming_the_size() -> None:
    with pytest.raises(scoring.HandError, match="holds 14"):
        scoring.discards("1112345678999m")


def test_discards_say_whether_the_hand_is_a_win_already_under_each_rule_set() -> None:
    """A hand that wins as it stands says so (the CLI's own check, until then, took a
    regional 诈胡 — no winning shape, scored "not legal" with its reason — for a win)."""
    assert scoring.discards("123m456p789sEEENN").win is not None
    low = scoring.discards("678m345sFFF456s9m9m").win  # a winning shape under MCR's 8 fan
    assert low is not None and not low.legal and low.total == 5
    assert scoring.discards("[EEE,2]111m456p789sN1s").win is None
    assert scoring.discards("123m456m789p11s234s5m6mE", rules="xiamen", gold="5m").win is None
    zj = scoring.discards("[EEE,2]111m456p789sNN", rules="zhenjiang", indicator="C")
    assert zj.win is not None and zj.to_dict()["win"] is True
