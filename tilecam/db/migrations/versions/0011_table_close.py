"""A table can be closed (time called) and withdrawn (a table opened by mistake).

``event_tables.closed_at`` and ``close_reason``: when the referee closed the table's
sheet (``POST /v1/tables/{id}/close``: the session's time called, 当比赛已到规定时间) and
why; null while it is open. A closed sheet records no more hands (409 to a table, a
camera or a referee posting one) and shows ``complete``; the referee may still correct,
void and penalise what it holds. ``event_tables.withdrawn``: the table is left out of
its event's standings (a table opened twice, with a misspelt player, for a test), kept
with its history (nothing recorded is deleted). Existing rows: open, not withdrawn.

Revision ID: 0011_table_close
Revises: 0010_revision_report_note
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011_table_close"
down_revision = "0010_revision_report_note"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("event_tables", sa.Column("closed_at", sa.DateTime(timezone=True),
                                            nullable=True))
    op.add_column("event_tables", sa.Column("close_reason", sa.Text(), nullable=True))
    op.add_column("event_tables", sa.Column("withdrawn", sa.Boolean(), nullable=False,
                                            server_default=sa.false()))


def downgrade() -> None:
    with op.batch_alter_table("event_tables") as batch:
        batch.drop_column("withdrawn")
        batch.drop_column("close_reason")
        batch.drop_column("closed_at")
