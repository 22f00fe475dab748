"""``tilecam watch``: read a table camera with OpenCV and post sampled frames to the server.

A cheap computer beside the table runs::

    TILECAM_TABLE_KEY=tc_... tilecam watch --table 3 --source rtsp://cam.local/stream --every 1

``--source``: an RTSP/HTTP stream URL, a device (``/dev/video0`` or its index ``0``) or
a video file. A frame is taken every ``--every`` seconds (of video time for a file, of
wall-clock time for a live camera), JPEG-encoded and posted to
``POST /v1/tables/{id}/frames``; each answer is printed as one line. A 429
``rate_limited`` answer is waited out (``Retry-After``; a 429 ``keys_refused`` is a
refused key, which stops the watch as a 401 does); so is a 503 that gives one (the
server busy, or the frame's recognition past its time: at most
:data:`MOST_BUSY_WAIT_S`, 60 s), the frame sent again up to :data:`BUSY_RESENDS` (2)
times, each wait said on stderr, before its 503 is shown and the watch goes on with the
next frame; the server decides when a hand is revealed.

A live camera's frame is its newest: the frames its stream kept in a buffer while the
last one was posted are dropped, so that a post slower than ``--every`` does not leave
the frames posted further and further behind the table. A video file's frame that does
not decode is skipped — one JSON line on stderr names it (``{"skipped_frame": 15, "of":
48, ...}``) — and the file is read on; more than :data:`MAX_BAD_FRAMES` (25) in a row
stop the watch, exit status 2, the file being damaged or cut short there. The final line
counts the frames skipped (``frames_skipped``), and those a file's frame count gives after
its last frame that read (``frames_unread_at_end``, only when there are some: the file
is cut short, or its count an estimate). A live source
that stops delivering frames is reopened (10 tries, 2 s apart), and a server that does
not answer (restarting, the network down a moment) is tried again with the same frame
(``--retries`` times, 2 s apart; each try said on stderr) before the watch gives up —
but only while the frame was not sent whole: a frame sent whose answer never came (a
read timeout, the connection dropped after the request) may have been counted by the
server, so it is not sent again; the watch says so on stderr and goes on with the next
frame. Each frame goes with a ``seq`` (:class:`FrameSeq`: milliseconds since 1970, one
more than the last where the clock has not moved on), so that the server answers a
frame that reaches it twice, or late, ``stale`` and counts it once.

Each frame goes with the fields the table needs to score the hand (``--winner``,
``--discarder``, ``--self-drawn``, …, ``--context KEY=VALUE`` such as Xiamen's
``gold=5m`` or Zhenjiang's ``indicator=3m``), and with those of ``--fields FILE`` (a
JSON object read again before each frame, so that what changes with each hand — the
winner, the gold — can be written there while the watch runs). A server that refuses
``--stop-after`` frames in a row for the same reason (a 4xx: a context the table needs,
the session over) stops the watch with that reason and exit status 2.

Each answer's line carries the frame's ``view`` (what it showed of the table). When that
becomes ``elsewhere`` (a lit view of something else: a wall, the floor), ``unreadable``
(the table's part too dark for a colour) or ``dark`` (a covered lens, the lights down),
the line of that frame also carries the server's ``view_note`` saying so in words; the
frames after it that show the same carry the ``view`` alone, until it changes.
"""

from __future__ import annotations

import argparse
import http.client
import json
import math
import os
import sys
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Callable, Generator, Mapping
from pathlib import Path
from typing import Any

import numpy as np

#: Seconds between tries of a server that does not answer.
RETRY_WAIT_S = 2.0
#: The longest a 503's ``Retry-After`` is waited out (s): a server that asks for more is
#: tried again after this.
MOST_BUSY_WAIT_S = 60.0
#: Times a frame answered 503 with ``Retry-After`` (the server busy, or its recognition
#: past its time) is sent again, each after the wait, before the watch shows the 503 and
#: goes on with the next frame: a frame too slow to read would be slow every time.
BUSY_RESENDS = 2


