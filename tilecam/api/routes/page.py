"""``GET /`` (and ``HEAD /``, for uptime checks): the phone page; ``GET /sheet``: a
table's score sheet, read with its key (plain HTML/JS/CSS in ``tilecam/static``, no build
step)."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import FileResponse

router = APIRouter(tags=["page"])

INDEX = Path(__file__).resolve().parents[2] / "static" / "index.html"
SHEET = INDEX.with_name("sheet.html")


@router.api_route("/", methods=["GET", "HEAD"], include_in_schema=False)
def index() -> FileResponse:
    """The page: take a photo, check the tiles, set the win, see the fans."""
    return FileResponse(INDEX, media_type="text/html", headers={"Cache-Control": "no-cache"})


@router.api_route("/sheet", methods=["GET", "HEAD"], include_in_schema=False)
def score_sheet() -> FileResponse:
    """A table's score sheet on a phone: standings, the next hand (who may not win it),
    the hands and the referee's rulings, read again every few seconds. The table number
    and key go after the ``#`` (``/sheet#table=3&key=…``), which browsers never send."""
    return FileResponse(SHEET, media_type="text/html", headers={"Cache-Control": "no-cache"})
