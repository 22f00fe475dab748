"""The OpenAPI description (``GET /openapi.json``, ``/docs``) describes the JSON answers
of the event, table, standings and health routes field by field — each field's type,
nullability and description — and the descriptions match what the service answers.

Real answers are made once, on a SQLite database (MCR, Xiamen and Zhenjiang tables:
wins, draws, pending and unscorable hands, false claims, corrections, voids, penalties,
camera frames, writes whose reading back failed), and each is checked

- against the schema ``/openapi.json`` publishes for its operation and status, by the
  small validator below (:func:`problems`), which holds an object with ``properties`` to
  them: a field the service answers that the description does not name is a problem;
- against the pydantic models the description is made from
  (:mod:`tilecam.api.answer_schemas`), strictly and with no field left over.

Every operation of :data:`tilecam.api.openapi.ANSWERS`, every alternative of an answer
that is one of several, and every field of every answer model is seen in a real answer.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from types import SimpleNamespace
from typing import Any

import pytest
from fastapi.testclient import TestClient
from pydantic import BaseModel, TypeAdapter
from test_tables_helpers import FakeCamera, admin, bearer, client_for, database_url, frame, make_app

from tilecam.app import create_app

Spec = dict[str, Any]
JSON_TYPES: dict[str, tuple[type, ...]] = {
    "null": (type(None),), "boolean": (bool,), "integer": (int,), "number": (int, float),
    "string": (str,), "array": (list,), "object": (dict,)}

LOW_WIN = "[234m,1]456p678s234s99m"  # MCR: a winning shape of 4 fan, no legal win
PLAIN_HAND = "123m456m789m123p55p"  # MCR: a legal win
OTHER_HAND = "123p456p789p123s55s"  # MCR: another legal win
PLAYERS = ["Ann", "Bo", "Cai", "Dan"]
XIAMEN_YOU_JIN = "123m456m789m123p456pC5p"  # 游金 with gold C: chips plus bonus money
XIAMEN_NO_WIN = "123m456m789m123p456p5s7s"  # not complete with gold 9s: 诈胡, no legal win
XIAMEN_WIN = "123m456m789m123p456p55s"
ZJ_WIN, ZJ_WILD = "[555m,1]456m789m123p55p", {"indicator": "9s"}
ZJ_NO_WIN = "111m222p333s44z5z67z"  # no win with 9s as the 百搭 indicator: 诈胡


# --- a validator for the JSON Schema the description uses ------------------------------


def resolve(spec: Spec, schema: Spec) -> Spec:
    """``schema`` with its ``$ref`` followed (into ``components/schemas``)."""
    while "$ref" in schema:
        schema = spec["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    return schema


def problems(spec: Spec, schema: Spec, value: Any, where: str = "$",
             seen: set[tuple[str, str]] | None = None) -> list[str]:
    """What in the JSON ``value`` does not fit ``schema`` (empty when it fits), each
    problem with the path where it is. Strict where a client must be able to rely on the
    description: an object whose schema lists ``properties`` may hold no other field
    (whatever ``additionalProperties`` says — it only allows fields a later version
    adds), a ``date-time`` carries its UTC offset. ``seen`` collects (component title,
    field) for every documented field met."""
    if "$ref" in schema:
        return problems(spec, resolve(spec, schema), value, where, seen)
    if "anyOf" in schema:
        tries = [problems(spec, alt, value, where, None) for alt in schema["anyOf"]]
        fits = [alt for alt, found in zip(schema["anyOf"], tries, strict=True) if not found]
        if not fits:
            return [f"{where}: fits none of anyOf: {tries}"]
        return problems(spec, fits[0], value, where, seen)
    kinds = schema.get("type")
    if kinds is not None:
        names = kinds if isinstance(kinds, list) else [kinds]
        if (isinstance(value, bool) and "boolean" not in names) or not any(
                isinstance(value, JSON_TYPES[n]) for n in names):
            return [f"{where}: {json.dumps(value)[:80]} is not {'/'.join(names)}"]
    out = _scalar_problems(schema, value, where)
    if isinstance(value, list):
        if len(value) < schema.get("minItems", 0):
            out.append(f"{where}: {len(value)} items, fewer than {schema['minItems']}")
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            out.append(f"{where}: {len(value)} items, more than {schema['maxItems']}")
        for i, item in enumerate(value):
            out += problems(spec, schema.get("items", {}), item, f"{where}[{i}]", seen)
    if isinstance(value, dict):
        out += _object_problems(spec, schema, value, where, seen)
    return out


def _scalar_problems(schema: Spec, value: Any, where: str) -> list[str]:
    """``const``, ``enum``, ``minimum``/``maximum`` and the ``date-time`` format."""
    out: list[str] = []
    if "const" in schema and value != schema["const"]:
        out.append(f"{where}: {value!r} is not {schema['const']!r}")
    if "enum" in schema and value not in schema["enum"]:
        out.append(f"{where}: {value!r} is none of {schema['enum']}")
    if isinstance(value, int | float) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            out.append(f"{where}: {value} < {schema['minimum']}")
        if "maximum" in schema and value > schema["maximum"]:
            out.append(f"{where}: {value} > {schema['maximum']}")
    if schema.get("format") == "date-time" and isinstance(value, str):
        try:
            if datetime.fromisoformat(value).tzinfo is None:
                out.append(f"{where}: {value!r} has no UTC offset")
        except ValueError:
            out.append(f"{where}: {value!r} is no ISO 8601 date-time")
    return out


def _object_problems(spec: Spec, schema: Spec, value: dict[str, Any], where: str,
                     seen: set[tuple[str, str]] | None) -> list[str]:
    """The fields of an object: required ones there, none undocumented (see
    :func:`problems`), each fitting its schema."""
    fields = schema.get("properties")
    out = [f"{where}: the required field {name!r} is missing"
           for name in schema.get("required", []) if name not in value]
    extra = schema.get("additionalProperties", True)
    for name, item in value.items():
        if fields is not None and name in fields:
            if seen is not None:
                seen.add((str(schema.get("title")), name))
            out += problems(spec, fields[name], item, f"{where}.{name}", seen)
        elif fields is not None or extra is False:
            out.append(f"{where}: the field {name!r} is not in the description")
        elif isinstance(extra, dict):
            out += problems(spec, extra, item, f"{where}.{name}", seen)
    return out


def published(spec: Spec, method: str, path: str, status: int) -> Spec:
    """The schema the description gives the JSON answer of an operation and status."""
    answer = spec["paths"][path][method]["responses"][str(status)]
    return dict(answer["content"]["application/json"]["schema"])


# --- real answers ----------------------------------------------------------------------


@dataclass(frozen=True)
class RealAnswer:
    """One answer the service gave: the operation (path as the description names it),
    its status and its body as sent."""

    method: str
    path: str
    status: int
    text: str

    @property
    def body(self) -> Any:
        return json.loads(self.text)

    def __str__(self) -> str:
        return f"{self.method.upper()} {self.path} {self.status}"


class Recorder:
    """Sends requests and keeps every answer."""

    def __init__(self, client: TestClient) -> None:
        self.client = client
        self.answers: list[RealAnswer] = []

    def __call__(self, method: str, path: str, status: int, ids: dict[str, Any] | None = None,
                 **kwargs: Any) -> Any:
        r = self.client.request(method, path.format(**(ids or {})), **kwargs)
        assert r.status_code == status, (method, path, r.status_code, r.text)
        self.answers.append(RealAnswer(method, path, status, r.text))
        return r.json()


def _event(call: Recorder, rules: str, **table: Any) -> tuple[int, int, str]:
    """A new event of ``rules`` and its one table: ``(event id, table id, table key)``."""
    event = call("post", "/v1/events", 201, json={"name": f"{rules} open", "rules": rules},
                 headers=admin())
    made = call("post", "/v1/events/{event_id}/tables", 201, {"event_id": event["id"]},
                json={"name": "T1", "players": PLAYERS, **table}, headers=admin())
    return int(event["id"]), int(made["id"]), str(made["api_key"])


def _mcr(call: Recorder, cam: FakeCamera, monkeypatch: pytest.MonkeyPatch) -> None:
    """An MCR table through most of what a sheet holds."""
    from sqlalchemy.exc import OperationalError

    from tilecam.api.routes import tables as routes
    from tilecam.tables import camera

    event, t, k = _event(call, "mcr")
    ids, key, ref = {"table_id": t, "event_id": event}, bearer(k), admin()
    hands, hand = "/v1/tables/{table_id}/hands", "/v1/tables/{table_id}/hands/{number}"
    call("get", "/v1/tables/{table_id}", 200, ids, headers=key)
    claim = call("post", hands, 201, ids, headers=key,
                 json={"hand": LOW_WIN, "winner": "S", "discarder": "E"})
    assert claim["outcome"] == "pending" and claim["score"]["details"]["reason"]
    call("post", hand + "/false-claim", 201, {**ids, "number": 1}, headers=ref,
         json={"reason": "under 8 fan"})
    assert call("get", "/v1/tables/{table_id}", 200, ids, headers=key)["next_hand"]["barred"]
    barred = call("post", hands, 201, ids, headers=key,
                  json={"hand": PLAIN_HAND, "winner": "S", "self_drawn": True})
    assert barred["barred"] and barred["outcome"] == "pending"
    call("post", hand + "/corrections", 201, {**ids, "number": 2}, headers=ref,
         json={"hand": PLAIN_HAND, "winner": "N", "discarder": "E", "reason": "Dan won"})
    call("post", hands, 201, ids, headers=key, json={"outcome": "draw", "note": "荒庄"})
    call("post", hands, 200, ids, headers=key, json={"number": 3, "outcome": "draw",
                                                      "note": "荒庄"})  # a repeat
    unknown = call("post", hands, 201, ids, headers=key, json={"hand": PLAIN_HAND})
    assert unknown["score"] is None and unknown["winner"] is None
    call("post", hand + "/void", 201, {**ids, "number": 4}, headers=ref,
         json={"reason": "misdeal"})
    call("get", hands, 200, ids, headers=key)
    for number in (1, 2, 4):
        call("get", hand, 200, {**ids, "number": number}, headers=key)
    pens = pen = "/v1/tables/{table_id}/penalties"
    for body in ({"player": "Ann", "kind": "payment", "to": 1, "points": 5, "hand": 2},
                 {"player": 1, "kind": "bar", "hand": 5},
                 {"player": 2, "kind": "empty_claim", "hand": 5},
                 {"player": 2, "kind": "empty_claim", "hand": 5},
                 {"player": 3, "kind": "disqualification", "request_id": "dq-dan"},
                 {"player": 3, "kind": "warning", "reason": "slow"},
                 {"player": 0, "kind": "deduction", "points": 10}):
        call("post", pen, 201, ids, headers=ref, json=body)
    call("post", pen, 200, ids, headers=ref,
         json={"player": 3, "kind": "disqualification", "request_id": "dq-dan"})
    first_claim = call("get", pens, 200, ids, headers=key)["penalties"][2]
    call("post", pen + "/{penalty_id}/void", 200, {**ids, "penalty_id": first_claim["id"]},
         headers=ref, json={"reason": "appeal upheld"})  # the next one is rebooked
    assert call("get", pens, 200, ids, headers=key)["penalties"][3]["rebooked"]
    # camera frames: waiting, recorded, already recorded; the table cleared (lit, no
    # tiles); a hand whose frame image cannot be kept
    frames, form = "/v1/tables/{table_id}/frames", {"winner": "E", "self_drawn": "true"}

    def shoot(level: int, times: int = 3) -> list[Any]:
        return [call("post", frames, 200, ids, headers=key, data=form,
                     files={"image": ("f.jpg", frame(level), "image/jpeg")})["status"]
                for _ in range(times)]

    cam.show(30, PLAIN_HAND)
    cam.show(120, None, complete=False, tiles=0)
    cam.show(60, OTHER_HAND)
    assert shoot(30, 4) == ["waiting", "waiting", "recorded", "already_recorded"]
    assert shoot(120) == ["waiting"] * 3

    def full_disk(*_: Any) -> None:
        raise OSError(28, "No space left on device")

    with monkeypatch.context() as m:
        m.setattr(camera, "_write", full_disk)
        assert shoot(60) == ["waiting", "waiting", "recorded"]
    assert call.answers[-1].body["image_error"]
    assert shoot(120) == ["waiting"] * 3
    # a camera that restarted its frame count (these frames had no seq: none forgotten)
    assert call("post", "/v1/tables/{table_id}/camera/restart", 200, ids,
                headers=key)["forgotten_seq"] is None
    call("get", "/v1/tables/{table_id}/standings", 200, ids, headers=key)
    call("get", "/v1/tables/{table_id}/sheet", 200, ids, headers=key)
    call("get", "/v1/events/{event_id}", 200, ids, headers=ref)
    standings = call("get", "/v1/events/{event_id}/standings", 200, ids, headers=ref)
    assert standings["players"][-1]["rank"] is None  # Dan, disqualified
    # writes committed whose reading back fails: the answer says they were recorded
    def locked(*_: Any, **__: Any) -> None:
        raise OperationalError("SELECT …", {}, Exception("database is locked"))

    with monkeypatch.context() as m:
        m.setattr(routes, "_hand_view", locked)
        m.setattr(routes.views, "penalty_view", locked)
        call("post", hands, 201, ids, headers=key,
             json={"hand": PLAIN_HAND, "winner": "W", "self_drawn": True})
        call("post", hand + "/corrections", 201, {**ids, "number": 7}, headers=ref,
             json={"hand": PLAIN_HAND, "winner": "N", "self_drawn": True, "reason": "N"})
        call("post", hand + "/void", 201, {**ids, "number": 3}, headers=ref,
             json={"reason": "a misdeal after all"})
        made = call("post", pen, 201, ids, headers=ref,
                    json={"player": 1, "kind": "deduction", "points": 5})
        call("post", pen + "/{penalty_id}/void", 200, {**ids, "penalty_id": made["id"]},
             headers=ref, json={"reason": "no"})
        assert shoot(30) == ["waiting", "waiting", "recorded"]
        assert call.answers[-1].body["recorded"]["recorded"] is True
    # one photo a hand: recorded at once, sent again with its number, one whose photo
    # cannot be kept, one whose reading back fails — after the camera saw the table
    # cleared, and each later one a new hand (new_hand): since the seventy-sixth session
    # a photo while a hand recorded since the table was last seen cleared stands is a
    # second win of the deal, 409 already_recorded
    photos = "/v1/tables/{table_id}/photos"
    cam.show(90, OTHER_HAND)

    def snap(status: int, **form: str) -> Any:
        return call("post", photos, status, ids, headers=key, data=form,
                    files={"image": ("p.jpg", frame(90), "image/jpeg")})

    assert shoot(120) == ["waiting"] * 3
    number = snap(201, winner="S", discarder="E")["number"]
    assert snap(200, winner="S", discarder="E", number=str(number))["created"] is False
    with monkeypatch.context() as m:
        m.setattr(camera, "_write", full_disk)
        assert snap(201, winner="W", self_drawn="true", new_hand="true")["image_error"]
        m.setattr(routes, "_hand_view", locked)
        assert snap(201, winner="N", self_drawn="true", new_hand="true")["recorded"] is True
    # the referee fixes the table's name, then calls time
    call("patch", "/v1/tables/{table_id}", 200, ids, headers=ref, json={"name": "T1 main"})
    closed = call("post", "/v1/tables/{table_id}/close", 200, ids, headers=ref,
                  json={"reason": "time called"})
    assert closed["closed_at"] and closed["next_hand"] is None
    call("post", "/v1/tables/{table_id}/view-key", 201, ids, headers=ref)
    call("post", "/v1/tables/{table_id}/key", 201, ids, headers=ref)
    call("get", "/v1/events", 200, headers=ref)


def _xiamen(call: Recorder, cam: FakeCamera) -> None:
    """A Xiamen table: chips, bonus money apart from them, 诈胡, a winner unknown, a
    partial correction, a bar and a photo."""
    _, t, k = _event(call, "xiamen")
    ids, key = {"table_id": t}, bearer(k)
    hands = "/v1/tables/{table_id}/hands"
    won = call("post", hands, 201, ids, headers=key, json={
        "hand": XIAMEN_YOU_JIN, "winner": "S", "self_drawn": True,
        "context": {"gold": "C", "win": "you_jin"}})
    assert won["money"]["Bo"] == 150 and won["score"]["settlement"]["payments"][0]["bonus"]
    no_win = call("post", hands, 201, ids, headers=key, json={
        "hand": XIAMEN_NO_WIN, "winner": "E", "self_drawn": True, "context": {"gold": "9s"}})
    assert no_win["legal"] is False and no_win["score"]["details"]["reason"]
    unknown = call("post", hands, 201, ids, headers=key,
                   json={"hand": XIAMEN_WIN, "context": {"gold": "9s"}})
    assert unknown["assumed_after"] == 2  # hand 2's winner decides who deals hand 3
    call("get", "/v1/tables/{table_id}", 200, ids, headers=key)
    fixed = call("post", "/v1/tables/{table_id}/hands/{number}/corrections", 201,
                 {**ids, "number": 3}, headers=admin(),
                 json={"winner": "S", "self_drawn": True, "reason": "S won it"})
    # hand 3 was held pending (its winner unknown): settled, its outcome changed too
    assert fixed["changed"] == ["outcome", "winner", "self_drawn"] and "hand" in fixed["kept"]
    assert fixed["assumed_after"] == 2 and fixed["chips"] and fixed["money"]
    call("post", "/v1/tables/{table_id}/penalties", 201, ids, headers=admin(),
         json={"player": "Ann", "kind": "bar", "hand": 4})
    cam.show(150, XIAMEN_WIN)
    shot = call("post", "/v1/tables/{table_id}/photos", 201, ids, headers=key,
                data={"winner": "W", "self_drawn": "true", "context": '{"gold": "9s"}'},
                files={"image": ("p.jpg", frame(150), "image/jpeg")})
    assert shot["barred"] and shot["assumed_after"] == 2 and shot["chips"] and shot["money"]
    call("post", "/v1/tables/{table_id}/penalties", 201, ids, headers=admin(),
         json={"player": "Cai", "kind": "false_win"})
    call("get", "/v1/tables/{table_id}/standings", 200, ids, headers=key)
    call("get", "/v1/tables/{table_id}/sheet", 200, ids, headers=key)
    for number in (1, 3):
        call("get", "/v1/tables/{table_id}/hands/{number}", 200, {**ids, "number": number},
             headers=key)
    call("get", "/v1/tables/{table_id}/hands", 200, ids, headers=key)
    for body in ({"hand": XIAMEN_YOU_JIN, "rules": "xiamen", "self_drawn": True,
                  "rule_context": {"gold": "C", "win": "you_jin"}},
                 {"hand": XIAMEN_NO_WIN, "rules": "xiamen", "self_drawn": True,
                  "rule_context": {"gold": "9s"}}):
        call("post", "/v1/score", 200, json=body)


def _zhenjiang(call: Recorder) -> None:
    """A Zhenjiang table: 百搭 transfers in a win and in a draw, 诈胡 ruled and played on."""
    event, t, k = _event(call, "zhenjiang")
    ids, key = {"table_id": t, "event_id": event}, bearer(k)
    hands = "/v1/tables/{table_id}/hands"
    won = call("post", hands, 201, ids, headers=key, json={
        "hand": ZJ_WIN, "winner": "S", "self_drawn": True,
        "context": {**ZJ_WILD, "first_wild_discard": "W", "wild_after_pung": "S"}})
    assert won["score"]["details"]["events"] and won["score"]["details"]["net"]
    call("post", hands, 201, ids, headers=key, json={
        "outcome": "draw", "context": {"indicator": "2p", "first_wild_discard": "N"}})
    claim = call("post", hands, 201, ids, headers=key, json={
        "hand": ZJ_NO_WIN, "winner": "S", "self_drawn": True, "context": ZJ_WILD})
    assert claim["score"]["legal"] is False and claim["score"]["details"]["reason"]
    call("post", hands + "/{number}/false-claim", 201, {**ids, "number": 3},
         headers=admin(), json={"reason": "诈胡"})
    call("post", hands, 201, ids, headers=key, json={
        "hand": ZJ_WIN, "winner": "W", "discarder": "E", "context": ZJ_WILD})
    call("get", hands, 200, ids, headers=key)
    call("get", "/v1/tables/{table_id}/sheet", 200, ids, headers=key)
    call("get", "/v1/events/{event_id}/standings", 200, ids, headers=admin())
    for body in ({"hand": ZJ_WIN, "rules": "zhenjiang", "discarder": 2,
                  "rule_context": {**ZJ_WILD, "first_wild_discard": "left"}},
                 {"hand": ZJ_NO_WIN, "rules": "zhenjiang", "self_drawn": True,
                  "rule_context": ZJ_WILD}):
        call("post", "/v1/score", 200, json=body)


def _scoring(call: Recorder) -> None:
    """The scoring endpoints' answers: a legal win, a win under 8 fan, waits, discards."""
    call("post", "/v1/score", 200, json={"hand": PLAIN_HAND, "self_drawn": True})
    call("post", "/v1/score", 200, json={"hand": LOW_WIN})
    call("post", "/v1/waits", 200, json={"hand": "123m456m789m123p5p"})
    call("post", "/v1/waits", 200, json={"hand": "123m456m789m123p5p7s"})
    call("post", "/v1/waits", 200, json={"hand": PLAIN_HAND})
    call("get", "/healthz", 200)