def register(sub: Any) -> None:
    p = sub.add_parser(
        "watch",
        help="post a table camera's frames to the server",
        description="Read a table camera (an RTSP/HTTP stream, a device or a video file) and "
        "post a frame every --every seconds to the server's POST /v1/tables/{id}/frames, "
        "with the fields the table needs to score the hand (--winner, --context gold=5m, "
        "--fields FILE, ...); each answer is printed as one line. The server decides from "
        "the frames when a hand is revealed and records it. The table's key goes in "
        "TILECAM_TABLE_KEY (or --key), the server's URL in --server.",
    )
    p.add_argument("--table", type=int, required=True, help="table id")
    p.add_argument("--key", default=os.environ.get("TILECAM_TABLE_KEY"),
                   help="the table's API key (default: $TILECAM_TABLE_KEY, which keeps it out "
                        "of the process list)")
    p.add_argument("--source", required=True,
                   help="rtsp://… or http://… stream, /dev/videoN (or N), or a video file "
                        "(a file's frame that does not decode is skipped, said on stderr; "
                        f"more than {MAX_BAD_FRAMES} in a row stop the watch, exit 2)")
    p.add_argument("--server", default=None,
                   help="tilecam server URL, e.g. http://192.168.1.20:8000 (default "
                        "http://127.0.0.1:8000, make serve's; on this machine's "
                        "$TILECAM_PORT and $TILECAM_HOST when set, as make serve and "
                        "tilecam serve read them)")
    p.add_argument("--every", type=float, default=1.0,
                   help="seconds between posted frames (default 1): of video time for a "
                        "file; for a live source, of the clock, and the frame posted is "
                        "its newest (those it buffered during a slow post are dropped)")
    p.add_argument("--max-frames", type=int, default=0,
                   help="stop after posting this many frames (default 0: until the source ends)")
    p.add_argument("--quality", type=int, default=90, help="JPEG quality 1-100 (default 90)")
    p.add_argument("--max-side", type=int, default=1920,
                   help="downscale frames whose longer side is larger, pixels (default 1920)")
    p.add_argument("--retries", type=int, default=10,
                   help="times a server that does not answer is tried again, 2 s apart, "
                        "before the watch stops (default 10); a frame sent whose answer "
                        "was lost is not sent again (the server may have counted it)")
    p.add_argument("--stop-after", type=int, default=3, metavar="N",
                   help="stop (exit 2) when the server refuses N frames in a row for the "
                        "same reason, e.g. a context the table needs (default 3)")
    f = p.add_argument_group("frame fields (sent with every frame; see POST "
                             "/v1/tables/{id}/frames)")
    f.add_argument("--winner", type=str.upper, choices=WINDS,
                   help="the winner's seat wind (E = dealer)")
    f.add_argument("--discarder", type=str.upper, choices=WINDS,
                   help="the discarder's seat wind")
    for flag in FLAG_FIELDS:
        f.add_argument(f"--{flag.replace('_', '-')}", action="store_true", default=None,
                       dest=flag, help=f"the win's {flag.replace('_', ' ')} flag")
    f.add_argument("--flowers", type=int, help="bonus tiles the frame does not show (0-8)")
    f.add_argument("--context", dest="rule_context", action="append", metavar="KEY=VALUE",
                   help="a rule-set field (repeatable), e.g. gold=5m (Xiamen's 金) or "
                        "indicator=3m (Zhenjiang's 百搭); or a JSON object of them (the win "
                        "flags, flowers and seats have the options above)")
    f.add_argument("--fields", type=Path, metavar="FILE",
                   help="a JSON object of frame fields (winner, discarder, self_drawn, "
                        "context, …), read again before each frame; its fields replace the "
                        "options' (write the hand's winner or gold there as play goes on)")
    p.set_defaults(func=run)


WINDS = ("E", "S", "W", "N")
#: The win flags a frame may carry (true or absent).
FLAG_FIELDS = ("self_drawn", "last_of_kind", "kong", "last_wall_tile")
#: Every field ``POST /v1/tables/{id}/frames`` takes beside the image.
FRAME_FIELDS = ("winner", "discarder", *FLAG_FIELDS, "flowers", "context")
#: The keys a frame's ``context`` may not set — ``scoring.score``'s own parameters, which
#: the server gives the table's scorer from the frame's fields, the table and the hand's
#: place (it refuses them: 400 ``invalid_context``) — and the frame field that gives each.
CONTEXT_FIELD_FOR = {"seat_wind": "winner", "discarder": "discarder", "flowers": "flowers",
                     **{name: name for name in FLAG_FIELDS}}
#: Those no frame field gives, and why none is needed.
CONTEXT_NOT_GIVEN = {
    "hand": "the server reads the hand from the frames",
    "rules": "the table plays its event's rule set",
    "version": "the table plays its event's rule version",
    "settings": "the table plays its event's rule settings",
    "prevalent_wind": "the server takes the round's wind from the score sheet",
}


def context_clash(context: Mapping[str, Any], option: bool) -> str | None:
    """What is wrong with a frame's ``context`` that sets a key the frame's fields, the
    table or the sheet give (:data:`CONTEXT_FIELD_FOR`, :data:`CONTEXT_NOT_GIVEN`), naming
    the option (``option``: ``--context``) or the field (``--fields FILE``) to use; None
    when it sets none.

    >>> context_clash({"gold": "5m"}, option=True) is None
    True
    >>> context_clash({"self_drawn": True}, option=True)
    '--context may not set self_drawn; use --self-drawn'
    >>> context_clash({"seat_wind": "S"}, option=False)
    "context may not set seat_wind; use the field winner (the winner's seat wind)"
    """
    said = []
    for key in sorted(set(context) & (set(CONTEXT_FIELD_FOR) | set(CONTEXT_NOT_GIVEN))):
        name = CONTEXT_FIELD_FOR.get(key)
        if name is None:
            use = CONTEXT_NOT_GIVEN[key]
        else:
            use = ("use --" + name.replace("_", "-") if option else f"use the field {name}")
            use += " (the winner's seat wind)" if key == "seat_wind" else ""
        said.append(f"{'--context' if option else 'context'} may not set {key}; {use}")
    return "; ".join(said) or None


def context_option(items: list[str] | None) -> dict[str, Any]:
    """The ``--context`` items: ``KEY=VALUE`` pairs (a number or true/false given so is
    sent as one) or JSON objects; ValueError naming a malformed one, or a key that is no
    rule-set field but what an option gives (:func:`context_clash`: the server would
    refuse every frame).

    >>> context_option(["gold=5m", '{"chips_left": 40}'])
    {'gold': '5m', 'chips_left': 40}
    >>> context_option(["self_drawn=true"])
    Traceback (most recent call last):
    ...
    ValueError: --context may not set self_drawn; use --self-drawn
    """
    out: dict[str, Any] = {}
    for item in items or []:
        text = item.strip()
        if text.startswith("{"):
            try:
                value = json.loads(text)
            except ValueError as exc:
                raise ValueError(f"--context {item!r} is not a JSON object: {exc}") from None
            if not isinstance(value, dict):
                raise ValueError(f"--context {item!r} is not a JSON object")
            out.update(value)
            continue
        key, sep, raw = text.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"--context {item!r}: give KEY=VALUE, e.g. gold=5m")
        value = raw.strip()
        try:
            parsed = json.loads(value)
        except ValueError:
            parsed = value
        out[key.strip()] = parsed if isinstance(parsed, int | float | bool) else value
    if (problem := context_clash(out, option=True)) is not None:
        raise ValueError(problem)
    return out


