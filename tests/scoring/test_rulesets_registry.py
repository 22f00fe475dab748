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
                assert rule_set.resolve_settings({name: 0})[name] == 0
    chips_left = scoring.get_rule_set("xiamen").context_fields()["chips_left"]
    assert chips_left.coerce(-1) == -1
    with pytest.raises(HandError, match="must be -1 or more"):
        chips_left.coerce(-2)


def test_version_is_a_setting_of_mcr() -> None:
    s = scoring.score("[1111m][9999p]123sEEE55p", settings={"version": "wmo-2006"})
    assert s.version == "wmo-2006" and {f.zh: f.value for f in s.fans}["双暗杠"] == 8
