"""Process helpers shared by the service benchmarks: a free loopback port, a ``tilecam
serve`` without a model started and waited for, and a clean stop of its process group."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path


def free_port() -> int:
    """A TCP port on 127.0.0.1 that is free right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def stop_server(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM the server's process group (supervisor and workers), then SIGKILL
    whatever is left of the group after 15 s."""
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        proc.poll()
        try:
            os.killpg(proc.pid, 0)  # anyone left in the group?
        except ProcessLookupError:
            return
        time.sleep(0.2)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(5)


def start_server(root: Path, port: int, workers: int = 1,
                 env_extra: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    """``tilecam serve`` without a model (``TILECAM_LOAD_MODEL=0``, unless ``env_extra``
    says otherwise) of the checkout ``root`` (run there, its folder first on
    ``PYTHONPATH``, before the caller's) on 127.0.0.1:``port`` with
    ``workers`` processes, in a process group of its own (:func:`stop_server`); waits up
    to 60 s for ``/healthz``, else stops it and exits."""
    path = os.pathsep.join(p for p in (str(root), os.environ.get("PYTHONPATH", "")) if p)
    env = {**os.environ, "TILECAM_LOAD_MODEL": "0", "PYTHONPATH": path, **(env_extra or {})}
    cmd = [sys.executable, "-m", "tilecam.cli", "serve", "--host", "127.0.0.1",
           "--port", str(port), "--workers", str(workers), "--no-access-log",
           "--log-level", "warning"]
    proc = subprocess.Popen(cmd, cwd=root, env=env, process_group=0)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1) as r:
                if r.status == 200:
                    return proc
        except OSError:
            time.sleep(0.2)
    stop_server(proc)
    raise SystemExit("the server did not start within 60 s")
