"""Rule: a score sheet reads a Xiamen hand as the rules do — a meld's tile of the gold's kind
is a 白板 standing in (``scoring.stand_ins``) — so a table with gold 5m records
``[555m,1]5555m123p456pPEEE`` (a claimed pung of 5m, i.e. three 白板, beside four golds)
from a table's post, a camera's frames and a photo, as ``/v1/score`` scores it; before,
``scoring_bridge.normalize_hand`` parsed it as written and refused it ("7 copies of 5m")."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

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

import scoring
from tilecam.tables.scoring_bridge import normalize_hand, score_key, tiles_apart

FOUR_GOLDS = "[555m,1]5555m123p456pPEEE"
GOLD = {"gold": "5m"}
# the dealer's self-drawn win (four golds forbid a win on a discard)
WIN = {"hand": FOUR_GOLDS, "winner": "E", "self_drawn": True, "context": GOLD}


@pytest.fixture(params=["sqlite", "postgres"])
def api(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[TestClient,
                                                                          FakeCamera]]:
    app, cam = make_app(database_url(str(request.param), tmp_path), tmp_path / "data")
    for client in client_for(app):
        yield client, cam


def test_the_bridge_parses_a_hand_with_the_rules_stand_ins() -> None:
    """The sheet's parsing takes the table's rules and the hand's context; without them the
    hand is parsed as written (and refused), as before."""
    text = normalize_hand(FOUR_GOLDS, "xiamen", GOLD)
    assert text == scoring.format_hand(scoring.parse_hand(
        FOUR_GOLDS, melded_as=scoring.stand_ins("xiamen", gold="5m")))
    assert score_key(text, "xiamen", GOLD)
    with pytest.raises(ValueError, match="copies of 5m"):
        normalize_hand(FOUR_GOLDS)
    with pytest.raises(ValueError, match="copies of 5m"):
        normalize_hand(FOUR_GOLDS, "mcr", GOLD)  # MCR has no stand-ins
    # a re-read of such a hand is a tile from it (each meld's copies counted apart)
    assert tiles_apart(score_key(text, "xiamen", GOLD),
                       score_key(normalize_hand(FOUR_GOLDS + "1f", "xiamen", GOLD),
                                 "xiamen", GOLD)) == 1


def test_a_xiamen_table_records_a_gold_kind_meld_beside_four_golds(api) -> None:
    """Rule: a table's post of the hand is recorded and scored as ``/v1/score`` scores it;
    a re-send with its number is the same hand (200), a referee's correction of another
    field keeps the hand."""
    client, _ = api
    t, k = new_table(client, rules="xiamen")
    r = client.post(f"/v1/tables/{t}/hands", headers=bearer(k), json={**WIN, "number": 1})
    assert r.status_code == 201, r.text
    want = scoring.score(FOUR_GOLDS, rules="xiamen", self_drawn=True, seat_wind="E",
                         dealer=True, **GOLD)
    got = r.json()
    assert (got["outcome"], got["total"], got["legal"]) == ("win", want.total, True)
    assert got["hand"] == normalize_hand(FOUR_GOLDS, "xiamen", GOLD)
    again = client.post(f"/v1/tables/{t}/hands", headers=bearer(k), json={**WIN, "number": 1})
    assert again.status_code == 200 and again.json()["created"] is False
    fixed = client.post(f"/v1/tables/{t}/hands/1/corrections", headers=admin(),
                        json={"note": "checked", "reason": "a note"})
    assert fixed.status_code == 201, fixed.text
    assert fixed.json()["changed"] == ["note"] and fixed.json()["outcome"] == "win"


def test_a_xiamen_camera_and_photo_record_such_a_hand(api) -> None:
    """Rule: a camera frame's and a photo's reading of the hand parse with the frame's gold:
    the camera records it after its run of frames (it was never a hand: every frame
    waited), and a photo is recorded at once (it was 400 invalid_hand)."""
    client, cam = api
    level = cam.show(120, FOUR_GOLDS, tiles=17)
    form = {"winner": "E", "self_drawn": "true", "context": json.dumps(GOLD)}
    t, k = new_table(client, rules="xiamen")
    got = [client.post(f"/v1/tables/{t}/frames", headers=bearer(k), data=form,
                       files={"image": ("f.jpg", frame(level), "image/jpeg")}).json()
           for _ in range(3)]
    assert [g["status"] for g in got] == ["waiting", "waiting", "recorded"]
    assert got[-1]["recorded"]["outcome"] == "win" and got[-1]["complete"] is True
    p, pk = new_table(client, rules="xiamen")
    r = client.post(f"/v1/tables/{p}/photos", headers=bearer(pk), data=form,
                    files={"image": ("p.jpg", frame(level), "image/jpeg")})
    assert r.status_code == 201, r.text
    assert r.json()["outcome"] == "win" and r.json()["source"] == "photo"
