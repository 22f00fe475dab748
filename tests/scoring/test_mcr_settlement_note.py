"""The MCR settlement note names the table's own base points (``base_points``), as the
payments use them: it said "8 + total … the other two pay 8" whatever the setting
(review s73 F4)."""

from __future__ import annotations

import pytest

import scoring

HAND = "[EEE,2][SSSS,1]WWWNN55pN"  # 95 fan won on a discard, 98 self-drawn


@pytest.mark.parametrize("base", [0, 5, 8, 20])
def test_the_discard_note_names_the_base_the_payments_use(base: int) -> None:
    s = scoring.score(HAND, discarder=2, settings={"base_points": base})
    assert [(p.payer, p.amount) for p in s.settlement.payments] == [
        ("left", base), ("opposite", base + s.total), ("right", base)]
    assert s.settlement.note == (
        f"discard: the discarder pays {base} + total, the other two pay {base}")


@pytest.mark.parametrize("base", [0, 5, 8, 20])
def test_the_self_drawn_note_names_the_base_the_payments_use(base: int) -> None:
    s = scoring.score(HAND, self_drawn=True, settings={"base_points": base})
    assert {p.amount for p in s.settlement.payments} == {base + s.total}
    assert s.settlement.note == f"self-drawn: each other player pays {base} + total"


def test_the_note_follows_the_base_when_the_discarder_is_not_known() -> None:
    s = scoring.score(HAND, settings={"base_points": 5})
    assert [p.amount for p in s.settlement.payments] == [5 + s.total, 5, 5]
    assert "pays 5 + total, the other two pay 5" in s.settlement.note
    assert "8" not in s.settlement.note


def test_the_cli_prints_the_tables_base(capsys: pytest.CaptureFixture[str]) -> None:
    from tilecam.cli import main

    assert main(["score", HAND, "--discarder", "2", "--set", "base_points=5"]) == 0
    out = capsys.readouterr().out
    assert "pays: left 5, opposite 100, right 5" in out
    assert "discard: the discarder pays 5 + total, the other two pay 5" in out
