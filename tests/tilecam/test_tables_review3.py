"""Event tables, third review: one physical hand is recorded once (an arm over the tiles,
a covered camera), a Xiamen win held pending does not move the deal, and ``tilecam
watch`` sends a table's frame fields, stops on a refusal every frame gets, and does not
send a frame twice after its answer was lost."""

from __future__ import annotations

import json
import urllib.error
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
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
from test_watch_camera import write_video

from tilecam.cli import main
from tilecam.commands import watch
from tilecam.tables.stability import Reading, Watch, step

HAND = "123m456m789m123p55p 3f"
LATE_FLOWER = "123m456m789m123p55p 3f5f"  # the same tiles, one more flower read late
XIAMEN_WIN = "123m456m789m123p456p55s"  # five sets and a pair, no gold held (gold 9s)
XIAMEN_FALSE = "123m456m789m123p456p5s9s"  # won on a discarded gold: 诈胡 (seed 000)


@pytest.fixture
def setup(tmp_path: Path) -> Iterator[tuple[TestClient, FakeCamera]]:
    app, cam = make_app(database_url("sqlite", tmp_path), tmp_path / "data")
    for client in client_for(app):
        yield client, cam


def _frames(client: TestClient, t: int, k: str, levels: list[int]) -> list[str]:
    out = []
    for level in levels:
        r = client.post(f"/v1/tables/{t}/frames", headers=bearer(k),
                        files={"image": ("f.jpg", frame(level), "image/jpeg")},
                        data={"winner": "E", "self_drawn": "true"})
        assert r.status_code == 200, r.text
        out.append(r.json()["status"])
    return out


def _numbers(client: TestClient, t: int, k: str) -> list[int]:
    hands = client.get(f"/v1/tables/{t}/hands", headers=bearer(k)).json()["hands"]
    return [h["number"] for h in hands]


# 1: an arm over the tiles


def test_the_recorded_hand_read_again_after_frames_without_one_was_never_put_away() -> None:
    """Frames without a complete hand (an arm over part of it) followed by the recorded
    hand itself: the hand was never put away, so a late re-read of it is no new hand."""
    w = Watch()
    hand, late = Reading("123m456m789m123p55p", True, 14), Reading("123m456m789m123p55p 1f",
                                                                   True, 15)
    arm = Reading(None, False, 9)
    got = [step(w, x, 3)[1] for x in (hand, hand, hand, arm, arm, arm, hand, late, late, late)]
    assert got.count("record") == 1 and got[-3:] == ["recorded"] * 3


def test_an_arm_over_the_tiles_does_not_let_the_camera_record_the_hand_twice(setup) -> None:
    client, cam = setup
    t, k = new_table(client)
    a, late = cam.show(100, HAND), cam.show(110, LATE_FLOWER)
    arm = cam.show(150, None, complete=False, tiles=9)
    got = _frames(client, t, k, [a, a, a, a, arm, arm, arm, a, a, late, late, late])
    assert got.count("recorded") == 1 and got[-3:] == ["already_recorded"] * 3
    assert _numbers(client, t, k) == [1]


def test_a_near_hand_after_the_hand_was_put_away_is_still_a_new_hand(setup) -> None:
    """Play (tiles, no hand) for 3 frames, the recorded hand not seen again: a hand
    within 2 tiles of it is another hand, recorded."""
    client, cam = setup
    t, k = new_table(client)
    a, late = cam.show(100, HAND), cam.show(110, LATE_FLOWER)
    play = cam.show(160, None, complete=False, tiles=60)
    got = _frames(client, t, k, [a, a, a, play, play, play, late, late, late])
    assert got.count("recorded") == 2 and _numbers(client, t, k) == [1, 2]


# 2: a covered camera


def test_a_dark_frame_with_no_tiles_is_no_cleared_table(setup) -> None:
    """Three black frames (the lens covered, the lights down) say nothing of the table:
    the same hand in view after them is the recorded one, not a hand dealt again."""
    client, cam = setup
    t, k = new_table(client)
    a = cam.show(100, HAND)
    dark = 0  # the fake camera reads a black frame as no tiles
    got = _frames(client, t, k, [a, a, a, a, dark, dark, dark, a, a, a, a])
    assert got.count("recorded") == 1 and got[-4:] == ["already_recorded"] * 4
    assert _numbers(client, t, k) == [1]


def test_a_lit_empty_table_still_re_arms_the_same_hand(setup) -> None:
    client, cam = setup
    t, k = new_table(client)
    a = cam.show(100, HAND)
    cloth = cam.show(60, None, complete=False, tiles=0)  # a lit table, cleared
    got = _frames(client, t, k, [a, a, a, cloth, cloth, cloth, a, a, a])
    assert got[-3:] == ["waiting", "waiting", "recorded"] and _numbers(client, t, k) == [1, 2]


def test_the_dark_test_tells_black_from_a_lit_cloth() -> None:
    from tilecam.tables.camera import shows_a_view

    rng = np.random.default_rng(0)
    dim = rng.integers(0, 12, (480, 640, 3), dtype=np.uint8)  # a covered lens: sensor noise
    cloth = np.full((480, 640, 3), (40, 90, 30), np.uint8)  # a dark green cloth, lit
    assert not shows_a_view(dim) and shows_a_view(cloth)


