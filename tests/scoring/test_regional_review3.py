"""Xiamen (厦门) and Zhenjiang (镇江) against seeds 000 / 001: the third review's findings
F1, F2, F4, F5, F6 and F7 (each test names the rule; hands in notation)."""

from __future__ import annotations

from typing import Any

import pytest

import scoring
from scoring import HandError

ALL = ("left", "opposite", "right")


def xm(hand: str, **kw: Any) -> scoring.Score:
    return scoring.score(hand, rules="xiamen", **kw)


def zj(hand: str, **kw: Any) -> scoring.Score:
    kw.setdefault("indicator", "1m")  # 百搭 2m
    return scoring.score(hand, rules="zhenjiang", **kw)


def amounts(s: scoring.Score) -> list[tuple[str, int, int]]:
    return [(p.payer, p.amount, getattr(p, "bonus", 0)) for p in s.settlement.payments]


# ---------------------------------------------------------------- F1: wins on the deal
def test_tian_he_refuses_a_claimed_meld() -> None:
    """Seed 000: "8、天和：庄家起手就和牌" — the dealer wins on the tiles he was dealt, so
    nothing is claimed yet."""
    with pytest.raises(HandError, match=r"天和 .*no melds"):
        xm("[555p,1]123m456m789m234p9s9s", gold="9s", win="天和", dealer=True)
    ok = xm("555p123m456m789m234p9s9s", gold="9s", win="天和", dealer=True)
    assert ok.total == (16 + 2 + 1) * 4  # 底 16, 金 2, 暗刻 1


@pytest.mark.parametrize("hand", ["[5555p]123m456m789m234p99s", "555p123m456m789m234p99s"])
def test_tian_he_refuses_a_kong_replacement(hand: str) -> None:
    """Seed 000: "8、天和：庄家起手就和牌" — won on the deal, not on a kong's replacement
    tile (a declared kong and ``kong=true`` alike)."""
    with pytest.raises(HandError, match=r"天和 .*(no melds|drop kong=true)"):
        xm(hand, gold="1s", win="天和", dealer=True, kong=True)


def test_three_golds_at_the_opening_refuses_a_claimed_meld() -> None:
    """Seed 000: "A、起手三个金时三金倒，可以算游金就是四倍" — 起手: the three golds are in
    the dealt hand, before anyone discards, so nothing is claimed."""
    with pytest.raises(HandError, match=r"三金倒 at the opening .*no melds"):
        xm("[555p,1]1s1s1s23m456m789m23p", gold="1s", win="三金倒", opening=True)
    with pytest.raises(HandError, match=r"三金倒 at the opening .*drop kong=true"):
        xm("1s1s1s123m456m789m234p5p", gold="1s", win="三金倒", opening=True, kong=True)


def test_three_golds_at_the_opening_is_on_the_dealt_tile_count() -> None:
    """Seed 000: "A、起手三个金时三金倒" with RULES.md "Dealer starts with 17 tiles, others
    16": the dealer declares on 17, a non-dealer on 16 (his first draw comes after the
    dealer's discard, so no longer 起手)."""
    with pytest.raises(HandError, match=r"dealer's 17 dealt tiles.*this one has 16"):
        xm("1s1s1s123m456m789m234p5p", gold="1s", win="三金倒", opening=True, dealer=True)
    dealer = xm("1s1s1s123m456m789m234p5p6p", gold="1s", win="三金倒", opening=True, dealer=True)
    assert amounts(dealer) == [(p, (16 + 3) * 4, 50) for p in ALL]
    with pytest.raises(HandError, match=r"non-dealer's 16 dealt tiles.*this one has 17"):
        xm("1s1s1s123m456m789m234p5p6p", gold="1s", win="三金倒", opening=True)
    assert xm("1s1s1s123m456m789m234p5p", gold="1s", win="三金倒", opening=True).total == 44


