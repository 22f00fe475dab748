"""A table image's ``flowers`` means what ``/v1/recognize``'s does (vision.flower_count).

The count (bonus tiles, 0-8) given with a camera frame (``POST /v1/tables/{id}/frames``)
or a table photo (``POST …/photos``) is the flowers of an image that shows none:

1. a frame that shows exactly that many flowers keeps its reading, its flowers counted
   once (the sheet's total is ``/v1/score``'s for the hand, not the count added again);
2. a complete hand read showing another number of flowers is 400 ``invalid_context``
   naming both counts, nothing recorded — before, the frame answered ``recorded`` and the
   hand went on the sheet ``pending`` with the scorer's refusal (a photo too);
3. rules without flowers (Zhenjiang) refuse a count above 0 before the image is read —
   before, three frames were read and the hand recorded ``pending``;
4. a frame with no complete hand records nothing and is not refused; a hand posted in
   notation with its flowers and the same count scores as ``/v1/score``.

Hands in notation: ``123m456m789m234p55s12f`` (S wins off E; 清龙 门前清 平和 单钓将 and two
flowers), the same with ``1f`` alone and with none; Zhenjiang
``[111m,1][222p,2][333s,3]EEE55s`` (百搭 9p).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
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
    new_table,
)

from tilecam.tables.scoring_bridge import image_flowers_clash

TWO = "123m456m789m234p55s12f"  # shows 2 flowers
ONE = "123m456m789m234p55s1f"  # shows 1 flower
NONE = "123m456m789m234p55s"  # shows none
ZJ = "[111m,1][222p,2][333s,3]EEE55s"
L_TWO, L_ONE, L_NONE, L_ZJ, L_PART = 100, 150, 200, 50, 230
WIN = {"winner": "S", "discarder": "E"}

Api = tuple[TestClient, FakeCamera]


@pytest.fixture
def api(tmp_path: Path) -> Iterator[Api]:
    app, cam = make_app(database_url("sqlite", tmp_path), tmp_path / "data")
    cam.show(L_TWO, TWO)
    cam.show(L_ONE, ONE)
    cam.show(L_NONE, NONE)
    cam.show(L_ZJ, ZJ)
    cam.show(L_PART, "123m456m789m1f", complete=False, tiles=10)  # mid-play, a flower shown
    for client in client_for(app):
        yield client, cam


def post_frames(client: TestClient, t: int, k: str, level: int, frames: int = 3,
                **fields: str) -> Any:
    """``frames`` frames of one scene (stops at the first refused); the last answer."""
    r = None
    for _ in range(frames):
        r = client.post(f"/v1/tables/{t}/frames", headers=bearer(k), data={**WIN, **fields},
                        files={"image": ("f.jpg", frame(level), "image/jpeg")})
        if r.status_code != 200:
            break
    assert r is not None
    return r


def sheet(client: TestClient, t: int) -> list[tuple[str, Any, str]]:
    got = client.get(f"/v1/tables/{t}/hands", headers=admin()).json()["hands"]
    return [(h["hand"], h["total"], h["outcome"]) for h in got]


def score_total(client: TestClient, hand: str, flowers: int) -> int:
    """``/v1/score``'s total (fan) for S winning ``hand`` off E (seat offset 3)."""
    r = client.post("/v1/score", json={"hand": hand, "flowers": flowers, "seat_wind": "S",
                                       "discarder": 3})
    assert r.status_code == 200, r.text
    return int(r.json()["total"])


#: What every answer that takes a flower count says of one under Zhenjiang (``/v1/score``'s
#: words, :meth:`scoring.rulesets.base.RuleSet.refuse_flowers`).
ZHENJIANG_FLOWERS = ("Zhenjiang plays 136 tiles without flowers: flowers=1 cannot be "
                     "(leave it out)")


def test_a_frame_showing_the_flowers_it_is_sent_with_counts_them_once(api: Api) -> None:
    """MCR 花牌 1 fan each: 2 flowers shown and flowers=2 are 2 fan, not 4."""
    client, _ = api
    t, k = new_table(client)
    r = post_frames(client, t, k, L_TWO, flowers="2")
    assert r.status_code == 200 and r.json()["status"] == "recorded", r.text
    [(_, total, outcome)] = sheet(client, t)
    assert outcome == "win"
    assert total == score_total(client, TWO, 0) == score_total(client, NONE, 2)
    assert total == score_total(client, NONE, 0) + 2


def test_a_frame_showing_none_takes_the_count(api: Api) -> None:
    client, _ = api
    t, k = new_table(client)
    assert post_frames(client, t, k, L_NONE, flowers="2").json()["status"] == "recorded"
    assert [total for _, total, _ in sheet(client, t)] == [score_total(client, NONE, 2)]


