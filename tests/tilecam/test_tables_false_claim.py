"""A declared win ruled a false claim (错和, 诈和) on the score sheet, where the rules play
the hand on after it (seed 003 六、错和与诈和的处理: 停和, the penalty to each other player,
该盘继续比赛; seed 001 诈胡): the record keeps the claimant's penalty and takes no place of
the deal, the next record is the same hand's real end, and the claimant may not win it.
Xiamen's 诈胡 ends the hand instead (seed 000): there the referee voids it. Every test runs
on SQLite and on PostgreSQL."""

from __future__ import annotations

import csv
import io

from fastapi.testclient import TestClient
from test_tables_helpers import admin, bearer, frame, new_table
from test_tables_helpers import new_event as _new_event

import scoring

LOW_WIN = "[234m,1]456p678s234s99m"  # a winning shape of 4 fan: 错和 when declared
PLAIN_HAND = "123m456m789m123p55p"  # 清龙 and more: a legal win
NOT_READY = "123m456p789s11z23z4z"  # without 4z one tile short of ready: 诈和
ZJ_WIN, ZJ_WILD = "[555m,1]456m789m123p55p", {"indicator": "9s"}  # a Zhenjiang win
ZJ_NO_WIN = "111m222p333s44z5z67z"  # 14 tiles that are no win with 9s as 百搭: 诈胡






def post(client: TestClient, t: int, k: str, **body: object) -> dict:
    r = client.post(f"/v1/tables/{t}/hands", json=body, headers=bearer(k))
    assert r.status_code == 201, r.text
    return r.json()


def rule(client: TestClient, t: int, number: int, **body: object):
    return client.post(f"/v1/tables/{t}/hands/{number}/false-claim",
                       json={"reason": "the referee's ruling", **body}, headers=admin())


def next_hand(client: TestClient, t: int, k: str) -> dict:
    return client.get(f"/v1/tables/{t}", headers=bearer(k)).json()["next_hand"]


def standings(client: TestClient, t: int, k: str) -> dict:
    return client.get(f"/v1/tables/{t}/standings", headers=bearer(k)).json()


def test_mcr_wrong_win_is_penalized_and_the_hand_played_on_at_its_place(sheet) -> None:
    """Seed 003 (一): a win declared under 8 fan is 错和, 10 to each other player, and
    the same hand goes on — the next record is dealt by the same dealer, and the claimant
    may not win it (停和)."""
    client, _ = sheet
    t, k = new_table(client)
    claim = post(client, t, k, hand=LOW_WIN, winner="S", discarder="E")
    assert claim["outcome"] == "pending"  # not a legal win: the referee decides
    assert "rule this hand a false claim" in claim["note"]
    r = rule(client, t, 1)
    assert r.status_code == 201, r.text
    body = r.json()
    assert body["outcome"] == "false_claim" and body["action"] == "false_claim"
    assert body["points"] == {"Ann0": 10, "Bo0": -30, "Cai0": 10, "Dan0": 10}
    assert "错和" in body["note"] and "short of the minimum fan" in body["note"]
    assert [h["action"] for h in body["history"]] == ["record", "false_claim"]
    place = next_hand(client, t, k)
    assert (place["number"], place["round"], place["hand_in_round"], place["dealer"]) == (
        2, 1, 1, "Ann0")  # the same hand, played on
    # 停和: the claimant's win at the same hand is held for the referee
    barred = post(client, t, k, hand=PLAIN_HAND, winner="S", self_drawn=True)
    assert barred["outcome"] == "pending" and "停和" in barred["note"]
    assert barred["points"] == {"Ann0": 0, "Bo0": 0, "Cai0": 0, "Dan0": 0}
    fix = client.post(f"/v1/tables/{t}/hands/2/corrections", headers=admin(),
                      json={"hand": PLAIN_HAND, "winner": "N", "discarder": "E",
                            "reason": "Dan0 won on Ann0's 5p"})
    assert fix.status_code == 201 and fix.json()["outcome"] == "win", fix.text
    total = fix.json()["total"]
    assert fix.json()["points"]["Dan0"] == 24 + total
    place = next_hand(client, t, k)  # the hand over, the deal passes as after any hand
    assert (place["number"], place["hand_in_round"], place["dealer"]) == (3, 2, "Bo0")
    after = post(client, t, k, hand=PLAIN_HAND, winner="S", self_drawn=True)
    assert after["outcome"] == "win"  # 停和 lasts one hand
    st = standings(client, t, k)
    assert st["false_claims"] == [1] and st["hands_settled"] == 2
    pen = {p["player"]: p["penalty_points"] for p in st["players"]}
    assert pen == {"Ann0": 10, "Bo0": -30, "Cai0": 10, "Dan0": 10}
    rows = list(csv.reader(io.StringIO(
        client.get(f"/v1/tables/{t}/sheet.csv", headers=bearer(k)).content.decode("utf-8-sig"))))
    claim_row = next(r for r in rows if r[0] == "hand" and r[1] == "1")
    assert claim_row[5] == "false_claim" and claim_row[-4:] == ["10", "-30", "10", "10"]
    totals = {n.removeprefix("points "): int(v)
              for n, v in zip(rows[0][-4:], rows[-1][-4:], strict=True)}
    assert totals == {p["player"]: p["total"] for p in st["players"]}
    # the ruling booked the claimant's penalty: a second one for the claim is refused
    twice = client.post(f"/v1/tables/{t}/penalties", headers=admin(),
                        json={"player": "Bo0", "kind": "wrong_win", "hand": 1})
    assert twice.status_code == 409 and "booked this player's penalty" in twice.text
    other = client.post(f"/v1/tables/{t}/penalties", headers=admin(),
                        json={"player": "Cai0", "kind": "deduction", "points": 5, "hand": 1})
    assert other.status_code == 201, other.text


