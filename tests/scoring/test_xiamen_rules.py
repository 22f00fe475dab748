"""Xiamen (厦门) rules: gold wild, win types, (底 + 水) × multiplier money, bad inputs."""

from __future__ import annotations

from typing import Any

import pytest

import scoring
from scoring import HandError

# 17 tiles, all chows and a pair: nothing gives 水 but golds and flowers.
PLAIN = "123m456m789m234p567p5s 5s"


def xm(hand: str, **kw: Any) -> scoring.Score:
    kw.setdefault("gold", "9s")
    return scoring.score(hand, rules="xiamen", **kw)


def amounts(s: scoring.Score) -> list[tuple[str, int, int]]:
    return [(p.payer, p.amount, getattr(p, "bonus", 0)) for p in s.settlement.payments]


def test_nondealer_self_drawn_two_flowers_unit_10_times_2() -> None:
    s = xm("123m456m789m234p567p5s 1f5f 5s", self_drawn=True)
    assert s.legal
    assert s.details["unit"] == 8 + 2
    assert s.details["multiplier"] == 2
    assert s.total == 20
    assert amounts(s) == [("left", 20, 0), ("opposite", 20, 0), ("right", 20, 0)]
    assert s.settlement.winner_receives == 60
    assert [(f.zh, f.points) for f in s.fans] == [("底", 8), ("花", 2)]


def test_dealer_you_jin_one_gold_one_flower_unit_18_times_4_plus_50() -> None:
    # Pair = the gold 9s + the drawn 3p; the rest is five chows.
    s = xm("123m456m789m234p567p9s 1f 3p", win="游金", dealer=True)
    assert s.legal, s.details
    assert s.details["unit"] == 16 + 2
    assert s.total == 72
    assert amounts(s) == [("left", 72, 50), ("opposite", 72, 50), ("right", 72, 50)]
    assert s.settlement.winner_receives == 216
    assert s.details["win"] == "you_jin"


@pytest.mark.parametrize("flowers", ["", "1f", "1f2f"])
def test_three_golds_opening_times_4_with_bonus_and_later_times_3_without(flowers: str) -> None:
    w = 3 + len(flowers) // 2  # three golds held + one per flower
    opening = xm(f"123m456m789m234p5p9s9s9s {flowers}", win="三金倒", opening=True)
    assert opening.legal
    assert opening.details["water"] == w
    assert amounts(opening) == [(p, (8 + w) * 4, 50) for p in ("left", "opposite", "right")]
    later = xm(f"123m456m789m234p5p9s9s9s {flowers} 7s", win="three_golds")
    assert later.legal
    assert amounts(later) == [(p, (8 + w) * 3, 0) for p in ("left", "opposite", "right")]


def test_complete_only_with_the_gold_as_wild() -> None:
    # 56p + 9s: the gold 9s must stand for 4p or 7p.
    hand = "123m456m789m234p56p9s 5s5s"
    with_gold = xm(hand, self_drawn=True, gold="9s")
    assert with_gold.legal
    wild_sets = [s for s in with_gold.details["reading"] if s["wild"]]
    assert wild_sets and wild_sets[0]["shape"] == "chow"
    gold_fan = next(f for f in with_gold.fans if f.zh == "金")
    assert gold_fan.count == 1 and "+金(" in gold_fan.sets[0][0]
    other_gold = xm(hand, self_drawn=True, gold="1s")
    assert not other_gold.legal
    assert "not complete" in other_gold.details["reason"]


def test_white_dragon_stands_for_the_gold_face() -> None:
    # Gold 5m: 4m P 6m is a chow 456m; the P is no wild (here no gold is held).
    s = xm("123m4mP6m789m234p567p 5s 5s", self_drawn=True, gold="5m")
    assert s.legal
    assert "金" not in [f.zh for f in s.fans]
    # With the gold on 1s instead, P is a plain white dragon and the hand is incomplete.
    assert not xm("123m4mP6m789m234p567p 5s 5s", self_drawn=True, gold="1s").legal


