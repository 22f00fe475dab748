"""``train/classifier/train.py --view``: the viewpoint/resolution randomisation
(``reshape_view``) keeps shape and value range, is off at share 0, and never moves a
glyph to another quarter of the crop (no mirror, no quarter turn: the crop's rotation
index stays valid) (training venv only)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
TRAIN_PY = REPO / ".venv-train" / "bin" / "python"

pytestmark = pytest.mark.skipif(
    not TRAIN_PY.exists(), reason="needs the training venv (.venv-train, torch)"
)

CHECK = r"""
import sys, torch
sys.path.insert(0, "train/classifier")
from train import reshape_view
gen = torch.Generator().manual_seed(0)
x = torch.zeros(64, 3, 48, 48)
x[:, :, 6:18, 8:20] = 1.0          # a mark in the top-left quarter
assert torch.equal(reshape_view(x, 0.0, gen), x)
y = reshape_view(x, 1.0, gen)
assert y.shape == x.shape and float(y.min()) >= 0.0 and float(y.max()) <= 1.0
assert not torch.equal(y, x)
mass = y.sum(dim=1)                 # (B, H, W)
top_left = mass[:, :24, :24].sum(dim=(1, 2)) / mass.sum(dim=(1, 2))
assert float(top_left.min()) > 0.8, top_left.min()
"""


def test_view_randomisation_keeps_the_glyph_where_it_is() -> None:
    run = subprocess.run([str(TRAIN_PY), "-c", CHECK], cwd=REPO, capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 0, run.stderr
