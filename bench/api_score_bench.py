"""Throughput of ``POST /v1/score`` over HTTP on loopback.

Starts ``tilecam serve --workers N --no-access-log`` on a free 127.0.0.1 port (without
loading the detector), checks the 12 curated hands score, adds ``--random`` seeded
random winning hands (``scoring.mcr.samples``, so the scorer's caches see realistic
variety, not 12 repeats), then drives it with
``wrk`` (Debian package; a Lua script cycles through the hands) or, when wrk is
missing, a bounded asyncio HTTP/1.1 keep-alive client. Prints requests/s, latency
percentiles and the count of non-200 answers, and exits 1 if any request failed.

Usage::

    .venv/bin/python bench/api_score_bench.py [--workers 2] [--connections 32]
        [--duration 20] [--client wrk|python]

Load goes to 127.0.0.1 only and is bounded in connections and time. The server and
the load generator share this machine's CPUs, so the figure is a lower bound of what
the server alone could do.

The server runs in this script's session (its own process group), so it shares the
script's scheduler group. Linux autogroup scheduling gives every session an equal CPU
share, so on a machine busy with other sessions the server gets only a slice; to
measure it with the CPUs to itself (as root), give the run's session priority::

    setsid sh -c 'echo -10 > /proc/self/autogroup; exec nice -n -10 \\
        .venv/bin/python bench/api_score_bench.py'
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

# bench/ is on sys.path when run as a script
from _server import free_port, start_server, stop_server

ROOT = Path(__file__).resolve().parent.parent

#: Winning MCR hands with their win context (varied shapes: chows, pungs, kongs,
#: seven pairs, thirteen orphans, honours), each one request body.
HANDS: list[dict[str, object]] = [
    {"hand": "[EEE,2][SSSS,1]WWWNN55pN", "self_drawn": True},
    {"hand": "[123m,2]456m789m11p555s"},
    {"hand": "123m456p789s12sEE3s", "self_drawn": True},
    {"hand": "19m19p19sESWNCFPP", "self_drawn": True},
    {"hand": "1133557799m224p4p", "self_drawn": True},
    {"hand": "555666777p5556s7s", "self_drawn": True},
    {"hand": "[234p,1][678s,3]345m567m9p9p", "seat_wind": "S"},
    {"hand": "[CCC,1][FFF,3]PP123m45m6m"},
    {"hand": "11122233344455m", "self_drawn": True},
    {"hand": "[111m,3][999p,2]111s99sEE9s", "prevalent_wind": "S"},
    {"hand": "123456789m11p23p4p", "flowers": 2},
    {"hand": "[NNNN][EEE,1]234s567s8p8p", "self_drawn": True, "kong": True},
]


def random_bodies(n: int, seed: int) -> list[bytes]:
    """``n`` seeded random winning MCR hands with their win context (scoring's own
    generator), as request bodies; each is checked to score locally first."""
    import scoring
    from scoring.mcr.samples import random_wins

    out = []
    for hand, ctx in random_wins(n, seed=seed):
        text = scoring.format_hand(hand)
        scoring.score(text, **ctx)  # raises if the generator made a hand that cannot score
        out.append(json.dumps({"hand": text, **ctx}).encode())
    return out


def tree_cpu_s(pid: int) -> float:
    """CPU seconds (user + system) used so far by ``pid`` and its descendants (Linux)."""
    tick = os.sysconf("SC_CLK_TCK")
    stats: dict[int, tuple[int, float]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            stats[int(entry)] = (int(fields[1]), (int(fields[11]) + int(fields[12])) / tick)
    total, todo = 0.0, [pid]
    while todo:
        p = todo.pop()
        total += stats.get(p, (0, 0.0))[1]
        todo.extend(c for c, (ppid, _) in stats.items() if ppid == p)
    return total


def check_hands(port: int) -> list[bytes]:
    """The curated hands' JSON bodies, each checked over HTTP (a bench of errors is void)."""
    bodies = []
    for h in HANDS:
        body = json.dumps(h).encode()
        req = urllib.request.Request(
            f"http://127.0.0.1:{port}/v1/score", data=body,
            headers={"Content-Type": "application/json"}, method="POST",
        )  # fmt: skip
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                total = json.loads(r.read())["total"]
        except urllib.error.HTTPError as exc:
            raise SystemExit(f"hand {h} does not score: {exc.read().decode()}") from None
        print(f"  {h['hand']:<34} total {total}")
        bodies.append(body)
    return bodies


LUA = """
local bodies = {%s}
local i = 0
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
request = function()
  i = i %% #bodies + 1
  return wrk.format(nil, "/v1/score", nil, bodies[i])
end
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("WRK %%d %%d %%d %%.3f %%.3f %%.3f\\n", summary.requests,
    summary.duration, e.status + e.connect + e.read + e.write + e.timeout,
    latency:percentile(50) / 1000, latency:percentile(99) / 1000, latency.max / 1000))
end
"""


