"""Every 409 says which conflict it is in its ``code`` (the table-client review of the
seventy-seventh session, finding 5: each was ``conflict``, and a machine had to read the
English to act): ``table_closed``, ``already_closed``, ``not_closed``,
``session_over``, ``number_taken`` … (:data:`tilecam.tables.sheet.CONFLICT_CODES`);
``/openapi.json`` lists them. A 409 raised for no coded conflict stays ``conflict``.

The polish of review 77 (finding 3): the 409 texts of /openapi.json still described the
frames', hands' and photos' conflicts (and every other route's, through the shared
``ERROR_TEXTS[409]``) as ``conflict``, which no route answers now. Each operation's 409
now names the codes that operation answers (:data:`tilecam.api.openapi.
OPERATION_CONFLICTS`), and every 409 these tests provoke is checked against its route's
text (:func:`error`).
"""

from __future__ import annotations

import ast
import re
import tempfile
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from test_tables_helpers import (
    FakeCamera,
    admin,
    bearer,
    client_for,
    database_url,
    frame,
    make_app,
    new_event,
    new_table,
)

import tilecam.tables.sheet as sheet_module
from tilecam.api.openapi import OPERATION_CONFLICTS
from tilecam.tables.sheet import CONFLICT_CODES, Conflict

WIN = "123m456m789m234p55s"  # MCR: 21 on a discard
OTHER = "123p456p789p123s55s"  # MCR: another legal win

Api = tuple[TestClient, FakeCamera]


@pytest.fixture()
def api(tmp_path: Path) -> Iterator[Api]:
    app, cam = make_app(database_url("sqlite", tmp_path), tmp_path / "data")
    for client in client_for(app):
        yield client, cam


def error(r: Any) -> tuple[int, str]:
    """An error answer's status and code; a 409's code must be one its route's 409 text
    in /openapi.json names (:func:`conflict_text`)."""
    assert r.status_code >= 400, r.text
    code: str = r.json()["error"]["code"]
    if r.status_code == 409:
        text = conflict_text(r.request.method, r.request.url.path)
        assert re.search(rf"\b{code}\b", text), (code, text)
    return r.status_code, code


@lru_cache(maxsize=1)
def service_spec() -> dict[str, Any]:
    """The service's /openapi.json (it does not depend on what a database holds)."""
    with tempfile.TemporaryDirectory(prefix="conflict-codes77-") as name:
        folder = Path(name)
        app, _ = make_app(database_url("sqlite", folder), folder / "data")
        for client in client_for(app):
            spec: dict[str, Any] = client.get("/openapi.json").json()
            return spec
    raise AssertionError("no client")


def conflict_text(method: str, path: str) -> str:
    """The 409 description of the operation that answers ``method path`` (a path with
    its ids, ``/v1/tables/3/hands``); "" where it documents no 409."""
    for template, operations in service_spec()["paths"].items():
        pattern = re.sub(r"\{[^}]+\}", "[^/]+", template)
        if re.fullmatch(pattern, path) and method.lower() in operations:
            answer = operations[method.lower()].get("responses", {}).get("409", {})
            return str(answer.get("description", ""))
    raise AssertionError(f"no operation answers {method} {path}")


def hand(client: TestClient, t: int, k: str, **body: Any) -> Any:
    return client.post(f"/v1/tables/{t}/hands", headers=bearer(k), json=body)


def admin_post(client: TestClient, path: str, **body: Any) -> Any:
    return client.post(path, headers=admin(), json=body)


def test_closing_reopening_and_a_closed_table_say_their_codes(api: Api) -> None:
    """A hand posted to a closed table: ``table_closed``; closing it again:
    ``already_closed``; reopening an open table: ``not_closed``; a withdrawn table's
    hand: ``table_withdrawn`` — each 409."""
    client, _ = api
    _, [(t, k), (u, uk)] = new_event(client)
    assert error(admin_post(client, f"/v1/tables/{t}/reopen", reason="x")) == (
        409, "not_closed")
    assert admin_post(client, f"/v1/tables/{t}/close", reason="time").status_code == 200
    assert error(hand(client, t, k, outcome="draw")) == (409, "table_closed")
    assert error(admin_post(client, f"/v1/tables/{t}/close", reason="again")) == (
        409, "already_closed")
    assert client.patch(f"/v1/tables/{u}", headers=admin(),
                        json={"withdrawn": True}).status_code == 200
    assert error(hand(client, u, uk, outcome="draw")) == (409, "table_withdrawn")


