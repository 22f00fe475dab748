"""Behaviours of the rule-aware correction (``vision.correct``) the rest of the suite left
loose.

Each case was found by a mutation test of ``vision/correct.py`` (session 78; the last
one of ``vision/tile_rereads.py``): a small change to the search or its checks (a
dropped condition, a changed default, a bound counted short) that every other test
still passed. Each test names the behaviour it checks and the mutant it kills (line
numbers of the mutated module at commit 09b3141).
Hands are written in notation; scenes are built with :class:`SceneBuilder`.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

import vision.correct as C
from scoring.notation import parse_hand
from vision.correct import (
    CorrectParams,
    correct,
    mcr_winning_shape,
    meld_fillers,
    winning_shape_check,
)
from vision.detections import Detections
from vision.layout import analyze
from vision.layout_scene import SceneBuilder
from vision.rewrite import promote


def _correct(d: Detections, **kw: Any) -> C.CorrectionResult:
    return correct(d, analyze(d), **kw)


# --------------------------------------------------------------------------- fillers
def test_a_kongs_mates_not_all_one_kind_call_for_no_filler() -> None:
    """A shown kong is never a chow: a kong tile whose three mates are not all one kind
    (5p 6p 5p) gets no filler — only two mates one or two apart make a chow. Kills
    ``len(mates) != 2`` dropped (line 438: the three mates were unpacked as two)."""
    assert meld_fillers(["5p", "6p", "5p"]) == ()
    assert meld_fillers(["5p", "5p", "5p"]) == ("5p",)


def test_an_added_kong_with_a_misread_added_tile_is_mended_into_the_kong() -> None:
    """Issue 6 (a meld that is not a set is mended) on an added kong (加杠): a claimed
    pung 5p 5p [5p] with an added tile read 6p 0.6 (5p 0.35), one of the pung's tiles
    itself unsure (5p 0.85), is laid out as the kong 5p5p5p6p; it is mended into
    [5555p,7] and the hand 123m789p789sN + N wins. The unsure 5p's mates 5p 5p 6p are
    not all one kind and, being three, make no chow. Kills the same mutant end to end (it
    raised ValueError: three mates unpacked as two)."""
    b = SceneBuilder().standing("123m789p789sN").meld("5p5p5p", sideways=2, added="6p")
    b.uncertain([("6p", 0.6), ("5p", 0.35)])
    b._cur[-3].topk = [("5p", 0.85), ("3p", 0.1)]
    d = b.win("N").detections()
    layout = analyze(d)
    [meld] = layout.melds
    assert meld.added and [d.codes[i] for i in meld.detections] == ["5p", "5p", "5p", "6p"]
    res = correct(d, layout)
    assert [(c.before, c.after) for c in res.best.changes] == [("6p", "5p")]
    assert res.best.winning
    assert layout.hand(res.best.codes) == parse_hand("[5555p,7]123m789p789sNN")


def test_mates_that_are_not_kinds_call_for_no_filler() -> None:
    """Only kinds (the 34 suited and honour tiles) make a meld: mates read as flowers
    (1f 1f) or face down call for no filler, not a "pung" of flowers. Kills the
    ``t not in _KIND_INDEX`` test dropped or asked of all mates only (line 434: a flower
    beside a kind raised KeyError)."""
    assert meld_fillers(["1f", "1f"]) == ()
    assert meld_fillers(["back", "back"]) == ()
    assert meld_fillers(["5p", "1f"]) == meld_fillers(["back", "5p"]) == ()


# --------------------------------------------------------------------------- inputs
def test_stand_ins_given_to_correct_are_used_rather_than_the_predicates() -> None:
    """``correct(stand_ins=...)`` says how the rules read a shown meld's tiles; the
    predicate's own stand-ins are only the default. Xiamen gold 5m: with the stand-ins
    given as none, a claimed 4m 白板 6m is no set (a physical problem), though the win
    predicate would read the 白板 as the gold's 5m. Kills ``if stand_ins is None`` made
    always true (line 793)."""
    ctx = {"gold": "5m", "self_drawn": True}
    d = (SceneBuilder().standing("5m1p5m2p5m3p5m456pEE1s").meld("4mP6m", sideways=0)
         .win("1s").detections())
    check = winning_shape_check("xiamen", ctx)
    assert _correct(d, rules="xiamen", hand_size=17, is_winning=check).problems == ()
    plain = _correct(d, rules="xiamen", hand_size=17, is_winning=check, stand_ins=())
    assert plain.problems == ("chow 4m6mP is not three consecutive tiles of one suit",)


def test_a_tile_a_rule_promoted_keeps_that_reading_as_its_own() -> None:
    """A tile a re-reading rule promoted (:func:`vision.rewrite.promote`: the flower
    read as a kind, the back as 白板) holds a code whose probability is below another of
    its readings; that code is still the tile's reading, the search's cost 0 — not a
    change from the other one. 123m456s89pEEECC + a tile read 1p 0.6 / 7p 0.3 promoted to
    7p wins as read: no change, no problem. Kills the "keep the detector's own top-1
    first" step dropped (line 597)."""
    b = SceneBuilder().standing("123m456s89pEEECC").win("1p").uncertain([("1p", 0.6),
                                                                          ("7p", 0.3)])
    d = b.detections()
    p = promote(d, [(len(d) - 1, 1)])
    assert p.codes[-1] == "7p"
    res = _correct(p)
    assert res.problems == () and res.best.changes == () and res.best.winning


