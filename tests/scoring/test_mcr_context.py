"""Win context: context fans, impossible contexts, tile counts, legality and settlement."""

from __future__ import annotations

import pytest

import scoring
from scoring import HandError


def zh(hand: str, **ctx: object) -> list[str]:
    return [f.zh for f in scoring.score(hand, **ctx).fans]  # type: ignore[arg-type]


def test_last_of_kind_while_holding_another_copy_is_rejected() -> None:
    with pytest.raises(HandError, match=r"和绝张.*holds another E"):
        scoring.score("[123m,1]456p789s234mEE", last_of_kind=True)


def test_kong_replacement_win_without_a_kong_is_rejected() -> None:
    with pytest.raises(HandError, match=r"杠上开花.*needs a kong"):
        scoring.score("[123m,1]456p789s234mEE", self_drawn=True, kong=True)


def test_robbing_a_kong_of_a_tile_the_winner_holds_is_rejected() -> None:
    with pytest.raises(HandError, match=r"抢杠和.*holds E"):
        scoring.score("[123m,1]456p789s234mEE", kong=True)
    with pytest.raises(HandError, match=r"抢杠和.*holds 2m"):
        scoring.score("[222m,1]34m345p678sEE2m", kong=True)


def test_robbing_the_kong_on_the_last_discard_is_rejected() -> None:
    """Seed 003: 海底捞月 is a win on the last discarded tile once the wall is used up, and
    抢杠和 a win on the tile added to a pung, which is no discard — and a kong is added
    only after a draw (its replacement comes off the wall). One tile cannot be both."""
    with pytest.raises(HandError, match=r"抢杠和.*海底捞月.*cannot both happen"):
        scoring.score("[EEE,1]123m789s55s46p5p", kong=True, last_wall_tile=True)
    # the self-drawn pair can happen: a kong declared with two tiles left, its replacement
    # the last tile of the wall (杠上开花 and 妙手回春)
    fans = zh("[EEEE]123m456p789s5p5p", self_drawn=True, kong=True, last_wall_tile=True)
    assert "杠上开花" in fans and "妙手回春" in fans


def test_the_same_version_given_twice_is_taken() -> None:
    result = scoring.score("[1111m][9999p,1]123s456s5m5m", version="98-strict",
                           settings={"version": "98-strict"})
    assert result.version == "98-strict"


def test_robbing_the_kong_does_not_count_last_of_kind() -> None:
    fans = zh("[123m,1][456p,2]78sEEE99m9s", kong=True, last_of_kind=True)
    assert "抢杠和" in fans and "和绝张" not in fans


@pytest.mark.parametrize(
    ("ctx", "fan", "gone"),
    [
        ({"self_drawn": True, "last_wall_tile": True}, "妙手回春", "自摸"),
        ({"last_wall_tile": True}, "海底捞月", "自摸"),
        ({"self_drawn": True}, "自摸", "妙手回春"),
    ],
)
def test_last_wall_tile(ctx: dict[str, bool], fan: str, gone: str) -> None:
    fans = zh("[123m,1][456p,2]789sEEE99m", **ctx)
    assert fan in fans and gone not in fans


def test_kong_replacement_win_is_not_also_self_drawn() -> None:
    fans = zh("[1111p,1][123m,1]789sEEE99m", self_drawn=True, kong=True)
    assert "杠上开花" in fans and "自摸" not in fans


@pytest.mark.parametrize(("seat", "prevalent", "expected"), [
    ("S", "S", {"圈风刻", "门风刻"}), ("S", "E", {"门风刻"}), ("E", "S", {"圈风刻"}),
    ("E", "E", {"幺九刻"}),
])  # fmt: skip
def test_wind_pungs(seat: str, prevalent: str, expected: set[str]) -> None:
    fans = set(zh("[123m,1]456p789sSSS99m", seat_wind=seat, prevalent_wind=prevalent))
    assert fans & {"圈风刻", "门风刻", "幺九刻"} == expected


