"""Per-image timing for the speed benches: the median over images of each image's own
median, so every image weighs the same.

The benches used to pool ``repeat`` calls cycling a short list of frames and take the
median of the pool: with 8 frames and 20 calls the first four frames counted three times
and the rest twice, and the pooled median was in effect one frame's time. Here each
input is timed ``rounds`` times in interleaved passes (pass 1 over every input, then
pass 2, ...: a slow spell of the machine falls on many images a little, not on one
image wholly) and the figures are over the inputs' medians.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any


def summarize(per_image: Sequence[float], cpu: Sequence[float],
              target_ms: float | None = None) -> dict[str, float]:
    """Median, p10 and p90 over images of their wall ms ``per_image``, the median of their
    CPU ms ``cpu``, the number of images ``n`` and, with ``target_ms``, the share of
    images at or under it (``within_target``).

    >>> s = summarize([10.0, 20.0, 30.0, 40.0, 90.0], [5.0] * 5, target_ms=30.0)
    >>> s["median"], s["n"], s["within_target"]
    (30.0, 5, 0.6)
    """
    if not per_image:
        raise ValueError("no images were timed")
    q = statistics.quantiles(per_image, n=10) if len(per_image) > 1 else [per_image[0]] * 9
    out: dict[str, float] = {
        "median": statistics.median(per_image),
        "p10": q[0],
        "p90": q[-1],
        "cpu_median": statistics.median(cpu),
        "n": len(per_image),
    }
    if target_ms is not None:
        out["within_target"] = sum(t <= target_ms for t in per_image) / len(per_image)
    return out


def per_image_ms(fn: Callable[[Any], object], inputs: Sequence[Any], rounds: int = 3,
                 target_ms: float | None = None) -> dict[str, float]:
    """Time ``fn(x)`` for every ``x`` of ``inputs`` ``rounds`` times (interleaved passes,
    after one warm-up call on each of the first two) and :func:`summarize` each input's
    median wall ms and median CPU ms (processor time of all this process's threads)."""
    if rounds < 1:
        raise ValueError(f"rounds must be at least 1, got {rounds}")
    for x in list(inputs)[:2]:  # warm-up (session allocation, caches)
        fn(x)
    wall: list[list[float]] = [[] for _ in inputs]
    cpu: list[list[float]] = [[] for _ in inputs]
    for _ in range(rounds):
        for i, x in enumerate(inputs):
            t, c = time.perf_counter(), time.process_time()
            fn(x)
            wall[i].append((time.perf_counter() - t) * 1000)
            cpu[i].append((time.process_time() - c) * 1000)
    return summarize([statistics.median(w) for w in wall],
                     [statistics.median(c) for c in cpu], target_ms)


def reference_ms(frames_bgr: Sequence[Any], rounds: int = 3) -> tuple[dict[str, float] | None, str]:
    """mahjong-detector's own pipeline (``detect_tiles`` on a PIL image) timed as
    :func:`per_image_ms` on the same BGR frames — a yardstick for the machine's speed at
    the time (its slow spells move both) — and a note: ``(None, why)`` when the PyPI
    package ``mahjong-detector`` is not installed."""
    try:
        import cv2
        import mahjong_detector
        from PIL import Image
    except ImportError as exc:
        return None, f"package not installed ({exc.name})"
    pil = [Image.fromarray(cv2.cvtColor(f, cv2.COLOR_BGR2RGB)) for f in frames_bgr]
    return per_image_ms(mahjong_detector.detect_tiles, pil, rounds), "mahjong-detector"
