"""``POST /v1/waits``: the tiles a hand one short of a win waits on, with the best score
on each, or how far it is from ready (shanten); for a hand of a win's size (it drew and
must discard), each discard with the waits of what is kept.

The route needs no key, so its analyses run in a pool of their own with admission
(:class:`AnalysisLimiter`, ``app.state.waits_limiter``): ``TILECAM_WAITS_CONCURRENCY``
at once (default 1), 8 per slot admitted, 503 ``busy`` past them, 503 ``timeout`` past
``TILECAM_REQUEST_TIMEOUT_S`` (security review finding 3: up to forty at once in AnyIO's
thread pool, of 4–9 s each, held the GIL the automatic tables' ``/v1/score`` needs).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, TypeVar

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse

import scoring
from tilecam.api.deps import RecognitionLimiter, require_json
from tilecam.api.hands import hand_and_context, invalid_hand
from tilecam.api.schemas import ERROR_RESPONSES, DiscardsOut, ErrorOut, WaitsOut, WaitsRequest

T = TypeVar("T")

#: Matched before the other routes (see tilecam.app): the automatic tables' hot path.
ROUTE_PRIORITY = 0

#: Requests admitted per analysis slot (running or waiting for one); more are 503 busy.
QUEUE_PER_SLOT = 8
#: Seconds a client is told to wait before it tries again after a 503 busy.
RETRY_AFTER_S = 1


class AnalysisLimiter(RecognitionLimiter):
    """Runs wait analyses (``scoring.waits``/``scoring.discards``, pure-Python CPU work)
    in a small thread pool of their own, as :class:`tilecam.api.deps.RecognitionLimiter`
    runs recognitions: at most ``slots`` at once, at most ``queue`` requests admitted
    (running or waiting for a slot) — one more is answered 503 ``busy`` with
    ``Retry-After`` at once — a request waits up to ``timeout_s`` for a slot (then 503
    ``busy``), and one whose analysis runs past what is left of ``timeout_s`` is answered
    503 ``timeout`` (the analysis finishes in the background and only then frees its
    slot, so no more than ``slots`` ever run).
    """

    work = "analysis"
    requests = "wait analyses"
    timeout_text = "the wait analysis did not finish within {timeout_s:g} s"
    retry_after_s = RETRY_AFTER_S
    queue_per_slot = QUEUE_PER_SLOT
    thread_prefix = "waits"

    async def run(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Admit the request, then run ``fn(*args, **kwargs)`` in the pool within the
        limits; its result (or its exception)."""
        async with self.admit():
            return await super().run(fn, *args, **kwargs)


async def get_waits_limiter(request: Request) -> AnalysisLimiter:
    """The per-process limiter of wait analyses (made by the app's lifespan)."""
    limiter: AnalysisLimiter = request.app.state.waits_limiter
    return limiter


router = APIRouter(prefix="/v1", tags=["scoring"], dependencies=[Depends(require_json)])

_WAITS_DOC: dict[int | str, dict[str, Any]] = {
    200: {"model": WaitsOut | DiscardsOut,
          "description": 'Waits.to_dict() for a hand one tile short: {"rules", "version", '
          '"hand", "ready", "shanten", "waits": [{"tile", "remaining", "discard", '
          '"self_drawn"}]}; for a hand of a win\'s size, Discards.to_dict(): {"rules", '
          '"version", "hand", "win", "win_total", "shanten", "discards": [{"tile", "ready", '
          '"shanten", "waits": [...]}]} (best first; win: the hand is a win already, '
          'win_total its total or null)'},
    503: {"model": ErrorOut,
          "description": "busy (every analysis slot taken and the queue full, or no slot "
          "free within the time budget; with Retry-After) or timeout (the analysis ran "
          "past TILECAM_REQUEST_TIMEOUT_S)"},
}  # fmt: skip


@router.post("/waits", responses={**ERROR_RESPONSES, **_WAITS_DOC})
async def waits(
    req: WaitsRequest, limiter: Annotated[AnalysisLimiter, Depends(get_waits_limiter)]
) -> JSONResponse:
    """Wait analysis of a hand one tile short of a win (13 tiles in MCR, 16 in Xiamen).

    Win flags (self_drawn …) do not apply; each wait is scored both on a discard and
    self-drawn. A hand that is not ready answers with ``ready: false`` and its shanten. A
    hand of a win's size (14 tiles in MCR) that drew and must discard answers every
    discard with the waits of the tiles kept, best first (何切), and says whether the
    hand as it stands is a win already (``win``) and its total (``win_total``, null when
    it is none). Analyses run one at a time by default (``TILECAM_WAITS_CONCURRENCY``),
    eight admitted per slot; past them the answer is 503 ``busy`` with ``Retry-After``.
    """
    hand, kwargs = hand_and_context(req, win=False)
    # off the event loop, in the limiter's pool: an analysis scores a trial win per kind
    # (a 16-tile Xiamen hand with golds up to about 0.06 s; a hand that drew, one analysis
    # per discard, up to about 0.25 s: bench/waits_bench.py), and the automatic tables'
    # scoring on the loop must not queue behind it
    drew = hand.tile_count == scoring.get_rule_set(kwargs["rules"]).hand_size
    work: Callable[..., scoring.Waits | scoring.Discards] = (
        scoring.discards if drew else scoring.waits)
    try:
        answer = await limiter.run(_analysis, work, hand, kwargs)
    except scoring.HandError as exc:
        raise invalid_hand(exc) from None
    return JSONResponse(answer)


def _analysis(work: Callable[..., scoring.Waits | scoring.Discards], hand: scoring.Hand,
              kwargs: dict[str, Any]) -> dict[str, Any]:
    """``work(hand, **kwargs).to_dict()`` (in the analysis pool: the answer of a hand
    that drew holds a few hundred scores)."""
    return work(hand, **kwargs).to_dict()
