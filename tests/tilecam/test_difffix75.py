"""Mends of the seventy-fifth session's diff review (``1389ec6..8d5ef36``).

F1: a photo at a closed or withdrawn table, or one whose session is over, is that 409
first — not ``already_recorded`` telling the caller to send it again with
``new_hand=true``, which met the closed table's 409 next.
F2: ``tilecam db backup OUT`` never removes or replaces a file: not the user's
``OUT.part`` (deleted before), not a file that appears at ``OUT`` while the copy is
written (replaced before); a destination that cannot be written is named, not the
source database.
F3: a Xiamen table stored with ``chip_stack`` 0 and the cap on (refused since this
session): its corrections and a 诈胡 penalty's default amount are 400
``invalid_context`` saying what a referee can do (a penalty was ``invalid_hand``; the
message told him to give a setting no route changes); nothing stored changes.
F4: on SQLite, SQL that does not fit the schema is the 500 "tilecam bug", as on
PostgreSQL (it was the 503 "try again"), and a transaction does not retry it; locked,
full, read-only and I/O faults stay 503.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, text, update
from sqlalchemy.exc import OperationalError
from test_tables_helpers import (
    FakeCamera,
    admin,
    bearer,
    client_for,
    database_url,
    frame,
    make_app,
    new_event,
    new_table,
)

from tilecam.api.errors import install_error_handlers
from tilecam.cli import main
from tilecam.db import engine as db_engine
from tilecam.db import make_engine, upgrade
from tilecam.db.backup import backup_sqlite
from tilecam.db.engine import database_fault, session_factory
from tilecam.db.models import GameTable
from tilecam.tables import sheet

STILL = "123m456m789m123p55p"
WIN = {"winner": "S", "discarder": "E"}


@pytest.fixture
def api(tmp_path: Path) -> Iterator[tuple[TestClient, FakeCamera, str]]:
    url = database_url("sqlite", tmp_path)
    app, cam = make_app(url, tmp_path / "data")
    for client in client_for(app):
        yield client, cam, url


def photo(client: TestClient, t: int, k: str, level: int, **fields: str) -> Any:
    return client.post(f"/v1/tables/{t}/photos", headers=bearer(k), data=fields,
                       files={"image": ("p.jpg", frame(level), "image/jpeg")})


def error(r: Any) -> tuple[int, str, str]:
    body = r.json()
    assert set(body) == {"error"}, body
    return r.status_code, body["error"]["code"], body["error"]["message"]


# --- F1: a closed table's 409 before already_recorded ----------------------------------------


@pytest.mark.parametrize("how", ["closed", "withdrawn"])
def test_a_photo_of_the_last_hand_at_a_closed_table_is_the_closed_tables_409(
        api: tuple[TestClient, FakeCamera, str], how: str) -> None:
    """The review's repro: the last hand's photo at a closed table was ``already_recorded``
    ("send the photo again with new_hand=true"), and doing so met the 409 "closed"."""
    client, cam, _ = api
    t, k = new_table(client)
    cam.show(120, STILL)
    assert photo(client, t, k, 120, **WIN).status_code == 201
    if how == "closed":
        r = client.post(f"/v1/tables/{t}/close", headers=admin(), json={"reason": "time"})
    else:
        r = client.patch(f"/v1/tables/{t}", headers=admin(), json={"withdrawn": True})
    assert r.status_code == 200, r.text
    for fields in (WIN, {**WIN, "new_hand": "true"}):
        status, code, message = error(photo(client, t, k, 120, **fields))
        assert (status, code) == (409, f"table_{how}"), message
        assert f"table {t} is {how}" in message and "new_hand" not in message
    # a re-send with its number stays idempotent at a closed table, as a posted hand's
    again = photo(client, t, k, 120, number="1", **WIN)
    assert again.status_code == 200 and again.json()["created"] is False


def test_a_photo_of_the_last_hand_of_a_finished_session_says_the_session_is_over(
        api: tuple[TestClient, FakeCamera, str]) -> None:
    """Sixteen hands make an MCR session: a photo of the sixteenth is the 409 that no hand
    is recorded after the session, not ``already_recorded``'s new_hand advice."""
    client, cam, _ = api
    t, k = new_table(client)
    for _ in range(15):
        assert client.post(f"/v1/tables/{t}/hands", headers=bearer(k),
                           json={"outcome": "draw"}).status_code == 201
    assert client.post(f"/v1/tables/{t}/hands", headers=admin(),
                       json={"hand": STILL, **WIN}).status_code == 201
    cam.show(120, STILL)
    status, code, message = error(photo(client, t, k, 120, **WIN))
    assert (status, code) == (409, "session_over"), message
    assert "recorded all 16 hands of the session" in message


def test_an_open_table_still_answers_already_recorded(
        api: tuple[TestClient, FakeCamera, str]) -> None:
    client, cam, _ = api
    t, k = new_table(client)
    cam.show(120, STILL)
    assert photo(client, t, k, 120, **WIN).status_code == 201
    status, code, message = error(photo(client, t, k, 120, **WIN))
    assert (status, code) == (409, "already_recorded") and "new_hand=true" in message


