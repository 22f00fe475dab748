"""Load test of ``POST /v1/recognize``: concurrent clients uploading 1280×960 JPEGs.

Starts ``tilecam serve --workers N`` on a free 127.0.0.1 port with the shipped model,
then ``--clients`` concurrent clients (default 16) each upload a photo, wait for the
answer and upload the next, for ``--duration`` seconds (default 60). Photos: real
table photos from ``../shared/datasets/hk-photos`` resized to 1280×960 (read at run
time, never copied), or synthetic ones when that folder is absent.

Reports requests, failures (any non-200 answer or transport error; 503 ``busy``
counts as a failure), throughput, p50/p90/p99/max latency, and the peak resident
memory (RSS) of the server's process tree sampled every 0.2 s. Exits 1 on any failure.

Usage::

    .venv/bin/python bench/api_recognize_load.py [--clients 16] [--duration 60]
        [--workers 1] [--photos 24]

Load goes to 127.0.0.1 only and is bounded in clients and time.

The server runs in this script's session (its own process group), so it shares the
script's scheduler group. Linux autogroup scheduling gives every session an equal CPU
share, so on a machine busy with other sessions the server gets only a slice; to
measure it with the CPUs to itself (as root), give the run's session priority::

    setsid sh -c 'echo -10 > /proc/self/autogroup; exec nice -n -10 \\
        .venv/bin/python bench/api_recognize_load.py'
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import cv2
import numpy as np
from _deps import require  # bench/ is on sys.path when run as a script
from _server import free_port, stop_server

ROOT = Path(__file__).resolve().parent.parent
WIDTH, HEIGHT = 1280, 960


def shared_dir() -> Path:
    env = os.environ.get("TILECAM_SHARED")
    return Path(env) if env else ROOT.parent / "shared"


def photos(count: int) -> tuple[list[bytes], str]:
    """``count`` JPEGs of 1280×960 and where they came from."""
    folder = shared_dir() / "datasets" / "hk-photos" / "images"
    files = sorted(folder.glob("*.jpg"))
    files = files[:: max(1, len(files) // max(1, count))]
    out: list[bytes] = []
    for f in files[:count]:
        img = cv2.imread(str(f), cv2.IMREAD_COLOR)
        if img is None:
            continue
        img = cv2.resize(img, (WIDTH, HEIGHT), interpolation=cv2.INTER_AREA)
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 90])
        if ok:
            out.append(buf.tobytes())
    if out:
        return out, f"{len(out)} hk-photos resized to {WIDTH}x{HEIGHT}"
    rng = np.random.default_rng(0)
    for _ in range(count):
        img = np.full((HEIGHT, WIDTH, 3), (40, 110, 40), np.uint8)
        for k in range(14):
            x, y = 150 + k * 66, 400 + int(rng.integers(-10, 10))
            cv2.rectangle(img, (x, y), (x + 62, y + 84), (230, 232, 225), -1)
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 90])
        out.append(buf.tobytes())
    return out, f"{len(out)} synthetic {WIDTH}x{HEIGHT} images (no hk-photos found)"


def tree_rss_kib(pid: int) -> int:
    """Resident memory of ``pid`` and all its descendants, KiB (Linux /proc)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        todo.extend(children.get(p, []))
        try:
            with open(f"/proc/{p}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
        except OSError:
            pass
    return total


def start_server(port: int, workers: int) -> subprocess.Popen[bytes]:
    cmd = [
        sys.executable, "-m", "tilecam.cli", "serve", "--host", "127.0.0.1", "--port", str(port),
        "--workers", str(workers), "--no-access-log", "--log-level", "warning",
    ]  # fmt: skip
    proc = subprocess.Popen(cmd, cwd=ROOT, process_group=0)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=2) as r:
                if r.status == 200:
                    return proc
        except urllib.error.HTTPError as exc:
            if exc.code == 503 and proc.poll() is None and time.monotonic() > deadline - 100:
                body = json.loads(exc.read())
                stop_server(proc)
                raise SystemExit(f"the server has no model: {body['error']['message']}") from None
        except OSError:
            pass
        time.sleep(0.3)
    stop_server(proc)
    raise SystemExit("the server did not become ready within 120 s")


