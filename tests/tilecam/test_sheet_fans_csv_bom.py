"""The score sheet names each hand's fans, and its CSVs open in Excel (review "i18n" of
session 76, findings 3 and 6):

- F1: ``GET /v1/tables/{id}/sheet`` gives each hand ``fans`` — the fans of the score
  stored with its current revision, by Chinese and English name, value and count (the
  sets left out), as ``GET …/hands/{n}`` has them in ``score.fans``; null for a drawn
  hand; taken from the stored score, never scored again;
- F2: ``sheet.csv`` has a ``fans`` column after ``total``: ``清一色 Full Flush 24; 自摸
  Self-Drawn 1``, ``value×count`` for a fan counted more than once (as the phone page
  writes it); empty on a draw, a penalty and the totals;
- F3: ``sheet.csv`` and ``standings.csv`` begin with the UTF-8 byte-order mark, once,
  served as ``text/csv; charset=utf-8``: Excel on Windows reads a CSV without it in the
  system's code page and garbles Chinese names.
"""

from __future__ import annotations

import codecs
import csv
import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from test_tables_helpers import admin, bearer, client_for, database_url, make_app

import scoring

needs_mcr = pytest.mark.skipif("mcr" not in scoring.rule_sets(),
                               reason="the MCR rule set is not built yet")

PLAYERS = ["张三", "李四", "王五", "赵六"]
#: Self-drawn, 14 fan with 幺九刻 Pung of Terminals or Honors counted twice.
TWICE = "111m999m11p123s789s"
PLAIN_HAND = "123m456m789m123p55p"


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    app, _ = make_app(database_url("sqlite", tmp_path), tmp_path / "data")
    yield from client_for(app)


def chinese_table(client: TestClient, rules: str = "mcr") -> tuple[int, int, str]:
    """An event 「春季公开赛」 with one table 「一号桌」 of four Chinese-named players:
    ``(event id, table id, table key)``."""
    r = client.post("/v1/events", json={"name": "春季公开赛", "rules": rules}, headers=admin())
    assert r.status_code == 201, r.text
    event = r.json()["id"]
    r = client.post(f"/v1/events/{event}/tables", headers=admin(),
                    json={"name": "一号桌", "players": PLAYERS})
    assert r.status_code == 201, r.text
    return event, r.json()["id"], r.json()["api_key"]


def post_hand(client: TestClient, t: int, k: str, **body: Any) -> dict[str, Any]:
    r = client.post(f"/v1/tables/{t}/hands", headers=bearer(k), json=body)
    assert r.status_code == 201, r.text
    return dict(r.json())


def without_sets(fans: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in f.items() if k != "sets"} for f in fans]


def csv_rows(client: TestClient, path: str, key: str) -> list[dict[str, str]]:
    r = client.get(path, headers=bearer(key))
    assert r.status_code == 200, r.text
    return list(csv.DictReader(io.StringIO(r.content.decode("utf-8-sig"))))


# --- F1. the sheet's JSON ---------------------------------------------------------------


@needs_mcr
def test_the_whole_sheet_gives_each_hand_the_fans_of_its_stored_score(
        client: TestClient) -> None:
    """F1: a self-drawn win, a drawn hand and a win on a discard: the sheet's ``fans`` are
    the hand's ``score.fans`` less the sets; the drawn hand's are null."""
    _, t, k = chinese_table(client)
    post_hand(client, t, k, hand=TWICE, winner="E", self_drawn=True)
    post_hand(client, t, k, outcome="draw")
    post_hand(client, t, k, hand=PLAIN_HAND, winner="N", discarder="E")
    body = client.get(f"/v1/tables/{t}/sheet", headers=bearer(k)).json()
    hands = client.get(f"/v1/tables/{t}/hands", headers=bearer(k)).json()["hands"]
    for sheet_hand, hand in zip(body["hands"], hands, strict=True):
        assert "score" not in sheet_hand
        if hand["score"] is None:
            assert sheet_hand["fans"] is None, sheet_hand
        else:
            assert sheet_hand["fans"] == without_sets(hand["score"]["fans"])
    first = body["hands"][0]["fans"]
    assert {"zh": "幺九刻", "en": "Pung of Terminals or Honors", "value": 1,
            "count": 2} in first
    assert sum(f["value"] * f["count"] for f in first) == body["hands"][0]["total"]
    assert body["hands"][1]["outcome"] == "draw" and body["hands"][1]["fans"] is None


