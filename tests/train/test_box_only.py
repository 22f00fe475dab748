"""``train/train.py --box-only`` / ``--class-only``: a fine-tune that moves only the
detector head's box branch (``model.23.cv2``) or only its class branch (``model.23.cv3``)
— the other branch, backbone, neck and their BatchNorm statistics stay bit for bit
(training venv; a tiny network and data, a few CPU steps)."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

CODE = r"""
import subprocess, sys, torch
import cv2, numpy as np
from pathlib import Path
from ultralytics.nn.tasks import DetectionModel
out, flag, branch = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
torch.manual_seed(0)
m = DetectionModel("yolo11n.yaml", nc=2, verbose=False)
m.names = {0: "a", 1: "b"}
torch.save({"model": m.half(), "ema": None, "epoch": -1, "train_args": {}}, out / "start.pt")
rng = np.random.default_rng(0)
for split in ("images", "labels"):
    (out / "data" / split).mkdir(parents=True)
for i in range(8):
    img = np.full((64, 64, 3), 90, np.uint8)
    x = int(rng.integers(8, 40))
    cv2.rectangle(img, (x, 16), (x + 16, 40), (240, 240, 240), -1)
    cv2.imwrite(str(out / "data" / "images" / f"{i}.png"), img)
    (out / "data" / "labels" / f"{i}.txt").write_text(f"{i % 2} {(x + 8) / 64} 0.44 0.25 0.375\n")
yaml = f"path: {out / 'data'}\ntrain: images\nval: images\nnc: 2\nnames: ['a', 'b']\n"
(out / "data.yaml").write_text(yaml)
run = subprocess.run([sys.executable, "train/train.py", "--model", str(out / "start.pt"),
    "--data", str(out / "data.yaml"), "--epochs", "2", "--imgsz", "64", "--batch", "2",
    "--workers", "0", "--cache", "none", "--lr0", "0.01", "--warmup", "0", "--mosaic", "0",
    "--close-mosaic", "0", "--no-val", "--save-period", "-1", "--threads", "1",
    "--project", str(out / "runs"), "--name", "t", flag], capture_output=True, text=True)
assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
def state(path):
    ck = torch.load(path, map_location="cpu", weights_only=False)
    return {k: v.float() for k, v in (ck.get("ema") or ck["model"]).state_dict().items()
            if v.is_floating_point()}
a, b = state(out / "start.pt"), state(out / "runs" / "t" / "weights" / "last.pt")
assert a.keys() == b.keys()
moved = {k for k in a if not torch.equal(a[k], b[k])}
trained = {k for k in a if k.startswith(f"model.23.{branch}.")}
assert moved and moved <= trained, sorted(moved - trained)[:5]
assert any(k.endswith(".weight") and "conv" in k for k in moved), sorted(moved)[:5]
print("ok")
"""


@pytest.mark.parametrize(("flag", "branch"), [("--box-only", "cv2"), ("--class-only", "cv3")])
def test_one_head_branch_moves_alone(
    train_python: Callable[..., subprocess.CompletedProcess[str]], tmp_path: Path,
    flag: str, branch: str,
) -> None:
    run = train_python(CODE, str(tmp_path), flag, branch)
    assert run.returncode == 0 and run.stdout.strip().endswith("ok"), run.stdout + run.stderr
