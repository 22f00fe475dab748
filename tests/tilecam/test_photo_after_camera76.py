"""A photo's complete hand while a hand recorded since the table was last seen cleared
stands is 409 ``already_recorded`` however far apart the two read, on SQLite and on
PostgreSQL (:func:`tilecam.tables.camera.photo_deal_hand`).

Until the seventy-sixth session a photo read more than 2 tiles from the hand the camera
had recorded (glare, a bad photo) was recorded — and paid — as a second hand of the same
deal. A deal has one win (MCR's 截和, Zhenjiang's 无一炮双响), so where the camera has
seen the table cleared, a photo of any complete hand while a hand recorded since then
stands — by the camera, a photo, a referee or the table — is refused, the message naming
the recorded hand and how many tiles apart the two read; ``new_hand=true`` records it.
Within 2 tiles the answer is the one given before. Camera frames keep their own rule (a
far reading is another hand at once), and a table whose camera never saw it cleared, or
without a camera, sees no deal end: there a far photo is recorded, as before.
"""

from __future__ import annotations

import json
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
NEAR = "123m456m789m123p55p 3f"  # a tile from STILL: the same hand read otherwise
MISREAD = "123m456m789m789p55p"  # 3 tiles from STILL (123p read 789p): glare
NEXT = "[SSS,1]123m456m789m55p"  # another hand, far from STILL
WIN = {"winner": "S", "discarder": "E"}
# the FakeCamera's scenes, by the grey level of the frame sent
L_STILL, L_NEAR, L_MISREAD, L_NEXT, L_EMPTY = 120, 160, 170, 180, 60

Api = tuple[TestClient, FakeCamera, Path]


def norm(hand: str) -> str:
    return scoring.format_hand(scoring.parse_hand(hand))


@pytest.fixture(params=["sqlite", "postgres"])
def api(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Api]:
    url = database_url(str(request.param), tmp_path)
    app, cam = make_app(url, tmp_path / "data")
    cam.show(L_STILL, STILL)
    cam.show(L_NEAR, NEAR)
    cam.show(L_MISREAD, MISREAD)
    cam.show(L_NEXT, NEXT)
    cam.show(L_EMPTY, None, complete=False, tiles=0)  # the cleared table, lit
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


def cleared(client: TestClient, t: int, k: str) -> None:
    """The camera sees the table cleared (3 lit frames with no tiles)."""
    assert frames(client, t, k, L_EMPTY, 3)[-1] == ("waiting", None)


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
    folder = data / "frames" / f"table-{t}"
    return sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []


def test_a_photo_read_3_tiles_from_the_camera_s_hand_is_not_a_second_hand(api: Api) -> None:
    """The gap: the camera, having seen the table cleared, recorded hand 1; a photo of it
    read 3 tiles otherwise was recorded as hand 2 and paid. Now 409 ``already_recorded``
    naming hand 1 and the distance, nothing recorded, paid or kept; ``new_hand=true``
    records it."""
    client, _, data = api
    t, k = new_table(client)
    cleared(client, t, k)
    assert frames(client, t, k, L_STILL, 3)[-1] == ("recorded", 1)
    before, images = totals(client, t, k), kept(data, t)
    status, code, message = error(photo(client, t, k, L_MISREAD, **WIN))
    assert (status, code) == (409, "already_recorded"), message
    assert message.startswith(f"the table's camera recorded hand 1 of table {t} "
                              f"({norm(STILL)}, won by S off E) since the table was last "
                              "seen cleared; this photo reads "
                              f"{norm(MISREAD)}, won by S off E, 3 tiles apart"), message
    assert "if it is a new hand, post it with new_hand=true" in message
    assert "to fix the recorded hand, a referee corrects it" in message
    assert hands(client, t, k) == [(1, "camera", norm(STILL))]
    assert totals(client, t, k) == before and kept(data, t) == images
    # a photo that says nothing of the win is refused alike, naming no win of its own
    status, code, message = error(photo(client, t, k, L_NEXT))
    assert (status, code) == (409, "already_recorded")
    assert f"this photo reads {norm(NEXT)}, " in message and "hand 1 " in message
    # the caller who means a new hand says so
    r = photo(client, t, k, L_MISREAD, new_hand="true", **WIN)
    assert r.status_code == 201 and r.json()["number"] == 2, r.text
    # the camera, still showing hand 1, is told so, as before
    assert frames(client, t, k, L_STILL, 1) == [("already_recorded", 1)]


