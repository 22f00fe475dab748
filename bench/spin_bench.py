"""Does letting onnxruntime's threads spin pay on this machine? Paired runs, spin on and off.

``vision.backends.onnx`` lets the worker threads of a run that is the only one in the
process spin while it lasts (``TILECAM_SPIN=1``, the default) and sends overlapping runs
to sessions without spinning. This bench checks both halves of that choice on the
machine it runs on, in pairs of child processes, one with each setting, in a random
(seeded) order within each pair, so that load from outside, even load that comes and goes
with a period near a pair's length, falls on both settings alike:

- one stream: median wall ms of ``vision.detect`` per 1280×960 frame, one thread;
- ``--streams N``: frames per second with N threads calling ``vision.detect`` at once
  on the same loaded model (what the service does with ``recognize_concurrency`` > 1).

It prints each pair, how many pairs the spinning setting won, and the exact one-sided
sign-test p-value of that count (a pair is a coin toss when the setting makes no
difference). Frames: the synthetic hands of ``bench/detect_bench.py``.

Usage::

    .venv/bin/python bench/spin_bench.py [--pairs 10] [--frames 8] [--rounds 6]
        [--streams 2] [--seed 0] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))
from _pairs import median_ms, paired_runs, tally  # noqa: E402  (bench/_pairs.py: medians, pairs each way, sign tests)


def streams_fps(
    detect: Callable[[Any], object], frames: list[Any], streams: int, per_stream: int
) -> float:
    """Frames per second with ``streams`` threads each calling ``detect`` ``per_stream``
    times at once (each thread starts at its own frame)."""

    def work(offset: int) -> None:
        for i in range(per_stream):
            detect(frames[(i + offset) % len(frames)])

    workers = [threading.Thread(target=work, args=(k,)) for k in range(streams)]
    start = time.perf_counter()
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    return float(streams * per_stream / (time.perf_counter() - start))


def child(frames_count: int, rounds: int, streams: int) -> dict[str, float]:
    """One measurement in this process, with the TILECAM_SPIN the parent set."""
    sys.path.insert(0, str(REPO / "bench"))
    from detect_bench import synthetic_frames

    from vision.detect import load_detector

    detector = load_detector(None)
    frames = synthetic_frames(frames_count)
    for frame in frames:  # warm-up: sessions, arenas, the second sessions on overlap
        detector.detect(frame)
    streams_fps(detector.detect, frames, max(2, streams), 2)
    out = {"one_stream_ms": median_ms(detector.detect, frames, rounds)}
    if streams > 1:
        out["streams_fps"] = streams_fps(detector.detect, frames, streams, rounds * 3)
    return out


def run_child(spin: str, args: argparse.Namespace) -> dict[str, float]:
    env = {**os.environ, "TILECAM_SPIN": spin}
    cmd = [
        sys.executable,
        __file__,
        "--child",
        "--frames",
        str(args.frames),
        "--rounds",
        str(args.rounds),
        "--streams",
        str(args.streams),
    ]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"spin_bench: the child with TILECAM_SPIN={spin} failed:\n{done.stderr}")
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def summarise(pairs: list[dict[str, Any]]) -> dict[str, Any]:
    """Wins of the spinning setting per measure, medians and sign-test p-values."""
    out: dict[str, Any] = {"pairs": len(pairs)}
    measures = [("one_stream_ms", True)]
    if pairs and "streams_fps" in pairs[0]["on"]:
        measures.append(("streams_fps", False))
    for key, lower_is_better in measures:
        t = tally([p["off"][key] for p in pairs], [p["on"][key] for p in pairs],
                  lower_is_better)
        out[key] = {
            "spin_on_median": t["cand_median"],
            "spin_off_median": t["base_median"],
            "pairs_spin_on_better": t["cand_better"],
            "pairs_spin_on_worse": t["cand_worse"],
            "p_spin_on_better": t["p_cand_better"],
            "p_spin_on_worse": t["p_cand_worse"],
        }
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=10, help="on/off pairs of runs (default 10)")
    ap.add_argument("--frames", type=int, default=8, help="distinct frames (default 8)")
    ap.add_argument("--rounds", type=int, default=6, help="passes over the frames (default 6)")
    ap.add_argument(
        "--streams", type=int, default=2, help="threads at once for frames/s; 1 skips (default 2)"
    )
    ap.add_argument("--seed", type=int, default=0, help="order of the runs in each pair")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if min(args.pairs, args.frames, args.rounds, args.streams) < 1:
        ap.error("--pairs, --frames, --rounds and --streams must be at least 1")
    if args.child:
        print(json.dumps(child(args.frames, args.rounds, args.streams)))
        return 0
    def show(i: int, pair: dict[str, Any]) -> None:
        if args.json:
            return
        line = f"pair {i + 1}: one stream {pair['on']['one_stream_ms']:.1f} ms spinning, "
        line += f"{pair['off']['one_stream_ms']:.1f} ms not ({pair['first']} first)"
        if "streams_fps" in pair["on"]:
            line += (
                f"; {args.streams} streams {pair['on']['streams_fps']:.1f} / "
                f"{pair['off']['streams_fps']:.1f} frames/s"
            )
        print(line, flush=True)

    pairs = paired_runs(("on", "off"), lambda n: run_child("1" if n == "on" else "0", args),
                        args.pairs, args.seed, show)
    result = {"load_average": os.getloadavg()[0], "runs": pairs, **summarise(pairs)}
    if args.json:
        print(json.dumps(result, indent=1))
        return 0
    for key, unit in (("one_stream_ms", "ms per frame"), ("streams_fps", "frames/s")):
        if key in result:
            r = result[key]
            print(
                f"{key}: spinning {r['spin_on_median']} vs {r['spin_off_median']} {unit} "
                f"(medians); spinning better in {r['pairs_spin_on_better']} of "
                f"{args.pairs} pairs (p {r['p_spin_on_better']}), worse in "
                f"{r['pairs_spin_on_worse']} (p {r['p_spin_on_worse']})"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