def frame_fields(given: Mapping[str, Any], where: str) -> dict[str, str]:
    """Frame fields (``winner``, ``context``, …) as the form sends them; ValueError naming
    ``where`` they came from for a field the endpoint does not take or a bad value."""
    unknown = sorted(set(given) - set(FRAME_FIELDS))
    if unknown:
        raise ValueError(f"{where}: unknown frame field(s) {', '.join(unknown)}; known: "
                         f"{', '.join(FRAME_FIELDS)}")
    out: dict[str, str] = {}
    for name, value in given.items():
        if value is None:
            continue
        if name in ("winner", "discarder"):
            if not isinstance(value, str) or value.strip().upper() not in WINDS:
                raise ValueError(f"{where}: {name} {value!r}: give a seat wind E, S, W or N")
            out[name] = value.strip().upper()
        elif name in FLAG_FIELDS:
            if not isinstance(value, bool):
                raise ValueError(f"{where}: {name} {value!r}: give true or false")
            if value:
                out[name] = "true"
        elif name == "flowers":
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 8:
                raise ValueError(f"{where}: flowers {value!r}: give a whole number 0-8")
            out[name] = str(value)
        else:  # context
            if not isinstance(value, dict):
                raise ValueError(f"{where}: context must be a JSON object, e.g. "
                                 '{"gold": "5m"}')
            if (problem := context_clash(value, option=False)) is not None:
                raise ValueError(f"{where}: {problem}")
            if value:
                out[name] = json.dumps(value, ensure_ascii=False)
    return out


def option_fields(args: argparse.Namespace) -> dict[str, str]:
    """The frame fields the options give."""
    given: dict[str, Any] = {name: getattr(args, name, None)
                             for name in ("winner", "discarder", *FLAG_FIELDS, "flowers")}
    given["context"] = context_option(getattr(args, "rule_context", None))
    return frame_fields(given, "the options")


def with_file_fields(base: Mapping[str, str], path: Path) -> dict[str, str]:
    """``base`` (the options' frame fields) with the file's laid over them: a field the
    file gives replaces the option's, and one it clears — ``null``, a flag ``false``, an
    empty ``context`` — takes the option's away (a winner or 自摸 of the command line
    must not ride on every hand after the file says otherwise)."""
    cleared = _cleared_fields(path)
    out = {k: v for k, v in base.items() if k not in cleared}
    out.update(file_fields(path))
    return out


def _cleared_fields(path: Path) -> set[str]:
    try:
        data = json.loads(path.read_text(encoding="utf-8") or "{}")
    except (OSError, ValueError):
        return set()  # file_fields says what is wrong
    if not isinstance(data, dict):
        return set()
    return {k for k, v in data.items() if v is None or v is False or v == {}}


