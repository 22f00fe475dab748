"""Regional fans' English names read as MCR's do (session 76, i18n review finding 7).

Xiamen's and Zhenjiang's English names were lower-case phrases, MCR's Title Case, so 自摸
read "self-drawn" under Zhenjiang and "Self-Drawn" under MCR. Each regional name is now in
Title Case, and a fan with the same Chinese name as an MCR fan has MCR's English name. And
Zhenjiang's 诈胡 reason no longer calls a 百搭 won on a discard (or robbed from a kong) a
wild: that one is its own face (report_zjadv F1, "scorer text").
"""

from __future__ import annotations

import re
from typing import Any

import pytest

import scoring
from scoring.mcr.fans import FANS
from scoring.rulesets.xiamen_money import SET_WATER_KEYS
from scoring.rulesets.xiamen_settings import WIN_NAMES

#: Words that Title Case leaves lower-case inside a name, as MCR's names do ("All
#: Terminals and Honors", "Out with Replacement Tile", "Robbing the Kong").
SMALL = {"a", "an", "and", "at", "by", "for", "in", "of", "on", "or", "the", "to", "with"}

MCR_EN = {f.zh: f.en for f in FANS.values()}


def title_case(name: str) -> bool:
    """Every English word capitalised (each part of "Self-Drawn" too), a small word
    lower-case inside the name; Chinese and parenthesised words are left as they are."""
    words = re.findall(r"[A-Za-z]+(?:-[A-Za-z]+)*", name)
    if not words:
        return False
    for k, w in enumerate(words):
        if k and w in SMALL:
            continue
        if not all(part[0].isupper() for part in w.split("-")):
            return False
    return True


def zj(hand: str, **ctx: Any) -> scoring.Score:
    return scoring.score(hand, rules="zhenjiang", **ctx)


def xm(hand: str, **ctx: Any) -> scoring.Score:
    return scoring.score(hand, rules="xiamen", **ctx)


#: Hands that between them score every regional item (the name checked for each).
REGIONAL = [
    zj("111p456m789m123pEE", indicator="8s", dealer=True, tian_hu=True),   # 天胡
    zj("[SSSS,1]46m789m123p2mE E", indicator="1m", self_drawn=True, kong=True),  # 杠开
    zj("[SSSS,1]456m789mEE 5s5s5s", indicator="1m", self_drawn=True, kong=True),  # 脱搭明杠
    zj("[SSSS]456m789mEE 5s5s5s", indicator="1m", self_drawn=True, kong=True),  # 脱搭暗杠
    zj("111p456m789m123pEE", indicator="1m", self_drawn=True),              # 自摸
    zj("13m456m789p123pEE 2m", indicator="1m", discarder=1),                # 冲, 打搭放冲
    xm("[EEEE][2222p,1][CCC,2]777s55m79m 8m", gold="1s", discarder=2),      # 底, 水 of sets
    xm("[SSSS,1][3333p]WWW55m79m234s 8m 1f2f3f4f5f6f7f8f", gold="1s", discarder=2,
       dealer=True),  # 底 (dealer), 花, 四季, 四花, 明杠(字), 暗杠, 暗刻(字)
    xm("123m456m789m234p5s5s77s 7s 5f6f7f8f", gold="9s", self_drawn=True),  # 暗刻, 四花
    xm("123m456m789m234p678s5s 9s", gold="9s", self_drawn=True, flowers=7),  # 金, 四季/四花
]


def regional_fans() -> list[tuple[str, str, str]]:
    return [(s.rules, f.zh, f.en) for s in REGIONAL for f in s.fans]


def test_the_hands_cover_every_regional_item() -> None:
    assert all(s.legal for s in REGIONAL), [s.details for s in REGIONAL if not s.legal]
    zh = {z for _, z, _ in regional_fans()}
    assert {"天胡", "杠开", "脱搭明杠杠开", "脱搭暗杠杠开", "自摸", "冲", "打搭放冲"} <= zh
    assert {"底", "金", "花", "四季", "四花", "四季/四花", "碰(字)", "暗刻", "暗刻(字)",
            "明杠", "明杠(字)", "暗杠", "暗杠(字)"} <= zh, zh