@pytest.fixture(scope="module")
def answers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[RealAnswer]]:
    """Every real answer of the scenarios above, on one SQLite database."""
    tmp = tmp_path_factory.mktemp("answers")
    app, cam = make_app(database_url("sqlite", tmp), tmp / "data")
    with pytest.MonkeyPatch.context() as monkeypatch:
        for client in client_for(app):
            call = Recorder(client)
            _mcr(call, cam, monkeypatch)
            _xiamen(call, cam)
            _zhenjiang(call)
            _scoring(call)
            app.state.detector = SimpleNamespace(name="tiles@test")  # as if loaded
            app.state.detector_load_s = 1.25
            call("get", "/readyz", 200)
            yield call.answers


@pytest.fixture(scope="module")
def spec() -> Spec:
    with TestClient(create_app()) as client:
        r = client.get("/openapi.json")
        assert r.status_code == 200
        return dict(r.json())


def answer_ops() -> dict[tuple[str, str], dict[int, tuple[Any, str]]]:
    from tilecam.api.openapi import ANSWERS

    return ANSWERS


def models_of(method: str, path: str, status: int) -> tuple[type[BaseModel], ...]:
    """The models of an answer: those ANSWERS publishes, or the score endpoint's."""
    from tilecam.api.answer_schemas import ScoreOut
    from tilecam.api.openapi import answer_models
    from tilecam.api.schemas import DiscardsOut, WaitsOut

    own = {("post", "/v1/score"): (ScoreOut,), ("post", "/v1/waits"): (WaitsOut, DiscardsOut)}
    if (method, path) in own:
        return own[(method, path)]
    return answer_models(answer_ops()[(method, path)][status][0])


