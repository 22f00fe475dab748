"""Initial schema: events, tables, players, rounds, hands with revisions, penalties, cameras.

Revision ID: 0001_initial
Revises:
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001_initial"
down_revision = None
branch_labels = None
depends_on = None


def _ts(name: str, nullable: bool = False) -> sa.Column[object]:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def upgrade() -> None:
    op.create_table(
        "events",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("rules", sa.String(32), nullable=False),
        sa.Column("version", sa.String(32), nullable=True),
        _ts("created_at"),
        sa.PrimaryKeyConstraint("id", name="pk_events"),
    )
    op.create_table(
        "event_tables",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("event_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("rules", sa.String(32), nullable=False),
        sa.Column("version", sa.String(32), nullable=True),
        sa.Column("rule_settings", sa.JSON(), nullable=False),
        sa.Column("key_hash", sa.String(64), nullable=False),
        _ts("created_at"),
        sa.ForeignKeyConstraint(
            ["event_id"], ["events.id"], name="fk_event_tables_event_id_events", ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name="pk_event_tables"),
        sa.UniqueConstraint("event_id", "name", name="uq_event_tables_event_name"),
        sa.UniqueConstraint("key_hash", name="uq_event_tables_key_hash"),
    )
    op.create_index("ix_event_tables_event_id", "event_tables", ["event_id"])
    op.create_table(
        "players",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("table_id", sa.Integer(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.CheckConstraint(
            "position >= 0 AND position <= 3", name="ck_players_position_range"
        ),
        sa.ForeignKeyConstraint(
            ["table_id"],
            ["event_tables.id"],
            name="fk_players_table_id_event_tables",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name="pk_players"),
        sa.UniqueConstraint("table_id", "position", name="uq_players_table_position"),
    )
    op.create_index("ix_players_table_id", "players", ["table_id"])
    op.create_table(
        "rounds",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("table_id", sa.Integer(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("prevalent_wind", sa.String(1), nullable=False),
        sa.Column("seating", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(
            ["table_id"],
            ["event_tables.id"],
            name="fk_rounds_table_id_event_tables",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name="pk_rounds"),
        sa.UniqueConstraint("table_id", "number", name="uq_rounds_table_number"),
    )
    op.create_index("ix_rounds_table_id", "rounds", ["table_id"])
    op.create_table(
        "hands",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("table_id", sa.Integer(), nullable=False),
        sa.Column("round_id", sa.Integer(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("hand_in_round", sa.Integer(), nullable=False),
        sa.Column("dealer", sa.Integer(), nullable=False),
        sa.Column("source", sa.String(16), nullable=False),
        _ts("created_at"),
        sa.ForeignKeyConstraint(
            ["table_id"],
            ["event_tables.id"],
            name="fk_hands_table_id_event_tables",
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(["round_id"], ["rounds.id"], name="fk_hands_round_id_rounds"),
        sa.PrimaryKeyConstraint("id", name="pk_hands"),
        sa.UniqueConstraint("table_id", "number", name="uq_hands_table_number"),
    )
    op.create_index("ix_hands_table_id", "hands", ["table_id"])
    op.create_index("ix_hands_round_id", "hands", ["round_id"])
    op.create_table(
        "hand_revisions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("hand_id", sa.Integer(), nullable=False),
        sa.Column("revision", sa.Integer(), nullable=False),
        sa.Column("action", sa.String(16), nullable=False),
        sa.Column("outcome", sa.String(16), nullable=False),
        sa.Column("hand_text", sa.Text(), nullable=True),
        sa.Column("recognized", sa.JSON(), nullable=True),
        sa.Column("image_ref", sa.String(500), nullable=True),
        sa.Column("context", sa.JSON(), nullable=False),
        sa.Column("winner", sa.String(1), nullable=True),
        sa.Column("discarder", sa.String(1), nullable=True),
        sa.Column("rules", sa.String(32), nullable=False),
        sa.Column("version", sa.String(32), nullable=True),
        sa.Column("total", sa.Integer(), nullable=True),
        sa.Column("legal", sa.Boolean(), nullable=True),
        sa.Column("score", sa.JSON(), nullable=True),
        sa.Column("settlement", sa.JSON(), nullable=False),
        sa.Column("note", sa.Text(), nullable=True),
        sa.Column("author", sa.String(64), nullable=False),
        _ts("created_at"),
        sa.ForeignKeyConstraint(
            ["hand_id"], ["hands.id"], name="fk_hand_revisions_hand_id_hands", ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name="pk_hand_revisions"),
        sa.UniqueConstraint("hand_id", "revision", name="uq_hand_revisions_hand_revision"),
    )
    op.create_index("ix_hand_revisions_hand_id", "hand_revisions", ["hand_id"])
    op.create_table(
        "penalties",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("table_id", sa.Integer(), nullable=False),
        sa.Column("player", sa.Integer(), nullable=False),
        sa.Column("hand_number", sa.Integer(), nullable=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("points", sa.Integer(), nullable=False),
        sa.Column("deltas", sa.JSON(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=True),
        sa.Column("author", sa.String(64), nullable=False),
        _ts("created_at"),
        _ts("voided_at", nullable=True),
        sa.Column("void_reason", sa.Text(), nullable=True),
        sa.ForeignKeyConstraint(
            ["table_id"],
            ["event_tables.id"],
            name="fk_penalties_table_id_event_tables",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name="pk_penalties"),
    )
    op.create_index("ix_penalties_table_id", "penalties", ["table_id"])
    op.create_table(
        "camera_states",
        sa.Column("table_id", sa.Integer(), nullable=False),
        sa.Column("signature", sa.Text(), nullable=True),
        sa.Column("streak", sa.Integer(), nullable=False),
        sa.Column("empty_streak", sa.Integer(), nullable=False),
        sa.Column("recorded_signature", sa.Text(), nullable=True),
        sa.Column("frames_seen", sa.Integer(), nullable=False),
        _ts("updated_at"),
        sa.ForeignKeyConstraint(
            ["table_id"],
            ["event_tables.id"],
            name="fk_camera_states_table_id_event_tables",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("table_id", name="pk_camera_states"),
    )


def downgrade() -> None:
    for name in (
        "camera_states",
        "penalties",
        "hand_revisions",
        "hands",
        "rounds",
        "players",
        "event_tables",
        "events",
    ):
        op.drop_table(name)
