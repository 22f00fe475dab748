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


# --- session 73 review of 何切 (report_discard.md) ------------------------------------


def _order(d: scoring.Discards) -> list[str]:
    return [x.tile for x in d.discards]


def test_a_wait_whose_last_copy_is_the_discard_is_listed_dead_and_ranks_nothing() -> None:
    """Finding 1, MCR. A formal wait counts kinds whose every copy is gone (RULES.md:
    "counting kinds whose four copies the player already holds as waits"), so it stays
    listed — the player sees the discard lets the last copy go — but no win is left on it:
    0 left, no score, and it plays no part in the ranking. Discarding 1s from
    1s8s5s1s5s1s3s1s8s4s3s4s4s4s leaves 1s (last copy discarded) and 8s (30/34); 3s and 8s
    leave a 52/53 wait: they come first (before, 1s ranked above them on its dead 52/53)."""
    d = scoring.discards("1s8s5s1s5s1s3s1s8s4s3s4s4s4s")
    assert _order(d) == ["5s", "3s", "8s", "1s", "4s"]
    one = next(x for x in d.discards if x.tile == "1s")
    dead = {w.tile: w for w in one.waits.waits}["1s"]
    assert (dead.remaining, dead.discard, dead.self_drawn) == (0, None, None)
    four = next(x for x in d.discards if x.tile == "4s")  # its only wait's last copy let go
    assert [(w.tile, w.remaining, w.discard) for w in four.waits.waits] == [("4s", 0, None)]
    assert four.to_dict()["waits"][0] == {"tile": "4s", "remaining": 0, "discard": None,
                                          "self_drawn": None}


def test_a_zhenjiang_wild_is_not_advised_first_for_a_dead_wait_on_its_own_kind() -> None:
    """Finding 1, Zhenjiang (百搭 7p, all four held): discarding a 百搭 left a 7p wait with
    no copy, scored 2 (打搭放冲) on a discard, and ranked that discard first. The dead wait
    is listed unscored; every discard here waits on the same 122 live tiles, so they rank
    by kind and 7p is not first."""
    d = scoring.discards("[555m,1]1p4p7p3p8p7p7p3p6p2p7p", rules="zhenjiang", wild="7p")
    assert d.shanten == 0 and _order(d)[0] == "1p"
    wild = next(x for x in d.discards if x.tile == "7p")
    dead = {w.tile: w for w in wild.waits.waits}["7p"]
    assert (dead.remaining, dead.discard, dead.self_drawn) == (0, None, None)


def test_a_hand_that_wins_only_self_drawn_says_so_with_each_total() -> None:
    """Finding 3, MCR's 8 fan before flowers (起和番): 123m456p789sEEE1m4m with 3 flowers
    is 6 fan on a discard (9 with flowers, no legal win) and 8 self-drawn (11): the hand
    is a win self-drawn only, and the answer gives both."""
    d = scoring.discards("123m456p789sEEE1m4m", flowers=3)
    assert d.win is d.win_self_drawn and d.win is not None and d.win.total == 11
    assert d.win_on_discard is not None and not d.win_on_discard.legal
    assert d.win_on_discard.total == 9
    body = d.to_dict()
    assert body["win_on_discard"] == {"total": 9, "legal": False}
    assert body["win_self_drawn"] == {"total": 11, "legal": True}
    none = scoring.discards("[EEE,2]111m456p789sN1s").to_dict()
    assert (none["win"], none["win_on_discard"], none["win_self_drawn"]) == (False, None, None)


def test_drew_names_both_sizes_it_takes() -> None:
    """Finding 4: the sizes POST /v1/waits and tilecam waits take, one message for both."""
    assert scoring.drew("1112345678999m1p") and not scoring.drew("1112345678999m")
    with pytest.raises(scoring.HandError, match="holds 16, to see its waits; a hand that "
                       "drew holds 17"):
        scoring.drew("1112345678999m1p2p", "xiamen")


def test_a_wild_is_kept_rather_than_a_tile_of_equal_merit() -> None:
    """Zhenjiang: every discard of this hand waits on all 34 kinds with 122 tiles left;
    the tie goes to keeping the 百搭 (7m), which is listed last, not by tile order first."""
    d = scoring.discards("5p1p9p7m7p4p7m3p7p2p9p7p9p7m", rules="zhenjiang", wild="7m")
    assert [x.tile for x in d.discards][-1] == "7m"
    assert d.discards[0].tile == "1p"


def test_xiamen_keeps_the_gold_on_a_tie() -> None:
    """The gold's kind is the rule set's wild: :meth:`wild_kinds`."""
    from scoring.rulesets import get_rule_set
    from scoring.rulesets.base import WinContext

    xiamen = get_rule_set("xiamen")
    assert xiamen.wild_kinds(WinContext(extra={"gold": "5m"})) == frozenset({"5m"})
    assert get_rule_set("mcr").wild_kinds(WinContext()) == frozenset()
