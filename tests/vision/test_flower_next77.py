"""A misread flower next to a real flower (seventy-seventh session): each of the eight
bonus tiles (1f–8f) is in the set once (RULES.md), so a flower read as the code of the
flower beside it, or a doubtful tile beside real flowers re-read as a flower, must not
take a code another tile holds — before, such a photo gave no hand at all ("flower 4f
appears twice"). Under MCR every flower is 1 fan whichever it is, so the score stands even
where which flower a tile is was not read."""

from __future__ import annotations

from vision.classes import BONUS
from vision.detections import Detections
from vision.flower_rereads import flowers_with_no_free_code, reread_flowers_read_twice
from vision.flower_runs import bonus_codes_read
from vision.layout import LayoutParams, analyze
from vision.layout_scene import SceneBuilder
from vision.recognize import Recognition, recognize_detections

#: a won MCR hand, 123m 456p 789s 11s EEE (14 tiles, 123m456p789s11sEE and E won)
WON = "123m456p789s11sEE"


def _won_with_flowers_then(second: list[tuple[str, float]], own_row: bool) -> Detections:
    """The won hand, then after a gap (in its row, or in a row of its own) a real 4f
    and a second flower read as ``second``."""
    b = SceneBuilder().standing(WON).win("E")
    if own_row:
        b.row()
    return b.flowers("4f").standing("4f").uncertain(second).detections()


def _flower_codes(r: Recognition) -> list[str]:
    """The flowers of the hand ``r`` read, sorted."""
    assert r.hand is not None
    return sorted(r.hand.flowers)


def test_a_flower_read_as_the_flower_beside_it_is_read_as_a_free_flower() -> None:
    """1f read 4f (p 0.60, only a kind among its alternatives) beside the real 4f (0.98):
    the surer 4f keeps its code, the other is read as a free bonus code — the hand is
    scored (MCR: 2 flowers, 2 fan) instead of refused, and the note and the corrections
    say what changed and that which flower it is was not read."""
    for own_row in (False, True):
        d = _won_with_flowers_then([("4f", 0.6), ("P", 0.3)], own_row)
        r = recognize_detections(d, "mcr")
        assert r.unscorable is None and r.score is not None
        assert _flower_codes(r) == ["1f", "4f"]
        assert r.codes[-2] == "4f" and r.codes[-1] == "1f"  # the surer reading keeps 4f
        [note] = [n for n in r.notes if "read surer on another tile" in n]
        assert note.startswith("read tile 15 (4f, p 0.60) as a flower (1f)")
        assert note.endswith("which flower was not read")
        changes = [(c["tile"], c["from"], c["to"]) for c in r.to_dict()["corrections"]]
        assert changes == [(15, "4f", "1f")]


def test_a_fairly_sure_second_reading_of_a_held_flower_is_still_one_flower_only() -> None:
    """Two tiles read 4f, at 0.98 and 0.85, with no other bonus code among the second's
    alternatives: one of them is not 4f (the set has one); the surer keeps it."""
    d = _won_with_flowers_then([("4f", 0.85), ("2p", 0.05)], own_row=False)
    r = recognize_detections(d, "mcr")
    assert r.score is not None and _flower_codes(r) == ["1f", "4f"]


def test_two_sure_readings_of_one_flower_are_never_overridden() -> None:
    """Strong evidence (top-1 ≥ the correction's SURE_P, 0.9) is not overridden to make a
    hand: two tiles read 4f at 0.98 and 0.92 keep their problem, and the hand is refused
    as before (tests/vision/test_confidence.py: its confidence is then 0)."""
    d = _won_with_flowers_then([("4f", 0.92), ("2p", 0.05)], own_row=False)
    r = recognize_detections(d, "mcr")
    assert r.hand is None and not any("read surer" in n for n in r.notes)
    assert r.unscorable is not None and "flower 4f appears twice" in r.unscorable


def test_a_flower_with_a_free_flower_alternative_is_left_to_the_correction() -> None:
    """Its top-k gives 1f (0.3): the correction reads it so, with its probability, as
    before; this rule re-reads nothing."""
    d = _won_with_flowers_then([("4f", 0.6), ("1f", 0.3)], own_row=False)
    p = LayoutParams(hand_size=14)
    assert flowers_with_no_free_code(d, analyze(d, p))[0] == []
    r = recognize_detections(d, "mcr")
    assert not any("read surer on another tile" in n for n in r.notes)
    assert r.score is not None and _flower_codes(r) == ["1f", "4f"]


def test_the_surer_reading_gives_way_when_only_it_has_another_flower() -> None:
    """Held-out scene 000016 (layout-eval-heldout, seed 3) in small: two tiles read 4f,
    the surer (0.30) with 7f (0.14) among its alternatives, the other (0.26) with none.
    The correction has a reading (the surer one as 7f, its evidence), so nothing is
    guessed: which flower a tile is is read wherever its top-k says."""
    b = SceneBuilder().standing(WON).win("E").flowers("4f")
    b.uncertain([("4f", 0.26), ("6p", 0.2)]).standing("4f")
    d = b.uncertain([("4f", 0.3), ("7f", 0.14), ("5p", 0.13)]).detections()
    p = LayoutParams(hand_size=14)
    assert flowers_with_no_free_code(d, analyze(d, p))[0] == []
    r = recognize_detections(d, "mcr")
    assert not any("read surer on another tile" in n for n in r.notes)
    assert r.score is not None and list(r.codes[-2:]) == ["4f", "7f"]


