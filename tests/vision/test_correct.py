"""Rule-aware correction over the detector's top-k readings: impossible readings (a fifth
copy, a meld that is not a set, a second copy of a flower, no winning shape when a win is
shown) are replaced by the most probable legal one; strong evidence is never overridden
to force a win; close calls come back as alternatives."""

from __future__ import annotations

import math

import pytest

from scoring.notation import parse_hand
from vision.correct import CorrectParams, correct, mcr_winning_shape
from vision.layout import analyze
from vision.layout_scene import SceneBuilder


def run(b: SceneBuilder, **kw: object):  # type: ignore[no-untyped-def]
    d = b.detections()
    return d, correct(d, analyze(d), **kw)  # type: ignore[arg-type]


def test_a_fifth_copy_is_read_as_its_most_probable_alternative() -> None:
    b = SceneBuilder().standing("5555p").standing("5p").uncertain([("5p", 0.7), ("6p", 0.25)])
    b.standing("7p123sEEEN").win("N")
    d, res = run(b)
    assert "5 copies of 5p (there are 4)" in res.problems
    [change] = res.best.changes
    assert (d.codes[change.tile], change.after) == ("5p", "6p")
    assert change.ratio == pytest.approx(0.7 / 0.25)
    assert res.best.legal and res.best.winning


def test_a_fifth_copy_is_corrected_even_against_strong_evidence() -> None:
    b = SceneBuilder().standing("5555p").standing("5p").uncertain([("5p", 0.99), ("8p", 0.005)])
    b.standing("123sEEENN").win("N")
    _, res = run(b)
    assert [c.after for c in res.best.changes] == ["8p"]
    assert res.best.ratio == pytest.approx(0.99 / 0.005)


def test_6p_9p_swap_that_makes_the_hand_legal() -> None:
    """57p + 9p read for 6p (a 6 seen upside down): only 6p completes 567p."""
    b = SceneBuilder().standing("123m456s57pEEECC").win("9p")
    b.uncertain([("9p", 0.55), ("6p", 0.43)])
    d, res = run(b)
    assert res.problems == ("not a winning hand",)
    assert [(c.before, c.after) for c in res.best.changes] == [("9p", "6p")]
    assert res.best.winning
    hand = analyze(d).hand(res.best.codes)
    assert mcr_winning_shape(hand)
    assert hand == parse_hand("123m456s57pEEECC6p")
    # the detector's own reading, a little more probable but no win, is shown too
    [alt] = res.alternatives
    assert alt.changes == () and not alt.winning


def test_a_strong_non_winning_hand_is_left_as_is() -> None:
    b = SceneBuilder().standing("123m456s57pEEECC").win("9p")
    b.uncertain([("9p", 0.97), ("6p", 0.02)])
    _, res = run(b)
    assert res.best.changes == ()
    assert not res.best.winning and res.best.legal
    assert res.problems == ("not a winning hand",)


def test_a_win_is_taken_only_within_max_win_ratio() -> None:
    b = SceneBuilder().standing("123m456s57pEEECC").win("9p")
    b.uncertain([("9p", 0.80), ("6p", 0.05)])  # 16 times less probable
    _, res = run(b)
    assert not res.best.winning
    assert any("no reading within 10 times" in n for n in res.notes)
    _, res = run(b, params=CorrectParams(max_win_ratio=20.0))
    assert res.best.winning


def test_a_close_call_returns_both_readings() -> None:
    """34s waits on 2s and 5s; the winning tile reads 2s (0.5) or 5s (0.45): both win."""
    b = SceneBuilder().standing("123m456p789p34sEE").win("2s")
    b.uncertain([("2s", 0.5), ("5s", 0.45)])
    _, res = run(b)
    assert res.best.changes == () and res.best.winning
    [alt] = res.alternatives
    assert [c.after for c in alt.changes] == ["5s"]
    assert math.exp(alt.cost - res.best.cost) == pytest.approx(0.5 / 0.45)


def test_a_close_call_between_two_corrections() -> None:
    """A fifth E: either of two uncertain E tiles may be the misread one."""
    b = SceneBuilder().standing("EE").standing("E").uncertain([("E", 0.6), ("S", 0.38)])
    b.standing("E").uncertain([("E", 0.6), ("W", 0.36)])
    b.standing("E123m456p99s").win("9s")
    _, res = run(b, claim_win=False)
    assert [c.after for c in res.best.changes] == ["S"]
    assert [[c.after for c in a.changes] for a in res.alternatives] == [["W"]]


