"""Torch parts of the crop-classifier training (training venv only):

* ``train/classifier/model.py``: the factorised head (``CropNet(..., factors=(a, b))``,
  ``train.py --factors``) — same output contract, logits additive in the two factors, and
  ``factor_head_from`` exact on a full head that is already additive;
* ``train/classifier/model.py`` ``stem_stride`` 1 (``train.py --stem-stride 1``): the same
  parameters as the default network (a checkpoint of either loads into the other) and
  the same output contract, with feature maps twice as wide;
* ``train/classifier/train.py --view``: the viewpoint/resolution randomisation
  (``reshape_view``) keeps shape and value range, is off at share 0, and never moves a
  glyph to another quarter of the crop (no mirror, no quarter turn: the crop's rotation
  index stays valid);
* ``train/classifier/train.py --motion``: the motion-blur smear (``motion_smear``) is a
  line kernel of the drawn length and direction, keeps a crop's light and is off at share 0;
* ``train/classifier/train.py --real-share``: how much of a batch comes from the real
  crops, and the bounds the option accepts;
* ``train/classifier/train.py --teacher``: the distillation term is zero when student and
  teacher agree, positive and shrinking as the student moves towards the teacher, and a
  saved checkpoint loads back as a frozen teacher giving its own outputs."""

from __future__ import annotations

import subprocess
from collections.abc import Callable

TrainPython = Callable[..., subprocess.CompletedProcess[str]]

FACTORS = r"""
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


STEM = r"""
import sys, torch
sys.path.insert(0, "train/classifier")
from model import CropNet
torch.manual_seed(0)
coarse, fine = CropNet(8, 8).eval(), CropNet(8, 8, stem_stride=1).eval()
assert {k: v.shape for k, v in coarse.state_dict().items()} == \
    {k: v.shape for k, v in fine.state_dict().items()}
fine.load_state_dict(coarse.state_dict())
x = torch.rand(2, 3, 32, 32)
with torch.no_grad():
    assert fine(x).shape == coarse(x).shape == (2, 32)
    assert fine.features(x).shape[-1] == 2 * coarse.features(x).shape[-1] == 4
    assert not torch.allclose(fine(x), coarse(x))
print("ok")
"""


VIEW = r"""
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
print("ok")
"""


MOTION = r"""
import math, sys, torch
sys.path.insert(0, "train/classifier")
from train import motion_kernels, motion_smear
# a kernel is a line of the asked length and direction, summing to 1
k = motion_kernels(torch.tensor([7.0, 1.0]), torch.tensor([0.0, math.pi / 2]), 13)
assert k.shape == (2, 13, 13) and torch.allclose(k.sum(dim=(1, 2)), torch.ones(2))
assert float(k[0, 6].sum()) > 0.99                      # horizontal: the middle row only
assert int((k[0, 6] > 0).sum()) in (7, 9), k[0, 6]      # 7 px (+ the soft ends)
assert float(k[1].max()) > 0.99                         # 1 px: (nearly) no smear
gen = torch.Generator().manual_seed(0)
x = torch.zeros(32, 3, 32, 32)
x[:, :, 15:17, 15:17] = 1.0                             # a dot in the middle
assert torch.equal(motion_smear(x, 0.0, gen), x)
y = motion_smear(x, 1.0, gen)
assert y.shape == x.shape and float(y.min()) >= 0.0 and float(y.max()) <= 1.0 + 1e-6
assert torch.allclose(y.sum(dim=(1, 2, 3)), x.sum(dim=(1, 2, 3)), atol=1e-3)  # light kept
spread = (y[:, 0] > 0.01).sum(dim=(1, 2))
assert int(spread.min()) > 4, spread                   # every crop smeared
rows = (y[:, 0] > 0.01).any(dim=2).sum(dim=1)
cols = (y[:, 0] > 0.01).any(dim=1).sum(dim=1)
assert bool(((rows - cols).abs() > 2).any())            # a direction, not a round blur
print("ok")
"""


SHARE = r"""
import argparse, sys
sys.path.insert(0, "train/classifier")
from train import _share, real_count
assert [real_count(128, s) for s in (0.0, 0.25, 0.5, 1.0)] == [0, 32, 64, 128]
assert real_count(5, 0.5) in (2, 3) and real_count(1, 0.4) == 0
assert _share("0.25") == 0.25
for bad in ("1.5", "-0.1", "half"):
    try:
        _share(bad)
    except argparse.ArgumentTypeError as exc:
        assert bad in str(exc)
    else:
        raise AssertionError(f"--real-share {bad} accepted")
