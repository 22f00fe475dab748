"""``tilecam serve``'s answer past ``TILECAM_MAX_CONNECTIONS`` (:class:`CapacityGate`).

uvicorn's ``limit_concurrency`` answered a request past the capacity with its own
plain-text ``503 Service Unavailable``, the one error of the service that was not JSON.
The gate answers it in the service's shape — 503 ``busy`` with ``Retry-After`` and
``Connection: close``, the body unread — under the same rule, on each protocol uvicorn
may use; a uvicorn that does not take the gate keeps its own answer and its limit.

The real server here holds 5 (``TILECAM_MAX_CONNECTIONS=5``): as uvicorn counted it, a
request is refused when 5 connections are open, its own among them.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import time
from collections.abc import Iterator, MutableMapping
from typing import Any

import pytest
from test_serve_header_deadline import SERVE, _response, _start, _stop

from tilecam.commands import serve
from tilecam.commands.serve import CAPACITY_RETRY_AFTER_S, CapacityGate, HeaderDeadlineProtocol

LIMIT = 5
HEALTH = b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
#: an image upload's head declaring 5 MB; its body is never sent
UPLOAD_HEAD = (b"POST /v1/recognize HTTP/1.1\r\nHost: x\r\nContent-Type: image/jpeg\r\n"
               b"Content-Length: 5000000\r\n\r\n")


@pytest.fixture(scope="module", params=["httptools", "h11"])
def port(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    """``tilecam serve`` (no model) holding 5 connections, on each protocol."""
    env = dict(os.environ, TILECAM_LOAD_MODEL="0", TILECAM_MAX_CONNECTIONS=str(LIMIT),
               TILECAM_HEADER_TIMEOUT_S="30",
               TILECAM_DATA_DIR=str(tmp_path_factory.mktemp("capacity")))
    for name in ("TILECAM_DATABASE_URL", "TILECAM_FORWARDED_ALLOW_IPS"):
        env.pop(name, None)
    proc, number = _start(SERVE, request.param, env)
    try:
        yield number
    finally:
        _stop(proc)


def _idle(port: int, count: int) -> list[socket.socket]:
    """``count`` open connections that send nothing."""
    held = [socket.create_connection(("127.0.0.1", port), timeout=5) for _ in range(count)]
    time.sleep(0.2)  # the server has taken them in
    return held


def _closed_after(sock: socket.socket) -> bool:
    """The server closed ``sock`` (after its answer)."""
    sock.settimeout(2)
    try:
        return sock.recv(1) == b""
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False


def _ask(port: int, request: bytes,
         closing: bool = True) -> tuple[int, dict[str, str], bytes, bool]:
    """One request on a new connection: status, headers, body, and whether it was closed
    after the answer (looked at only when ``closing``: a kept one is waited on 2 s)."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(request)
        status, head, body = _response(sock, 5)
        headers = {name.strip().lower(): value.strip() for name, _, value in
                   (line.decode("latin-1").partition(":") for line in head.split(b"\r\n")[1:])}
        return status, headers, body, closing and _closed_after(sock)


def _served(port: int) -> int:
    """The status of /healthz once the places of connections closed before are free
    (tried for 5 s)."""
    deadline = time.monotonic() + 5
    while True:
        status = _ask(port, HEALTH, closing=False)[0]
        if status == 200 or time.monotonic() > deadline:
            return status
        time.sleep(0.1)


def _assert_busy(status: int, headers: dict[str, str], body: bytes, closed: bool) -> None:
    assert status == 503, body
    assert headers["content-type"] == "application/json", (headers, body)
    error = json.loads(body)["error"]
    assert set(error) == {"code", "message"}
    assert error["code"] == "busy"
    assert error["message"].startswith(f"the server is busy: it is at its limit of {LIMIT} ")
    assert error["message"].endswith("; try again")
    assert headers["retry-after"] == str(CAPACITY_RETRY_AFTER_S)
    assert headers["connection"] == "close"
    assert closed, "the connection was kept"


def test_a_request_past_the_capacity_is_a_json_busy_answer(port: int) -> None:
    """Rule: past TILECAM_MAX_CONNECTIONS a request is answered 503 busy in the service's
    JSON error shape, with Retry-After and Connection: close, and the connection closed.
    Before: uvicorn's plain-text "Service Unavailable" (text/plain, no Retry-After)."""
    assert _served(port) == 200
    held = _idle(port, LIMIT)
    try:
        _assert_busy(*_ask(port, HEALTH))
    finally:
        for sock in held:
            sock.close()


def test_an_upload_past_the_capacity_is_refused_before_its_body(port: int) -> None:
    """Rule: the busy answer comes after the head, without reading the body: an upload
    declaring 5 MB and sending none of it is answered at once."""
    assert _served(port) == 200
    held = _idle(port, LIMIT)
    try:
        began = time.monotonic()
        answer = _ask(port, UPLOAD_HEAD)
        assert time.monotonic() - began < 3  # _closed_after waits up to 2 s on a kept one
        _assert_busy(*answer)
    finally:
        for sock in held:
            sock.close()


