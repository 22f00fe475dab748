"""Worker processes for ``POST /v1/waits``' analyses, seen from the service.

An analysis is pure-Python CPU work (up to about 0.25 s): run in a thread, it held the
GIL the event loop serving the automatic tables' ``/v1/score`` needs, and one that ran
past its time could not be stopped. Each :class:`AnalysisWorker` is one process of
:mod:`tilecam.analysis_worker`: a fresh interpreter, executed as ``multiprocessing``'s
``spawn`` start method does (never a ``fork`` of this process, its threads and its
event loop), but started here with ``asyncio`` rather than by ``multiprocessing``, whose
``spawn`` also imports the parent's ``__main__`` in each child: it imports this
module's light side and :mod:`scoring` only; its answers come over a pipe the event loop
reads, with no thread of the service waiting on them; and one worker can be killed
alone. A worker is started when first needed; one that runs past its time, or whose
caller gives up, is killed and a new one started at once; one found dead is started
again on its next job.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import pickle
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import scoring
import tilecam
from tilecam import analysis_worker as wire

log = logging.getLogger("tilecam.api")

#: What the worker process runs (after the interpreter's own options).
WORKER_CODE = "from tilecam.analysis_worker import main; main()"
#: Seconds a worker is given to end once its input is closed, before it is killed.
CLOSE_GRACE_S = 2.0


class WorkerGone(Exception):
    """The worker process ended (killed, crashed) or could not start before it answered;
    the message says which."""


class _NotDelivered(WorkerGone):
    """The worker ended before it took the job (the job could not be written, or no
    :data:`~tilecam.analysis_worker.STARTED` frame came): it never ran it."""


class RemoteTraceback(Exception):
    """The traceback of an exception raised in a worker process, as text: the cause
    chained to the exception re-raised here, so the service's log shows where."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


def worker_environment() -> dict[str, str]:
    """This process's environment, with the folders :mod:`scoring` and :mod:`tilecam`
    were imported from first on ``PYTHONPATH``: the worker runs the same code as the
    service even when it was started from a checkout that is not installed. A folder
    the interpreter searches anyway (its ``site-packages``, where a non-editable install
    puts them) is not added: on ``PYTHONPATH`` it would come before the standard
    library, and a package there named like a standard module would shadow it."""
    searched = {str(Path(p).resolve()) for p in site_folders()}
    roots = dict.fromkeys(
        root for root in (str(Path(module.__file__ or ".").resolve().parent.parent)
                          for module in (scoring, tilecam))
        if root not in searched)
    env = dict(os.environ)
    known = [part for part in env.get("PYTHONPATH", "").split(os.pathsep) if part]
    if roots or known:
        env["PYTHONPATH"] = os.pathsep.join([*roots, *known])
    return env


def site_folders() -> list[str]:
    """The ``site-packages`` folders of this interpreter (``sysconfig``'s purelib and
    platlib), which a worker started with it searches without ``PYTHONPATH``."""
    import sysconfig

    return [sysconfig.get_path(name) for name in ("purelib", "platlib")
            if sysconfig.get_path(name)]


async def start_worker() -> asyncio.subprocess.Process:
    """A new worker process (its standard error is the service's); WorkerGone when it
    cannot be started."""
    if not sys.executable:
        raise WorkerGone("no Python interpreter to start a worker with (sys.executable is "
                         "empty); set TILECAM_WAITS_PROCESSES=0 to run analyses in threads")
    try:
        return await asyncio.create_subprocess_exec(
            sys.executable, "-P", "-c", WORKER_CODE, stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE, env=worker_environment())
    except (OSError, RuntimeError) as exc:  # no processes left, or no subprocess support
        raise WorkerGone(f"a worker process could not be started: {exc}") from None


