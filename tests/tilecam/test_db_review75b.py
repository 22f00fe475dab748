"""What the database review of the seventy-fifth session (report_dbreview, report_dbfix)
left to the score sheet's owners: a drawn hand's context values checked against the rule
set as a win's are, event and table names bounded as kept (after Unicode NFC) on every
database, and revisions stored with a lone surrogate by older versions read without a
500."""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select
from sqlalchemy.orm import Session
from test_tables_helpers import (
    admin,
    bearer,
    client_for,
    database_url,
    make_app,
    new_table,
)

from tilecam.db import make_engine
from tilecam.db.models import Hand, HandRevision

#: A lone UTF-16 surrogate, as versions before the seventy-fifth session stored it from a
#: context's JSON escape ``\ud800``.
LONE = chr(0xD800)


@pytest.fixture
def sqlite_client(tmp_path: Path) -> Iterator[TestClient]:
    app, _ = make_app(database_url("sqlite", tmp_path), tmp_path / "data")
    yield from client_for(app)


def _hands(client: TestClient, t: int, k: str) -> list[dict[str, Any]]:
    r = client.get(f"/v1/tables/{t}/hands", headers=bearer(k))
    assert r.status_code == 200, r.text
    return list(r.json()["hands"])


# --- 1: a drawn hand's context values ---------------------------------------------------------


@pytest.mark.parametrize("who", ["table", "referee"])
@pytest.mark.parametrize(("rules", "context", "named"), [
    ("xiamen", {"gold": "zz"}, "the gold 'zz' is not a tile code"),
    ("xiamen", {"gold": 5}, "the gold '5' is not a tile code"),
    ("xiamen", {"indicator": "zz"}, "indicator"),
    ("xiamen", {"gold": "5m", "indicator": "1m"}, "disagree"),
    ("zhenjiang", {"wild": "zz"}, "the 百搭 'zz' is not a tile code"),
    ("zhenjiang", {"indicator": "9x", "first_wild_discard": "W"}, "9x"),
])
def test_a_drawn_hands_context_values_are_checked_as_a_wins_are(
        sqlite_client: TestClient, who: str, rules: str, context: dict[str, Any],
        named: str) -> None:
    """``{"outcome": "draw", "context": {"gold": "zz"}}`` was 201 and stored: a drawn
    hand's context was checked for its field names and types alone, never their values,
    while a win's gold had to be a tile code. Now the same 400 ``invalid_context`` a win
    gets, naming the field, and nothing recorded — from the table and from a referee."""
    t, k = new_table(sqlite_client, rules=rules)
    key = k if who == "table" else admin()["Authorization"].removeprefix("Bearer ")
    r = sqlite_client.post(f"/v1/tables/{t}/hands", headers=bearer(key),
                           json={"outcome": "draw", "context": context})
    assert r.status_code == 400, r.text
    error = r.json()["error"]
    assert error["code"] == "invalid_context" and named in error["message"], error
    assert _hands(sqlite_client, t, k) == []


def test_a_drawn_hand_without_a_gold_or_with_a_good_one_is_recorded_and_corrected(
        sqlite_client: TestClient) -> None:
    """A drawn hand needs no gold (Xiamen) nor 百搭 (Zhenjiang); a good one is taken.
    A correction giving a drawn hand a gold that is no tile code is refused as a new
    record is, its history left as it was."""
    t, k = new_table(sqlite_client, rules="xiamen")
    for context in ({}, {"gold": "5m"}, {"indicator": "5m", "gold": "5m"}):
        r = sqlite_client.post(f"/v1/tables/{t}/hands", headers=bearer(k),
                               json={"outcome": "draw", "context": context})
        assert r.status_code == 201, r.text
    r = sqlite_client.post(f"/v1/tables/{t}/hands/2/corrections", headers=admin(),
                           json={"context": {"gold": "zz"}, "reason": "typo"})
    assert r.status_code == 400, r.text
    assert r.json()["error"]["code"] == "invalid_context"
    assert "the gold 'zz' is not a tile code" in r.json()["error"]["message"]
    history = sqlite_client.get(f"/v1/tables/{t}/hands/2", headers=bearer(k)).json()
    assert len(history["history"]) == 1
    r = sqlite_client.post(f"/v1/tables/{t}/hands/2/corrections", headers=admin(),
                           json={"context": {"gold": "6p"}, "reason": "the gold was 6p"})
    assert r.status_code == 201, r.text
    z, zk = new_table(sqlite_client, rules="zhenjiang")
    r = sqlite_client.post(f"/v1/tables/{z}/hands", headers=bearer(zk), json={
        "outcome": "draw", "context": {"indicator": "1m", "first_wild_discard": "W"}})
    assert r.status_code == 201, r.text
    assert r.json()["settlement"] == [-6, -6, 18, -6]  # 打首搭 paid in a drawn hand


