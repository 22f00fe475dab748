"""Zhenjiang (镇江) rules: 百搭 from the indicator, no chow/flowers, multiples of the base chip."""

from __future__ import annotations

from typing import Any

import pytest

import scoring
from scoring import HandError
from scoring.rulesets.zhenjiang import wild_from_indicator

OTHERS = ("left", "opposite", "right")


def zj(hand: str, **kw: Any) -> scoring.Score:
    return scoring.score(hand, rules="zhenjiang", **kw)


def paid(s: scoring.Score) -> list[tuple[str, int]]:
    return [(p.payer, p.amount) for p in s.settlement.payments]


@pytest.mark.parametrize(
    ("indicator", "wild"), [("9m", "1m"), ("N", "E"), ("P", "C"), ("5p", "6p"), ("1m", "2m"),
                            ("W", "N"), ("C", "F"), ("F", "P"), ("9s", "1s")]
)
def test_wild_is_the_next_rank_after_the_indicator(indicator: str, wild: str) -> None:
    assert wild_from_indicator(indicator) == wild
    s = zj("111p456m789m123pEE", indicator=indicator, self_drawn=True)
    assert s.details["wild"] == wild


def test_flower_indicator_is_a_hand_error() -> None:
    with pytest.raises(HandError, match="flower"):
        zj("111p456m789m123pEE", indicator="2f", self_drawn=True)


def test_chow_meld_is_a_hand_error() -> None:
    with pytest.raises(HandError, match="no chow"):
        zj("[123m,1]456m789m123pEE", indicator="8s", self_drawn=True)


def test_flowers_are_a_hand_error() -> None:
    with pytest.raises(HandError, match="without flowers"):
        zj("111p456m789m123pEE 1f", indicator="8s", self_drawn=True)


def test_more_wilds_than_copies_is_a_hand_error() -> None:
    with pytest.raises(HandError, match="only 4"):
        zj("2m2m2m2m2m456m789m123pE", indicator="1m", self_drawn=True)


def test_concealed_sequences_win_self_drawn_and_on_a_discard() -> None:
    drawn = zj("111p456m789m123pEE", indicator="8s", self_drawn=True)
    assert drawn.legal
    assert paid(drawn) == [(p, 1) for p in OTHERS]
    on_discard = zj("111p456m789m123pEE", indicator="8s", discarder=3)
    assert paid(on_discard) == [("right", 1)]
    assert on_discard.total == 1


def test_wild_completes_a_hand_and_the_reading_shows_it() -> None:
    # 百搭 = 2m (indicator 1m): 46m + 2m stands for 5m.
    s = zj("111p46m789m123p2mE E", indicator="1m", self_drawn=True)
    assert s.legal
    assert s.details["no_wild"] is False
    assert any(st["wild"] == ["5m"] for st in s.details["reading"])
    # Same tiles with 百搭 = 3m: 2m is natural and the hand is a false win.
    assert not zj("111p46m789m123p2mE E", indicator="2m", self_drawn=True).legal


def test_heavenly_win_is_12_from_each() -> None:
    s = zj("111p456m789m123pEE", indicator="8s", dealer=True, tian_hu=True)
    assert paid(s) == [(p, 12) for p in OTHERS]
    assert s.fans[0].zh == "天胡"
    with pytest.raises(HandError, match="dealer"):
        zj("111p456m789m123pEE", indicator="8s", tian_hu=True)


def test_kong_win_with_wild_is_5() -> None:
    # 百搭 2m stands for 5m in 46m.
    s = zj("[SSSS,1]46m789m123p2mE E", indicator="1m", self_drawn=True, kong=True)
    assert s.legal
    assert paid(s) == [(p, 5) for p in OTHERS]
    assert s.fans[0].sets == (("SSSS", "EE", "46m+百搭(5m)", "789m", "123p"),)


def test_kong_win_without_wild_is_8_melded_and_9_concealed() -> None:
    melded = zj("[SSSS,1]456m789mEE 5s5s5s", indicator="1m", self_drawn=True, kong=True)
    assert paid(melded) == [(p, 8) for p in OTHERS]
    concealed = zj("[SSSS]456m789mEE 5s5s5s", indicator="1m", self_drawn=True, kong=True)
    assert paid(concealed) == [(p, 9) for p in OTHERS]
    assert concealed.fans[0].zh == "脱搭暗杠杠开"


