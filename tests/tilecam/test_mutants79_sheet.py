"""Score-sheet rules that mutation testing (session 79) found no test pinning.

Each test names the sheet rule it checks. Settlement's pure functions are tested
directly (points by player position, four ints); the sheet's own rules through small
transient model objects, as the sheet hands them over, without a database.
"""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient
from test_tables_helpers import FakeCamera, admin, bearer, new_table

from tilecam.db.models import GameTable, HandRevision
from tilecam.tables.scoring_bridge import HandReport
from tilecam.tables.settlement import (
    _seat_wind,
    money_deltas,
    payment_receiver,
    penalty_deltas,
    place_payments,
    place_transfers,
    revision_money,
)
from tilecam.tables.sheet import (
    _claim_penalty,
    default_penalty,
    merged_report,
    scored_settings,
    void_penalty,
)

#: Seat wind → player position: East is player 0 … North player 3.
WINDS = {"E": 0, "S": 1, "W": 2, "N": 3}
WIN = "123m456m789m234p55s"  # MCR: a legal win on a discard

Sheet = tuple[TestClient, FakeCamera]


# --- settlement: a win's payments --------------------------------------------------------


def test_a_winner_that_is_not_a_seat_wind_is_refused_with_the_reason() -> None:
    """place_payments: the winner is a seat wind (E, S, W or N), else ValueError."""
    with pytest.raises(ValueError, match="not a seat wind"):
        place_payments([{"payer": "left", "amount": 8}], "X", None, {**WINDS, "X": 0})


def test_a_payment_from_the_others_is_paid_by_each_loser_but_the_discarder() -> None:
    """place_payments: ``others`` (and ``each``) is one amount paid by every player who
    neither won nor discarded; the winner gains all of it (S wins on W's discard)."""
    pays = [{"payer": "discarder", "amount": 40}, {"payer": "others", "amount": 8}]
    assert place_payments(pays, "S", "W", WINDS) == [-8, 56, -40, -8]
    first = [{"payer": "others", "amount": 8}, {"payer": "discarder", "amount": 40}]
    assert place_payments(first, "S", "W", WINDS) == [-8, 56, -40, -8]
    each = [{"payer": "each", "amount": 5}]
    assert place_payments(each, "E", None, WINDS) == [15, -5, -5, -5]


def test_too_many_other_payers_are_refused() -> None:
    """place_payments: on a discard there are two ``other`` payers, not three."""
    pays = [{"payer": "discarder", "amount": 40}] + [{"payer": "other", "amount": 8}] * 3
    with pytest.raises(ValueError, match="too many 'other'"):
        place_payments(pays, "S", "W", WINDS)


def test_a_discarder_payment_needs_a_discarder() -> None:
    """place_payments: a settlement naming a discarder on a self-drawn win is refused."""
    with pytest.raises(ValueError, match="names a discarder"):
        place_payments([{"payer": "discarder", "amount": 40}], "S", None, WINDS)


# --- settlement: transfers apart from a win ------------------------------------------------


def test_a_transfer_seat_is_a_seat_wind_or_a_seat_seen_from_the_winner() -> None:
    """_seat_wind: an unknown seat name is refused; a seat seen from the winner needs a
    winner (a drawn hand has none); a seat wind needs none."""
    assert _seat_wind("N", None) == "N"
    assert _seat_wind("right", "E") == "S"  # 下家: the next in play order
    assert _seat_wind("left", "E") == "N"  # 上家
    with pytest.raises(ValueError, match="unknown seat"):
        _seat_wind("dealer", "E")
    with pytest.raises(ValueError, match="hand has none"):
        _seat_wind("left", None)
    with pytest.raises(ValueError, match="hand has none"):
        place_transfers([{"from": "winner", "to": "E", "amount": 2}], None, WINDS)


# --- settlement: money apart from the points -----------------------------------------------


def test_bonus_money_moves_only_when_the_hand_has_a_winner() -> None:
    """money_deltas: a score's bonus money (Xiamen 游金 50 from each payer) needs a
    winner to be paid to; without one, 0 each."""
    paid = [{"payer": p, "amount": 36, "bonus": 50} for p in ("left", "opposite", "right")]
    assert money_deltas({"settlement": {"payments": paid}}, None, None, WINDS) == [0, 0, 0, 0]


