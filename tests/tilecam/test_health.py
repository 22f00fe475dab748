"""Liveness endpoint of the service."""

from __future__ import annotations

from fastapi.testclient import TestClient

from tilecam.app import create_app


def test_healthz_answers_200() -> None:
    with TestClient(create_app()) as client:
        r = client.get("/healthz")
    assert r.status_code == 200
    assert r.json() == {"status": "ok"}
