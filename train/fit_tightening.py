"""Fit and measure the label tightening of vision/data/tighten.py on photos with a known truth.

For the photos whose un-augmented original survives (its labeller's boxes are the truth),
pretend it is missing — as it is for a third of hk-photos — and rebuild labels from the
four augmented copies' export boxes alone:

1. **fit** (training photos): in the original's frame, the inscribed box of the copies'
   boxes intersected (``tighten`` with scale 1) against the labeller's box; the medians
   of the long and short side ratios are ``LONG_SCALE`` and ``SHORT_SCALE``.
2. **measure** (training and validation photos, with the module's factors): the tightest
   augmented copy is the reference, as the preparation takes it when no original is
   kept; per tile, IoU with the truth (the labeller's box carried into each copy) of the
   rule before (the reference's own boxes, carried to the other copies) and of the
   tightened boxes, in the reference's frame and in the other copies'.

usage: .venv/bin/python train/fit_tightening.py [--build datasets/build/hk-photos]
           [--src ../shared/datasets/hk-photos] [--json]

Needs a build by ``tilecam dataset photos`` (its ``mirror.csv`` and ``labels.csv``: the
copies' handedness and homographies).
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from vision.data.photos import (  # noqa: E402
    flip_labels,
    group_copies,
    original_copy,
    read_class_names,
    read_labels,
)
from vision.data.relabel import TURNED_CORNERS, fill_corners  # noqa: E402
from vision.data.tighten import (  # noqa: E402
    LONG_SCALE,
    SHORT_SCALE,
    CopyView,
    box_corners,
    carry_points,
    fill_edges,
    tighten,
)
from vision.postprocess import iou_matrix  # noqa: E402

Matrix = npt.NDArray[np.float64]


def _read_build(build: Path) -> tuple[dict[str, dict[str, str]], dict[str, dict[str, str]]]:
    with (build / "mirror.csv").open(newline="", encoding="utf-8") as fh:
        mirror = {row["name"]: row for row in csv.DictReader(fh)}
    with (build / "labels.csv").open(newline="", encoding="utf-8") as fh:
        aligned = {row["name"]: row for row in csv.DictReader(fh)}
    return mirror, aligned


def _matrix(row: dict[str, str] | None, original: str) -> Matrix | None:
    if row is None or not row.get("matrix") or row["original"] != original:
        return None
    return np.array([float(v) for v in row["matrix"].split()]).reshape(3, 3)


def _boxes(corners: npt.NDArray[np.float64]) -> npt.NDArray[np.float32]:
    """``(n, 4)`` xyxy around corner sets ``(n, k, 2)``."""
    return np.concatenate([corners.min(1), corners.max(1)], 1).astype(np.float32)


def _ratios(truth: npt.NDArray[np.float32], est: npt.NDArray[np.float32]) -> tuple[float, float]:
    """(long, short) side ratio truth / estimate, sides named by the estimate's shape."""
    tw, th = truth[2] - truth[0], truth[3] - truth[1]
    ew, eh = est[2] - est[0], est[3] - est[1]
    return (th / eh, tw / ew) if eh >= ew else (tw / ew, th / eh)


def run(build: Path, src: Path) -> dict[str, Any]:
    names = read_class_names(src)
    mirror, aligned = _read_build(build)
    ratios: list[tuple[float, float]] = []
    ious: dict[str, list[float]] = defaultdict(list)
    photos = 0
    groups = group_copies(src / "images")
    for paths in (groups[stem] for stem in sorted(groups)):
        if paths[0].name not in mirror or mirror[paths[0].name]["ambiguous"] == "1":
            continue
        images, labels = [], []
        for p in paths:
            image = cv2.imread(str(p))
            lb = read_labels(src / "labels" / f"{p.stem}.txt", names)
            if mirror.get(p.name, {}).get("mirrored") == "1":
                image, lb = cv2.flip(image, 1), flip_labels(lb)
            images.append(image)
            labels.append(lb)
        first = original_copy(labels)
        if first is None or fill_corners(images[first[0]]) >= TURNED_CORNERS:
            continue  # only photos whose original is kept have a truth
        u = first[0]
        to_copy: dict[int, Matrix] = {}
        for k, p in enumerate(paths):
            m = _matrix(aligned.get(p.name), paths[u].name)
            if k != u and m is not None:
                to_copy[k] = m
        augmented = sorted(to_copy)
        if len(augmented) < 3 or not len(labels[u]):
            continue
        photos += 1
        split = mirror[paths[u].name]["split"]
        size = (images[u].shape[1], images[u].shape[0])
        edges = {k: fill_edges(images[k]) for k in augmented}
        # 1. the fit, in the original's frame
        views = [CopyView(labels[k], to_copy[k], size, edges[k]) for k in augmented]
        truth_u = _boxes(box_corners(labels[u], size))
        for i, par in enumerate(tighten(labels[u], size, views, scale=(1.0, 1.0))):
            if par is not None and split == "train":
                ratios.append(_ratios(truth_u[i], _boxes(par[None])[0]))
        # 2. the measure, from the tightest augmented copy
        ref = min(augmented, key=lambda k: float(np.mean(labels[k][:, 3] * labels[k][:, 4]))
                  if len(labels[k]) else np.inf)
        back = np.linalg.inv(to_copy[ref])
        views = [CopyView(labels[k], to_copy[k] @ back, size, edges[k]) for k in augmented]
        found = tighten(labels[ref], size, views)
        own = box_corners(labels[ref], size)
        centres = carry_points(box_corners(labels[u], size), to_copy[ref]).mean(1)
        for k in augmented:
            to_k = to_copy[k] @ back
            truth_k = _boxes(carry_points(box_corners(labels[u], size), to_copy[k]))
            where = "reference" if k == ref else "other copies"
            for i, par in enumerate(found):
                if par is None:
                    continue
                j = int(np.linalg.norm(centres - own[i].mean(0), axis=1).argmin())
                t = truth_k[j : j + 1]
                before = own[i] if k == ref else carry_points(own[i], to_k)
                after = carry_points(par, to_k)
                for rule, poly in (("before", before), ("tightened", after)):
                    iou = float(iou_matrix(t, _boxes(poly[None]))[0, 0])
                    ious[f"{split} {where} {rule}"].append(iou)
    fitted = np.median(np.array(ratios), axis=0) if ratios else np.array([np.nan, np.nan])
    out: dict[str, Any] = {
        "photos": photos,
        "fit_tiles": len(ratios),
        "fitted_long_scale": round(float(fitted[0]), 3),
        "fitted_short_scale": round(float(fitted[1]), 3),
        "module_scales": [LONG_SCALE, SHORT_SCALE],
    }
    for key, values in sorted(ious.items()):
        v = np.array(values)
        out[key] = {"tiles": len(v), "median_iou": round(float(np.median(v)), 3),
                    "iou_at_least_0.5": round(float(np.mean(v >= 0.5)), 3),
                    "iou_at_least_0.7": round(float(np.mean(v >= 0.7)), 3)}
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", type=Path, default=REPO / "datasets/build/hk-photos")
    ap.add_argument("--src", type=Path, default=REPO.parent / "shared/datasets/hk-photos")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    for need in (args.build / "mirror.csv", args.build / "labels.csv", args.src / "images"):
        if not need.exists():
            ap.error(f"{need} not found (build it with `tilecam dataset photos`)")
    out = run(args.build, args.src)
    if args.json:
        print(json.dumps(out))
        return 0
    for key, value in out.items():
        print(f"{key}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
