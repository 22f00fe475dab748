"""The process that runs ``POST /v1/waits``' analyses, and the few bytes it speaks.

The service starts it (:mod:`tilecam.api.analysis_workers`) as
``python -P -c "from tilecam.analysis_worker import main; main()"`` (``-P``: not from the
service's working folder): a fresh interpreter
that imports this module and :mod:`scoring` only — not the service, FastAPI, the
detector or onnxruntime — so an analysis (pure-Python CPU work, up to about 0.25 s)
holds this process's GIL, not the one the event loop serving ``/v1/score`` needs, and
one that runs past its time can be stopped by ending the process.

Each message, either way, is a frame: a 5-byte header (the payload's length in bytes,
big-endian, then one byte naming its kind) and the payload. The service sends
:data:`JOB` frames, a pickle of ``(function, args)``; the worker says it has the job
(an empty :data:`STARTED` frame), calls ``function(*args)`` and answers with one frame:
:data:`ANSWER`, the result as the JSON text the service answers with (rendered as
Starlette's ``JSONResponse`` renders it), or :data:`RAISED`, a pickle of ``(exception,
traceback text)`` — a :class:`scoring.HandError` reaches the route as itself, and so
becomes the same 400. A worker that ends before its :data:`STARTED` frame never ran the
job, which the service can then give to another. The worker ends when its input ends.

>>> job = pickle.dumps((analysis, (False, "123m456m789m123p5p", {"rules": "mcr"})))
>>> kind, payload = run_job(job)
>>> kind == ANSWER, json.loads(payload)["ready"]
(True, True)
>>> kind, payload = run_job(pickle.dumps((analysis, (False, "111m", {}))))
>>> kind == RAISED, type(pickle.loads(payload)[0]).__name__
(True, 'HandError')
"""

from __future__ import annotations

import contextlib
import json
import os
import pickle
import signal
import struct
import traceback
from collections.abc import Callable
from typing import Any, BinaryIO

import scoring

#: A frame's header: the payload's length (bytes, unsigned 32-bit, big-endian), its kind.
HEADER = struct.Struct(">IB")
#: Frame kinds: a job for the worker; its result as JSON text; the exception it raised;
#: the worker has read the job and runs it (sent before its answer, empty).
JOB, ANSWER, RAISED, STARTED = 1, 2, 3, 4
#: Added to the worker's nice value: where the CPUs are all busy, the service's event
#: loop (``/v1/score``) comes before the analyses, which anyone may ask for.
NICENESS = 10


def analysis(drew: bool, hand: scoring.Hand | str,
             kwargs: dict[str, Any]) -> dict[str, Any]:
    """The answer of ``POST /v1/waits``: ``scoring.discards(hand, **kwargs).to_dict()``
    for a hand that drew (a win's size), else ``scoring.waits(...)``'s (a few hundred
    scores for a hand that drew)."""
    work: Callable[..., scoring.Waits | scoring.Discards] = (
        scoring.discards if drew else scoring.waits)
    return work(hand, **kwargs).to_dict()


def render_json(content: Any) -> bytes:
    """``content`` as the service answers it: compact UTF-8 JSON, no NaN (byte for byte
    what ``starlette.responses.JSONResponse`` renders)."""
    return json.dumps(content, ensure_ascii=False, allow_nan=False, indent=None,
                      separators=(",", ":")).encode("utf-8")


def frame(kind: int, payload: bytes) -> bytes:
    """One message: the header, then ``payload``."""
    return HEADER.pack(len(payload), kind) + payload


def run_job(job: bytes) -> tuple[int, bytes]:
    """Run one :data:`JOB` payload; the kind and payload of its answer frame."""
    try:
        function, args = pickle.loads(job)
        return ANSWER, render_json(function(*args))
    except Exception as exc:  # every error goes back to the service, which raises it
        text = traceback.format_exc()
        try:
            payload = pickle.dumps((exc, text))
            pickle.loads(payload)  # an exception whose class cannot be made from its args
            return RAISED, payload
        except Exception:  # one that does not pickle: its type and message
            stand_in = RuntimeError(f"{type(exc).__name__}: {exc}")
            return RAISED, pickle.dumps((stand_in, text))


def read_frame(source: BinaryIO) -> tuple[int, bytes] | None:
    """The next frame from ``source`` as (kind, payload); None at the end of input."""
    header = source.read(HEADER.size)
    if len(header) < HEADER.size:
        return None
    size, kind = HEADER.unpack(header)
    payload = source.read(size)
    return None if len(payload) < size else (kind, payload)


def serve(source: BinaryIO, sink: BinaryIO) -> None:
    """Answer each job frame read from ``source`` on ``sink`` until ``source`` ends (the
    service closed it, or ended)."""
    while (message := read_frame(source)) is not None:
        kind, payload = message
        if kind != JOB:
            answer = RAISED, pickle.dumps((ValueError(f"frame kind {kind} is no job"), ""))
        else:
            sink.write(frame(STARTED, b""))
            sink.flush()
            answer = run_job(payload)
        sink.write(frame(*answer))
        sink.flush()


def main() -> None:
    """The worker process: frames on its standard input and output; anything the code
    prints goes to standard error instead, so it cannot break a frame. Ctrl-C at the
    server's terminal reaches the whole process group: the worker leaves it to the
    service, which ends it by closing its input (or killing it)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with contextlib.suppress(OSError, AttributeError):  # AttributeError: no os.nice here
        os.nice(NICENESS)
    source = os.fdopen(os.dup(0), "rb")
    sink = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    with contextlib.suppress(BrokenPipeError):  # the service went away as it answered
        serve(source, sink)
