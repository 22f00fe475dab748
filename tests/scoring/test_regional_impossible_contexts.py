"""Contexts the seeds say cannot happen, refused with a HandError naming what cannot be
(seventy-second session; the review's repro is /tmp/s72/regional/repro.py): Zhenjiang's
百搭 discards counted against the 4 tiles of the kind, Xiamen's 双游/三游 with a kong,
``wall_left`` beyond what the deal leaves, the flower count checked before the legality
check, and 抢杠自摸 named ``win=自摸`` with the konger's seat."""

from __future__ import annotations

from typing import Any

import pytest

import scoring
from scoring import HandError


def zj(hand: str, **kw: Any) -> scoring.Score:
    kw.setdefault("indicator", "1m")  # 百搭 = 2m
    return scoring.score(hand, rules="zhenjiang", **kw)


def xm(hand: str, **kw: Any) -> scoring.Score:
    kw.setdefault("gold", "9s")
    return scoring.score(hand, rules="xiamen", **kw)


def amounts(s: scoring.Score) -> list[tuple[str, int, int]]:
    return [(p.payer, p.amount, getattr(p, "bonus", 0)) for p in s.settlement.payments]


# ---------------------------------------------------------------- Zhenjiang: 百搭 copies
NO_WILD = "111p456m789m123pSS"  # no 2m held


@pytest.mark.parametrize("ctx", [{"indicator": "1m"}, {"wild": "2m"}])
def test_more_wild_discards_than_the_four_tiles_is_refused(ctx: dict[str, str]) -> None:
    """Seed 001: 136 tiles, four of each kind ("翻了一万, 那二万是百搭": the turned-up 1m is
    no 百搭, all four 2m are in play). Each 打首搭 and each 碰后打搭 discards one of them:
    five cannot be, however the 百搭 is given; four can."""
    with pytest.raises(HandError, match=r"5 discards of the 百搭 2m .* only 4 tiles"):
        zj(NO_WILD, **ctx, self_drawn=True, first_wild_discard="opposite",
           wild_after_pung="left,right,left,right")
    four = zj(NO_WILD, **ctx, self_drawn=True, first_wild_discard="left",
              wild_after_pung="left,right,opposite")
    assert four.legal and len(four.details["events"]) == 12


def test_a_drawn_hand_with_more_wild_discards_than_tiles_is_refused() -> None:
    zhenjiang = scoring.get_rule_set("zhenjiang")
    with pytest.raises(HandError, match=r"6 discards of the 百搭 .* only 4 tiles"):
        zhenjiang.draw_transfers({"indicator": "1m", "first_wild_discard": "E",
                                  "wild_after_pung": "S,S,W,N,N,E"})
    assert len(zhenjiang.draw_transfers({"indicator": "1m", "first_wild_discard": "E",
                                         "wild_after_pung": "S,W,N"})) == 12


def test_wild_tiles_held_and_discarded_come_to_four_at_most() -> None:
    """The winner's own 百搭 were never discarded: four held leave none to discard."""
    with pytest.raises(HandError, match=r"百搭 2m has only 4 tiles, but the winner holds 4 .* "
                                        r"6 tiles cannot be"):
        zj("2m2m2m2m456m789m111pS", self_drawn=True, first_wild_discard="left",
           wild_after_pung="right")
    three = zj("2m2m2m456m789m111pSS", self_drawn=True, first_wild_discard="left")
    assert three.legal
    with pytest.raises(HandError, match=r"holds 3 .* 5 tiles cannot be"):
        zj("2m2m2m456m789m111pSS", self_drawn=True, first_wild_discard="left",
           wild_after_pung="right")


def test_the_wild_discard_won_on_or_claimed_may_be_one_of_the_events() -> None:
    """A 百搭 the winner won on (打搭放冲) or claimed for a pung was discarded: it may be
    the 打首搭 itself, so it is counted once. A concealed kong's were all drawn."""
    won_on = zj("2m2m456m789m111pSS2m", discarder=1, first_wild_discard="left")
    assert won_on.legal and [f.zh for f in won_on.fans] == ["冲", "打搭放冲"]
    with pytest.raises(HandError, match=r"holds 3 .* 1 of them a tile the winner took"):
        zj("2m2m456m789m111pSS2m", discarder=1, first_wild_discard="left",
           wild_after_pung="right,opposite")
    assert zj("[222m,1]456m789m111p2mS", self_drawn=True, first_wild_discard="left").legal
    with pytest.raises(HandError, match=r"holds 4 .* 5 tiles cannot be"):
        zj("[222m,1]456m789m111p2mS", self_drawn=True, first_wild_discard="left",
           wild_after_pung="right")
    with pytest.raises(HandError, match=r"holds 4 .* 5 tiles cannot be"):
        zj("[2222m]456m789m111pSS", self_drawn=True, first_wild_discard="left")


