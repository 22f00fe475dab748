"""Choose the detector's operating point on *training* photos (never on validation).

Grid: classifier weight (the manifest's crop classifier fused with this weight, or no
classifier at all) × confidence threshold. Each image is detected once per weight at a
low threshold; every threshold is then scored from those detections with
:func:`vision.evaluate.evaluate`. One image per source photo (distinct stems), so a
photo's copies do not count several times.

usage: .venv/bin/python train/operating_point.py MODEL_DIR [--dataset datasets/build/hk-photos]
           [--split train] [--images 150] [--weights none 0.3 0.5 0.7]
           [--confs 0.1 0.15 0.2 0.25 0.3 0.4] [--json]

Prints one row per (weight, conf): precision, recall, F1, images all right; the best row
by F1 (ties: images all right) last. Writes nothing: put the choice in the manifest.
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
from vision.detections import Detections  # noqa: E402
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("model_dir", type=Path)
    ap.add_argument("--dataset", type=Path, default=REPO / "datasets/build/hk-photos")
    ap.add_argument("--split", default="train")
    ap.add_argument("--images", type=int, default=150)
    ap.add_argument("--weights", nargs="+", default=["none", "0.3", "0.5", "0.7"])
    ap.add_argument("--confs", nargs="+", type=float, default=[0.1, 0.15, 0.2, 0.25, 0.3, 0.4])
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if args.split == "val":
        sys.exit("choose the operating point on training photos, not on the validation split")

    samples = one_per_photo(load_dataset(args.dataset, args.split), args.images)
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
        cache: dict[Path, Detections] = {s.image: det.detect(s.image) for s in samples}
        for c in args.confs:
            r = evaluate(samples, cache.__getitem__, conf=c, score=detection_scores)
            row = {
                "weight": w,
                "conf": c,
                "precision": round(float(r.precision), 4),
                "recall": round(float(r.recall), 4),
                "f1": round(float(r.f1), 4),
                "images_all_right": round(float(r.images_all_right), 4),
            }
            rows.append(row)
            if not args.json:
                print(
                    f"weight {w:>5}  conf {c:.2f}  P {r.precision:.3f}  R {r.recall:.3f}  "
                    f"F1 {r.f1:.3f}  all right {r.images_all_right:.1%}",
                    flush=True,
                )
    best = max(rows, key=lambda r: (r["f1"], r["images_all_right"]))
    if args.json:
        print(json.dumps({"images": len(samples), "split": args.split, "rows": rows, "best": best}))
    else:
        print(f"best on {len(samples)} {args.split} photos: {best}")


if __name__ == "__main__":
    main()