async def load(port: int, images: list[bytes], clients: int, duration: float) -> dict[str, object]:
    import httpx

    latencies: list[float] = []
    service: list[float] = []  # the recognizer's own ms (decode..score), no queueing
    failures: dict[str, int] = {}
    stop = time.monotonic() + duration
    url = f"http://127.0.0.1:{port}/v1/recognize"
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx.AsyncClient(timeout=120, limits=limits) as http:

        async def client(k: int) -> None:
            i = k
            while time.monotonic() < stop:
                data = images[i % len(images)]
                i += clients
                t0 = time.perf_counter()
                try:
                    r = await http.post(url, files={"image": (f"p{i}.jpg", data, "image/jpeg")})
                    ok = r.status_code == 200
                    reason = "" if ok else f"HTTP {r.status_code} {r.text[:120]}"
                    if ok:
                        service.append(sum(r.json().get("ms", {}).values()))
                except httpx.HTTPError as exc:
                    ok, reason = False, f"{type(exc).__name__}: {exc}"
                latencies.append(time.perf_counter() - t0)
                if not ok:
                    failures[reason] = failures.get(reason, 0) + 1

        t0 = time.monotonic()
        await asyncio.gather(*(client(k) for k in range(clients)))
        elapsed = time.monotonic() - t0
    latencies.sort()
    n = len(latencies)

    def pct(q: float) -> float:
        return latencies[min(n - 1, int(n * q))] * 1000 if n else float("nan")

    return {
        "requests": n,
        "failed": sum(failures.values()),
        "failures": failures,
        "rps": n / elapsed,
        "p50_ms": pct(0.5),
        "p90_ms": pct(0.9),
        "p99_ms": pct(0.99),
        "max_ms": latencies[-1] * 1000 if n else float("nan"),
        "service_p50_ms": sorted(service)[len(service) // 2] if service else float("nan"),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clients", type=int, default=16, help="concurrent clients (default 16)")
    ap.add_argument("--duration", type=float, default=60, help="seconds of load (default 60)")
    ap.add_argument("--workers", type=int, default=1, help="server workers (default 1)")
    ap.add_argument("--photos", type=int, default=24, help="distinct photos (default 24)")
    args = ap.parse_args()
    require("httpx")  # the clients' package (dev extra): checked before the server starts
    clients = max(1, min(args.clients, 64))
    duration = max(1.0, min(args.duration, 300.0))
    images, source = photos(args.photos)
    port = free_port()
    print(f"tilecam serve --workers {args.workers} on 127.0.0.1:{port}; {clients} clients, "
          f"{duration:g} s; {source}; CPUs here: {os.cpu_count()}")  # fmt: skip
    proc = start_server(port, args.workers)
    idle_rss = tree_rss_kib(proc.pid)
    peak = [idle_rss]
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.2):
            peak[0] = max(peak[0], tree_rss_kib(proc.pid))

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        result = asyncio.run(load(port, images, clients, duration))
    finally:
        done.set()
        sampler.join()
        end_rss = tree_rss_kib(proc.pid)
        stop_server(proc)
    result.update(
        clients=clients, workers=args.workers, duration_s=duration,
        rss_idle_mib=round(idle_rss / 1024, 1), rss_peak_mib=round(peak[0] / 1024, 1),
        rss_end_mib=round(end_rss / 1024, 1),
    )  # fmt: skip
    print(
        f"POST /v1/recognize: {result['requests']} requests, {result['failed']} failed, "
        f"{result['rps']:.2f} req/s; latency p50 {result['p50_ms']:.0f} ms, "
        f"p90 {result['p90_ms']:.0f} ms, p99 {result['p99_ms']:.0f} ms, "
        f"max {result['max_ms']:.0f} ms (of which recognition itself, p50: "
        f"{result['service_p50_ms']:.0f} ms; the rest is waiting for a slot); "
        f"server RSS idle {result['rss_idle_mib']} MiB, "
        f"peak {result['rss_peak_mib']} MiB, after {result['rss_end_mib']} MiB"
    )
    for reason, n in dict(result["failures"]).items():  # type: ignore[call-overload]
        print(f"  {n} × {reason}")
    print("RESULT " + json.dumps(result))
    return 1 if result["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
