"""``tilecam serve`` starts the real server (uvicorn, the app factory, settings from the
environment) and refuses impossible options."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest

from tilecam.cli import main


def test_serve_refuses_zero_workers(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--workers", "0"]) == 2
    assert "--workers must be at least 1" in capsys.readouterr().err


def test_serve_refuses_a_port_out_of_range(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--port", "70000"]) == 2
    assert "--port" in capsys.readouterr().err


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_serve_answers_health_score_and_readiness() -> None:
    port = _free_port()
    env = dict(os.environ, TILECAM_LOAD_MODEL="0")
    cmd = [sys.executable, "-m", "tilecam.cli", "serve", "--port", str(port)]
    cmd += ["--log-level", "error"]
    quiet = subprocess.DEVNULL
    proc = subprocess.Popen(cmd, env=env, stdout=quiet, stderr=quiet)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(base + "/healthz", timeout=1) as r:
                    assert json.loads(r.read()) == {"status": "ok"}
                    break
            except OSError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    pytest.fail("tilecam serve did not start")
                time.sleep(0.2)
        req = urllib.request.Request(
            base + "/v1/score",
            data=json.dumps({"hand": "[EEE,2][SSSS,1]WWWNN55pN", "self_drawn": True}).encode(),
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(req, timeout=10) as r:
            assert json.loads(r.read())["total"] == 98
        with pytest.raises(urllib.error.HTTPError) as info:
            urllib.request.urlopen(base + "/readyz", timeout=5)
        assert info.value.code == 503
        assert json.loads(info.value.read())["error"]["code"] == "not_ready"
    finally:
        proc.terminate()
        proc.wait(15)