# --------------------------------------------------------------------------- bounds
def test_alternatives_are_at_most_max_alternatives() -> None:
    """``CorrectParams.max_alternatives`` (3): a tile read N 0.2 / S / W 0.19 / C 0.18 /
    F 0.17, no win claimed — four other readings within ``close_ratio`` — shows the
    three most probable. Kills ``max_alternatives`` 3 → 4 (line 125)."""
    b = SceneBuilder().standing("123m456p789sEE").standing("N").uncertain(
        [("N", 0.2), ("S", 0.19), ("W", 0.19), ("C", 0.18), ("F", 0.17)])
    res = _correct(b.detections(), claim_win=False)
    assert res.best.changes == ()
    assert [[c.after for c in a.changes] for a in res.alternatives] == [["S"], ["W"], ["C"]]
    wide = _correct(b.detections(), claim_win=False, params=CorrectParams(max_alternatives=9))
    assert len(wide.alternatives) == 4


def test_alternatives_lie_within_close_ratio_of_the_chosen_reading() -> None:
    """Alternatives are the possible readings within ``close_ratio`` (4) of the chosen
    one, either way. A claimed win 123m456s57pEEECC + 9p (0.8; 6p 0.1): 6p wins and is
    taken (8 times less probable, within ``max_win_ratio`` 10); the top-1 reading, 8
    times more probable than it, is no alternative. Kills the ``close_ratio`` test
    dropped from the alternatives (line 1224)."""
    b = SceneBuilder().standing("123m456s57pEEECC").win("9p")
    res = _correct(b.uncertain([("9p", 0.8), ("6p", 0.1)]).detections())
    assert res.best.winning and [c.after for c in res.best.changes] == ["6p"]
    assert res.alternatives == ()


def test_a_winning_reading_that_adds_a_change_to_another_is_still_shown() -> None:
    """A winning reading is a hand of its own, also when it adds a change to another
    winning reading (``_alternatives``, sixty-eighth session). 123m456m789m + 9p (0.5; 1s
    0.3, 4s 0.2) + 2s3s4s + 4s (0.6; 1s 0.35) claimed as a win: 9p → 1s wins (123s 44s)
    and is chosen; 9p → 4s (234s 44s) wins, and so do 9p → 1s plus 4s → 1s (11s 234s)
    and 9p → 4s plus 4s → 1s (123s 44s) — each shown though it adds a change to a
    reading shown. Kills ``r.winning or`` dropped from the alternatives (line 1226)."""
    b = SceneBuilder().standing("123m456m789m9p").uncertain([("9p", 0.5), ("1s", 0.3),
                                                              ("4s", 0.2)])
    b.standing("2s3s4s").win("4s").uncertain([("4s", 0.6), ("1s", 0.35)])
    res = _correct(b.detections(), params=CorrectParams(max_alternatives=9))
    assert res.best.winning and [c.after for c in res.best.changes] == ["1s"]
    wins = [[(c.before, c.after) for c in a.changes] for a in res.alternatives if a.winning]
    assert wins == [[("9p", "4s")], [("9p", "1s"), ("4s", "1s")],
                    [("9p", "4s"), ("4s", "1s")]]


