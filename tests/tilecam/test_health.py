"""Liveness endpoint of the service."""

from __future__ import annotations

from fastapi.testclient import TestClient

from tilecam.app import create_app


def test_healthz_answers_200() -> None:
    with TestClient(create_app()) as client:
        r = client.get("/healthz")
    assert r.status_code == 200
    assert r.json() == {"status": "ok"}


def test_uptime_checks_by_head_get_200_without_a_body() -> None:
    """`curl -I` and uptime monitors send HEAD: the liveness route and the page answer
    200 (they were 405), with no body, and HEAD adds no operation to the API docs."""
    with TestClient(create_app()) as client:
        for path in ("/healthz", "/"):
            r = client.head(path)
            assert r.status_code == 200, path
            assert r.content == b""
        ops = client.get("/openapi.json").json()["paths"]["/healthz"]
    assert set(ops) == {"get"}
