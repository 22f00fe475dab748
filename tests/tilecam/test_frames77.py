"""The seventy-seventh session's review of tables by a machine client (an automatic table).

1. A frame's ``seq``: a frame sent again, or delivered late by a store-and-forward camera,
   whose ``seq`` is not greater than the last one counted is ``stale`` and counts for
   nothing — before, the first frames of hand A delivered after the table was seen
   cleared recorded (and paid) A a second time; a re-sent frame counted twice in a run.
2. A win the table's key posts without ``number`` at a table with a camera is held to a
   photo's rule: the hand the camera recorded, posted again, is 409 ``already_recorded``
   (it was recorded twice, and paid twice), and so is a second win of a deal the camera
   saw begin; ``new_hand=true`` records it. A referee's post, a drawn hand, a post with
   ``number`` and a table without a camera are as before.
3. A table whose stored settings the scorer refuses (Xiamen ``chip_stack`` 0): a frame,
   a photo and a posted win are 409 ``table_settings_refused`` at once, the image unread
   (frames were ``waiting`` twice, then 400 ``invalid_context`` for ever); ``tilecam
   watch`` gives its ``--context`` advice only where a rule field may be missing.

Hands in notation: ``123m456m789m123p55p`` (hand A, S wins off E), ``[SSS,1]123m456m789m55p``
(hand B, far from A).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, update
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
from tilecam.cli import main
from tilecam.commands import watch
from tilecam.db import make_engine
from tilecam.db.engine import session_factory
from tilecam.db.models import GameTable
from tilecam.tables import camera
from tilecam.tables.scoring_bridge import HandReport

A = "123m456m789m123p55p"
B = "[SSS,1]123m456m789m55p"
WIN = {"winner": "S", "discarder": "E"}
L_A, L_B, L_EMPTY = 120, 180, 60
NA = scoring.format_hand(scoring.parse_hand(A))  # hand A as the sheet keeps it

Api = tuple[TestClient, FakeCamera, str]


@pytest.fixture(params=["sqlite", "postgres"])
def api(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Api]:
    url = database_url(str(request.param), tmp_path)
    app, cam = make_app(url, tmp_path / "data")
    cam.show(L_A, A)
    cam.show(L_B, B)
    cam.show(L_EMPTY, None, complete=False, tiles=0)  # the cleared table, lit
    for client in client_for(app):
        yield client, cam, url


def post_frame(client: TestClient, t: int, k: str, level: int, seq: int | str | None = None,
               **fields: str) -> Any:
    data = dict(fields or WIN)
    if seq is not None:
        data["seq"] = str(seq)
    return client.post(f"/v1/tables/{t}/frames", headers=bearer(k), data=data,
                       files={"image": ("f.jpg", frame(level), "image/jpeg")})


def statuses(client: TestClient, t: int, k: str,
             frames: Sequence[tuple[int, int | None]]) -> list[tuple[str, int]]:
    out = []
    for level, seq in frames:
        r = post_frame(client, t, k, level, seq)
        assert r.status_code == 200, r.text
        out.append((r.json()["status"], r.json()["streak"]))
    return out


def hands(client: TestClient, t: int) -> list[tuple[int, str | None, str]]:
    got = client.get(f"/v1/tables/{t}/hands", headers=admin()).json()["hands"]
    return [(h["number"], h["hand"], h["source"]) for h in got]


# --- 1. seq: a frame sent again or late counts for nothing -----------------------------------


def test_late_frames_of_a_hand_after_the_clear_are_stale_and_record_nothing(api: Api) -> None:
    """drive6: hand A seen in frames 1-3 (recorded), the table cleared in frames 4-6, then
    frames 1-3 delivered late: stale, unread, no second hand A on the sheet."""
    client, cam, _ = api
    t, k = new_table(client)
    assert statuses(client, t, k, [(L_A, 1), (L_A, 2), (L_A, 3)])[-1][0] == "recorded"
    assert statuses(client, t, k, [(L_EMPTY, 4), (L_EMPTY, 5), (L_EMPTY, 6)])[-1][0] == "waiting"
    reads = cam.calls
    late = [post_frame(client, t, k, L_A, seq) for seq in (1, 2, 3)]
    assert [r.status_code for r in late] == [200] * 3
    assert [r.json()["status"] for r in late] == ["stale"] * 3
    assert "seq 1 " in late[0].json()["view_note"] and "(seq 6)" in late[0].json()["view_note"]
    assert late[0].json()["hand_number"] is None and late[0].json()["tiles"] == 0
    assert cam.calls == reads  # not read
    assert hands(client, t) == [(1, NA, "camera")]
    # the next live frames start their own run: the late ones counted for nothing
    assert statuses(client, t, k, [(L_A, 7), (L_A, 8), (L_A, 9)]) == [
        ("waiting", 1), ("waiting", 2), ("recorded", 3)]
    assert hands(client, t) == [(1, NA, "camera"), (2, NA, "camera")]


def test_a_frame_sent_again_with_its_seq_counts_once_in_the_run(api: Api) -> None:
    """drive1 R1: a frame whose answer was lost and sent again is not a second frame of
    the hand's run (it counted twice: recorded at the third post, the second frame)."""
    client, _, _ = api
    t, k = new_table(client)
    assert statuses(client, t, k, [(L_A, 10), (L_A, 10), (L_A, 11)]) == [
        ("waiting", 1), ("stale", 1), ("waiting", 2)]
    assert statuses(client, t, k, [(L_A, 12)]) == [("recorded", 3)]
    assert hands(client, t) == [(1, NA, "camera")]


