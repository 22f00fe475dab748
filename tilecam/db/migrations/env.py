"""Alembic environment: runs the migrations on the engine passed in the config.

:func:`tilecam.db.migrate.upgrade` puts the engine in ``config.attributes["engine"]``;
there is no ``alembic.ini`` and no URL in this file.
"""

from __future__ import annotations

from alembic import context

from tilecam.db.engine import WRITE
from tilecam.db.migrate import BEFORE_UPGRADE
from tilecam.db.models import Base

#: PostgreSQL advisory lock id held while migrating.
MIGRATION_LOCK = 7_370_841_662

config = context.config
engine = config.attributes.get("engine")
if engine is None:  # pragma: no cover - only reachable through the bare alembic CLI
    raise RuntimeError("run migrations through `tilecam db upgrade` (tilecam.db.migrate)")

with engine.connect() as connection:
    connection.execution_options(**{WRITE: True})  # SQLite: BEGIN IMMEDIATE (below)
    context.configure(
        connection=connection,
        target_metadata=Base.metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        # One transaction for the whole upgrade on every backend. Alembic's SQLite
        # default commits after each revision, and a second process starting in that
        # gap reads the half-way version while the first goes on with the revisions it
        # had planned: both run the next one ("trigger ... already exists"). SQLite's
        # DDL is transactional, and the transaction starts with BEGIN IMMEDIATE
        # (tilecam.db.engine), so processes migrating at once queue for the whole run.
        transactional_ddl=True,
    )
    with context.begin_transaction():
        if connection.dialect.name == "postgresql":
            # Server processes starting together migrate one at a time (SQLite gets the
            # same from BEGIN IMMEDIATE on the one transaction above).
            connection.exec_driver_sql(f"SELECT pg_advisory_xact_lock({MIGRATION_LOCK})")
        # tilecam.db.migrate.upgrade: copy a database that holds an older schema before
        # any revision changes it — here, locked, where a process that waited for
        # another's upgrade finds it done and copies nothing
        before = config.attributes.get(BEFORE_UPGRADE)
        if before is not None:
            before(context.get_context().get_current_revision())
        context.run_migrations()
    connection.commit()
