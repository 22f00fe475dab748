"""`tilecam watch`: a video file written here with cv2.VideoWriter is sampled, JPEG-encoded
and posted to a running test server; the hand it shows is recorded once."""

from __future__ import annotations

import socket
import threading
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
import uvicorn
from test_tables_helpers import client_for, database_url, make_app, new_event

import scoring
from tilecam.cli import main
from tilecam.commands import watch
from tilecam.commands.watch import sample_frames

HAND = "123m456m789m123p456p55s"


def write_video(path: Path, levels: list[int], fps: int = 10) -> None:
    """One second of video per grey level (64×48 px, MJPG)."""
    out = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), fps, (64, 48))
    assert out.isOpened()
    for level in levels:
        for _ in range(fps):
            out.write(np.full((48, 64, 3), level, np.uint8))
    out.release()


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _serve(server: uvicorn.Server) -> threading.Thread:
    """Run ``server`` in a thread; returns once it accepts connections (or fails the test)."""
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            pytest.fail("the test server did not start")
        time.sleep(0.05)
    return thread


def _watch(app: Any, table: int, key: str, video: Path) -> int:
    """``tilecam watch`` posting ``video`` (a frame every 0.5 s) to ``app`` served on a
    free port for the call; its exit code."""
    port = _port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port,
                                           log_level="warning", lifespan="off"))
    thread = _serve(server)
    try:
        return main(["watch", "--table", str(table), "--key", key, "--source", str(video),
                     "--server", f"http://127.0.0.1:{port}", "--every", "0.5"])
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def test_sampling_a_file_by_video_time(tmp_path: Path) -> None:
    video = tmp_path / "v.avi"
    write_video(video, [60, 120, 180])
    cap = cv2.VideoCapture(str(video))
    frames = list(sample_frames(cap, 0.5, live=False))
    cap.release()
    assert len(frames) == 6
    assert [round(float(f.mean()) / 60) * 60 for f in frames] == [60, 60, 120, 120, 180, 180]


def test_watch_posts_a_video_and_the_hand_is_recorded_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    video = tmp_path / "table.avi"
    write_video(video, [0, 120, 120, 120])
    app, cam = make_app(database_url("sqlite", tmp_path), tmp_path / "data")
    cam.show(120, HAND)
    for client in client_for(app):
        _, [(table, key)] = new_event(client, rules="xiamen", tables=1)
        code = _watch(app, table, key, video)
        assert code == 0
        out = capsys.readouterr().out
        assert '"frames_posted": 8' in out and '"hands_recorded": 1' in out
        hands = client.get(f"/v1/tables/{table}/hands",
                           headers={"Authorization": f"Bearer {key}"}).json()["hands"]
        assert [h["hand"] for h in hands] == [scoring.format_hand(scoring.parse_hand(HAND))]
        assert hands[0]["source"] == "camera"


def test_watch_names_a_source_it_cannot_open(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["watch", "--table", "1", "--key", "k", "--source", str(tmp_path / "no.mp4")])
    assert code == 2
    assert "cannot open video source" in capsys.readouterr().err


def test_watch_stops_on_a_refused_key(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    video = tmp_path / "t.avi"
    write_video(video, [120])
    app, _ = make_app(database_url("sqlite", tmp_path), tmp_path / "data")
    for client in client_for(app):
        _, [(table, _key)] = new_event(client, rules="xiamen", tables=1)
        port = _port()
        server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port,
                                               log_level="warning", lifespan="off"))
        thread = _serve(server)
        try:
            code = main(["watch", "--table", str(table), "--key", "tc_wrong", "--source",
                         str(video), "--server", f"http://127.0.0.1:{port}"])
        finally:
            server.should_exit = True
            thread.join(timeout=10)
        assert code == 2
        assert "refused" in capsys.readouterr().err


def test_a_live_source_that_stops_is_reopened_then_given_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    video = tmp_path / "cam.avi"
    write_video(video, [60, 120])
    opened: list[int] = []
    real_open = watch.open_source

    def flaky_open(source: str) -> object:  # the camera comes back once, then is gone
        opened.append(1)
        if len(opened) > 2:
            raise ValueError("cannot open video source")
        return real_open(source)

    monkeypatch.setattr(watch, "is_live", lambda source: True)  # treat the file as a camera
    monkeypatch.setattr(watch, "open_source", flaky_open)
    monkeypatch.setattr(watch, "sample_frames",
                        lambda cap, every, live: sample_frames(cap, every, live=False))
    got = []
    with pytest.raises(ValueError, match="stopped delivering frames"):
        for image in watch.frames(str(video), 0.5, reconnects=3, wait_s=0):
            got.append(round(float(image.mean()) / 60) * 60)
    assert got == [60, 60, 120, 120] * 2  # the first opening and one successful reconnect
    assert len(opened) == 2 + 3  # then three failed reconnects


def test_watch_needs_a_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                           capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("TILECAM_TABLE_KEY", raising=False)
    video = tmp_path / "v.avi"
    write_video(video, [60])
    assert main(["watch", "--table", "1", "--source", str(video)]) == 2
    assert "TILECAM_TABLE_KEY" in capsys.readouterr().err


