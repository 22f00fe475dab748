"""A referee's 停和 (``bar``), warnings (警告), fixed deductions (罚分) and offences whose
penalty grows with each repeat, on the score sheet.

Seed 003 处罚: 停和 takes away the right to win the hand (取消本盘和牌的权利) — for 错吃、
错碰、错杠, a wrong tile count (相公), a tile wrongly taken as a flower, a hand laid down
at another's failed claim, passing signals; seed 000 makes a player who errs sit the hand
out as 相公 and seed 001 counts a 相公's win as 诈胡. A bar names the record of the hand
from which its player may not win it: a win of theirs there is held pending for the
referee, until the hand ends. MCR deductions are 5, 10, 20, 30, 40, 50 or 60 points
(二、罚分 (二)违例); 空吃/空碰/空杠, 摸牌 before the discard and 碰牌 after 3 seconds cost, in
one hand, a warning, then 5, 10, 20, 以此类推 (三、四、五). Every test runs on SQLite and on
PostgreSQL."""

from __future__ import annotations

import csv
import io
import threading
import time

import pytest
from fastapi.testclient import TestClient
from test_tables_helpers import admin, bearer, new_table
from test_tables_helpers import new_event as _new_event

PLAIN_HAND = "123m456m789m123p55p"  # 清龙 and more: a legal MCR win
LOW_WIN = "[234m,1]456p678s234s99m"  # a winning shape of 4 fan: 错和 when declared
ZERO = {"Ann0": 0, "Bo0": 0, "Cai0": 0, "Dan0": 0}


def post(client: TestClient, t: int, k: str, **body: object) -> dict:
    r = client.post(f"/v1/tables/{t}/hands", json=body, headers=bearer(k))
    assert r.status_code == 201, r.text
    return r.json()


def penalize(client: TestClient, t: int, **body: object):
    return client.post(f"/v1/tables/{t}/penalties", json=body, headers=admin())


def table_view(client: TestClient, t: int, k: str) -> dict:
    return client.get(f"/v1/tables/{t}", headers=bearer(k)).json()


def hand_view(client: TestClient, t: int, number: int) -> dict:
    r = client.get(f"/v1/tables/{t}/hands/{number}", headers=admin())
    assert r.status_code == 200, r.text
    return r.json()


def totals(client: TestClient, t: int, k: str) -> dict[str, int]:
    st = client.get(f"/v1/tables/{t}/standings", headers=bearer(k)).json()
    return {p["player"]: p["total"] for p in st["players"]}


def test_a_bar_on_the_hand_in_play_holds_that_players_win_for_the_referee(sheet) -> None:
    """Seed 003 二、错吃、错碰、错杠: 在该盘中不得和牌 — the referee bars the player from the
    hand in play; the win the table then reports for them is held pending, another
    player's win counts, and the next hand bars nobody."""
    client, _ = sheet
    t, k = new_table(client)
    r = penalize(client, t, player="Bo0", kind="bar", hand=1, reason="错碰 of 5p")
    assert r.status_code == 201, r.text
    assert (r.json()["kind"], r.json()["points"], r.json()["deltas"]) == ("bar", 0, ZERO)
    place = table_view(client, t, k)["next_hand"]
    assert place["barred"] == [{"seat": "S", "player": "Bo0"}]
    held = post(client, t, k, hand=PLAIN_HAND, winner="S", self_drawn=True)
    assert held["outcome"] == "pending" and "停和" in held["note"]
    assert held["points"] == ZERO and totals(client, t, k) == ZERO
    fix = client.post(f"/v1/tables/{t}/hands/1/corrections", headers=admin(),
                      json={"hand": PLAIN_HAND, "winner": "W", "discarder": "S",
                            "reason": "Cai0 won on Bo0's 5p"})
    assert fix.status_code == 201 and fix.json()["outcome"] == "win", fix.text
    assert "barred" not in table_view(client, t, k)["next_hand"]  # 停和 lasts one hand
    assert post(client, t, k, hand=PLAIN_HAND, winner="S", self_drawn=True)["outcome"] == "win"