# 3: Xiamen, a win held pending


def _post(client: TestClient, t: int, k: str, **body: Any) -> dict[str, Any]:
    r = client.post(f"/v1/tables/{t}/hands", headers=bearer(k), json=body)
    assert r.status_code == 201, r.text
    return dict(r.json())


def _next(client: TestClient, t: int, k: str) -> dict[str, Any]:
    return dict(client.get(f"/v1/tables/{t}", headers=bearer(k)).json()["next_hand"])


def test_a_xiamen_dealer_win_held_pending_is_no_lian_zhuang(setup) -> None:
    """Seed 000: after 诈胡 the dealer deals again (庄家不下庄) — a dealer's false win held
    pending does not count as 连庄 (its 底 doubled again), and the place says it rests on
    that hand (``assumed_after``)."""
    client, _ = setup
    t, k = new_table(client, rules="xiamen")
    _post(client, t, k, hand=XIAMEN_WIN, winner="E", self_drawn=True, context={"gold": "9s"})
    held = _post(client, t, k, hand=XIAMEN_FALSE, winner="E", discarder="S",
                 context={"gold": "9s"})
    assert held["outcome"] == "pending"
    nxt = _next(client, t, k)
    assert (nxt["dealer"], nxt["dealer_repeats"], nxt["assumed_after"]) == ("Ann0", 1, 2)


def test_a_xiamen_non_dealer_win_held_pending_does_not_pass_the_deal(setup) -> None:
    client, _ = setup
    t, k = new_table(client, rules="xiamen")
    held = _post(client, t, k, hand=XIAMEN_FALSE, winner="S", discarder="E",
                 context={"gold": "9s"})
    assert held["outcome"] == "pending"
    nxt = _next(client, t, k)
    assert (nxt["dealer"], nxt["dealer_repeats"], nxt["assumed_after"]) == ("Ann0", 0, 1)
    two = _post(client, t, k, hand=XIAMEN_WIN, winner="E", self_drawn=True,
                context={"gold": "9s"})
    assert two["dealer"] == "Ann0" and two["points"]["Ann0"] > 0
    r = client.post(f"/v1/tables/{t}/hands/1/void", headers=admin(), json={"reason": "诈胡"})
    assert r.status_code in (200, 201), r.text
    nxt = _next(client, t, k)  # the referee's void: nothing moves, nothing assumed now
    assert nxt["dealer"] == "Ann0" and "assumed_after" not in nxt
    hand_2 = client.get(f"/v1/tables/{t}/hands/2", headers=bearer(k)).json()
    assert hand_2["dealer"] == "Ann0" and hand_2["points"] == two["points"]


# 4, 5: tilecam watch


def _video(path: Path, levels: list[int]) -> Path:
    """``test_watch_camera.write_video``'s video (one second per grey level), its path."""
    write_video(path, levels)
    return path


def _fake_post(monkeypatch: pytest.MonkeyPatch, answers: list[Any]) -> list[tuple[bytes, Any]]:
    """``watch.post_frame`` answering from ``answers`` (an exception is raised; the last
    answer repeats); returns the (frame, fields) sent."""
    sent: list[tuple[bytes, Any]] = []

    def post(server: str, table: int, key: str, jpeg: bytes, fields: Any = None) -> Any:
        sent.append((jpeg, dict(fields or {})))
        answer = answers.pop(0) if len(answers) > 1 else answers[0]
        if isinstance(answer, BaseException):
            raise answer
        return answer

    monkeypatch.setattr(watch, "post_frame", post)
    monkeypatch.setattr(watch, "RETRY_WAIT_S", 0.0)
    return sent


