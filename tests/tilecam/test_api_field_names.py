"""A table hand sent with /v1/score's field names (``rule_context``, ``seat_wind``, a
discarder 1-3), or a score request with a table hand's (``context``, ``winner``, a
discarder E/S/W/N): the 422 names the field this endpoint takes, not only pydantic's
"Extra inputs are not permitted" (tilecam.api.schemas.named_otherwise)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from test_tables_helpers import admin, client_for, database_url, make_app, new_table

WIN = "123m456m789m123p55s"


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    app, _ = make_app(database_url("sqlite", tmp_path), tmp_path / "data")
    yield from client_for(app)


def _message(client: TestClient, path: str, body: dict[str, Any]) -> str:
    r = client.post(path, json=body, headers=admin())
    assert r.status_code == 422, r.text
    assert r.json()["error"]["code"] == "invalid_request"
    return str(r.json()["error"]["message"])


@pytest.mark.parametrize(("path", "body", "said"), [
    ("/v1/score", {"hand": WIN, "rules": "zhenjiang", "context": {"indicator": "E"}},
     "this endpoint takes the rule set's win context as rule_context"),
    ("/v1/waits", {"hand": "123m456m789m123p5s", "context": {}},
     "this endpoint takes the rule set's win context as rule_context"),
    ("/v1/score", {"hand": WIN, "winner": "S"}, "seat wind as seat_wind"),
    ("/v1/score", {"hand": WIN, "discarder": "S"},
     "discarder: this endpoint takes the discarder as a seat offset from the winner "
     "(1 left, 2 opposite, 3 right)"),
])
def test_score_requests_with_a_table_hand_s_names_say_which_field(
    client: TestClient, path: str, body: dict[str, Any], said: str,
) -> None:
    assert said in _message(client, path, body)


@pytest.mark.parametrize(("body", "said"), [
    ({"hand": WIN, "winner": "S", "rule_context": {"indicator": "E"}},
     "rule_context: a table's hand takes the rule set's win context as context"),
    ({"hand": WIN, "winner": "S", "discarder": 2},
     "discarder: a table's hand names the discarder by seat wind (E, S, W or N"),
    ({"hand": WIN, "winner": "S", "discarder": "3"}, "names the discarder by seat wind"),
    ({"hand": WIN, "seat_wind": "S"}, "gives the winner's seat wind as winner"),
])
def test_table_hands_with_score_s_names_say_which_field(
    client: TestClient, body: dict[str, Any], said: str,
) -> None:
    table, _ = new_table(client, "zhenjiang")
    assert said in _message(client, f"/v1/tables/{table}/hands", body)
    r = client.post(f"/v1/tables/{table}/hands",
                    json={"hand": WIN, "winner": "S", "discarder": "W",
                          "context": {"indicator": "E"}}, headers=admin())
    assert r.status_code == 201, r.text  # the right names still go through
    fix = {**body, "number": 1, "reason": "the referee's correction"}
    assert said in _message(client, f"/v1/tables/{table}/hands/1/corrections", fix)


def test_other_mistakes_keep_pydantic_s_message(client: TestClient) -> None:
    assert "body.discarder: Input should be a valid integer" in _message(
        client, "/v1/score", {"hand": WIN, "discarder": "2"})
    table, _ = new_table(client)
    assert "body.colour: Extra inputs are not permitted" in _message(
        client, f"/v1/tables/{table}/hands", {"hand": WIN, "colour": 1})