def test_a_claimed_meld_that_is_not_a_set_is_fixed() -> None:
    b = SceneBuilder().standing("123m456p789sN").meld("CC", sideways=0)
    b.standing("F").uncertain([("F", 0.6), ("C", 0.35)]).win("N")
    d, res = run(b)
    assert any("is not" in p for p in res.problems)
    assert [(c.before, c.after) for c in res.best.changes] == [("F", "C")]
    hand = analyze(d).hand(res.best.codes)
    assert hand.melds[0].kind == "pung" and hand.melds[0].claimed_from == 1


def test_a_meld_tile_whose_readings_cannot_make_a_set_takes_the_kind_that_does() -> None:
    """Rule (a meld that is not a set, issue 6): two tiles of a claimed meld read S and
    the third 7m with neither S nor any kind making a set among its readings — the only
    reading that makes the meld a set (a pung of S) is tried at a low probability
    (``MELD_FILL_P``) and taken, as the hand has no possible reading otherwise; the
    correction says how unsure it was."""
    import vision.correct as C

    b = SceneBuilder().standing("123m456p789sN").meld("SS", sideways=0)
    b.standing("7m").uncertain([("7m", 0.58), ("N", 0.34), ("E", 0.04)]).win("N")
    d, res = run(b)
    assert [(c.before, c.after) for c in res.best.changes] == [("7m", "S")]
    assert res.best.changes[0].ratio == pytest.approx(0.58 / C.MELD_FILL_P)
    assert res.best.legal and res.best.winning
    hand = analyze(d).hand(res.best.codes)
    assert hand.melds[0].kind == "pung" and hand.melds[0].tiles[0] == "S"


