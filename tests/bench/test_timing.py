"""bench/_timing.py: the speed benches' figures are over images, each image weighing once."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

import pytest


@pytest.fixture
def timing(bench_module: Callable[[str], ModuleType]) -> ModuleType:
    return bench_module("_timing")


def test_every_image_is_timed_the_same_number_of_times(timing: ModuleType) -> None:
    calls: list[int] = []
    out = timing.per_image_ms(calls.append, [1, 2, 3, 4, 5], rounds=3, target_ms=1e9)
    # two warm-up calls, then three interleaved passes over all five images
    assert calls == [1, 2] + [1, 2, 3, 4, 5] * 3
    assert out["n"] == 5
    assert out["within_target"] == 1.0


def test_the_median_is_over_images_not_over_a_pool_of_calls(timing: ModuleType) -> None:
    # one slow image timed many times must not decide the figure: it counts once
    out = timing.summarize([10.0, 11.0, 12.0, 500.0, 13.0], [1.0] * 5, target_ms=12.0)
    assert out["median"] == 12.0
    assert out["within_target"] == pytest.approx(3 / 5)
    assert out["p90"] > out["median"] > out["p10"]


def test_bad_rounds_and_empty_inputs_are_refused(timing: ModuleType) -> None:
    with pytest.raises(ValueError, match="rounds"):
        timing.per_image_ms(print, [1], rounds=0)
    with pytest.raises(ValueError, match="no images"):
        timing.summarize([], [])


def test_a_single_image_still_gives_its_figures(timing: ModuleType) -> None:
    out = timing.summarize([42.0], [40.0])
    assert (out["median"], out["p10"], out["p90"], out["n"]) == (42.0, 42.0, 42.0, 1)
    assert "within_target" not in out
