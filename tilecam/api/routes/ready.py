"""Readiness: ``GET /readyz`` answers 200 once the tile detector is loaded, else 503.

Scoring works without a model; a load balancer that routes photos should use this.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from tilecam.api.errors import ApiError
from tilecam.api.schemas import ErrorOut

router = APIRouter(tags=["health"])


@router.get(
    "/readyz",
    responses={503: {"model": ErrorOut,
                     "description": "not_ready: no detector loaded; the message says why"}},
)
async def readyz(request: Request) -> dict[str, Any]:
    """Whether the detector is loaded (200) or not (503 ``not_ready`` with the reason)."""
    state = request.app.state
    if getattr(state, "detector", None) is None:
        reason = getattr(state, "detector_error", None) or "no model loaded"
        raise ApiError(503, "not_ready", f"the tile detector is not loaded: {reason}")
    settings = state.settings
    return {
        "status": "ready",
        # the loaded model's name@version (what every reading's "model" says)
        "model": getattr(state.detector, "name", None),
        "model_dir": str(settings.model_dir),
        "load_s": state.detector_load_s,
        "recognize_concurrency": settings.recognize_concurrency,
    }
