"""bench/spin_bench.py: the paired spin on/off summary and its timing helpers."""

from __future__ import annotations

import time
from collections.abc import Callable
from types import ModuleType

import pytest


@pytest.fixture
def spin(bench_module: Callable[[str], ModuleType]) -> ModuleType:
    return bench_module("spin_bench")


def test_sign_test_tails(bench_module: Callable[[str], ModuleType]) -> None:
    """The bench's pair tallies (``bench/_pairs.py``) use train/compare.py's sign test:
    P(at least `wins` of the pairs)."""
    sign_test = bench_module("_pairs").sign_test
    assert sign_test(10, 0) == pytest.approx(1 / 1024)
    assert sign_test(0, 10) == pytest.approx(1.0)
    assert sign_test(8, 2) == pytest.approx((45 + 10 + 1) / 1024)
    assert sign_test(0, 0) == 1.0


def test_summary_counts_pairs_each_way(spin: ModuleType) -> None:
    pairs = [
        {
            "on": {"one_stream_ms": 42.0, "streams_fps": 25.0},
            "off": {"one_stream_ms": 47.0, "streams_fps": 26.0},
        },
        {
            "on": {"one_stream_ms": 44.0, "streams_fps": 27.0},
            "off": {"one_stream_ms": 48.0, "streams_fps": 26.0},
        },
        {
            "on": {"one_stream_ms": 60.0, "streams_fps": 20.0},
            "off": {"one_stream_ms": 50.0, "streams_fps": 20.0},
        },
    ]
    out = spin.summarise(pairs)
    one = out["one_stream_ms"]
    assert (one["pairs_spin_on_better"], one["pairs_spin_on_worse"]) == (2, 1)  # lower ms wins
    assert one["spin_on_median"] == 44.0 and one["spin_off_median"] == 48.0
    assert one["p_spin_on_better"] == 0.5  # 2 or more of 3 tosses
    fps = out["streams_fps"]
    assert (fps["pairs_spin_on_better"], fps["pairs_spin_on_worse"]) == (1, 1)  # higher wins; tie
    assert out["pairs"] == 3


def test_summary_without_streams(spin: ModuleType) -> None:
    out = spin.summarise([{"on": {"one_stream_ms": 1.0}, "off": {"one_stream_ms": 2.0}}])
    assert "streams_fps" not in out and out["one_stream_ms"]["pairs_spin_on_better"] == 1


def test_timing_helpers_measure_the_calls(spin: ModuleType) -> None:
    seen: list[int] = []

    def detect(frame: int) -> None:
        seen.append(frame)
        time.sleep(0.01)

    ms = spin.median_ms(detect, [1, 2], rounds=2)  # bench/_pairs.py's, as the child uses it
    assert seen == [1, 2, 1, 2] and 9.0 <= ms < 100.0
    seen.clear()
    fps = spin.streams_fps(detect, [1, 2, 3], streams=2, per_stream=3)
    assert sorted(seen) == [1, 1, 2, 2, 3, 3]  # each stream starts at its own frame
    assert 10.0 < fps <= 2 / 0.01 * 1.05  # two sleeping threads overlap
