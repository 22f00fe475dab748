"""The rule-set registry and interface: discovery, settings, unknown names."""

from __future__ import annotations

import pytest

import scoring
from scoring import HandError
from scoring.rulesets.base import RuleSet, Setting


def test_registry_discovers_mcr() -> None:
    sets = scoring.rule_sets()
    assert "mcr" in sets and isinstance(sets["mcr"], RuleSet)
    assert scoring.get_rule_set("mcr").hand_size == 14


def test_unknown_rule_set_lists_the_known_ones() -> None:
    with pytest.raises(HandError, match=r"unknown rules 'nope' \(known: .*mcr"):
        scoring.get_rule_set("nope")


def test_every_setting_has_a_default_and_a_description() -> None:
    for rule_set in scoring.rule_sets().values():
        described = rule_set.describe()
        assert described["name"] == rule_set.name
        for name, setting in rule_set.settings().items():
            assert setting.name == name and setting.description
            assert rule_set.resolve_settings()[name] == setting.default


def test_setting_coerces_cli_strings() -> None:
    assert Setting("n", 8, "count").coerce("12") == 12
    assert Setting("b", False, "flag").coerce("yes") is True
    assert Setting("v", "a", "choice", ("a", "b")).coerce("b") == "b"
    with pytest.raises(HandError, match="choose one of a, b"):
        Setting("v", "a", "choice", ("a", "b")).coerce("c")
    with pytest.raises(HandError, match="expected bool"):
        Setting("b", False, "flag").coerce("maybe")


def test_no_number_setting_of_any_rule_set_may_be_negative() -> None:
    """Chips, points, fan and factors are never negative: -3 as MCR's 起和番 was taken
    and scored every hand legal. A context field's "not known" -1 stays allowed."""
    with pytest.raises(HandError, match=r"setting min_fan=-3: must be 0 or more"):
        scoring.score("11223344556677m", settings={"min_fan": -3})
    for rule_set in scoring.rule_sets().values():
        for name, setting in rule_set.settings().items():
            if type(setting.default) in (int, float):
                with pytest.raises(HandError, match=f"setting {name}=-1: must be 0 or more"):
                    rule_set.resolve_settings({name: -1})
                # Xiamen chip_stack 0 only without the payment cap (with it no win pays)
                zero = {name: 0, **({"cap_at_stack": False} if name == "chip_stack" else {})}
                assert rule_set.resolve_settings(zero)[name] == 0
    chips_left = scoring.get_rule_set("xiamen").context_fields()["chips_left"]
    assert chips_left.coerce(-1) == -1
    with pytest.raises(HandError, match="must be -1 or more"):
        chips_left.coerce(-2)


def test_no_number_setting_or_context_field_may_pass_a_billion() -> None:
    """Chips, points, fan, factors and streaks stay at or under 10⁹: a 底 of 10⁴⁰⁰⁰ was
    scored and printed (a 4,000-digit answer), one of 10⁴⁴⁰⁰ could not be printed (500).
    The error names the setting, a huge value by its length."""
    with pytest.raises(HandError, match=r"setting base_points=a number of about 4,401 "
                       r"digits: must be at most 1,000,000,000"):
        scoring.score("11223344556677m", settings={"base_points": 10**4400})
    for rule_set in scoring.rule_sets().values():
        fields = {**rule_set.settings(), **rule_set.context_fields()}
        for name, setting in fields.items():
            if type(setting.default) in (int, float):
                assert setting.coerce(10**9) == 10**9
                with pytest.raises(HandError, match=f"setting {name}=1000000001: must be at "
                                   "most 1,000,000,000"):
                    setting.coerce(10**9 + 1)


def test_xiamen_dealer_streak_past_what_a_payment_holds_is_refused_at_once() -> None:
    """Xiamen 连庄: the dealer's 底 is multiplied for each dealership in a row. A factor
    of 10⁹ and a streak of 10⁶ built a nine-million-digit number for seconds and then
    failed to print it (500); now the 底 is refused as soon as it passes 2⁵³ - 1."""
    hand = "123m456m789m123p456p55s"
    with pytest.raises(HandError, match=r"the dealer's 底 \(16 × 1000000000 for each of "
                       r"1000000 dealerships in a row × 2 for each of 0 drawn hands\) passes "
                       r"9,007,199,254,740,991 chips"):
        scoring.score(hand, rules="xiamen", self_drawn=True, gold="9s", dealer=True,
                      dealer_repeats=10**6, settings={"dealer_repeat_factor": 10**9})
    one = scoring.score(hand, rules="xiamen", self_drawn=True, gold="9s", dealer=True,
                        dealer_repeats=10**6, settings={"dealer_repeat_factor": 1})
    assert [f.value for f in one.fans if f.zh == "底"] == [16]


def test_version_is_a_setting_of_mcr() -> None:
    s = scoring.score("[1111m][9999p]123sEEE55p", settings={"version": "wmo-2006"})
    assert s.version == "wmo-2006" and {f.zh: f.value for f in s.fans}["双暗杠"] == 8
