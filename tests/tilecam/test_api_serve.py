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


@pytest.mark.parametrize(("name", "value"), [("TILECAM_THREADS", "x"), ("TILECAM_SPIN", "maybe")])
def test_a_bad_runtime_setting_stops_serve_before_it_starts(
        name: str, value: str, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """The model's runtime reads these two: a bad one used to start a service whose every
    photo answered 503."""
    monkeypatch.setenv(name, value)
    assert main(["serve", "--port", "8000"]) == 2
    assert name in capsys.readouterr().err


def test_a_port_that_is_no_number_names_where_make_took_it(
        capsys: pytest.CaptureFixture[str]) -> None:
    """README: `TILECAM_PORT=abc make serve` stops with a line naming the variable (make
    passes it as --port)."""
    with pytest.raises(SystemExit) as stop:
        main(["serve", "--port", "abc"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "'abc' is not a port" in err and "TILECAM_PORT" in err


def test_serve_on_a_port_in_use_says_so_before_loading_anything(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A port another program holds: a clear error naming it and what to do, exit 2,
    before the model loads (uvicorn would start the app, then fail to bind)."""
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        port = held.getsockname()[1]
        started = time.perf_counter()
        assert main(["serve", "--host", "127.0.0.1", "--port", str(port)]) == 2
        assert time.perf_counter() - started < 5
    err = capsys.readouterr().err
    assert f"port {port} on 127.0.0.1 is already in use" in err and "PORT=" in err


def test_serve_on_a_host_that_is_not_this_machines_says_so(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """An address of no interface here (TEST-NET-1), and a name that does not resolve
    (the resolver's answer stood in for, so that no test waits on DNS)."""
    assert main(["serve", "--host", "192.0.2.1", "--port", "8000"]) == 2
    assert "192.0.2.1 is not an address of this machine" in capsys.readouterr().err

    def unknown(*args: object, **kwargs: object) -> None:
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(socket, "getaddrinfo", unknown)
    assert main(["serve", "--host", "tablecam.local", "--port", "8000"]) == 2
    err = capsys.readouterr().err
    assert "cannot serve on host 'tablecam.local': Name or service not known" in err


def test_a_free_port_has_no_bind_problem() -> None:
    from tilecam.commands.serve import bind_problem

    assert bind_problem("127.0.0.1", _free_port()) is None


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
