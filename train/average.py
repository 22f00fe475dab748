"""Weight average of two ultralytics detector checkpoints of the same network.

``OUT = (1 - a) * A + a * B`` over every floating-point tensor of the two models' state
(weights, biases and batch-norm running statistics); integer tensors (batch-norm step
counters) are taken from B. The model of each checkpoint is its EMA when one is stored,
else its ``model``. OUT is a plain checkpoint (no optimizer, no EMA) that
``ultralytics.YOLO`` loads for export or further training. Averaging a fine-tuned
detector with the one it started from keeps part of each one's gains (model card recipe
step 36: 0.7 × stage F + 0.3 × stage M is model 2026-11-30.23's detector).

usage: .venv-train/bin/python train/average.py A.pt B.pt --weight 0.3 --out OUT.pt
"""

from __future__ import annotations

import argparse
import copy
from pathlib import Path
from typing import Any


def _model(path: Path) -> tuple[dict[str, Any], Any]:
    import torch

    ckpt = torch.load(path, map_location="cpu", weights_only=False)
    if not isinstance(ckpt, dict) or (ckpt.get("model") is None and ckpt.get("ema") is None):
        raise ValueError(f"{path}: not an ultralytics checkpoint (no 'model' or 'ema')")
    model = ckpt.get("ema") or ckpt["model"]
    return ckpt, model.float()


def average(a_path: Path, b_path: Path, weight: float, out: Path) -> None:
    """Write ``(1 - weight) * A + weight * B`` to ``out`` (see the module docstring)."""
    import torch

    if not 0.0 <= weight <= 1.0:
        raise ValueError(f"--weight must be between 0 and 1, got {weight}")
    _, model_a = _model(a_path)
    ckpt_b, model_b = _model(b_path)
    state_a, state_b = model_a.state_dict(), model_b.state_dict()
    if state_a.keys() != state_b.keys() or any(
        state_a[k].shape != state_b[k].shape for k in state_a
    ):
        raise ValueError(f"{a_path} and {b_path} are not the same network")
    mixed = {
        k: (1.0 - weight) * state_a[k] + weight * state_b[k]
        if state_b[k].is_floating_point()
        else state_b[k]
        for k in state_b
    }
    model = copy.deepcopy(model_b)
    model.load_state_dict(mixed)
    keep = {k: v for k, v in ckpt_b.items() if k not in ("optimizer", "ema", "updates")}
    keep.update(model=model.half(), ema=None, optimizer=None)
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.save(keep, out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("a", type=Path, help="first checkpoint (weight 1 - w)")
    ap.add_argument("b", type=Path, help="second checkpoint (weight w)")
    ap.add_argument("--weight", type=float, required=True, help="w, the share of B (0..1)")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    average(args.a, args.b, args.weight, args.out)
    print(f"wrote {args.out}: {1 - args.weight:g} x {args.a} + {args.weight:g} x {args.b}")


if __name__ == "__main__":
    main()