def file_fields(path: Path) -> dict[str, str]:
    """The frame fields in ``path`` (a JSON object); ValueError naming what is wrong."""
    try:
        data = json.loads(path.read_text(encoding="utf-8") or "{}")
    except OSError as exc:
        raise ValueError(f"--fields {path}: cannot read it: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise ValueError(f"--fields {path}: not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ValueError(f"--fields {path}: give a JSON object, e.g. "
                         '{"winner": "S", "context": {"gold": "5m"}}')
    return frame_fields(data, f"--fields {path}")


def camera_index(source: str) -> int | None:
    """The index of the camera ``source`` names (``0`` for ``/dev/video0``), written in
    ASCII digits; None for any other source (``str.isdigit()`` is true of ``²``, ``①``
    and full-width ``２`` too, which ``int()`` fails on or reads as another number).

    >>> camera_index("0"), camera_index("12"), camera_index("²"), camera_index("２")
    (0, 12, None, None)
    """
    return int(source) if source.isascii() and source.isdigit() else None


def open_source(source: str) -> Any:
    """An opened ``cv2.VideoCapture`` for ``source``; ValueError when it cannot be opened."""
    import cv2

    index = camera_index(source)
    cap = cv2.VideoCapture(source if index is None else index)
    if not cap.isOpened():
        # digits that are not ASCII (², ①, a Chinese keyboard's ２) are tried as a file
        hint = ("; a camera is given by its index in ASCII digits (0-9), e.g. --source 0"
                if index is None and source.strip().isdigit() else "")
        raise ValueError(f"cannot open video source {source!r} (not a readable file, device "
                         f"or stream{hint})")
    return cap


def is_live(source: str) -> bool:
    """Whether ``source`` is a live camera/stream (sampled by wall clock) rather than a file.

    >>> is_live("0"), is_live("rtsp://cam/1"), is_live("hand.mp4"), is_live("²")
    (True, True, False, False)
    """
    return camera_index(source) is not None or source.startswith(
        ("/dev/", "rtsp://", "rtsps://", "http://", "https://", "udp://", "tcp://"))


#: Frames in a row of a video file that do not read and are skipped; one more stops the
#: watch (exit status 2): the file is damaged or cut short there.
MAX_BAD_FRAMES = 25
#: How much longer than the watch held the last frame it may drop frames that come at
#: once from a live source's buffer, before it takes one anyway (a source that never
#: makes it wait: a video file given by URL).
DRAIN_SLACK_S = 1.0


class SourceError(ValueError):
    """The video source cannot give more frames: a live one that does not come back, a
    file with more than :data:`MAX_BAD_FRAMES` frames in a row that do not read."""


class Skips:
    """The frames of a video file that did not read: each one skipped is said on stderr
    as one JSON line and counted; those at its end (none read after them) are counted
    apart — the file may be cut short there, or give more frames than it holds."""

    def __init__(self) -> None:
        self.skipped = 0
        self.unread_at_end = 0

    def skip(self, number: int, count: int | None, fps: float) -> None:
        """Frame ``number`` (counted from 1; ``count`` the file's frames, ``fps`` its
        rate, 0 unknown) did not read, and a frame after it did: it is skipped."""
        line: dict[str, Any] = {"skipped_frame": number}
        if count is not None:
            line["of"] = count
        if fps > 0:
            line["at_s"] = round((number - 1) / fps, 3)
        line["why"] = "it does not decode (damaged or missing data); the frames after it are read"
        print(json.dumps(line), file=sys.stderr, flush=True)
        self.skipped += 1

    def ended(self, unread: list[int], count: int) -> None:
        """The file gives ``count`` frames, but the frames ``unread`` (its last ones)
        did not read: said on stderr once, counted in :attr:`unread_at_end`."""
        self.unread_at_end = len(unread)
        which = (f"frame {count} does" if unread[0] == count
                 else f"frames {unread[0]}-{count} do")
        print(json.dumps({
            "unread_at_end": len(unread), "of": count,
            "why": f"the file gives {count} frames, but {which} not read: it is cut short "
                   "or damaged at its end (or its frame count is an estimate)"}),
              file=sys.stderr, flush=True)


def sample_frames(cap: Any, every_s: float, live: bool,
                  clock: Callable[[], float] = time.monotonic,
                  skips: Skips | None = None) -> Generator[np.ndarray, None, None]:
    """Frames of ``cap`` at least ``every_s`` seconds apart (video time for a file, by
    ``clock`` for a live source).

    A file (:func:`_sample_file`) skips a frame that does not read and reads on — each
    one skipped said on stderr and counted in ``skips`` — and stops with
    :class:`SourceError` at more than :data:`MAX_BAD_FRAMES` in a row. A live source
    (:func:`_sample_live`) gives its newest frame: those that waited in its buffer while
    the last one was posted are dropped. Either ends when ``cap`` gives no more frames."""
    if every_s < 0:
        raise ValueError(f"--every must be 0 or more seconds, not {every_s}")
    if live:
        return _sample_live(cap, every_s, clock)
    return _sample_file(cap, every_s, skips if skips is not None else Skips())


def _sample_file(cap: Any, every_s: float,
                 skips: Skips) -> Generator[np.ndarray, None, None]:
    """:func:`sample_frames` for a file. The watch counts the frames it read itself (good
    or not): cv2's ``CAP_PROP_POS_FRAMES`` does not move on a frame that does not read,
    so after one skipped frame it stays below ``CAP_PROP_FRAME_COUNT`` at the end.

    A frame that does not read is held; when a frame after it reads, it is skipped (said,
    counted). Frames that do not read up to the file's frame count, with none read after
    them, are its end (:meth:`Skips.ended`). More than :data:`MAX_BAD_FRAMES` in a row
    stop the watch — unless the backend gives no frame count: the end cannot be told
    from a damaged stretch then, and such a run is taken for the end."""
    import cv2

    total = cap.get(cv2.CAP_PROP_FRAME_COUNT)
    count = int(total) if math.isfinite(total) and total >= 1 else None
    fps = cap.get(cv2.CAP_PROP_FPS)
    fps = fps if math.isfinite(fps) and fps > 0 else 0.0
    number = 0  # frames read so far, good or not
    bad: list[int] = []  # the numbers of the frames in a row that did not read
    last: float | None = None
    while True:
        ok, image = cap.read()
        number += 1
        if ok and image is not None:
            for n in bad:
                skips.skip(n, count, fps)
            bad = []
            now = cap.get(cv2.CAP_PROP_POS_MSEC) / 1000.0
            if last is None or now - last >= every_s - 1e-6:
                last = now
                yield image
            continue
        if count is not None and number > count:  # past the frames the file gives
            if bad:
                skips.ended(bad, count)
            return
        bad.append(number)
        if len(bad) > MAX_BAD_FRAMES:
            if count is None:
                return
            raise SourceError(
                f"frames {bad[0]}-{bad[-1]} of the {count} the video file gives do not read "
                f"({len(bad)} in a row; the watch skips {MAX_BAD_FRAMES} at most): the file "
                "is damaged or cut short there")


def _sample_live(cap: Any, every_s: float,
                 clock: Callable[[], float]) -> Generator[np.ndarray, None, None]:
    """:func:`sample_frames` for a live source, by ``clock``: the newest frame, not one
    that waited in the source's buffer while the last was posted (an RTSP stream keeps
    them; posting them one by one, each post slower than ``every_s``, the frames posted
    would fall further and further behind the table).

    Frames are taken with ``cap.grab()``, timed: one that comes at once (in less than
    half a frame interval, 1/``CAP_PROP_FPS``, 1/25 s when the source gives no rate)
    waited in a buffer and is dropped; the first the watch had to wait for is new, and is
    decoded (``cap.retrieve()``) once ``every_s`` has passed since the last frame taken.
    A source whose frames all come at once is dropped from for as long as the watch held
    the last frame, plus :data:`DRAIN_SLACK_S`, then a frame is taken all the same."""
    import cv2

    fps = cap.get(cv2.CAP_PROP_FPS)
    interval = 1.0 / fps if math.isfinite(fps) and 1.0 <= fps <= 240.0 else 1.0 / 25
    last: float | None = None  # when the last frame taken was grabbed
    held = 0.0  # how long the watch held it (posting it): what the buffer may hold now
    while True:
        limit = clock() + held + interval + DRAIN_SLACK_S
        while True:
            before = clock()
            if not cap.grab():
                return
            now = clock()
            if last is not None and now - last < every_s - 1e-6:
                continue  # not yet time for the next frame
            if now - before >= interval / 2 or now >= limit:
                break  # waited for (a new frame), or the source never makes us wait
        ok, image = cap.retrieve()
        if not ok or image is None:
            return
        last = now
        yield image
        held = clock() - now


def encode_jpeg(image: np.ndarray, quality: int, max_side: int) -> bytes:
    """JPEG bytes of a BGR frame, downscaled so its longer side is at most ``max_side``."""
    import cv2

    if not 1 <= quality <= 100:
        raise ValueError(f"--quality must be 1-100, not {quality}")
    h, w = image.shape[:2]
    if max_side > 0 and max(h, w) > max_side:
        scale = max_side / max(h, w)
        image = cv2.resize(image, (round(w * scale), round(h * scale)),
                           interpolation=cv2.INTER_AREA)
    ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise ValueError("could not JPEG-encode a frame")
    return bytes(buf.tobytes())


def post_frame(server: str, table: int, key: str, jpeg: bytes,
               fields: Mapping[str, str] | None = None,
               timeout_s: float = 30.0) -> tuple[int, dict[str, Any], float]:
    """POST one frame as multipart ``image`` with the form ``fields`` (``winner``,
    ``context`` …); returns (status, JSON body, Retry-After s). A request that could not
    be sent whole raises ``urllib.error.URLError``; one sent whose answer did not come
    raises another ``OSError`` (a timeout, a connection reset) or
    ``http.client.HTTPException``: the server may have taken it. A ``key`` no header
    can carry raises ValueError (:func:`table_key`), which never shows it."""
    key = table_key(key)  # never into a header http.client refuses, saying the key
    boundary = uuid.uuid4().hex
    parts = [
        f"--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n"
        f"{value}\r\n".encode()
        for name, value in (fields or {}).items()
    ]
    body = b"".join(parts) + (
        f"--{boundary}\r\nContent-Disposition: form-data; name=\"image\"; "
        f"filename=\"frame.jpg\"\r\nContent-Type: image/jpeg\r\n\r\n"
    ).encode() + jpeg + f"\r\n--{boundary}--\r\n".encode()
    req = urllib.request.Request(
        f"{server.rstrip('/')}/v1/tables/{table}/frames", data=body, method="POST",
        headers={"Content-Type": f"multipart/form-data; boundary={boundary}",
                 "Authorization": f"Bearer {key}"},
    )
    try:
        with urllib.request.urlopen(req, timeout=timeout_s) as resp:
            return resp.status, json.loads(resp.read() or b"{}"), 0.0
    except urllib.error.HTTPError as exc:
        try:
            data = json.loads(exc.read() or b"{}")
        except ValueError:
            data = {}
        retry = float(exc.headers.get("Retry-After", "0") or 0)
        return exc.code, data, retry


def frames(source: str, every_s: float, reconnects: int = 10, wait_s: float = 2.0,
           skips: Skips | None = None) -> Generator[np.ndarray, None, None]:
    """Sampled frames of ``source`` (:func:`sample_frames`). A file's frames that do not
    read are skipped and counted in ``skips``; the file ends where it ends. A live camera
    or stream that stops delivering is reopened (up to ``reconnects`` times in a row,
    ``wait_s`` apart), then :class:`SourceError`."""
    if not is_live(source):
        cap = open_source(source)
        try:
            yield from sample_frames(cap, every_s, False, skips=skips)
        finally:
            cap.release()
        return
    failures = 0
    while True:
        cap = open_source(source) if failures == 0 else _try_open(source)
        if cap is not None:
            try:
                for image in sample_frames(cap, every_s, True):
                    failures = 0
                    yield image
            finally:
                cap.release()
        failures += 1
        if failures > reconnects:
            raise SourceError(f"the video source {source!r} stopped delivering frames "
                              f"({reconnects} reconnects failed)")
        time.sleep(wait_s)


def _try_open(source: str) -> Any:
    try:
        return open_source(source)
    except ValueError:
        return None


def unanswered_text(exc: BaseException) -> str:
    """Why a server did not answer, in words (a URLError's reason, not its repr).

    >>> unanswered_text(urllib.error.URLError(ConnectionRefusedError(111, "Connection refused")))
    'connection refused'
    """
    reason: Any = exc.reason if isinstance(exc, urllib.error.URLError) else exc
    if isinstance(reason, OSError) and reason.strerror:
        text = reason.strerror
    else:
        text = str(reason) or type(reason).__name__
    return text[:1].lower() + text[1:]


def default_server(environ: Mapping[str, str] | None = None) -> str:
    """``--server``'s default: the URL of the ``tilecam serve`` (or ``make serve``) that
    the same ``TILECAM_PORT`` and ``TILECAM_HOST`` would start on this machine — port
    8000 and 127.0.0.1 unless they are set; a host that means every address (``0.0.0.0``,
    ``::``) is reached at 127.0.0.1. ValueError when ``TILECAM_PORT`` is no port.

    >>> default_server({})
    'http://127.0.0.1:8000'
    >>> default_server({"TILECAM_PORT": "8861", "TILECAM_HOST": "0.0.0.0"})
    'http://127.0.0.1:8861'
    >>> default_server({"TILECAM_PORT": " 9000", "TILECAM_HOST": "::1"})
    'http://[::1]:9000'
    >>> default_server({"TILECAM_HOST": "::"})
    'http://[::1]:8000'
    >>> default_server({"TILECAM_PORT": "abc"})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: TILECAM_PORT='abc' is not a port (a whole number 0-65535): ... with --server
    >>> default_server({"TILECAM_PORT": "²"})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: TILECAM_PORT='²' is not a port (a whole number 0-65535): ... with --server
    """
    env = os.environ if environ is None else environ
    text = (env.get("TILECAM_PORT") or "").strip() or "8000"
    if not (text.isascii() and text.isdigit()) or int(text) > 65535:  # not ² nor ２
        raise ValueError(f"TILECAM_PORT={text!r} is not a port (a whole number 0-65535): set "
                         "it as for tilecam serve, or give the server's URL with --server")
    if int(text) == 0:
        raise ValueError("TILECAM_PORT=0 lets the server pick a free port, which the watch "
                         "cannot know: give the server's URL with --server")
    host = (env.get("TILECAM_HOST") or "").strip()
    # every address of the machine: IPv4's is reached at 127.0.0.1; IPv6's "::" (which
    # tilecam serve binds for IPv6 alone) at ::1
    host = {"": "127.0.0.1", "0.0.0.0": "127.0.0.1", "::": "::1", "[::]": "::1"}.get(
        host, host.strip("[]"))
    return f"http://{f'[{host}]' if ':' in host else host}:{int(text)}"


def table_key(value: str | None) -> str:
    r"""The table's key (``--key`` or ``TILECAM_TABLE_KEY``) trimmed — an env file saved
    with CRLF line ends leaves a ``\r`` after it, and the server trims what it is sent.
    ValueError, never showing the key, when there is none, or when it holds a space, a
    line end or another character outside printable ASCII
    (:func:`tilecam.settings.key_fault`): a key the server mints never does, so such a
    key is a mistyped one — and ``http.client`` refuses a line end in a header with a
    message holding the whole key, and sends a letter outside ASCII as the server may not
    read it.

    >>> table_key("tc_Abc-123\r\n")
    'tc_Abc-123'
    >>> table_key("tc_Abc 123")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: the table's key (--key or TILECAM_TABLE_KEY) holds a space: give it as ...
    """
    from tilecam.settings import key_fault

    key = (value or "").strip()
    if not key:
        raise ValueError("give the table's key with --key or TILECAM_TABLE_KEY")
    fault = key_fault(key)
    if fault is not None:
        raise ValueError(f"the table's key (--key or TILECAM_TABLE_KEY) holds {fault}: give "
                         "it as the server minted it (tc_…: printable ASCII letters, digits "
                         "and signs)")
    return key


def check_args(args: argparse.Namespace) -> None:
    """ValueError naming an option with a value the watch cannot use (before the source
    is opened); ``args.server`` None becomes :func:`default_server`."""
    from urllib.parse import urlsplit

    if getattr(args, "server", None) is None:
        args.server = default_server()
    if not math.isfinite(args.every) or args.every < 0:
        raise ValueError(f"--every must be a number of seconds, 0 or more, not {args.every}")
    if not 1 <= args.quality <= 100:
        raise ValueError(f"--quality must be 1-100, not {args.quality}")
    args.key = table_key(args.key)
    if args.retries < 0:
        raise ValueError(f"--retries must be 0 or more, not {args.retries}")
    for name, value, least in (("--max-frames", args.max_frames, 0),
                               ("--max-side", args.max_side, 1), ("--table", args.table, 1),
                               ("--stop-after", getattr(args, "stop_after", 3), 1)):
        if value < least:
            raise ValueError(f"{name} must be {least} or more, not {value}")
    try:
        server = urlsplit(args.server)
        server.port  # noqa: B018  (a port that is no number raises here)
    except ValueError as exc:
        raise ValueError(f"--server {args.server!r}: {exc}") from None
    if server.scheme not in ("http", "https") or not server.netloc:
        raise ValueError(f"--server {args.server!r}: give the server's URL with http:// or "
                         "https://, e.g. http://127.0.0.1:8000")


class Unanswered:
    """Tries in a row the server did not answer, across frames; past ``retries`` the
    watch stops."""

    def __init__(self, server: str, retries: int) -> None:
        self.server, self.retries, self.count = server, retries, 0

    def note(self, frame: int, exc: BaseException) -> bool:
        """Count one try not answered (said on stderr); whether to send the frame again:
        only when it was not sent whole (``URLError``) — one sent whose answer was lost
        may have been counted by the server, and a second copy would count twice."""
        self.count += 1
        why = unanswered_text(exc)
        if self.count > self.retries:
            raise ValueError(f"cannot reach the server {self.server}: {why} "
                             f"({self.retries} retries, {RETRY_WAIT_S:g} s apart); give "
                             "the server's URL with --server http://HOST:PORT") from None
        again = isinstance(exc, urllib.error.URLError)
        line: dict[str, Any] = {"frame": frame, "unanswered": why}
        if again:
            line |= {"retry": self.count, "of": self.retries}
        else:
            line |= {"sent_again": False, "of": self.retries,
                     "why": "the frame was sent and the server may have counted it: not "
                            "sent again; the watch goes on with the next frame"}
        print(json.dumps(line), file=sys.stderr, flush=True)
        return again


def busy_wait(frame: int, answer: tuple[int, Mapping[str, Any], float], resends: int) -> bool:
    """After a 503 that gives ``Retry-After`` (``answer``: status, body, Retry-After s),
    wait it out — at most :data:`MOST_BUSY_WAIT_S` — and say so on stderr; whether to
    send frame ``frame`` again (it was sent again ``resends`` times: up to
    :data:`BUSY_RESENDS`). Any other answer: no wait, False (a 503 without
    ``Retry-After`` is shown and the watch goes on, as before)."""
    status, data, retry_after_s = answer
    if status != 503 or retry_after_s <= 0:
        return False
    wait_s = min(retry_after_s, MOST_BUSY_WAIT_S)
    again = resends < BUSY_RESENDS
    error = data.get("error")
    code = error.get("code") if isinstance(error, dict) else None
    line: dict[str, Any] = {"frame": frame, "http": status, "code": code, "waited_s": wait_s,
                            "sent_again": again, "resends": resends, "of": BUSY_RESENDS}
    print(json.dumps(line), file=sys.stderr, flush=True)
    time.sleep(wait_s)
    return again


class FrameSeq:
    """The ``seq`` of each frame the watch posts (``POST /v1/tables/{id}/frames``): the
    wall clock in milliseconds since 1970, or one more than the last where the clock has
    not moved on (or went back) — growing within one watch, and past the last watch's
    after a restart, so that a new watch's frames are not taken for late ones.

    >>> s = FrameSeq(clock_ms=lambda: 1000)
    >>> s.next(), s.next(), FrameSeq(clock_ms=lambda: 5).next()
    (1000, 1001, 5)
    """

    def __init__(self, clock_ms: Callable[[], int] | None = None) -> None:
        self.clock_ms = clock_ms or (lambda: time.time_ns() // 1_000_000)
        self.last: int | None = None

    def next(self) -> int:
        """The next frame's ``seq``."""
        now = int(self.clock_ms())
        self.last = now if self.last is None else max(now, self.last + 1)
        return self.last


#: Words of a server's ``invalid_context`` message that say a rule field is missing
#: (the scorer's "Xiamen needs the gold (金): pass gold=KIND …").
MISSING_FIELD_WORDS = (" needs ", "missing")


def context_hint(code: str, message: str, context_given: bool) -> str:
    """What to add to the watch's stop message for a server's refusal ``code`` with
    ``message``: the ``--context`` advice only where a rule field may be missing — an
    ``invalid_context`` that is no key the context may not set, with no context given,
    or whose message names a missing field (a table whose settings the scorer refuses
    is refused with ``table_settings_refused``, and a gold given was not the fault).

    >>> context_hint("invalid_context", "Xiamen needs the gold", True) != ""
    True
    >>> context_hint("invalid_context", "chip_stack=0 is refused", True)
    ''
    >>> context_hint("table_settings_refused", "…", False)
    ''
    """
    if code != "invalid_context" or "may not set" in message:
        return ""
    if context_given and not any(w in message for w in MISSING_FIELD_WORDS):
        return ""
    return (" (give the table's rule fields with --context KEY=VALUE, e.g. gold=5m or "
            "indicator=3m, or with --fields FILE)")


class Refusals:
    """Frames in a row the server refused (4xx) for one reason; at ``stop_after`` of them
    the watch stops, saying why — the next frames would be refused alike."""

    def __init__(self, stop_after: int) -> None:
        self.stop_after = stop_after
        self.reason: tuple[int, str] | None = None
        self.count = 0

    def answered(self, status: int, data: Mapping[str, Any], posted: int,
                 recorded: int, context_given: bool = False) -> None:
        """Count the answer to one frame; ValueError once ``stop_after`` frames in a row
        were refused for the same reason (``context_given``: the frame went with a
        context, :func:`context_hint`)."""
        error = data.get("error")
        error = error if isinstance(error, dict) else {}
        if not 400 <= status < 500:
            self.reason, self.count = None, 0
            return
        reason = (status, str(error.get("code") or ""))
        self.count = self.count + 1 if reason == self.reason else 1
        self.reason = reason
        if self.count < self.stop_after:
            return
        message = error.get("message") or f"HTTP {status}"
        hint = context_hint(reason[1], str(message), context_given)
        raise ValueError(f"the server refused {self.count} frames in a row (HTTP {status} "
                         f"{reason[1] or 'error'}): {message}{hint}; {posted} frames posted, "
                         f"{recorded} hands recorded")


def run(args: argparse.Namespace) -> int:
    check_args(args)
    base = option_fields(args)
    fields_file: Path | None = getattr(args, "fields", None)
    fields = with_file_fields(base, fields_file) if fields_file else base  # before the source
    posted = recorded = 0
    unanswered = Unanswered(args.server, args.retries)
    refusals = Refusals(getattr(args, "stop_after", 3))
    views = Views()
    skips = Skips()
    seqs = FrameSeq()
    stream = frames(args.source, args.every, skips=skips)
    try:
        for image in stream:
            jpeg = encode_jpeg(image, args.quality, args.max_side)
            if fields_file is not None:
                try:
                    fields = with_file_fields(base, fields_file)
                except ValueError as exc:  # being written just now: the last good fields
                    print(json.dumps({"frame": posted + 1, "fields_kept": str(exc)},
                                     ensure_ascii=False), file=sys.stderr, flush=True)
            answer: tuple[int, dict[str, Any], float] | None = None
            sent = {**fields, "seq": str(seqs.next())}  # one seq for the frame's tries
            busy = 0  # the frame's resends after a 503 with Retry-After
            while True:
                answer = None
                try:
                    answer = post_frame(args.server, args.table, args.key, jpeg, sent)
                except (urllib.error.URLError, OSError, http.client.HTTPException) as exc:
                    if unanswered.note(posted + 1, exc):
                        time.sleep(RETRY_WAIT_S)
                        continue
                    break  # sent, maybe counted: on with the next frame
                if answer[0] == 429 and not key_refused(answer[0], answer[1]):
                    time.sleep(max(answer[2], 1.0))
                    continue
                if busy_wait(posted + 1, answer, busy):
                    busy += 1
                    continue
                break
            posted += 1
            if answer is not None:
                unanswered.count = 0
                recorded += show_answer(posted, answer[0], answer[1], views)
                refusals.answered(answer[0], answer[1], posted, recorded,
                                  context_given=bool(fields.get("context")))
            if args.max_frames and posted >= args.max_frames:
                break
    except SourceError as exc:  # the source gave up: say what the watch did until then
        raise SourceError(f"{exc}; {posted} frames posted, {recorded} hands recorded, "
                          f"{skips.skipped} frames skipped") from None
    finally:
        stream.close()
    summary = {"frames_posted": posted, "hands_recorded": recorded,
               "frames_skipped": skips.skipped}
    if skips.unread_at_end:
        summary["frames_unread_at_end"] = skips.unread_at_end
    print(json.dumps(summary), flush=True)
    return 0


#: The ``view`` of a frame that shows no table (``POST /v1/tables/{id}/frames``): a lit
#: view of something else, the table's part too dark for a colour, a dark frame. The
#: server counts such a frame neither as the table seen empty nor as a hand.
NO_TABLE_VIEWS = ("elsewhere", "unreadable", "dark")


class Views:
    """The ``view`` of the last frame answered, so that a frame's ``view_note`` is printed
    when the camera stops seeing the table (or sees no table in another way), once, and
    not again with every frame after it that shows the same."""

    def __init__(self) -> None:
        self.last: str | None = None

    def note(self, data: Mapping[str, Any]) -> str | None:
        """The note to print with this answer: its ``view_note`` (or, without one, its
        ``view``) when its ``view`` is one of :data:`NO_TABLE_VIEWS` and differs from
        the last frame's; None otherwise."""
        view = data.get("view")
        changed, self.last = view != self.last, view
        if not changed or view not in NO_TABLE_VIEWS:
            return None
        note = data.get("view_note")
        return note if isinstance(note, str) and note else str(view)


def key_refused(status: int, data: Mapping[str, Any]) -> bool:
    """Whether an answer is a 429 ``keys_refused``: this request's key refused, and too
    many refused keys from this address. It is a refused key, not a pace to wait out:
    sent again it is refused again, and counts against the address again (a watch with a
    wrong key waited out its ``Retry-After`` and resent the frame for good, printing
    nothing).

    >>> key_refused(429, {"error": {"code": "keys_refused", "message": "…"}})
    True
    >>> key_refused(429, {"error": {"code": "rate_limited"}}), key_refused(401, {})
    (False, False)
    """
    error = data.get("error")
    return status == 429 and isinstance(error, dict) and error.get("code") == "keys_refused"


def show_answer(posted: int, status: int, data: Mapping[str, Any],
                views: Views | None = None) -> bool:
    """Print the server's answer to frame ``posted`` as one line; whether it recorded a
    hand. A refused key stops the watch (ValueError): a 401, 403, 404 or 429
    ``keys_refused`` (:func:`key_refused`).

    The line carries the frame's ``view`` (``tiles``, ``table``, ``unlearned``,
    ``elsewhere``, ``unreadable``, ``dark``), and its ``view_note`` when the view is one of
    :data:`NO_TABLE_VIEWS` — with ``views`` (the watch's), only on the frame where it
    changed to it, not on every frame after it; without, whenever it is one — and on
    every ``stale`` frame (the table's last ``seq`` is ahead of this watch's: the note
    names ``POST /v1/tables/{id}/camera/restart``)."""
    if status in (401, 403, 404) or key_refused(status, data):
        error = data.get("error")
        message = error.get("message") if isinstance(error, dict) else None
        raise ValueError(f"the server refused the frames: {message or f'HTTP {status}'}")
    if status != 200:
        print(json.dumps({"frame": posted, "http": status, **data}, ensure_ascii=False),
              flush=True)
        return False
    line = {"frame": posted, **{k: data.get(k) for k in
            ("status", "streak", "needed", "hand", "hand_number", "view")}}
    note = (views if views is not None else Views()).note(data)
    if note is not None:  # the camera shows no table: say why, once
        line["view_note"] = note
    if data.get("status") == "stale" and data.get("view_note"):
        # its seq not after the table's last (this watch's clock went back, or a seq
        # sent by mistake): the note says how to get out (POST …/camera/restart)
        line["view_note"] = data["view_note"]
    if data.get("image_error"):  # recorded without its picture: say why
        line["image_error"] = data["image_error"]
    recorded = data.get("recorded_hand")
    if recorded and recorded != data.get("hand"):  # the sheet holds another reading
        line["recorded_hand"] = recorded
    print(json.dumps(line, ensure_ascii=False), flush=True)
    return data.get("status") == "recorded"
