"""Event tables through the API, on SQLite and on PostgreSQL: hands recorded exactly once
from camera frames and automatic-table posts, referee corrections/voids kept as history,
penalties (错和/诈和), standings following seed 003's rotation and settlement, CSV export."""

from __future__ import annotations

import csv
import io
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from fastapi.testclient import TestClient
from test_tables_helpers import (
    ADMIN,
    FakeCamera,
    admin,
    client_for,
    database_url,
    frame,
    make_app,
    new_event,
)

import scoring
from vision.detections import Detections


def _mcr_available() -> bool:
    return "mcr" in scoring.rule_sets()


needs_mcr = pytest.mark.skipif(not _mcr_available(), reason="the MCR rule set is not built yet")

# 清龙 with a wind pung: the 门风刻/圈风刻 fans depend on the seat and round winds.
WIND_HAND = "[SSS,1]123m456m789m55p"
PLAIN_HAND = "123m456m789m123p55p"


def norm(hand: str) -> str:
    """The hand in the scorer's canonical notation (as the sheet stores it)."""
    return scoring.format_hand(scoring.parse_hand(hand))


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def setup(backend: str, tmp_path: Path) -> Iterator[tuple[TestClient, FakeCamera, Path]]:
    url = database_url(backend, tmp_path)
    app, cam = make_app(url, tmp_path / "data")
    for client in client_for(app):
        yield client, cam, tmp_path / "data"


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def post_frame(client: TestClient, table: int, key: str, level: int,
               **fields: str) -> dict:
    r = client.post(f"/v1/tables/{table}/frames", headers=bearer(key),
                    files={"image": ("f.jpg", frame(level), "image/jpeg")}, data=fields)
    assert r.status_code == 200, r.text
    return r.json()


@needs_mcr
def test_event_of_two_tables_records_each_hand_exactly_once(setup) -> None:
    client, cam, data_dir = setup
    event_id, [(t1, k1), (t2, k2)] = new_event(client)
    hand = cam.show(120, PLAIN_HAND)
    cam.show(60, "123m456m789m123p5p", complete=False, tiles=13)
    # Table 1: an overhead camera. Stable over 3 frames → recorded on the third, once.
    statuses = [post_frame(client, t1, k1, lvl, winner="S", self_drawn="true")["status"]
                for lvl in (60, hand, hand, hand, hand, hand)]
    assert statuses == ["waiting", "waiting", "waiting", "recorded", "already_recorded",
                        "already_recorded"]
    # Table 2: an automatic table posting tiles; a re-send of hand 1 is not a new hand.
    body = {"number": 1, "hand": PLAIN_HAND, "winner": "W", "discarder": "E"}
    assert client.post(f"/v1/tables/{t2}/hands", json=body, headers=bearer(k2)).status_code == 201
    again = client.post(f"/v1/tables/{t2}/hands", json=body, headers=bearer(k2))
    assert again.status_code == 200 and again.json()["created"] is False
    for t, k in ((t1, k1), (t2, k2)):
        hands = client.get(f"/v1/tables/{t}/hands", headers=bearer(k)).json()["hands"]
        assert [h["number"] for h in hands] == [1]
    rec = client.get(f"/v1/tables/{t1}/hands/1", headers=bearer(k1)).json()
    assert rec["source"] == "camera" and rec["outcome"] == "win"
    assert rec["rules"] == "mcr" and rec["version"] == "mil-2015"  # the version it was scored by
    assert rec["image_ref"] and (data_dir / rec["image_ref"]).is_file()
    assert rec["recognized"]["hand"] == PLAIN_HAND
    total = scoring.score(PLAIN_HAND, self_drawn=True, seat_wind="S").total
    assert rec["points"] == {"Ann0": -(8 + total), "Bo0": 3 * (8 + total),
                             "Cai0": -(8 + total), "Dan0": -(8 + total)}
    st = client.get(f"/v1/events/{event_id}/standings", headers=admin()).json()
    assert [t["hands_recorded"] for t in st["tables"]] == [1, 1]
    assert st["players"][0]["player"] == "Bo0" and st["players"][0]["total"] == 3 * (8 + total)


@needs_mcr
def test_a_flower_read_differently_frame_to_frame_is_one_hand_under_mcr(setup) -> None:
    """MCR 花牌 counts bonus tiles by number: a camera that reads one flower as 7f, then
    6f, then 7f again sees one hand (the same score) and records it once, on the third
    frame, as that frame read it. A third flower found right after is the same tiles read
    otherwise, not a second hand; after frames of play (no complete hand) it is one."""
    client, cam, _ = setup
    _, [(t, k), _] = new_event(client)
    a = cam.show(120, PLAIN_HAND + " 2f7f")
    b = cam.show(140, PLAIN_HAND + " 2f6f")
    more = cam.show(160, PLAIN_HAND + " 2f6f8f")
    play = cam.show(80, None, complete=False, tiles=60)
    got = [post_frame(client, t, k, lvl, winner="E", self_drawn="1")["status"]
           for lvl in (a, b, a, b, a, more, more, more, play, play, play, more, more, more)]
    assert got == ["waiting", "waiting", "recorded", "already_recorded", "already_recorded",
                   "already_recorded", "already_recorded", "already_recorded",
                   "waiting", "waiting", "waiting", "waiting", "waiting", "recorded"]
    hands = client.get(f"/v1/tables/{t}/hands", headers=bearer(k)).json()["hands"]
    assert [h["hand"] for h in hands] == [norm(PLAIN_HAND + " 2f7f"),
                                          norm(PLAIN_HAND + " 2f6f8f")]


@needs_mcr
def test_a_camera_shown_only_revealed_hands_records_a_different_one_at_once(setup) -> None:
    """A camera that sends frames only while a hand is shown: the next hand, three or more
    tiles away from the one recorded last, is a new hand without frames of play between;
    one a tile away would be the same tiles read otherwise (the gap rule)."""
    client, cam, _ = setup
    _, [(t, k), _] = new_event(client)
    a, b = cam.show(120, PLAIN_HAND), cam.show(180, WIND_HAND)
    got = [post_frame(client, t, k, lvl, winner="E", self_drawn="1")["status"]
           for lvl in (a, a, a, b, b, b)]
    assert got == ["waiting", "waiting", "recorded", "waiting", "waiting", "recorded"]


@needs_mcr
def test_cleared_table_lets_the_camera_record_the_next_hand(setup) -> None:
    client, cam, _ = setup
    _, [(t, k), _] = new_event(client)
    a, b = cam.show(120, PLAIN_HAND), cam.show(180, WIND_HAND)
    seq = [a, a, a, 0, a, 0, 0, 0, b, b, b, b]
    got = [post_frame(client, t, k, lvl, winner="E", self_drawn="1")["status"] for lvl in seq]
    assert got.count("recorded") == 2
    hands = client.get(f"/v1/tables/{t}/hands", headers=bearer(k)).json()["hands"]
    assert [(h["number"], h["hand"]) for h in hands] == [(1, norm(PLAIN_HAND)),
                                                          (2, norm(WIND_HAND))]


def _frames_refused(client: TestClient, t: int, k: str, level: int, fields: dict[str, str],
                    why: str) -> None:
    """Three frames of the scene at ``level``, a self-drawn win by E with ``fields``: each
    refused 400 with ``why`` in its message."""
    for _ in range(3):
        r = client.post(f"/v1/tables/{t}/frames", headers=bearer(k),
                        files={"image": ("f.jpg", frame(level), "image/jpeg")},
                        data={"winner": "E", "self_drawn": "true", **fields})
        assert r.status_code == 400, r.text
        assert why in r.json()["error"]["message"]


