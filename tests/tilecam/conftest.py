"""Fixtures shared by the score-sheet tests of this folder."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from test_tables_helpers import FakeCamera, client_for, database_url, make_app


@pytest.fixture(params=["sqlite", "postgres"])
def sheet(request: pytest.FixtureRequest,
          tmp_path: Path) -> Iterator[tuple[TestClient, FakeCamera]]:
    """A client of a fresh app and its fake camera, on SQLite and on PostgreSQL (skipped
    with the reason where PostgreSQL cannot start)."""
    app, cam = make_app(database_url(str(request.param), tmp_path), tmp_path / "data")
    for client in client_for(app):
        yield client, cam
