"""MCR competition flow of seed 003: 4 rounds × 4 hands, no consecutive dealership,
seat rotation 东南走之字 西北转上; settlement with 8 base points; 错和/诈和 penalties."""

from __future__ import annotations

import pytest

from tilecam.tables import flow
from tilecam.tables.settlement import penalty_deltas, place_payments
from tilecam.tables.stability import Reading, Watch, step

# Players A, B, C, D take East, South, West, North for round 1. The seed's moves:
# before 南圈 E<->S and W<->N; before 西圈 E,S to the opposite seats, W to S, N to E;
# before 北圈 E<->S and W<->N. Written out by hand from the seed's sentence:
SEED_SEATS = {
    1: {"E": "A", "S": "B", "W": "C", "N": "D"},
    2: {"E": "B", "S": "A", "W": "D", "N": "C"},
    3: {"E": "C", "S": "D", "W": "B", "N": "A"},
    4: {"E": "D", "S": "C", "W": "A", "N": "B"},
}
NAMES = "ABCD"


@pytest.mark.parametrize("rnd", [1, 2, 3, 4])
def test_seat_rotation_east_south_zigzag_west_north_turn_up(rnd: int) -> None:
    seating = flow.round_seating(rnd)
    assert {w: NAMES[p] for w, p in seating.items()} == SEED_SEATS[rnd]


def test_every_player_sits_each_wind_once_over_four_rounds() -> None:
    for pos in range(4):
        winds = [w for rnd in range(1, 5) for w, p in flow.round_seating(rnd).items() if p == pos]
        assert sorted(winds) == sorted(flow.WINDS)


def test_no_consecutive_dealership_every_player_deals_once_per_round() -> None:
    dealers = [NAMES[flow.place(n).dealer] for n in range(1, 17)]
    assert dealers == list("ABCD" "BADC" "CDBA" "DCAB")
    for rnd in range(4):  # within a round the deal always passes on (不设连庄)
        assert len({flow.place(4 * rnd + k).dealer for k in range(1, 5)}) == 4


def test_prevalent_wind_per_round_and_dealer_is_east() -> None:
    assert [flow.place(n).prevalent_wind for n in (1, 4, 5, 8, 9, 12, 13, 16)] == list(
        "EESSWWNN"
    )
    for n in range(1, 17):
        p = flow.place(n)
        assert p.seat_winds()["E"] == p.dealer


def test_seat_winds_follow_play_order_from_the_dealer() -> None:
    # Hand 2: B deals in round 1; its next player (下家) is C, then D, then A.
    assert {w: NAMES[p] for w, p in flow.place(2).seat_winds().items()} == {
        "E": "B", "S": "C", "W": "D", "N": "A"}


def test_hand_17_does_not_exist() -> None:
    with pytest.raises(ValueError, match="hands 1-16"):
        flow.place(17)


def test_mcr_self_drawn_each_of_three_pays_8_plus_total() -> None:
    total = 24
    pays = [{"payer": p, "amount": 8 + total} for p in ("left", "opposite", "right")]
    winds = flow.place(1).seat_winds()
    assert place_payments(pays, "W", None, winds) == [-32, -32, 96, -32]


def test_mcr_discard_discarder_pays_8_plus_total_others_8() -> None:
    total = 10
    pays = [{"payer": "discarder", "amount": 8 + total}, {"payer": "other", "amount": 8},
            {"payer": "other", "amount": 8}]
    winds = flow.place(6).seat_winds()  # E=A(0), S=D(3), W=C(2), N=B(1)
    deltas = place_payments(pays, "S", "N", winds)
    assert deltas == [-8, -18, -8, 34]


def test_payments_by_seat_offset_seen_from_the_winner() -> None:
    winds = {"E": 0, "S": 1, "W": 2, "N": 3}
    # Winner S: left (上家) is E, opposite N, right (下家) W.
    deltas = place_payments([{"payer": "left", "amount": 1}, {"payer": "opposite", "amount": 2},
                             {"payer": "right", "amount": 4}], "S", None, winds)
    assert deltas == [-1, 7, -4, -2]


def test_unknown_payer_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown payer"):
        place_payments([{"payer": "dealer", "amount": 1}], "E", None, flow.place(1).seat_winds())


def test_wrong_win_pays_10_to_each_false_win_20() -> None:
    assert penalty_deltas("wrong_win", 1, 10) == [10, -30, 10, 10]
    assert penalty_deltas("false_win", 3, 20) == [20, 20, 20, -60]
    with pytest.raises(ValueError, match="unknown penalty"):
        penalty_deltas("late", 0, 5)