@needs_mcr
def test_a_camera_frame_with_seats_that_contradict_is_refused_at_once(setup) -> None:
    """A self-draw with a discarder can never be recorded: the camera hears so on its
    first frame (400, naming it), not when the hand is revealed, and the refused frames
    count for nothing."""
    client, cam, _ = setup
    _, [(t, k), _] = new_event(client)
    a = cam.show(120, PLAIN_HAND)
    _frames_refused(client, t, k, a, {"discarder": "S"}, "self-drawn win has no discarder")
    got = [post_frame(client, t, k, a, winner="E", self_drawn="1")["status"] for _ in range(3)]
    assert got == ["waiting", "waiting", "recorded"]


@needs_mcr
@pytest.mark.parametrize(("context", "why"), [
    ('{"x":' + "[" * 260 + "]" * 260 + "}", "context.x.0 is a list"),
    ('{"a":' + "[" * 990 + "]" * 990 + "}", "nests lists or objects too deeply"),
    ('{"gold": {"kind": "5m"}}', "context.gold is a JSON object"),
])
def test_a_camera_frame_whose_context_nests_values_is_refused_and_nothing_recorded(
        setup, context: str, why: str) -> None:
    """No 500, never lost data: a frame's context nested 260 deep was recorded with its
    hand and answered 500, and that hand's history could never be read again (its
    revisions are kept for ever); 990 deep, json.loads' RecursionError gave a 500. A
    context field holds a plain value or a list of them: 400 naming it, nothing kept."""
    client, cam, _ = setup
    _, [(t, k), _] = new_event(client)
    a = cam.show(120, PLAIN_HAND)
    _frames_refused(client, t, k, a, {"context": context}, why)
    assert client.get(f"/v1/tables/{t}/hands", headers=bearer(k)).json()["hands"] == []
    body = {"hand": PLAIN_HAND, "winner": "E", "self_drawn": True,
            "context": {"x": [["deep"]]}}
    r = client.post(f"/v1/tables/{t}/hands", json=body, headers=bearer(k))
    assert r.status_code == 422 and "context.x.0 is a list" in r.text


@needs_mcr
def test_a_camera_still_showing_its_hand_is_told_that_hand_s_number(setup) -> None:
    """``already_recorded`` names the hand the camera recorded, not the sheet's last: a
    draw the referee posts after it (hand 2) does not become the camera's hand."""
    client, cam, _ = setup
    _, [(t, k), _] = new_event(client)
    a = cam.show(120, PLAIN_HAND)
    got = [post_frame(client, t, k, a, winner="E", self_drawn="1") for _ in range(4)]
    assert [(g["status"], g["hand_number"]) for g in got] == [
        ("waiting", None), ("waiting", None), ("recorded", 1), ("already_recorded", 1)]
    r = client.post(f"/v1/tables/{t}/hands", json={"outcome": "draw"}, headers=admin())
    assert r.status_code == 201 and r.json()["number"] == 2
    again = post_frame(client, t, k, a, winner="E", self_drawn="1")
    assert (again["status"], again["hand_number"]) == ("already_recorded", 1)


@needs_mcr
def test_standings_follow_seed_rotation_and_8_point_settlement(setup) -> None:
    client, _, _ = setup
    _, [(t, k), _] = new_event(client, tables=2)
    # Who wins each of the 16 hands (by name) and how; seats come from the seed's rotation.
    seats = {1: "ABCD", 2: "BADC", 3: "CDBA", 4: "DCAB"}  # E S W N per round (A=Ann0 …)
    names = {"A": "Ann0", "B": "Bo0", "C": "Cai0", "D": "Dan0"}
    plan = [("A", None), ("B", "C"), ("C", None), ("D", "A"), (None, None), ("A", "B"),
            ("C", None), ("D", "B"), ("B", None), ("A", "C"), ("B", "D"), (None, None),
            ("D", None), ("C", "D"), ("A", None), ("B", "A")]
    expected = dict.fromkeys(names.values(), 0)
    winds = "ESWN"
    for n, (winner, discarder) in enumerate(plan, start=1):
        rnd, k_in = divmod(n - 1, 4)
        order = seats[rnd + 1]  # players in E, S, W, N seats of the round
        wind_of = {order[(k_in + i) % 4]: winds[i] for i in range(4)}  # dealer is East
        nxt = client.get(f"/v1/tables/{t}", headers=bearer(k)).json()["next_hand"]
        assert nxt["dealer"] == names[order[k_in]] and nxt["prevalent_wind"] == winds[rnd]
        assert nxt["seats"] == {wind_of[p]: names[p] for p in "ABCD"}
        if winner is None:
            body = {"outcome": "draw"}
        else:
            body = {"hand": WIND_HAND, "winner": wind_of[winner],
                    "self_drawn": discarder is None}
            if discarder:
                body["discarder"] = wind_of[discarder]
            total = scoring.score(WIND_HAND, self_drawn=discarder is None,
                                  seat_wind=wind_of[winner], prevalent_wind=winds[rnd]).total
            for p in "ABCD":
                if p == winner:
                    expected[names[p]] += 3 * (8 + total) if discarder is None else 24 + total
                elif discarder is None or p == discarder:
                    expected[names[p]] -= 8 + total
                else:
                    expected[names[p]] -= 8
        r = client.post(f"/v1/tables/{t}/hands", json=body, headers=bearer(k))
        assert r.status_code == 201, r.text
        assert r.json()["number"] == n
    st = client.get(f"/v1/tables/{t}/standings", headers=bearer(k)).json()
    assert st["complete"] and st["hands_settled"] == 16 and st["next_hand"] is None
    assert {p["player"]: p["total"] for p in st["players"]} == expected
    assert sum(expected.values()) == 0 and len(set(expected.values())) > 1
    full = client.post(f"/v1/tables/{t}/hands", json={"outcome": "draw"}, headers=bearer(k))
    assert full.status_code == 409 and "16 hands" in full.json()["error"]["message"]


@needs_mcr
def test_wind_fans_use_the_hand_seat_and_round_wind(setup) -> None:
    client, _, _ = setup
    _, [(t, k), _] = new_event(client)
    for _ in range(5):
        client.post(f"/v1/tables/{t}/hands", json={"outcome": "draw"}, headers=bearer(k))
    # Hand 6: round 2 (南圈); the South seat holds a pung of S: 圈风刻 and 门风刻.
    r = client.post(f"/v1/tables/{t}/hands", headers=bearer(k),
                    json={"hand": WIND_HAND, "winner": "S", "self_drawn": True})
    south = scoring.score(WIND_HAND, self_drawn=True, seat_wind="S", prevalent_wind="S")
    east = scoring.score(WIND_HAND, self_drawn=True, seat_wind="E", prevalent_wind="E")
    assert r.json()["total"] == south.total and south.total > east.total


