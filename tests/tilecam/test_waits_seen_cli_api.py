"""``tilecam waits --seen``, ``POST /v1/waits``' ``seen``, a discard ready in form only
(every wait dead) in their answers, and ``tilecam recognize``'s text of a hand that drew
(the useful draws its JSON carries). Hands in notation; each test names the rule it
checks."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

import scoring
from tilecam.app import create_app
from tilecam.cli import main
from tilecam.commands.recognize import describe
from tilecam.settings import Settings


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with TestClient(create_app(Settings(load_model=False)), raise_server_exceptions=False) as c:
        yield c


# --- tilecam waits --seen ----------------------------------------------------------


def test_cli_seen_lowers_the_tiles_left_and_says_what_it_counted(
        capsys: pytest.CaptureFixture[str]) -> None:
    """Two E and one S seen elsewhere: the E wait is dead (0 left, no score), S has 1;
    the bonus tile given is ignored (no hand waits on one). --seen repeats."""
    assert main(["waits", "123m456p789sEESS", "--seen", "EE", "--seen", "S 1f"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == ("123m456p789sEESS: ready, waits on 2 kind(s) (tiles seen "
                        "elsewhere: EES)")
    assert lines[1].split() == ["E", "东", "0", "left;", "discard:", "-;", "self-drawn:", "-"]
    assert lines[2].startswith("  S 南     1 left;  discard: 11")
    assert main(["waits", "123m456p789sEESS", "--seen", "EESS", "--json"]) == 0
    body = json.loads(capsys.readouterr().out)
    assert (body["ready"], body["live"], body["seen"]) == (True, False, "EESS")


def test_cli_says_a_hand_whose_every_wait_is_seen_is_ready_in_form_only(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["waits", "123m456p789sEESS", "--seen", "EESS"]) == 0
    assert "ready in form only" in capsys.readouterr().out


def test_cli_refuses_a_kind_seen_more_often_than_the_hand_leaves(
        capsys: pytest.CaptureFixture[str]) -> None:
    """The error names the kind and both counts, and --context cannot set seen."""
    assert main(["waits", "123m456p789sEESS", "--seen", "EEE"]) == 2
    err = capsys.readouterr().err
    assert "seen: E seen 3 times, but the hand holds 2 of it" in err
    assert main(["waits", "123m456p789sEESS", "--context", "seen=E"]) == 2
    assert "--context may not set seen; use --seen" in capsys.readouterr().err


def test_cli_puts_discards_ready_in_form_only_before_those_one_from_ready(
        capsys: pytest.CaptureFixture[str]) -> None:
    """[EEE,2]123p456p1111mE: discarding 1m or E leaves waits whose every copy the hand
    holds (形式听牌). Before, the text said "2 discard(s) leave it ready" and advised
    them as any ready discard; now it says no discard leaves a tile to win on, tells those
    two first as ready in form only (they rank first: most draws make their wait live),
    then the discards one from ready with their useful draws."""
    assert main(["waits", "[EEE,2]123p456p1111mE"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == ("[EEE,2]123456p1111mE: no discard leaves it ready with a tile left "
                        "to win on")
    assert lines[1].startswith("  2 leave(s) it ready in form only")
    form = [line for line in lines if "waits on" in line]
    assert [line.split()[1] for line in form] == ["1m", "E"]
    assert lines[2:4] == form
    assert all("ready in form only" in line for line in form)
    assert "E 东 (0 left: the hand holds all four)" in form[0]
    assert lines[4].startswith("  below ready, the best are 1 tile(s) from ready")
    assert lines[5].startswith("  discard 1p 一饼  10 useful draw(s): ")


def test_cli_names_why_a_wait_is_dead_when_its_copies_are_seen(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["waits", "[EEE,2]123m456p789sN1s", "--seen", "NNN"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].endswith("2 discard(s) leave it ready (best first) (tiles seen "
                             "elsewhere: NNN)")
    assert lines[1].startswith("  discard N 北    waits on 1s 一条 (3 left: discard 13")
    assert lines[2].startswith("  discard 1s 一条 waits on N 北 (0 left: the others are "
                               "held or seen)  — ready in form only")


# --- POST /v1/waits seen -----------------------------------------------------------


def test_api_takes_seen_as_notation_or_codes_and_answers_as_the_scorer(
        client: TestClient) -> None:
    for seen in ("EES 2f", ["E", "1z", "S"]):
        r = client.post("/v1/waits", json={"hand": "123m456p789sEESS", "seen": seen})
        assert r.status_code == 200, r.text
        body = r.json()
        assert body == scoring.waits("123m456p789sEESS", seen="EES").to_dict()
        assert body["seen"] == "EES" and body["live"] is True
        assert body["waits"][0] == {"tile": "E", "remaining": 0, "discard": None,
                                    "self_drawn": None}
    r = client.post("/v1/waits", json={"hand": "[EEE,2]123p456p1111mE"})
    body = r.json()
    assert body["discards"][2]["live"] is False and body["discards"][2]["tile"] == "1p"
    assert [(d["tile"], d["ready"], d["live"]) for d in body["discards"][:2]] == [
        ("1m", True, False), ("E", True, False)]
    assert "seen" in client.post("/v1/waits", json={"hand": "123m456p789sEESS"}).json()


def test_api_refuses_bad_seen_with_the_scorers_message(client: TestClient) -> None:
    """Too many of a kind or no tile code: 400 invalid_hand, the message naming it; seen
    in rule_context: 400 invalid_context; a number: 422 naming the field."""
    r = client.post("/v1/waits", json={"hand": "123m456p789sEESS", "seen": "EEE"})
    assert r.status_code == 400, r.text
    err = r.json()["error"]
    assert err["code"] == "invalid_hand"
    assert err["message"].startswith("seen: E seen 3 times, but the hand holds 2 of it")
    r = client.post("/v1/waits", json={"hand": "123m456p789sEESS", "seen": "12x"})
    assert (r.status_code, r.json()["error"]["code"]) == (400, "invalid_hand")
    r = client.post("/v1/waits", json={"hand": "123m456p789sEESS",
                                       "rule_context": {"seen": "E"}})
    assert (r.status_code, r.json()["error"]["code"]) == (400, "invalid_context")
    r = client.post("/v1/waits", json={"hand": "123m456p789sEESS", "seen": 5})
    assert r.status_code == 422 and "seen" in r.text


# --- tilecam recognize: the useful draws its JSON carries --------------------------


def _reading(hand: str) -> dict[str, object]:
    """A recognition's JSON of a hand that drew and is no win (what describe reads)."""
    return {"image": "x.jpg", "tiles": [], "hand": hand, "melds": [], "corrections": [],
            "alternatives": [], "notes": [],
            "unscorable": "shown as no win: 14 tiles, as a hand that drew",
            "discards": scoring.discards(hand).to_dict()}


