"""Apply the Alembic migrations programmatically (startup and ``tilecam db upgrade``).

A database that already holds a schema at an older revision is copied before it is
upgraded (SQLite: a file beside it, :func:`backup_name`; PostgreSQL: the log says to
``pg_dump`` first), so that an operator who finds the new tilecam wanting can put the
copy back and run the tilecam they had: no tilecam opens a database a newer one has
upgraded, and nothing downgrades one.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine

from tilecam.db.engine import NEWER_TILECAM, sqlite_file

log = logging.getLogger("tilecam.db")

MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"


def alembic_config(engine: Engine) -> Config:
    """An Alembic config for ``engine`` that needs no ``alembic.ini`` on disk."""
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    cfg.attributes["engine"] = engine
    return cfg


#: The key of ``Config.attributes`` under which :func:`upgrade` hands the migration
#: environment (``migrations/env.py``) what to do, inside the migration's transaction and
#: lock, with the revision the database is at before any revision is applied.
BEFORE_UPGRADE = "before_upgrade"


class BackupFailed(ValueError):
    """The copy of a database taken before upgrading it could not be written; the upgrade
    was not begun (nothing was changed). A ValueError: the CLI prints it on one line and
    exits 2; the API answers 503 ``database_unavailable`` with it."""


class NewerDatabase(ValueError):
    """The database is at a revision this tilecam does not ship: a newer tilecam wrote it.
    Nothing is changed; the message says to upgrade tilecam (a ValueError: the CLI prints
    it on one line and exits 2; the API answers 503 ``database_unavailable`` with it)."""


def known_revisions() -> set[str]:
    """Every revision the package ships."""
    return {script.revision for script in ScriptDirectory(str(MIGRATIONS_DIR)).walk_revisions()}


def newer_message(revision: str) -> str:
    """What :class:`NewerDatabase` says of a database at ``revision``.

    >>> print(newer_message("0099_x"))  # doctest: +ELLIPSIS +NORMALIZE_WHITESPACE
    the database is at revision 0099_x, which this tilecam (newest ...) does not know:
    it was written by a newer tilecam; upgrade tilecam to use it (nothing was changed)
    """
    return (f"the database is at revision {revision}, which this tilecam (newest "
            f"{head_revision()}) does not know: it was {NEWER_TILECAM}; upgrade tilecam "
            "to use it (nothing was changed)")


def check_known(revision: str | None) -> None:
    """:class:`NewerDatabase` when ``revision`` (a database's) is one this tilecam does
    not ship; None for an empty database or a known revision."""
    if revision is not None and revision not in known_revisions():
        raise NewerDatabase(newer_message(revision))


def upgrade(engine: Engine, revision: str = "head") -> Path | None:
    """Bring the database of ``engine`` to ``revision`` (default: the newest); the copy
    of a SQLite file taken before, or None where none was (an empty database, one at
    ``revision`` already, PostgreSQL, SQLite in memory).

    :class:`NewerDatabase` (nothing changed) when the database is at a revision this
    tilecam does not know — before the seventy-fifth session Alembic's "Can't locate
    revision", which the CLI printed as a traceback and the API as a database to
    repair or replace. A SQLite file at an older revision is first copied beside it
    (:func:`backup_name`; until the seventy-eighth session an upgrade, the service's on
    its first request too, kept no copy and the README advised none, and an upgraded
    database opens in no older tilecam); :class:`BackupFailed` (nothing changed) when the
    copy cannot be written. The copy is taken inside the migration's transaction, so of
    several processes starting at once only the one that upgrades takes it; an upgrade
    that fails (rolled back: nothing changed) removes it again."""
    check_known(current_revision(engine))
    cfg = alembic_config(engine)
    backups: list[Path] = []
    cfg.attributes[BEFORE_UPGRADE] = _before_upgrade(engine, revision, backups)
    try:
        command.upgrade(cfg, revision)
    except BaseException:
        _drop_copies(backups)
        raise
    return backups[0] if backups else None


def _drop_copies(backups: list[Path]) -> None:
    """Remove the copies an upgrade that failed wrote: its one transaction was rolled
    back, so the database is as they are, and a service that tries again on each request
    would else leave a copy each time."""
    for copy in backups:
        copy.unlink(missing_ok=True)
        log.warning("tilecam: the upgrade failed and changed nothing; its copy %s of the "
                    "database is removed", copy)


def _before_upgrade(engine: Engine, destination: str,
                    backups: list[Path]) -> Callable[[str | None], None]:
    """What the migration environment runs, the database locked, before it applies any
    revision: given the revision the database is at, copy a SQLite file that holds a
    schema at another revision than ``destination`` (appending the copy's path to
    ``backups``), and log that a PostgreSQL one is upgraded without a copy."""

    def before(current: str | None) -> None:
        target = ScriptDirectory(str(MIGRATIONS_DIR)).get_revision(destination)
        if current is None or target is None or current == target.revision:
            return  # an empty database (nothing to keep), or nothing to apply
        url = engine.url.render_as_string(hide_password=False)
        file = sqlite_file(url) if engine.dialect.name == "sqlite" else None
        if file is None:
            if engine.dialect.name != "sqlite":
                log.warning("tilecam: upgrading the database from revision %s to %s; no "
                            "copy is made of a PostgreSQL database (pg_dump it before "
                            "upgrading tilecam: no older tilecam opens it afterwards)",
                            current, target.revision)
            return
        out = backup_file(file, current, target.revision)
        backups.append(out)
        log.warning("tilecam: the database %s is at revision %s and is upgraded to %s; its "
                    "copy from before is %s (to go back to the tilecam that wrote it, stop "
                    "the service and put the copy in place of %s)", file, current,
                    target.revision, out, file.name)

    return before


#: The longest name (bytes) a copy taken before an upgrade gets: most file systems take
#: 255 bytes in a name (ext4, XFS, APFS, NTFS's 255 UTF-16 units).
BACKUP_NAME_MAX = 255


def backup_name(file: Path, revision: str, when: datetime, attempt: int = 0) -> Path:
    """Where the copy of the SQLite ``file`` at ``revision`` is written before an upgrade
    at ``when`` (UTC): beside it, named for the revision it is at and the time to the
    second (``-2``, ``-3`` … after it for a second or third ``attempt`` in that second).

    >>> backup_name(Path("/srv/tilecam.db"), "0002_append_only_history",
    ...             datetime(2026, 12, 7, 21, 5, 9, tzinfo=UTC)).name
    'tilecam.before-upgrade-from-0002_append_only_history-20261207T210509Z.db'
    >>> backup_name(Path("/srv/t"), "0009_camera_surface",
    ...             datetime(2026, 12, 7, 21, 5, 9, tzinfo=UTC), attempt=1).name
    't.before-upgrade-from-0009_camera_surface-20261207T210509Z-2'

    A database whose name leaves no room for that is named shorter in the copy (the
    file system takes at most :data:`BACKUP_NAME_MAX` bytes in a name; a 200-byte name
    stopped the upgrade with "File name too long"):

    >>> name = backup_name(Path("/srv/" + "中" * 70 + ".db"), "0002_append_only_history",
    ...                    datetime(2026, 12, 7, 21, 5, 9, tzinfo=UTC)).name
    >>> len(name.encode()), name.endswith("-20261207T210509Z.db")
    (254, True)
    """
    stamp = when.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")
    again = f"-{attempt + 1}" if attempt else ""
    tail = f".before-upgrade-from-{revision}-{stamp}{again}{file.suffix}"
    stem = file.stem
    while stem and len(os.fsencode(stem + tail)) > BACKUP_NAME_MAX:
        stem = stem[:-1]  # whole characters: a long database name is cut, not refused
    return file.with_name(stem + tail)


def backup_file(file: Path, current: str, target: str) -> Path:
    """Copy the SQLite ``file`` (at revision ``current``) to a new file beside it
    (:func:`backup_name`) with SQLite's online backup (its write-ahead log's rows too;
    never over another file: :func:`tilecam.commands.db.backup_sqlite`); the copy's
    path. :class:`BackupFailed` naming why when it cannot be written."""
    from tilecam.commands.db import backup_sqlite

    when = datetime.now(UTC)
    reason = ""
    for attempt in range(20):
        out = backup_name(file, current, when, attempt)
        try:
            if out.exists():
                continue
            backup_sqlite(file, out)
        except (ValueError, OSError) as exc:  # OSError: a name the file system refuses
            reason = str(exc)
            if out.exists():  # another process's copy took the name meanwhile
                continue
            break
        return out
    raise BackupFailed(f"the database {file} at revision {current} was not upgraded to "
                       f"{target}: its copy from before could not be written "
                       f"({reason or 'no free name beside it'}); nothing was changed. Make "
                       f"room in (or give write access to) {file.parent}, or copy the "
                       "database elsewhere yourself, then start tilecam again")


def current_revision(engine: Engine) -> str | None:
    """The revision the database is at, or None for an empty database."""
    with engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


def head_revision() -> str:
    """The newest revision the package ships."""
    script = ScriptDirectory(str(MIGRATIONS_DIR))
    head = script.get_current_head()
    assert head is not None
    return head
