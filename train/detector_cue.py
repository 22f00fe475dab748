"""Weak absolute handedness cue: a reference detector's margin on one copy per stem.

For the tightest-boxed copy of each stem (least turned by ±45°), the margin
``score(copy) - score(mirror image)`` of :class:`vision.data.photos.DetectorScorer`
(> 0: the copy looks un-mirrored). The tightest copy is the un-augmented original
(never mirrored), so the share of positive margins is the cue's accuracy.

usage: .venv/bin/python train/detector_cue.py MODEL.onnx [gray|rgb] [OUT.json]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import cv2

from vision.data.photos import (
    DetectorScorer,
    group_copies,
    handedness_margin,
    read_class_names,
    read_labels,
    tightness,
)


def main() -> None:
    """Score every stem's tightest copy and write the margins (arguments: see the module doc)."""
    model = Path(sys.argv[1])
    kind = sys.argv[2] if len(sys.argv) > 2 else "gray"
    out = Path(sys.argv[3] if len(sys.argv) > 3 else "datasets/build/detector-cue.json")
    src = Path("../shared/datasets/hk-photos")
    names = read_class_names(src)
    scorer = DetectorScorer(model, input=kind, threads=1)
    margins: dict[str, float] = {}
    for n, (_stem, paths) in enumerate(sorted(group_copies(src / "images").items()), 1):
        labelled = [(p, read_labels(src / "labels" / (p.stem + ".txt"), names)) for p in paths]
        path, labels = min(labelled, key=lambda pl: tightness(pl[1]))
        margins[path.name] = handedness_margin(scorer, cv2.imread(str(path)), labels)
        if n % 20 == 0:
            print(n, flush=True)
            out.write_text(json.dumps(margins, indent=0))
    out.write_text(json.dumps(margins, indent=0))
    print(f"wrote {out}: {len(margins)} stems")


if __name__ == "__main__":
    main()
