"""A referee's client may name each penalty it sends, so a re-send books nothing twice.

``penalties.request_id``: text (at most 100 characters), null unless the client gave one
(``POST /v1/tables/{id}/penalties`` with ``request_id``); unique per table, so the same
request sent again — a phone on a flaky network that did not hear the answer — finds the
penalty booked the first time instead of booking another (a repeat offence would also
have climbed a step). Existing rows keep null.

Revision ID: 0008_penalty_request_id
Revises: 0007_penalty_rebooked
Create Date: 2026-12-06
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008_penalty_request_id"
down_revision = "0007_penalty_rebooked"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("penalties") as batch:
        batch.add_column(sa.Column("request_id", sa.String(100), nullable=True))
        batch.create_index("ix_penalties_table_request", ["table_id", "request_id"],
                           unique=True)


def downgrade() -> None:
    with op.batch_alter_table("penalties") as batch:
        batch.drop_index("ix_penalties_table_request")
        batch.drop_column("request_id")