def test_a_stale_empty_frame_is_no_clear(api: Api) -> None:
    """Empty frames delivered late are not the table seen cleared: hand A still in view
    is already recorded, not a new hand."""
    client, _, _ = api
    t, k = new_table(client)
    statuses(client, t, k, [(L_EMPTY, 1), (L_EMPTY, 2), (L_EMPTY, 3)])
    statuses(client, t, k, [(L_A, 10), (L_A, 11), (L_A, 12)])
    assert statuses(client, t, k, [(L_EMPTY, 4), (L_EMPTY, 5), (L_EMPTY, 6)]) == [
        ("stale", 3)] * 3
    assert statuses(client, t, k, [(L_A, 13)]) == [("already_recorded", 4)]
    assert hands(client, t) == [(1, NA, "camera")]


def test_frames_without_seq_count_as_before(api: Api) -> None:
    """A camera that sends no seq: every frame counts, a re-send too (as before). Frames
    without seq between numbered ones are counted and leave the last seq as it was."""
    client, _, _ = api
    t, k = new_table(client)
    assert statuses(client, t, k, [(L_A, None)] * 3) == [
        ("waiting", 1), ("waiting", 2), ("recorded", 3)]
    assert post_frame(client, t, k, L_A).json()["status"] == "already_recorded"
    t, k = new_table(client)
    assert statuses(client, t, k, [(L_A, 5), (L_A, None), (L_A, 5)]) == [
        ("waiting", 1), ("waiting", 2), ("stale", 2)]
    assert post_frame(client, t, k, L_A, 6).json()["status"] == "recorded"


@pytest.mark.parametrize("bad", ["-1", "1.5", "x", "٣", str(2**63), "1" * 40, "", " "])
def test_a_seq_that_is_no_whole_number_is_refused(api: Api, bad: str) -> None:
    client, cam, _ = api
    t, k = new_table(client)
    r = post_frame(client, t, k, L_A, bad)
    assert r.status_code == 400 and r.json()["error"]["code"] == "invalid_request"
    assert "seq" in r.json()["error"]["message"] and cam.calls == 0


