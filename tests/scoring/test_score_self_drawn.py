"""A score says whether its win is self-drawn (``Score.self_drawn``, ``to_dict()``'s
``"self_drawn"``): won without a discard as the rule set scores and settles it — each
other player pays, nobody deals in — by each rule set's own reading, not only the
``self_drawn`` flag. Before the seventy-fourth session the score did not say it and a
score sheet guessed it from Xiamen's win-type names and Zhenjiang's 天胡 item.

- MCR: the flag — 自摸, 不求人, 杠上开花, 妙手回春 alike, whichever fan the version
  counts — and robbing a kong (抢杠和) is a win on the konger's tile, paid by him;
- Xiamen (seed 000): the flag, a robbed kong (抢杠自摸: 以自摸论), ``win=自摸``, and
  游金, 双游, 三游, 三金倒, 天和 whatever the flag says; 天听 either way;
- Zhenjiang (seed 001): the flag (自摸, 杠开) and 天胡; 抢杠 is a win on a discard.
"""

from __future__ import annotations

from typing import Any

import pytest

import scoring
from scoring.rulesets.base import Settlement

OTHERS = ("left", "opposite", "right")
#: Xiamen: 17 tiles of chows and a pair, no gold held (gold 9s).
XM_PLAIN = "123m456m789m234p567p5s 5s"
#: Xiamen: a gold (9s) beside five chows, the drawn 3p its partner: 游金's shape.
XM_YOU_JIN = "123m456m789m234p567p9s 3p"
#: Zhenjiang: four sets and a pair with no 百搭 (indicator 1m: 百搭 2m is held in 123m).
ZJ_PLAIN = "123m456m789m234pEE"


def xm(hand: str, **kw: Any) -> scoring.Score:
    kw.setdefault("gold", "9s")
    return scoring.score(hand, rules="xiamen", **kw)


def zj(hand: str, **kw: Any) -> scoring.Score:
    kw.setdefault("indicator", "1m")
    return scoring.score(hand, rules="zhenjiang", **kw)


def each_other_pays(s: scoring.Score) -> bool:
    return [p.payer for p in s.settlement.payments] == list(OTHERS)


# --- the result type -----------------------------------------------------------------------


def test_to_dict_says_self_drawn_as_a_bool_after_the_settlement() -> None:
    d = scoring.score("[EEE,2][SSSS,1]WWWNN55pN", self_drawn=True).to_dict()
    assert list(d) == ["total", "legal", "rules", "version", "fans", "settlement",
                       "self_drawn"]
    assert d["self_drawn"] is True
    assert scoring.score("[EEE,2][SSSS,1]WWWNN55pN").to_dict()["self_drawn"] is False


def test_a_score_cannot_be_made_without_saying_whether_it_is_self_drawn() -> None:
    """Each rule set sets it (a rule set that forgot would have every win read as on a
    discard by a score sheet)."""
    with pytest.raises(TypeError, match="self_drawn"):
        scoring.Score("mcr", None, 8, True, (), Settlement("points"))  # type: ignore[call-arg]


# --- MCR: the flag -------------------------------------------------------------------------


@pytest.mark.parametrize(("hand", "flags", "version", "fan"), [
    ("123m456m789m55p123p", {}, "mil-2015", "不求人"),  # concealed: 不求人, not 自摸
    ("[123m,1]456m789m55p123p", {}, "mil-2015", "自摸"),
    # 七对 self-drawn: 不求人 under wmo-2006 (forced concealed), 自摸 under mil-2015
    ("1122m3344p5566s77s", {}, "wmo-2006", "不求人"),
    ("1122m3344p5566s77s", {}, "mil-2015", "自摸"),
    # 杠上开花 and 妙手回春 count no 自摸 of their own (不计自摸)
    ("[1111m]234m567p789s55p", {"kong": True}, "mil-2015", "杠上开花"),
    ("[123m,1]456m789m55p123p", {"last_wall_tile": True}, "mil-2015", "妙手回春"),
], ids=["不求人", "自摸", "七对 wmo-2006 不求人", "七对 mil-2015 自摸", "杠上开花", "妙手回春"])
def test_mcr_a_self_drawn_win_says_so_whichever_fan_it_scores(
        hand: str, flags: dict[str, bool], version: str, fan: str) -> None:
    s = scoring.score(hand, self_drawn=True, version=version, **flags)
    assert s.legal and fan in [f.zh for f in s.fans]
    assert s.self_drawn is True
    assert each_other_pays(s)


def test_mcr_self_drawn_without_a_self_drawn_fan_is_still_self_drawn() -> None:
    """妙手回春 with a claimed chow scores neither 自摸 nor 不求人: only the flag says it."""
    s = scoring.score("[123m,1]456m789m55p123p", self_drawn=True, last_wall_tile=True)
    assert not {"自摸", "不求人"} & {f.zh for f in s.fans}
    assert s.self_drawn is True


@pytest.mark.parametrize(("hand", "flags", "fan"), [
    ("123m456m789m55p123p", {"kong": True}, "抢杠和"),  # robbing a kong: the konger pays
    ("[123m,1]456m789m55p123p", {"last_wall_tile": True}, "海底捞月"),
    ("123m456m789m55p123p", {"discarder": 2}, "门前清"),
], ids=["抢杠和", "海底捞月", "discard"])
def test_mcr_robbing_a_kong_and_other_discard_wins_are_not_self_drawn(
        hand: str, flags: dict[str, Any], fan: str) -> None:
    s = scoring.score(hand, **flags)
    assert s.legal and fan in [f.zh for f in s.fans]
    assert s.self_drawn is False
    paid = sorted(p.amount for p in s.settlement.payments)  # the discarder pays 8 + total
    assert paid == [8, 8, 8 + s.total]


