"""Apply the Alembic migrations programmatically (startup and ``tilecam db upgrade``)."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine

from tilecam.db.engine import NEWER_TILECAM

MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"


def alembic_config(engine: Engine) -> Config:
    """An Alembic config for ``engine`` that needs no ``alembic.ini`` on disk."""
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    cfg.attributes["engine"] = engine
    return cfg


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


def upgrade(engine: Engine, revision: str = "head") -> None:
    """Bring the database of ``engine`` to ``revision`` (default: the newest).
    :class:`NewerDatabase` (nothing changed) when the database is at a revision this
    tilecam does not know — before the seventy-fifth session Alembic's "Can't locate
    revision", which the CLI printed as a traceback and the API as a database to
    repair or replace."""
    check_known(current_revision(engine))
    command.upgrade(alembic_config(engine), revision)


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