def test_a_restarted_camera_says_so_and_its_frames_count_again(api: Api) -> None:
    """A camera that restarts and counts from 0 again (or a seq sent by mistake, the
    greatest) left every later frame ``stale`` for good, a reopened table too:
    ``POST …/camera/restart`` (the table's key or a referee) forgets the last seq. The
    hand the camera recorded stays known: its frames after the restart are
    ``already_recorded``, not a second hand."""
    client, _, _ = api
    t, k = new_table(client)
    assert statuses(client, t, k, [(L_A, 100), (L_A, 101), (L_A, 102)])[-1][0] == "recorded"
    stuck = post_frame(client, t, k, L_B, 1).json()
    assert stuck["status"] == "stale"
    assert f"/v1/tables/{t}/camera/restart" in stuck["view_note"]
    r = client.post(f"/v1/tables/{t}/camera/restart", headers=bearer(k))
    assert r.status_code == 200, r.text
    assert r.json() == {"table_id": t, "forgotten_seq": 102}
    assert statuses(client, t, k, [(L_A, 0)]) == [("already_recorded", 4)]
    assert statuses(client, t, k, [(L_B, 1), (L_B, 2), (L_B, 3)])[-1][0] == "recorded"
    assert hands(client, t) == [(1, NA, "camera"),
                                (2, scoring.format_hand(scoring.parse_hand(B)), "camera")]
    again = client.post(f"/v1/tables/{t}/camera/restart", headers=admin())
    assert again.json() == {"table_id": t, "forgotten_seq": 3}
    other, other_key = new_table(client)
    assert client.post(f"/v1/tables/{t}/camera/restart",
                       headers=bearer(other_key)).status_code in (401, 403)
    assert client.post("/v1/tables/999/camera/restart", headers=admin()).status_code == 404
    assert client.post(f"/v1/tables/{other}/camera/restart", headers=bearer(other_key)
                       ).json() == {"table_id": other, "forgotten_seq": None}


def test_seq_0_and_the_greatest_are_taken(api: Api) -> None:
    client, _, _ = api
    t, k = new_table(client)
    assert statuses(client, t, k, [(L_A, 0), (L_A, camera.MOST_SEQ), (L_A, 1)]) == [
        ("waiting", 1), ("waiting", 2), ("stale", 2)]


def test_a_frame_read_while_a_later_one_was_counted_is_stale_under_the_lock(api: Api,
                                                                            tmp_path: Path
                                                                            ) -> None:
    """Two frames in flight: seq 9 counted while seq 8 was being read — the camera's own
    check, under its lock, answers 8 stale (the check before reading cannot see it)."""
    client, _, url = api
    t, k = new_table(client)
    assert post_frame(client, t, k, L_A, 9).json()["status"] == "waiting"
    engine = make_engine(url)
    try:
        sf = session_factory(engine)
        reading = camera.FrameReading(A, True, 14)
        told = HandReport(winner="S", discarder="E")
        result = camera.process_frame(sf, t, reading, frame(L_A), 3, told, tmp_path / "d",
                                      store=False, seq=8)
    finally:
        engine.dispose()
    assert (result.status, result.streak, result.last_seq) == ("stale", 1, 9)
    assert statuses(client, t, k, [(L_A, 10)]) == [("waiting", 2)]


