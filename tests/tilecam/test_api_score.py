"""``POST /v1/score``, ``POST /v1/waits`` and ``GET /v1/rules``: the scorer over HTTP.

The answers must be exactly the scorer's (``Score.to_dict()``, the JSON of
``tilecam score --json``); malformed hands, wrong JSON types and wrong content types
are 4xx JSON errors naming the problem.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

import scoring
from tilecam.app import create_app
from tilecam.settings import Settings

# RULES.md: "[EEE,2][SSSS,1]WWWNN55pN self-drawn is 98 fan".
BIG_FOUR = "[EEE,2][SSSS,1]WWWNN55pN"


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with TestClient(create_app(Settings(load_model=False)), raise_server_exceptions=False) as c:
        yield c


def error_of(r: Any, status: int) -> dict[str, str]:
    assert r.status_code == status, r.text
    body = r.json()
    assert list(body) == ["error"] and set(body["error"]) == {"code", "message"}, body
    return dict(body["error"])


def test_score_of_the_rules_example_is_98_self_drawn(client: TestClient) -> None:
    r = client.post("/v1/score", json={"hand": BIG_FOUR, "self_drawn": True})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["total"] == 98
    assert body == scoring.score(BIG_FOUR, self_drawn=True).to_dict()
    assert {"total", "legal", "rules", "version", "fans", "settlement"} <= set(body)


@pytest.mark.parametrize(
    "context",
    [
        {},
        {"self_drawn": True, "seat_wind": "S", "prevalent_wind": "W"},
        {"last_of_kind": True},
        {"version": "98-strict"},
        {"flowers": 3},
    ],
)
def test_score_equals_the_scorer_for_each_context(
    client: TestClient, context: dict[str, Any]
) -> None:
    hand = "[123m,2]456m11p555s78s9s"
    r = client.post("/v1/score", json={"hand": hand, **context})
    assert r.status_code == 200, r.text
    assert r.json() == scoring.score(hand, **context).to_dict()


def test_structured_hand_scores_like_its_notation(client: TestClient) -> None:
    structured = {
        "melds": [
            {"kind": "pung", "tiles": ["E", "E", "E"], "claimed_from": 2},
            {"kind": "kong", "tiles": ["S"] * 4, "claimed_from": 1},
        ],
        "standing": ["W", "W", "W", "N", "N", "5p", "5p"],
        "winning_tile": "N",
        "self_drawn": True,
    }
    r = client.post("/v1/score", json=structured)
    assert r.status_code == 200, r.text
    assert r.json() == scoring.score(BIG_FOUR, self_drawn=True).to_dict()


def test_flowers_as_codes_count_like_a_number(client: TestClient) -> None:
    by_codes = client.post("/v1/score", json={"hand": BIG_FOUR, "flowers": ["1f", "5f"]})
    by_count = client.post("/v1/score", json={"hand": BIG_FOUR, "flowers": 2})
    assert by_codes.status_code == by_count.status_code == 200
    assert by_codes.json()["total"] == by_count.json()["total"]


def test_waits_of_a_ready_hand(client: TestClient) -> None:
    hand = "[EEE,2][SSSS,1]WWWNN55p"
    r = client.post("/v1/waits", json={"hand": hand})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body == scoring.waits(hand).to_dict()
    assert body["ready"] and {w["tile"] for w in body["waits"]} == {"N", "5p"}


def test_rules_lists_every_rule_set_with_versions_and_tiles(client: TestClient) -> None:
    r = client.get("/v1/rules")
    assert r.status_code == 200
    body = r.json()
    names = {s["name"] for s in body["rule_sets"]}
    assert names == set(scoring.rule_sets())
    mcr = next(s for s in body["rule_sets"] if s["name"] == "mcr")
    assert {"98-strict", "98-supplement", "wmo-2006", "mil-2015"} <= set(mcr["versions"])
    assert mcr["default_version"] == "mil-2015"
    assert len(body["tiles"]["classes"]) == 43 and body["tiles"]["zh"]["C"] == "中"


@pytest.mark.parametrize(
    ("body", "word"),
    [
        ({"hand": "123m456x"}, "x"),
        ({"hand": "11111m"}, "copies"),
        ({"hand": "[123m,2]456m789m11p55s"}, ""),  # 13 tiles: not a winning hand
        ({"standing": ["1m", "2m", "zz"]}, "zz"),
        ({"standing": ["1m"], "melds": [{"kind": "chow", "tiles": ["1m", "2m", "4m"]}]}, "chow"),
    ],
)
def test_malformed_hands_are_400_naming_the_problem(
    client: TestClient, body: dict[str, Any], word: str
) -> None:
    err = error_of(client.post("/v1/score", json=body), 400)
    assert err["code"] == "invalid_hand"
    assert word in err["message"], err


@pytest.mark.parametrize("path", ["/v1/score", "/v1/waits"])
@pytest.mark.parametrize(
    ("body", "word"),
    [
        ({"rules": "poker"}, "poker"),
        ({"version": "1850"}, "1850"),
        ({"settings": {"nope": 1}}, "nope"),
        ({"rules": "xiamen"}, "gold"),  # the gold (金) every Xiamen answer needs
        ({"rules": "zhenjiang"}, "百搭"),
        ({"rule_context": {"gold": "5m"}}, "gold"),  # MCR has no such field
    ],
)
def test_a_win_context_that_cannot_be_is_invalid_context_even_with_a_bad_hand(
    client: TestClient, path: str, body: dict[str, Any], word: str
) -> None:
    """The rule set, version, settings and win context are checked before the hand and
    answered 400 invalid_context, as /v1/recognize answers them (they were invalid_hand);
    the hand here has an unknown tile too."""
    err = error_of(client.post(path, json={"hand": "123m456x", **body}), 400)
    assert err["code"] == "invalid_context", err
    assert word in err["message"], err


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"hand": 123}, "hand"),
        ({"hand": BIG_FOUR, "self_drawn": "often"}, "self_drawn"),
        ({"hand": BIG_FOUR, "seat_wind": "X"}, "seat_wind"),
        ({"hand": BIG_FOUR, "flowers": "two"}, "flowers"),
        ({"hand": BIG_FOUR, "flowers": 9}, "flowers"),
        ({"hand": BIG_FOUR, "selfdrawn": True}, "selfdrawn"),
        ({"standing": "123m"}, "standing"),
        ({"hand": BIG_FOUR, "standing": ["1m"]}, "not both"),
        ({}, "no hand"),
        ({"standing": ["1m"], "melds": [{"kind": "triple", "tiles": ["1m"] * 3}]}, "kind"),
    ],
)
def test_wrong_json_types_are_422_naming_the_field(
    client: TestClient, body: dict[str, Any], field: str
) -> None:
    err = error_of(client.post("/v1/score", json=body), 422)
    assert err["code"] == "invalid_request"
    assert field in err["message"], err


def test_a_json_array_instead_of_an_object_is_422(client: TestClient) -> None:
    err = error_of(client.post("/v1/score", json=[BIG_FOUR]), 422)
    assert err["code"] == "invalid_request"


def test_invalid_json_is_422_saying_so(client: TestClient) -> None:
    r = client.post("/v1/score", content=b'{"hand": ', headers={"content-type": "application/json"})
    err = error_of(r, 422)
    assert "not valid JSON" in err["message"]


@pytest.mark.parametrize("ctype", ["text/plain", "application/x-www-form-urlencoded", None])
def test_wrong_content_type_is_415(client: TestClient, ctype: str | None) -> None:
    headers = {"content-type": ctype} if ctype else {}
    r = client.post("/v1/score", content=b'{"hand": "x"}', headers=headers)
    err = error_of(r, 415)
    assert err["code"] == "unsupported_media_type"
    assert "application/json" in err["message"]


def test_unknown_path_is_404_json(client: TestClient) -> None:
    err = error_of(client.get("/v1/nothing-here"), 404)
    assert err["code"] == "not_found" and "/v1/nothing-here" in err["message"]


def test_wrong_method_is_405_json(client: TestClient) -> None:
    err = error_of(client.get("/v1/score"), 405)
    assert err["code"] == "method_not_allowed" and "GET" in err["message"]


def test_openapi_docs_are_served(client: TestClient) -> None:
    assert client.get("/docs").status_code == 200
    spec = client.get("/openapi.json").json()
    for path in ("/v1/score", "/v1/recognize", "/v1/detect", "/v1/waits", "/v1/rules", "/readyz"):
        assert path in spec["paths"], path


def test_page_and_its_assets_are_served(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    assert 'capture="environment"' in page.text and "/static/app.js" in page.text
    # capture opens the camera only: a second picker without it offers the photo library
    pick = page.text.split('id="photo-pick"')[1].split(">")[0]
    assert "capture" not in pick and 'accept="image/*"' in pick
    for asset in ("/static/app.js", "/static/app.css"):
        assert client.get(asset).status_code == 200, asset
    err = error_of(client.get("/static/nope.js"), 404)
    assert err["code"] == "not_found"


def test_score_json_is_the_same_as_the_cli(
    client: TestClient, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    from tilecam.cli import main

    assert main(["score", BIG_FOUR, "--self-drawn", "--seat", "S", "--json"]) == 0
    cli = json.loads(capsys.readouterr().out)
    api = client.post("/v1/score", json={"hand": BIG_FOUR, "self_drawn": True, "seat_wind": "S"})
    assert api.json() == cli


@pytest.mark.parametrize(("body", "why"), [
    (b'{"hand": ' + b"[" * 1500 + b"]" * 1500 + b"}", "nests lists or objects too deeply"),
    (b'{"hand": "11223344556677m", "flowers": ' + b"9" * 5000 + b"}", "number too long"),
    (b'{"hand": "11223344556677m\xff"}', "not UTF-8 text"),
])
def test_a_body_the_json_parser_gives_up_on_says_why(
        client: TestClient, body: bytes, why: str) -> None:
    """Every bad input gets a clear error naming what is wrong: JSON nested too deep, a
    number of thousands of digits and bytes that are not UTF-8 were all answered "There
    was an error parsing the body"."""
    r = client.post("/v1/score", content=body, headers={"Content-Type": "application/json"})
    assert r.status_code == 400, r.text
    assert why in r.json()["error"]["message"]