def test_later_three_golds_is_declared_on_a_draw_with_17_tiles() -> None:
    """Seed 000: "B、如果再臭庄前只要手里拿到3张金牌可以三金倒" — after the opening the
    third gold comes by a draw (a discarded gold "不能吃、碰、杠"), so the hand holds 17."""
    with pytest.raises(HandError, match=r"after the opening.*this one has 16"):
        xm("1s1s1s123m456m789m234p5p", gold="1s", win="三金倒")
    assert xm("1s1s1s123m456m789m234p5p6p", gold="1s", win="三金倒").total == 11 * 3


# ---------------------------------------------------------------- F2: 三游 uncapped
def test_san_you_without_the_stack_cap_pays_at_least_its_worth() -> None:
    """Seed 000: "三游…无需再计算水数自然杀三" (it takes every chip) and 三游 ×12 above
    双游 ×8: with ``cap_at_stack=false`` a payer pays all he has, or (底 + 水) × 12 when
    that is more — never less than the 双游 of the same hand."""
    room = {"cap_at_stack": False}
    kw: dict[str, Any] = {"gold": "9s", "dealer": True, "dealer_repeats": 3, "settings": room}
    san = xm("123m456m789m234p567p9s", win="三游", **kw)
    shuang = xm("123m456m789m234p567p9s3p", win="双游", **kw)
    assert amounts(san) == [(p, 129 * 12, 250) for p in ALL]
    assert san.settlement.winner_receives > shuang.settlement.winner_receives
    small = xm("123m456m789m234p567p9s", gold="9s", win="三游", chips_left=150,
               settings=room)
    assert amounts(small) == [("left", 150, 250), ("opposite", 108, 250), ("right", 108, 250)]


# ---------------------------------------------------------------- F4: 抢杠 / 杠上开花
def test_xiamen_robbing_a_kong_checks_the_robbed_tile_without_a_discarder() -> None:
    """Seed 000: "抢杠自摸：对抢杠胡牌的…以自摸论" and "金打出后其它玩家不能吃、碰、杠该金牌":
    a robbed tile was added to a pung, so it is never the gold, whether or not the seat it
    came from is given."""
    with pytest.raises(HandError, match=r"抢杠 .*5m: it is the gold"):
        xm("123m789m123p789p1s1s12s5m", gold="5m", kong=True)
    with pytest.raises(HandError, match=r"抢杠 .*holds another 5s"):
        xm("123m456m789m234p567p5s5s", gold="9s", kong=True)


def test_xiamen_kong_replacement_win_needs_a_kong() -> None:
    """RULES.md: "Reject contexts that cannot happen (… 杠上开花 with no kong …)" — a
    self-drawn ``kong=true`` win is off a kong's replacement tile."""
    with pytest.raises(HandError, match=r"杠上开花 .*needs a kong"):
        xm("123m789m123p789p11s12s3s", gold="5m", kong=True, self_drawn=True)
    assert xm("[EEEE,1]123m789m123p11s12s3s", gold="5m", kong=True, self_drawn=True).legal


def test_zhenjiang_robbing_a_kong_checks_the_robbed_tile_without_a_discarder() -> None:
    """RULES.md: "Reject contexts that cannot happen (… 抢杠和 on a tile the winner
    holds)" (seed 001 is silent on robbing; it is read as a discard win): the check runs
    whether or not the discarder's seat is given."""
    with pytest.raises(HandError, match=r"抢杠 .*holds another 2m"):
        zj("123p456p789sEE1m2m2m", kong=True)


# ---------------------------------------------------------------- F5: 打搭放冲
def test_zhenjiang_robbed_wild_is_no_wild_discard_deal_in() -> None:
    """Seed 001: "10.成搭：打搭放冲+1倍的底牌" — 打: a 百搭 *discarded* into a win. A 百搭
    robbed from an added kong was not discarded: 冲 1 only."""
    robbed = zj("123p456p789sEE1m3m2m", kong=True, discarder=2)
    assert [(f.zh, f.points) for f in robbed.fans] == [("冲", 1)]
    assert robbed.total == 1
    discarded = zj("123p456p789sEE1m3m2m", discarder=2)
    assert [f.zh for f in discarded.fans] == ["冲", "打搭放冲"] and discarded.total == 2


