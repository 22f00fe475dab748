"""A request body is timed once (:class:`tilecam.api.upload.BodyClock`).

``read_upload`` had its own ``asyncio.wait_for`` 408 timer for image uploads beside the
body timer of ``BodyLimitMiddleware``, both set to ``TILECAM_REQUEST_TIMEOUT_S``: every
image upload ran two timers, and which 408 a stalled one got was a race the earlier
timer happened to win. Now the middleware's clock times the body and ``read_upload``
only words its 408 as the upload's; an app built without the middleware still has its
uploads timed by ``read_upload``. The answers are unchanged, byte for byte.

The app is asked directly, as a server would, on an event loop that records the timers
set on it; a client that stops sending stalls for ever.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, MutableMapping
from typing import Any

import pytest
from fastapi import FastAPI, Request
from test_api_images import FakeDetector, jpeg

from tilecam.api.deps import get_detector
from tilecam.api.errors import install_error_handlers
from tilecam.api.upload import BodyClock, read_upload
from tilecam.app import create_app
from tilecam.settings import Settings

TIMEOUT_S = 0.5
UPLOAD_WORDS = "the upload did not arrive within 0.5 s"
BODY_WORDS = "the request body did not arrive within 0.5 s"


class TimerCountingLoop(asyncio.SelectorEventLoop):
    """An event loop that records how far ahead (seconds) each timer set on it is due."""

    def __init__(self) -> None:
        super().__init__()
        self.delays: list[float] = []

    def call_at(self, when: float, callback: Callable[..., Any], *args: Any,  # type: ignore[override]
                context: Any = None) -> asyncio.TimerHandle:
        self.delays.append(when - self.time())
        return super().call_at(when, callback, *args, context=context)

    def body_timers(self) -> int:
        """Timers due ``TIMEOUT_S`` after they were set: the body deadlines."""
        return sum(1 for d in self.delays if abs(d - TIMEOUT_S) < 0.05)


async def _ask(app: Any, path: str, headers: list[tuple[bytes, bytes]],
               chunks: list[bytes]) -> tuple[int, dict[str, str], bytes, float]:
    """Run ``app``'s lifespan, send ``chunks`` as a request's body and then stall; the
    answer's status, headers, body and the seconds it took."""
    startup: asyncio.Queue[dict[str, str]] = asyncio.Queue()
    started = asyncio.Event()
    await startup.put({"type": "lifespan.startup"})

    async def life_send(message: dict[str, Any]) -> None:
        if message["type"] == "lifespan.startup.complete":
            started.set()

    lifespan = asyncio.create_task(app({"type": "lifespan", "asgi": {"version": "3.0"}},
                                       startup.get, life_send))
    await asyncio.wait_for(started.wait(), 10)
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
             "method": "POST", "scheme": "http", "path": path, "raw_path": path.encode(),
             "query_string": b"", "root_path": "", "headers": headers,
             "client": ("203.0.113.9", 5000), "server": ("testserver", 80)}
    pending = list(chunks)
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        if pending:
            return {"type": "http.request", "body": pending.pop(0), "more_body": True}
        await asyncio.sleep(3600)  # the client stopped sending
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    began = time.monotonic()
    await asyncio.wait_for(app(scope, receive, send), 10)
    took = time.monotonic() - began
    await startup.put({"type": "lifespan.shutdown"})
    await asyncio.wait_for(lifespan, 10)
    start = next(m for m in sent if m["type"] == "http.response.start")
    answer_headers = {k.decode().lower(): v.decode() for k, v in start["headers"]}
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return start["status"], answer_headers, body, took


def ask(app: Any, path: str, headers: list[tuple[bytes, bytes]],
        chunks: list[bytes]) -> tuple[int, dict[str, str], bytes, float, int]:
    """:func:`_ask` on a :class:`TimerCountingLoop`; also the body timers it set."""
    loop = TimerCountingLoop()
    with asyncio.Runner(loop_factory=lambda: loop) as runner:
        status, answer_headers, body, took = runner.run(_ask(app, path, headers, chunks))
        return status, answer_headers, body, took, loop.body_timers()


@pytest.fixture
def service() -> FastAPI:
    """The service's app (with its body limit), 0.5 s bodies, a fake detector."""
    app = create_app(Settings(load_model=False, max_upload_bytes=200_000,
                              request_timeout_s=TIMEOUT_S))
    app.dependency_overrides[get_detector] = FakeDetector
    return app


def _raw_image(length: int) -> list[tuple[bytes, bytes]]:
    return [(b"content-type", b"image/jpeg"), (b"content-length", str(length).encode())]


def _form(length: int) -> list[tuple[bytes, bytes]]:
    return [(b"content-type", b"multipart/form-data; boundary=tc"),
            (b"content-length", str(length).encode())]


FORM_START = (b'--tc\r\nContent-Disposition: form-data; name="image"; filename="h.jpg"\r\n'
              b"Content-Type: image/jpeg\r\n\r\n")


