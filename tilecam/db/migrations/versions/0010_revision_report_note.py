"""Each hand revision keeps the note its report came with, apart from the sheet's words.

``hand_revisions.report_note``: the ``note`` the table, the camera's client or the
referee sent with the hand's content (a table's remark such as "table 4: wall ran out"),
as sent; null when none was. The revision's ``note`` stays what the sheet shows: the
scorer's words (a Zhenjiang drawn hand's 打首搭 transfer, why a win is held pending), then
this note, then why the revision exists (a referee's reason, "hand 1 changed who deals
after it … scored again"). A hand scored again where an earlier hand's change moved it
(``reseat``), or corrected with its note left out, keeps the report's note from here
(before, the reseat's or the correction's words replaced it, and the table's remark and
the 打首搭 explanation were left only in the history). Existing rows keep null: their
report's note is not told apart from the sheet's words, and a change scores them with
none.

Added with ``ALTER TABLE … ADD COLUMN`` (no table rebuild), so the append-only triggers
of migration 0002 stay in place.

Revision ID: 0010_revision_report_note
Revises: 0009_camera_surface
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010_revision_report_note"
down_revision = "0009_camera_surface"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("hand_revisions", sa.Column("report_note", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("hand_revisions") as batch:
        batch.drop_column("report_note")
