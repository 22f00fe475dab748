"""bench/mcr_differential.py: the long MCR run against the reference calculator agrees on
a short seed, and a hand the two score differently is counted and written out."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest

pytest.importorskip("MahjongGB", reason="pymahjonggb (dev extra) is not installed")


def test_a_short_run_agrees_with_the_reference(
    bench_module: Callable[[str], ModuleType], capsys: pytest.CaptureFixture[str],
) -> None:
    bench = bench_module("mcr_differential")
    assert bench.main(["--seed", "5", "--count", "300"]) == 0
    assert "seed 5: 300 wins, 0 differences" in capsys.readouterr().out


def test_a_total_the_reference_scores_otherwise_is_a_difference(
    bench_module: Callable[[str], ModuleType], capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    bench = bench_module("mcr_differential")
    import oracle_differences

    real = oracle_differences.reference_score

    def one_more(hand: Any, ctx: dict[str, Any]) -> Any:
        total, fans = real(hand, ctx)
        return total + 1, fans

    monkeypatch.setattr(oracle_differences, "reference_score", one_more)
    assert bench.compare(5, 20) == 20
    assert capsys.readouterr().out.count("  differs: ") == 5


def test_waits_of_dealt_hands_agree_and_a_wrong_shanten_is_a_difference(
    bench_module: Callable[[str], ModuleType], monkeypatch: pytest.MonkeyPatch,
) -> None:
    bench = bench_module("mcr_differential")
    differences, ready = bench.compare_waits(56, 400)
    assert differences == 0 and ready > 0
    import scoring.mcr.waits as waits

    monkeypatch.setattr(waits, "shanten", lambda held, melds: 7)
    assert bench.compare_waits(56, 50, show=0)[0] > 40
