"""Shared helpers of the event-table tests: a database per backend, an app, a fake camera.

The database fixture runs every test on SQLite and on a throwaway PostgreSQL server
(started by :mod:`tilecam.db.testing`; skipped with the reason where it cannot start).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from tilecam.app import create_app
from tilecam.db.engine import dispose_engines
from tilecam.db.testing import DatabaseUnavailable, fresh_postgres_database, fresh_sqlite_database
from tilecam.settings import Settings
from tilecam.tables.access import frame_reader, photo_reader
from tilecam.tables.camera import FrameReading

ADMIN = "admin-key-for-tests-0123456789"
PLAYERS = ["Ann", "Bo", "Cai", "Dan"]


def database_url(backend: str, tmp_path: Path) -> str:
    if backend == "sqlite":
        return fresh_sqlite_database(tmp_path)
    try:
        return fresh_postgres_database()
    except DatabaseUnavailable as exc:
        pytest.skip(f"PostgreSQL cannot run here: {exc}")


def frame(level: int) -> bytes:
    """A synthetic 64×48 camera frame of one grey level (the fake camera's scene id)."""
    img = np.full((48, 64, 3), level, np.uint8)
    ok, buf = cv2.imencode(".jpg", img)
    assert ok
    return buf.tobytes()


class FakeCamera:
    """Reads a frame's grey level and answers the scene registered for it."""

    def __init__(self) -> None:
        self.scenes: dict[int, FrameReading] = {0: FrameReading(None, False, 0)}
        self.calls = 0
        self.contexts: list[dict[str, Any]] = []

    def show(self, level: int, hand: str | None, complete: bool = True, tiles: int = 14) -> int:
        self.scenes[level] = FrameReading(hand, complete, tiles,
                                          {"hand": hand, "tiles": [{}] * tiles})
        return level

    def __call__(self, image: np.ndarray, rules: str, context: Any) -> FrameReading:
        self.calls += 1
        self.contexts.append(dict(context))
        level = round(float(image.mean()) / 10.0) * 10
        return self.scenes[level]


def make_app(url: str, data_dir: Path, **overrides: Any) -> tuple[FastAPI, FakeCamera]:
    values: dict[str, Any] = dict(database_url=url, data_dir=data_dir, admin_key=ADMIN,
                                  load_model=False, stable_frames=3, rate_limit_per_s=1000.0,
                                  rate_limit_burst=1000)
    values.update(overrides)
    app = create_app(Settings(**values))
    cam = FakeCamera()
    app.dependency_overrides[frame_reader] = lambda: cam
    app.dependency_overrides[photo_reader] = lambda: cam  # a photo reads as a frame does
    return app, cam


def client_for(app: FastAPI) -> Iterator[TestClient]:
    with TestClient(app) as client:
        yield client
    dispose_engines()


def admin(key: str = ADMIN) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def new_event(client: TestClient, rules: str = "mcr", tables: int = 2,
              **table_extra: Any) -> tuple[int, list[tuple[int, str]]]:
    """An event with ``tables`` tables; returns its id and ``(table id, key)`` pairs."""
    r = client.post("/v1/events", json={"name": "Spring open", "rules": rules}, headers=admin())
    assert r.status_code == 201, r.text
    event_id = r.json()["id"]
    out = []
    for i in range(tables):
        players = [f"{p}{i}" for p in PLAYERS]
        r = client.post(f"/v1/events/{event_id}/tables",
                        json={"name": f"T{i + 1}", "players": players, **table_extra},
                        headers=admin())
        assert r.status_code == 201, r.text
        out.append((r.json()["id"], r.json()["api_key"]))
    return event_id, out


def new_table(client: TestClient, rules: str = "mcr", **table_extra: Any) -> tuple[int, str]:
    """A table of a new one-table event: ``(table id, key)``."""
    _, [(t, k)] = new_event(client, rules=rules, tables=1, **table_extra)
    return t, k


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}