@needs_mcr
def test_referee_correction_and_void_keep_history(setup) -> None:
    client, cam, _ = setup
    _, [(t, k), _] = new_event(client)
    h = cam.show(120, PLAIN_HAND)
    for _ in range(3):  # the camera does not know who won: recorded as pending
        last = post_frame(client, t, k, h)
    assert last["recorded"]["outcome"] == "pending"
    st = client.get(f"/v1/tables/{t}/standings", headers=bearer(k)).json()
    assert st["hands_pending"] == [1] and all(p["total"] == 0 for p in st["players"])
    # Table keys cannot correct; the referee (admin key) can.
    fix = {"hand": PLAIN_HAND, "winner": "N", "discarder": "W", "reason": "N won on W's 5p"}
    r = client.post(f"/v1/tables/{t}/hands/1/corrections", json=fix, headers=bearer(k))
    assert r.status_code == 403
    r = client.post(f"/v1/tables/{t}/hands/1/corrections", json=fix, headers=admin())
    assert r.status_code == 201, r.text
    body = r.json()
    assert body["revision"] == 2 and body["outcome"] == "win"
    assert [h["action"] for h in body["history"]] == ["record", "correct"]
    assert body["history"][0]["outcome"] == "pending"
    assert body["history"][1]["image_ref"] == body["history"][0]["image_ref"]
    total = body["total"]
    assert body["points"] == {"Ann0": -8, "Bo0": -8, "Cai0": -(8 + total), "Dan0": 24 + total}
    # a correction that is no legal win stays pending, its note saying why, the reason
    # appended (seventy-fourth session: the correction's words follow the evaluation's)
    low = {"hand": "[234m,1]456p678s234s99m", "winner": "S", "discarder": "E",
           "reason": "S said it was his"}
    r = client.post(f"/v1/tables/{t}/hands/1/corrections", json=low, headers=admin())
    assert r.status_code == 201 and r.json()["outcome"] == "pending", r.text
    assert r.json()["note"].startswith("not a legal win under mcr")
    assert r.json()["note"].endswith("; S said it was his")
    assert "the hand goes on (seed 003)" in r.json()["note"]  # what the rules say to do
    r = client.post(f"/v1/tables/{t}/hands/1/corrections", json=fix, headers=admin())
    assert r.status_code == 201 and r.json()["note"] == "N won on W's 5p"
    r = client.post(f"/v1/tables/{t}/hands/1/void", json={"reason": "misdeal"}, headers=admin())
    assert r.status_code == 201
    assert [h["action"] for h in r.json()["history"]] == ["record", "correct", "correct",
                                                          "correct", "void"]
    again = client.post(f"/v1/tables/{t}/hands/1/void", json={"reason": "x"}, headers=admin())
    assert again.status_code == 409
    st = client.get(f"/v1/tables/{t}/standings", headers=bearer(k)).json()
    assert st["hands_void"] == [1] and all(p["total"] == 0 for p in st["players"])
    nxt = client.post(f"/v1/tables/{t}/hands", json={"outcome": "draw"}, headers=bearer(k))
    assert nxt.json()["number"] == 2  # the voided hand keeps its place
    ref = client.post(f"/v1/tables/{t}/hands", json={"outcome": "draw"}, headers=admin())
    assert ref.json()["source"] == "referee" and ref.json()["author"] == "referee"
    assert nxt.json()["source"] == "table" and nxt.json()["author"] == f"table:{t}"


@needs_mcr
def test_wrong_win_and_false_win_penalties(setup) -> None:
    client, _, _ = setup
    _, [(t, k), _] = new_event(client)
    r = client.post(f"/v1/tables/{t}/penalties", headers=admin(),
                    json={"player": "Cai0", "kind": "wrong_win", "hand": 1, "reason": "7 fan"})
    assert r.status_code == 201, r.text
    assert r.json()["deltas"] == {"Ann0": 10, "Bo0": 10, "Cai0": -30, "Dan0": 10}
    r2 = client.post(f"/v1/tables/{t}/penalties", headers=admin(),
                     json={"player": 3, "kind": "false_win"})
    assert r2.json()["deltas"] == {"Ann0": 20, "Bo0": 20, "Cai0": 20, "Dan0": -60}
    st = client.get(f"/v1/tables/{t}/standings", headers=bearer(k)).json()
    assert {p["player"]: p["total"] for p in st["players"]} == {
        "Ann0": 30, "Bo0": 30, "Cai0": -10, "Dan0": -50}
    pid = r2.json()["id"]
    v = client.post(f"/v1/tables/{t}/penalties/{pid}/void", json={"reason": "withdrawn"},
                    headers=admin())
    assert v.status_code == 200 and v.json()["void"] is True
    st = client.get(f"/v1/tables/{t}/standings", headers=bearer(k)).json()
    assert {p["player"]: p["penalty_points"] for p in st["players"]} == {
        "Ann0": 10, "Bo0": 10, "Cai0": -30, "Dan0": 10}
    bad = client.post(f"/v1/tables/{t}/penalties", headers=admin(),
                      json={"player": "Zed", "kind": "wrong_win"})
    assert bad.status_code == 400 and "Zed" in bad.json()["error"]["message"]


@needs_mcr
def test_illegal_win_below_8_fan_is_pending_for_the_referee(setup) -> None:
    client, _, _ = setup
    _, [(t, k), _] = new_event(client)
    weak = "[234m,1]456p678s234s99m"  # 平和, 喜相逢, 单钓将: 4 fan, under 8
    r = client.post(f"/v1/tables/{t}/hands", headers=bearer(k),
                    json={"hand": weak, "winner": "E", "discarder": "S"})
    assert r.status_code == 201, r.text
    assert r.json()["outcome"] == "pending" and r.json()["legal"] is False
    assert set(r.json()["points"].values()) == {0}
    # the referee is told why: the fan before flowers (起和番), not the total with flowers
    assert "(4 fan before flowers, 8 needed)" in r.json()["note"]
    three_flowers = client.post(f"/v1/tables/{t}/hands", headers=bearer(k), json={
        "hand": "123m456m789p234s5s5s", "winner": "S", "discarder": "E", "flowers": 3})
    assert three_flowers.json()["total"] == 8 and three_flowers.json()["outcome"] == "pending"
    assert "(5 fan before flowers, 8 needed)" in three_flowers.json()["note"]


@needs_mcr
def test_camera_hand_the_scorer_refuses_is_pending_with_the_reason(setup) -> None:
    client, cam, _ = setup
    _, [(t, k), _] = new_event(client)
    short = cam.show(90, "123m456m789m55p", tiles=11)  # read as complete, but 11 tiles
    for _ in range(3):
        last = post_frame(client, t, k, short, winner="E", self_drawn="1")
    assert last["status"] == "recorded"
    rec = last["recorded"]
    assert rec["outcome"] == "pending" and "wrong number of tiles" in rec["note"]
    # The same hand from an automatic table is refused outright.
    r = client.post(f"/v1/tables/{t}/hands", headers=bearer(k),
                    json={"hand": "123m456m789m55p", "winner": "E", "self_drawn": True})
    assert r.status_code == 400 and "wrong number of tiles" in r.json()["error"]["message"]


@needs_mcr
def test_a_camera_win_read_unsure_waits_for_the_referee(setup) -> None:
    """A camera's legal win read with a score confidence under TILECAM_CAMERA_REVIEW_BELOW
    (0.5) is recorded pending, scored but not settled, with the reason; a sure reading of
    the same hand settles; the referee's confirmation (a correction) settles the unsure one."""
    from tilecam.tables.camera import FrameReading

    client, cam, _ = setup
    _, [(t1, k1), (t2, k2)] = new_event(client)
    for level, sure in ((100, 0.3), (110, 0.9)):
        cam.scenes[level] = FrameReading(PLAIN_HAND, True, 14,
                                         {"hand": PLAIN_HAND, "score_confidence": sure})
    for _ in range(3):
        unsure = post_frame(client, t1, k1, 100, winner="E", self_drawn="1")
        sure = post_frame(client, t2, k2, 110, winner="E", self_drawn="1")
    held, settled = unsure["recorded"], sure["recorded"]
    assert held["outcome"] == "pending" and "score confidence 30%, under 50%" in held["note"]
    assert held["total"] == settled["total"] and set(held["points"].values()) == {0}
    assert settled["outcome"] == "win"
    assert max(settled["points"].values()) == 3 * (8 + settled["total"])
    fix = {"hand": PLAIN_HAND, "winner": "E", "self_drawn": True, "reason": "checked"}
    r = client.post(f"/v1/tables/{t1}/hands/1/corrections", json=fix, headers=admin())
    assert r.status_code == 201 and r.json()["outcome"] == "win", r.text


