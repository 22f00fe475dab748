"""``POST /v1/score`` latency while ``POST /v1/waits`` is flooded, over HTTP on loopback.

``/v1/waits`` takes no key: anyone can keep its analyses busy (pure-Python CPU work of up
to about 0.25 s each). The automatic tables' ``/v1/score`` runs on the event loop of the
same server process, so what matters is how much a flood of analyses slows it: with the
analyses in a thread of that process they hold its GIL; in worker processes
(``TILECAM_WAITS_PROCESSES``, the default) they do not (seventy-first session: median
6 → 1 ms, p99 100–150 → 4–6 ms).

Starts ``tilecam serve --workers 1`` (no detector) on a free 127.0.0.1 port from the
checkout ``--root`` (default: this one; give a ``git worktree`` of another commit to
measure the code as it was), then, in each of ``--rounds`` rounds, measures for
``--duration`` seconds each:

* idle: one client posts ``/v1/score`` (the 12 curated hands of
  ``bench/api_score_bench.py``, in turn) every ``--interval`` seconds on a keep-alive
  connection and times each answer;
* flood: the same, while ``--flooders`` clients post ``/v1/waits`` back to back, each on
  its own connection, with 17-tile Xiamen hands that drew (security review finding 3's
  and ``bench/waits_bench.py``'s seeded random ones with 0–4 golds, so that most are
  analyses never seen before).

Prints, per phase, the ``/v1/score`` answers, their median / p90 / p99 / largest time in
milliseconds, and the ``/v1/waits`` answers by status with their rate; exits 1 when a
``/v1/score`` answer is not 200 or a ``/v1/waits`` answer is neither 200 nor 503.

Usage::

    .venv/bin/python bench/waits_flood.py [--rounds 2] [--duration 10] [--flooders 4]
        [--interval 0.02] [--root PATH] [--env TILECAM_WAITS_PROCESSES=0]
    git worktree add /tmp/old HEAD && .venv/bin/python bench/waits_flood.py --root /tmp/old

Load goes to 127.0.0.1 only, bounded in clients and time. The server, its analysis
worker and this script share the machine's CPUs (the script prints their count and the
load average), so run it on a quiet machine and compare runs made together.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

# bench/ is on sys.path when run as a script
from _server import free_port, start_server, stop_server
from api_score_bench import HANDS as SCORE_HANDS
from waits_bench import REVIEW, cases

ROOT = Path(__file__).resolve().parent.parent


def code_folder(root: Path) -> str:
    """The folder ``tilecam`` is imported from by a server started as
    :func:`start_server` starts it (so the run says which code it measured)."""
    env = dict(os.environ, PYTHONPATH=str(root))
    out = subprocess.run([sys.executable, "-c", "import tilecam; print(tilecam.__file__)"],
                         cwd=root, env=env, capture_output=True, text=True, check=True)
    return str(Path(out.stdout.strip()).parent)


def flood_bodies(seed: int, count: int) -> list[bytes]:
    """``/v1/waits`` request bodies: the review's Xiamen hands that drew, then ``count``
    seeded random Xiamen hands per gold count (0–4) that drew."""
    chosen = [c for c in REVIEW if c[3] == "xiamen" and c[1] == "discards"]
    chosen += [c for c in cases(seed, count, "xiamen") if c[1] == "discards"]
    bodies = []
    for _, _, hand, rules, ctx in chosen:
        context = dict(ctx)
        settings = context.pop("settings", None)
        request = {"hand": hand, "rules": rules, "rule_context": context}
        bodies.append(json.dumps(request | ({"settings": settings} if settings else {})))
    return [b.encode() for b in bodies]


def post(conn: http.client.HTTPConnection, path: str, body: bytes) -> int:
    """POST ``body`` as JSON on the keep-alive ``conn``; the status (the body is read)."""
    conn.request("POST", path, body, {"Content-Type": "application/json"})
    answer = conn.getresponse()
    answer.read()
    return answer.status


def probe(port: int, duration: float, interval: float) -> tuple[list[float], Counter[int]]:
    """Post ``/v1/score`` every ``interval`` s for ``duration`` s; each answer's seconds,
    and the answers by status."""
    bodies = [json.dumps(h).encode() for h in SCORE_HANDS]
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    times: list[float] = []
    statuses: Counter[int] = Counter()
    stop = time.monotonic() + duration
    i = 0
    while time.monotonic() < stop:
        started = time.perf_counter()
        statuses[post(conn, "/v1/score", bodies[i % len(bodies)])] += 1
        took = time.perf_counter() - started
        times.append(took)
        i += 1
        time.sleep(max(0.0, interval - took))
    conn.close()
    return times, statuses


def flood(port: int, bodies: list[bytes], offset: int, stop: threading.Event,
          statuses: Counter[int], lock: threading.Lock) -> None:
    """Post ``/v1/waits`` back to back (from ``bodies[offset]`` on) until ``stop``."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    i = offset
    while not stop.is_set():
        status = post(conn, "/v1/waits", bodies[i % len(bodies)])
        i += 1
        with lock:
            statuses[status] += 1
    conn.close()