def test_a_bar_on_a_recorded_win_scores_it_again_and_its_void_leaves_it_to_confirm(
        sheet) -> None:
    """A bar booked after the win was recorded (相公 found when the hand was laid down):
    the win is scored again, held pending with the bar's reason, and stops counting;
    voiding the bar does not count it again on its own — a referee confirms it."""
    client, _ = sheet
    t, k = new_table(client)
    win = post(client, t, k, hand=PLAIN_HAND, winner="N", discarder="E")
    assert win["outcome"] == "win"
    counted = totals(client, t, k)
    assert counted["Dan0"] > 0
    r = penalize(client, t, player="Dan0", kind="bar", hand=1,
                 reason="相公: 13 tiles before the win")
    assert r.status_code == 201, r.text
    rec = hand_view(client, t, 1)
    assert rec["outcome"] == "pending" and rec["points"] == ZERO
    assert rec["history"][-1]["action"] == "reseat"
    assert "Dan0 may not win this hand from hand 1 on (停和" in rec["note"]
    assert "相公: 13 tiles before the win" in rec["note"]
    assert totals(client, t, k) == ZERO
    void = client.post(f"/v1/tables/{t}/penalties/{r.json()['id']}/void", headers=admin(),
                       json={"reason": "the count was right"})
    assert void.status_code == 200 and void.json()["void"], void.text
    rec = hand_view(client, t, 1)
    assert rec["outcome"] == "pending" and "no longer barred" in rec["note"]
    assert "the 停和 of Dan0 from hand 1" in rec["note"]
    fix = client.post(f"/v1/tables/{t}/hands/1/corrections", headers=admin(),
                      json={"hand": PLAIN_HAND, "winner": "N", "discarder": "E",
                            "reason": "confirmed"})
    assert fix.status_code == 201 and fix.json()["outcome"] == "win", fix.text
    assert totals(client, t, k) == counted


def test_a_bar_moves_no_other_record(sheet) -> None:
    """A bar on one player touches only that player's win in that hand: another
    player's win at the same record, and the later hands, are not scored again."""
    client, _ = sheet
    t, k = new_table(client)
    post(client, t, k, hand=PLAIN_HAND, winner="N", discarder="E")
    post(client, t, k, hand=PLAIN_HAND, winner="E", self_drawn=True)
    before = totals(client, t, k)
    assert penalize(client, t, player="Ann0", kind="bar", hand=1).status_code == 201
    assert [h["action"] for h in hand_view(client, t, 1)["history"]] == ["record"]
    assert [h["action"] for h in hand_view(client, t, 2)["history"]] == ["record"]
    assert totals(client, t, k) == before


def test_a_bar_lasts_the_hand_through_a_false_claim(sheet) -> None:
    """Seed 003: after a false claim the hand is played on (该盘继续比赛); a bar booked
    before it still holds on the hand's next record, beside the claimant's own 停和."""
    client, _ = sheet
    t, k = new_table(client)
    assert penalize(client, t, player="Cai0", kind="bar", hand=1).status_code == 201
    post(client, t, k, hand=LOW_WIN, winner="S", discarder="E")
    ruled = client.post(f"/v1/tables/{t}/hands/1/false-claim", headers=admin(),
                        json={"reason": "错和"})
    assert ruled.status_code == 201, ruled.text
    place = table_view(client, t, k)["next_hand"]
    assert place["number"] == 2 and place["hand_in_round"] == 1
    assert place["barred"] == [{"seat": "W", "player": "Cai0"},
                               {"seat": "S", "player": "Bo0"}]
    held = post(client, t, k, hand=PLAIN_HAND, winner="W", self_drawn=True)
    assert held["outcome"] == "pending" and "停和" in held["note"]