def test_watch_sends_a_growing_seq_and_the_same_one_with_a_frame_sent_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``tilecam watch``: each frame goes with a seq greater than the last; a frame sent
    again (its request refused before it went out) keeps its seq."""
    import urllib.error

    from test_watch_camera import write_video

    video = tmp_path / "v.avi"
    write_video(video, [60, 120, 180])
    sent: list[dict[str, str]] = []
    answers: list[Any] = [(200, {"status": "waiting"}, 0.0),
                          urllib.error.URLError(ConnectionRefusedError(111, "refused")),
                          (200, {"status": "waiting"}, 0.0)]

    def post(server: str, table: int, key: str, jpeg: bytes, fields: Any = None) -> Any:
        sent.append(dict(fields or {}))
        answer = answers.pop(0) if len(answers) > 1 else answers[0]
        if isinstance(answer, BaseException):
            raise answer
        return answer

    monkeypatch.setattr(watch, "post_frame", post)
    monkeypatch.setattr(watch, "RETRY_WAIT_S", 0.0)
    code = main(["watch", "--table", "1", "--key", "k", "--source", str(video), "--every",
                 "1", "--winner", "S"])
    assert code == 0
    seqs = [int(f["seq"]) for f in sent]
    assert len(seqs) == 4 and seqs[1] == seqs[2]  # the refused frame went twice
    assert seqs[0] < seqs[1] < seqs[3] and all(f["winner"] == "S" for f in sent)


# --- 2. a table's win without number: the photo rule ------------------------------------------


def post_hand(client: TestClient, t: int, key: str, **body: Any) -> Any:
    return client.post(f"/v1/tables/{t}/hands", headers=bearer(key), json=body)


def test_the_camera_s_hand_posted_again_without_number_is_already_recorded(api: Api) -> None:
    """drive7: the camera recorded hand A; the automatic table posts A without number —
    409 already_recorded naming hand 1 (it was 201 number 2: A paid twice). With
    ``number`` 1 it is answered with the record; ``new_hand`` records a second hand."""
    client, _, _ = api
    t, k = new_table(client)
    statuses(client, t, k, [(L_A, None)] * 3)
    r = post_hand(client, t, k, hand=A, **WIN)
    assert r.status_code == 409, r.text
    error = r.json()["error"]
    assert error["code"] == "already_recorded"
    assert "hand 1" in error["message"] and "number=1" in error["message"]
    assert hands(client, t) == [(1, NA, "camera")]
    r = post_hand(client, t, k, hand=A, number=1, **WIN)
    assert (r.status_code, r.json()["number"], r.json()["created"]) == (200, 1, False)
    r = post_hand(client, t, k, hand=A, new_hand=True, **WIN)
    assert (r.status_code, r.json()["number"]) == (201, 2)


def test_a_second_win_of_a_deal_the_camera_saw_begin_is_refused(api: Api) -> None:
    """The camera saw the table cleared, then recorded A: a far hand B posted without
    number is a second win of one deal (409, naming hand 1 and how far apart); a
    referee's post of it is his word (201), as is a drawn hand posted by the table."""
    client, _, _ = api
    t, k = new_table(client)
    statuses(client, t, k, [(L_EMPTY, None)] * 3 + [(L_A, None)] * 3)
    r = post_hand(client, t, k, hand=B, winner="S", self_drawn=True)
    assert r.status_code == 409 and r.json()["error"]["code"] == "already_recorded"
    assert "one deal has one win" in r.json()["error"]["message"]
    assert "tiles apart" in r.json()["error"]["message"]
    r = client.post(f"/v1/tables/{t}/hands", headers=admin(),
                    json={"hand": B, "winner": "S", "self_drawn": True})
    assert (r.status_code, r.json()["number"]) == (201, 2)
    assert post_hand(client, t, k, outcome="draw").status_code == 201
    assert post_hand(client, t, k, outcome="draw").status_code == 201


def test_a_win_re_sent_without_number_at_a_table_with_a_camera_records_it_once(
        api: Api) -> None:
    """drive1 R2 at a table whose camera sent a frame (dark: it saw nothing): the table's
    win re-sent without number (its answer lost) is 409 naming hand 1 — it was recorded
    twice. Another hand after it is recorded. A table with no camera keeps its own word:
    the same win posted twice is two hands (an automatic table alone may win with the
    same tiles two deals running; ``number`` makes its re-send safe)."""
    client, _, _ = api
    t, k = new_table(client)
    assert statuses(client, t, k, [(0, None)]) == [("waiting", 0)]
    body = {"hand": B, "winner": "S", "self_drawn": True}
    assert post_hand(client, t, k, **body).status_code == 201
    r = post_hand(client, t, k, **body)
    assert r.status_code == 409 and r.json()["error"]["code"] == "already_recorded"
    assert post_hand(client, t, k, hand=A, **WIN).status_code == 201
    assert [n for n, _, _ in hands(client, t)] == [1, 2]
    t, k = new_table(client)
    assert [post_hand(client, t, k, **body).status_code for _ in range(2)] == [201, 201]


def test_new_hand_is_a_boolean_of_the_body(api: Api) -> None:
    client, _, _ = api
    t, k = new_table(client)
    r = post_hand(client, t, k, hand=A, new_hand="yes", **WIN)
    assert r.status_code == 422


# --- 3. a table whose stored settings the scorer refuses --------------------------------------


