"""`tilecam watch` reading its source: a video file's frame that does not decode is skipped
(said on stderr, counted in the final line) and the file read on, up to
``watch.MAX_BAD_FRAMES`` in a row; a live source gives its newest frame, not those that
waited in its buffer while the last one was posted.

Before (the seventy-fourth session's camera review, findings 5 and S1): the first frame of
a file that did not decode ended the watch — exit 0, nothing said, the rest of the file
never posted; a live source's frames were read one per post, so with posts slower than
``--every`` each frame posted was older than the last."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from itertools import pairwise
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from tilecam.cli import main
from tilecam.commands import watch
from tilecam.commands.watch import MAX_BAD_FRAMES, Skips, SourceError, sample_frames

FPS = 10


def damaged_video(path: Path, frames: int, bad: Sequence[int] = (),
                  cut_at: int | None = None) -> Path:
    """An MJPG video of ``frames`` 64×48 frames at 10 fps (frame k, counted from 0, is
    grey level 5k), the JPEG data of frames ``bad`` (counted from 0) zeroed so that they
    do not decode, and the file cut at the start of frame ``cut_at`` when given (its
    header still gives ``frames``)."""
    out = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), FPS, (64, 48))
    assert out.isOpened()
    for k in range(frames):
        out.write(np.full((48, 64, 3), 5 * k, np.uint8))
    out.release()
    data = bytearray(path.read_bytes())
    starts = [m.start() for m in re.finditer(b"\xff\xd8\xff", data)]  # each frame's JPEG
    assert len(starts) == frames
    for k in bad:
        data[starts[k]:starts[k] + 200] = bytes(200)
    if cut_at is not None:
        data = data[:starts[cut_at]]
    path.write_bytes(bytes(data))
    return path


def _levels(images: list[np.ndarray]) -> list[int]:
    """The frame numbers (from 0) of :func:`damaged_video`'s frames, by grey level."""
    return [round(float(image.mean()) / 5) for image in images]


