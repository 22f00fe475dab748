"""Upgrading a database an older tilecam wrote (the seventy-eighth session's review of the
migrations): a score sheet of revision 0002 — as tilecam of commit 7f19df0 wrote it
through its own API — opens in this tilecam, every row kept and read as the old tilecam
read it; the upgrade first writes a copy of a SQLite file beside it (once, by the one
process that upgrades); an upgrade that fails or is killed half-way changes nothing and
a second run completes it; a copy that cannot be written stops the upgrade."""

# ruff: noqa: E501 (OLD_0002 holds the SQL lines as dumped: their strings cannot be wrapped)

from __future__ import annotations

import logging
import os
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import inspect, text
from test_tables_helpers import admin, bearer, client_for, database_url, make_app

from tilecam.cli import main
from tilecam.db import Base, make_engine, upgrade
from tilecam.db.backup import BackupFailed
from tilecam.db.migrate import current_revision, head_revision

#: Revision 0002's schema and one event's data (table T1: a camera win, a table win a
#: referee corrected, a void hand, a referee's draw; table T2: a pending camera hand, a
#: wrong-win penalty and a voided false-win one), dumped from the SQLite file that tilecam
#: 7f19df0 (the commit before migration 0003) wrote through POST /v1/events, /tables,
#: /frames, /hands, /corrections, /void and /penalties.
OLD_0002 = """
CREATE TABLE alembic_version ( version_num VARCHAR(32) NOT NULL, CONSTRAINT alembic_version_pkc PRIMARY KEY (version_num) );
CREATE TABLE events ( id INTEGER NOT NULL, name VARCHAR(200) NOT NULL, rules VARCHAR(32) NOT NULL, version VARCHAR(32), created_at DATETIME NOT NULL, CONSTRAINT pk_events PRIMARY KEY (id) );
CREATE TABLE event_tables ( id INTEGER NOT NULL, event_id INTEGER NOT NULL, name VARCHAR(200) NOT NULL, rules VARCHAR(32) NOT NULL, version VARCHAR(32), rule_settings JSON NOT NULL, key_hash VARCHAR(64) NOT NULL, created_at DATETIME NOT NULL, CONSTRAINT pk_event_tables PRIMARY KEY (id), CONSTRAINT fk_event_tables_event_id_events FOREIGN KEY(event_id) REFERENCES events (id) ON DELETE CASCADE, CONSTRAINT uq_event_tables_event_name UNIQUE (event_id, name), CONSTRAINT uq_event_tables_key_hash UNIQUE (key_hash) );
CREATE TABLE players ( id INTEGER NOT NULL, table_id INTEGER NOT NULL, position INTEGER NOT NULL, name VARCHAR(200) NOT NULL, CONSTRAINT pk_players PRIMARY KEY (id), CONSTRAINT ck_players_ck_players_position_range CHECK (position >= 0 AND position <= 3), CONSTRAINT fk_players_table_id_event_tables FOREIGN KEY(table_id) REFERENCES event_tables (id) ON DELETE CASCADE, CONSTRAINT uq_players_table_position UNIQUE (table_id, position) );
CREATE TABLE rounds ( id INTEGER NOT NULL, table_id INTEGER NOT NULL, number INTEGER NOT NULL, prevalent_wind VARCHAR(1) NOT NULL, seating JSON NOT NULL, CONSTRAINT pk_rounds PRIMARY KEY (id), CONSTRAINT fk_rounds_table_id_event_tables FOREIGN KEY(table_id) REFERENCES event_tables (id) ON DELETE CASCADE, CONSTRAINT uq_rounds_table_number UNIQUE (table_id, number) );
CREATE TABLE hands ( id INTEGER NOT NULL, table_id INTEGER NOT NULL, round_id INTEGER NOT NULL, number INTEGER NOT NULL, hand_in_round INTEGER NOT NULL, dealer INTEGER NOT NULL, source VARCHAR(16) NOT NULL, created_at DATETIME NOT NULL, CONSTRAINT pk_hands PRIMARY KEY (id), CONSTRAINT fk_hands_table_id_event_tables FOREIGN KEY(table_id) REFERENCES event_tables (id) ON DELETE CASCADE, CONSTRAINT fk_hands_round_id_rounds FOREIGN KEY(round_id) REFERENCES rounds (id), CONSTRAINT uq_hands_table_number UNIQUE (table_id, number) );
CREATE TABLE hand_revisions ( id INTEGER NOT NULL, hand_id INTEGER NOT NULL, revision INTEGER NOT NULL, action VARCHAR(16) NOT NULL, outcome VARCHAR(16) NOT NULL, hand_text TEXT, recognized JSON, image_ref VARCHAR(500), context JSON NOT NULL, winner VARCHAR(1), discarder VARCHAR(1), rules VARCHAR(32) NOT NULL, version VARCHAR(32), total INTEGER, legal BOOLEAN, score JSON, settlement JSON NOT NULL, note TEXT, author VARCHAR(64) NOT NULL, created_at DATETIME NOT NULL, CONSTRAINT pk_hand_revisions PRIMARY KEY (id), CONSTRAINT fk_hand_revisions_hand_id_hands FOREIGN KEY(hand_id) REFERENCES hands (id) ON DELETE CASCADE, CONSTRAINT uq_hand_revisions_hand_revision UNIQUE (hand_id, revision) );
CREATE TABLE penalties ( id INTEGER NOT NULL, table_id INTEGER NOT NULL, player INTEGER NOT NULL, hand_number INTEGER, kind VARCHAR(16) NOT NULL, points INTEGER NOT NULL, deltas JSON NOT NULL, reason TEXT, author VARCHAR(64) NOT NULL, created_at DATETIME NOT NULL, voided_at DATETIME, void_reason TEXT, CONSTRAINT pk_penalties PRIMARY KEY (id), CONSTRAINT fk_penalties_table_id_event_tables FOREIGN KEY(table_id) REFERENCES event_tables (id) ON DELETE CASCADE );
CREATE TABLE camera_states ( table_id INTEGER NOT NULL, signature TEXT, streak INTEGER NOT NULL, empty_streak INTEGER NOT NULL, recorded_signature TEXT, frames_seen INTEGER NOT NULL, updated_at DATETIME NOT NULL, CONSTRAINT pk_camera_states PRIMARY KEY (table_id), CONSTRAINT fk_camera_states_table_id_event_tables FOREIGN KEY(table_id) REFERENCES event_tables (id) ON DELETE CASCADE );
CREATE INDEX ix_event_tables_event_id ON event_tables (event_id);
CREATE INDEX ix_players_table_id ON players (table_id);
CREATE INDEX ix_rounds_table_id ON rounds (table_id);
CREATE INDEX ix_hands_table_id ON hands (table_id);
CREATE INDEX ix_hands_round_id ON hands (round_id);
CREATE INDEX ix_hand_revisions_hand_id ON hand_revisions (hand_id);
CREATE INDEX ix_penalties_table_id ON penalties (table_id);
CREATE TRIGGER hands_no_update BEFORE UPDATE ON hands BEGIN SELECT RAISE(ABORT, 'the score sheet is append-only: add a revision instead (hands)'); END;
CREATE TRIGGER hands_no_delete BEFORE DELETE ON hands BEGIN SELECT RAISE(ABORT, 'the score sheet is append-only: add a revision instead (hands)'); END;
CREATE TRIGGER hand_revisions_no_update BEFORE UPDATE ON hand_revisions BEGIN SELECT RAISE(ABORT, 'the score sheet is append-only: add a revision instead (hand_revisions)'); END;
CREATE TRIGGER hand_revisions_no_delete BEFORE DELETE ON hand_revisions BEGIN SELECT RAISE(ABORT, 'the score sheet is append-only: add a revision instead (hand_revisions)'); END;
INSERT INTO events VALUES (1, 'Spring open', 'mcr', NULL, '2026-12-07 20:59:14.661992');
INSERT INTO event_tables VALUES (1, 1, 'T1', 'mcr', NULL, '{}', '32273a5c7dcc9660c64b63f0c84c6e565e53ae0477eaff74e27abee542a07b50', '2026-12-07 20:59:14.702991');
INSERT INTO event_tables VALUES (2, 1, 'T2', 'mcr', NULL, '{}', '2d47c54f77a86afd454d33810cc92dfdd887d09584936131a3216c6ae1b41048', '2026-12-07 20:59:14.763705');
INSERT INTO players VALUES (1, 1, 0, 'Ann0');
INSERT INTO players VALUES (2, 1, 1, 'Bo0');
INSERT INTO players VALUES (3, 1, 2, 'Cai0');
INSERT INTO players VALUES (4, 1, 3, 'Dan0');
INSERT INTO players VALUES (5, 2, 0, 'Ann1');
INSERT INTO players VALUES (6, 2, 1, 'Bo1');
INSERT INTO players VALUES (7, 2, 2, 'Cai1');
INSERT INTO players VALUES (8, 2, 3, 'Dan1');
INSERT INTO rounds VALUES (1, 1, 1, 'E', '{"E": 0, "S": 1, "W": 2, "N": 3}');
INSERT INTO rounds VALUES (2, 2, 1, 'E', '{"E": 0, "S": 1, "W": 2, "N": 3}');
INSERT INTO hands VALUES (1, 1, 1, 1, 1, 0, 'camera', '2026-12-07 20:59:15.008881');
INSERT INTO hands VALUES (2, 1, 1, 2, 2, 1, 'table', '2026-12-07 20:59:15.118350');
INSERT INTO hands VALUES (3, 1, 1, 3, 3, 2, 'table', '2026-12-07 20:59:15.141912');
INSERT INTO hands VALUES (4, 1, 1, 4, 4, 3, 'referee', '2026-12-07 20:59:15.231336');
INSERT INTO hands VALUES (5, 2, 2, 1, 1, 0, 'camera', '2026-12-07 20:59:15.371877');
INSERT INTO hand_revisions VALUES (1, 1, 1, 'record', 'win', '123456789m1235p5p', '{"hand": "123m456m789m123p55p", "tiles": [{}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}]}', 'frames/table-1/66c16e54d62f4732a063acfc4bcd480c.jpg', '{"self_drawn": true, "last_of_kind": false, "kong": false, "last_wall_tile": false, "flowers": 0}', 'S', NULL, 'mcr', 'mil-2015', 25, 1, '{"total": 25, "legal": true, "rules": "mcr", "version": "mil-2015", "fans": [{"zh": "\\u6e05\\u9f99", "en": "Pure Straight", "value": 16, "count": 1, "sets": [["123m", "456m", "789m"]]}, {"zh": "\\u4e0d\\u6c42\\u4eba", "en": "Fully Concealed Hand", "value": 4, "count": 1, "sets": [["123m", "456m", "789m", "123p", "55p"]]}, {"zh": "\\u5e73\\u548c", "en": "All Chows", "value": 2, "count": 1, "sets": [["123m", "456m", "789m", "123p", "55p"]]}, {"zh": "\\u559c\\u76f8\\u9022", "en": "Mixed Double Chow", "value": 1, "count": 1, "sets": [["123m", "123p"]]}, {"zh": "\\u7f3a\\u4e00\\u95e8", "en": "One Voided Suit", "value": 1, "count": 1, "sets": [["123m", "456m", "789m", "123p", "55p"]]}, {"zh": "\\u5355\\u9493\\u5c06", "en": "Single Wait", "value": 1, "count": 1, "sets": [["55p"]]}], "settlement": {"unit": "points", "winner": 99, "payments": [{"payer": "left", "amount": 33}, {"payer": "opposite", "amount": 33}, {"payer": "right", "amount": 33}], "note": "self-drawn: each other player pays 8 + total"}}', '[-33, 99, -33, -33]', NULL, 'camera', '2026-12-07 20:59:15.015906');
INSERT INTO hand_revisions VALUES (2, 2, 1, 'record', 'win', '123456789m1235p5p', 'null', NULL, '{"self_drawn": false, "last_of_kind": false, "kong": false, "last_wall_tile": false, "flowers": 0}', 'W', 'E', 'mcr', 'mil-2015', 23, 1, '{"total": 23, "legal": true, "rules": "mcr", "version": "mil-2015", "fans": [{"zh": "\\u6e05\\u9f99", "en": "Pure Straight", "value": 16, "count": 1, "sets": [["123m", "456m", "789m"]]}, {"zh": "\\u95e8\\u524d\\u6e05", "en": "Concealed Hand", "value": 2, "count": 1, "sets": [["123m", "456m", "789m", "123p", "55p"]]}, {"zh": "\\u5e73\\u548c", "en": "All Chows", "value": 2, "count": 1, "sets": [["123m", "456m", "789m", "123p", "55p"]]}, {"zh": "\\u559c\\u76f8\\u9022", "en": "Mixed Double Chow", "value": 1, "count": 1, "sets": [["123m", "123p"]]}, {"zh": "\\u7f3a\\u4e00\\u95e8", "en": "One Voided Suit", "value": 1, "count": 1, "sets": [["123m", "456m", "789m", "123p", "55p"]]}, {"zh": "\\u5355\\u9493\\u5c06", "en": "Single Wait", "value": 1, "count": 1, "sets": [["55p"]]}], "settlement": {"unit": "points", "winner": 47, "payments": [{"payer": "left", "amount": 8}, {"payer": "opposite", "amount": 31}, {"payer": "right", "amount": 8}], "note": "discard: the discarder pays 8 + total, the other two pay 8"}}', '[-8, -31, -8, 47]', 'table 1: wall ran out', 'table:1', '2026-12-07 20:59:15.118916');
INSERT INTO hand_revisions VALUES (3, 3, 1, 'record', 'draw', NULL, 'null', NULL, '{"self_drawn": false, "last_of_kind": false, "kong": false, "last_wall_tile": false, "flowers": 0}', NULL, NULL, 'mcr', NULL, NULL, NULL, 'null', '[0, 0, 0, 0]', NULL, 'table:1', '2026-12-07 20:59:15.142380');
INSERT INTO hand_revisions VALUES (4, 2, 2, 'correct', 'win', '123456789m1235p5p', 'null', NULL, '{"self_drawn": false, "last_of_kind": false, "kong": false, "last_wall_tile": false, "flowers": 0}', 'N', 'W', 'mcr', 'mil-2015', 23, 1, '{"total": 23, "legal": true, "rules": "mcr", "version": "mil-2015", "fans": [{"zh": "\\u6e05\\u9f99", "en": "Pure Straight", "value": 16, "count": 1, "sets": [["123m", "456m", "789m"]]}, {"zh": "\\u95e8\\u524d\\u6e05", "en": "Concealed Hand", "value": 2, "count": 1, "sets": [["123m", "456m", "789m", "123p", "55p"]]}, {"zh": "\\u5e73\\u548c", "en": "All Chows", "value": 2, "count": 1, "sets": [["123m", "456m", "789m", "123p", "55p"]]}, {"zh": "\\u559c\\u76f8\\u9022", "en": "Mixed Double Chow", "value": 1, "count": 1, "sets": [["123m", "123p"]]}, {"zh": "\\u7f3a\\u4e00\\u95e8", "en": "One Voided Suit", "value": 1, "count": 1, "sets": [["123m", "456m", "789m", "123p", "55p"]]}, {"zh": "\\u5355\\u9493\\u5c06", "en": "Single Wait", "value": 1, "count": 1, "sets": [["55p"]]}], "settlement": {"unit": "points", "winner": 47, "payments": [{"payer": "left", "amount": 31}, {"payer": "opposite", "amount": 8}, {"payer": "right", "amount": 8}], "note": "discard: the discarder pays 8 + total, the other two pay 8"}}', '[47, -8, -8, -31]', 'N won on W''s 5p', 'referee', '2026-12-07 20:59:15.174024');
INSERT INTO hand_revisions VALUES (5, 3, 2, 'void', 'void', NULL, 'null', NULL, '{"self_drawn": false, "last_of_kind": false, "kong": false, "last_wall_tile": false, "flowers": 0}', NULL, NULL, 'mcr', NULL, NULL, NULL, 'null', '[0, 0, 0, 0]', 'misdeal', 'referee', '2026-12-07 20:59:15.200369');
INSERT INTO hand_revisions VALUES (6, 4, 1, 'record', 'draw', NULL, 'null', NULL, '{"self_drawn": false, "last_of_kind": false, "kong": false, "last_wall_tile": false, "flowers": 0}', NULL, NULL, 'mcr', NULL, NULL, NULL, 'null', '[0, 0, 0, 0]', NULL, 'referee', '2026-12-07 20:59:15.231961');
INSERT INTO hand_revisions VALUES (7, 5, 1, 'record', 'pending', '123456789m1235p5p', '{"hand": "123m456m789m123p55p", "tiles": [{}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}]}', 'frames/table-2/2c1ca481fe204ff3adb0fd685c46ed9b.jpg', '{"self_drawn": false, "last_of_kind": false, "kong": false, "last_wall_tile": false, "flowers": 0}', NULL, NULL, 'mcr', NULL, NULL, NULL, 'null', '[0, 0, 0, 0]', 'winner seat unknown: a referee must correct this hand to settle it', 'camera', '2026-12-07 20:59:15.372815');
INSERT INTO penalties VALUES (1, 2, 2, 1, 'wrong_win', 10, '[10, 10, -30, 10]', '7 fan', 'referee', '2026-12-07 20:59:15.419969', NULL, NULL);
INSERT INTO penalties VALUES (2, 2, 3, NULL, 'false_win', 20, '[20, 20, 20, -60]', NULL, 'referee', '2026-12-07 20:59:15.456316', '2026-12-07 20:59:15.488803', 'withdrawn (by referee)');
INSERT INTO camera_states VALUES (1, NULL, 0, 4, NULL, 9, '2026-12-07 20:59:15.105985');
INSERT INTO camera_states VALUES (2, '123456789m1235p5p', 3, 0, '123456789m1235p5p', 3, '2026-12-07 20:59:15.354777');
INSERT INTO alembic_version VALUES ('0002_append_only_history');
"""
OLD_REVISION = "0002_append_only_history"
#: The table keys the old tilecam answered when it made the tables.
KEY_T1 = "tc_oNQv_6voNo7e5Pzv79qt7RZJuqvIld1gNa9BiYC3I7E"
KEY_T2 = "tc_zEc6ZSsT-9HyyZ3XDZF3CMWfjskyngi2E_WBvZCB9os"


