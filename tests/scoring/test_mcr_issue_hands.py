"""The hands listed in issue 3, with their exact totals and fans (last tile wins)."""

from __future__ import annotations

from typing import Any

import pytest

import scoring

CASES: list[tuple[str, dict[str, Any], int, dict[str, int] | None]] = [
    ("555666777p5556s7s", {"self_drawn": True}, 48,
     {"一色三同顺": 1, "全带五": 1, "不求人": 1, "平和": 1, "喜相逢": 1, "缺一门": 1}),
    ("555666777p5556s7s", {}, 46, None),
    ("19m19s19pESWNCFPP", {}, 88, {"十三幺": 1}),
    ("1112345678999m5m", {}, 91, {"九莲宝灯": 1, "双暗刻": 1, "幺九刻": 1}),
    ("123456m789p123sEE", {"self_drawn": True}, 14,
     {"花龙": 1, "不求人": 1, "喜相逢": 1, "单钓将": 1}),
    ("234567s234567pEE", {}, 7, {"门前清": 1, "喜相逢": 2, "连六": 1, "缺一门": 1, "单钓将": 1}),
    ("55s33344455566m5s", {}, 53, None),
    ("445566m2277779s8s", {}, 7, None),
    ("1234444678m456p1m", {"self_drawn": True}, 8, None),
    ("11223344556677s", {"self_drawn": True}, 89, {"连七对": 1, "自摸": 1}),
    ("[1111s][2222m][3333p][4444p]88s", {}, 162, None),
    ("[EEE,2][SSSS,1]WWWNN55pN", {"self_drawn": True}, 98,
     {"大四喜": 1, "混一色": 1, "双暗刻": 1, "明杠": 1, "自摸": 1}),
    ("11m222p345678s99s1m", {}, 5, None),
    ("11m222p345678s99s1m", {"self_drawn": True}, 9, None),
]  # fmt: skip


@pytest.mark.parametrize(("hand", "ctx", "total", "fans"), CASES)
def test_issue_hand_total(
    hand: str, ctx: dict[str, Any], total: int, fans: dict[str, int] | None
) -> None:
    s = scoring.score(hand, **ctx)
    assert s.total == total
    if fans is not None:
        assert {f.zh: f.count for f in s.fans} == fans


def test_closed_wait_needs_a_formal_single_wait() -> None:
    # 7-9 waits on 8s, but the seven-pairs reading also waits on 9s: no 坎张
    zh = [f.zh for f in scoring.score("445566m2277779s8s").fans]
    assert "坎张" not in zh


def test_single_wait_counts_held_out_kinds_as_waits() -> None:
    # waits on 1m and on 4m (all four 4m held): two kinds, so no 单钓将
    zh = [f.zh for f in scoring.score("1234444678m456p1m", self_drawn=True).fans]
    assert "单钓将" not in zh


def test_below_eight_fan_is_not_a_legal_win() -> None:
    on_discard = scoring.score("11m222p345678s99s1m")
    assert not on_discard.legal and on_discard.settlement.payments == ()
    assert scoring.score("11m222p345678s99s1m", self_drawn=True).legal


def test_spare_chow_combines_once() -> None:
    # 123456m789p123s: 花龙 with 123m spare: it pairs once (喜相逢 with 123s), not also 连六
    zh = [f.zh for f in scoring.score("123456m789p123sEE", self_drawn=True).fans]
    assert "连六" not in zh and zh.count("喜相逢") == 1
