"""`tilecam watch` and the frame answers' ``view``: each frame's line carries its ``view``,
and the server's ``view_note`` is printed when the camera stops seeing the table
(``elsewhere``, ``unreadable``, ``dark``) — on the frame where that began, not on every
frame after it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from test_tables_helpers import client_for, database_url, make_app, new_event
from test_watch_camera import HAND, _watch, write_video

from tilecam.cli import main
from tilecam.commands import watch


def _answer(view: str | None, note: str | None, status: str = "waiting") -> dict[str, Any]:
    return {"status": status, "streak": 0, "needed": 3, "hand": None, "complete": False,
            "tiles": 0, "hand_number": 1, "view": view, "view_note": note}


WALL = "the camera is not looking at the table surface it saw before (colour 3% alike)"
WALL_LATER = "the camera is not looking at the table surface it saw before (colour 5% alike)"
TOO_DARK = "the table's part of the frame is too dark to see its colour"
DARK = "the frame is dark (its brightest pixels under level 40 of 255): no view of the table"


def _lines(out: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in out.splitlines() if '"frame"' in line]


def test_the_view_note_is_printed_once_each_time_the_camera_stops_seeing_the_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Rule: every line has the frame's ``view``; ``view_note`` comes with the first frame
    of each run of ``elsewhere``, ``unreadable`` or ``dark`` frames (a note whose figures
    change within the run is not printed again), never with ``tiles``/``table``/
    ``unlearned``; an answer that is no 200 does not end a run."""
    video = tmp_path / "v.avi"
    write_video(video, [120, 120])  # 20 frames; --every 0 posts each
    answers: list[tuple[int, dict[str, Any], float]] = [
        (200, _answer("tiles", "tiles in view"), 0.0),
        (200, _answer("elsewhere", WALL), 0.0),  # 2: note
        (200, _answer("elsewhere", WALL_LATER), 0.0),
        (500, {"error": {"code": "internal", "message": "boom"}}, 0.0),
        (200, _answer("elsewhere", WALL), 0.0),
        (200, _answer("unreadable", TOO_DARK), 0.0),  # 6: note
        (200, _answer("dark", DARK), 0.0),  # 7: note
        (200, _answer("dark", DARK), 0.0),
        (200, _answer("table", "the table's surface, with no tiles"), 0.0),
        (200, _answer("unlearned", "the camera has not yet learned the table's surface"), 0.0),
        (200, _answer(None, None), 0.0),
        (200, _answer("elsewhere", WALL), 0.0),  # 12: note again, after the table
        (200, _answer("dark", None), 0.0),  # 13: a note missing: the view in its place
    ]
    queue = list(answers)

    def fake_post(server: str, table: int, key: str, jpeg: bytes,
                  fields: object = None) -> tuple[int, dict[str, Any], float]:
        return queue.pop(0)

    monkeypatch.setattr(watch, "post_frame", fake_post)
    code = main(["watch", "--table", "1", "--key", "k", "--source", str(video), "--every", "0",
                 "--max-frames", str(len(answers))])
    assert code == 0
    lines = _lines(capsys.readouterr().out)
    assert len(lines) == len(answers)
    noted = {line["frame"]: line["view_note"] for line in lines if "view_note" in line}
    assert noted == {2: WALL, 6: TOO_DARK, 7: DARK, 12: WALL, 13: "dark"}
    ok = [line for line in lines if "http" not in line]
    assert [line["view"] for line in ok] == [
        "tiles", "elsewhere", "elsewhere", "elsewhere", "unreadable", "dark", "dark", "table",
        "unlearned", None, "elsewhere", "dark"]


def test_show_answer_alone_prints_the_note_of_a_view_that_shows_no_table(
    capsys: pytest.CaptureFixture[str]
) -> None:
    """Without the watch's memory of the last view, a frame of no table says why."""
    watch.show_answer(4, 200, _answer("dark", DARK))
    watch.show_answer(5, 200, _answer("tiles", "tiles in view"))
    first, second = _lines(capsys.readouterr().out)
    assert first["view"] == "dark" and first["view_note"] == DARK
    assert second["view"] == "tiles" and "view_note" not in second


def test_a_watch_posting_a_dark_video_to_a_server_says_it_is_dark_once_per_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """End to end: a covered lens, the hand, the lens covered again — the server answers
    ``view: dark`` with its note, and the watch prints that note on the first dark frame
    of each run."""
    video = tmp_path / "table.avi"
    write_video(video, [0, 120, 0])  # a frame every 0.5 s: dark ×2, the hand ×2, dark ×2
    app, cam = make_app(database_url("sqlite", tmp_path), tmp_path / "data")
    cam.show(120, HAND)
    for client in client_for(app):
        _, [(table, key)] = new_event(client, rules="xiamen", tables=1)
        assert _watch(app, table, key, video) == 0
    lines = _lines(capsys.readouterr().out)
    assert [line["view"] for line in lines] == ["dark", "dark", "tiles", "tiles", "dark",
                                                "dark"]
    assert [line["frame"] for line in lines if "view_note" in line] == [1, 5]
    assert "no view of the table" in lines[0]["view_note"]