def old_database(folder: Path) -> tuple[str, Path]:
    """A SQLite file holding :data:`OLD_0002` (as the old tilecam left it: in WAL mode);
    its URL and path."""
    file = folder / "tilecam.db"
    with sqlite3.connect(file) as conn:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.executescript(OLD_0002)
    conn.close()
    return f"sqlite:///{file}", file


def rows(file: Path) -> dict[str, list[tuple[object, ...]]]:
    """Every row of every table of the 0002 schema in ``file``, its columns of then only."""
    with sqlite3.connect(file) as conn:
        tables = [r[0] for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name != 'alembic_version'")]
        out = {}
        for table in tables:
            columns = ", ".join(f'"{c}"' for c in _columns_0002(table))
            out[table] = conn.execute(f'SELECT {columns} FROM "{table}" ORDER BY rowid').fetchall()
    conn.close()
    return out


def _columns_0002(table: str) -> list[str]:
    """The columns ``table`` had at revision 0002 (from :data:`OLD_0002`)."""
    with sqlite3.connect(":memory:") as conn:
        conn.executescript(OLD_0002.split("INSERT", 1)[0])
        return [r[1] for r in conn.execute(f'PRAGMA table_info("{table}")')]


def revision_of(file: Path) -> str:
    with sqlite3.connect(file) as conn:
        value = str(conn.execute("SELECT version_num FROM alembic_version").fetchone()[0])
    conn.close()
    return value


def copies(folder: Path) -> list[Path]:
    """The copies upgrades wrote in ``folder`` (of any database there: a SQLite file's,
    a PostgreSQL database's ``pg_dump``)."""
    return sorted([*folder.glob("*.before-upgrade-from-*.db"),
                   *folder.glob("*.before-upgrade-from-*.dump")])


@pytest.fixture(autouse=True)
def _copies_in_tmp_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A PostgreSQL database's copy goes to ``tmp_path`` (``TILECAM_BACKUP_DIR``; since
    the seventy-ninth session one is written, by default into the data folder), the
    settings read afresh."""
    from tilecam.settings import get_settings

    monkeypatch.setenv("TILECAM_BACKUP_DIR", str(tmp_path))
    monkeypatch.delenv("TILECAM_UPGRADE_BACKUP", raising=False)
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


def test_an_old_tilecams_sheet_opens_every_row_read_as_the_old_tilecam_read_it(
        tmp_path: Path) -> None:
    """The service upgrades a 0002 database on its first request; each hand, its history,
    the penalties and the standings answer the points the old tilecam answered (taken
    from its API before the upgrade), no row is lost or changed, the schema is the
    models', and the append-only triggers stay."""
    url, file = old_database(tmp_path)
    before = rows(file)
    app, _ = make_app(url, tmp_path / "data")
    for client in client_for(app):
        st = client.get("/v1/tables/1/standings", headers=bearer(KEY_T1)).json()
        assert {p["player"]: p["total"] for p in st["players"]} == {
            "Bo0": 91, "Ann0": 14, "Cai0": -41, "Dan0": -64}
        assert (st["hands_recorded"], st["hands_void"], st["next_hand"]) == (4, [3], 5)
        hands = {n: client.get(f"/v1/tables/1/hands/{n}", headers=bearer(KEY_T1)).json()
                 for n in (1, 2, 3, 4)}
        assert {n: (h["outcome"], h["source"], [r["action"] for r in h["history"]])
                for n, h in hands.items()} == {
            1: ("win", "camera", ["record"]), 2: ("win", "table", ["record", "correct"]),
            3: ("void", "table", ["record", "void"]), 4: ("draw", "referee", ["record"])}
        assert hands[2]["points"] == {"Ann0": 47, "Bo0": -8, "Cai0": -8, "Dan0": -31}
        assert hands[1]["points"] == {"Ann0": -33, "Bo0": 99, "Cai0": -33, "Dan0": -33}
        pens = client.get("/v1/tables/2/penalties", headers=bearer(KEY_T2)).json()["penalties"]
        assert [(p["kind"], p["deltas"], p["void"]) for p in pens] == [
            ("wrong_win", {"Ann1": 10, "Bo1": 10, "Cai1": -30, "Dan1": 10}, False),
            ("false_win", {"Ann1": 20, "Bo1": 20, "Cai1": 20, "Dan1": -60}, True)]
        st2 = client.get("/v1/tables/2/standings", headers=bearer(KEY_T2)).json()
        assert st2["hands_pending"] == [1]
        assert client.get("/v1/tables/1/sheet.csv", headers=bearer(KEY_T1)).status_code == 200
        ev = client.get("/v1/events/1/standings", headers=admin()).json()
        assert len(ev["players"]) == 8
    assert revision_of(file) == head_revision()
    assert rows(file) == before
    engine = make_engine(url)
    with engine.connect() as conn:
        assert compare_metadata(MigrationContext.configure(conn), Base.metadata) == []
        assert conn.execute(text("SELECT count(*) FROM sqlite_master "
                                 "WHERE type = 'trigger'")).scalar() == 4
    engine.dispose()


