"""bench/model_pairs.py: paired timing of two model folders (its summary and its checks)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest


@pytest.fixture
def pairs_bench(bench_module: Callable[[str], ModuleType]) -> ModuleType:
    return bench_module("model_pairs")


def test_summary_counts_the_candidates_slower_and_faster_pairs(pairs_bench: ModuleType) -> None:
    """A candidate slower in every pair by 2–4 ms: difference 3 ms, slower 3 of 3 (p 1/8);
    level pairs count neither way."""
    pairs = [
        {"base": {"detect_ms": 40.0, "recognize_ms": 55.0},
         "cand": {"detect_ms": 42.0, "recognize_ms": 55.0}},
        {"base": {"detect_ms": 50.0, "recognize_ms": 60.0},
         "cand": {"detect_ms": 53.0, "recognize_ms": 58.0}},
        {"base": {"detect_ms": 41.0, "recognize_ms": 54.0},
         "cand": {"detect_ms": 45.0, "recognize_ms": 54.0}},
    ]  # fmt: skip
    out = pairs_bench.summarise(pairs)
    d, r = out["detect_ms"], out["recognize_ms"]
    assert (d["base_median"], d["cand_median"], d["cand_minus_base"]) == (41.0, 45.0, 3.0)
    assert (d["cand_worse"], d["cand_better"]) == (3, 0)  # ms: worse is slower
    assert d["p_cand_worse"] == pytest.approx(0.125) and d["p_cand_better"] == 1.0
    assert (r["cand_worse"], r["cand_better"], r["cand_minus_base"]) == (0, 1, 0.0)


def test_a_folder_without_a_manifest_is_refused(
    pairs_bench: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        pairs_bench.main([str(tmp_path), str(tmp_path)])
    assert "is not a model folder" in capsys.readouterr().err


def test_counts_below_one_are_refused(
    pairs_bench: ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        pairs_bench.main(["models", "models", "--pairs", "0"])
    assert "at least 1" in capsys.readouterr().err