XIAMEN_WIN = "123m456m789m123p456p55s"


def refused_table(client: TestClient, url: str) -> tuple[int, str]:
    """A Xiamen table stored with ``chip_stack`` 0 (refused since session 75)."""
    t, k = new_table(client, rules="xiamen", settings={"chip_stack": 5})
    engine = create_engine(url)
    try:
        with engine.begin() as conn:
            conn.execute(update(GameTable).where(GameTable.id == t)
                         .values(rule_settings={"chip_stack": 0}))
    finally:
        engine.dispose()
    return t, k


def test_frames_photos_and_wins_at_a_table_with_refused_settings_are_409_unread(
        api: Api) -> None:
    """drive4: the first frame is 409 table_settings_refused saying what a referee can
    do, the image not read (it was waiting twice, then 400 invalid_context); so are a
    photo and a posted win. A drawn hand is still recorded, as the message says."""
    client, cam, url = api
    t, k = refused_table(client, url)
    cam.show(50, XIAMEN_WIN)
    fields = {"winner": "S", "self_drawn": "true", "context": '{"gold": "9s"}'}
    for r in (post_frame(client, t, k, 50, 1, **fields),
              client.post(f"/v1/tables/{t}/photos", headers=bearer(k), data=fields,
                          files={"image": ("p.jpg", frame(50), "image/jpeg")}),
              post_hand(client, t, k, hand=XIAMEN_WIN, winner="S", self_drawn=True,
                        context={"gold": "9s"})):
        assert r.status_code == 409, r.text
        error = r.json()["error"]
        assert error["code"] == "table_settings_refused"
        assert "chip_stack" in error["message"] and "cannot be changed" in error["message"]
        assert f"/v1/tables/{t}/close" in error["message"]
    assert cam.calls == 0
    assert hands(client, t) == []
    r = post_hand(client, t, k, outcome="draw")
    assert r.status_code == 201, r.text


def test_watch_gives_the_context_advice_only_where_a_field_may_be_missing() -> None:
    """drive4: a gold given, the server's refusal is not about it: no "give the table's
    rule fields with --context" (it was given). With no context, or a message naming a
    missing field, the advice stays."""
    refused = {"error": {"code": "invalid_context",
                         "message": "table 10 keeps settings {'chip_stack': 0} …"}}
    with pytest.raises(ValueError) as caught:
        watch.Refusals(1).answered(400, refused, 1, 0, context_given=True)
    assert "--context" not in str(caught.value)
    with pytest.raises(ValueError) as caught:
        watch.Refusals(1).answered(400, refused, 1, 0, context_given=False)
    assert "--context KEY=VALUE" in str(caught.value)
    missing = {"error": {"code": "invalid_context", "message": "Xiamen needs the gold (金): "
                         "pass gold=KIND or indicator=TILE (e.g. gold=5m)"}}
    with pytest.raises(ValueError) as caught:
        watch.Refusals(1).answered(400, missing, 1, 0, context_given=True)
    assert "--context KEY=VALUE" in str(caught.value)
    settings = {"error": {"code": "table_settings_refused", "message": "…"}}
    with pytest.raises(ValueError) as caught:
        watch.Refusals(1).answered(409, settings, 1, 0)
    assert "--context" not in str(caught.value)


def test_watch_shows_the_way_out_on_every_stale_frame(
        capsys: pytest.CaptureFixture[str]) -> None:
    """A watch whose frames are all ``stale`` (the table's last seq ahead of its clock)
    printed bare ``"status": "stale"`` lines for ever; each now carries the server's note,
    which names ``POST …/camera/restart``."""
    note = ("frame seq 5 is not after the last frame counted (seq 9): …; a camera that "
            "started its count again says so with POST /v1/tables/3/camera/restart")
    views = watch.Views()
    for frame_no in (1, 2):
        assert not watch.show_answer(frame_no, 200, {
            "status": "stale", "streak": 0, "needed": 3, "hand": None, "hand_number": None,
            "view": None, "view_note": note}, views)
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [x["view_note"] for x in lines] == [note, note]
