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
    from tilecam.db.migrate import current_revision, head_revision
    from tilecam.settings import get_settings

    url = args.url or get_settings().sqlalchemy_url
    try:
        engine = make_engine(url)
        if args.action == "upgrade":
            upgrade(engine)
        rev = current_revision(engine)
    except SQLAlchemyError as exc:
        raise ValueError(f"cannot use the database {engine.url.render_as_string()}: "
                         f"{exc.__class__.__name__}: {str(exc).splitlines()[0]}") from None
    finally:
        if "engine" in locals():
            engine.dispose()
    head = head_revision()
    state = "up to date" if rev == head else f"behind (newest is {head})"
    print(f"{engine.url.render_as_string(hide_password=True)}: revision {rev or 'none'}, {state}")
    return 0
