"""The service's OpenAPI description (``GET /openapi.json``, ``/docs``), finished from
what each route depends on — documentation only, no route's behaviour changes.

FastAPI builds the description from the routes; :func:`install_openapi` then

- declares the two ways a key is sent (``Authorization: Bearer KEY`` or ``X-Api-Key:
  KEY``) as security schemes, and gives each route that checks a key
  (:func:`tilecam.tables.access.require_admin`, ``require_table``, ``require_reader``)
  those schemes, which key kind it takes, and its 401, 403 and 429 answers;
- documents 415 for the routes that take JSON only (:func:`tilecam.api.deps.require_json`)
  and 503 for those that open the database (:func:`tilecam.tables.access.database`);
- documents 413 and 408 for the routes that take a JSON body (:data:`JSON_BODY_ERRORS`:
  :class:`tilecam.api.upload.BodyLimitMiddleware` holds every body to a size and a time;
  the image routes document their own);
- documents every 422 in the service's own shape ``{"error": {"code", "message"}}``
  (:mod:`tilecam.api.errors`), not FastAPI's ``{"detail": [...]}``;
- names at each operation that answers a 409 the codes that operation can answer
  (:data:`OPERATION_CONFLICTS`, codes of :data:`tilecam.tables.sheet.CONFLICT_CODES`),
  and what every code means at the error's ``code`` (``ErrorDetail``);
- describes the JSON answers of the event, table and health routes field by field
  (:data:`ANSWERS`, the models of :mod:`tilecam.api.answer_schemas`), which their return
  type ``dict[str, Any]`` would leave a bare ``type: object``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from fastapi import APIRouter, FastAPI
from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute
from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

from tilecam.api import answer_schemas as out
from tilecam.api.deps import require_json
from tilecam.api.schemas import ERROR_TEXTS, ErrorOut
from tilecam.tables.access import database, require_admin, require_reader, require_table
from tilecam.tables.sheet import CONFLICT_CODES

#: The security schemes: a key is sent either way (``tilecam.tables.access``).
SECURITY_SCHEMES: dict[str, dict[str, Any]] = {
    "bearerKey": {
        "type": "http",
        "scheme": "bearer",
        "description": "Authorization: Bearer KEY — the admin key (TILECAM_ADMIN_KEY) or a "
                       "named referee's key (TILECAM_REFEREE_KEYS), a table's key (tc_…) or "
                       "a table's viewing key (tv_…), as each operation says",
    },
    "apiKeyHeader": {
        "type": "apiKey",
        "in": "header",
        "name": "X-Api-Key",
        "description": "the same key in an X-Api-Key header",
    },
}
#: Either scheme opens an operation that takes a key.
SECURITY: list[dict[str, list[str]]] = [{"bearerKey": []}, {"apiKeyHeader": []}]

#: Which key each key check takes, as /docs says it.
KEY_KINDS: dict[Callable[..., Any], str] = {
    require_admin: "the admin key (TILECAM_ADMIN_KEY) or a named referee's key "
                   "(TILECAM_REFEREE_KEYS) only; a table or viewing key gets 403",
    require_table: "the table's own key, or the admin or a referee's key; a viewing key or another "
                   "table's key gets 403",
    require_reader: "the table's viewing key (tv_…), its own key, or the admin or a referee's key; "
                    "another table's key gets 403",
}

ERROR_REF = {"$ref": "#/components/schemas/ErrorOut"}
REF_TEMPLATE = "#/components/schemas/{model}"

#: One answer's model, or the models one of which it is (``anyOf``).
AnswerModels = type[BaseModel] | tuple[type[BaseModel], ...]
_HAND = "/v1/tables/{table_id}/hands/{number}"
_HAND_WRITE = ((out.HandWithHistoryOut, out.HandRecordedOut),
               "the hand with its new revision and history (or, where reading it back "
               "failed, that it was recorded: HandRecordedOut)")
#: The JSON answers each operation (method, path) gives by status, and what each is: the
#: routes answer plain dicts (return type ``dict[str, Any]``), so FastAPI alone would
#: describe them as bare objects. A description FastAPI already has, other than its
#: default, is kept.
ANSWERS: dict[tuple[str, str], dict[int, tuple[AnswerModels, str]]] = {
    ("get", "/healthz"): {200: (out.HealthOut, "the process is up")},
    ("get", "/readyz"): {200: (out.ReadyOut, "the detector is loaded")},
    ("get", "/v1/events"): {200: (out.EventsOut, "every event")},
    ("post", "/v1/events"): {201: (out.EventOut, "the event created")},
    ("get", "/v1/events/{event_id}"): {200: (out.EventWithTablesOut,
                                             "the event and its tables")},
    ("post", "/v1/events/{event_id}/tables"): {201: (
        out.NewTableOut, "the table created, its next hand and its keys (shown only now)")},
    ("get", "/v1/events/{event_id}/standings"): {200: (out.EventStandingsOut,
                                                       "the event's standings")},
    ("get", "/v1/tables/{table_id}"): {200: (out.TableWithNextOut,
                                             "the table, its players and its next hand")},
    ("patch", "/v1/tables/{table_id}"): {200: (out.TableWithNextOut,
                                               "the table as it now is")},
    ("post", "/v1/tables/{table_id}/close"): {200: (out.TableWithNextOut,
                                                    "the table, closed")},
    ("post", "/v1/tables/{table_id}/frames"): {200: (out.FrameOut, "what the frame showed")},
    ("post", "/v1/tables/{table_id}/camera/restart"): {200: (
        out.CameraRestartOut, "the last frame seq counted, forgotten")},
    ("post", "/v1/tables/{table_id}/photos"): {
        status: ((out.PhotoHandOut, out.PhotoHandRecordedOut),
                 "the hand the photo shows, recorded at its place (or, where reading it back "
                 "failed, that it was recorded: PhotoHandRecordedOut)")
        for status in (201, 200)},
    ("post", "/v1/tables/{table_id}/hands"): {
        status: ((out.NewHandOut, out.NewHandRecordedOut),
                 "the hand recorded, at its place (or, where reading it back failed, that "
                 "it was recorded: NewHandRecordedOut)") for status in (201, 200)},
    ("get", "/v1/tables/{table_id}/hands"): {200: (out.HandsOut, "every hand")},
    ("get", _HAND): {200: (out.HandWithHistoryOut, "the hand with every revision")},
    ("post", f"{_HAND}/corrections"): {201: (
        (out.CorrectedHandOut, out.CorrectedHandRecordedOut),
        "the hand with its new revision and history, and what the correction changed (or, "
        "where reading it back failed, that it was recorded: CorrectedHandRecordedOut)")},
    ("post", f"{_HAND}/void"): {201: _HAND_WRITE},
    ("post", f"{_HAND}/false-claim"): {201: _HAND_WRITE},
    ("post", "/v1/tables/{table_id}/penalties"): {
        status: ((out.NewPenaltyOut, out.NewPenaltyRecordedOut),
                 "the penalty booked (or, where reading it back failed, that it was "
                 "booked: NewPenaltyRecordedOut)") for status in (201, 200)},
    ("get", "/v1/tables/{table_id}/penalties"): {200: (out.PenaltiesOut, "every penalty")},
    ("post", "/v1/tables/{table_id}/penalties/{penalty_id}/void"): {200: (
        (out.PenaltyOut, out.PenaltyRecordedOut),
        "the penalty, void (or, where reading it back failed, that it was recorded: "
        "PenaltyRecordedOut)")},
    ("get", "/v1/tables/{table_id}/standings"): {200: (out.TableStandingsOut,
                                                       "the table's standings")},
    ("get", "/v1/tables/{table_id}/sheet"): {200: (out.SheetOut, "the whole sheet")},
    ("post", "/v1/tables/{table_id}/view-key"): {201: (out.ViewKeyOut,
                                                       "the new viewing key")},
    ("post", "/v1/tables/{table_id}/key"): {201: (out.TableKeyOut, "the new table key")},
}


def answer_models(models: AnswerModels) -> tuple[type[BaseModel], ...]:
    """The model or models of an :data:`ANSWERS` entry, as a tuple."""
    return models if isinstance(models, tuple) else (models,)


#: The answers :class:`tilecam.api.upload.BodyLimitMiddleware` gives a route that takes a
#: JSON body (``requestBody`` of ``application/json``), in the service's error shape.
JSON_BODY_ERRORS: dict[int, str] = {
    408: "request_timeout: the request body did not arrive within the server's time "
         "(TILECAM_REQUEST_TIMEOUT_S, 30 s by default)",
    413: "payload_too_large: a JSON body over 1 MiB",
}


def _describe_answers(schema: dict[str, Any], models: dict[str, Any]) -> None:
    """Give each operation of :data:`ANSWERS` its answers' schemas (components named by
    model) in place of FastAPI's. A component FastAPI made already from the same model
    (one a route names in ``responses=``) is replaced: FastAPI drops every null from the
    description, the nulls of an example too, which the example needs."""
    every = sorted({m for answers in ANSWERS.values() for models_, _ in answers.values()
                    for m in answer_models(models_)}, key=lambda m: m.__name__)
    refs, defs = models_json_schema([(m, "serialization") for m in every],
                                    ref_template=REF_TEMPLATE)
    for name, definition in defs.get("$defs", {}).items():
        models[name] = definition
    paths = schema.get("paths", {})
    for (method, path), answers in ANSWERS.items():
        operation = paths.get(path, {}).get(method)
        if operation is None:  # a route gone: tests/tilecam/test_openapi_answers.py says so
            continue
        for status, (models_, text) in answers.items():
            alternatives = [refs[(m, "serialization")] for m in answer_models(models_)]
            answer = operation.setdefault("responses", {}).setdefault(str(status), {})
            if answer.get("description") in (None, "", "Successful Response"):
                answer["description"] = text
            answer.setdefault("content", {})["application/json"] = {
                "schema": alternatives[0] if len(alternatives) == 1 else {"anyOf": alternatives}}


def _calls(dependant: Dependant) -> Iterator[Callable[..., Any]]:
    """Every dependency callable of a route, however deep."""
    for dep in dependant.dependencies:
        if dep.call is not None:
            yield dep.call
        yield from _calls(dep)


def _error(status: int) -> dict[str, Any]:
    return {"description": ERROR_TEXTS[status],
            "content": {"application/json": {"schema": ERROR_REF}}}


def _add_errors(operation: dict[str, Any], *statuses: int) -> None:
    responses = operation.setdefault("responses", {})
    for status in statuses:
        responses.setdefault(str(status), _error(status))


def _add_body_errors(operation: dict[str, Any]) -> None:
    """:data:`JSON_BODY_ERRORS` for an operation that takes a JSON body (none kept that a
    route documents itself)."""
    body = operation.get("requestBody", {}).get("content", {})
    if "application/json" not in body:
        return
    responses = operation.setdefault("responses", {})
    for status, text in JSON_BODY_ERRORS.items():
        responses.setdefault(str(status), {
            "description": text, "content": {"application/json": {"schema": ERROR_REF}}})


#: The 409 codes each operation can answer, ``(method, path)``: what the score sheet
#: (:mod:`tilecam.tables.sheet`) and the camera (:mod:`tilecam.tables.camera`) raise in
#: the work the route does. The routes share ``responses=`` texts (``WRITE_ERRORS``), so
#: the codes are named here.
OPERATION_CONFLICTS: dict[tuple[str, str], tuple[str, ...]] = {
    ("post", "/v1/events/{event_id}/tables"): ("name_taken",),
    ("patch", "/v1/tables/{table_id}"): ("name_taken", "players_fixed"),
    ("post", "/v1/tables/{table_id}/close"): ("already_closed",),
    ("post", "/v1/tables/{table_id}/reopen"): ("not_closed",),
    ("post", "/v1/tables/{table_id}/hands"): (
        "already_recorded", "table_settings_refused", "table_closed", "table_withdrawn",
        "session_over", "number_taken", "out_of_order"),
    ("post", "/v1/tables/{table_id}/frames"): (
        "table_settings_refused", "table_closed", "table_withdrawn", "session_over"),
    ("post", "/v1/tables/{table_id}/photos"): (
        "already_recorded", "table_settings_refused", "table_closed", "table_withdrawn",
        "session_over", "number_taken", "out_of_order"),
    ("post", "/v1/tables/{table_id}/hands/{number}/corrections"): ("outcome_unstated",),
    ("post", "/v1/tables/{table_id}/hands/{number}/void"): (
        "already_void", "false_claim_ruled"),
    ("post", "/v1/tables/{table_id}/hands/{number}/false-claim"): (
        "already_ruled", "not_a_win"),
    ("post", "/v1/tables/{table_id}/penalties"): (
        "request_id_taken", "already_disqualified", "already_barred", "false_claim_ruled"),
    ("post", "/v1/tables/{table_id}/penalties/{penalty_id}/void"): ("already_void",),
}


def conflict_note(codes: Iterable[str]) -> str:
    """What a 409's description adds: the codes this operation may answer
    (:data:`OPERATION_CONFLICTS`), each with its meaning (:data:`CONFLICT_CODES`).

    >>> print(conflict_note(["already_closed"]))
    Its code is one of: already_closed (the table is closed already).
    """
    return "Its code is one of: " + "; ".join(
        f"{code} ({CONFLICT_CODES[code]})" for code in codes) + "."


def _describe_conflicts(schema: dict[str, Any], models: dict[str, Any]) -> None:
    """Add :func:`conflict_note` (its :data:`OPERATION_CONFLICTS`) to each operation's
    409 answer, and each code's meaning to the error's ``code`` field. An operation not
    listed keeps its text with every code named
    (``tests/tilecam/test_conflict_codes77.py`` lists none so)."""
    for path, operations in schema.get("paths", {}).items():
        for method, operation in operations.items():
            responses = operation.get("responses", {})
            answer = responses.get("409")
            if answer is None:
                continue
            codes = OPERATION_CONFLICTS.get((method, path), tuple(CONFLICT_CODES))
            note = conflict_note(codes)
            if note not in answer.get("description", ""):
                answer["description"] = f"{answer.get('description', '')}\n\n{note}".strip()
    code = models.get("ErrorDetail", {}).get("properties", {}).get("code")
    if code is not None:
        meanings = "; ".join(f"{name}: {text}" for name, text in CONFLICT_CODES.items())
        code["description"] = ("a short machine word for what is wrong (invalid_hand, "
                               f"rate_limited …); a 409's says which conflict — {meanings}")


def _finish(schema: dict[str, Any], routes: list[APIRoute]) -> dict[str, Any]:
    components = schema.setdefault("components", {})
    components.setdefault("securitySchemes", {}).update(SECURITY_SCHEMES)
    models = components.setdefault("schemas", {})
    if "ErrorOut" not in models:
        error_schema = ErrorOut.model_json_schema(ref_template="#/components/schemas/{model}")
        models.update(error_schema.pop("$defs", {}))
        models["ErrorOut"] = error_schema
    _describe_answers(schema, models)
    for route in routes:
        if not route.include_in_schema:
            continue
        calls = set(_calls(route.dependant))
        for method in route.methods or ():
            operation = schema.get("paths", {}).get(route.path_format, {}).get(method.lower())
            if operation is None:
                continue
            key = next((KEY_KINDS[c] for c in KEY_KINDS if c in calls), None)
            if key is not None:
                operation["security"] = SECURITY
                note = f"**Key:** {key} (Authorization: Bearer KEY or X-Api-Key: KEY)."
                text = operation.get("description", "")
                operation["description"] = f"{text}\n\n{note}" if text else note
                _add_errors(operation, 401, 403, 429)
            if require_json in calls:
                _add_errors(operation, 415)
            if database in calls:
                _add_errors(operation, 503)
            _add_body_errors(operation)
    for path in schema.get("paths", {}).values():
        for operation in path.values():
            answer = operation.get("responses", {}).get("422")
            if answer is not None:
                answer["description"] = ERROR_TEXTS[422]
                answer["content"] = {"application/json": {"schema": ERROR_REF}}
    _describe_conflicts(schema, models)
    for unused in ("HTTPValidationError", "ValidationError"):
        if unused not in str(schema.get("paths")):
            models.pop(unused, None)
    return schema


def install_openapi(app: FastAPI, routers: Iterable[APIRouter]) -> None:
    """Make ``app.openapi()`` (``GET /openapi.json``, ``/docs``) the finished description
    (FastAPI's, finished once each time FastAPI builds it anew) of the routes of
    ``routers``, the routers ``app`` includes (each with its own prefix, none added)."""
    routes = [r for router in routers for r in router.routes if isinstance(r, APIRoute)]
    build = app.openapi
    finished: list[dict[str, Any]] = []

    def openapi() -> dict[str, Any]:
        schema = build()
        if not finished or finished[0] is not schema:
            finished[:] = [_finish(schema, routes)]
        return schema

    app.openapi = openapi  # type: ignore[method-assign]