# --- 2: names bounded as kept ------------------------------------------------------------------


#: U+0958 DEVANAGARI LETTER QA: one character as typed, two under NFC (a composition
#: exclusion: क + ़), so 150 of them are kept as 300 characters.
GROWS = "\u0958"
#: ``e`` and a combining acute accent: two characters as typed, one (é) kept.
SHRINKS = "e\u0301"


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_event_and_table_names_are_bounded_as_kept_on_both_databases(
        backend: str, tmp_path: Path) -> None:
    """A name of 150 characters that Unicode NFC makes 300 was stored as 300 on SQLite
    and refused by PostgreSQL in the database's own words (value too long for type
    character varying(200)). Now the 200 characters are counted as the name is kept —
    as a player's name already was — and both databases answer the same 400 in
    tilecam's words; a name longer as typed than as kept (an accent typed apart, a
    zero-width space) is taken when what is kept fits."""
    assert len(unicodedata.normalize("NFC", GROWS * 150)) == 300
    app, _ = make_app(database_url(backend, tmp_path), tmp_path / "data")
    for client in client_for(app):
        r = client.post("/v1/events", headers=admin(), json={"name": GROWS * 150})
        assert r.status_code == 400, r.text
        assert r.json()["error"] == {
            "code": "invalid_request",
            "message": "an event's name may have at most 200 characters as kept "
                       "(Unicode NFC: this one has 300)"}
        r = client.post("/v1/events", headers=admin(), json={"name": GROWS * 100})
        assert r.status_code == 201, r.text
        assert r.json()["name"] == unicodedata.normalize("NFC", GROWS * 100)
        event = r.json()["id"]
        for name in (SHRINKS * 150, "x" * 200 + "\u200b"):
            r = client.post("/v1/events", headers=admin(), json={"name": name})
            assert r.status_code == 201, r.text
        players = ["Ann", "Bo", "Cai", "Dan"]
        r = client.post(f"/v1/events/{event}/tables", headers=admin(),
                        json={"name": GROWS * 101, "players": players})
        assert r.status_code == 400, r.text
        assert r.json()["error"]["message"] == (
            "a table's name may have at most 200 characters as kept (Unicode NFC: this "
            "one has 202)")
        r = client.post(f"/v1/events/{event}/tables", headers=admin(),
                        json={"name": SHRINKS * 200, "players": players})
        assert r.status_code == 201, r.text
        t = r.json()["id"]
        r = client.patch(f"/v1/tables/{t}", headers=admin(), json={"name": GROWS * 120})
        assert r.status_code == 400, r.text
        assert "a table's name may have at most 200 characters" in \
            r.json()["error"]["message"]
        assert client.get(f"/v1/tables/{t}", headers=admin()).json()["name"] == "\u00e9" * 200


# --- 3: a lone surrogate stored by an older version ---------------------------------------------