@needs_mcr
def test_the_sheet_reads_the_fans_stored_with_the_hand_and_scores_nothing_again(
        client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """F1, F2: the fans come from the revision's stored score (what the scorer answered
    when the hand was recorded): with the scorer gone, the sheet and its CSV still give
    them."""
    from tilecam.tables import scoring_bridge

    _, t, k = chinese_table(client)
    recorded = post_hand(client, t, k, hand=PLAIN_HAND, winner="N", discarder="E")

    def gone(*_: Any, **__: Any) -> None:
        raise AssertionError("the sheet scored a hand again")

    monkeypatch.setattr(scoring, "score", gone)
    monkeypatch.setattr(scoring_bridge, "_score", gone)
    body = client.get(f"/v1/tables/{t}/sheet", headers=bearer(k)).json()
    assert body["hands"][0]["fans"] == without_sets(recorded["score"]["fans"])
    [hand, _total] = csv_rows(client, f"/v1/tables/{t}/sheet.csv", k)
    assert hand["fans"].split("; ")[0] == "清龙 Pure Straight 16"


@needs_mcr
def test_a_false_claim_keeps_the_fans_of_the_win_as_claimed(client: TestClient) -> None:
    """F1, F2: a hand ruled a false claim keeps its claimed win's fans (why it was ruled
    so: MCR's 8-fan minimum), while its total stays out of the CSV."""
    _, t, k = chinese_table(client)
    claimed = post_hand(client, t, k, hand=PLAIN_HAND, winner="N", discarder="E")
    r = client.post(f"/v1/tables/{t}/hands/1/false-claim", headers=admin(),
                    json={"reason": "裁判：错和", "kind": "wrong_win"})
    assert r.status_code == 201, r.text
    hand = client.get(f"/v1/tables/{t}/sheet", headers=bearer(k)).json()["hands"][0]
    assert hand["outcome"] == "false_claim"
    assert hand["fans"] == without_sets(claimed["score"]["fans"])
    row = csv_rows(client, f"/v1/tables/{t}/sheet.csv", k)[0]
    assert row["outcome"] == "false_claim" and row["total"] == ""
    assert row["fans"].startswith("清龙 Pure Straight 16; ")


def test_a_regional_hand_s_items_are_its_fans(client: TestClient) -> None:
    """F1, F2: Zhenjiang scores in its own items (底 …): the sheet names them as its
    score does."""
    if "zhenjiang" not in scoring.rule_sets():
        pytest.skip("the Zhenjiang rule set is not built")
    _, t, k = chinese_table(client, rules="zhenjiang")
    recorded = post_hand(client, t, k, hand="123m456m789m234pEE", winner="N", discarder="E",
                         context={"indicator": "1m"})
    fans = without_sets(recorded["score"]["fans"])
    assert fans
    hand = client.get(f"/v1/tables/{t}/sheet", headers=bearer(k)).json()["hands"][0]
    assert hand["fans"] == fans
    row = csv_rows(client, f"/v1/tables/{t}/sheet.csv", k)[0]
    assert row["fans"] == "; ".join(
        f"{f['zh']} {f['en']} {f['value']}" + (f"×{f['count']}" if f["count"] > 1 else "")
        for f in fans)


# --- F2. the CSV's fans column --------------------------------------------------------------


@needs_mcr
def test_the_sheet_csv_names_each_hand_s_fans_after_its_total(client: TestClient) -> None:
    """F2: the column ``fans`` after ``total``; a fan counted twice reads ``1×2``; a draw,
    a penalty and the totals leave it empty; every row as long as the header."""
    _, t, k = chinese_table(client)
    recorded = post_hand(client, t, k, hand=TWICE, winner="E", self_drawn=True)
    post_hand(client, t, k, outcome="draw")
    r = client.post(f"/v1/tables/{t}/penalties", headers=admin(),
                    json={"player": "李四", "kind": "deduction", "points": 10,
                          "reason": "慢打"})
    assert r.status_code == 201, r.text
    text = client.get(f"/v1/tables/{t}/sheet.csv", headers=bearer(k)).content.decode(
        "utf-8-sig")
    raw = list(csv.reader(io.StringIO(text)))
    head = raw[0]
    assert head[head.index("total") + 1] == "fans"
    assert all(len(row) == len(head) for row in raw), raw
    win, draw, penalty, total = csv.DictReader(io.StringIO(text))
    expected = "; ".join(
        f"{f['zh']} {f['en']} {f['value']}" + (f"×{f['count']}" if f["count"] > 1 else "")
        for f in recorded["score"]["fans"])
    assert win["fans"] == expected
    assert "幺九刻 Pung of Terminals or Honors 1×2" in win["fans"].split("; ")
    assert "不求人 Fully Concealed Hand 4" in win["fans"].split("; ")
    assert (draw["outcome"], draw["fans"]) == ("draw", "")
    assert (penalty["row"], penalty["fans"], penalty["player"], penalty["points"],
            penalty["note"]) == ("penalty", "", "李四", "10", "慢打")
    assert total["row"] == "total" and total["fans"] == ""
    assert int(total["points 张三"]) == int(win["points 张三"]) > 0


# --- F3. the byte-order mark ----------------------------------------------------------------


@needs_mcr
def test_every_csv_begins_with_the_utf8_byte_order_mark_once(client: TestClient) -> None:
    """F3: the sheet's and the event's CSV: ``text/csv; charset=utf-8``, the BOM once at
    the start, then the header; the Chinese names read back as UTF-8."""
    event, t, k = chinese_table(client)
    post_hand(client, t, k, hand=PLAIN_HAND, winner="N", discarder="E")
    for path, key, head in ((f"/v1/tables/{t}/sheet.csv", k, "row,hand,round,"),
                            (f"/v1/events/{event}/standings.csv", admin()["Authorization"][7:],
                             "rank,player,tables,")):
        r = client.get(path, headers=bearer(key))
        assert r.status_code == 200, r.text
        assert r.headers["content-type"] == "text/csv; charset=utf-8"
        assert r.content.startswith(codecs.BOM_UTF8 + head.encode()), r.content[:40]
        assert r.content.count(codecs.BOM_UTF8) == 1
        text = r.content.decode("utf-8-sig")
        assert "赵六" in text and "\ufeff" not in text
    rows = csv_rows(client, f"/v1/events/{event}/standings.csv", admin()["Authorization"][7:])
    assert {(row["player"], row["tables"]) for row in rows} == {(p, "一号桌") for p in PLAYERS}