def test_upgrading_an_old_database_writes_a_copy_from_before_once(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Before upgrading a SQLite file at an older revision, a copy of it is written beside
    it (until the seventy-eighth session none was, and the README advised none, though
    no older tilecam opens an upgraded database): the copy is at the old revision with
    every row, the log names it, and a second upgrade (nothing to apply) writes none."""
    url, file = old_database(tmp_path)
    before = rows(file)
    engine = make_engine(url)
    with caplog.at_level(logging.WARNING, logger="tilecam.db"):
        copy = upgrade(engine)
    assert copy is not None and copies(tmp_path) == [copy]
    assert copy.name.startswith(f"tilecam.before-upgrade-from-{OLD_REVISION}-")
    assert revision_of(copy) == OLD_REVISION and rows(copy) == before
    assert str(copy) in caplog.text and OLD_REVISION in caplog.text
    assert current_revision(engine) == head_revision()
    assert upgrade(engine) is None and copies(tmp_path) == [copy]
    engine.dispose()


def test_the_service_upgrading_on_its_first_request_writes_the_copy_too(
        tmp_path: Path) -> None:
    """The upgrade most operators meet — the new tilecam's service opening the old file on
    its first request — leaves the copy as ``tilecam db upgrade`` does."""
    url, _ = old_database(tmp_path)
    app, _ = make_app(url, tmp_path / "data")
    for client in client_for(app):
        assert client.get("/v1/tables/1", headers=bearer(KEY_T1)).status_code == 200
    [copy] = copies(tmp_path)
    assert revision_of(copy) == OLD_REVISION


def test_an_empty_or_new_database_gets_no_copy(tmp_path: Path) -> None:
    """A database with no schema yet holds nothing to keep: no copy beside it."""
    engine = make_engine(f"sqlite:///{tmp_path / 'tilecam.db'}")
    assert upgrade(engine) is None
    assert upgrade(engine) is None
    engine.dispose()
    assert copies(tmp_path) == []


def test_a_copy_that_cannot_be_written_stops_the_upgrade_changing_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Where the copy cannot be written (here: the backup says the disk is full) the
    database is not upgraded: ``tilecam db upgrade`` says why on one line, exit 2, and
    the database stays at its revision with its rows."""
    import tilecam.db.backup as db_backup

    def full(_file: Path, _out: Path) -> None:
        raise ValueError("database or disk is full")

    monkeypatch.setattr(db_backup, "backup_sqlite", full)
    url, file = old_database(tmp_path)
    before = rows(file)
    engine = make_engine(url)
    with pytest.raises(BackupFailed, match="disk is full"):
        upgrade(engine)
    engine.dispose()
    assert main(["db", "upgrade", "--url", url]) == 2
    err = capsys.readouterr().err
    assert "not upgraded" in err and "nothing was changed" in err
    # the way on where the copy cannot be made (seventy-ninth session): it said to copy
    # the database yourself "then start tilecam again", which failed the same way
    assert "tilecam db upgrade --no-backup" in err and "TILECAM_UPGRADE_BACKUP=0" in err
    assert len(err.strip().splitlines()) == 1
    assert revision_of(file) == OLD_REVISION and rows(file) == before


#: Runs in a child process: upgrade argv[2], failing (``fail``) or killed (``kill``) as
#: migration 0010 adds its column, after revisions 0003 to 0009 were applied in the run.
HALF_WAY = """
import os, signal, sys
from alembic.operations import Operations
from tilecam.db import make_engine, upgrade
add_column = Operations.add_column
def dying(self, table, column, **kw):
    if column.name == "report_note":
        if sys.argv[1] == "kill":
            os.kill(os.getpid(), signal.SIGKILL)
        raise RuntimeError("a statement of migration 0010 failed")
    return add_column(self, table, column, **kw)
Operations.add_column = dying
upgrade(make_engine(sys.argv[2]))
"""


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
@pytest.mark.parametrize("how", ["fail", "kill"])
def test_an_upgrade_stopped_half_way_changes_nothing_and_a_rerun_completes(
        how: str, backend: str, tmp_path: Path) -> None:
    """The upgrade is one transaction: killed (SIGKILL) or failing in migration 0010, the
    database keeps its old revision and none of 0003-0009's columns, and a failed one
    leaves no copy of it; the next upgrade applies them all, the rows kept."""
    engine = make_engine(database_url(backend, tmp_path))
    upgrade(engine, OLD_REVISION)
    with engine.begin() as conn:
        conn.execute(text("INSERT INTO events (id, name, rules, created_at) "
                          "VALUES (1, 'Spring open', 'mcr', CURRENT_TIMESTAMP)"))
    url = engine.url.render_as_string(hide_password=False)
    done = subprocess.run([sys.executable, "-c", HALF_WAY, how, url], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == (-signal.SIGKILL if how == "kill" else 1), done.stderr
    assert current_revision(engine) == OLD_REVISION
    with engine.connect() as conn:
        columns = {c["name"] for c in inspect(conn).get_columns("camera_states")}
    assert "quiet_streak" not in columns
    # a failed upgrade removes its copy (a service trying again on each request would
    # else leave one a try); a killed one cannot (PostgreSQL's pg_dump copy too)
    assert len(copies(tmp_path)) == (1 if how == "kill" else 0)
    upgrade(engine)
    assert current_revision(engine) == head_revision()
    with engine.connect() as conn:
        assert conn.execute(text("SELECT name FROM events")).scalars().all() == ["Spring open"]
    engine.dispose()


def upgrade_at_once(url: str, processes: int) -> list[int]:
    """Run ``processes`` ``tilecam db upgrade --url URL`` at once; their exit codes."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    procs = [subprocess.Popen([sys.executable, "-m", "tilecam.cli", "db", "upgrade", "--url",
                               url], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              env=env) for _ in range(processes)]
    return [p.wait(timeout=120) for p in procs]


def test_processes_upgrading_an_old_database_at_once_write_one_copy(tmp_path: Path) -> None:
    """Four `tilecam db upgrade` at once on an old file: one upgrades and copies it, the
    others find it upgraded when the lock is theirs and copy nothing."""
    url, file = old_database(tmp_path)
    assert upgrade_at_once(url, 4) == [0] * 4
    assert revision_of(file) == head_revision()
    [copy] = copies(tmp_path)
    assert revision_of(copy) == OLD_REVISION


def test_db_upgrade_prints_where_the_copy_from_before_is(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``tilecam db upgrade`` on an old SQLite file prints the copy it wrote and how to go
    back (the path was in the log only, which an operator running the command may not
    keep); a second run, with nothing to apply, names no copy."""
    from tilecam.cli import main

    url, file = old_database(tmp_path)
    assert main(["db", "upgrade", "--url", url]) == 0
    out = capsys.readouterr().out
    [copy] = copies(tmp_path)
    assert f"its copy from before the upgrade is {copy}" in out
    assert f"put the copy in place of {file})" in out
    assert "up to date" in out
    assert main(["db", "upgrade", "--url", url]) == 0
    assert "copy" not in capsys.readouterr().out


def test_a_database_with_a_long_name_is_upgraded_its_copy_named_shorter(
        tmp_path: Path) -> None:
    """A database file whose name is 200 bytes: its copy's name (the name and ~60 bytes
    of revision and time) would pass the file system's 255, and the upgrade stopped with
    "File name too long" (exit 1; the service 503 on every request) where before the
    copies it upgraded; the copy is now named shorter, whole and at the old revision."""
    _, short = old_database(tmp_path)
    file = short.rename(tmp_path / ("t" * 197 + ".db"))
    before = rows(file)
    engine = make_engine(f"sqlite:///{file}")
    copy = upgrade(engine)
    engine.dispose()
    assert copy is not None and copies(tmp_path) == [copy]
    assert len(copy.name.encode()) <= 255 and copy.name.startswith("t" * 100)
    assert revision_of(copy) == OLD_REVISION and rows(copy) == before
    assert revision_of(file) == head_revision()