def test_wild_used_as_its_own_face_counts_as_no_wild() -> None:
    # 百搭 2m sits naturally in 123m: 脱搭 all the same (seed: used as itself, 缺搭).
    s = zj("[SSSS]123m789mEE 5s5s5s", indicator="1m", self_drawn=True, kong=True)
    assert s.details["no_wild"] is True
    assert paid(s) == [(p, 9) for p in OTHERS]
    # the reading shown is the one with no 百搭 (its 2m as its own face), as the fan says
    assert "123m" in s.details["reading_text"]
    assert not any("百搭" in t for t in s.details["reading_text"])


def test_kong_win_with_both_kong_kinds_needs_kong_type() -> None:
    hand = "[SSSS][WWWW,2]789mEE 5s5s5s"
    with pytest.raises(HandError, match="kong_type"):
        zj(hand, indicator="1m", self_drawn=True, kong=True)
    s = zj(hand, indicator="1m", self_drawn=True, kong=True, kong_type="melded")
    assert paid(s) == [(p, 8) for p in OTHERS]


def test_winning_on_a_discarded_wild_adds_one() -> None:
    # 百搭 2m; the discarded 2m completes 123m as its own face: 冲 1 + 打搭放冲 1.
    s = zj("13m456m789p123pEE 2m", indicator="1m", discarder=1)
    assert s.legal
    assert [(f.zh, f.points) for f in s.fans] == [("冲", 1), ("打搭放冲", 1)]
    assert paid(s) == [("left", 2)]


def test_false_win_pays_6_to_each() -> None:
    s = zj("111p456m789m123pS N", indicator="1m", self_drawn=True)
    assert not s.legal
    assert "诈胡" in s.details["reason"]
    assert paid(s) == [(p, -6) for p in OTHERS]
    assert s.details["net"] == {"winner": -18, "left": 6, "opposite": 6, "right": 6}


def test_first_wild_discard_and_wild_after_pung_are_transfers() -> None:
    s = zj("[111p,1]456m789m123pEE", indicator="8s", self_drawn=True,
           first_wild_discard="left", wild_after_pung="winner")
    events = s.details["events"]
    assert [(e["from"], e["to"], e["amount"], e["reason"]) for e in events] == [
        ("winner", "left", 6, "打首搭"), ("opposite", "left", 6, "打首搭"),
        ("right", "left", 6, "打首搭"),
        ("left", "winner", 2, "碰后打搭"), ("opposite", "winner", 2, "碰后打搭"),
        ("right", "winner", 2, "碰后打搭"),
    ]
    # win: +1 from each; events: winner -6 +6, left +18 -2 -1, ...
    assert s.details["net"] == {"winner": 3 - 6 + 6, "left": -1 + 18 - 2,
                                "opposite": -1 - 6 - 2, "right": -1 - 6 - 2}
    assert sum(s.details["net"].values()) == 0


def test_wild_after_pung_by_the_winner_needs_a_claimed_pung() -> None:
    """碰后打搭 (seed 001, 碰牌后打搭) follows a pung: a winner showing no claimed pung or
    kong cannot have made one, nor more than one per claimed set."""
    with pytest.raises(HandError, match="0 claimed pung"):
        zj("111p456m789m123pEE", indicator="8s", self_drawn=True, wild_after_pung="winner")
    with pytest.raises(HandError, match="2 time"):
        zj("[111p,1]456m789m123pEE", indicator="8s", self_drawn=True,
           wild_after_pung="winner,winner")
    ok = zj("[111p,1][2222s,6]456m789mEE", indicator="8s", self_drawn=True,
            wild_after_pung="winner,winner")  # a pung, and a pung a kong was added to
    assert ok.details["net"]["winner"] == 3 + 12


def test_heavenly_win_has_no_discard_events_and_no_kong() -> None:
    """天胡 is won on the deal (seed 001, 天胡): nobody has discarded a 百搭 yet and no
    kong replacement was drawn."""
    for extra in ({"first_wild_discard": "left"}, {"wild_after_pung": "right"}):
        with pytest.raises(HandError, match="before anyone discards"):
            zj("111p456m789m123pEE", indicator="8s", dealer=True, tian_hu=True, **extra)
    with pytest.raises(HandError, match="not off a kong"):
        zj("111p456m789m123pEE", indicator="8s", dealer=True, tian_hu=True, kong=True)


