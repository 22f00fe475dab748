"""bench/sheet_bench.py: a short Xiamen sheet is built, and the correction of its first
hand (turned into a drawn hand, which keeps the deal with its dealer — 臭庄) scores every
later hand again."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType


def test_a_correction_of_the_first_hand_reseats_every_later_hand(
    bench_module: Callable[[str], ModuleType],
) -> None:
    bench = bench_module("sheet_bench")
    out = bench.sheet_bench(8, seed=0)
    assert out["hands"] == 8
    assert out["reseated"] == 7
    assert out["correct_first_ms"] > 0 and out["post_ms_last_10"] > 0


def test_more_corrections_grow_the_revisions_and_time_the_reads(
    bench_module: Callable[[str], ModuleType],
) -> None:
    """``--corrections``: early hands corrected again and again give the later hands a
    revision each time; the corrected sheet's reads are timed."""
    bench = bench_module("sheet_bench")
    out = bench.sheet_bench(8, seed=0, corrections=3)
    corrected = out["corrected"]
    assert corrected["corrections"] == 3
    assert corrected["revisions"] > 8 + 7  # the first correction's reseats and more
    assert all(corrected[k] > 0 for k in ("table_ms", "hand_history_ms", "standings_ms",
                                          "sheet_ms", "list_ms", "post_again_ms"))