def phase(port: int, duration: float, interval: float, flooders: int,
          bodies: list[bytes], offset: int) -> dict[str, Any]:
    """One phase (``flooders`` 0: idle): /v1/score times and the flood's answers."""
    stop, lock = threading.Event(), threading.Lock()
    waits: Counter[int] = Counter()
    threads = [threading.Thread(target=flood, args=(port, bodies, offset + k * 997, stop,
                                                    waits, lock), daemon=True)
               for k in range(flooders)]
    for t in threads:
        t.start()
    if threads:
        time.sleep(1.0)  # the flood under way (and the analysis worker started)
    times, scores = probe(port, duration, interval)
    stop.set()
    for t in threads:
        t.join(60)
    ms = sorted(t * 1000 for t in times)
    return {"n": len(ms), "median": statistics.median(ms),
            "p90": ms[int(0.9 * (len(ms) - 1))], "p99": ms[int(0.99 * (len(ms) - 1))],
            "max": ms[-1], "score_statuses": scores, "waits_statuses": waits,
            "waits_rate": sum(waits.values()) / (duration + (1.0 if threads else 0.0))}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", type=Path, default=ROOT, help="checkout to serve (default: this)")
    ap.add_argument("--env", action="append", default=[], metavar="NAME=VALUE",
                    help="a setting for the server, e.g. TILECAM_WAITS_PROCESSES=0")
    ap.add_argument("--rounds", type=int, default=2, help="idle + flood rounds (default 2)")
    ap.add_argument("--duration", type=float, default=10.0,
                    help="seconds each phase is measured (default 10, ≤60)")
    ap.add_argument("--flooders", type=int, default=4,
                    help="clients flooding /v1/waits (default 4, ≤16)")
    ap.add_argument("--interval", type=float, default=0.02,
                    help="seconds between /v1/score requests (default 0.02)")
    ap.add_argument("--seed", type=int, default=71, help="seed of the random hands")
    args = ap.parse_args()
    env_extra = dict(item.split("=", 1) for item in args.env)
    duration = max(1.0, min(args.duration, 60.0))
    flooders = max(1, min(args.flooders, 16))
    bodies = flood_bodies(args.seed, 200)
    port = free_port()
    print(f"tilecam serve --workers 1 of {code_folder(args.root.resolve())} on "
          f"127.0.0.1:{port} {' '.join(args.env)}; {flooders} flooders, {len(bodies)} "
          f"Xiamen hands; CPUs {os.cpu_count()}, load {os.getloadavg()[0]:.2f}")
    proc = start_server(args.root.resolve(), port, env_extra=env_extra)
    failed = False
    try:
        phase(port, 1.0, args.interval, 0, bodies, 0)  # warm-up: imports, caches
        for round_ in range(max(1, args.rounds)):
            for name, n in (("idle", 0), ("flood", flooders)):
                r = phase(port, duration, args.interval, n, bodies, round_ * 5000)
                waits = " ".join(f"{s}:{c}" for s, c in sorted(r["waits_statuses"].items()))
                print(f"  round {round_ + 1} {name:<5} /v1/score n={r['n']:4d} median "
                      f"{r['median']:6.2f} p90 {r['p90']:6.2f} p99 {r['p99']:6.2f} max "
                      f"{r['max']:7.2f} ms" + (f"; /v1/waits {waits} "
                      f"({r['waits_rate']:.1f}/s)" if n else ""), flush=True)
                failed |= set(r["score_statuses"]) != {200}
                failed |= not set(r["waits_statuses"]) <= {200, 503}
    finally:
        stop_server(proc)
    print(f"  load average after: {os.getloadavg()[0]:.2f}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
