"""Every error the service answers with is JSON: ``{"error": {"code", "message"}}``.

Routes raise :class:`ApiError` for problems they find themselves; the handlers
installed by :func:`install_error_handlers` turn it, request-validation errors
(wrong JSON types, missing fields), routing errors (404, 405) and anything
unexpected into that one shape, so a client never sees an HTML page or a
traceback.

``code`` is a short machine-readable word (``invalid_hand``, ``image_too_large`` …),
``message`` a sentence for people that names what is wrong.

>>> err = ApiError(400, "invalid_hand", "unknown tile code 'x9'")
>>> err.status_code, err.code, err.message
(400, 'invalid_hand', "unknown tile code 'x9'")
>>> error_body("not_found", "no such page")
{'error': {'code': 'not_found', 'message': 'no such page'}}
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping, Sequence
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from sqlalchemy.exc import DataError, DBAPIError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import ClientDisconnect

from tilecam.api.schemas import shown
from tilecam.db.backup import COPY_NOT_WRITTEN
from tilecam.db.engine import NEWER_TILECAM, database_fault, first_line, lasting_fault

log = logging.getLogger("tilecam.api")

#: ``code`` for plain HTTP errors raised by the framework (routing, body limits).
STATUS_CODES: dict[int, str] = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    408: "request_timeout",
    409: "conflict",
    413: "payload_too_large",
    415: "unsupported_media_type",
    422: "invalid_request",
    429: "too_many_requests",
    503: "unavailable",
}


class ApiError(StarletteHTTPException):
    """A request the service refuses, answered as ``{"error": {"code", "message"}}``.

    ``status`` is the HTTP status (4xx for the client's mistakes, 503 when the
    service is busy or not ready). It subclasses Starlette's ``HTTPException`` so
    that FastAPI passes it through unchanged even when raised while the request
    body is being read (the upload-size limit does that).
    """

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(status_code=status, detail=message, headers=dict(headers or {}) or None)
        self.code = code
        self.message = message

    def __str__(self) -> str:
        return f"{self.status_code} {self.code}: {self.message}"


def error_body(code: str, message: str) -> dict[str, dict[str, str]]:
    """The JSON body of an error answer. A character of ``message`` that UTF-8 cannot
    encode (a lone UTF-16 surrogate quoted from a request: a context key, a field's
    name) is written as its escape, so that the answer can be sent (it was a 500).

    >>> print(error_body("invalid_request", "context." + chr(0xD800) + " is an object")[
    ...     "error"]["message"])
    context.\\ud800 is an object
    """
    return {"error": {"code": code, "message": shown(message)}}


def error_response(
    status: int, code: str, message: str, headers: Mapping[str, str] | None = None
) -> JSONResponse:
    """A JSON error answer with the given status."""
    return JSONResponse(error_body(code, message), status_code=status, headers=headers)


#: The longest ``Retry-After`` (seconds) a 503 ``timeout`` that waited in the queue gives:
#: the wait it took tells how busy the server is, but a ``TILECAM_REQUEST_TIMEOUT_S`` of
#: 600 s (the setting has no upper bound) made it 599 s, holding a client back for ten
#: minutes when a slot may free up in a second; past a minute a client should look again.
MOST_RETRY_AFTER_S = 60


def slots_text(slots: int) -> str:
    """Which slot a request waited for, in words: ``the server's only slot`` for one,
    ``one of the server's N slots`` for more.

    >>> slots_text(1), slots_text(2)
    ("the server's only slot", "one of the server's 2 slots")
    """
    return "the server's only slot" if slots == 1 else f"one of the server's {slots} slots"


def timeout_error(text: str, timeout_s: float, queued_s: float, *, slots: int,
                  in_progress: int, requests: str, retry_after_s: int,
                  advice: str = "") -> ApiError:
    """503 ``timeout`` for work that did not finish within ``timeout_s`` seconds
    (``text`` says so), of which it spent ``queued_s`` waiting for one of the ``slots``
    (``in_progress``: the ``requests`` admitted now, queued and running). The message
    says where the time went: mostly waiting behind other requests — the server is busy,
    and a smaller image would not help — or running, where ``advice`` (a smaller image)
    may. ``Retry-After`` (whole seconds): what the wait in the queue took, at least
    ``retry_after_s`` and at most ``timeout_s`` or :data:`MOST_RETRY_AFTER_S` (60 s),
    when it waited; ``retry_after_s`` when it ran long (its work goes on in the
    background, holding its slot till it ends).

    >>> busy = timeout_error("recognition did not finish within 30 s", 30.0, 27.25,
    ...                      slots=2, in_progress=14, requests="image requests",
    ...                      retry_after_s=2, advice="try a smaller image")
    >>> print(busy.message)  # doctest: +NORMALIZE_WHITESPACE
    recognition did not finish within 30 s: it waited 27.2 s in the queue for one of the
    server's 2 slots, behind other requests (14 image requests in progress), and ran
    2.8 s: the server is busy, not the request too large; send fewer at once, and
    retry after Retry-After
    >>> busy.headers
    {'Retry-After': '28'}
    >>> long = timeout_error("recognition did not finish within 30 s", 30.0, 0.4, slots=2,
    ...                      in_progress=1, requests="image requests", retry_after_s=2,
    ...                      advice="try a smaller image")
    >>> print(long.message)  # doctest: +NORMALIZE_WHITESPACE
    recognition did not finish within 30 s: it ran 29.6 s (after 0.4 s in the queue);
    try a smaller image
    >>> long.headers
    {'Retry-After': '2'}
    >>> slow = timeout_error("recognition did not finish within 600 s", 600.0, 599.0,
    ...                      slots=1, in_progress=3, requests="image requests",
    ...                      retry_after_s=2)
    >>> slow.headers, "for the server's only slot," in slow.message
    ({'Retry-After': '60'}, True)
    """
    queued_s = min(max(0.0, queued_s), timeout_s)
    ran_s = timeout_s - queued_s
    if queued_s >= ran_s:
        wait = min(max(retry_after_s, math.ceil(queued_s)), max(1, math.ceil(timeout_s)),
                   MOST_RETRY_AFTER_S)
        message = (f"{text}: it waited {queued_s:.1f} s in the queue for "
                   f"{slots_text(slots)}, behind other requests ({in_progress} "
                   f"{requests} in progress), and ran {ran_s:.1f} s: the server is busy, "
                   "not the request too large; send fewer at once, and retry after "
                   "Retry-After")
    else:
        wait = retry_after_s
        message = (f"{text}: it ran {ran_s:.1f} s (after {queued_s:.1f} s in the queue)"
                   + (f"; {advice}" if advice else ""))
    return ApiError(503, "timeout", message, headers={"Retry-After": str(wait)})


def describe_validation_errors(errors: Sequence[Any]) -> str:
    """One line naming every invalid field, e.g. ``body.hand: Input should be a valid string``.

    >>> describe_validation_errors([{"loc": ("body", "flowers"), "msg": "Input should be "
    ...     "a valid integer", "type": "int_type"}])
    'body.flowers: Input should be a valid integer'
    >>> describe_validation_errors([{"loc": ("body", 7), "msg": "JSON decode error",
    ...     "type": "json_invalid", "ctx": {"error": "Expecting value"}}])
    'body is not valid JSON (Expecting value at character 7)'

    A field several dependencies check (a table's id in the path) is named once:

    >>> describe_validation_errors([{"loc": ("path", "table_id"), "msg": "bad"}] * 3)
    'path.table_id: bad'
    """
    parts: list[str] = []
    for err in errors:
        loc = [str(p) for p in err.get("loc", ())]
        if err.get("type") == "json_invalid":
            detail = (err.get("ctx") or {}).get("error", "JSON decode error")
            where = f" at character {loc[1]}" if len(loc) > 1 else ""
            parts.append(f"body is not valid JSON ({detail}{where})")
            continue
        field = ".".join(loc) or "request"
        part = f"{field}: {err.get('msg', 'invalid value')}"
        if part not in parts:
            parts.append(part)
    return "; ".join(parts) or "invalid request"


async def _api_error_handler(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, ApiError)
    return error_response(exc.status_code, exc.code, exc.message, exc.headers)


#: FastAPI's message for a body its JSON parser gave up on with an error other than a
#: syntax error (the cause is chained to it).
BODY_PARSE_DETAIL = "There was an error parsing the body"


def body_parse_problem(cause: BaseException) -> str:
    """What was wrong with a request body FastAPI could not parse, from its ``cause``.

    >>> body_parse_problem(RecursionError("maximum recursion depth exceeded"))
    'the JSON body nests lists or objects too deeply'
    >>> bad = UnicodeDecodeError("utf-8", bytes([255]), 0, 1, "invalid start byte")
    >>> body_parse_problem(bad)  # doctest: +ELLIPSIS
    "the body is not UTF-8 text: 'utf-8' codec can't decode byte 0xff in position 0: ..."
    """
    if isinstance(cause, RecursionError):
        return "the JSON body nests lists or objects too deeply"
    if isinstance(cause, UnicodeDecodeError):
        return f"the body is not UTF-8 text: {cause}"
    if isinstance(cause, ValueError) and "digits" in str(cause):
        return f"the JSON body holds a number too long to read: {str(cause).splitlines()[0]}"
    return f"the body could not be read as JSON: {type(cause).__name__}: {cause}"


async def _http_error_handler(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    status = exc.status_code
    code = STATUS_CODES.get(status, "error" if status < 500 else "unavailable")
    if status == 404:
        message = f"no such endpoint: {request.method} {request.url.path}"
    elif status == 405:
        message = f"method {request.method} is not allowed on {request.url.path}"
    elif status == 413:
        message = "request body too large"
    elif status == 400 and exc.__cause__ is not None and exc.detail == BODY_PARSE_DETAIL:
        message = body_parse_problem(exc.__cause__)
    elif isinstance(exc.detail, str) and exc.detail:
        message = exc.detail
    else:
        message = code.replace("_", " ")
    return error_response(status, code, message, exc.headers)


async def _validation_error_handler(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    return error_response(422, "invalid_request", describe_validation_errors(exc.errors()))


#: Said in place of the database's own reason to a caller who may not read it.
REASON_LOGGED = "the reason is in the server's log"


def unavailable(what: str, reason: str, url: str | None = None, *,
                show_reason: bool = True) -> tuple[str, dict[str, str]]:
    """The message and headers of a 503 ``database_unavailable``: ``what`` happened, for
    ``reason`` (the driver's); "try again" with ``Retry-After`` only when trying again
    may help (:func:`tilecam.db.engine.lasting_fault`; ``url``: the database's).

    ``show_reason`` False leaves the driver's text out (it names the database's host,
    port, user or file): the message then says it is in the server's log, and whether
    trying again helps is still decided by it.

    >>> unavailable("the database did not answer", "database is locked")[1]
    {'Retry-After': '5'}
    >>> unavailable("the database cannot be opened", "file is not a database")[1]
    {}
    >>> unavailable("the database cannot be opened", 'connection to server at "10.0.0.5", '
    ...             'port 5432 failed', show_reason=False)[0]  # doctest: +ELLIPSIS
    "the database cannot be opened (the reason is in the server's log; nothing ...; try again)"
    >>> print(unavailable("the database cannot be opened", "the database is at revision "
    ...       "0099_x, …: it was written by a newer tilecam; …", show_reason=False)[0])
    ...       # doctest: +ELLIPSIS +NORMALIZE_WHITESPACE
    the database cannot be opened (the reason is in the server's log; nothing was
    recorded by this request; the database was written by a newer tilecam: the
    server's operator must upgrade tilecam, or give another database: ...)

    A database not upgraded because its copy from before could not be written
    (:class:`tilecam.db.backup.BackupFailed`) is intact: the operator must make the copy
    possible, or copy it and upgrade without one (until the seventy-ninth session's
    review, "try again" with ``Retry-After``, each request running the upgrade again):

    >>> message, headers = unavailable("the database cannot be opened", "the PostgreSQL "
    ...     "database … was not upgraded to …: its copy from before could not be written "
    ...     "(no pg_dump program: …)", show_reason=False)
    >>> print(message)  # doctest: +NORMALIZE_WHITESPACE
    the database cannot be opened (the reason is in the server's log; nothing was
    recorded by this request; the database holds an older schema and was not upgraded,
    as its copy from before could not be written (nothing was changed): the server's
    operator must make that copy possible, or copy the database themselves and then
    upgrade without a copy (tilecam db upgrade --no-backup, or the service with
    TILECAM_UPGRADE_BACKUP=0): trying again will not help)
    >>> headers
    {}
    """
    said = f"{what}: {reason} (" if show_reason else f"{what} ({REASON_LOGGED}; "
    if NEWER_TILECAM in reason:  # tilecam.db.migrate.NewerDatabase: an intact database
        return (f"{said}nothing was recorded by this request; the database was "
                f"{NEWER_TILECAM}: the server's operator must upgrade tilecam, or give "
                "another database: trying again will not help)"), {}
    if COPY_NOT_WRITTEN in reason:  # tilecam.db.backup.BackupFailed: an intact database
        return (f"{said}nothing was recorded by this request; the database holds an "
                f"older schema and was not upgraded, as {COPY_NOT_WRITTEN} (nothing was "
                "changed): the server's operator must make that copy possible, or copy "
                "the database themselves and then upgrade without a copy (tilecam db "
                "upgrade --no-backup, or the service with TILECAM_UPGRADE_BACKUP=0): "
                "trying again will not help)"), {}
    if lasting_fault(reason, url):
        return (f"{said}nothing was recorded by this request; the server's "
                "operator must repair or replace the database, or give another: trying "
                "again will not help)"), {}
    return (f"{said}nothing was recorded by this request; try again)",
            {"Retry-After": "5"})


def may_read_database_reason(request: Request) -> bool:
    """Whether the caller may read the database driver's own reason for a failure (which
    names its host, port, user or file): only the admin key's holder, the operator who
    can act on it; everyone else, with or without a key, gets a general reason and the
    server's log keeps the driver's."""
    from tilecam.tables.access import app_settings, presented_key
    from tilecam.tables.keys import verify_admin_key

    admin_key = app_settings(request).admin_key
    key = presented_key(request)
    return bool(admin_key and key and verify_admin_key(key, admin_key))


async def _database_error_handler(request: Request, exc: Exception) -> JSONResponse:
    """The database failed under a request that had opened it before (a server gone, a
    connection that timed out, a lock held too long, a file it may not write; a file
    damaged past what the first request read, a PostgreSQL database that takes no
    writes, a role without grants: :func:`tilecam.db.engine.database_fault`): 503, not
    a tilecam bug. Any other database error — a uniqueness race a transaction's retries
    did not outlast (``IntegrityError``), SQL that does not fit the schema (PostgreSQL's
    ``ProgrammingError``; SQLite's ``OperationalError`` saying "no such column", a
    syntax error: :func:`tilecam.db.engine.sql_fault`) — is tilecam's: raised on, to
    the catch-all 500 "this is a tilecam bug" with its traceback, on either database
    (until the seventy-fifth session only ``OperationalError`` came here, and a damaged
    file or a read-only PostgreSQL was such a 500 too; until its review every SQLite
    ``OperationalError``, wrong SQL included, was the 503 "try again")."""
    assert isinstance(exc, DBAPIError)
    if not database_fault(exc):
        raise exc
    log.warning("database error on %s %s: %s", request.method, request.url.path, exc)
    settings = getattr(request.app.state, "settings", None)
    url = getattr(settings, "sqlalchemy_url", None)
    shown = may_read_database_reason(request)
    what = ("the database did not answer" if isinstance(exc, OperationalError)
            else "the database failed")
    message, headers = unavailable(what, first_line(exc), url, show_reason=shown)
    if getattr(exc, "tilecam_at_commit", False):  # sheet.transaction: the commit failed
        reason = f": {first_line(exc)} (" if shown else f" ({REASON_LOGGED}; "
        message = (f"the database did not answer the commit{reason}this "
                   "request may have been recorded: look before sending it again)")
    return error_response(503, "database_unavailable", message, headers)


async def _pool_timeout_handler(request: Request, exc: Exception) -> JSONResponse:
    """Every database connection of the server stayed busy past the pool's timeout
    (overload): 503 ``busy``, nothing recorded."""
    assert isinstance(exc, PoolTimeout)
    log.warning("no database connection free on %s %s", request.method, request.url.path)
    return error_response(
        503, "busy",
        "the server is busy: every database connection stayed in use (nothing was "
        "recorded by this request; try again)",
        {"Retry-After": "5"},
    )


async def _data_error_handler(request: Request, exc: Exception) -> JSONResponse:
    """The database refused a value of the request (a figure past its column, text it
    cannot hold) that no check before it caught: 400 with the database's reason — the
    transaction was rolled back, so nothing was recorded. Logged with its traceback: a
    check belongs before the database."""
    assert isinstance(exc, DataError)
    log.warning("database refused a value on %s %s", request.method, request.url.path,
                exc_info=exc)
    return error_response(
        400, "invalid_request",
        f"the database refused a value of this request: {first_line(exc)} "
        "(nothing was recorded)",
    )


async def _client_disconnect_handler(request: Request, exc: Exception) -> None:
    """The client closed the connection before its request's body was read (a camera on
    flaky Wi-Fi dropping mid-upload, a client that sends a frame and closes at once: the
    server then hands the app the disconnect, not the bytes it had): nothing was done and
    nobody is left to answer, so nothing is sent. One warning line — the route, the
    client, the bytes read — not a tilecam bug: before, the catch-all handler logged it
    as one with a traceback, and the server a second (soak review, session 73)."""
    assert isinstance(exc, ClientDisconnect)
    from tilecam.api.upload import BODY_CLOCK  # upload imports this module

    received = getattr(request.scope.get(BODY_CLOCK), "received", None)
    declared = request.headers.get("content-length")
    got = "" if received is None else f"{received:,}" + (
        f" of {int(declared):,}" if declared and declared.isascii() and declared.isdigit()
        else "") + " bytes read; "  # not int() of a '²' (isdigit() is true of it)
    client = request.client.host if request.client else "unknown"
    log.warning("client %s went away before its request's body was read (%snothing done, "
                "no answer sent): %s %s", client, got, request.method, request.url.path)


async def _unexpected_error_handler(request: Request, exc: Exception) -> JSONResponse:
    log.exception("unexpected error on %s %s", request.method, request.url.path)
    return error_response(
        500, "internal_error", f"internal error ({type(exc).__name__}); this is a tilecam bug"
    )


def install_error_handlers(app: FastAPI) -> None:
    """Make every error of ``app`` a JSON ``{"error": {"code", "message"}}`` answer."""
    app.add_exception_handler(ApiError, _api_error_handler)
    app.add_exception_handler(StarletteHTTPException, _http_error_handler)
    app.add_exception_handler(RequestValidationError, _validation_error_handler)
    # every database error: the database's faults 503, the rest raised on to the 500
    # below (DataError, more specific, is its own 400)
    app.add_exception_handler(DBAPIError, _database_error_handler)
    app.add_exception_handler(PoolTimeout, _pool_timeout_handler)
    app.add_exception_handler(DataError, _data_error_handler)
    # the handler answers None, on which Starlette sends nothing (its types want a Response)
    app.add_exception_handler(ClientDisconnect, _client_disconnect_handler)  # type: ignore[arg-type]
    app.add_exception_handler(Exception, _unexpected_error_handler)
