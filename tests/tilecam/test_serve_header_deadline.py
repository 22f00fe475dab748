"""``tilecam serve``'s deadline on request heads (:class:`HeaderDeadlineProtocol`) on a
real server, with uvicorn's httptools protocol and with h11 (uvicorn's ``auto`` picks
httptools when it is installed; the h11 server is started with ``auto`` pointed at h11).

Review round 1 of the seventieth session found the deadline timing bytes that were no
head: the rest of a body the app answered before reading it (401, 404, 429, 503 busy,
413 …), and a websocket's frames after an upgrade. At the header deadline it wrote a
second, raw 408 and closed the socket while the client was still sending, so a client
that reads its answer once it has sent the body (http.client, requests, the phone
page's upload) got a broken pipe instead of its 401 or 503. The tests marked "Before"
failed on that code.

Deadlines here: heads 1 s, bodies 3 s, idle keep-alive 2 s.
"""

from __future__ import annotations

import json
import os
import select
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_service_hardening import HAND, _connect, _free_port, _until_closed
from test_tables_helpers import ADMIN

HEADER_S = 1.0
REQUEST_S = 3.0
KEEP_ALIVE_S = 2

#: ``tilecam serve`` with uvicorn's ``auto`` protocol pointed at the implementation named
#: in argv[1] (what HeaderDeadlineProtocol wraps), on the port in argv[2].
SERVE = """
import sys
import uvicorn.protocols.http.auto as auto
if sys.argv[1] == "h11":
    from uvicorn.protocols.http.h11_impl import H11Protocol as inner
else:
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol as inner
auto.AutoHTTPProtocol = inner
from tilecam.cli import main
sys.exit(main(["serve", "--port", sys.argv[2], "--log-level", "error", "--no-access-log"]))
"""

#: A websocket echo served by uvicorn through HeaderDeadlineProtocol (as above), with a
#: websocket protocol (``tilecam serve`` itself has none: ``ws="none"``).
ECHO = """
import sys
import uvicorn
import uvicorn.protocols.http.auto as auto
if sys.argv[1] == "h11":
    from uvicorn.protocols.http.h11_impl import H11Protocol as inner
else:
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol as inner
auto.AutoHTTPProtocol = inner
from tilecam.commands.serve import HeaderDeadlineProtocol

async def app(scope, receive, send):
    if scope["type"] == "lifespan":
        while (await receive())["type"] != "lifespan.shutdown":
            await send({"type": "lifespan.startup.complete"})
        await send({"type": "lifespan.shutdown.complete"})
        return
    await receive()
    await send({"type": "websocket.accept"})
    while (message := await receive())["type"] == "websocket.receive":
        await send({"type": "websocket.send", "text": "echo:" + message["text"]})

uvicorn.run(app, port=int(sys.argv[2]), http=HeaderDeadlineProtocol, ws="websockets",
            log_level="error")
"""


def _start(code: str, impl: str, env: dict[str, str]) -> tuple[subprocess.Popen[bytes], int]:
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-c", code, impl, str(port)], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return proc, port
        except OSError:
            if time.monotonic() > deadline or proc.poll() is not None:
                _stop(proc)
                pytest.fail(f"the server ({impl}) did not start")
            time.sleep(0.1)


def _stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(15)
    except subprocess.TimeoutExpired:  # pragma: no cover - a hung server
        proc.kill()
        proc.wait(5)


