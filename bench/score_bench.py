"""Scoring throughput: tilecam's MCR engine vs the reference calculator (pymahjonggb).

Both score the same seeded random winning hands (melds, kongs, seven pairs, thirteen
orphans, 全不靠, 组合龙, honours, flowers, win flags) once per round; hands are built
before timing (tilecam gets ``Hand`` objects, the reference its argument tuples), so
parsing is not timed for either. tilecam's per-suit caches start cold; the first round's
figure is printed too.

    .venv/bin/python bench/score_bench.py [--hands 20000] [--seed 7] [--rounds 3]

Prints hands/s of each (best round) and the ratio tilecam / reference.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "scoring"))

import scoring  # noqa: E402
from scoring.mcr.samples import random_wins  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=20000, help="hands per round")
    parser.add_argument("--seed", type=int, default=7, help="random seed of the hands")
    parser.add_argument("--rounds", type=int, default=3, help="rounds; the best is reported")
    args = parser.parse_args()

    try:
        from MahjongGB import MahjongFanCalculator
        from oracle_differences import reference_args
    except ImportError:
        print("pymahjonggb is not installed (pip install -e '.[dev]')", file=sys.stderr)
        return 2

    hands = random_wins(args.hands, seed=args.seed)
    ref_args = [reference_args(h, ctx) for h, ctx in hands]

    ours_best = ref_best = float("inf")
    ours_cold = 0.0
    agree = 0
    for round_no in range(args.rounds):
        start = time.perf_counter()
        totals = [scoring.score(h, **ctx).total for h, ctx in hands]
        elapsed = time.perf_counter() - start
        ours_best = min(ours_best, elapsed)
        if round_no == 0:
            ours_cold = elapsed
        start = time.perf_counter()
        ref = [MahjongFanCalculator(**kw) for kw in ref_args]
        ref_best = min(ref_best, time.perf_counter() - start)
        agree = sum(
            1 for t, fans in zip(totals, ref, strict=True) if t == sum(f[0] * f[1] for f in fans)
        )
    n = len(hands)
    ours, theirs = n / ours_best, n / ref_best
    print(f"hands: {n} (seed {args.seed}), best of {args.rounds} rounds")
    print(f"tilecam     {ours:10.0f} hands/s  (first round, cold caches: {n / ours_cold:.0f})")
    print(f"pymahjonggb {theirs:10.0f} hands/s")
    print(f"ratio       {ours / theirs:10.3f}  (target >= 0.05, goal 0.25)")
    print(f"same total  {agree}/{n}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