def test_a_code_read_with_probability_zero_is_never_taken() -> None:
    """A code the detector gives probability 0 is no reading of the tile (``_slots``
    keeps a top-k entry only when p > 0): a fifth 5p whose only other code is 6p at 0
    stays impossible — the top-1 is kept and the note says no possible reading was
    found — rather than being "mended" into a reading the detector ruled out. Kills
    ``p > 0`` → ``p >= 0`` (line 589)."""
    b = SceneBuilder().standing("5555p").standing("5p").uncertain([("5p", 0.7), ("6p", 0.0)])
    res = _correct(b.standing("7p123sEEEN").win("N").detections())
    assert res.problems == ("5 copies of 5p (there are 4)",)
    assert res.best.changes == () and not res.best.legal
    assert any(n.startswith("no possible reading") for n in res.notes), res.notes


def test_a_corrections_json_rounds_probabilities_to_four_places() -> None:
    """The JSON of a correction (``Correction.to_dict``) gives ``p_from`` and ``p_to`` to
    4 decimal places and the ratio to 3. Kills ``p_to`` rounded to 5 (line 150)."""
    got = C.Correction(3, "9p", "6p", 0.612345, 0.123456).to_dict()
    assert got == {"tile": 3, "from": "9p", "to": "6p", "p_from": 0.6123, "p_to": 0.1235,
                   "ratio": round(0.612345 / 0.123456, 3)}


def _unsure_fifth_copy() -> SceneBuilder:
    """A claimed win whose top-1 holds a fifth 5p (one read 0.7, 6p 0.25: 567p wins)
    and six tiles read each as two kinds at 0.5 / 0.45 (many near readings)."""
    b = SceneBuilder().standing("5555p").standing("5p").uncertain([("5p", 0.7), ("6p", 0.25)])
    b.standing("7p")
    for code, other in (("1s", "7s"), ("2s", "8s"), ("3s", "9s")):
        b.standing(code).uncertain([(code, 0.5), (other, 0.45)])
    b.standing("EEE")
    for code, other in (("N", "W"),):
        b.standing(code).uncertain([(code, 0.5), (other, 0.45)])
    return b.win("N").uncertain([("N", 0.5), ("W", 0.45)])


def test_the_bound_on_readings_counts_every_step_of_the_search() -> None:
    """``max_readings`` bounds the readings popped by all steps of the search together
    (the top-1 reading first made possible, then every reading): cut at 20, a claimed
    win whose top-1 holds a fifth copy says it looked at 20 readings. Kills
    ``found.popped += used`` dropped (line 1021: the first step's readings went
    uncounted, and the search looked at more than its bound)."""
    res = _correct(_unsure_fifth_copy().detections(), params=CorrectParams(max_readings=20))
    assert "5 copies of 5p (there are 4)" in res.problems
    assert res.best.winning and [c.after for c in res.best.changes] == ["6p"]
    assert res.searched == 20
    assert "search stopped after 20 readings" in res.notes


def test_no_alternative_repeats_the_chosen_reading() -> None:
    """The reading found first when the top-1 is impossible (the fifth copy mended with
    the tiles involved alone) is found again by the search over every reading; it is one
    reading, chosen, and not also an alternative of itself. Kills ``read not in seen``
    dropped (line 1108)."""
    b = SceneBuilder().standing("5555p").standing("5p").uncertain([("5p", 0.7), ("6p", 0.25)])
    res = _correct(b.standing("7p123sEEEN").win("N").detections())
    assert [c.after for c in res.best.changes] == ["6p"] and res.best.winning
    assert all(a.codes != res.best.codes for a in res.alternatives), res.alternatives


