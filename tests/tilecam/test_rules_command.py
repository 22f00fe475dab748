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
    # the bounds Setting.coerce keeps, once per table
    assert "  (numbers: whole, 0 to 1,000,000,000)" in out.splitlines()
    assert "-1 (not known) for wall_left, chips_left" in out


def test_rules_show_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "show", "zhenjiang", "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["settings"]["tian_hu"]["default"] == 12
    assert info["hand_size"] == 14
    assert "indicator" in info["context"]
    assert info["money_apart"] is False  # Zhenjiang pays in chips only


def test_xiamen_says_it_pays_money_apart(capsys: pytest.CaptureFixture[str]) -> None:
    """Xiamen's 游金 … bonus is paid outside the chips: a client (a score sheet) knows to
    show it in a column of its own."""
    assert main(["rules", "show", "xiamen", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["money_apart"] is True


def test_rules_show_unknown_name_is_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "show", "nope"]) == 2
    assert "unknown rules 'nope'" in capsys.readouterr().err


def test_score_command_with_xiamen_context(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["score", "--rules", "xiamen", "--context", "gold=9s", "--context", "win=游金",
            "--context", "dealer=true", "--json", "123m456m789m234p567p9s 1f 3p"]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["total"] == 72
    assert out["settlement"]["payments"][0] == {"payer": "left", "amount": 72, "bonus": 50}


def test_score_command_with_zhenjiang_settings(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["score", "--rules", "zhenjiang", "--context", "indicator=1m", "--self-drawn",
            "--kong", "--set", "kong_win_no_wild_concealed=10", "--json",
            "[SSSS]456m789mEE 5s5s5s"]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["settlement"]["winner"] == 30


def test_score_command_flower_indicator_is_a_clear_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["score", "--rules", "zhenjiang", "--context", "indicator=3f", "111p456m789m123pEE"]
    assert main(argv) == 2
    assert "flower" in capsys.readouterr().err


def test_rules_show_names_the_codes_scored_alike(capsys: pytest.CaptureFixture[str]) -> None:
    """MCR scores any bonus tile alike; Xiamen seasons apart from flowers; Zhenjiang none."""
    shown = {}
    for name in ("mcr", "xiamen", "zhenjiang"):
        assert main(["rules", "show", name]) == 0
        out = capsys.readouterr().out
        shown[name] = next(x for x in out.splitlines() if "score alike:" in x).split(": ", 1)[1]
    assert shown == {"mcr": "1f 2f 3f 4f 5f 6f 7f 8f", "xiamen": "1f 2f 3f 4f, 5f 6f 7f 8f",
                     "zhenjiang": "(none)"}


def test_rules_show_says_what_penalties_a_table_books_never_none_for_xiamen(
        capsys: pytest.CaptureFixture[str]) -> None:
    """Xiamen lists no false-claim rulings, deductions or repeat offences, yet a Xiamen
    table books a false_win (诈胡: false_win_money to each, apart from the chips) and the
    penalties of any rules: never "penalties: (none)". An empty deduction list is any
    points, not "none"; MCR's repeat offences go on past the table (40, 60)."""
    def block(name: str) -> list[str]:
        assert main(["rules", "show", name]) == 0
        lines = capsys.readouterr().out.splitlines()
        at = next(i for i, x in enumerate(lines) if x.startswith("  penalties"))
        return lines[at:at + 6]

    xiamen = block("xiamen")
    assert "(none)" not in xiamen[0]
    assert "false_win_money (default 50) apart from the chips" in xiamen[1]
    assert xiamen[3] == "    deductions: any points the referee gives"
    assert xiamen[5].startswith("    kinds under any rules: wrong_win, false_win")
    zhenjiang = block("zhenjiang")
    assert zhenjiang[2] == "    false-claim rulings: false_win 诈胡"
    assert "false_win × base_chip (default 6)" in zhenjiang[1]
    assert "deductions none" not in "\n".join(zhenjiang)
    mcr = block("mcr")
    assert mcr[3] == "    deductions: 5, 10, 20, 30, 40, 50 or 60 points"
    assert "a warning, then 5, then 10, then 20, then 40, 60 … points" in mcr[4]
    for line in xiamen + zhenjiang + mcr:
        assert " ," not in line and not line.endswith(" ")
