"""The copy of a PostgreSQL database taken before an upgrade (the seventy-ninth session).

Until then only a SQLite file was copied before an upgrade changed it; a PostgreSQL
database was upgraded with no copy, the log advising ``pg_dump`` — and no older tilecam
opens an upgraded database. Now ``pg_dump`` (custom format) writes one into
``TILECAM_BACKUP_DIR`` first; where it cannot (no ``pg_dump``, a ``pg_dump`` older than
the server, any failure) the upgrade stops, nothing changed, naming the way out:
``tilecam db upgrade --no-backup`` or ``TILECAM_UPGRADE_BACKUP=0``.

The tests on a database skip (with the reason) where PostgreSQL cannot start here; those
on a stand-in ``pg_dump`` run everywhere.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine, text
from sqlalchemy.engine import make_url
from test_db_upgrades78 import upgrade_at_once
from test_tables_helpers import admin, client_for, database_url, make_app

from tilecam.cli import main
from tilecam.db import make_engine, upgrade
from tilecam.db.backup import BackupFailed
from tilecam.db.migrate import current_revision, head_revision

OLD_REVISION = "0009_camera_surface"


@pytest.fixture(autouse=True)
def backups(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """``TILECAM_BACKUP_DIR`` (not made yet: the upgrade makes it), the copy settings
    otherwise at their defaults, read afresh."""
    from tilecam.settings import get_settings

    folder = tmp_path / "backups"
    monkeypatch.setenv("TILECAM_BACKUP_DIR", str(folder))
    monkeypatch.delenv("TILECAM_UPGRADE_BACKUP", raising=False)
    monkeypatch.delenv("TILECAM_PG_DUMP", raising=False)
    get_settings.cache_clear()
    yield folder
    get_settings.cache_clear()


def old_postgres(tmp_path: Path) -> tuple[str, Engine]:
    """A PostgreSQL database at :data:`OLD_REVISION` holding one event; its URL and
    engine (skipped where PostgreSQL cannot start)."""
    engine = make_engine(database_url("postgres", tmp_path))
    upgrade(engine, OLD_REVISION)
    with engine.begin() as conn:
        conn.execute(text("INSERT INTO events (id, name, rules, created_at) "
                          "VALUES (1, 'Spring open', 'mcr', CURRENT_TIMESTAMP)"))
    return engine.url.render_as_string(hide_password=False), engine


def no_pg_dump_on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``PATH`` with no ``pg_dump`` on it (an empty folder)."""
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))


def stand_in(tmp_path: Path, script: str) -> Path:
    """An executable shell script standing in for ``pg_dump``."""
    program = tmp_path / "pg_dump"
    program.write_text("#!/bin/sh\n" + script)
    program.chmod(program.stat().st_mode | stat.S_IXUSR)
    return program


def in_folder(folder: Path) -> list[Path]:
    return sorted(folder.iterdir()) if folder.exists() else []


