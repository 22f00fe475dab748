"""Speed of ``vision.recognize`` end to end: median ms per 1280×960 image.

One call = detect + layout + rule-aware correction + score (or waits), on a decoded BGR
frame (a camera frame already in memory). Also reports the median of each stage
(``Recognition.ms``) and, separately, layout + correction + scoring alone on the same
frames' detections.

Frames: real photos from ``../shared/datasets/hk-photos`` resized to 1280×960
(``TILECAM_SHARED`` overrides ``../shared``), or ``--images DIR`` (every .jpg/.png there,
resized). Target: ≤ 60 ms median.

Usage::

    .venv/bin/python bench/recognize_bench.py [--model-dir models] [--frames 32]
        [--rounds 3] [--rules mcr] [--images DIR] [--json]

Each frame is timed ``--rounds`` times; the figures are over the frames' medians
(:mod:`bench._timing`; before the fifty-fifth session this bench pooled ``--repeat``
calls cycling 8 frames, which weighed the frames unequally), with the share of frames
within the target. When the PyPI package ``mahjong-detector`` is installed, its
pipeline is timed on the same frames, in alternating passes, as a
yardstick of the machine's speed at the time (this machine has slow spells that move
every figure); the bench prints recognize's time as a multiple of it.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from _timing import per_image_ms, verdict, with_yardstick  # bench/ is on sys.path

REPO = Path(__file__).resolve().parent.parent
WIDTH, HEIGHT = 1280, 960
TARGET_MS = 60.0


def shared_dir() -> Path:
    return Path(os.environ.get("TILECAM_SHARED", REPO.parent / "shared"))


def load_frames(count: int, folder: Path | None) -> tuple[list[np.ndarray], str]:
    """``count`` BGR frames of 1280×960 and where they came from."""
    src = folder or shared_dir() / "datasets" / "hk-photos" / "images"
    files = sorted([*src.glob("*.jpg"), *src.glob("*.png")]) if src.is_dir() else []
    if not files:
        raise SystemExit(f"bench: no images in {src} (give --images DIR)")
    step = max(1, len(files) // count)
    frames = []
    for f in files[::step][:count]:
        img = cv2.imread(str(f))
        if img is not None:
            frames.append(cv2.resize(img, (WIDTH, HEIGHT)))
    return frames, f"{len(frames)} images from {src} resized to {WIDTH}×{HEIGHT}"


class FirstDetections:
    """A detector that keeps the first detections it returns (a frame's own; a second call
    reads the frame turned level), so one ``recognize`` call gives both its stage times
    and the detections the layout-only row times."""

    def __init__(self, detector: Any) -> None:
        self.detector = detector
        self.calibration = getattr(detector, "calibration", None)
        self.detections: Any = None

    def __call__(self, image: Any) -> Any:
        out = self.detector(image)
        if self.detections is None:
            self.detections = out
        return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model-dir", type=Path, default=None, help="model folder (default models/)")
    ap.add_argument("--frames", type=int, default=32, help="distinct frames (default 32)")
    ap.add_argument("--rounds", type=int, default=3, help="timed calls per frame (default 3)")
    ap.add_argument("--rules", default="mcr", help="rule set (default mcr)")
    ap.add_argument("--images", type=Path, default=None, help="folder of images to use")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args(argv)

    if args.frames < 1 or args.rounds < 1:
        ap.error("--frames and --rounds must be at least 1")
    sys.path.insert(0, str(REPO))
    from vision.detect import load_detector
    from vision.manifest import ModelError
    from vision.recognize import recognize, recognize_detections

    try:
        detector = load_detector(args.model_dir)
    except ModelError as exc:
        print(f"bench: {exc}", file=sys.stderr)
        return 2
    frames, source = load_frames(args.frames, args.images)
    result: dict[str, Any] = {
        "frames": source,
        "cpu_cores": len(os.sched_getaffinity(0)),
        "load_average": os.getloadavg()[0],
        "model": detector.name,
        "rules": args.rules,
        "target_ms": TARGET_MS,
    }
    result["recognize"], result["reference"], why = with_yardstick(
        lambda f: recognize(f, args.rules, detector=detector), frames, args.rounds, TARGET_MS
    )
    if result["reference"] is None:
        result["reference_skipped"] = why
    stages, dets = [], []
    for f in frames:  # one untimed call a frame: its stage times and its first detections
        first = FirstDetections(detector)
        stages.append(recognize(f, args.rules, detector=first).ms)
        assert first.detections is not None
        dets.append(first.detections)
    result["after_detect"] = per_image_ms(
        lambda d: recognize_detections(d, args.rules), dets, args.rounds
    )
    result["stages_ms"] = {
        k: round(statistics.median(s.get(k, 0.0) for s in stages), 2) for k in stages[0]
    }
    result["tiles_per_frame"] = statistics.mean(len(d) for d in dets)
    if args.json:
        print(json.dumps(result, indent=1))
        return 0
    print(f"frames: {source}; {result['cpu_cores']} cores, "
          f"load average {result['load_average']:.2f}; model {result['model']}")
    print(f"{'pipeline (over frames)':<48}{'median ms':>10}{'p10':>8}{'p90':>8}{'CPU ms':>8}")
    for name, m in (("recognize (detect+layout+correct+score)", result["recognize"]),
                    ("layout+correct+score only", result["after_detect"]),
                    ("yardstick: mahjong-detector detect_tiles", result["reference"])):
        if m is None:
            print(f"{name:<48}skipped: {result['reference_skipped']}")
            continue
        print(f"{name:<48}{m['median']:>10.1f}{m['p10']:>8.1f}{m['p90']:>8.1f}"
              f"{m['cpu_median']:>8.1f}")
    print(f"stages (median ms): {result['stages_ms']}")
    print(f"tiles per frame: {result['tiles_per_frame']:.1f}")
    print("\n".join(verdict("recognize", result["recognize"], TARGET_MS)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