def test_the_review_threshold_is_a_share(tmp_path: Path) -> None:
    from pydantic import ValidationError

    from tilecam.settings import Settings

    assert Settings(camera_review_below=0).camera_review_below == 0.0
    with pytest.raises(ValidationError, match="camera_review_below"):
        Settings(camera_review_below=1.5)


@needs_mcr
def test_frames_through_the_real_recognizer_with_a_scripted_detector(
    backend: str, tmp_path: Path
) -> None:
    """The service's own frame reader (vision.recognize: layout, correction, scoring) with
    a detector that answers laid-out tiles by the frame's grey level (no model needed)."""
    from tilecam.tables.access import frame_reader
    from vision.layout_scene import SceneBuilder

    scenes = {
        60: SceneBuilder().standing("123m456m789m123p5p").row().detections(),  # 13: waiting
        120: SceneBuilder().standing("123m456m789m123p5p").win("5p").row().detections(),
    }

    for scene in scenes.values():  # as a loaded detector names itself (name@version)
        scene.meta["model"] = "scripted@1"

    def detector(image):  # image → Detections
        return scenes[round(float(image.mean()) / 60) * 60]

    app, _ = make_app(database_url(backend, tmp_path), tmp_path / "data")
    del app.dependency_overrides[frame_reader]
    for client in client_for(app):
        app.state.detector = detector
        _, [(t, k), _] = new_event(client)
        got = [post_frame(client, t, k, lvl, winner="W", self_drawn="true")
               for lvl in (60, 120, 120, 120, 120)]
        assert [g["status"] for g in got] == ["waiting", "waiting", "waiting", "recorded",
                                              "already_recorded"]
        assert got[0]["complete"] is False and got[0]["tiles"] == 13
        rec = got[3]["recorded"]
        assert rec["hand"] == norm(PLAIN_HAND) and rec["outcome"] == "win"
        assert rec["recognized"]["winning_tile"] == "5p" and len(rec["recognized"]["tiles"]) == 14
        assert rec["recognized"]["model"] == "scripted@1"  # which model read the hand, kept
        total = scoring.score(PLAIN_HAND, self_drawn=True, seat_wind="W").total
        assert rec["points"]["Cai0"] == 3 * (8 + total)


@needs_mcr
@pytest.mark.parametrize(("fuse", "flower"), [(3, "4f"), (1, "3f")])
def test_a_still_hands_frames_are_read_together(backend: str, tmp_path: Path, fuse: int,
                                                 flower: str) -> None:
    """TILECAM_CAMERA_FUSE_FRAMES (3): the camera's frames of a still hand are read
    together (vision.frame_fusion). A season read 4f 0.6, then 4f 0.55, then 3f 0.5 / 4f
    0.45 is recorded on the third frame as 4f (mean 0.53 against 0.4); each frame alone
    (1) records the third frame's 3f."""
    from tilecam.tables.access import frame_reader
    from vision.layout_scene import SceneBuilder

    def scene(first: tuple[str, float], second: tuple[str, float]) -> Detections:
        b = SceneBuilder().standing("123m456m789m123p5p").win("5p").row()
        return b.flowers(first[0]).uncertain([first, second]).detections()

    scenes = {100: scene(("4f", 0.6), ("3f", 0.3)), 120: scene(("4f", 0.55), ("3f", 0.4)),
              140: scene(("3f", 0.5), ("4f", 0.45))}

    def detector(image: np.ndarray) -> Detections:
        return scenes[round(float(image.mean()) / 20) * 20]

    app, _ = make_app(database_url(backend, tmp_path), tmp_path / "data",
                      camera_fuse_frames=fuse)
    del app.dependency_overrides[frame_reader]
    for client in client_for(app):
        app.state.detector = detector
        _, [(t, k), _] = new_event(client)
        got = [post_frame(client, t, k, lvl, winner="W", self_drawn="true")
               for lvl in (100, 120, 140)]
        assert [g["status"] for g in got] == ["waiting", "waiting", "recorded"]
        assert got[2]["recorded"]["hand"] == norm(PLAIN_HAND + " " + flower)
        notes = got[2]["recorded"]["recognized"]["notes"]
        assert ("tiles read together over 3 frames of the same scene" in notes) == (fuse == 3)


@needs_mcr
def test_csv_sheet_and_event_standings(setup) -> None:
    client, _, _ = setup
    event_id, [(t, k), _] = new_event(client)
    client.post(f"/v1/tables/{t}/hands", headers=bearer(k),
                json={"hand": PLAIN_HAND, "winner": "E", "self_drawn": True})
    client.post(f"/v1/tables/{t}/penalties", headers=admin(),
                json={"player": "Bo0", "kind": "false_win"})
    r = client.get(f"/v1/tables/{t}/sheet.csv", headers=bearer(k))
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(r.content.decode("utf-8-sig"))))
    assert rows[0][-4:] == ["points Ann0", "points Bo0", "points Cai0", "points Dan0"]
    assert [row[0] for row in rows[1:]] == ["hand", "penalty", "total"]
    totals = [int(x) for x in rows[-1][-4:]]
    st = client.get(f"/v1/tables/{t}/standings", headers=bearer(k)).json()
    assert totals == [next(p["total"] for p in st["players"] if p["position"] == i)
                      for i in range(4)]
    ev = client.get(f"/v1/events/{event_id}/standings.csv", headers=admin())
    erows = list(csv.reader(io.StringIO(ev.content.decode("utf-8-sig"))))
    assert erows[0][:3] == ["rank", "player", "tables"] and len(erows) == 9
    assert erows[1][1:3] == ["Ann0", "T1"]


