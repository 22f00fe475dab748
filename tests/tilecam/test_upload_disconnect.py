"""A client that closes the connection before its request's body has arrived (a camera on
flaky Wi-Fi dropping mid-upload, one that sends a frame and closes at once): the server
hears ``http.disconnect`` and Starlette raises ``ClientDisconnect`` while the route reads
the body. Rule: one warning line naming the route, the client and the bytes read;
no ERROR, no traceback, nothing sent (nobody is left to read it), and nothing held — the
recognition queue takes the next photo. Before (soak review, session 73), the catch-all
handler logged "unexpected error … this is a tilecam bug" with a traceback, and the
exception went on up to the server, which logged "Exception in ASGI application" with a
second one: about 9.4 KB of ERROR log per dropped upload.

The app is asked directly, as a server would, with the lifespan run by a TestClient."""

from __future__ import annotations

import logging
from collections.abc import MutableMapping
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from test_api_images import FakeDetector, jpeg
from test_tables_helpers import database_url, frame, make_app, new_event

from tilecam.api.deps import get_detector
from tilecam.app import create_app
from tilecam.settings import Settings

FORM_START = (b'--tc\r\nContent-Disposition: form-data; name="image"; filename="h.jpg"\r\n'
              b"Content-Type: image/jpeg\r\n\r\n")


def ask(client: TestClient, path: str, headers: list[tuple[bytes, bytes]],
        chunks: list[bytes], then_close: bool = True) -> list[dict[str, Any]]:
    """Send ``chunks`` as a request's body (more to come), then — ``then_close`` — the
    client's disconnect; the messages the app sent back."""

    async def run() -> list[dict[str, Any]]:
        pending = list(chunks)
        sent: list[dict[str, Any]] = []

        async def receive() -> dict[str, Any]:
            if pending:
                body = pending.pop(0)
                return {"type": "http.request", "body": body,
                        "more_body": bool(pending) or then_close}
            return {"type": "http.disconnect"}

        async def send(message: MutableMapping[str, Any]) -> None:
            sent.append(dict(message))

        scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
                 "method": "POST", "scheme": "http", "path": path,
                 "raw_path": path.encode(), "query_string": b"", "root_path": "",
                 "headers": headers, "client": ("203.0.113.9", 5000),
                 "server": ("testserver", 80)}
        await client.app(scope, receive, send)  # raised ClientDisconnect before
        return sent

    return client.portal.call(run)  # type: ignore[union-attr]


def _raw(length: int) -> list[tuple[bytes, bytes]]:
    return [(b"content-type", b"image/jpeg"), (b"content-length", str(length).encode())]


def _form(length: int) -> list[tuple[bytes, bytes]]:
    return [(b"content-type", b"multipart/form-data; boundary=tc"),
            (b"content-length", str(length).encode())]


def _one_warning(caplog: pytest.LogCaptureFixture, path: str, got: str) -> None:
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert not errors, [r.getMessage() for r in errors]
    lines = [r for r in caplog.records if r.levelno >= logging.INFO
             and r.name.startswith("tilecam")]
    assert len(lines) == 1, [r.getMessage() for r in lines]
    line = lines[0]
    assert line.levelno == logging.WARNING and not line.exc_info
    assert line.getMessage() == (
        f"client 203.0.113.9 went away before its request's body was read ({got} read; "
        f"nothing done, no answer sent): POST {path}")


@pytest.fixture
def service() -> FastAPI:
    app = create_app(Settings(load_model=False, max_upload_bytes=200_000,
                              recognize_concurrency=1, recognize_queue=2))
    app.dependency_overrides[get_detector] = FakeDetector
    return app


@pytest.mark.parametrize("path", ["/v1/recognize", "/v1/detect"])
@pytest.mark.parametrize("body", ["raw", "form"])
def test_an_upload_dropped_halfway_logs_one_warning_and_holds_nothing(
        service: FastAPI, caplog: pytest.LogCaptureFixture, path: str, body: str) -> None:
    image = jpeg()
    if body == "raw":
        headers, first = _raw(len(image)), image[:1000]
    else:
        headers, first = _form(len(FORM_START) + len(image) + 10), FORM_START + image[:1000]
    declared = int(headers[1][1])
    with TestClient(service) as client:
        caplog.clear()
        with caplog.at_level(logging.INFO):
            sent = ask(client, path, headers, [first])
        assert sent == []  # the client is gone: nothing to answer
        _one_warning(caplog, path, f"{len(first):,} of {declared:,} bytes")
        # more dropped uploads than the recognition queue holds, then a photo: answered
        for _ in range(5):
            ask(client, path, headers, [first])
        r = client.post(path, content=image, headers={"content-type": "image/jpeg"})
        assert r.status_code == 200, r.text
        assert len(r.json()["tiles"]) == 3


def test_a_frame_sent_whole_then_closed_logs_one_warning(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """The frame route checks the table's key before it reads the body; a camera that
    sent the whole frame and closed is gone by then, and the body's read hears the
    disconnect."""
    app, cam = make_app(database_url("sqlite", tmp_path), tmp_path / "data")
    image = frame(cam.show(120, "123m456m789m123p55p"))
    with TestClient(app) as client:
        _, [(t, key)] = new_event(client, tables=1)
        path = f"/v1/tables/{t}/frames"
        headers = [*_raw(len(image)), (b"authorization", f"Bearer {key}".encode())]
        caplog.clear()
        with caplog.at_level(logging.INFO):
            sent = ask(client, path, headers, [], then_close=True)
        assert sent == []
        _one_warning(caplog, path, f"0 of {len(image):,} bytes")
        # the table's camera state is untouched: the next frame is the first
        r = client.post(path, content=image, headers={"content-type": "image/jpeg",
                                                       "authorization": f"Bearer {key}"})
        assert r.status_code == 200, r.text
        assert (r.json()["status"], r.json()["streak"]) == ("waiting", 1)
        assert cam.calls == 1  # the dropped frame was never read
