"""A table closed by mistake is reopened (``POST /v1/tables/{id}/reopen``; the gap the
seventy-fifth session's note left: a close could not be undone).

Who may close a table (the admin key or a named referee's key) may reopen it; a table's
own key, its viewing key or no key may not. A reopened table records hands again where it
stood — posted, a camera's, a photo's — the hands before it kept and the standings going
on from them. Nothing is deleted: the close it undoes and the reopening are kept as lines
of ``close_reason`` (:mod:`tilecam.tables.closings`), which the sheet's JSON and CSV show
(the page: ``test_sheet_page_closed.py``). A table that is not closed is 409, saying so.
Each test runs on SQLite and on PostgreSQL.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
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

Sheet = tuple[TestClient, FakeCamera]
WIN = "123m456m789m234p55s"  # MCR: 21 on a discard — E (Ann) wins +45, S (Bo) pays 29
OTHER_WIN = "123p456p789p123s55s"  # MCR: another legal win, for the camera and a photo
LI = "li-referee-secret-0123456789"
ENTRY = re.compile(r"(closed|reopened) \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00: (.*)\Z")


@pytest.fixture(params=["sqlite", "postgres"])
def sheet(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Sheet]:
    """As the folder's ``sheet`` fixture, with a named referee key (Li) beside the admin's."""
    app, cam = make_app(database_url(str(request.param), tmp_path), tmp_path / "data",
                        referee_keys=f"Li:{LI}")
    for client in client_for(app):
        yield client, cam


def post(client: TestClient, t: int, k: str, **body: Any) -> Any:
    return client.post(f"/v1/tables/{t}/hands", headers=bearer(k), json=body)


def close(client: TestClient, t: int, reason: str, key: str | None = None) -> Any:
    return client.post(f"/v1/tables/{t}/close", headers=admin(key) if key else admin(),
                       json={"reason": reason})


def reopen(client: TestClient, t: int, reason: str, headers: dict[str, str] | None = None) -> Any:
    return client.post(f"/v1/tables/{t}/reopen", headers=admin() if headers is None else headers,
                       json={"reason": reason})


def error(r: Any) -> tuple[int, str, str]:
    return r.status_code, r.json()["error"]["code"], r.json()["error"]["message"]


def record(close_reason: str) -> list[tuple[str, str]]:
    """The entries of a ``close_reason``'s record (lines after a first reason line are
    entries too): ``(action, reason)`` each; every line must be one."""
    out = []
    for line in close_reason.split("\n"):
        match = ENTRY.match(line)
        assert match, line
        out.append((match[1], match[2]))
    return out


def csv_rows(client: TestClient, t: int) -> list[dict[str, str]]:
    text = client.get(f"/v1/tables/{t}/sheet.csv", headers=admin()).content.decode("utf-8-sig")
    return list(csv.DictReader(io.StringIO(text)))


# --- reopening, and hands recorded after it ----------------------------------------------


def test_a_table_closed_by_mistake_is_reopened_and_records_hands_again(sheet: Sheet) -> None:
    """The referee closes the wrong table after hand 1 and reopens it: the answer is the
    table open again — ``closed_at`` null, ``next_hand`` 2 where it stood — hand 1 stays,
    hand 2 is recorded after it and the standings go on (Ann 45 + 45)."""
    client, _ = sheet
    t, k = new_table(client)
    assert post(client, t, k, hand=WIN, winner="E", discarder="S").status_code == 201
    assert close(client, t, "time called").status_code == 200
    assert error(post(client, t, k, outcome="draw"))[0] == 409
    r = reopen(client, t, "closed the wrong table")
    assert r.status_code == 200, r.text
    table = r.json()
    assert table["closed_at"] is None and table["withdrawn"] is False
    assert table["next_hand"]["number"] == 2 and table["next_hand"]["dealer"] == "Bo0"
    assert record(table["close_reason"]) == [("closed", "time called (by referee)"),
                                             ("reopened", "closed the wrong table (by referee)")]
    st = client.get(f"/v1/tables/{t}/standings", headers=bearer(k)).json()
    assert (st["closed"], st["complete"], st["next_hand"]) == (False, False, 2)
    # hand 2: Bo deals (Ann's win passed the deal), Ann sits North; she wins on Bo's discard
    r = post(client, t, k, hand=WIN, winner="N", discarder="E")
    assert r.status_code == 201, r.text
    assert r.json()["number"] == 2 and r.json()["winner"]["player"] == "Ann0"
    st = client.get(f"/v1/tables/{t}/standings", headers=bearer(k)).json()
    assert st["hands_recorded"] == 2 and st["next_hand"] == 3
    assert {p["player"]: p["total"] for p in st["players"]}["Ann0"] == 90
    hands = client.get(f"/v1/tables/{t}/hands", headers=bearer(k)).json()["hands"]
    assert [h["number"] for h in hands] == [1, 2] and hands[0]["revision"] == 1


def test_a_camera_and_a_photo_record_again_once_the_table_is_reopened(sheet: Sheet) -> None:
    """A camera that went on showing a hand while the table was closed (its frame that
    would record it answered 409) records it at its next frame once reopened; a photo
    refused at the closed table is recorded once reopened."""
    client, cam = sheet
    t, k = new_table(client)
    cam.show(100, WIN)
    cam.show(110, OTHER_WIN)
    form = {"winner": "E", "discarder": "S"}

    def shoot(level: int) -> Any:
        return client.post(f"/v1/tables/{t}/frames", headers=bearer(k), data=form,
                           files={"image": ("f.jpg", frame(level), "image/jpeg")})

    assert close(client, t, "time called").status_code == 200
    assert [shoot(100).status_code for _ in range(3)] == [200, 200, 409]
    photo = client.post(f"/v1/tables/{t}/photos", headers=bearer(k), data=form,
                        files={"image": ("p.jpg", frame(110), "image/jpeg")})
    assert error(photo)[:2] == (409, "table_closed") and "reopen" in error(photo)[2]
    assert reopen(client, t, "closed too early").status_code == 200
    got = shoot(100)
    assert got.status_code == 200 and got.json()["status"] == "recorded", got.text
    assert got.json()["recorded"]["number"] == 1
    assert shoot(100).json()["status"] == "already_recorded"  # recorded once
    photo = client.post(f"/v1/tables/{t}/photos", headers=bearer(k),
                        data={"winner": "S", "discarder": "E"},
                        files={"image": ("p.jpg", frame(110), "image/jpeg")})
    assert photo.status_code == 201 and photo.json()["number"] == 2, photo.text
    assert photo.json()["source"] == "photo"


# --- what is refused ---------------------------------------------------------------------


def test_a_table_that_is_not_closed_is_409_saying_so(sheet: Sheet) -> None:
    """Never closed: 409 ``not_closed``, "not closed: there is nothing to reopen". Reopened
    already (a re-send): 409 naming the reopening that stands. Withdrawn (not closed): 409
    saying how a withdrawn table comes back. Nothing is recorded by any of them."""
    client, _ = sheet
    event, [(t, _k), (u, _uk)] = new_event(client)
    status, code, message = error(reopen(client, t, "oops"))
    assert (status, code) == (409, "not_closed") and "not closed" in message, message
    assert "nothing to reopen" in message and "withdrawn" not in message
    table = client.get(f"/v1/tables/{t}", headers=admin()).json()
    assert (table["closed_at"], table["close_reason"]) == (None, None)
    close(client, t, "time called")
    assert reopen(client, t, "mistake").status_code == 200
    status, code, message = error(reopen(client, t, "mistake"))
    assert (status, code) == (409, "not_closed")
    assert "not closed" in message and "reopened" in message and "mistake (by referee)" in message
    assert len(record(client.get(f"/v1/tables/{t}", headers=admin()).json()["close_reason"])) == 2
    client.patch(f"/v1/tables/{u}", headers=admin(), json={"withdrawn": True})
    status, _, message = error(reopen(client, u, "bring it back"))
    assert status == 409 and '"withdrawn": false' in message, message
    del event


def test_only_a_referee_may_reopen_a_table(sheet: Sheet) -> None:
    """As closing: the admin key or a named referee's key (whose name the record keeps);
    the table's own key and its viewing key are 403, another table's key 403, no key or
    an unknown one 401 — and the table stays closed."""
    client, _ = sheet
    event, [(t, k), (_u, uk)] = new_event(client)
    view = client.post(f"/v1/tables/{t}/view-key", headers=admin()).json()["view_key"]
    close(client, t, "time called")
    for headers, status in ((bearer(k), 403), (bearer(view), 403), (bearer(uk), 403),
                            ({}, 401), (bearer("not-a-key-0123456789"), 401)):
        r = reopen(client, t, "please", headers)
        assert r.status_code == status, (headers, r.text)
    assert client.get(f"/v1/tables/{t}", headers=admin()).json()["closed_at"] is not None
    r = reopen(client, t, "closed too early", bearer(LI))
    assert r.status_code == 200, r.text
    assert record(r.json()["close_reason"])[-1] == ("reopened",
                                                    "closed too early (by referee Li)")
    del event


@pytest.mark.parametrize(("body", "status", "code"), [
    ({"reason": "  \n "}, 400, "invalid_request"),  # shows nothing
    ({"reason": ""}, 422, "invalid_request"),
    ({}, 422, "invalid_request"),
    ({"reason": "x", "closed": False}, 422, "invalid_request"),
    ({"reason": 5}, 422, "invalid_request"),
    ({"reason": "x" * 2001}, 422, "invalid_request"),
])
def test_a_reopening_needs_a_reason(sheet: Sheet, body: dict[str, Any], status: int,
                                    code: str) -> None:
    client, _ = sheet
    t, _k = new_table(client)
    close(client, t, "time called")
    r = client.post(f"/v1/tables/{t}/reopen", headers=admin(), json=body)
    assert (r.status_code, r.json()["error"]["code"]) == (status, code), r.text
    assert client.get(f"/v1/tables/{t}", headers=admin()).json()["closed_at"] is not None


def test_an_unknown_table_is_404_and_a_body_not_sent_as_json_415(sheet: Sheet) -> None:
    client, _ = sheet
    assert error(reopen(client, 999, "x"))[:2] == (404, "not_found")
    t, _k = new_table(client)
    close(client, t, "time called")
    r = client.post(f"/v1/tables/{t}/reopen", content=b"reason=x",
                    headers={**admin(), "Content-Type": "application/x-www-form-urlencoded"})
    assert r.status_code == 415, r.text


# --- the record: nothing lost, shown by the sheet -----------------------------------------


def test_closing_and_reopening_twice_keeps_every_close_and_reopening(sheet: Sheet) -> None:
    """Closed, reopened, closed again, reopened again: each close and reopening stays in
    the record with its time, reason and referee; while closed the close that stands
    comes first and is the one a refused hand names (not the record); the sheet's CSV
    has a ``closed`` / ``reopened`` row for each, oldest first, the close that stands
    last, before the totals; ``GET …/sheet`` shows the table and standings as they are."""
    client, _ = sheet
    t, k = new_table(client)
    post(client, t, k, hand=WIN, winner="E", discarder="S")
    close(client, t, "time called at 18:00")
    reopen(client, t, "wrong table")
    post(client, t, k, outcome="draw")
    r = close(client, t, "time called at 18:30", key=LI)
    assert r.status_code == 200, r.text
    reason = r.json()["close_reason"]
    first, *rest = reason.split("\n")
    assert first == "time called at 18:30 (by referee Li)"
    assert record("\n".join(rest)) == [("closed", "time called at 18:00 (by referee)"),
                                       ("reopened", "wrong table (by referee)")]
    status, _, message = error(post(client, t, k, outcome="draw"))
    assert status == 409 and "closed (time called at 18:30 (by referee Li))" in message
    assert "18:00" not in message and "POST /v1/tables/" in message and "/reopen" in message
    status, _, message = error(close(client, t, "again"))
    assert status == 409 and "already closed (time called at 18:30 (by referee Li))" in message

    rows = [(r["row"], r["note"]) for r in csv_rows(client, t)]
    assert [r for r, _ in rows] == ["hand", "hand", "closed", "reopened", "closed", "total"]
    notes = [n for r, n in rows if r in ("closed", "reopened")]
    assert [n.split(": ", 1)[1] for n in notes] == [
        "time called at 18:00 (by referee)", "wrong table (by referee)",
        "time called at 18:30 (by referee Li)"]
    assert all(re.match(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00: ", n) for n in notes), notes
    assert csv_rows(client, t)[-1]["points Ann0"] == "45"  # the totals row, as before

    r = reopen(client, t, "one more hand to play")
    assert record(r.json()["close_reason"]) == [
        ("closed", "time called at 18:00 (by referee)"), ("reopened", "wrong table (by referee)"),
        ("closed", "time called at 18:30 (by referee Li)"),
        ("reopened", "one more hand to play (by referee)")]
    whole = client.get(f"/v1/tables/{t}/sheet", headers=bearer(k)).json()
    assert whole["table"]["close_reason"] == r.json()["close_reason"]
    assert whole["table"]["closed_at"] is None and whole["standings"]["closed"] is False
    assert whole["table"]["next_hand"]["number"] == 3
    assert [h["number"] for h in whole["hands"]] == [1, 2]
    assert [r["row"] for r in csv_rows(client, t)] == [
        "hand", "hand", "closed", "reopened", "closed", "reopened", "total"]


def test_a_table_never_reopened_reads_as_before(sheet: Sheet) -> None:
    """A close alone keeps ``close_reason`` as before (the reason with who closed it); a
    reason given on several lines is kept on one (each line of the record is one entry);
    its CSV has the one ``closed`` row; a table never closed has none."""
    client, _ = sheet
    event, [(t, _k), (u, _uk)] = new_event(client)
    r = close(client, t, "  time called\r\nat 18:00 ")
    assert r.json()["close_reason"] == "time called at 18:00 (by referee)"
    assert [r["row"] for r in csv_rows(client, t)] == ["closed", "total"]
    assert [r["row"] for r in csv_rows(client, u)] == ["total"]
    r = reopen(client, t, "wrong\ntable")
    assert record(r.json()["close_reason"])[-1] == ("reopened", "wrong table (by referee)")
    del event


def test_corrections_and_penalties_after_a_reopening_keep_the_record(sheet: Sheet) -> None:
    """What a referee does at a reopened table (a correction, a penalty, a rename) leaves
    the record of its closings as it is."""
    client, _ = sheet
    t, k = new_table(client)
    post(client, t, k, hand=WIN, winner="E", discarder="S")
    close(client, t, "time called")
    kept = reopen(client, t, "mistake").json()["close_reason"]
    assert client.post(f"/v1/tables/{t}/hands/1/corrections", headers=admin(),
                       json={"winner": "W", "reason": "it was W"}).status_code == 201
    assert client.post(f"/v1/tables/{t}/penalties", headers=admin(),
                       json={"player": 0, "kind": "warning"}).status_code == 201
    assert client.patch(f"/v1/tables/{t}", headers=admin(),
                        json={"name": "T1 main"}).status_code == 200
    assert client.get(f"/v1/tables/{t}", headers=admin()).json()["close_reason"] == kept


# --- the description ---------------------------------------------------------------------


def test_the_reopen_route_is_described_with_its_answers(sheet: Sheet) -> None:
    """``/docs`` describes ``POST …/reopen`` as it answers: its body (a reason), its 200
    (the table with its next hand, the same component as the close's), 400, 409, 404
    and the key's answers (admin or referee key only); a real answer fits the schema."""
    from test_openapi_answers import problems, published

    client, _ = sheet
    spec = client.get("/openapi.json").json()
    operation = spec["paths"]["/v1/tables/{table_id}/reopen"]["post"]
    assert {"200", "400", "401", "403", "404", "409", "415", "422", "429", "503"} <= set(
        operation["responses"])
    assert "not closed" in operation["responses"]["409"]["description"]
    assert "admin key" in operation["description"].split("**Key:**")[1]
    assert published(spec, "post", "/v1/tables/{table_id}/reopen", 200) == published(
        spec, "post", "/v1/tables/{table_id}/close", 200)
    body = operation["requestBody"]["content"]["application/json"]["schema"]
    assert spec["components"]["schemas"][body["$ref"].rsplit("/", 1)[1]]["required"] == [
        "reason"]
    t, _k = new_table(client)
    close(client, t, "time called")
    answer = reopen(client, t, "mistake").json()
    assert problems(spec, published(spec, "post", "/v1/tables/{table_id}/reopen", 200),
                    answer) == []
    assert json.dumps(answer)  # plain JSON
