"""``tilecam watch``: read a table camera with OpenCV and post sampled frames to the server.

A cheap computer beside the table runs::

    TILECAM_TABLE_KEY=tc_... tilecam watch --table 3 --source rtsp://cam.local/stream --every 1

``--source``: an RTSP/HTTP stream URL, a device (``/dev/video0`` or its index ``0``) or
a video file. A frame is taken every ``--every`` seconds (of video time for a file, of
wall-clock time for a live camera), JPEG-encoded and posted to
``POST /v1/tables/{id}/frames``; each answer is printed as one line. A 429 answer is
waited out (``Retry-After``); the server decides when a hand is revealed. A live source
that stops delivering frames is reopened (10 tries, 2 s apart), and a server that does
not answer (restarting, the network down a moment) is tried again with the same frame
(``--retries`` times, 2 s apart; each try said on stderr) before the watch gives up.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Callable, Generator, Iterator
from typing import Any

import numpy as np

#: Seconds between tries of a server that does not answer.
RETRY_WAIT_S = 2.0


def register(sub: Any) -> None:
    p = sub.add_parser("watch", help="post a table camera's frames to the server")
    p.add_argument("--table", type=int, required=True, help="table id")
    p.add_argument("--key", default=os.environ.get("TILECAM_TABLE_KEY"),
                   help="the table's API key (default: $TILECAM_TABLE_KEY, which keeps it out "
                        "of the process list)")
    p.add_argument("--source", required=True,
                   help="rtsp://… or http://… stream, /dev/videoN (or N), or a video file")
    p.add_argument("--server", default="http://127.0.0.1:8000",
                   help="tilecam server URL (default http://127.0.0.1:8000, make serve's)")
    p.add_argument("--every", type=float, default=1.0,
                   help="seconds between posted frames (default 1)")
    p.add_argument("--max-frames", type=int, default=0,
                   help="stop after posting this many frames (default 0: until the source ends)")
    p.add_argument("--quality", type=int, default=90, help="JPEG quality 1-100 (default 90)")
    p.add_argument("--max-side", type=int, default=1920,
                   help="downscale frames whose longer side is larger, pixels (default 1920)")
    p.add_argument("--retries", type=int, default=10,
                   help="times a server that does not answer is tried again, 2 s apart, "
                        "before the watch stops (default 10)")
    p.set_defaults(func=run)


def open_source(source: str) -> Any:
    """An opened ``cv2.VideoCapture`` for ``source``; ValueError when it cannot be opened."""
    import cv2

    target: str | int = source
    if source.isdigit():
        target = int(source)
    cap = cv2.VideoCapture(target)
    if not cap.isOpened():
        raise ValueError(f"cannot open video source {source!r} (not a readable file, device "
                         "or stream)")
    return cap


def is_live(source: str) -> bool:
    """Whether ``source`` is a live camera/stream (sampled by wall clock) rather than a file."""
    return source.isdigit() or source.startswith(("/dev/", "rtsp://", "rtsps://", "http://",
                                                  "https://", "udp://", "tcp://"))


def sample_frames(cap: Any, every_s: float, live: bool,
                  clock: Callable[[], float] = time.monotonic) -> Iterator[np.ndarray]:
    """Frames of ``cap`` at least ``every_s`` seconds apart (video time for files)."""
    import cv2

    if every_s < 0:
        raise ValueError(f"--every must be 0 or more seconds, not {every_s}")
    last: float | None = None
    while True:
        ok, image = cap.read()
        if not ok or image is None:
            return
        now = clock() if live else cap.get(cv2.CAP_PROP_POS_MSEC) / 1000.0
        if last is None or now - last >= every_s - 1e-6:
            last = now
            yield image


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
               timeout_s: float = 30.0) -> tuple[int, dict[str, Any], float]:
    """POST one frame as multipart ``image``; returns (status, JSON body, Retry-After s)."""
    boundary = uuid.uuid4().hex
    body = (
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


def frames(source: str, every_s: float, reconnects: int = 10,
           wait_s: float = 2.0) -> Generator[np.ndarray, None, None]:
    """Sampled frames of ``source``; a live camera or stream that stops delivering is
    reopened (up to ``reconnects`` times in a row, ``wait_s`` apart); a file just ends."""
    live = is_live(source)
    failures = 0
    while True:
        cap = open_source(source) if failures == 0 else _try_open(source)
        if cap is not None:
            try:
                for image in sample_frames(cap, every_s, live):
                    failures = 0
                    yield image
            finally:
                cap.release()
        if not live:
            return
        failures += 1
        if failures > reconnects:
            raise ValueError(f"the video source {source!r} stopped delivering frames "
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


def run(args: argparse.Namespace) -> int:
    import math

    if not math.isfinite(args.every) or args.every < 0:
        raise ValueError(f"--every must be a number of seconds, 0 or more, not {args.every}")
    if not 1 <= args.quality <= 100:  # before the source is opened
        raise ValueError(f"--quality must be 1-100, not {args.quality}")
    if not args.key:
        raise ValueError("give the table's key with --key or TILECAM_TABLE_KEY")
    if args.retries < 0:
        raise ValueError(f"--retries must be 0 or more, not {args.retries}")
    for name, value, least in (("--max-frames", args.max_frames, 0),
                               ("--max-side", args.max_side, 1), ("--table", args.table, 1)):
        if value < least:
            raise ValueError(f"{name} must be {least} or more, not {value}")
    from urllib.parse import urlsplit

    try:
        server = urlsplit(args.server)
        server.port  # noqa: B018  (a port that is no number raises here)
    except ValueError as exc:
        raise ValueError(f"--server {args.server!r}: {exc}") from None
    if server.scheme not in ("http", "https") or not server.netloc:
        raise ValueError(f"--server {args.server!r}: give the server's URL with http:// or "
                         "https://, e.g. http://127.0.0.1:8000")
    posted = recorded = 0
    stream = frames(args.source, args.every)
    try:
        for image in stream:
            jpeg = encode_jpeg(image, args.quality, args.max_side)
            unanswered = 0
            while True:
                try:
                    status, data, retry = post_frame(args.server, args.table, args.key, jpeg)
                except (urllib.error.URLError, OSError) as exc:
                    unanswered += 1
                    why = unanswered_text(exc)
                    if unanswered > args.retries:
                        raise ValueError(f"cannot reach the server {args.server}: {why} "
                                         f"({args.retries} retries, {RETRY_WAIT_S:g} s "
                                         "apart)") from None
                    print(json.dumps({"frame": posted + 1, "unanswered": why,
                                      "retry": unanswered, "of": args.retries}),
                          file=sys.stderr, flush=True)
                    time.sleep(RETRY_WAIT_S)
                    continue
                if status == 429:
                    time.sleep(max(retry, 1.0))
                    continue
                break
            posted += 1
            if status in (401, 403, 404):
                message = data.get("error", {}).get("message", f"HTTP {status}")
                raise ValueError(f"the server refused the frames: {message}")
            if status == 200:
                recorded += data.get("status") == "recorded"
                line = {"frame": posted, **{k: data.get(k) for k in
                        ("status", "streak", "needed", "hand", "hand_number")}}
                if data.get("image_error"):  # recorded without its picture: say why
                    line["image_error"] = data["image_error"]
                print(json.dumps(line, ensure_ascii=False), flush=True)
            else:
                print(json.dumps({"frame": posted, "http": status, **data},
                                 ensure_ascii=False), flush=True)
            if args.max_frames and posted >= args.max_frames:
                break
    finally:
        stream.close()
    print(json.dumps({"frames_posted": posted, "hands_recorded": recorded}), flush=True)
    return 0
