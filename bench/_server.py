"""Process helpers shared by the service benchmarks: a free loopback port and a clean
stop of a ``tilecam serve`` process group."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import time


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
