"""The database: Alembic migrations build exactly the models' schema on SQLite and
PostgreSQL, the (table, hand number) uniqueness is enforced by the database itself,
SQLite runs in WAL mode, and `tilecam db upgrade` applies the migrations."""

from __future__ import annotations

from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import Engine, text
from sqlalchemy.exc import IntegrityError
from test_tables_helpers import database_url

from tilecam.cli import main
from tilecam.db import Base, Event, GameTable, Hand, HandRevision, Round, make_engine, upgrade
from tilecam.db.engine import session_factory
from tilecam.db.migrate import current_revision, head_revision


@pytest.fixture(params=["sqlite", "postgres"])
def engine(request: pytest.FixtureRequest, tmp_path: Path) -> Engine:
    eng = make_engine(database_url(str(request.param), tmp_path))
    upgrade(eng)
    yield eng
    eng.dispose()


def test_migrations_build_the_models_schema(engine: Engine) -> None:
    with engine.connect() as conn:
        assert compare_metadata(MigrationContext.configure(conn), Base.metadata) == []
    assert current_revision(engine) == head_revision()
    upgrade(engine)  # a second upgrade is a no-op
    assert current_revision(engine) == head_revision()


def _table(engine: Engine) -> tuple[int, int]:
    sf = session_factory(engine)
    with sf.begin() as s:
        ev = Event(name="e", rules="mcr")
        s.add(ev)
        s.flush()
        t = GameTable(event_id=ev.id, name="t", rules="mcr", rule_settings={}, key_hash="0" * 64)
        s.add(t)
        s.flush()
        r = Round(table_id=t.id, number=1, prevalent_wind="E", seating={"E": 0})
        s.add(r)
        s.flush()
        return t.id, r.id


def test_database_refuses_a_second_hand_in_the_same_place(engine: Engine) -> None:
    table_id, round_id = _table(engine)
    sf = session_factory(engine)
    with sf.begin() as s:
        s.add(Hand(table_id=table_id, round_id=round_id, number=1, hand_in_round=1, dealer=0,
                   source="table"))
    with pytest.raises(IntegrityError), sf.begin() as s:
        s.add(Hand(table_id=table_id, round_id=round_id, number=1, hand_in_round=1,
                   dealer=0, source="camera"))
    with sf() as s:
        assert s.query(Hand).count() == 1


def test_database_refuses_two_revisions_with_one_number(engine: Engine) -> None:
    table_id, round_id = _table(engine)
    sf = session_factory(engine)
    with sf.begin() as s:
        h = Hand(table_id=table_id, round_id=round_id, number=1, hand_in_round=1, dealer=0,
                 source="table")
        s.add(h)
        s.flush()
        hand_id = h.id

    def rev() -> HandRevision:
        return HandRevision(hand_id=hand_id, revision=1, action="record", outcome="draw",
                            context={}, rules="mcr", settlement=[0, 0, 0, 0], author="t")

    with sf.begin() as s:
        s.add(rev())
    with pytest.raises(IntegrityError), sf.begin() as s:
        s.add(rev())


def test_sqlite_uses_wal_and_foreign_keys(tmp_path: Path) -> None:
    eng = make_engine(f"sqlite:///{tmp_path / 'x.db'}")
    with eng.connect() as conn:
        assert conn.execute(text("PRAGMA journal_mode")).scalar() == "wal"
        assert conn.execute(text("PRAGMA foreign_keys")).scalar() == 1
        assert conn.execute(text("PRAGMA synchronous")).scalar() == 2  # FULL
    eng.dispose()


def test_db_upgrade_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    url = f"sqlite:///{tmp_path / 'cli.db'}"
    assert main(["db", "upgrade", "--url", url]) == 0
    assert "up to date" in capsys.readouterr().out
    assert main(["db", "current", "--url", url]) == 0
    assert head_revision() in capsys.readouterr().out


