"""Export a trained crop classifier to ONNX and print its manifest entry.

usage: .venv-train/bin/python train/classifier/export.py runs/classifier/run1/model.pt \
           --out models/tiles-cls.onnx [--size 64] [--weight 0.5] [--entry entry.json]

The ONNX file takes ``input`` ``(B, 3, S, S)`` float RGB 0..1 (dynamic batch) and gives
``logits`` ``(B, K * 4)``, index ``class * 4 + rotation_index`` (the ``classifier``
contract of ``models/README.md``), ``K`` = 43, or the codes of a reader trained with
``train.py --codes`` (the ``reader`` entry: give it ``--size``, ``weight``, ``tta`` and
``min_mass`` by hand). The export is checked with onnxruntime against the
torch model on a batch of random crops (max abs difference of the logits printed; the
script fails above 1e-3). The manifest entry (``file``, ``size``, ``names``,
``rotations``, ``weight``) is printed as JSON and, with ``--entry``, written to a file;
adding it to ``models/manifest.json`` is a separate, deliberate step.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
import onnxruntime as ort
import torch

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1]))

from model import CropNet  # noqa: E402

from vision.classes import CLASSES  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("weights", type=Path)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--size", type=int,
                    help="crop side in px (default: the one it was trained on, which "
                         "train.py keeps in model.pt; 48 for older checkpoints)")
    ap.add_argument("--weight", type=float, default=0.5, help="fusion weight in the manifest")
    ap.add_argument("--entry", type=Path, help="also write the manifest entry here")
    args = ap.parse_args()
    state = torch.load(args.weights, map_location="cpu")
    names = list(state.get("names") or CLASSES)
    factors = state.get("factors")
    model = CropNet(len(names), int(state["width"]), tuple(factors) if factors else None,
                    int(state.get("stem_stride", 2)))
    model.load_state_dict(state["model"])
    model.eval()
    trained = state.get("size")
    if args.size is None:
        args.size = int(trained or 48)
        print(f"crop size {args.size} px" + ("" if trained else
              " (the checkpoint does not say; give --size if it was trained on others)"))
    elif trained and int(trained) != args.size:
        print(f"warning: trained on {trained} px crops, exported for {args.size} px")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    dummy = torch.rand(2, 3, args.size, args.size)
    torch.onnx.export(
        model,
        (dummy,),
        str(args.out),
        input_names=["input"],
        output_names=["logits"],
        dynamic_axes={"input": {0: "batch"}, "logits": {0: "batch"}},
        opset_version=17,
        dynamo=False,
    )
    x = torch.rand(7, 3, args.size, args.size)
    with torch.no_grad():
        ref = model(x).numpy()
    sess = ort.InferenceSession(str(args.out), providers=["CPUExecutionProvider"])
    got = sess.run(None, {"input": x.numpy()})[0]
    diff = float(np.abs(ref - got).max())
    print(
        f"{args.out}: {args.out.stat().st_size / 1e6:.2f} MB, output {got.shape}, "
        f"max |torch - onnxruntime| = {diff:.2e}"
    )
    if got.shape != (7, len(names) * 4) or diff > 1e-3:
        sys.exit("export check failed")
    entry = {
        "file": args.out.name,
        "size": args.size,
        "names": names,
        "rotations": [0, 90, 180, 270],
        "weight": args.weight,
    }
    print(json.dumps(entry))
    if args.entry:
        args.entry.write_text(json.dumps(entry, indent=2) + "\n")


if __name__ == "__main__":
    main()
