"""How tilecam reads a photo taken with the camera turned: the whole picture turned by a
quarter, a half or three quarters (a phone or webcam that sends no EXIF orientation tag),
or tilted by a few degrees.

For each turn of ``--rotations`` (degrees clockwise; ``0`` is the photo as it is) every
photo of a YOLO dataset's split (default ``datasets/build/hk-photos``, ``val``, read by
:func:`vision.evaluate.load_dataset` as ``tilecam eval`` and ``bench/layout_eval.py
photos`` read it) is turned with OpenCV — a multiple of 90° by :func:`cv2.rotate`, any
other angle by :func:`cv2.warpAffine` onto a canvas large enough to hold the whole
turned photo, filled with the photo's mean colour — and its label boxes with it (the box
around each turned box). Then, per turn:

- ``tile_f1`` (with ``precision`` and ``recall``): the shipped detector's tiles against
  the turned labels as ``tilecam eval`` scores them (class-agnostic matching at IoU 0.5,
  a matched tile right when its code is; :func:`vision.evaluate.evaluate`), summed over
  the photos. For a tilt the turned labels are looser than the tiles (a labelled box
  turned is larger than the tile it holds), so compare tilts by the multiset figures.
- ``exact_multiset_top1``: the share of photos whose detected codes (top-1) are exactly
  the labelled multiset; ``exact_multiset_corrected``: the same for the codes of
  :func:`vision.recognize.recognize` (layout, rule-aware correction, re-reads; given the
  detections, as ``bench/layout_eval.py photos`` does, with the win decided by the tile
  count).
- ``sideways_majority``: the share of photos most of whose tiles the detector reads as
  lying at 90° or 270° (the sign a photo was taken turned).
- ``recognize_ms_median``: median ms of the ``recognize`` call after detection.

With ``0`` listed first, ``lost_vs_unturned`` / ``mended_vs_unturned`` count the photos
exact (after correction) unturned but not turned, and the other way: photo by photo, so
a net figure's noise shows. ``not_exact_corrected`` names the photos not exact after
correction, per turn, so two runs (before and after a change) can be compared photo by
photo (``--names``).

The hk-photos copies are Roboflow exports already turned and tilted (about 40 % of the
val photos show most tiles lying at 90° or 270° as they are, many rows lie 20-40° off
the edges), so a turn here often turns a turned photo back. ``--copies untouched`` keeps
only each photo's copy as it was taken (:func:`vision.evaluate.untouched_copies`): the
cleaner test of a camera turned.

Usage::

    .venv/bin/python bench/orientation_eval.py [DATASET] [--split val]
        [--rotations 0,90,180,270,10,-10,20,-20] [--limit N] [--copies untouched]
        [--model-dir M]
        [--names] [--json]
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from vision.classes import CLASSES  # noqa: E402
from vision.detections import Detections  # noqa: E402
from vision.evaluate import Sample, evaluate, load_dataset, select_copies  # noqa: E402

DEFAULT_ROTATIONS = (0, 90, 180, 270, 10, -10, 20, -20)


def turn_matrix(width: int, height: int, degrees: float) -> tuple[npt.NDArray[np.float64],
                                                                  tuple[int, int]]:
    """The 2×3 affine matrix that turns a ``width × height`` picture by ``degrees``
    clockwise about its centre onto a canvas that holds all of it, and that canvas's
    (width, height) in px. A quarter turn's canvas is the picture's sides swapped, and
    the matrix maps pixel edges as :func:`cv2.rotate` does."""
    m = np.asarray(cv2.getRotationMatrix2D((width / 2, height / 2), -degrees, 1.0), np.float64)
    rad = math.radians(degrees)
    c, s = abs(math.cos(rad)), abs(math.sin(rad))
    if degrees % 90 == 0:
        c, s = round(c), round(s)
    new_w = round(width * c + height * s)
    new_h = round(width * s + height * c)
    m[0, 2] += new_w / 2 - width / 2
    m[1, 2] += new_h / 2 - height / 2
    return m, (new_w, new_h)


def turn_image(image: npt.NDArray[np.uint8], degrees: float) -> npt.NDArray[np.uint8]:
    """``image`` (BGR) turned ``degrees`` clockwise (:func:`turn_matrix`)."""
    quarter = {90: cv2.ROTATE_90_CLOCKWISE, 180: cv2.ROTATE_180,
               270: cv2.ROTATE_90_COUNTERCLOCKWISE}
    if degrees % 360 == 0:
        return image
    if degrees % 360 in quarter:
        return np.ascontiguousarray(cv2.rotate(image, quarter[int(degrees % 360)]))
    h, w = image.shape[:2]
    m, size = turn_matrix(w, h, degrees)
    fill = tuple(float(v) for v in image.reshape(-1, image.shape[2]).mean(axis=0))
    out = cv2.warpAffine(image, m, size, flags=cv2.INTER_LINEAR,
                         borderMode=cv2.BORDER_CONSTANT, borderValue=fill)
    return np.asarray(out, np.uint8)


def turn_boxes(boxes: npt.NDArray[np.float32], width: int, height: int,
               degrees: float) -> npt.NDArray[np.float32]:
    """xyxy ``boxes`` (px of a ``width × height`` picture) turned with the picture by
    ``degrees`` clockwise: the axis-aligned box around each turned box, in px of the
    turned picture."""
    if not len(boxes):
        return boxes.reshape(0, 4)
    m, _ = turn_matrix(width, height, degrees)
    x0, y0, x1, y1 = (boxes[:, i].astype(np.float64) for i in range(4))
    corners = np.stack([np.stack([x0, y0], 1), np.stack([x1, y0], 1),
                        np.stack([x1, y1], 1), np.stack([x0, y1], 1)], 1)  # (n, 4, 2)
    moved = corners @ m[:, :2].T + m[:, 2]
    return np.concatenate([moved.min(axis=1), moved.max(axis=1)], axis=1).astype(np.float32)


def turned_sample(sample: Sample, width: int, height: int, degrees: float) -> Sample:
    """``sample`` with its labels turned with the picture (YOLO rows of the turned one)."""
    _, (new_w, new_h) = turn_matrix(width, height, degrees)
    b = turn_boxes(sample.boxes(width, height), width, height, degrees).astype(np.float64)
    cx, cy = (b[:, 0] + b[:, 2]) / 2 / new_w, (b[:, 1] + b[:, 3]) / 2 / new_h
    w, h = (b[:, 2] - b[:, 0]) / new_w, (b[:, 3] - b[:, 1]) / new_h
    labels = np.stack([sample.labels[:, 0], cx, cy, w, h], axis=1) if len(b) else sample.labels
    return Sample(sample.image, labels, sample.labelled)


def sideways_majority(d: Detections) -> bool:
    """Whether most of ``d``'s tiles are read as lying at 90° or 270°."""
    return bool(len(d)) and int(np.isin(d.rotations, (90, 270)).sum()) * 2 > len(d)