def test_db_current_makes_no_database_to_read(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    """`tilecam db current` on a SQLite file not there says so and leaves no file (it made
    an empty database and its folder)."""
    url = f"sqlite:///{tmp_path / 'none' / 'cli.db'}"
    assert main(["db", "current", "--url", url]) == 0
    assert "no database yet" in capsys.readouterr().out
    assert not (tmp_path / "none").exists()


def test_db_command_names_a_bad_url(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["db", "upgrade", "--url", "mysql://u@h/d"]) == 2
    assert "unsupported database URL" in capsys.readouterr().err


def test_a_postgresql_url_without_its_driver_is_named_not_a_traceback(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The PostgreSQL driver is the ``postgres`` extra, which ``make serve`` does not
    install: ``tilecam db`` (and ``serve``'s check of its URL) says how to get it, where
    it printed an ImportError's traceback (and the service answered every table request
    503 "try again")."""
    import sys

    monkeypatch.setitem(sys.modules, "psycopg", None)  # import psycopg: ImportError
    assert main(["db", "upgrade", "--url", "postgresql://u@h/d"]) == 2
    err = capsys.readouterr().err
    assert "needs its driver" in err and ".[postgres]" in err and "Traceback" not in err
    # a URL naming another driver: that one is named (psycopg2 is not installed here)
    monkeypatch.setitem(sys.modules, "psycopg2", None)
    assert main(["db", "upgrade", "--url", "postgresql+psycopg2://u@h/d"]) == 2
    assert "'psycopg2'" in capsys.readouterr().err


def test_an_upgrade_from_empty_is_one_transaction(tmp_path: Path) -> None:
    """Every revision is applied in one transaction (one commit), on SQLite too.

    Alembic's SQLite default commits after each revision; a process starting in that gap
    reads the half-way version and runs the next revision a second time.
    """
    from sqlalchemy import event

    eng = make_engine(f"sqlite:///{tmp_path / 'one.db'}")
    commits: list[int] = []
    event.listen(eng, "commit", lambda _conn: commits.append(1))
    upgrade(eng)
    assert current_revision(eng) == head_revision()
    assert len(commits) == 1
    eng.dispose()


def test_processes_migrating_at_once_leave_one_schema(engine: Engine) -> None:
    import subprocess
    import sys

    from tilecam.db.models import Event

    url = engine.url.render_as_string(hide_password=False)
    # Empty the database again, then let four `tilecam db upgrade` processes race.
    with engine.connect() as conn:
        for table in reversed(Base.metadata.sorted_tables):
            conn.execute(text(f'DROP TABLE IF EXISTS "{table.name}"'))
        conn.execute(text("DROP TABLE IF EXISTS alembic_version"))
        conn.commit()
    procs = [subprocess.Popen([sys.executable, "-m", "tilecam.cli", "db", "upgrade", "--url",
                               url], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(4)]
    results = [(p.wait(timeout=120), p.stderr.read() if p.stderr else "") for p in procs]
    for p in procs:
        for stream in (p.stdout, p.stderr):
            if stream:
                stream.close()
    assert results == [(0, "")] * 4
    assert current_revision(engine) == head_revision()
    with engine.connect() as conn:
        assert compare_metadata(MigrationContext.configure(conn), Base.metadata) == []
    with session_factory(engine).begin() as s:
        s.add(Event(name="after", rules="mcr"))


def test_recorded_hands_and_revisions_cannot_be_overwritten_or_deleted(engine: Engine) -> None:
    from sqlalchemy.exc import DBAPIError

    table_id, round_id = _table(engine)
    sf = session_factory(engine)
    with sf.begin() as s:
        h = Hand(table_id=table_id, round_id=round_id, number=1, hand_in_round=1, dealer=0,
                 source="table")
        s.add(h)
        s.flush()
        s.add(HandRevision(hand_id=h.id, revision=1, action="record", outcome="draw",
                           context={}, rules="mcr", settlement=[0, 0, 0, 0], author="t"))
    for sql in ("UPDATE hand_revisions SET outcome = 'win'", "DELETE FROM hand_revisions",
                "UPDATE hands SET number = 2", "DELETE FROM hands"):
        with pytest.raises(DBAPIError, match="append-only"), engine.begin() as conn:
            conn.execute(text(sql))
    with engine.connect() as conn:
        assert conn.execute(text("SELECT outcome FROM hand_revisions")).scalar() == "draw"
        assert conn.execute(text("SELECT number FROM hands")).scalar() == 1


def test_a_postgresql_server_that_does_not_answer_is_given_up_on_in_seconds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A server that takes the connection and never answers (a stuck host) fails the
    connection after ``CONNECT_TIMEOUT_S`` (here 1 s) instead of holding the request
    for the operating system's TCP timeout."""
    import socket
    import time
    from concurrent.futures import ThreadPoolExecutor

    from sqlalchemy.exc import OperationalError

    import tilecam.db.engine as db_engine

    pytest.importorskip("psycopg", reason="psycopg (the postgres extra) is not installed")
    monkeypatch.setattr(db_engine, "CONNECT_TIMEOUT_S", 1)
    with socket.socket() as mute:  # listens, never answers
        mute.bind(("127.0.0.1", 0))
        mute.listen(4)
        eng = make_engine(f"postgresql://tc@127.0.0.1:{mute.getsockname()[1]}/tilecam")
        start = time.monotonic()
        # in a thread, so that a connection with no timeout fails the test, not hangs it
        pool = ThreadPoolExecutor(max_workers=1)
        with pytest.raises(OperationalError, match="timeout"):
            pool.submit(eng.connect).result(timeout=20)
        assert time.monotonic() - start < 8
        pool.shutdown(wait=False)
        eng.dispose()