def test_flowers_count_after_the_minimum() -> None:
    s = scoring.score("11m222p345678s99s1m", flowers=3)
    assert s.total == 8 and not s.legal
    assert {f.zh: f.count for f in s.fans}["花牌"] == 3
    # the score says why, as Xiamen and Zhenjiang do (起和番: fan before flowers)
    assert s.details == {"reason": "5 fan before flowers, 8 needed"}
    assert s.to_dict()["details"] == {"reason": "5 fan before flowers, 8 needed"}


def test_flowers_in_the_hand_and_the_flag_must_agree() -> None:
    assert scoring.score("19m19s19pESWNCFPP1f2f").total == 90
    with pytest.raises(HandError, match="shows 2 flowers"):
        scoring.score("19m19s19pESWNCFPP1f2f", flowers=3)


@pytest.mark.parametrize(
    ("hand", "message"),
    [
        ("123m456p789s11z", "wrong number of tiles: 11"),
        ("123m456p789s123s111z", "wrong number of tiles: 15"),
        ("123m456p789s135s11z", "not a winning hand"),
        ("[123m,1][123m,1][123m,1][123m,1][123m,1]", "5 copies|5 melds"),
    ],
)
def test_bad_hands_name_the_problem(hand: str, message: str) -> None:
    with pytest.raises(HandError, match=message):
        scoring.score(hand)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"seat_wind": "X"}, "seat_wind 'X' is not a wind"),
        ({"flowers": 9}, "there are 8 bonus tiles"),
        ({"self_drawn": True, "discarder": 2}, "self-drawn win has no discarder"),
        ({"rules": "riichi"}, "unknown rules 'riichi' \\(known: .*mcr"),
        ({"settings": {"min_fan": "many"}}, "min_fan='many': expected int"),
        ({"bogus": 1}, "no context field 'bogus'"),
        ({"discarder": True}, "discarder=True: use seat offset 1, 2 or 3"),
        ({"discarder": 1.0}, "discarder=1.0: use seat offset 1, 2 or 3"),
        ({"version": "wmo-2006", "settings": {"version": "98-strict"}},
         "version 'wmo-2006' and settings version '98-strict' both give the rule version"),
    ],
)
def test_bad_context_names_the_problem(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(HandError, match=message):
        scoring.score("19m19s19pESWNCFPP", **kwargs)  # type: ignore[arg-type]


def test_settlement_self_drawn_each_pays_eight_plus_total() -> None:
    s = scoring.score("19m19s19pESWNCFPP", self_drawn=True)
    assert [(p.payer, p.amount) for p in s.settlement.payments] == [
        ("left", 97), ("opposite", 97), ("right", 97)]  # fmt: skip
    assert s.settlement.winner_receives == 291


def test_settlement_on_a_discard() -> None:
    s = scoring.score("19m19s19pESWNCFPP")
    assert [(p.payer, p.amount) for p in s.settlement.payments] == [
        ("discarder", 96), ("other", 8), ("other", 8)]  # fmt: skip
    s = scoring.score("19m19s19pESWNCFPP", discarder=2)
    assert [(p.payer, p.amount) for p in s.settlement.payments] == [
        ("left", 8), ("opposite", 96), ("right", 8)]  # fmt: skip


def test_settings_change_the_minimum_and_the_base() -> None:
    s = scoring.score("11m222p345678s99s1m", settings={"min_fan": "5", "base_points": 10})
    assert s.legal and s.settlement.payments[0].amount == 15 and not s.details
    s = scoring.score("11m222p345678s99s1m", settings={"min_fan": "9"})
    assert not s.legal and s.details["reason"] == "5 fan before flowers, 9 needed"


def test_to_dict_has_exactly_the_issue_keys() -> None:
    d = scoring.score("[EEE,2][SSSS,1]WWWNN55pN", self_drawn=True).to_dict()
    # the issue's keys, and the score's own self_drawn (seventy-fourth session)
    assert list(d) == ["total", "legal", "rules", "version", "fans", "settlement",
                       "self_drawn"]
    assert d["fans"][0] == {"zh": "大四喜", "en": "Big Four Winds", "value": 88, "count": 1,
                            "sets": [["EEE", "SSSS", "WWW", "NNN"]]}  # fmt: skip
