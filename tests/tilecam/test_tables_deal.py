"""Who deals each hand at a regional table (the rule set's ``Deal``): Xiamen 连庄 — the
dealer who wins deals again, with the 底 doubled — and 臭庄 — a drawn hand keeps the
dealer and doubles it again; Xiamen's chip stacks (100 each a 课, a payer pays at most
what he has, 杀三 empties all three); Zhenjiang keeps the dealer only after a drawn hand
(黄牌庄家不变) and ends after four rounds of the deal; a referee's correction that changes
who deals after a hand, or the chips before it, scores the later hands again."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from test_tables_helpers import admin, client_for, database_url, make_app, new_event

import scoring

XIAMEN_WIN = "123m456m789m123p456p55s"  # five sets and a pair, no gold held (gold 9s)
ZHENJIANG_WIN = "[555m,1]456m789m123p55p"


@pytest.fixture(params=["sqlite", "postgres"])
def client(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[TestClient]:
    app, _ = make_app(database_url(str(request.param), tmp_path), tmp_path / "data")
    yield from client_for(app)


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def post(client: TestClient, table: int, key: str, **body: Any) -> dict[str, Any]:
    r = client.post(f"/v1/tables/{table}/hands", headers=bearer(key), json=body)
    assert r.status_code == 201, r.text
    return dict(r.json())


def xiamen_self_draw(client: TestClient, table: int, key: str, winner: str) -> dict[str, Any]:
    return post(client, table, key, hand=XIAMEN_WIN, winner=winner, self_drawn=True,
                context={"gold": "9s"})


def each_pays(dealer: bool, repeats: int = 0, drawn: int = 0) -> int:
    """What each other player pays for XIAMEN_WIN self-drawn (the scorer's own figure)."""
    return scoring.score(XIAMEN_WIN, rules="xiamen", gold="9s", self_drawn=True,
                         dealer=dealer, dealer_repeats=repeats, drawn_hands=drawn).total


def test_xiamen_dealer_who_wins_deals_again_with_the_base_doubled(client: TestClient) -> None:
    """连庄 (seed 000): the dealer (Ann0) wins hands 1 and 2 and deals hand 3, whose 底
    is 16 × 2 × 2; a drawn hand 3 keeps her dealing and doubles it again (臭庄); Bo0's
    win in hand 4 passes the deal to him, and hand 5's East is Bo0."""
    _, [(t, k)] = new_event(client, rules="xiamen", tables=1)
    one = xiamen_self_draw(client, t, k, "E")
    assert (one["dealer"], one["dealer_repeats"]) == ("Ann0", 0)
    assert one["points"]["Ann0"] == 3 * each_pays(True)
    two = xiamen_self_draw(client, t, k, "E")
    assert (two["dealer"], two["dealer_repeats"], two["hand_in_round"]) == ("Ann0", 1, 2)
    # no 水 in this hand: twice the 底 is twice the payment
    assert two["points"]["Ann0"] == 3 * each_pays(True, repeats=1) == 3 * 2 * each_pays(True)
    assert post(client, t, k, outcome="draw")["dealer"] == "Ann0"
    four = xiamen_self_draw(client, t, k, "S")
    assert (four["dealer"], four["dealer_repeats"], four["drawn_hands"]) == ("Ann0", 2, 1)
    assert each_pays(True, repeats=2, drawn=1) == 8 * each_pays(True)  # what Ann0 would win
    assert four["winner"] == {"seat": "S", "player": "Bo0"}
    # 100 chips each to start the 课; Ann0 took 96 + 192 of them, so Bo0, Cai0 and Dan0
    # have 4 left: Cai0 and Dan0 pay what they have (cap_at_stack), Ann0 pays in full
    assert four["chips"] == {"Ann0": 388, "Bo0": 4, "Cai0": 4, "Dan0": 4}
    assert four["points"] == {"Ann0": -each_pays(False), "Bo0": each_pays(False) + 8,
                              "Cai0": -4, "Dan0": -4}
    nxt = client.get(f"/v1/tables/{t}", headers=bearer(k)).json()["next_hand"]
    assert (nxt["number"], nxt["dealer"], nxt["seats"]["E"], nxt["dealer_repeats"]) == (
        5, "Bo0", "Bo0", 0)
    # Cai0 and Dan0 have no chips left: the 课 is over, the next starts with 100 each
    assert nxt["chips"] == {"Ann0": 100, "Bo0": 100, "Cai0": 100, "Dan0": 100}
    five = xiamen_self_draw(client, t, k, "E")
    assert five["points"] == {"Ann0": -each_pays(True), "Bo0": 3 * each_pays(True),
                              "Cai0": -each_pays(True), "Dan0": -each_pays(True)}
    lines = {p["player"]: p["wins"] for p in
             client.get(f"/v1/tables/{t}/standings", headers=bearer(k)).json()["players"]}
    assert lines == {"Ann0": 2, "Bo0": 2, "Cai0": 0, "Dan0": 0}


def test_a_correction_that_moves_the_deal_scores_the_later_hands_again(
    client: TestClient,
) -> None:
    """Hand 1 recorded as the dealer's win, hand 2 as the dealer's win too (so Ann0's,
    连庄). The referee corrects hand 1: South (Bo0) won it — so Bo0 dealt hand 2, and
    hand 2's East was Bo0. Hand 2 gets a ``reseat`` revision paying Bo0 at a base with
    no streak; its first revision still names Ann0, as it was scored then."""
    _, [(t, k)] = new_event(client, rules="xiamen", tables=1)
    xiamen_self_draw(client, t, k, "E")
    xiamen_self_draw(client, t, k, "E")
    r = client.post(f"/v1/tables/{t}/hands/1/corrections", headers=admin(), json={
        "hand": XIAMEN_WIN, "winner": "S", "self_drawn": True, "context": {"gold": "9s"},
        "reason": "Bo0 won it"})
    assert r.status_code == 201, r.text
    two = client.get(f"/v1/tables/{t}/hands/2", headers=bearer(k)).json()
    assert (two["revision"], two["action"], two["dealer"], two["dealer_repeats"]) == (
        2, "reseat", "Bo0", 0)
    assert "hand 1 changed who deals" in two["note"]
    assert two["winner"] == {"seat": "E", "player": "Bo0"}
    assert two["points"]["Bo0"] == 3 * each_pays(True)
    assert two["history"][0]["winner"] == {"seat": "E", "player": "Ann0"}
    st = client.get(f"/v1/tables/{t}/standings", headers=bearer(k)).json()
    assert {p["player"]: p["total"] for p in st["players"]} == {
        "Ann0": -each_pays(False) - each_pays(True),
        "Bo0": 3 * each_pays(False) + 3 * each_pays(True),
        "Cai0": -each_pays(False) - each_pays(True), "Dan0": -each_pays(False) - each_pays(True)}
    # voiding hand 1 (a re-deal: Ann0 deals again) moves hand 2 back to her
    assert client.post(f"/v1/tables/{t}/hands/1/void", headers=admin(),
                       json={"reason": "misdeal"}).status_code == 201
    two = client.get(f"/v1/tables/{t}/hands/2", headers=bearer(k)).json()
    assert (two["revision"], two["dealer"], two["points"]["Ann0"]) == (3, "Ann0",
                                                                      3 * each_pays(True))


def test_a_hand_whose_winner_is_unknown_leaves_the_next_dealer_assumed(
    client: TestClient,
) -> None:
    """A pending hand with no winner: the deal is taken to pass, and the next place says
    it rests on that hand (``assumed_after``) until a referee settles it."""
    _, [(t, k)] = new_event(client, rules="xiamen", tables=1)
    pending = post(client, t, k, hand=XIAMEN_WIN, self_drawn=True, context={"gold": "9s"})
    assert pending["outcome"] == "pending" and "assumed_after" not in pending
    nxt = client.get(f"/v1/tables/{t}", headers=bearer(k)).json()["next_hand"]
    assert (nxt["dealer"], nxt["assumed_after"]) == ("Bo0", 1)
    xiamen_self_draw(client, t, k, "E")  # hand 2: Bo0 as East
    r = client.post(f"/v1/tables/{t}/hands/1/corrections", headers=admin(), json={
        "hand": XIAMEN_WIN, "winner": "E", "self_drawn": True, "context": {"gold": "9s"},
        "reason": "the dealer won"})
    assert r.status_code == 201, r.text
    two = client.get(f"/v1/tables/{t}/hands/2", headers=bearer(k)).json()
    assert (two["dealer"], two["action"], two["dealer_repeats"]) == ("Ann0", "reseat", 1)
    assert "assumed_after" not in two
    assert two["points"]["Ann0"] == 3 * each_pays(True, repeats=1)


def test_zhenjiang_keeps_the_dealer_after_a_draw_and_ends_after_four_rounds(
    client: TestClient,
) -> None:
    """黄牌庄家不变 (seed 001): a drawn hand keeps the dealer; a win passes the deal even
    to the dealer's own win; 四圈为一将: the session ends when the deal has gone round
    four times — with one drawn hand, after 17 hands."""
    _, [(t, k)] = new_event(client, rules="zhenjiang", tables=1)
    assert post(client, t, k, outcome="draw")["dealer"] == "Ann0"
    dealers = []
    for _ in range(16):
        view = post(client, t, k, hand=ZHENJIANG_WIN, winner="E", self_drawn=True,
                    context={"indicator": "9s"})
        dealers.append(view["dealer"])
    assert dealers[:5] == ["Ann0", "Bo0", "Cai0", "Dan0", "Ann0"]
    assert dealers[-1] == "Dan0"
    st = client.get(f"/v1/tables/{t}/standings", headers=bearer(k)).json()
    assert (st["hands_recorded"], st["complete"], st["next_hand"]) == (17, True, None)
    r = client.post(f"/v1/tables/{t}/hands", headers=bearer(k), json={"outcome": "draw"})
    assert r.status_code == 409 and "all 17 hands" in r.json()["error"]["message"]


def test_mcr_keeps_its_fixed_schedule_whatever_the_hands(client: TestClient) -> None:
    """MCR (seed 003, 不设连庄): the dealer's win and a drawn hand pass the deal all the
    same; ``GET /v1/rules`` says how each rule set's deal goes on."""
    _, [(t, k), _] = new_event(client)
    post(client, t, k, hand="123m456m789m123p55p", winner="E", self_drawn=True)
    assert post(client, t, k, outcome="draw")["dealer"] == "Bo0"
    assert client.get(f"/v1/tables/{t}", headers=bearer(k)).json()["next_hand"]["dealer"] == "Cai0"
    sets = client.get("/v1/rules").json()["rule_sets"]
    deals = {rs["name"]: rs["deal"] for rs in (sets.values() if isinstance(sets, dict) else sets)}
    assert deals["mcr"] == {"stays_on_dealer_win": False, "stays_on_draw": False, "rounds": 4,
                            "seat_changes": True, "goes_on_after_false_claim": True}
    assert deals["xiamen"] == {"stays_on_dealer_win": True, "stays_on_draw": True,
                               "rounds": None, "seat_changes": False,
                               "goes_on_after_false_claim": False}
    assert deals["zhenjiang"]["stays_on_draw"] is True
    assert deals["zhenjiang"]["goes_on_after_false_claim"] is True


def test_a_revision_stored_before_seats_were_kept_reads_with_the_mcr_schedule() -> None:
    """Migration 0005: older revisions have no ``seats``; every table was seated by the
    MCR schedule then, so that is how the sheet reads them."""
    from tilecam.db.models import HandRevision
    from tilecam.tables import flow
    from tilecam.tables.settlement import revision_seats

    old = HandRevision(outcome="win", winner="E", seats=None)
    assert revision_seats(old, 6) == flow.place(6).seat_winds() == {"E": 0, "S": 3, "W": 2,
                                                                     "N": 1}
    new = HandRevision(outcome="win", winner="E", seats={"E": 2, "S": 3, "W": 0, "N": 1})
    assert revision_seats(new, 6) == {"E": 2, "S": 3, "W": 0, "N": 1}


def test_xiamen_kill_three_takes_the_chips_the_sheet_knows_the_players_have(
    client: TestClient,
) -> None:
    """杀三 (seed 000): a win that empties all three other players' chips (100 each a 课)
    adds its bonus (100 from each, outside the chips). After Ann0's first win (32 from
    each, 68 left), her 游金 as dealer on a streak owes more than that from each: each
    pays his 68 and the bonus of 游金 (50) and 杀三 (100); the next hand starts a new 课."""
    _, [(t, k)] = new_event(client, rules="xiamen", tables=1)
    xiamen_self_draw(client, t, k, "E")
    you_jin = post(client, t, k, hand="123m456m789m123p456pC5p", winner="E", self_drawn=True,
                   context={"gold": "C", "win": "you_jin"})
    assert you_jin["chips"] == {"Ann0": 196, "Bo0": 68, "Cai0": 68, "Dan0": 68}
    assert you_jin["score"]["details"]["kill_three"] is True
    assert you_jin["points"] == {"Ann0": 204, "Bo0": -68, "Cai0": -68, "Dan0": -68}
    assert you_jin["money"] == {"Ann0": 450, "Bo0": -150, "Cai0": -150, "Dan0": -150}
    nxt = client.get(f"/v1/tables/{t}", headers=bearer(k)).json()["next_hand"]
    assert nxt["chips"] == {"Ann0": 100, "Bo0": 100, "Cai0": 100, "Dan0": 100}
    # told the stacks in the report's context, the sheet takes them as told
    told = post(client, t, k, hand=XIAMEN_WIN, winner="S", self_drawn=True,
                context={"gold": "9s", "chips_left": 5, "chips_opposite": 100,
                         "chips_right": 100})
    assert told["points"] == {"Ann0": -5, "Bo0": 5 + 2 * each_pays(False),
                              "Cai0": -each_pays(False), "Dan0": -each_pays(False)}


def test_a_payment_penalty_makes_one_player_pay_another(client: TestClient) -> None:
    """包赔 (seed 000, 诈胡的重判: a false win in the round of someone's 游金 pays what the
    游金 would have won, bonus included): the referee records it as a ``payment`` from the
    offender to that player, in chips or in money; it names whom it pays, and a payment
    to nobody, to the payer himself or without points is refused."""
    _, [(t, k)] = new_event(client, rules="xiamen", tables=1)
    r = client.post(f"/v1/tables/{t}/penalties", headers=admin(), json={
        "player": "Cai0", "kind": "payment", "to": "Bo0", "points": 150, "money": True,
        "reason": "诈胡 while Bo0 was 游金: his 游金 bonus"})
    assert r.status_code == 201, r.text
    assert (r.json()["to"], r.json()["deltas"]) == (
        "Bo0", {"Ann0": 0, "Bo0": 150, "Cai0": -150, "Dan0": 0})
    chips = client.post(f"/v1/tables/{t}/penalties", headers=admin(), json={
        "player": 2, "kind": "payment", "to": 1, "points": 204})
    assert chips.status_code == 201 and chips.json()["money"] is False
    lines = {p["player"]: (p["penalty_points"], p["money"]) for p in
             client.get(f"/v1/tables/{t}/standings", headers=bearer(k)).json()["players"]}
    assert lines == {"Ann0": (0, 0), "Bo0": (204, 150), "Cai0": (-204, -150), "Dan0": (0, 0)}
    for body, what in (({"to": "Bo0"}, "give the points"), ({"points": 5}, "names the player"),
                       ({"to": "Cai0", "points": 5}, "another player"),
                       ({"to": "Zed", "points": 5}, "no player")):
        bad = client.post(f"/v1/tables/{t}/penalties", headers=admin(),
                          json={"player": "Cai0", "kind": "payment", **body})
        assert bad.status_code == 400 and what in bad.json()["error"]["message"], bad.text
    bad = client.post(f"/v1/tables/{t}/penalties", headers=admin(), json={
        "player": "Cai0", "kind": "deduction", "points": 5, "to": "Bo0"})
    assert bad.status_code == 400 and "only a payment" in bad.json()["error"]["message"]


@pytest.mark.parametrize("rules", ["mcr", "xiamen"])
def test_a_new_table_shows_its_first_place_as_reading_the_table_does(
    client: TestClient, rules: str
) -> None:
    """The answer that creates a table gives the first hand's place as GET /v1/tables/{id}
    does — for Xiamen with the 100 chips each player starts the 课 with."""
    r = client.post("/v1/events", json={"name": "Spring open", "rules": rules}, headers=admin())
    event_id = r.json()["id"]
    r = client.post(f"/v1/events/{event_id}/tables", headers=admin(),
                    json={"name": "T1", "players": ["Ann", "Bo", "Cai", "Dan"]})
    assert r.status_code == 201, r.text
    created = r.json()
    got = client.get(f"/v1/tables/{created['id']}", headers=bearer(created["api_key"])).json()
    assert created["next_hand"] == got["next_hand"]
    assert ("chips" in created["next_hand"]) is (rules == "xiamen")


def test_a_correction_scores_each_later_hand_at_the_chips_the_rescored_hands_leave(
    client: TestClient,
) -> None:
    """Xiamen chips carry from hand to hand, so a correction that moves hand 2 changes
    what hand 3 starts with. Bo0 won hand 1, then the dealer (Bo0) hands 2 and 3. The
    referee corrects hand 1 to a drawn hand (臭庄: Ann0 deals on): hand 2 is now Ann0's
    win after a drawn hand (the 底 doubled), and hand 3 — Ann0 on a streak — is scored at
    the chips hand 2's new payments leave, each payer paying at most what he has."""
    _, [(t, k)] = new_event(client, rules="xiamen", tables=1)
    xiamen_self_draw(client, t, k, "S")
    xiamen_self_draw(client, t, k, "E")
    xiamen_self_draw(client, t, k, "E")
    r = client.post(f"/v1/tables/{t}/hands/1/corrections", headers=admin(), json={
        "outcome": "draw", "reason": "nobody won"})
    assert r.status_code == 201, r.text
    two = client.get(f"/v1/tables/{t}/hands/2", headers=bearer(k)).json()
    three = client.get(f"/v1/tables/{t}/hands/3", headers=bearer(k)).json()
    assert (two["action"], two["dealer"], two["drawn_hands"]) == ("reseat", "Ann0", 1)
    assert two["chips"] == {"Ann0": 100, "Bo0": 100, "Cai0": 100, "Dan0": 100}
    assert two["points"]["Ann0"] == 3 * each_pays(True, drawn=1)
    assert (three["action"], three["dealer"], three["dealer_repeats"]) == ("reseat", "Ann0", 1)
    assert three["chips"] == {name: 100 + pts for name, pts in two["points"].items()}
    owed = each_pays(True, repeats=1)
    for name in ("Bo0", "Cai0", "Dan0"):
        assert three["points"][name] == -min(owed, three["chips"][name])


def test_a_score_too_large_for_the_sheet_is_refused_with_the_reason(client: TestClient) -> None:
    """A Xiamen table set up with a 底 of 10⁹ chips: a self-drawn win's payments (底 × 2
    from each payer) overflow the database's 32-bit column (PostgreSQL stopped it with a
    500, SQLite too). It is refused with a 400 naming the figure and the limit, and
    nothing is recorded."""
    _, [(t, k)] = new_event(client, rules="xiamen", tables=1,
                            settings={"base_nondealer": 10**9, "base_dealer": 10**9,
                                      "cap_at_stack": False})
    r = client.post(f"/v1/tables/{t}/hands", headers=bearer(k), json={
        "hand": XIAMEN_WIN, "winner": "S", "self_drawn": True, "context": {"gold": "9s"}})
    assert r.status_code == 400, r.text
    message = r.json()["error"]["message"]
    assert message.startswith("hand 1 scores ")
    assert "more than the sheet records (2,147,483,647)" in message
    assert client.get(f"/v1/tables/{t}/hands", headers=bearer(k)).json()["hands"] == []


@pytest.mark.parametrize(("rules", "settings"), [
    ("mcr", {"base_points": 10**12}), ("xiamen", {"false_win_money": 2**31}),
    ("zhenjiang", {"false_win": 10**10})])
def test_a_table_set_up_past_what_its_sheet_keeps_is_refused(
        client: TestClient, rules: str, settings: dict[str, int]) -> None:
    """A setting past 10⁹ (more than the sheet's 32-bit figures, 2,147,483,647, for some)
    could only give hands and penalties the sheet cannot record: the table is refused at
    once with a 400 naming the setting and the bound (a Zhenjiang 诈胡 of 10¹⁰ reached
    PostgreSQL and answered 500)."""
    r = client.post("/v1/events", json={"name": "Big", "rules": rules}, headers=admin())
    r = client.post(f"/v1/events/{r.json()['id']}/tables", headers=admin(), json={
        "name": "T1", "players": ["A", "B", "C", "D"], "rules": rules, "settings": settings})
    assert r.status_code == 400, r.text
    [(name, value)] = settings.items()
    assert r.json()["error"]["message"] == (
        f"setting {name}={value}: must be at most 1,000,000,000")


@pytest.mark.parametrize(("rules", "settings"), [
    ("xiamen", {"false_win_money": 10**9}), ("zhenjiang", {"false_win": 6, "base_chip": 10**9})])
def test_a_default_penalty_too_large_for_the_sheet_is_refused_with_the_reason(
        client: TestClient, rules: str, settings: dict[str, int]) -> None:
    """诈胡 with no points given takes the table's settings: 10⁹ to each other player makes
    the offender pay 3×10⁹, past the sheet's 32-bit figures (PostgreSQL answered 500).
    The penalty is refused with a 400 naming the figures; none is recorded, and one with
    its points given is still taken."""
    _, [(t, _)] = new_event(client, rules=rules, tables=1, settings=settings)
    r = client.post(f"/v1/tables/{t}/penalties", headers=admin(),
                    json={"player": 0, "kind": "false_win"})
    assert r.status_code == 400, r.text
    assert "more than the sheet records (2,147,483,647)" in r.json()["error"]["message"]
    standings = client.get(f"/v1/tables/{t}/standings", headers=admin()).json()
    assert all(p["penalty_points"] == 0 and p["money"] == 0 for p in standings["players"])
    r = client.post(f"/v1/tables/{t}/penalties", headers=admin(),
                    json={"player": 0, "kind": "false_win", "points": 50})
    assert r.status_code == 201, r.text
