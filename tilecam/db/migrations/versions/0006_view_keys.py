"""Each table may have a viewing key: it reads the table's sheet and records nothing.

``event_tables.view_key_hash``: hex SHA-256 of the table's viewing key (``tv_…``), unique;
null for a table that has none (tables made before this migration, until the referee
mints one with ``POST /v1/tables/{id}/view-key``). The score-sheet page takes it, so the
players' phones need not hold the key the table's camera records hands with.

Revision ID: 0006_view_keys
Revises: 0005_revision_seats
Create Date: 2026-12-06
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006_view_keys"
down_revision = "0005_revision_seats"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("event_tables", sa.Column("view_key_hash", sa.String(64), nullable=True))
    op.create_index("ix_event_tables_view_key_hash", "event_tables", ["view_key_hash"],
                    unique=True)


def downgrade() -> None:
    op.drop_index("ix_event_tables_view_key_hash", table_name="event_tables")
    with op.batch_alter_table("event_tables") as batch:
        batch.drop_column("view_key_hash")
