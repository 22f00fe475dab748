"""Scoring throughput: tilecam's MCR engine vs the reference calculator (pymahjonggb).

Both score the same seeded random winning hands (melds, kongs, seven pairs, thirteen
orphans, 全不靠, 组合龙, honours, flowers, win flags) once per round, alternating in
chunks of 500 hands so that load changes on a shared machine hit both; hands are built
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

    from _deps import require  # bench/ is on sys.path when run as a script

    require("MahjongGB", "pymahjonggb")  # else one line and exit status 2
    from MahjongGB import MahjongFanCalculator
    from oracle_differences import reference_args

    hands = random_wins(args.hands, seed=args.seed)
    ref_args = [reference_args(h, ctx) for h, ctx in hands]

    # The two engines alternate in chunks of 500 hands, so a change in machine load hits
    # both alike (this machine is shared); each round scores every hand once with each.
    chunk = 500
    ours_best = ref_best = float("inf")
    ours_cold = 0.0
    totals: list[int] = []
    ref: list[tuple[tuple[int, int, str, str], ...]] = []
    for round_no in range(args.rounds):
        ours_time = ref_time = 0.0
        totals, ref = [], []
        for lo in range(0, len(hands), chunk):
            start = time.perf_counter()
            totals.extend(scoring.score(h, **ctx).total for h, ctx in hands[lo : lo + chunk])
            mid = time.perf_counter()
            ref.extend(MahjongFanCalculator(**kw) for kw in ref_args[lo : lo + chunk])
            end = time.perf_counter()
            ours_time += mid - start
            ref_time += end - mid
        ours_best = min(ours_best, ours_time)
        ref_best = min(ref_best, ref_time)
        if round_no == 0:
            ours_cold = ours_time
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
