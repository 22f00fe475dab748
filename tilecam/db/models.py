"""The database schema: events, tables, players, rounds (圈), hands (盘) and their history.

History is append-only. A recorded hand (:class:`Hand`, one row per place in the
score sheet, unique per ``(table_id, number)``) never changes; what was recorded,
and every referee correction or void after it, is a :class:`HandRevision`
(``revision`` 1, 2, …). The latest revision is the hand's current state.
Penalties are rows of their own; voiding one stamps ``voided_at`` and keeps it.

Seats: a table's four players are numbered by ``position`` 0-3, the seat they
take for the first round (0 = East, 1 = South, 2 = West, 3 = North). Points in
settlements and standings are lists of four integers in that order.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    CheckConstraint,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Text,
    UniqueConstraint,
    false,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

#: Constraint names, so that migrations and both databases agree on them.
NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


def utcnow() -> datetime:
    """The current time, timezone-aware UTC."""
    return datetime.now(UTC)


class Base(DeclarativeBase):
    """Declarative base with the project's constraint naming convention."""

    metadata = MetaData(naming_convention=NAMING)


class Event(Base):
    """A competition: a set of tables playing under one rule set."""

    __tablename__ = "events"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    rules: Mapped[str] = mapped_column(String(32), default="mcr")
    version: Mapped[str | None] = mapped_column(String(32), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

    tables: Mapped[list[GameTable]] = relationship(
        back_populates="event", order_by="GameTable.id"
    )


class GameTable(Base):
    """One table of an event, with its API key (stored only as a SHA-256 hash)."""

    __tablename__ = "event_tables"
    __table_args__ = (UniqueConstraint("event_id", "name", name="uq_event_tables_event_name"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    event_id: Mapped[int] = mapped_column(ForeignKey("events.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(200))
    rules: Mapped[str] = mapped_column(String(32))
    version: Mapped[str | None] = mapped_column(String(32), nullable=True)
    #: Rule-set settings for this table (name → value), passed to scoring.
    rule_settings: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    #: Hex SHA-256 of the table's API key; the key itself is never stored.
    key_hash: Mapped[str] = mapped_column(String(64), unique=True)
    #: Hex SHA-256 of the table's viewing key (reads the sheet only; migration 0006); None
    #: until one is minted.
    view_key_hash: Mapped[str | None] = mapped_column(String(64), nullable=True, index=True,
                                                      unique=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    #: When the referee closed the sheet (time called; migration 0011): no hand is
    #: recorded after it. None while the table is open.
    closed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    #: Why it was closed (the referee's words, with who closed it), and once it has been
    #: reopened the record of its closings and reopenings, a line each (the whole of it
    #: while the table is open again; :mod:`tilecam.tables.closings`).
    close_reason: Mapped[str | None] = mapped_column(Text, nullable=True)
    #: Left out of the event's standings (a table opened by mistake; migration 0011),
    #: its history kept.
    withdrawn: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())

    event: Mapped[Event] = relationship(back_populates="tables")
    players: Mapped[list[Player]] = relationship(
        back_populates="table", order_by="Player.position"
    )
    #: The table's penalties in the order booked; the sheet reads its 停和 rulings
    #: (``kind`` ``bar``) from them to know who may not win a hand.
    penalties: Mapped[list[Penalty]] = relationship(
        back_populates="table", order_by="Penalty.id"
    )


class Player(Base):
    """A player of a table; ``position`` is the seat taken for round 1 (0 = East … 3 = North)."""

    __tablename__ = "players"
    __table_args__ = (
        UniqueConstraint("table_id", "position", name="uq_players_table_position"),
        CheckConstraint("position >= 0 AND position <= 3", name="position_range"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[int] = mapped_column(
        ForeignKey("event_tables.id", ondelete="CASCADE"), index=True
    )
    position: Mapped[int] = mapped_column(Integer)
    name: Mapped[str] = mapped_column(String(200))

    table: Mapped[GameTable] = relationship(back_populates="players")


class Round(Base):
    """A round (圈) of a table: its prevalent wind and who sat where.

    ``seating`` maps each seat of the round (``"E"``, ``"S"``, ``"W"``, ``"N"``,
    the seat that deals the round's first hand being ``"E"``) to a player position.
    """

    __tablename__ = "rounds"
    __table_args__ = (UniqueConstraint("table_id", "number", name="uq_rounds_table_number"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[int] = mapped_column(
        ForeignKey("event_tables.id", ondelete="CASCADE"), index=True
    )
    number: Mapped[int] = mapped_column(Integer)
    prevalent_wind: Mapped[str] = mapped_column(String(1))
    seating: Mapped[dict[str, int]] = mapped_column(JSON)


class Hand(Base):
    """A hand (盘): one place in a table's score sheet. Unique per ``(table_id, number)``.

    The row is written once; its content lives in :class:`HandRevision` rows.
    """

    __tablename__ = "hands"
    __table_args__ = (UniqueConstraint("table_id", "number", name="uq_hands_table_number"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[int] = mapped_column(
        ForeignKey("event_tables.id", ondelete="CASCADE"), index=True
    )
    round_id: Mapped[int] = mapped_column(ForeignKey("rounds.id"), index=True)
    #: 1-based place in the sheet (MCR: 1-16; a rule set whose deal can stay with a
    #: dealer plays more, up to ``flow.MOST_HANDS``).
    number: Mapped[int] = mapped_column(Integer)
    #: 1-based hand within its round.
    hand_in_round: Mapped[int] = mapped_column(Integer)
    #: Player position of this hand's dealer (庄家, seat wind East) when it was recorded;
    #: where the deal can stay with a dealer, a later correction of an earlier hand may
    #: move it (the sheet reads places from the deal, ``places.places_of``).
    dealer: Mapped[int] = mapped_column(Integer)
    #: Who reported it: ``camera``, ``table`` (automatic table) or ``referee``.
    source: Mapped[str] = mapped_column(String(16))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

    round: Mapped[Round] = relationship()
    revisions: Mapped[list[HandRevision]] = relationship(
        back_populates="hand", order_by="HandRevision.revision"
    )


class HandRevision(Base):
    """One version of a hand's content; never updated, only appended.

    ``action`` is ``record`` (the first), ``correct``, ``void`` or ``false_claim``
    (referee), or ``reseat`` (scored again where an earlier hand's change moved it).
    ``outcome`` is ``win``, ``draw`` (荒庄), ``pending`` (recorded but not
    settled: the winner is unknown or the win is not legal; a referee decides),
    ``void`` or ``false_claim`` (a declared win ruled 错和/诈和 where the hand is played
    on: ``settlement`` holds the claimant's penalty and the record takes no place of
    the deal). ``winner``/``discarder`` are seat winds of this hand
    (``"E"`` = the dealer). ``settlement`` is four integers by player position.
    """

    __tablename__ = "hand_revisions"
    __table_args__ = (
        UniqueConstraint("hand_id", "revision", name="uq_hand_revisions_hand_revision"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    hand_id: Mapped[int] = mapped_column(ForeignKey("hands.id", ondelete="CASCADE"), index=True)
    revision: Mapped[int] = mapped_column(Integer)
    action: Mapped[str] = mapped_column(String(16))
    outcome: Mapped[str] = mapped_column(String(16))
    #: The hand in notation (RULES.md), as recorded or corrected.
    hand_text: Mapped[str | None] = mapped_column(Text, nullable=True)
    #: What the camera recognized (the recognizer's tiles/hand/corrections), if any.
    recognized: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    #: Relative path (under the data dir) of the frame the hand was read from.
    image_ref: Mapped[str | None] = mapped_column(String(500), nullable=True)
    #: Win context passed to scoring (self_drawn, last_of_kind, kong, …).
    context: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    winner: Mapped[str | None] = mapped_column(String(1), nullable=True)
    discarder: Mapped[str | None] = mapped_column(String(1), nullable=True)
    rules: Mapped[str] = mapped_column(String(32))
    version: Mapped[str | None] = mapped_column(String(32), nullable=True)
    total: Mapped[int | None] = mapped_column(Integer, nullable=True)
    legal: Mapped[bool | None] = mapped_column(Boolean, nullable=True)
    #: The scorer's full answer (``Score.to_dict()``).
    score: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    settlement: Mapped[list[int]] = mapped_column(JSON)
    #: Seat wind → player position the revision was scored with (migration 0005); null
    #: in older rows, which were scored with the MCR schedule (``flow.place``).
    seats: Mapped[dict[str, int] | None] = mapped_column(JSON, nullable=True)
    #: What the sheet says of this revision (free text): the scorer's words (a drawn
    #: hand's transfers, why it is pending), the report's note, why the revision exists.
    note: Mapped[str | None] = mapped_column(Text, nullable=True)
    #: The note the report came with (a table's remark), as sent; kept by a revision
    #: scored again or corrected without one (migration 0010). None: none sent, or a
    #: revision stored before 0010.
    report_note: Mapped[str | None] = mapped_column(Text, nullable=True)
    author: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

    hand: Mapped[Hand] = relationship(back_populates="revisions")


class Penalty(Base):
    """A referee's ruling on a player: a penalty (错和, 诈和, a points deduction, a payment,
    a repeat offence at its step), a 停和 (``bar``: may not win the hand), a warning (警告)
    or a disqualification (停赛); ``deltas`` by position."""

    __tablename__ = "penalties"
    __table_args__ = (Index("ix_penalties_table_request", "table_id", "request_id",
                            unique=True),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[int] = mapped_column(
        ForeignKey("event_tables.id", ondelete="CASCADE"), index=True
    )
    #: Player position of the offender.
    player: Mapped[int] = mapped_column(Integer)
    #: The sheet place it happened in, if given.
    hand_number: Mapped[int | None] = mapped_column(Integer, nullable=True)
    #: ``wrong_win`` (错和), ``false_win`` (诈和), ``deduction``, ``payment`` (包赔: the
    #: offender pays one other player, the one ``deltas`` pays), ``bar`` (停和: the player
    #: may not win hand ``hand_number``; no points), ``warning`` (警告; no points),
    #: ``disqualification`` (停赛; no points) or a repeat offence (``empty_claim``,
    #: ``early_draw``, ``slow_pung``: the step of its repeat in the hand, 0 at the first).
    kind: Mapped[str] = mapped_column(String(16))
    points: Mapped[int] = mapped_column(Integer)
    deltas: Mapped[list[int]] = mapped_column(JSON)
    #: ``deltas`` are money paid apart from the points (Xiamen 诈胡, 课外: migration 0004)
    money: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    reason: Mapped[str | None] = mapped_column(Text, nullable=True)
    author: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    voided_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    void_reason: Mapped[str | None] = mapped_column(Text, nullable=True)
    #: A repeat offence booked again at another step (an earlier one made void, a false
    #: claim ruled or undone): a line per change, points from and to and why
    #: (migration 0007); None while it keeps the step it was booked at.
    rebooked: Mapped[str | None] = mapped_column(Text, nullable=True)
    #: The client's name for the request that booked it (migration 0008): sent again, it
    #: finds this penalty instead of booking another. Unique per table; None: not given.
    request_id: Mapped[str | None] = mapped_column(String(100), nullable=True)

    table: Mapped[GameTable] = relationship(back_populates="penalties")


class CameraState(Base):
    """What a table's camera has been showing: the stability streak of its frames.

    ``signature`` is the key of the latest complete reading — the hand as far as the
    table's rules score it (``tilecam.tables.scoring_bridge.score_key``: normalized
    notation, bonus tiles the rules score alike named alike) — and ``streak`` how many
    frames in a row showed it; ``recorded_signature`` holds the camera's memory as JSON
    (``tilecam.tables.camera.Memory``: every hand recorded since the table was last seen
    cleared, with its sheet number, so that a camera that keeps sending a revealed hand
    records it once; an older version's plain signature still reads); ``empty_streak``
    counts frames in a row with no tiles (a cleared table allows the same hand to be
    recorded again);
    ``quiet_streak`` frames in a row with no complete hand since the last record, kept
    once it reaches the stable count (only after such a gap is a hand read otherwise
    recorded: migration 0003); ``surface`` the table's surface as the camera learned it
    around the tiles it read (JSON, ``tilecam.tables.surface.SurfaceModel``; null until
    it has: migration 0009), which a frame with no tiles must show to count as the table
    seen empty.
    """

    __tablename__ = "camera_states"

    table_id: Mapped[int] = mapped_column(
        ForeignKey("event_tables.id", ondelete="CASCADE"), primary_key=True
    )
    signature: Mapped[str | None] = mapped_column(Text, nullable=True)
    streak: Mapped[int] = mapped_column(Integer, default=0)
    empty_streak: Mapped[int] = mapped_column(Integer, default=0)
    quiet_streak: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    recorded_signature: Mapped[str | None] = mapped_column(Text, nullable=True)
    frames_seen: Mapped[int] = mapped_column(Integer, default=0)
    surface: Mapped[str | None] = mapped_column(Text, nullable=True)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