def test_a_drawn_hand_pays_first_wild_discard_and_wild_after_pung_by_seat_wind() -> None:
    """打首搭 +6 and 碰后打搭 +2 (seed 001) are paid whether or not the hand is won."""
    zhenjiang = scoring.get_rule_set("zhenjiang")
    moves = zhenjiang.draw_transfers({"indicator": "8s", "first_wild_discard": "S",
                                      "wild_after_pung": "N,S"}, {"base_chip": 2})
    got = {}
    for m in moves:
        got[m["to"]] = got.get(m["to"], 0) + m["amount"]
        got[m["from"]] = got.get(m["from"], 0) - m["amount"]
    assert got == {"S": 36 - 4 + 12, "E": -12 - 4 - 4, "W": -12 - 4 - 4, "N": -12 + 12 - 4}
    assert zhenjiang.draw_transfers({"indicator": "8s"}) == []
    with pytest.raises(HandError, match="seat wind"):
        zhenjiang.draw_transfers({"first_wild_discard": "left"})
    with pytest.raises(HandError, match="seat wind"):
        zhenjiang.draw_transfers({"wild_after_pung": "S,winner"})
    with pytest.raises(HandError, match="no context field 'gold'"):
        zhenjiang.draw_transfers({"gold": "1m"})
    assert scoring.get_rule_set("mcr").draw_transfers({"first_wild_discard": "S"}) == []


def test_bad_seat_in_events_is_a_hand_error() -> None:
    with pytest.raises(HandError, match="not a seat"):
        zj("111p456m789m123pEE", indicator="8s", self_drawn=True, wild_after_pung="east")


def test_settings_change_the_multiples() -> None:
    s = zj("111p456m789m123pEE", indicator="8s", self_drawn=True,
           settings={"win_self_drawn": 2, "base_chip": 5})
    assert paid(s) == [(p, 10) for p in OTHERS]


def test_waits_with_a_wild() -> None:
    # A lone 百搭 (2m) pairs with any tile, drawn or discarded.
    w = scoring.waits("111p456m789m123p2m", rules="zhenjiang", indicator="1m")
    assert w.ready
    assert len(w.waits) == 33  # every kind but 1p: its four copies are in the hand
    # A lone 5s waits on 5s, and on a drawn 百搭 (a discarded 2m is only 2m).
    plain = scoring.waits("111p456m789m123p5s", rules="zhenjiang", indicator="1m")
    assert [t.tile for t in plain.waits] == ["2m", "5s"]
    assert plain.waits[0].discard is None and plain.waits[0].self_drawn is not None
    far = scoring.waits("13579m2468pESWN", rules="zhenjiang", indicator="1m")
    assert far.shanten > 0 and not far.waits


def test_settings_are_listed_with_seed_defaults() -> None:
    s = scoring.get_rule_set("zhenjiang").describe()["settings"]
    assert {k: s[k]["default"] for k in ("tian_hu", "first_wild_discard", "wild_after_pung",
                                         "wild_deal_in", "kong_win_with_wild",
                                         "kong_win_no_wild_melded",
                                         "kong_win_no_wild_concealed", "false_win")} == {
        "tian_hu": 12, "first_wild_discard": 6, "wild_after_pung": 2, "wild_deal_in": 1,
        "kong_win_with_wild": 5, "kong_win_no_wild_melded": 8,
        "kong_win_no_wild_concealed": 9, "false_win": 6,
    }


def test_description_states_claims_and_flowers() -> None:
    info = scoring.get_rule_set("zhenjiang").describe()
    assert info["claims"] == ["pung", "kong"]
    assert info["flowers"] is False and info["tiles"] == 136


def test_robbing_a_kong_is_a_discard_win_on_a_tile_no_other_copy_of_which_is_held() -> None:
    """RULES.md: 抢杠和 on a tile the winner holds cannot happen (the robbed tile is
    another player's fourth copy). A 百搭 in a meld is its own face, so one added to a
    pung of its kind may be robbed, as its face. The robbery itself is paid as a discard
    win (docs/regional-rules.md)."""
    s = zj("123m456m789m234pS 5s", indicator="E", kong=True, discarder=1)
    assert s.legal and paid(s) == [("left", 1)]
    with pytest.raises(HandError, match=r"抢杠 .*holds another 5s"):
        zj("123m456m789m234p5s 5s", indicator="E", kong=True, discarder=1)
    robbed_wild = zj("123m456m789m11p46s 5s", indicator="4s", kong=True, discarder=1)
    assert robbed_wild.legal  # the 百搭 5s robbed as its own face: 456s
