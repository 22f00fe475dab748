"""Event administration (admin key): create events and their tables, event standings.

- ``POST /v1/events`` ``{"name", "rules": "mcr", "version": null}`` → the event.
- ``GET /v1/events``, ``GET /v1/events/{id}`` (with its tables).
- ``POST /v1/events/{id}/tables`` ``{"name", "players": [E, S, W, N], "rules", "version",
  "settings"}`` → the table and its ``api_key`` (shown this once; only its hash is kept).
- ``GET /v1/events/{id}/standings`` (JSON) and ``/v1/events/{id}/standings.csv``: a line
  per player, the player's tables summed (one name across the event's tables), each
  table's line kept as detail; a withdrawn table counts for nobody.

Bodies are read strictly (a boolean is no number, a string no boolean).
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Response
from pydantic import ConfigDict, Field
from sqlalchemy import select
from sqlalchemy.orm import Session, selectinload, sessionmaker

from tilecam.api.deps import require_json
from tilecam.api.errors import ApiError
from tilecam.api.schemas import StoredIn, errors
from tilecam.db.models import Event, GameTable
from tilecam.tables import places, sheet, standings, views
from tilecam.tables.access import Caller, RowId, database, require_admin

router = APIRouter(prefix="/v1/events", tags=["events"])

#: ``responses=`` of the CSV answers.
CSV_ANSWER: dict[int | str, dict[str, Any]] = {
    200: {"description": "the standings as CSV (an attachment)",
          "content": {"text/csv": {"schema": {"type": "string"}}}}}

DB = Annotated[sessionmaker[Session], Depends(database)]
Admin = Annotated[Caller, Depends(require_admin)]

#: What a name's bound counts (:func:`tilecam.tables.sheet.kept_name`): the name as kept,
#: so that every database answers a name too long alike (400 ``invalid_request``). Before
#: the seventy-fifth session's review an event's or a table's name was counted as sent
#: (a 422 past 200), and one that Unicode NFC made longer reached the database.
NAME_BOUND = (f"at most {sheet.MOST_NAME_CHARS} characters as kept (invisible characters "
              "left out, Unicode NFC, outer spaces off)")


class EventIn(StoredIn):
    """A new event."""

    model_config = ConfigDict(extra="forbid", strict=True)
    name: str = Field(min_length=1, description=f"the event's name: {NAME_BOUND}")
    rules: str = Field("mcr", description="rule set: mcr, xiamen or zhenjiang")
    version: str | None = Field(None, description="rule version (MCR: mil-2015 by default)")


class TableIn(StoredIn):
    """A new table of an event."""

    model_config = ConfigDict(extra="forbid", strict=True)
    name: str = Field(min_length=1, description=f"the table's name (unique in its event): "
                      f"{NAME_BOUND}")
    players: list[str] = Field(
        description="four player names in their round-1 seats: East, South, West, North; "
        f"each {NAME_BOUND}"
    )
    rules: str | None = Field(None, description="defaults to the event's rules")
    version: str | None = None
    settings: dict[str, Any] = Field(default_factory=dict,
                                     description="rule-set settings (GET /v1/rules lists them)")


def domain_error(exc: Exception) -> ApiError:
    """The API answer for an error raised by the score-sheet code."""
    if isinstance(exc, sheet.NotFound):
        return ApiError(404, "not_found", str(exc))
    if isinstance(exc, sheet.Conflict):
        return ApiError(409, exc.code, str(exc))  # table_closed, session_over …
    if isinstance(exc, sheet.RulesError):
        return ApiError(400, "invalid_context", str(exc))
    from scoring import HandError

    if isinstance(exc, HandError):
        return ApiError(400, "invalid_hand", str(exc))
    return ApiError(400, "invalid_request", str(exc))


def _load_event(session: Session, event_id: int) -> Event:
    event = session.scalar(
        select(Event).where(Event.id == event_id)
        .options(selectinload(Event.tables).selectinload(GameTable.players))
    )
    if event is None:
        raise ApiError(404, "not_found", f"no event {event_id}")
    return event


@router.post("", status_code=201, dependencies=[Depends(require_json)],
             responses=errors(400))
def create_event(body: EventIn, sf: DB, _: Admin) -> dict[str, Any]:
    """Create an event (admin)."""
    try:
        event = sheet.transaction(sf, lambda s: sheet.create_event(s, body.name, body.rules,
                                                                   body.version))
    except (ValueError, LookupError) as exc:
        raise domain_error(exc) from None
    return views.event_view(event)


@router.get("")
def list_events(sf: DB, _: Admin) -> dict[str, Any]:
    """All events (admin)."""
    with sf() as session:
        events = session.scalars(select(Event).order_by(Event.id)).all()
        return {"events": [views.event_view(e) for e in events]}


@router.get("/{event_id}", responses=errors(404))
def get_event(event_id: RowId, sf: DB, _: Admin) -> dict[str, Any]:
    """An event and its tables (admin)."""
    with sf() as session:
        event = _load_event(session, event_id)
        return {**views.event_view(event),
                "tables": [views.table_view(t) for t in event.tables]}


@router.post("/{event_id}/tables", status_code=201, dependencies=[Depends(require_json)],
             responses=errors(400, 404, 409))
def create_table(event_id: RowId, body: TableIn, sf: DB, _: Admin) -> dict[str, Any]:
    """Create a table with four players; the answer holds its API key (records hands) and
    its viewing key (reads the sheet only), each shown only now."""

    def work(session: Session) -> dict[str, Any]:
        event = sheet.get_event(session, event_id)
        table, key = sheet.create_table(session, event, body.name, body.players, body.rules,
                                        body.version, body.settings)
        view_key = sheet.mint_view_key(session, table)
        session.refresh(table, ["players"])
        first = places.next_place_of(table, [])
        return {**views.table_view(table, first, with_next=True), "api_key": key,
                "view_key": view_key}

    try:
        return sheet.transaction(sf, work)
    except (ValueError, LookupError) as exc:
        raise domain_error(exc) from None


@router.get("/{event_id}/standings", responses=errors(404))
def event_standings(event_id: RowId, sf: DB, _: Admin) -> dict[str, Any]:
    """Every player of the event ranked by points (admin)."""
    with sf() as session:
        return standings.event_standings(session, _load_event(session, event_id))


@router.get("/{event_id}/standings.csv", response_class=Response,
            responses={**CSV_ANSWER, **errors(404)})
def event_standings_csv(event_id: RowId, sf: DB, _: Admin) -> Response:
    """The event standings as CSV (admin)."""
    with sf() as session:
        text = standings.event_standings_csv(session, _load_event(session, event_id))
    return Response(text, media_type="text/csv; charset=utf-8", headers={
        "Content-Disposition": f'attachment; filename="event-{event_id}-standings.csv"'})