def test_bonus_money_from_one_payer_alone_is_paid() -> None:
    """money_deltas: a bonus named by one payer only (the others' 0) is still paid: S
    wins, its left-hand player (上家, E) pays 50."""
    paid = [{"payer": "left", "amount": 36, "bonus": 50},
            {"payer": "opposite", "amount": 36, "bonus": 0},
            {"payer": "right", "amount": 36}]
    assert money_deltas({"settlement": {"payments": paid}}, "S", None, WINDS) == [-50, 50, 0, 0]


@pytest.mark.parametrize("score", [None, {}, {"settlement": None}, {"settlement": {}}])
def test_a_score_without_payments_moves_no_money(score: dict[str, Any] | None) -> None:
    """money_deltas: a stored score naming no payments (none stored, or a rule set that
    pays no bonus) is 0 each, not an error."""
    assert money_deltas(score, "S", None, WINDS) == [0, 0, 0, 0]


def test_only_a_settled_win_moves_bonus_money() -> None:
    """revision_money: a draw, a void, a pending hand or a false claim moves no money,
    even where its stored score names bonus money; a win does."""
    paid = [{"payer": p, "amount": 36, "bonus": 50} for p in ("left", "opposite", "right")]
    score = {"settlement": {"payments": paid}}
    for outcome in ("draw", "void", "pending", "false_claim"):
        rev = HandRevision(outcome=outcome, winner="S", discarder=None, score=score,
                           seats=WINDS)
        assert revision_money(rev, 1) == [0, 0, 0, 0], outcome
    win = HandRevision(outcome="win", winner="S", discarder=None, score=score, seats=WINDS)
    assert revision_money(win, 1) == [-50, 150, -50, -50]


# --- settlement: penalties -------------------------------------------------------------------


def test_only_a_payment_names_a_receiver() -> None:
    """payment_receiver: a 错和 gives points to three players, but none of them is the
    one player a payment (包赔) goes to."""
    assert payment_receiver("wrong_win", penalty_deltas("wrong_win", 1, 10)) is None
    assert payment_receiver("payment", penalty_deltas("payment", 1, 10, to=2)) == 2
    assert payment_receiver("payment", penalty_deltas("payment", 1, 1, to=2)) == 2


@pytest.mark.parametrize("offender", [-1, 4])
def test_a_penalty_names_one_of_the_four_players(offender: int) -> None:
    """penalty_deltas: the offender is player 0-3."""
    with pytest.raises(ValueError, match="is not 0-3"):
        penalty_deltas("deduction", offender, 5)


def test_only_a_payment_names_the_player_paid() -> None:
    """penalty_deltas: a payment (包赔) needs ``to``; any other penalty refuses one."""
    with pytest.raises(ValueError, match="only a payment"):
        penalty_deltas("wrong_win", 1, 10, to=2)
    with pytest.raises(ValueError, match="only a payment"):
        penalty_deltas("payment", 1, 10)


@pytest.mark.parametrize("kind", ["wrong_win", "deduction", "payment"])
@pytest.mark.parametrize("points", [0, -10])
def test_penalty_points_are_positive(kind: str, points: int) -> None:
    """penalty_deltas: a penalty that moves points moves a positive number of them."""
    to = 2 if kind == "payment" else None
    with pytest.raises(ValueError, match="must be positive"):
        penalty_deltas(kind, 1, points, to)


def test_a_penalty_of_one_point_is_booked() -> None:
    """penalty_deltas: any positive number of points is a penalty, one included (the
    refusal is of 0 and less, not of small amounts)."""
    assert penalty_deltas("wrong_win", 2, 1) == [1, 1, -3, 1]
    assert penalty_deltas("payment", 3, 1, to=1) == [0, 1, 0, -1]
    assert penalty_deltas("deduction", 0, 1) == [-1, 0, 0, 0]


def test_a_payment_moves_points_between_its_two_players_only() -> None:
    """penalty_deltas: a payment (包赔) takes its points from the payer and gives them to
    the one player paid; the other two are untouched."""
    assert penalty_deltas("payment", 1, 10, to=2) == [0, -10, 10, 0]
    assert penalty_deltas("payment", 3, 10, to=0) == [10, 0, 0, -10]
    assert penalty_deltas("payment", 0, 7, to=3) == [-7, 0, 0, 7]


