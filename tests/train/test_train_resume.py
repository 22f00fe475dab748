"""``train/train.py --resume`` and run folders (review s69, findings 1, 8 and 10): a
finished run (optimizer stripped) is refused with the command that trains further instead
of ultralytics' silent fallback to a new coco8 training; a new run does not overwrite a
run folder that holds one; the settings a resume may change. Pure checks without torch;
one script check in the training venv."""

from __future__ import annotations

import argparse
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parents[2]


def test_a_finished_or_handmade_checkpoint_is_not_resumable(
    train_module: Callable[[str], ModuleType]
) -> None:
    train = train_module("train")
    killed = {"epoch": 1, "optimizer": {"state": {}}, "train_args": {"data": "d.yaml"}}
    assert train.resume_problem(killed, "r/last.pt") is None
    finished = {"epoch": -1, "optimizer": None, "train_args": {"data": "d.yaml"}}
    why = train.resume_problem(finished, "r/last.pt")
    assert why is not None and "finished" in why
    assert "--model r/last.pt --data d.yaml" in why
    surgery = {"epoch": -1, "model": object(), "train_args": {}}
    assert "not a training checkpoint" in train.resume_problem(surgery, "start43.pt")


def test_resume_passes_only_the_settings_given(
    train_module: Callable[[str], ModuleType]
) -> None:
    """Finding 10: ``--device cpu`` resumes a GPU run's checkpoint on the CPU; nothing
    given, nothing replaced (the checkpoint's own settings)."""
    train = train_module("train")
    ns = argparse.Namespace(device="cpu", batch=None, workers=None, hours=None)
    assert train.resume_overrides(ns) == {"device": "cpu"}
    ns = argparse.Namespace(device=None, batch=None, workers=None, hours=None)
    assert train.resume_overrides(ns) == {}


def test_a_new_run_does_not_overwrite_a_run_folder(tmp_path: Path) -> None:
    """Finding 8: a second ``--model ... --name NAME`` (pipeline.sh run again) stops, naming
    the --resume command, instead of writing over the run's last.pt; checked before torch
    or ultralytics are imported, so it runs in the main venv."""
    weights = tmp_path / "tiles" / "weights"
    weights.mkdir(parents=True)
    (weights / "last.pt").write_bytes(b"a run")
    run = subprocess.run([sys.executable, "train/train.py", "--model", "start.pt", "--data",
                          "d.yaml", "--project", str(tmp_path), "--name", "tiles"],
                         capture_output=True, text=True, cwd=REPO, timeout=60)
    assert run.returncode != 0
    assert f"--resume {weights / 'last.pt'}" in run.stderr, run.stderr
    assert (weights / "last.pt").read_bytes() == b"a run"


FINISHED = r"""
import subprocess, sys, torch
from pathlib import Path
from ultralytics.nn.tasks import DetectionModel
out, repo = Path(sys.argv[1]), Path.cwd()
m = DetectionModel("yolo11n.yaml", nc=2, verbose=False)
(out / "d.yaml").write_text("path: .\ntrain: images\nval: images\nnames: ['a', 'b']\n")
args = {"data": str(out / "d.yaml"), "epochs": 3, "device": "cpu"}
torch.save({"model": m.half(), "ema": None, "optimizer": None, "epoch": -1,
            "train_args": args}, out / "last.pt")
r = subprocess.run([sys.executable, str(repo / "train/train.py"), "--resume",
                    str(out / "last.pt"), "--threads", "1"], capture_output=True, text=True,
                   cwd=out, timeout=240)
assert r.returncode != 0, r.stdout[-2000:] + r.stderr[-2000:]
assert "finished" in r.stderr and "--model" in r.stderr, r.stderr[-2000:]
assert "coco8" not in r.stdout + r.stderr
assert not (out / "runs").exists() and not (out.parent / "datasets").exists()
r = subprocess.run([sys.executable, str(repo / "train/train.py"), "--resume",
                    str(out / "last.pt"), "--finished-ok"], capture_output=True, text=True,
                   cwd=out, timeout=240)
assert r.returncode == 0 and "finished" in r.stdout, r.stdout[-2000:] + r.stderr[-2000:]
print("ok")
"""


def test_resuming_a_finished_run_is_refused(
    train_python: Callable[..., subprocess.CompletedProcess[str]], tmp_path: Path
) -> None:
    """Finding 1, in the training venv: the script stops with the message, starts no
    training (no coco8, no runs/ or datasets/ folder); ``--finished-ok`` exits 0."""
    work = tmp_path / "w"
    work.mkdir()
    run = train_python(FINISHED, str(work))
    assert run.returncode == 0 and "ok" in run.stdout, run.stdout[-3000:] + run.stderr[-3000:]
