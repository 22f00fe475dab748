"""What a referee or an automatic table sends that the sheet must refuse or keep — found
by the sixty-fifth session's walk through a tournament day with the README alone: a
blank correction reason, a win reported without its winner on tiles that are no hand,
a drawn hand's stray or huge context, a camera's impossible flower count, a penalty on
a hand not played yet; and a claim on tiles that form no win (诈和), which is a false
claim to rule, not bad input. Every test runs on SQLite and on PostgreSQL."""

from __future__ import annotations

import csv
import io

from fastapi.testclient import TestClient
from test_tables_helpers import admin, bearer, frame, new_table

PLAIN_HAND = "123m456m789m123p55p"
WRONG_TILE = "123m345m234p567p9s1s"  # ready on 9s alone, claimed on 1s: 和错牌
LOW_WIN = "[234m,1]456p678s234s99m"






def message(r) -> str:
    return str(r.json()["error"]["message"])


def recorded(client: TestClient, t: int, k: str) -> int:
    return len(client.get(f"/v1/tables/{t}/hands", headers=bearer(k)).json()["hands"])


def test_a_correction_needs_a_reason_that_is_not_blank(sheet) -> None:
    """The history says why each revision exists: a blank reason is refused, as it is
    for a void (before, a correction took "   ")."""
    client, _ = sheet
    t, k = new_table(client)
    client.post(f"/v1/tables/{t}/hands", json={"outcome": "draw"}, headers=bearer(k))
    r = client.post(f"/v1/tables/{t}/hands/1/corrections", headers=admin(),
                    json={"outcome": "draw", "reason": "   "})
    assert r.status_code == 400 and "needs a reason" in message(r)


def test_a_win_reported_without_its_winner_must_still_be_a_hand(sheet) -> None:
    """A table's win with no winner is held pending for the referee — but only a hand:
    three tiles, or a context field the rules do not have, are refused as they are with
    a winner (before, both took a place of the deal)."""
    client, _ = sheet
    t, k = new_table(client)
    short = client.post(f"/v1/tables/{t}/hands", headers=bearer(k),
                        json={"hand": "123m", "self_drawn": True})
    assert short.status_code == 400 and "tile" in message(short)
    stray = client.post(f"/v1/tables/{t}/hands", headers=bearer(k),
                        json={"hand": PLAIN_HAND, "self_drawn": True, "context": {"bogus": 1}})
    assert stray.status_code == 400 and "bogus" in message(stray)
    assert recorded(client, t, k) == 0
    ok = client.post(f"/v1/tables/{t}/hands", headers=bearer(k),
                     json={"hand": PLAIN_HAND, "self_drawn": True})
    assert ok.status_code == 201 and ok.json()["outcome"] == "pending"


def test_a_drawn_hand_takes_only_the_context_its_rules_book(sheet) -> None:
    """Nobody won: a draw's context holds the rules' own fields only (MCR has none;
    Zhenjiang its indicator and 打首搭/碰后打搭 seats); a context of a megabyte is
    refused before it is stored (before, both were stored and returned on every read
    of the sheet)."""
    client, _ = sheet
    t, k = new_table(client)
    r = client.post(f"/v1/tables/{t}/hands", headers=bearer(k),
                    json={"outcome": "draw", "context": {"gold": "5m"}})
    assert r.status_code == 400 and "'gold'" in message(r)
    huge = client.post(f"/v1/tables/{t}/hands", headers=bearer(k),
                       json={"outcome": "draw", "context": {"k": "x" * 1_000_000}})
    assert huge.status_code == 422 and "at most 2,000" in huge.text
    assert recorded(client, t, k) == 0
    z, zk = new_table(client, "zhenjiang")
    ok = client.post(f"/v1/tables/{z}/hands", headers=bearer(zk),
                     json={"outcome": "draw", "context": {"first_wild_discard": "N"}})
    assert ok.status_code == 201, ok.text
    bad = client.post(f"/v1/tables/{z}/hands", headers=bearer(zk),
                      json={"outcome": "draw", "context": {"bogus": "9s"}})
    assert bad.status_code == 400 and "'bogus'" in message(bad)