def run_wrk(port: int, bodies: list[bytes], connections: int, duration: int) -> dict[str, float]:
    lua_bodies = ", ".join("[=[" + b.decode() + "]=]" for b in bodies)
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as f:
        f.write(LUA % lua_bodies)
        script = f.name
    try:
        cmd = [
            "wrk", "-t", "1", "-c", str(connections), "-d", f"{duration}s", "--latency",
            "-s", script, f"http://127.0.0.1:{port}/v1/score",
        ]  # fmt: skip
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=duration + 60).stdout
    finally:
        os.unlink(script)
    m = re.search(r"^WRK (\d+) (\d+) (\d+) ([\d.]+) ([\d.]+) ([\d.]+)$", out, re.M)
    if not m:
        raise SystemExit(f"could not read wrk's output:\n{out}")
    requests, duration_us, failed = (int(m.group(k)) for k in (1, 2, 3))
    return {
        "requests": requests,
        "rps": requests / (duration_us / 1e6),
        "failed": failed,
        "p50_ms": float(m.group(4)),
        "p99_ms": float(m.group(5)),
        "max_ms": float(m.group(6)),
    }


async def _python_client(
    port: int, bodies: list[bytes], connections: int, duration: int
) -> dict[str, float]:
    """Keep-alive HTTP/1.1 client: ``connections`` sockets, each one request at a time."""
    latencies: list[float] = []
    failed = 0
    stop = time.monotonic() + duration

    async def worker(k: int) -> None:
        nonlocal failed
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        i = k
        while time.monotonic() < stop:
            body = bodies[i % len(bodies)]
            i += 1
            head = (
                f"POST /v1/score HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json"
                f"\r\nContent-Length: {len(body)}\r\n\r\n"
            ).encode()
            t0 = time.perf_counter()
            writer.write(head + body)
            status = await reader.readline()
            length = 0
            while (line := await reader.readline()) not in (b"\r\n", b""):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            await reader.readexactly(length)
            latencies.append(time.perf_counter() - t0)
            if b" 200 " not in status:
                failed += 1
        writer.close()

    t0 = time.monotonic()
    await asyncio.gather(*(worker(k) for k in range(connections)))
    elapsed = time.monotonic() - t0
    latencies.sort()
    n = len(latencies)
    return {
        "requests": n,
        "rps": n / elapsed,
        "failed": failed,
        "p50_ms": latencies[n // 2] * 1000,
        "p99_ms": latencies[min(n - 1, int(n * 0.99))] * 1000,
        "max_ms": latencies[-1] * 1000,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workers", type=int, default=2, help="server worker processes (default 2)")
    ap.add_argument("--connections", type=int, default=32, help="open connections (default 32)")
    ap.add_argument("--duration", type=int, default=20, help="seconds of load (default 20, ≤120)")
    ap.add_argument("--random", type=int, default=2000,
                    help="seeded random winning hands added to the 12 curated ones (default 2000)")
    ap.add_argument("--seed", type=int, default=1, help="seed of the random hands (default 1)")
    ap.add_argument("--client", choices=["wrk", "python"], default=None,
                    help="load generator (default: wrk when installed)")  # fmt: skip
    args = ap.parse_args()
    duration = max(1, min(args.duration, 120))
    connections = max(1, min(args.connections, 256))
    client = args.client or ("wrk" if shutil.which("wrk") else "python")
    port = free_port()
    print(f"tilecam serve --workers {args.workers} on 127.0.0.1:{port}; client {client}, "
          f"{connections} connections, {duration} s; CPUs here: {os.cpu_count()}")  # fmt: skip
    proc = start_server(ROOT, port, args.workers)
    try:
        bodies = check_hands(port) + random_bodies(max(0, args.random), args.seed)
        print(f"  + {max(0, args.random)} seeded random winning hands (seed {args.seed}); "
              f"{len(bodies)} distinct request bodies, cycled")  # fmt: skip
        # warm-up: let both workers import everything and fill caches
        if client == "wrk":
            run_wrk(port, bodies, connections, 2)
        else:
            asyncio.run(_python_client(port, bodies, connections, 2))
        load_before = os.getloadavg()[0]
        cpu_before = tree_cpu_s(proc.pid)
        measured = (run_wrk(port, bodies, connections, duration) if client == "wrk"
                    else asyncio.run(_python_client(port, bodies, connections, duration)))
        server_cpu = tree_cpu_s(proc.pid) - cpu_before
        load_after = os.getloadavg()[0]
    finally:
        stop_server(proc)
    result: dict[str, Any] = dict(measured)
    result["server_cpu_s"] = round(server_cpu, 2)
    result["server_cpu_ms_per_request"] = round(1000 * server_cpu / max(1, result["requests"]), 3)
    result["loadavg_1min"] = [round(load_before, 2), round(load_after, 2)]
    print(
        f"POST /v1/score: {result['rps']:.0f} requests/s, {int(result['requests'])} requests, "
        f"{int(result['failed'])} failed; latency p50 {result['p50_ms']:.2f} ms, "
        f"p99 {result['p99_ms']:.2f} ms, max {result['max_ms']:.1f} ms"
    )
    print(
        f"server CPU: {result['server_cpu_s']} s for the run = "
        f"{result['server_cpu_ms_per_request']} ms per request; machine load average "
        f"{result['loadavg_1min'][0]} -> {result['loadavg_1min'][1]} on {os.cpu_count()} CPUs "
        "(other work on the machine takes CPU from the server)"
    )
    print("RESULT " + json.dumps({"workers": args.workers, "client": client,
                                  "connections": connections, **result}))  # fmt: skip
    return 1 if result["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