def test_a_session_of_sixteen_hands_takes_a_false_claim_as_a_seventeenth_record(sheet) -> None:
    """Seed 003: 16 hands make the session; a false claim is none of them."""
    client, _ = sheet
    t, k = new_table(client)
    post(client, t, k, hand=LOW_WIN, winner="W", discarder="N")
    assert rule(client, t, 1).status_code == 201
    for _ in range(16):
        post(client, t, k, outcome="draw")
    assert next_hand(client, t, k) is None
    late = client.post(f"/v1/tables/{t}/hands", json={"outcome": "draw"}, headers=bearer(k))
    assert late.status_code == 409
    st = standings(client, t, k)
    assert st["complete"] and st["hands_recorded"] == 17 and st["hands_settled"] == 16
    # a penalty may name the 17th record (before, hand numbers past 16 were refused)
    r = client.post(f"/v1/tables/{t}/penalties", headers=admin(),
                    json={"player": 0, "kind": "deduction", "points": 5, "hand": 17})
    assert r.status_code == 201, r.text
    r = client.post(f"/v1/tables/{t}/penalties", headers=admin(),
                    json={"player": 0, "kind": "deduction", "points": 5, "hand": 18})
    assert r.status_code == 400, r.text
    assert "it has 17 hand(s), and the session is over" in r.json()["error"]["message"]


