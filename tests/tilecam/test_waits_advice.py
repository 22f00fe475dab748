"""``tilecam waits`` and ``POST /v1/waits`` on a hand that drew (何切): the session-73
review of the discard advice (dead waits, useful draws, a win self-drawn only, the sizes
named). Hands in notation; each test names the rule it checks."""

from __future__ import annotations

import json
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


def test_cli_says_a_hand_wins_only_self_drawn_with_each_total(
        capsys: pytest.CaptureFixture[str]) -> None:
    """MCR 起和番 (8 fan before flowers): 123m456p789sEEE1m4m with 3 flowers is no legal
    win on a discard (6 fan, 9 with flowers) and a win self-drawn (8, 11). Before:
    "this hand is a win (total 11 on its last tile)", as if it won either way."""
    assert main(["waits", "123m456p789sEEE1m4m", "--flowers", "3"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert "this hand is a win only self-drawn" in first
    assert "on a discard: total 9, no legal win (6 fan before flowers, 8 needed)" in first
    assert "self-drawn: total 11" in first and "tilecam score --self-drawn" in first
    assert main(["waits", "123m456p789sEEE1m4m", "--flowers", "3", "--json"]) == 0
    body = json.loads(capsys.readouterr().out)
    assert body["win_on_discard"] == {"total": 9, "legal": False}
    assert body["win_self_drawn"] == {"total": 11, "legal": True}


def test_cli_names_a_win_on_a_discard_or_self_drawn(capsys: pytest.CaptureFixture[str]) -> None:
    """Seed 003's worked example 555666777p5556s7s: 46 on a discard, 48 self-drawn."""
    assert main(["waits", "555666777p5556s7s"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert "this hand is a win on a discard or self-drawn" in first
    assert "on a discard: total 46; self-drawn: total 48" in first


def test_cli_lists_a_dead_wait_without_a_score(capsys: pytest.CaptureFixture[str]) -> None:
    """A formal wait whose last copy is the discard (RULES.md counts such kinds as waits)
    is shown with none left and no score; a discard whose every wait is dead is ready in
    form only. Before: "1s (0 left: discard 52, self-drawn 53)"."""
    assert main(["waits", "1s8s5s1s5s1s3s1s8s4s3s4s4s4s"]) == 0
    lines = capsys.readouterr().out.splitlines()
    ones = next(line for line in lines if line.startswith("  discard 1s"))
    assert "1s 一条 (0 left: its last copy is this discard)" in ones
    assert "4s 四条 (0 left: the hand holds all four)" in ones
    fours = next(line for line in lines if line.startswith("  discard 4s"))
    assert "ready in form only" in fours
    order = [line.split()[1] for line in lines if line.startswith("  discard ")]
    assert order == ["5s", "3s", "8s", "1s", "4s"]


def test_api_wrong_size_names_both_sizes_it_takes(client: TestClient) -> None:
    """POST /v1/waits takes a hand one tile short (13 in MCR, 16 in Xiamen) or one that
    drew (14, 17); a hand of another size was told only the first."""
    r = client.post("/v1/waits", json={"hand": "1m2m3m4m5m6m7m8m9m1p2p3p4p5p6p"})
    assert r.status_code == 400, r.text
    message = r.json()["error"]["message"]
    assert "wrong number of tiles: 15" in message and "holds 13" in message
    assert "holds 14, to see what to discard" in message
    r = client.post("/v1/waits", json={"hand": "1112345678999m1p2p3p4p5p", "rules": "xiamen",
                                       "rule_context": {"gold": "5p"}})
    assert r.status_code == 400, r.text
    message = r.json()["error"]["message"]
    assert "holds 16" in message and "holds 17" in message


def test_api_answers_each_way_a_hand_wins(client: TestClient) -> None:
    """MCR 起和番: the JSON of a hand that drew says the win on a discard (9, no legal
    win) and self-drawn (11) apart; it said only ``win`` and ``win_total``."""
    hand = "123m456p789sEEE1m4m"
    won = client.post("/v1/waits", json={"hand": hand, "flowers": 3}).json()
    assert won == scoring.discards(hand, flowers=3).to_dict()
    assert won["win"] is True and won["win_total"] == 11
    assert won["win_on_discard"] == {"total": 9, "legal": False}
    assert won["win_self_drawn"] == {"total": 11, "legal": True}
