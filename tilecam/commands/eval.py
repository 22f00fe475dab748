"""``tilecam eval DATASET_DIR``: measure the detector on a labelled YOLO dataset.

Prints per-class precision/recall/F1 at IoU 0.5, mAP50, the share of images with every
tile right and the most confused pairs (``--json`` for one JSON object). The detector
runs with a low threshold (0.01) so that mAP50 sees the whole ranking; precision,
recall, F1 and images-right use the model's operating threshold (``--conf``; a box read
as a flower or season needs only the manifest's ``bonus_conf`` when that is lower, and
a box where a row of the tiles kept goes on only ``row_fill.min_score`` when the
manifest sets ``row_fill``, as :func:`vision.detect.keep_thresholds` does for ``detect``).

Labels are checked as they are read (:func:`vision.evaluate.load_dataset`): a split where
no image has a label file is refused, and so is a malformed line (not five numbers — a
segmentation polygon, say —, a class that is no whole number of the dataset's classes,
a number that is not finite, a centre outside the image or a size not in (0, 1]),
naming the file and line. Images without a label file count as showing no tile and are
counted in the report (``images_without_labels``), apart from empty label files. A
per-class figure that does not exist — recall and AP50 of a class with no labelled tile,
precision and F1 of one with no detection either — prints as ``–`` (``null`` in JSON).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any


def register(sub: Any) -> None:
    p = sub.add_parser(
        "eval",
        help="measure the detector on a labelled YOLO dataset (P/R/F1, mAP50, whole images)",
        description="Measure the tile detector on a YOLO-layout dataset folder.",
    )
    p.add_argument("dataset", type=Path, metavar="DATASET_DIR", help="folder with data.yaml")
    p.add_argument("--split", default="val", help="which split to evaluate (default val)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--model-dir", type=Path, default=None, help="model folder (default models/)")
    p.add_argument(
        "--weights",
        type=Path,
        default=None,
        help="evaluate this .onnx or .pt file instead of the manifest's detector "
        "(same classes; .pt needs torch + ultralytics)",
    )
    p.add_argument(
        "--conf", type=float, default=None, help="operating threshold (default: model's)"
    )
    p.add_argument("--iou", type=float, default=0.5, help="IoU for a match (default 0.5)")
    p.add_argument("--limit", type=int, default=None, help="evaluate only the first N images")
    p.add_argument(
        "--copies",
        choices=("all", "originals", "untouched", "trusted"),  # vision.evaluate.COPIES
        default="all",
        help="Roboflow-style exports: 'originals' keeps one copy per file-name stem, the one "
        "with the tightest boxes (the un-augmented photo when the export kept it); "
        "'untouched' only those originals that show no turn or shear (no corners filled "
        "by the export); 'trusted' every copy of those untouched photos (labels carried "
        "from the photo as taken onto its turned copies); default all",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from vision.backends import open_backend
    from vision.detect import detection_scores, evaluation_detector
    from vision.evaluate import evaluate, load_dataset, select_copies

    if args.conf is not None and not 0 <= args.conf <= 1:
        raise ValueError(f"--conf must be between 0 and 1, got {args.conf}")
    if not 0 < args.iou <= 1:
        raise ValueError(f"--iou must be in (0, 1], got {args.iou}")
    if args.limit is not None and args.limit < 1:
        raise ValueError(f"--limit must be 1 or more images, not {args.limit}")
    samples = select_copies(load_dataset(args.dataset, args.split), args.copies)
    if args.limit is not None:
        samples = samples[: args.limit]
    backend = open_backend(args.weights) if args.weights else None
    setup = evaluation_detector(args.model_dir, conf=args.conf, backend=backend)
    detector = setup.detector
    # the weights evaluated, in the pipeline of the model folder's manifest
    model = (f"{args.weights} in {detector.name}'s pipeline" if args.weights
             else detector.name)

    tty = sys.stderr.isatty()

    def progress(done: int) -> None:
        if done % (10 if tty else 100) == 0 or done == len(samples):
            end = "" if tty and done < len(samples) else "\n"
            lead = "\r" if tty else ""
            print(f"{lead}eval: {done}/{len(samples)} images", end=end, file=sys.stderr, flush=True)

    report = evaluate(
        samples,
        detector.detect,
        conf=setup.conf,
        iou=args.iou,
        progress=progress,
        score=detection_scores,
        thresholds=setup.thresholds,
        operating=setup.operating.detect if setup.operating is not None else None,
    )
    if args.json:
        out = report.to_dict()
        out.update(
            dataset=str(args.dataset), split=args.split, copies=args.copies, model=model
        )
        print(json.dumps(out, ensure_ascii=False))
    else:
        print(f"{args.dataset} [{args.split}, {args.copies} copies], model {model}")
        print(report.format())
    return 0