def test_a_camera_frame_at_a_closed_table_is_table_closed(api: Api) -> None:
    """The camera's 409 (its third frame of a hand, which would record it) carries the
    same code as a posted hand's."""
    client, cam = api
    t, k = new_table(client)
    cam.show(100, WIN)
    assert admin_post(client, f"/v1/tables/{t}/close", reason="time").status_code == 200
    answers = [client.post(f"/v1/tables/{t}/frames", headers=bearer(k),
                           data={"winner": "E", "discarder": "S"},
                           files={"image": ("f.jpg", frame(100), "image/jpeg")})
               for _ in range(3)]
    assert [a.status_code for a in answers] == [200, 200, 409]
    assert error(answers[-1]) == (409, "table_closed")


def test_hand_numbers_and_a_finished_session_say_their_codes(api: Api) -> None:
    """Hand 1 sent again with other tiles: ``number_taken``; hand 5 when 2 is next:
    ``out_of_order``; a 17th hand of an MCR session (16 hands): ``session_over``."""
    client, _ = api
    t, k = new_table(client)
    assert hand(client, t, k, number=1, hand=WIN, winner="E",
                discarder="S").status_code == 201
    assert error(hand(client, t, k, number=1, hand=OTHER, winner="E",
                      discarder="S")) == (409, "number_taken")
    assert error(hand(client, t, k, number=5, outcome="draw")) == (409, "out_of_order")
    for _ in range(15):
        assert hand(client, t, k, outcome="draw").status_code == 201
    assert error(hand(client, t, k, outcome="draw")) == (409, "session_over")


def test_table_changes_voids_and_penalties_say_their_codes(api: Api) -> None:
    """A table renamed to another's name: ``name_taken``; new players after a hand:
    ``players_fixed``; a hand or penalty voided twice: ``already_void``; a request_id
    reused for another penalty: ``request_id_taken``; a second disqualification:
    ``already_disqualified``."""
    client, _ = api
    _, [(t, k), _other] = new_event(client)
    assert error(client.patch(f"/v1/tables/{t}", headers=admin(),
                              json={"name": "T2"})) == (409, "name_taken")
    assert hand(client, t, k, hand=WIN, winner="E", discarder="S").status_code == 201
    assert error(client.patch(f"/v1/tables/{t}", headers=admin(), json={
        "players": ["W", "X", "Y", "Z"]})) == (409, "players_fixed")
    assert admin_post(client, f"/v1/tables/{t}/hands/1/void", reason="x").status_code == 201
    assert error(admin_post(client, f"/v1/tables/{t}/hands/1/void", reason="x")) == (
        409, "already_void")
    pen = admin_post(client, f"/v1/tables/{t}/penalties", player=1, kind="warning",
                     request_id="p-1")
    assert pen.status_code == 201, pen.text
    assert error(admin_post(client, f"/v1/tables/{t}/penalties", player=2, kind="warning",
                            request_id="p-1")) == (409, "request_id_taken")
    void = f"/v1/tables/{t}/penalties/{pen.json()['id']}/void"
    assert admin_post(client, void, reason="x").status_code == 200
    assert error(admin_post(client, void, reason="x")) == (409, "already_void")
    assert admin_post(client, f"/v1/tables/{t}/penalties", player=3,
                      kind="disqualification").status_code == 201
    assert error(admin_post(client, f"/v1/tables/{t}/penalties", player=3,
                            kind="disqualification")) == (409, "already_disqualified")


def test_every_code_raised_on_the_sheet_is_listed() -> None:
    """Each ``Conflict(…, "code")`` of :mod:`tilecam.tables.sheet` gives a code of
    :data:`CONFLICT_CODES` (the list /openapi.json shows), and none is left bare."""
    tree = ast.parse(Path(sheet_module.__file__).read_text(encoding="utf-8"))
    raised = [node.exc for node in ast.walk(tree) if isinstance(node, ast.Raise)
              and isinstance(node.exc, ast.Call)
              and getattr(node.exc.func, "id", None) == "Conflict"]
    assert len(raised) >= 19
    codes = [call.args[1].value for call in raised if len(call.args) == 2
             and isinstance(call.args[1], ast.Constant)]
    assert len(codes) == len(raised), "a Conflict raised without its code"
    assert set(codes) <= set(CONFLICT_CODES) - {"conflict"}


