"""Choose the detector's operating point on *training* photos (never on validation).

Grid: classifier weight (the manifest's crop classifier fused with this weight, or no
classifier at all) × confidence threshold. Each image is detected once per weight at a
low threshold; every threshold is then scored from those detections with
:func:`vision.evaluate.evaluate`. One image per source photo (distinct stems), so a
photo's copies do not count several times.

usage: .venv/bin/python train/operating_point.py MODEL_DIR [--set DIR:SPLIT ...]
           [--images 150] [--weights none 0.3 0.5 0.7]
           [--confs 0.1 0.15 0.2 0.25 0.3 0.4] [--json]

Default sets: the hk-photos *training* photos (the detector has seen them, which favours
it over the classifier) and the held-out-art synthetic set v1 (``synth-val-heldout``:
art neither model trained on, which the hidden real photos resemble more); the report
figures use the real val split and the held-out synthetic set v2, which this never reads.
Prints one row per (weight, conf); the best by mean F1 last. Writes nothing: put the
choice in the manifest.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from vision.data.photos import source_stem  # noqa: E402
from vision.detect import Detector, detection_scores  # noqa: E402
from vision.evaluate import Sample, evaluate, load_dataset  # noqa: E402

LOW_CONF = 0.05


def one_per_photo(samples: list[Sample], limit: int) -> list[Sample]:
    """The first copy of each source photo, at most ``limit`` of them."""
    seen: set[str] = set()
    out: list[Sample] = []
    for s in samples:
        stem = source_stem(s.image.name)
        if stem not in seen:
            seen.add(stem)
            out.append(s)
    return out[:limit]


def _parse_set(text: str) -> tuple[Path, str]:
    path, _, split = text.partition(":")
    if not split:
        raise argparse.ArgumentTypeError(f"expected DIR:SPLIT, got {text!r}")
    if split == "val" and "hk-photos" in path:
        raise argparse.ArgumentTypeError(
            "choose the operating point on training photos, not on the real validation split"
        )
    return Path(path), split


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("model_dir", type=Path)
    ap.add_argument(
        "--set",
        dest="sets",
        type=_parse_set,
        action="append",
        help="DIR:SPLIT to score on (repeatable; default: hk-photos training photos and the "
        "held-out-art synthetic set v1); the choice maximises the mean F1 over the sets",
    )
    ap.add_argument("--images", type=int, default=150, help="images per set (one per photo)")
    ap.add_argument("--weights", nargs="+", default=["none", "0.3", "0.5", "0.7"])
    ap.add_argument("--confs", nargs="+", type=float, default=[0.1, 0.15, 0.2, 0.25, 0.3, 0.4])
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    sets = args.sets or [
        (REPO / "datasets/build/hk-photos", "train"),
        (REPO / "datasets/generated/synth-val-heldout", "val"),
    ]
    data = [(f"{d.name}:{sp}", one_per_photo(load_dataset(d, sp), args.images)) for d, sp in sets]
    base = Detector(args.model_dir, conf=LOW_CONF, threads=2)
    rows = []
    for w in args.weights:
        det = Detector(
            args.model_dir, conf=LOW_CONF, backend=base.backend, classifier=base.classifier
        )
        if w == "none":
            det.classifier = None
        elif det.classifier_spec is None:
            continue
        else:
            det.classifier_spec = replace(det.classifier_spec, weight=float(w))
        caches = [{s.image: det.detect(s.image) for s in samples} for _, samples in data]
        for c in args.confs:
            row: dict[str, object] = {"weight": w, "conf": c}
            stats: dict[str, dict[str, float]] = {}
            f1s = []
            for (name, samples), cache in zip(data, caches, strict=True):
                r = evaluate(samples, cache.__getitem__, conf=c, score=detection_scores)
                row[name] = stats[name] = {
                    "precision": round(float(r.precision), 4),
                    "recall": round(float(r.recall), 4),
                    "f1": round(float(r.f1), 4),
                    "images_all_right": round(float(r.images_all_right), 4),
                }
                f1s.append(float(r.f1))
            row["mean_f1"] = round(sum(f1s) / len(f1s), 4)
            rows.append(row)
            if not args.json:
                parts = "  ".join(
                    f"{n} F1 {st['f1']:.3f} ({st['images_all_right']:.1%} all right)"
                    for n, st in stats.items()
                )
                print(
                    f"weight {w:>5}  conf {c:.2f}  mean F1 {row['mean_f1']:.3f}  {parts}",
                    flush=True,
                )
    best = max(rows, key=lambda r: r["mean_f1"])  # type: ignore[arg-type,return-value]
    if args.json:
        print(json.dumps({"sets": [n for n, _ in data], "rows": rows, "best": best}))
    else:
        print(f"best: weight {best['weight']} conf {best['conf']} (mean F1 {best['mean_f1']})")


if __name__ == "__main__":
    main()
