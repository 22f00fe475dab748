"""The slowest readings of random detection sets, per rule set.

The ``layout`` part of :mod:`fuzz_inputs` feeds random detections (0–60 tiles, any codes
and top-k lists) through :func:`vision.recognize.recognize_detections`; most read in a
few milliseconds, a few pathological sets used to take seconds of CPU (seed 177 item
838: 60 tiles under Xiamen, ~3 s, nearly all in :func:`vision.flower_rereads.reread_flower_runs`
correcting the same hands again). This script reads the first ``--count`` items of the
stream of ``--seed`` (the same items ``fuzz_inputs.py layout --seed S`` reads) and
prints, per rule set (MCR, Xiamen, Zhenjiang), the ``--top`` slowest items by CPU time
(``time.process_time``, milliseconds; the wall time beside it), and the total CPU time.
CPU time, not wall time, so that other work on a shared machine counts less; the
figures are still one machine's: compare them only with a run on the same machine. The
imports a first reading pays are paid before timing (:func:`warm_up`).

``--dump FILE`` also writes each item's reading (``Recognition.to_dict()`` without its
``ms`` timings, or the ``HandError`` text) as one JSON line, so that two versions of the
code can be compared item by item (``cmp`` the two files): a speed-up must not change
any reading. ``--items`` times only the listed items (e.g. ``--items 838``).

Usage::

    .venv/bin/python bench/slow_readings.py [--seed 177] [--count 1000] [--top 5]
        [--dump FILE] [--items 838 ...]

Exit status 0; a reading that raises anything but ``scoring.HandError`` is printed and
counted (``fuzz_inputs.py layout`` is the check that there are none).
"""

from __future__ import annotations

import argparse
import functools
import json
import random
import sys
import time
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO

REPO = Path(__file__).resolve().parent.parent
for _path in (REPO, REPO / "bench"):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))


def read_item(read: Callable[..., Any], dets: Any, rules: str,
              context: dict[str, Any]) -> tuple[float, float, dict[str, Any] | str]:
    """One reading: its CPU and wall time (milliseconds) and its output — the
    ``to_dict()`` without ``ms``, or the text of the ``scoring.HandError`` raised (any
    other exception is returned as ``"FAILED: ..."``)."""
    import scoring

    cpu, wall = time.process_time(), time.perf_counter()
    out: dict[str, Any] | str
    try:
        reading = read(dets, rules, dict(context)).to_dict()
        reading.pop("ms", None)
        out = reading
    except scoring.HandError as exc:
        out = f"HandError: {exc}"
    except Exception as exc:  # any other: reported, not raised (a bench, not the check)
        out = f"FAILED: {type(exc).__name__}: {exc}"
    return (time.process_time() - cpu) * 1000, (time.perf_counter() - wall) * 1000, out


def warm_up(read: Callable[..., Any], seed: int) -> None:
    """Read, untimed, the first item of at least 13 tiles under each rule set of the
    ``seed`` stream, so that no timed item pays the imports a first reading does (the
    rule sets' scorers, ~0.3 s), then forget the corrections kept
    (``vision.rewrite.CORRECTIONS``, where the code has it)."""
    from fuzz_inputs import random_detections

    import vision.rewrite

    source = random_detections(random.Random(seed))
    left = {"mcr", "xiamen", "zhenjiang"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for _ in range(1000):
            dets, rules, context = next(source)
            if rules in left and len(dets) >= 13:
                left.discard(rules)
                read_item(read, dets, rules, context)
            if not left:
                break
    kept = getattr(vision.rewrite, "CORRECTIONS", None)
    if kept is not None:
        kept.clear()


def measure(seed: int, count: int, items: Sequence[int] | None = None,
            dump: TextIO | None = None) -> list[tuple[float, float, int, str, int]]:
    """``(cpu ms, wall ms, item, rules, tiles)`` of the first ``count`` items of the
    ``seed`` stream (only ``items`` when given); each reading written to ``dump`` as a
    JSON line ``{"item", "rules", "out"}`` when given."""
    from fuzz_inputs import random_detections, shipped_calibration

    from vision.recognize import recognize_detections

    read = functools.partial(recognize_detections, calibration=shipped_calibration())
    warm_up(read, seed)
    wanted = None if items is None else set(items)
    last = count - 1 if wanted is None else max(wanted, default=-1)
    source = random_detections(random.Random(seed))
    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # zero-size boxes divide by zero
        for item in range(last + 1):
            dets, rules, context = next(source)
            if wanted is not None and item not in wanted:
                continue
            cpu, wall, out = read_item(read, dets, rules, context)
            rows.append((cpu, wall, item, rules, len(dets)))
            if isinstance(out, str) and out.startswith("FAILED"):
                print(f"item {item} ({rules}): {out}")
            if dump is not None:
                dump.write(json.dumps({"item": item, "rules": rules, "out": out},
                                      ensure_ascii=False, sort_keys=True) + "\n")
    return rows


def report(rows: Sequence[tuple[float, float, int, str, int]], top: int) -> str:
    """Per rule set: items read, total CPU ms, and the ``top`` slowest items by CPU."""
    lines = []
    for rules in sorted({r[3] for r in rows}):
        mine = sorted((r for r in rows if r[3] == rules), reverse=True)
        total = sum(r[0] for r in mine)
        slow = ", ".join(f"{cpu:.0f} ms cpu / {wall:.0f} wall (item {item}, {n} tiles)"
                         for cpu, wall, item, _, n in mine[:top])
        lines.append(f"{rules}: {len(mine)} items, {total:.0f} ms cpu in all; slowest: {slow}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=177)
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--top", type=int, default=5)
    parser.add_argument("--items", type=int, nargs="*", default=None)
    parser.add_argument("--dump", type=Path, default=None,
                        help="write each reading (no timings) as a JSON line here")
    args = parser.parse_args(argv)
    dump = args.dump.open("w", encoding="utf-8") if args.dump else None
    try:
        rows = measure(args.seed, args.count, args.items, dump)
    finally:
        if dump is not None:
            dump.close()
    print(f"seed {args.seed}, {len(rows)} items")
    print(report(rows, args.top))
    return 0


if __name__ == "__main__":
    sys.exit(main())