def test_the_penalty_follows_how_far_the_claim_is_from_a_win(sheet) -> None:
    """Seed 003: 诈和 (one tile short of ready) costs 20 to each other player; a legal
    win ruled false must name its penalty; one claim is ruled once."""
    client, cam = sheet
    t, k = new_table(client)
    level = cam.show(120, NOT_READY)
    for _ in range(3):  # the camera records what it saw: no winning hand, held pending
        got = client.post(f"/v1/tables/{t}/frames", headers=bearer(k), data={"winner": "E"},
                          files={"image": ("f.jpg", frame(level), "image/jpeg")})
    assert got.json()["recorded"]["outcome"] == "pending", got.text
    r = rule(client, t, 1)
    assert r.status_code == 201, r.text
    assert r.json()["points"] == {"Ann0": -60, "Bo0": 20, "Cai0": 20, "Dan0": 20}
    assert "诈和" in r.json()["note"] and "one tile short of ready" in r.json()["note"]
    again = rule(client, t, 1)
    assert again.status_code == 409 and "already" in again.json()["error"]["message"]
    assert "correct it with the hand as claimed and rule again" in again.text
    post(client, t, k, hand=PLAIN_HAND, winner="N", discarder="S")  # record 2: a legal win
    unnamed = rule(client, t, 2)
    assert unnamed.status_code == 400
    assert "wrong_win or false_win" in unnamed.json()["error"]["message"]
    named = rule(client, t, 2, kind="wrong_win", points=15)
    assert named.status_code == 201, named.text
    assert named.json()["points"] == {"Ann0": 15, "Bo0": 15, "Cai0": 15, "Dan0": -45}
    post(client, t, k, outcome="draw")
    drawn = rule(client, t, 3)
    assert drawn.status_code == 409 and "only a declared win" in drawn.json()["error"]["message"]
    post(client, t, k, hand=PLAIN_HAND)  # no winner seat given
    nobody = rule(client, t, 4)
    assert nobody.status_code == 400 and "claimant" in nobody.json()["error"]["message"]
    assert rule(client, t, 9).status_code == 404
    no_reason = client.post(f"/v1/tables/{t}/hands/1/false-claim", json={"reason": ""},
                            headers=admin())
    assert no_reason.status_code in (400, 422)
    table_key = client.post(f"/v1/tables/{t}/hands/2/false-claim", json={"reason": "x"},
                            headers=bearer(k))
    assert table_key.status_code == 403  # a referee's ruling


def test_ruling_moves_the_later_records_and_a_correction_moves_them_back(sheet) -> None:
    """A false claim ruled after later hands were recorded: each is the hand before it
    now, scored again where it falls; correcting the claim into a win undoes it."""
    client, _ = sheet
    t, k = new_table(client)
    post(client, t, k, hand=LOW_WIN, winner="S", discarder="E")
    post(client, t, k, outcome="draw")
    won = post(client, t, k, hand=PLAIN_HAND, winner="N", self_drawn=True)
    assert won["dealer"] == "Cai0" and won["winner"]["player"] == "Bo0"
    assert rule(client, t, 1).status_code == 201
    third = client.get(f"/v1/tables/{t}/hands/3", headers=bearer(k)).json()
    assert third["dealer"] == "Bo0" and third["hand_in_round"] == 2
    assert third["action"] == "reseat" and third["winner"]["player"] == "Ann0"
    assert "hand 1 changed who deals after it" in third["note"]
    # the history names who sat where at each revision (the review of this session)
    history = client.get(f"/v1/tables/{t}/hands/3", headers=admin()).json()["history"]
    assert [h["seats"]["E"] for h in history] == ["Cai0", "Bo0"]
    second = client.get(f"/v1/tables/{t}/hands/2", headers=bearer(k)).json()
    assert second["dealer"] == "Ann0" and second["hand_in_round"] == 1
    fix = client.post(f"/v1/tables/{t}/hands/1/corrections", headers=admin(),
                      json={"hand": PLAIN_HAND, "winner": "S", "discarder": "E",
                            "reason": "the camera misread: a legal win"})
    assert fix.status_code == 201 and fix.json()["outcome"] == "win"
    third = client.get(f"/v1/tables/{t}/hands/3", headers=bearer(k)).json()
    assert third["dealer"] == "Cai0" and third["winner"]["player"] == "Bo0"
    st = standings(client, t, k)
    assert st["false_claims"] == [] and all(p["penalty_points"] == 0 for p in st["players"])


