"""The worked examples of seed 003's five scoring principles (计番原则)."""

from __future__ import annotations

import scoring
from scoring.mcr import engine
from scoring.mcr.calculator import reading_tables, table_total
from scoring.rulesets.base import WinContext


def counts(hand: str, **ctx: bool) -> dict[str, int]:
    return {f.zh: f.count for f in scoring.score(hand, **ctx).fans}


def test_no_repeat_big_four_winds_implies_its_fans() -> None:
    fans = counts("EEESSSWWWNNN55p")
    assert "大四喜" in fans
    assert not {"三风刻", "碰碰和", "圈风刻", "门风刻", "幺九刻"} & set(fans)


def test_no_split_four_shifted_chows_do_not_also_count_short_straight() -> None:
    fans = counts("123234345456mEE")
    assert "一色四步高" in fans and "连六" not in fans


def test_no_split_four_shifted_chows_by_two_do_not_count_two_terminal_chows() -> None:
    fans = counts("123345567789sEE")
    assert "一色四步高" in fans and "老少副" not in fans


def test_no_same_pure_straight_is_not_formed_twice() -> None:
    fans = counts("123123456789mEE")
    assert fans["清龙"] == 1 and fans.get("一般高") == 1


def test_no_same_mixed_shifted_pungs_are_not_formed_twice() -> None:
    assert counts("222p333s444m555pEE")["三色三节高"] == 1


def test_take_the_highest_reading() -> None:
    win = engine.build_win(
        scoring.parse_hand("555666777p5556s7s"), WinContext(self_drawn=True), "mil-2015"
    )
    totals = sorted(table_total(t, win.version) for t, _ in reading_tables(win))
    assert totals == [47, 48]
    fans = counts("555666777p5556s7s", self_drawn=True)
    assert "一色三同顺" in fans and "一色三节高" not in fans


def test_the_lower_reading_is_the_seeds_second_split() -> None:
    win = engine.build_win(
        scoring.parse_hand("555666777p5556s7s"), WinContext(self_drawn=True), "mil-2015"
    )
    low = min(reading_tables(win), key=lambda tr: table_total(tr[0], win.version))[0]
    assert {f: len(o) for f, o in low.items()} == {
        "pure_shifted_pungs": 1, "three_concealed_pungs": 1, "fully_concealed_hand": 1,
        "all_simples": 1, "one_voided_suit": 1}  # fmt: skip


def test_combine_once_spare_chow_takes_one_fan() -> None:
    fans = counts("123456m789p123sEE")
    assert fans["花龙"] == 1
    assert fans.get("连六", 0) + fans.get("喜相逢", 0) == 1


def test_combine_once_four_chows_give_three_fans_not_four() -> None:
    fans = counts("123789m123789sEE")
    assert fans.get("老少副", 0) + fans.get("喜相逢", 0) == 3


def test_same_fan_not_twice_from_one_chow() -> None:
    # 234s 223344p 567p: 一般高, 喜相逢, 连六 — not 喜相逢 twice
    fans = counts("234s223344567pEE")
    assert fans.get("一般高") == 1 and fans.get("喜相逢") == 1 and fans.get("连六") == 1
