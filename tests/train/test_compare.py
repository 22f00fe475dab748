"""``train/compare.py``: the choice and report protocol of the model card's recipe — which
commands it runs for which columns, how a result becomes a cell, and its refusals (a
folder with no model, a column it does not know, a scene set that is missing)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[2]


def _compare() -> ModuleType:
    spec = importlib.util.spec_from_file_location("train_compare", REPO / "train" / "compare.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["train_compare"] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


def test_choice_protocol_runs_the_choice_data_only(capsys: pytest.CaptureFixture[str]) -> None:
    compare = _compare()
    assert compare.main(["choice", "models", "--dry-run"]) == 0
    out = capsys.readouterr().out
    runs = [line for line in out.splitlines() if "--model-dir models" in line]
    assert len(runs) == 11
    assert "/tmp/s21/turned-choice --detector" in runs[5]
    assert "/tmp/nm/table --detector" in runs[6] and "/tmp/nm/wait-table --detector" in runs[7]
    assert "/tmp/s37/sets/choice-heldout --detector" in runs[8]
    assert "/tmp/s37/sets/choice-heldout-table --detector" in runs[9]
    assert "photos" in runs[10] and "--split train" in runs[10]  # recognize on real photos
    assert "--split train --limit 400 --copies trusted" in runs[0]
    assert "synth-val-heldout " in runs[2] and "--split val" not in out  # never the val split
    report_sets = ("v2", "heldoutB", "heldoutC", "layout-eval-heldout", "turned-heldout",
                   "/tmp/nm/heldout", "wait-heldout")
    assert all(name not in line for line in runs for name in report_sets)


def test_held_out_choice_sets_are_other_seeds_than_the_report_sets() -> None:
    """Rules aimed at unseen art are chosen on held-out-art scenes the report never reads."""
    compare = _compare()
    choice = {m.needs for m in compare.PROTOCOLS["choice"] if m.needs}
    report = {m.needs for m in compare.PROTOCOLS["report"] if m.needs}
    assert {"choice-heldout", "choice-heldout-table"} <= choice and not choice & report

    def seed(name: str) -> str:
        args = compare.SETS[name].synth
        return args[args.index("--seed") + 1]

    held_out = [n for n in compare.SETS if "heldout" in compare.SETS[n].synth]
    assert {seed(n) for n in held_out if n in choice}.isdisjoint(
        {seed(n) for n in held_out if n in report})


def test_report_protocol_covers_the_val_selections_and_held_out_scenes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    compare = _compare()
    assert compare.main(["report", "models", "/tmp/cand", "--dry-run"]) == 0
    out = capsys.readouterr().out
    for copies in ("trusted", "originals", "untouched"):
        assert f"--split val --copies {copies} --model-dir /tmp/cand" in out
    assert "photos datasets/build/hk-photos --model-dir models --split val" in out
    assert "synth-val-heldout-v2" in out and "/tmp/heldoutB --detector" in out
    assert "/tmp/s21/turned-heldout --detector --model-dir /tmp/cand" in out
    assert "/tmp/nm/heldout --detector" in out and "/tmp/nm/wait-heldout --detector" in out


def test_cells_read_each_kind_of_result() -> None:
    compare = _compare()
    photos = compare.Measure("val multisets", "photos")
    cell = photos.figure({"exact_multiset_top1": 0.7241, "exact_multiset_corrected": 0.7808})
    assert cell == "72.4 / 78.1"
    false_claims = compare.Measure("false claims", "not_winning")
    cell = false_claims.figure({"near_miss_scenes": {"end_to_end_read_right": 0.665,
                                                     "end_to_end_scored_as_win": 0.01}})
    assert cell == "66.5 / 1.0"


def test_a_missing_scene_set_is_reported_not_run(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    compare = _compare()
    monkeypatch.setitem(compare.SETS, "v1", compare.SceneSet(str(tmp_path / "absent"), ()))
    assert compare.main(["choice", "models", "--only", "held-out v1", "--json"]) == 0
    row = json.loads(capsys.readouterr().out)
    assert row["held-out v1"] == "set missing (--make-sets)"


def test_refusals_name_the_fault(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    compare = _compare()
    with pytest.raises(SystemExit) as stop:
        compare.main(["choice", str(tmp_path)])
    assert stop.value.code == 2
    assert "no manifest.json" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        compare.main(["choice", "models", "--only", "hk val"])  # a report column
    assert "--only names one of" in capsys.readouterr().err