def test_a_kind_among_the_flowers_whose_only_flower_alternative_is_held_is_read_as_one() -> None:
    """A row of its own: 1f, a tile read 3p (0.60) whose one bonus alternative is 1f
    (0.20, so the layout lays it with the flowers), 2f. 1f is the real 1f's: the tile
    takes a free code (3f) and the hand scores its three flowers; before, the correction
    found no reading and the hand was refused."""
    b = SceneBuilder().standing(WON).win("E").row().flowers("1f")
    d = b.standing("3p").uncertain([("3p", 0.6), ("1f", 0.2)]).standing("2f").detections()
    r = recognize_detections(d, "mcr")
    assert r.score is not None and _flower_codes(r) == ["1f", "2f", "3f"]
    assert any("its flower alternatives are read on other tiles" in n for n in r.notes)


def test_a_doubtful_tile_beside_ignored_real_flowers_takes_no_code_they_hold() -> None:
    """A row of its own: 1f, a doubtful 3p (0.60, no bonus alternative), 2f — the layout
    leaves the whole row out of the hand for the 3p. Read as a flower, the row joins the
    flowers, so the 3p must not take 1f (the real 1f's) as it did: three flowers, the
    hand scored, and none read twice."""
    doubtful = [("3p", 0.6), ("9p", 0.2)]
    middle = SceneBuilder().standing(WON).win("E").row().flowers("1f")
    middle.standing("3p").uncertain(doubtful).standing("2f")
    end = SceneBuilder().standing(WON).win("E").row().flowers("1f2f")
    end.standing("3p").uncertain(doubtful)
    for b in (middle, end):
        r = recognize_detections(b.detections(), "mcr")
        assert r.score is not None
        flowers = _flower_codes(r)
        assert len(flowers) == 3 and len(set(flowers)) == 3 and {"1f", "2f"} <= set(flowers)


def test_a_set_apart_flower_reading_skips_a_code_an_ignored_flower_holds() -> None:
    """1f, a 3p (0.60) whose one bonus alternative is 1f (0.06, too little for the layout
    to lay it with the flowers), 2f, in a row of their own, all left out of the hand: the
    set-apart rule no longer reads it as 1f (the real 1f's; the correction then found no
    reading and refused the hand) — the doubtful-tile rule gives it a free code."""
    b = SceneBuilder().standing(WON).win("E").row().flowers("1f").standing("3p")
    d = b.uncertain([("3p", 0.6), ("1f", 0.06)]).standing("2f").detections()
    r = recognize_detections(d, "mcr")
    assert r.score is not None and _flower_codes(r) == ["1f", "2f", "3f"]
    assert [(c["from"], c["to"]) for c in r.to_dict()["corrections"]] == [("3p", "3f")]


def test_the_codes_held_are_every_flower_read_wherever_it_lies() -> None:
    b = SceneBuilder().standing(WON).win("E").row().flowers("1f").standing("3p")
    d = b.uncertain([("3p", 0.6)]).standing("2f").detections()
    lay = analyze(d, LayoutParams(hand_size=14))
    assert lay.flowers == ()  # the row is left out of the hand
    assert bonus_codes_read(d, lay) == {"1f", "2f"}


def test_no_ninth_flower_is_made_up() -> None:
    """All eight bonus codes read, and a ninth tile read 4f: no code is free, nothing is
    re-read (the hand stays refused: a photo of nine flowers is not a hand of the set)."""
    b = SceneBuilder().standing(WON).win("E").row().flowers("".join(BONUS))
    d = b.standing("4f").uncertain([("4f", 0.6), ("P", 0.3)]).detections()
    p = LayoutParams(hand_size=14)
    out, _, notes, changes = reread_flowers_read_twice(d, analyze(d, p), p)
    assert out is d and notes == () and changes == ()


def test_a_flower_read_at_exactly_0_9_is_sure() -> None:
    """The probabilities are float32, and float32 0.9 is under the float 0.9: a second 4f
    read "0.90" was re-read as 1f (review of the seventy-seventh session). Read at SURE_P,
    it is strong evidence and keeps its problem."""
    d = _won_with_flowers_then([("4f", 0.9), ("2p", 0.05)], own_row=False)
    r = recognize_detections(d, "mcr")
    assert r.hand is None and not any("read surer" in n for n in r.notes)


def test_no_flower_is_re_read_under_rules_played_without_flowers() -> None:
    """Zhenjiang plays no flowers (its tiles laid apart are misread kinds): the flower read
    twice is not matched to a free flower code there (it was, with a correction naming a
    flower the game does not have)."""
    d = _won_with_flowers_then([("4f", 0.6), ("2p", 0.3)], own_row=False)
    r = recognize_detections(d, "zhenjiang", {"indicator": "9m"})
    assert not any("read surer on another tile" in n for n in r.notes)
    assert all(c["to"] not in BONUS for c in r.to_dict()["corrections"])