def _store_lone_surrogates(url: str, table_id: int) -> None:
    """Append to the table's first hand what versions before the seventy-fifth session
    stored from a correction's ``{"gold": "\\ud800"}`` (the sheet is append-only: a
    revision is added, as a correction adds one): a lone surrogate in a context value, a
    context key and the camera's reading (JSON columns keep it as its escape)."""
    engine = make_engine(url)
    try:
        with Session(engine) as session:
            last = session.scalars(
                select(HandRevision).join(Hand)
                .where(Hand.table_id == table_id, Hand.number == 1)
                .order_by(HandRevision.revision.desc())).first()
            assert last is not None
            copied = {c.key: getattr(last, c.key) for c in HandRevision.__table__.columns
                      if c.key not in ("id", "created_at")}
            session.add(HandRevision(**{
                **copied, "revision": last.revision + 1, "action": "correct",
                "context": {**last.context, "gold": LONE, f"x{LONE}": 1},
                "recognized": {"tiles": [f"5m{LONE}"]}, "author": "referee"}))
            session.commit()
    finally:
        engine.dispose()


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_a_revision_stored_with_a_lone_surrogate_is_read_without_a_500(
        backend: str, tmp_path: Path) -> None:
    """A revision that an older tilecam stored with a lone surrogate answered 500 on
    every read that holds it — the hand list, the hand and its history (for good: history
    is append-only), the score-sheet page — and so did the referee's correction that
    mended it, although it was recorded. Now each is written out with the surrogate as
    its escape (the six characters ``\\ud800``), so the referee sees it and mends it."""
    url = database_url(backend, tmp_path)
    app, _ = make_app(url, tmp_path / "data")
    for client in client_for(app):
        t, k = new_table(client, rules="xiamen")
        r = client.post(f"/v1/tables/{t}/hands", headers=bearer(k),
                        json={"outcome": "draw", "context": {"gold": "5m"}})
        assert r.status_code == 201, r.text
        _store_lone_surrogates(url, t)
        escaped = "\\ud800"
        [hand] = _hands(client, t, k)
        assert hand["context"]["gold"] == escaped and hand["context"][f"x{escaped}"] == 1
        r = client.get(f"/v1/tables/{t}/hands/1", headers=bearer(k))
        assert r.status_code == 200, r.text
        assert r.json()["recognized"] == {"tiles": [f"5m{escaped}"]}
        for encoding in ("identity", "gzip"):
            r = client.get(f"/v1/tables/{t}/sheet",
                           headers={**bearer(k), "Accept-Encoding": encoding})
            assert r.status_code == 200, r.text
            assert r.headers.get("Content-Encoding", "identity") == encoding
            assert r.json()["hands"][0]["context"]["gold"] == escaped
        for path in ("", "/standings", "/sheet.csv", "/penalties"):
            r = client.get(f"/v1/tables/{t}{path}", headers=bearer(k))
            assert r.status_code == 200, (path, r.text)
        # the referee mends it: recorded and answered (was: recorded, then a 500)
        r = client.post(f"/v1/tables/{t}/hands/1/corrections", headers=admin(),
                        json={"context": {"gold": "5m"}, "reason": "the gold was 5m"})
        assert r.status_code == 201, r.text
        history = r.json()["history"]
        assert [h["context"].get("gold") for h in history] == ["5m", escaped, "5m"]
        assert f"x{escaped}" not in history[-1]["context"]
        r = client.get(f"/v1/tables/{t}/hands/1", headers=bearer(k))
        assert r.status_code == 200 and len(r.json()["history"]) == 3
        assert _hands(client, t, k)[0]["context"]["gold"] == "5m"


def test_the_sheet_answers_the_same_bytes_as_before_when_nothing_needs_escaping(
        sqlite_client: TestClient) -> None:
    """The tolerant writing changes nothing of an answer whose text is all Unicode: the
    sheet's bytes are compact UTF-8 JSON (its ETag their hash), a gzip answer the same
    bytes compressed."""
    t, k = new_table(sqlite_client, rules="xiamen", name="Tisch 1 — 厦门")
    r = sqlite_client.post(f"/v1/tables/{t}/hands", headers=bearer(k),
                           json={"outcome": "draw", "context": {"gold": "5m"},
                                 "note": "荒庄 ✓"})
    assert r.status_code == 201, r.text
    plain = sqlite_client.get(f"/v1/tables/{t}/sheet",
                              headers={**bearer(k), "Accept-Encoding": "identity"})
    body = plain.json()
    assert plain.content == json.dumps(body, ensure_ascii=False,
                                       separators=(",", ":")).encode("utf-8")
    assert "荒庄 ✓" in plain.content.decode("utf-8")
    zipped = sqlite_client.get(f"/v1/tables/{t}/sheet",
                               headers={**bearer(k), "Accept-Encoding": "gzip"})
    assert zipped.headers["Content-Encoding"] == "gzip"
    assert zipped.headers["ETag"] == plain.headers["ETag"]
    assert zipped.content == plain.content  # as httpx unzips it
    hands = sqlite_client.get(f"/v1/tables/{t}/hands", headers=bearer(k))
    assert hands.headers["content-type"] == "application/json"
    assert "荒庄 ✓" in hands.content.decode("utf-8")
