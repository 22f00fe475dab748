"""The database layer's review of the seventy-fifth session (report_dbreview): text no
database can store, database faults other than OperationalError, the write-ahead log at
a clean stop and backups, a database from a newer tilecam, data-dir paths holding ``?``
or ``%``, and the sheet CSV's headers."""

from __future__ import annotations

import csv
import io
import shutil
import sqlite3
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import text
from sqlalchemy.exc import (
    DatabaseError,
    DataError,
    IntegrityError,
    InternalError,
    OperationalError,
    ProgrammingError,
)
from test_tables_helpers import (
    ADMIN,
    admin,
    bearer,
    client_for,
    database_url,
    frame,
    make_app,
    new_table,
)

from tilecam.api.errors import install_error_handlers
from tilecam.cli import main
from tilecam.db import make_engine, upgrade
from tilecam.db.engine import dispose_engines, sqlite_file
from tilecam.settings import Settings

WIN = {"hand": "[EEE,2][SSSS,1]WWWNN55pN", "winner": "N", "self_drawn": True}
#: A lone UTF-16 surrogate, as JSON's escape sends it (valid JSON, no Unicode text).
LONE = "\\ud800"


def raw_post(client: TestClient, path: str, body: str, key: str = ADMIN) -> Any:
    """POST ``body`` as it is (JSON text holding escapes httpx would not write)."""
    return client.post(path, content=body.encode("ascii"),
                       headers={**bearer(key), "Content-Type": "application/json"})


@pytest.fixture
def sqlite_client(tmp_path: Path) -> Iterator[TestClient]:
    app, _ = make_app(database_url("sqlite", tmp_path), tmp_path / "data")
    yield from client_for(app)


# --- 1: a lone surrogate anywhere in a stored body ------------------------------------------


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_a_lone_surrogate_is_refused_naming_the_field_and_nothing_is_recorded(
        backend: str, tmp_path: Path) -> None:
    """`{"outcome": "draw", "context": {"gold": "\\ud800"}}` was recorded, then answered
    500 — and so was every read of the hand for good, and each client's retry recorded it
    again. Now a 422 naming the field, before anything is written, on both databases; a
    correction, a key and a camera frame's context alike."""
    app, _ = make_app(database_url(backend, tmp_path), tmp_path / "data")
    for client in client_for(app):
        t, k = new_table(client, rules="xiamen")
        for body, where in (
                (f'{{"outcome": "draw", "context": {{"gold": "{LONE}"}}}}', "context.gold"),
                (f'{{"outcome": "draw", "context": {{"x{LONE}": 1}}}}', "context.x\\ud800"),
                (f'{{"outcome": "draw", "note": "n{LONE}"}}', "note")):
            for _ in range(2):  # a client's retry records nothing either
                r = raw_post(client, f"/v1/tables/{t}/hands", body, k)
                assert r.status_code == 422, r.text
                message = r.json()["error"]["message"]
                assert f"{where} holds a character that is not Unicode text" in message \
                    or (where == "note" and "note" in message), message
        assert client.get(f"/v1/tables/{t}/hands", headers=bearer(k)).json()["hands"] == []
        assert client.get(f"/v1/tables/{t}/standings",
                          headers=bearer(k)).json()["hands_recorded"] == 0
        ok = client.post(f"/v1/tables/{t}/hands", headers=bearer(k), json={"outcome": "draw"})
        assert ok.status_code == 201, ok.text
        r = raw_post(client, f"/v1/tables/{t}/hands/1/corrections",
                     f'{{"context": {{"gold": "{LONE}"}}, "reason": "mend"}}')
        assert r.status_code == 422 and "context.gold" in r.json()["error"]["message"]
        history = client.get(f"/v1/tables/{t}/hands/1", headers=bearer(k))
        assert history.status_code == 200 and len(history.json()["history"]) == 1
        r = client.post(f"/v1/tables/{t}/frames", headers=bearer(k),
                        files={"image": ("f.jpg", frame(90), "image/jpeg")},
                        data={"context": f'{{"gold": "{LONE}"}}'})
        assert r.status_code == 400, r.text
        assert "field context: gold holds a character that is not Unicode text" in \
            r.json()["error"]["message"]
        for path in ("/hands", "/hands/1", "/sheet", "/sheet.csv", "/standings"):
            assert client.get(f"/v1/tables/{t}{path}", headers=bearer(k)).status_code == 200
        r = raw_post(client, "/v1/events", f'{{"name": "E{LONE}"}}')
        assert r.status_code == 422 and "name" in r.json()["error"]["message"]


