"""What does a model folder cost against another? Paired runs of two folders.

A change to the manifest (more test-time views, another reader) moves ``vision.detect``'s
and ``recognize``'s time by a few ms, less than this machine's load moves a single
``bench/detect_bench.py`` run. This bench measures the two folders in pairs of child
processes, one for each folder, in a random (seeded) order within each pair, so that load
from outside falls on both alike (as ``bench/spin_bench.py`` does for the spinning
setting):

- ``detect``: median wall ms of ``vision.detect`` per frame, over ``--rounds`` passes of
  the synthetic 1280×960 hands of ``bench/detect_bench.py``;
- ``recognize``: median wall ms of ``vision.recognize`` (detect + layout + correction +
  score) per frame, over the frames of ``bench/recognize_bench.py`` (``--images``).

It prints each pair, the median of each folder's per-pair figures, the median per-pair
difference (candidate − base, ms), how many pairs the candidate was slower and faster in,
and the exact one-sided sign-test p-value of each count (``bench/_pairs.py``).

Usage::

    .venv/bin/python bench/model_pairs.py BASE_DIR CAND_DIR [--pairs 8] [--frames 8]
        [--rounds 4] [--images DIR] [--seed 0] [--json]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "bench"))

from _pairs import median_ms, paired_runs, tally  # noqa: E402  (bench/_pairs.py: medians, pairs each way, sign tests)

MEASURES = ("detect_ms", "recognize_ms")


def child(model_dir: Path, frames_count: int, rounds: int, images: Path | None) -> dict[str, float]:
    """Both measures for one model folder, in this process."""
    from detect_bench import synthetic_frames
    from recognize_bench import load_frames

    from vision.detect import load_detector
    from vision.recognize import recognize

    detector = load_detector(model_dir)
    hands = synthetic_frames(frames_count)
    photos, _ = load_frames(frames_count, images)
    for frame in hands + photos:  # warm-up: sessions and arenas
        recognize(frame, "mcr", detector=detector)
    return {
        "detect_ms": median_ms(detector.detect, hands, rounds),
        "recognize_ms": median_ms(
            lambda f: recognize(f, "mcr", detector=detector), photos, rounds
        ),
    }


def run_child(model_dir: Path, args: argparse.Namespace) -> dict[str, float]:
    cmd = [sys.executable, __file__, str(model_dir), str(model_dir), "--child",
           "--frames", str(args.frames), "--rounds", str(args.rounds)]
    if args.images is not None:
        cmd += ["--images", str(args.images)]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"model_pairs: the child for {model_dir} failed:\n{done.stderr}")
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def summarise(pairs: list[dict[str, Any]]) -> dict[str, Any]:
    """Per measure (:func:`_pairs.tally`): each folder's median, the median per-pair
    difference (``cand_minus_base``, ms), the pairs where the candidate was slower
    (``cand_worse``) and faster (``cand_better``), and the sign-test p of each.

    >>> pairs = [{"base": {"detect_ms": 40.0, "recognize_ms": 50.0},
    ...           "cand": {"detect_ms": 42.0 + k, "recognize_ms": 50.0}} for k in range(5)]
    >>> s = summarise(pairs)["detect_ms"]
    >>> s["cand_minus_base"], s["cand_worse"], s["p_cand_worse"]
    (4.0, 5, 0.0312)
    >>> summarise(pairs)["recognize_ms"]["cand_worse"]
    0
    """
    out: dict[str, Any] = {"pairs": len(pairs)}
    for key in MEASURES:  # ms: lower is better, so "worse" is slower
        out[key] = tally([p["base"][key] for p in pairs], [p["cand"][key] for p in pairs])
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("base", type=Path, help="model folder measured against (e.g. models)")
    ap.add_argument("cand", type=Path, help="model folder measured")
    ap.add_argument("--pairs", type=int, default=8, help="pairs of runs (default 8)")
    ap.add_argument("--frames", type=int, default=8, help="distinct frames (default 8)")
    ap.add_argument("--rounds", type=int, default=4, help="passes over the frames (default 4)")
    ap.add_argument("--images", type=Path, default=None,
                    help="recognize frames from this folder (default: the hk-photos)")
    ap.add_argument("--seed", type=int, default=0, help="order of the runs in each pair")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if min(args.pairs, args.frames, args.rounds) < 1:
        ap.error("--pairs, --frames and --rounds must be at least 1")
    for folder in (args.base, args.cand):
        if not (folder / "manifest.json").is_file():
            ap.error(f"{folder} is not a model folder (no manifest.json)")
    if args.child:
        print(json.dumps(child(args.base, args.frames, args.rounds, args.images)))
        return 0
    def show(i: int, pair: dict[str, Any]) -> None:
        if not args.json:
            print(f"pair {i + 1}: detect {pair['base']['detect_ms']:.1f} / "
                  f"{pair['cand']['detect_ms']:.1f} ms, recognize "
                  f"{pair['base']['recognize_ms']:.1f} / {pair['cand']['recognize_ms']:.1f} ms "
                  f"(base / cand; {pair['first']} first)", flush=True)

    pairs = paired_runs(("base", "cand"), lambda n: run_child(getattr(args, n), args),
                        args.pairs, args.seed, show)
    result = {"base": str(args.base), "cand": str(args.cand), "runs": pairs,
              **summarise(pairs)}
    if args.json:
        print(json.dumps(result, indent=1))
        return 0
    for key in MEASURES:
        r = result[key]
        print(f"{key}: base {r['base_median']} vs cand {r['cand_median']} ms (medians); "
              f"cand − base {r['cand_minus_base']:+.2f} ms (median of pairs); cand slower "
              f"in {r['cand_worse']} of {args.pairs} pairs (p {r['p_cand_worse']}), "
              f"faster in {r['cand_better']} (p {r['p_cand_better']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
