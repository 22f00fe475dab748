"""Two settings measured in pairs of runs: medians, pairs won each way, sign tests.

Shared by ``bench/spin_bench.py`` (spinning on against off) and ``bench/model_pairs.py``
(a model folder against another). ``train/compare.py`` holds the exact sign test.
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _compare_module() -> Any:
    """``train/compare.py`` loaded from its file: ``train`` names a folder of scripts, not
    a package, and a script run before (``train/classifier/train.py`` puts its folder
    first on ``sys.path``) can make ``import train`` find another file."""
    import importlib.util

    name = "_train_compare"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, ROOT / "train" / "compare.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


sign_test = _compare_module().sign_test


def tally(base: Sequence[float], cand: Sequence[float], lower_is_better: bool = True
          ) -> dict[str, float | int]:
    """Each side's median, the median per-pair difference (cand − base), the pairs the
    candidate did better and worse in, and the one-sided sign-test p of each count (a
    pair is a coin toss when the two settings are alike; level pairs count neither way).

    >>> t = tally([40.0, 50.0, 41.0], [42.0, 53.0, 45.0])
    >>> t["cand_minus_base"], t["cand_worse"], t["cand_better"], t["p_cand_worse"]
    (3.0, 3, 0, 0.125)
    >>> tally([25.0, 26.0], [26.0, 26.0], lower_is_better=False)["cand_better"]
    1
    """
    pairs = list(zip(base, cand, strict=True))
    better = sum((c < b) if lower_is_better else (c > b) for b, c in pairs)
    worse = sum((c > b) if lower_is_better else (c < b) for b, c in pairs)
    return {
        "base_median": round(statistics.median(base), 2),
        "cand_median": round(statistics.median(cand), 2),
        "cand_minus_base": round(statistics.median(c - b for b, c in pairs), 2),
        "cand_better": better,
        "cand_worse": worse,
        "p_cand_better": round(sign_test(better, worse), 4),
        "p_cand_worse": round(sign_test(worse, better), 4),
    }


def median_ms(call: Callable[[Any], object], frames: list[Any], rounds: int) -> float:
    """Median wall ms of ``call(frame)`` over ``rounds`` passes of ``frames``, one thread."""
    times = []
    for _ in range(rounds):
        for frame in frames:
            start = time.perf_counter()
            call(frame)
            times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def paired_runs(
    names: tuple[str, str],
    run: Callable[[str], dict[str, float]],
    pairs: int,
    seed: int,
    each: Callable[[int, dict[str, Any]], None] | None = None,
) -> list[dict[str, Any]]:
    """``pairs`` pairs of ``run(name)`` for both ``names``, in a random (seeded) order
    within each pair: ``[{name: result, name2: result, "first": name}, ...]``. ``each(i,
    pair)`` is called as each pair ends (to print it).

    >>> calls = []
    >>> out = paired_runs(("a", "b"), lambda n: calls.append(n) or {"ms": 1.0}, 3, 0)
    >>> sorted(calls) == ["a"] * 3 + ["b"] * 3, [sorted(p) for p in out][0]
    (True, ['a', 'b', 'first'])
    """
    rng = random.Random(seed)
    out: list[dict[str, Any]] = []
    for i in range(pairs):
        order = list(names)
        rng.shuffle(order)
        pair: dict[str, Any] = {n: run(n) for n in order}
        pair["first"] = order[0]
        out.append(pair)
        if each is not None:
            each(i, pair)
    return out