def test_discard_win_with_a_gold_in_hand_is_illegal() -> None:
    s = xm("123m456m789m234p56p9s 5s5s", discarder=1)
    assert not s.legal
    assert "forbids winning on a discard" in s.details["reason"]
    # A declared win that is not one is 诈胡: half a 课 (50) to each, outside the chips.
    assert amounts(s) == [(p, 0, -50) for p in ("left", "opposite", "right")]


def test_a_discarded_gold_cannot_be_won_on() -> None:
    s = xm("123m456m789m234p567p5s 9s", gold="9s")
    assert not s.legal
    assert "discarded gold" in s.details["reason"]


def test_gold_indicator_that_is_a_flower_is_a_hand_error() -> None:
    with pytest.raises(HandError, match="flower"):
        xm(PLAIN, gold=None, indicator="3f", self_drawn=True)


def test_missing_gold_is_a_hand_error() -> None:
    with pytest.raises(HandError, match="needs the gold"):
        scoring.score(PLAIN, rules="xiamen", self_drawn=True)


def test_gold_and_indicator_must_agree() -> None:
    assert xm(PLAIN, gold="5m", indicator="5m", self_drawn=True).legal
    with pytest.raises(HandError, match="disagree"):
        xm(PLAIN, gold="5m", indicator="6m", self_drawn=True)


def test_more_golds_than_copies_is_a_hand_error() -> None:
    with pytest.raises(HandError, match="only 4"):
        xm("123m456m789m234p9s9s9s9s9s 5s", gold="9s", self_drawn=True)


def test_more_white_dragons_than_exist_counting_melds_is_a_hand_error() -> None:
    # Gold 5m: [456m,1] holds a 白板 standing in; four more P standing make five.
    with pytest.raises(HandError, match="白板"):
        xm("[456m,1]123m789m PPPP 234p 5s5s", gold="5m", self_drawn=True)


def test_wrong_hand_size_is_a_hand_error() -> None:
    with pytest.raises(HandError, match="17 tiles"):
        xm("123m456m789m234p55s", self_drawn=True)


def test_water_from_sets_honour_and_kongs() -> None:
    # Concealed kong EEEE 4, melded kong [2222p,1] 2, melded pung [CCC,2] 1,
    # concealed triplet 777s 1; discard win on 8m (no gold held).
    s = xm("[EEEE][2222p,1][CCC,2]777s55m79m 8m", gold="1s", discarder=2)
    assert s.legal, s.details
    water = {f.zh: f.points for f in s.fans}
    assert water == {"底": 8, "暗杠(字)": 4, "明杠": 2, "碰(字)": 1, "暗刻": 1}
    assert s.total == 16
    assert s.details["multiplier"] == 1


def test_triplet_completed_by_the_discard_counts_as_melded() -> None:
    self_drawn = xm("123m456m789m234p5s5s77s 7s", self_drawn=True)
    on_discard = xm("123m456m789m234p5s5s77s 7s", discarder=3)
    assert self_drawn.details["water"] == 1  # concealed triplet 777s
    assert on_discard.details["water"] == 0  # the discard made it a melded number pung


def test_all_four_seasons_add_a_set_bonus() -> None:
    s = xm("123m456m789m234p567p5s 1f2f3f4f 5s", self_drawn=True)
    assert s.details["water"] == 4 + 4


def test_dealer_base_doubles_per_repeat_and_drawn_hand() -> None:
    kw: dict[str, Any] = {"self_drawn": True, "dealer": True}
    assert xm(PLAIN, **kw).details["unit"] == 16
    assert xm(PLAIN, dealer_repeats=1, **kw).details["unit"] == 32
    assert xm(PLAIN, drawn_hands=1, **kw).details["unit"] == 32
    assert xm(PLAIN, dealer_repeats=1, drawn_hands=1, **kw).details["unit"] == 64
    custom = xm(PLAIN, dealer_repeats=2, settings={"dealer_repeat_factor": 3}, **kw)
    assert custom.details["unit"] == 16 * 9