def test_a_bar_takes_no_points_and_names_a_hand_on_the_sheet(sheet) -> None:
    """A bar and a warning move no points; a bar names the hand (one on the sheet or in
    play) and a player not barred from it already."""
    client, _ = sheet
    t, _ = new_table(client)
    cases = [({"player": "Bo0", "kind": "bar", "hand": 1, "points": 5}, 400,
              "takes no points"),
             ({"player": "Bo0", "kind": "warning", "points": 5}, 400, "takes no points"),
             ({"player": "Bo0", "kind": "bar"}, 400, "names the hand"),
             ({"player": "Bo0", "kind": "bar", "hand": 3}, 400, "not on the sheet"),
             ({"player": "Bo0", "kind": "bar", "hand": 1, "to": "Ann0"}, 400,
              "and only a payment")]
    for body, status, words in cases:
        r = penalize(client, t, **body)
        assert r.status_code == status and words in r.json()["error"]["message"], (body, r.text)
    assert penalize(client, t, player="Bo0", kind="bar", hand=1).status_code == 201
    again = penalize(client, t, player="Bo0", kind="bar", hand=1)
    assert again.status_code == 409 and "may not win hand 1 already" in again.text


def test_a_warning_is_kept_on_the_sheet_without_points(sheet) -> None:
    """Seed 003 一、警告: recorded with its reason, listed with the penalties, no points."""
    client, _ = sheet
    t, k = new_table(client)
    r = penalize(client, t, player="Ann0", kind="warning", hand=1, reason="摸牌 early")
    assert r.status_code == 201, r.text
    listed = client.get(f"/v1/tables/{t}/penalties", headers=bearer(k)).json()["penalties"]
    assert [(p["kind"], p["reason"], p["points"]) for p in listed] == [
        ("warning", "摸牌 early", 0)]
    assert totals(client, t, k) == ZERO
    assert "barred" not in table_view(client, t, k)["next_hand"]


def test_mcr_deductions_are_the_seven_amounts_of_seed_003(sheet) -> None:
    """Seed 003 二、罚分 (二)违例: 5, 10, 20, 30, 40, 50 or 60 points; another rule set
    fixes none."""
    client, _ = sheet
    t, _ = new_table(client)
    odd = penalize(client, t, player="Bo0", kind="deduction", points=15)
    assert odd.status_code == 400
    assert "5, 10, 20, 30, 40, 50 or 60 points, not 15" in odd.json()["error"]["message"]
    assert penalize(client, t, player="Bo0", kind="deduction", points=60).status_code == 201
    zj, _ = new_table(client, rules="zhenjiang")
    assert penalize(client, zj, player="Bo0", kind="deduction", points=15).status_code == 201


def test_a_xiamen_player_barred_sits_the_hand_out(sheet) -> None:
    """Seed 000: 出错者盖牌，退出当轮游戏 — a player who errs may not win the hand (相公):
    the win reported for them is held pending."""
    client, _ = sheet
    t, k = new_table(client, rules="xiamen")
    assert penalize(client, t, player="Bo0", kind="bar", hand=1,
                    reason="吃错牌").status_code == 201
    held = post(client, t, k, hand="123m456m789m123p456p55s", winner="S", self_drawn=True,
                context={"gold": "9s"})
    assert held["outcome"] == "pending" and "停和" in held["note"]


def offence(client: TestClient, t: int, player: str, kind: str = "empty_claim",
            hand: int = 1) -> dict:
    r = penalize(client, t, player=player, kind=kind, hand=hand, reason="空碰")
    assert r.status_code == 201, r.text
    return r.json()


def test_mcr_repeat_offences_in_a_hand_cost_more_each_time(sheet) -> None:
    """Seed 003 三、空吃、空碰、空杠: 一盘之内，第一次警告，第二次罚5分，第三次罚10分，
    第四次罚20分，以此类推 — read on as doubling up to the largest deduction, 60. Each
    player and each offence counts apart, and the next hand starts again at a warning."""
    client, _ = sheet
    t, k = new_table(client)
    steps = [offence(client, t, "Bo0")["points"] for _ in range(7)]
    assert steps == [0, 5, 10, 20, 40, 60, 60]
    assert offence(client, t, "Cai0")["points"] == 0  # another player
    assert offence(client, t, "Bo0", kind="early_draw")["points"] == 0  # another offence
    assert offence(client, t, "Bo0", kind="slow_pung")["points"] == 0
    third = offence(client, t, "Bo0", kind="early_draw")
    assert third["deltas"] == {**ZERO, "Bo0": -5}
    assert totals(client, t, k) == {**ZERO, "Bo0": -(5 + 10 + 20 + 40 + 60 + 60 + 5)}
    post(client, t, k, outcome="draw")
    assert offence(client, t, "Bo0", hand=2)["points"] == 0  # a new hand


