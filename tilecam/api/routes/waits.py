"""``POST /v1/waits``: the tiles a hand one short of a win waits on, with the best score
on each, or how far it is from ready (shanten); for a hand of a win's size (it drew and
must discard), each discard with the waits of what is kept.

The route needs no key, so its analyses run in workers of their own with admission
(:class:`AnalysisLimiter`, ``app.state.waits_limiter``): ``TILECAM_WAITS_CONCURRENCY``
at once (default 1), 8 per slot admitted, 503 ``busy`` past them, 503 ``timeout`` past
``TILECAM_REQUEST_TIMEOUT_S`` (security review finding 3: up to forty at once in AnyIO's
thread pool, of 4–9 s each, held the GIL the automatic tables' ``/v1/score`` needs).
The workers are processes (:mod:`tilecam.api.analysis_workers`), one per slot, so an
analysis holds none of this process's GIL and one past its time is stopped;
``TILECAM_WAITS_PROCESSES=0`` runs them in a thread pool instead, as before.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response

import scoring
from tilecam.analysis_worker import analysis, render_json
from tilecam.api.analysis_workers import AnalysisWorker, WorkerGone
from tilecam.api.deps import RecognitionLimiter, require_json
from tilecam.api.errors import ApiError
from tilecam.api.hands import hand_and_context, invalid_hand
from tilecam.api.schemas import ERROR_RESPONSES, DiscardsOut, ErrorOut, WaitsOut, WaitsRequest

log = logging.getLogger("tilecam.api")

#: Matched before the other routes (see tilecam.app): the automatic tables' hot path.
ROUTE_PRIORITY = 0

#: Requests admitted per analysis slot (running or waiting for one); more are 503 busy.
QUEUE_PER_SLOT = 8
#: Seconds a client is told to wait before it tries again after a 503 busy.
RETRY_AFTER_S = 1


class AnalysisLimiter(RecognitionLimiter):
    """Runs wait analyses (``scoring.waits``/``scoring.discards``, pure-Python CPU work)
    with the admission of :class:`tilecam.api.deps.RecognitionLimiter`: at most
    ``slots`` at once, at most ``queue`` requests admitted (running or waiting for a
    slot) — one more is answered 503 ``busy`` with ``Retry-After`` at once — and a
    request waits up to ``timeout_s`` for a slot (then 503 ``busy``).

    ``processes`` (the default): each slot has a worker process
    (:class:`~tilecam.api.analysis_workers.AnalysisWorker`); an analysis that runs past
    what is left of ``timeout_s`` is answered 503 ``timeout``, its worker killed and
    replaced and its slot freed at once; a worker that ends before it answers (killed,
    crashed), or cannot be started, is answered 503 ``unavailable`` with
    ``Retry-After``, and replaced. Without ``processes`` they run in a thread pool of
    ``slots`` threads, where an analysis past its time is answered 503 ``timeout`` but
    finishes in the background, and only then frees its slot.
    """

    work = "analysis"
    requests = "wait analyses"
    timeout_text = "the wait analysis did not finish within {timeout_s:g} s"
    timeout_advice = ""
    retry_after_s = RETRY_AFTER_S
    queue_per_slot = QUEUE_PER_SLOT
    thread_prefix = "waits"

    def __init__(self, slots: int, timeout_s: float, queue: int | None = None, *,
                 processes: bool = True) -> None:
        super().__init__(slots, timeout_s, queue)
        self.processes = processes
        #: The slots' worker processes not running an analysis now.
        self._idle = [AnalysisWorker() for _ in range(slots)] if processes else []
        self._workers = list(self._idle)

    async def answer(self, function: Callable[..., Any], *args: Any) -> bytes:
        """Admit the request, then run ``function(*args)`` within the limits (in a worker
        process, or a thread); its result rendered as JSON (UTF-8 bytes), or its
        exception."""
        async with self.admit():
            if not self.processes:
                return await self.run(_rendered, function, args)
            return await self._answer_in_worker(function, args)

    async def _answer_in_worker(self, function: Callable[..., Any],
                                args: tuple[Any, ...]) -> bytes:
        """Take a slot (within ``timeout_s``) and its worker; run the job in it within
        what is left of ``timeout_s``, and free the slot as soon as it ends either way.
        Past ``timeout_s``: 503 ``timeout`` with ``Retry-After`` and the time spent in the
        queue and running (:meth:`timed_out`, as in the thread pool; before the
        seventy-seventh session this one had neither)."""
        start = time.monotonic()
        await self.take_slot()
        queued_s = time.monotonic() - start
        self.running += 1
        worker = self._idle.pop()
        try:
            left = self.timeout_s - (time.monotonic() - start)
            if left <= 0:
                raise TimeoutError
            return await worker.run(function, args, left)
        except TimeoutError:
            raise self.timed_out(queued_s) from None
        except WorkerGone as exc:
            log.warning("waits: %s", exc)
            raise ApiError(503, "unavailable", f"the wait analysis did not finish: {exc}; "
                           "try again", headers={"Retry-After": str(self.retry_after_s)},
                           ) from None
        finally:
            self._idle.append(worker)
            self.running -= 1
            self._semaphore.release()

    async def aclose(self) -> None:
        """End the worker processes (each once its analysis, if any, is done) and the
        thread pool."""
        await asyncio.gather(*(worker.close() for worker in self._workers))
        self.shutdown()


def _rendered(function: Callable[..., Any], args: tuple[Any, ...]) -> bytes:
    """``function(*args)`` rendered as JSON (in the thread pool: the answer of a hand
    that drew holds a few hundred scores)."""
    return render_json(function(*args))


async def get_waits_limiter(request: Request) -> AnalysisLimiter:
    """The per-process limiter of wait analyses (made by the app's lifespan)."""
    limiter: AnalysisLimiter = request.app.state.waits_limiter
    return limiter


router = APIRouter(prefix="/v1", tags=["scoring"], dependencies=[Depends(require_json)])

_WAITS_DOC: dict[int | str, dict[str, Any]] = {
    200: {"model": WaitsOut | DiscardsOut,
          "description": 'Waits.to_dict() for a hand one tile short: {"rules", "version", '
          '"hand", "ready", "shanten", "waits": [{"tile", "remaining", "discard", '
          '"self_drawn"}], "live", "seen"}; for a hand of a win\'s size, '
          'Discards.to_dict(): {"rules", "version", "hand", "win", "win_total", '
          '"win_on_discard", "win_self_drawn", "shanten", "discards": [{"tile", "ready", '
          '"live", "shanten", "waits": [...], "useful": [{"tile", "remaining"}], '
          '"useful_draws"}], "seen"} (best first: shanten — a discard ready in form only, '
          'live false, counts as 1 and ranks after the others one from ready — then useful '
          'draws (有效牌, null when ready), then live waits that win, best score, live '
          'waits; a wait whose last copy is the discard or seen elsewhere has 0 left and '
          'null scores; win: the hand is a win already, win_total its total or null, '
          'win_on_discard and win_self_drawn {"total", "legal"} each way or null; seen: '
          'the tiles seen elsewhere counted)'},
    503: {"model": ErrorOut,
          "description": "busy (every analysis slot taken and the queue full, or no slot "
          "free within the time budget; with Retry-After), timeout (the analysis ran "
          "past TILECAM_REQUEST_TIMEOUT_S; with Retry-After) or unavailable (its worker "
          "process ended before it answered, or could not be started; with "
          "Retry-After)"},
}  # fmt: skip


@router.post("/waits", responses={**ERROR_RESPONSES, **_WAITS_DOC})
async def waits(
    req: WaitsRequest, limiter: Annotated[AnalysisLimiter, Depends(get_waits_limiter)]
) -> Response:
    """Wait analysis of a hand one tile short of a win (13 tiles in MCR, 16 in Xiamen).

    Win flags (self_drawn …) do not apply; each wait is scored both on a discard and
    self-drawn. A hand that is not ready answers with ``ready: false`` and its shanten. A
    hand of a win's size (14 tiles in MCR) that drew and must discard answers every
    discard with the waits of the tiles kept, or, kept not ready, its useful draws
    (``useful``, ``useful_draws``: 有效牌), best first (何切: shanten, then useful draws,
    then the waits), and says whether the hand as it stands is a win already (``win``),
    its total (``win_total``, null when it is none) and each way (``win_on_discard``,
    ``win_self_drawn``: a hand may win self-drawn only). A hand of another size is a 400
    naming both sizes. ``seen``: the tiles seen elsewhere (others' discards and melds),
    in the notation or as codes, which the tiles left of each wait and useful draw do not
    count (a wait with none left: 0 left, no score; a hand whose every wait is so is
    ``live: false``, ready in form only); a kind seen more often than the hand leaves is a
    400 ``invalid_hand`` naming it (:func:`scoring.waits`). With ``seen`` given, MCR
    scores a wait on the last tile of its kind as 和绝张 (4 fan), on a discard and
    self-drawn: the other three copies in sight — seen, in the hand's own melds or the
    copy a discard lets go — and none held standing; without ``seen`` no wait counts
    和绝张 (the request's ``last_of_kind`` flag is a win flag: it does not apply here).
    Analyses run one at a time by default (``TILECAM_WAITS_CONCURRENCY``), eight admitted
    per slot; past them the answer is 503 ``busy`` with ``Retry-After``.
    """
    if "seen" in req.rule_context:  # scoring.waits' own argument, not a context field
        raise ApiError(400, "invalid_context", "rule_context may not set seen; give it as a "
                       "top-level field")
    hand, kwargs = hand_and_context(req, win=False)
    if req.seen is not None:
        kwargs["seen"] = req.seen
    # off the event loop, in the limiter's worker process: an analysis scores a trial win
    # per kind (a 16-tile Xiamen hand with golds up to about 0.06 s; a hand that drew,
    # one analysis per discard, up to about 0.25 s: bench/waits_bench.py), and the
    # automatic tables' scoring on the loop must not queue behind it
    try:
        # a hand of either size, else a 400 naming both (as tilecam waits says it)
        drew = scoring.drew(hand, kwargs["rules"])
        body = await limiter.answer(analysis, drew, hand, kwargs)
    except scoring.HandError as exc:
        raise invalid_hand(exc) from None
    return Response(body, media_type="application/json")
