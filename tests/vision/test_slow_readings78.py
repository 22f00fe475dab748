"""A pathological detection set must not be searched again and again (seventy-eighth
session). ``bench/fuzz_inputs.py layout --seed 177`` item 838 — 60 random tiles read
under Xiamen — took ~3 s of CPU: :func:`vision.recognize.recognize_detections` reads a
hand over its size holding four alike twice (without, then with, kongs laid as four
face-up tiles), and each time :func:`vision.flower_rereads.reread_flower_runs` asked
the same corrections with the win claimed (:meth:`vision.rewrite.WinTest.wins`), each
scoring up to 600 readings, and scoring them again — each hand laid out anew — when
none won (:func:`vision.correct._shape_only_win`). The behaviour checked: the same
correction question is searched once (:class:`vision.rewrite.RecentCorrections`), and a
search lays out each reading's hand once (:meth:`vision.correct._Readings.hand_of`).
Calls are counted, never timed (``bench/slow_readings.py`` times them)."""

from __future__ import annotations

import random
import warnings
from collections.abc import Callable, Iterator
from dataclasses import replace
from types import ModuleType
from typing import Any

import pytest

import scoring
import vision.correct as C
import vision.rewrite as RW
from vision.correct import winning_shape_check
from vision.detections import Detections
from vision.layout import Layout, analyze
from vision.layout_scene import SceneBuilder
from vision.rewrite import WinTest

XIAMEN = {"gold": "5m", "self_drawn": True}


@pytest.fixture(autouse=True)
def _no_corrections_kept() -> Iterator[None]:
    """Each test starts with no correction kept (none asked by another test counts)."""
    kept = getattr(RW, "CORRECTIONS", None)
    if kept is not None:
        kept.clear()
    yield
    if kept is not None:
        kept.clear()


