"""Speed of wild-tile decomposition (``scoring.wild``) and the regional rule sets.

For 0..4 wilds: 200 random complete 17-tile hands (five sets and a pair, then ``k`` tiles
turned into wilds) timed through ``is_complete`` and ``decompositions`` (caches cleared
before each batch), and 200 random 16-tile hands through ``shanten``; then a Xiamen
``score()`` and a full Xiamen ``waits()`` (34 tiles × discard/self-draw). Prints
milliseconds per call and the largest number of readings seen.

Usage::

    .venv/bin/python bench/wild_bench.py [--hands 200] [--seed 5]
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

import scoring
from scoring import wild


def complete_hand(rng: random.Random, wilds: int) -> list[int]:
    """Random complete natural hand of 17 tiles, then ``wilds`` tiles removed (to be wild)."""
    c = [0] * 34
    c[rng.randrange(34)] += 2
    for _ in range(5):
        i = rng.randrange(34)
        if i < 27 and i % 9 <= 6 and rng.random() < 0.6:
            for d in range(3):
                c[i + d] += 1
        else:
            c[i] += 3
    tiles = [i for i, n in enumerate(c) for _ in range(n)]
    for x in rng.sample(tiles, wilds):
        c[x] -= 1
    return c


def random_hand(rng: random.Random, naturals: int) -> list[int]:
    """Random natural tiles (at most 4 of a kind)."""
    c = [0] * 34
    while sum(c) < naturals:
        k = rng.randrange(34)
        if c[k] < 4:
            c[k] += 1
    return c


def per_call_ms(fn: Callable[[], object], n: int) -> float:
    t = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - t) / n * 1e3


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hands", type=int, default=200)
    ap.add_argument("--seed", type=int, default=5)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    for k in range(5):
        hands = [complete_hand(rng, k) for _ in range(args.hands)]
        wild._complete.cache_clear()
        t = time.perf_counter()
        for c in hands:
            assert wild.is_complete(c, k)
        complete_ms = (time.perf_counter() - t) / len(hands) * 1e3
        wild._complete.cache_clear()
        wild._readings.cache_clear()
        t = time.perf_counter()
        most = max(len(wild.decompositions(c, k)) for c in hands)
        readings_ms = (time.perf_counter() - t) / len(hands) * 1e3
        loose = [random_hand(rng, 16 - k) for _ in range(args.hands)]
        wild._kept.cache_clear()
        t = time.perf_counter()
        for c in loose:
            wild.shanten(c, k)
        shanten_ms = (time.perf_counter() - t) / len(loose) * 1e3
        print(
            f"{k} wilds: is_complete {complete_ms:.3f} ms, decompositions {readings_ms:.3f} ms "
            f"(max {most} readings), shanten(16 tiles) {shanten_ms:.3f} ms"
        )
    hand = "123m456m789m234p56p9s 1f 5s5s"
    ms = per_call_ms(
        lambda: scoring.score(hand, rules="xiamen", gold="9s", self_drawn=True), 200
    )
    print(f"xiamen score(): {ms:.3f} ms")
    ms = per_call_ms(lambda: scoring.waits("123m456m789m234p567p9s", rules="xiamen", gold="9s"), 20)
    print(f"xiamen waits() (34 tiles x 2 wins): {ms:.2f} ms")


if __name__ == "__main__":
    main()
