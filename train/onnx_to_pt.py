"""Rebuild a trainable ultralytics checkpoint from an exported tilecam detector (ONNX).

Training checkpoints (``runs/*/weights/last.pt``) are git-ignored and do not outlive the
machine that wrote them; the shipped ``models/tilecam-tiles-yolo11n.onnx`` does. Its
initializers keep ultralytics' parameter names (``model.0.conv.weight`` …), with every
batch norm folded into the convolution before it (``W' = W·γ/σ``, ``b' = β − μ·γ/σ``).
This builds ``yolo11n.yaml`` with the ONNX model's class count, copies each folded
convolution into its ``Conv`` and gives the batch norm after it an identity that only adds
the folded bias (γ = 1, β = b', μ = 0, σ² = 1 − ε), so the network computes the same
function. That holds for inference only: in training a batch norm divides by the *batch*
statistics, so an identity one would rescale every layer at the first step. With
``--calib`` (images; default the hk training photos, 32 of them, letterboxed to 512 as
``vision.detect`` does) each batch norm is then refitted to the statistics of its
convolution's output on those images (per channel mean m and variance v: μ = m, σ² = v,
γ = √(v + ε), β = m + b'), which leaves inference unchanged and makes a training step
with batches like them start from the same function (``--no-calib`` keeps the
identities). Plain convolutions with a bias (the head's last 1×1 layers) and the DFL
weights are copied as they are. Every ``model.*`` initializer must land on a parameter of
the same shape and every parameter must be set, or the tool stops and names what is
wrong. The check at the end runs both on one random ``[1, 3, 384, 512]`` input and prints
the largest difference of the raw outputs (boxes in input pixels, class scores 0..1).

usage: .venv-train/bin/python train/onnx_to_pt.py models/tilecam-tiles-yolo11n.onnx OUT.pt
           [--calib datasets/build/hk-photos/images/train] [--images 32] [--no-calib]

Needs the training venv (torch, ultralytics, onnx, onnxruntime). The class names come
from the ONNX metadata (``names``), as ultralytics' export writes them.
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

#: Folded weights differ from the unfolded network's by float rounding only; a larger
#: difference means a layer was mapped wrongly.
TOLERANCE = 1e-2
#: Default calibration images: the hk training photos (never the val split).
CALIB = Path(__file__).resolve().parents[1] / "datasets/build/hk-photos/images/train"


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


def refit_batch_norms(model: Any, batches: list[Any], pairs: list[Any] | None = None) -> int:
    """Refit batch norms to their convolution's output statistics on ``batches`` (input
    tensors), keeping the eval-mode function; returns how many.

    ``pairs``: ``(conv, batch norm)`` modules, each norm right after its convolution and
    holding the folded bias as an identity; default every ultralytics ``Conv`` block
    (a module with ``.conv`` and ``.bn``) of ``model``.
    """
    import torch

    stats: dict[Any, list[Any]] = {}

    def hook(module: Any, _inp: Any, out: Any) -> None:
        y = out.detach().double()
        stats.setdefault(module, []).append(
            (y.sum((0, 2, 3)), (y * y).sum((0, 2, 3)), y.numel() / y.shape[1])
        )

    if pairs is None:
        pairs = [(m.conv, m.bn) for m in model.modules() if hasattr(m, "conv") and hasattr(m, "bn")]
    handles = [conv.register_forward_hook(hook) for conv, _ in pairs]
    model.eval()
    with torch.no_grad():
        for x in batches:
            model(x)
    for h in handles:
        h.remove()
    for conv, bn in pairs:
        s1 = sum(t[0] for t in stats[conv])
        s2 = sum(t[1] for t in stats[conv])
        n = sum(t[2] for t in stats[conv])
        mean = s1 / n
        var = (s2 / n - mean * mean).clamp_min(0.0)
        bias = bn.bias.detach().double()  # the folded bias b' (identity norm so far)
        bn.running_mean.copy_(mean.float())
        bn.running_var.copy_(var.float())
        bn.weight.data.copy_(torch.sqrt(var + bn.eps).float())
        bn.bias.data.copy_((mean + bias).float())
    return len(pairs)


def _calibration_batches(folder: Path, count: int, size: int) -> list[Any]:
    """Up to ``count`` images of ``folder`` (sorted, evenly spread), letterboxed to ``size``."""
    import cv2
    import torch

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from vision.evaluate import IMAGE_SUFFIXES
    from vision.preprocess import prepare_input

    files = sorted(p for p in folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
    step = max(1, len(files) // max(count, 1))
    out = []
    for f in files[::step][:count]:
        img = cv2.imread(str(f), cv2.IMREAD_COLOR)
        if img is not None:
            out.append(torch.from_numpy(prepare_input(img, size)[0]))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("onnx", type=Path, help="ultralytics ONNX export (tilecam detector)")
    ap.add_argument("out", type=Path, help="checkpoint to write (.pt)")
    ap.add_argument("--yaml", default="yolo11n.yaml", help="architecture (default yolo11n.yaml)")
    ap.add_argument("--calib", type=Path, default=CALIB, help="images for the batch norms")
    ap.add_argument("--images", type=int, default=32, help="calibration images (default 32)")
    ap.add_argument("--no-calib", action="store_true", help="keep identity batch norms")
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
    refitted = 0
    if not args.no_calib:
        if not args.calib.is_dir():
            sys.exit(f"{args.calib}: no calibration images (give --calib DIR or --no-calib)")
        batches = _calibration_batches(args.calib, args.images, 512)
        if not batches:
            sys.exit(f"{args.calib}: no readable images")
        refitted = refit_batch_norms(model, batches)
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

    drift = _train_mode_drift(model, batches[:8]) if refitted else float("nan")
    yolo = YOLO(args.yaml)
    yolo.model = model
    yolo.ckpt = {"model": model, "train_args": {}}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    yolo.save(str(args.out))
    print(
        f"{args.out}: {len(mapped)} tensors from {len(weights)} initializers, "
        f"{len(names)} classes; max output difference vs ONNX {diff:.2e}; "
        + (
            f"{refitted} batch norms refitted on {len(batches)} images of {args.calib} "
            f"(confident anchors' best score with batch statistics: mean change {drift:.3f})"
            if refitted
            else "identity batch norms"
        )
    )


def _train_mode_drift(model: Any, batches: list[Any]) -> float:
    """How far batch statistics move the detections: over ``batches`` run as one batch,
    the mean absolute change of each confident anchor's best class score (anchors scoring
    > 0.3 in eval mode) when the batch norms use the batch's statistics (training mode).
    The model is left in eval mode and its running statistics untouched. Identity batch
    norms give about 0.7 here on four hk photos (the detections vanish), refitted ones
    about 0.2."""
    import torch

    x = torch.cat(batches) if len({tuple(b.shape) for b in batches}) == 1 else batches[0]
    saved = {k: v.clone() for k, v in model.state_dict().items()}
    with torch.no_grad():
        model.eval()
        want = model(x)
        want = (want[0] if isinstance(want, (list, tuple)) else want)[:, 4:].amax(1)
        for m in model.modules():  # batch statistics, the head still decoding
            if isinstance(m, torch.nn.BatchNorm2d):
                m.train()
        got = model(x)
        got = (got[0] if isinstance(got, (list, tuple)) else got)[:, 4:].amax(1)
        model.eval()
    model.load_state_dict(saved)
    confident = want > 0.3
    return float((got - want).abs()[confident].mean()) if bool(confident.any()) else float("nan")


if __name__ == "__main__":
    main()
