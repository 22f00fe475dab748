"""``tilecam db``: create or upgrade the event-table database (Alembic migrations), show
its revision, or back a SQLite database up to one file."""

from __future__ import annotations

import argparse
import os
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
    p.add_argument("--no-backup", action="store_true",
                   help="upgrade: do not copy a database that holds an older schema first "
                        "(by default a SQLite file is copied beside it, a PostgreSQL one "
                        "with pg_dump into TILECAM_BACKUP_DIR, else TILECAM_DATA_DIR; "
                        "the service: TILECAM_UPGRADE_BACKUP=0). No older tilecam opens "
                        "an upgraded database: copy it yourself first")
    p.add_argument("--url", default=None,
                   help="database URL (default: TILECAM_DATABASE_URL, else SQLite in "
                        "TILECAM_DATA_DIR/tilecam.db)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from alembic.util import CommandError
    from sqlalchemy.exc import SQLAlchemyError

    from tilecam.db import make_engine, upgrade
    from tilecam.db.backup import backup_sqlite, printable, shown_url
    from tilecam.db.engine import parsed_url, sqlite_file
    from tilecam.db.migrate import current_revision, head_revision, known_revisions
    from tilecam.settings import get_settings

    if args.url is not None and not args.url.strip():
        raise ValueError("--url is empty: give a database URL, or leave --url out for "
                         "TILECAM_DATABASE_URL or the default SQLite file")
    if (args.action == "backup") != (args.out is not None):
        raise ValueError("give the file to write after backup (tilecam db backup OUT), and "
                         "after backup only")
    if args.no_backup and args.action != "upgrade":
        raise ValueError("--no-backup goes with upgrade only (tilecam db upgrade "
                         "--no-backup)")
    if args.out == "":
        raise ValueError("the file to write after backup is empty: give its name "
                         "(tilecam db backup OUT)")
    if args.out is not None and args.out.endswith(("/", os.sep)):  # Path drops the "/"
        raise ValueError(f"{printable(args.out)} ends in {args.out[-1]}: give the file to "
                         "write, not a folder (such as "
                         f"{printable(args.out)}tilecam-backup.db)")
    last = os.path.basename(args.out or "")
    if last in (".", ".."):  # Path("new/.") is Path("new"): a file new was written
        raise ValueError(f"{printable(args.out)} names a folder (its last part is {last}): "
                         "give the file to write, not a folder (such as "
                         f"{printable(args.out)}{os.sep}tilecam-backup.db)")
    url = args.url or get_settings().sqlalchemy_url
    shown = shown_url(parsed_url(url))  # ValueError: no URL; no password, ?password= too
    file = sqlite_file(url)  # db current does not make an empty database to read
    if args.action == "backup":
        if file is None:
            raise ValueError(f"{shown}: tilecam db backup copies a SQLite database file; "
                             "back up a PostgreSQL database with pg_dump")
        backup_sqlite(file, Path(args.out))
        print(f"{shown}: backed up to {printable(args.out)}")
        return 0
    if args.action == "current" and file is not None and not file.exists():
        print(f"{shown}: no database yet (tilecam db upgrade, or the service's first use, "
              "makes it)")
        return 0
    engine = make_engine(url)
    try:
        if args.action == "upgrade":
            # NewerDatabase (a ValueError) for a newer tilecam's database
            copy = upgrade(engine, backup=False if args.no_backup else None)
            if copy is not None:
                print(f"{shown}: its copy from before the upgrade is {printable(copy)} "
                      f"({_way_back(file, copy)})")
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
    print(f"{shown_url(engine.url)}: revision {rev or 'none'}, {state}")
    return 0


def _way_back(file: Path | None, copy: Path) -> str:
    """How to go back to the tilecam that wrote a database, from its ``copy`` taken
    before an upgrade: for the SQLite ``file``, put the copy in its place; for
    PostgreSQL (``file`` None), restore the ``pg_dump`` copy into an empty database."""
    from tilecam.db.backup import printable

    if file is not None:
        return ("to go back to the tilecam that wrote it, put the copy in place of "
                f"{printable(file)}")
    return ("to go back to the tilecam that wrote it, restore it into an empty database — "
            f"createdb NEW && pg_restore --no-owner -d NEW {printable(copy)} — and set "
            "TILECAM_DATABASE_URL to NEW")