def test_within_2_tiles_the_message_is_as_before(api: Api) -> None:
    """A photo within 2 tiles of the recorded hand keeps today's answer."""
    client, _, _ = api
    t, k = new_table(client)
    cleared(client, t, k)
    assert frames(client, t, k, L_STILL, 3)[-1] == ("recorded", 1)
    status, code, message = error(photo(client, t, k, L_NEAR, **WIN))
    assert (status, code) == (409, "already_recorded")
    assert message.startswith(f"the photo shows hand 1 of table {t}, already recorded by "
                              "the table's camera"), message
    assert "send the photo again with new_hand=true" in message


def test_the_same_tiles_won_otherwise_in_the_same_deal_is_refused(api: Api) -> None:
    """Within 2 tiles but won by another seat — recorded before as another hand (no win
    claim agrees); in a deal that has its win, it is that win told otherwise."""
    client, _, _ = api
    t, k = new_table(client)
    cleared(client, t, k)
    assert frames(client, t, k, L_STILL, 3)[-1] == ("recorded", 1)
    status, code, message = error(photo(client, t, k, L_STILL, winner="N", discarder="W"))
    assert (status, code) == (409, "already_recorded")
    assert (f"this photo reads {norm(STILL)}, won by N off W, the same tiles, won "
            "otherwise:") in message, message
    assert len(hands(client, t, k)) == 1


@pytest.mark.parametrize("first", ["photo", "referee", "table"])
def test_whoever_recorded_the_deal_s_hand(api: Api, first: str) -> None:
    """The rule holds for whatever the camera's memory holds: every hand on the sheet
    since it saw the table cleared, whoever recorded it — a photo, a referee, the
    table."""
    client, _, _ = api
    t, k = new_table(client)
    cleared(client, t, k)
    if first == "photo":
        r = photo(client, t, k, L_STILL, **WIN)
    else:
        r = client.post(f"/v1/tables/{t}/hands", headers=admin() if first == "referee"
                        else bearer(k), json={"hand": STILL, **WIN})
    assert r.status_code == 201, r.text
    status, code, message = error(photo(client, t, k, L_MISREAD, **WIN))
    assert (status, code) == (409, "already_recorded")
    who = {"photo": "a photo", "referee": "a referee", "table": "the table"}[first]
    assert message.startswith(f"{who} recorded hand 1 of table {t} "), message
    assert "3 tiles apart" in message
    assert hands(client, t, k) == [(1, first, norm(STILL))]


def test_camera_frames_keep_their_own_rule(api: Api) -> None:
    """The camera's frames are unaffected: a far reading after its record is another hand
    at once (recorded, hand 2), and a photo refused meanwhile changes nothing of it."""
    client, _, _ = api
    t, k = new_table(client)
    cleared(client, t, k)
    assert frames(client, t, k, L_STILL, 3)[-1] == ("recorded", 1)
    assert error(photo(client, t, k, L_MISREAD, **WIN))[:2] == (409, "already_recorded")
    assert frames(client, t, k, L_MISREAD, 3) == [("waiting", None), ("waiting", None),
                                                  ("recorded", 2)]
    # a photo recorded first: the camera's frames of a far hand record it all the same
    u, uk = new_table(client)
    cleared(client, u, uk)
    assert photo(client, u, uk, L_STILL, **WIN).status_code == 201
    assert frames(client, u, uk, L_NEXT, 3)[-1] == ("recorded", 2)


def test_the_table_seen_cleared_again_ends_the_deal(api: Api) -> None:
    """After the camera sees the table cleared again the same far photo is a new hand."""
    client, _, _ = api
    t, k = new_table(client)
    cleared(client, t, k)
    assert frames(client, t, k, L_STILL, 3)[-1] == ("recorded", 1)
    assert error(photo(client, t, k, L_NEXT, **WIN))[:2] == (409, "already_recorded")
    cleared(client, t, k)
    r = photo(client, t, k, L_NEXT, **WIN)
    assert r.status_code == 201 and r.json()["number"] == 2, r.text
    # … whose own deal now has its win
    assert error(photo(client, t, k, L_STILL, **WIN))[:2] == (409, "already_recorded")


def test_a_voided_or_false_claim_or_a_draw_since_leaves_the_deal_open(api: Api) -> None:
    """A hand the referee voided or ruled a false claim (the hand played on) is no win
    of the deal; a drawn deal recorded after the win says a deal ended since."""
    client, _, _ = api
    for ruling in ("void", "false-claim", "draw"):
        t, k = new_table(client)
        cleared(client, t, k)
        assert frames(client, t, k, L_STILL, 3)[-1] == ("recorded", 1)
        if ruling == "draw":
            r = client.post(f"/v1/tables/{t}/hands", headers=bearer(k),
                            json={"outcome": "draw"})
        else:
            body = {"reason": "ruled", **({"kind": "wrong_win"} if ruling != "void"
                                           else {})}
            r = client.post(f"/v1/tables/{t}/hands/1/{ruling}", headers=admin(), json=body)
        assert r.status_code == 201, r.text
        r = photo(client, t, k, L_MISREAD, **WIN)
        assert r.status_code == 201, (ruling, r.text)


