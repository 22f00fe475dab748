"""Each hand revision keeps the seats it was scored with.

``hand_revisions.seats``: seat wind → player position (``{"E": 2, "S": 3, …}``) of the
hand when this revision was scored. Under MCR a hand's seats follow from its number;
under Xiamen and Zhenjiang the deal can stay with a dealer (连庄, 臭庄), so who holds
each seat depends on the hands before, and a referee's correction of an earlier hand
can move it — the later hands are then scored again (a new revision each) and every
revision says which players its ``winner``/``discarder`` seats were. Existing rows
(null) were scored with the MCR schedule, which the sheet reads them with: a Xiamen or
Zhenjiang sheet recorded before keeps every hand's points and seats as scored, while its
places (who deals, the next hand) are read from the rule set's deal from now on.

Added with ``ALTER TABLE … ADD COLUMN`` (no table rebuild), so the append-only triggers
of migration 0002 stay in place.

Revision ID: 0005_revision_seats
Revises: 0004_penalty_money
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005_revision_seats"
down_revision = "0004_penalty_money"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("hand_revisions", sa.Column("seats", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("hand_revisions") as batch:
        batch.drop_column("seats")