class AnalysisWorker:
    """One worker process, started when first needed, that runs one job at a time
    (:meth:`run`) until :meth:`close` ends it."""

    def __init__(self) -> None:
        self._process: asyncio.subprocess.Process | None = None
        #: A replacement being started (after a kill), awaited by the next job.
        self._starting: asyncio.Task[asyncio.subprocess.Process] | None = None
        #: Background tasks (reaping a killed process, starting its replacement).
        self._tasks: set[asyncio.Task[Any]] = set()
        self.closed = False

    async def run(self, function: Callable[..., Any], args: tuple[Any, ...],
                  timeout_s: float) -> bytes:
        """``function(*args)`` in the worker, rendered as JSON (UTF-8 bytes).

        ``function`` and ``args`` are pickled (a function by its module and name, which
        the worker imports). Raises what the function raised; TimeoutError when there is
        no answer within ``timeout_s`` seconds (worker start included), WorkerGone when
        the worker ends or cannot start first — either way the worker is killed and a new
        one started, as it is when the caller is cancelled.
        """
        job = wire.frame(wire.JOB, pickle.dumps((function, args)))
        try:
            async with asyncio.timeout(timeout_s):
                process = await self._ready()
                try:
                    kind, payload = await self._exchange(process, job)
                except _NotDelivered as gone:  # it never ran the job: once more on a fresh one
                    log.warning("waits: %s; starting another", gone)
                    self._kill()
                    process = await self._ready()
                    kind, payload = await self._exchange(process, job)
        except BaseException:
            self._kill()
            raise
        if kind == wire.ANSWER:
            return payload
        if kind == wire.RAISED:
            exc, text = pickle.loads(payload)
            raise exc from RemoteTraceback(text)
        self._kill()
        raise WorkerGone(f"the worker answered a frame of unknown kind {kind}")

    async def _ready(self) -> asyncio.subprocess.Process:
        """The live worker process: the one running, the replacement being started, or a
        new one."""
        process = self._process
        if process is not None and process.returncode is None:
            return process
        if process is not None:
            log.warning("waits: analysis worker %d had ended (exit status %s); starting "
                        "another", process.pid, process.returncode)
            self._process = None
        if self._starting is None:
            self._starting = asyncio.ensure_future(start_worker())
        starting = self._starting
        try:  # shielded: a job that times out here leaves the start to the next one
            self._process = await asyncio.shield(starting)
        finally:
            if starting.done():
                self._starting = None
        return self._process

    async def _exchange(self, process: asyncio.subprocess.Process,
                        job: bytes) -> tuple[int, bytes]:
        """Send one job frame; the answer frame's kind and payload. _NotDelivered when the
        worker ends before it says it took the job (its
        :data:`~tilecam.analysis_worker.STARTED` frame), WorkerGone when it ends after."""
        assert process.stdin is not None and process.stdout is not None
        if process.stdin.is_closing():  # asyncio closed the pipe of a worker that died
            raise _NotDelivered(f"the analysis worker process {process.pid} had ended "
                                "(its input closed)")
        try:
            process.stdin.write(job)
        except (ConnectionError, RuntimeError) as exc:  # RuntimeError: uvloop, pipe closed
            raise _NotDelivered(f"the analysis worker process {process.pid} had ended "
                                f"({exc})") from exc
        started = False
        try:
            await process.stdin.drain()
            while True:
                header = await process.stdout.readexactly(wire.HEADER.size)
                size, kind = wire.HEADER.unpack(header)
                payload = await process.stdout.readexactly(size)
                if kind != wire.STARTED or started:
                    return kind, payload
                started = True
        except (asyncio.IncompleteReadError, ConnectionError) as exc:
            status = await _exit_status(process)
            if not started:
                raise _NotDelivered(f"the analysis worker process {process.pid} ended "
                                    f"before it took the job ({status})") from exc
            raise WorkerGone(f"the analysis worker process ended before it answered "
                             f"({status})") from exc

    def _kill(self) -> None:
        """Kill the worker (its job is abandoned); reap it and start its replacement in
        the background."""
        process, self._process = self._process, None
        if process is None:
            return
        with contextlib.suppress(ProcessLookupError):
            process.kill()
        self._background(self._replace(process))

    async def _replace(self, process: asyncio.subprocess.Process) -> None:
        """Reap the killed ``process``; then, unless closed, start its replacement."""
        await process.wait()
        if not self.closed and self._starting is None and self._process is None:
            self._starting = asyncio.ensure_future(start_worker())
            self._starting.add_done_callback(_log_failed_start)

    def _background(self, coroutine: Any) -> None:
        task = asyncio.ensure_future(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def close(self) -> None:
        """End the worker: its input is closed (it ends once its job, if any, is done),
        and it is killed if it is still there after :data:`CLOSE_GRACE_S`; waits for it,
        and for a replacement being started (ended likewise)."""
        self.closed = True
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        processes = [self._process] if self._process is not None else []
        if self._starting is not None:
            with contextlib.suppress(WorkerGone):
                processes.append(await self._starting)
        self._process = self._starting = None
        for process in processes:
            await _end(process)


async def _end(process: asyncio.subprocess.Process) -> None:
    """Close ``process``'s input, give it :data:`CLOSE_GRACE_S` to end, then kill it;
    returns once it is reaped."""
    if process.stdin is not None:
        process.stdin.close()
    try:
        await asyncio.wait_for(process.wait(), CLOSE_GRACE_S)
    except TimeoutError:
        with contextlib.suppress(ProcessLookupError):
            process.kill()
        await process.wait()


async def _exit_status(process: asyncio.subprocess.Process) -> str:
    """How ``process`` ended, in words (waits a moment for it to be reaped)."""
    try:
        code = await asyncio.wait_for(process.wait(), 1.0)
    except TimeoutError:
        return "it closed its output"
    if code < 0:
        return f"killed by signal {-code}"
    return f"exit status {code}"


def _log_failed_start(task: asyncio.Task[asyncio.subprocess.Process]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.warning("waits: %s", task.exception())