# ---------------------------------------------------------------- F6: 杀三
@pytest.mark.parametrize("ctx", [
    {"chips_left": 0, "chips_opposite": 0, "chips_right": 0},
    {"settings": {"chip_stack": 1}, "chips_left": 0, "chips_opposite": 0, "chips_right": 0},
])
def test_kill_three_needs_chips_to_empty(ctx: dict[str, Any]) -> None:
    """Seed 000: "9、杀三：如果一局游戏结束时某一个玩家同时清空了其他玩家的100筹码" — a
    payer who holds no chips is not emptied by this win: no 杀三 bonus."""
    s = xm("123m789m123p789p11sEEE", gold="5m", self_drawn=True, **ctx)
    assert s.details["kill_three"] is False
    assert amounts(s) == [(p, 0, 0) for p in ALL]
    san = xm("123m456m789m234p567p9s", gold="9s", win="三游", **ctx)
    assert san.details["kill_three"] is False and amounts(san) == [(p, 0, 150) for p in ALL]


def test_kill_three_still_when_every_payer_is_emptied() -> None:
    """Seed 000: "9、杀三…同时清空了其他玩家的100筹码": one chip each, all three emptied."""
    s = xm("123m789m123p789p11sEEE", gold="5m", self_drawn=True, chips_left=1,
           chips_opposite=1, chips_right=1)
    assert s.details["kill_three"] is True and amounts(s) == [(p, 1, 100) for p in ALL]


# ---------------------------------------------------------------- F7
def test_wild_after_pung_does_not_follow_a_kong_claimed_from_a_discard() -> None:
    """Seed 001: "碰牌后打搭：+2倍的底牌" — after a pung. A kong claimed from a discard
    (大明杠) draws a replacement: no pung to follow. A kong added to a pung was one."""
    with pytest.raises(HandError, match=r"0 claimed pung"):
        zj("[EEEE,1]123p456p789s11s", self_drawn=True, wild_after_pung="winner")
    added = zj("[EEEE,5]123p456p789s11s", self_drawn=True, wild_after_pung="winner")
    assert added.details["net"]["winner"] == 3 + 6


def test_san_you_on_sixteen_tiles_shows_its_lone_gold_once() -> None:
    """Seed 000: "三游：当双游时摸到的牌又是一张金，可以再次将金打出" — one gold is left
    beside five sets, and the 金 item counts it once: the reading shows it once."""
    s = xm("123m456m789m234p567p9s", gold="9s", win="三游")
    assert s.details["reading_text"][0] == "金(9s)"
    assert s.details["reading"][0]["wild"] == ["9s"]
    gold = next(f for f in s.fans if f.zh == "金")
    assert gold.count == 1 and gold.sets == (("金(9s)",),)


def test_xiamen_tile_count_is_checked_before_the_robbed_tile() -> None:
    """RULES.md: "Dealer starts with 17 tiles, others 16" (a win holds 17): an 18-tile hand
    is refused for its size first, whatever else its context says."""
    with pytest.raises(HandError, match=r"17 tiles .*this one has 18"):
        xm("123m789m123p789p11s123s5m", gold="5m", kong=True, discarder=1)


def test_dealer_streak_does_not_change_a_non_dealers_base() -> None:
    """Seed 000: "臭庄当盘的庄家继续做下一盘的庄家，庄家的底这时要翻倍" — the streak doubles
    the dealer's 底 only; a non-dealer winning in the same hand keeps 8 (documented
    reading: score sheets pass the hand's streak for every winner)."""
    s = xm("123m456m789m234p567p5s5s", gold="9s", self_drawn=True, dealer_repeats=5,
           drawn_hands=2)
    assert s.fans[0].points == 8 and s.total == 16


def test_zhenjiang_refuses_a_flower_count_with_the_context_before_any_hand() -> None:
    """Seed 001: 没有花牌 (136 tiles, no flowers): a flower count is a context no hand can
    take, refused by check_context (so /v1/recognize refuses it before the photo)."""
    with pytest.raises(scoring.HandError, match="without flowers"):
        scoring.check_context("zhenjiang", indicator="C", flowers=2)
    scoring.check_context("zhenjiang", indicator="C")
