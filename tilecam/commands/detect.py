"""``tilecam detect IMAGE...``: find the tiles in photos.

Text output: one line per image, tiles left to right. ``--json``: one JSON object per
line per image, in argument order::

    {"image": "hand.jpg", "width": 1280, "height": 960, "ms": 41.2, "model": "...",
     "tiles": [{"code": "5p", "box": [x1, y1, x2, y2], "confidence": 0.97,
                "rotation": 0, "face_down": false}, ...]}

A bad image gives ``{"image": ..., "error": "..."}`` (or a message on stderr) and the
other images are still processed; the exit code is then 2.

``--annotate OUT.jpg`` writes each image with its boxes drawn (``OUT-1.jpg``,
``OUT-2.jpg``… for several). What would fail for every image (a name without an image
ending, a folder that does not exist or takes no file) or would overwrite an input
image is refused before any work, as is a single image's ``OUT.jpg`` that cannot be
written. An ``OUT-N.jpg`` that cannot be written (a folder in the way, permission
denied) adds ``"error"`` to that image's line (or a message on stderr), the other images
go on, and the exit code is 2.
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


def _is_text(name: str) -> bool:
    r"""Whether ``name`` encodes as UTF-8 (a file name of undecodable bytes does not).

    >>> _is_text("café.jpg"), _is_text("caf\udce9.jpg")
    (True, False)
    """
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def tile_records(det: Any) -> list[dict[str, Any]]:
    """The contract's tile fields, left to right by box centre."""
    records = det.to_records()
    order = sorted(range(len(records)), key=lambda i: float(det.centers[i, 0]))
    keys = ("code", "box", "confidence", "rotation", "face_down")
    return [{k: records[i][k] for k in keys} for i in order]


def run(args: argparse.Namespace) -> int:
    from vision.annotate import annotate, folder_problem, same_files, save_image, target_problem
    from vision.detect import load_detector
    from vision.imageio import ImageError, load_for_reading

    if args.conf is not None and not 0 <= args.conf <= 1:
        raise ValueError(f"--conf must be between 0 and 1, got {args.conf}")
    count = len(args.images)
    targets = ([annotate_path(args.annotate, i, count) for i in range(count)]
               if args.annotate is not None else [])
    if targets:
        # one image: its one target; several: what every OUT-N shares (an OUT-N that
        # cannot be written is that image's error, the others go on)
        check = target_problem if count == 1 else folder_problem
        if (problem := check(targets[0])) is not None:
            raise ValueError(f"--annotate: {problem}")
        if clash := same_files(targets, args.images):
            out, source = clash[0]
            raise ValueError(f"--annotate: {out} is the input image {source}: writing it "
                             "would replace the photo; give another name")
    options = {"conf": args.conf} if args.conf is not None else {}
    detector = load_detector(args.model_dir, **options)
    failed = 0
    for i, name in enumerate(args.images):
        start = time.perf_counter()
        try:
            # loaded as POST /v1/detect and /v1/recognize load an upload (a large JPEG
            # decoded reduced, whole only when small tiles or --annotate need its pixels)
            photo = load_for_reading(Path(name))
            det = detector.detect(photo)
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
        width, height = det.image_size or photo.size
        written, problem = None, None
        if targets:
            try:
                written = save_image(targets[i], annotate(photo.pixels, det))
            except ValueError as exc:  # this image's picture only: the others go on
                failed += 1
                problem = f"annotated image not written: {exc}"
        if args.json:
            record = {
                "image": name,
                "width": width,
                "height": height,
                "ms": ms,
                "model": det.meta["model"],
                "tiles": tiles,
            }
            if problem is not None:
                record["error"] = problem
            # a name that is not valid text (a non-UTF-8 byte, kept by Python as a lone
            # surrogate) is written \u-escaped, as the error line writes it: raw, the byte
            # would make the line invalid UTF-8 and so invalid JSON text
            print(json.dumps(record, ensure_ascii=not _is_text(name)), flush=True)
        else:
            codes = " ".join(t["code"] for t in tiles) or "(no tiles)"
            print(f"{name}: {width}×{height}, {len(tiles)} tiles in {ms:.0f} ms: {codes}",
                  flush=True)
            if written is not None:
                print(f"  annotated: {written}", flush=True)
            if problem is not None:
                print(f"tilecam detect: error: {name}: {problem}", file=sys.stderr, flush=True)
    return 2 if failed else 0
