"""The score sheet on SQLite (the default) while its write lock is held elsewhere or its
file cannot serve: reads go on beside a writer, and what cannot be mended by trying
again does not ask for it (concurrency review of the sixty-eighth session)."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.exc import TimeoutError as PoolTimeout
from test_tables_helpers import admin, bearer, client_for, make_app, new_table

from tilecam.db.engine import sqlite_file

WIN = "123m456m789m123p55p"


def test_the_sheet_is_read_while_another_process_holds_the_write_lock(tmp_path: Path) -> None:
    """WAL lets a read run beside a writer; every read once began ``BEGIN IMMEDIATE``,
    waited for the write lock (a long re-score in another worker, a backup) and, past
    the 30 s busy timeout, answered 503. Writes still take the lock when they begin."""
    url = f"sqlite:///{tmp_path / 'tilecam.db'}"
    app, _ = make_app(url, tmp_path / "data")
    for client in client_for(app):
        t, k = new_table(client)
        r = client.post(f"/v1/tables/{t}/hands", headers=bearer(k),
                        json={"hand": WIN, "winner": "E", "self_drawn": True})
        assert r.status_code == 201, r.text
        file = sqlite_file(url)
        assert file is not None
        holder = sqlite3.connect(file, isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")
        try:
            started = time.perf_counter()
            for path in ("/sheet", "/standings", "/hands", "/hands/1", ""):
                got = client.get(f"/v1/tables/{t}{path}", headers=bearer(k))
                assert got.status_code == 200, (path, got.text)
            assert time.perf_counter() - started < 5
        finally:
            holder.execute("ROLLBACK")
            holder.close()


def test_a_file_that_is_no_database_does_not_ask_to_try_again(tmp_path: Path) -> None:
    """A permanent fault (a file that is no database, a read-only one, a newer schema) is
    still a 503 naming it, but without "try again" and ``Retry-After``: waiting cannot
    mend it, an operator must."""
    db = tmp_path / "tilecam.db"
    db.write_bytes(b"this is not a database file, just text" * 100)
    app, _ = make_app(f"sqlite:///{db}", tmp_path / "data")
    for client in client_for(app):
        r = client.post("/v1/events", json={"name": "open", "rules": "mcr"}, headers=admin())
        assert r.status_code == 503, r.text
        message = r.json()["error"]["message"]
        assert "file is not a database" in message and "try again" not in message
        assert "operator" in message and "Retry-After" not in r.headers


def test_no_free_database_connection_is_a_503_busy_not_a_500(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Overload: every pooled connection in use past the pool's timeout raised
    SQLAlchemy's TimeoutError, which was answered 500 "this is a tilecam bug"."""
    from tilecam.tables import sheet

    app, _ = make_app(f"sqlite:///{tmp_path / 'tilecam.db'}", tmp_path / "data")

    def exhausted(*_: object, **__: object) -> None:
        raise PoolTimeout("QueuePool limit of size 5 overflow 40 reached")

    for client in client_for(app):
        t, k = new_table(client)
        monkeypatch.setattr(sheet, "record_hand", exhausted)
        r = client.post(f"/v1/tables/{t}/hands", headers=bearer(k),
                        json={"hand": WIN, "winner": "E", "self_drawn": True})
        assert r.status_code == 503, r.text
        assert r.json()["error"]["code"] == "busy" and r.headers["Retry-After"] == "5"


def test_an_in_memory_sqlite_url_still_opens() -> None:
    """``sqlite://`` (in memory: tests, a try-out) takes SQLAlchemy's own pool; the pool
    size given to a file's engine made it a TypeError (``max_overflow``)."""
    from tilecam.db.engine import make_engine
    from tilecam.db.migrate import current_revision, head_revision, upgrade

    engine = make_engine("sqlite://")
    upgrade(engine)
    assert current_revision(engine) == head_revision()
    engine.dispose()


def test_unable_to_open_is_not_taken_for_a_fault_no_retry_mends() -> None:
    """SQLite says "unable to open database file" also when the server runs out of file
    handles — an overload that passes: it keeps "try again" and ``Retry-After``."""
    from tilecam.api.errors import unavailable

    message, headers = unavailable("the database cannot be opened",
                                   "unable to open database file")
    assert "try again" in message and headers == {"Retry-After": "5"}
    assert unavailable("x", "attempt to write a readonly database")[1] == {}


def _answer_lost_once(commit: Any, driver: Any) -> Any:
    """A dialect's ``do_commit`` that commits, then, the first time, loses the answer."""
    lost = [True]

    def answer_lost(dbapi_conn: object) -> None:
        commit(dbapi_conn)
        if lost:
            lost.pop()
            raise driver.OperationalError("disk I/O error")

    return answer_lost


def test_a_commit_whose_answer_is_lost_says_it_may_have_been_recorded(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A commit that reached the database but whose answer was lost was a 503 "nothing
    was recorded … try again" — and the hand was recorded: a re-send would record it
    twice. The answer now says to look first, and the commit is not tried again."""
    import sqlite3 as driver

    from tilecam.db.engine import get_engine

    url = f"sqlite:///{tmp_path / 'tilecam.db'}"
    app, _ = make_app(url, tmp_path / "data")
    for client in client_for(app):
        t, k = new_table(client)
        engine = get_engine(url)
        monkeypatch.setattr(engine.dialect, "do_commit",
                            _answer_lost_once(engine.dialect.do_commit, driver))
        r = client.post(f"/v1/tables/{t}/hands", headers=bearer(k),
                        json={"hand": WIN, "winner": "E", "self_drawn": True})
        assert r.status_code == 503, r.text
        message = r.json()["error"]["message"]
        assert "may have been recorded: look before sending it again" in message
        assert "nothing was recorded" not in message
        hands = client.get(f"/v1/tables/{t}/hands", headers=bearer(k)).json()["hands"]
        assert len(hands) == 1


def test_a_database_path_that_is_a_folder_is_a_fault_no_retry_mends(tmp_path: Path) -> None:
    """"unable to open database file" is lasting where the file cannot be (the path is a
    folder), and passing where it can (out of file handles: the test above)."""
    folder = tmp_path / "is-a-folder.db"
    folder.mkdir()
    app, _ = make_app(f"sqlite:///{folder}", tmp_path / "data")
    for client in client_for(app):
        r = client.post("/v1/events", json={"name": "open", "rules": "mcr"}, headers=admin())
        assert r.status_code == 503, r.text
        assert "operator" in r.json()["error"]["message"]
        assert "Retry-After" not in r.headers