def test_recognize_text_prints_the_useful_draws_of_a_hand_not_ready_as_waits_does(
        capsys: pytest.CaptureFixture[str]) -> None:
    """456m789p4s5s7s9sEESS leaves no discard ready: the text printed no discard at all,
    though the JSON has each with its useful draws (有效牌); now the best, the most
    first, as tilecam waits prints them, line for line: each tile with its Chinese name
    (recognize listed the codes alone after waits named them)."""
    text = describe(_reading("456m789p4s5s7s9sEESS")).splitlines()
    assert main(["waits", "456m789p4s5s7s9sEESS"]) == 0
    waits = capsys.readouterr().out.splitlines()[1:]
    assert "  discard 5s 五条   8 useful draw(s): 8s 八条 (4), E 东 (2), S 南 (2)" in waits
    assert text[-len(waits):] == waits
    assert "  (6 other discard(s) leave it further from ready)" in text


def test_recognize_text_says_a_discard_is_ready_in_form_only() -> None:
    text = describe(_reading("[EEE,2]123p456p1111mE"))
    assert "  discard 1p 一饼  10 useful draw(s): " in text
    assert "  discard 1m 一万 waits on E 东 (ready in form only: none left of any)" in text
    ready = describe(_reading("[EEE,2]123m456p789sN1s"))
    assert "  discard 1s 一条 waits on N 北\n" in ready + "\n" and "useful draw" not in ready
