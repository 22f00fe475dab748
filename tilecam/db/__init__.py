"""Storage of events, tables, hands and score sheets (SQLAlchemy 2 + Alembic).

SQLite in ``settings.data_dir`` by default (WAL journal), PostgreSQL when
``TILECAM_DATABASE_URL`` names one. The schema is created and upgraded by the
Alembic migrations in :mod:`tilecam.db.migrations` (:func:`upgrade`), never by
``create_all``, so a deployed database always follows the migration history.
"""

from __future__ import annotations

from tilecam.db.engine import get_engine, make_engine, session_factory
from tilecam.db.migrate import upgrade
from tilecam.db.models import (
    Base,
    CameraState,
    Event,
    GameTable,
    Hand,
    HandRevision,
    Penalty,
    Player,
    Round,
)

__all__ = [
    "Base",
    "CameraState",
    "Event",
    "GameTable",
    "Hand",
    "HandRevision",
    "Penalty",
    "Player",
    "Round",
    "get_engine",
    "make_engine",
    "session_factory",
    "upgrade",
]
