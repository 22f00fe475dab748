"""tilecam's MCR engine against the reference calculator (PyPI ``pymahjonggb``, dev extra)
on seeded random wins: the long run behind the README's "agreed on every one of several
million random wins" (the test suite compares 5,000, ``tests/scoring/test_mcr_differential.py``,
with the same rules for a match).

A hand matches when the totals are equal and the fan lists are equal, or the reference's
fans are one of tilecam's readings with the same total (two readings can tie; 就高不就低
says nothing about ties). The intended differences (``tests/scoring/oracle_differences.py``)
do not arise: the generator keeps the contexts consistent.

Usage::

    .venv/bin/python bench/mcr_differential.py --seed 62001 --seed 62002 --count 200000

Prints, per seed, the hands compared and the differences (the first five written out).
Exit status 1 when any hand differs, 2 when pymahjonggb is not installed, else 0.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
for _path in (REPO, REPO / "tests" / "scoring"):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))


def compare(seed: int, count: int, show: int = 5) -> int:
    """Differences between tilecam and the reference on ``count`` wins of ``seed``."""
    from oracle_differences import equal_readings, reference_score, tilecam_fans

    import scoring
    from scoring.mcr.samples import random_wins
    from scoring.notation import format_hand

    differences = 0
    for hand, ctx in random_wins(count, seed=seed):
        ours = scoring.score(hand, **ctx)
        ref_total, ref_fans = reference_score(hand, ctx)
        our_fans = tilecam_fans(ours)
        if ref_total == ours.total and (
                ref_fans == our_fans or ref_fans in equal_readings(hand, ctx, ours.total)):
            continue
        differences += 1
        if differences <= show:
            print(f"  differs: {format_hand(hand)} {ctx}: tilecam {ours.total} "
                  f"{dict(our_fans)}, reference {ref_total} {dict(ref_fans)}")
    return differences


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, action="append",
                        help="seed of scoring.mcr.samples.random_wins (repeat for more; "
                        "default 0)")
    parser.add_argument("--count", type=int, default=10000, help="wins per seed")
    args = parser.parse_args(argv)
    try:
        import MahjongGB  # noqa: F401
    except ImportError:
        print("pymahjonggb is not installed (pip install -e '.[dev]')", file=sys.stderr)
        return 2
    total = 0
    for seed in args.seed or [0]:
        started = time.perf_counter()
        found = compare(seed, args.count)
        total += found
        print(f"seed {seed}: {args.count} wins, {found} differences "
              f"({time.perf_counter() - started:.0f} s)")
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
