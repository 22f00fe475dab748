"""Fit the layout's sideways-tile model (:mod:`vision.layout_sideways`) for a detector.

Runs the model folder's detector on the scenes of a synthetic set (``truth/*.json``, as
``tilecam dataset synth`` writes them), matches its boxes to the true tiles (IoU ≥ 0.5),
and for every matched tile of a hand (roles other than ``other``) in a row of 3 or more
takes the layout's features — the classifier's sideways probability and the box's
shape against its row, in the layout's own canonical frame — with the truth's
``sideways`` flag as the label. Fits the 6-coefficient logistic model (Newton steps,
a little L2) and prints it with the tile errors of the rotation rule and of the model.
Fit on a set no choice or report reads (the shipped model: ``synth-table``); put the
coefficients in :data:`vision.layout_sideways.SIDEWAYS_MODEL`. The tile errors here are
at log-odds 0; the layout calls a tile sideways above ``LayoutParams.sideways_min_odds``
(chosen on the choice scenes, not here).

usage: .venv/bin/python train/fit_sideways.py SYNTH_DIR [--model-dir models]
           [--limit N] [--l2 0.01] [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from vision.classes import BACK  # noqa: E402
from vision.detections import Detections  # noqa: E402
from vision.evaluate import match  # noqa: E402
from vision.layout import LayoutParams, rotation_margins  # noqa: E402
from vision.layout_geometry import canonical_frame, link_rows  # noqa: E402
from vision.layout_sideways import (  # noqa: E402
    row_features,
    sideways_probability,
    sideways_terms,
)

Array = npt.NDArray[np.float64]


def truth_boxes(truth: dict[str, Any]) -> npt.NDArray[np.float32]:
    """The true tiles' boxes ``(n, 4)`` xyxy pixels, in the truth file's order."""
    return np.array([t["box"] for t in truth["tiles"]], np.float32).reshape(-1, 4)


def tile_rows(
    dets: Detections, params: LayoutParams | None = None
) -> list[tuple[int, list[float]]]:
    """``(detection index, [p_side, log_w, log_h, back, rotation_sideways])`` for each
    tile in a row of 3 or more, as :func:`vision.layout.analyze` sees them; needs the
    detections' rotation probabilities."""
    if dets.rotation_probs is None:
        raise ValueError("the detections carry no rotation probabilities (no classifier)")
    params = params or LayoutParams()
    frame = canonical_frame(dets.boxes, dets.rotations, rotation_margins(dets))
    p_side = sideways_probability(dets.rotation_probs, frame.frame_rotation, frame.tilt_deg)
    codes = dets.codes
    out: list[tuple[int, list[float]]] = []
    for row in link_rows(frame, params.row_link_gap, params.row_overlap):
        if len(row) < 3:
            continue
        log_w, log_h = row_features(frame.w, frame.h, row)
        for k, i in enumerate(row):
            out.append((i, [float(p_side[i]), float(log_w[k]), float(log_h[k]),
                            float(codes[i] == BACK), float(int(frame.rotation[i]) in (90, 270))]))
    return out


def design(x: Array) -> Array:
    """Model inputs ``(n, 6)`` from features ``(n, ≥4)``: the layout's own
    :func:`vision.layout_sideways.sideways_terms`."""
    return sideways_terms(x[:, 0], x[:, 1], x[:, 2], x[:, 3])


def fit_logistic(a: Array, y: Array, l2: float = 1e-2, steps: int = 50) -> Array:
    """Coefficients ``(k,)`` of an L2-regularised logistic regression of ``y`` ``(n,)``
    0/1 on ``a`` ``(n, k)`` by Newton's method.

    >>> a = np.column_stack([np.ones(6), [-3., -2., -1., 1., 2., 3.]])
    >>> w = fit_logistic(a, np.array([0., 0., 1., 0., 1., 1.]))
    >>> bool(w[1] > 0)
    True
    """
    w = np.zeros(a.shape[1])
    for _ in range(steps):
        p = 1 / (1 + np.exp(-(a @ w)))
        grad = a.T @ (p - y) + l2 * w
        hess = (a * (p * (1 - p))[:, None]).T @ a + l2 * np.eye(len(w))
        w = w - np.linalg.solve(hess, grad)
    return w


def collect(folder: Path, detector: Any, limit: int | None) -> tuple[Array, Array]:
    """Features ``(n, 5)`` and sideways labels ``(n,)`` of the hand tiles of ``folder``."""
    import cv2

    feats: list[list[float]] = []
    labels: list[float] = []
    files = sorted((folder / "truth").glob("*.json"))[:limit]
    if not files:
        raise SystemExit(f"fit_sideways: no truth/*.json in {folder}")
    for f in files:
        truth = json.loads(f.read_text())
        if not truth.get("hand"):
            continue
        image = cv2.imread(str(folder / truth["image"]))
        if image is None:
            raise SystemExit(f"fit_sideways: cannot read {folder / truth['image']}")
        dets = detector(image)
        if not len(dets):
            continue
        matched = match(truth_boxes(truth), dets.boxes, dets.confidences, 0.5)
        for i, x in tile_rows(dets):
            g = int(matched[i])
            if g < 0 or truth["tiles"][g]["role"] == "other":
                continue
            feats.append(x)
            labels.append(float(truth["tiles"][g]["sideways"]))
    return np.array(feats, np.float64).reshape(-1, 5), np.array(labels, np.float64)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folder", type=Path)
    ap.add_argument("--model-dir", default=None)
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--l2", type=float, default=1e-2)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    from vision.detect import load_detector

    x, y = collect(args.folder, load_detector(args.model_dir), args.limit)
    if not len(y) or y.min() == y.max():
        raise SystemExit("fit_sideways: need tiles of both kinds (sideways and not)")
    w = fit_logistic(design(x), y, args.l2)
    model = (design(x) @ w) > 0
    rule = x[:, 4] > 0.5
    face_up = x[:, 3] == 0
    out = {
        "coefficients": [round(float(c), 2) for c in w],
        "tiles": len(y),
        "sideways": int(y.sum()),
        "errors_rotation_rule": int((rule != y).sum()),
        "errors_model": int((model != y).sum()),
        "errors_rotation_rule_face_up": int((rule != y)[face_up].sum()),
        "errors_model_face_up": int((model != y)[face_up].sum()),
    }
    print(json.dumps(out) if args.json else "\n".join(f"{k}: {v}" for k, v in out.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
