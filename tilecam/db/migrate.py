"""Apply the Alembic migrations programmatically (startup and ``tilecam db upgrade``).

A database that already holds a schema at an older revision is copied before it is
upgraded (:mod:`tilecam.db.backup`: SQLite, a file beside it; PostgreSQL, a ``pg_dump``
file in ``TILECAM_BACKUP_DIR``), so that an operator who finds the new tilecam wanting
can put the copy back and run the tilecam they had: no tilecam opens a database a newer
one has upgraded, and nothing downgrades one.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine, text
from sqlalchemy.engine import URL

from tilecam.db.backup import (
    CopyPlan,
    backup_file,
    backup_postgres,
    copy_plan,
    shown_url,
)
from tilecam.db.engine import NEWER_TILECAM, sqlite_file

if TYPE_CHECKING:
    from tilecam.settings import Settings

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


def upgrade(engine: Engine, revision: str = "head", *, backup: bool | None = None,
            settings: Settings | None = None) -> Path | None:
    """Bring the database of ``engine`` to ``revision`` (default: the newest); the copy
    of it taken before, or None where none was (an empty database, one at ``revision``
    already, SQLite in memory, ``backup`` off).

    :class:`NewerDatabase` (nothing changed) when the database is at a revision this
    tilecam does not know — before the seventy-fifth session Alembic's "Can't locate
    revision", which the CLI printed as a traceback and the API as a database to
    repair or replace. A database at an older revision is first copied
    (:mod:`tilecam.db.backup`): a SQLite file beside it (until the seventy-eighth
    session an upgrade, the service's on its first request too, kept no copy and the
    README advised none, and an upgraded database opens in no older tilecam), a
    PostgreSQL database with ``pg_dump`` into ``TILECAM_BACKUP_DIR`` (until the
    seventy-ninth, the log only advised it); :class:`~tilecam.db.backup.BackupFailed`
    (nothing changed)
    when the copy cannot be written, saying how to go on. ``backup`` False upgrades
    without a copy (``tilecam db upgrade --no-backup``); None, the default, follows the
    setting ``upgrade_backup`` — of ``settings`` (the service passes its app's), else
    the process's ``TILECAM_UPGRADE_BACKUP`` (a boolean: ``0``, ``false``, ``no`` or
    ``off`` turn it off; a value that is none of the known words is refused as a bad
    setting), which also give the copy's folder and ``pg_dump``
    (:func:`tilecam.db.backup.copy_plan`). The copy is taken inside the
    migration's transaction, so of several processes starting at once only the one
    that upgrades takes it; an upgrade that fails (rolled back: nothing changed)
    removes it again."""
    check_known(current_revision(engine))
    cfg = alembic_config(engine)
    backups: list[Path] = []
    cfg.attributes[BEFORE_UPGRADE] = _before_upgrade(engine, revision, backups, backup,
                                                     settings)
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


def _before_upgrade(engine: Engine, destination: str, backups: list[Path],
                    backup: bool | None,
                    settings: Settings | None) -> Callable[[str | None], None]:
    """What the migration environment runs, the database locked, before it applies any
    revision: given the revision the database is at, copy a database that holds a
    schema at another revision than ``destination`` (appending the copy's path to
    ``backups``) as :func:`copy_plan` of ``settings`` (``backup`` overriding its
    setting) says."""

    def before(current: str | None) -> None:
        target = ScriptDirectory(str(MIGRATIONS_DIR)).get_revision(destination)
        if current is None or target is None or current == target.revision:
            return  # an empty database (nothing to keep), or nothing to apply
        url = engine.url.render_as_string(hide_password=False)
        file = sqlite_file(url) if engine.dialect.name == "sqlite" else None
        if engine.dialect.name == "sqlite" and file is None:
            return  # in memory: nothing outlives the process to go back to
        plan = copy_plan(backup, settings)
        if not plan.enabled:
            log.warning("tilecam: upgrading the database %s from revision %s to %s "
                        "WITHOUT a copy from before (--no-backup or "
                        "TILECAM_UPGRADE_BACKUP=0): no older tilecam opens it afterwards",
                        shown_url(engine.url), current,
                        target.revision)
            return
        if file is not None:
            _copy_sqlite(file, current, target.revision, backups)
        elif engine.dialect.name == "postgresql":
            _copy_postgres(engine, current, target.revision, plan, backups)

    return before


def _copy_sqlite(file: Path, current: str, target: str, backups: list[Path]) -> None:
    """Copy the SQLite ``file`` beside it (:func:`backup_file`), noting the copy in
    ``backups`` and the log."""
    out = backup_file(file, current, target)
    backups.append(out)
    log.warning("tilecam: the database %s is at revision %s and is upgraded to %s; its "
                "copy from before is %s (to go back to the tilecam that wrote it, stop "
                "the service and put the copy in place of %s)", file, current,
                target, out, file.name)


def _copy_postgres(engine: Engine, current: str, target: str, plan: CopyPlan,
                   backups: list[Path]) -> None:
    """``pg_dump`` the PostgreSQL database of ``engine`` into ``plan.folder``
    (:func:`backup_postgres`), noting the copy in ``backups`` and the log. Run while the
    migration's transaction holds only its advisory lock and has read the revision:
    ``pg_dump``'s own connection takes the shared locks it needs, and sees the database
    as the upgrade finds it."""
    info = engine.dialect.server_version_info
    out = backup_postgres(_with_database(engine), current, target, plan,
                          tuple(n for n in info if isinstance(n, int)) if info else None)
    backups.append(out)
    log.warning("tilecam: the database %s is at revision %s and is upgraded to %s; its "
                "copy from before (pg_dump, custom format) is %s (to go back to the "
                "tilecam that wrote it, restore it into an empty database with pg_restore "
                "and point TILECAM_DATABASE_URL at that one)",
                shown_url(engine.url), current, target, out)


def _with_database(engine: Engine) -> URL:
    """The URL of ``engine``'s PostgreSQL database, naming it where the URL does not
    (libpq then connects to the database named as the user): ``pg_dump`` copies the
    database the upgrade changes, and the copy is named for it (until the seventy-ninth
    session's review such a copy was named ``postgres``, whatever it held)."""
    if engine.url.database:
        return engine.url
    with engine.connect() as conn:
        name = conn.execute(text("SELECT current_database()")).scalar_one()
    return engine.url.set(database=str(name))


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