def test_stable_over_n_frames_then_recorded_once() -> None:
    w = Watch()
    hand = Reading("[SSS,1]123m456m789m55p", complete=True, tiles=14)
    other = Reading("[SSS,1]123m456m789m5p", complete=False, tiles=13)
    seq = [hand, hand, other, hand, hand, hand, hand, hand]
    got = [step(w, r, needed=3)[1] for r in seq]
    assert got == ["waiting", "waiting", "waiting", "waiting", "waiting", "record",
                   "recorded", "recorded"]


def test_mcr_places_follow_the_fixed_schedule_whatever_the_hands() -> None:
    """不设连庄: under MCR no outcome keeps the deal, so the places are seed 003's."""
    import scoring

    deal = scoring.get_rule_set("mcr").deal
    hands = [flow.Played(o, w) for o, w in [("win", "E"), ("draw", None), ("void", None),
                                            ("pending", None)] * 4]
    ps = flow.places(deal, hands[:15])
    assert ps == [flow.place(n) for n in range(1, 17)]
    assert [p.seat_winds() for p in ps] == [flow.place(n).seat_winds() for n in range(1, 17)]
    assert flow.session_over(deal, flow.places(deal, hands)[-1])
    assert flow.most_hands(deal) == 16


def test_xiamen_deal_stays_with_a_winning_dealer_and_after_a_draw() -> None:
    """Seed 000: 连庄 (the dealer won) and 臭庄 (a drawn hand) keep the deal and count
    towards the dealer's 底; another winner passes it (counter-clockwise) and clears the
    streak; a void hand is dealt again and counts for neither."""
    import scoring

    deal = scoring.get_rule_set("xiamen").deal
    hands = [flow.Played("win", "E"), flow.Played("void"), flow.Played("draw"),
             flow.Played("win", "N"), flow.Played("win", "E"), flow.Played("draw"),
             flow.Played("win", "W")]
    ps = flow.places(deal, hands)
    assert [(p.dealer, p.repeats, p.draws) for p in ps] == [
        (0, 0, 0), (0, 1, 0), (0, 1, 0), (0, 1, 1), (1, 0, 0), (1, 1, 0), (1, 1, 1), (2, 0, 0)]
    assert ps[4].seat_winds() == {"E": 1, "S": 2, "W": 3, "N": 0}
    assert all(not flow.session_over(deal, p) for p in ps)
    assert flow.most_hands(deal) == flow.MOST_HANDS


def test_xiamen_dealer_streak_counts_wins_and_draws_in_any_order() -> None:
    """Seed 000: 臭庄 "庄家的底这时要翻倍乘以2倍，再次臭庄再乘" and 连庄 "底分翻倍": while the
    dealer keeps the deal every one doubles the 底, so a draw then a dealer win leaves the
    next hand the 底 of a dealer win then a draw, and a further dealer win never lowers it."""
    import scoring
    from scoring.rulesets.xiamen_money import base

    xiamen = scoring.get_rule_set("xiamen")
    settings = xiamen.resolve_settings()

    def next_base(*played: flow.Played) -> int:
        p = flow.places(xiamen.deal, list(played))[-1]
        return base(settings, dealer=True, repeats=p.repeats, drawn=p.draws)

    draw, dealer_win = flow.Played("draw"), flow.Played("win", "E")
    assert next_base(draw, dealer_win) == next_base(dealer_win, draw) == 64
    assert next_base(draw, draw) == 64
    assert next_base(draw, draw, dealer_win) == 128
    assert next_base(draw, dealer_win, dealer_win) == 128
    assert next_base(draw, dealer_win, flow.Played("win", "S")) == 16  # S deals: streak over


def test_the_round_changes_when_the_deal_has_passed_all_four_seats() -> None:
    """A round (圈) is the deal going round once: Zhenjiang's fifth dealer starts round 2
    (南圈), whose prevalent wind is South; seats do not change between its rounds."""
    import scoring

    deal = scoring.get_rule_set("zhenjiang").deal
    hands = [flow.Played("draw")] + [flow.Played("win", "E")] * 5
    ps = flow.places(deal, hands)
    assert [(p.round, p.hand_in_round, p.dealer) for p in ps] == [
        (1, 1, 0), (1, 2, 0), (1, 3, 1), (1, 4, 2), (1, 5, 3), (2, 1, 0), (2, 2, 1)]
    assert ps[5].prevalent_wind == "S" and ps[5].seating == (0, 1, 2, 3)


def test_a_pending_hand_without_a_winner_is_taken_to_pass_the_deal() -> None:
    import scoring

    deal = scoring.get_rule_set("xiamen").deal
    ps = flow.places(deal, [flow.Played("win", "E"), flow.Played("pending"),
                            flow.Played("pending", "E")])
    assert [(p.dealer, p.assumed_after) for p in ps] == [(0, None), (0, None), (1, 2), (1, 2)]
