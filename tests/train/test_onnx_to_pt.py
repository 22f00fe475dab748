"""``train/onnx_to_pt.py``: folded ONNX weights mapped back onto an unfolded YOLO model.

The mapping itself is plain numpy and always tested; the round trip through ultralytics
(build ``yolo11n.yaml``, load the shipped detector, compare outputs) needs the training
venv and skips without it.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[2]
EPS = 1e-3


@pytest.fixture(scope="module")
def tool(train_module: Callable[[str], ModuleType]) -> ModuleType:
    return train_module("onnx_to_pt")


def _conv_state(prefix: str, out_ch: int, in_ch: int) -> dict[str, tuple[int, ...]]:
    """Shapes of an ultralytics ``Conv`` (conv without bias + batch norm)."""
    return {
        f"{prefix}.conv.weight": (out_ch, in_ch, 1, 1),
        f"{prefix}.bn.weight": (out_ch,),
        f"{prefix}.bn.bias": (out_ch,),
        f"{prefix}.bn.running_mean": (out_ch,),
        f"{prefix}.bn.running_var": (out_ch,),
        f"{prefix}.bn.num_batches_tracked": (),
    }


def test_folded_conv_gets_an_identity_batch_norm_that_adds_the_bias(tool: ModuleType) -> None:
    rng = np.random.default_rng(0)
    w = rng.normal(size=(3, 2, 1, 1)).astype(np.float32)
    b = rng.normal(size=3).astype(np.float32)
    out = tool.unfold({"model.0.conv.weight": w, "model.0.conv.bias": b},
                      _conv_state("model.0", 3, 2), EPS)  # fmt: skip
    x = rng.normal(size=(2, 5)).astype(np.float32)  # 2 input channels, 5 pixels
    folded = np.einsum("oi,ip->op", w[:, :, 0, 0], x) + b[:, None]
    y = np.einsum("oi,ip->op", out["model.0.conv.weight"][:, :, 0, 0], x)
    gamma, beta = out["model.0.bn.weight"], out["model.0.bn.bias"]
    mean, var = out["model.0.bn.running_mean"], out["model.0.bn.running_var"]
    unfolded = (y - mean[:, None]) / np.sqrt(var[:, None] + EPS) * gamma[:, None] + beta[:, None]
    np.testing.assert_allclose(unfolded, folded, rtol=1e-5, atol=1e-5)


def test_plain_conv_with_bias_is_copied(tool: ModuleType) -> None:
    """The Detect head's last 1×1 layers have their own bias and no batch norm."""
    w = np.ones((4, 2, 1, 1), np.float32)
    b = np.arange(4, dtype=np.float32)
    state = {"model.23.cv3.0.2.weight": (4, 2, 1, 1), "model.23.cv3.0.2.bias": (4,)}
    out = tool.unfold({"model.23.cv3.0.2.weight": w, "model.23.cv3.0.2.bias": b}, state, EPS)
    assert out["model.23.cv3.0.2.bias"].tolist() == [0.0, 1.0, 2.0, 3.0]


def test_unused_initializer_is_an_error(tool: ModuleType) -> None:
    state = _conv_state("model.0", 2, 1)
    weights = {
        "model.0.conv.weight": np.ones((2, 1, 1, 1), np.float32),
        "model.0.conv.bias": np.zeros(2, np.float32),
        "model.9.extra.weight": np.ones(3, np.float32),
    }
    with pytest.raises(ValueError, match=r"model\.9\.extra\.weight .* matches no parameter"):
        tool.unfold(weights, state, EPS)


def test_shape_mismatch_names_both_shapes(tool: ModuleType) -> None:
    """A detector with another class count does not fit the architecture built."""
    state = {"model.23.cv3.0.2.weight": (43, 2, 1, 1), "model.23.cv3.0.2.bias": (43,)}
    weights = {"model.23.cv3.0.2.weight": np.ones((34, 2, 1, 1), np.float32),
               "model.23.cv3.0.2.bias": np.ones(34, np.float32)}  # fmt: skip
    with pytest.raises(ValueError, match=r"ONNX \(34, 2, 1, 1\) vs model \(43, 2, 1, 1\)"):
        tool.unfold(weights, state, EPS)


def test_parameter_without_initializer_is_an_error(tool: ModuleType) -> None:
    state = {**_conv_state("model.0", 2, 1), **_conv_state("model.1", 2, 2)}
    weights = {"model.0.conv.weight": np.ones((2, 1, 1, 1), np.float32),
               "model.0.conv.bias": np.zeros(2, np.float32)}  # fmt: skip
    with pytest.raises(ValueError, match=r"parameter model\.1\.conv\.weight .* no initializer"):
        tool.unfold(weights, state, EPS)


TrainPython = Callable[..., subprocess.CompletedProcess[str]]


def test_refitted_batch_norms_keep_inference_and_survive_batch_statistics(
    train_python: TrainPython,
) -> None:
    """A conv + identity batch norm (a folded layer) is refitted to its output statistics:
    eval output unchanged, and with batch statistics (training mode) the same output on
    the calibration batch — where the identity norm would rescale it."""
    code = """
import sys, torch
sys.path.insert(0, 'train')
from onnx_to_pt import refit_batch_norms
torch.manual_seed(0)
class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3, padding=1, bias=False)
        self.bn = torch.nn.BatchNorm2d(4)
    def forward(self, x):
        return self.bn(self.conv(x))
m = Block()
with torch.no_grad():
    m.bn.weight.fill_(1.0); m.bn.bias.copy_(torch.tensor([0.5, -1.0, 2.0, 0.0]))
    m.bn.running_mean.zero_(); m.bn.running_var.fill_(1.0 - m.bn.eps)
x = torch.rand(8, 3, 16, 16) * 3 + 1
m.eval()
with torch.no_grad():
    want = m(x)
    m.train(); identity_train = m(x); m.eval()
    m.load_state_dict(m.state_dict())
print(refit_batch_norms(m, [x[i:i + 1] for i in range(8)]))
with torch.no_grad():
    m.eval(); after_eval = m(x)
    m.train(); after_train = m(x); m.eval()
print(float((after_eval - want).abs().max()), float((after_train - want).abs().max()),
      float((identity_train - want).abs().max()))
"""
    run = train_python(code)
    assert run.returncode == 0, run.stderr[-2000:]
    count, eval_diff, train_diff, identity_diff = run.stdout.split()
    assert count == "1"
    assert float(eval_diff) < 1e-4 and float(train_diff) < 1e-3
    assert float(identity_diff) > 0.5  # why the refit is needed


def test_shipped_detector_round_trips(tmp_path: Path, train_python: TrainPython) -> None:
    """The shipped detector becomes a checkpoint whose outputs match the ONNX model."""
    out = tmp_path / "det.pt"
    code = f"""
import sys
sys.argv = ['onnx_to_pt.py', 'models/tilecam-tiles-yolo11n.onnx', {str(out)!r}, '--no-calib']
sys.path.insert(0, 'train')
import onnx_to_pt
onnx_to_pt.main()
"""
    run = train_python(code)
    assert run.returncode == 0, run.stderr[-2000:]
    assert out.exists() and "43 classes" in run.stdout and "identity batch norms" in run.stdout
