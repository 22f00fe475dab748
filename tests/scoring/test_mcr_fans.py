"""Each fan of seed 003: its definition (an example hand scores it) and its 不计 list (the
fans it excludes are absent), plus the table itself (81 fans, values, tiers)."""

from __future__ import annotations

from typing import Any

import pytest
from mcr_fan_examples import EXAMPLES

import scoring
from scoring.mcr.fans import FAN_LIST, FANS

BY_EN = {f.en: f.id for f in FANS.values()}


def fan_ids(hand: str, **ctx: Any) -> list[str]:
    return [BY_EN[f.en] for f in scoring.score(hand, **ctx).fans]


def test_table_has_the_81_fans_with_seed_values() -> None:
    numbered = [f for f in FAN_LIST if f.number]
    assert [f.number for f in numbered] == list(range(1, 82))
    tiers = {88: 7, 64: 6, 48: 2, 32: 3, 24: 9, 16: 6, 12: 5, 8: 9, 6: 7, 4: 4, 2: 10, 1: 13}
    for value, n in tiers.items():
        assert sum(1 for f in numbered if f.value == value) == n, value
    for f in FAN_LIST:
        assert set(f.excludes) <= set(FANS), f.id


def test_every_fan_has_an_example() -> None:
    assert set(EXAMPLES) == set(FANS)


@pytest.mark.parametrize("fan_id", sorted(EXAMPLES))
def test_fan_definition_and_not_counted_list(fan_id: str) -> None:
    hand, ctx = EXAMPLES[fan_id]
    ids = fan_ids(hand, **ctx)
    assert fan_id in ids, f"{hand} should score {FANS[fan_id].zh}: {ids}"
    for excluded in FANS[fan_id].excludes:
        assert excluded not in ids, f"{FANS[fan_id].zh} does not also count {FANS[excluded].zh}"


def test_each_fan_names_its_sets() -> None:
    s = scoring.score("[EEE,2][SSSS,1]WWWNN55pN", self_drawn=True)
    sets = {f.zh: f.sets for f in s.fans}
    assert sets["大四喜"] == (("EEE", "SSSS", "WWW", "NNN"),)
    assert sets["双暗刻"] == (("WWW", "NNN"),)
    assert sets["明杠"] == (("SSSS",),)
    assert sets["自摸"] == (("N",),)
    assert all(f.sets for f in s.fans)


def test_kong_fans_name_their_kongs_in_tile_order() -> None:
    """三杠 names the kongs as 一色三节高 does, melded or concealed alike."""
    sets = {f.zh: f.sets for f in scoring.score("[1111m][2222m,1][3333m]456m5p5p").fans}
    assert sets["三杠"] == sets["一色三节高"] == (("1111m", "2222m", "3333m"),)
    sets = {f.zh: f.sets for f in scoring.score("[5555m][2222m]EEE111s3s3s").fans}
    assert sets["双暗杠"] == (("2222m", "5555m"),)
    sets = {f.zh: f.sets for f in scoring.score("[5555p][111m,1]EEE789s2s2s",
                                               self_drawn=True).fans}
    assert sets["双暗刻"] == (("5555p", "EEE"),)


def test_tile_hog_names_the_kind_not_a_kong() -> None:
    """四归一: the four 1m lie in 123m, 123m and 11m, so it names ``1m``, not ``1111m``."""
    sets = {f.zh: f.sets for f in scoring.score("[123m,1]456p789s123m11m").fans}
    assert sets["四归一"] == (("1m",),)


def test_wmo_fully_concealed_self_draw_names_the_whole_hand() -> None:
    """wmo-2006: a self-drawn 连七对 counts 不求人 (not 自摸), naming the hand as 不求人
    always does, not only the winning tile."""
    s = scoring.score("11223344556677s", self_drawn=True, version="wmo-2006")
    sets = {f.zh: f.sets for f in s.fans}
    assert "自摸" not in sets
    assert sets["不求人"] == sets["连七对"]


@pytest.mark.parametrize(
    ("hand", "fan", "absent"),
    [
        # 大三元's three pungs do not count 幺九刻, a fourth terminal pung does
        ("CCCFFFPPP111m55s", "pung_of_terminals_or_honors", "dragon_pung"),
        # 绿一色 without 发 is also 清一色, and still 断幺 (principle 1, third point)
        ("22223344666888s", "full_flush", "half_flush"),
        ("22223344666888s", "all_simples", "half_flush"),
        # 小四喜 with a dragon pung is also 字一色
        ("EEESSSWWWCCCNN", "all_honors", "big_three_winds"),
    ],
)
def test_different_fans_combine(hand: str, fan: str, absent: str) -> None:
    ids = fan_ids(hand)
    assert fan in ids
    assert absent not in ids


def test_big_three_dragons_with_a_terminal_pung_counts_one_pung_of_terminals() -> None:
    s = scoring.score("CCCFFFPPP111m55s")
    yaojiu = [f for f in s.fans if f.zh == "幺九刻"]
    assert yaojiu and yaojiu[0].count == 1 and yaojiu[0].sets == (("111m",),)


@pytest.mark.parametrize("win", ["2m", "5m", "8m"])
def test_nine_gates_on_258_counts_one_pung_of_terminals(win: str) -> None:
    counts = {f.zh: f.count for f in scoring.score(f"1112345678999m{win}").fans}
    assert counts["九莲宝灯"] == counts["双暗刻"] == counts["幺九刻"] == 1


@pytest.mark.parametrize("win", ["3m", "4m", "6m", "7m"])
def test_nine_gates_on_other_tiles_counts_no_pung_of_terminals(win: str) -> None:
    zh = [f.zh for f in scoring.score(f"1112345678999m{win}").fans]
    assert "九莲宝灯" in zh and "幺九刻" not in zh
