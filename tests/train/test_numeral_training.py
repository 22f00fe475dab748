"""The numeral reader's training script (train/classifier/train_numeral.py; training venv
only): a few steps on a tiny strips file write a checkpoint whose ONNX export gives five
logits per strip, equal to torch's, and the augmentation never turns or mirrors a strip
(the numeral stays in its corner)."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import numpy as np

TrainPython = Callable[..., subprocess.CompletedProcess[str]]

RUN = r"""
import subprocess, sys
import numpy as np
out = sys.argv[1]
rng = np.random.default_rng(0)
strips = rng.integers(0, 255, (40, 3, 48, 80), dtype=np.uint8)
np.savez(out + "/s.npz", strips=strips, labels=(np.arange(40) % 5).astype(np.int8),
         classes=np.zeros(40, np.int16), upright=np.ones(40, bool), images=np.array(["x"] * 40))
py = sys.executable
script = "train/classifier/train_numeral.py"
subprocess.run([py, script, "--train", out + "/s.npz", "--val", out + "/s.npz", "--out",
                out + "/run", "--steps", "3", "--eval-every", "3", "--batch", "8",
                "--width", "4"], check=True)
subprocess.run([py, script, "--export", out + "/run/model.pt", "--onnx", out + "/n.onnx"],
               check=True)
sys.path.insert(0, "train/classifier")
import torch
from train_numeral import augment
x = torch.zeros(6, 3, 48, 80)
x[:, :, 2:12, 2:20] = 1.0  # a bright mark in the top-left corner
y = augment(x, torch.Generator().manual_seed(1))
assert y.shape == x.shape and 0 <= float(y.min()) and float(y.max()) <= 1
left, right = y[:, :, :24, :40].mean(dim=(1, 2, 3)), y[:, :, :24, 40:].mean(dim=(1, 2, 3))
assert bool((left > right).all()), (left, right)
print("ok")
"""


def test_a_few_steps_train_export_and_keep_strips_upright(
    train_python: TrainPython, tmp_path: Path
) -> None:
    run = train_python(RUN, str(tmp_path))
    assert run.returncode == 0 and "ok" in run.stdout, run.stderr[-2000:]
    import onnxruntime as ort

    sess = ort.InferenceSession(str(tmp_path / "n.onnx"), providers=["CPUExecutionProvider"])
    got = sess.run(None, {"input": np.zeros((3, 3, 48, 80), np.float32)})[0]
    assert got.shape == (3, 5)
    assert (tmp_path / "run" / "log.jsonl").read_text().count("\n") == 1
