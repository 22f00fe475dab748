"""One photo a hand (``POST /v1/tables/{id}/photos``) records a hand once, whoever recorded
it first — the camera's rule (:func:`tilecam.tables.camera._sheet_hand`), on SQLite and on
PostgreSQL.

Until the seventy-fifth session a photo of a finished hand the table's camera (or a
referee, or the table) had already recorded was recorded again, and paid twice; and a
phone re-sending its photo after a timeout (no ``number``) recorded the hand twice. Now a
photo whose reading is one of the hands on the sheet since the table was last seen
cleared (the sheet's last hand alone for a table whose camera never saw it cleared, or
that has no camera) — the same tiles as the rules score them or within 2 tiles, a win
claim that agrees, not voided nor ruled a false claim — is 409 ``already_recorded``
naming that hand: nothing recorded, nothing paid, the photo not kept. ``new_hand=true``
says the photo is a new hand with the same tiles. ``number`` still makes a re-send
idempotent (200, the hand recorded).
"""

from __future__ import annotations

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
    new_table,
)

import scoring

STILL = "123m456m789m123p55p"
LATE_FLOWER = "123m456m789m123p55p 3f"  # a tile from STILL: the same hand read otherwise
NEXT = "[SSS,1]123m456m789m55p"  # another hand, far from STILL
WIN = {"winner": "S", "discarder": "E"}

Api = tuple[TestClient, FakeCamera, Path]


def norm(hand: str) -> str:
    return scoring.format_hand(scoring.parse_hand(hand))


@pytest.fixture(params=["sqlite", "postgres"])
def api(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Api]:
    url = database_url(str(request.param), tmp_path)
    app, cam = make_app(url, tmp_path / "data")
    for client in client_for(app):
        yield client, cam, tmp_path / "data"


def frames(client: TestClient, t: int, k: str, level: int, times: int,
           **fields: str) -> list[tuple[str, int | None]]:
    out = []
    for _ in range(times):
        r = client.post(f"/v1/tables/{t}/frames", headers=bearer(k), data=fields or WIN,
                        files={"image": ("f.jpg", frame(level), "image/jpeg")})
        assert r.status_code == 200, r.text
        out.append((r.json()["status"], r.json()["hand_number"]))
    return out


def photo(client: TestClient, t: int, k: str, level: int, **fields: str) -> Any:
    return client.post(f"/v1/tables/{t}/photos", headers=bearer(k), data=fields,
                       files={"image": ("p.jpg", frame(level), "image/jpeg")})


def error(r: Any) -> tuple[int, str, str]:
    body = r.json()
    assert set(body) == {"error"}, body  # the service's one error shape
    return r.status_code, body["error"]["code"], body["error"]["message"]


def hands(client: TestClient, t: int, k: str) -> list[tuple[int, str, str]]:
    return [(h["number"], h["source"], h["hand"]) for h in
            client.get(f"/v1/tables/{t}/hands", headers=bearer(k)).json()["hands"]]


def totals(client: TestClient, t: int, k: str) -> Any:
    return client.get(f"/v1/tables/{t}/standings", headers=bearer(k)).json()["players"]


def kept(data: Path, t: int) -> list[str]:
    """The images kept for table ``t`` (camera frames and photos)."""
    folder = data / "frames" / f"table-{t}"
    return sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []


def test_a_photo_of_the_hand_the_camera_recorded_is_already_recorded(api: Api) -> None:
    """The gap: the camera recorded the hand (1); a phone's photo of it was recorded as
    hand 2 and paid a second time. Now 409 ``already_recorded`` naming hand 1 — the sheet
    one hand, the standings as they were, the photo not kept — also for a photo that
    reads a tile more (a flower the camera missed)."""
    client, cam, data = api
    t, k = new_table(client)
    cam.show(120, STILL)
    cam.show(160, LATE_FLOWER)
    assert frames(client, t, k, 120, 3)[-1] == ("recorded", 1)
    before, images = totals(client, t, k), kept(data, t)
    for level in (120, 160):
        status, code, message = error(photo(client, t, k, level, **WIN))
        assert (status, code) == (409, "already_recorded"), message
        assert "hand 1 " in message and "new_hand=true" in message
    assert hands(client, t, k) == [(1, "camera", norm(STILL))]
    assert totals(client, t, k) == before
    assert kept(data, t) == images
    # the camera, still showing it, is told the same
    assert frames(client, t, k, 120, 1) == [("already_recorded", 1)]


def test_a_photo_sent_again_without_its_number_records_one_hand(api: Api) -> None:
    """A phone re-sending its photo after a timeout: without ``number`` the second was a
    second hand; now ``already_recorded`` with hand 1. With ``number`` the re-send stays
    idempotent (200, the hand recorded, ``created`` false)."""
    client, cam, data = api
    t, k = new_table(client)
    cam.show(120, STILL)
    first = photo(client, t, k, 120, **WIN)
    assert first.status_code == 201 and first.json()["number"] == 1
    status, code, message = error(photo(client, t, k, 120, **WIN))
    assert (status, code) == (409, "already_recorded") and "hand 1 " in message
    again = photo(client, t, k, 120, number="1", **WIN)
    assert again.status_code == 200 and again.json()["created"] is False
    # sent as the next hand's number: the hand it shows is hand 1, not a second
    assert error(photo(client, t, k, 120, number="2", **WIN))[:2] == (409, "already_recorded")
    assert hands(client, t, k) == [(1, "photo", norm(STILL))]
    assert len(kept(data, t)) == 1


