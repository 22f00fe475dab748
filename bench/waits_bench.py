"""Speed of the wait analysis — ``scoring.discards`` (何切, a hand that drew) and
``scoring.waits`` (a hand one tile short) — and, with ``--against``, its answers and
timings against another checkout of the code (a differential check).

The hands: the security review's (finding 3: 17-tile Xiamen hands of one suit holding
four golds, the slowest known: 4–9 s each before the finding was mended) and
seeded random ones of each rule set — MCR 14 tiles, Xiamen 17 with 0–4 golds, Zhenjiang
14 with 0–4 百搭 (a complete hand, one tile swapped for a random one, then tiles turned
into the wild; a quarter with a pung claimed, half from one or two suits) — each
through ``discards``, a hand one tile short of each through ``waits``, and, for the
regional rule sets, the complete hand through ``score`` under a few win contexts (their
scorers share the readings code the analysis leans on). Each call is timed with the
scorer's caches cleared first (``--warm``: kept), as a hand never seen before costs.

Usage::

    .venv/bin/python bench/waits_bench.py --count 100 --seed 70
    git worktree add /tmp/old HEAD~1
    .venv/bin/python bench/waits_bench.py --count 300 --seed 70 --against /tmp/old

Prints, per group of hands (and per checkout), the calls, the median and the largest
seconds, and the slowest hand; with ``--against`` the calls compared and how many
answers (``to_dict()``, or the ``HandError`` message) differ, the first five written
out. Exit status 1 when any answer differs.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent

CODES = [f"{r}{s}" for s in "mps" for r in range(1, 10)] + list("ESWNCFP")

#: The review's hands (finding 3) and others like them: (group, call, hand, rules, context).
Case = tuple[str, str, str, str, dict[str, Any]]
REVIEW: list[Case] = [
    ("review", "discards", "11112223334445556m", "xiamen", {"gold": "1m"}),
    ("review", "discards", "11113334445556667m", "xiamen", {"gold": "1m"}),
    ("review", "discards", "11112222333344445m", "xiamen", {"gold": "1m"}),
    ("review", "discards", "1111222233334444m5p", "xiamen", {"gold": "1m"}),
    ("review", "discards", "99998887776665554p", "xiamen", {"gold": "9p"}),
    ("review", "discards", "11112223334445556s", "xiamen", {"gold": "1s"}),
    ("review", "discards", "11112223334445m", "zhenjiang", {"wild": "1m"}),
    ("review", "discards", "55552223334446m", "zhenjiang", {"wild": "5m"}),
    ("review", "waits", "1111222333444555m", "xiamen", {"gold": "1m"}),
    ("review", "discards", "11122233344455m", "mcr", {}),
]


def _complete(rng: random.Random, sets: int) -> list[int]:
    """Kinds (0..33) of a random complete hand of ``sets`` sets and a pair, at most four
    of a kind; half of them from one or two suits."""
    suits = rng.sample(range(4), rng.choice((1, 2))) if rng.random() < 0.5 else list(range(4))
    kinds = [k for k in range(34) if k // 9 in suits or (k >= 27 and 3 in suits)]
    while True:
        c = [0] * 34
        c[rng.choice(kinds)] += 2
        for _ in range(sets):
            k = rng.choice(kinds)
            if k < 27 and k % 9 <= 6 and rng.random() < 0.6:
                for d in range(3):
                    c[k + d] += 1
            else:
                c[k] += 3
        if max(c) <= 4:
            return [k for k, n in enumerate(c) for _ in range(n)]


def _hand(rng: random.Random, rules: str, wilds: int, size: str) -> tuple[str, dict[str, Any]]:
    """A random hand of ``rules``: ``size`` "win" (complete), "drew" (a tile swapped) or
    "short" (a tile taken away), with ``wilds`` tiles turned into the wild kind."""
    sets = 5 if rules == "xiamen" else 4
    while True:
        wild = rng.randrange(34)
        tiles = _complete(rng, sets)
        rng.shuffle(tiles)
        meld = ""
        if rng.random() < 0.25:  # claim one pung (no wild, no 白板 in a Xiamen meld)
            pungs = [k for k in set(tiles) if tiles.count(k) >= 3 and k != wild
                     and not (rules == "xiamen" and k == 33)]
            if pungs:
                k = rng.choice(pungs)
                for _ in range(3):
                    tiles.remove(k)
                meld = f"[{CODES[k] * 3 if k >= 27 else CODES[k][0] * 3 + CODES[k][1]},1]"
        if size == "drew":
            tiles[0] = rng.randrange(34)
        elif size == "short":
            tiles.pop()
        if rules != "mcr":
            others = [i for i, k in enumerate(tiles) if k != wild]
            for i in rng.sample(others, min(wilds, len(others))):
                tiles[i] = wild
        if max(tiles.count(k) for k in set(tiles)) > 4 or (meld and tiles.count(wild) > 4):
            continue
        rng.shuffle(tiles)
        text = meld + "".join(CODES[k] for k in tiles)
        context = {"mcr": {}, "xiamen": {"gold": CODES[wild]},
                   "zhenjiang": {"wild": CODES[wild]}}[rules]
        return text, context


def cases(seed: int, count: int, only: str = "") -> list[Case]:
    """The review's hands, then ``count`` random hands of each group (seeded); with
    ``only``, the cases whose group name holds it."""
    rng = random.Random(seed)
    out = list(REVIEW)
    groups = [("mcr", 0)] + [(r, k) for r in ("xiamen", "zhenjiang") for k in range(5)]
    wins: dict[str, list[dict[str, Any]]] = {
        "xiamen": [{"self_drawn": True}, {}, {"self_drawn": True, "win": "you_jin"},
                   {"self_drawn": True, "settings": {"water_concealed_triplet": 0}},
                   {"self_drawn": True, "settings": {"water_concealed_triplet": 3,
                                                     "water_concealed_triplet_honour": 1}}],
        "zhenjiang": [{"self_drawn": True}, {}, {"discarder": 2}]}
    for rules, k in groups:
        name = rules if rules == "mcr" else f"{rules} {k} wild"
        for _ in range(count):
            for call, size in (("discards", "drew"), ("waits", "short")):
                hand, ctx = _hand(rng, rules, k, size)
                if rules == "xiamen" and rng.random() < 0.2:  # other 水 for triplets
                    ctx["settings"] = {"water_concealed_triplet": rng.choice((0, 2)),
                                       "water_concealed_triplet_honour": rng.choice((0, 1, 5))}
                out.append((name, call, hand, rules, ctx))
            if rules != "mcr":
                hand, ctx = _hand(rng, rules, k, "win")
                out.append((name, "score", hand, rules, {**ctx, **rng.choice(wins[rules])}))
    return [case for case in out if only in case[0]]


def _clear_caches() -> None:
    """Empty every ``functools`` cache of the scorer's modules (a hand never seen)."""
    for obj in gc.get_objects():
        if hasattr(obj, "cache_clear") and getattr(obj, "__module__", "").startswith("scoring"):
            obj.cache_clear()