@pytest.mark.parametrize("path", ["/v1/detect", "/v1/recognize"])
@pytest.mark.parametrize("body", ["raw", "form"])
def test_a_stalled_image_upload_is_timed_once_and_answered_as_before(
        service: FastAPI, path: str, body: str) -> None:
    """Rule: an image upload that stops arriving is a 408 request_timeout saying "the
    upload did not arrive within 0.5 s", with Connection: close — set by one timer.
    Before: the same answer, but each upload set two timers (read_upload's wait_for and
    the body limit's), and the answer was the one whose timer happened to fire first."""
    image = jpeg()
    if body == "raw":
        headers, chunks = _raw_image(len(image)), [image[:1000]]
    else:
        headers, chunks = _form(len(FORM_START) + len(image) + 10), [FORM_START + image[:1000]]
    status, answer_headers, answer, took, timers = ask(service, path, headers, chunks)
    assert status == 408, answer
    assert json.loads(answer) == {"error": {"code": "request_timeout", "message": UPLOAD_WORDS}}
    assert answer_headers["connection"] == "close"
    assert answer_headers["content-type"] == "application/json"
    assert TIMEOUT_S - 0.05 < took < TIMEOUT_S + 1
    assert timers == 1, f"{timers} body timers for one upload"


def test_a_stalled_json_body_keeps_its_own_words(service: FastAPI) -> None:
    """Rule: a body that is no upload (JSON to /v1/score) that stops arriving is still
    answered "the request body did not arrive within 0.5 s" — the upload's words are for
    image routes — by its one timer."""
    headers = [(b"content-type", b"application/json"), (b"content-length", b"1000")]
    status, answer_headers, answer, _, timers = ask(service, "/v1/score", headers,
                                                    [b'{"hand": "'])
    assert status == 408
    assert json.loads(answer) == {"error": {"code": "request_timeout", "message": BODY_WORDS}}
    assert answer_headers["connection"] == "close"
    assert timers == 1


def _bare_upload_app() -> FastAPI:
    """An app that reads uploads with :func:`read_upload` and has no body limit."""
    app = FastAPI()
    install_error_handlers(app)

    @app.post("/upload")
    async def upload(request: Request) -> dict[str, int]:
        got = await read_upload(request, 200_000, TIMEOUT_S)
        return {"bytes": len(got.data)}

    return app


def test_an_app_without_the_body_limit_still_times_uploads() -> None:
    """Rule: read_upload bounds an upload's time on its own where no body limit times the
    body (an app built without BodyLimitMiddleware): 408 with the same words, at 0.5 s,
    by one timer."""
    image = jpeg()
    status, answer_headers, answer, took, timers = ask(
        _bare_upload_app(), "/upload", _raw_image(len(image)), [image[:1000]])
    assert status == 408, answer
    assert json.loads(answer) == {"error": {"code": "request_timeout", "message": UPLOAD_WORDS}}
    assert answer_headers["connection"] == "close"
    assert TIMEOUT_S - 0.05 < took < TIMEOUT_S + 1
    assert timers == 1


def test_an_upload_that_arrives_in_time_is_read(service: FastAPI) -> None:
    """Rule: the one timer bounds the body only: an upload sent whole (here as a stream of
    pieces, then the end) is read and recognised, not cut off."""
    image = jpeg()

    async def whole() -> tuple[int, bytes]:
        pieces = [image[i:i + 4096] for i in range(0, len(image), 4096)]
        sent: list[dict[str, Any]] = []

        async def receive() -> dict[str, Any]:
            await asyncio.sleep(0.01)
            piece = pieces.pop(0)
            return {"type": "http.request", "body": piece, "more_body": bool(pieces)}

        async def send(message: MutableMapping[str, Any]) -> None:
            sent.append(dict(message))

        scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
                 "method": "POST", "scheme": "http", "path": "/v1/detect",
                 "raw_path": b"/v1/detect", "query_string": b"", "root_path": "",
                 "headers": _raw_image(len(image)), "client": ("203.0.113.9", 5000),
                 "server": ("testserver", 80)}
        await app(scope, receive, send)
        status = next(m["status"] for m in sent if m["type"] == "http.response.start")
        return status, b"".join(m.get("body", b"") for m in sent
                                if m["type"] == "http.response.body")

    from fastapi.testclient import TestClient

    app = service
    with TestClient(app) as client:  # runs the lifespan (the recognition limiter)
        status, answer = client.portal.call(whole)  # type: ignore[union-attr]
    assert status == 200, answer
    assert len(json.loads(answer)["tiles"]) == 3


def test_a_body_clock_already_running_on_another_time_is_not_taken_over() -> None:
    """Rule: read_upload takes the body's clock over only when it times the upload as it
    would itself (the same seconds, or a clock not yet started); otherwise it keeps its
    own timer rather than answer at a time it was not given."""
    fresh = BodyClock(None)
    assert fresh.time_upload(TIMEOUT_S) and fresh.timeout_s == TIMEOUT_S
    running = BodyClock(30.0)
    running.started = True
    assert not running.time_upload(TIMEOUT_S)
    assert running.too_slow().message == "the request body did not arrive within 30 s"
    assert running.time_upload(30.0)
    assert running.too_slow().message == "the upload did not arrive within 30 s"
    assert running.too_slow().headers == {"Connection": "close"}
