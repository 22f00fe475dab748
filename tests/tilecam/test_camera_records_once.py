"""A table camera records each hand once, whoever else records it, and never changes a
settled hand silently (camera review of the seventy-fourth session, findings 2, 3, 4 and
6), on SQLite and on PostgreSQL.

- Rule 2: every hand the camera recorded since the table was last seen cleared is
  remembered, not only the last: a still hand seen through seconds of motion blur whose
  smeared frames read one wrong hand 3 tiles away (recorded as a hand of its own) is the
  first hand when it is seen sharp again — it was recorded, and paid, a second time.
- Rule 3: a hand on the sheet from another source since the table was last seen cleared
  (a referee's or an automatic table's ``POST …/hands``) is not recorded again by the
  camera part-way through its run of frames — it was, and both were settled.
- Rule 4: a camera reading the hand it recorded otherwise, stably, that scores otherwise
  holds the record ``pending`` for the referee (revision action ``review``, a note naming
  the reading); it was answered ``already_recorded`` beside the wrong record's number.
- Rule 6: a frame is kept under a name that ends as its format (a PNG was a ``.jpg``).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text
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
from tilecam.db.engine import make_engine
from tilecam.tables.stability import Reading, Watch, step

# MCR hands (a discard win of S on E's tile in the tests). SMEARED is 3 tiles or more from
# STILL: motion blur's consistent misreading, too far to be its tiles re-read.
STILL = "123m456m789m123p55p"
SMEARED = "123m456m789m789p55p"
NEXT = "[SSS,1]123m456m789m55p"
# a finger over one 6m for the first frames: a phantom kong (17), then the right reading (16)
FINGER = "[222p,2][6666m,6][666p,2][555s,2]4s4s"
CLEAN = "[222p,2][666m,2][666p,2][555s,2]4s4s"
WIN = {"winner": "S", "discarder": "E"}


def norm(hand: str) -> str:
    return scoring.format_hand(scoring.parse_hand(hand))


@pytest.fixture(params=["sqlite", "postgres"])
def api(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[TestClient,
                                                                          FakeCamera, str]]:
    url = database_url(str(request.param), tmp_path)
    app, cam = make_app(url, tmp_path / "data")
    for client in client_for(app):
        yield client, cam, url


def frames(client: TestClient, t: int, k: str, levels: list[int],
           **fields: str) -> list[dict[str, Any]]:
    out = []
    for level in levels:
        r = client.post(f"/v1/tables/{t}/frames", headers=bearer(k), data=fields or WIN,
                        files={"image": ("f.jpg", frame(level), "image/jpeg")})
        assert r.status_code == 200, r.text
        out.append(r.json())
    return out


def _fans(score: Any) -> list[tuple[str, int]]:
    return sorted((f["zh"], f["value"]) for f in score.to_dict()["fans"])


def said(answers: list[dict[str, Any]]) -> list[tuple[str, int | None]]:
    return [(a["status"], a["hand_number"]) for a in answers]


def sheet(client: TestClient, t: int, k: str) -> list[dict[str, Any]]:
    return list(client.get(f"/v1/tables/{t}/hands", headers=bearer(k)).json()["hands"])


# --- rule 2: every hand recorded since the table was cleared is remembered ------------------


def test_rule_2_the_stability_rule_remembers_every_hand_since_the_table_was_cleared() -> None:
    """Rule 2, the rule alone (``near`` as the camera's: 3 tiles are too far): still hand,
    smeared frames of a wrong hand far from it, the still hand again — recorded once (the
    third run answered ``recorded`` for the first hand, not ``record``)."""
    from tilecam.tables.scoring_bridge import reread_of, tiles_apart

    assert tiles_apart(STILL, SMEARED) >= 3
    w = Watch()
    hand, smeared = Reading(STILL, True, 14), Reading(SMEARED, True, 14)
    got = [step(w, x, 3, near=reread_of)[1] for x in [hand] * 3 + [smeared] * 3 + [hand] * 3]
    assert got.count("record") == 2 and got[-3:] == ["recorded"] * 3
    assert w.matched == STILL and w.recorded == [STILL, SMEARED]
    empty = Reading(None, False, 0)
    assert [step(w, x, 3, near=reread_of)[1] for x in [empty] * 3 + [hand] * 3][-1] == "record"


def test_rule_2_a_still_hand_seen_through_motion_blur_is_paid_once(api) -> None:
    """Rule 2 through the API: the still hand recorded (1), the blur's misreading recorded as
    another hand (2), the still hand sharp again: ``already_recorded``, hand 1 — not a third
    record paying the still hand again; its answer names hand 1 as the sheet has it. A
    cleared table re-arms the still hand (the next deal)."""
    client, cam, _ = api
    t, k = new_table(client)
    still, smeared = cam.show(120, STILL), cam.show(160, SMEARED)
    empty = cam.show(60, None, complete=False, tiles=0)  # the cleared table, lit
    assert said(frames(client, t, k, [still] * 4))[-2:] == [("recorded", 1),
                                                            ("already_recorded", 1)]
    assert said(frames(client, t, k, [smeared] * 3))[-1] == ("recorded", 2)
    again = frames(client, t, k, [still] * 4)
    assert said(again) == [("already_recorded", 1)] * 4
    assert again[-1]["recorded_hand"] == norm(STILL) == again[-1]["hand"]
    assert [h["hand"] for h in sheet(client, t, k)] == [norm(STILL), norm(SMEARED)]
    assert said(frames(client, t, k, [empty] * 3 + [still] * 3))[-1] == ("recorded", 3)


def test_rule_2_a_camera_state_stored_before_still_knows_its_hand(api) -> None:
    """Rule 2: a camera state stored before (one key in ``recorded_signature``) reads as
    that one hand, answered with the camera's last hand's number as before."""
    client, cam, url = api
    t, k = new_table(client)
    still = cam.show(120, STILL)
    assert said(frames(client, t, k, [still] * 3))[-1] == ("recorded", 1)
    engine = make_engine(url)
    with engine.begin() as conn:
        stored = conn.execute(text("SELECT recorded_signature FROM camera_states "
                                   "WHERE table_id = :t"), {"t": t}).scalar_one()
        assert stored.startswith("{")  # the memory, as JSON
        conn.execute(text("UPDATE camera_states SET recorded_signature = :s "
                          "WHERE table_id = :t"), {"s": f"{norm(STILL)}|S>E", "t": t})
    engine.dispose()
    assert said(frames(client, t, k, [still] * 2)) == [("already_recorded", 1)] * 2


# --- rule 3: hands recorded by others -------------------------------------------------------


def test_rule_3_a_hand_the_referee_posts_mid_run_is_not_recorded_again(api) -> None:
    """Rule 3: the camera two frames into a hand, the referee types it in (hand 1): the
    third frame is ``already_recorded`` with hand 1, and the sheet holds one hand."""
    client, cam, _ = api
    t, k = new_table(client)
    still = cam.show(120, STILL)
    assert said(frames(client, t, k, [still] * 2)) == [("waiting", None)] * 2
    r = client.post(f"/v1/tables/{t}/hands", headers=admin(), json={"hand": STILL, **WIN})
    assert r.status_code == 201 and r.json()["source"] == "referee"
    assert said(frames(client, t, k, [still] * 3)) == [("already_recorded", 1)] * 3
    assert [(h["number"], h["source"]) for h in sheet(client, t, k)] == [(1, "referee")]


def test_rule_3_a_table_s_hand_read_a_tile_otherwise_is_not_recorded_again(api) -> None:
    """Rule 3: an automatic table posts the hand; the camera reads it with a flower more
    (a tile from it): the same hand, not a second record. A camera frame whose win claim
    contradicts it (another winner) is another hand."""
    client, cam, _ = api
    t, k = new_table(client)
    late = cam.show(120, STILL + " 3f")
    r = client.post(f"/v1/tables/{t}/hands", headers=bearer(k), json={"hand": STILL, **WIN})
    assert r.status_code == 201
    # the sheet is read when a run of frames would record (under its lock): until then
    # the frames wait, as any run does
    assert said(frames(client, t, k, [late] * 4)) == [("waiting", None)] * 2 + [
        ("already_recorded", 1)] * 2
    assert said(frames(client, t, k, [late] * 3, winner="N", discarder="W"))[-1] == (
        "recorded", 2)


def test_rule_3_after_the_table_was_seen_cleared_the_same_hand_is_a_new_one(api) -> None:
    """Rule 3: only hands since the table was last seen cleared count: the referee's hand,
    then the cleared table, then the same tiles dealt and revealed again — recorded."""
    client, cam, _ = api
    t, k = new_table(client)
    still = cam.show(120, STILL)
    empty = cam.show(60, None, complete=False, tiles=0)  # the cleared table, lit
    assert said(frames(client, t, k, [empty] * 3)) == [("waiting", None)] * 3
    client.post(f"/v1/tables/{t}/hands", headers=admin(), json={"hand": STILL, **WIN})
    assert said(frames(client, t, k, [still] * 3))[-1] == ("already_recorded", 1)
    assert said(frames(client, t, k, [empty] * 3 + [still] * 3))[-1] == ("recorded", 2)


def test_rule_3_a_voided_hand_is_no_hand_the_camera_shows(api) -> None:
    """Rule 3: a hand the referee voided counts for nothing: the camera records the tiles
    it shows (the void is the referee's word that the record scores nothing)."""
    client, cam, _ = api
    t, k = new_table(client)
    still = cam.show(120, STILL)
    client.post(f"/v1/tables/{t}/hands", headers=admin(), json={"hand": STILL, **WIN})
    assert client.post(f"/v1/tables/{t}/hands/1/void", headers=admin(),
                       json={"reason": "misdeal"}).status_code == 201
    assert said(frames(client, t, k, [still] * 3))[-1] == ("recorded", 2)


# --- rule 4: a later, stable, different reading is flagged -----------------------------------


def test_rule_4_a_stable_later_reading_that_scores_otherwise_holds_the_hand(api) -> None:
    """Rule 4: a finger on a tile for the first frames records a phantom kong (17); the
    right reading (16) that follows for the stable count holds hand 1 ``pending`` for the
    referee — a ``review`` revision by the camera naming the reading and both totals, no
    points moved — once; every frame answers the record as the sheet has it beside what
    it read. A referee's correction with no field confirms it; a reading after it does
    not hold it again."""
    client, cam, _ = api
    t, k = new_table(client)
    finger, clean = cam.show(120, FINGER), cam.show(160, CLEAN)
    assert said(frames(client, t, k, [finger] * 3))[-1] == ("recorded", 1)
    assert sheet(client, t, k)[0]["outcome"] == "win"
    got = frames(client, t, k, [clean] * 5)
    assert said(got) == [("already_recorded", 1)] * 5
    assert {(g["hand"], g["recorded_hand"]) for g in got} == {(norm(CLEAN), norm(FINGER))}
    hand = client.get(f"/v1/tables/{t}/hands/1", headers=bearer(k)).json()
    assert [r["action"] for r in hand["history"]] == ["record", "review"]
    last = hand["history"][-1]
    assert (last["outcome"], last["author"], last["settlement"]) == ("pending", "camera",
                                                                     [0, 0, 0, 0])
    assert norm(CLEAN) in last["note"] and "scores 16" in last["note"]
    assert "record scores 17" in last["note"] and "held for a referee" in last["note"]
    st = client.get(f"/v1/tables/{t}/standings", headers=bearer(k)).json()
    assert st["hands_pending"] == [1]
    r = client.post(f"/v1/tables/{t}/hands/1/corrections", headers=admin(),
                    json={"reason": "the kong is real"})
    assert r.status_code == 201 and r.json()["outcome"] == "win" and r.json()["total"] == 17
    frames(client, t, k, [finger] * 2 + [clean] * 4)
    hand = client.get(f"/v1/tables/{t}/hands/1", headers=bearer(k)).json()
    assert [r["action"] for r in hand["history"]] == ["record", "review", "correct"]


def test_rule_4_a_later_reading_that_scores_alike_leaves_the_hand_settled(api) -> None:
    """Rule 4: a stable re-read two tiles from the record (the pair read 8p for 5p) that
    scores the same — outcome, total, fans and points — changes nothing the sheet pays:
    the hand stays settled, with no revision."""
    client, cam, _ = api
    other = "123m456m789m123p88p"
    a = scoring.score(STILL, seat_wind="S", discarder=3)
    b = scoring.score(other, seat_wind="S", discarder=3)
    assert a.total == b.total and _fans(a) == _fans(b)  # the premise
    t, k = new_table(client)
    still, reread = cam.show(120, STILL), cam.show(160, other)
    frames(client, t, k, [still] * 3 + [reread] * 4)
    hand = client.get(f"/v1/tables/{t}/hands/1", headers=bearer(k)).json()
    assert [r["action"] for r in hand["history"]] == ["record"]
    assert hand["outcome"] == "win"


def test_rule_4_a_short_misreading_holds_nothing(api) -> None:
    """Rule 4: a different reading for fewer frames than the stable count (a code that
    flips once or twice) is no reading to hold the hand for."""
    client, cam, _ = api
    t, k = new_table(client)
    finger, clean = cam.show(120, FINGER), cam.show(160, CLEAN)
    frames(client, t, k, [finger] * 3 + [clean] * 2 + [finger] + [clean] * 2)
    hand = client.get(f"/v1/tables/{t}/hands/1", headers=bearer(k)).json()
    assert [r["action"] for r in hand["history"]] == ["record"]


def test_rule_4_a_hand_the_referee_posted_is_not_held_by_the_camera(api) -> None:
    """Rule 4: the camera holds only its own records: a hand the referee typed in stays as
    he gave it, however the camera reads the tiles."""
    client, cam, _ = api
    t, k = new_table(client)
    clean = cam.show(160, CLEAN)
    client.post(f"/v1/tables/{t}/hands", headers=admin(), json={"hand": FINGER, **WIN})
    assert said(frames(client, t, k, [clean] * 5))[2:] == [("already_recorded", 1)] * 3
    hand = client.get(f"/v1/tables/{t}/hands/1", headers=bearer(k)).json()
    assert [r["action"] for r in hand["history"]] == ["record"]


# --- rule 6: a frame is kept under its format's name ----------------------------------------


def test_rule_6_a_png_frame_is_kept_as_a_png(api, tmp_path: Path) -> None:
    """Rule 6: the frame that records a hand is kept under a name ending as its format:
    a PNG as ``.png`` (it was ``.jpg``), a JPEG as ``.jpg``."""
    client, cam, _ = api
    t, k = new_table(client)
    still = cam.show(120, STILL)
    ok, buf = cv2.imencode(".png", np.full((48, 64, 3), still, np.uint8))
    assert ok
    for _ in range(3):
        r = client.post(f"/v1/tables/{t}/frames", headers=bearer(k), data=WIN,
                        files={"image": ("f.png", buf.tobytes(), "image/png")})
    ref = r.json()["recorded"]["image_ref"]
    assert ref.endswith(".png")
    assert (tmp_path / "data" / ref).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    jpeg = cam.show(160, NEXT)
    got = frames(client, t, k, [jpeg] * 3)
    assert got[-1]["recorded"]["image_ref"].endswith(".jpg")