def test_meld_fillers_are_only_tried_for_melds_that_are_not_sets(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With the filler probability 0 the same meld stays unreadable; a meld that is a set
    as read gets no fillers."""
    import vision.correct as C

    monkeypatch.setattr(C, "MELD_FILL_P", 0.0)
    b = SceneBuilder().standing("123m456p789sN").meld("SS", sideways=0)
    b.standing("7m").uncertain([("7m", 0.58), ("N", 0.34), ("E", 0.04)]).win("N")
    _, res = run(b)
    assert not res.best.legal
    monkeypatch.setattr(C, "MELD_FILL_P", 0.001)
    d = (SceneBuilder().standing("123m456p789sN").meld("SSS", sideways=0).win("N")
         .detections())
    assert C._meld_fills(d, analyze(d)) == {}


def test_a_surely_read_meld_tile_is_not_given_fillers() -> None:
    """Rule (never override strong evidence, issue 6): the same meld with its odd tile
    read 7m at 0.97 is more likely grouped wrong than misread, so the kind its mates call
    for is not tried and the reading stays impossible (reported, not forced)."""
    import vision.correct as C

    b = SceneBuilder().standing("123m456p789sN").meld("SS", sideways=0)
    b.standing("7m").uncertain([("7m", 0.97), ("N", 0.02), ("E", 0.01)]).win("N")
    d, res = run(b)
    assert C._meld_fills(d, analyze(d)) == {}
    assert not res.best.legal and not res.best.changes


def test_a_sure_tile_is_not_read_as_a_far_less_probable_code_to_mend_a_count() -> None:
    """Rule (never override strong evidence, issue 6): a fifth copy among tiles all read
    at 0.9999 is more likely a layout's or a neighbour's tile than a misread; reading one
    as a code 10,000 times less probable (past ``SURE_MAX_RATIO``) is not tried, so the
    problem is reported and no tile changes. At 0.99 against 0.005 the same hand is
    mended (``test_a_fifth_copy_is_corrected_even_against_strong_evidence``)."""
    import vision.correct as C

    b = SceneBuilder().standing("5555p").standing("5p").uncertain([("5p", 0.9999), ("8p", 1e-4)])
    b.standing("123sEEENN").win("N")
    _, res = run(b)
    assert C.SURE_MAX_RATIO < 0.9999 / 1e-4 and C.SURE_P <= 0.9999
    assert "5 copies of 5p (there are 4)" in res.problems
    assert not res.best.legal and not res.best.changes


def test_a_flower_shows_once() -> None:
    b = SceneBuilder().standing("123m456p789sNN").win("N").flowers("1f")
    b.flowers("1f").uncertain([("1f", 0.8), ("5f", 0.15)])
    _, res = run(b)
    assert [c.after for c in res.best.changes] == ["5f"]


def test_a_tile_laid_among_the_flowers_is_read_as_a_flower() -> None:
    """Flowers are laid apart together: a season whose pale picture was read as a white
    dragon, lying in the flower group with 3f among its alternatives, is a flower — the
    layout keeps it with the flowers and the correction re-reads it, saying so."""
    b = SceneBuilder().standing("123m456p78sEEECC").win("9s").flowers("1f2f")
    b.uncertain([("P", 0.6), ("3f", 0.3)])
    d, res = run(b)
    lay = analyze(d)
    assert sorted(d.codes[i] for i in lay.flowers) == ["1f", "P"] and len(lay.standing) == 13
    assert "P laid among the flowers" in res.problems
    assert [(c.before, c.after) for c in res.best.changes] == [("P", "3f")]
    assert lay.hand(res.best.codes).flowers == ("1f", "3f")


def test_a_kind_in_the_hand_row_with_a_bonus_alternative_stays_a_kind() -> None:
    """Only the flower group's company makes a tile a flower: a white dragon between two
    red dragons in the standing row keeps its reading, whatever its alternatives."""
    b = SceneBuilder().standing("123m456p78sEEEC").standing("C")
    b.uncertain([("P", 0.6), ("3f", 0.3)]).standing("C").win("9s").flowers("1f2f")
    d, res = run(b)
    lay = analyze(d)
    assert sorted(d.codes[i] for i in lay.flowers) == ["1f", "2f"]
    assert all(c.before != "P" for c in res.best.changes)


def test_a_legal_top1_reading_is_kept() -> None:
    b = SceneBuilder().standing("123m456p789sNN").win("N")
    b2 = SceneBuilder().standing("123m456p789sNN").win("N").uncertain([("N", 0.5), ("S", 0.4)])
    for builder in (b, b2):
        _, res = run(builder)
        assert res.best.changes == () and res.problems == ()


def test_a_waiting_hand_is_not_forced_to_win() -> None:
    """13 tiles: no win is claimed, so 9p stays even though 6p would complete a set."""
    b = SceneBuilder().standing("123m456s78pEEEC").standing("9p")
    b.uncertain([("9p", 0.55), ("6p", 0.43)])
    _, res = run(b)
    assert not res.claim_win and res.best.changes == ()


def _short_of_78p() -> SceneBuilder:
    """13 tiles, no win shown: 123m 456s EEE C and 78p with one tile read 1s (top-1) or
    9p. With 9p the hand is ready (听, waiting on C); with 1s it is not."""
    return SceneBuilder().standing("123m456s78pEEEC").standing("1s")


@pytest.mark.parametrize(("p1s", "p9p", "taken"), [(0.6, 0.3, True), (0.8, 0.1, False)])
def test_a_hand_one_short_takes_a_ready_reading_within_max_ready_ratio(
    p1s: float, p9p: float, taken: bool
) -> None:
    """Rule (``CorrectParams.max_ready_ratio``, 4 in ``vision.recognize``): a hand one
    tile short of a win with no win claimed takes a reading that makes it ready when at
    most that many times less probable (here 2×), and says so; 8× less probable it is
    left as read. Off (0) by default in ``correct`` itself."""
    b = _short_of_78p().uncertain([("1s", p1s), ("9p", p9p)])
    _, res = run(b, params=CorrectParams(max_ready_ratio=4.0))
    assert not res.claim_win
    if taken:
        assert [(c.before, c.after) for c in res.best.changes] == [("1s", "9p")]
        assert any("makes the hand ready" in n for n in res.notes)
    else:
        assert res.best.changes == () and not any("ready" in n for n in res.notes)
    _, off = run(b)
    assert off.best.changes == ()
    _, capped = run(b, params=CorrectParams(max_ready_ratio=4.0, max_ready_checks=1))
    assert capped.best.changes == ()  # the one look went to the top-1 reading


def test_recognize_reads_a_hand_one_short_as_ready_when_the_detector_nearly_says_so() -> None:
    """``vision.recognize.READY_RATIO`` (4): the waits come back for the ready reading, the
    change is listed as a correction."""
    from vision.recognize import READY_RATIO, recognize_detections

    assert READY_RATIO == 4.0
    d = _short_of_78p().uncertain([("1s", 0.6), ("9p", 0.3)]).detections()
    rec = recognize_detections(d, "mcr")
    assert rec.waits is not None and rec.waits.ready
    assert [(c.before, c.after) for c in rec.correction.best.changes] == [("1s", "9p")]


def test_the_search_is_bounded() -> None:
    """Nothing legal within the bound: the top-1 reading is kept and the fact noted."""
    b = SceneBuilder().standing("EEEEE").uncertain([("E", 0.9), ("S", 0.1)])
    b.standing("123m456p99s").win("9s")
    _, res = run(b, claim_win=False, params=CorrectParams(max_ratio=2.0))
    assert res.best.changes == () and not res.best.legal
    assert res.notes and "no possible reading" in res.notes[0]


def _many_doubtful_tiles() -> SceneBuilder:
    """A claimed win whose every standing tile is unsure: a long search."""
    b = SceneBuilder()
    for code, other in zip("1234567", "9876543", strict=True):
        b.standing(f"{code}m").uncertain([(f"{code}m", 0.5), (f"{other}p", 0.45)])
    b.standing("1234567s").win("7s")
    return b


def test_the_search_stops_after_a_number_of_readings_and_says_so() -> None:
    """Search bound: a count of readings, noted when it is reached."""
    _, res = run(_many_doubtful_tiles(), params=CorrectParams(max_readings=5))
    assert res.searched == 5
    assert "search stopped after 5 readings" in res.notes


def test_the_reading_does_not_depend_on_the_machine_s_speed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """No time cap by default: a machine a million times slower reads the same hand."""
    import vision.correct as corr

    assert CorrectParams().max_ms is None
    _, fast = run(_many_doubtful_tiles())
    clock = iter(range(0, 10**9, 10**6))  # each look at the clock: a thousand seconds on
    monkeypatch.setattr(corr.time, "perf_counter", lambda: float(next(clock)))
    _, slow = run(_many_doubtful_tiles())
    assert slow.best == fast.best and slow.searched == fast.searched
    _, capped = run(_many_doubtful_tiles(), params=CorrectParams(max_ms=20.0))
    assert any("ms" in n for n in capped.notes)  # a cap, asked for, is still honoured


@pytest.mark.parametrize(
    ("hand", "wins"),
    [
        ("123m456p789sEEENN", True),
        ("1199m1199p1199s11z", True),  # seven pairs (1z = E)
        ("1199m1199p1189s11z", False),
        ("1122m3344p5566s77z", True),  # seven pairs
        ("19m19p19s1234567zE", True),  # thirteen orphans
        ("147m258p369sESWNC", True),  # knitted honours (全不靠)
        ("147m258p369s234mNN", True),  # knitted straight with a set and a pair
        ("147m258p369s235mNN", False),
        ("123m456p789s1234zW", False),
    ],
)
def test_mcr_winning_shapes(hand: str, wins: bool) -> None:
    assert mcr_winning_shape(parse_hand(hand)) is wins


def test_regional_winning_shape_uses_legality_not_just_acceptance() -> None:
    """Zhenjiang answers an incomplete 14-tile hand with legal=False, not an error:
    the shape check must say "not a win" for it and "win" for a complete hand."""
    from scoring import parse_hand
    from vision.correct import winning_shape_check

    check = winning_shape_check("zhenjiang", {"indicator": "1m"})
    assert check(parse_hand("111p456m789m123pSN")) is False
    assert check(parse_hand("111p456m789m123pSS")) is True


def test_the_search_legality_check_agrees_with_the_listed_problems() -> None:
    """The search asks `_Possible` (index lists worked out once) whether a reading is
    possible; it must say yes exactly when `_physical_problems` lists no problem: fifth
    copies, flowers twice or a kind among the flowers, melds that are not sets, and kongs
    with face-down ends counting four."""
    import random

    from vision.classes import BONUS, KINDS
    from vision.correct import _physical_problems, _Possible

    b = SceneBuilder().standing("1234m55p").meld("666s", sideways=1).concealed_kong("7p")
    b.flowers("1f2f").win("5p")
    d = b.detections()
    layout = analyze(d)
    possible = _Possible(layout)
    rng = random.Random(7)
    pool = [*KINDS[:12], *BONUS[:3], "back"]
    seen = {True: 0, False: 0}
    for _ in range(3000):
        codes = list(d.codes)
        for i in rng.sample(range(len(codes)), rng.randint(1, 4)):
            codes[i] = rng.choice(pool)
        ok = possible(codes)
        assert ok == (not _physical_problems(codes, layout)), codes
        seen[ok] += 1
    assert seen[True] > 50 and seen[False] > 50


def test_under_rules_without_chows_a_meld_is_mended_into_a_pung_only() -> None:
    """Issue 6 (a meld that is not a set is corrected to the most probable legal
    reading) and seed 001 (Zhenjiang claims no chow): a claimed 4m5m + 7m (0.6; 6m 0.3)
    was mended into the chow 456m, which the scorer then refused. Under Zhenjiang the
    meld stays as read (no legal reading within reach); under MCR it is the chow."""
    from vision.recognize import recognize_detections

    b = (SceneBuilder().standing("111p789m123pE").meld("457m", sideways=0)
         .uncertain([("7m", 0.6), ("6m", 0.3), ("5m", 0.05)]).win("E"))
    zj = recognize_detections(b.detections(), "zhenjiang", {"indicator": "C"})
    assert not zj.to_dict()["corrections"]
    mcr = recognize_detections(b.detections(), "mcr")
    assert [(c["from"], c["to"]) for c in mcr.to_dict()["corrections"]] == [("7m", "6m")]