def test_a_repeat_offence_counts_the_hand_played_on_after_a_false_claim(sheet) -> None:
    """A false claim leaves the hand to be played on (seed 003): an offence at the next
    record is the same hand's, and a void offence does not count."""
    client, _ = sheet
    t, k = new_table(client)
    first = offence(client, t, "Ann0")
    post(client, t, k, hand=LOW_WIN, winner="S", discarder="E")
    assert client.post(f"/v1/tables/{t}/hands/1/false-claim", headers=admin(),
                       json={"reason": "错和"}).status_code == 201
    assert offence(client, t, "Ann0", hand=2)["points"] == 5
    assert client.post(f"/v1/tables/{t}/penalties/{first['id']}/void", headers=admin(),
                       json={"reason": "it was a pung"}).status_code == 200
    assert offence(client, t, "Ann0", hand=2)["points"] == 5  # the second that counts


def penalty_list(client: TestClient, t: int) -> dict[int, dict]:
    r = client.get(f"/v1/tables/{t}/penalties", headers=admin())
    assert r.status_code == 200, r.text
    return {p["id"]: p for p in r.json()["penalties"]}


def test_a_void_offence_steps_the_later_ones_of_the_hand_down(sheet) -> None:
    """Seed 003 三、空吃、空碰、空杠: 第一次警告，第二次罚5分… counts the offences of the
    hand; one made void (the referee finds it was none) is not among them, so the ones
    booked after it take the step before, and say so (``rebooked``)."""
    client, _ = sheet
    t, k = new_table(client)
    first, second, third = (offence(client, t, "Bo0") for _ in range(3))
    assert [first["points"], second["points"], third["points"]] == [0, 5, 10]
    other = offence(client, t, "Bo0", kind="early_draw")  # another kind: its own count
    void = client.post(f"/v1/tables/{t}/penalties/{first['id']}/void", headers=admin(),
                       json={"reason": "it was a legal pung"})
    assert void.status_code == 200, void.text
    now = penalty_list(client, t)
    assert [now[p["id"]]["points"] for p in (second, third, other)] == [0, 5, 0]
    assert now[third["id"]]["deltas"] == {**ZERO, "Bo0": -5}
    assert "10 → 5 points" in now[third["id"]]["rebooked"]
    assert f"penalty {first['id']}" in now[third["id"]]["rebooked"]
    assert now[other["id"]]["rebooked"] is None
    assert totals(client, t, k) == {**ZERO, "Bo0": -5}
    st = client.get(f"/v1/tables/{t}/standings", headers=bearer(k)).json()
    assert {p["player"]: p["warnings"] for p in st["players"]}["Bo0"] == 2  # second, other
    assert client.post(f"/v1/tables/{t}/penalties/{second['id']}/void", headers=admin(),
                       json={"reason": "no claim was made"}).status_code == 200
    after = penalty_list(client, t)[third["id"]]
    assert after["points"] == 0 and len(after["rebooked"].splitlines()) == 2
    assert offence(client, t, "Bo0")["points"] == 5  # the next one follows the count


def test_a_void_rebooks_only_what_it_can_move(sheet, monkeypatch) -> None:
    """Steps a sheet before rebooking left behind (migration 0007 adds no rebooking) are
    not rebooked by an unrelated void, under a cause that is not theirs: a void moves
    only the player's later offences of its kind in its hand."""
    import tilecam.tables.sheet as sheet_module

    client, _ = sheet
    t, _k = new_table(client)
    first, second, _ = (offence(client, t, "Bo0") for _ in range(3))
    other = offence(client, t, "Ann0", kind="early_draw")
    with monkeypatch.context() as m:  # the sheet as it was: a void rebooks nothing
        m.setattr(sheet_module, "_rebook_offences", lambda *a, **k: [])
        assert client.post(f"/v1/tables/{t}/penalties/{first['id']}/void", headers=admin(),
                           json={"reason": "old sheet"}).status_code == 200
    assert client.post(f"/v1/tables/{t}/penalties/{other['id']}/void", headers=admin(),
                       json={"reason": "he had discarded"}).status_code == 200
    stale = penalty_list(client, t)
    assert [stale[p["id"]]["rebooked"] for p in (second,)] == [None]
    assert stale[second["id"]]["points"] == 5  # left as the old sheet left it


