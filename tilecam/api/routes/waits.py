"""``POST /v1/waits``: the tiles a hand one short of a win waits on, with the best score
on each, or how far it is from ready (shanten); for a hand of a win's size (it drew and
must discard), each discard with the waits of what is kept."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from fastapi import APIRouter, Depends
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse

import scoring
from tilecam.api.deps import require_json
from tilecam.api.hands import hand_and_context, invalid_hand
from tilecam.api.schemas import ERROR_RESPONSES, DiscardsOut, WaitsOut, WaitsRequest

#: Matched before the other routes (see tilecam.app): the automatic tables' hot path.
ROUTE_PRIORITY = 0

router = APIRouter(prefix="/v1", tags=["scoring"], dependencies=[Depends(require_json)])

_WAITS_DOC: dict[int | str, dict[str, Any]] = {
    200: {"model": WaitsOut | DiscardsOut,
          "description": 'Waits.to_dict() for a hand one tile short: {"rules", "version", '
          '"hand", "ready", "shanten", "waits": [{"tile", "remaining", "discard", '
          '"self_drawn"}]}; for a hand of a win\'s size, Discards.to_dict(): {"rules", '
          '"version", "hand", "win", "win_total", "shanten", "discards": [{"tile", "ready", '
          '"shanten", "waits": [...]}]} (best first; win: the hand is a win already, '
          'win_total its total or null)'},
}  # fmt: skip


@router.post("/waits", responses={**ERROR_RESPONSES, **_WAITS_DOC})
async def waits(req: WaitsRequest) -> JSONResponse:
    """Wait analysis of a hand one tile short of a win (13 tiles in MCR, 16 in Xiamen).

    Win flags (self_drawn …) do not apply; each wait is scored both on a discard and
    self-drawn. A hand that is not ready answers with ``ready: false`` and its shanten. A
    hand of a win's size (14 tiles in MCR) that drew and must discard answers every
    discard with the waits of the tiles kept, best first (何切), and says whether the
    hand as it stands is a win already (``win``) and its total (``win_total``, null when
    it is none).
    """
    hand, kwargs = hand_and_context(req, win=False)
    # off the event loop: a wait analysis scores a trial win per kind (a 16-tile Xiamen
    # hand with golds about 0.2 s; a hand that drew, one analysis per discard, up to
    # about 0.8 s), and the automatic tables' scoring on the loop must not queue behind it
    drew = hand.tile_count == scoring.get_rule_set(kwargs["rules"]).hand_size
    work: Callable[..., scoring.Waits | scoring.Discards] = (
        scoring.discards if drew else scoring.waits)
    try:
        result = await run_in_threadpool(functools.partial(work, hand, **kwargs))
    except scoring.HandError as exc:
        raise invalid_hand(exc) from None
    return JSONResponse(result.to_dict())
