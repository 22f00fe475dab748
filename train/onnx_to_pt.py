"""Rebuild a trainable ultralytics checkpoint from an exported tilecam detector (ONNX).

Training checkpoints (``runs/*/weights/last.pt``) are git-ignored and do not outlive the
machine that wrote them; the shipped ``models/tilecam-tiles-yolo11n.onnx`` does. Its
initializers keep ultralytics' parameter names (``model.0.conv.weight`` …), with every
batch norm folded into the convolution before it (``W' = W·γ/σ``, ``b' = β − μ·γ/σ``).
This builds ``yolo11n.yaml`` with the ONNX model's class count, copies each folded
convolution into its ``Conv`` and gives the batch norm after it an identity that only adds
the folded bias (γ = 1, β = b', μ = 0, σ² = 1 − ε), so the network computes the same
function and trains on from there (the batch norms relearn their statistics in the
first epochs). Plain convolutions with a bias (the head's last 1×1 layers) and the DFL
weights are copied as they are. Every ``model.*`` initializer must land on a parameter
of the same shape and every parameter must be set, or the tool stops and names what is
wrong. The check at the end runs both on one random ``[1, 3, 384, 512]`` input and prints
the largest difference of the raw outputs (boxes in input pixels, class scores 0..1).

usage: .venv-train/bin/python train/onnx_to_pt.py models/tilecam-tiles-yolo11n.onnx OUT.pt

Needs the training venv (torch, ultralytics, onnx, onnxruntime). The class names come
from the ONNX metadata (``names``), as ultralytics' export writes them.
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path

import numpy as np
import numpy.typing as npt

#: Folded weights differ from the unfolded network's by float rounding only; a larger
#: difference means a layer was mapped wrongly.
TOLERANCE = 1e-2


def read_onnx(path: Path) -> tuple[dict[str, npt.NDArray[np.float32]], dict[int, str]]:
    """``({initializer name: array}, {class id: name})`` of an ultralytics ONNX export.

    Only initializers named after model parameters (``model.…``) are returned.
    """
    import onnx
    from onnx import numpy_helper

    proto = onnx.load(str(path))
    weights = {
        t.name: numpy_helper.to_array(t).astype(np.float32)
        for t in proto.graph.initializer
        if t.name.startswith("model.")
    }
    meta = {p.key: p.value for p in proto.metadata_props}
    if "names" not in meta:
        raise ValueError(f"{path}: no 'names' in the ONNX metadata (not an ultralytics export?)")
    names = {int(k): str(v) for k, v in ast.literal_eval(meta["names"]).items()}
    return weights, names


def unfold(
    weights: dict[str, npt.NDArray[np.float32]], state: dict[str, tuple[int, ...]], eps: float
) -> dict[str, npt.NDArray[np.float32]]:
    """Map folded ONNX weights onto an unfolded state dict's keys.

    ``state`` gives each parameter/buffer's shape. A folded ``P.conv.weight`` /
    ``P.conv.bias`` pair becomes ``P.conv.weight`` plus an identity batch norm ``P.bn.*``
    carrying the bias; any other initializer is copied to the key of the same name.
    Raises ``ValueError`` naming unused initializers, shape mismatches and parameters left
    unset (``num_batches_tracked`` counters excepted).

    >>> w = {"model.0.conv.weight": np.ones((2, 1, 1, 1), np.float32),
    ...      "model.0.conv.bias": np.array([0.5, -1.0], np.float32)}
    >>> s = {"model.0.conv.weight": (2, 1, 1, 1), "model.0.bn.weight": (2,),
    ...      "model.0.bn.bias": (2,), "model.0.bn.running_mean": (2,),
    ...      "model.0.bn.running_var": (2,), "model.0.bn.num_batches_tracked": ()}
    >>> out = unfold(w, s, eps=0.001)
    >>> out["model.0.bn.bias"].tolist(), out["model.0.bn.running_var"].tolist()
    ([0.5, -1.0], [0.9990000128746033, 0.9990000128746033])
    """
    out: dict[str, npt.NDArray[np.float32]] = {}
    problems: list[str] = []
    for name, value in weights.items():
        prefix, _, leaf = name.rpartition(".conv.")
        if leaf == "bias" and f"{prefix}.bn.weight" in state:
            n = value.shape[0]
            out[f"{prefix}.bn.weight"] = np.ones(n, np.float32)
            out[f"{prefix}.bn.bias"] = value
            out[f"{prefix}.bn.running_mean"] = np.zeros(n, np.float32)
            out[f"{prefix}.bn.running_var"] = np.full(n, 1.0 - eps, np.float32)
            continue
        if name not in state:
            problems.append(f"initializer {name} {tuple(value.shape)} matches no parameter")
            continue
        out[name] = value
    for key, value in out.items():
        if key not in state or tuple(value.shape) != tuple(state[key]):
            problems.append(f"{key}: ONNX {tuple(value.shape)} vs model {state.get(key)}")
    unset = [k for k in state if k not in out and not k.endswith("num_batches_tracked")]
    problems += [f"parameter {k} {state[k]} has no initializer" for k in unset]
    if problems:
        raise ValueError("; ".join(problems[:8]) + (" …" if len(problems) > 8 else ""))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("onnx", type=Path, help="ultralytics ONNX export (tilecam detector)")
    ap.add_argument("out", type=Path, help="checkpoint to write (.pt)")
    ap.add_argument("--yaml", default="yolo11n.yaml", help="architecture (default yolo11n.yaml)")
    args = ap.parse_args()

    import onnxruntime as ort
    import torch
    from ultralytics import YOLO
    from ultralytics.nn.tasks import DetectionModel

    try:
        weights, names = read_onnx(args.onnx)
    except (OSError, ValueError) as exc:
        sys.exit(f"{args.onnx}: {exc}")
    model = DetectionModel(args.yaml, nc=len(names), verbose=False)
    eps = {m.eps for m in model.modules() if isinstance(m, torch.nn.BatchNorm2d)}
    if len(eps) != 1:
        sys.exit(f"{args.yaml}: batch norms with different eps {sorted(eps)}")
    state = model.state_dict()
    try:
        mapped = unfold(weights, {k: tuple(v.shape) for k, v in state.items()}, eps.pop())
    except ValueError as exc:
        sys.exit(f"{args.onnx} does not fit {args.yaml} with nc={len(names)}: {exc}")
    for key, value in mapped.items():
        state[key] = torch.from_numpy(value).to(state[key].dtype)
    model.load_state_dict(state)
    model.names = names
    model.eval()

    x = np.random.default_rng(0).random((1, 3, 384, 512), dtype=np.float32)
    session = ort.InferenceSession(str(args.onnx), providers=["CPUExecutionProvider"])
    want = session.run(None, {session.get_inputs()[0].name: x})[0]
    with torch.no_grad():
        got = model(torch.from_numpy(x))
    got = (got[0] if isinstance(got, (list, tuple)) else got).numpy()
    if got.shape != want.shape:
        sys.exit(f"output shapes differ: PyTorch {got.shape} vs ONNX {want.shape}")
    diff = float(np.abs(got - want).max())
    if diff > TOLERANCE:
        sys.exit(f"outputs differ by {diff:.3g} (> {TOLERANCE}): a layer was mapped wrongly")

    yolo = YOLO(args.yaml)
    yolo.model = model
    yolo.ckpt = {"model": model, "train_args": {}}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    yolo.save(str(args.out))
    print(
        f"{args.out}: {len(mapped)} tensors from {len(weights)} initializers, "
        f"{len(names)} classes; max output difference vs ONNX {diff:.2e}"
    )


if __name__ == "__main__":
    main()
