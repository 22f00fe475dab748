"""bench/fuzz_tables.py: a short run of random table sessions passes, and the sheet model
catches a misplaced payment, an ignored correction, a miscounted penalty, camera
bugs and dropped Xiamen money."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest

import tilecam.tables.scoring_bridge as bridge
import tilecam.tables.standings as standings


@pytest.fixture
def fuzz(bench_module: Callable[[str], ModuleType]) -> ModuleType:
    return bench_module("fuzz_tables")


def test_seats_follow_the_seed_rotation(fuzz: ModuleType) -> None:
    """Seed 003, 东南走之字, 西北转上: hand 1 seats the players as they sat down; round 2
    swaps East/South and West/North; the deal passes to the next seat every hand."""
    assert fuzz.seat_positions(1) == {"E": 0, "S": 1, "W": 2, "N": 3}
    assert fuzz.seat_positions(2) == {"E": 1, "S": 2, "W": 3, "N": 0}
    assert fuzz.seat_positions(5) == {"E": 1, "S": 0, "W": 3, "N": 2}
    assert all(sorted(fuzz.seat_positions(n).values()) == [0, 1, 2, 3] for n in range(1, 17))


def test_random_table_sessions_keep_the_sheet_right(fuzz: ModuleType) -> None:
    """Hands, re-sends, corrections, voids, penalties and camera frames at MCR, Xiamen and Zhenjiang
    tables: no 5xx, the documented 409/404 answers, and standings, CSV and event standings
    that match the model (longer runs: ``bench/fuzz_tables.py --steps 1500``)."""
    assert fuzz.fuzz_tables(3, 160).items == []


def _fails_with(fuzz: ModuleType, what: str, seed: int = 3) -> None:
    found = fuzz.fuzz_tables(seed, 200).items
    assert any(what in f for f in found), found[:5]


def test_a_payment_placed_on_the_wrong_player_is_caught(
    fuzz: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    """8 + total from the discarder, 8 from the others: a sheet that turns the payments
    one seat round (still summing to 0) is a failure."""
    place = bridge.place_payments

    def turned(*args: Any) -> list[int]:
        deltas = place(*args)
        return deltas[1:] + deltas[:1]

    monkeypatch.setattr(bridge, "place_payments", turned)
    _fails_with(fuzz, "model")


def test_a_correction_the_standings_ignore_is_caught(
    fuzz: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hand counts with its latest revision (a referee's correction or void): standings
    that count its record (the first revision, read from the database: the sheet loads
    each hand's latest revision only, ``sheet.hands_of``) fail."""
    from sqlalchemy.orm import object_session

    def record(hand: Any) -> Any:
        return standings.sheet.first_revision(object_session(hand), hand)

    monkeypatch.setattr(standings, "current", record)
    _fails_with(fuzz, "standings of")