def test_an_error_quoting_a_lone_surrogate_is_still_sent(sqlite_client: TestClient) -> None:
    """A camera frame's context with an object under a surrogate key: the 400 names the
    key, written as its escape (sending the character itself failed: a 500)."""
    t, k = new_table(sqlite_client, rules="xiamen")
    r = sqlite_client.post(f"/v1/tables/{t}/frames", headers=bearer(k),
                           files={"image": ("f.jpg", frame(90), "image/jpeg")},
                           data={"context": f'{{"g{LONE}": {{"a": 1}}}}'})
    assert r.status_code == 400, r.text
    assert "g\\ud800" in r.json()["error"]["message"]


# --- 2: database faults that are not OperationalError ----------------------------------------


def _raising_app(exc: Exception) -> FastAPI:
    app = FastAPI()
    install_error_handlers(app)

    @app.get("/boom")
    def boom() -> None:
        raise exc

    return app


class _Pg(Exception):
    """A psycopg error as the driver raises it: its SQLSTATE in ``sqlstate``."""

    def __init__(self, message: str, sqlstate: str) -> None:
        super().__init__(message)
        self.sqlstate = sqlstate


@pytest.mark.parametrize(("exc", "status", "lasting"), [
    (DatabaseError("SELECT", {}, sqlite3.DatabaseError("database disk image is malformed")),
     503, True),
    (DatabaseError("SELECT", {}, sqlite3.DatabaseError("file is not a database")), 503, True),
    (InternalError("INSERT", {}, _Pg("cannot execute INSERT in a read-only transaction",
                                     "25006")), 503, True),
    (ProgrammingError("INSERT", {}, _Pg("permission denied for table events", "42501")),
     503, True),
    (InternalError("SELECT", {}, _Pg("invalid page in block 3 of relation base/1/2",
                                     "XX001")), 503, False),
    (OperationalError("SELECT", {}, sqlite3.OperationalError("database is locked")), 503,
     False),
    # tilecam's own: still the 500 "this is a tilecam bug" (a race its retries did not
    # outlast, SQL that does not fit the schema), and a value the database refused a 400
    (IntegrityError("INSERT", {}, sqlite3.IntegrityError("UNIQUE constraint failed")), 500,
     False),
    (ProgrammingError("SELECT", {}, sqlite3.ProgrammingError("Incorrect number of bindings")),
     500, False),
    (ProgrammingError("SELECT", {}, _Pg('column "x" does not exist', "42703")), 500, False),
    (DataError("INSERT", {}, _Pg("value too long for type character varying(200)", "22001")),
     400, False),
])
def test_database_faults_are_503_and_tilecams_own_errors_stay_500(
        exc: Exception, status: int, lasting: bool) -> None:
    """A damaged SQLite file, a PostgreSQL database that takes no writes or a role without
    grants answered 500 "this is a tilecam bug" (only OperationalError was the 503 the
    README promises); an IntegrityError or a ProgrammingError of tilecam's SQL stays a
    500."""
    with TestClient(_raising_app(exc), raise_server_exceptions=False) as client:
        r = client.get("/boom")
    assert r.status_code == status, r.text
    code = {503: "database_unavailable", 500: "internal_error", 400: "invalid_request"}
    assert r.json()["error"]["code"] == code[status]
    if status == 503:
        assert ("Retry-After" not in r.headers) is lasting
        assert ("trying again will not help" in r.text) is lasting


def test_a_sqlite_file_damaged_past_its_header_is_503_not_500(tmp_path: Path) -> None:
    """The review's repro: pages past the header overwritten after the file was in use —
    the first request opens it, and the damage shows later: 503 database_unavailable,
    without "try again", never 500."""
    url = database_url("sqlite", tmp_path)
    app, _ = make_app(url, tmp_path / "data")
    tables = []
    for client in client_for(app):
        for _ in range(4):
            t, k = new_table(client)
            tables.append((t, k))
            for _n in range(4):
                assert client.post(f"/v1/tables/{t}/hands", headers=bearer(k),
                                   json={**WIN, "note": "x" * 1500}).status_code == 201
    file = sqlite_file(url)
    assert file is not None
    with sqlite3.connect(file) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    page = 4096
    with open(file, "r+b") as f:
        size = f.seek(0, 2)
        assert size > 30 * page
        f.seek(10 * page)
        f.write(b"\xa5" * 10 * page)
    app, _ = make_app(url, tmp_path / "data")
    codes = []
    with TestClient(app, raise_server_exceptions=False) as client:
        for t, k in tables:
            for path in ("/sheet", "/hands", "/standings", "/sheet.csv"):
                r = client.get(f"/v1/tables/{t}{path}", headers=admin())
                codes.append(r.status_code)
                assert r.status_code != 500, r.text
                if r.status_code == 503:
                    assert r.json()["error"]["code"] == "database_unavailable"
                    assert "Retry-After" not in r.headers
            r = client.post(f"/v1/tables/{t}/hands", headers=bearer(k), json=WIN)
            codes.append(r.status_code)
            assert r.status_code != 500, r.text
    dispose_engines()
    assert 503 in codes