@dataclass
class Tally:
    """One turn's counts."""

    photos: int = 0
    tp: int = 0
    fp: int = 0
    fn: int = 0
    top1: int = 0
    corrected: int = 0
    sideways: int = 0
    ms: list[float] = field(default_factory=list)
    not_exact: list[str] = field(default_factory=list)

    def to_dict(self, names: bool) -> dict[str, Any]:
        p = self.tp / max(self.tp + self.fp, 1)
        r = self.tp / max(self.tp + self.fn, 1)
        out: dict[str, Any] = {
            "photos": self.photos,
            "precision": round(p, 4),
            "recall": round(r, 4),
            "tile_f1": round(2 * p * r / (p + r) if p + r else 0.0, 4),
            "exact_multiset_top1": round(self.top1 / max(self.photos, 1), 4),
            "exact_multiset_corrected": round(self.corrected / max(self.photos, 1), 4),
            "sideways_majority": round(self.sideways / max(self.photos, 1), 4),
            "recognize_ms_median": round(statistics.median(self.ms), 1) if self.ms else None,
        }
        if names:
            out["not_exact_corrected"] = self.not_exact
        return out


def eval_turn(samples: list[Sample], detector: Any, degrees: float) -> Tally:
    """Detect and recognize every photo of ``samples`` turned ``degrees`` clockwise."""
    from vision.recognize import recognize

    tally = Tally()
    for sample in samples:
        read = cv2.imread(str(sample.image))
        if read is None:
            continue
        h, w = read.shape[:2]
        image = turn_image(np.asarray(read, np.uint8), degrees)
        turned = turned_sample(sample, w, h, degrees)
        found: list[Detections] = []

        def run(_: Path, image: npt.NDArray[np.uint8] = image,
                found: list[Detections] = found) -> Detections:
            found.append(detector(image))
            return found[-1]

        report = evaluate([turned], run, conf=0.0,
                          thresholds=lambda d: np.zeros(len(d), np.float32))
        res = report.results[0]
        tally.photos += 1
        tally.tp += res.right
        tally.fp += res.false_pos
        tally.fn += res.false_neg
        d = found[0]
        truth = Counter(CLASSES[c] for c in sample.class_ids)
        tally.top1 += Counter(d.codes) == truth
        tally.sideways += sideways_majority(d)
        t0 = time.perf_counter()
        rec = recognize(image, "mcr", detector=detector, detections=d)
        tally.ms.append((time.perf_counter() - t0) * 1000)
        exact = Counter(rec.codes) == truth
        tally.corrected += exact
        if not exact:
            tally.not_exact.append(sample.image.name)
    return tally


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dataset", nargs="?", type=Path,
                    default=REPO / "datasets" / "build" / "hk-photos")
    ap.add_argument("--split", default="val")
    ap.add_argument("--rotations", default=",".join(str(r) for r in DEFAULT_ROTATIONS),
                    help="degrees clockwise, comma-separated (default %(default)s)")
    ap.add_argument("--limit", type=int, default=None, help="first N photos only")
    ap.add_argument("--copies", default="all",
                    help="which copies of each photo (as tilecam eval --copies: all, "
                         "originals, untouched, trusted; default all)")
    ap.add_argument("--model-dir", type=Path, default=None)
    ap.add_argument("--names", action="store_true", help="list the photos not exact")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args(argv)
    try:
        turns = [float(r) for r in args.rotations.split(",") if r.strip()]
    except ValueError:
        ap.error(f"--rotations: numbers of degrees, not {args.rotations!r}")
    from vision.detect import load_detector

    try:
        samples = select_copies(load_dataset(args.dataset, args.split),
                                args.copies)[: args.limit]
    except ValueError as exc:
        raise SystemExit(f"orientation_eval: {exc}") from None
    detector = load_detector(args.model_dir)
    result: dict[str, Any] = {"dataset": str(args.dataset), "split": args.split,
                              "copies": args.copies,
                              "model": detector.name, "turns": {}}
    unturned: set[str] | None = None  # the photos not exact as they are, once read
    for deg in turns:
        tally = eval_turn(samples, detector, deg)
        result["turns"][f"{deg:g}"] = row = tally.to_dict(args.names)
        if deg % 360 == 0 and unturned is None:
            unturned = set(tally.not_exact)
        elif unturned is not None:  # photo by photo against the photos as they are
            now = set(tally.not_exact)
            row["lost_vs_unturned"] = len(now - unturned)
            row["mended_vs_unturned"] = len(unturned - now)
        if not args.json:
            shown = {k: v for k, v in row.items() if k != "not_exact_corrected"}
            print(f"{deg:>6g}°  " + "  ".join(f"{k} {v}" for k, v in shown.items()),
                  flush=True)
    if args.json:
        print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
