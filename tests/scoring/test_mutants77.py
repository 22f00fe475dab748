"""Hands that pin MCR fan checks and combination rules the rest of the suite left loose.

Each case was found by a mutation test of ``scoring/mcr`` (session 77): a small change to
the engine (a dropped 不计 entry, a flipped version row, a loosened fan check) that every
other test still passed. Each case names the fan or rule (Chinese name and number in seed
003) and the mutant it kills. Expected totals and fan counts under ``mil-2015`` were
checked against the reference calculator (PyPI ``pymahjonggb``; the last test repeats the
check where it is installed); the other versions follow the seed's version table.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import pytest
from oracle_differences import reference_score

import scoring
from scoring.mcr.fans import FANS

BY_EN = {f.en: f.id for f in FANS.values()}
"""English fan name -> fan id."""


class Case(NamedTuple):
    """One winning hand: ``fans`` is the full fan table (fan id -> count) and ``total``
    its value in fan, under rule ``version``."""

    rule: str
    hand: str
    ctx: dict[str, Any]
    version: str
    total: int
    fans: dict[str, int]


def fan_counts(hand: str, version: str, **ctx: Any) -> tuple[int, dict[str, int]]:
    """Total (fan) and fan id -> count of a hand under ``version``."""
    s = scoring.score(hand, version=version, **ctx)
    return s.total, {BY_EN[f.en]: f.count for f in s.fans}


CASES: list[Case] = [
    # 8 清幺九 does not count 48 碰碰和 (its 不计 list): with claimed pungs, where no
    # 四暗刻 hides it. Kills F.excl.8.all_terminals-all_pungs.
    Case("清幺九 #8 with claimed pungs: no 碰碰和", "[111m,1][999p,2]111s999m99s", {},
         "mil-2015", 67, {"all_terminals": 1, "two_concealed_pungs": 1, "single_wait": 1}),
    # 13 一色双龙会 does not count 22 清一色 or 63 平和 (its 不计 list). Kills
    # F.excl.13.pure_terminal_chows-full_flush and F.excl.13.pure_terminal_chows-all_chows.
    Case("一色双龙会 #13: no 清一色, no 平和", "12312378978955m", {}, "mil-2015", 67,
         {"pure_terminal_chows": 1, "concealed_hand": 1, "single_wait": 1}),
    # 14 一色四同顺 does not count 64 四归一 (three kinds held four times here). Kills
    # F.excl.14.quadruple_chow-tile_hog.
    Case("一色四同顺 #14: no 四归一", "23423423423488s", {}, "mil-2015", 167,
         {"all_green": 1, "quadruple_chow": 1, "full_flush": 1, "concealed_hand": 1,
          "all_chows": 1, "all_simples": 1, "single_wait": 1}),
    # 29 三色双龙会 does not count 63 平和 (its 不计 list). Kills
    # F.excl.29.three_suited_terminal_chows-all_chows.
    Case("三色双龙会 #29: no 平和", "123789m123789s55p", {}, "mil-2015", 19,
         {"three_suited_terminal_chows": 1, "concealed_hand": 1, "single_wait": 1}),
    # 13 一色双龙会: 123 123 789 789 of ONE suit around a pair of that suit's 5. Each hand
    # misses one condition (melded 123m, so no 七对 reading takes over). Kills K.cg.pair5
    # (a pair of 4s), K.cg.puresuit (a 5 of another suit), K.cg.ranks (123 123 456 789).
    Case("一色双龙会 #13 needs the pair of 5s: 44m is not", "[123m,1]12378978944m", {},
         "mil-2015", 29, {"full_flush": 1, "all_chows": 1, "pure_double_chow": 2,
                          "two_terminal_chows": 1}),
    Case("一色双龙会 #13 needs the 5s of the same suit: 55p is not", "[123m,1]123789789m55p",
         {}, "mil-2015", 7, {"all_chows": 1, "pure_double_chow": 2, "two_terminal_chows": 1,
                             "one_voided_suit": 1, "single_wait": 1}),
    Case("一色双龙会 #13 needs 123 123 789 789: 123 123 456 789 is 清龙", "12312345678955m", {},
         "mil-2015", 46, {"full_flush": 1, "pure_straight": 1, "concealed_hand": 1,
                          "all_chows": 1, "pure_double_chow": 1, "closed_wait": 1}),
    # 29 三色双龙会: 123 + 789 in each of two suits, 5s of the third. Kills K.cg.distinct
    # (123m 123m 789p 789p) and K.cg.pairsuit (the 5s in one of the two suits).
    Case("三色双龙会 #29 needs 123+789 in both suits", "[123m,1]123m789789p55s", {},
         "mil-2015", 5, {"all_chows": 1, "pure_double_chow": 2, "single_wait": 1}),
    Case("三色双龙会 #29 needs the 5s of the third suit", "123789m123789p55m", {}, "mil-2015", 9,
         {"concealed_hand": 1, "all_chows": 1, "mixed_double_chow": 2, "two_terminal_chows": 1,
          "one_voided_suit": 1, "single_wait": 1}),
    # 35 组合龙 with a concealed kong as its set: 62 门前清 (a concealed kong is no claim),
    # 67 暗杠 (not 74 明杠) and no 64 四归一 on the kong. Kills K.kn.concealed, K.kn.kong
    # and K.kn.hog.
    Case("组合龙 #35 with a concealed kong: 门前清, 暗杠, no 四归一", "[EEEE]147m258p369sCC", {},
         "mil-2015", 27, {"knitted_straight": 1, "all_types": 1, "prevalent_wind": 1,
                          "seat_wind": 1, "concealed_hand": 1, "concealed_kong": 1,
                          "single_wait": 1}),
    # 6 连七对: seven consecutive pairs of ONE suit; 4m-9m and 1p are consecutive tile
    # indices but two suits, so this is 七对 (#19). Kills K.sp.shiftsuit.
    Case("连七对 #6 needs one suit: 445566778899m11p is 七对", "445566778899m11p", {},
         "mil-2015", 26, {"seven_pairs": 1, "one_voided_suit": 1, "no_honors": 1}),
    # 25 全大 / 27 全小 do not count 76 无字, 26 全中 does not count 68 断幺. Kills
    # F.excl.25.upper_tiles-no_honors, F.excl.27.lower_tiles-no_honors and
    # F.excl.26.middle_tiles-all_simples.
    Case("全大 #25: no 无字", "[789m,1]789p777s88s999p", {}, "mil-2015", 30,
         {"upper_tiles": 1, "tile_hog": 1, "two_concealed_pungs": 1, "mixed_double_chow": 1,
          "pung_of_terminals_or_honors": 1}),
    Case("全中 #26: no 断幺", "[456m,1]456p444s555m66p", {}, "mil-2015", 29,
         {"middle_tiles": 1, "tile_hog": 1, "two_concealed_pungs": 1, "mixed_double_chow": 1}),
    Case("全小 #27: no 无字", "[123m,1]123p111s222m33p", {}, "mil-2015", 31,
         {"lower_tiles": 1, "tile_hog": 1, "two_concealed_pungs": 1, "mixed_double_chow": 1,
          "pung_of_terminals_or_honors": 1, "edge_wait": 1}),
    # 4 九莲宝灯 needs the standing 1112345678999 of one suit: 1112345678899 + 9m is a
    # plain 清一色. Kills K.bf.ng (a second standing pattern accepted as 九莲宝灯).
    Case("九莲宝灯 #4 needs 1112345678999: 1112345678899m9m is not one", "1112345678899m9m",
         {}, "mil-2015", 29, {"full_flush": 1, "concealed_hand": 1, "short_straight": 1,
                              "pung_of_terminals_or_honors": 2}),
    # Version table, 必然门前清 row: 98严格版 and 98增补版 count a self-drawn 连七对 (#6) as
    # 80 自摸, not 56 不求人 (世界麻将组织2006版 does). Kills
    # V.98-strict.forced_concealed_self_draw and V.98-supplement.forced_concealed_self_draw
    # (test_mcr_versions reads the preset it checks to build its expectation).
    Case("连七对 #6 self-drawn, 98严格版: 自摸", "11223344556677s", {"self_drawn": True},
         "98-strict", 89, {"seven_shifted_pairs": 1, "self_drawn": 1}),
    Case("连七对 #6 self-drawn, 98增补版: 自摸", "11223344556677s", {"self_drawn": True},
         "98-supplement", 89, {"seven_shifted_pairs": 1, "self_drawn": 1}),
]  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=[c.rule for c in CASES])
def test_fan_table(case: Case) -> None:
    total, fans = fan_counts(case.hand, case.version, **case.ctx)
    assert fans == case.fans, case.rule
    assert total == case.total, case.rule


MIL = [c for c in CASES if c.version == "mil-2015"]


@pytest.mark.parametrize("case", MIL, ids=[c.rule for c in MIL])
def test_mil_cases_agree_with_the_reference_calculator(case: Case) -> None:
    pytest.importorskip("MahjongGB", reason="pymahjonggb (dev extra) is not installed")
    total, fans = reference_score(scoring.parse_hand(case.hand), case.ctx)
    assert (total, dict(fans)) == (case.total, case.fans)