def test_shuang_you_times_8_and_bonus_100() -> None:
    s = xm("123m456m789m234p567p9s 3p", win="双游")
    assert s.details["unit"] == 9
    assert amounts(s) == [(p, 72, 100) for p in ("left", "opposite", "right")]


def test_san_you_empties_every_stack_so_it_is_kill_three() -> None:
    # (8 + 1) × 12 = 108 ≥ 100 chips: each payer pays their 100 and 150 + 100 bonus.
    s = xm("123m456m789m234p567p9s 3p", win="三游")
    assert s.total == 108
    assert s.details["kill_three"] is True
    assert amounts(s) == [(p, 100, 250) for p in ("left", "opposite", "right")]
    room16 = xm("123m456m789m234p567p9s 3p", win="三游", settings={"mult_san_you": 16})
    assert room16.total == 9 * 16


def test_san_you_is_kill_three_whatever_the_stacks() -> None:
    """Seed 000: 三游 "无需再计算水数自然杀三": each payer pays every chip they have (a
    score sheet's stacks grow past 100), with the 杀三 bonus; ``san_you_kills_three=false``
    pays (底 + 水) × 12 like the other wins."""
    big = {"chips_left": 150, "chips_opposite": 200, "chips_right": 120}
    s = xm("123m456m789m234p567p9s 3p", win="三游", **big)
    assert s.details["kill_three"] is True
    assert amounts(s) == [("left", 150, 250), ("opposite", 200, 250), ("right", 120, 250)]
    assert "杀三 by itself" in s.settlement.note and "× 12" not in s.settlement.note
    room = xm("123m456m789m234p567p9s 3p", win="三游", **big,
              settings={"san_you_kills_three": False})
    assert room.details["kill_three"] is False
    assert amounts(room) == [(p, 108, 150) for p in ("left", "opposite", "right")]


def test_san_you_is_won_on_sixteen_tiles_with_a_lone_gold() -> None:
    """Seed 000: the 三游 player discards the third gold and draws no more ("其它三家只能
    各摸一张牌…如没能自摸则算游过"): five sets and a lone gold, 16 tiles. The golds
    discarded while 游-ing are no 水 (双游打出的金不计水数): only the held gold counts."""
    s = xm("123m456m789m234p567p9s", win="三游")
    assert s.legal and s.details["unit"] == 8 + 1
    assert s.details["reading_text"][1:] == ["123m", "456m", "789m", "234p", "567p"]
    assert amounts(s) == [(p, 100, 250) for p in ("left", "opposite", "right")]
    assert xm("[123m,1]456m789m234p567p9s", win="三游").legal
    assert not xm("123m456m789m234p567p3s", win="三游").legal  # no gold
    with pytest.raises(HandError, match="16"):  # 游金 still ends on a drawn tile
        xm("123m456m789m234p567p9s", win="游金")


def test_only_the_discarder_pays_a_tian_ting_won_on_a_discard_when_the_room_says_so() -> None:
    """``discard_payers=discarder`` is about a win on a discard, 天听's too."""
    room = {"discard_payers": "discarder"}
    s = xm("123m456m789m234p567p5s 5s", win="天听", discarder=2, settings=room)
    assert [p for p, amount, _ in amounts(s) if amount] == ["opposite"]
    drawn = xm("123m456m789m234p567p5s 5s", win="天听", self_drawn=True, settings=room)
    assert len(drawn.settlement.payments) == 3


def test_a_zero_multiplier_settles_without_dividing_by_it() -> None:
    rules = scoring.get_rule_set("xiamen")
    settings = rules.resolve_settings({"mult_discard": 0})
    hand = scoring.parse_hand("123m456m789m234p567p5s5s")
    ctx = scoring.WinContext(discarder=1, extra=rules.resolve_context({"gold": "9s"}))
    paid = rules.settle(hand, 0, True, ctx, settings)
    assert all(p.amount == 0 for p in paid.payments)