# --- F2: tilecam db backup never removes or replaces a file ----------------------------------


@pytest.fixture
def sqlite_db(tmp_path: Path) -> Path:
    file = tmp_path / "src" / "tilecam.db"
    file.parent.mkdir()
    with sqlite3.connect(file) as conn:
        conn.execute("CREATE TABLE t (a integer)")
        conn.execute("INSERT INTO t VALUES (7)")
    conn.close()
    return file


def _rows(file: Path) -> list[tuple[int]]:
    conn = sqlite3.connect(file)
    try:
        return list(conn.execute("SELECT a FROM t"))
    finally:
        conn.close()


def test_backup_leaves_a_users_file_named_out_part_alone(sqlite_db: Path,
                                                          tmp_path: Path) -> None:
    out = tmp_path / "backup.db"
    mine = tmp_path / "backup.db.part"
    mine.write_text("my notes")
    assert main(["db", "backup", str(out), "--url", f"sqlite:///{sqlite_db}"]) == 0
    assert mine.read_text() == "my notes"
    assert _rows(out) == [(7,)]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["backup.db", "backup.db.part", "src"]


def test_backup_never_replaces_a_file_that_appears_at_out_meanwhile(
        sqlite_db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Another program (or backup) makes OUT after the "exists" check, while the copy is
    written: it was replaced (``os.replace``); now the backup fails naming OUT, and its
    own temporary file is gone."""
    out = tmp_path / "backup.db"
    connect = sqlite3.connect

    def racing(path: Any, *args: Any, **kwargs: Any) -> sqlite3.Connection:
        if str(path).endswith(".part") and not out.exists():
            out.write_text("someone else's")
        conn: sqlite3.Connection = connect(path, *args, **kwargs)
        return conn

    monkeypatch.setattr(sqlite3, "connect", racing)  # the module db backup uses
    with pytest.raises(ValueError, match="exists"):
        backup_sqlite(sqlite_db, out)
    assert out.read_text() == "someone else's"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["backup.db", "src"]


def test_backup_to_a_folder_that_cannot_be_written_names_the_destination(
        sqlite_db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The review's repro: /proc (no file can be made there, root or not) — the error
    said "cannot back up <the database>"."""
    if not Path("/proc").is_dir():
        pytest.skip("no /proc here")
    out = Path("/proc/tilecam-backup.db")
    assert main(["db", "backup", str(out), "--url", f"sqlite:///{sqlite_db}"]) == 2
    err = capsys.readouterr().err
    assert f"cannot write {out}" in err and str(sqlite_db) not in err, err


def test_a_backup_still_copies_a_database_in_use(sqlite_db: Path, tmp_path: Path) -> None:
    out = tmp_path / "b" / "copy.db"
    out.parent.mkdir()
    backup_sqlite(sqlite_db, out)
    assert _rows(out) == [(7,)]
    assert [p.name for p in out.parent.iterdir()] == ["copy.db"]
    with pytest.raises(ValueError, match="exists"):
        backup_sqlite(sqlite_db, out)


# --- F3: a table stored with chip_stack 0 and the cap on -------------------------------------


PLAIN = "123m456m789m123p456p55s"


def test_a_table_stored_with_chip_stack_0_says_what_a_referee_can_do(
        api: tuple[TestClient, FakeCamera, str]) -> None:
    client, _, url = api
    _, [(t, k)] = new_event(client, rules="xiamen", tables=1)
    r = client.post(f"/v1/tables/{t}/hands", headers=bearer(k),
                    json={"hand": PLAIN, "winner": "S", "self_drawn": True,
                          "context": {"gold": "9s"}})
    assert r.status_code == 201, r.text
    engine = create_engine(url)
    try:
        with engine.begin() as conn:
            conn.execute(update(GameTable).where(GameTable.id == t)
                         .values(rule_settings={"chip_stack": 0}))
    finally:
        engine.dispose()
    sheet_before = client.get(f"/v1/tables/{t}/sheet", headers=admin()).json()
    for path, body in ((f"/v1/tables/{t}/hands/1/corrections", {"note": "n", "reason": "r"}),
                       (f"/v1/tables/{t}/penalties",
                        {"player": "Ann0", "kind": "false_win", "reason": "x"})):
        status, code, message = error(client.post(path, headers=admin(), json=body))
        assert (status, code) == (400, "invalid_context"), (path, message)
        assert "chip_stack=0" in message and "cannot be changed" in message
        assert f"/v1/tables/{t}/hands/N/void" in message and f"/v1/tables/{t}/close" in message
    assert client.get(f"/v1/tables/{t}/sheet", headers=admin()).json() == sheet_before
    # what the message offers works: a penalty's points given, a void
    r = client.post(f"/v1/tables/{t}/penalties", headers=admin(),
                    json={"player": "Ann0", "kind": "false_win", "reason": "x", "points": 50,
                          "money": True})
    assert r.status_code == 201, r.text
    r = client.post(f"/v1/tables/{t}/hands/1/void", headers=admin(), json={"reason": "r"})
    assert r.status_code == 201, r.text


def test_a_photo_of_a_win_at_a_table_stored_with_chip_stack_0_is_refused_at_once(
        api: tuple[TestClient, FakeCamera, str]) -> None:
    """Xiamen seed 000 stakes (课 of 100 chips): at a table stored with ``chip_stack`` 0
    and the cap on, a photo of a win is answered as a posted win is — 409
    ``table_settings_refused`` (since the seventy-seventh session: the table's fault, not
    the photo's) saying what a referee can do — not recorded ``pending`` with the
    scorer's advice to change a setting that no route changes."""
    client, cam, url = api
    _, [(t, k)] = new_event(client, rules="xiamen", tables=1)
    engine = create_engine(url)
    try:
        with engine.begin() as conn:
            conn.execute(update(GameTable).where(GameTable.id == t)
                         .values(rule_settings={"chip_stack": 0}))
    finally:
        engine.dispose()
    cam.show(120, PLAIN)
    status, code, message = error(photo(client, t, k, 120, winner="S", self_drawn="true",
                                        context='{"gold": "9s"}'))
    assert (status, code) == (409, "table_settings_refused")
    assert "cannot be changed" in message and f"/v1/tables/{t}/close" in message
    assert client.get(f"/v1/tables/{t}/hands", headers=admin()).json()["hands"] == []


def test_refused_settings_is_none_for_settings_the_scorer_takes() -> None:
    ok = GameTable(id=1, event_id=1, rules="xiamen", rule_settings={"chip_stack": 1})
    assert sheet.refused_settings(ok) is None
    assert sheet.refused_settings(GameTable(id=1, event_id=1, rules="mcr",
                                            rule_settings={})) is None


# --- F4: SQLite's wrong SQL is a tilecam bug (500), its faults stay 503 ----------------------


def _app_running(engine: Any, sql: str) -> FastAPI:
    app = FastAPI()
    install_error_handlers(app)

    @app.get("/boom")
    def boom() -> None:
        with engine.connect() as conn:
            conn.execute(text(sql))

    return app


@pytest.mark.parametrize("sql", ["SELECT no_such_column FROM events",
                                 "SELECT * FROM no_such_table", "SELEC 1"])
def test_wrong_sql_on_a_migrated_sqlite_database_is_a_500(tmp_path: Path, sql: str) -> None:
    """The review's repro: the same bug was a 500 on PostgreSQL and a retryable 503 on
    SQLite (the handler's docstring said 500 for both)."""
    engine = make_engine(f"sqlite:///{tmp_path}/x.db")
    try:
        upgrade(engine)
        with TestClient(_app_running(engine, sql), raise_server_exceptions=False) as client:
            r = client.get("/boom")
    finally:
        engine.dispose()
    assert r.status_code == 500, r.text
    assert r.json()["error"]["code"] == "internal_error" and "Retry-After" not in r.headers


@pytest.mark.parametrize(("message", "ours"), [
    ("no such column: x", True),
    ("no such table: hands", True),
    ('near "SELEC": syntax error', True),
    ("table hands has no column named x", True),
    ("too many SQL variables", True),
    ("database is locked", False),
    ("database table is locked", False),
    ("database or disk is full", False),
    ("attempt to write a readonly database", False),
    ("disk I/O error", False),
    ("unable to open database file", False),
    ("database schema has changed", False),
])
def test_sqlite_operational_errors_are_told_apart_by_their_message(message: str,
                                                                   ours: bool) -> None:
    exc = OperationalError("SELECT", {}, sqlite3.OperationalError(message))
    assert database_fault(exc) is not ours  # 503 unless ours
    assert db_engine.sql_fault(exc) is ours


def test_a_real_sqlite_fault_stays_a_database_fault(tmp_path: Path) -> None:
    """sqlite3's own error (with its result code) for a locked database: 503, as before."""
    file = tmp_path / "x.db"
    holder = sqlite3.connect(file, isolation_level=None)
    holder.execute("CREATE TABLE t (a)")
    holder.execute("BEGIN EXCLUSIVE")
    engine = create_engine(f"sqlite:///{file}", connect_args={"timeout": 0.05})
    try:
        with pytest.raises(OperationalError) as caught, engine.connect() as conn:
            conn.execute(text("SELECT * FROM t"))
        assert database_fault(caught.value) and not db_engine.sql_fault(caught.value)
    finally:
        engine.dispose()
        holder.close()


def test_a_transaction_does_not_retry_wrong_sql(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path}/x.db")
    tries = []

    def work(session: Any) -> None:
        tries.append(1)
        session.execute(text("SELECT no_such_column FROM no_such_table"))

    try:
        with pytest.raises(OperationalError):
            sheet.transaction(session_factory(engine), work)
    finally:
        engine.dispose()
    assert len(tries) == 1