def test_never_seen_cleared_or_no_camera_records_a_far_photo(api: Api) -> None:
    """A camera that never saw its table cleared (or no camera) sees no deal end: a far
    photo is a new hand, as before; the sheet's last hand within 2 tiles is refused."""
    client, _, _ = api
    t, k = new_table(client)
    assert frames(client, t, k, L_STILL, 3)[-1] == ("recorded", 1)
    r = photo(client, t, k, L_MISREAD, **WIN)
    assert r.status_code == 201 and r.json()["number"] == 2, r.text
    u, uk = new_table(client)
    assert client.post(f"/v1/tables/{u}/hands", headers=bearer(uk),
                       json={"hand": STILL, **WIN}).status_code == 201
    r = photo(client, u, uk, L_MISREAD, **WIN)
    assert r.status_code == 201 and r.json()["number"] == 2, r.text
    assert error(photo(client, u, uk, L_MISREAD, **WIN))[:2] == (409, "already_recorded")


def test_a_closed_table_answers_its_own_409_first(api: Api) -> None:
    """At a closed table a far photo is the close's conflict, not ``new_hand`` advice."""
    client, _, _ = api
    t, k = new_table(client)
    cleared(client, t, k)
    assert frames(client, t, k, L_STILL, 3)[-1] == ("recorded", 1)
    assert client.post(f"/v1/tables/{t}/close", headers=admin(),
                       json={"reason": "time"}).status_code in (200, 201)
    status, code, message = error(photo(client, t, k, L_MISREAD, **WIN))
    assert (status, code) == (409, "table_closed") and "new_hand" not in message, message


def test_the_photo_route_documents_the_second_win(api: Api) -> None:
    """/docs says a second win of the deal is refused, and ``new_hand`` records it."""
    client, _, _ = api
    spec = client.get("/openapi.json").json()
    operation = spec["paths"]["/v1/tables/{table_id}/photos"]["post"]
    form = operation["requestBody"]["content"]["multipart/form-data"]["schema"]
    assert "second win of the deal" in form["properties"]["new_hand"]["description"]
    assert "second win of the deal" in operation["responses"]["409"]["description"]
    assert "one deal has one win" in operation["description"]


FALSE_WIN = "123p456p789p123s79s"  # not complete: declared a win, 错和/诈胡


@pytest.mark.parametrize(("rules", "context"), [
    ("mcr", {}), ("zhenjiang", {"indicator": "3m"})])
def test_an_unruled_false_claim_is_no_win_of_the_deal(
    api: Api, rules: str, context: dict[str, str]
) -> None:
    """A declared win the scorer finds none (MCR 错和/诈和, Zhenjiang 诈胡; Xiamen's 诈胡
    is pending so too), posted by the table and awaiting the referee's ruling, is no win
    of the deal: the hand plays on, so a photo of the deal's real win is recorded, as
    before the seventy-sixth session's one-win rule (which refused it 409)."""
    client, _, _ = api
    t, k = new_table(client, rules=rules)
    cleared(client, t, k)
    body: dict[str, Any] = {"hand": FALSE_WIN, "winner": "S", "discarder": "E"}
    if context:
        body["context"] = context
    r = client.post(f"/v1/tables/{t}/hands", headers=bearer(k), json=body)
    assert r.status_code == 201 and r.json()["outcome"] == "pending", r.text
    fields = {"winner": "W", "discarder": "N"}
    if context:
        fields["context"] = json.dumps(context)
    r = photo(client, t, k, L_STILL, **fields)
    assert r.status_code == 201, r.text
    assert [n for n, _, _ in hands(client, t, k)] == [1, 2]


def test_a_refusal_names_a_referee_s_corrected_tiles_as_the_referee_s(api: Api) -> None:
    """The camera recorded hand 1, a referee corrected its tiles: a photo then refused
    says the tiles are as a referee corrected them, and does not ask for a correction."""
    client, _, _ = api
    t, k = new_table(client)
    cleared(client, t, k)
    assert frames(client, t, k, L_STILL, 3)[-1] == ("recorded", 1)
    r = client.post(f"/v1/tables/{t}/hands/1/corrections", headers=admin(),
                    json={"hand": MISREAD, **WIN, "reason": "a 789p seen"})
    assert r.status_code in (200, 201), r.text
    status, code, message = error(photo(client, t, k, L_STILL, **WIN))
    assert (status, code) == (409, "already_recorded"), message
    assert "as a referee corrected it" in message and "a referee corrects it" not in message