def test_new_hand_true_records_the_same_tiles_as_a_new_hand(api: Api) -> None:
    """A caller who means a new hand with the same tiles says so: ``new_hand=true``."""
    client, cam, _ = api
    t, k = new_table(client)
    cam.show(120, STILL)
    assert photo(client, t, k, 120, **WIN).status_code == 201
    r = photo(client, t, k, 120, new_hand="true", **WIN)
    assert r.status_code == 201, r.text
    assert r.json()["number"] == 2 and r.json()["created"] is True
    assert error(photo(client, t, k, 120, new_hand="perhaps", **WIN))[:2] == (
        400, "invalid_request")
    assert len(hands(client, t, k)) == 2


def test_a_photo_of_a_hand_posted_by_the_referee_or_the_table_is_already_recorded(
        api: Api) -> None:
    """Whoever recorded it: a hand the referee typed in, then a photo of it — 409 naming
    it (no camera at this table: the sheet's last hand is the one it may show)."""
    client, cam, _ = api
    t, k = new_table(client)
    cam.show(120, STILL)
    r = client.post(f"/v1/tables/{t}/hands", headers=admin(), json={"hand": STILL, **WIN})
    assert r.status_code == 201
    assert error(photo(client, t, k, 120, **WIN))[:2] == (409, "already_recorded")
    assert hands(client, t, k) == [(1, "referee", norm(STILL))]


def test_a_photo_whose_win_claim_contradicts_is_another_hand(api: Api) -> None:
    """A photo of the same tiles won by another seat is not that hand: recorded."""
    client, cam, _ = api
    t, k = new_table(client)
    cam.show(120, STILL)
    assert frames(client, t, k, 120, 3)[-1] == ("recorded", 1)
    r = photo(client, t, k, 120, winner="N", discarder="W")
    assert r.status_code == 201 and r.json()["number"] == 2


def test_a_voided_hand_is_no_hand_a_photo_shows(api: Api) -> None:
    """A hand the referee voided counts for nothing: a photo of those tiles records."""
    client, cam, _ = api
    t, k = new_table(client)
    cam.show(120, STILL)
    client.post(f"/v1/tables/{t}/hands", headers=admin(), json={"hand": STILL, **WIN})
    assert client.post(f"/v1/tables/{t}/hands/1/void", headers=admin(),
                       json={"reason": "misdeal"}).status_code == 201
    r = photo(client, t, k, 120, **WIN)
    assert r.status_code == 201 and r.json()["number"] == 2


def test_only_the_hands_since_the_table_was_last_seen_cleared_count(api: Api) -> None:
    """The camera's window: every hand since its table was last seen cleared (hand 1 after
    hand 2 still counts), none before; a table whose camera never saw it cleared (or no
    camera): the sheet's last hand alone."""
    client, cam, _ = api
    t, k = new_table(client)
    cam.show(120, STILL)
    cam.show(160, NEXT)
    empty = cam.show(60, None, complete=False, tiles=0)  # the cleared table, lit
    assert frames(client, t, k, empty, 3)[-1] == ("waiting", None)
    assert frames(client, t, k, 120, 3)[-1] == ("recorded", 1)
    assert frames(client, t, k, 160, 3)[-1] == ("recorded", 2)
    status, code, message = error(photo(client, t, k, 120, **WIN))
    assert (status, code) == (409, "already_recorded") and "hand 1 " in message
    assert frames(client, t, k, empty, 3)[-1] == ("waiting", None)  # cleared again
    r = photo(client, t, k, 120, **WIN)  # dealt again: a new hand
    assert r.status_code == 201 and r.json()["number"] == 3
    # no camera: the sheet's last hand alone
    u, uk = new_table(client)
    for hand in (STILL, NEXT):
        client.post(f"/v1/tables/{u}/hands", headers=bearer(uk), json={"hand": hand, **WIN})
    assert error(photo(client, u, uk, 160, **WIN))[:2] == (409, "already_recorded")
    r = photo(client, u, uk, 120, **WIN)
    assert r.status_code == 201 and r.json()["number"] == 3


def test_the_photo_form_documents_new_hand_and_the_409(api: Api) -> None:
    """/docs shows ``new_hand`` in the photo's form and query, and the 409's codes."""
    client, _, _ = api
    spec = client.get("/openapi.json").json()
    operation = spec["paths"]["/v1/tables/{table_id}/photos"]["post"]
    form = operation["requestBody"]["content"]["multipart/form-data"]["schema"]
    assert form["properties"]["new_hand"]["type"] == "boolean"
    assert "already_recorded" in form["properties"]["new_hand"]["description"]
    assert "new_hand" in {p["name"] for p in operation["parameters"]}
    assert "already_recorded" in operation["responses"]["409"]["description"]
