"""A score sheet's database that cannot be reached: the table requests answer 503
``database_unavailable`` with the reason — never a 500 or a hang — while scoring, which
needs no database, goes on. PostgreSQL is stood in for by a listener that never answers
(a stuck host), with the connection timeout cut to 1 s."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_tables_helpers import admin, client_for, database_url, make_app

import tilecam.db.engine as db_engine
from tilecam.db.engine import make_engine, session_factory

pytest.importorskip("psycopg", reason="psycopg (the postgres extra) is not installed")


@pytest.fixture
def mute_url(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A PostgreSQL URL whose server takes connections and never answers."""
    monkeypatch.setattr(db_engine, "CONNECT_TIMEOUT_S", 1)
    with socket.socket() as mute:
        mute.bind(("127.0.0.1", 0))
        mute.listen(16)
        yield f"postgresql://tc@127.0.0.1:{mute.getsockname()[1]}/tilecam"


def test_a_database_that_cannot_be_opened_leaves_scoring_working(
    mute_url: str, tmp_path: Path
) -> None:
    app, _ = make_app(mute_url, tmp_path / "data")
    for client in client_for(app):
        r = client.post("/v1/events", json={"name": "open", "rules": "mcr"}, headers=admin())
        assert r.status_code == 503, r.text
        err = r.json()["error"]
        assert err["code"] == "database_unavailable"
        assert "cannot be opened" in err["message"] and "timeout" in err["message"]
        # one line, the driver's reason (no SQLAlchemy link), and when to try again
        assert "\n" not in err["message"] and "sqlalche.me" not in err["message"]
        assert r.headers["Retry-After"] == "5"
        score = client.post("/v1/score", json={"hand": "11223344556677m"})
        assert score.status_code == 200 and score.json()["total"] == 88


def test_a_database_that_stops_answering_is_a_503_at_once_not_a_500(
    mute_url: str, tmp_path: Path
) -> None:
    """The sheet was opened (an event made), then its server stops answering: reads and
    writes answer 503 with a Retry-After within a few seconds — one connection try each,
    not five — and nothing is said to be a tilecam bug."""
    app, _ = make_app(database_url("sqlite", tmp_path), tmp_path / "data")
    for client in client_for(app):
        made = client.post("/v1/events", json={"name": "open", "rules": "mcr"},
                           headers=admin())
        assert made.status_code == 201, made.text
        dead = make_engine(mute_url)
        app.state.table_db = session_factory(dead)  # the server goes quiet
        for method, path, body in [("GET", f"/v1/events/{made.json()['id']}", None),
                                   ("POST", "/v1/events", {"name": "two", "rules": "mcr"})]:
            start = time.monotonic()
            r = client.request(method, path, json=body, headers=admin())
            assert time.monotonic() - start < 8, f"{method} {path} waited on the database"
            assert r.status_code == 503, r.text
            assert r.json()["error"]["code"] == "database_unavailable"
            assert "timeout" in r.json()["error"]["message"]
            assert r.headers["Retry-After"] == "5"
        dead.dispose()


def test_a_value_the_database_refuses_is_a_400_with_its_reason() -> None:
    """A value no check caught that the database refuses (sqlalchemy ``DataError``: a
    figure past its column, text it cannot hold) was a 500 "tilecam bug". The transaction
    is rolled back, so it is the request's error: 400 with the database's first line."""
    from fastapi import FastAPI
    from fastapi.testclient import TestClient
    from sqlalchemy.exc import DataError

    from tilecam.api.errors import install_error_handlers

    app = FastAPI()
    install_error_handlers(app)

    @app.post("/store")
    def store() -> None:
        raise DataError("INSERT INTO penalties ...", {}, Exception(
            "integer out of range\nCONTEXT: unnamed portal parameter $5"))

    r = TestClient(app, raise_server_exceptions=False).post("/store")
    assert r.status_code == 400
    assert r.json()["error"] == {
        "code": "invalid_request",
        "message": "the database refused a value of this request: integer out of range "
                   "(nothing was recorded)"}