def test_mcr_a_win_under_the_minimum_says_how_it_was_claimed() -> None:
    assert scoring.score("[234m,1]456p678s234s99m", self_drawn=True).self_drawn is True
    assert scoring.score("[234m,1]456p678s234s99m").self_drawn is False


def test_mcr_waits_scores_say_each_way() -> None:
    (wait,) = scoring.waits("123m456m789m55p12p").waits
    assert wait.discard is not None and wait.self_drawn is not None
    assert (wait.discard.self_drawn, wait.self_drawn.self_drawn) == (False, True)


# --- Xiamen (seed 000) ---------------------------------------------------------------------


@pytest.mark.parametrize(("hand", "context"), [
    (XM_YOU_JIN, {"win": "游金"}),
    (XM_YOU_JIN, {"win": "双游"}),
    (XM_YOU_JIN, {"win": "三游"}),
    ("123m456m789m234p55p9s9s9s", {"win": "三金倒"}),
    ("123m456m789m234p5p9s9s9s", {"win": "三金倒", "opening": True}),
    (XM_PLAIN, {"win": "天和", "dealer": True}),
    (XM_PLAIN, {"win": "自摸"}),
    # 抢杠自摸 (对抢杠胡牌的…以自摸论), without and with the konger's seat
    ("[555p,1]123m456m789m99p67s5s", {"kong": True}),
    ("[555p,1]123m456m789m99p67s5s", {"kong": True, "discarder": 3}),
    ("[555p,1]123m456m789m99p67s5s", {"kong": True, "win": "自摸", "discarder": 3}),
    ("123m456m789m234p11s567p", {"win": "天听", "kong": True}),
    ("123m456m789m234p11s567p", {"win": "天听", "self_drawn": True}),
], ids=["游金", "双游", "三游", "三金倒", "三金倒 opening", "天和", "win 自摸", "抢杠自摸",
        "抢杠自摸 konger", "win 自摸 抢杠 konger", "天听 抢杠", "天听 自摸"])
def test_xiamen_wins_without_a_discard_are_self_drawn_without_the_flag(
        hand: str, context: dict[str, Any]) -> None:
    s = xm(hand, **context)
    assert s.legal, s.details
    assert s.self_drawn is True
    assert s.to_dict()["self_drawn"] is True


@pytest.mark.parametrize("context", [
    {}, {"discarder": 1}, {"win": "平胡", "discarder": 2}, {"win": "discard"},
    {"win": "天听"}, {"win": "天听", "discarder": 2},
], ids=["plain", "plain discarder", "平胡", "discard", "天听", "天听 discarder"])
def test_xiamen_a_win_on_a_discard_is_not_self_drawn(context: dict[str, Any]) -> None:
    s = xm(XM_PLAIN, **context)
    assert s.legal and s.self_drawn is False


def test_xiamen_a_claim_that_is_no_win_says_how_it_was_claimed() -> None:
    """诈胡: a 游金 claimed without a gold is self-drawn by its type; a discard win with a
    gold held (self-draw only) was claimed on a discard."""
    you_jin = xm("123m456m789m234p567p5s 3p", win="游金")
    assert not you_jin.legal and you_jin.self_drawn is True
    on_discard = xm(XM_YOU_JIN, discarder=1)
    assert not on_discard.legal and on_discard.self_drawn is False


def test_xiamen_waits_scores_say_each_way() -> None:
    waits = scoring.waits("123m456m789m234p567p5s", rules="xiamen", gold="9s").waits
    assert {w.tile: (w.discard and w.discard.self_drawn, w.self_drawn and w.self_drawn.self_drawn)
            for w in waits} == {"5s": (False, True), "9s": (None, True)}


# --- Zhenjiang (seed 001) ------------------------------------------------------------------


def test_zhenjiang_tian_hu_is_self_drawn_with_the_flag_or_without() -> None:
    """天胡, the dealer's win on the deal: each other player pays 12×."""
    for flag in (False, True):
        s = zj(ZJ_PLAIN, tian_hu=True, dealer=True, self_drawn=flag)
        assert [f.zh for f in s.fans] == ["天胡"]
        assert s.self_drawn is True and each_other_pays(s)


@pytest.mark.parametrize(("hand", "flags", "item", "drawn"), [
    (ZJ_PLAIN, {"self_drawn": True}, "自摸", True),
    ("[SSSS,1]456m789mEE 5s5s5s", {"self_drawn": True, "kong": True}, "脱搭明杠杠开", True),
    (ZJ_PLAIN, {}, "冲", False),
    (ZJ_PLAIN, {"discarder": 2}, "冲", False),
    ("123m456m789m55p234p", {"kong": True}, "冲", False),  # 抢杠: the konger pays
], ids=["自摸", "杠开", "冲", "冲 discarder", "抢杠"])
def test_zhenjiang_self_drawn_is_the_flag_and_robbing_a_kong_is_a_discard_win(
        hand: str, flags: dict[str, Any], item: str, drawn: bool) -> None:
    s = zj(hand, **flags)
    assert [f.zh for f in s.fans] == [item]
    assert s.self_drawn is drawn
    assert each_other_pays(s) is drawn


def test_zhenjiang_a_false_tian_hu_says_it_was_claimed_self_drawn() -> None:
    """诈胡: a 天胡 claimed on tiles that are no win is a claim without a discard (its
    score has no items to tell it by)."""
    s = zj("111p456m789m123pSN", tian_hu=True, dealer=True)
    assert not s.legal and s.fans == ()
    assert s.self_drawn is True
    assert zj("111p456m789m123pSN", discarder=1).self_drawn is False
