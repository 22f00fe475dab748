"""tilecam's MCR engine against the reference calculator (PyPI ``pymahjonggb``, dev extra)
on seeded random wins (scores) or dealt hands (shanten and waits): the long runs behind
the README's "agreed on every one of several million random wins" (the test suite
compares 5,000, ``tests/scoring/test_mcr_differential.py``, with the same rules for a
match).

A hand matches when the totals are equal and the fan lists are equal, or the reference's
fans are one of tilecam's readings with the same total (two readings can tie; 就高不就低
says nothing about ties). The intended differences (``tests/scoring/oracle_differences.py``)
do not arise: the generator keeps the contexts consistent.

With ``--waits``: hands dealt at random instead (0-4 claimed melds, half of them from one
or two suits; ``oracle_differences.dealt_hand``), their shanten and, for the ready ones,
their formal waits against the reference's (the test compares 3,000, seed 56).

Usage::

    .venv/bin/python bench/mcr_differential.py --seed 62001 --seed 62002 --count 200000
    .venv/bin/python bench/mcr_differential.py --waits --seed 62 --count 60000

Prints, per seed, the hands compared and the differences (the first five written out).
Exit status 1 when any hand differs, 2 when pymahjonggb is not installed, else 0.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
for _path in (REPO, REPO / "bench", REPO / "tests" / "scoring"):
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


def compare_waits(seed: int, count: int, show: int = 5) -> tuple[int, int]:
    """Shanten and formal-wait differences on ``count`` dealt hands of ``seed``, and how
    many of the hands were ready."""
    import random

    from MahjongGB import MahjongShanten
    from oracle_differences import dealt_hand, ref_tile, reference_waits

    from scoring.mcr.waits import formal_waits, shanten
    from scoring.tiles import index

    rng = random.Random(seed)
    differences = ready = 0
    for _ in range(count):
        dealt = dealt_hand(rng)
        if dealt is None:
            continue
        standing, packs = dealt
        held = [0] * 34
        for tile in standing:
            held[index(tile)] += 1
        want = MahjongShanten(pack=tuple(packs), hand=tuple(ref_tile(t) for t in standing))
        got = shanten(held, len(packs))
        ours: int | list[int] = got
        theirs: int | list[int] = want
        if got == want == 0:
            ready += 1
            ours = formal_waits(held, len(packs))
            theirs = sorted(index(t) for t in reference_waits(tuple(standing), len(packs)))
        if ours != theirs:
            differences += 1
            if differences <= show:
                print(f"  differs: {''.join(standing)} {packs}: tilecam {ours}, "
                      f"reference {theirs}")
    return differences, ready


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, action="append",
                        help="seed of scoring.mcr.samples.random_wins (repeat for more; "
                        "default 0)")
    parser.add_argument("--count", type=int, default=10000, help="wins (hands) per seed")
    parser.add_argument("--waits", action="store_true",
                        help="compare shanten and waits of dealt hands instead of scores")
    args = parser.parse_args(argv)
    from _deps import require

    require("MahjongGB", "pymahjonggb")  # else one line and exit status 2
    total = 0
    for seed in args.seed or [0]:
        started = time.perf_counter()
        if args.waits:
            found, ready = compare_waits(seed, args.count)
            what = f"{args.count} dealt hands ({ready} ready)"
        else:
            found, what = compare(seed, args.count), f"{args.count} wins"
        total += found
        print(f"seed {seed}: {what}, {found} differences "
              f"({time.perf_counter() - started:.0f} s)")
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