@pytest.mark.parametrize("to", [1, 4, -1])
def test_a_payment_goes_to_another_of_the_four_players(to: int) -> None:
    """penalty_deltas: a payment (包赔) from player 1 goes to another player 0-3, never
    to the payer."""
    with pytest.raises(ValueError, match="another player"):
        penalty_deltas("payment", 1, 10, to=to)


@pytest.mark.parametrize("kind", ["bar", "warning", "disqualification"])
def test_a_ruling_without_points_refuses_points(kind: str) -> None:
    """penalty_deltas (seed 003, 处罚): a bar (停和), a warning (警告) and a
    disqualification (停赛) move no points; given points they are refused."""
    assert penalty_deltas(kind, 1, 0) == [0, 0, 0, 0]
    with pytest.raises(ValueError, match="moves no points"):
        penalty_deltas(kind, 1, 5)


# --- the sheet's default penalties -------------------------------------------------------------


def test_mcr_default_penalties_are_10_for_a_wrong_win_and_20_for_a_false_win() -> None:
    """default_penalty (seed 003, 错和与诈和的处理): with no points given, an MCR 错和
    pays 10 to each other player and a 诈和 20, in points (not money apart)."""
    table = GameTable(rules="mcr", rule_settings={})
    assert default_penalty(table, "wrong_win") == (10, False)
    assert default_penalty(table, "false_win") == (20, False)


def test_a_tables_settings_are_scored_as_stored_but_a_clashing_version() -> None:
    """scored_settings: a table's stored settings reach the scorer; only a settings
    ``version`` stored beside the table's own version is left out (the table's version
    scores it), and with no table version it is kept."""
    settings = {"version": "98-strict", "flowers": False}
    versioned = GameTable(rules="mcr", version="mil-2015", rule_settings=settings)
    assert scored_settings(versioned) == {"flowers": False}
    plain = GameTable(rules="mcr", version=None, rule_settings=settings)
    assert scored_settings(plain) == settings


# --- the sheet's corrections and rulings --------------------------------------------------------


def test_a_self_draw_given_alone_drops_the_discarder_left_out() -> None:
    """merged_report: how the win was won is one thing — a correction giving
    ``self_drawn`` true, and no discarder, leaves no discarder (E won on S's discard,
    corrected to a self-draw)."""
    won = HandReport(hand="123m456m789m234p55s", winner="E", discarder="S")
    merged = merged_report(won, HandReport(self_drawn=True), {"self_drawn"})
    assert merged.self_drawn and merged.discarder is None and merged.winner == "E"


def test_a_drawn_hand_corrected_with_a_winner_is_a_win() -> None:
    """merged_report: a drawn hand given a winner (or a discarder, or a self-draw) and
    no ``outcome`` becomes a win; given ``outcome`` draw as well it stays drawn."""
    drawn = HandReport(outcome="draw")
    win = HandReport(hand="123m456m789m234p55s", winner="E", discarder="S")
    given = {"hand", "winner", "discarder"}
    assert merged_report(drawn, win, given).outcome == "win"
    assert merged_report(drawn, HandReport(self_drawn=True), {"self_drawn"}).outcome == "win"
    assert merged_report(drawn, HandReport(outcome="draw", winner="E"),
                         {"outcome", "winner"}).outcome == "draw"


def test_a_false_claim_ruling_takes_the_kind_the_referee_names_from_the_rules_kinds() -> None:
    """_claim_penalty: the referee's kind is booked as given when the rule set has it
    (MCR: 错和 or 诈和), refused naming the kinds otherwise."""
    import scoring

    table = GameTable(rules="mcr", rule_settings={})
    kinds = scoring.get_rule_set("mcr").false_claim_kinds
    last = HandRevision(outcome="win", winner="E", hand_text=None, total=None, legal=None)
    assert _claim_penalty(table, kinds, last, 1, "false_win") == ("false_win", None)
    with pytest.raises(ValueError, match=r"draws .* not 'deduction'"):
        _claim_penalty(table, kinds, last, 1, "deduction")