# ---------------------------------------------------------------- Xiamen: 双游/三游, kong
@pytest.mark.parametrize(("hand", "win", "self_drawn"), [
    ("[1111m]456m789m234p567p9s3p", "双游", True),   # 杠上开花
    ("123m456m789m567p123s9s4p", "双游", False),     # robbing a kong
    ("[1111m]456m789m234p567p9s", "三游", True),     # 杠上开花, 16 tiles
    ("123m456m789m567p123s9s4p", "三游", False),     # robbing a kong
])
def test_shuang_you_and_san_you_are_never_won_off_a_kong(hand: str, win: str,
                                                        self_drawn: bool) -> None:
    """Seed 000, 双游: "从双游者打金后，其他各家每人最后再摸一张牌无需出牌，若摸到花或杠时不再
    补牌，双游者最后再摸一张牌若可以三游，则将金打出其他各家不再摸牌" and "如果摸到一张牌后不能
    三游,那么系统强行双游和牌": after the 双游 gold the others draw once and replace no kong
    (no kong is added for the 双游 player to rob), and the 双游 player wins on his one draw,
    not on a kong's replacement. 三游: "可以再次将金打出此时其它三家只能各摸一张牌": it is
    won by discarding the third gold, with no draw of the winner's after it. So
    ``kong=true`` (抢杠 without ``self_drawn``, 杠上开花 with it) cannot be."""
    with pytest.raises(HandError, match=f"{win} .* drop kong=true"):
        xm(hand, win=win, self_drawn=self_drawn, kong=True)
    if not self_drawn:  # the same hand and win with no kong still pays
        assert xm(hand, win=win).legal


# ---------------------------------------------------------------- Xiamen: wall_left
PLAIN = "123m456m789m234p567p33p"
THREE_GOLDS = "9s9s9s123m456m789m234p5p"  # a non-dealer's 16 dealt tiles


def test_wall_left_is_at_most_what_the_deal_leaves() -> None:
    """144 tiles, 17 + 3 × 16 = 65 dealt: at most 79 are left in the wall."""
    with pytest.raises(HandError, match=r"wall_left=80 cannot be: of the 144 tiles, 65 are "
                                        r"dealt .* at most 79"):
        xm(PLAIN, wall_left=80)
    with pytest.raises(HandError, match="wall_left=1000000000 cannot be"):
        xm(PLAIN, wall_left=10**9)
    assert xm(PLAIN, wall_left=79).legal


@pytest.mark.parametrize(("hand", "kw"), [
    (PLAIN, {"win": "天和", "dealer": True}),
    (THREE_GOLDS, {"win": "三金倒", "opening": True}),
])
def test_a_win_on_the_deal_has_the_deals_wall(hand: str, kw: dict[str, Any]) -> None:
    """天和 ("庄家起手就和牌") and 三金倒 at the opening ("起手三个金") come before anyone
    draws: the wall holds the 79 the deal left, less one tile for each flower replaced
    (8 at most), so 71 to 79."""
    for wall in (16, 70):
        with pytest.raises(HandError, match=f"won on the tiles of the deal, before anyone "
                                            f"draws: .* not wall_left={wall}"):
            xm(hand, **kw, wall_left=wall)
    for wall in (71, 79, -1):
        assert xm(hand, **kw, wall_left=wall).legal
    later = xm(THREE_GOLDS + "7s", win="三金倒", wall_left=16)  # a later one: any wall
    assert later.legal and later.details["win"] == "three_golds_later"


# ---------------------------------------------------------------- Xiamen: flowers
def test_flowers_listed_against_flowers_is_the_same_refusal_on_an_illegal_hand() -> None:
    """Before, the contradiction was refused on a legal win only; an illegal hand was paid
    as a 诈胡 (-50 each)."""
    message = "the hand shows 2 flowers but flowers=5 was given"
    with pytest.raises(HandError, match=message):
        xm(PLAIN + " 1f2f", self_drawn=True, flowers=5)
    with pytest.raises(HandError, match=message):
        xm("123m456m789m234p567p34p 1f2f", self_drawn=True, flowers=5)
    assert not xm("123m456m789m234p567p34p 1f2f", self_drawn=True, flowers=2).legal


# ---------------------------------------------------------------- Xiamen: 抢杠自摸
ROB = "123m456m789m567p33p23p4p"


def test_robbing_a_kong_named_zimo_takes_the_kongers_seat_like_plain() -> None:
    """Seed 000: "抢杠自摸：对抢杠胡牌的（指不同圈的明杠）以自摸论". The seed names the win
    抢杠自摸 and scores it as a 自摸, so ``win=自摸`` with ``kong=true`` is that win, and the
    seat of the player whose kong was robbed (``discarder``) may be given with it as with
    ``win=plain``: the same answer, 16 from each (8 × 自摸 2). A self-draw off the wall
    (no kong) still has no discarder."""
    plain = xm(ROB, kong=True, discarder=2)
    for name in ("自摸", "self_drawn"):
        zimo = xm(ROB, win=name, kong=True, discarder=2)
        assert (zimo.total, amounts(zimo), zimo.details["win"]) == (
            plain.total, amounts(plain), "self_drawn")
        assert amounts(zimo) == [("left", 16, 0), ("opposite", 16, 0), ("right", 16, 0)]
    with pytest.raises(HandError, match="self-drawn: it has no discarder"):
        xm(ROB, win="自摸", discarder=2)
    with pytest.raises(HandError, match=r"抢杠 .* holds another 3p"):  # the robbed tile held
        xm("123m456m789m567p34p23p3p", win="自摸", kong=True, discarder=2)


