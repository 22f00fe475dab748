"""``train/classifier/model.py``: the factorised head (``CropNet(..., factors=(a, b))``,
``train.py --factors``) — same output contract, logits additive in the two factors, and
``factor_head_from`` exact on a full head that is already additive (training venv only)."""

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
from model import CropNet, factor_head_from
torch.manual_seed(0)
net = CropNet(8, 8, (2, 4)).eval()
x = torch.rand(3, 3, 32, 32)
with torch.no_grad():
    out = net(x)
assert out.shape == (3, 32), out.shape
grid = out.view(3, 2, 4, 4)  # group x number x rotation
# additive: the difference between two numbers is the same in both groups
assert torch.allclose(grid[:, 0, 1] - grid[:, 0, 2], grid[:, 1, 1] - grid[:, 1, 2], atol=1e-5)
# a full head that is itself A_i + B_j is recovered exactly
a_w, b_w = torch.randn(2, 1, 4, 16), torch.randn(1, 4, 4, 16)
a_b, b_b = torch.randn(2, 1, 4), torch.randn(1, 4, 4)
full_w, full_b = (a_w + b_w).reshape(32, 16), (a_b + b_b).reshape(32)
parts = factor_head_from(full_w, full_b, (2, 4))
w = parts["head_a.weight"].view(2, 1, 4, 16) + parts["head_b.weight"].view(1, 4, 4, 16)
b = parts["head_a.bias"].view(2, 1, 4) + parts["head_b.bias"].view(1, 4, 4)
assert torch.allclose(w.reshape(32, 16), full_w, atol=1e-5)
assert torch.allclose(b.reshape(32), full_b, atol=1e-5)
try:
    CropNet(8, 8, (3, 3))
except ValueError as exc:
    assert "do not multiply" in str(exc)
else:
    raise AssertionError("3 x 3 factors accepted for 8 classes")
print("ok")
"""


def test_factorised_head_is_additive_and_keeps_the_contract() -> None:
    run = subprocess.run([str(TRAIN_PY), "-c", CHECK], capture_output=True, text=True,
                         cwd=REPO, timeout=300)  # fmt: skip
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.strip().endswith("ok")