def test_watch_sends_the_table_s_frame_fields(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """A Xiamen table needs the gold and the winner: the options send them with every
    frame, and a ``--fields`` file read before each frame overrides them."""
    video = _video(tmp_path / "v.avi", [120, 130])
    sent = _fake_post(monkeypatch, [(200, {"status": "waiting"}, 0.0)])
    args = ["watch", "--table", "1", "--key", "k", "--source", str(video), "--every", "1",
            "--winner", "e", "--self-drawn", "--context", "gold=9s"]
    assert main(args) == 0
    # each frame's own seq apart (tests/tilecam/test_frames77.py checks it rises)
    assert [{k: v for k, v in f.items() if k != "seq"} for _, f in sent] == [
        {"winner": "E", "self_drawn": "true", "context": json.dumps({"gold": "9s"})}] * 2
    fields = tmp_path / "hand.json"
    fields.write_text(json.dumps({"winner": "S", "discarder": "W",
                                  "context": {"gold": "1p"}}))
    sent.clear()
    assert main([*args[:-3], "--context", "gold=9s", "--fields", str(fields)]) == 0
    assert {k: v for k, v in sent[0][1].items() if k != "seq"} == {
        "winner": "S", "discarder": "W", "context": '{"gold": "1p"}'}
    fields.write_text(json.dumps({"winner": "X"}))
    assert main([*args, "--fields", str(fields)]) == 2


def test_watch_records_a_xiamen_hand_with_its_winner_and_gold(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """End to end: the fields reach the server — the camera reads with the gold, and the
    hand is recorded a settled win of E, not pending for a winner unknown."""
    import uvicorn
    from test_watch_camera import _port, _serve

    video = _video(tmp_path / "table.avi", [120, 120])
    app, cam = make_app(database_url("sqlite", tmp_path), tmp_path / "data")
    cam.show(120, XIAMEN_WIN)
    for client in client_for(app):
        t, k = new_table(client, rules="xiamen")
        port = _port()
        server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port,
                                               log_level="warning", lifespan="off"))
        thread = _serve(server)
        try:
            code = main(["watch", "--table", str(t), "--key", k, "--source", str(video),
                         "--server", f"http://127.0.0.1:{port}", "--every", "0.5",
                         "--winner", "E", "--self-drawn", "--context", "gold=9s"])
        finally:
            server.should_exit = True
            thread.join(timeout=10)
        assert code == 0 and '"hands_recorded": 1' in capsys.readouterr().out
        assert cam.contexts[-1].get("gold") == "9s"
        hands = client.get(f"/v1/tables/{t}/hands", headers=bearer(k)).json()["hands"]
        assert [(h["outcome"], h["winner"]["seat"]) for h in hands] == [("win", "E")]


def test_watch_stops_when_every_frame_is_refused_for_the_same_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A Zhenjiang table's frames without the 百搭: 400 ``invalid_context`` on each. The
    watch stops after 3 such frames with the reason and exit status 2, not after the
    whole video with 0."""
    video = _video(tmp_path / "v.avi", [120] * 8)
    refusal = (400, {"error": {"code": "invalid_context",
                               "message": "Zhenjiang needs the 百搭: pass indicator=TILE"}}, 0.0)
    sent = _fake_post(monkeypatch, [refusal])
    code = main(["watch", "--table", "1", "--key", "k", "--source", str(video), "--every", "1"])
    err = capsys.readouterr().err
    assert code == 2 and len(sent) == 3
    assert "refused 3 frames in a row" in err and "invalid_context" in err
    assert "indicator=TILE" in err and "--context" in err


def test_watch_does_not_stop_on_refusals_for_other_reasons(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    video = _video(tmp_path / "v.avi", [120] * 5)
    a = (400, {"error": {"code": "invalid_request", "message": "a"}}, 0.0)
    b = (409, {"error": {"code": "conflict", "message": "b"}}, 0.0)
    ok = (200, {"status": "waiting"}, 0.0)
    sent = _fake_post(monkeypatch, [a, a, ok, a, b, b])
    code = main(["watch", "--table", "1", "--key", "k", "--source", str(video), "--every", "1"])
    assert code == 0 and len(sent) == 5


def test_a_frame_sent_whose_answer_was_lost_is_not_sent_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A read timeout after the request went out: the server may have counted the frame,
    and a second copy would count it twice in the hand's run of frames — the watch goes on
    with the next frame and says so. A connection refused still sends the frame again."""
    video = _video(tmp_path / "v.avi", [60, 120, 180])
    ok = (200, {"status": "waiting"}, 0.0)
    sent = _fake_post(monkeypatch, [TimeoutError("timed out"), ok,
                                    urllib.error.URLError(ConnectionRefusedError(111, "refused")),
                                    ok])
    code = main(["watch", "--table", "1", "--key", "k", "--source", str(video), "--every", "1"])
    captured = capsys.readouterr()
    assert code == 0
    frames = [jpeg for jpeg, _ in sent]
    assert len(frames) == 4 and len(set(frames)) == 3  # only the refused one went twice
    assert frames[0] != frames[1] and frames[2] == frames[3]
    assert '"sent_again": false' in captured.err and '"frames_posted": 3' in captured.out


def test_a_server_that_never_answers_still_stops_the_watch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    video = _video(tmp_path / "v.avi", [120] * 6)
    sent = _fake_post(monkeypatch, [TimeoutError("timed out")])
    code = main(["watch", "--table", "1", "--key", "k", "--source", str(video), "--every", "1",
                 "--retries", "2"])
    assert code == 2 and len(sent) == 3 and "cannot reach the server" in capsys.readouterr().err


def test_watch_fields_file_clears_what_an_option_set(tmp_path: Path) -> None:
    """Second review: ``--fields FILE`` with ``"self_drawn": false``, ``"winner": null`` or
    ``"context": {}`` left the command line's values in every frame (a wrong winner or
    自摸 scored and paid); a field the file clears is no longer sent."""
    from tilecam.commands.watch import with_file_fields

    base = {"winner": "S", "self_drawn": "true", "context": '{"gold": "5m"}', "flowers": "2"}
    f = tmp_path / "f.json"
    f.write_text('{"self_drawn": false, "winner": null, "context": {}}')
    assert with_file_fields(base, f) == {"flowers": "2"}
    f.write_text('{"winner": "w"}')
    assert with_file_fields(base, f)["winner"] == "W"
