"""``tilecam db``: create or upgrade the event-table database (Alembic migrations)."""

from __future__ import annotations

import argparse
from typing import Any


def register(sub: Any) -> None:
    p = sub.add_parser("db", help="create or upgrade the event-table database")
    p.add_argument("action", choices=["upgrade", "current"],
                   help="upgrade: apply migrations up to the newest; current: show the revision")
    p.add_argument("--url", default=None,
                   help="database URL (default: TILECAM_DATABASE_URL, else SQLite in "
                        "TILECAM_DATA_DIR/tilecam.db)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from sqlalchemy.exc import SQLAlchemyError

    from tilecam.db import make_engine, upgrade
    from tilecam.db.engine import parsed_url, sqlite_file
    from tilecam.db.migrate import current_revision, head_revision
    from tilecam.settings import get_settings

    if args.url is not None and not args.url.strip():
        raise ValueError("--url is empty: give a database URL, or leave --url out for "
                         "TILECAM_DATABASE_URL or the default SQLite file")
    url = args.url or get_settings().sqlalchemy_url
    shown = parsed_url(url).render_as_string(hide_password=True)  # ValueError: no URL
    file = sqlite_file(url)  # db current does not make an empty database to read
    if args.action == "current" and file is not None and not file.exists():
        print(f"{shown}: no database yet (tilecam db upgrade, or the service's first use, "
              "makes it)")
        return 0
    engine = make_engine(url)
    try:
        if args.action == "upgrade":
            upgrade(engine)
        rev = current_revision(engine)
    except SQLAlchemyError as exc:
        raise ValueError(f"cannot use the database {shown}: "
                         f"{exc.__class__.__name__}: {str(exc).splitlines()[0]}") from None
    finally:
        engine.dispose()
    head = head_revision()
    state = "up to date" if rev == head else f"behind (newest is {head})"
    print(f"{engine.url.render_as_string(hide_password=True)}: revision {rev or 'none'}, {state}")
    return 0