def test_waits_on_a_hand_that_drew_lists_its_discards(client: TestClient) -> None:
    """A hand of a win's size that is no win: every discard that leaves it ready, with
    the waits of what is kept, best first (it was "wrong number of tiles for a wait")."""
    r = client.post("/v1/waits", json={"hand": "[EEE,2]123m456p789sN1s"})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["shanten"] == 0
    ready = [(d["tile"], [w["tile"] for w in d["waits"]]) for d in body["discards"] if d["ready"]]
    assert sorted(ready) == [("1s", ["N"]), ("N", ["1s"])]
    assert body["win"] is False  # as tilecam waits says: the hand is no win already
    won = client.post("/v1/waits", json={"hand": "123m456p789sEEENN"}).json()
    assert won["win"] is True and won["win_total"] == scoring.score("123m456p789sEEENN").total


@pytest.mark.parametrize("meld", [{"claimed_from": "2"}, {"added": "true"}])
def test_a_melds_fields_of_the_wrong_json_type_are_422(
    client: TestClient, meld: dict[str, Any]
) -> None:
    """Strict JSON reaches into the melds too (diff review: a string seat was read as 2)."""
    body = {"standing": ["1m", "1m"], "winning_tile": "1m",
            "melds": [{"kind": "pung", "tiles": ["E", "E", "E"], **meld}]}
    r = client.post("/v1/score", json=body)
    assert r.status_code == 422 and r.json()["error"]["code"] == "invalid_request", r.text


@pytest.mark.parametrize("flowers", [2, ["1f", "2f"]])
def test_flowers_under_rules_without_them_are_invalid_context_as_a_count_or_codes(
    client: TestClient, flowers: Any
) -> None:
    """Zhenjiang plays no flowers: the ``flowers`` field, a count or codes, is a win
    context no hand can take (the codes were answered invalid_hand, the count
    invalid_context)."""
    body = {"hand": "[EEE,2]123m456p789sNN", "rules": "zhenjiang",
            "rule_context": {"indicator": "C"}, "flowers": flowers}
    err = error_of(client.post("/v1/score", json=body), 400)
    assert err["code"] == "invalid_context" and "without flowers" in err["message"], err