def test_a_false_claim_ruled_or_undone_books_the_offences_of_the_hand_again(sheet) -> None:
    """A false claim's record and the one after it are one hand (seed 003: 该盘继续比赛),
    so an offence booked at the next record before the ruling is the hand's second once it
    is ruled, and its first again when a correction undoes the ruling."""
    client, _ = sheet
    t, k = new_table(client)
    assert offence(client, t, "Ann0")["points"] == 0
    post(client, t, k, hand=LOW_WIN, winner="S", discarder="E")
    later = offence(client, t, "Ann0", hand=2)
    assert later["points"] == 0  # hand 2 is another hand, for now
    assert client.post(f"/v1/tables/{t}/hands/1/false-claim", headers=admin(),
                       json={"reason": "错和"}).status_code == 201
    ruled = penalty_list(client, t)[later["id"]]
    assert ruled["points"] == 5 and "ruled a false claim" in ruled["rebooked"]
    st = client.get(f"/v1/tables/{t}/standings", headers=bearer(k)).json()
    # 错和: the claimant pays Ann0 10; the offence at its second step takes 5
    assert {p["player"]: p["penalty_points"] for p in st["players"]}["Ann0"] == 10 - 5
    fix = client.post(f"/v1/tables/{t}/hands/1/corrections", headers=admin(),
                      json={"hand": PLAIN_HAND, "winner": "S", "discarder": "E",
                            "reason": "a legal win after all"})
    assert fix.status_code == 201, fix.text
    undone = penalty_list(client, t)[later["id"]]
    assert undone["points"] == 0 and "undone by a correction" in undone["rebooked"]
    st = client.get(f"/v1/tables/{t}/standings", headers=bearer(k)).json()
    assert {p["player"]: p["penalty_points"] for p in st["players"]}["Ann0"] == 0


def test_a_repeat_offence_takes_no_points_and_needs_the_rules_to_have_it(sheet) -> None:
    """The sheet works the points out; Xiamen and Zhenjiang have no such scale."""
    client, _ = sheet
    t, _ = new_table(client)
    given = penalize(client, t, player="Bo0", kind="empty_claim", hand=1, points=5)
    assert given.status_code == 400
    assert "books the step of the repeat in the hand (warning, then 5, 10, 20 …)" in (
        given.json()["error"]["message"])
    nohand = penalize(client, t, player="Bo0", kind="slow_pung")
    assert nohand.status_code == 400 and "names the hand" in nohand.text
    for rules in ("xiamen", "zhenjiang"):
        other, _ = new_table(client, rules=rules)
        r = penalize(client, other, player="Bo0", kind="empty_claim", hand=1)
        assert r.status_code == 400 and "no penalty grows with repeats" in r.text, r.text


def test_the_standings_count_each_players_warnings_and_bars(sheet) -> None:
    """Seed 003 一、警告: 第二次违例犯规 the referee may deduct or bar — the standings show
    each player's warnings (a repeat offence's first step is one) and bars, not void."""
    client, _ = sheet
    t, k = new_table(client)
    assert penalize(client, t, player="Ann0", kind="warning").status_code == 201
    offence(client, t, "Ann0")  # a warning
    offence(client, t, "Ann0")  # 5 points: no warning
    assert penalize(client, t, player="Bo0", kind="bar", hand=1).status_code == 201
    void = penalize(client, t, player="Cai0", kind="warning").json()["id"]
    assert client.post(f"/v1/tables/{t}/penalties/{void}/void", headers=admin(),
                       json={"reason": "wrong player"}).status_code == 200
    st = client.get(f"/v1/tables/{t}/standings", headers=bearer(k)).json()
    counts = {p["player"]: (p["warnings"], p["bars"]) for p in st["players"]}
    assert counts == {"Ann0": (2, 0), "Bo0": (0, 1), "Cai0": (0, 0), "Dan0": (0, 0)}


