"""Speed of tile detection on this machine: median ms per 1280×960 image.

Measures, in one run on the same frames:

- ``vision.detect`` on a decoded BGR frame (a camera frame already in memory), and the
  same with the zoom pass off (frames whose tiles look small to the model are detected
  twice; the share of such frames is reported as ``zoomed``),
- ``vision.detect`` on the JPEG bytes of the frame (an upload: decode included),
- ``vision.detect`` on 4032×3024 JPEG bytes (a 12-megapixel phone photo: decoded at
  reduced scale by libjpeg, see :func:`vision.imageio.load_image_reduced`),
- mahjong-detector's own pipeline (``mahjong_detector.detect_tiles`` on a PIL image:
  grey + autocontrast + letterbox, its ONNX model, its NMS) when the PyPI package
  ``mahjong-detector`` is installed; otherwise that column is skipped with a message.
  It is timed beside the first column, in alternating passes over the frames, so the
  machine's slow spells move both alike; the bench prints ``vision.detect``'s time as a
  multiple of it.

Frames: synthetic 1280×960 hand scenes from :mod:`vision.synth` (needs its tile art),
else real photos from ``../shared/datasets/hk-photos`` resized to 1280×960
(``TILECAM_SHARED`` overrides ``../shared``), else random test patterns (speed only).
Target: ≤ 50 ms median for ``vision.detect``.

Usage::

    .venv/bin/python bench/detect_bench.py [--model-dir models] [--frames 32] [--rounds 3]
        [--threads N] [--json]

Every column times each frame ``--rounds`` times and reports the median over frames of
each frame's median (:mod:`bench._timing`; before the fifty-fifth session the benches
pooled ``--repeat`` calls cycling 8 frames, which weighed the frames unequally).
"""

from __future__ import annotations

import argparse
import copy
import dataclasses
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
TARGET_MS = 50.0


def shared_dir() -> Path:
    return Path(os.environ.get("TILECAM_SHARED", REPO.parent / "shared"))


def synthetic_frames(count: int) -> list[np.ndarray]:
    """``count`` rendered 1280×960 hand scenes (BGR) from :mod:`vision.synth`."""
    from vision.synth.art import default_sets, load_art
    from vision.synth.scene import SceneOptions, render_scene

    art = load_art(default_sets()[0])
    opts = SceneOptions(width=WIDTH, height=HEIGHT, hand_prob=1.0)
    return [
        np.ascontiguousarray(
            render_scene(art, np.random.default_rng([99, i]), opts).image[..., ::-1]
        )
        for i in range(count)
    ]


