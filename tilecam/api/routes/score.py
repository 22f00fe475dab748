"""``POST /v1/score``: score a winning hand (notation or structured tiles) with its context.

The answer is ``Score.to_dict()``, the same JSON as ``tilecam score --json``.
Scoring is pure Python and takes well under a millisecond, so it runs on the
event loop (no thread hop) — this endpoint is the hot path of automatic tables.
"""

from __future__ import annotations

from fastapi import APIRouter, Depends
from fastapi.responses import JSONResponse

import scoring
from tilecam.api.deps import require_json
from tilecam.api.hands import hand_and_context, invalid_hand
from tilecam.api.schemas import ERROR_RESPONSES, ScoreOut, ScoreRequest

#: Matched before the other routes (see tilecam.app): the automatic tables' hot path.
ROUTE_PRIORITY = 0

router = APIRouter(prefix="/v1", tags=["scoring"], dependencies=[Depends(require_json)])


@router.post(
    "/score",
    response_model=ScoreOut,
    responses={**ERROR_RESPONSES, 200: {"description": "the score (Score.to_dict())"}},
)
async def score(req: ScoreRequest) -> JSONResponse:
    """Score a winning hand: fans with the sets that form them, total, legality, settlement.

    Give the hand as ``hand`` (notation, e.g. ``[EEE,2][SSSS,1]WWWNN55pN``; the last
    standing tile is the winning tile) or as ``standing`` + ``melds`` (+ ``winning_tile``).
    A hand that cannot be scored answers 400 ``invalid_hand`` with the reason.
    """
    hand, kwargs = hand_and_context(req)
    try:
        result = scoring.score(hand, **kwargs)
    except scoring.HandError as exc:
        raise invalid_hand(exc) from None
    return JSONResponse(result.to_dict())