@needs_mcr
def test_same_place_posted_at_once_is_recorded_once(setup) -> None:
    client, _, _ = setup
    _, [(t, k), _] = new_event(client)
    body = {"number": 1, "hand": PLAIN_HAND, "winner": "S", "self_drawn": True}
    codes: list[int] = []

    def send() -> None:
        codes.append(client.post(f"/v1/tables/{t}/hands", json=body, headers=bearer(k))
                     .status_code)

    threads = [threading.Thread(target=send) for _ in range(6)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert sorted(codes) == [200] * 5 + [201]
    hands = client.get(f"/v1/tables/{t}/hands", headers=bearer(k)).json()["hands"]
    assert len(hands) == 1


@needs_mcr
def test_a_camera_flooding_frames_at_once_records_the_hand_once(setup) -> None:
    client, cam, _ = setup
    _, [(t, k), (t2, k2)] = new_event(client)
    h = cam.show(120, PLAIN_HAND)
    statuses: list[str] = []

    def send(table: int, key: str) -> None:
        for _ in range(4):
            statuses.append(post_frame(client, table, key, h, winner="E",
                                       self_drawn="true")["status"])

    threads = [threading.Thread(target=send, args=(t, k)) for _ in range(4)]
    threads.append(threading.Thread(target=client.post, args=(f"/v1/tables/{t}/hands",),
                                    kwargs={"json": {"outcome": "draw"}, "headers": bearer(k)}))
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert statuses.count("recorded") == 1 and len(statuses) == 16
    hands = client.get(f"/v1/tables/{t}/hands", headers=bearer(k)).json()["hands"]
    assert sorted(h["source"] for h in hands) == ["camera", "table"]
    assert [h["number"] for h in hands] == [1, 2]
    assert client.get(f"/v1/tables/{t2}/hands", headers=bearer(k2)).json()["hands"] == []


@needs_mcr
def test_resend_with_other_content_or_out_of_order_is_a_conflict(setup) -> None:
    client, _, _ = setup
    _, [(t, k), _] = new_event(client)
    ok = {"number": 1, "hand": PLAIN_HAND, "winner": "S", "self_drawn": True}
    assert client.post(f"/v1/tables/{t}/hands", json=ok, headers=bearer(k)).status_code == 201
    other = {**ok, "winner": "W"}
    r = client.post(f"/v1/tables/{t}/hands", json=other, headers=bearer(k))
    assert r.status_code == 409 and "already recorded" in r.json()["error"]["message"]
    r = client.post(f"/v1/tables/{t}/hands", json={**ok, "number": 5}, headers=bearer(k))
    assert r.status_code == 409 and "next hand" in r.json()["error"]["message"]


def test_xiamen_table_settles_with_xiamen_money(setup) -> None:
    client, _, _ = setup
    _, [(t, k)] = new_event(client, rules="xiamen", tables=1)
    # Non-dealer self-drawn, no gold held, two flowers: unit 8 + 2 = 10, ×2 = 20 each.
    r = client.post(f"/v1/tables/{t}/hands", headers=bearer(k), json={
        "hand": "123m456m789m123p456p55s", "winner": "S", "self_drawn": True, "flowers": 2,
        "context": {"gold": "9s"}})
    assert r.status_code == 201, r.text
    assert r.json()["points"] == {"Ann0": -20, "Bo0": 60, "Cai0": -20, "Dan0": -20}
    assert r.json()["rules"] == "xiamen"


def test_xiamen_bonus_money_is_kept_apart_from_the_chips(setup) -> None:
    """游金 (regional rules: ×4 chips, plus 50 bonus money from each payer outside the
    chips, 课外): the sheet keeps the bonus in ``money`` — per hand, in the standings (not
    in the ranking total) and in money columns of the CSV — and a void hand's is gone."""
    client, _, _ = setup
    _, [(t, k)] = new_event(client, rules="xiamen", tables=1)
    r = client.post(f"/v1/tables/{t}/hands", headers=bearer(k), json={
        "hand": "123m456m789m123p456pC5p", "winner": "S", "self_drawn": True,
        "context": {"gold": "C", "win": "you_jin"}})
    assert r.status_code == 201, r.text
    chips = scoring.score("123m456m789m123p456pC5p", rules="xiamen", gold="C",
                          win="you_jin", self_drawn=True).total  # from each payer
    assert r.json()["points"] == {"Ann0": -chips, "Bo0": 3 * chips, "Cai0": -chips,
                                  "Dan0": -chips}
    assert r.json()["money"] == {"Ann0": -50, "Bo0": 150, "Cai0": -50, "Dan0": -50}
    st = client.get(f"/v1/tables/{t}/standings", headers=bearer(k)).json()
    line = {p["player"]: p for p in st["players"]}
    assert (line["Bo0"]["money"], line["Bo0"]["total"]) == (150, 3 * chips)
    rows = list(csv.reader(io.StringIO(
        client.get(f"/v1/tables/{t}/sheet.csv", headers=bearer(k)).content.decode("utf-8-sig"))))
    assert rows[0][-4:] == ["money Ann0", "money Bo0", "money Cai0", "money Dan0"]
    assert rows[1][-8:] == [str(-chips), str(3 * chips), str(-chips), str(-chips),
                            "-50", "150", "-50", "-50"]
    assert rows[-1][-4:] == ["-50", "150", "-50", "-50"]
    assert client.post(f"/v1/tables/{t}/hands/1/void", headers=admin(),
                       json={"reason": "misdeal"}).status_code == 201
    st = client.get(f"/v1/tables/{t}/standings", headers=bearer(k)).json()
    assert [p["money"] for p in st["players"]] == [0, 0, 0, 0]


def test_xiamen_false_win_is_paid_in_money_apart_from_the_chips(setup) -> None:
    """Xiamen 诈胡 (regional rules: the claimant pays false_win_money 50 to each other
    player, outside the chips): the referee's false_win penalty defaults to it, in money;
    given points with money false it is chips; an MCR table keeps no money to put it in."""
    client, _, _ = setup
    _, [(t, k)] = new_event(client, rules="xiamen", tables=1)
    p = client.post(f"/v1/tables/{t}/penalties", headers=admin(),
                    json={"player": "Cai0", "kind": "false_win"})
    assert p.status_code == 201, p.text
    assert (p.json()["points"], p.json()["money"]) == (50, True)
    chips = client.post(f"/v1/tables/{t}/penalties", headers=admin(),
                        json={"player": "Bo0", "kind": "false_win", "points": 4,
                              "money": False})
    assert chips.status_code == 201 and chips.json()["money"] is False
    st = client.get(f"/v1/tables/{t}/standings", headers=bearer(k)).json()
    line = {p["player"]: (p["money"], p["penalty_points"]) for p in st["players"]}
    assert line == {"Ann0": (50, 4), "Bo0": (50, -12), "Cai0": (-150, 4), "Dan0": (50, 4)}
    rows = list(csv.reader(io.StringIO(
        client.get(f"/v1/tables/{t}/sheet.csv", headers=bearer(k)).content.decode("utf-8-sig"))))
    assert [r[-8:] for r in rows if r[0] == "penalty"] == [
        ["0", "0", "0", "0", "50", "50", "-150", "50"], ["4", "-12", "4", "4", "0", "0", "0", "0"]]
    assert client.post(f"/v1/tables/{t}/penalties/{p.json()['id']}/void", headers=admin(),
                       json={"reason": "appeal upheld"}).status_code == 200
    st = client.get(f"/v1/tables/{t}/standings", headers=bearer(k)).json()
    assert [p["money"] for p in st["players"]] == [0, 0, 0, 0]
    _, [(m, _key), _] = new_event(client)
    r = client.post(f"/v1/tables/{m}/penalties", headers=admin(),
                    json={"player": "Ann0", "kind": "false_win", "money": True})
    assert r.status_code == 400 and "no money apart" in r.json()["error"]["message"]


def test_times_read_back_from_the_sheet_carry_their_utc_offset(setup) -> None:
    """Times are stored in UTC; SQLite gives them back without a zone, and the answer
    must still say UTC (as the answer that created the row did)."""
    client, _, _ = setup
    _, [(t, k), _] = new_event(client)
    made = client.post(f"/v1/tables/{t}/penalties", headers=admin(),
                       json={"player": "Ann0", "kind": "wrong_win"}).json()
    hand = client.post(f"/v1/tables/{t}/hands", headers=bearer(k), json={"outcome": "draw"})
    read = client.get(f"/v1/tables/{t}/penalties", headers=bearer(k)).json()["penalties"][0]
    again = client.get(f"/v1/tables/{t}/hands/1", headers=bearer(k)).json()
    for stamp in (made["created_at"], read["created_at"], hand.json()["created_at"],
                  again["created_at"]):
        assert stamp.endswith("+00:00"), stamp
    assert read["created_at"] == made["created_at"]


def test_an_mcr_sheet_has_no_money_columns(setup) -> None:
    client, _, _ = setup
    _, [(t, k), _] = new_event(client)
    rows = list(csv.reader(io.StringIO(
        client.get(f"/v1/tables/{t}/sheet.csv", headers=bearer(k)).content.decode("utf-8-sig"))))
    assert rows[0][-4:] == ["points Ann0", "points Bo0", "points Cai0", "points Dan0"]
    hand = client.post(f"/v1/tables/{t}/hands", headers=bearer(k),
                       json={"hand": PLAIN_HAND, "winner": "E", "self_drawn": True})
    assert "money" not in hand.json()


def test_zhenjiang_table_settles_discard_with_the_discarder_only(setup) -> None:
    client, _, _ = setup
    _, [(t, k)] = new_event(client, rules="zhenjiang", tables=1)
    hand = "[555m,1]456m789m123p55p"
    r = client.post(f"/v1/tables/{t}/hands", headers=bearer(k), json={
        "hand": hand, "winner": "W", "discarder": "E", "context": {"indicator": "9s"}})
    assert r.status_code == 201, r.text
    each = scoring.score(hand, rules="zhenjiang", discarder=2, indicator="9s",
                         seat_wind="W").total
    assert each > 0
    assert r.json()["points"] == {"Ann0": -each, "Bo0": 0, "Cai0": each, "Dan0": 0}
    # 诈胡 on a Zhenjiang table: the rule set's false_win chips (6 by default) to each.
    p = client.post(f"/v1/tables/{t}/penalties", headers=admin(),
                    json={"player": "Bo0", "kind": "false_win"})
    assert p.status_code == 201 and p.json()["points"] == 6
    p = client.post(f"/v1/tables/{t}/penalties", headers=admin(),
                    json={"player": "Bo0", "kind": "wrong_win"})
    assert p.status_code == 400 and "give the penalty points" in p.json()["error"]["message"]


def test_zhenjiang_sheet_books_first_wild_discard_and_wild_after_pung(setup) -> None:
    """Seed 001: 打首搭 +6 and 碰牌后打搭 +2, paid to the discarder by each other player,
    reach the sheet with the win's payments (seats as winds or seen from the winner, the
    scorer's own balance placed on the players) and, in a drawn hand, on their own."""
    client, _, _ = setup
    _, [(t, k)] = new_event(client, rules="zhenjiang", tables=1)
    hand = "[555m,1]456m789m123p55p"
    r = client.post(f"/v1/tables/{t}/hands", headers=bearer(k), json={
        "hand": hand, "winner": "S", "self_drawn": True,
        "context": {"indicator": "9s", "first_wild_discard": "W", "wild_after_pung": "S"}})
    assert r.status_code == 201, r.text
    net = scoring.score(hand, rules="zhenjiang", self_drawn=True, indicator="9s",
                        first_wild_discard="right", wild_after_pung="winner").details["net"]
    # hand 1: Ann0 E, Bo0 S (the winner), Cai0 W (right of S), Dan0 N (opposite)
    assert r.json()["points"] == {"Ann0": net["left"], "Bo0": net["winner"],
                                  "Cai0": net["right"], "Dan0": net["opposite"]}
    assert r.json()["points"] == {"Ann0": -1 - 6 - 2, "Bo0": 3 - 6 + 6,
                                  "Cai0": -1 + 18 - 2, "Dan0": -1 - 6 - 2}
    # a drawn hand: the deal passed to Bo0 (E); N discarded the first 百搭
    r = client.post(f"/v1/tables/{t}/hands", headers=bearer(k), json={
        "outcome": "draw", "context": {"indicator": "2p", "first_wild_discard": "N"}})
    assert r.status_code == 201, r.text
    assert r.json()["points"] == {"Ann0": 18, "Bo0": -6, "Cai0": -6, "Dan0": -6}
    assert "打首搭: N gets 18" in r.json()["note"]
    st = client.get(f"/v1/tables/{t}/standings", headers=bearer(k)).json()
    assert {p["player"]: p["total"] for p in st["players"]} == {
        "Ann0": -9 + 18, "Bo0": 3 - 6, "Cai0": 15 - 6, "Dan0": -9 - 6}
    for context, said in (({"first_wild_discard": "left"}, "seat wind"),
                          ({"wild_after_pung": "Q"}, "seat wind")):
        r = client.post(f"/v1/tables/{t}/hands", headers=bearer(k),
                        json={"outcome": "draw", "context": context})
        assert r.status_code == 400 and said in r.json()["error"]["message"], r.text
    r = client.post(f"/v1/tables/{t}/hands", headers=bearer(k), json={
        "hand": hand, "winner": "S", "self_drawn": True,
        "context": {"indicator": "9s", "wild_after_pung": "S,S"}})
    assert r.status_code == 400 and "claimed pung" in r.json()["error"]["message"], r.text
    # a false claim waits for the referee, who is pointed at the rule set's own penalty
    r = client.post(f"/v1/tables/{t}/hands", headers=bearer(k), json={
        "hand": "111p456m789m123pSN", "winner": "S", "self_drawn": True,
        "context": {"indicator": "1m"}})
    assert r.status_code == 201 and r.json()["outcome"] == "pending", r.text
    assert "诈胡 (penalty false_win); the hand goes on" in r.json()["note"]


def test_xiamen_camera_frames_carry_the_gold(setup) -> None:
    client, cam, _ = setup
    _, [(t, k)] = new_event(client, rules="xiamen", tables=1)
    h = cam.show(150, "123m456m789m123p456p55s", tiles=17)
    for _ in range(3):
        last = post_frame(client, t, k, h, winner="S", self_drawn="true", flowers="2",
                          context='{"gold": "9s"}')
    # the recognizer takes it as the sheet does: the dealer from the winner's seat (S: no)
    assert cam.contexts[-1] == {"gold": "9s", "dealer": False}
    assert last["status"] == "recorded"
    assert last["recorded"]["points"] == {"Ann0": -20, "Bo0": 60, "Cai0": -20, "Dan0": -20}
    r = client.post(f"/v1/tables/{t}/frames", headers=bearer(k), data={"context": "[1]"},
                    files={"image": ("f.jpg", frame(0), "image/jpeg")})
    assert r.status_code == 400 and "JSON object" in r.json()["error"]["message"]


def test_bad_input_answers_clear_errors(setup) -> None:
    client, _, _ = setup
    _, [(t, k)] = new_event(client, rules="xiamen", tables=1)
    gold = {"gold": "9s"}  # the rule-set context is checked first, as /v1/score does
    cases = [
        ({"hand": "123x", "winner": "E", "self_drawn": True, "context": gold}, 400, "'x'"),
        ({"hand": "123m456m789m123p456p55s", "winner": "E", "discarder": "E",
          "context": gold}, 400, "cannot be the discarder"),
        ({"outcome": "draw", "winner": "E"}, 400, "no winner"),
        ({"outcome": "win", "context": gold}, 400, "needs the hand"),
        ({"hand": "123x", "winner": "E", "self_drawn": True}, 400, "needs the gold"),
        ({"hand": "123m", "winner": "Q"}, 422, "winner"),
        ({"hand": "123m", "flowers": "many"}, 422, "flowers"),
    ]
    for body, status, words in cases:
        r = client.post(f"/v1/tables/{t}/hands", json=body, headers=bearer(k))
        assert r.status_code == status, (body, r.text)
        assert words in r.json()["error"]["message"], (body, r.text)
    r = client.post(f"/v1/tables/{t}/frames", headers=bearer(k),
                    files={"image": ("x.jpg", b"not an image at all", "image/jpeg")})
    assert r.status_code in (400, 415) and r.json()["error"]["code"]
    r = client.post(f"/v1/tables/{t}/frames", headers=bearer(k),
                    files={"image": ("f.jpg", frame(0), "image/jpeg")}, data={"winner": "X"})
    assert r.status_code == 400 and "winner" in r.json()["error"]["message"]
    r = client.post("/v1/events/999/tables", headers=admin(),
                    json={"name": "T", "players": ["a", "b", "c", "d"]})
    assert r.status_code == 404
    r = client.post("/v1/events", headers=admin(), json={"name": "x", "rules": "poker"})
    assert r.status_code == 400 and "poker" in r.json()["error"]["message"]
    eid = client.post("/v1/events", headers=admin(), json={"name": "y", "rules": "xiamen"})
    r = client.post(f"/v1/events/{eid.json()['id']}/tables", headers=admin(),
                    json={"name": "T", "players": ["a", "b", "c"]})
    assert r.status_code == 400 and "four player" in r.json()["error"]["message"]
    assert client.get(f"/v1/tables/{t}/hands/7", headers=bearer(k)).status_code == 404
    huge = 10**20  # beyond any database integer: refused before it reaches the database
    assert client.get(f"/v1/tables/{t}/hands/{huge}", headers=bearer(k)).status_code == 422
    assert client.get(f"/v1/events/{huge}", headers=admin()).status_code == 422
    r = client.post(f"/v1/events/{eid.json()['id']}/tables", headers=admin(),
                    json={"name": "T", "players": ["a" * 201, "b", "c", "d"]})
    assert r.status_code == 400 and "200 characters" in r.json()["error"]["message"]


def test_table_keys_admin_key_and_rate_limits(backend: str, tmp_path: Path) -> None:
    url = database_url(backend, tmp_path)
    app, _ = make_app(url, tmp_path / "data", rate_limit_per_s=0.01, rate_limit_burst=8)
    for client in client_for(app):
        _, [(t1, k1), (t2, k2)] = new_event(client, rules="xiamen")
        draw = {"outcome": "draw"}
        assert client.post(f"/v1/tables/{t1}/hands", json=draw).status_code == 401
        assert client.post(f"/v1/tables/{t1}/hands", json=draw,
                           headers=bearer("tc_wrong")).status_code == 401
        r = client.post(f"/v1/tables/{t1}/hands", json=draw, headers=bearer(k2))
        assert r.status_code == 403 and "another table" in r.json()["error"]["message"]
        assert client.get(f"/v1/tables/{t2}/standings", headers=bearer(k1)).status_code == 403
        assert client.post("/v1/events", json={"name": "x"}, headers=bearer(k1)).status_code == 403
        assert client.get("/v1/events", headers=admin("nope")).status_code == 401
        assert client.get(f"/v1/tables/{t1}", headers={"X-Api-Key": k1}).status_code == 200
        # Keys are stored hashed: the database never holds the key itself.
        from tilecam.db.models import GameTable
        from tilecam.tables.keys import hash_key

        with app.state.table_db() as session:
            stored = {row.key_hash for row in session.query(GameTable)}
        assert stored == {hash_key(k1), hash_key(k2)} and k1 not in stored
        # Rate limit per key: table 1's key runs out; table 2's key is unaffected.
        codes = [client.get(f"/v1/tables/{t1}", headers=bearer(k1)).status_code
                 for _ in range(10)]
        assert 429 in codes and codes[0] == 200
        limited = client.get(f"/v1/tables/{t1}", headers=bearer(k1))
        assert limited.status_code == 429 and int(limited.headers["Retry-After"]) >= 1
        assert "with this key" in limited.json()["error"]["message"]
        assert client.get(f"/v1/tables/{t2}", headers=bearer(k2)).status_code == 200
        # Failed attempts are limited per client address too, and the answer says so.
        fails = [client.get(f"/v1/tables/{t1}", headers=bearer(f"tc_guess{i}"))
                 for i in range(12)]
        assert fails[0].status_code == 401 and fails[-1].status_code == 429
        assert "from this address" in fails[-1].json()["error"]["message"]


def test_frames_are_not_kept_when_store_frames_is_off(tmp_path: Path) -> None:
    app, cam = make_app(database_url("sqlite", tmp_path), tmp_path / "data", store_frames=False)
    h = cam.show(150, "123m456m789m123p456p55s", tiles=17)
    for client in client_for(app):
        _, [(t, k)] = new_event(client, rules="xiamen", tables=1)
        for _ in range(3):
            last = post_frame(client, t, k, h, winner="E", self_drawn="1",
                              context='{"gold": "9s"}')
        assert last["status"] == "recorded" and last["recorded"]["image_ref"] is None
    assert not (tmp_path / "data" / "frames").exists()


def test_admin_endpoints_are_off_without_an_admin_key(tmp_path: Path) -> None:
    app, _ = make_app(database_url("sqlite", tmp_path), tmp_path / "data", admin_key="")
    for client in client_for(app):
        r = client.post("/v1/events", json={"name": "x"}, headers=admin(ADMIN))
        assert r.status_code == 403 and "TILECAM_ADMIN_KEY" in r.json()["error"]["message"]


@needs_mcr
def test_a_frame_image_that_cannot_be_kept_does_not_lose_the_hand(
    backend: str, tmp_path: Path
) -> None:
    """The data folder cannot take the frame images (here it is a file; in an event, a
    full disk): the revealed hand is still recorded, once, without an image, and the
    camera's answer says why the image was not kept."""
    blocked = tmp_path / "data"
    blocked.write_text("a file where the data folder should be")
    app, cam = make_app(database_url(backend, tmp_path), blocked)
    for client in client_for(app):
        _, [(t, k)] = new_event(client, tables=1)
        hand = cam.show(120, PLAIN_HAND)
        answers = [post_frame(client, t, k, hand, winner="S", self_drawn="true")
                   for _ in range(4)]
        assert [a["status"] for a in answers] == ["waiting", "waiting", "recorded",
                                                  "already_recorded"]
        assert answers[2]["image_error"].startswith("the frame image was not kept: ")
        assert str(blocked) in answers[2]["image_error"]
        assert "image_error" not in answers[1] and "image_error" not in answers[3]
        rec = client.get(f"/v1/tables/{t}/hands/1", headers=bearer(k)).json()
        assert rec["source"] == "camera" and rec["hand"] == norm(PLAIN_HAND)
        assert rec["image_ref"] is None


def test_text_with_a_nul_character_is_refused_before_the_database(setup) -> None:
    """PostgreSQL cannot store U+0000 in text: a NUL in an event's or a table's name, a
    player's name, a note, a reason or a context value answered 500 there (and was kept
    on SQLite). On both databases each is now refused naming the field, and nothing is
    recorded."""
    client, _, _ = setup

    def refused(r: Any, where: str, status: int = 422) -> None:
        assert r.status_code == status, r.text
        assert f"{where} holds the NUL character (U+0000)" in r.json()["error"]["message"]

    refused(client.post("/v1/events", json={"name": "Spring\x00open"}, headers=admin()), "name")
    event, [(t, k), _] = new_event(client)
    refused(client.post(f"/v1/events/{event}/tables", headers=admin(), json={
        "name": "T9", "players": ["Ann", "B\x00o", "Cai", "Dan"]}), "players.1")
    win = {"hand": "[SSS,1]123m456m789m55p", "winner": "S", "self_drawn": True}
    refused(client.post(f"/v1/tables/{t}/hands", headers=bearer(k),
                        json={**win, "note": "seen\x00"}), "note")
    refused(client.post(f"/v1/tables/{t}/hands", headers=bearer(k),
                        json={**win, "context": {"x\x00": 1}}), "context.x\x00")
    assert client.get(f"/v1/tables/{t}/hands", headers=bearer(k)).json()["hands"] == []
    assert client.post(f"/v1/tables/{t}/hands", headers=bearer(k), json=win).status_code == 201
    refused(client.post(f"/v1/tables/{t}/hands/1/corrections", headers=admin(),
                        json={"outcome": "draw", "reason": "nobody\x00"}), "reason")
    refused(client.post(f"/v1/tables/{t}/hands/1/void", headers=admin(),
                        json={"reason": "x\x00"}), "reason")
    refused(client.post(f"/v1/tables/{t}/penalties", headers=admin(),
                        json={"player": "Ann0\x00", "kind": "wrong_win"}), "player")
    refused(client.post(f"/v1/tables/{t}/frames", headers=bearer(k),
                        files={"image": ("f.jpg", frame(90), "image/jpeg")},
                        data={"context": '{"gold": "5m\\u0000"}'}), "gold", status=400)
    assert client.get(f"/v1/tables/{t}/hands/1", headers=bearer(k)).json()["revision"] == 1
    standings = client.get(f"/v1/tables/{t}/standings", headers=bearer(k)).json()
    assert all(p["penalty_points"] == 0 for p in standings["players"])


@pytest.mark.parametrize("table", ["null", "1.5", "-2.2250738585e-313", "99999999999"])
def test_a_frame_to_a_table_path_that_is_no_table_number_is_a_422(
        tmp_path: Path, table: str) -> None:
    """The frame recognizer (the real one, with a detector loaded) read the table number
    from the raw path with ``int()``: ``/v1/tables/null/frames`` answered 500
    (schemathesis, sixty-second session). It takes the route's validated number now."""
    from tilecam.tables.access import frame_reader

    app, _ = make_app(database_url("sqlite", tmp_path), tmp_path / "data")
    del app.dependency_overrides[frame_reader]
    for client in client_for(app):
        app.state.detector = lambda image: None  # loaded; never reached here
        r = client.post(f"/v1/tables/{table}/frames", headers=admin(),
                        files={"image": ("f.jpg", frame(90), "image/jpeg")})
        assert r.status_code == 422, r.text
        assert r.json()["error"]["message"].startswith("path.table_id: ")


@needs_mcr
def test_a_write_whose_answer_cannot_be_read_back_says_it_was_recorded(
        setup, monkeypatch: pytest.MonkeyPatch) -> None:
    """Never lost data, nor doubled: a hand or penalty committed, then the database failing
    to read it back for the answer (a lock held past the busy timeout), was answered 503
    "nothing was recorded … try again" — and the re-send the message asked for recorded
    it twice. The answer is now 201 with the ids of what was recorded and ``view_error``."""
    from sqlalchemy.exc import OperationalError

    from tilecam.api.routes import tables as routes

    client, _, _ = setup
    _, [(t, k), _] = new_event(client)

    def locked(*_: Any, **__: Any) -> None:
        raise OperationalError("SELECT …", {}, Exception("database is locked"))

    with monkeypatch.context() as m:
        m.setattr(routes, "_hand_view", locked)
        m.setattr(routes.views, "penalty_view", locked)
        r = client.post(f"/v1/tables/{t}/hands", headers=bearer(k),
                        json={"hand": PLAIN_HAND, "winner": "E", "self_drawn": True})
        assert r.status_code == 201, r.text
        assert r.json()["recorded"] is True and r.json()["number"] == 1
        # the driver's reason only to the admin key (test_view_error_detail.py)
        assert "the reason is in the server's log" in r.json()["view_error"]
        assert f"GET /v1/tables/{t}/hands/1" in r.json()["view_error"]
        p = client.post(f"/v1/tables/{t}/penalties", headers=admin(),
                        json={"player": 1, "kind": "deduction", "points": 10, "hand": 1})
        assert p.status_code == 201 and p.json()["recorded"] is True, p.text
        assert "database is locked" in p.json()["view_error"]
    hands = client.get(f"/v1/tables/{t}/hands", headers=bearer(k)).json()["hands"]
    assert len(hands) == 1
    pens = client.get(f"/v1/tables/{t}/penalties", headers=bearer(k)).json()["penalties"]
    assert [q["id"] for q in pens] == [p.json()["id"]]


@needs_mcr
def test_a_frame_field_given_twice_or_both_in_form_and_query_is_refused(setup) -> None:
    """Every bad input gets a clear error: a camera frame's ``winner`` sent twice kept the
    last silently, and a query field overrode the form's (E in the form, S in the query
    was recorded as S). Given twice, or in both with other values: 400 naming it."""
    client, cam, _ = setup
    _, [(t, k), _] = new_event(client)
    a = cam.show(120, PLAIN_HAND)
    image = {"image": ("f.jpg", frame(a), "image/jpeg")}
    url = f"/v1/tables/{t}/frames"
    r = client.post(url, headers=bearer(k), files=image,
                    data={"winner": ["E", "S"], "self_drawn": "true"})
    assert r.status_code == 400 and "winner is given twice" in r.text, r.text
    r = client.post(url + "?winner=S", headers=bearer(k), files=image,
                    data={"winner": "E", "self_drawn": "true"})
    assert r.status_code == 400 and "in the form ('E') and in the query ('S')" in r.text
    r = client.post(url + "?winner=S&winner=E", headers=bearer(k), files=image,
                    data={"self_drawn": "true"})
    assert r.status_code == 400 and "winner is given twice" in r.text
    r = client.post(url + "?winner=E", headers=bearer(k), files=image,
                    data={"winner": "E", "self_drawn": "true"})
    assert r.status_code == 200, r.text


def test_rules_an_event_or_table_cannot_have_are_invalid_context(setup) -> None:
    """An unknown rule set, a version the rules lack, an unknown setting: 400
    invalid_context naming it, as /v1/score and /v1/recognize answer them (an unknown rule
    set was invalid_hand, a version of versionless rules invalid_request)."""
    client, _, _ = setup
    for body, words in [
        ({"name": "x", "rules": "poker"}, "poker"),
        ({"name": "x", "rules": "xiamen", "version": "98-strict"}, "no versions"),
        ({"name": "x", "rules": "mcr", "version": "1850"}, "1850"),
    ]:
        r = client.post("/v1/events", headers=admin(), json=body)
        assert r.status_code == 400, (body, r.text)
        assert r.json()["error"]["code"] == "invalid_context", (body, r.text)
        assert words in r.json()["error"]["message"], (body, r.text)
    eid = client.post("/v1/events", headers=admin(), json={"name": "y"}).json()["id"]
    r = client.post(f"/v1/events/{eid}/tables", headers=admin(),
                    json={"name": "T", "players": ["a", "b", "c", "d"],
                          "settings": {"nope": 1}})
    assert r.status_code == 400 and r.json()["error"]["code"] == "invalid_context", r.text
    assert "nope" in r.json()["error"]["message"]
