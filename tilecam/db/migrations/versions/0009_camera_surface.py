"""A table camera remembers the surface it saw around the tiles.

``camera_states.surface``: the table's surface as the camera learned it from frames
where it read tiles — a colour histogram (chromaticity, unchanged by the light's
brightness), a texture level and where the tiles lie in the frame, as JSON
(``tilecam.tables.surface.SurfaceModel``). A frame with no tiles counts as the table
seen empty (a new deal may begin) only when it shows that surface, not a wall or the
floor the camera was turned onto. Existing rows keep null: their cameras learn the
surface from their next frames with tiles, and until then count a lit frame with no
tiles as the table seen empty, as before.

Revision ID: 0009_camera_surface
Revises: 0008_penalty_request_id
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009_camera_surface"
down_revision = "0008_penalty_request_id"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("camera_states") as batch:
        batch.add_column(sa.Column("surface", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("camera_states") as batch:
        batch.drop_column("surface")
