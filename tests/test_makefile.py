"""The Makefile's `make serve`: the port and host a user asks for are the ones served."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


def serve_command(*args: str, **env: str) -> str:
    """The last line `make -n serve` would run (nothing is run)."""
    base = {k: v for k, v in os.environ.items() if k not in ("TILECAM_PORT", "TILECAM_HOST")}
    base.pop("PORT", None)
    base.pop("HOST", None)
    done = subprocess.run(
        ["make", "-n", "-s", "serve", *args],
        cwd=REPO,
        env={**base, **env},
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip().splitlines()[-1]


def test_serve_defaults_to_localhost_8000() -> None:
    assert serve_command().endswith("tilecam serve --host 127.0.0.1 --port 8000")


def test_serve_takes_the_port_and_host_from_the_tilecam_settings() -> None:
    """README: `TILECAM_PORT=9000 make serve` serves on 9000 (settings prefix TILECAM_)."""
    line = serve_command(TILECAM_PORT="9000", TILECAM_HOST="0.0.0.0")
    assert line.endswith("tilecam serve --host 0.0.0.0 --port 9000")


def test_serve_takes_the_port_from_make() -> None:
    """README: `make serve PORT=9000`, which wins over TILECAM_PORT."""
    assert serve_command("PORT=9100", TILECAM_PORT="9000").endswith("--port 9100")