def test_a_server_that_does_not_answer_is_tried_again_with_the_same_frame(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A server restarting: the frame is sent again (each try said on stderr), and the
    watch goes on once it answers; past ``--retries`` it stops, naming the server."""
    import urllib.error

    video = tmp_path / "v.avi"
    write_video(video, [120])
    answers: list[object] = [urllib.error.URLError("connection refused")] * 2
    sent: list[bytes] = []

    def flaky_post(server: str, table: int, key: str, jpeg: bytes, fields: object = None) -> tuple:
        sent.append(jpeg)
        if answers:
            raise answers.pop(0)  # type: ignore[misc]
        return 200, {"status": "waiting"}, 0.0

    monkeypatch.setattr(watch, "post_frame", flaky_post)
    monkeypatch.setattr(watch, "RETRY_WAIT_S", 0.0)
    args = ["watch", "--table", "1", "--key", "k", "--source", str(video), "--every", "0",
            "--max-frames", "1"]
    assert main([*args, "--retries", "2"]) == 0
    assert len(sent) == 3 and len(set(sent)) == 1  # the one frame, three times
    captured = capsys.readouterr()
    assert captured.err.count('"unanswered"') == 2 and '"frames_posted": 1' in captured.out
    answers[:] = [urllib.error.URLError("connection refused")] * 3
    assert main([*args, "--retries", "2"]) == 2
    assert "cannot reach the server" in capsys.readouterr().err


def test_watch_says_when_the_recorded_hand_s_image_was_not_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The server cannot keep frame images (its data folder is a file here): the hand is
    recorded all the same, and the watch prints why its picture was not kept."""
    video = tmp_path / "table.avi"
    write_video(video, [120, 120])
    blocked = tmp_path / "data"
    blocked.write_text("not a folder")
    app, cam = make_app(database_url("sqlite", tmp_path), blocked)
    cam.show(120, HAND)
    for client in client_for(app):
        _, [(table, key)] = new_event(client, rules="xiamen", tables=1)
        code = _watch(app, table, key, video)
        assert code == 0
        lines = capsys.readouterr().out.splitlines()
        recorded = [line for line in lines if '"status": "recorded"' in line]
        assert len(recorded) == 1 and '"image_error": "the frame image was not kept: ' in (
            recorded[0])
        assert '"hands_recorded": 1' in lines[-1]


def test_watch_s_default_server_follows_tilecam_port_and_an_unreachable_one_names_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``TILECAM_PORT=8861 make serve`` then ``tilecam watch`` with no ``--server``: the
    watch posts to port 8861 (it went to 8000); a server it cannot reach is named, with
    the option that gives another one."""
    import urllib.error

    video = tmp_path / "v.avi"
    write_video(video, [120])
    servers: list[str] = []

    def refused(server: str, table: int, key: str, jpeg: bytes, fields: object = None) -> tuple:
        servers.append(server)
        raise urllib.error.URLError(ConnectionRefusedError(111, "Connection refused"))

    monkeypatch.setattr(watch, "post_frame", refused)
    monkeypatch.setenv("TILECAM_PORT", "8861")
    monkeypatch.delenv("TILECAM_HOST", raising=False)
    args = ["watch", "--table", "1", "--key", "k", "--source", str(video), "--every", "0",
            "--max-frames", "1", "--retries", "0"]
    assert main(args) == 2
    assert servers == ["http://127.0.0.1:8861"]
    err = capsys.readouterr().err
    assert "cannot reach the server http://127.0.0.1:8861: connection refused" in err
    assert "--server http://HOST:PORT" in err
    monkeypatch.setenv("TILECAM_HOST", "0.0.0.0")  # serve's every-address bind: reached locally
    assert main(args) == 2 and servers[-1] == "http://127.0.0.1:8861"
    monkeypatch.setenv("TILECAM_HOST", "::")  # IPv6's every-address bind listens on IPv6 alone
    assert main(args) == 2 and servers[-1] == "http://[::1]:8861"
    monkeypatch.setenv("TILECAM_PORT", "0")  # serve picks a free port the watch cannot know
    capsys.readouterr()
    assert main(args) == 2 and "TILECAM_PORT=0" in capsys.readouterr().err
    monkeypatch.setenv("TILECAM_PORT", "8861")
    monkeypatch.setenv("TILECAM_HOST", "0.0.0.0")
    assert main([*args, "--server", "http://10.0.0.5:9000"]) == 2
    assert servers[-1] == "http://10.0.0.5:9000"
    capsys.readouterr()
    monkeypatch.setenv("TILECAM_PORT", "abc")
    assert main(args) == 2
    assert "TILECAM_PORT='abc' is not a port" in capsys.readouterr().err
    monkeypatch.delenv("TILECAM_PORT")
    monkeypatch.delenv("TILECAM_HOST")
    assert main(args) == 2 and servers[-1] == "http://127.0.0.1:8000"


def test_watch_help_describes_the_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["watch", "--help"])
    out = capsys.readouterr().out
    between = out.split("\n\n")[1]  # usage, then the description, then the options
    assert between.startswith("Read a table camera") and "/v1/tables/{id}/frames" in between
    assert "--server" in between and "TILECAM_TABLE_KEY" in between