def test_a_camera_frame_with_an_impossible_flower_count_is_refused_at_once(sheet) -> None:
    """There are 8 bonus tiles: a frame saying 99 hears so on its first frame (400) and
    counts for nothing, as the JSON route refuses it (before, every revealed hand was
    recorded pending)."""
    client, cam = sheet
    t, k = new_table(client)
    level = cam.show(120, PLAIN_HAND)
    for flowers in ("99", "-3"):
        r = client.post(f"/v1/tables/{t}/frames", headers=bearer(k),
                        data={"winner": "S", "self_drawn": "true", "flowers": flowers},
                        files={"image": ("f.jpg", frame(level), "image/jpeg")})
        assert r.status_code == 400 and "0-8" in message(r)
    assert cam.calls == 0 and recorded(client, t, k) == 0


def test_a_claim_on_tiles_that_form_no_win_is_kept_for_a_false_claim_ruling(sheet) -> None:
    """Seed 003 (三) 和错牌: a ready hand declared on a tile it does not wait on is
    penalized as 错和. An automatic table reporting it gets it recorded pending (before,
    400 "not a winning hand", so only a camera could bring such a claim to the sheet),
    and the referee's ruling reads the penalty from it."""
    client, _ = sheet
    t, k = new_table(client)
    r = client.post(f"/v1/tables/{t}/hands", headers=bearer(k),
                    json={"hand": WRONG_TILE, "winner": "W", "discarder": "E"})
    assert r.status_code == 201, r.text
    assert r.json()["outcome"] == "pending" and "not a winning hand" in r.json()["note"]
    ruled = client.post(f"/v1/tables/{t}/hands/1/false-claim", headers=admin(),
                        json={"reason": "W declared on 1s"})
    assert ruled.status_code == 201, ruled.text
    assert "和错牌" in ruled.json()["note"]
    assert ruled.json()["points"] == {"Ann0": 10, "Bo0": 10, "Cai0": -30, "Dan0": 10}
    bad = client.post(f"/v1/tables/{t}/hands", headers=bearer(k),
                      json={"hand": "1111m1m23p", "winner": "W", "self_drawn": True})
    assert bad.status_code == 400  # a fifth copy is bad input, not a claim


def test_a_penalty_names_a_hand_on_the_sheet_or_the_hand_in_play(sheet) -> None:
    """With 2 hands recorded a penalty may name hands 1-3 (3 is being played); hand 12
    is a typo (before, any hand up to 16 was taken)."""
    client, _ = sheet
    t, k = new_table(client)
    for _ in range(2):
        client.post(f"/v1/tables/{t}/hands", json={"outcome": "draw"}, headers=bearer(k))
    body = {"player": "Bo0", "kind": "deduction", "points": 5}
    assert client.post(f"/v1/tables/{t}/penalties", headers=admin(),
                       json={**body, "hand": 3}).status_code == 201
    r = client.post(f"/v1/tables/{t}/penalties", headers=admin(), json={**body, "hand": 12})
    assert r.status_code == 400
    assert "it has 2 hand(s), and hand 3 is in play" in message(r)