@pytest.mark.parametrize(("rules", "zh", "en"), regional_fans(),
                         ids=[f"{r}-{z}" for r, z, _ in regional_fans()])
def test_a_regional_fan_is_named_in_title_case(rules: str, zh: str, en: str) -> None:
    assert title_case(en), (rules, zh, en)


def test_a_regional_fan_with_an_mcr_fans_chinese_name_has_its_english_name() -> None:
    shared = {(zh, en) for _, zh, en in regional_fans() if zh in MCR_EN}
    assert {zh for zh, _ in shared} == {"自摸", "明杠", "暗杠"}
    assert all(en == MCR_EN[zh] for zh, en in shared), shared
    assert dict(shared)["自摸"] == "Self-Drawn"


def test_xiamen_set_items_and_win_types_are_named_in_title_case() -> None:
    names = [en for *_, en in SET_WATER_KEYS.values()] + [en for _, en in WIN_NAMES.values()]
    assert all(title_case(en) for en in names), names
    assert WIN_NAMES["self_drawn"] == ("自摸", MCR_EN["自摸"])
    for zh, en in (zh_en[2:] for zh_en in SET_WATER_KEYS.values()):
        assert en == MCR_EN.get(zh, en)


def test_the_names_read_as_the_examples() -> None:
    en = {zh: e for _, zh, e in regional_fans()}
    assert en["冲"] == "Won on a Discard" and en["打搭放冲"] == "Won on a Discarded 百搭"
    assert en["脱搭暗杠杠开"] == "Out on a Concealed Kong Replacement, No 百搭 (脱搭)"
    assert en["四季/四花"] == "All Four Seasons or All Four Flowers"
    assert en["暗杠(字)"] == "Concealed Kong of Honours"
    assert {e for _, z, e in regional_fans() if z == "底"} == {"Base", "Base (Dealer)"}


# --- Zhenjiang 诈胡: the reason names the 百搭 won on a discard as its own face -------------

#: Waits on S; a 2m (the 百搭 after indicator 1m) makes it a win only self-drawn.
THIRTEEN = "111p456789m123pS"


def test_a_false_win_on_a_discarded_wild_says_it_is_its_own_face() -> None:
    s = zj(THIRTEEN + "2m", indicator="1m", discarder=1)
    assert not s.legal
    reason = s.details["reason"]
    assert "with the winning 2m as its own face (a 百搭 won on a discard is not wild)" in reason
    assert "as wilds" not in reason and reason.endswith("a declared win is 诈胡")
    # the same tiles self-drawn are a win: the 2m is wild there
    assert zj(THIRTEEN + "2m", indicator="1m", self_drawn=True).legal


def test_a_false_win_on_a_wild_robbed_from_a_kong_says_so() -> None:
    s = zj(THIRTEEN + "2m", indicator="1m", discarder=1, kong=True)
    assert not s.legal
    assert "(a 百搭 robbed from a kong is not wild)" in s.details["reason"]


def test_a_false_win_on_a_discarded_wild_with_other_wilds_names_both() -> None:
    s = zj("111p456789m12pS2m2m", indicator="1m", discarder=1)
    assert not s.legal
    assert ("with the winning 2m as its own face (a 百搭 won on a discard is not wild) and "
            "the other 2m (百搭) as wilds; a declared win is 诈胡") in s.details["reason"]


def test_a_false_win_on_another_tile_keeps_the_wilds_wording() -> None:
    s = zj("111p456789m123pSE", indicator="1m", discarder=1)
    assert not s.legal
    assert s.details["reason"] == ("not complete: the tiles do not form four sets and a pair "
                                   "with 2m (百搭) as wilds; a declared win is 诈胡")
