"""A repeat offence's step can change after it is booked, and the sheet says why.

``penalties.rebooked``: text, null until the sheet books a repeat offence (空吃/空碰/空杠,
摸牌, 碰牌: a warning, then 5, 10, 20 … in one hand) at another step than the one it was
booked at — an earlier offence of the kind made void, or a false claim ruled or undone,
which changes which records are one hand. Each change adds a line: the points from and
to, and the cause. Existing rows keep null.

Revision ID: 0007_penalty_rebooked
Revises: 0006_view_keys
Create Date: 2026-12-06
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007_penalty_rebooked"
down_revision = "0006_view_keys"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("penalties") as batch:
        batch.add_column(sa.Column("rebooked", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("penalties") as batch:
        batch.drop_column("rebooked")
