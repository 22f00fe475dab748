"""``train/average.py``: the weight average of two detector checkpoints (training venv).

Two small YOLO11n networks with different random weights are saved as ultralytics-style
checkpoints; the average must hold ``(1 - w) * A + w * B`` in every float tensor, B's
integer counters, load back as a model, take an epoch checkpoint's EMA (its model is
None), and refuse networks that differ or a weight outside 0..1."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

CODE = r"""
import sys, torch
sys.path.insert(0, "train")
from pathlib import Path
from average import average
from ultralytics.nn.tasks import DetectionModel
out = Path(sys.argv[1])
def saved(name, nc, seed):
    torch.manual_seed(seed)
    m = DetectionModel("yolo11n.yaml", nc=nc, verbose=False)
    with torch.no_grad():
        for p in m.parameters():
            p.normal_()
        for b in m.buffers():
            if b.is_floating_point():
                b.uniform_(0.5, 1.5)
            else:
                b.fill_(seed)
    torch.save({"model": m.half(), "ema": None, "epoch": seed}, out / name)
    return {k: v.float() if v.is_floating_point() else v for k, v in m.state_dict().items()}
a, b = saved("a.pt", 2, 1), saved("b.pt", 2, 2)
average(out / "a.pt", out / "b.pt", 0.25, out / "ab.pt")
got = torch.load(out / "ab.pt", map_location="cpu", weights_only=False)
assert got["ema"] is None and got["optimizer"] is None and got["epoch"] == 2
state = got["model"].float().state_dict()
floats = [k for k in a if a[k].is_floating_point()]
ints = [k for k in a if not a[k].is_floating_point()]
assert floats and ints
for k in floats:
    want = 0.75 * a[k] + 0.25 * b[k]
    assert torch.allclose(state[k], want, rtol=2e-3, atol=2e-3), k
for k in ints:
    assert torch.equal(state[k], b[k]), k
saved("c.pt", 3, 3)
try:
    average(out / "a.pt", out / "c.pt", 0.5, out / "ac.pt")
    raise SystemExit("a network with another class count was averaged")
except ValueError as exc:
    assert "not the same network" in str(exc), exc
# an epoch checkpoint of ultralytics' save_period stores the EMA and no model
torch.save({"model": None, "ema": torch.load(out / "b.pt", weights_only=False)["model"]},
           out / "epoch.pt")
average(out / "a.pt", out / "epoch.pt", 0.25, out / "ae.pt")
state = torch.load(out / "ae.pt", weights_only=False)["model"].float().state_dict()
assert all(torch.allclose(state[k], 0.75 * a[k] + 0.25 * b[k], rtol=2e-3, atol=2e-3)
           for k in floats)
try:
    average(out / "a.pt", out / "b.pt", 1.5, out / "x.pt")
    raise SystemExit("a weight above 1 was accepted")
except ValueError as exc:
    assert "between 0 and 1" in str(exc), exc
print("ok")
"""


def test_average_mixes_float_tensors_and_keeps_counters(
    tmp_path: Path, train_python: Callable[..., subprocess.CompletedProcess[str]]
) -> None:
    run = train_python(CODE, str(tmp_path))
    assert run.returncode == 0, run.stderr[-2000:] + run.stdout[-500:]
    assert run.stdout.strip().endswith("ok")
