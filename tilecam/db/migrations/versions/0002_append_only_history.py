"""Recorded hands and their revisions are append-only, enforced by the database.

Triggers refuse UPDATE and DELETE on ``hands`` and ``hand_revisions``, so the
score sheet's history cannot be overwritten, even by hand-written SQL; a correction
or a void is a new revision.

Revision ID: 0002_append_only_history
Revises: 0001_initial
Create Date: 2026-11-29
"""

from __future__ import annotations

from alembic import op

revision = "0002_append_only_history"
down_revision = "0001_initial"
branch_labels = None
depends_on = None

TABLES = ("hands", "hand_revisions")
MESSAGE = "the score sheet is append-only: add a revision instead"


def upgrade() -> None:
    dialect = op.get_bind().dialect.name
    if dialect == "postgresql":
        op.execute(
            "CREATE OR REPLACE FUNCTION tilecam_append_only() RETURNS trigger LANGUAGE plpgsql "
            "AS $$ "
            f"BEGIN RAISE EXCEPTION '{MESSAGE} (%)', TG_TABLE_NAME; END; $$"
        )
        for table in TABLES:
            op.execute(
                f"CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON {table} "
                "FOR EACH ROW EXECUTE FUNCTION tilecam_append_only()"
            )
    else:
        for table in TABLES:
            for action in ("UPDATE", "DELETE"):
                op.execute(
                    f"CREATE TRIGGER {table}_no_{action.lower()} BEFORE {action} ON {table} "
                    f"BEGIN SELECT RAISE(ABORT, '{MESSAGE} ({table})'); END"
                )


def downgrade() -> None:
    dialect = op.get_bind().dialect.name
    if dialect == "postgresql":
        for table in TABLES:
            op.execute(f"DROP TRIGGER IF EXISTS {table}_append_only ON {table}")
        op.execute("DROP FUNCTION IF EXISTS tilecam_append_only()")
    else:
        for table in TABLES:
            for action in ("update", "delete"):
                op.execute(f"DROP TRIGGER IF EXISTS {table}_no_{action}")