def test_the_route_answers_a_coded_conflict_with_its_code() -> None:
    """``domain_error`` gives the Conflict's own code; an uncoded one stays ``conflict``."""
    from tilecam.api.routes.events import domain_error

    answer = domain_error(Conflict("table 3 is closed", "table_closed"))
    assert (answer.status_code, answer.code) == (409, "table_closed")
    assert domain_error(Conflict("x")).code == "conflict"


def test_openapi_lists_the_conflict_codes(api: Api) -> None:
    """Each 409 answer of /openapi.json names the codes its operation answers
    (OPERATION_CONFLICTS, each a code of CONFLICT_CODES, with its meaning) and no other
    code; the error's ``code`` field says what each means. Before the polish every 409
    text named ``conflict`` (frames: "conflict: the table closed or withdrawn"; the
    shared text: "conflict: … a number or request_id already used"), which no route
    answers now, and listed every code at every operation."""
    client, _ = api
    schema = client.get("/openapi.json").json()
    answers = {(method, path): op["responses"]["409"]["description"]
               for path, ops in schema["paths"].items() for method, op in ops.items()
               if "409" in op.get("responses", {})}
    assert len(answers) >= 12
    assert set(answers) <= set(OPERATION_CONFLICTS), "an operation's codes are not named"
    for operation, text in answers.items():
        codes = OPERATION_CONFLICTS[operation]
        assert codes and set(codes) <= set(CONFLICT_CODES) - {"conflict"}, operation
        named = {c for c in CONFLICT_CODES if re.search(rf"\b{c}\b", text)}
        assert named == set(codes), (operation, sorted(named ^ set(codes)), text)
        assert not re.search(r"\bconflict\b", text), (operation, text)
        assert f"{codes[0]} ({CONFLICT_CODES[codes[0]]})" in text, text
    frames = answers[("post", "/v1/tables/{table_id}/frames")]
    assert "table_closed" in frames and "number_taken" not in frames, frames
    code = schema["components"]["schemas"]["ErrorDetail"]["properties"]["code"]
    assert all(f"{name}: " in code["description"] for name in CONFLICT_CODES)


def test_the_camera_restart_documents_no_409(api: Api) -> None:
    """``POST …/camera/restart`` raises no conflict
    (:func:`tilecam.tables.camera.restart_seq`): it documents no 409 rather than one
    with codes it cannot answer."""
    client, _ = api
    schema = client.get("/openapi.json").json()
    restart = schema["paths"]["/v1/tables/{table_id}/camera/restart"]["post"]
    assert "409" not in restart["responses"]


def test_false_claims_and_corrections_say_their_codes(api: Api) -> None:
    """A draw ruled a false claim: ``not_a_win``; a win ruled twice: ``already_ruled``;
    that hand voided: ``false_claim_ruled``; a correction of it saying neither outcome
    nor tiles: ``outcome_unstated`` — each named in its route's 409 text
    (:func:`error`)."""
    client, _ = api
    t, k = new_table(client)
    assert hand(client, t, k, hand=WIN, winner="E", discarder="S").status_code == 201
    assert hand(client, t, k, outcome="draw").status_code == 201
    hands = f"/v1/tables/{t}/hands"
    assert error(admin_post(client, f"{hands}/2/false-claim", reason="x")) == (
        409, "not_a_win")
    ruled = admin_post(client, f"{hands}/1/false-claim", reason="x", kind="wrong_win")
    assert ruled.status_code == 201, ruled.text
    assert error(admin_post(client, f"{hands}/1/false-claim", reason="x")) == (
        409, "already_ruled")
    assert error(admin_post(client, f"{hands}/1/void", reason="x")) == (
        409, "false_claim_ruled")
    assert error(admin_post(client, f"{hands}/1/corrections", reason="x",
                            discarder="N")) == (409, "outcome_unstated")