def test_one_discard_may_be_both_the_first_wild_and_one_after_a_pung() -> None:
    """Second review (seventy-second session): whether the 打首搭 discard can also be a
    碰后打搭 is an open reading of seed 001 (docs/regional-rules.md), so a count is refused
    only when no reading allows it: the first 百搭 discarded by a seat also named after a
    pung may have been that discard."""
    four_names = zj(NO_WILD, self_drawn=True, first_wild_discard="left",
                    wild_after_pung="left,right,opposite,right")
    assert four_names.legal  # 5 names, 4 discards at least
    zhenjiang = scoring.get_rule_set("zhenjiang")
    assert len(zhenjiang.draw_transfers({"indicator": "1m", "first_wild_discard": "E",
                                         "wild_after_pung": "E,S,W,N"})) == 15


def test_waits_leave_out_the_wild_copies_already_discarded() -> None:
    """Second review: a waiting hand holding three 百搭 with one 打首搭 named is possible
    (four tiles), but each wait was tried as a win drawing a fifth and the whole analysis
    answered 400. The discarded copies are counted as gone: no 2m to wait on, one fewer
    to draw; four held and one discarded is refused once, naming the waiting hand."""
    hand = "2m2m2m456m789m111pS"
    waits = scoring.waits(hand, rules="zhenjiang", indicator="1m", first_wild_discard="left")
    tiles = {w.tile: w.remaining for w in waits.waits}
    assert "2m" not in tiles and tiles["S"] == 3
    plain = {w.tile: w.remaining for w in scoring.waits(hand, rules="zhenjiang",
                                                         indicator="1m").waits}
    assert plain["2m"] == 1 and set(plain) - set(tiles) == {"2m"}
    with pytest.raises(HandError, match=r"the hand holds 4 .* 5 tiles cannot be"):
        scoring.waits("2m2m2m2m456m789m11pS", rules="zhenjiang", indicator="1m",
                      first_wild_discard="left")


def test_a_claimed_wild_is_one_of_the_named_discards_only_from_its_own_seat() -> None:
    """Third review (seventy-second session): the copy count let any named discard be the
    tile a pung of the 百搭 was claimed with, whatever seat discarded it. A pung claimed
    from left holds left's discard; a 打首搭 named for opposite is a fourth tile, so a
    waiting hand showing that pung and one more 2m has no 2m to wait on, and a win on a
    fifth is refused."""
    hand = "[2m2m2m,1]456m789m111pS"
    left = {w.tile: w.remaining for w in scoring.waits(
        hand, rules="zhenjiang", indicator="1m", first_wild_discard="left").waits}
    opposite = {w.tile: w.remaining for w in scoring.waits(
        hand, rules="zhenjiang", indicator="1m", first_wild_discard="opposite").waits}
    assert left["2m"] == 1 and "2m" not in opposite
    assert zj("2m2m2m456m789m111pS2m", discarder=1, first_wild_discard="left").legal
    with pytest.raises(HandError, match=r"holds 4 .* 5 tiles cannot be"):
        zj("2m2m2m456m789m111pS2m", discarder=1, first_wild_discard="opposite")


def test_an_impossible_wild_count_is_refused_for_a_hand_that_is_not_ready() -> None:
    """Third review: the waits returned a hand's shanten before the named discards were
    counted, so five 2m were answered for a hand far from ready and refused for a ready
    one."""
    with pytest.raises(HandError, match=r"holds 4 .* 5 tiles cannot be"):
        scoring.waits("2m2m2m2m5m9m1p4p7pESWN", rules="zhenjiang", indicator="1m",
                      first_wild_discard="left")


def test_you_jin_robbing_a_kong_takes_the_kongers_seat_as_zimo_does() -> None:
    """Review (seventy-second session): a 游金 that robs a kong (``kong=true``) was taken
    without the konger's seat and refused with it ("won without a discard"), where 抢杠自摸
    (``win=自摸`` or ``plain``) takes it. The seat is information, not another win: the
    same answer either way; a 游金 with a discarder and no kong is still refused."""
    hand = "123m456m789m234p567p9s1s"
    bare = xm(hand, win="游金", kong=True)
    seat = xm(hand, win="游金", kong=True, discarder=2)
    assert (seat.total, amounts(seat), seat.details["win"]) == (
        bare.total, amounts(bare), "you_jin")
    with pytest.raises(HandError, match="won without a discard"):
        xm(hand, win="游金", discarder=2)
