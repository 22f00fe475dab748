"""Rebuild a trainable crop-classifier checkpoint from a shipped classifier or reader ONNX.

``train/classifier/train.py`` writes ``model.pt``/``last.pt`` under ``runs/``, which does
not outlive the machine; ``models/tiles-cls.onnx`` and the readers do. torch's export
folds each batch norm into the convolution before it, so the ONNX graph is the
:class:`CropNet` with plain biased convolutions. This maps them back in graph order
(the network's width is the first convolution's channel count, the class count the
head's rows / 4), gives each batch norm the folded bias as an identity, then refits the
norms to their convolution's output statistics on real crops (``--photos``, the hk
training split by default, cut by the serving cropper at the model's input size), as
``train/onnx_to_pt.py`` does for the detector: inference unchanged, and training in
batch-statistics mode starts from the same function. The outputs are compared with
onnxruntime's on those crops (the tool stops above 1e-3).

usage: .venv-train/bin/python train/classifier/from_onnx.py models/tiles-cls.onnx OUT.pt
           [--names 1f,2f,...] [--photos datasets/build/hk-photos] [--crops 512]

``OUT.pt`` is what ``train.py --init`` (and ``export.py``) read: ``model`` (state dict),
``width``, ``n_classes``, ``names``. ``--names``: the codes of a reader's head, in order
(its manifest entry's ``names``); default the 43 classes for a 43-class classifier.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "train"))
sys.path.insert(0, str(REPO / "train" / "classifier"))


def read_layers(path: Path) -> dict[str, Any]:
    """The classifier's tensors from its ONNX graph: ``convs`` (list of ``(weight,
    bias)`` in graph order), ``head`` (``(weight, bias)`` of the Gemm), ``mean``/``std``
    and ``size`` (the input side, px). Raises ``ValueError`` when the graph is not a
    CropNet export (no Gemm, a convolution without a bias, no fixed input side)."""
    import onnx
    from onnx import numpy_helper

    proto = onnx.load(str(path))
    init = {t.name: numpy_helper.to_array(t).astype(np.float32) for t in proto.graph.initializer}
    convs = []
    head = None
    for node in proto.graph.node:
        if node.op_type == "Conv":
            if len(node.input) < 3:
                raise ValueError(f"convolution {node.name} has no bias (batch norm not folded)")
            convs.append((init[node.input[1]], init[node.input[2]]))
        elif node.op_type == "Gemm":
            head = (init[node.input[1]], init[node.input[2]])
    if head is None or not convs:
        raise ValueError("no Gemm head or no convolutions: not a crop classifier export")
    dims = proto.graph.input[0].type.tensor_type.shape.dim
    size = dims[-1].dim_value
    if size <= 0:
        raise ValueError("input side is not fixed")
    return {"convs": convs, "head": head, "mean": init.get("mean"), "std": init.get("std"),
            "size": int(size)}  # fmt: skip


def _crops(photos: Path, size: int, count: int) -> npt.NDArray[np.float32]:
    """Up to ``count`` labelled crops ``(n, 3, size, size)`` of the hk training split, spread
    over the photos, cut by the serving cropper."""
    import cv2
    from crops import photo_tiles

    from vision.preprocess import crop_batch

    out = []
    total = 0
    for image, tiles in photo_tiles(photos, "train"):
        if total >= count:
            break
        img = cv2.imread(str(image), cv2.IMREAD_COLOR)
        if img is None or not tiles:
            continue
        batch = crop_batch(img, np.asarray([t[0] for t in tiles[:4]], np.float32), size)
        out.append(batch)
        total += len(batch)
    if not out:
        raise ValueError(f"{photos}: no labelled training photos")
    return np.concatenate(out)[:count].astype(np.float32)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("onnx", type=Path)
    ap.add_argument("out", type=Path)
    ap.add_argument("--names", help="codes of the head, comma-separated (readers)")
    ap.add_argument("--photos", type=Path, default=REPO / "datasets/build/hk-photos")
    ap.add_argument("--crops", type=int, default=512, help="calibration crops (default 512)")
    args = ap.parse_args()

    import onnxruntime as ort
    import torch
    from model import CropNet
    from onnx_to_pt import refit_batch_norms

    from vision.classes import CLASSES

    try:
        layers = read_layers(args.onnx)
    except (OSError, ValueError, KeyError) as exc:
        sys.exit(f"{args.onnx}: {exc}")
    head_w, head_b = layers["head"]
    n_classes = head_w.shape[0] // 4
    names = args.names.split(",") if args.names else (list(CLASSES) if n_classes == 43 else [])
    if len(names) != n_classes:
        sys.exit(f"{args.onnx}: the head reads {n_classes} codes; give them with --names")
    width = int(layers["convs"][0][0].shape[0])
    model = CropNet(n_classes, width)
    blocks = list(model.features)
    if len(blocks) != len(layers["convs"]):
        sys.exit(f"{args.onnx}: {len(layers['convs'])} convolutions, CropNet has {len(blocks)}")
    with torch.no_grad():
        for block, (w, b) in zip(blocks, layers["convs"], strict=True):
            conv, bn = block[0], block[1]
            if tuple(conv.weight.shape) != w.shape:
                sys.exit(f"{args.onnx}: convolution {tuple(w.shape)} vs {tuple(conv.weight.shape)}")
            conv.weight.copy_(torch.from_numpy(w))
            bn.weight.fill_(1.0)
            bn.bias.copy_(torch.from_numpy(b))
            bn.running_mean.zero_()
            bn.running_var.fill_(1.0 - bn.eps)
        model.head.weight.copy_(torch.from_numpy(head_w))
        model.head.bias.copy_(torch.from_numpy(head_b))
        for key in ("mean", "std"):
            if layers[key] is not None:
                getattr(model, key).copy_(torch.from_numpy(layers[key]))
    try:
        crops = _crops(args.photos, layers["size"], args.crops)
    except ValueError as exc:
        sys.exit(str(exc))
    x = torch.from_numpy(crops)
    refitted = refit_batch_norms(model, [x[i : i + 64] for i in range(0, len(x), 64)],
                                 [(b[0], b[1]) for b in blocks])  # fmt: skip
    model.eval()
    session = ort.InferenceSession(str(args.onnx), providers=["CPUExecutionProvider"])
    want = session.run(None, {session.get_inputs()[0].name: crops[:128]})[0]
    with torch.no_grad():
        got = model(x[:128]).numpy()
    diff = float(np.abs(got - want).max())
    if diff > 1e-3:
        sys.exit(f"outputs differ by {diff:.3g} (> 1e-3): a layer was mapped wrongly")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    torch.save({"model": model.state_dict(), "width": width, "n_classes": n_classes,
                "names": names}, args.out)  # fmt: skip
    print(f"{args.out}: width {width}, {n_classes} codes, {layers['size']} px; "
          f"{refitted} batch norms refitted on {len(crops)} crops; max logit difference "
          f"vs ONNX {diff:.2e}")  # fmt: skip


if __name__ == "__main__":
    main()
