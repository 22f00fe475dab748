"""A table camera counts the frames without a complete hand since its last record.

``camera_states.quiet_streak``: frames in a row with no complete hand since the hand
last recorded from the camera, kept once it reaches the stable-frame count. A camera
records a hand read otherwise than the last one only after such a gap (the revealed hand
was put away), so a re-reading of the same tiles is not a second hand
(``tilecam.tables.stability``). Existing rows start at 0.

Revision ID: 0003_camera_quiet_streak
Revises: 0002_append_only_history
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003_camera_quiet_streak"
down_revision = "0002_append_only_history"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("camera_states") as batch:
        batch.add_column(sa.Column("quiet_streak", sa.Integer(), nullable=False,
                                   server_default="0"))


def downgrade() -> None:
    with op.batch_alter_table("camera_states") as batch:
        batch.drop_column("quiet_streak")