def test_zhenjiang_false_win_is_its_own_penalty_and_moves_with_the_deal(sheet) -> None:
    """Seed 001 诈胡: 6 base chips to each (罚6倍底钱), the hand goes on (扶牌后牌局继续);
    a Zhenjiang dealer deals again after a drawn hand, so an earlier hand corrected from
    a draw into a win moves the claim to another player."""
    client, _ = sheet
    t, k = new_table(client, rules="zhenjiang")
    post(client, t, k, outcome="draw")
    claim = post(client, t, k, hand=ZJ_NO_WIN, winner="S", self_drawn=True, context=ZJ_WILD)
    assert claim["outcome"] == "pending" and "诈胡" in claim["note"]
    r = rule(client, t, 2)
    assert r.status_code == 201, r.text
    settings = scoring.get_rule_set("zhenjiang").resolve_settings({})
    each = int(settings["false_win"]) * int(settings.get("base_chip", 1))
    assert r.json()["points"] == {"Ann0": each, "Bo0": -3 * each, "Cai0": each, "Dan0": each}
    assert next_hand(client, t, k)["dealer"] == "Ann0"  # the same hand, still Ann0's deal
    fix = client.post(f"/v1/tables/{t}/hands/1/corrections", headers=admin(),
                      json={"hand": ZJ_WIN, "winner": "E", "self_drawn": True,
                            "context": ZJ_WILD, "reason": "hand 1 was won"})
    assert fix.status_code == 201, fix.text
    claim = client.get(f"/v1/tables/{t}/hands/2", headers=bearer(k)).json()
    assert claim["outcome"] == "false_claim" and claim["action"] == "reseat"
    assert claim["dealer"] == "Bo0"  # the deal passed after hand 1: S is now Cai0
    assert claim["points"] == {"Ann0": each, "Bo0": each, "Cai0": -3 * each, "Dan0": each}


def test_xiamen_false_win_ends_the_hand_so_it_is_voided_not_played_on(sheet) -> None:
    """Seed 000: after 诈胡 the dealer deals the hand again — no hand goes on."""
    client, _ = sheet
    t, k = new_table(client, rules="xiamen")
    post(client, t, k, outcome="draw")
    r = rule(client, t, 1)
    assert r.status_code == 400
    assert "void this hand" in r.json()["error"]["message"]



def test_a_table_without_a_false_claim_penalty_still_plays_the_hand_on(sheet) -> None:
    """A Zhenjiang table opened with ``false_win`` 0: the ruling books no points but
    the record still takes no place of the deal (before, it was refused: "penalty
    points must be positive")."""
    client, _ = sheet
    _, [(t, k)] = _new_event(client, rules="zhenjiang", tables=1, settings={"false_win": 0})
    post(client, t, k, hand=ZJ_NO_WIN, winner="S", self_drawn=True, context=ZJ_WILD)
    r = rule(client, t, 1)
    assert r.status_code == 201, r.text
    assert r.json()["points"] == {"Ann0": 0, "Bo0": 0, "Cai0": 0, "Dan0": 0}
    assert next_hand(client, t, k)["dealer"] == "Ann0"


def test_a_ruled_claim_is_not_voided_into_a_place_of_the_deal(sheet) -> None:
    """A void takes a place (MCR passes the deal after it): voiding a ruled claim would
    re-seat the hand played on after it — the win moved to the player who dealt in. It
    is refused with what to do instead."""
    client, _ = sheet
    t, k = new_table(client)
    post(client, t, k, hand=LOW_WIN, winner="S", discarder="E")
    assert rule(client, t, 1).status_code == 201
    won = post(client, t, k, hand=PLAIN_HAND, winner="N", discarder="E")
    r = client.post(f"/v1/tables/{t}/hands/1/void", json={"reason": "waive it"},
                    headers=admin())
    assert r.status_code == 409 and "correct it with the hand as claimed" in r.text
    again = client.get(f"/v1/tables/{t}/hands/2", headers=bearer(k)).json()
    assert (again["revision"], again["points"]) == (won["revision"], won["points"])


