"""``tilecam waits`` and ``POST /v1/waits`` on a hand that drew and cannot be ready after
any discard (何切 below ready): the best discards with their useful draws (有效牌), the
most first (session-73 review, finding 2). Hands in notation."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

import scoring
from tilecam.app import create_app
from tilecam.cli import main
from tilecam.settings import Settings


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with TestClient(create_app(Settings(load_model=False)), raise_server_exceptions=False) as c:
        yield c


def test_cli_shows_useful_draws_of_discards_not_ready(capsys: pytest.CaptureFixture[str]) -> None:
    """有效牌: below ready the best discards are listed with their useful draws, the most
    first (5s keeps 8, the others 12). Before: "discard 4s or 5s or 7s or 9s or E or S"."""
    assert main(["waits", "456m789p4s5s7s9sEESS"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "the most useful draws first" in lines[0]
    assert lines[1].split() == ["discard", "4s", "四条", "12", "useful", "draw(s):", "6s",
                                "六条", "(4),", "8s", "八条", "(4),", "E", "东", "(2),", "S",
                                "南", "(2)"]
    assert lines[6].startswith("  discard 5s 五条   8 useful draw(s): 8s 八条 (4)")
    assert lines[-1] == "  (6 other discard(s) leave it further from ready)"


def test_api_answers_useful_draws(client: TestClient) -> None:
    """The discards' JSON as the scorer's: useful draws below ready (有效牌), each
    kind with its copies left."""
    hand = "456m789p4s5s7s9sEESS"
    r = client.post("/v1/waits", json={"hand": hand})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body == scoring.discards(hand).to_dict()
    assert [(d["tile"], d["useful_draws"]) for d in body["discards"][:6]] == [
        ("4s", 12), ("7s", 12), ("9s", 12), ("E", 12), ("S", 12), ("5s", 8)]
    assert body["discards"][5]["useful"] == [{"tile": "8s", "remaining": 4},
                                             {"tile": "E", "remaining": 2},
                                             {"tile": "S", "remaining": 2}]
