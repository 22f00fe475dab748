"""bench/fuzz_tables.py: a short run of random table sessions passes, and the sheet model
catches a misplaced payment, an ignored correction and a miscounted penalty."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest

import tilecam.tables.scoring_bridge as bridge
import tilecam.tables.standings as standings


@pytest.fixture
def fuzz(bench_module: Callable[[str], ModuleType]) -> ModuleType:
    return bench_module("fuzz_tables")


def test_seats_follow_the_seed_rotation(fuzz: ModuleType) -> None:
    """Seed 003, 东南走之字, 西北转上: hand 1 seats the players as they sat down; round 2
    swaps East/South and West/North; the deal passes to the next seat every hand."""
    assert fuzz.seat_positions(1) == {"E": 0, "S": 1, "W": 2, "N": 3}
    assert fuzz.seat_positions(2) == {"E": 1, "S": 2, "W": 3, "N": 0}
    assert fuzz.seat_positions(5) == {"E": 1, "S": 0, "W": 3, "N": 2}
    assert all(sorted(fuzz.seat_positions(n).values()) == [0, 1, 2, 3] for n in range(1, 17))


def test_random_table_sessions_keep_the_sheet_right(fuzz: ModuleType) -> None:
    """Hands, re-sends, corrections, voids and penalties at MCR, Xiamen and Zhenjiang
    tables: no 5xx, the documented 409/404 answers, and standings, CSV and event standings
    that match the model (longer runs: ``bench/fuzz_tables.py --steps 1500``)."""
    assert fuzz.fuzz_tables(3, 160).items == []


def _fails_with(fuzz: ModuleType, what: str) -> None:
    found = fuzz.fuzz_tables(3, 100).items
    assert any(what in f for f in found), found[:5]


def test_a_payment_placed_on_the_wrong_player_is_caught(
    fuzz: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    """8 + total from the discarder, 8 from the others: a sheet that turns the payments
    one seat round (still summing to 0) is a failure."""
    place = bridge.place_payments

    def turned(*args: Any) -> list[int]:
        deltas = place(*args)
        return deltas[1:] + deltas[:1]

    monkeypatch.setattr(bridge, "place_payments", turned)
    _fails_with(fuzz, "model")


def test_a_correction_the_standings_ignore_is_caught(
    fuzz: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hand counts with its latest revision (a referee's correction or void)."""
    monkeypatch.setattr(standings, "current", lambda hand: hand.revisions[0])
    _fails_with(fuzz, "standings of")


def test_a_void_penalty_still_counted_is_caught(
    fuzz: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A void penalty counts 0."""
    original = standings.sheet.penalties_of

    def never_void(session: Any, table_id: int) -> list[Any]:
        pens = original(session, table_id)
        for pen in pens:
            session.expunge(pen)
            pen.voided_at = None
        return pens

    monkeypatch.setattr(standings.sheet, "penalties_of", never_void)
    _fails_with(fuzz, "standings of")