def test_db_upgrade_writes_a_pg_dump_copy_that_restores_to_the_old_revision(
        tmp_path: Path, backups: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An old PostgreSQL database is copied with ``pg_dump`` (custom format) into
    ``TILECAM_BACKUP_DIR`` before ``tilecam db upgrade`` changes it; the command prints
    where, and how to go back; ``pg_restore --list`` reads the copy, and restored into
    an empty database it is the old revision with its row. Only its owner reads it."""
    url, engine = old_postgres(tmp_path)
    pg_restore = shutil.which("pg_restore")
    if shutil.which("pg_dump") is None or pg_restore is None:
        pytest.skip("no pg_dump/pg_restore on PATH")
    assert main(["db", "upgrade", "--url", url]) == 0
    out = capsys.readouterr().out
    [copy] = in_folder(backups)
    database = make_url(url).database
    assert copy.name.startswith(f"{database}.before-upgrade-from-{OLD_REVISION}-")
    assert copy.suffix == ".dump" and stat.S_IMODE(copy.stat().st_mode) == 0o600
    assert f"its copy from before the upgrade is {copy}" in out and "pg_restore" in out
    assert "up to date" in out and current_revision(engine) == head_revision()
    listed = subprocess.run([pg_restore, "--list", str(copy)], capture_output=True,
                            text=True, check=False)
    assert listed.returncode == 0, listed.stderr
    assert "TABLE DATA public events" in listed.stdout
    restored = make_engine(database_url("postgres", tmp_path))
    target = restored.url
    done = subprocess.run([pg_restore, "--no-owner", "-h", str(target.host), "-p",
                           str(target.port), "-U", str(target.username), "-d",
                           str(target.database), str(copy)], capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stderr
    assert current_revision(restored) == OLD_REVISION
    with restored.connect() as conn:
        assert conn.execute(text("SELECT name FROM events")).scalars().all() == ["Spring open"]
    restored.dispose()
    engine.dispose()


def test_a_database_already_current_writes_no_copy_and_needs_no_pg_dump(
        tmp_path: Path, backups: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Nothing to apply, nothing to copy: a current database (and an empty one) is
    upgraded with no ``pg_dump`` anywhere, and no copy is written."""
    engine = make_engine(database_url("postgres", tmp_path))
    no_pg_dump_on_path(tmp_path, monkeypatch)
    assert upgrade(engine) is None  # an empty database: made, not copied
    url = engine.url.render_as_string(hide_password=False)
    assert main(["db", "upgrade", "--url", url]) == 0
    assert "copy" not in capsys.readouterr().out
    assert in_folder(backups) == []
    engine.dispose()


def test_no_pg_dump_stops_the_upgrade_naming_it_and_the_way_out(
        tmp_path: Path, backups: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """No ``pg_dump`` on ``PATH``: the upgrade is refused (exit 2, one line), the
    database left at its revision with its row, and the message names pg_dump, the
    setting for its path and the two ways to upgrade without a copy."""
    url, engine = old_postgres(tmp_path)
    no_pg_dump_on_path(tmp_path, monkeypatch)
    with pytest.raises(BackupFailed, match="pg_dump"):
        upgrade(engine)
    assert main(["db", "upgrade", "--url", url]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    for needed in ("no pg_dump program", "nothing was changed", "TILECAM_PG_DUMP",
                   "tilecam db upgrade --no-backup", "TILECAM_UPGRADE_BACKUP=0"):
        assert needed in err, (needed, err)
    assert current_revision(engine) == OLD_REVISION and in_folder(backups) == []
    engine.dispose()


def test_the_way_out_upgrades_without_a_copy(
        tmp_path: Path, backups: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """With no ``pg_dump``, ``tilecam db upgrade --no-backup`` upgrades (no copy, none
    printed); and the service, refused (503) until ``TILECAM_UPGRADE_BACKUP=0``, then
    upgrades on its first request."""
    url, engine = old_postgres(tmp_path)
    no_pg_dump_on_path(tmp_path, monkeypatch)
    assert main(["db", "upgrade", "--no-backup", "--url", url]) == 0
    out = capsys.readouterr().out
    assert "up to date" in out and "copy" not in out
    assert current_revision(engine) == head_revision() and in_folder(backups) == []
    engine.dispose()

    from tilecam.settings import get_settings

    url, engine = old_postgres(tmp_path)
    app, _ = make_app(url, tmp_path / "data")
    for client in client_for(app):
        refused = client.get("/v1/events", headers=admin())
        assert refused.status_code == 503, refused.text
        assert "pg_dump" in refused.text and "TILECAM_UPGRADE_BACKUP=0" in refused.text
    assert current_revision(engine) == OLD_REVISION
    monkeypatch.setenv("TILECAM_UPGRADE_BACKUP", "0")
    get_settings.cache_clear()
    app, _ = make_app(url, tmp_path / "data")
    for client in client_for(app):
        assert client.get("/v1/events", headers=admin()).status_code == 200
    assert current_revision(engine) == head_revision() and in_folder(backups) == []
    engine.dispose()


def test_processes_upgrading_at_once_write_one_copy(tmp_path: Path, backups: Path) -> None:
    """Three ``tilecam db upgrade`` at once on an old PostgreSQL database: the one that
    holds the migration's lock first copies and upgrades it; the others find it upgraded
    and copy nothing (``pg_dump`` runs under that lock)."""
    url, engine = old_postgres(tmp_path)
    if shutil.which("pg_dump") is None:
        pytest.skip("no pg_dump on PATH")
    assert upgrade_at_once(url, 3) == [0] * 3
    assert current_revision(engine) == head_revision()
    assert len(in_folder(backups)) == 1
    engine.dispose()


def test_a_pg_dump_older_than_the_server_is_named_as_such(
        tmp_path: Path, backups: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The common failure: the ``pg_dump`` on ``PATH`` is older than the server (Debian's
    client 15 against a server 16), and refuses with "server version mismatch". The
    upgrade stops saying which versions, which ``pg_dump`` to install and how to point
    ``TILECAM_PG_DUMP`` at it; the half-written file is removed."""
    from tilecam.db.backup import CopyPlan, backup_postgres

    program = stand_in(tmp_path, 'for a in "$@"; do case "$a" in --file=*) '
                                 'echo partial > "${a#--file=}";; esac; done\n'
                                 'echo "pg_dump: error: aborting because of server version '
                                 'mismatch" >&2\necho "pg_dump: detail: server version: '
                                 '16.4; pg_dump version: 15.18" >&2\nexit 1\n')
    plan = CopyPlan(folder=backups, pg_dump=str(program))
    url = make_url("postgresql+psycopg://tc@db.local:5432/tilecam")
    with pytest.raises(BackupFailed) as caught:
        backup_postgres(url, OLD_REVISION, head_revision(), plan, (16, 4))
    said = str(caught.value)
    for needed in ("server version mismatch", "version 15.18, the server 16.4",
                   "postgresql-client-16", "TILECAM_PG_DUMP",
                   "e.g. on Debian: /usr/lib/postgresql/16/bin/pg_dump",
                   "e.g. on Debian or Ubuntu: postgresql-client-16", "nothing was changed",
                   "--no-backup"):
        assert needed in said, (needed, said)
    assert in_folder(backups) == []


def test_pg_dump_gets_the_password_in_its_environment_not_its_command_line(
        tmp_path: Path, backups: Path) -> None:
    """``pg_dump``'s command line is readable by every user of the machine (``ps``): the
    database's password goes in ``PGPASSWORD``; the rest of the URL (host, port, user,
    database, ``sslmode``) in ``--dbname``; ``--no-password``, so that it never waits on
    a prompt (the service would hang on its first request)."""
    from tilecam.db.backup import CopyPlan, backup_postgres

    seen = tmp_path / "seen"
    program = stand_in(tmp_path, f'printf "%s\\n" "$@" > {seen}\n'
                                 f'echo "PGPASSWORD=$PGPASSWORD" >> {seen}\n'
                                 'for a in "$@"; do case "$a" in --file=*) '
                                 'echo PGDMP-stand-in > "${a#--file=}";; esac; done\n')
    url = make_url("postgresql+psycopg://tc:s3cret@db.local:5433/club?sslmode=require")
    copy = backup_postgres(url, OLD_REVISION, head_revision(),
                           CopyPlan(folder=backups, pg_dump=str(program)))
    assert copy.parent == backups and copy.read_text() == "PGDMP-stand-in\n"
    args = seen.read_text().splitlines()
    assert args[-1] == "PGPASSWORD=s3cret"
    assert not any("s3cret" in a for a in args[:-1])
    assert "--format=custom" in args and "--no-password" in args
    assert ("--dbname=host='db.local' port='5433' user='tc' dbname='club' "
            "sslmode='require'") in args


def test_a_pg_dump_that_fails_otherwise_is_quoted(tmp_path: Path, backups: Path) -> None:
    """Any other failure (here: the server refuses the connection) stops the upgrade
    with ``pg_dump``'s own words."""
    from tilecam.db.backup import CopyPlan, backup_postgres

    program = stand_in(tmp_path, 'echo "pg_dump: error: connection to server failed: '
                                 'Connection refused" >&2\nexit 1\n')
    with pytest.raises(BackupFailed, match="Connection refused") as caught:
        backup_postgres(make_url("postgresql://tc@127.0.0.1:1/tilecam"), OLD_REVISION,
                        head_revision(), CopyPlan(folder=backups, pg_dump=str(program)))
    assert "--no-backup" in str(caught.value) and in_folder(backups) == []


def test_no_backup_on_sqlite_upgrades_without_the_copy(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--no-backup`` is the same way out for a SQLite file (whose copy a full disk can
    refuse): the file is upgraded and no copy written beside it; the flag goes with
    ``upgrade`` only."""
    engine = make_engine(f"sqlite:///{tmp_path / 'tilecam.db'}")
    upgrade(engine, OLD_REVISION)
    url = engine.url.render_as_string(hide_password=False)
    assert main(["db", "upgrade", "--no-backup", "--url", url]) == 0
    assert current_revision(engine) == head_revision()
    assert sorted(p.name for p in tmp_path.iterdir() if "before-upgrade" in p.name) == []
    engine.dispose()
    capsys.readouterr()
    assert main(["db", "current", "--no-backup", "--url", url]) == 2
    assert "--no-backup goes with upgrade only" in capsys.readouterr().err


def test_the_copy_folder_is_the_data_folder_unless_backup_dir_is_set(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``TILECAM_BACKUP_DIR`` empty: the copy goes to ``TILECAM_DATA_DIR``."""
    from tilecam.db.backup import copy_plan
    from tilecam.settings import get_settings

    monkeypatch.setenv("TILECAM_BACKUP_DIR", "")
    monkeypatch.setenv("TILECAM_DATA_DIR", str(tmp_path / "data"))
    get_settings.cache_clear()
    assert copy_plan().folder == tmp_path / "data" and copy_plan().enabled
    monkeypatch.setenv("TILECAM_UPGRADE_BACKUP", "0")
    get_settings.cache_clear()
    assert not copy_plan().enabled and copy_plan(True).enabled
    assert os.fspath(copy_plan().pg_dump) == "pg_dump"


# --- the seventy-ninth session's review of the copy (items 1 to 6) ---------------------


def recording_stand_in(tmp_path: Path, then: str) -> tuple[Path, Path]:
    """A stand-in ``pg_dump`` that writes its arguments and ``PGPASSWORD`` to a file
    (one a line), then runs the shell code ``then`` (``$out``: the file it was told to
    write); the program and the file of what it saw."""
    seen = tmp_path / "seen"
    program = stand_in(tmp_path, f'printf "%s\\n" "$@" > {seen}\n'
                                 f'echo "PGPASSWORD=$PGPASSWORD" >> {seen}\n'
                                 'for a in "$@"; do case "$a" in --file=*) '
                                 'out="${a#--file=}";; esac; done\n' + then)
    return program, seen


def test_a_pg_dump_that_does_not_finish_is_stopped_and_leaves_no_file(
        tmp_path: Path, backups: Path) -> None:
    """Review item 1: ``pg_dump`` had no time limit and no lock wait limit, so a lock
    held elsewhere (VACUUM FULL, ALTER TABLE) held the upgrade — and the service's every
    request, queued behind it — for ever. It is now given ``--lock-wait-timeout`` and
    killed after ``CopyPlan.timeout_s`` (here 0.5 s): the upgrade stops naming that, and
    no file is left."""
    from tilecam.db.backup import CopyPlan, backup_postgres

    program, seen = recording_stand_in(tmp_path, 'echo PGDMP > "$out"\nexec sleep 30\n')
    plan = CopyPlan(folder=backups, pg_dump=str(program), lock_wait_s=2, timeout_s=0.5)
    url = make_url("postgresql+psycopg://tc@db.local/club")
    with pytest.raises(BackupFailed, match=r"did not finish in 0\.5 s") as caught:
        backup_postgres(url, OLD_REVISION, head_revision(), plan)
    assert "nothing was changed" in str(caught.value)
    assert "--lock-wait-timeout=2000ms" in seen.read_text().splitlines()
    assert in_folder(backups) == []


def test_a_lock_held_elsewhere_stops_pg_dump_after_the_lock_wait(
        tmp_path: Path, backups: Path) -> None:
    """Review item 1 on a real server: another session holds ACCESS EXCLUSIVE on
    ``events``; ``pg_dump`` gives up after ``lock_wait_s`` (0.5 s) with PostgreSQL's
    reason instead of waiting, the database is left at its revision, no file left."""
    import time

    from tilecam.db.backup import CopyPlan, backup_postgres

    url, engine = old_postgres(tmp_path)
    if shutil.which("pg_dump") is None:
        pytest.skip("no pg_dump on PATH")
    plan = CopyPlan(folder=backups, lock_wait_s=0.5, timeout_s=60)
    with engine.connect() as blocker:
        blocker.execute(text("LOCK TABLE events IN ACCESS EXCLUSIVE MODE"))
        began = time.monotonic()
        with pytest.raises(BackupFailed, match="holds a lock on a table"):
            backup_postgres(make_url(url), OLD_REVISION, head_revision(), plan)
        assert time.monotonic() - began < 30
        blocker.rollback()
    assert current_revision(engine) == OLD_REVISION and in_folder(backups) == []
    engine.dispose()


def test_pg_dump_writes_a_part_file_that_gets_the_copy_s_name_when_whole(
        tmp_path: Path, backups: Path) -> None:
    """Review item 2: ``pg_dump`` wrote straight to ``NAME.dump``, so one killed mid-way
    left a file that looked like a copy. It writes ``NAME.dump.part`` (only its owner
    reads it), named ``NAME.dump`` once whole; a ``pg_dump`` killed while writing leaves
    nothing at all."""
    from tilecam.db.backup import CopyPlan, backup_postgres

    program, seen = recording_stand_in(tmp_path, 'echo PGDMP-whole > "$out"\n'
                                                 'ls -l "$out" >> ' f'{tmp_path / "ls"}\n')
    url = make_url("postgresql+psycopg://tc@db.local/club")
    copy = backup_postgres(url, OLD_REVISION, head_revision(),
                           CopyPlan(folder=backups, pg_dump=str(program)))
    [told] = [a for a in seen.read_text().splitlines() if a.startswith("--file=")]
    assert told == f"--file={copy}.part"
    assert (tmp_path / "ls").read_text().startswith("-rw-------")
    assert in_folder(backups) == [copy] and copy.read_text() == "PGDMP-whole\n"
    assert stat.S_IMODE(copy.stat().st_mode) == 0o600

    killed, _ = recording_stand_in(tmp_path, 'echo PGDMP-half > "$out"\nkill -9 $$\n')
    with pytest.raises(BackupFailed):
        backup_postgres(url, OLD_REVISION, head_revision(),
                        CopyPlan(folder=backups, pg_dump=str(killed)))
    assert in_folder(backups) == [copy]


def test_a_password_in_the_url_s_query_is_on_no_command_line_and_in_no_message(
        tmp_path: Path, backups: Path) -> None:
    """Review item 3: psycopg takes ``?password=`` too. It went into ``pg_dump``'s
    ``--dbname`` (readable with ``ps``) and into the message; it goes in
    ``PGPASSWORD`` only, and the message shows the URL without it."""
    from tilecam.db.backup import CopyPlan, backup_postgres

    program, seen = recording_stand_in(tmp_path, 'echo "pg_dump: error: no" >&2\nexit 1\n')
    url = make_url("postgresql+psycopg://tc@db.local/club?password=s3cret&sslmode=require")
    with pytest.raises(BackupFailed) as caught:
        backup_postgres(url, OLD_REVISION, head_revision(),
                        CopyPlan(folder=backups, pg_dump=str(program)))
    args = seen.read_text().splitlines()
    assert args[-1] == "PGPASSWORD=s3cret"
    assert not any("s3cret" in a for a in args[:-1]), args
    assert "--dbname=host='db.local' user='tc' dbname='club' sslmode='require'" in args
    assert "s3cret" not in str(caught.value)
    assert "db.local/club?sslmode=require" in str(caught.value)

    from tilecam.db.backup import shown_url

    assert "s3cret" not in shown_url(url)


def test_the_upgrade_s_log_and_the_command_show_no_password_in_the_query(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Review item 3: the upgrade's log lines and ``tilecam db upgrade``'s output showed
    ``?password=`` (the server takes any password here: trust)."""
    import logging

    url, engine = old_postgres(tmp_path)
    engine.dispose()
    secret = f"{url}?password=s3cret"
    no_pg_dump_on_path(tmp_path, monkeypatch)
    with caplog.at_level(logging.WARNING, logger="tilecam.db"):
        assert main(["db", "upgrade", "--no-backup", "--url", secret]) == 0
    assert "WITHOUT a copy" in caplog.text
    assert "s3cret" not in caplog.text and "s3cret" not in capsys.readouterr().out


def test_a_copy_that_cannot_be_written_is_a_503_that_says_not_to_try_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Review item 4: the service answered 503 "try again" with ``Retry-After: 5`` —
    the page counted down to a resend, and each request ran the upgrade (and pg_dump)
    again — though only the operator can act. Now no ``Retry-After``; the answer says
    the copy could not be written and the way out, with the admin key or without, and
    not "repair or replace the database" (the database is intact)."""
    import tilecam.db.backup as backup_module

    def no_room(file: Path, out: Path) -> None:
        raise ValueError(f"cannot write {out}: No space left on device")

    db = tmp_path / "tilecam.db"
    engine = make_engine(f"sqlite:///{db}")
    upgrade(engine, OLD_REVISION)
    engine.dispose()
    monkeypatch.setattr(backup_module, "backup_sqlite", no_room)
    app, _ = make_app(f"sqlite:///{db}", tmp_path / "data")
    for client in client_for(app):
        for headers in (admin(), {}):
            refused = client.get("/v1/events", headers=headers)
            assert refused.status_code == 503, refused.text
            assert "retry-after" not in refused.headers
            message = refused.json()["error"]["message"]
            for needed in ("its copy from before could not be written",
                           "trying again will not help", "tilecam db upgrade --no-backup",
                           "TILECAM_UPGRADE_BACKUP=0", "nothing was changed"):
                assert needed in message, (needed, message)
            assert "try again)" not in message and "repair or replace" not in message
    assert current_revision(make_engine(f"sqlite:///{db}")) == OLD_REVISION


def test_the_service_s_upgrade_follows_the_app_s_settings(
        tmp_path: Path, backups: Path) -> None:
    """Review item 5: the service's automatic upgrade read the process's settings, not
    those ``create_app(Settings(...))`` was given: ``upgrade_backup=False`` there still
    wrote a copy (here of a SQLite file, beside it; of PostgreSQL, a 503 with no
    pg_dump). Now the app's settings rule; the environment says copy (the default)."""
    db = tmp_path / "tilecam.db"
    engine = make_engine(f"sqlite:///{db}")
    upgrade(engine, OLD_REVISION)
    app, _ = make_app(f"sqlite:///{db}", tmp_path / "data", upgrade_backup=False)
    for client in client_for(app):
        assert client.get("/v1/events", headers=admin()).status_code == 200
    assert current_revision(engine) == head_revision()
    assert [p.name for p in tmp_path.iterdir() if "before-upgrade" in p.name] == []
    engine.dispose()


def test_the_service_s_pg_dump_copy_goes_where_the_app_s_settings_say(
        tmp_path: Path, backups: Path) -> None:
    """Review item 5 on PostgreSQL: the app's ``backup_dir`` gets the copy, not the
    process's ``TILECAM_BACKUP_DIR``."""
    url, engine = old_postgres(tmp_path)
    if shutil.which("pg_dump") is None:
        pytest.skip("no pg_dump on PATH")
    own = tmp_path / "app-backups"
    app, _ = make_app(url, tmp_path / "data", backup_dir=str(own))
    for client in client_for(app):
        assert client.get("/v1/events", headers=admin()).status_code == 200
    assert current_revision(engine) == head_revision()
    assert in_folder(backups) == [] and len(in_folder(own)) == 1
    engine.dispose()


@pytest.mark.parametrize(("then", "said"), [
    ("exit 0\n", "wrote nothing (0 bytes)"),
    ('echo "not a dump" > "$out"\n', "not a pg_dump custom-format file")])
def test_a_pg_dump_that_ends_well_writing_no_copy_is_refused(
        tmp_path: Path, backups: Path, then: str, said: str) -> None:
    """Review item 6: a ``pg_dump`` that exits 0 yet writes nothing (or no custom-format
    file, which begins ``PGDMP``) was taken for the copy, and the upgrade went on."""
    from tilecam.db.backup import CopyPlan, backup_postgres

    program, _ = recording_stand_in(tmp_path, then)
    with pytest.raises(BackupFailed, match=re.escape(said)):
        backup_postgres(make_url("postgresql+psycopg://tc@db.local/club"), OLD_REVISION,
                        head_revision(), CopyPlan(folder=backups, pg_dump=str(program)))
    assert in_folder(backups) == []


def test_a_backup_folder_that_is_a_file_is_named_as_such(tmp_path: Path) -> None:
    """Review item 6: ``TILECAM_BACKUP_DIR`` naming a file said "File exists"."""
    from tilecam.db.backup import CopyPlan, backup_postgres

    afile = tmp_path / "afile"
    afile.write_text("mine\n")
    program, _ = recording_stand_in(tmp_path, 'echo PGDMP > "$out"\n')
    with pytest.raises(BackupFailed, match=re.escape(f"{afile} is not a folder")):
        backup_postgres(make_url("postgresql+psycopg://tc@db.local/club"), OLD_REVISION,
                        head_revision(), CopyPlan(folder=afile, pg_dump=str(program)))
    assert afile.read_text() == "mine\n"


def test_a_url_without_a_database_is_refused_clearly_by_the_copy(
        tmp_path: Path, backups: Path) -> None:
    """Review item 6: with no database in the URL the copy was named ``postgres``
    whatever it held. :func:`backup_postgres` given such a URL refuses, naming why."""
    from tilecam.db.backup import CopyPlan, backup_postgres

    program, seen = recording_stand_in(tmp_path, 'echo PGDMP > "$out"\n')
    with pytest.raises(BackupFailed, match="the URL names no database"):
        backup_postgres(make_url("postgresql+psycopg://tc@db.local"), OLD_REVISION,
                        head_revision(), CopyPlan(folder=backups, pg_dump=str(program)))
    assert not seen.exists() and in_folder(backups) == []


def test_an_upgrade_through_a_url_without_a_database_names_the_copy_for_it(
        tmp_path: Path, backups: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Review item 6: a URL with no database connects to the one named as its user;
    the upgrade's copy is of that one and named for it (it was ``postgres.…dump``)."""
    import uuid

    url, engine = old_postgres(tmp_path)
    engine.dispose()
    if shutil.which("pg_dump") is None:
        pytest.skip("no pg_dump on PATH")
    role = f"u_{uuid.uuid4().hex[:12]}"
    admin_engine = make_engine(str(make_url(url).set(database="postgres")
                                   .render_as_string(hide_password=False)))
    with admin_engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        conn.execute(text(f'CREATE ROLE "{role}" LOGIN SUPERUSER'))
        conn.execute(text(f'CREATE DATABASE "{role}" OWNER "{role}"'))
    admin_engine.dispose()
    server = make_url(url)
    bare = make_url(f"postgresql+psycopg://{role}@{server.host}:{server.port}")
    engine = make_engine(bare.render_as_string(hide_password=False))
    upgrade(engine, OLD_REVISION)
    assert main(["db", "upgrade", "--url", bare.render_as_string(hide_password=False)]) == 0
    [copy] = in_folder(backups)
    assert copy.name.startswith(f"{role}.before-upgrade-from-{OLD_REVISION}-"), copy.name
    assert current_revision(engine) == head_revision()
    engine.dispose()