def test_a_frame_showing_another_number_of_flowers_goes_to_the_referee(api: Api) -> None:
    """A camera's complete hand showing 1 flower sent with flowers=2 is recorded
    ``pending`` with the scorer's refusal naming both counts, as any hand the scorer
    refuses (nobody is at an automatic table to send the frame again): the hand is kept
    for the referee, not refused and lost."""
    client, _ = api
    t, k = new_table(client)
    r = post_frames(client, t, k, L_ONE, flowers="2")
    assert r.status_code == 200 and r.json()["status"] == "recorded", r.text
    assert [outcome for _, _, outcome in sheet(client, t)] == ["pending"]
    hand = client.get(f"/v1/tables/{t}/hands/1", headers=admin()).json()
    assert "shows 1 flowers but flowers=2" in json.dumps(hand), hand


def test_a_frame_without_a_complete_hand_is_not_refused_for_its_flowers(api: Api) -> None:
    client, _ = api
    t, k = new_table(client)
    r = post_frames(client, t, k, L_PART, frames=1, flowers="2")
    assert r.status_code == 200 and r.json()["status"] == "waiting", r.text


def test_a_zhenjiang_frame_with_flowers_is_refused_before_it_is_read(api: Api) -> None:
    """Zhenjiang plays 136 tiles, no flowers: was read three times and recorded pending."""
    client, cam = api
    t, k = new_table(client, rules="zhenjiang")
    r = post_frames(client, t, k, L_ZJ, flowers="1", context=json.dumps({"wild": "9p"}))
    assert r.status_code == 400, r.text
    assert r.json()["error"]["code"] == "invalid_context"
    assert r.json()["error"]["message"] == ZHENJIANG_FLOWERS
    assert cam.calls == 0 and sheet(client, t) == []
    r = post_frames(client, t, k, L_ZJ, flowers="0", context=json.dumps({"wild": "9p"}))
    assert r.json()["status"] == "recorded", r.text


def test_a_table_photo_showing_another_number_of_flowers_is_refused(api: Api) -> None:
    client, _ = api
    t, k = new_table(client)
    r = client.post(f"/v1/tables/{t}/photos", headers=bearer(k), data={**WIN, "flowers": "2"},
                    files={"image": ("p.jpg", frame(L_ONE), "image/jpeg")})
    assert r.status_code == 400 and r.json()["error"]["code"] == "invalid_context", r.text
    assert "flowers 2" in r.json()["error"]["message"] and sheet(client, t) == []


def test_a_posted_hand_with_its_flowers_and_the_count_scores_as_score_does(api: Api) -> None:
    client, _ = api
    t, k = new_table(client)
    r = client.post(f"/v1/tables/{t}/hands", headers=bearer(k),
                    json={"hand": TWO, **WIN, "flowers": 2})
    assert r.status_code == 201, r.text
    assert r.json()["total"] == score_total(client, TWO, 2) == score_total(client, TWO, 0)
    r = client.post(f"/v1/tables/{t}/hands", headers=bearer(k),
                    json={"hand": ONE, **WIN, "flowers": 2, "number": 2})
    assert r.status_code == 400 and "shows 1 flowers but flowers=2" in r.text


@pytest.mark.parametrize(("hand", "flowers", "clash"), [
    (TWO, 2, False), (NONE, 2, False), (TWO, 0, False), (ONE, 2, True), (TWO, 1, True),
    ("not a hand", 2, False),
])
def test_image_flowers_clash(hand: str, flowers: int, clash: bool) -> None:
    assert (image_flowers_clash(hand, flowers) is not None) is clash


def test_a_posted_zhenjiang_hand_with_flowers_is_refused_as_score_refuses_it(
        api: Api) -> None:
    """Zhenjiang plays 136 tiles, no flowers: a table's hand posted with flowers=1 is 400
    ``invalid_context`` in ``/v1/score``'s words (was ``invalid_hand`` "remove the
    flowers", the words for flowers written in the hand), nothing recorded."""
    client, _ = api
    t, k = new_table(client, rules="zhenjiang")
    body = {"hand": "123m456m789m234p55s", **WIN, "flowers": 1, "context": {"wild": "9p"}}
    r = client.post(f"/v1/tables/{t}/hands", headers=bearer(k), json=body)
    assert r.status_code == 400, r.text
    assert r.json()["error"]["code"] == "invalid_context"
    assert r.json()["error"]["message"] == ZHENJIANG_FLOWERS
    # /v1/score words it so
    said = client.post("/v1/score", json={"hand": body["hand"], "rules": "zhenjiang",
                                          "flowers": 1, "rule_context": {"wild": "9p"}})
    assert said.status_code == 400 and said.json()["error"]["message"] == ZHENJIANG_FLOWERS
    assert sheet(client, t) == []