@pytest.fixture(scope="module", params=["httptools", "h11"])
def served(request: pytest.FixtureRequest,
           tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``tilecam serve`` (no model) with 1 s heads, 3 s bodies and 2 s idle keep-alive,
    on each protocol."""
    env = dict(os.environ, TILECAM_LOAD_MODEL="0", TILECAM_ADMIN_KEY=ADMIN,
               TILECAM_DATA_DIR=str(tmp_path_factory.mktemp("served")),
               TILECAM_HEADER_TIMEOUT_S=str(HEADER_S),
               TILECAM_REQUEST_TIMEOUT_S=str(REQUEST_S),
               TILECAM_KEEP_ALIVE_S=str(KEEP_ALIVE_S))
    for name in ("TILECAM_DATABASE_URL", "TILECAM_FORWARDED_ALLOW_IPS",
                 "TILECAM_RATE_LIMIT_BURST"):
        env.pop(name, None)
    proc, port = _start(SERVE, request.param, env)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        _stop(proc)


BODY = 40_000  # bytes of the upload; its content does not matter: it is refused unread


def _upload_head(length: int = BODY) -> bytes:
    """A camera frame's head with a key that is no key: answered 401 before the body."""
    return (b"POST /v1/tables/1/frames?winner=E HTTP/1.1\r\nHost: x\r\n"
            b"Authorization: Bearer tc_not_a_key\r\nContent-Type: image/jpeg\r\n"
            b"Content-Length: " + str(length).encode() + b"\r\n\r\n")


def _response(sock: socket.socket, wait_s: float) -> tuple[int, bytes, bytes]:
    """One whole response (status, head, body; the body by its Content-Length)."""
    sock.settimeout(wait_s)
    got = b""
    while b"\r\n\r\n" not in got:
        chunk = sock.recv(65536)
        assert chunk, f"closed before an answer; got {got!r}"
        got += chunk
    head, _, body = got.partition(b"\r\n\r\n")
    length = next(int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")
                  if line.lower().startswith(b"content-length:"))
    while len(body) < length:
        chunk = sock.recv(65536)
        assert chunk, f"closed in an answer; got {got + body!r}"
        body += chunk
    assert len(body) == length, f"more than one answer: {head!r} {body!r}"
    return int(head.split(b" ", 2)[1]), head, body


def _send_slowly(sock: socket.socket, data: bytes, seconds: float, pieces: int = 25) -> None:
    step = -(-len(data) // pieces)
    for start in range(0, len(data), step):
        sock.sendall(data[start:start + step])
        time.sleep(seconds / pieces)


def test_an_early_answer_to_a_body_still_coming_reaches_the_client(served: str) -> None:
    """Rule: an answer given before the body was read (a key that is no key: 401) reaches
    a client that reads it only once it has sent the whole body, here over 2.5 s (longer
    than the 1 s header deadline, within the 3 s body deadline); the connection then
    serves its next request. Before: the rest of the body was timed as a head, and at 1 s
    a raw 408 was written and the socket closed — the client's send failed
    (BrokenPipeError) and it never read its 401."""
    with _connect(served, _upload_head()) as sock:
        try:
            _send_slowly(sock, b"\xff" * BODY, 2.5)
        except OSError as exc:
            pytest.fail(f"the server cut the body off: {exc!r}")
        status, _, body = _response(sock, 5)
        assert status == 401
        assert json.loads(body)["error"]["code"] == "unauthorized"
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        status, _, _ = _response(sock, 5)
        assert status == 200


def test_the_rest_of_an_answered_body_is_bounded_and_answered_no_more(served: str) -> None:
    """Rule: the rest of a body answered before it was read may take the body deadline
    (3 s here), not the header deadline; then the connection is closed with no second
    answer (the request had its answer). Before: a raw 408 followed the 401 at 1 s."""
    with _connect(served, _upload_head(10 * BODY)) as sock:
        status, _, _ = _response(sock, 5)  # a client that reads as it sends
        assert status == 401
        began = time.monotonic()
        closed_at = None
        more = b""
        while time.monotonic() - began < 3 * REQUEST_S:
            try:
                sock.sendall(b"\xff" * 1000)
                if select.select([sock], [], [], 0.1)[0]:
                    chunk = sock.recv(65536)
                    more += chunk
                    if not chunk:
                        closed_at = time.monotonic() - began
                        break
            except (BrokenPipeError, ConnectionResetError):
                closed_at = time.monotonic() - began
                break
        assert more == b"", f"a second answer: {more!r}"
        assert closed_at is not None, "the connection was still open"
        assert REQUEST_S - 0.5 < closed_at < REQUEST_S + 2


def test_a_connection_idle_after_an_answered_body_is_closed_unanswered(served: str) -> None:
    """Rule: a connection that sent the whole of an answered body and then nothing is
    closed without another answer — after the idle keep-alive (h11, which knows where
    the body ends) or the body deadline (httptools, which does not). Before: a raw 408
    came 1 s after the body's end, to a client that had asked nothing."""
    with _connect(served, _upload_head()) as sock:
        status, _, _ = _response(sock, 5)
        assert status == 401
        sock.sendall(b"\xff" * BODY)
        began = time.monotonic()
        got = _until_closed(sock, REQUEST_S + 2)
        took = time.monotonic() - began
    assert got == b"", f"closed after {took:.1f} s with {got!r}"
    assert took > KEEP_ALIVE_S - 0.5


def test_the_next_head_after_an_answered_body_is_timed(served: str) -> None:
    """Rule: once the rest of an answered body is in, the next request's head is held to
    the header deadline again: a head that stops is 408 at 1 s (not at the later
    deadline of the body's rest, 3 s, or of the idle wait, 2 s)."""
    with _connect(served, _upload_head()) as sock:
        status, _, _ = _response(sock, 5)
        assert status == 401
        sock.sendall(b"\xff" * BODY)
        time.sleep(1.2)
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHo")
        began = time.monotonic()
        got = _until_closed(sock, 5)
        took = time.monotonic() - began
    assert got is not None, "the connection was still open"
    assert got.startswith(b"HTTP/1.1 408") and b'"request_timeout"' in got
    assert HEADER_S - 0.2 < took < HEADER_S + 0.5


def test_a_head_that_stops_is_still_a_408(served: str) -> None:
    """Rule: a request's line and headers must arrive within the header deadline, on each
    protocol uvicorn may use: 408 at 1 s, and closed."""
    with _connect(served, b"POST /v1/score HTTP/1.1\r\nHost: x\r\n") as sock:
        began = time.monotonic()
        got = _until_closed(sock, 5)
        took = time.monotonic() - began
    assert got is not None, "the connection was still open"
    assert got.startswith(b"HTTP/1.1 408") and b'"request_timeout"' in got
    assert HEADER_S - 0.2 < took < HEADER_S + 1


def test_a_slow_body_read_by_the_app_is_no_slow_head(served: str) -> None:
    """Rule: a body the app reads may take the body deadline (3 s) when its head came at
    once: one sent over 2 s (past the 1 s header deadline) is answered 200, and the
    connection kept for the next request."""
    body = json.dumps(HAND).encode()
    head = (b"POST /v1/score HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n")
    with _connect(served, head) as sock:
        _send_slowly(sock, body, 2.0, pieces=10)
        status, _, answer = _response(sock, 5)
        assert status == 200, answer
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        assert _response(sock, 5)[0] == 200


@pytest.mark.parametrize("impl", ["httptools", "h11"])
def test_a_websocket_is_no_longer_watched_once_upgraded(impl: str, tmp_path: Path) -> None:
    """Rule: a connection handed to a websocket protocol is not held to the header
    deadline (``tilecam serve`` serves no websockets: ``ws="none"``). Before: at 1 s
    idle the wrapper wrote a raw 408 into the websocket stream and closed it."""
    from websockets.sync.client import connect

    env = dict(os.environ, TILECAM_HEADER_TIMEOUT_S=str(HEADER_S),
               TILECAM_DATA_DIR=str(tmp_path))
    proc, port = _start(ECHO, impl, env)
    try:
        with connect(f"ws://127.0.0.1:{port}/", open_timeout=5) as ws:
            ws.send("a")
            assert ws.recv(timeout=5) == "echo:a"
            time.sleep(HEADER_S + 1)
            ws.send("b")
            assert ws.recv(timeout=5) == "echo:b"
    finally:
        _stop(proc)


def test_serve_takes_no_websocket_upgrades() -> None:
    """Rule: ``tilecam serve`` has no websocket route, so uvicorn is given no websocket
    protocol (an upgrade is answered as a plain request)."""
    from tilecam.commands.serve import server_options
    from tilecam.settings import Settings

    assert server_options(Settings(), "")["ws"] == "none"