print("ok")
"""


DISTILL = r"""
import sys, tempfile, pathlib, torch
sys.path.insert(0, "train/classifier")
from model import CropNet
from train import distill_loss, load_teacher
torch.manual_seed(0)
t = torch.randn(6, 172)
assert float(distill_loss(t, t)) < 1e-6
far, near = torch.randn(6, 172), t + 0.1 * torch.randn(6, 172)
assert float(distill_loss(far, t)) > float(distill_loss(near, t)) > 0
student = far.clone().requires_grad_(True)
opt = torch.optim.SGD([student], lr=100.0)
first = float(distill_loss(student, t).detach())
for _ in range(50):
    opt.zero_grad(); loss = distill_loss(student, t); loss.backward(); opt.step()
assert float(loss.detach()) < 0.2 * first, (first, float(loss.detach()))
net = CropNet(43, 8).eval()
with tempfile.TemporaryDirectory() as d:
    path = pathlib.Path(d) / "model.pt"
    torch.save({"model": net.state_dict(), "width": 8}, path)
    teacher, size = load_teacher(path, 43, 64)
assert size == 64 and not any(p.requires_grad for p in teacher.parameters())
x = torch.rand(2, 3, 32, 32)
with torch.no_grad():
    assert torch.allclose(teacher(x), net(x))
print("ok")
"""


#: a few steps of train.py on tiny crop files: the blur leg's options run end to end
BLUR_LEG = r"""
import json, pathlib, subprocess, sys, tempfile
import numpy as np, torch
sys.path.insert(0, "train/classifier")
from model import CropNet
rng = np.random.default_rng(0)
def crops(path, n, rot):  # fine checkerboards at random phases: what a smear wipes out
    yy, xx = np.mgrid[:32, :32]
    phase = rng.integers(0, 4, (n, 1, 1, 1))
    board = (((yy + phase) // 2 + (xx + phase) // 2) % 2 * 255).astype(np.uint8)
    np.savez(path, crops=np.repeat(board, 3, axis=1),
             classes=rng.integers(0, 43, n).astype(np.int16),
             rotations=np.full(n, rot, np.int8), synthetic=np.full(n, rot >= 0))
with tempfile.TemporaryDirectory() as d:
    d = pathlib.Path(d)
    crops(d / "real.npz", 40, -1); crops(d / "synth.npz", 40, 0)
    torch.manual_seed(0)
    torch.save({"model": CropNet(43, 8).state_dict(), "width": 8}, d / "teacher.pt")
    losses = {}
    for name, extra in (("still", ["--motion", "0"]), ("smeared", ["--motion", "1"])):
        run = subprocess.run([sys.executable, "train/classifier/train.py",
            "--real", str(d / "real.npz"), "--synth", str(d / "synth.npz"),
            "--out", str(d / name), "--width", "8", "--batch", "16", "--steps", "3",
            "--eval-every", "1", "--lr", "0", "--init", str(d / "teacher.pt"),
            "--teacher", str(d / "teacher.pt"), "--teacher-size", "32", "--teacher-clean",
            "--distill-only", "--motion-px", "3", "9", "--threads", "1", *extra],
            capture_output=True, text=True)
        assert run.returncode == 0, run.stderr[-1500:]
        assert (d / name / "model.pt").is_file()
        log = (d / name / "log.jsonl").read_text().splitlines()
        losses[name] = [json.loads(r)["loss"] for r in log]
        assert all(0 <= v < 100 for v in losses[name]), losses
        # lr 0: the saved student keeps the teacher's weights (the options only steer the loss)
        saved = torch.load(d / name / "model.pt")["model"]
        start = torch.load(d / "teacher.pt")["model"]
        assert all(torch.equal(saved[k], v) for k, v in start.items() if k.endswith("weight"))
print("ok")
"""


def _check(train_python: TrainPython, code: str) -> None:
    run = train_python(code)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.strip().endswith("ok")


def test_factorised_head_is_additive_and_keeps_the_contract(train_python: TrainPython) -> None:
    _check(train_python, FACTORS)


def test_a_full_side_stem_keeps_the_parameters_and_the_contract(
    train_python: TrainPython,
) -> None:
    _check(train_python, STEM)


def test_view_randomisation_keeps_the_glyph_where_it_is(train_python: TrainPython) -> None:
    _check(train_python, VIEW)


def test_motion_smear_is_a_straight_smear_that_keeps_the_light(
    train_python: TrainPython,
) -> None:
    """``train.py --motion``: kernels are lines of the drawn length and direction; a share
    0 changes nothing; a smeared crop keeps its light and is spread along one direction."""
    _check(train_python, MOTION)


def test_the_blur_legs_options_run_end_to_end(
    train_python: TrainPython,
) -> None:
    """``train.py --motion --teacher-clean --distill-only``: a few steps end to end, with and
    without the smear; the loss is finite and, at a learning rate of 0, the saved network
    is the teacher it started from."""
    _check(train_python, BLUR_LEG)


def test_real_share_sets_the_real_part_of_each_batch(train_python: TrainPython) -> None:
    _check(train_python, SHARE)


def test_distillation_keeps_the_student_near_its_teacher(train_python: TrainPython) -> None:
    _check(train_python, DISTILL)
