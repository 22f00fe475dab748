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

``--iou X`` other than 0.5 measures every figure at IoU X, and the AP figures say so:
``mAP@X`` and ``AP@X`` in the text, ``"map"`` and per-class ``"ap"`` in JSON (with
``"iou"``), never ``mAP50``/``map50`` for a figure that is not at 0.5.

The report names the folder the images were read from (JSON ``"images_dir"``); when
``data.yaml``'s ``path:`` sends the evaluation outside DATASET_DIR, a note on stderr and
the text header say so. ``--split`` names a split (``val``, ``train``…), not a path.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

#: The IoU the figures named mAP50/AP50 (JSON map50/ap50) are measured at.
IOU_50 = 0.5


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
    p.add_argument("--iou", type=float, default=0.5,
                   help="IoU for a match (default 0.5); at another IoU the AP figures are "
                   "named by it: mAP@0.6 (JSON \"map\"/\"ap\" with \"iou\")")
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
    check_split(args.split)
    from tilecam.commands._model import check_model_dir, check_model_file

    check_model_dir(args.model_dir, "--model-dir")
    check_model_file(args.weights, "--weights")
    yaml_path, base = data_yaml_path(args.dataset)
    samples = select_copies(load_dataset(args.dataset, args.split), args.copies)
    images_dir = (Path(os.path.commonpath([str(s.image.parent) for s in samples]))
                  if samples else args.dataset)
    outside = not _inside(images_dir, args.dataset)
    if outside:
        why = f"has path: {base}, so" if base is not None else "sends the evaluation elsewhere:"
        print(f"tilecam eval: note: {yaml_path} {why} the images are read from {images_dir}, "
              f"outside {args.dataset}", file=sys.stderr, flush=True)
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
        out = label_iou(report.to_dict(), args.iou)
        out.update(
            dataset=str(args.dataset), split=args.split, copies=args.copies, model=model,
            images_dir=str(images_dir),
        )
        print(json.dumps(out, ensure_ascii=False))
    else:
        where = f" (images from {images_dir})" if outside else ""
        print(f"{args.dataset} [{args.split}, {args.copies} copies]{where}, model {model}")
        print(label_iou_text(report.format(), args.iou))
    return 0


def check_split(split: str) -> None:
    """ValueError for a ``--split`` that names no split: empty (every split under
    ``images/`` at once), or a path (``../..`` walks out of the dataset)."""
    if not split.strip() or split != split.strip():
        raise ValueError(f"--split must name a split, e.g. val or train, not {split!r}")
    if "/" in split or "\\" in split or split in (".", ".."):
        raise ValueError(f"--split {split!r}: give a split's name (val, train, test…), "
                         "not a path")


def data_yaml_path(root: Path) -> tuple[Path | None, str | None]:
    """``root``'s data.yaml and its ``path:`` (None when absent); ValueError naming the
    file for one that is not UTF-8 text or whose ``path:`` is no folder name (the rest of
    its checks are :func:`vision.evaluate.load_dataset`'s)."""
    import yaml

    found = next((root / n for n in ("data.yaml", "dataset.yaml") if (root / n).is_file()),
                 None)
    if found is None:
        return None, None
    try:
        text = found.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{found} is not UTF-8 text") from None
    except OSError:
        return found, None  # load_dataset names it
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError:
        return found, None  # load_dataset names the problem
    if not isinstance(data, dict) or not data.get("path"):
        return found, None
    base = data["path"]
    if not isinstance(base, str):
        raise ValueError(f"{found}: 'path' must be a folder name, not {base!r}")
    return found, base


def _inside(folder: Path, root: Path) -> bool:
    try:
        folder.resolve().relative_to(root.resolve())
    except ValueError:
        return False
    return True


def label_iou(out: dict[str, Any], iou: float) -> dict[str, Any]:
    """The report's JSON with its AP figures named by ``iou``: ``map50``/``ap50`` at 0.5,
    ``map``/``ap`` otherwise (the IoU is ``"iou"``).

    >>> label_iou({"iou": 0.6, "map50": 0.8, "per_class": {"1m": {"ap50": 0.7}}}, 0.6)
    {'iou': 0.6, 'per_class': {'1m': {'ap': 0.7}}, 'map': 0.8}
    """
    if iou == IOU_50:
        return out
    out["map"] = out.pop("map50")
    out["per_class"] = {code: {("ap" if k == "ap50" else k): v for k, v in m.items()}
                        for code, m in out.get("per_class", {}).items()}
    return out


def label_iou_text(text: str, iou: float) -> str:
    """The report's text with ``mAP50``/``AP50`` named by ``iou`` (``mAP@0.6``)."""
    if iou == IOU_50:
        return text
    name = f"AP@{iou:g}"
    lines = []
    for line in text.split("\n"):
        if line.startswith("mAP50 "):
            line = f"m{name} " + line[len("mAP50 "):]
        elif line.startswith("class") and line.endswith("AP50"):
            line = line[: -len("   AP50")] + f"{name:>7}"
        lines.append(line)
    return "\n".join(lines)
