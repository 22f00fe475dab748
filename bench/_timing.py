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
    return side_by_side_ms([(fn, inputs)], rounds, [target_ms])[0]


def side_by_side_ms(
    calls: Sequence[tuple[Callable[[Any], object], Sequence[Any]]], rounds: int = 3,
    targets: Sequence[float | None] | None = None,
) -> list[dict[str, float]]:
    """Time several pipelines on the same frames in alternating passes: for every
    ``(fn, inputs)`` of ``calls`` (inputs of equal length, item ``i`` the same frame in
    each one's form), round after round, one pass of each ``fn`` over all its frames
    (after one untimed call), so a slow spell of the machine — they last seconds to
    minutes — falls on all of them alike. Passes, not single frames, alternate: run
    back to back with another network, a frame measured 15–20 ms slower on this machine
    (caches, the other runtime's threads), a cost no camera pipeline pays. Returns one
    :func:`summarize` per call (``targets[k]`` its target, if any); after the first,
    each also holds ``ratio_to_first``: the median over frames of that frame's median
    ms divided by the first call's.
    """
    if rounds < 1:
        raise ValueError(f"rounds must be at least 1, got {rounds}")
    if not calls or len({len(inputs) for _, inputs in calls}) != 1:
        raise ValueError("every pipeline needs the same number of frames")
    n = len(calls[0][1])
    for fn, inputs in calls:  # warm-up (session allocation, caches)
        for x in list(inputs)[:2]:
            fn(x)
    wall: list[list[list[float]]] = [[[] for _ in range(n)] for _ in calls]  # [call][frame] -> ms
    cpu: list[list[list[float]]] = [[[] for _ in range(n)] for _ in calls]
    for _ in range(rounds):
        for k, (fn, inputs) in enumerate(calls):
            if len(calls) > 1:
                fn(inputs[0])  # untimed: the other pipeline ran last
            for i in range(n):
                t, c = time.perf_counter(), time.process_time()
                fn(inputs[i])
                wall[k][i].append((time.perf_counter() - t) * 1000)
                cpu[k][i].append((time.process_time() - c) * 1000)
    goals = list(targets) if targets is not None else [None] * len(calls)
    medians = [[statistics.median(w) for w in per_call] for per_call in wall]
    out = []
    for k in range(len(calls)):
        summary = summarize(medians[k], [statistics.median(c) for c in cpu[k]], goals[k])
        if k:
            summary["ratio_to_first"] = statistics.median(
                m / max(f, 1e-9) for m, f in zip(medians[k], medians[0], strict=True))
        out.append(summary)
    return out


def with_yardstick(fn: Callable[[Any], object], frames_bgr: Sequence[Any], rounds: int = 3,
                   target_ms: float | None = None,
                   ) -> tuple[dict[str, float], dict[str, float] | None, str]:
    """``fn`` on the BGR frames, timed as :func:`per_image_ms`, and beside it on the same
    frames, in alternating passes (:func:`side_by_side_ms`),
    mahjong-detector's own pipeline (``detect_tiles`` on a PIL image): a yardstick for
    the machine's speed at the time, since its slow spells move both alike. Returns
    ``(fn's figures, the yardstick's, note)``; ``fn``'s figures then hold
    ``per_yardstick``, the median over frames of ``fn``'s ms over the yardstick's.
    Without the PyPI package ``mahjong-detector``: ``(fn's figures, None, why)``."""
    try:
        import cv2
        import mahjong_detector
        from PIL import Image
    except ImportError as exc:
        return per_image_ms(fn, frames_bgr, rounds, target_ms), None, (
            f"package not installed ({exc.name})")
    pil = [Image.fromarray(cv2.cvtColor(f, cv2.COLOR_BGR2RGB)) for f in frames_bgr]
    theirs, ours = side_by_side_ms([(mahjong_detector.detect_tiles, pil), (fn, frames_bgr)],
                                   rounds, [None, target_ms])
    ours["per_yardstick"] = ours.pop("ratio_to_first")
    return ours, theirs, "mahjong-detector"


def verdict(what: str, figures: dict[str, float], target_ms: float) -> list[str]:
    """The bench's closing lines for pipeline ``what``: whether its median meets
    ``target_ms`` (with the share of frames within it) and, when timed beside the
    yardstick, its time as a multiple of the yardstick's.

    >>> verdict("recognize", {"median": 61.0, "n": 4, "within_target": 0.5}, 60.0)
    ['recognize misses the 60 ms target on this machine (50% of the 4 frames within it)']
    """
    word = "meets" if figures["median"] <= target_ms else "misses"
    lines = [f"{what} {word} the {target_ms:.0f} ms target on this machine "
             f"({figures['within_target']:.0%} of the {figures['n']} frames within it)"]
    if "per_yardstick" in figures:
        lines.append(f"{what} takes {figures['per_yardstick']:.2f}× mahjong-detector's time on "
                     "the same frame (median over frames; timed in alternating passes)")
    return lines
