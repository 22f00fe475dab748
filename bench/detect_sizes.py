"""How well the detector finds and reads tiles by their size in the frame.

Runs ``vision.detect`` over the scenes of a ``tilecam dataset synth`` folder
(``truth/*.json``: every tile's box and code) and reports, per band of the tile's short
side in frame pixels, the share of tiles boxed (a detection at IoU ≥ 0.5) and read
right (boxed with the right top-1 code); over all tiles: boxed, recall (right),
extra boxes (detections matching no tile), precision and F1 of right codes; which
second pass (zoom region, grid, none) each frame took and the median ms per frame.

``--set FIELD=VALUE`` overrides a detector setting (a field of
:class:`vision.manifest.DetectorSpec`, e.g. ``zoom_grid=0`` to measure without the grid
pass, ``zoom_grid_below=24``), for comparing settings on the same frames.

Usage::

    .venv/bin/python bench/detect_sizes.py /tmp/s3/tune1280 [--limit 100] \\
        [--set zoom_grid=0] [--model-dir M] [--json]
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vision.detect import Detector
from vision.evaluate import match
from vision.manifest import DetectorSpec

#: Bands of the tile's short side, frame pixels: [low, high).
BANDS = ((0, 30), (30, 40), (40, 60), (60, 90), (90, 10_000))


def _setting(text: str) -> tuple[str, float]:
    name, sep, value = text.partition("=")
    fields = {f.name for f in dataclasses.fields(DetectorSpec)}
    if not sep or name not in fields:
        raise argparse.ArgumentTypeError(f"expected FIELD=VALUE with FIELD one of {sorted(fields)}")
    try:
        return name, float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{name}: {value!r} is not a number") from None


def measure(folder: Path, detector: Detector, limit: int) -> dict[str, Any]:
    """The figures above for the first ``limit`` scenes of ``folder``."""
    truths = sorted((folder / "truth").glob("*.json"))[:limit]
    if not truths:
        raise SystemExit(f"{folder}: no truth/*.json (a `tilecam dataset synth` folder?)")
    sizes: list[float] = []
    states: list[int] = []  # 0 missed, 1 boxed with a wrong code, 2 right
    passes: collections.Counter[str] = collections.Counter()
    ms: list[float] = []
    extra = found = 0
    for path in truths:
        truth = json.loads(path.read_text())
        det = detector(folder / truth["image"])
        passes[str(det.meta.get("zoom_pass", "none"))] += 1
        ms.append(float(det.meta["ms"]["total"]))
        gt = np.array([t["box"] for t in truth["tiles"]], np.float32).reshape(-1, 4)
        codes = [t["label"] for t in truth["tiles"]]
        matched = match(gt, det.boxes, det.confidences, 0.5)
        state = np.zeros(len(gt), int)
        for i, g in enumerate(matched):
            if g >= 0:
                state[g] = 2 if det.codes[i] == codes[g] else 1
        extra += int((matched < 0).sum())
        found += len(det)
        sizes += np.minimum(gt[:, 2] - gt[:, 0], gt[:, 3] - gt[:, 1]).tolist()
        states += state.tolist()
    size, st = np.array(sizes), np.array(states)
    bands = []
    for lo, hi in BANDS:
        sel = (size >= lo) & (size < hi)
        if sel.any():
            bands.append(
                {
                    "short_side_px": [lo, hi],
                    "tiles": int(sel.sum()),
                    "boxed": round(float(np.mean(st[sel] >= 1)), 3),
                    "right": round(float(np.mean(st[sel] == 2)), 3),
                }
            )
    right = int((st == 2).sum())
    return {
        "scenes": len(truths),
        "tiles": len(st),
        "boxed": round(float(np.mean(st >= 1)), 3),
        "recall": round(right / max(len(st), 1), 3),
        "extra_boxes": extra,
        "precision": round(right / max(found, 1), 3),
        "f1": round(2 * right / max(found + len(st), 1), 3),
        "passes": dict(passes),
        "median_ms": round(float(np.median(ms)), 1),
        "bands": bands,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folder", type=Path, help="a `tilecam dataset synth` output folder")
    ap.add_argument("--limit", type=int, default=100, help="scenes to use (first N)")
    ap.add_argument("--model-dir", type=Path, help="model folder (default: the shipped one)")
    ap.add_argument("--set", type=_setting, action="append", default=[], metavar="FIELD=VALUE")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args(argv)
    detector = Detector(args.model_dir)
    spec = detector.spec
    for name, value in args.set:
        kind = type(getattr(spec, name))
        spec = dataclasses.replace(spec, **{name: kind(value)})
    detector.spec = spec
    result = measure(args.folder, detector, args.limit)
    result["settings"] = {name: getattr(spec, name) for name, _ in args.set}
    if args.json:
        print(json.dumps(result))
        return 0
    print(f"{result['scenes']} scenes, {result['tiles']} tiles; settings {result['settings']}")
    for band in result["bands"]:
        lo, hi = band["short_side_px"]
        print(
            f"  short side {lo}-{hi if hi < 10_000 else ''} px: {band['tiles']} tiles, "
            f"boxed {band['boxed']:.3f}, right {band['right']:.3f}"
        )
    print(
        f"  all: boxed {result['boxed']:.3f}, recall {result['recall']:.3f}, "
        f"extra boxes {result['extra_boxes']}, precision {result['precision']:.3f}, "
        f"F1 {result['f1']:.3f}"
    )
    print(f"  second pass per frame {result['passes']}; median {result['median_ms']} ms/frame")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
