"""Table endpoints: camera frames, automatic-table hands, the sheet, referee actions.

Table key (its own table only) or admin key:

- ``GET /v1/tables/{id}``: the table, its players and the next hand's seats.
- ``POST /v1/tables/{id}/frames``: a camera frame (multipart field ``image``, or the raw
  JPEG/PNG body); optional fields ``winner``, ``discarder`` (seat winds of the hand, E =
  dealer), ``self_drawn``, ``last_of_kind``, ``kong``, ``last_wall_tile``, ``flowers``,
  ``context`` (JSON object of rule-set fields, e.g. ``{"gold": "5m"}`` for Xiamen).
  ``flowers`` (0-8) means what it means to ``/v1/recognize`` (:mod:`vision.flower_count`):
  the flowers of a frame that shows none; a hand showing exactly that many counts them
  once, and rules without flowers (Zhenjiang) refuse a count above 0 (400
  ``invalid_context``) before the frame is read. A camera's complete hand showing another
  number is recorded ``pending`` with the scorer's refusal for the referee, as any hand
  the scorer refuses (nobody is at an automatic table to send it again); a table photo's
  is 400 ``invalid_context`` naming both counts, as a posted hand's is refused.
  The hand is recorded once it is complete and the same in ``TILECAM_STABLE_FRAMES``
  frames in a row; a camera that keeps sending it gets ``already_recorded``. A dark frame
  with no tiles (a covered lens) is no view of the table, not the table seen empty
  (:func:`tilecam.tables.camera.shows_a_view`), and nor is a lit one that does not show
  the surface the camera learned around the tiles (a wall, the floor:
  :mod:`tilecam.tables.surface`); the answer's ``view`` and ``view_note`` say which.
  A frame whose ``winner``, ``discarder`` or ``self_drawn`` contradict the hand the
  camera recorded is not that hand (:func:`tilecam.tables.camera.frame_key`). A hand is
  recorded once whoever records it: a frame showing a hand recorded since the table was
  last seen cleared — by the camera, a referee, the table or a photo — is
  ``already_recorded`` with its number and ``recorded_hand``; a hand the camera recorded
  and then reads otherwise, stably, in a way that scores otherwise, is held ``pending``
  for the referee (revision action ``review``). An optional ``seq`` (a whole number 0 or
  more the camera gives each frame, growing) makes a frame sent again or delivered late
  ``stale``: counted for nothing (:func:`tilecam.tables.camera.is_stale`). A table has one
  camera state: one frame source per table.
- ``POST /v1/tables/{id}/photos``: one photo of a hand (sent as to ``/v1/recognize``,
  with a frame's fields, ``number``, ``note`` and ``new_hand``), read once and recorded
  at once with the photo as its ``image_ref``; ``number`` makes a re-send idempotent. A
  photo of a hand already recorded since the table was last seen cleared — by the
  camera, a referee, the table or a photo — is 409 ``already_recorded`` naming it, as a
  frame is answered; and so, where the camera has seen the table cleared, is a photo of
  any other complete hand while one recorded since then stands (one deal, one win: a
  reading more than 2 tiles off is likelier that hand misread than a new one);
  ``new_hand=true`` records it as a new hand.
- ``POST /v1/tables/{id}/hands``: an automatic table posts the hand in notation (or a
  drawn hand); ``number`` makes a re-send idempotent. A win the table's key posts without
  ``number`` at a table with a camera is held to a photo's rule: 409 ``already_recorded``
  when it is a hand recorded since the table was last seen cleared, or a second win of
  the deal, unless ``new_hand`` is true (:func:`tilecam.tables.camera.record_posted_hand`).
  Bodies are read strictly (a boolean is no number, a string no boolean), as
  ``/v1/score`` reads them.
- A table whose stored settings the scorer refuses (Xiamen ``chip_stack`` 0, stored by
  an older tilecam) answers a frame, a photo and a posted win 409
  ``table_settings_refused`` at once, before the image is read.
- ``GET /v1/tables/{id}/hands``, ``GET /v1/tables/{id}/hands/{n}`` (with history),
  ``GET /v1/tables/{id}/standings``, ``GET /v1/tables/{id}/sheet.csv``.

Admin key only (referee): ``POST /v1/tables/{id}/hands/{n}/corrections`` (the fields
given replace the hand's, those left out keep the last revision's),
``POST /v1/tables/{id}/hands/{n}/void``, ``POST /v1/tables/{id}/penalties``,
``POST /v1/tables/{id}/penalties/{pid}/void``, ``PATCH /v1/tables/{id}`` (name, players
before the first hand, withdrawn), ``POST /v1/tables/{id}/close`` (time called: no more
hands), ``POST /v1/tables/{id}/reopen`` (a close undone: hands recorded again, the close
and the reopening kept in the table's record of closings). Corrections and voids add a
revision; nothing recorded is overwritten or deleted.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import json
import logging
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Request, Response
from fastapi.concurrency import run_in_threadpool
from pydantic import ConfigDict, Field, field_validator, model_validator
from sqlalchemy.exc import DBAPIError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from sqlalchemy.orm import Session, sessionmaker

import scoring
from tilecam.api.answer_schemas import TableWithNextOut
from tilecam.api.deps import require_json
from tilecam.api.errors import REASON_LOGGED, ApiError
from tilecam.api.routes.events import NAME_BOUND, domain_error
from tilecam.api.schemas import (
    IMAGE_ERROR_RESPONSES,
    SCORE_NAMES,
    ErrorOut,
    FrameOut,
    SheetOut,
    StoredIn,
    context_shape_problem,
    errors,
    named_otherwise,
    not_text,
    nul_problem,
    shown,
)
from tilecam.api.upload import FRAME_FIELDS, image_request, request_fields
from tilecam.db.engine import first_line
from tilecam.db.models import GameTable, Hand, Penalty
from tilecam.tables import camera, flow, places, sheet, standings, views
from tilecam.tables.access import (
    Caller,
    RowId,
    app_settings,
    database,
    frame_reader,
    photo_reader,
    require_admin,
    require_reader,
    require_table,
)
from tilecam.tables.camera import FrameReader
from tilecam.tables.scoring_bridge import HandReport, check_win_seats, reading_context

log = logging.getLogger("tilecam.api")


def as_text(value: Any) -> Any:
    """The JSON value ``value`` with each string in it (a value or a key) that is not
    Unicode text — it holds a lone UTF-16 surrogate — written with that character as its
    escape (:func:`tilecam.api.schemas.shown`: the six characters ``\\ud800``); the
    rest as it is. Nothing is stored so now (a stored body holding one is a 422), but a
    score sheet written before the seventy-fifth session may keep one in a revision's
    JSON columns (a drawn hand's context ``{"gold": "\\ud800"}``, a camera's reading).
    A hand's answers pass through it — the hand list, a hand and its history, a write's
    answer that shows them (a referee's correction mending such a hand), the whole sheet
    (:func:`json_bytes`) — where the serializer failed before: a 500 on every read of
    the hand, of its history for good, and on the correction although it was recorded.

    >>> as_text({"gold": chr(0xD800), "k" + chr(0xDC00): [1, "5m"]}) == {
    ...     "gold": "\\\\ud800", "k\\\\udc00": [1, "5m"]}
    True
    """
    if isinstance(value, str):
        return shown(value) if not_text(value) else value
    if isinstance(value, dict):
        return {as_text(k): as_text(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [as_text(v) for v in value]
    return value


def json_bytes(content: Any) -> bytes:
    """``content`` as compact UTF-8 JSON, a string in it that is not Unicode text
    written with :func:`as_text` instead of failing the answer (a 500 on every read of
    the hand — of its history for good — before the seventy-fifth session's review). An
    answer all of whose text is Unicode is written as before, in the same bytes.

    >>> print(json_bytes({"gold": chr(0xD800), "note": "荒庄"}).decode())
    {"gold":"\\\\ud800","note":"荒庄"}
    """
    try:
        return json.dumps(content, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(as_text(content), ensure_ascii=False,
                          separators=(",", ":")).encode("utf-8")


#: Every table route names a table (404 when there is none).
router = APIRouter(prefix="/v1/tables", tags=["tables"], responses=errors(404))

#: ``responses=`` of the writes that go through the score sheet's checks.
WRITE_ERRORS = errors(400, 409)
#: A write that names the request (a hand's ``number``, a penalty's ``request_id``):
#: new, 201; sent again, 200 with what was recorded the first time.
REPEAT: dict[int | str, dict[str, Any]] = {
    200: {"model": dict[str, Any], "description": "a repeat of a write already recorded: "
          "what was recorded the first time, with created: false"}}

DB = Annotated[sessionmaker[Session], Depends(database)]
TableCaller = Annotated[Caller, Depends(require_table)]
#: Reads of the sheet also take the table's viewing key (``tv_…``), which records nothing.
Reader = Annotated[Caller, Depends(require_reader)]
Wind = Literal["E", "S", "W", "N"]


#: The most a hand's win context may hold, as JSON text (a rule set's fields are a few
#: short values; every read of the sheet returns it).
MOST_CONTEXT_CHARS = 2000


class HandIn(StoredIn):
    """A hand reported by an automatic table (or a referee's corrected content)."""

    model_config = ConfigDict(extra="forbid", strict=True)
    number: int | None = Field(None, ge=1, description="the hand's number on the sheet (1-16 "
                               "under MCR, more where a false claim was ruled); makes a "
                               "re-send idempotent; default: the next")
    outcome: Literal["win", "draw"] = "win"
    hand: str | None = Field(None, max_length=200,
                             description="the winning hand in notation, winning tile last")
    winner: Wind | None = Field(None, description="seat wind of the winner (E = dealer)")
    discarder: Wind | None = Field(None, description="seat wind of the discarder")
    self_drawn: bool = False
    last_of_kind: bool = False
    kong: bool = False
    last_wall_tile: bool = False
    flowers: int = Field(0, ge=0, le=8)
    context: dict[str, Any] = Field(default_factory=dict,
                                    description="rule-set win context (e.g. Xiamen gold)")
    note: str | None = Field(None, max_length=2000)

    @model_validator(mode="before")
    @classmethod
    def _score_names(cls, data: Any) -> Any:
        """A 422 that names this body's field where ``/v1/score``'s name or kind of value
        was given (``rule_context``, ``seat_wind``, a discarder 1-3: :data:`SCORE_NAMES`),
        rather than pydantic's "Extra inputs are not permitted"."""
        if (problem := named_otherwise(data, SCORE_NAMES, table_hand=True)) is not None:
            raise ValueError(problem)
        return data

    @field_validator("context")
    @classmethod
    def _context_keys(cls, value: dict[str, Any]) -> dict[str, Any]:
        """Refuse a context key that is one of ``scoring.score``'s own parameters
        (``flowers``, ``self_drawn``, ``seat_wind`` …: this body's fields, the table's
        rules or the hand's place give them), naming it and what gives it — 400
        ``invalid_context``, as ``/v1/recognize`` refuses them in ``rule_context``
        (:func:`tilecam.tables.scoring_bridge.context_clash`). Raised as :class:`ApiError`,
        which pydantic passes on unwrapped, so that the answer says ``invalid_context``
        rather than a 422 about the value's shape."""
        from tilecam.tables.scoring_bridge import context_clash

        if (problem := context_clash(value)) is not None:
            raise ApiError(400, "invalid_context", problem)
        return value

    @field_validator("context")
    @classmethod
    def _context_size(cls, value: dict[str, Any]) -> dict[str, Any]:
        if (problem := context_shape_problem(value)) is not None:
            raise ValueError(problem)
        size = len(json.dumps(value, ensure_ascii=False))
        if size > MOST_CONTEXT_CHARS:
            raise ValueError(f"context is {size:,} characters of JSON; at most "
                             f"{MOST_CONTEXT_CHARS:,}")
        return value

    def report(self) -> HandReport:
        return HandReport(
            outcome=self.outcome, hand=self.hand, winner=self.winner, discarder=self.discarder,
            self_drawn=self.self_drawn, last_of_kind=self.last_of_kind, kong=self.kong,
            last_wall_tile=self.last_wall_tile, flowers=self.flowers,
            context=dict(self.context), note=self.note,
        )


def _as_last_revision(schema: dict[str, Any]) -> None:
    """A correction's fields have no default of their own: one left out keeps the last
    revision's value (the schema says so instead of a default)."""
    for name, field in schema.get("properties", {}).items():
        if name in sheet.REPORT_FIELDS:
            field.pop("default", None)
            field["description"] = (field.get("description", name) + "; left out: as "
                                    "the hand's last revision")


class CorrectionIn(HandIn):
    """A referee's correction and why: the fields given replace the hand's; a field left
    out keeps the last revision's value (the winner corrected alone keeps the hand, the
    flowers, the kong and the table's note), and a win made a drawn hand drops the win's
    fields it does not give. A field given as null clears it (a winner unknown). Sending
    every field gives the hand exactly that content. The answer says which fields the
    correction ``changed`` and which it ``kept``."""

    model_config = ConfigDict(json_schema_extra=_as_last_revision)
    reason: str = Field(min_length=1, max_length=2000)


class PostedHandIn(HandIn):
    """A hand an automatic table (or a referee) posts: :class:`HandIn` and ``new_hand``."""

    new_hand: bool = Field(False, description="true: record a win posted by the table's "
                           "key without number at a table with a camera even where it is "
                           "a hand recorded since the "
                           "table was last seen cleared, or a second win of the deal; "
                           "without it such a post is 409 already_recorded and nothing is "
                           "recorded (a photo's rule)")


class VoidIn(StoredIn):
    model_config = ConfigDict(extra="forbid", strict=True)
    reason: str = Field(min_length=1, max_length=2000)


class FalseClaimIn(StoredIn):
    """A referee rules a declared win a false claim; the hand is played on."""

    model_config = ConfigDict(extra="forbid", strict=True)
    reason: str = Field(min_length=1, max_length=2000)
    kind: Literal["wrong_win", "false_win"] | None = Field(
        None, description="错和 (wrong_win) or 诈和 (false_win); default: as the record "
        "shows (MCR: a winning shape under 8 fan or a ready hand on a tile it does not wait "
        "on is 错和, a hand short of ready 诈和; Zhenjiang: 诈胡 false_win)")
    points: int | None = Field(None, ge=1, le=100_000, description="points to each other "
                               "player; default: the rules' (MCR 错和 10, 诈和 20)")


class PenaltyIn(StoredIn):
    """错和 (``wrong_win``), 诈和 (``false_win``), a ``deduction`` on one player, a
    ``payment`` (包赔) from one player to another (``to``), a ``bar`` (停和: the player may
    not win ``hand``), a ``warning`` (警告), a ``disqualification`` (停赛: no rank in the
    standings), or an offence whose penalty grows with each
    repeat in the hand (MCR: ``empty_claim`` 空吃/空碰/空杠, ``early_draw`` 摸牌 before the
    discard, ``slow_pung`` 碰牌 after 3 seconds: warning, 5, 10, 20 …); these take no
    points."""

    model_config = ConfigDict(extra="forbid", strict=True)
    player: int | str = Field(description="player name, or position 0-3 (round-1 seat)")
    kind: Literal["wrong_win", "false_win", "deduction", "payment", "bar", "warning",
                  "disqualification", "empty_claim", "early_draw", "slow_pung"]
    to: int | str | None = Field(None, description="payment: the player paid (name or "
                                 "position); only with kind payment")
    points: int | None = Field(None, ge=1, le=100_000, description="points to each other "
                               "player (MCR defaults: wrong_win 10, false_win 20); deduction: "
                               "taken (MCR: 5, 10, 20, 30, 40, 50 or 60); payment: paid to "
                               "the player `to`; none for bar, warning, disqualification "
                               "and the repeat offences (the sheet books their step)")
    hand: int | None = Field(None, ge=1, description="the hand it happened in (the sheet's "
                             "record number); a bar: the hand the player may not win")
    reason: str | None = Field(None, max_length=2000)
    money: bool | None = Field(None, description="the points are money paid apart from the "
                               "points or chips (counted in the standings' money, not the "
                               "ranked total); default: as the rules pay it (Xiamen 诈胡: "
                               "false_win_money in money: half of chip_stack, 50 by "
                               "default)")
    request_id: str | None = Field(None, min_length=1, max_length=100, description="the "
                                   "client's name for this request, unique per table: sent "
                                   "again it finds the penalty booked (200) instead of "
                                   "booking another")


class TablePatchIn(StoredIn):
    """What a referee may change of a table: its name at any time, its players only while
    its sheet holds no hand and no penalty, and whether it is withdrawn from its event's
    standings. A field left out (or null) is left as it is."""

    model_config = ConfigDict(extra="forbid", strict=True)
    name: str | None = Field(None, min_length=1,
                             description=f"the table's new name (unique in its event): "
                                         f"{NAME_BOUND}")
    players: list[str] | None = Field(
        None, description="four player names in their round-1 seats (East, South, West, "
        "North); only before the sheet's first hand or penalty (else 409)")
    withdrawn: bool | None = Field(
        None, description="true: the table is left out of its event's standings and records "
        "no new hand (a table opened by mistake), its history kept; false: back in")


class CloseIn(StoredIn):
    """Why the table's sheet is closed (e.g. the session's time called)."""

    model_config = ConfigDict(extra="forbid", strict=True)
    reason: str = Field(min_length=1, max_length=2000, description="why (kept on one line, "
                        "with who closed it, in close_reason)")


class ReopenIn(StoredIn):
    """Why a closed table's sheet is reopened (closed by mistake, time called too early)."""

    model_config = ConfigDict(extra="forbid", strict=True)
    reason: str = Field(min_length=1, max_length=2000, description="why (kept on one line, "
                        "with who reopened it, in the table's record of closings)")


def _table_or_404(session: Session, table_id: int) -> GameTable:
    try:
        return sheet.get_table(session, table_id)
    except sheet.NotFound as exc:
        raise ApiError(404, "not_found", str(exc)) from None


def _recorded_view(sf: sessionmaker[Session], table_id: int, rec: sheet.Recorded,
                   history: bool = False, *, admin_key: bool) -> dict[str, Any]:
    """The answer to a write of hand ``rec`` (committed): the hand at its place, read
    back; when that read fails, what :func:`_after_commit` answers (``admin_key``: the
    caller holds the admin key itself, not a referee key)."""
    def view() -> dict[str, Any]:
        with sf() as session:
            table = _table_or_404(session, table_id)
            return _hand_view(session, table, rec.hand.number, history)

    return _after_commit(view, {"table_id": table_id, "number": rec.hand.number},
                         f"/v1/tables/{table_id}/hands/{rec.hand.number}",
                         admin_key=admin_key)


def _after_commit(view: Callable[[], dict[str, Any]], ids: dict[str, Any],
                  where: str, *, admin_key: bool) -> dict[str, Any]:
    """``view()``, the answer to a write already committed; when the database fails to
    read it back (a lock held past the busy timeout, a pool exhausted, a connection
    lost), the write still stands: the ids of what was recorded, ``recorded: true`` and
    ``view_error`` saying where to read it — never the 503 that says nothing was
    recorded, which a client would answer by sending the write again.

    The driver's reason (which may name the database's host, port, user or file) is
    logged, and said in ``view_error`` only to the admin key's holder (``admin_key``:
    :attr:`Caller.is_admin_key`), as a 503 ``database_unavailable`` says it
    (:func:`tilecam.api.errors.may_read_database_reason`); a named referee key and a
    table key read that it is in the server's log."""
    try:
        return view()
    except (DBAPIError, PoolTimeout) as exc:  # the database's failure, not a view's bug
        log.warning("recorded, but reading it back failed (%s): %s", where, exc,
                    exc_info=exc)
        reason = first_line(exc) if admin_key else REASON_LOGGED
        return {**ids, "recorded": True,
                "view_error": f"recorded; reading it back failed ({reason}): "
                              f"GET {where} shows it"}


def _hand_view(session: Session, table: GameTable, number: int, history: bool) -> dict[str, Any]:
    """Hand ``number`` of ``table`` at its place in the sheet's deal (404 when missing)."""
    hands = sheet.hands_of(session, table.id)
    if not 1 <= number <= len(hands):
        raise ApiError(404, "not_found", f"table {table.id} has no hand {number}")
    where = places.places_of(table, hands)
    hand = sheet.load_history(session, hands[number - 1]) if history else hands[number - 1]
    return dict(as_text(views.hand_view(hand, table, where[number - 1], history=history)))


@router.get("/{table_id}")
def get_table(table_id: RowId, sf: DB, _: Reader) -> dict[str, Any]:
    """The table, its players and where the next hand falls."""
    with sf() as session:
        table = _table_or_404(session, table_id)
        return views.table_view(table, sheet.next_place(session, table), with_next=True)


def _table_answer(sf: sessionmaker[Session], table_id: int) -> dict[str, Any]:
    with sf() as session:
        table = _table_or_404(session, table_id)
        return views.table_view(table, sheet.next_place(session, table), with_next=True)


@router.patch("/{table_id}", dependencies=[Depends(require_json)], responses=WRITE_ERRORS)
def patch_table(table_id: RowId, body: TablePatchIn, sf: DB,
                _: Annotated[Caller, Depends(require_admin)]) -> dict[str, Any]:
    """Referee: fix a table — its ``name`` (any time), its ``players`` (only before the
    sheet's first hand or penalty: 409 after), or ``withdrawn`` (left out of the event's
    standings and recording no new hand; nothing recorded is deleted). The table as it
    now is."""
    if body.name is None and body.players is None and body.withdrawn is None:
        raise ApiError(400, "invalid_request", "give what to change: name, players or "
                       "withdrawn")
    try:
        sheet.update_table(sf, table_id, name=body.name, players=body.players,
                           withdrawn=body.withdrawn)
    except (ValueError, LookupError) as exc:
        raise domain_error(exc) from None
    return _table_answer(sf, table_id)


@router.post("/{table_id}/close", dependencies=[Depends(require_json)],
             responses=WRITE_ERRORS)
def close_table(table_id: RowId, body: CloseIn, sf: DB,
                caller: Annotated[Caller, Depends(require_admin)]) -> dict[str, Any]:
    """Referee: close the table's sheet (the session's time called): a hand posted after
    it — by the table, a camera or a referee — is 409; its standings say ``complete`` and
    ``closed``; corrections, voids and penalties still apply. Closing it again is 409.
    The table as it now is (``closed_at``, ``close_reason``, no ``next_hand``). A table
    closed by mistake is reopened by ``POST …/reopen``."""
    try:
        sheet.close_table(sf, table_id, caller.author, body.reason)
    except (ValueError, LookupError) as exc:
        raise domain_error(exc) from None
    return _table_answer(sf, table_id)


#: The answers of ``POST …/reopen``: the table (the close's model, named here rather
#: than in :data:`tilecam.api.openapi.ANSWERS`; ``response_model=None``, so that the
#: return type adds nothing to it), and why it is refused.
REOPEN_ANSWERS: dict[int | str, dict[str, Any]] = {
    200: {"model": TableWithNextOut, "description": "the table, open again: closed_at "
          "null, close_reason the record of its closings, next_hand where it stood"},
    **errors((400, "invalid_request: a reason that shows nothing"),
             (409, "not_closed: the table is not closed (nothing to reopen; a withdrawn "
              "table is brought back by PATCH withdrawn false)"))}


@router.post("/{table_id}/reopen", dependencies=[Depends(require_json)], response_model=None,
             responses=REOPEN_ANSWERS)
def reopen_table(table_id: RowId, body: ReopenIn, sf: DB,
                 caller: Annotated[Caller, Depends(require_admin)]) -> dict[str, Any]:
    """Referee: reopen a table's sheet closed by mistake (or time called too early) — who
    may close a table may reopen it. It records hands again (posted, a camera's, a
    photo's) where it stood: the hands recorded before stay, and the next hand's place
    and the standings go on from them; its standings no longer say ``closed``. Nothing
    is deleted: the close it undoes and the reopening, each with its time, reason and
    who gave it, are kept as lines of ``close_reason`` (``closed <time>: <reason> (by
    …)``, ``reopened <time>: …``; closed again, the new reason comes first), and the
    sheet's CSV and page show them. A table that is not closed is 409. The table as it
    now is (``closed_at`` null, ``next_hand``)."""
    try:
        sheet.reopen_table(sf, table_id, caller.author, body.reason)
    except (ValueError, LookupError) as exc:
        raise domain_error(exc) from None
    return _table_answer(sf, table_id)


#: The 409s of ``POST …/hands``.
HAND_CONFLICTS = errors(400, (409, "already_recorded: a win the table's key posts without "
                              "number at a table with a camera is a hand recorded since "
                              "the table was last seen "
                              "cleared, or a second win of the deal (new_hand=true records "
                              "it); table_settings_refused: the table's stored settings "
                              "score no win; number_taken: the number is recorded with "
                              "other content; out_of_order: it is not the next; "
                              "table_closed, table_withdrawn, session_over: the table "
                              "records no more hands"))


@router.post("/{table_id}/hands", status_code=201, dependencies=[Depends(require_json)],
             responses={**REPEAT, **HAND_CONFLICTS})
def post_hand(table_id: RowId, body: PostedHandIn, sf: DB, caller: TableCaller,
              response: Response) -> dict[str, Any]:
    """Record a hand reported by an automatic table: 201 when new, 200 for a repeat (a
    ``number`` already recorded with the same content). A win the table's key posts
    without ``number`` at a table with a camera (one that sent a frame) that is a hand
    recorded since the table was last seen cleared —
    by its camera, a photo, a referee or an earlier post — or, where the camera has seen
    the table cleared, a second win of the deal is 409 ``already_recorded`` naming it,
    nothing recorded, as a photo is answered; ``new_hand=true`` records it."""
    try:
        source = "referee" if caller.admin else "table"
        rec = camera.record_posted_hand(sf, table_id, body.report(), source, caller.author,
                                        body.number, new_hand=body.new_hand)
    except (ValueError, LookupError) as exc:  # already_recorded, table_settings_refused …
        raise domain_error(exc) from None
    response.status_code = 201 if rec.created else 200
    return {**_recorded_view(sf, table_id, rec, admin_key=caller.is_admin_key),
            "created": rec.created}


def _flag(fields: dict[str, str], name: str) -> bool:
    text = fields.get(name, "").strip().lower()
    if text in ("", "0", "false", "no", "off"):
        return False
    if text in ("1", "true", "yes", "on"):
        return True
    raise ApiError(400, "invalid_request", f"field {name}={text!r}: use true or false")


def _refuse_nul(value: Any, prefix: str) -> None:
    """400 naming where ``value`` (camera-frame fields or their parsed context) holds
    U+0000, as :class:`tilecam.api.schemas.StoredIn` refuses it in JSON bodies."""
    if (problem := nul_problem(value)) is not None:
        raise ApiError(400, "invalid_request", f"{prefix}{problem}")


def _refuse_score_fields(context: dict[str, Any]) -> None:
    """400 ``invalid_context`` when a frame's ``context`` sets one of ``scoring.score``'s
    own parameters, naming it and the frame field that gives it
    (:func:`tilecam.tables.scoring_bridge.context_clash`). A frame's context is the rule
    set's own fields: the recognizer would read ``{"self_drawn": true}`` there as a win
    flag, but the hand is recorded with the frame's fields (``self_drawn``, ``flowers``,
    ``winner`` for the winner's seat wind …), and a context giving one of them too would
    give the sheet's scorer that value twice — so the camera hears it at its first frame
    (``tilecam watch --context`` refuses them before it starts)."""
    from tilecam.tables.scoring_bridge import FRAME_GIVES, context_clash

    if (problem := context_clash(context, FRAME_GIVES)) is not None:
        raise ApiError(400, "invalid_context", f"field {problem}")


#: The form fields of a camera frame (``POST …/frames``) as /docs shows them: the win's
#: fields and the frame's ``seq``.
CAMERA_FIELDS: dict[str, dict[str, Any]] = {
    **FRAME_FIELDS,
    "seq": {"type": "integer", "minimum": 0, "maximum": camera.MOST_SEQ,
            "description": "the frame's number from its camera, growing with each frame "
            "(e.g. milliseconds since 1970): a frame whose seq is not greater than the last "
            "one counted at this table (sent again, delivered late) is answered status "
            "stale and counts for nothing; without it, every frame counts"},
}
#: The form fields of a camera frame, besides its ``image``.
FRAME_FIELD_NAMES = tuple(CAMERA_FIELDS)  # as the OpenAPI form schema lists them
#: ``openapi_extra`` of ``POST /v1/tables/{id}/frames``.
FRAME_REQUEST_BODY = image_request(
    CAMERA_FIELDS, "; any field other than these is refused (400 invalid_request)")
#: The form fields of ``POST /v1/tables/{id}/photos`` as /docs shows them: a frame's, a
#: posted hand's ``number`` (idempotency) and ``note``, and ``new_hand``.
PHOTO_FIELDS: dict[str, dict[str, Any]] = {
    **FRAME_FIELDS,
    "number": {"type": "integer", "minimum": 1, "description": "the hand's number on the "
               "sheet: makes a re-send idempotent (the same hand again: 200 with the hand "
               "recorded; other content: 409); default: the next"},
    "note": {"type": "string", "maxLength": 2000, "description": "the table's note on the "
             "hand, kept with it"},
    "new_hand": {"type": "boolean", "default": False, "description": "true: record the "
                 "photo's hand as a new hand even where it is a hand already on the sheet "
                 "(the same tiles dealt again) or a second win of the deal; without it "
                 "such a photo — of the hand the camera, a referee, the table or an "
                 "earlier photo recorded since the table was last seen cleared, or, where "
                 "the camera has seen the table cleared, of any complete hand while one "
                 "recorded since then stands — is 409 already_recorded and nothing is "
                 "recorded"},
}
#: The form fields of a photo (``POST …/photos``), as the OpenAPI form schema lists them.
PHOTO_FIELD_NAMES = tuple(PHOTO_FIELDS)


def _table_rules(sf: sessionmaker[Session], table_id: int, done: str) -> str:
    """The rules of table ``table_id``, to read a camera frame or a photo with; 404 for no
    such table, 409 ``table_settings_refused`` (its message beginning with ``done``) when
    the scorer refuses its stored settings (:func:`tilecam.tables.camera.refuse_settings`)
    — no image of it need be read, every win there is refused."""
    with sf() as session:
        table = _table_or_404(session, table_id)
        try:
            camera.refuse_settings(table, done)
        except camera.SettingsRefused as exc:
            raise domain_error(exc) from None
        return str(table.rules)


async def _read_table_image(
    sf: sessionmaker[Session], table_id: int, data: bytes, report: HandReport,
    reader: FrameReader, settings: Any, limiter: Any, *, with_view: bool,
) -> tuple[str, camera.FrameReading]:
    """The table's rules and an image's reading under them (a camera frame's or a
    photo's, its header already checked), read through the recognition limiter when the
    service has one; ``with_view``: the frame judged as a view of the table as well
    (:func:`camera.with_view`). A context the recognizer's scoring refuses is 400
    ``invalid_context``; an unknown table 404; a table whose stored settings the scorer
    refuses 409 ``table_settings_refused``, before the image is read."""
    from tilecam.api.upload import decode_image

    done = ("this camera frame was not read (nor will any other be)" if with_view
            else "this photo was not read")
    rules = await run_in_threadpool(_table_rules, sf, table_id, done)
    _refuse_flower_count(rules, report)

    def read() -> camera.FrameReading:
        image = decode_image(data, settings.max_pixels, settings.max_upload_bytes)
        try:
            reading = reader(image, rules, reading_context(report, rules))
        except scoring.HandError as exc:
            raise ApiError(400, "invalid_context", str(exc)) from None
        return camera.with_view(reading, image) if with_view else reading

    reading = await (limiter.run(read) if limiter is not None else run_in_threadpool(read))
    return rules, reading


def _refuse_flower_count(rules: str, report: HandReport) -> None:
    """400 ``invalid_context`` for an image's ``flowers`` (a count of bonus tiles) that
    the table's ``rules`` take from no image — rules played without flowers (Zhenjiang)
    — before the image is decoded, as ``/v1/recognize`` refuses it
    (:func:`vision.flower_count.check_flowers`). Before, a camera's frames were read and
    their hand recorded ``pending`` with the scorer's refusal."""
    from vision.flower_count import check_flowers

    try:
        check_flowers(rules, report.flowers)
    except scoring.HandError as exc:
        raise ApiError(400, "invalid_context", str(exc)) from None


def _refuse_flower_clash(report: HandReport, reading: camera.FrameReading) -> None:
    """400 ``invalid_context`` naming both counts for a complete hand read from a table
    photo that shows a number of flowers other than the field ``flowers`` gives: the
    count is for an image that shows none, as ``/v1/recognize`` reads it
    (:func:`tilecam.tables.scoring_bridge.image_flowers_clash`); the person who sent the
    photo can send it again without the count, as after a posted hand's refusal. An
    image that shows exactly that many keeps its reading, its flowers counted once.
    Before, such a hand was recorded ``pending`` for a referee. (A camera's frame is not
    refused: its hand goes ``pending`` with the scorer's refusal.)"""
    from tilecam.tables.scoring_bridge import image_flowers_clash

    if not reading.complete:
        return
    if (problem := image_flowers_clash(reading.hand, report.flowers)) is not None:
        raise ApiError(400, "invalid_context", problem)


def _frame_report(fields: dict[str, str],
                  known: tuple[str, ...] = FRAME_FIELD_NAMES) -> HandReport:
    unknown = sorted(set(fields) - set(known))
    if unknown:
        raise ApiError(400, "invalid_request", f"unknown field(s) {', '.join(unknown)}; "
                       f"known: image, {', '.join(sorted(known))}")
    _refuse_nul(fields, "field ")  # the context is stored with the hand
    seats: dict[str, str | None] = {}
    for name in ("winner", "discarder"):
        value = fields.get(name, "").strip().upper() or None
        if value is not None and value not in ("E", "S", "W", "N"):
            raise ApiError(400, "invalid_request",
                           f"field {name}={value!r}: use a seat wind E, S, W or N")
        seats[name] = value
    try:
        flowers = int(fields.get("flowers", "0") or 0)
    except ValueError:
        raise ApiError(400, "invalid_request", "field flowers must be a whole number") from None
    if not 0 <= flowers <= 8:
        raise ApiError(400, "invalid_request",
                       f"field flowers={flowers}: give 0-8 (there are 8 bonus tiles)")
    context: dict[str, Any] = {}
    if len(fields.get("context", "")) > MOST_CONTEXT_CHARS:
        raise ApiError(400, "invalid_request", f"field context is {len(fields['context']):,} "
                       f"characters; at most {MOST_CONTEXT_CHARS:,}")
    if fields.get("context", "").strip():
        try:
            context = json.loads(fields["context"])
        except ValueError as exc:
            raise ApiError(400, "invalid_request",
                           f"field context is not valid JSON: {exc}") from None
        except RecursionError:
            raise ApiError(400, "invalid_request",
                           "field context nests lists or objects too deeply") from None
        if not isinstance(context, dict):
            raise ApiError(400, "invalid_request",
                           'field context must be a JSON object, e.g. {"gold": "5m"}')
        _refuse_score_fields(context)
        if (problem := context_shape_problem(context)) is not None:
            raise ApiError(400, "invalid_request", f"field {problem}")
        _refuse_nul(context, "field context: ")
    return HandReport(winner=seats["winner"], discarder=seats["discarder"], context=context,
                      self_drawn=_flag(fields, "self_drawn"),
                      last_of_kind=_flag(fields, "last_of_kind"), kong=_flag(fields, "kong"),
                      last_wall_tile=_flag(fields, "last_wall_tile"), flowers=flowers)


@router.post(
    "/{table_id}/frames", openapi_extra=FRAME_REQUEST_BODY,
    responses={200: {"model": FrameOut, "description": "what the frame showed"},
               **IMAGE_ERROR_RESPONSES,
               **errors((400, "invalid_request (a field unknown or of the wrong value, "
                         "seats that contradict), invalid_context, or an image missing, "
                         "empty or corrupt"),
                        (409, "table_settings_refused: the table's stored settings score no "
                         "win (nothing read); table_closed, table_withdrawn, "
                         "session_over: the table records no more hands")),
               503: {"model": ErrorOut, "description": "no model loaded, busy, timed out, "
                     "or the database unavailable"}})
async def post_frame(
    table_id: RowId,
    request: Request,
    sf: DB,
    caller: TableCaller,
    reader: Annotated[FrameReader, Depends(frame_reader)],
) -> dict[str, Any]:
    """Read one camera frame; record the hand when it is revealed (stable and complete).

    A frame is an image request as ``/v1/recognize`` is: the recognition limiter admits it
    for its whole life (upload, wait, recognition, recording), so ``TILECAM_RECOGNIZE_QUEUE``
    bounds frames too — past it, 503 ``busy`` with ``Retry-After`` before the upload is
    read.

    A frame with ``seq`` not greater than the last one counted at this table is answered
    ``stale`` without being read, and counts for nothing. At a table whose stored
    settings the scorer refuses, every frame is 409 ``table_settings_refused``, unread."""
    from contextlib import AbstractAsyncContextManager, nullcontext

    from tilecam.api.upload import check_image_header, read_upload

    settings = app_settings(request)
    limiter = getattr(request.app.state, "limiter", None)
    admitted: AbstractAsyncContextManager[None] = (
        limiter.admit() if limiter is not None else nullcontext())
    async with admitted:
        upload = await read_upload(request, settings.max_upload_bytes, settings.request_timeout_s)
        fields = request_fields(request, upload)
        report = _frame_report(fields)
        seq = _frame_seq(fields)
        try:
            check_win_seats(report)
        except ValueError as exc:
            raise ApiError(400, "invalid_request", str(exc)) from None
        # the header, and a progressive JPEG's scans, read off the event loop (a crafted 15 MB
        # file costs tens of ms): what the table's scoring on this loop would queue behind
        await run_in_threadpool(check_image_header, upload.data, settings.max_pixels)
        stale = await run_in_threadpool(camera.stale_frame, sf, table_id, seq,
                                        settings.stable_frames)
        if stale is not None:  # sent again, or late: not read (recognition costs)
            await run_in_threadpool(_table_rules, sf, table_id,
                                    "this camera frame was not read (nor will any other be)")
            return _frame_answer(stale, 0)
        # a dark frame with no tiles (a covered lens) is no view of an empty table; the
        # frame measured to learn the table's surface, or to judge a frame without tiles
        _, reading = await _read_table_image(sf, table_id, upload.data, report, reader,
                                             settings, limiter, with_view=True)

        def process() -> camera.FrameResult:
            return camera.process_frame(sf, table_id, reading, upload.data,
                                        settings.stable_frames, report, settings.data_dir,
                                        store=settings.store_frames,
                                        review_below=settings.camera_review_below, seq=seq)

        try:
            result = await run_in_threadpool(process)
        except (ValueError, LookupError) as exc:
            raise domain_error(exc) from None
        out = _frame_answer(result, reading.tiles)
        if result.recorded is not None:
            rec = result.recorded
            out["recorded"] = await run_in_threadpool(
                functools.partial(_recorded_view, sf, table_id, rec,
                                  admin_key=caller.is_admin_key))
        if result.recorded_hand is not None:
            out["recorded_hand"] = result.recorded_hand
        if result.image_error is not None:
            out["image_error"] = result.image_error
        return out


@router.post("/{table_id}/camera/restart")  # no body, no conflict: 404 alone
def restart_camera(table_id: RowId, sf: DB, _: TableCaller) -> dict[str, Any]:
    """The table's camera (its key) or a referee: the camera started its frame count
    again — it restarted and counts ``seq`` from 0, its clock went back, or a ``seq`` sent
    by mistake left every frame answered ``stale``. The last ``seq`` counted is forgotten
    (``forgotten_seq``; null when there was none), so the next frame counts whatever its
    ``seq``; the hands the camera recorded stay known, so their frames do not record them
    again."""
    try:
        forgotten = camera.restart_seq(sf, table_id)
    except (ValueError, LookupError) as exc:
        raise domain_error(exc) from None
    return {"table_id": table_id, "forgotten_seq": forgotten}


def _frame_seq(fields: dict[str, str]) -> int | None:
    """A frame's ``seq`` field: None when not given; 400 unless a whole number from 0 to
    :data:`tilecam.tables.camera.MOST_SEQ` (given empty too: a camera meaning to number
    its frames would lose the protection without a word)."""
    if "seq" not in fields:
        return None
    text = fields["seq"].strip()
    if not text:
        raise ApiError(400, "invalid_request", "field seq is empty: give the frame's number "
                       "from its camera (a whole number 0 or more), or leave the field out")
    if not text.isascii() or not text.isdigit():
        raise ApiError(400, "invalid_request", f"field seq={text[:40]!r} must be a whole "
                       "number 0 or more (the frame's number from its camera)")
    if len(text) > 19 or int(text) > camera.MOST_SEQ:
        raise ApiError(400, "invalid_request", f"field seq={text[:40]}: give at most "
                       f"{camera.MOST_SEQ}")
    return int(text)


def _frame_answer(result: camera.FrameResult, tiles: int) -> dict[str, Any]:
    """The JSON answer to a frame (:class:`tilecam.api.schemas.FrameOut`) less its
    ``recorded`` hand: ``tiles`` detected (0 for a frame not read: a stale one, whose
    ``view_note`` names the last ``seq`` counted)."""
    return {
        "status": result.status,
        "streak": result.streak,
        "needed": result.needed,
        "hand": result.hand_text,
        "complete": result.complete,
        "tiles": tiles,
        "hand_number": result.hand_number,
        "view": result.view,
        "view_note": result.view_note,
    }


def _photo_number(fields: dict[str, str]) -> int | None:
    """A photo's ``number`` field: None when not given; 400 unless a whole number 1 or
    more (a sheet's record number)."""
    text = fields.get("number", "").strip()
    if not text:
        return None
    try:
        number = int(text)
    except ValueError:
        raise ApiError(400, "invalid_request", f"field number={text!r} must be a whole "
                       "number (the hand's number on the sheet)") from None
    if not 1 <= number <= 2**31 - 1:
        raise ApiError(400, "invalid_request", f"field number={number}: give 1 or more")
    return number


def _photo_note(fields: dict[str, str]) -> str | None:
    """A photo's ``note`` field (at most 2,000 characters; empty: none)."""
    note = fields.get("note", "")
    if len(note) > 2000:
        raise ApiError(400, "invalid_request", f"field note is {len(note):,} characters; "
                       "at most 2,000")
    return note if note.strip() else None


@router.post(
    "/{table_id}/photos", status_code=201,
    openapi_extra=image_request(PHOTO_FIELDS, "; any field other than these is refused "
                                "(400 invalid_request)"),
    responses={**REPEAT, **IMAGE_ERROR_RESPONSES,
               **errors((400, "invalid_request (a field unknown or of the wrong value, "
                         "seats that contradict), invalid_context, invalid_hand (the photo "
                         "shows no complete hand), or an image missing, empty or corrupt"),
                        (409, "already_recorded: the photo shows a hand on the sheet since "
                         "the table was last seen cleared, or — where the camera has seen "
                         "the table cleared — a hand recorded since then stands and the "
                         "photo would be a second win of the deal, however far apart they "
                         "read (the message names the hand, and says how many tiles apart; "
                         "nothing recorded: new_hand=true records a new hand); "
                         "table_settings_refused: the table's stored settings score no win "
                         "(nothing read); "
                         "number_taken: the number is recorded with other content; "
                         "out_of_order: it is not the next; table_closed, "
                         "table_withdrawn, session_over: the table records no more "
                         "hands")),
               503: {"model": ErrorOut, "description": "no model loaded, busy, timed out, "
                     "or the database unavailable"}})
async def post_photo(
    table_id: RowId,
    request: Request,
    sf: DB,
    caller: TableCaller,
    reader: Annotated[FrameReader, Depends(photo_reader)],
    response: Response,
) -> dict[str, Any]:
    """Record the hand one photo shows: read once and recorded at once (no run of frames
    as a camera's), with the photo kept as its ``image_ref`` — for a client that takes
    one photo per hand (a phone at the table, ``/v1/recognize``'s photo). The photo is
    sent as ``/v1/recognize``'s is (multipart ``image``, or the raw body with the fields
    in the query) and checked the same way (its header before any decoding, its size in
    bytes and pixels), and the fields are a camera frame's (``winner``, ``discarder``,
    ``self_drawn`` … ``context``) with a posted hand's ``number`` and ``note``. A photo
    that shows no complete hand is refused (400 ``invalid_hand``, naming what was read).
    As a camera's reading, a hand the scorer refuses or a win read unsure is recorded
    ``pending`` for a referee. 201 when new; 200 for a repeat with ``number`` (the hand
    recorded, ``created`` false). A photo of a hand already on the sheet since the table
    was last seen cleared — the camera's, a referee's, the table's, an earlier photo's
    (a re-send without ``number``) — is 409 ``already_recorded`` naming it, nothing
    recorded, as the camera answers it (:func:`tilecam.tables.camera.photo_shows`).
    Where the table's camera has seen it cleared, a photo of any complete hand while a
    hand recorded since then stands is 409 ``already_recorded`` too, the message naming
    that hand and how many tiles apart the two read: one deal has one win, and a photo
    read more than 2 tiles from it (glare, a bad photo) is likelier that hand misread
    than a new one (:func:`tilecam.tables.camera.photo_deal_hand`; a referee corrects a
    recorded hand read wrong). ``new_hand=true`` records it as a new hand all the same.
    A table whose camera never saw it cleared, or without a camera, sees no deal end:
    there only a photo of the sheet's last hand, within 2 tiles, is refused. Camera
    frames keep their own rule. The recognition limiter
    admits it as it does ``/v1/recognize``."""
    from contextlib import AbstractAsyncContextManager, nullcontext

    from tilecam.api.upload import check_image_header, read_upload

    settings = app_settings(request)
    limiter = getattr(request.app.state, "limiter", None)
    admitted: AbstractAsyncContextManager[None] = (
        limiter.admit() if limiter is not None else nullcontext())
    async with admitted:
        upload = await read_upload(request, settings.max_upload_bytes, settings.request_timeout_s)
        fields = request_fields(request, upload)
        report = _frame_report(fields, PHOTO_FIELD_NAMES)
        number, note = _photo_number(fields), _photo_note(fields)
        new_hand = _flag(fields, "new_hand")
        try:
            check_win_seats(report)
        except ValueError as exc:
            raise ApiError(400, "invalid_request", str(exc)) from None
        image_format = (await run_in_threadpool(check_image_header, upload.data,
                                                settings.max_pixels))[0]
        rules, reading = await _read_table_image(sf, table_id, upload.data, report, reader,
                                                 settings, limiter, with_view=False)
        if not reading.complete or not _parses(reading.hand, rules, report.context):
            seen = f"read {reading.hand}" if reading.hand else "no hand read"
            raise ApiError(400, "invalid_hand", f"the photo shows no complete hand ({seen}, "
                           f"{reading.tiles} tiles): photograph the whole hand, or post it "
                           "in notation (POST …/hands)")
        _refuse_flower_clash(report, reading)  # the flowers it shows, against the count

        def record() -> camera.PhotoResult:
            return camera.record_photo(
                sf, table_id, reading, upload.data, image_format,
                replace(report, note=note), settings.data_dir,
                source="photo", author=caller.author, number=number,
                store=settings.store_frames, review_below=settings.camera_review_below,
                new_hand=new_hand)

        try:
            result = await run_in_threadpool(record)
        except (ValueError, LookupError) as exc:  # already_recorded: the camera's word
            raise domain_error(exc) from None
    rec = result.recorded
    response.status_code = 201 if rec.created else 200
    out = {**await run_in_threadpool(functools.partial(_recorded_view, sf, table_id, rec,
                                                       admin_key=caller.is_admin_key)),
           "created": rec.created}
    if result.image_error is not None:
        out["image_error"] = result.image_error
    return out


def _parses(hand: str | None, rules: str, context: Mapping[str, Any]) -> bool:
    """Whether a reading's hand is notation the sheet can keep, read as the table's
    ``rules`` read it under the photo's ``context`` (a Xiamen gold's stand-ins)."""
    from tilecam.tables.scoring_bridge import normalize_hand

    if not hand:
        return False
    try:
        normalize_hand(hand, rules, context)
    except ValueError:
        return False
    return True


@router.get("/{table_id}/hands")
def list_hands(table_id: RowId, sf: DB, _: Reader) -> dict[str, Any]:
    """Every hand of the sheet with its current revision."""
    with sf() as session:
        table = _table_or_404(session, table_id)
        hands = sheet.hands_of(session, table_id)
        where = places.places_of(table, hands)
        return {"table_id": table_id, "hands": [  # as_text: what an older tilecam stored
            as_text(views.hand_view(h, table, p)) for h, p in zip(hands, where, strict=False)]}


@router.get("/{table_id}/hands/{number}")
def get_hand(table_id: RowId, number: RowId, sf: DB, _: Reader) -> dict[str, Any]:
    """One hand with every revision (record, corrections, void)."""
    with sf() as session:
        table = _table_or_404(session, table_id)
        return _hand_view(session, table, number, history=True)


@router.post("/{table_id}/hands/{number}/corrections", status_code=201,
             dependencies=[Depends(require_json)], responses=WRITE_ERRORS)
def correct_hand(table_id: RowId, number: RowId, body: CorrectionIn, sf: DB,
                 caller: Annotated[Caller, Depends(require_admin)]) -> dict[str, Any]:
    """Referee: correct the hand with a new revision (history kept). The fields given
    replace the hand's; those left out keep the last revision's values. The answer's
    ``changed`` names the fields whose value the correction changed, ``kept`` those it
    left out."""
    if body.number is not None and body.number != number:
        raise ApiError(400, "invalid_request",
                       f"number {body.number} in the body differs from hand {number} in the URL")
    given = body.model_fields_set & set(sheet.REPORT_FIELDS)
    try:
        rec = sheet.correct_hand(sf, table_id, number, body.report(), caller.author,
                                 body.reason, given)
    except (ValueError, LookupError) as exc:
        raise domain_error(exc) from None
    return {**_recorded_view(sf, table_id, rec, history=True,
                             admin_key=caller.is_admin_key),
            "changed": list(rec.changed or ()), "kept": list(rec.kept or ())}


@router.post("/{table_id}/hands/{number}/void", status_code=201,
             dependencies=[Depends(require_json)], responses=WRITE_ERRORS)
def void_hand(table_id: RowId, number: RowId, body: VoidIn, sf: DB,
              caller: Annotated[Caller, Depends(require_admin)]) -> dict[str, Any]:
    """Referee: void the hand (it keeps its place, scores nothing; history kept)."""
    try:
        rec = sheet.void_hand(sf, table_id, number, caller.author, body.reason)
    except (ValueError, LookupError) as exc:
        raise domain_error(exc) from None
    return _recorded_view(sf, table_id, rec, history=True, admin_key=caller.is_admin_key)


@router.post("/{table_id}/hands/{number}/false-claim", status_code=201,
             dependencies=[Depends(require_json)], responses=WRITE_ERRORS)
def rule_false_claim(table_id: RowId, number: RowId, body: FalseClaimIn, sf: DB,
                     caller: Annotated[Caller, Depends(require_admin)]) -> dict[str, Any]:
    """Referee: rule the declared win a false claim (错和, 诈和) where the rules play the
    hand on (MCR, Zhenjiang): the record keeps the claimant's penalty and takes no place
    of the deal; the next record is the hand's real end (history kept)."""
    try:
        rec = sheet.rule_false_claim(sf, table_id, number, caller.author, body.reason,
                                     body.kind, body.points)
    except (ValueError, LookupError) as exc:
        raise domain_error(exc) from None
    return _recorded_view(sf, table_id, rec, history=True, admin_key=caller.is_admin_key)


def _player_position(table: GameTable, player: int | str) -> int:
    if isinstance(player, int):
        if not 0 <= player <= 3:
            raise ApiError(400, "invalid_request", f"player position {player} is not 0-3")
        return player
    for p in table.players:  # as kept, then as tidied (names kept before NFC too)
        if p.name == player:
            return p.position
    alike = [p for p in table.players if sheet.tidy_name(p.name) == sheet.tidy_name(player)]
    if len(alike) == 1:
        return alike[0].position
    names = ", ".join(p.name for p in table.players)
    if alike:
        raise ApiError(400, "invalid_request", f"{len(alike)} players at this table read "
                       f"{player.strip()!r} ({names}): give the player's position 0-3")
    raise ApiError(400, "invalid_request", f"no player {player!r} at this table ({names})")


@router.post("/{table_id}/penalties", status_code=201, dependencies=[Depends(require_json)],
             responses={**REPEAT, **WRITE_ERRORS})
def add_penalty(table_id: RowId, body: PenaltyIn, sf: DB,
                caller: Annotated[Caller, Depends(require_admin)],
                response: Response) -> dict[str, Any]:
    """Referee: a penalty (错和 10 / 诈和 20 to each other player in MCR, a deduction — MCR
    5, 10, 20, 30, 40, 50 or 60 — or a payment from one player to another), a 停和
    (``bar``: a win of that player's in that hand is held pending), a warning, a
    disqualification (停赛: no rank in the standings), or an MCR repeat offence
    (``empty_claim``, ``early_draw``, ``slow_pung``) booked at its step in the hand."""
    with sf() as session:
        table = _table_or_404(session, table_id)
        pos = _player_position(table, body.player)
        to = None if body.to is None else _player_position(table, body.to)
    try:
        pen, created = sheet.add_penalty(sf, table_id, pos, body.kind, body.points,
                                         body.hand, body.reason, caller.author, body.money,
                                         to, body.request_id)
    except (ValueError, LookupError) as exc:
        raise domain_error(exc) from None
    response.status_code = 201 if created else 200
    return {**_penalty_answer(sf, table_id, pen, admin_key=caller.is_admin_key),
            "created": created}


def _penalty_answer(sf: sessionmaker[Session], table_id: int, pen: Penalty,
                    *, admin_key: bool) -> dict[str, Any]:
    """The answer to a committed penalty write (see :func:`_after_commit`)."""
    def view() -> dict[str, Any]:
        with sf() as session:
            return views.penalty_view(pen, _table_or_404(session, table_id))

    return _after_commit(view, {"id": pen.id, "table_id": table_id},
                         f"/v1/tables/{table_id}/penalties", admin_key=admin_key)


@router.post("/{table_id}/penalties/{penalty_id}/void", dependencies=[Depends(require_json)],
             responses=WRITE_ERRORS)
def void_penalty(table_id: RowId, penalty_id: RowId, body: VoidIn, sf: DB,
                 caller: Annotated[Caller, Depends(require_admin)]) -> dict[str, Any]:
    """Referee: void a penalty (kept in the sheet, counted as zero)."""
    try:
        pen = sheet.void_penalty(sf, table_id, penalty_id, caller.author, body.reason)
    except (ValueError, LookupError) as exc:
        raise domain_error(exc) from None
    return _penalty_answer(sf, table_id, pen, admin_key=caller.is_admin_key)


@router.get("/{table_id}/penalties")
def list_penalties(table_id: RowId, sf: DB, _: Reader) -> dict[str, Any]:
    with sf() as session:
        table = _table_or_404(session, table_id)
        return {"penalties": [views.penalty_view(p, table)
                              for p in sheet.penalties_of(session, table_id)]}


@router.get("/{table_id}/standings")
def table_standings(table_id: RowId, sf: DB, _: Reader) -> dict[str, Any]:
    """The table's standings: points per player (hands + penalties), ranks, sheet state."""
    with sf() as session:
        table = _table_or_404(session, table_id)
        return standings.table_standings(session, table).to_dict()


#: What the whole sheet leaves out of each hand (``GET .../hands/{n}`` has them): the
#: scorer's full answer and the camera's reading, most of a hand's bytes. The score's
#: fans are kept, less their sets (``fans``: :func:`_sheet_hand`).
SHEET_LEAVES_OUT = ("score", "recognized")


def _sheet_hand(hand: Hand, table: GameTable, place: flow.Place) -> dict[str, Any]:
    """A hand as the whole sheet gives it: :func:`tilecam.tables.views.hand_view` less
    :data:`SHEET_LEAVES_OUT`, with ``fans``, the stored score's fans by name and value
    (:func:`tilecam.tables.views.fans_view`; null where nothing was scored), so that the
    sheet says which fans made a hand's total."""
    view = views.hand_view(hand, table, place)
    out = {k: v for k, v in view.items() if k not in SHEET_LEAVES_OUT}
    out["fans"] = views.fans_view(view.get("score"))
    return out


@router.get("/{table_id}/sheet", responses={
    200: {"model": SheetOut, "description": "the whole sheet (ETag header; gzip when "
          "Accept-Encoding takes it)", "headers": {"ETag": {"schema": {"type": "string"}}}},
    304: {"description": "unchanged since the ETag sent in If-None-Match: no body",
          "headers": {"ETag": {"schema": {"type": "string"}}}}})
def whole_sheet(table_id: RowId, sf: DB, _: Reader, request: Request) -> Response:
    """The whole sheet in one answer — the table with its next hand, the standings, every
    hand's current revision (less its ``score`` and ``recognized``: read the hand for
    them; but with its score's ``fans``, each by name and value) and the penalties — as
    ``GET /v1/tables/{id}``, ``.../standings``, ``.../hands`` and ``.../penalties`` give
    them: what the score-sheet page reads every few seconds, one request against the
    key's rate limit instead of four. The answer has an ``ETag``; sent back in
    ``If-None-Match`` while the sheet is unchanged, it gets 304 and no body."""
    with sf() as session:
        table = _table_or_404(session, table_id)
        hands = sheet.hands_of(session, table_id)
        where = places.places_of(table, hands)
        body = {
            "table": views.table_view(table, places.next_of(table, where), with_next=True),
            "standings": standings.table_standings(session, table, hands).to_dict(),
            "hands": [_sheet_hand(h, table, p) for h, p in zip(hands, where, strict=False)],
            "penalties": [views.penalty_view(p, table)
                          for p in sheet.penalties_of(session, table_id)],
        }
    data = json_bytes(body)
    etag = f'"sheet-{table_id}-{hashlib.sha256(data).hexdigest()[:32]}"'
    headers = {"ETag": etag, "Cache-Control": "no-cache", "Vary": "Accept-Encoding"}
    if etag in (t.strip() for t in request.headers.get("if-none-match", "").split(",")):
        return Response(status_code=304, headers=headers)
    if _takes_gzip(request.headers.get("accept-encoding", "")):
        # a long sheet's JSON shrinks about thirtyfold; phones read it every few seconds
        return Response(gzip.compress(data, compresslevel=6), media_type="application/json",
                        headers={**headers, "Content-Encoding": "gzip"})
    return Response(data, media_type="application/json", headers=headers)


def _takes_gzip(accept_encoding: str) -> bool:
    """Whether an ``Accept-Encoding`` header takes gzip (and not with ``q=0``).

    >>> _takes_gzip("gzip, deflate, br"), _takes_gzip("br;q=1, gzip;q=0"), _takes_gzip("")
    (True, False, False)
    """
    for part in accept_encoding.lower().split(","):
        name, _, params = part.strip().partition(";")
        if name.strip() in ("gzip", "*"):
            q = params.strip()
            if not q.startswith("q="):
                return True
            try:
                return float(q[2:]) > 0
            except ValueError:  # a weight that is no number: take it as given
                return True
    return False


@router.post("/{table_id}/view-key", status_code=201)
def mint_view_key(table_id: RowId, sf: DB,
                  _: Annotated[Caller, Depends(require_admin)]) -> dict[str, Any]:
    """Referee: a new viewing key for the table — it reads the sheet (the score-sheet
    page, standings, CSV) and records nothing — replacing the one before; shown only now.
    A table made before viewing keys existed gets its first one so."""

    def work(session: Session) -> dict[str, Any]:
        table = _table_or_404(session, table_id)
        return {"table_id": table_id, "view_key": sheet.mint_view_key(session, table)}

    return sheet.transaction(sf, work)


@router.post("/{table_id}/key", status_code=201)
def mint_table_key(table_id: RowId, sf: DB,
                   _: Annotated[Caller, Depends(require_admin)]) -> dict[str, Any]:
    """Referee: a new key for the table's camera or automatic table, replacing the one
    before (which stops working at once) — for a key that leaked, or whose table's
    creation answer was lost; shown only now."""

    def work(session: Session) -> dict[str, Any]:
        table = _table_or_404(session, table_id)
        return {"table_id": table_id, "api_key": sheet.mint_table_key(session, table)}

    return sheet.transaction(sf, work)


@router.get("/{table_id}/sheet.csv", response_class=Response, responses={
    200: {"description": "the sheet as CSV (an attachment)",
          "content": {"text/csv": {"schema": {"type": "string"}}}}})
def sheet_csv(table_id: RowId, sf: DB, _: Reader) -> Response:
    """The score sheet as CSV: a row per hand (with its fans), per penalty, and the
    totals. UTF-8, beginning with its byte-order mark: without it, Excel on Windows reads
    a double-clicked CSV in the system's legacy code page and garbles Chinese names."""
    with sf() as session:
        text = standings.table_sheet_csv(session, _table_or_404(session, table_id))
    return Response(text, media_type="text/csv; charset=utf-8", headers={
        "Content-Disposition": f'attachment; filename="table-{table_id}-sheet.csv"'})
