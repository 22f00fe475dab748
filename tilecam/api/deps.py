"""FastAPI dependencies: settings, the loaded detector, the recognition limiter.

The app keeps its long-lived objects on ``app.state`` (set up by the lifespan in
:mod:`tilecam.app`); these functions hand them to routes, and tests replace them
with ``app.dependency_overrides``. They are ``async`` so that FastAPI calls them on the
event loop instead of hopping to its thread pool (a sync dependency costs a thread
round trip per request, measurable on the /v1/score hot path).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from typing import Annotated, Any, TypeVar

from fastapi import Depends, Request

from tilecam.api.errors import ApiError, timeout_error
from tilecam.settings import Settings

T = TypeVar("T")


class RecognitionLimiter:
    """Runs CPU-heavy work (decode, detect, layout, score) in a small thread pool.

    At most ``queue`` image requests are admitted at once (:meth:`admit`), and at most
    ``slots`` jobs run at once. A request waits up to ``timeout_s`` seconds
    for a slot, then gets 503 ``busy``; a job that runs longer than what is left of
    ``timeout_s`` answers 503 ``timeout`` (the job finishes in the background and
    only then frees its slot, so the bound on concurrent work always holds), whose
    message says whether the time went on waiting for a slot or on running, with
    ``Retry-After`` (:func:`tilecam.api.errors.timeout_error`).
    """

    #: The words and figures of its answers and threads; a limiter of other work (the wait
    #: analyses: :class:`tilecam.api.routes.waits.AnalysisLimiter`) sets its own.
    work = "recognition"
    requests = "image requests"
    timeout_text = "recognition did not finish within {timeout_s:g} s"
    #: Said to a request that timed out running (not waiting for a slot).
    timeout_advice = "try a smaller image"
    retry_after_s = 2
    queue_per_slot = 16
    thread_prefix = "recognize"

    def __init__(self, slots: int, timeout_s: float, queue: int | None = None) -> None:
        if slots < 1:
            raise ValueError(f"{self.work} slots must be at least 1, got {slots}")
        self.slots = slots
        self.timeout_s = timeout_s
        self.queue = max(slots, queue if queue is not None else self.queue_per_slot * slots)
        self.admitted = 0
        self._semaphore = asyncio.BoundedSemaphore(slots)
        self._executor = ThreadPoolExecutor(max_workers=slots,
                                            thread_name_prefix=self.thread_prefix)
        self.running = 0

    @asynccontextmanager
    async def admit(self) -> AsyncIterator[None]:
        """Admit one image request for its whole life (upload, wait, run), or answer
        503 ``busy`` at once when ``queue`` requests are already in; this bounds the
        memory held by uploads however many clients connect."""
        if self.admitted >= self.queue:
            raise ApiError(
                503,
                "busy",
                f"the server is busy: {self.admitted} {self.requests} are in progress "
                f"(limit {self.queue}); try again",
                headers={"Retry-After": str(self.retry_after_s)},
            )
        self.admitted += 1
        try:
            yield
        finally:
            self.admitted -= 1

    async def run(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run ``fn(*args, **kwargs)`` in the pool within the limits; returns its result."""
        start = time.monotonic()
        await self.take_slot()
        queued_s = time.monotonic() - start
        self.running += 1
        loop = asyncio.get_running_loop()
        future = loop.run_in_executor(self._executor, lambda: fn(*args, **kwargs))

        def release(_: object) -> None:
            self.running -= 1
            self._semaphore.release()

        future.add_done_callback(release)
        left = max(0.0, self.timeout_s - (time.monotonic() - start))
        try:
            return await asyncio.wait_for(asyncio.shield(future), left)
        except TimeoutError:
            raise self.timed_out(queued_s) from None

    def timed_out(self, queued_s: float) -> ApiError:
        """The 503 ``timeout`` of a job that took a slot after ``queued_s`` seconds and
        did not finish within ``timeout_s`` in all."""
        return timeout_error(self.timeout_text.format(timeout_s=self.timeout_s),
                             self.timeout_s, queued_s, slots=self.slots,
                             in_progress=self.admitted, requests=self.requests,
                             retry_after_s=self.retry_after_s, advice=self.timeout_advice)

    async def take_slot(self) -> None:
        """Wait up to ``timeout_s`` for a slot (the caller releases it); 503 ``busy``
        when none comes free."""
        try:
            await asyncio.wait_for(self._semaphore.acquire(), self.timeout_s)
        except TimeoutError:
            raise ApiError(
                503,
                "busy",
                f"the server is busy: no {self.work} slot became free within "
                f"{self.timeout_s:g} s; try again",
                headers={"Retry-After": str(self.retry_after_s)},
            ) from None

    def shutdown(self) -> None:
        """Stop the pool (waits for running jobs)."""
        self._executor.shutdown(wait=True, cancel_futures=True)


async def get_settings(request: Request) -> Settings:
    """The settings the app was built with."""
    settings: Settings = request.app.state.settings
    return settings


async def get_detector(request: Request) -> Any:
    """The detector loaded at startup; 503 ``not_ready`` when there is none."""
    detector = getattr(request.app.state, "detector", None)
    if detector is None:
        reason = getattr(request.app.state, "detector_error", None) or "no model loaded"
        raise ApiError(503, "not_ready", f"the tile detector is not available: {reason}")
    return detector


async def get_limiter(request: Request) -> RecognitionLimiter:
    """The per-process recognition limiter."""
    limiter: RecognitionLimiter = request.app.state.limiter
    return limiter


async def require_json(request: Request) -> None:
    """415 unless the request body is declared as JSON (``Content-Type: application/json``)."""
    media = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    is_json = media == "application/json" or (
        media.startswith("application/") and media.endswith("+json")
    )
    if not is_json:
        shown = media or "none"
        raise ApiError(
            415,
            "unsupported_media_type",
            f"content type {shown!r} is not accepted here: send the request as JSON "
            "with Content-Type: application/json",
        )


#: Route parameter types: ``settings: SettingsDep`` etc.
SettingsDep = Annotated[Settings, Depends(get_settings)]
DetectorDep = Annotated[Any, Depends(get_detector)]
LimiterDep = Annotated[RecognitionLimiter, Depends(get_limiter)]
