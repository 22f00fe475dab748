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


# ----------------------------------------------------------------- paired comparison
def _saved(folder: Path, column: str, result: dict[str, object]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    compare = _compare()
    (folder / compare.column_file(column)).write_text(json.dumps({"_column": column, **result}))


def test_sign_test_is_mcnemars_exact_one_sided_tail() -> None:
    """Six items worse and none better happen by chance 1 time in 64; three worse and one
    better 5 times in 16 (binomial tails with p = 1/2)."""
    compare = _compare()
    assert compare.sign_test(6, 0) == pytest.approx(1 / 64)
    assert compare.sign_test(3, 1) == pytest.approx(5 / 16)
    assert compare.sign_test(0, 4) == pytest.approx(1.0)
    assert compare.sign_test(0, 0) == 1.0


def test_paired_counts_items_each_model_alone_gets_wrong() -> None:
    """Only the discordant items decide: the same 200 scenes, the base wrong on a, b, c and
    the candidate on b, c, d, e — one better (a), two worse (d, e): level, not worse."""
    compare = _compare()
    base = {"scenes": 200, "end_to_end_not_exact": ["a", "b", "c"],
            "end_to_end_not_same_mcr_score": ["a"]}
    cand = {"scenes": 200, "end_to_end_not_exact": ["b", "c", "d", "e"],
            "end_to_end_not_same_mcr_score": ["d", "e", "f", "g", "h", "i"]}
    exact, mcr = compare.pair_results("choice2", "scenes", base, cand)
    assert (exact.base_right, exact.cand_right, exact.worse, exact.better) == (197, 196, 2, 1)
    assert exact.verdict == "level"
    assert (mcr.worse, mcr.better) == (6, 1) and mcr.p_worse == pytest.approx(8 / 128)
    assert mcr.verdict == "level"  # 0.0625: not below 0.05
    assert compare.pair_results("choice2", "scenes", base, cand, alpha=0.1)[1].verdict == "worse"


def test_a_false_win_is_an_error_item(tmp_path: Path) -> None:
    """For hands that do not win, scenes scored as a win are the candidate's errors."""
    compare = _compare()
    base = {"scenes": 0, "waiting_scenes": {"scenes": 200, "end_to_end_not_read_right": [],
                                            "end_to_end_scored_as_win_scenes": []}}
    cand = {"scenes": 0, "waiting_scenes": {
        "scenes": 200, "end_to_end_not_read_right": [],
        "end_to_end_scored_as_win_scenes": [f"{i}.jpg" for i in range(5)]}}
    read, win = compare.pair_results("waiting", "not_winning", base, cand)
    assert read.verdict == "level" and (win.worse, win.verdict) == (5, "worse")


def test_paired_command_passes_or_names_the_worse_figure(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    compare = _compare()
    good = {"images": 10, "not_all_right": ["x.jpg"]}
    _saved(tmp_path / "base", "train 400", good)
    _saved(tmp_path / "cand", "train 400", {"images": 10, "not_all_right": []})
    assert compare.main(["paired", str(tmp_path / "base"), str(tmp_path / "cand"), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["passes"] and out["figures"][0]["better"] == 1
    _saved(tmp_path / "worse", "train 400",
           {"images": 10, "not_all_right": [f"{i}.jpg" for i in range(7)]})
    assert compare.main(["paired", str(tmp_path / "base"), str(tmp_path / "worse")]) == 0
    text = capsys.readouterr().out
    assert "train 400 | all right | 10 | 90.0 → 30.0 | +1 −7 | 0.035 | worse" in text
    assert "does not pass: 1 figure(s) worse" in text


def test_paired_refuses_results_of_other_item_sets(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two results over different numbers of items are not paired (named, not crashed);
    nothing paired at all is an error naming what to do."""
    compare = _compare()
    _saved(tmp_path / "base", "train 400", {"images": 10, "not_all_right": []})
    _saved(tmp_path / "cand", "train 400", {"images": 9, "not_all_right": []})
    with pytest.raises(SystemExit):
        compare.main(["paired", str(tmp_path / "base"), str(tmp_path / "cand")])
    assert "no column saved in both folders" in capsys.readouterr().err
    _saved(tmp_path / "base", "held-out v1", {"images": 5, "not_all_right": []})
    _saved(tmp_path / "cand", "held-out v1", {"images": 5, "not_all_right": ["a.jpg"]})
    assert compare.main(["paired", str(tmp_path / "base"), str(tmp_path / "cand")]) == 0
    assert "not paired: train 400 (train 400: the two results read 10 and 9" in (
        capsys.readouterr().out)
    with pytest.raises(SystemExit):
        compare.main(["paired", str(tmp_path / "nowhere"), str(tmp_path / "cand")])
    assert "no such folder" in capsys.readouterr().err


def test_paired_refuses_results_read_against_different_labels(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two results saved with different digests of their set's labels (the dataset rebuilt
    between the two runs) are not paired; a result saved before digests existed still
    pairs."""
    compare = _compare()
    _saved(tmp_path / "base", "train 400",
           {"images": 10, "not_all_right": [], "_labels": "aaaaaaaaaaaa"})
    _saved(tmp_path / "cand", "train 400",
           {"images": 10, "not_all_right": [], "_labels": "bbbbbbbbbbbb"})
    _saved(tmp_path / "base", "held-out v1", {"images": 5, "not_all_right": []})
    _saved(tmp_path / "cand", "held-out v1",
           {"images": 5, "not_all_right": ["a.jpg"], "_labels": "cccccccccccc"})
    assert compare.main(["paired", str(tmp_path / "base"), str(tmp_path / "cand")]) == 0
    out = capsys.readouterr().out
    assert "not paired: train 400 (train 400: measured against different labels" in out
    assert "held-out v1 | all right | 5 | 100.0 → 80.0" in out


def test_save_keeps_each_columns_result_for_pairing(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    compare = _compare()
    monkeypatch.setattr(compare, "_run", lambda command: {
        "f1": 0.9, "images_all_right": 0.5, "images": 2, "not_all_right": ["a.jpg"]})
    monkeypatch.setattr(compare, "_present", lambda measure: True)  # no photos needed
    assert compare.main(["choice", "models", "--only", "train 400", "--save",
                         str(tmp_path)]) == 0
    saved = json.loads((tmp_path / "models" / "train_400.json").read_text())
    assert saved["_column"] == "train 400" and saved["not_all_right"] == ["a.jpg"]
    assert saved["_labels"] == compare.labels_digest(REPO / "datasets/build/hk-photos")
    assert "0.9000 / 50.0" in capsys.readouterr().out


def test_a_photos_export_copies_count_as_one_unit() -> None:
    """Five copies of one photo going wrong together are one photo worse, not five items:
    the sign test must not take correlated copies for independent evidence."""
    compare = _compare()
    copies = [f"hand_001_jpg.rf.{h}.jpg" for h in "abcde"]
    base = {"images": 10, "not_all_right": ["hand_002_jpg.rf.a.jpg"]}
    cand = {"images": 10, "not_all_right": copies}
    (fig,) = compare.pair_results("train 400", "eval", base, cand)
    assert (fig.base_right, fig.cand_right) == (9, 5)
    assert (fig.worse, fig.better, fig.verdict) == (1, 1, "level")
