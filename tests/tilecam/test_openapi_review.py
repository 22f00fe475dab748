"""The OpenAPI description (``GET /openapi.json``, ``/docs``) says what the endpoints
really accept and answer (the review of the sixty-ninth session): the camera frames'
own form fields, the keys each route takes, the error shape of a 422, the status codes
of the table routes, and the answers of /v1/waits, /v1/rules, /v1/recognize and
/v1/detect — each checked against a real answer where one can be had without a model."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from test_tables_helpers import (
    admin,
    bearer,
    client_for,
    database_url,
    frame,
    make_app,
    new_event,
    new_table,
)

from tilecam.api.routes.rules import rules_document
from tilecam.api.schemas import ErrorOut
from tilecam.app import create_app

Spec = dict[str, Any]


@pytest.fixture(scope="module")
def spec() -> Spec:
    with TestClient(create_app()) as client:
        answer = client.get("/openapi.json")
        assert answer.status_code == 200
        assert client.get("/docs").status_code == 200
        return dict(answer.json())


@pytest.fixture
def sheet_client(tmp_path: Path) -> Iterator[TestClient]:
    app, _ = make_app(database_url("sqlite", tmp_path), tmp_path / "data")
    yield from client_for(app)


def op(spec: Spec, method: str, path: str) -> Spec:
    return dict(spec["paths"][path][method])


def resolve(spec: Spec, schema: Spec) -> Spec:
    while "$ref" in schema:
        schema = spec["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    return schema


def answer_schema(spec: Spec, operation: Spec, status: str) -> Spec:
    return resolve(spec, operation["responses"][status]["content"]["application/json"]["schema"])


def form_fields(operation: Spec) -> Spec:
    form = operation["requestBody"]["content"]["multipart/form-data"]["schema"]
    return dict(form["properties"])


def query_names(operation: Spec) -> set[str]:
    return {p["name"] for p in operation.get("parameters", []) if p["in"] == "query"}


def table_operations(spec: Spec) -> Iterator[tuple[str, str, Spec]]:
    for path, ops in spec["paths"].items():
        if path.startswith(("/v1/tables", "/v1/events")):
            for method, operation in ops.items():
                yield method, path, operation


# --- 1. the camera frames' own form -----------------------------------------------------


def test_frames_document_their_own_fields_not_recognize_s(spec: Spec) -> None:
    frames = op(spec, "post", "/v1/tables/{table_id}/frames")
    fields = form_fields(frames)
    assert set(fields) == {"image", "winner", "discarder", "self_drawn", "last_of_kind", "kong",
                           "last_wall_tile", "flowers", "context", "seq"}
    for recognize_only in ("rules", "version", "seat_wind", "settings", "rule_context"):
        assert recognize_only not in fields
    for seat in ("winner", "discarder"):
        assert fields[seat]["enum"] == ["E", "S", "W", "N"], seat
    assert (fields["flowers"]["minimum"], fields["flowers"]["maximum"]) == (0, 8)
    assert fields["context"]["type"] == "string" and "JSON object" in fields["context"][
        "description"]
    # a raw image body sends the same fields in the query string
    assert query_names(frames) == set(fields) - {"image"}
    assert "image/jpeg" in frames["requestBody"]["content"]
    assert {"400", "413", "415", "503"} <= set(frames["responses"])


def test_the_frame_fields_documented_are_those_the_endpoint_knows(
        spec: Spec, sheet_client: TestClient) -> None:
    """The endpoint names its known fields when it refuses one: the same as the schema."""
    table, key = new_table(sheet_client)
    r = sheet_client.post(f"/v1/tables/{table}/frames", headers=bearer(key),
                          files={"image": ("f.jpg", frame(30), "image/jpeg")},
                          data={"rules": "mcr"})
    assert r.status_code == 400, r.text
    known = r.json()["error"]["message"].split("known: ", 1)[1]
    documented = form_fields(op(spec, "post", "/v1/tables/{table_id}/frames"))
    assert {name.strip() for name in known.split(",")} == set(documented)


def test_recognize_documents_win_and_hidden_kongs_and_the_query_form(spec: Spec) -> None:
    recognize = op(spec, "post", "/v1/recognize")
    fields = form_fields(recognize)
    assert {"win", "hidden_kongs", "rules", "rule_context", "settings"} <= set(fields)
    assert fields["discarder"]["type"] == "integer"  # an offset 1-3 here, a wind on frames
    assert {"win", "hidden_kongs", "rules", "annotate"} <= query_names(recognize)
    answer = answer_schema(spec, recognize, "200")
    assert {"tiles", "hand", "melds", "score", "waits", "unscorable", "discards",
            "winning_tile", "model"} <= set(answer["properties"])


def test_detect_documents_only_the_image(spec: Spec) -> None:
    detect = op(spec, "post", "/v1/detect")
    assert set(form_fields(detect)) == {"image"}
    assert not query_names(detect)
    assert {"image_size", "tiles", "meta"} <= set(answer_schema(spec, detect, "200")[
        "properties"])


# --- 2. keys ------------------------------------------------------------------------------


def test_keys_are_declared_and_every_table_and_event_route_takes_one(spec: Spec) -> None:
    schemes = spec["components"]["securitySchemes"]
    assert {"type": "http", "scheme": "bearer"}.items() <= schemes["bearerKey"].items()
    assert schemes["apiKeyHeader"]["in"] == "header"
    assert schemes["apiKeyHeader"]["name"] == "X-Api-Key"
    routes = list(table_operations(spec))
    assert len(routes) > 20
    for method, path, operation in routes:
        assert operation.get("security") == [{"bearerKey": []}, {"apiKeyHeader": []}], (
            method, path)
        assert {"401", "403", "429"} <= set(operation["responses"]), (method, path)
        assert "**Key:**" in operation["description"], (method, path)
    # the public endpoints take none
    for path in ("/v1/score", "/v1/waits", "/v1/recognize", "/v1/detect"):
        assert "security" not in op(spec, "post", path), path
    assert "security" not in op(spec, "get", "/v1/rules")


def test_each_route_says_which_key_it_takes(spec: Spec) -> None:
    def key(method: str, path: str) -> str:
        return str(op(spec, method, path)["description"].split("**Key:**")[1])

    assert "admin key" in key("post", "/v1/events") and "only" in key("post", "/v1/events")
    assert "admin key" in key("post", "/v1/tables/{table_id}/penalties")
    assert "only" in key("post", "/v1/tables/{table_id}/hands/{number}/void")
    assert "own key" in key("post", "/v1/tables/{table_id}/frames")
    assert "viewing key" in key("post", "/v1/tables/{table_id}/hands")  # … gets 403
    assert "viewing key (tv_" in key("get", "/v1/tables/{table_id}/sheet")


def test_the_documented_keys_work_as_documented(sheet_client: TestClient) -> None:
    """Either declared scheme opens a route; none gets 401."""
    assert sheet_client.get("/v1/events").status_code == 401
    assert sheet_client.get("/v1/events", headers=admin()).status_code == 200
    from test_tables_helpers import ADMIN

    assert sheet_client.get("/v1/events", headers={"X-Api-Key": ADMIN}).status_code == 200


# --- 3. the 422 shape ---------------------------------------------------------------------


def test_every_422_is_documented_in_the_service_s_error_shape(spec: Spec) -> None:
    seen = 0
    for path, ops in spec["paths"].items():
        for method, operation in ops.items():
            if "422" in operation["responses"]:
                seen += 1
                schema = answer_schema(spec, operation, "422")
                assert set(schema["properties"]) == {"error"}, (method, path)
    assert seen > 20
    assert "HTTPValidationError" not in spec["components"]["schemas"]


def test_a_real_422_has_the_documented_shape(sheet_client: TestClient) -> None:
    r = sheet_client.post("/v1/events", json={"nam": "x"}, headers=admin())
    assert r.status_code == 422
    ErrorOut.model_validate(r.json())


# --- 4. status codes ----------------------------------------------------------------------


def test_writes_document_new_201_and_repeat_200(spec: Spec) -> None:
    for path in ("/v1/tables/{table_id}/hands", "/v1/tables/{table_id}/penalties"):
        responses = op(spec, "post", path)["responses"]
        assert {"200", "201", "400", "409", "415"} <= set(responses), path
    hands = op(spec, "post", "/v1/tables/{table_id}/hands")["responses"]
    assert "repeat" in hands["200"]["description"]


def test_table_and_event_routes_document_their_errors(spec: Spec) -> None:
    for method, path, operation in table_operations(spec):
        codes = set(operation["responses"])
        assert {"401", "403", "429", "503"} <= codes, (method, path)
        if "{" in path:
            assert "404" in codes, (method, path)
        for code in codes - {"200", "201", "304"}:
            schema = answer_schema(spec, operation, code)
            assert set(schema["properties"]) == {"error"}, (method, path, code)
    assert "409" in op(spec, "post", "/v1/events/{event_id}/tables")["responses"]


def test_the_sheet_documents_304_and_its_body(spec: Spec) -> None:
    sheet = op(spec, "get", "/v1/tables/{table_id}/sheet")
    assert "304" in sheet["responses"] and "content" not in sheet["responses"]["304"]
    assert {"table", "standings", "hands", "penalties"} <= set(
        answer_schema(spec, sheet, "200")["properties"])


def test_csv_routes_declare_text_csv_and_readyz_its_503(spec: Spec) -> None:
    for path in ("/v1/tables/{table_id}/sheet.csv", "/v1/events/{event_id}/standings.csv"):
        assert "text/csv" in op(spec, "get", path)["responses"]["200"]["content"], path
    ready = op(spec, "get", "/readyz")
    assert set(answer_schema(spec, ready, "503")["properties"]) == {"error"}


# --- 5. answers ---------------------------------------------------------------------------


def test_waits_documents_win_and_win_total(spec: Spec) -> None:
    schema = op(spec, "post", "/v1/waits")["responses"]["200"]["content"]["application/json"][
        "schema"]
    kinds = [resolve(spec, s) for s in schema["anyOf"]]
    drew = next(k for k in kinds if "discards" in k["properties"])
    assert {"win", "win_total", "shanten", "discards"} <= set(drew["properties"])
    assert any("ready" in k["properties"] and "waits" in k["properties"] for k in kinds)


def test_real_waits_answers_fit_their_documented_models() -> None:
    from tilecam.api.schemas import DiscardsOut, WaitsOut

    with TestClient(create_app()) as client:
        drew = client.post("/v1/waits", json={"hand": "123m456m789m123p55p"}).json()
        short = client.post("/v1/waits", json={"hand": "123m456m789m123p5p"}).json()
    assert drew["win"] is True and drew["win_total"] == DiscardsOut.model_validate(
        drew).win_total
    assert WaitsOut.model_validate(short).ready


def test_rules_documents_its_fields_and_the_real_document_fits(spec: Spec) -> None:
    rules = answer_schema(spec, op(spec, "get", "/v1/rules"), "200")
    assert {"default", "rule_sets", "tiles"} <= set(rules["properties"])
    rule_set = resolve(spec, rules["properties"]["rule_sets"]["items"])
    assert {"win_fields", "deal", "seat_context", "money_apart", "score_alike", "penalties",
            "wild", "winning_shape", "wins"} <= set(rule_set["properties"])
    from tilecam.api.schemas import RulesOut

    document = RulesOut.model_validate(rules_document())
    for rule_set_out in document.rule_sets:
        assert set(rule_set_out.model_extra or {}) == set(), rule_set_out.name


def _stalled_body_answer(app: Any, method: str, path: str) -> tuple[int, Spec]:
    """The answer to a JSON body whose first bytes come and the rest never (the
    middleware's clock runs out), driven through the ASGI app directly: the test client
    reads a whole body before the app sees it."""
    import asyncio
    import json

    sent: list[Spec] = []
    calls = 0

    async def receive() -> Spec:
        nonlocal calls
        calls += 1
        if calls == 1:
            return {"type": "http.request", "body": b'{"hand": "1', "more_body": True}
        await asyncio.sleep(10)
        return {"type": "http.disconnect"}

    async def send(message: Spec) -> None:
        sent.append(message)

    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
             "method": method, "scheme": "http", "path": path, "raw_path": path.encode(),
             "query_string": b"", "root_path": "", "client": ("127.0.0.1", 1),
             "server": ("testserver", 80),
             "headers": [(b"host", b"testserver"), (b"content-type", b"application/json"),
                         *[(k.lower().encode(), v.encode()) for k, v in admin().items()]]}
    asyncio.run(asyncio.wait_for(app(scope, receive, send), 5))
    start = next(m for m in sent if m["type"] == "http.response.start")
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return int(start["status"]), dict(json.loads(body))


def test_json_routes_document_the_413_and_408_they_give(tmp_path: Path) -> None:
    """Every operation that takes a JSON body lists 413 (a body over 1 MiB) and 408 (a
    body that stalls) in the error shape, and the running app gives both, so shaped, on
    each of them (/v1/score and the table writes listed neither)."""
    app, _ = make_app(database_url("sqlite", tmp_path), tmp_path / "data",
                      request_timeout_s=0.2)
    big = b'{"hand": "' + b"1" * (2 * 2**20) + b'"}'
    checked = []
    for client in client_for(app):
        spec_ = client.get("/openapi.json").json()
        event, [(table, _)] = new_event(client, tables=1)
        for path, ops in spec_["paths"].items():
            for method, operation in ops.items():
                if "application/json" not in operation.get("requestBody", {}).get("content", {}):
                    continue
                real = (path.replace("{event_id}", str(event))
                        .replace("{table_id}", str(table))
                        .replace("{number}", "1").replace("{penalty_id}", "1"))
                for status in ("408", "413"):
                    assert status in operation["responses"], (method, path, status)
                    schema = answer_schema(spec_, operation, status)
                    assert set(schema["properties"]) == {"error"}, (method, path, status)
                r = client.request(method.upper(), real, content=big,
                                   headers={**admin(), "Content-Type": "application/json"})
                assert r.status_code == 413, (method, path, r.text)
                assert ErrorOut.model_validate(r.json()).error.code == "payload_too_large"
                status_, body = _stalled_body_answer(app, method.upper(), real)
                assert status_ == 408, (method, path, body)
                assert ErrorOut.model_validate(body).error.code == "request_timeout"
                checked.append(path)
    assert {"/v1/score", "/v1/waits", "/v1/tables/{table_id}/hands",
            "/v1/events"} <= set(checked)