def leftovers(value: Any, where: str = "$") -> list[str]:
    """Fields a validated model kept as extra (not declared), anywhere in ``value``."""
    out: list[str] = []
    if isinstance(value, BaseModel):
        out += [f"{where}.{name}" for name in value.model_extra or {}]
        for name in type(value).model_fields:
            out += leftovers(getattr(value, name), f"{where}.{name}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            out += leftovers(item, f"{where}[{i}]")
    elif isinstance(value, dict):
        for key, item in value.items():
            out += leftovers(item, f"{where}.{key}")
    return out


# --- the description ---------------------------------------------------------------------


def test_no_json_answer_is_described_as_a_bare_object(spec: Spec) -> None:
    """Every 2xx JSON answer of every operation names its fields (each alternative of
    one that is one of several)."""
    bare = []
    for path, ops in spec["paths"].items():
        for method, operation in ops.items():
            for status, answer in operation["responses"].items():
                schema = answer.get("content", {}).get("application/json", {}).get("schema")
                if not status.startswith("2") or schema is None:
                    continue
                for alternative in schema.get("anyOf", [schema]):
                    if not resolve(spec, alternative).get("properties"):
                        bare.append(f"{method.upper()} {path} {status}")
    assert bare == []


def test_nested_free_form_objects_say_what_they_hold(spec: Spec) -> None:
    """Inside the answers described here, an object without named fields (a win's
    context, a camera's reading, a table's settings) says in its description what it
    holds, and every field has a description or a model of its own."""
    undescribed: list[str] = []

    def walk(schema: Spec, where: str, done: set[str]) -> None:
        if "$ref" in schema:
            name = schema["$ref"].rsplit("/", 1)[1]
            if name not in done:
                done.add(name)
                walk(resolve(spec, schema), name, done)
            return
        for alternative in schema.get("anyOf", []):
            walk(alternative, where, done)
        for name, field in schema.get("properties", {}).items():
            if "description" not in field and not any(_refs(field)):
                undescribed.append(f"{where}.{name}")
            walk(field, f"{where}.{name}", done)
        if "items" in schema:
            walk(schema["items"], f"{where}[]", done)

    done: set[str] = set()
    for (method, path), by_status in answer_ops().items():
        for status in by_status:
            walk(published(spec, method, path, status), f"{method} {path}", done)
    walk(published(spec, "post", "/v1/score", 200), "score", done)
    # identifiers, names and keys say what they are by name
    plain = {"id", "table_id", "event_id", "name", "rules", "player", "amount", "reason",
             "revision", "E", "S", "W", "N", "void_reason", "status", "view_error",
             "created", "recorded"}
    left = sorted({f.rsplit(".", 1)[1] for f in undescribed} - plain)
    assert not left, left


def test_answers_names_only_operations_that_exist(spec: Spec) -> None:
    for (method, path), by_status in answer_ops().items():
        assert method in spec["paths"].get(path, {}), (method, path)
        responses = spec["paths"][path][method]["responses"]
        for status, (_, text) in by_status.items():
            assert str(status) in responses, (method, path, status)
            assert responses[str(status)]["description"], (method, path, status)
            assert text


def test_the_published_components_are_the_models_own_schemas(spec: Spec) -> None:
    """The description is made from the same models the answers are checked with: each
    component is the model's own JSON Schema (its examples with their nulls too, which
    FastAPI's own rendering drops)."""
    from pydantic.json_schema import models_json_schema

    from tilecam.api.openapi import REF_TEMPLATE, answer_models

    every = {m for by in answer_ops().values() for ms, _ in by.values() for m in answer_models(ms)}
    _, defs = models_json_schema([(m, "serialization") for m in every],
                                 ref_template=REF_TEMPLATE)
    for name, schema in defs["$defs"].items():
        assert spec["components"]["schemas"][name] == schema, name
    penalty = spec["components"]["schemas"]["PenaltyOut"]
    assert penalty["examples"][0]["voided_at"] is None


def test_no_other_component_is_replaced() -> None:
    """Where FastAPI made a component of the same name (a model a route names in
    ``responses=``), it is the same model's schema — less the nulls FastAPI drops — so
    publishing the answer models replaces no other model's."""
    from fastapi.openapi.utils import get_openapi
    from pydantic.json_schema import models_json_schema

    from tilecam.api.openapi import REF_TEMPLATE, answer_models

    def no_nulls(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: no_nulls(v) for k, v in value.items() if v is not None}
        if isinstance(value, list):
            return [no_nulls(v) for v in value]
        return value

    app = create_app()
    fastapi_own = get_openapi(title="t", version="0", routes=app.routes)["components"][
        "schemas"]
    every = {m for by in answer_ops().values() for ms, _ in by.values() for m in answer_models(ms)}
    _, defs = models_json_schema([(m, "serialization") for m in every],
                                 ref_template=REF_TEMPLATE)
    shared = set(fastapi_own) & set(defs["$defs"])
    assert {"ScoreOut", "FrameOut", "SheetOut", "HandOut"} <= shared
    for name in shared:
        assert no_nulls(defs["$defs"][name]) == fastapi_own[name], name


def test_every_published_example_fits_its_schema(spec: Spec) -> None:
    seen = 0
    for name, schema in spec["components"]["schemas"].items():
        for example in schema.get("examples", []):
            seen += 1
            assert problems(spec, schema, example) == [], name
    assert seen >= 6


def test_nullable_and_absent_fields_are_told_apart(spec: Spec) -> None:
    """A field that may be null says so (anyOf with null); one left out where it does not
    apply is optional and never null."""
    place = spec["components"]["schemas"]["PlaceOut"]
    assumed = place["properties"]["assumed_after"]
    assert "assumed_after" not in place["required"]
    assert assumed["type"] == "integer" and "anyOf" not in assumed and "default" not in assumed
    hand = spec["components"]["schemas"]["HandOut"]
    assert {"type": "null"} in hand["properties"]["score"]["anyOf"]
    assert "score" in hand["required"] and "money" not in hand["required"]
    assert problems(spec, place, {**spec["components"]["schemas"]["PlaceOut"]["examples"][0],
                                  "assumed_after": None})


# --- real answers ------------------------------------------------------------------------


def test_every_real_answer_fits_its_published_schema(spec: Spec,
                                                     answers: list[RealAnswer]) -> None:
    wrong = {str(a): found for a in answers
             if (found := problems(spec, published(spec, a.method, a.path, a.status),
                                   a.body))}
    assert wrong == {}


def test_every_real_answer_fits_its_models_with_no_field_left_over(
        answers: list[RealAnswer]) -> None:
    for a in answers:
        models = models_of(a.method, a.path, a.status)
        kind: Any = models[0] if len(models) == 1 else models[0] | models[1]
        value = TypeAdapter(kind).validate_json(a.text, strict=True)
        assert leftovers(value) == [], a


def test_every_described_operation_every_alternative_and_field_is_seen(
        spec: Spec, answers: list[RealAnswer]) -> None:
    """The real answers reach every operation and status of ANSWERS, every alternative
    of an answer that is one of several, and every field of every model in them — the
    fields left out where they do not apply (Xiamen's chips and money, a place's
    assumed_after and barred, a frame's image_error, a payment's bonus, the regional
    score details) included."""
    reached = {(a.method, a.path, a.status) for a in answers}
    missing = [(m, p, s) for (m, p), by in answer_ops().items() for s in by
               if (m, p, s) not in reached]
    assert missing == []
    alternatives = set()
    seen: set[tuple[str, str]] = set()
    for a in answers:
        schema = published(spec, a.method, a.path, a.status)
        problems(spec, schema, a.body, seen=seen)
        for alt in schema.get("anyOf", []):
            if not problems(spec, alt, a.body):
                alternatives.add(alt["$ref"])
    every_alt = {alt["$ref"] for (m, p), by in answer_ops().items() for s in by
                 for alt in published(spec, m, p, s).get("anyOf", [])}
    assert every_alt - alternatives == set()
    unseen = []
    for (m, p), by in answer_ops().items():
        for s in by:
            for name in _components(spec, published(spec, m, p, s)):
                for field in spec["components"]["schemas"][name].get("properties", {}):
                    if (name, field) not in seen:
                        unseen.append(f"{name}.{field}")
    assert not unseen, sorted(set(unseen))


def _components(spec: Spec, schema: Spec, found: set[str] | None = None) -> set[str]:
    """The names of the components ``schema`` reaches."""
    found = set() if found is None else found
    for ref in _refs(schema):
        name = ref.rsplit("/", 1)[1]
        if name not in found:
            found.add(name)
            _components(spec, spec["components"]["schemas"][name], found)
    return found


def _refs(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        if "$ref" in value:
            yield value["$ref"]
        for item in value.values():
            yield from _refs(item)
    elif isinstance(value, list):
        for item in value:
            yield from _refs(item)


def test_the_validator_finds_what_a_description_would_get_wrong(
        spec: Spec, answers: list[RealAnswer]) -> None:
    """The check is no formality: a field missing, undocumented, null where it may not
    be, of another type, or a time without its offset is each a problem."""
    hand = next(a for a in answers if a.path == "/v1/tables/{table_id}/hands/{number}").body
    schema = published(spec, "get", "/v1/tables/{table_id}/hands/{number}", 200)
    assert problems(spec, schema, hand) == []
    for broken, said in (
            ({k: v for k, v in hand.items() if k != "points"}, "'points' is missing"),
            ({**hand, "bogus": 1}, "'bogus' is not in the description"),
            ({**hand, "assumed_after": None}, "$.assumed_after: null is not integer"),
            ({**hand, "rules": None}, "$.rules: null is not string"),
            ({**hand, "settlement": [1, 2, 3]}, "fewer than 4"),
            ({**hand, "outcome": "won"}, "is none of"),
            ({**hand, "created_at": "2026-05-01T09:30:00"}, "has no UTC offset"),
            ({**hand, "winner": {"seat": "E"}}, "fits none of anyOf")):
        found = problems(spec, schema, broken)
        assert any(said in p for p in found), (said, found)


def test_regional_settlement_fields_are_described_as_answered(
        answers: list[RealAnswer]) -> None:
    """Xiamen's bonus money (a payment's bonus, a revision's money, a place's chips) and
    Zhenjiang's transfers (the score details' events and net) reach the answers the
    description describes — and a hand no rule set could score answers nulls, not a
    missing field."""
    from tilecam.api.answer_schemas import HandOut, NewHandOut

    written = [NewHandOut.model_validate_json(a.text) for a in answers
               if a.path == "/v1/tables/{table_id}/hands" and a.method == "post"
               and "view_error" not in a.body]
    xiamen = next(h for h in written if h.rules == "xiamen" and h.outcome == "win")
    assert xiamen.score is not None and xiamen.money is not None and xiamen.chips is not None
    assert [p.bonus for p in xiamen.score.settlement.payments] == [50, 50, 50]
    assert xiamen.score.details is not None and xiamen.score.details.bonus_per_payer == 50
    zj = next(h for h in written if h.rules == "zhenjiang" and h.outcome == "win")
    assert zj.score is not None and zj.score.details is not None
    assert zj.score.details.events and zj.score.details.events[0].payer == "winner"
    assert zj.score.details.net is not None and sum(zj.score.details.net.values()) == 0
    assert zj.money is None and zj.chips is None  # absent: no money apart, no chips
    unscored = next(h for h in written if h.winner is None and h.outcome == "pending")
    assert (unscored.score, unscored.total, unscored.legal) == (None, None, None)
    assert isinstance(unscored, HandOut)