@pytest.fixture
def searches(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The rules of each correction :meth:`WinTest.wins` runs (``vision.rewrite``'s
    ``correct`` counted)."""
    asked: list[str] = []
    real = C.correct

    def counting(*args: Any, **kwargs: Any) -> Any:
        asked.append(kwargs.get("rules", "mcr"))
        return real(*args, **kwargs)

    monkeypatch.setattr(RW, "correct", counting)
    return asked


def _xiamen_win() -> tuple[Detections, Layout]:
    """A Xiamen hand of 17 tiles, 123m456m789m234p567p 9s9s (gold 5m), its last chow's 7p
    read 7s at 0.6: a win once it is read 7p. Built anew each call (new objects)."""
    b = (SceneBuilder().standing("123m456m789m234p56p").standing("7s")
         .uncertain([("7s", 0.6), ("7p", 0.4)]).standing("9s").win("9s"))
    dets = b.detections()
    return dets, analyze(dets)


def test_the_same_win_asked_again_is_not_searched_again(searches: list[str]) -> None:
    """The second reading of recognize_detections asks each rule's correction again with
    new but equal detections, layout and win predicate: one search answers both."""
    answers = []
    for _ in range(2):
        dets, layout = _xiamen_win()
        test = WinTest("xiamen", 17, winning_shape_check("xiamen", XIAMEN))
        answers.append(test.wins(dets, layout))
    assert answers[0] is not None and answers[1] is not None
    assert answers[0].best.codes == answers[1].best.codes
    assert answers[0].best.winning
    assert searches == ["xiamen"]


def test_another_question_is_searched(searches: list[str]) -> None:
    """Another gold, other readings of a tile, or another hand size is another question."""
    dets, layout = _xiamen_win()
    WinTest("xiamen", 17, winning_shape_check("xiamen", XIAMEN)).wins(dets, layout)
    WinTest("xiamen", 17, winning_shape_check("xiamen", {"gold": "9s"})).wins(dets, layout)
    other = dets.topk_probs.copy()
    other[other == other.max()] *= 0.99
    WinTest("xiamen", 17, winning_shape_check("xiamen", XIAMEN)).wins(
        replace(dets, topk_probs=other), layout)
    assert len(searches) == 3


#: the other kinds a junk hand's tiles may be read as
OTHERS = ("2m", "4m", "6m", "8m", "2p", "4p", "6p", "8p", "2s", "4s", "6s", "8s")


def _junk(rng: random.Random) -> Detections:
    """17 tiles of no winning shape, 1m3m5m7m9m 1p3p5p7p9p 1s3s5s7s ES W, each read
    unsurely (its top-1 at 0.5, two even kinds at 0.3 and 0.2): a search whose readings
    win neither on the context nor by their tiles alone, so
    :func:`vision.correct._shape_only_win` looks at them all again."""
    b = SceneBuilder()
    for tile in ("1m", "3m", "5m", "7m", "9m", "1p", "3p", "5p", "7p", "9p", "1s", "3s",
                 "5s", "7s", "E", "S"):
        b.standing(tile).uncertain([(tile, 0.5), (rng.choice(OTHERS), 0.3),
                                    (rng.choice(OTHERS), 0.2)])
    b.win("W")
    return b.detections()


def test_a_search_lays_out_each_reading_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """With no win within the bound, the readings are asked again by their tiles alone;
    each hand was laid out once (before: twice, a third of the search's time)."""
    dets = _junk(random.Random(78))
    layout = analyze(dets)
    laid: list[tuple[str, ...]] = []
    real = Layout.hand

    def counting(self: Layout, codes: Any, *args: Any, **kwargs: Any) -> Any:
        laid.append(tuple(codes))
        return real(self, codes, *args, **kwargs)

    monkeypatch.setattr(Layout, "hand", counting)
    res = C.correct(dets, layout, rules="xiamen", claim_win=True, hand_size=17,
                    is_winning=winning_shape_check("xiamen", XIAMEN))
    assert not res.best.winning
    assert len(laid) > 50  # the search looked at many readings, all again by shape
    assert len(laid) == len(set(laid))


@pytest.fixture
def fuzz(bench_module: Callable[[str], ModuleType]) -> ModuleType:
    return bench_module("fuzz_inputs")


def test_fuzz_item_838_searches_each_correction_once_and_few_flower_runs(
    fuzz: ModuleType, searches: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Seed 177 item 838 (60 tiles, Xiamen, gold 6m, self-drawn): both readings call
    :func:`reread_flower_runs`, which corrected six choices of flowers each (none wins):
    twelve searches, 10,400 hands scored. Now it corrects at most
    :data:`FLOWER_RUN_SEARCHES` choices and the second reading's questions are answered
    from the first's."""
    import vision.recognize as R
    from vision.flower_rereads import FLOWER_RUN_SEARCHES

    scored: list[int] = []
    real = scoring.shape_wins

    def counting(*args: Any, **kwargs: Any) -> bool:
        scored.append(1)
        return bool(real(*args, **kwargs))

    runs: list[int] = []
    real_runs = R.reread_flower_runs  # type: ignore[attr-defined]

    def counting_runs(*args: Any, **kwargs: Any) -> Any:
        before = len(searches)
        try:
            return real_runs(*args, **kwargs)
        finally:
            runs.append(len(searches) - before)

    monkeypatch.setattr(scoring, "shape_wins", counting)
    monkeypatch.setattr(R, "reread_flower_runs", counting_runs)
    source = fuzz.random_detections(random.Random(177))
    for _ in range(838):
        next(source)
    dets, rules, context = next(source)
    assert (rules, len(dets)) == ("xiamen", 60)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # zero-size boxes divide by zero
        rec = R.recognize_detections(dets, rules, context)
    assert rec.hand is not None
    assert runs == [FLOWER_RUN_SEARCHES, 0]  # the second reading asked the same
    assert len(searches) == FLOWER_RUN_SEARCHES
    assert len(scored) <= 2 * 600 * FLOWER_RUN_SEARCHES  # each reading, then by shape