def test_a_disqualified_player_takes_no_rank(sheet) -> None:
    """Seed 003 四、停赛 (取消继续参加本次比赛的资格; 有意诈和 draws it): the player stays on the
    sheet with their points but takes no rank, at the table or in the event, and the
    others rank among themselves; a void disqualification gives the rank back."""
    client, _ = sheet
    event, tables = _new_event(client, tables=2)
    (t, k), _ = tables
    post(client, t, k, hand=PLAIN_HAND, winner="N", self_drawn=True)  # Dan0 leads
    r = penalize(client, t, player="Dan0", kind="disqualification", reason="有意诈和")
    assert r.status_code == 201 and r.json()["points"] == 0, r.text
    again = penalize(client, t, player="Dan0", kind="disqualification")
    assert again.status_code == 409 and "disqualified already" in again.text
    st = client.get(f"/v1/tables/{t}/standings", headers=bearer(k)).json()
    lines = [(p["player"], p["rank"], p["disqualified"]) for p in st["players"]]
    assert lines[-1] == ("Dan0", None, True)
    assert sorted(rank for _, rank, _ in lines[:-1]) == [1, 1, 1]
    ev = client.get(f"/v1/events/{event}/standings", headers=admin()).json()
    assert ev["players"][-1]["player"] == "Dan0" and ev["players"][-1]["rank"] is None
    # the other table's four on 0 points, then this table's three who paid Dan0's win
    assert [p["rank"] for p in ev["players"][:-1]] == [1, 1, 1, 1, 5, 5, 5]
    rows = list(csv.reader(io.StringIO(client.get(
        f"/v1/events/{event}/standings.csv", headers=admin()).content.decode("utf-8-sig"))))
    # the rows' rules in the last column (review "reviewtables", finding 4)
    assert rows[0][-2:] == ["disqualified", "rules"] and rows[-1][0] == ""
    assert rows[-1][-2:] == ["yes", "mcr"]
    assert client.post(f"/v1/tables/{t}/penalties/{r.json()['id']}/void", headers=admin(),
                       json={"reason": "appeal upheld"}).status_code == 200
    st = client.get(f"/v1/tables/{t}/standings", headers=bearer(k)).json()
    assert st["players"][0]["player"] == "Dan0" and st["players"][0]["rank"] == 1


def test_a_barred_dealers_held_win_does_not_keep_the_deal(sheet) -> None:
    """Seed 000 (出错者盖牌，退出当轮游戏): a Xiamen dealer barred from the hand cannot have
    won it, so the win held pending tells nobody's win — the deal passes as after a
    pending hand whose winner is not known (``assumed_after``), not as 连庄."""
    client, _ = sheet
    t, k = new_table(client, rules="xiamen")
    assert penalize(client, t, player="Ann0", kind="bar", hand=1).status_code == 201
    win = {"hand": "123m456m789m123p456p55s", "winner": "E", "self_drawn": True,
           "context": {"gold": "9s"}}
    assert post(client, t, k, **win)["outcome"] == "pending"
    place = table_view(client, t, k)["next_hand"]
    assert (place["dealer"], place["dealer_repeats"], place["assumed_after"]) == ("Bo0", 0, 1)


def test_a_second_bar_anywhere_in_the_hand_is_refused(sheet) -> None:
    """One 停和 per player and hand: a bar naming an earlier record of a hand the player
    is barred from later in it (a bar there, or their own false claim) is 409, so
    voiding one bar always lifts the 停和."""
    client, _ = sheet
    t, k = new_table(client)
    post(client, t, k, hand=LOW_WIN, winner="S", discarder="E")
    assert client.post(f"/v1/tables/{t}/hands/1/false-claim", headers=admin(),
                       json={"reason": "错和"}).status_code == 201
    assert penalize(client, t, player="Cai0", kind="bar", hand=2).status_code == 201
    for player in ("Cai0", "Bo0"):  # barred at record 2; Bo0 by the false claim
        r = penalize(client, t, player=player, kind="bar", hand=1)
        assert r.status_code == 409 and "already" in r.text, (player, r.text)
    assert penalize(client, t, player="Dan0", kind="bar", hand=1).status_code == 201


