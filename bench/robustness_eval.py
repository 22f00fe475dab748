"""How reading holds up when the light, the lens or the file is worse than in the photos.

The model is also judged on photos no one here has: other rooms, other phones. This
bench takes real photos with known tiles (the hk-photos split, by default the photos as
taken — ``--copies untouched`` — so that no turned or sheared copy compounds a change)
and reads each again after one change a phone photo often shows, reporting for each
the tile F1 and the share of photos with every tile right, as ``tilecam eval`` counts
them (IoU 0.5, the detector's own thresholds), and the change from the photos as taken:

- ``as taken``: the photo unchanged;
- ``dim``: a dim room — brightness × 0.45 and sensor noise (σ 4 grey levels);
- ``overexposed``: brightness × 1.6, clipped (a flash or a lamp over the table);
- ``warm light``: a tungsten cast (blue × 0.7, red × 1.1);
- ``shadow``: one half of the photo, cut at a random slant, darkened × 0.5 (a hand or
  a head between the lamp and the table);
- ``blur``: out of focus, Gaussian σ 1.5 px at the photo's size;
- ``motion blur``: a 7 px straight smear at a random direction (a shaking hand);
- ``noise``: sensor noise, σ 10 grey levels;
- ``jpeg 25``: re-saved at JPEG quality 25 (a messaging app);
- ``half size``: the photo at half its width and height (a far or cheap camera; the
  tiles a quarter of the pixels);
- ``upside down``: turned 180° (the hand photographed from across the table; the
  detections are turned back before they are matched);
- ``quarter turn``, ``quarter turn ccw``: turned 90° clockwise or counter-clockwise
  (the hand photographed from the seat beside its owner, or a landscape photo saved as
  portrait without its EXIF turn); the detections are turned back likewise.

Each change is drawn once per photo from ``--seed`` (the same photos get the same
changes on every run). Real photos of the val split are a report set: a model or a rule
is never chosen on these figures (``--split train`` measures the training photos).

Usage::

    .venv/bin/python bench/robustness_eval.py [--data datasets/build/hk-photos]
        [--split val] [--copies untouched|originals|all] [--conditions NAME ...]
        [--limit N] [--model-dir DIR] [--seed 0] [--json]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from vision.data.degrade import darken  # noqa: E402
from vision.detections import Detections  # noqa: E402

Image = np.ndarray
Change = Callable[[Image, np.random.Generator], Image]


def _clip(x: np.ndarray) -> Image:
    return np.asarray(np.clip(x, 0, 255), np.uint8)


def dim(img: Image, rng: np.random.Generator) -> Image:
    """Brightness × 0.45 with sensor noise (σ 4)."""
    return darken(img, 0.45, 4.0, rng)


def overexposed(img: Image, rng: np.random.Generator) -> Image:
    """Brightness × 1.6, clipped."""
    return _clip(img.astype(np.float32) * 1.6)


def warm_light(img: Image, rng: np.random.Generator) -> Image:
    """A tungsten cast: blue × 0.7, red × 1.1 (BGR)."""
    return _clip(img.astype(np.float32) * np.array([0.7, 1.0, 1.1], np.float32))


def shadow(img: Image, rng: np.random.Generator) -> Image:
    """Half the photo, cut by a random line through its middle, darkened × 0.5.

    >>> out = shadow(np.full((40, 40, 3), 200, np.uint8), np.random.default_rng(0))
    >>> sorted({int(v) for v in np.unique(out)})
    [100, 200]
    """
    h, w = img.shape[:2]
    angle = rng.uniform(0, np.pi)
    ys, xs = np.mgrid[0:h, 0:w]
    side = (xs - w / 2) * np.cos(angle) + (ys - h / 2) * np.sin(angle) > 0
    out = img.copy()
    out[side] = (out[side].astype(np.float32) * 0.5).astype(np.uint8)
    return out


def blur(img: Image, rng: np.random.Generator) -> Image:
    """Out of focus: Gaussian σ 1.5 px."""
    return np.asarray(cv2.GaussianBlur(img, (0, 0), 1.5), np.uint8)


def motion_blur(img: Image, rng: np.random.Generator) -> Image:
    """A 7 px straight smear in a random direction."""
    k = np.zeros((7, 7), np.float32)
    k[3, :] = 1.0 / 7
    turn = cv2.getRotationMatrix2D((3, 3), float(rng.uniform(0, 180)), 1.0)
    k = np.asarray(cv2.warpAffine(k, turn, (7, 7)), np.float32)
    k /= max(float(k.sum()), 1e-6)
    return np.asarray(cv2.filter2D(img, -1, k), np.uint8)


def noise(img: Image, rng: np.random.Generator) -> Image:
    """Sensor noise, σ 10."""
    return _clip(img.astype(np.float32) + rng.normal(0, 10, img.shape))


def jpeg_25(img: Image, rng: np.random.Generator) -> Image:
    """Re-saved at JPEG quality 25."""
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 25])
    if not ok:
        raise ValueError("could not encode the photo as JPEG")
    return np.asarray(cv2.imdecode(buf, cv2.IMREAD_COLOR), np.uint8)


def half_size(img: Image, rng: np.random.Generator) -> Image:
    """Half the width and height (area resampling)."""
    h, w = img.shape[:2]
    return np.asarray(cv2.resize(img, (max(1, w // 2), max(1, h // 2)),
                                 interpolation=cv2.INTER_AREA), np.uint8)


def upside_down(img: Image, rng: np.random.Generator) -> Image:
    """Turned 180°: the hand photographed from across the table. Its detections are
    turned back before they are matched (:data:`TURNED`, :func:`turned_back`)."""
    return np.ascontiguousarray(img[::-1, ::-1])


def quarter_turn(img: Image, rng: np.random.Generator) -> Image:
    """Turned 90° clockwise: the hand photographed from the seat beside its owner. Its
    detections are turned back before they are matched (:data:`TURNED`,
    :func:`turned_back`)."""
    return np.ascontiguousarray(cv2.rotate(img, cv2.ROTATE_90_CLOCKWISE))


def quarter_turn_ccw(img: Image, rng: np.random.Generator) -> Image:
    """Turned 90° counter-clockwise (from the seat on the owner's other side)."""
    return np.ascontiguousarray(cv2.rotate(img, cv2.ROTATE_90_COUNTERCLOCKWISE))


def turned_back(d: Detections, quarters: int = 2) -> Detections:
    """Detections of a photo turned ``quarters`` × 90° clockwise (1, 2 or 3;
    ``d.image_size`` the turned photo's size) in the pixels of the photo as taken, each
    tile's rotation (clockwise, :class:`vision.detections.Detections`) turned back too.

    >>> d = Detections.from_lists([[10, 20, 30, 60]], ["1m"], rotations=[90],
    ...                           image_size=(100, 80))
    >>> b = turned_back(d)
    >>> b.boxes.tolist(), b.rotations.tolist()
    ([[70.0, 20.0, 90.0, 60.0]], [270])
    >>> b = turned_back(d, 1)  # the photo as taken was 80 wide, 100 high
    >>> b.boxes.tolist(), b.rotations.tolist()
    ([[20.0, 70.0, 60.0, 90.0]], [0])
    """
    if d.image_size is None:
        raise ValueError("turned_back needs the detections' image size")
    if quarters not in (1, 2, 3):
        raise ValueError(f"turned_back turns back 1, 2 or 3 quarter turns, not {quarters}")
    w, h = d.image_size
    x1, y1, x2, y2 = (d.boxes[:, i] for i in range(4))
    if quarters == 2:
        boxes = np.stack([w - x2, h - y2, w - x1, h - y1], axis=1)
        size = (w, h)
    elif quarters == 1:  # a point (x, y) as taken is (w - y, x) turned (w: turned width)
        boxes = np.stack([y1, w - x2, y2, w - x1], axis=1)
        size = (h, w)
    else:  # ... and (y, h - x) turned 3 quarters (h: turned height)
        boxes = np.stack([h - y2, x1, h - y1, x2], axis=1)
        size = (h, w)
    return dataclasses.replace(d, boxes=boxes.astype(np.float32), image_size=size,
                               rotations=(d.rotations - 90 * quarters) % 360)


#: The changes, by name, in report order (``as taken`` is the photo unchanged).
CONDITIONS: dict[str, Change | None] = {
    "as taken": None,
    "dim": dim,
    "overexposed": overexposed,
    "warm light": warm_light,
    "shadow": shadow,
    "blur": blur,
    "motion blur": motion_blur,
    "noise": noise,
    "jpeg 25": jpeg_25,
    "half size": half_size,
    "upside down": upside_down,
    "quarter turn": quarter_turn,
    "quarter turn ccw": quarter_turn_ccw,
}
#: Changes that turn the photo, by clockwise quarter turns: their detections are turned
#: back before matching.
TURNED = {"upside down": 2, "quarter turn": 1, "quarter turn ccw": 3}


def photo_rng(seed: int, condition: str, image: Path) -> np.random.Generator:
    """The random draws of one change on one photo: the same on every run."""
    return np.random.default_rng([seed, zlib.crc32(f"{condition}|{image.name}".encode())])


def measure(
    data: Path, split: str, copies: str, conditions: list[str], limit: int | None,
    model_dir: str | None, seed: int,
) -> list[dict[str, Any]]:
    """One row per condition: ``{"condition", "photos", "f1", "images_all_right"}``."""
    from vision.detect import detection_scores, evaluation_detector
    from vision.evaluate import evaluate, load_dataset, select_copies

    try:
        samples = select_copies(load_dataset(data, split), copies)
    except ValueError as exc:
        raise SystemExit(f"robustness_eval: {exc}") from None
    samples = samples[:limit] if limit else samples
    setup = evaluation_detector(model_dir)  # as `tilecam eval` runs it
    detector = setup.detector
    rows = []
    for name in conditions:
        change = CONDITIONS[name]

        def detect(path: Path, change: Change | None = change, name: str = name,
                   by: Any = detector) -> Any:
            img = cv2.imread(str(path))
            if img is None:
                raise ValueError(f"cannot read {path}")
            if change is not None:
                img = change(img, photo_rng(seed, name, path))
            found = by.detect(img)
            return turned_back(found, TURNED[name]) if name in TURNED else found

        def shipped(path: Path, change: Change | None = change, name: str = name) -> Any:
            return detect(path, change, name, setup.operating)

        report = evaluate(
            samples, detect, conf=setup.conf, score=detection_scores,
            thresholds=setup.thresholds, operating=shipped,
        )
        # six places: the table prints F1 to three and the share to 0.1 %, and rounding
        # twice would print 42/51 as 82.3 %
        rows.append({"condition": name, "photos": len(samples), "f1": round(report.f1, 6),
                     "images_all_right": round(report.images_all_right, 6)})
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=REPO / "datasets" / "build" / "hk-photos")
    ap.add_argument("--split", default="val", help="val (report) or train")
    ap.add_argument("--copies", default="untouched", choices=["untouched", "originals", "all"],
                    help="which copies of the export (vision.evaluate.COPIES; 'trusted' "
                    "copies are turned ones, which would compound a change)")
    ap.add_argument("--conditions", nargs="+", default=list(CONDITIONS), metavar="NAME",
                    help="changes to measure (default all): " + ", ".join(CONDITIONS))
    ap.add_argument("--limit", type=int)
    ap.add_argument("--model-dir")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    unknown = [c for c in args.conditions if c not in CONDITIONS]
    if unknown:
        ap.error(f"unknown condition(s) {unknown}; known: {', '.join(CONDITIONS)}")
    if "as taken" not in args.conditions:
        args.conditions.insert(0, "as taken")
    rows = measure(args.data, args.split, args.copies, args.conditions, args.limit,
                   args.model_dir, args.seed)
    base = rows[[r["condition"] for r in rows].index("as taken")]
    for r in rows:
        r["f1_change"] = round(r["f1"] - base["f1"], 6)
        r["all_right_change"] = round(r["images_all_right"] - base["images_all_right"], 6)
    if args.json:
        print(json.dumps(rows))
        return 0
    print(f"{args.data} {args.split}, copies {args.copies}: {rows[0]['photos']} photos")
    width = max(len("condition"), *(len(r["condition"]) for r in rows))
    print(f"{'condition':<{width}} {'F1':>6} {'change':>7} {'all right':>9} {'change':>7}")
    for r in rows:
        print(f"{r['condition']:<{width}} {r['f1']:>6.3f} {r['f1_change']:>+7.3f} "
              f"{100 * r['images_all_right']:>8.1f}% {100 * r['all_right_change']:>+6.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