def run(case: Case, warm: bool) -> tuple[Any, float]:
    """The answer of one case (``to_dict()``, or ``error: message``) and its seconds."""
    import scoring

    _group, call, hand, rules, context = case
    if not warm:
        _clear_caches()
    fn: Any = {"discards": scoring.discards, "waits": scoring.waits, "score": scoring.score}[call]
    start = time.perf_counter()
    try:
        answer: Any = fn(hand, rules=rules, **context).to_dict()
    except scoring.HandError as exc:
        answer = f"error: {exc}"
    return answer, time.perf_counter() - start


def emit(seed: int, count: int, warm: bool, only: str) -> None:
    """One JSON line per case: its answer and seconds (for ``--against``)."""
    import scoring

    print(json.dumps({"scoring": scoring.__file__}), flush=True)
    scoring.discards("123m456p789sEEENN")  # imports and tables, not timed
    for case in cases(seed, count, only):
        answer, secs = run(case, warm)
        print(json.dumps({"answer": answer, "s": secs}, ensure_ascii=False), flush=True)


def collect(tree: Path, seed: int, count: int, warm: bool,
            only: str) -> list[tuple[Any, float]]:
    """Run :func:`emit` on the code of ``tree`` in a fresh process."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    args = [sys.executable, str(Path(__file__).resolve()), "--emit", "--tree", str(tree),
            "--seed", str(seed), "--count", str(count), "--only", only] + (
                ["--warm"] if warm else [])
    lines = subprocess.run(args, env=env, cwd=tree, check=True, capture_output=True,
                           text=True).stdout.splitlines()
    where = json.loads(lines[0])["scoring"]
    if not where.startswith(str(tree.resolve())):
        raise SystemExit(f"{tree}: the scorer was imported from {where}")
    return [(row["answer"], row["s"]) for row in map(json.loads, lines[1:])]


def report(label: str, all_cases: list[Case], results: list[tuple[Any, float]]) -> None:
    """Calls, median and largest seconds and the slowest hand of each group."""
    print(f"\n{label}")
    groups: dict[str, list[tuple[float, Case]]] = defaultdict(list)
    for case, (_answer, secs) in zip(all_cases, results, strict=True):
        groups[f"{case[0]}: {case[1]}"].append((secs, case))
    for name, rows in groups.items():
        times = [s for s, _ in rows]
        slow = max(rows, key=lambda r: r[0])[1]
        print(f"  {name:32} {len(rows):5} calls  median {statistics.median(times):7.4f} s  "
              f"max {max(times):7.4f} s  ({slow[2]} {slow[4]})")
    every = [s for _a, s in results]
    print(f"  {'all':32} {len(every):5} calls  median {statistics.median(every):7.4f} s  "
          f"max {max(every):7.4f} s")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=70)
    ap.add_argument("--count", type=int, default=50, help="random hands per group and call")
    ap.add_argument("--against", type=Path, help="another checkout to compare with")
    ap.add_argument("--warm", action="store_true", help="keep the caches between calls")
    ap.add_argument("--only", default="", help="the groups whose name holds this text")
    ap.add_argument("--emit", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--tree", type=Path, default=REPO, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.emit:
        sys.path.insert(0, str(args.tree))
        emit(args.seed, args.count, args.warm, args.only)
        return 0
    all_cases = cases(args.seed, args.count, args.only)
    ours = collect(REPO, args.seed, args.count, args.warm, args.only)
    report(f"this tree ({REPO})", all_cases, ours)
    if args.against is None:
        return 0
    theirs = collect(args.against, args.seed, args.count, args.warm, args.only)
    report(f"against ({args.against})", all_cases, theirs)
    differ = [(case, a, b) for case, (a, _), (b, _) in zip(all_cases, ours, theirs, strict=True)
              if a != b]
    print(f"\ncompared {len(all_cases)} answers ({args.count} random hands per group and "
          f"call, seed {args.seed}): {len(differ)} differ")
    for case, a, b in differ[:5]:
        print(f"  {case}:\n    this tree: {json.dumps(a)[:400]}\n    against:   "
              f"{json.dumps(b)[:400]}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