def test_the_capacity_is_counted_as_uvicorn_counted_it(port: int) -> None:
    """Rule: the limit is where uvicorn's was — with 3 other connections open a request is
    served, with 4 (5 in all) it is refused — and closed connections give their places
    back."""
    assert _served(port) == 200
    held = _idle(port, LIMIT - 2)
    try:
        assert _ask(port, HEALTH, closing=False)[0] == 200
        held += _idle(port, 1)
        _assert_busy(*_ask(port, HEALTH))
    finally:
        for sock in held:
            sock.close()
    assert _served(port) == 200


# --- the gate on its own ---------------------------------------------------------------


def test_requests_in_progress_count_towards_the_capacity() -> None:
    """Rule: as with uvicorn's limit, ``limit`` requests the app is still answering (a
    client gone, the work going on) refuse the next, whatever the connections; once one
    ends, the next is served."""
    release = asyncio.Event()

    async def slow_app(scope: Any, receive: Any, send: Any) -> None:
        await release.wait()
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})

    async def run() -> tuple[list[dict[str, Any]], int]:
        gate = CapacityGate(slow_app, 2)
        answers: list[dict[str, Any]] = []

        async def send(message: MutableMapping[str, Any]) -> None:
            answers.append(dict(message))

        async def receive() -> dict[str, Any]:
            raise AssertionError("the refused request's body was read")

        scope = {"type": "http", "method": "GET", "headers": []}
        slow = [asyncio.create_task(gate(scope, receive, send)) for _ in range(2)]
        await asyncio.sleep(0.01)
        await gate(scope, receive, send)  # the third: refused at once
        release.set()
        await asyncio.gather(*slow)
        return answers, gate.requests

    answers, left = asyncio.run(run())
    refused = answers[0]
    assert refused["status"] == 503
    headers = dict(refused["headers"])
    assert headers[b"retry-after"] == b"2" and headers[b"connection"] == b"close"
    assert json.loads(answers[1]["body"])["error"]["code"] == "busy"
    assert [a["status"] for a in answers[2:] if "status" in a] == [200, 200]
    assert left == 0


async def _lifespan_free_app(scope: Any, receive: Any, send: Any) -> None:
    """An app for a uvicorn config made here (never called)."""


def _config(**options: Any) -> Any:
    import uvicorn

    config = uvicorn.Config(_lifespan_free_app, lifespan="off", log_config=None, **options)
    config.load()
    return config


@pytest.fixture
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    """An event loop for protocols made outside a running one."""
    made = asyncio.new_event_loop()
    yield made
    made.close()


def _protocol(config: Any, loop: asyncio.AbstractEventLoop) -> HeaderDeadlineProtocol:
    from uvicorn.server import ServerState

    return HeaderDeadlineProtocol(config=config, server_state=ServerState(), app_state={},
                                  _loop=loop)


@pytest.mark.parametrize("impl", ["httptools", "h11"])
def test_this_uvicorn_takes_the_gate_in_place_of_its_own_limit(
        impl: str, monkeypatch: pytest.MonkeyPatch, loop: asyncio.AbstractEventLoop) -> None:
    """Rule: with uvicorn 0.55 (each protocol) the connection's protocol answers through
    the gate and its own limit is off; the gate is one per server."""
    import uvicorn.protocols.http.auto as auto
    from uvicorn.protocols.http.h11_impl import H11Protocol
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    monkeypatch.setattr(auto, "AutoHTTPProtocol",
                        H11Protocol if impl == "h11" else HttpToolsProtocol)
    config = _config(limit_concurrency=LIMIT, ws="none")
    first, second = _protocol(config, loop), _protocol(config, loop)
    assert isinstance(first.gate, CapacityGate)
    assert first.gate is second.gate
    assert first.inner.app is first.gate
    assert first.gate.app is config.loaded_app
    assert first.inner.limit_concurrency is None
    assert config.limit_concurrency == LIMIT  # the server's own config is left as it was


def test_a_uvicorn_of_another_shape_keeps_its_own_limit(
        monkeypatch: pytest.MonkeyPatch, loop: asyncio.AbstractEventLoop) -> None:
    """Rule (fail-safe): a uvicorn protocol that does not take its app and its limit from
    the config it is made with (another version) is made with the server's own config —
    its plain-text answer and, above all, its limit stay — and so is every later
    connection of that server."""
    import uvicorn.protocols.http.auto as auto

    class ReadsConfigLater:
        """A protocol that keeps the config and reads from it per request."""

        def __init__(self, config: Any, server_state: Any, app_state: Any,
                     _loop: Any = None) -> None:
            self.config = config

    monkeypatch.setattr(auto, "AutoHTTPProtocol", ReadsConfigLater)
    config = _config(limit_concurrency=LIMIT, ws="none")
    for _ in range(2):
        protocol = _protocol(config, loop)
        assert protocol.gate is None
        assert protocol.inner.config is config
    assert serve._GATED[config] is None


@pytest.mark.parametrize("options", [{"ws": "none"}, {"limit_concurrency": LIMIT}])
def test_a_server_without_a_limit_or_with_websockets_is_not_gated(
        options: dict[str, Any], loop: asyncio.AbstractEventLoop) -> None:
    """Rule: no limit, nothing to gate; a server with websockets keeps uvicorn's answer (a
    connection handed to a websocket protocol would never give its place back)."""
    config = _config(**options)
    protocol = _protocol(config, loop)
    assert protocol.gate is None
    assert protocol.inner.config is config
