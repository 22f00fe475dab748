"""``tilecam db``: create or upgrade the event-table database (Alembic migrations), show
its revision, or back a SQLite database up to one file."""

from __future__ import annotations

import argparse
import os
import secrets
import shutil
import sqlite3
from pathlib import Path
from typing import Any


def register(sub: Any) -> None:
    p = sub.add_parser("db", help="create, upgrade or back up the event-table database")
    p.add_argument("action", choices=["upgrade", "current", "backup"],
                   help="upgrade: apply migrations up to the newest; current: show the "
                        "revision; backup OUT: copy a SQLite database, whole and "
                        "consistent, into the new file OUT (safe while the service runs; "
                        "PostgreSQL: use pg_dump)")
    p.add_argument("out", nargs="?", default=None, metavar="OUT",
                   help="backup: the file to write (must not exist yet)")
    p.add_argument("--url", default=None,
                   help="database URL (default: TILECAM_DATABASE_URL, else SQLite in "
                        "TILECAM_DATA_DIR/tilecam.db)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from alembic.util import CommandError
    from sqlalchemy.exc import SQLAlchemyError

    from tilecam.db import make_engine, upgrade
    from tilecam.db.engine import parsed_url, sqlite_file
    from tilecam.db.migrate import current_revision, head_revision, known_revisions
    from tilecam.settings import get_settings

    if args.url is not None and not args.url.strip():
        raise ValueError("--url is empty: give a database URL, or leave --url out for "
                         "TILECAM_DATABASE_URL or the default SQLite file")
    if (args.action == "backup") != (args.out is not None):
        raise ValueError("give the file to write after backup (tilecam db backup OUT), and "
                         "after backup only")
    url = args.url or get_settings().sqlalchemy_url
    shown = parsed_url(url).render_as_string(hide_password=True)  # ValueError: no URL
    file = sqlite_file(url)  # db current does not make an empty database to read
    if args.action == "backup":
        if file is None:
            raise ValueError(f"{shown}: tilecam db backup copies a SQLite database file; "
                             "back up a PostgreSQL database with pg_dump")
        backup_sqlite(file, Path(args.out))
        print(f"{shown}: backed up to {args.out}")
        return 0
    if args.action == "current" and file is not None and not file.exists():
        print(f"{shown}: no database yet (tilecam db upgrade, or the service's first use, "
              "makes it)")
        return 0
    engine = make_engine(url)
    try:
        if args.action == "upgrade":
            upgrade(engine)  # NewerDatabase (a ValueError) for a newer tilecam's database
        rev = current_revision(engine)
    except (SQLAlchemyError, CommandError) as exc:
        raise ValueError(f"cannot use the database {shown}: "
                         f"{exc.__class__.__name__}: {str(exc).splitlines()[0]}") from None
    finally:
        engine.dispose()
    head = head_revision()
    if rev == head:
        state = "up to date"
    elif rev is not None and rev not in known_revisions():
        state = (f"ahead: written by a newer tilecam (this tilecam's newest is {head}; "
                 "upgrade tilecam to use it)")
    else:
        state = f"behind (newest is {head})"
    print(f"{engine.url.render_as_string(hide_password=True)}: revision {rev or 'none'}, {state}")
    return 0


def backup_sqlite(file: Path, out: Path) -> None:
    """Copy the SQLite database ``file`` — its write-ahead log's rows too — into the new
    file ``out``, whole and consistent, with SQLite's online backup (safe while the
    service writes: the copy is of one moment). ``out`` is one file (no ``-wal`` beside
    it) that ``TILECAM_DATA_DIR``'s ``tilecam.db`` can be replaced by, the service
    stopped. ValueError (nothing written) when there is no database, ``out`` exists, or
    its folder does not.

    No file but ``out`` is ever replaced or removed, ``out`` included: the copy is
    written to a new file of its own beside ``out`` (a name made up for it, created only
    where no file has it: ``OUT.<random>.part``), and published as ``out`` with a hard
    link, which fails where ``out`` exists by then (another backup, another program);
    where the folder's file system has no hard links, ``out`` is created only where it
    does not exist (``O_EXCL``) and the copy's bytes written into it. The temporary
    file is removed in every case. Before the seventy-fifth session's review the copy
    was ``OUT.part``, which a backup deleted whoever's it was, and ``out`` was replaced
    (``os.replace``) had it appeared meanwhile. A destination that cannot be written is
    named as such (``cannot write OUT``), not as the database."""
    if not file.is_file():
        raise ValueError(f"no database at {file} to back up")
    if os.path.lexists(out):  # a link to nowhere too: it is a file of the user's
        raise ValueError(f"{out} exists: give a new file (a backup never overwrites one)")
    if not out.parent.is_dir():
        raise ValueError(f"no folder {out.parent} to write {out.name} in")
    try:
        source = sqlite3.connect(file, timeout=30)
    except sqlite3.Error as exc:
        raise ValueError(f"cannot back up {file}: {exc}") from None
    part: Path | None = None
    try:
        part = _new_part(out)
        try:
            copy = sqlite3.connect(part)
        except sqlite3.Error as exc:
            raise ValueError(f"cannot write {out}: {exc} (in {out.parent})") from None
        try:
            try:
                source.backup(copy)
                copy.execute("PRAGMA journal_mode=DELETE")  # one file, whatever the source's
                check = copy.execute("PRAGMA quick_check").fetchone()
            except sqlite3.Error as exc:
                raise ValueError(f"cannot back up {file} to {out}: {exc}; nothing was "
                                 f"written to {out}") from None
            if check is None or check[0] != "ok":
                raise ValueError(f"the copy of {file} does not check ({check}): the "
                                 f"database may be damaged; nothing was written to {out}")
        finally:
            copy.close()
        _publish(part, out)
    finally:
        source.close()
        if part is not None:
            part.unlink(missing_ok=True)


def _new_part(out: Path) -> Path:
    """A new, empty file beside ``out`` for its copy to be written in: a name made up for
    it and created only where no file has it (``O_EXCL``), so that no other file —
    another backup's, the user's — is ever written or removed. ValueError naming ``out``
    when its folder cannot be written."""
    for _ in range(100):
        part = out.with_name(f"{out.name}.{secrets.token_hex(6)}.part")
        try:
            os.close(os.open(part, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
        except FileExistsError:
            continue
        except OSError as exc:
            raise ValueError(f"cannot write {out}: {exc.strerror or exc} "
                             f"(in {out.parent})") from None
        return part
    raise ValueError(f"cannot write {out}: no new file name for its copy in {out.parent}")


def _publish(part: Path, out: Path) -> None:
    """Give the complete copy ``part`` the name ``out``, only where ``out`` does not exist
    (a hard link; else a new file created with ``O_EXCL`` and the bytes copied in): never
    replacing a file. ``part`` is left for the caller to remove."""
    try:
        os.link(part, out)
    except FileExistsError:
        raise ValueError(f"{out} exists: give a new file (a backup never overwrites one; "
                         "it appeared while the copy was written)") from None
    except OSError:  # a file system without hard links: create out itself, exclusively
        try:
            fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except FileExistsError:
            raise ValueError(f"{out} exists: give a new file (a backup never overwrites "
                             "one; it appeared while the copy was written)") from None
        except OSError as exc:
            raise ValueError(f"cannot write {out}: {exc.strerror or exc}") from None
        try:
            with os.fdopen(fd, "wb") as dst, open(part, "rb") as src:
                shutil.copyfileobj(src, dst)
                dst.flush()
                os.fsync(dst.fileno())
        except OSError as exc:
            os.unlink(out)  # the file made just now, half written
            raise ValueError(f"cannot write {out}: {exc.strerror or exc}") from None
    _sync_folder(out.parent)


def _sync_folder(folder: Path) -> None:
    """Make a new name in ``folder`` durable (where the platform can: best effort)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
