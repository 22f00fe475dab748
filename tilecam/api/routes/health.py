"""Liveness: ``GET /healthz`` (or ``HEAD``, as uptime checkers send) answers 200 while the
process serves requests."""

from __future__ import annotations

from fastapi import APIRouter

router = APIRouter(tags=["health"])


@router.get("/healthz")
async def healthz() -> dict[str, str]:
    """The process is up."""
    return {"status": "ok"}


@router.head("/healthz", include_in_schema=False)
async def healthz_head() -> dict[str, str]:
    """The same, for ``HEAD`` (the body is not sent)."""
    return {"status": "ok"}
