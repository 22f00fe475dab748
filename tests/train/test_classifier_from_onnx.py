"""``train/classifier/from_onnx.py``: the shipped crop classifier and readers rebuilt as
trainable checkpoints whose logits match the ONNX models (training venv only)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
TRAIN_PY = REPO / ".venv-train" / "bin" / "python"
PHOTOS = REPO / "datasets" / "build" / "hk-photos" / "images" / "train"

pytestmark = pytest.mark.skipif(
    not TRAIN_PY.exists() or not PHOTOS.is_dir(),
    reason="needs the training venv (.venv-train) and the prepared hk photos "
    "(tilecam dataset photos --out datasets/build/hk-photos)",
)


def _rebuild(onnx: str, out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(TRAIN_PY), "train/classifier/from_onnx.py", onnx, str(out), "--crops", "64", *extra],
        capture_output=True, text=True, cwd=REPO, timeout=300,
    )  # fmt: skip


def test_shipped_classifier_rebuilds_with_matching_logits(tmp_path: Path) -> None:
    run = _rebuild("models/tiles-cls.onnx", tmp_path / "cls.pt")
    assert run.returncode == 0, run.stderr[-2000:]
    assert "width 16, 43 codes, 64 px" in run.stdout and (tmp_path / "cls.pt").exists()


def test_reader_needs_its_codes(tmp_path: Path) -> None:
    """An 8-code head cannot be named by the 43 classes: the tool asks for ``--names``."""
    run = _rebuild("models/tiles-bonus.onnx", tmp_path / "bonus.pt")
    assert run.returncode != 0 and "--names" in run.stderr
    run = _rebuild("models/tiles-bonus.onnx", tmp_path / "bonus.pt",
                   "--names", "1f,2f,3f,4f,5f,6f,7f,8f")  # fmt: skip
    assert run.returncode == 0, run.stderr[-2000:]
    assert "8 codes, 96 px" in run.stdout
