"""How reading holds up when the hand fills less of the picture.

Real photos of the hk-photos validation split (``--split train`` for choices; 640 × 640,
hands filling most of the
picture) are pasted, at their own pixel size, in the middle of larger 4:3 canvases of
noisy green cloth — as if the same hand were photographed from farther away with a
camera of more pixels, or seen by a table camera. For each canvas width it reports the
share of photos whose detected tile multiset is exactly the labelled one (top-1 codes,
no correction), the share of labelled tiles found with the right code, and which second
pass ``vision.detect`` took (``meta["zoom_pass"]``). Width 640 is the photos as they are.

Usage::

    .venv/bin/python bench/framing_eval.py [--data datasets/build/hk-photos]
        [--split val] [--canvas 640 1280 1920 2560 3200] [--every 4] [--limit 60]
        [--model-dir DIR]
        [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import cv2
import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from vision.classes import CLASSES  # noqa: E402

CLOTH_BGR = (40, 110, 50)


def on_canvas(img: np.ndarray, width: int, rng: np.random.Generator) -> np.ndarray:
    """``img`` in the middle of a ``width × 3/4 width`` canvas of noisy cloth (``img`` as
    it is when ``width`` is not larger than it)."""
    h, w = img.shape[:2]
    height = width * 3 // 4
    if width <= w or height <= h:
        return img
    noise = rng.normal(0, 6, (height, width, 3))
    canvas = (np.asarray(CLOTH_BGR, np.float64) + noise).clip(0, 255).astype(np.uint8)
    y, x = (height - h) // 2, (width - w) // 2
    canvas[y : y + h, x : x + w] = img
    return canvas


def evaluate(
    data: Path, canvases: list[int], every: int, limit: int, model_dir: str | None,
    split: str = "val",
) -> list[dict[str, Any]]:
    from vision.detect import load_detector
    from vision.evaluate import load_dataset

    detector = load_detector(model_dir)
    try:  # labels read as `tilecam eval` reads them (class names mapped to codes)
        samples = load_dataset(data, split)[::every][:limit]
    except ValueError as exc:
        raise SystemExit(f"framing_eval: {exc}") from None
    out = []
    for width in canvases:
        rng = np.random.default_rng(0)
        exact = found = total = n = 0
        passes: Counter[str] = Counter()
        for sample in samples:
            img = cv2.imread(str(sample.image))
            if img is None:
                continue
            truth = Counter(CLASSES[c] for c in sample.class_ids)
            d = detector(on_canvas(img, width, rng))
            got = Counter(d.codes)
            n += 1
            exact += got == truth
            total += sum(truth.values())
            found += sum((got & truth).values())
            passes[str(d.meta.get("zoom_pass", "none"))] += 1
        out.append({
            "canvas": width,
            "photos": n,
            "exact_multiset_top1": exact / max(n, 1),
            "tiles_found_right": found / max(total, 1),
            "second_pass": dict(passes),
        })
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=REPO / "datasets" / "build" / "hk-photos")
    ap.add_argument("--canvas", type=int, nargs="+", default=[640, 1280, 1920, 2560, 3200])
    ap.add_argument("--split", default="val", help="val (report) or train (for choices)")
    ap.add_argument("--every", type=int, default=4, help="take every n-th photo")
    ap.add_argument("--limit", type=int, default=60)
    ap.add_argument("--model-dir")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    rows = evaluate(args.data, args.canvas, max(1, args.every), args.limit, args.model_dir,
                    args.split)
    if args.json:
        print(json.dumps(rows))
        return 0
    print(f"{'canvas':>7} {'photos':>6} {'exact':>7} {'tiles right':>11}  second pass")
    for r in rows:
        print(f"{r['canvas']:>7} {r['photos']:>6} {r['exact_multiset_top1']:>7.3f} "
              f"{r['tiles_found_right']:>11.3f}  {r['second_pass']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
