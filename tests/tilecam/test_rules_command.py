"""`tilecam rules list` and `tilecam rules show NAME [--json]`: every setting with its default."""

from __future__ import annotations

import json

import pytest

from tilecam.cli import main


def test_rules_list_names_the_regional_rule_sets(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "list"]) == 0
    out = capsys.readouterr().out
    assert "xiamen" in out and "zhenjiang" in out


def test_rules_show_lists_every_setting_with_default(capsys: pytest.CaptureFixture[str]) -> None:
    from scoring import get_rule_set

    assert main(["rules", "show", "xiamen"]) == 0
    out = capsys.readouterr().out
    for name, setting in get_rule_set("xiamen").settings().items():
        line = next(x for x in out.splitlines() if x.split()[:1] == [name])
        assert setting.description in line
    assert "bonus_you_jin" in out and " 50 " in out


def test_rules_show_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "show", "zhenjiang", "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["settings"]["tian_hu"]["default"] == 12
    assert info["hand_size"] == 14
    assert "indicator" in info["context"]


def test_rules_show_unknown_name_is_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "show", "nope"]) == 2
    assert "unknown rules 'nope'" in capsys.readouterr().err
