"""What an automatic table or a tournament operator needs of the score sheet (the review
"autotable" of the seventy-fourth session), each test naming the rule it checks:

- 5: table bodies read JSON strictly, as ``/v1/score`` does (a boolean is no number, a
  string no boolean);
- 6: a rule-context error on a table's hand or a correction is ``invalid_context``;
- 7: a reseat or a correction appends its words to the report's note and the
  evaluation's, never replacing them;
- 4: a correction keeps the fields it leaves out and says which it changed;
- 3: a camera frame contradicting the recorded hand's winner is a new hand; one photo
  records its hand at once (``POST /v1/tables/{id}/photos``);
- 8: the admin key has its own, higher, rate limit;
- 2: a table's name and players can be fixed, a table closed and withdrawn;
- 1, 9: the event standings total a player across tables; the sheet CSV's penalty rows
  have their own columns.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import inspect, text
from test_tables_helpers import (
    FakeCamera,
    admin,
    bearer,
    client_for,
    database_url,
    frame,
    make_app,
    new_event,
    new_table,
)

from tilecam.db import make_engine, upgrade
from tilecam.db.migrate import alembic_config, current_revision

Sheet = tuple[TestClient, FakeCamera]
WIN = "123m456m789m234p55s"  # MCR: 21 points on a discard, 23 with two flowers
XIAMEN_WIN = "123m456m789m123p456p55s"
ZJ_WIN = "[EEE,2]123m456p789sSN"


def post(client: TestClient, t: int, k: str, **body: Any) -> Any:
    return client.post(f"/v1/tables/{t}/hands", headers=bearer(k), json=body)


def correct(client: TestClient, t: int, n: int, **body: Any) -> Any:
    return client.post(f"/v1/tables/{t}/hands/{n}/corrections", headers=admin(), json=body)


def error(r: Any) -> tuple[int, str, str]:
    return r.status_code, r.json()["error"]["code"], r.json()["error"]["message"]


# --- 5. strict JSON -------------------------------------------------------------------------


@pytest.mark.parametrize("extra", [
    {"flowers": True}, {"flowers": "2"}, {"flowers": 2.0}, {"self_drawn": "true"},
    {"number": True}, {"kong": 1}, {"winner": 1}])
def test_a_table_hand_reads_json_strictly_as_v1_score_does(sheet: Sheet,
                                                           extra: dict[str, Any]) -> None:
    """Rule 5: a boolean is no number and a string no boolean in a table's hand, as in
    ``/v1/score`` and the published schema (``flowers: true`` scored a flower)."""
    client, _ = sheet
    t, k = new_table(client)
    r = post(client, t, k, **{"hand": WIN, "winner": "E", "discarder": "S", **extra})
    assert r.status_code == 422 and r.json()["error"]["code"] == "invalid_request", r.text
    assert next(iter(extra)) in r.json()["error"]["message"]
    score = client.post("/v1/score", json={"hand": WIN, **{
        k_: v for k_, v in extra.items() if k_ in ("flowers", "self_drawn", "kong")}})
    assert score.status_code in (200, 422)  # the same reading where the field is shared
    if "flowers" in extra or "self_drawn" in extra or "kong" in extra:
        assert score.status_code == 422


@pytest.mark.parametrize("body", [
    {"player": True, "kind": "deduction", "points": 10},
    {"player": 2, "kind": "payment", "to": False, "points": 10},
    {"player": 2.0, "kind": "warning"},
    {"player": 1, "kind": "deduction", "points": "10"},
    {"player": 1, "kind": "false_win", "points": 4, "money": "false"}])
def test_a_penalty_reads_json_strictly(sheet: Sheet, body: dict[str, Any]) -> None:
    """Rule 5: ``"player": true`` is no player (it penalised seat 1), ``"to": false`` no
    receiver, a string no number or flag."""
    client, _ = sheet
    t, _ = new_table(client)
    r = client.post(f"/v1/tables/{t}/penalties", headers=admin(), json=body)
    assert r.status_code == 422, r.text
    assert client.get(f"/v1/tables/{t}/penalties", headers=admin()).json()["penalties"] == []


def test_events_and_tables_read_json_strictly(sheet: Sheet) -> None:
    """Rule 5: the event and table bodies are strict too (a guard: their fields are text,
    which pydantic's lax mode did not take from a number either)."""
    client, _ = sheet
    assert client.post("/v1/events", headers=admin(),
                       json={"name": "x", "rules": "mcr", "version": 2015}).status_code == 422
    event = client.post("/v1/events", headers=admin(), json={"name": "x"}).json()["id"]
    r = client.post(f"/v1/events/{event}/tables", headers=admin(),
                    json={"name": "T", "players": ["a", "b", "c", 4]})
    assert r.status_code == 422


# --- 6. invalid_context ---------------------------------------------------------------------


def test_rule_context_errors_on_table_hands_are_invalid_context(sheet: Sheet) -> None:
    """Rule 6: a context the rule set refuses on its own — a field it does not have, a
    value that is none, a gold or 百搭 not given for a win — is 400 ``invalid_context``
    on a table's hand and a referee's correction, as on ``/v1/score`` and a camera frame
    (it was ``invalid_hand``); a drawn hand needs no gold."""
    client, _ = sheet
    _, [(m, mk), (x, xk)] = new_event(client)
    z, zk = new_table(client, rules="zhenjiang")
    x2, x2k = new_table(client, rules="xiamen")
    cases = [
        (post(client, m, mk, hand=WIN, winner="E", discarder="S", context={"gold": "5m"}),
         "no context field 'gold'"),
        (post(client, m, mk, outcome="draw", context={"gold": "5m"}), "no context field"),
        (post(client, x2, x2k, hand=XIAMEN_WIN, winner="E", discarder="S"),
         "Xiamen needs the gold"),
        (post(client, x2, x2k, hand=XIAMEN_WIN, winner="E", discarder="S",
              context={"gold": "xx"}), "not a tile code"),
        (post(client, z, zk, hand=ZJ_WIN, winner="S", discarder="W"), "needs the 百搭"),
    ]
    for r, words in cases:
        status, code, message = error(r)
        assert (status, code) == (400, "invalid_context") and words in message, r.text
    assert client.post("/v1/score", json={"hand": WIN, "rule_context": {"gold": "5m"}}).json()[
        "error"]["code"] == "invalid_context"
    assert post(client, x2, x2k, outcome="draw").status_code == 201  # no gold needed
    assert post(client, x2, x2k, hand=XIAMEN_WIN, winner="S", self_drawn=True,
                context={"gold": "9s"}).status_code == 201
    status, code, message = error(correct(client, x2, 2, hand=XIAMEN_WIN, winner="S",
                                          self_drawn=True, context={}, reason="no gold"))
    assert (status, code) == (400, "invalid_context") and "gold" in message
    del x, xk


# --- 7. notes kept ---------------------------------------------------------------------------


def test_a_reseat_keeps_the_reports_note_and_the_transfer_note(sheet: Sheet) -> None:
    """Rule 7: a hand scored again because an earlier hand changed (``reseat``) keeps the
    table's note and the evaluation's 打首搭 explanation, the reseat's words appended —
    on the hand and in the sheet's CSV (they were replaced)."""
    client, _ = sheet
    t, k = new_table(client, rules="zhenjiang")
    post(client, t, k, hand=ZJ_WIN, winner="S", discarder="W", context={"indicator": "E"})
    post(client, t, k, outcome="draw", note="table 4: wall ran out",
         context={"indicator": "1m", "first_wild_discard": "N"})
    before = client.get(f"/v1/tables/{t}/hands/2", headers=bearer(k)).json()
    assert before["note"] == "打首搭: N gets 18; table 4: wall ran out"
    r = correct(client, t, 1, outcome="draw", context={"indicator": "E"},
                reason="hand 1 was a draw")
    assert r.status_code == 201, r.text
    after = client.get(f"/v1/tables/{t}/hands/2", headers=bearer(k)).json()
    assert after["action"] == "reseat" and after["dealer"] != before["dealer"]
    assert after["note"].startswith("打首搭: N gets 18; table 4: wall ran out; hand 1 changed "
                                    "who deals after it")
    rows = list(csv.reader(io.StringIO(
        client.get(f"/v1/tables/{t}/sheet.csv", headers=bearer(k)).content.decode("utf-8-sig"))))
    head, two = rows[0], next(r for r in rows if r[:2] == ["hand", "2"])
    assert two[head.index("note")] == after["note"]


def test_a_correction_appends_its_reason_to_the_notes_it_keeps(sheet: Sheet) -> None:
    """Rule 7: a correction's reason follows the evaluation's words and the report's
    note (kept when the correction gives none), instead of replacing them."""
    client, _ = sheet
    t, k = new_table(client, rules="zhenjiang")
    post(client, t, k, outcome="draw", note="wall ran out",
         context={"indicator": "1m", "first_wild_discard": "N"})
    r = correct(client, t, 1, context={"indicator": "1m", "first_wild_discard": "W"},
                reason="it was W's 百搭")
    assert r.status_code == 201, r.text
    assert r.json()["note"] == "打首搭: W gets 18; wall ran out; it was W's 百搭"


# --- 4. partial corrections -----------------------------------------------------------------


def test_a_correction_keeps_the_fields_it_leaves_out_and_says_what_changed(
        sheet: Sheet) -> None:
    """Rule 4: the most common ruling, "the winner was W", given alone keeps the hand's
    flowers, flags and note (the flowers were reset to 0 and 2 points lost); the answer
    names the fields the correction ``changed`` and those it ``kept``."""
    client, _ = sheet
    t, k = new_table(client)
    first = post(client, t, k, hand=WIN, winner="E", discarder="S", flowers=2, note="first")
    assert first.json()["total"] == 23
    r = correct(client, t, 1, winner="W", reason="wrong winner")
    assert r.status_code == 201, r.text
    body = r.json()
    assert body["winner"]["seat"] == "W" and body["discarder"]["seat"] == "S"
    assert body["context"]["flowers"] == 2 and body["total"] == 23
    assert body["note"] == "first; wrong winner"
    assert body["changed"] == ["winner"]
    assert set(body["kept"]) == {"outcome", "hand", "discarder", "self_drawn", "last_of_kind",
                                 "kong", "last_wall_tile", "flowers", "context", "note"}


def test_a_correction_with_every_field_gives_exactly_that_content(sheet: Sheet) -> None:
    """Rule 4: a client that sends the hand's full content gets that content, as before:
    a field given at its default is that default, not the last revision's value."""
    client, _ = sheet
    t, k = new_table(client)
    post(client, t, k, hand=WIN, winner="E", discarder="S", flowers=2, kong=False,
         note="first")
    full = {"outcome": "win", "hand": WIN, "winner": "W", "discarder": "S",
            "self_drawn": False, "last_of_kind": False, "kong": False,
            "last_wall_tile": False, "flowers": 0, "context": {}, "note": None}
    body = correct(client, t, 1, **full, reason="all of it").json()
    assert body["context"]["flowers"] == 0 and body["total"] == 21
    assert body["note"] == "all of it" and body["kept"] == []
    assert body["changed"] == ["winner", "flowers", "note"]


def test_a_correction_reads_how_the_win_was_won_as_one(sheet: Sheet) -> None:
    """Rule 4: a discarder given ends a self-draw left out, a self-draw given drops the
    discarder, a win made a drawn hand drops the win's fields, a drawn hand given a
    winner is a win; a winner given who was the discarder needs the discarder too."""
    client, _ = sheet
    t, k = new_table(client)
    post(client, t, k, hand=WIN, winner="S", self_drawn=True, flowers=1)
    r = correct(client, t, 1, winner="N", discarder="E", reason="Dan won on E")
    assert r.status_code == 201, r.text
    assert r.json()["context"]["self_drawn"] is False and r.json()["context"]["flowers"] == 1
    r = correct(client, t, 1, self_drawn=True, reason="self-drawn after all")
    assert r.status_code == 201 and r.json()["discarder"] is None, r.text
    r = correct(client, t, 1, outcome="draw", reason="nobody won")
    assert r.status_code == 201, r.text
    drawn = r.json()
    assert drawn["outcome"] == "draw" and drawn["winner"] is None and drawn["hand"] is None
    assert drawn["context"]["flowers"] == 0
    r = correct(client, t, 1, hand=WIN, winner="E", discarder="S", reason="E won")
    assert r.status_code == 201 and r.json()["outcome"] == "win", r.text
    r = correct(client, t, 1, winner="S", reason="S won")
    assert r.status_code == 400 and "give the discarder too" in r.json()["error"]["message"]


def test_the_correction_schema_says_a_field_left_out_keeps_its_value(sheet: Sheet) -> None:
    """Rule 4: the published schema of a correction shows no defaults for the hand's
    fields (they would read as what a field left out becomes) and says what it becomes."""
    client, _ = sheet
    spec = client.get("/openapi.json").json()
    schema = spec["components"]["schemas"]["CorrectionIn"]
    for name in ("flowers", "winner", "outcome", "kong", "note"):
        field = schema["properties"][name]
        assert "default" not in field, name
        assert "left out: as the hand's last revision" in field["description"], name
    assert "keeps the last revision's value" in schema["description"]


# --- 3. camera frames and photos ------------------------------------------------------------


def frames(client: TestClient, t: int, k: str, level: int, times: int,
           **fields: str) -> list[Any]:
    out = []
    for _ in range(times):
        r = client.post(f"/v1/tables/{t}/frames", headers=bearer(k), data=fields,
                        files={"image": ("f.jpg", frame(level), "image/jpeg")})
        assert r.status_code == 200, r.text
        out.append((r.json()["status"], r.json()["hand_number"]))
    return out


def test_a_frame_whose_winner_contradicts_the_recorded_hand_is_a_new_hand(
        sheet: Sheet) -> None:
    """Rule 3: the next hand, two tiles from the one the camera recorded and won by
    another seat on another's discard, is recorded (it was answered ``already_recorded``
    with the last hand's number, and never recorded)."""
    client, cam = sheet
    t, k = new_table(client)
    cam.show(100, "123m456m789m234p55s")
    cam.show(150, "123m456m789m234p66s")
    assert frames(client, t, k, 100, 3, winner="E", discarder="S")[-1] == ("recorded", 1)
    assert frames(client, t, k, 150, 3, winner="W", discarder="N") == [
        ("waiting", None), ("waiting", None), ("recorded", 2)]
    # the same tiles, a self-draw against the recorded discard: a new hand too
    assert frames(client, t, k, 150, 3, winner="W", self_drawn="true")[-1] == ("recorded", 3)


def test_a_frame_that_says_less_than_the_recorded_hand_is_that_hand(sheet: Sheet) -> None:
    """Rule 3: a frame of the recorded tiles that agrees with its win — the same winner,
    or none given, or the same tiles re-read — is the recorded hand, as before (a guard
    on the fix above: it held before it too)."""
    client, cam = sheet
    t, k = new_table(client)
    cam.show(100, "123m456m789m234p55s")
    cam.show(150, "123m456m789m234p66s")
    assert frames(client, t, k, 100, 3, winner="E", discarder="S")[-1] == ("recorded", 1)
    assert frames(client, t, k, 100, 4) == [("already_recorded", 1)] * 4
    assert frames(client, t, k, 150, 4, winner="E") == [("already_recorded", 1)] * 4
    hands = client.get(f"/v1/tables/{t}/hands", headers=bearer(k)).json()["hands"]
    assert len(hands) == 1


def photo(client: TestClient, t: int, k: str, level: int, **fields: str) -> Any:
    return client.post(f"/v1/tables/{t}/photos", headers=bearer(k), data=fields,
                       files={"image": ("p.jpg", frame(level), "image/jpeg")})


def test_one_photo_records_its_hand_at_once_with_its_image(sheet: Sheet,
                                                           tmp_path: Path) -> None:
    """Rule 3: ``POST /v1/tables/{id}/photos`` reads a photo once and records its hand at
    once, the photo kept as its ``image_ref``; ``number`` makes a re-send idempotent (200,
    the photo not kept twice), other content for that number is 409."""
    client, cam = sheet
    t, k = new_table(client)
    cam.show(100, "123m456m789m234p55s")
    cam.show(150, "123m456m789m234p66s")
    r = photo(client, t, k, 100, winner="E", discarder="S", number="1", note="phone")
    assert r.status_code == 201, r.text
    hand = r.json()
    assert (hand["number"], hand["outcome"], hand["source"], hand["created"]) == (
        1, "win", "photo", True)
    assert hand["note"] == "phone" and hand["recognized"]["hand"] == "123m456m789m234p55s"
    stored = tmp_path / "data" / hand["image_ref"]
    assert stored.is_file() and stored.read_bytes() == frame(100)
    again = photo(client, t, k, 100, winner="E", discarder="S", number="1")
    assert again.status_code == 200 and again.json()["created"] is False
    assert again.json()["image_ref"] == hand["image_ref"]
    assert len(list(stored.parent.iterdir())) == 1
    other = photo(client, t, k, 150, winner="W", discarder="N", number="1")
    assert other.status_code == 409
    second = photo(client, t, k, 150, winner="W", discarder="N")
    assert second.status_code == 201 and second.json()["number"] == 2
    assert cam.calls == 4  # one reading a photo
    assert len(list(stored.parent.iterdir())) == 2


def test_a_photo_is_checked_as_v1_recognize_checks_one(sheet: Sheet) -> None:
    """Rule 3: the photo route refuses what ``/v1/recognize`` refuses, with its codes (no
    image, not an image), an unknown field, seats that contradict, and a photo of no
    complete hand (400 ``invalid_hand`` naming what was read); nothing is recorded."""
    client, cam = sheet
    t, k = new_table(client)
    cam.show(200, "123m456m789m234p6s", complete=False, tiles=13)
    r = client.post(f"/v1/tables/{t}/photos", headers={**bearer(k), "Content-Type":
                                                         "image/jpeg"}, content=b"text")
    assert error(r)[:2] == (415, "unsupported_image")  # /v1/recognize's code and words
    assert "not an image" in error(r)[2]
    r = client.post(f"/v1/tables/{t}/photos", headers=bearer(k),
                    files={"other": ("p.jpg", frame(200), "image/jpeg")})
    assert error(r)[:2] == (400, "missing_image")
    assert error(photo(client, t, k, 200, bogus="1"))[:2] == (400, "invalid_request")
    assert error(photo(client, t, k, 200, winner="E", discarder="E"))[:2] == (
        400, "invalid_request")
    assert error(photo(client, t, k, 200, number="x"))[:2] == (400, "invalid_request")
    status, code, message = error(photo(client, t, k, 200, winner="E", self_drawn="true"))
    assert (status, code) == (400, "invalid_hand") and "13 tiles" in message
    assert client.get(f"/v1/tables/{t}/hands", headers=bearer(k)).json()["hands"] == []


def test_the_photo_fields_documented_are_those_the_route_knows(sheet: Sheet) -> None:
    """Rule 3: /docs shows the photo route's own form (a frame's fields, ``number`` and
    ``note``), its repeat answer, and the image errors ``/v1/recognize`` documents."""
    from tilecam.api.routes.tables import PHOTO_FIELD_NAMES

    client, _ = sheet
    spec = client.get("/openapi.json").json()
    operation = spec["paths"]["/v1/tables/{table_id}/photos"]["post"]
    form = operation["requestBody"]["content"]["multipart/form-data"]["schema"]
    assert set(form["properties"]) == {"image", *PHOTO_FIELD_NAMES}
    assert {p["name"] for p in operation["parameters"] if p["in"] == "query"} == set(
        PHOTO_FIELD_NAMES)
    assert {"200", "201", "400", "409", "413", "415", "503"} <= set(operation["responses"])
    recognize = spec["paths"]["/v1/recognize"]["post"]["responses"]
    assert operation["responses"]["415"]["description"] == recognize["415"]["description"]


def test_a_photo_without_a_model_is_503_not_ready(tmp_path: Path) -> None:
    """Rule 3: as ``/v1/recognize``, the photo route says when no model is loaded."""
    from tilecam.tables.access import photo_reader

    app, _ = make_app(database_url("sqlite", tmp_path), tmp_path / "data")
    del app.dependency_overrides[photo_reader]
    for client in client_for(app):
        t, k = new_table(client)
        r = photo(client, t, k, 100, winner="E")
        assert error(r)[:2] == (503, "not_ready")


# --- 8. the admin key's rate limit ----------------------------------------------------------


def test_the_admin_key_has_its_own_higher_rate_limit(tmp_path: Path) -> None:
    """Rule 8: the admin key is throttled in a bucket of its own
    (``TILECAM_ADMIN_RATE_LIMIT_PER_S``/``_BURST``, higher than a table key's by default),
    so setting up an event does not lock the referee out."""
    from tilecam.settings import Settings

    defaults = Settings()
    assert defaults.admin_rate_limit_per_s > defaults.rate_limit_per_s
    assert defaults.admin_rate_limit_burst > defaults.rate_limit_burst
    app, _ = make_app(database_url("sqlite", tmp_path), tmp_path / "data",
                      rate_limit_per_s=0.01, rate_limit_burst=3,
                      admin_rate_limit_per_s=0.01, admin_rate_limit_burst=8)
    for client in client_for(app):
        t, k = new_table(client)  # 2 admin requests
        codes = [client.get(f"/v1/tables/{t}", headers=admin()).status_code
                 for _ in range(7)]
        assert codes == [200] * 6 + [429]
        table = [client.get(f"/v1/tables/{t}", headers=bearer(k)).status_code
                 for _ in range(4)]
        assert table == [200, 200, 200, 429]


# --- 2. fixing, closing and withdrawing a table ---------------------------------------------


def test_a_tables_players_can_be_fixed_only_before_its_first_hand(sheet: Sheet) -> None:
    """Rule 2: ``PATCH /v1/tables/{id}`` fixes a misspelt player before the table's first
    hand or penalty (409 after), and its name at any time (unique in the event)."""
    client, _ = sheet
    event, [(t, k), (u, _)] = new_event(client)
    r = client.patch(f"/v1/tables/{t}", headers=admin(),
                     json={"players": ["Ann", "Bo", "Cai", "Dan"]})
    assert r.status_code == 200, r.text
    assert [p["name"] for p in r.json()["players"]] == ["Ann", "Bo", "Cai", "Dan"]
    assert r.json()["next_hand"]["dealer"] == "Ann"
    assert client.patch(f"/v1/tables/{t}", headers=bearer(k),
                        json={"name": "X"}).status_code == 403
    assert error(client.patch(f"/v1/tables/{t}", headers=admin(), json={}))[:2] == (
        400, "invalid_request")
    assert error(client.patch(f"/v1/tables/{t}", headers=admin(),
                              json={"players": ["A", "A", "B", "C"]}))[0] == 400
    assert error(client.patch(f"/v1/tables/{t}", headers=admin(), json={"name": "T2"}))[
        :2] == (409, "name_taken")
    post(client, t, k, hand=WIN, winner="E", discarder="S")
    status, code, message = error(client.patch(
        f"/v1/tables/{t}", headers=admin(), json={"players": ["Ann", "Bo", "Cia", "Dan"]}))
    assert (status, code) == (409, "players_fixed") and "before the first hand" in message
    r = client.patch(f"/v1/tables/{t}", headers=admin(), json={"name": " Final "})
    assert r.status_code == 200 and r.json()["name"] == "Final"
    hand = client.get(f"/v1/tables/{t}/hands/1", headers=bearer(k)).json()
    assert hand["winner"]["player"] == "Ann"
    del event, u


def test_a_closed_table_records_no_more_hands(sheet: Sheet) -> None:
    """Rule 2: ``POST /v1/tables/{id}/close`` (time called) refuses every later hand —
    posted, a camera's, a photo's — with 409; the standings say ``complete`` and
    ``closed``; the referee may still correct and penalise; closing again is 409."""
    client, cam = sheet
    t, k = new_table(client, rules="xiamen")
    win = {"hand": XIAMEN_WIN, "winner": "S", "self_drawn": True, "context": {"gold": "9s"}}
    assert post(client, t, k, **win).status_code == 201
    assert client.post(f"/v1/tables/{t}/close", headers=bearer(k),
                       json={"reason": "x"}).status_code == 403
    r = client.post(f"/v1/tables/{t}/close", headers=admin(), json={"reason": "time called"})
    assert r.status_code == 200, r.text
    assert r.json()["closed_at"] and r.json()["close_reason"] == "time called (by referee)"
    assert r.json()["next_hand"] is None
    status, code, message = error(post(client, t, k, outcome="draw"))
    assert (status, code) == (409, "table_closed") and "closed (time called" in message
    assert post(client, t, k, number=1, **win).status_code == 200  # a repeat is still one
    cam.show(100, XIAMEN_WIN)
    form = {"winner": "S", "self_drawn": "true", "context": json.dumps({"gold": "9s"})}
    assert photo(client, t, k, 100, **form).status_code == 409
    # the camera shows another hand (hand 1 itself would be answered already_recorded:
    # the hand on the sheet, as a hand a referee posted is)
    cam.show(110, "123m456m789m789p456p55s")
    got = [client.post(f"/v1/tables/{t}/frames", headers=bearer(k), data=form,
                       files={"image": ("f.jpg", frame(110), "image/jpeg")})
           for _ in range(3)]
    assert [g.status_code for g in got] == [200, 200, 409]
    st = client.get(f"/v1/tables/{t}/standings", headers=bearer(k)).json()
    assert (st["complete"], st["closed"], st["next_hand"]) == (True, True, None)
    assert correct(client, t, 1, winner="W", reason="it was W").status_code == 201
    assert client.post(f"/v1/tables/{t}/penalties", headers=admin(),
                       json={"player": 0, "kind": "warning"}).status_code == 201
    assert error(client.post(f"/v1/tables/{t}/close", headers=admin(),
                             json={"reason": "again"}))[:2] == (409, "already_closed")


def test_a_withdrawn_table_is_left_out_of_the_event_standings(sheet: Sheet) -> None:
    """Rule 2: a table opened by mistake is withdrawn (``PATCH … {"withdrawn": true}``):
    its players leave the event's ranking (its empty lines pushed real players down), it
    records no new hand, and it is kept — listed with ``withdrawn`` — and can come back."""
    client, _ = sheet
    event, [(t, k), (u, uk)] = new_event(client)
    post(client, t, k, hand=WIN, winner="E", discarder="S")
    r = client.patch(f"/v1/tables/{u}", headers=admin(), json={"withdrawn": True})
    assert r.status_code == 200 and r.json()["withdrawn"] is True
    ev = client.get(f"/v1/events/{event}/standings", headers=admin()).json()
    assert [p["player"] for p in ev["players"]] == ["Ann0", "Cai0", "Dan0", "Bo0"]
    assert [(s["table_id"], s["withdrawn"]) for s in ev["tables"]] == [(t, False), (u, True)]
    assert error(post(client, u, uk, outcome="draw"))[:2] == (409, "table_withdrawn")
    rows = client.get(f"/v1/events/{event}/standings.csv",
                      headers=admin()).content.decode("utf-8-sig")
    assert "Ann1" not in rows
    client.patch(f"/v1/tables/{u}", headers=admin(), json={"withdrawn": False})
    ev = client.get(f"/v1/events/{event}/standings", headers=admin()).json()
    assert len(ev["players"]) == 8


def test_migrations_0010_and_0011_add_the_columns_and_take_them_away(tmp_path: Path) -> None:
    """Rule 2 and 7: migration 0010 adds ``hand_revisions.report_note`` (null before) and
    0011 ``event_tables.closed_at``, ``close_reason`` and ``withdrawn`` (existing tables
    open, not withdrawn); their downgrades take them away, the rows kept, and the
    append-only triggers of the score sheet stay."""
    from alembic import command

    engine = make_engine(database_url("sqlite", tmp_path))
    upgrade(engine, "0009_camera_surface")
    with engine.begin() as conn:
        conn.execute(text("INSERT INTO events (id, name, rules, created_at) "
                          "VALUES (1, 'e', 'mcr', CURRENT_TIMESTAMP)"))
        conn.execute(text("INSERT INTO event_tables (id, event_id, name, rules, rule_settings, "
                          "key_hash, created_at) VALUES (1, 1, 't', 'mcr', '{}', :h, "
                          "CURRENT_TIMESTAMP)"), {"h": "0" * 64})
    upgrade(engine)
    assert current_revision(engine) == "0011_table_close"
    with engine.connect() as conn:
        row = conn.execute(text("SELECT name, closed_at, close_reason, withdrawn "
                                "FROM event_tables")).one()
    assert tuple(row) == ("t", None, None, 0)
    assert "report_note" in {c["name"] for c in inspect(engine).get_columns("hand_revisions")}
    triggers = "SELECT count(*) FROM sqlite_master WHERE type = 'trigger'"
    with engine.connect() as conn:
        assert conn.execute(text(triggers)).scalar_one() == 4
    command.downgrade(alembic_config(engine), "0009_camera_surface")
    columns = {c["name"] for c in inspect(engine).get_columns("event_tables")}
    assert not columns & {"closed_at", "close_reason", "withdrawn"}
    with engine.connect() as conn:
        assert conn.execute(text("SELECT name FROM event_tables")).scalar_one() == "t"
    engine.dispose()


# --- 1 and 9. event standings and the sheet's CSV -------------------------------------------


def test_event_standings_total_a_player_across_the_events_tables(sheet: Sheet) -> None:
    """Rule 1: a player who sits at a table per session is one line of the event's
    standings, the tables' lines summed and kept as detail (``lines``), ranked once (she
    was two rank-1 lines of 45 each); a player is one name as the sheet compares names
    (spaces at either end, an invisible character, a Unicode form aside)."""
    client, _ = sheet
    event = client.post("/v1/events", headers=admin(), json={"name": "Open"}).json()["id"]
    tables = []
    for name, players in (("S1-T1", ["Ann", "Bo", "Cai", "Zoé"]),
                          ("S2-T1", ["Bo", " Ann", "Zoe\u0301\u200b", "Cai"])):
        made = client.post(f"/v1/events/{event}/tables", headers=admin(),
                           json={"name": name, "players": players}).json()
        tables.append((made["id"], made["api_key"]))
    (t1, k1), (t2, k2) = tables
    post(client, t1, k1, hand=WIN, winner="E", discarder="S")  # Ann wins, Bo pays
    post(client, t2, k2, hand=WIN, winner="S", discarder="E")  # Ann wins, Bo pays
    ev = client.get(f"/v1/events/{event}/standings", headers=admin()).json()
    lines = [(p["rank"], p["player"], p["total"], p["tables"]) for p in ev["players"]]
    assert lines == [(1, "Ann", 90, 2), (2, "Cai", -16, 2), (2, "Zoé", -16, 2),
                     (4, "Bo", -58, 2)]
    ann = ev["players"][0]
    assert [(x["table"], x["total"], x["rank"]) for x in ann["lines"]] == [
        ("S1-T1", 45, 1), ("S2-T1", 45, 1)]
    assert ann["wins"] == 2 and ev["players"][-1]["dealt_in"] == 2
    rows = list(csv.reader(io.StringIO(
        client.get(f"/v1/events/{event}/standings.csv",
                   headers=admin()).content.decode("utf-8-sig"))))
    assert rows[0][:4] == ["rank", "player", "tables", "total"]
    assert rows[1][:4] == ["1", "Ann", "S1-T1; S2-T1", "90"] and len(rows) == 5
    # a disqualification at one table takes the player's event rank
    client.post(f"/v1/tables/{t2}/penalties", headers=admin(),
                json={"player": "Ann", "kind": "disqualification"})
    ev = client.get(f"/v1/events/{event}/standings", headers=admin()).json()
    assert (ev["players"][-1]["player"], ev["players"][-1]["rank"]) == ("Ann", None)
    assert ev["players"][0]["rank"] == 1


def test_sheet_csv_penalty_rows_have_their_own_player_and_points_columns(
        sheet: Sheet) -> None:
    """Rule 9: a penalty row names its player in ``player`` and its points in ``points``,
    leaving ``winner`` and ``total`` empty (a filter on winner counted penalised players as
    winners)."""
    client, _ = sheet
    t, k = new_table(client)
    post(client, t, k, hand=WIN, winner="E", discarder="S")
    client.post(f"/v1/tables/{t}/penalties", headers=admin(),
                json={"player": "Bo0", "kind": "deduction", "points": 20, "reason": "late"})
    rows = list(csv.reader(io.StringIO(
        client.get(f"/v1/tables/{t}/sheet.csv", headers=bearer(k)).content.decode("utf-8-sig"))))
    head = rows[0]
    assert head[head.index("note") + 1:head.index("note") + 3] == ["player", "points"]
    won = dict(zip(head, rows[1], strict=True))
    pen = dict(zip(head, rows[2], strict=True))
    assert (won["winner"], won["player"], won["points"]) == ("Ann0", "", "")
    assert (pen["winner"], pen["total"], pen["player"], pen["points"]) == ("", "", "Bo0", "20")
    assert (pen["outcome"], pen["note"], pen["points Bo0"]) == ("deduction", "late", "-20")
    assert rows[-1][0] == "total" and len(rows[-1]) == len(head)
