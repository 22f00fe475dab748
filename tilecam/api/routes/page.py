"""``GET /`` (and ``HEAD /``, for uptime checks): the phone page (plain HTML/JS/CSS in
``tilecam/static``, no build step)."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import FileResponse

router = APIRouter(tags=["page"])

INDEX = Path(__file__).resolve().parents[2] / "static" / "index.html"


@router.api_route("/", methods=["GET", "HEAD"], include_in_schema=False)
def index() -> FileResponse:
    """The page: take a photo, check the tiles, set the win, see the fans."""
    return FileResponse(INDEX, media_type="text/html", headers={"Cache-Control": "no-cache"})