def _json_lines(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


def _fake_post(monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    """``watch.post_frame`` answering every frame ``waiting``; the frames it was given."""
    sent: list[bytes] = []

    def post(server: str, table: int, key: str, jpeg: bytes,
             fields: object = None) -> tuple[int, dict[str, Any], float]:
        sent.append(jpeg)
        return 200, {"status": "waiting", "view": "tiles"}, 0.0

    monkeypatch.setattr(watch, "post_frame", post)
    return sent


def _watch_file(video: Path) -> int:
    return main(["watch", "--table", "1", "--key", "k", "--source", str(video),
                 "--every", "0", "--server", "http://127.0.0.1:1"])


# --------------------------------------------------------------- a video file (finding 5)

def test_a_file_s_frame_that_does_not_decode_is_skipped_and_the_frames_after_it_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Rule: a frame of a file that does not read, with frames after it that do, is
    skipped — one JSON line on stderr naming it (counted from 1, of the file's count) —
    and the file is read on to its end. Before: the first such frame ended the file."""
    video = damaged_video(tmp_path / "v.avi", 20, bad=[5])
    cap = cv2.VideoCapture(str(video))
    skips = Skips()
    try:
        got = list(sample_frames(cap, 0, live=False, skips=skips))
    finally:
        cap.release()
    assert _levels(got) == [k for k in range(20) if k != 5]
    assert (skips.skipped, skips.unread_at_end) == (1, 0)
    [line] = _json_lines(capsys.readouterr().err)
    assert line["skipped_frame"] == 6 and line["of"] == 20 and line["at_s"] == 0.5
    assert "does not decode" in line["why"]


def test_watch_posts_the_frames_after_a_damaged_one_and_says_how_many_it_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Rule: the watch goes on past a damaged frame, exit 0; the final line says how many
    frames were skipped. A file that had a skipped frame is not thought cut short at its
    end (cv2's CAP_PROP_POS_FRAMES stays one behind after a frame that does not read).
    Before: 5 of the 19 good frames posted, exit 0, nothing said."""
    sent = _fake_post(monkeypatch)
    assert _watch_file(damaged_video(tmp_path / "v.avi", 20, bad=[5, 12])) == 0
    captured = capsys.readouterr()
    assert len(sent) == 18
    assert _json_lines(captured.out)[-1] == {"frames_posted": 18, "hands_recorded": 0,
                                             "frames_skipped": 2}
    assert [line["skipped_frame"] for line in _json_lines(captured.err)] == [6, 13]


def test_a_sound_file_says_it_skipped_no_frame(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Rule: a file whose frames all read skips none, and its end is no damage."""
    _fake_post(monkeypatch)
    assert _watch_file(damaged_video(tmp_path / "v.avi", 12)) == 0
    captured = capsys.readouterr()
    assert _json_lines(captured.out)[-1] == {"frames_posted": 12, "hands_recorded": 0,
                                             "frames_skipped": 0}
    assert _json_lines(captured.err) == []


def test_up_to_max_bad_frames_in_a_row_are_skipped_one_more_stops_the_watch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Rule: ``MAX_BAD_FRAMES`` frames in a row that do not read are skipped; one more
    stops the watch with exit status 2 and a message that names the frames, says the
    file is damaged, and what the watch did until then. Before: exit 0 after frame 4."""
    _fake_post(monkeypatch)
    n = MAX_BAD_FRAMES
    assert _watch_file(damaged_video(tmp_path / "ok.avi", n + 8,
                                     bad=list(range(4, 4 + n)))) == 0
    captured = capsys.readouterr()
    assert _json_lines(captured.out)[-1]["frames_skipped"] == n
    assert _json_lines(captured.out)[-1]["frames_posted"] == 8

    assert _watch_file(damaged_video(tmp_path / "bad.avi", n + 9,
                                     bad=list(range(4, 5 + n)))) == 2
    captured = capsys.readouterr()
    assert "frames_posted" not in captured.out  # no final line: an error instead
    error = captured.err.strip().splitlines()[-1]
    assert error.startswith("tilecam watch: error: ")
    assert f"frames 5-{5 + n} of the {n + 9} the video file gives do not read" in error
    assert "damaged or cut short" in error
    assert error.endswith("; 4 frames posted, 0 hands recorded, 0 frames skipped")


def test_a_file_cut_short_ends_where_it_ends_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Rule: frames up to the file's frame count that do not read with none read after
    them are its end, not skipped frames: the watch ends (exit 0), stderr says the file
    gives more frames than read, and the final line counts them. Before: nothing said."""
    _fake_post(monkeypatch)
    assert _watch_file(damaged_video(tmp_path / "v.avi", 20, cut_at=12)) == 0
    captured = capsys.readouterr()
    assert _json_lines(captured.out)[-1] == {"frames_posted": 12, "hands_recorded": 0,
                                             "frames_skipped": 0, "frames_unread_at_end": 8}
    [line] = _json_lines(captured.err)
    assert line["unread_at_end"] == 8 and line["of"] == 20
    assert "frames 13-20 do not read" in line["why"]


class FakeFile:
    """A capture of a video file whose reads go as ``pattern`` ("1" a frame that reads,
    "0" one that does not), then fail (its end); ``count`` what it gives for
    CAP_PROP_FRAME_COUNT (0: none)."""

    def __init__(self, pattern: str, count: int = 0) -> None:
        self.pattern, self.count, self.index, self.msec = pattern, count, 0, 0.0

    def read(self) -> tuple[bool, np.ndarray | None]:
        k, self.index = self.index, self.index + 1
        if k < len(self.pattern) and self.pattern[k] == "1":
            self.msec = 100.0 * k
            return True, np.full((2, 2, 3), k, np.uint8)
        return False, None

    def get(self, prop: int) -> float:
        return {cv2.CAP_PROP_FRAME_COUNT: float(self.count),
                cv2.CAP_PROP_POS_MSEC: self.msec}.get(prop, 0.0)


def test_without_a_frame_count_frames_that_do_not_read_are_skipped_when_one_reads_after(
    capsys: pytest.CaptureFixture[str]
) -> None:
    """Rule (a backend that gives no frame count): a frame that does not read is skipped
    once a frame after it reads; a run of more than ``MAX_BAD_FRAMES`` with none after
    is the file's end (it cannot be told from a damaged stretch), not an error."""
    skips = Skips()
    got = list(sample_frames(FakeFile("110111"), 0, live=False, skips=skips))
    assert [int(image[0, 0, 0]) for image in got] == [0, 1, 3, 4, 5]
    assert skips.skipped == 1 and skips.unread_at_end == 0
    [line] = _json_lines(capsys.readouterr().err)
    assert line["skipped_frame"] == 3 and "of" not in line  # no count to give
    long_gap = "1" + "0" * (MAX_BAD_FRAMES + 1) + "1"
    got = list(sample_frames(FakeFile(long_gap), 0, live=False, skips=Skips()))
    assert len(got) == 1 and _json_lines(capsys.readouterr().err) == []


def test_with_a_frame_count_a_long_damaged_stretch_raises_source_error() -> None:
    """Rule (the count known): more than ``MAX_BAD_FRAMES`` in a row before the count is
    reached is :class:`SourceError` — a ValueError, so ``tilecam`` exits 2."""
    pattern = "11" + "0" * (MAX_BAD_FRAMES + 1) + "11"
    with pytest.raises(SourceError, match=f"frames 3-{MAX_BAD_FRAMES + 3} of the"):
        list(sample_frames(FakeFile(pattern, count=len(pattern)), 0, live=False))
    assert issubclass(SourceError, ValueError)


# --------------------------------------------------------------- a live source (S1)

class Clock:
    """A clock the test moves: the fake camera when the watch waits for a frame or
    decodes one, the test when the watch posts one."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class FakeStream:
    """A live camera of ``fps`` frames a second, frame k taken at k/fps, kept in an
    unbounded buffer (an RTSP stream through FFmpeg) until read: ``grab()`` takes the
    oldest frame not yet taken — at once when it was taken already, else waiting for it —
    and decodes it (``decode_s``); ``retrieve()`` gives it as an array holding its time.
    ``instant``: every frame is there at once (a video file given by URL)."""

    def __init__(self, clock: Clock, fps: float = 30.0, decode_s: float = 0.002,
                 instant: bool = False) -> None:
        self.clock, self.fps, self.decode_s, self.instant = clock, fps, decode_s, instant
        self.next = 0  # the frame the next grab takes
        self.grabbed: float | None = None
        self.grabs = 0

    def grab(self) -> bool:
        taken_at = self.next / self.fps
        if not self.instant:
            self.clock.now = max(self.clock.now, taken_at)  # wait for it to be taken
        self.clock.now += self.decode_s
        self.grabbed, self.next, self.grabs = taken_at, self.next + 1, self.grabs + 1
        return True

    def retrieve(self) -> tuple[bool, np.ndarray]:
        assert self.grabbed is not None
        return True, np.array([[[self.grabbed]]])

    def read(self) -> tuple[bool, np.ndarray | None]:
        if not self.grab():
            return False, None
        return self.retrieve()

    def get(self, prop: int) -> float:
        return self.fps if prop == cv2.CAP_PROP_FPS else 0.0


def _post_live(every_s: float, post_s: float, posts: int,
               **stream: Any) -> list[tuple[float, float]]:
    """(time the frame was taken, time the watch had it) of ``posts`` frames sampled
    from a :class:`FakeStream`, each post taking ``post_s``."""
    clock = Clock()
    cap = FakeStream(clock, **stream)
    out = []
    frames = sample_frames(cap, every_s, live=True, clock=clock)
    for image in frames:
        out.append((float(image[0, 0, 0]), clock.now))
        if len(out) == posts:
            break
        clock.now += post_s  # the post
    frames.close()
    return out


@pytest.mark.parametrize("every_s", [1.0, 0.0])
def test_a_live_frame_posted_after_a_slow_post_is_new_not_one_the_buffer_kept(
    every_s: float
) -> None:
    """Rule: with posts slower than ``--every`` (3 s each here), every frame the watch
    takes from a live source was taken by the camera within two frame intervals of the
    moment the watch has it: the frames the stream buffered during the post are dropped,
    so the lag cannot grow. Before: the oldest buffered frame was taken each time, the
    tenth 27 s old."""
    got = _post_live(every_s, post_s=3.0, posts=10)
    lags = [had - taken for taken, had in got]
    assert max(lags) <= 2 / 30, lags
    assert [round(b[0] - a[0]) for a, b in pairwise(got)] == [3] * 9


def test_live_frames_are_still_one_every_every_seconds_with_quick_posts() -> None:
    """Rule (kept from before; a guard): a live source is sampled once per ``--every`` of
    the clock (posts of 0.1 s, --every 1: frames taken 1 s apart), each frame new."""
    got = _post_live(1.0, post_s=0.1, posts=6)
    assert [round(b[0] - a[0], 1) for a, b in pairwise(got)] == [1.0] * 5
    assert max(had - taken for taken, had in got) <= 2 / 30


def test_a_live_source_whose_frames_all_come_at_once_still_gives_frames() -> None:
    """Rule (a guard; the code before dropped no frame): a source that never makes the
    watch wait (every frame is there at once) is dropped from for no longer than the
    watch held the last frame plus ``DRAIN_SLACK_S`` (and a frame interval); then a
    frame is taken all the same."""
    clock = Clock()
    cap = FakeStream(clock, instant=True)
    frames = sample_frames(cap, 0.0, live=True, clock=clock)
    resumed = clock.now
    next(frames)
    assert clock.now - resumed <= watch.DRAIN_SLACK_S + 1 / 30 + 0.01
    clock.now += 2.0  # a post of 2 s
    resumed = clock.now
    next(frames)
    assert clock.now - resumed <= 2.0 + watch.DRAIN_SLACK_S + 1 / 30 + 0.01
    frames.close()


def test_a_live_source_whose_grab_fails_ends_its_frames() -> None:
    """Rule (kept from before; a guard): a live source that gives no frame ends the
    sampling (``frames`` then reopens it)."""

    class Gone(FakeStream):
        def grab(self) -> bool:
            return False

    assert list(sample_frames(Gone(Clock()), 1.0, live=True, clock=Clock())) == []



def test_a_frame_line_names_the_sheet_s_hand_when_the_camera_read_another(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Rule: the watch operator sees when the frame's reading differs from the hand the
    sheet recorded (``recorded_hand``); a line whose reading is the sheet's says nothing
    more."""
    base = {"status": "already_recorded", "streak": 3, "needed": 3, "hand_number": 1,
            "view": "tiles"}
    watch.show_answer(7, 200, {**base, "hand": "123m456m789m123p55p",
                               "recorded_hand": "123m456m789m123p5p5p"})
    watch.show_answer(8, 200, {**base, "hand": "123m456m789m123p55p",
                               "recorded_hand": "123m456m789m123p55p"})
    first, second = (json.loads(x) for x in capsys.readouterr().out.splitlines())
    assert first["recorded_hand"] == "123m456m789m123p5p5p"
    assert "recorded_hand" not in second