def test_kill_three_needs_every_payer_emptied() -> None:
    s = xm("123m456m789m234p567p9s 3p", win="双游", chips_left=50, chips_opposite=60,
           chips_right=72)
    assert s.details["kill_three"] is True
    assert amounts(s) == [("left", 50, 200), ("opposite", 60, 200), ("right", 72, 200)]
    s2 = xm("123m456m789m234p567p9s 3p", win="双游", chips_left=50)
    assert s2.details["kill_three"] is False


def test_you_jin_needs_the_gold_in_the_pair() -> None:
    s = xm("123m456m789m234p56p9s 5s5s", win="游金")
    assert not s.legal
    assert "游金" in s.details["reason"]
    none = xm(PLAIN, win="游金")
    assert not none.legal and "needs a gold" in none.details["reason"]


def test_you_jin_has_no_discarder() -> None:
    with pytest.raises(HandError, match="no discarder"):
        xm("123m456m789m234p567p9s 3p", win="游金", discarder=1)


def test_three_golds_needs_three_and_can_be_switched_off_after_the_opening() -> None:
    assert "needs three golds" in xm(PLAIN, win="三金倒").details["reason"]
    off = xm("123m456m789m234p5p9s9s9s 7s", win="三金倒",
             settings={"three_golds_later": False})
    assert not off.legal and "three_golds_later" in off.details["reason"]


def test_tian_he_is_the_dealers_and_times_4() -> None:
    with pytest.raises(HandError, match="dealer"):
        xm(PLAIN, win="天和")
    s = xm(PLAIN, win="天和", dealer=True)
    assert s.total == 16 * 4
    tian_ting = xm(PLAIN, win="天听", self_drawn=True)
    assert tian_ting.total == 8 * 4 and amounts(tian_ting)[0][2] == 0


def test_drawn_hand_keeps_16_wall_tiles_back() -> None:
    """Seed 000: "当牌墙里剩下16张牌时如果没有人和牌，即臭庄" — the tile that leaves 16 in
    the wall is the last drawn and may win (self-drawn, or on its discard); fewer left is
    past the draw. Until the sixty-fourth session a win with 16 left was refused."""
    s = xm(PLAIN, self_drawn=True, wall_left=15)
    assert not s.legal and "臭庄" in s.details["reason"]
    assert xm(PLAIN, self_drawn=True, wall_left=16).legal
    assert xm(PLAIN, discarder=2, wall_left=16).legal
    assert xm(PLAIN, self_drawn=True, wall_left=17).legal


def test_discard_win_paid_by_discarder_only_when_set() -> None:
    everyone = xm(PLAIN, discarder=2)
    assert amounts(everyone) == [(p, 8, 0) for p in ("left", "opposite", "right")]
    one = xm(PLAIN, discarder=2, settings={"discard_payers": "discarder"})
    assert amounts(one) == [("opposite", 8, 0)]


def test_waits_with_a_gold_every_tile_self_draws() -> None:
    w = scoring.waits("123m456m789m234p567p9s", rules="xiamen", gold="9s")
    assert w.ready
    tiles = {t.tile for t in w.waits}
    assert len(tiles) == 34  # the gold pairs with any drawn tile, a second gold included
    assert all(t.discard is None for t in w.waits)  # a gold is held: self-draw only


def test_waits_without_gold_and_shanten() -> None:
    w = scoring.waits("123m456m789m234p567p5s", rules="xiamen", gold="1s")
    # 5s on a discard or self-drawn; the gold 1s self-drawn only (it pairs with 5s).
    assert [t.tile for t in w.waits] == ["1s", "5s"]
    gold, five = w.waits
    assert gold.discard is None and gold.self_drawn is not None
    assert five.discard is not None and five.discard.total == 8
    assert five.remaining == 3
    far = scoring.waits("13m5m7m9m2p4p6p8pESWNCFP", rules="xiamen", gold="1s")
    assert far.shanten > 0 and not far.waits


def test_settings_are_listed_with_seed_defaults() -> None:
    info = scoring.get_rule_set("xiamen").describe()
    s = info["settings"]
    assert s["base_nondealer"]["default"] == 8 and s["base_dealer"]["default"] == 16
    assert s["bonus_you_jin"]["default"] == 50 and s["bonus_kill_three"]["default"] == 100
    assert s["mult_san_you"]["default"] == 12
    assert info["hand_size"] == 17
    assert "gold" in info["context"]