def test_an_offence_names_nobody_paid(sheet) -> None:
    """A repeat offence is a deduction of its own: ``to`` is for a payment only."""
    client, _ = sheet
    t, _ = new_table(client)
    r = penalize(client, t, player="Bo0", kind="empty_claim", hand=1, to="Ann0")
    assert r.status_code == 400 and "and only a payment" in r.json()["error"]["message"]


def _at_once(work, count: int = 2) -> None:
    threads = [threading.Thread(target=work) for _ in range(count)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()


def test_two_offences_booked_at_once_take_two_steps(sheet, monkeypatch) -> None:
    """Two referees booking one player's 空碰 at the same moment: the sheet counts one
    after the other (its row lock), warning then 5 — on PostgreSQL too."""
    import tilecam.tables.sheet as sheet_module

    client, _ = sheet
    t, _ = new_table(client)
    counted = sheet_module.earlier_offences

    def slow(*args: object) -> int:
        n = counted(*args)  # type: ignore[arg-type]
        time.sleep(0.3)  # the window where an unlocked count is read twice
        return n

    monkeypatch.setattr(sheet_module, "earlier_offences", slow)
    steps: list[int] = []
    _at_once(lambda: steps.append(offence(client, t, "Bo0")["points"]))
    assert sorted(steps) == [0, 5]


@pytest.mark.parametrize("kind", ["bar", "warning"])
def test_a_penalty_voided_twice_at_once_is_void_once(sheet, monkeypatch, kind: str) -> None:
    """Two voids of one penalty at the same moment: one 200, one 409, and a held win
    scored again once."""
    import tilecam.tables.sheet as sheet_module

    client, _ = sheet
    t, k = new_table(client)
    post(client, t, k, hand=PLAIN_HAND, winner="N", discarder="E")
    body = {"player": "Dan0", "kind": kind} | ({"hand": 1} if kind == "bar" else {})
    pid = penalize(client, t, **body).json()["id"]
    locked = sheet_module.lock_sheet

    def slow(*args: object) -> None:
        time.sleep(0.3)
        locked(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(sheet_module, "lock_sheet", slow)
    codes: list[int] = []
    _at_once(lambda: codes.append(client.post(
        f"/v1/tables/{t}/penalties/{pid}/void", headers=admin(),
        json={"reason": "appeal"}).status_code))
    assert sorted(codes) == [200, 409]
    history = [h["action"] for h in hand_view(client, t, 1)["history"]]
    assert history == (["record", "reseat", "reseat"] if kind == "bar" else ["record"])


def test_the_rules_document_lists_what_a_referee_may_book(sheet) -> None:
    """``GET /v1/rules`` tells a referee's client each rule set's penalties: the false
    claim kinds, the fixed deductions and the repeat offences with their steps."""
    client, _ = sheet
    sets = {r["name"]: r["penalties"] for r in client.get("/v1/rules").json()["rule_sets"]}
    assert sets["mcr"]["deductions"] == [5, 10, 20, 30, 40, 50, 60]
    assert sets["mcr"]["repeat_offence_points"] == [0, 5, 10, 20]
    assert sorted(sets["mcr"]["repeat_offences"]) == ["early_draw", "empty_claim", "slow_pung"]
    assert sets["mcr"]["false_claim_kinds"] == {"wrong_win": "错和", "false_win": "诈和"}
    assert sets["zhenjiang"]["false_claim_kinds"] == {"false_win": "诈胡"}
    assert sets["xiamen"] == {"false_claim_kinds": {}, "deductions": [],
                              "repeat_offences": {}, "repeat_offence_points": []}