def test_postgres_read_only_database_and_select_only_role_are_503(tmp_path: Path) -> None:
    """A database that takes no writes (a hot standby: default_transaction_read_only) and
    a role granted SELECT only: reads work, writes are 503 database_unavailable without
    Retry-After (an operator must act), not 500."""
    import psycopg
    from sqlalchemy.engine import make_url

    url = database_url("postgres", tmp_path)
    engine = make_engine(url)
    upgrade(engine)
    engine.dispose()
    parsed = make_url(url)
    role = f"reader_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(f"host=127.0.0.1 port={parsed.port} user=postgres "
                         f"dbname={parsed.database}", autocommit=True) as conn:
        conn.execute(f"CREATE ROLE {role} LOGIN")
        conn.execute(f"GRANT SELECT ON ALL TABLES IN SCHEMA public TO {role}")
    reader = parsed.set(username=role).render_as_string(hide_password=False)
    read_only = database_url("postgres", tmp_path)
    engine = make_engine(read_only)
    upgrade(engine)
    engine.dispose()
    ro = make_url(read_only)
    with psycopg.connect(f"host=127.0.0.1 port={ro.port} user=postgres dbname=postgres",
                         autocommit=True) as conn:
        conn.execute(f'ALTER DATABASE "{ro.database}" SET default_transaction_read_only = on')
    for which in (reader, read_only):
        app, _ = make_app(which, tmp_path / "data")
        with TestClient(app, raise_server_exceptions=False) as client:
            assert client.get("/v1/events", headers=admin()).status_code == 200
            r = client.post("/v1/events", headers=admin(), json={"name": "E"})
            assert r.status_code == 503, r.text
            assert r.json()["error"]["code"] == "database_unavailable"
            assert "Retry-After" not in r.headers
            assert "trying again will not help" in r.json()["error"]["message"]
        dispose_engines()


# --- 3: a clean stop folds the write-ahead log in; tilecam db backup -------------------------


def _hands_in(file: Path) -> int:
    with sqlite3.connect(file) as conn:
        return int(conn.execute("SELECT count(*) FROM hands").fetchone()[0])


def test_a_clean_stop_leaves_every_row_in_tilecam_db(tmp_path: Path) -> None:
    """After the service's lifespan ends, tilecam.db alone holds the rows (no -wal with
    them): a copy of that one file, the file the README names, is the whole sheet.
    Before, every row stayed in tilecam.db-wal and a copy held no table."""
    data = tmp_path / "data"
    app, _ = make_app("", data)
    try:
        with TestClient(app) as client:
            t, k = new_table(client)
            for _ in range(3):
                assert client.post(f"/v1/tables/{t}/hands", headers=bearer(k),
                                   json=WIN).status_code == 201
        db = data / "tilecam.db"
        wal = data / "tilecam.db-wal"
        assert not wal.exists() or wal.stat().st_size == 0
        copy = tmp_path / "copy" / "tilecam.db"
        copy.parent.mkdir()
        shutil.copyfile(db, copy)
        assert _hands_in(copy) == 3
        # the app started again opens the database afresh and still writes
        with TestClient(app) as client:
            assert client.post(f"/v1/tables/{t}/hands", headers=bearer(k),
                               json=WIN).status_code == 201
        assert _hands_in(db) == 4
    finally:
        dispose_engines()