def test_json_form_reports_bonus_apart_from_chips() -> None:
    d = xm("123m456m789m234p567p9s 1f 3p", win="游金", dealer=True).to_dict()
    assert d["settlement"]["winner"] == 216
    assert d["settlement"]["payments"][0] == {"payer": "left", "amount": 72, "bonus": 50}
    assert d["details"]["bonus_per_payer"] == 50


def test_robbing_a_kong_counts_as_self_drawn() -> None:
    """Seed 000, 抢杠自摸: a robbed kong is won as self-drawn, ×2 (底 8 + 金 1 each). The
    winner holds no other 5s: the robbed one is the left player's fourth."""
    s = xm("123m456m789m234p567p9s 5s", kong=True, discarder=1)
    assert s.details["win"] == "self_drawn"
    assert amounts(s) == [(p, 18, 0) for p in ("left", "opposite", "right")]


@pytest.mark.parametrize(("hand", "why"), [
    (PLAIN, "holds another 5s"),                          # the pair's other 5s
    ("[555s,2]123m456m789m567p9s5s", "holds another 5s"),  # his own pung of 5s
    ("123m456m789m234p567p5s9s", "9s: it is the gold"),     # a gold is never melded
    ("[999s,2]123m456m789m78s55sP", "holds another P"),     # gold 9s: [999s] is 白板 ×3
])
def test_robbing_a_kong_refuses_a_tile_no_one_could_add_to_a_pung(hand: str, why: str) -> None:
    """RULES.md (抢杠和 on a tile the winner holds is a context that cannot happen), seed
    000 (golds are never melded): the robbed tile is another player's fourth copy, so the
    winner holds no other, and it is no gold. Before, each was paid as a 自摸."""
    with pytest.raises(HandError, match=f"抢杠 .*{why}"):
        xm(hand, kong=True, discarder=1)


def test_description_states_claims_and_flowers() -> None:
    info = scoring.get_rule_set("xiamen").describe()
    assert info["claims"] == ["chow", "pung", "kong"]
    assert info["flowers"] is True and info["tiles"] == 144


def test_win_names_self_drawn_and_discard_agree_with_the_flags() -> None:
    assert xm(PLAIN, win="自摸").details["win"] == "self_drawn"
    assert xm(PLAIN, win="平胡").details["win"] == "discard"
    with pytest.raises(HandError, match="discard win"):
        xm(PLAIN, win="平胡", self_drawn=True)
    with pytest.raises(HandError, match="no discarder"):
        xm(PLAIN, win="自摸", discarder=1)


@pytest.mark.parametrize(("settings", "each"), [
    ({}, 50), ({"chip_stack": 60}, 30), ({"chip_stack": 61}, 30), ({"chip_stack": 200}, 100),
    ({"chip_stack": 60, "false_win_money": 50}, 50), ({"false_win_money": 0}, 0)])
def test_false_win_money_is_half_a_ke_of_the_chip_stack_unless_set(
        settings: dict[str, int], each: int) -> None:
    """Seed 000, 诈胡: 出错者须额外支付各家每人半课的钱（课外） — half a 课 is half the
    stake: ``false_win_money`` follows ``chip_stack`` (rounded down) unless it is set,
    in the resolved settings and in a 诈胡's settlement (it stayed 50 whatever the stake);
    the listed default is the default stake's half."""
    rule_set = scoring.get_rule_set("xiamen")
    assert rule_set.resolve_settings(settings)["false_win_money"] == each
    s = xm("123m456m789m234p567p1s8s", settings=settings)  # no win: 诈胡
    assert not s.legal
    assert amounts(s) == ([("left", 0, -each), ("opposite", 0, -each),
                           ("right", 0, -each)] if each else [])
    assert f"the claimant pays {each} to each other player" in s.settlement.note
    assert rule_set.describe()["settings"]["false_win_money"]["default"] == 50