def test_a_wrong_win_penalty_on_a_claimant_ruled_already_is_refused(sheet: Sheet) -> None:
    """add_penalty (seed 003, 错和): a hand ruled a false claim booked its claimant's
    penalty; a second 错和 penalty on that player for that hand is refused (409
    ``false_claim_ruled``), while one on another player is booked."""
    client, _ = sheet
    t, k = new_table(client)
    r = client.post(f"/v1/tables/{t}/hands", headers=bearer(k),
                    json={"hand": WIN, "winner": "E", "discarder": "S"})
    assert r.status_code == 201, r.text
    r = client.post(f"/v1/tables/{t}/hands/1/false-claim", headers=admin(),
                    json={"reason": "not a win", "kind": "wrong_win"})
    assert r.status_code == 201, r.text
    again = client.post(f"/v1/tables/{t}/penalties", headers=admin(),
                        json={"player": "Ann0", "kind": "wrong_win", "hand": 1})
    assert again.status_code == 409, again.text
    assert again.json()["error"]["code"] == "false_claim_ruled"
    other = client.post(f"/v1/tables/{t}/penalties", headers=admin(),
                        json={"player": "Bo0", "kind": "wrong_win", "hand": 1})
    assert other.status_code == 201, other.text



def test_a_penalty_sent_again_stating_its_money_finds_the_one_booked(sheet: Sheet) -> None:
    """add_penalty, ``request_id``: a re-send with the same content, ``money`` stated as
    it was booked, finds the penalty (200, ``created`` false); stated otherwise it is
    other content under the same name (409 ``request_id_taken``)."""
    client, _ = sheet
    t, _ = new_table(client)
    body = {"player": "Bo0", "kind": "deduction", "points": 5, "money": False,
            "request_id": "ref-79-0001"}
    first = client.post(f"/v1/tables/{t}/penalties", headers=admin(), json=body)
    assert first.status_code == 201, first.text
    again = client.post(f"/v1/tables/{t}/penalties", headers=admin(), json=body)
    assert again.status_code == 200, again.text
    assert again.json()["id"] == first.json()["id"] and again.json()["created"] is False
    other = client.post(f"/v1/tables/{t}/penalties", headers=admin(),
                        json={**body, "money": True})
    assert other.status_code == 409, other.text
    assert other.json()["error"]["code"] == "request_id_taken"


def test_a_second_bar_on_a_later_hand_is_refused(sheet: Sheet) -> None:
    """add_penalty (停和): a player barred from hand 2 may not be barred from it again
    (409 ``already_barred``) — read at hand 2's seats, which differ from hand 1's on
    the MCR schedule; another player may be."""
    client, _ = sheet
    t, k = new_table(client)
    r = client.post(f"/v1/tables/{t}/hands", headers=bearer(k), json={"outcome": "draw"})
    assert r.status_code == 201, r.text
    pens = f"/v1/tables/{t}/penalties"
    bar = {"player": "Bo0", "kind": "bar", "hand": 2}
    assert client.post(pens, headers=admin(), json=bar).status_code == 201
    again = client.post(pens, headers=admin(), json=bar)
    assert again.status_code == 409, again.text
    assert again.json()["error"]["code"] == "already_barred"
    other = client.post(pens, headers=admin(), json={**bar, "player": "Cai0"})
    assert other.status_code == 201, other.text


def test_voiding_a_penalty_needs_a_reason_that_is_not_blank() -> None:
    """void_penalty: a void says why; a blank reason is refused before the sheet is
    touched."""
    with pytest.raises(ValueError, match="needs a reason"):
        void_penalty(None, 1, 1, "referee", " \n ")  # type: ignore[arg-type]


def test_a_resent_hand_with_another_discarder_is_other_content(sheet: Sheet) -> None:
    """insert_hand: a hand sent again under its number finds the record only with the
    same content — the same tiles won off another discarder is 409 ``number_taken``."""
    client, _ = sheet
    t, k = new_table(client)
    body = {"number": 1, "hand": WIN, "winner": "E", "discarder": "S"}
    r = client.post(f"/v1/tables/{t}/hands", headers=bearer(k), json=body)
    assert r.status_code == 201, r.text
    same = client.post(f"/v1/tables/{t}/hands", headers=bearer(k), json=body)
    assert same.status_code == 200, same.text
    other = client.post(f"/v1/tables/{t}/hands", headers=bearer(k),
                        json={**body, "discarder": "W"})
    assert other.status_code == 409, other.text
    assert other.json()["error"]["code"] == "number_taken"
