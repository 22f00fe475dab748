"""Crop accuracy of an exported crop classifier, decoded the way ``vision.detect`` does.

usage: .venv/bin/python train/classifier/evaluate.py models/tiles-cls.onnx \
           runs/classifier/hk-val.npz runs/classifier/heldout.npz [--views 4] [--json] \
           [--codes 1f,2f,3f,4f,5f,6f,7f,8f]

For each ``crops.py`` file: class top-1 (argmax of the class marginal of
:func:`vision.postprocess.classify_views`, over ``--views`` turns of each crop), rotation
accuracy on the crops whose rotation is known, class top-1 by kind (characters, dots,
bamboo, honours, bonus — see :data:`KINDS`) and the most frequent confusions. No torch
needed.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import onnxruntime as ort

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from vision.classes import CLASSES
from vision.postprocess import classify_views

#: Tile kinds for the by-kind figures: a code's kind from its last character (``back`` apart).
KINDS = {"m": "characters", "p": "dots", "s": "bamboo", "f": "bonus"}


def kind_of(code: str) -> str:
    """``'7m'`` → ``'characters'``; winds and dragons → ``'honours'``.

    >>> [kind_of(c) for c in ("7m", "3p", "E", "6f", "back")]
    ['characters', 'dots', 'honours', 'bonus', 'back']
    """
    if code == "back":
        return "back"
    return KINDS.get(code[-1], "honours") if len(code) == 2 else "honours"


def crop_accuracy(
    session: ort.InferenceSession, path: Path, views: int = 1, codes: list[str] | None = None
) -> dict[str, Any]:
    """Figures for one crops file (see the module docstring); ``views`` test-time turns per
    crop (1, 2 or 4, as the manifest's ``tta``). With ``codes`` only the crops of those
    codes count and the reading is the likeliest of them: a 43-class classifier is judged
    *within* the codes, and a reader trained with ``train.py --codes`` (its output has
    ``len(codes) * 4`` logits, in the order of :data:`CLASSES`) can be judged at all."""
    with np.load(path) as d:
        crops, classes, rotations = d["crops"], d["classes"], d["rotations"]
    ids = np.array(sorted(CLASSES.index(c) for c in codes)) if codes else np.arange(len(CLASSES))
    keep = np.isin(classes, ids)
    crops, classes, rotations = crops[keep], classes[keep], rotations[keep]
    name = session.get_inputs()[0].name
    n_out = session.get_outputs()[0].shape[1]
    reader = isinstance(n_out, int) and n_out == len(ids) * 4 and len(ids) < len(CLASSES)
    cls_pred, rot_pred = [], []
    for s in range(0, len(crops), 256):
        x = crops[s : s + 256].astype(np.float32) / 255
        c, r = classify_views(
            lambda b: session.run(None, {name: b})[0], x, len(ids) if reader else len(CLASSES),
            views,
        )
        cls_pred.append(ids[c.argmax(1)] if reader else ids[c[:, ids].argmax(1)])
        rot_pred.append(r.argmax(1))
    c_hat, r_hat = np.concatenate(cls_pred), np.concatenate(rot_pred)
    known = rotations >= 0
    kinds = np.array([kind_of(CLASSES[c]) for c in classes])
    by_kind = {k: round(float((c_hat[kinds == k] == classes[kinds == k]).mean()), 4)
               for k in dict.fromkeys(kinds.tolist())}
    wrong = Counter(
        f"{CLASSES[t]}→{CLASSES[p]}" for t, p in zip(classes, c_hat, strict=True) if t != p
    )
    return {
        "file": path.name,
        "crops": len(crops),
        "class_top1": round(float((c_hat == classes).mean()), 4),
        "rotation_known": int(known.sum()),
        "rotation_acc": round(float((r_hat[known] == rotations[known]).mean()), 4)
        if known.any()
        else None,
        "by_kind": by_kind,
        "top_confusions": wrong.most_common(8),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("model", type=Path)
    ap.add_argument("crops", type=Path, nargs="+")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--views", type=int, choices=(1, 2, 4), default=1, help="test-time views")
    ap.add_argument("--codes", help="judge only these codes, comma-separated (within them; "
                                    "needed for a reader, e.g. 1f,2f,3f,4f,5f,6f,7f,8f)")
    args = ap.parse_args()
    session = ort.InferenceSession(str(args.model), providers=["CPUExecutionProvider"])
    for path in args.crops:
        rec = crop_accuracy(
            session, path, args.views, args.codes.split(",") if args.codes else None
        )
        if args.json:
            print(json.dumps(rec))
        else:
            rot = "n/a" if rec["rotation_acc"] is None else f"{rec['rotation_acc']:.4f}"
            print(
                f"{rec['file']}: {rec['crops']} crops, class top-1 {rec['class_top1']:.4f}, "
                f"rotation {rot} ({rec['rotation_known']} known); "
                f"by kind {rec['by_kind']}; confused {rec['top_confusions']}"
            )


if __name__ == "__main__":
    main()