def test_db_backup_copies_a_running_sqlite_database_into_one_file(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``tilecam db backup OUT`` while the service runs: OUT is one consistent file with
    every row (its log's too); it never overwrites a file; PostgreSQL is pointed at
    pg_dump."""
    url = database_url("sqlite", tmp_path)
    app, _ = make_app(url, tmp_path / "data")
    out = tmp_path / "backup.db"
    for client in client_for(app):
        t, k = new_table(client)
        for _ in range(2):
            assert client.post(f"/v1/tables/{t}/hands", headers=bearer(k),
                               json=WIN).status_code == 201
        assert main(["db", "backup", str(out), "--url", url]) == 0
    assert "backed up to" in capsys.readouterr().out
    assert _hands_in(out) == 2 and not Path(f"{out}-wal").exists()
    with sqlite3.connect(out) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert main(["db", "backup", str(out), "--url", url]) == 2
    assert "exists" in capsys.readouterr().err
    assert main(["db", "backup", str(tmp_path / "pg.db"), "--url",
                 "postgresql+psycopg://u@127.0.0.1:1/d"]) == 2
    assert "pg_dump" in capsys.readouterr().err
    assert main(["db", "backup", "--url", url]) == 2
    assert not (tmp_path / "pg.db").exists()


# --- 4: a database from a newer tilecam ------------------------------------------------------


def test_a_database_from_a_newer_tilecam_is_named_so_everywhere(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A database at a revision this tilecam does not ship: `db current` says it is
    ahead, written by a newer tilecam (it said "behind"); `db upgrade` says so on one
    line, exit 2, nothing changed (a traceback, exit 1); the server's 503 says to
    upgrade tilecam (it said "repair or replace the database")."""
    url = database_url("sqlite", tmp_path)
    assert main(["db", "upgrade", "--url", url]) == 0
    file = sqlite_file(url)
    assert file is not None
    with sqlite3.connect(file) as conn:
        conn.execute("UPDATE alembic_version SET version_num = '0099_future_feature'")
    capsys.readouterr()
    assert main(["db", "current", "--url", url]) == 0
    said = capsys.readouterr().out
    assert "0099_future_feature, ahead: written by a newer tilecam" in said, said
    assert main(["db", "upgrade", "--url", url]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tilecam db: error: the database is at revision "
                          "0099_future_feature") and "written by a newer tilecam" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    with sqlite3.connect(file) as conn:
        assert conn.execute("SELECT version_num FROM alembic_version").fetchone()[0] == \
            "0099_future_feature"
    app, _ = make_app(url, tmp_path / "data")
    for client in client_for(app):
        for headers in (admin(), {}):
            r = client.get("/v1/events", headers=headers)
            assert r.status_code == 503, r.text
            message = r.json()["error"]["message"]
            assert "written by a newer tilecam" in message and "upgrade tilecam" in message
            assert "repair or replace" not in message and "Retry-After" not in r.headers


# --- 5: data dirs named with ? or % ----------------------------------------------------------


@pytest.mark.parametrize("folder", ["club?night", "50%41off", "a#b c"])
def test_a_data_dir_named_with_url_characters_holds_its_database(
        folder: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``TILECAM_DATA_DIR=…/club?night`` put the database in the file ``club`` beside the
    data dir, ``50%41off`` in the folder ``50Aoff``: now ``data_dir/tilecam.db``."""
    data = tmp_path / folder
    url = Settings(data_dir=data).sqlalchemy_url
    assert sqlite_file(url) == data / "tilecam.db"
    assert main(["db", "upgrade", "--url", url]) == 0
    assert (data / "tilecam.db").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == [folder]
    app, _ = make_app("", data)
    for client in client_for(app):
        new_table(client)
    assert _hands_in(data / "tilecam.db") == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == [folder]


# --- 7: the sheet CSV's headers --------------------------------------------------------------


def test_sheet_csv_headers_are_unique_whatever_the_players_are_named(
        sqlite_client: TestClient) -> None:
    """Players named ``points``, ``hand`` and ``total`` gave the CSV three headers twice,
    and a reader by header read their points as the hand's number, its total, the
    penalty's points. A player's column is now ``points NAME`` (as ``money NAME``)."""
    t, k = new_table(sqlite_client, players=["points", "hand", "total", "Dan"])
    assert sqlite_client.post(f"/v1/tables/{t}/hands", headers=bearer(k),
                              json=WIN).status_code == 201
    assert sqlite_client.post(f"/v1/tables/{t}/penalties", headers=admin(), json={
        "player": "Dan", "kind": "deduction", "points": 10,
        "reason": "late"}).status_code == 201
    text_ = sqlite_client.get(f"/v1/tables/{t}/sheet.csv",
                              headers=bearer(k)).content.decode("utf-8-sig")
    head = next(csv.reader(io.StringIO(text_)))
    assert len(head) == len(set(head)), head
    assert head[-4:] == ["points points", "points hand", "points total", "points Dan"]
    hand, penalty, total = csv.DictReader(io.StringIO(text_))
    assert (hand["row"], hand["hand"], hand["points"]) == ("hand", "1", "")
    assert int(hand["total"]) > 0 and int(hand["points Dan"]) > 0
    assert (penalty["player"], penalty["points"], penalty["points Dan"]) == ("Dan", "10", "-10")
    standings = sqlite_client.get(f"/v1/tables/{t}/standings", headers=bearer(k)).json()
    assert {p["player"]: p["total"] for p in standings["players"]} == {
        name.removeprefix("points "): int(total[name]) for name in head[-4:]}


def test_the_lifespan_engine_checkpoint_ignores_postgres(tmp_path: Path) -> None:
    """The lifespan's shutdown closes a PostgreSQL engine too (no SQLite pragma on it)."""
    url = database_url("postgres", tmp_path)
    app, _ = make_app(url, tmp_path / "data")
    with TestClient(app) as client:
        new_table(client)
    engine = make_engine(url)
    with engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM event_tables")).scalar() == 1
    engine.dispose()
    dispose_engines()