def test_the_penalty_is_inferred_only_from_a_claim_that_is_no_win(sheet) -> None:
    """A camera's complete win the scorer refused for a flag (杠上开花 without a kong) is
    no 和错牌: the referee names the penalty. A legal Zhenjiang win is a false claim only
    on the referee's word too (before, 诈胡 was booked on it)."""
    client, cam = sheet
    t, k = new_table(client)
    level = cam.show(120, PLAIN_HAND)
    for _ in range(3):
        got = client.post(f"/v1/tables/{t}/frames", headers=bearer(k),
                          data={"winner": "S", "self_drawn": "true", "kong": "true"},
                          files={"image": ("f.jpg", frame(level), "image/jpeg")})
    assert got.json()["recorded"]["outcome"] == "pending", got.text
    r = rule(client, t, 1)
    assert r.status_code == 400 and "record does not tell which" in r.text
    z, zk = new_table(client, rules="zhenjiang")
    post(client, z, zk, hand=ZJ_WIN, winner="S", self_drawn=True, context=ZJ_WILD)
    r = rule(client, z, 1)
    assert r.status_code == 400 and "legal win" in r.text and "false_win" in r.text
    assert rule(client, z, 1, kind="false_win").status_code == 201
    # a Zhenjiang camera reading the scorer refused (no 百搭 given) tells no 诈胡 either
    level = cam.show(130, ZJ_WIN)
    for _ in range(3):
        got = client.post(f"/v1/tables/{z}/frames", headers=bearer(zk),
                          data={"winner": "S", "self_drawn": "true"},
                          files={"image": ("f.jpg", frame(level), "image/jpeg")})
    assert got.json()["recorded"]["outcome"] == "pending", got.text
    assert "百搭" in got.json()["recorded"]["note"]
    r = rule(client, z, got.json()["hand_number"])
    assert r.status_code == 400 and "does not tell which" in r.text


def test_undoing_a_ruling_frees_the_claimant_s_held_win_for_the_referee(sheet) -> None:
    """停和 lifted: a win held pending only because its winner was barred stays pending
    (the referee confirms it) but says so, not that the seat may not win; the next
    record shows who is barred while the bar holds; a claim moved again and again keeps
    one ruling in its note."""
    client, _ = sheet
    t, k = new_table(client)
    post(client, t, k, hand=LOW_WIN, winner="S", discarder="E")
    assert rule(client, t, 1).status_code == 201
    assert next_hand(client, t, k)["barred"] == [{"seat": "S", "player": "Bo0"}]
    held = post(client, t, k, hand=PLAIN_HAND, winner="S", self_drawn=True)
    assert held["outcome"] == "pending" and "停和" in held["note"]
    assert "barred" not in next_hand(client, t, k)
    fix = client.post(f"/v1/tables/{t}/hands/1/corrections", headers=admin(),
                      json={"hand": PLAIN_HAND, "winner": "S", "discarder": "E",
                            "reason": "a legal win after all"})
    assert fix.status_code == 201
    second = client.get(f"/v1/tables/{t}/hands/2", headers=bearer(k)).json()
    assert second["outcome"] == "pending" and "no longer barred" in second["note"]
    assert "may not win it" not in second["note"]


def test_a_claim_moved_again_and_again_keeps_one_ruling_in_its_note(sheet) -> None:
    """Each move of a ruled claim notes why it moved and the ruling — once (before, each
    move appended the notes before it)."""
    client, _ = sheet
    t, k = new_table(client, rules="zhenjiang")
    post(client, t, k, outcome="draw")
    post(client, t, k, hand=ZJ_WIN, winner="S", self_drawn=True, context=ZJ_WILD)
    assert rule(client, t, 2, kind="false_win").status_code == 201
    for winner in ("E", None, "E", None):  # hand 1 won, then drawn again: hand 2 moves
        body = ({"outcome": "draw"} if winner is None else
                {"hand": ZJ_WIN, "winner": winner, "self_drawn": True, "context": ZJ_WILD})
        r = client.post(f"/v1/tables/{t}/hands/1/corrections", headers=admin(),
                        json={**body, "reason": "again"})
        assert r.status_code == 201, r.text
    claim = client.get(f"/v1/tables/{t}/hands/2", headers=bearer(k)).json()
    assert claim["action"] == "reseat" and claim["note"].count("ruled a false claim") == 1
