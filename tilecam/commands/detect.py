"""``tilecam detect IMAGE...``: find the tiles in photos.

Text output: one line per image, tiles left to right. ``--json``: one JSON object per
line per image, in argument order::

    {"image": "hand.jpg", "width": 1280, "height": 960, "ms": 41.2, "model": "...",
     "tiles": [{"code": "5p", "box": [x1, y1, x2, y2], "confidence": 0.97,
                "rotation": 0, "face_down": false}, ...]}

A bad image gives ``{"image": ..., "error": "..."}`` (or a message on stderr) and the
other images are still processed; the exit code is then 2.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any


def register(sub: Any) -> None:
    p = sub.add_parser(
        "detect",
        help="find the tiles in photos (codes, boxes, confidence, rotation)",
        description="Find the tiles in one or more photos with the shipped detector.",
    )
    p.add_argument("images", nargs="+", metavar="IMAGE", help="photo files (JPEG, PNG, WebP…)")
    p.add_argument("--json", action="store_true", help="one JSON object per line per image")
    p.add_argument(
        "--annotate",
        metavar="OUT.jpg",
        type=Path,
        help="write the photo with boxes and codes drawn (OUT-1.jpg, OUT-2.jpg… for several)",
    )
    p.add_argument("--model-dir", type=Path, default=None, help="model folder (default models/)")
    p.add_argument("--conf", type=float, default=None, help="confidence threshold 0..1")
    p.set_defaults(func=run)


def annotate_path(out: Path, index: int, count: int) -> Path:
    """``out`` itself for one image, else ``out`` with ``-<index+1>`` before the suffix.

    >>> annotate_path(Path("a/hand.jpg"), 1, 3).as_posix()
    'a/hand-2.jpg'
    """
    if count == 1:
        return out
    return out.with_name(f"{out.stem}-{index + 1}{out.suffix}")


def tile_records(det: Any) -> list[dict[str, Any]]:
    """The contract's tile fields, left to right by box centre."""
    records = det.to_records()
    order = sorted(range(len(records)), key=lambda i: float(det.centers[i, 0]))
    keys = ("code", "box", "confidence", "rotation", "face_down")
    return [{k: records[i][k] for k in keys} for i in order]


def run(args: argparse.Namespace) -> int:
    from vision.annotate import annotate, save_image, target_problem
    from vision.detect import load_detector
    from vision.imageio import ImageError, load_image

    if args.conf is not None and not 0 <= args.conf <= 1:
        raise ValueError(f"--conf must be between 0 and 1, got {args.conf}")
    if args.annotate is not None and (problem := target_problem(args.annotate)) is not None:
        raise ValueError(f"--annotate: {problem}")
    options = {"conf": args.conf} if args.conf is not None else {}
    detector = load_detector(args.model_dir, **options)
    failed = 0
    for i, name in enumerate(args.images):
        start = time.perf_counter()
        try:
            image = load_image(Path(name))
            det = detector.detect(image)
            ms = round((time.perf_counter() - start) * 1000, 1)
        except ImageError as exc:
            failed += 1
            if args.json:
                print(json.dumps({"image": name, "error": str(exc)}), flush=True)
            else:
                text = str(exc) if name in str(exc) else f"{name}: {exc}"  # the name once
                print(f"tilecam detect: error: {text}", file=sys.stderr, flush=True)
            continue
        tiles = tile_records(det)
        width, height = det.image_size or (image.shape[1], image.shape[0])
        if args.json:
            record = {
                "image": name,
                "width": width,
                "height": height,
                "ms": ms,
                "model": det.meta["model"],
                "tiles": tiles,
            }
            print(json.dumps(record, ensure_ascii=False), flush=True)
        else:
            codes = " ".join(t["code"] for t in tiles) or "(no tiles)"
            print(f"{name}: {width}×{height}, {len(tiles)} tiles in {ms:.0f} ms: {codes}")
        if args.annotate is not None:
            out = annotate_path(args.annotate, i, len(args.images))
            save_image(out, annotate(image, det))
            if not args.json:
                print(f"  annotated: {out}")
    return 2 if failed else 0
