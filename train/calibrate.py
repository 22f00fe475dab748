"""Fit the hand confidence (``vision/confidence.py``) on photos with known answers.

Each photo of a YOLO dataset split is recognised with the model (``recognize``, MCR);
its signals (:func:`vision.confidence.hand_features`) and whether its final tile
multiset equals the labels' are collected. A logistic model (L2-regularised, Newton's
method, numpy only) is then judged by **cross-validation by source photo**: the photos'
Roboflow copies share a fold (:func:`vision.data.photos.source_stem`), every photo is
predicted by a model that never saw its source, and the out-of-fold predictions are
compared with ``reading_confidence`` (bands, Brier score, expected calibration error).
With ``--write`` the model fitted on all photos goes into ``MODEL_DIR/manifest.json``
(``"calibration"``); the reported figures are the cross-validated ones.

With ``--event score`` the event is the multiset right **up to the codes the MCR score
treats alike** (any bonus tile for any other; :attr:`scoring.rulesets.base.RuleSet.score_alike`)
and the signals are :func:`vision.confidence.score_features`; ``--write`` then puts the
fit under the calibration's ``"score"`` key (the score confidence), and ``--apply``
reports that fit.

With ``--apply`` nothing is fitted: the manifest's calibration is applied to the photos
as it is and its reliability reported — for data it was not fitted on (e.g. synthetic
scenes of held-out art).

usage: .venv/bin/python train/calibrate.py MODEL_DIR [--data DIR[:SPLIT] ...]
           [--event hand|score] [--path app|detections] [--folds 5] [--features F ...]
           [--weight SET=W ...] [--cache FILE.json] [--write | --apply] [--json]

Shipped fit (made with ``--path detections``; model .35's card, "Confidence", compares a
refit on the app's path): the real val photos and the held-out-art synthetic set v1 (the choice set)
at three times the weight (on unseen tile art the model's signals mean less than on the
real photos' set, and a fit on real photos alone is over-confident there); settings chosen
so that the out-of-fold Brier score beats the raw reading confidence on both; reliability
is then checked with ``--apply`` on held-out art v2, which no fit or choice reads.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import zlib
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from vision.confidence import FEATURES, SCORE_FEATURES  # noqa: E402

#: Signals the shipped fit uses: all but the box scores (``min_score``, ``weak_boxes``),
#: whose meaning differs most between real photos and synthetic scenes; with them the
#: fit was worse than the raw reading confidence on held-out art v1 (out-of-fold Brier
#: 0.0618 vs 0.0627 at weight 3; without: 0.0584).
DEFAULT_FEATURES = tuple(f for f in FEATURES if f not in ("min_score", "weak_boxes"))
#: ... and for the score confidence the same: ``by_place`` fitted no better (out-of-fold
#: Brier, hk val / held-out art v1, eight signals: 0.0977 / 0.1507 with it, 0.0959 /
#: 0.1464 without; model card recipe step 69), so it is only used when asked for.
DEFAULT_SCORE_FEATURES = DEFAULT_FEATURES

F64 = npt.NDArray[np.float64]
#: Bands for the reliability table (probability of an exact reading).
EDGES = (0.0, 0.1, 0.3, 0.5, 0.7, 0.9, 1.0)


def fit_logistic(
    x: F64, y: F64, l2: float = 1.0, steps: int = 50, weights: F64 | None = None
) -> tuple[F64, float]:
    """Logistic regression ``P(y=1) = σ(b + x·w)`` by Newton's method; features are
    standardised inside, ``l2`` penalises the (standardised) weights, not ``b``.
    ``x`` ``(n, k)``, ``y`` ``(n,)`` of 0/1, ``weights`` ``(n,)`` per row (default 1).
    Returns ``w`` ``(k,)`` and ``b`` in the original feature units."""
    mean, std = x.mean(axis=0), x.std(axis=0)
    std[std == 0] = 1.0
    z = np.hstack([np.ones((len(x), 1)), (x - mean) / std])
    rw = np.ones(len(x)) if weights is None else np.asarray(weights, np.float64)
    theta = np.zeros(z.shape[1])
    penalty = np.full(z.shape[1], l2)
    penalty[0] = 0.0
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-np.clip(z @ theta, -30, 30)))
        grad = z.T @ (rw * (p - y)) + penalty * theta
        hess = (z * (rw * p * (1 - p))[:, None]).T @ z + np.diag(penalty + 1e-9)
        step = np.linalg.solve(hess, grad)
        theta -= step
        if np.abs(step).max() < 1e-8:
            break
    w = theta[1:] / std
    b = float(theta[0] - (mean / std) @ theta[1:])
    return w, b


def predict(x: F64, w: F64, b: float) -> F64:
    return 1.0 / (1.0 + np.exp(-np.clip(x @ w + b, -30, 30)))


def collect(
    data: Path, split: str, model_dir: Path, event: str = "hand", path: str = "app"
) -> list[dict[str, Any]]:
    """One row per photo: ``set`` (the folder's name), ``stem``, ``exact``, ``reading``
    and the features — of the hand confidence, or with ``event`` ``"score"`` of the score
    confidence (``exact`` then up to the MCR score's alike codes). ``path`` ``"app"``:
    each photo read as the service and ``tilecam recognize`` read it
    (:func:`vision.recognize.recognize`: weak boxes, the level re-read, the sideways
    second reading); ``"detections"``: the detector's boxes read once
    (:func:`vision.recognize.recognize_detections`), as the fits up to .35 were made."""
    from scoring.rulesets import get_rule_set
    from vision.classes import CLASSES
    from vision.confidence import hand_features, score_features
    from vision.data.photos import source_stem
    from vision.detect import Detector
    from vision.evaluate import load_dataset
    from vision.recognize import recognize, recognize_detections

    mcr = get_rule_set("mcr")
    alike = mcr.score_alike if event == "score" else ()
    as_one = mcr.score_code if event == "score" else str
    detector = Detector(model_dir)
    rows = []
    for sample in load_dataset(data, split):
        if path == "app":
            rec = recognize(sample.image, "mcr", detector=detector)
        else:
            rec = recognize_detections(detector(sample.image), "mcr")
        truth = Counter(as_one(CLASSES[int(c)]) for c in sample.class_ids)
        read = Counter(as_one(c) for c in rec.codes)
        rows.append(
            {
                "path": path,
                "event": event,
                "set": data.name,
                "image": sample.image.name,
                "stem": source_stem(sample.image.name),
                "exact": read == truth,
                "reading": rec.reading_confidence,
                **(score_features(rec, alike) if event == "score" else hand_features(rec)),
            }
        )
    return rows


def check_cache(rows: Any, cache: Path, path: str, event: str) -> None:
    """SystemExit unless the cached ``rows`` were read on ``path`` for ``event`` (each
    row says so; a cache of an older calibrate.py says neither, and is refused too)."""
    if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
        raise SystemExit(f"--cache {cache}: not a list of rows written by calibrate.py")
    if not rows:
        raise SystemExit(f"--cache {cache} holds no rows: delete it to read the photos again")
    read = {(r.get("path"), r.get("event")) for r in rows}
    if any(None in pair for pair in read):
        raise SystemExit(f"--cache {cache} was written by an older calibrate.py, which did not "
                         "record how its rows were read: give another cache file (or delete it)")
    if read != {(path, event)}:
        got = ", ".join(f"--path {p} --event {e}" for p, e in sorted(read, key=str))
        raise SystemExit(f"--cache {cache} holds rows read with {got}, not --path {path} "
                         f"--event {event}: give another cache file (or delete it)")


def fold_of(stem: str, folds: int) -> int:
    """A source photo's fold, stable across runs (CRC32 of its stem)."""
    return zlib.crc32(stem.encode()) % folds


def bands(p: F64, y: F64) -> list[dict[str, Any]]:
    out = []
    for lo, hi in itertools.pairwise(EDGES):
        sel = (p >= lo) & ((p < hi) | ((hi == 1.0) & (p <= 1.0)))
        if sel.any():
            out.append(
                {
                    "band": f"{lo:.1f}-{hi:.1f}",
                    "photos": int(sel.sum()),
                    "mean_confidence": round(float(p[sel].mean()), 3),
                    "exact": round(float(y[sel].mean()), 3),
                }
            )
    return out


def ece(p: F64, y: F64) -> float:
    """Expected calibration error over :data:`EDGES` bands (photo-weighted)."""
    total = 0.0
    for b in bands(p, y):
        total += b["photos"] * abs(b["mean_confidence"] - b["exact"])
    return round(total / max(len(p), 1), 4)


def _xy(rows: list[dict[str, Any]], features: tuple[str, ...]) -> tuple[F64, F64]:
    """Signals ``(n, k)`` and exact (0/1) ``(n,)`` of ``rows``."""
    x = np.array([[r[f] for f in features] for r in rows], np.float64)
    return x, np.array([float(r["exact"]) for r in rows])


def _print_bands(part: dict[str, Any], indent: str) -> None:
    for band in part["bands"]:
        print(
            f"{indent}{band['band']}: {band['photos']:4d} photos, mean confidence "
            f"{band['mean_confidence']:.3f}, exact {band['exact']:.3f}"
        )


def _judge(p: F64, y: F64) -> dict[str, Any]:
    return {"brier": round(float(np.mean((p - y) ** 2)), 4), "ece": ece(p, y), "bands": bands(p, y)}


def row_weights(rows: list[dict[str, Any]], weights: dict[str, float]) -> F64:
    """Each row's weight in the fit: ``weights[set]``, default 1."""
    return np.array([weights.get(str(r.get("set")), 1.0) for r in rows])


def evaluate(
    rows: list[dict[str, Any]],
    folds: int,
    l2: float,
    features: tuple[str, ...] = DEFAULT_FEATURES,
    weights: dict[str, float] | None = None,
) -> dict[str, Any]:
    """Cross-validated comparison of the calibrated and the raw confidence, over all rows
    and per data set (``set``)."""
    x, y = _xy(rows, features)
    rw = row_weights(rows, weights or {})
    fold = np.array([fold_of(f"{r.get('set')}/{r['stem']}", folds) for r in rows])
    oof = np.zeros(len(rows))
    for k in range(folds):
        test = fold == k
        if not test.any() or test.all():
            continue
        w, b = fit_logistic(x[~test], y[~test], l2, weights=rw[~test])
        oof[test] = predict(x[test], w, b)
    raw = np.array([r["reading"] for r in rows])
    names = sorted({str(r.get("set")) for r in rows})
    per_set = {}
    for name in names:
        sel = np.array([str(r.get("set")) == name for r in rows])
        per_set[name] = {
            "photos": int(sel.sum()),
            "exact": round(float(y[sel].mean()), 4),
            "raw": _judge(raw[sel], y[sel]),
            "calibrated_out_of_fold": _judge(oof[sel], y[sel]),
        }
    return {
        "photos": len(rows),
        "sources": len({(r.get("set"), r["stem"]) for r in rows}),
        "exact": round(float(y.mean()), 4),
        "folds": folds,
        "raw": _judge(raw, y),
        "calibrated_out_of_fold": _judge(oof, y),
        "sets": per_set,
    }


def manifest_fit(model_dir: Path, event: str = "hand") -> dict[str, Any]:
    """The manifest's checked calibration fit: the hand confidence's, or for ``event``
    ``"score"`` its ``score`` fit; SystemExit naming what is missing."""
    from vision.confidence import check_calibration

    manifest = json.loads((model_dir / "manifest.json").read_text())
    if "calibration" not in manifest:
        raise SystemExit(f"{model_dir}/manifest.json has no calibration to apply")
    fit = check_calibration(manifest["calibration"])
    if event == "score":
        if "score" not in fit:
            raise SystemExit(f"{model_dir}/manifest.json has no score calibration to apply")
        return dict(fit["score"])
    return fit


def apply_report(
    rows: list[dict[str, Any]], model_dir: Path, as_json: bool, event: str = "hand"
) -> int:
    """Reliability of the manifest's calibration (its ``score`` fit for ``event``
    ``"score"``), as it is, on ``rows``."""
    from vision.confidence import logistic

    c = manifest_fit(model_dir, event)
    p = np.array([logistic(r, c["features"], c["coef"], c["intercept"]) for r in rows])
    y = np.array([float(r["exact"]) for r in rows])
    raw = np.array([r["reading"] for r in rows])
    report = {
        "photos": len(rows),
        "exact": round(float(y.mean()), 4),
        "raw": {"brier": round(float(np.mean((raw - y) ** 2)), 4), "ece": ece(raw, y)},
        "applied": _judge(p, y),
    }
    if as_json:
        print(json.dumps(report))
        return 0
    print(f"{len(rows)} photos, {report['exact']:.1%} read exactly")
    print(f"raw: Brier {report['raw']['brier']}, ECE {report['raw']['ece']}")
    applied = report["applied"]
    print(f"calibration applied: Brier {applied['brier']}, ECE {applied['ece']}")
    _print_bands(applied, "  ")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("model_dir", type=Path)
    ap.add_argument(
        "--data",
        action="append",
        metavar="DIR[:SPLIT]",
        help="YOLO dataset and split (default split val); repeat to fit on several "
        "(default: datasets/build/hk-photos:val)",
    )
    ap.add_argument(
        "--event",
        choices=("hand", "score"),
        default="hand",
        help="what is calibrated: the exact multiset (hand confidence, default) or the "
        "multiset up to the codes the MCR score treats alike (score confidence)",
    )
    ap.add_argument(
        "--path",
        choices=("app", "detections"),
        default="app",
        help="how each photo is read: as the app reads it (vision.recognize.recognize, "
        "default) or from the detector's boxes once (recognize_detections, the fits up "
        "to model .35)",
    )
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--l2", type=float, default=1.0, help="weight penalty (standardised units)")
    ap.add_argument(
        "--features",
        nargs="+",
        choices=SCORE_FEATURES,
        default=None,
        help="signals the fit uses (default: all but the box scores; by_place, only with "
        "--event score, when named)",
    )
    ap.add_argument(
        "--weight",
        action="append",
        default=[],
        metavar="SET=W",
        help="weight of a data set's rows (its folder name), e.g. synth-val-heldout=3",
    )
    ap.add_argument("--cache", type=Path, help="read/write the collected rows here")
    ap.add_argument("--write", action="store_true", help="put the fit into the manifest")
    ap.add_argument(
        "--apply", action="store_true", help="report the manifest's calibration, fit nothing"
    )
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    sources = []
    for item in args.data or [str(REPO / "datasets/build/hk-photos")]:
        folder, _, split = item.partition(":")
        sources.append((Path(folder), split or "val"))
    if args.features is None:
        args.features = DEFAULT_SCORE_FEATURES if args.event == "score" else DEFAULT_FEATURES
    if args.event == "hand" and "by_place" in args.features:
        raise SystemExit("--features by_place is a signal of --event score only")
    if args.cache and args.cache.is_file():
        rows = json.loads(args.cache.read_text())
        check_cache(rows, args.cache, args.path, args.event)
    else:
        rows = []
        for folder, split in sources:
            got = collect(folder, split, args.model_dir, args.event, args.path)
            if not got:
                raise SystemExit(f"{folder}: no photos in split {split!r}")
            rows += got
        if args.cache:
            args.cache.write_text(json.dumps(rows))
    if args.apply:
        return apply_report(rows, args.model_dir, args.json, args.event)
    weights = {}
    for item in args.weight:
        name, _, value = item.partition("=")
        try:
            weights[name] = float(value)
        except ValueError:  # also without "=": the value is then empty
            raise SystemExit(f"--weight {item!r}: expected SET=NUMBER") from None
    features = tuple(args.features)
    report = evaluate(rows, args.folds, args.l2, features, weights)
    x, y = _xy(rows, features)
    w, b = fit_logistic(x, y, args.l2, weights=row_weights(rows, weights))
    calibration = {
        "features": list(features),
        "coef": [round(float(v), 5) for v in w],
        "intercept": round(b, 5),
        "fitted_on": ("the multiset up to the MCR score's alike codes; " if args.event == "score"
                      else "") + "; ".join(
            f"{name}: {part['photos']} photos, exact {part['exact']:.3f}, {args.folds}-fold "
            f"by source Brier {part['calibrated_out_of_fold']['brier']} "
            f"ECE {part['calibrated_out_of_fold']['ece']} (raw confidence "
            f"{part['raw']['brier']} / {part['raw']['ece']})"
            for name, part in report["sets"].items()
        ),
    }
    report["calibration"] = calibration
    if args.write:
        path = args.model_dir / "manifest.json"
        manifest = json.loads(path.read_text())
        if args.event == "score":
            if "calibration" not in manifest:
                raise SystemExit(f"{path}: fit the hand confidence first (no calibration)")
            manifest["calibration"]["score"] = calibration
        else:  # a refit hand confidence keeps the score fit beside it
            kept = manifest.get("calibration", {}).get("score")
            manifest["calibration"] = calibration if kept is None else {**calibration,
                                                                        "score": kept}
        path.write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n")
    if args.json:
        print(json.dumps(report))
        return 0
    print(
        f"{report['photos']} photos from {report['sources']} sources, "
        f"{report['exact']:.1%} read exactly"
    )
    for set_name, part_set in [("all", report), *report["sets"].items()]:
        print(f"[{set_name}] {part_set['photos']} photos, exact {part_set['exact']:.1%}")
        for name in ("raw", "calibrated_out_of_fold"):
            part = part_set[name]
            print(f"  {name}: Brier {part['brier']}, ECE {part['ece']}")
            _print_bands(part, "    ")
    print("calibration:", json.dumps(calibration))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
