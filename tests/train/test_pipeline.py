"""``train/pipeline.sh`` and the model card's recipe lines (review s69, findings 7 and 8),
read as text: a rerun continues or skips instead of starting over, the export goes to a
run folder (models/ only when asked), every data set used is made first, the header's GPU
line is the card's, and the classifier legs' ``cp`` lines make their folder first."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PIPELINE = (REPO / "train" / "pipeline.sh").read_text()
CARD = (REPO / "models" / "README.md").read_text()


def _commands(text: str, script: str) -> list[str]:
    """Each call of ``script`` in ``text`` with its continuation lines joined."""
    joined = re.sub(r"\\\n\s*", " ", text)
    return [line for line in joined.splitlines()
            if script in line and not line.lstrip().startswith("#")]


def test_a_rerun_resumes_the_detector_or_skips_it_when_finished() -> None:
    calls = _commands(PIPELINE, "train/train.py")
    assert any("--resume" in c and "--finished-ok" in c for c in calls), calls
    assert 'if [ -f "$LAST" ]' in PIPELINE


def test_a_rerun_resumes_or_skips_each_crop_network_leg() -> None:
    legs = _commands(PIPELINE, "cls_leg ")
    assert len(legs) == 4, legs
    direct = [c for c in _commands(PIPELINE, "train/classifier/train.py")
              if "--resume" not in c and '"$@"' not in c]
    assert not direct, direct  # every leg goes through cls_leg
    assert 'resume=(--resume)' in PIPELINE and 'model.pt" ]' in PIPELINE


def test_the_export_goes_to_a_run_folder_unless_asked() -> None:
    (export,) = _commands(PIPELINE, "train/export.py")
    assert '--models "$M"' in export and "--calibration drop" in export
    assert 'M="${MODELS:-runs/$NAME/models}"' in PIPELINE
    for tool in ("operating_point.py", "calibrate.py", "quantize.py", "tilecam eval"):
        for call in _commands(PIPELINE, tool):
            assert " models " not in call + " " and "models/" not in call, call


def test_every_data_set_read_is_made_or_checked_first() -> None:
    """Finding 8: synth-val-heldout-v2 was read by step 8 and made nowhere."""
    read = set(re.findall(r"datasets/generated/([\w-]+)", PIPELINE))
    made = set(re.findall(r"--out datasets/generated/([\w-]+)", PIPELINE))
    assert read <= made, sorted(read - made)


def test_the_header_gpu_line_is_the_model_cards() -> None:
    card = re.search(r"`(DEVICE=0 [^`]*) train/pipeline\.sh`", CARD)
    assert card, "no GPU line in the model card"
    header = " ".join(line.lstrip("# ").strip() for line in PIPELINE.splitlines()[1:5])
    assert card.group(1) in header, (card.group(1), header)


def test_the_classifier_recipe_makes_each_run_folder_before_copying_into_it() -> None:
    """Finding 7: ``cp run1/last.pt run2/`` failed (run2 did not exist), so the leg never
    ran; and a leg that changes --seed or --style says so (--change-settings)."""
    lines = [line for line in CARD.splitlines()
             if re.match(r"(mkdir -p \S+ && )?cp runs/classifier/run\d+/last\.pt", line)]
    assert len(lines) == 7, lines
    for line in lines:
        target = re.search(r"last\.pt (runs/classifier/run\d+)/", line)
        assert target and line.startswith(f"mkdir -p {target.group(1)} && "), line
        assert "--change-settings" in line, line


def test_a_step_runs_again_when_one_of_its_inputs_is_newer_than_its_marker(
    tmp_path: Path,
) -> None:
    """Diff review: the export's marker was a bare file, so a crop network trained again
    was never exported. ``done_step NAME INPUT…`` is done only with a marker newer than
    every input."""
    import subprocess

    fn = re.search(r"done_step\(\) \{.*?\n\}", PIPELINE, re.S)
    assert fn is not None
    script = (f"NAME=t\n{fn.group(0)}\nmkdir -p runs/t\n"
              "touch -d '2020-01-01' in; touch -d '2021-01-01' runs/t/.done-x\n"
              "done_step x in && echo done\n"
              "touch -d '2022-01-01' in\n"
              "done_step x in || echo again\n"
              "done_step y in || echo missing\n")
    out = subprocess.run(["bash", "-c", script], cwd=tmp_path, capture_output=True,
                         text=True, check=True).stdout.split()
    assert out == ["done", "again", "missing"]
