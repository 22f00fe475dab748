"""A penalty can be money paid apart from the points (Xiamen 诈胡, 课外).

``penalties.money``: the penalty's ``deltas`` are money paid apart from the points or
chips — a Xiamen 诈胡 (false win) takes ``false_win_money`` (50) from the claimant to each
other player outside the chips — so the standings add them to a player's ``money``, not
to the ranked total. Existing rows are points penalties (false).

Revision ID: 0004_penalty_money
Revises: 0003_camera_quiet_streak
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004_penalty_money"
down_revision = "0003_camera_quiet_streak"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("penalties") as batch:
        batch.add_column(sa.Column("money", sa.Boolean(), nullable=False,
                                   server_default=sa.false()))


def downgrade() -> None:
    with op.batch_alter_table("penalties") as batch:
        batch.drop_column("money")