def test_the_search_builds_each_reading_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The best-first search reaches each reading by one path (raise the last changed
    tile's reading, or start changing a later tile) — the top-1 reading 57p+9p and 57p+8p
    here, 57p+6p too improbable to win (12.5 times) —, and a search that looked at every
    reading within its bounds is not searched again for few-change readings (that step
    is for a search cut by its bound). A claimed win with unsure tiles, searched to the
    end, builds no reading twice. Kills ``if last >= 0`` made always true (line 1127:
    the start's successors pushed twice) and ``found.stop is not None`` dropped (line
    1022: a complete search repeated)."""
    built: Counter[tuple[str, ...]] = Counter()
    build_read = C._Readings.build_read

    def counting(self: C._Readings, idx: tuple[int, ...]) -> tuple[str, ...]:
        codes = build_read(self, idx)
        if any(idx):  # the top-1 reading is also built to ask whether it wins
            built[codes] += 1
        return codes

    monkeypatch.setattr(C._Readings, "build_read", counting)
    b = SceneBuilder().standing("123m456s57pEEECC").win("9p")
    b.uncertain([("9p", 0.5), ("8p", 0.3), ("6p", 0.04)])  # 6p wins, 12.5 times less
    res = _correct(b.detections())
    assert not any("stopped" in n for n in res.notes), res.notes
    assert not res.best.winning
    assert built and max(built.values()) == 1, built.most_common(3)


# --------------------------------------------------------------------------- shapes
def test_winds_in_a_row_are_no_chow() -> None:
    """A chow is three consecutive tiles of one suit (RULES.md): honours make none. A
    claimed E S W is no set and says so. Kills ``idx[0] < 27`` → ``<= 27`` in the meld
    check (line 628: E S W, kinds 27-29, passed for a chow)."""
    b = SceneBuilder().standing("123m456p789s11p").meld("ESW", sideways=0).win("1p")
    res = _correct(b.detections())
    assert res.problems == ("chow ESW is not three consecutive tiles of one suit",)
    assert not res.best.winning


@pytest.mark.parametrize("meld", ["789p", "7s8s9s", "6s7s8s", "123m"])
def test_a_chow_of_any_three_consecutive_ranks_of_one_suit_is_a_set(meld: str) -> None:
    """A chow is three consecutive tiles of one suit, 1-2-3 up to 7-8-9 (RULES.md): a
    claimed 789p, 789s, 678s or 123m is a set and the hand 123m456s11pEE + meld + E wins.
    Kills the suit rank taken ``% 8`` for ``% 9`` in the meld check (line 628: 789p and
    678s were refused)."""
    b = SceneBuilder().standing("123m456s11pEE").meld(meld, sideways=0).win("E")
    res = _correct(b.detections())
    assert res.problems == () and res.best.winning


def test_a_chow_does_not_run_across_suits() -> None:
    """8p 9p 1s are consecutive kind indices but no chow (one suit only): a claimed 8p 9p
    1s is listed as no set. Kills ``% 8`` for ``% 9`` too (it took 8p9p1s for a chow)."""
    b = SceneBuilder().standing("123m456s11pEE").meld("8p9p1s", sideways=0).win("E")
    res = _correct(b.detections())
    assert res.problems == ("chow 8p9p1s is not three consecutive tiles of one suit",)


@pytest.mark.parametrize("text", ["123m456p789s123pE", "123m456p789s123pEEE"])
def test_a_hand_not_of_a_wins_size_has_no_mcr_winning_shape(text: str) -> None:
    """MCR: a win is four sets and a pair — 14 tiles, kongs counted as 3 — or a special
    hand of 14. 13 tiles (one short) or 15 are no winning shape, whatever they hold.
    Kills the size check answering True (line 256)."""
    assert not mcr_winning_shape(parse_hand(text))


def test_thirteen_orphans_needs_its_fourteenth_tile_an_orphan_too() -> None:
    """MCR 十三幺 (thirteen orphans): one of each terminal and honour and a second of one
    of them. 19m19p19sESWNCFP + 1m wins; + 5m (a simple as the fourteenth) does not.
    Kills the ``== 14`` orphans count dropped (line 262)."""
    assert mcr_winning_shape(parse_hand("19m19p19sESWNCFP1m"))
    assert not mcr_winning_shape(parse_hand("19m19p19sESWNCFP5m"))


# --------------------------------------------------------------------------- no chows
def test_under_rules_without_chows_every_meld_that_is_no_set_is_listed() -> None:
    """Zhenjiang claims no chows (seed 001): each shown meld not all of one kind is a
    problem of its own — two such melds, two problems, in the layout's order. Kills the
    ``continue`` after the first one made ``break`` (line 654: later melds went
    unchecked)."""
    b = SceneBuilder().standing("111p456mS").meld("5p5p2m", sideways=0)
    b.meld("7s7s9s", sideways=0).win("S")
    res = _correct(b.detections(), rules="zhenjiang")
    assert res.problems == ("meld 2m5p5p is not a pung or kong (these rules claim no chows)",
                            "meld 7s7s9s is not a pung or kong (these rules claim no chows)")



# --------------------------------------------------------------------------- Xiamen
def test_a_white_dragon_is_written_as_the_gold_only_in_a_chow() -> None:
    """Xiamen, gold 5m: 白板 (P) stands in for the gold's face, and the reading writes it
    as the gold's kind in a shown *chow* only (4m P 6m is [456m]); a pung or kong stays
    as read (``_Table.written``). A claimed 5m 5m P is therefore no set as read and is
    listed so, not written into a pung 5m 5m 5m. Kills the ``len(set(as_written)) == 3``
    test dropped (line 501)."""
    check = winning_shape_check("xiamen", {"gold": "5m", "self_drawn": True})
    b = SceneBuilder().standing("1p2p3p4p5p6pEE1s123s").meld("5m5mP", sideways=0).win("1s")
    res = _correct(b.detections(), rules="xiamen", hand_size=17, is_winning=check)
    assert res.problems == ("chow 5m5mP is not three consecutive tiles of one suit",)
    assert not res.best.legal


# --------------------------------------------------------------------------- flowers
def test_a_second_flower_is_mended_through_the_flower_it_would_become() -> None:
    """One of each flower (RULES.md): 1f shown twice, one read 0.6 (2f 0.35), beside a
    2f read 0.6 (3f 0.35). 2f is already shown, so the 1f can become 2f only if that 2f
    becomes 3f: the tiles the search may change (no win claimed, 12 tiles) reach that 2f
    too (``_reach``: a flower one of the involved tiles could become is full), and the
    hand reads 1f 2f 3f. Kills ``flowers[code] >= 1`` → ``> 1`` (line 733: the 2f was
    left out and no possible reading was found)."""
    b = SceneBuilder().standing("123m456p789sEEE")
    b.flowers("1f").uncertain([("1f", 0.6), ("2f", 0.35)]).standing("1f")
    b.standing("2f").uncertain([("2f", 0.6), ("3f", 0.35)])
    res = _correct(b.detections())
    assert res.problems == ("2 copies of flower 1f (there is 1)",)
    assert [(c.before, c.after) for c in res.best.changes] == [("1f", "2f"), ("2f", "3f")]


def test_honours_and_knitted_tiles_need_every_suited_tile_in_one_knitted_straight() -> None:
    """MCR 全不靠 (lesser honours and knitted tiles): 14 single tiles, honours and
    suited tiles all of one knitted straight (147 / 258 / 369, each in its own suit).
    25m36p147s + the seven honours wins; 25m36p149s does not — 9s is not of 147s.
    Kills the suited tiles taken as ``i < 26`` (line 266: a 9s was left out of the
    check)."""
    assert mcr_winning_shape(parse_hand("25m36p147sESWNCFP"))
    assert not mcr_winning_shape(parse_hand("25m36p149sESWNCFP"))


def test_a_ready_reading_is_judged_against_the_best_possible_reading_not_the_top_1() -> None:
    """``max_ready_ratio`` (4, as :func:`vision.recognize.recognize` asks): a hand one
    tile short takes a reading that makes it ready when at most 4 times less probable
    than the best *possible* reading. 5555p + 5p (0.6; 9m 0.25, 6p 0.15) + 123sEEENN:
    the fifth 5p must change; 9m is the best possible reading (2.4 times the top-1's
    cost), 6p (ready on 4p/7p) is 1.7 times less probable than it and is taken. Kills
    the ready margin measured as ``cost + best`` (line 1119: 6p's cost plus 9m's is
    9.6 times, past 4)."""
    b = SceneBuilder().standing("5555p").standing("5p")
    b.uncertain([("5p", 0.6), ("9m", 0.25), ("6p", 0.15)]).standing("123sEEENN")
    d = b.detections()
    assert [c.after for c in _correct(d).best.changes] == ["9m"]
    res = _correct(d, params=CorrectParams(max_ready_ratio=4.0))
    assert [c.after for c in res.best.changes] == ["6p"]
    assert any("makes the hand ready" in n for n in res.notes), res.notes


# --------------------------------------------------------------------------- tile_rereads
def test_two_white_dragons_read_as_backs_are_reread_together() -> None:
    """``vision.tile_rereads.reread_back_or_white``: a blank white dragon looks like a
    tile's back. 123m456p789sP + two tiles read back 0.55 (P 0.4) + E, won on E: either
    re-read alone leaves 13 tiles and no win, so each single try fails and the rule goes
    on to re-read both together — 123m456p789sPPPEE wins. Kills the ``continue`` after a
    failed try made ``break`` (tile_rereads.py line 209: the rule gave up after the
    first)."""
    from vision.recognize import recognize_detections

    b = SceneBuilder().standing("123m456p789sP")
    for _ in range(2):
        b.standing("P").uncertain([("back", 0.55), ("P", 0.4)])
    r = recognize_detections(b.standing("E").win("E").detections(), "mcr")
    assert r.hand_text == "123m456p789sPPPEE" and r.score is not None
    assert [(c["from"], c["to"]) for c in r.to_dict()["corrections"]] == [("back", "P")] * 2


def test_a_back_whose_white_dragon_reading_has_probability_zero_is_not_reread() -> None:
    """``reread_back_or_white`` tries a back standing among the hand as 白 however
    unlikely — but not when the detector gave 白 probability 0 (no reading at all, as
    for the correction's ``p > 0``). 123m456p789sPP + a back (0.95; P 0.0) + E, won on E
    stays without a win and without the rule's note. Kills ``pr > 0`` dropped
    (tile_rereads.py line 190)."""
    from vision.recognize import recognize_detections

    b = SceneBuilder().standing("123m456p789sPP").standing("P")
    b.uncertain([("back", 0.95), ("P", 0.0)]).standing("E").win("E")
    r = recognize_detections(b.detections(), "mcr")
    assert r.score is None
    assert not any("white dragon" in n for n in r.notes)


# --------------------------------------------------------------------------- set_counts
def test_one_set_moves_no_more_tiles_onto_a_kind_than_it_has_copies_left() -> None:
    """``vision.set_counts.within_one_set`` (four copies of each kind, RULES.md): six
    tiles read 5p (0.6; 6p 0.3) beside three sure 6p. Two 5p must change, but 6p has one
    copy left: one 5p becomes 6p and the other one of its less probable codes (each row
    may take its 5 most probable), and no fifth 6p is made. Kills the room of a code
    counted ``capacity + outside`` (set_counts.py line 127)."""
    import numpy as np

    from vision.classes import CLASSES, class_id
    from vision.set_counts import within_one_set

    p = np.full((9, len(CLASSES)), 1e-4, np.float32)
    for row in range(6):
        p[row, class_id("5p")], p[row, class_id("6p")] = 0.6, 0.3
    for row in range(6, 9):
        p[row, class_id("6p")] = 0.99
    q, changed = within_one_set(p / p.sum(axis=1, keepdims=True))
    codes = Counter(CLASSES[i] for i in q.argmax(axis=1))
    assert codes["6p"] == 4 and codes["5p"] == 4 and len(changed) == 2