def test_messages_name_what_is_wrong(sheet) -> None:
    """An empty player name is named as such (not "a table needs four player names" when
    four were sent); a Zhenjiang false claim is 诈胡 in its note; a Xiamen 诈胡 penalty in
    chips needs its points (the rules' 50 is money); a false claim's CSV row shows no
    fan total beside its penalty."""
    client, _ = sheet
    r = client.post("/v1/events", json={"name": "E", "rules": "mcr"}, headers=admin())
    r = client.post(f"/v1/events/{r.json()['id']}/tables", headers=admin(),
                    json={"name": "T", "players": ["Ann", "", "Cai", "Dan"]})
    assert r.status_code == 400 and "player name 2 of 4 is empty" in message(r)
    z, zk = new_table(client, "zhenjiang")
    client.post(f"/v1/tables/{z}/hands", headers=bearer(zk),
                json={"hand": "111m222p333s44z5z67z", "winner": "S", "self_drawn": True,
                      "context": {"indicator": "9s"}})  # no win: 诈胡
    ruled = client.post(f"/v1/tables/{z}/hands/1/false-claim", headers=admin(),
                        json={"reason": "no win"})
    assert "诈胡 (false_win)" in ruled.json()["note"] and "诈和" not in ruled.json()["note"]
    x, _xk = new_table(client, "xiamen")
    chips = client.post(f"/v1/tables/{x}/penalties", headers=admin(),
                        json={"player": "Bo0", "kind": "false_win", "money": False})
    assert chips.status_code == 400 and "give the points" in message(chips)
    t, k = new_table(client)
    client.post(f"/v1/tables/{t}/hands", headers=bearer(k),
                json={"hand": LOW_WIN, "winner": "S", "discarder": "E"})
    client.post(f"/v1/tables/{t}/hands/1/false-claim", headers=admin(), json={"reason": "x"})
    rows = list(csv.reader(io.StringIO(
        client.get(f"/v1/tables/{t}/sheet.csv", headers=bearer(k)).content.decode("utf-8-sig"))))
    head, row = rows[0], next(r for r in rows if r[0] == "hand")
    assert row[head.index("outcome")] == "false_claim" and row[head.index("total")] == ""


def test_admin_endpoints_off_say_the_key_belongs_to_the_server(tmp_path) -> None:
    """README walk (seventy-second session): a user who exports TILECAM_ADMIN_KEY in the
    client's shell after the server started got "set TILECAM_ADMIN_KEY to enable them" —
    which they had just done. The message says the key must be in the service's
    environment when it starts."""
    from test_tables_helpers import client_for, make_app

    app, _ = make_app(f"sqlite:///{tmp_path / 'db.sqlite'}", tmp_path, admin_key="")
    for client in client_for(app):
        r = client.post("/v1/events", json={"name": "Spring open", "rules": "mcr"},
                        headers=admin())
        assert r.status_code == 403 and r.json()["error"]["code"] == "admin_disabled"
        assert "start the service with TILECAM_ADMIN_KEY set in its environment" in message(r)


def test_a_table_stored_with_a_clashing_settings_version_still_scores_under_its_own(
        tmp_path, monkeypatch) -> None:
    """Diff review (seventy-second session): scoring now refuses a ``version`` and a
    ``settings`` version that differ, and so does a new table — but a table stored before
    with both (an event's wmo-2006, the table's settings 98-strict) was played under its
    own version, and must not now answer 400 to every win and correction."""
    from test_tables_helpers import client_for, make_app

    import tilecam.tables.sheet as sheet

    app, _ = make_app(f"sqlite:///{tmp_path / 'db.sqlite'}", tmp_path)
    for client in client_for(app):
        r = client.post("/v1/events", json={"name": "E", "rules": "mcr", "version": "wmo-2006"},
                        headers=admin())
        event = r.json()["id"]
        with monkeypatch.context() as m:  # as the code before stored it
            m.setattr(sheet, "check_rules", lambda *a: None)
            r = client.post(f"/v1/events/{event}/tables", headers=admin(), json={
                "name": "T1", "players": ["A", "B", "C", "D"],
                "settings": {"version": "98-strict"}})
        assert r.status_code == 201, r.text
        t, k = r.json()["id"], r.json()["api_key"]
        r = client.post(f"/v1/tables/{t}/hands", headers=bearer(k), json={
            "hand": "[1111m][9999p,1]123s456s5m5m", "winner": "E", "discarder": "S"})
        assert r.status_code == 201, r.text
        assert r.json()["score"]["version"] == "wmo-2006"