def test_a_void_penalty_still_counted_is_caught(
    fuzz: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A void penalty counts 0."""
    original = standings.sheet.penalties_of

    def never_void(session: Any, table_id: int) -> list[Any]:
        pens = original(session, table_id)
        for pen in pens:
            session.expunge(pen)
            pen.voided_at = None
        return pens

    monkeypatch.setattr(standings.sheet, "penalties_of", never_void)
    # seed 2: since the 停和 rulings (sixty-sixth session) seed 1's first 200 requests void
    # no penalty that moves points (before, since the false claims, seed 3's voided none)
    _fails_with(fuzz, "standings of", seed=2)


def test_a_camera_that_records_a_re_read_hand_again_is_caught(
    fuzz: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The gap rule: the recorded hand read a tile otherwise right after the record is
    the same tiles, not a second hand on the sheet."""
    import tilecam.tables.camera as camera

    monkeypatch.setattr(camera, "reread_of", lambda a, b: False)
    _fails_with(fuzz, "model already_recorded")


def test_a_camera_told_the_sheet_s_last_hand_as_its_own_is_caught(
    fuzz: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``already_recorded`` names the camera's hand, not a hand posted after it."""
    import tilecam.tables.camera as camera
    import tilecam.tables.sheet as sheet

    monkeypatch.setattr(
        camera, "_shown_number",
        lambda session, table_id, numbers, key: sheet.last_number(session, table_id))
    _fails_with(fuzz, "model already_recorded")


def test_the_camera_model_follows_the_documented_rule(fuzz: ModuleType) -> None:
    """The README's camera rule on its own: 3 frames in a row record; a camera that keeps
    sending the hand is told it is recorded; a tile read otherwise is that hand until a
    gap of 3 frames without a complete hand; the same hand again only after 3 empty
    frames."""
    hand, other = "123m456m789m123p55p", "123m456m789m123p5p5p"

    def run(frames: list[tuple[str | None, int]]) -> list[str]:
        cam, out = fuzz.CameraModel(), []
        for key, tiles in frames:
            decision = cam.decide(key, tiles, 3)
            out.append(decision)
            cam.frames.append((key, tiles))
            if decision == "record":
                cam.recorded_at, cam.recorded = len(cam.frames) - 1, key
        return out

    h, o, empty, play = (hand, 14), (other, 14), (None, 0), (None, 60)
    assert run([h, h, h, h]) == ["waiting", "waiting", "record", "already_recorded"]
    assert run([h, h, h, o, o, o]) == ["waiting"] * 2 + ["record"] + ["already_recorded"] * 3
    assert run([h, h, h, play, play, play, o, o, o])[-3:] == ["waiting", "waiting", "record"]
    assert run([h, h, h, empty, empty, h, h, h])[-3:] == ["already_recorded"] * 3
    assert run([h, h, h, empty, empty, empty, h, h, h])[-3:] == ["waiting", "waiting", "record"]


def test_xiamen_money_the_standings_drop_is_caught(
    fuzz: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Xiamen's bonus money (游金 …) is kept apart from the chips: standings that drop it
    disagree with the hands that pay it."""
    monkeypatch.setattr(standings, "revision_money", lambda rev, number: [0, 0, 0, 0])
    found = fuzz.fuzz_tables(1, 300).items
    assert any("standings of" in f for f in found), found[:5]


def test_the_deal_model_follows_the_readme(fuzz: ModuleType) -> None:
    """Xiamen: the dealer who wins deals again (连庄), so does the dealer after a drawn
    hand (臭庄); another winner passes the deal. Zhenjiang: only a drawn hand keeps it."""
    def hand(outcome: str, winner: str | None = None) -> Any:
        return fuzz.HandState(outcome, [0] * 4, 1, winner, None, False, {})

    hands = [hand("win", "E"), hand("draw"), hand("win", "S"), hand("pending")]
    xiamen = fuzz.model_places("xiamen", hands)
    assert [p.seats["E"] for p in xiamen] == [0, 0, 0, 1, 2]
    assert [(p.repeats, p.draws) for p in xiamen] == [(0, 0), (1, 0), (1, 1), (0, 0), (0, 0)]
    assert [p.seats["E"] for p in fuzz.model_places("zhenjiang", hands)] == [0, 1, 1, 2, 3]


def test_a_dealer_who_won_passing_the_deal_is_caught(
    fuzz: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Xiamen 连庄: a sheet that passes the deal after the dealer's win seats every later
    hand's players wrongly."""
    import tilecam.tables.flow as flow

    original = flow._next_deal

    def passes(deal: Any, hand: Any, repeats: int, draws: int) -> tuple[bool, int, int]:
        if hand.outcome == "win" and hand.winner == "E":
            return False, 0, 0
        return original(deal, hand, repeats, draws)

    monkeypatch.setattr(flow, "_next_deal", passes)
    _fails_with(fuzz, "seats")


def test_later_hands_left_at_their_old_seats_after_a_correction_are_caught(
    fuzz: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A correction that changes who deals after it must score the later hands again."""
    import tilecam.tables.sheet as sheet

    monkeypatch.setattr(sheet, "_reseat", lambda *args, **kwargs: [])
    _fails_with(fuzz, "reseat")


def test_a_xiamen_dealer_streak_left_out_of_the_base_is_caught(
    fuzz: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The dealer's 底 doubles for each hand in a row won (连庄) and drawn (臭庄) before."""
    monkeypatch.setattr(bridge, "PLACE_FIELDS", tuple(
        f for f in bridge.PLACE_FIELDS if f not in ("dealer_repeats", "drawn_hands")))
    # seed 4: since the false claims (sixty-fifth session) seed 1's first 300 requests
    # settle no Xiamen dealer win after a streak
    found = fuzz.fuzz_tables(4, 300).items
    assert any("底" in f for f in found), found[:5]


def test_xiamen_chips_the_sheet_forgets_are_caught(
    fuzz: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each 课 starts with 100 chips each and a payer pays at most what he has: a sheet
    that scores every hand against full stacks is a failure."""
    import tilecam.tables.places as places

    monkeypatch.setattr(places, "chip_stack", lambda table: None)
    found = fuzz.fuzz_tables(1, 300).items
    assert any("chips" in f for f in found), found[:5]


def test_a_false_claim_that_takes_a_place_of_the_deal_is_caught(
    fuzz: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Seed 003 (该盘继续比赛): a record ruled a false claim is no hand of the deal; a sheet
    that passes the deal after it seats every later hand wrongly."""
    import tilecam.tables.flow as flow

    original = flow.DealWalk.advance

    def counted(self: Any, hand: Any) -> None:
        if hand.outcome == flow.FALSE_CLAIM:
            hand = flow.Played("pending", hand.winner)
        original(self, hand)

    monkeypatch.setattr(flow.DealWalk, "advance", counted)
    _fails_with(fuzz, "seats")


def test_a_claimant_who_wins_the_hand_played_on_is_caught(
    fuzz: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    """停和 (seed 003, seed 001 诈胡者不得成牌): a win by the claimant in the hand played on
    must not be settled."""
    import dataclasses

    import tilecam.tables.sheet as sheet

    original = sheet.evaluate

    def forgets(report: Any, place: Any, *args: Any, **kwargs: Any) -> Any:
        return original(report, dataclasses.replace(place, barred=()), *args, **kwargs)

    monkeypatch.setattr(sheet, "evaluate", forgets)
    _fails_with(fuzz, "停和")


def test_the_deal_model_plays_a_hand_on_after_a_false_claim(fuzz: ModuleType) -> None:
    """MCR and Zhenjiang: the record after a false claim is the same hand (same dealer,
    its claimant barred); the session's 16 MCR places do not count the claim."""
    def hand(outcome: str, winner: str | None = None) -> Any:
        return fuzz.HandState(outcome, [0] * 4, 1, winner, None, False, {})

    hands = [hand("false_claim", "S"), hand("draw"), hand("win", "N")]
    mcr = fuzz.model_places("mcr", hands)
    assert [(p.seats["E"], p.index, p.barred) for p in mcr] == [
        (0, 1, ()), (0, 1, ("S",)), (1, 2, ()), (2, 3, ())]
    zhenjiang = fuzz.model_places("zhenjiang", hands)
    assert [(p.seats["E"], p.barred) for p in zhenjiang] == [
        (0, ()), (0, ("S",)), (0, ()), (1, ())]
    assert not fuzz.model_over("mcr", fuzz.model_places("mcr", [hand("false_claim", "E")]
                                                        + [hand("draw")] * 15)[-1], 17)


def test_a_bar_the_deal_forgets_is_caught(
    fuzz: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Seed 003 停和 (取消本盘和牌的权利): a sheet that reads no referee's bar when it places a
    hand settles the barred player's win."""
    import tilecam.tables.places as places

    monkeypatch.setattr(places.PlaceWalk, "_apply_bars", lambda self: None)
    found = fuzz.fuzz_tables(1, 300).items
    assert any("停和" in f for f in found), found[:5]


def test_an_offence_booked_at_one_rate_whatever_its_repeat_is_caught(
    fuzz: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Seed 003 三、空吃、空碰、空杠: warning, 5, 10, 20 … in one hand; a sheet that takes 5
    at every repeat disagrees with the model."""
    import tilecam.tables.sheet as sheet

    monkeypatch.setattr(sheet, "offence_points", lambda rule_set, count: 5 * (count > 1))
    found = fuzz.fuzz_tables(1, 300).items
    assert any("empty_claim" in f or "early_draw" in f or "slow_pung" in f
               for f in found), found[:5]


def test_offences_left_at_their_old_step_after_a_void_are_caught(
    fuzz: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Seed 003's scale counts the offences of the hand that stand: a sheet that leaves
    the later ones at their step when an earlier one is made void (or a false claim joins
    two records into one hand) disagrees with the model's totals."""
    import tilecam.tables.sheet as sheet

    monkeypatch.setattr(sheet, "_rebook_offences", lambda *args: [])
    found = fuzz.fuzz_tables(5, 300).items
    assert any("standings" in f for f in found), found[:5]
