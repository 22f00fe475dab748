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


def test_pipelines_side_by_side_take_turns_pass_by_pass(timing: ModuleType) -> None:
    calls: list[tuple[str, int]] = []
    a = lambda x: calls.append(("a", x))  # noqa: E731
    b = lambda x: calls.append(("b", x))  # noqa: E731
    out = timing.side_by_side_ms([(a, [1, 2, 3]), (b, [1, 2, 3])], rounds=2, targets=[1e9, None])
    timed = calls[4:]  # after two warm-up calls each; each pass opens with an untimed call
    one_round = [("a", 1), ("a", 1), ("a", 2), ("a", 3), ("b", 1), ("b", 1), ("b", 2), ("b", 3)]
    assert timed == one_round * 2
    assert out[0]["within_target"] == 1.0 and "within_target" not in out[1]
    assert "ratio_to_first" in out[1] and "ratio_to_first" not in out[0]


def test_side_by_side_needs_the_same_frames_for_every_pipeline(timing: ModuleType) -> None:
    with pytest.raises(ValueError, match="same number of frames"):
        timing.side_by_side_ms([(print, [1, 2]), (print, [1])])


def test_the_ratio_is_over_frames(timing: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    # a fake clock: pipeline b takes exactly twice pipeline a's time on every frame
    now = [0.0]

    def run(cost: float) -> Callable[[int], None]:
        def call(x: int) -> None:
            now[0] += cost * x / 1000  # seconds

        return call

    monkeypatch.setattr(timing.time, "perf_counter", lambda: now[0])
    out = timing.side_by_side_ms([(run(1.0), [1, 2, 5]), (run(2.0), [1, 2, 5])], rounds=1)
    assert out[0]["median"] == pytest.approx(2.0) and out[1]["median"] == pytest.approx(4.0)
    assert out[1]["ratio_to_first"] == pytest.approx(2.0)