def load_frames(count: int) -> tuple[list[np.ndarray], str]:
    """``count`` BGR frames of 1280×960 and where they came from."""
    try:
        return synthetic_frames(count), f"{count} synthetic hands (vision.synth) {WIDTH}×{HEIGHT}"
    except Exception as exc:  # the generator or its art may be missing: fall back
        print(f"bench: no synthetic frames ({type(exc).__name__}: {exc})", file=sys.stderr)
    from vision.imageio import load_image

    photos = shared_dir() / "datasets" / "hk-photos" / "images"
    files = sorted(photos.glob("*.jpg")) if photos.is_dir() else []
    if files:
        picked = files[:: max(1, len(files) // count)][:count]
        frames = [cv2.resize(load_image(f), (WIDTH, HEIGHT)) for f in picked]
        return frames, f"{len(frames)} hk-photos resized to {WIDTH}×{HEIGHT}"
    rng = np.random.default_rng(0)
    frames = [rng.integers(0, 255, (HEIGHT, WIDTH, 3), np.uint8) for _ in range(count)]
    return frames, f"{count} random test patterns"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model-dir", type=Path, default=None, help="model folder (default models/)")
    ap.add_argument("--frames", type=int, default=32, help="distinct frames (default 32)")
    ap.add_argument("--rounds", type=int, default=3,
                    help="timed calls per frame and column (default 3)")
    ap.add_argument("--threads", type=int, default=None, help="onnxruntime intra-op threads")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args(argv)

    if args.frames < 1 or args.rounds < 1:
        ap.error("--frames and --rounds must be at least 1")
    sys.path.insert(0, str(REPO))
    from vision.backends.onnx import default_threads, spinning
    from vision.detect import load_detector
    from vision.manifest import ModelError

    try:
        options = {"threads": args.threads} if args.threads else {}
        detector = load_detector(args.model_dir, **options)
    except ModelError as exc:
        print(f"bench: {exc}", file=sys.stderr)
        return 2
    frames, source = load_frames(args.frames)
    jpegs = [cv2.imencode(".jpg", f, [cv2.IMWRITE_JPEG_QUALITY, 90])[1].tobytes() for f in frames]
    result: dict[str, Any] = {
        "frames": source,
        "cpu_cores": len(os.sched_getaffinity(0)),
        "load_average": os.getloadavg()[0],
        "threads": args.threads or default_threads(),
        "spinning": spinning(),
        "model": detector.name,
        "target_ms": TARGET_MS,
    }
    result["tilecam_frame"], result["mahjong_detector"], why = with_yardstick(
        detector.detect, frames, args.rounds, TARGET_MS)
    if result["mahjong_detector"] is None:
        result["mahjong_detector_skipped"] = why
    runs = [detector.detect(f) for f in frames]
    result["zoomed"] = sum(d.meta.get("zoom", 1.0) > 1 for d in runs) / len(runs)
    one_pass = copy.copy(detector)
    one_pass.spec = dataclasses.replace(detector.spec, zoom_below=0.0)
    result["tilecam_frame_no_zoom"] = per_image_ms(one_pass.detect, frames, args.rounds)
    result["tilecam_jpeg"] = per_image_ms(detector.detect, jpegs, args.rounds)
    phone = [
        cv2.imencode(".jpg", cv2.resize(f, (4032, 3024)), [cv2.IMWRITE_JPEG_QUALITY, 90])[
            1
        ].tobytes()
        for f in frames[:4]
    ]
    result["tilecam_phone_jpeg"] = per_image_ms(detector.detect, phone, args.rounds)
    result["tiles_per_frame"] = statistics.mean(len(d) for d in runs)
    stages = [d.meta["ms"] for d in runs]
    result["tilecam_stages_ms"] = {
        k: round(statistics.median(s[k] for s in stages), 2) for k in stages[0]
    }

    if args.json:
        print(json.dumps(result, indent=1))
        return 0
    print(
        f"frames: {source}; {result['cpu_cores']} cores, load average {result['load_average']:.2f}"
    )
    print(
        f"model: {result['model']}, onnxruntime intra-op threads {result['threads']}, "
        f"spinning during runs {'on' if result['spinning'] else 'off (TILECAM_SPIN=0)'}"
    )
    print(f"{'pipeline (over frames)':<44}{'median ms':>10}{'p10':>8}{'p90':>8}{'CPU ms':>8}")
    rows = [
        (f"vision.detect (BGR frame; {result['zoomed']:.0%} zoomed)", result["tilecam_frame"]),
        ("vision.detect (BGR frame, zoom pass off)", result["tilecam_frame_no_zoom"]),
        ("vision.detect (JPEG bytes, decode included)", result["tilecam_jpeg"]),
        ("vision.detect (12 MP phone JPEG 4032×3024)", result["tilecam_phone_jpeg"]),
        ("mahjong-detector detect_tiles (PIL image)", result["mahjong_detector"]),
    ]
    for name, m in rows:
        if m is None:
            print(f"{name:<44}{'skipped: ' + result['mahjong_detector_skipped']}")
        else:
            print(
                f"{name:<44}{m['median']:>10.1f}{m['p10']:>8.1f}{m['p90']:>8.1f}"
                f"{m['cpu_median']:>8.1f}"
            )
    print(f"stages (median ms): {result['tilecam_stages_ms']}")
    print(f"tiles per frame: {result['tiles_per_frame']:.1f}")
    print("CPU ms = processor time of all threads per image (wall ms suffer from other load)")
    print("\n".join(verdict("vision.detect", result["tilecam_frame"], TARGET_MS)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
