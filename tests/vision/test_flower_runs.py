"""Flowers of an unfamiliar set read as kinds (vision.flower_runs and the recognize rule
reread_flower_runs): a hand over its size whose doubtful readings lie together at a row's
end or beside a flower."""

from __future__ import annotations

import numpy as np
import pytest

from vision.classes import CLASSES
from vision.flower_runs import as_flowers, bonus_probability, flower_runs, run_choices
from vision.layout import analyze
from vision.layout_scene import SceneBuilder
from vision.recognize import recognize_detections

#: a white dragon, dots and a bamboo as a classifier reads a flower it never saw: weakly,
#: with no bonus code among its alternatives
UNSEEN = [("P", 0.35), ("9p", 0.25), ("4p", 0.2)]
UNSEEN2 = [("7p", 0.3), ("6p", 0.25), ("9p", 0.15)]
UNSEEN3 = [("8s", 0.3), ("8p", 0.2), ("7p", 0.1)]


def three_unseen_flowers_then(standing: str, winning: str) -> SceneBuilder:
    """A row starting with three flowers read as kinds, then the ``standing`` tiles and
    the ``winning`` one set apart."""
    b = SceneBuilder().standing("P").uncertain(UNSEEN)
    b.standing("7p").uncertain(UNSEEN2).standing("8s").uncertain(UNSEEN3)
    return b.standing(standing, apart=True).win(winning)


def test_doubtful_tiles_at_a_row_end_form_a_run_from_that_end() -> None:
    d = three_unseen_flowers_then("123m456p789s11sEE", "E").detections()
    runs = flower_runs(d, analyze(d), weak_p=0.7)
    assert runs == [[0, 1, 2]]


def test_doubtful_tiles_beside_a_flower_form_a_run_outward_from_it() -> None:
    b = SceneBuilder().standing("123m456p789s11sE", apart=False).flowers("3f")
    b.standing("P").uncertain(UNSEEN).standing("E", apart=True)
    d = b.detections()
    lay = analyze(d)
    runs = flower_runs(d, lay, weak_p=0.7)
    assert [d.codes[i] for r in runs for i in r] == ["P"]


def test_a_surely_read_tile_ends_a_run() -> None:
    b = SceneBuilder().standing("P").uncertain(UNSEEN).standing("7p")
    b.uncertain([("7p", 0.9), ("6p", 0.05)]).standing("8s").uncertain(UNSEEN3)
    d = b.standing("123m456p789s11s", apart=True).win("E").detections()
    assert flower_runs(d, analyze(d), weak_p=0.7) == [[0]]


def test_run_choices_take_prefixes_of_each_run() -> None:
    assert run_choices([[1, 2, 3], [9, 8]], 2, 10) == [[1, 2], [1, 9], [8, 9]]
    assert run_choices([[1]], 2, 10) == []
    assert len(run_choices([[1, 2, 3], [4, 5, 6]], 3, 2)) == 2


def test_as_flowers_takes_the_likeliest_free_bonus_alternative_else_a_free_code() -> None:
    b = SceneBuilder().standing("P").uncertain([("P", 0.5), ("3f", 0.2), ("5f", 0.1)])
    b.standing("7p").uncertain([("7p", 0.5), ("3f", 0.3)]).standing("8s").uncertain(UNSEEN3)
    d = b.detections()
    out = as_flowers(d, [0, 1, 2], used={"1f"})
    assert out.codes == ["3f", "2f", "4f"]  # 1f is held; 3f taken by the first tile
    assert out.topk_probs[0, 0] == np.float32(0.2)
    assert out.topk_probs[2, 0] == 0.0  # no bonus code in its top-k: which one is not read
    assert out.topk_ids.shape == d.topk_ids.shape
    assert CLASSES[int(out.topk_ids[0, 1])] == "P"
    assert bonus_probability(d, 0) == np.float32(0.2) + np.float32(0.1)


def test_a_hand_three_over_reads_the_doubtful_run_at_its_row_end_as_flowers() -> None:
    """MCR: a hand needs 14 tiles; three doubtful readings at the row's end with no bonus
    code among their alternatives are the three too many: read as flowers, the hand wins
    (each flower adds 1 fan), and the notes say which flower was not read."""
    d = three_unseen_flowers_then("123m456p789s11sEE", "E").detections()
    r = recognize_detections(d, "mcr", {"claim_win": True})
    assert r.hand is not None and len(r.hand.flowers) == 3
    assert r.hand_text is not None and r.hand_text.startswith("123m456p78911sEEE")
    assert r.score is not None
    assert sum("3 too many tiles" in n for n in r.notes) == 3
    assert all("which flower was not read" in n for n in r.notes if "too many tiles" in n)
    assert list(r.roles[:3]) == ["flower"] * 3
    assert {c["from"] for c in r.to_dict()["corrections"]} >= {"P", "7p", "8s"}


def test_doubtful_tiles_in_the_middle_of_a_row_are_not_taken_for_flowers() -> None:
    b = SceneBuilder().standing("123m456p").standing("P").uncertain(UNSEEN)
    b.standing("789s11s").win("E").standing("E")
    r = recognize_detections(b.detections(), "mcr", {"claim_win": True})
    assert not any("too many tiles" in n for n in r.notes)
    assert r.score is None


def test_flower_runs_never_force_a_win() -> None:
    """Three tiles over, but the hand without the doubtful run does not win: nothing is
    re-read, the hand is reported as it was read."""
    d = three_unseen_flowers_then("123m456p789s12sEE", "E").detections()
    r = recognize_detections(d, "mcr", {"claim_win": True})
    assert not any("too many tiles" in n for n in r.notes)
    assert r.score is None


def test_a_run_of_surely_read_tiles_is_left_as_it_was_read() -> None:
    b = SceneBuilder().standing("P").uncertain([("P", 0.8), ("9p", 0.1)])
    d = b.standing("123m456p789s11sE", apart=True).win("E").detections()
    r = recognize_detections(d, "mcr", {"claim_win": True})
    assert not any("too many tiles" in n for n in r.notes)


def test_no_more_tiles_are_read_as_flowers_than_bonus_codes_are_free() -> None:
    d = three_unseen_flowers_then("123m456p789s11sEE", "E").detections()
    with pytest.raises(ValueError, match="only 2 bonus codes are free"):
        as_flowers(d, [0, 1, 2], used={"1f", "2f", "3f", "4f", "5f", "6f"})


def test_a_hand_holding_every_flower_takes_no_more() -> None:
    """Eight flowers already read: a hand still over its size reads no tile as a ninth."""
    b = SceneBuilder().flowers("1f2f3f4f5f6f7f8f")
    b.standing("P").uncertain(UNSEEN).standing("123m456p789s11sEE", apart=True).win("E")
    r = recognize_detections(b.detections(), "mcr", {"claim_win": True})
    assert not any("too many tiles" in n for n in r.notes)


def flowers_apart_read_as(*readings: list[tuple[str, float]]) -> SceneBuilder:
    """A won hand, and in a row nearer the camera flowers read as given."""
    b = SceneBuilder().standing("123m456p789s11sEE").win("E").row()
    b.flowers("2f").uncertain(readings[0])
    for r in readings[1:]:
        b.standing("5f").uncertain(r)
    return b


def test_flowers_set_apart_read_doubtfully_with_no_flower_alternative_are_flowers() -> None:
    """Two flowers of an unseen set laid apart, read as a white dragon and as dots with no
    bonus code among their alternatives: doubtful readings left out of the hand are read
    as flowers (each adds 1 fan under MCR), the hand unchanged; which flower is not read."""
    d = flowers_apart_read_as(UNSEEN, UNSEEN2).detections()
    r = recognize_detections(d, "mcr")
    assert r.hand is not None and len(r.hand.flowers) == 2
    assert r.hand_text is not None and r.hand_text.startswith("123m456p78911sEEE")
    assert list(r.roles[-2:]) == ["flower", "flower"]
    assert r.score is not None
    notes = [n for n in r.notes if "read doubtfully" in n]
    assert len(notes) == 2 and all("which flower was not read" in n for n in notes)
    assert {c["from"] for c in r.to_dict()["corrections"]} == {"P", "7p"}


def test_surely_read_tiles_set_apart_stay_out_of_the_hand() -> None:
    d = flowers_apart_read_as([("P", 0.9), ("C", 0.05)], [("7p", 0.85), ("6p", 0.1)])
    r = recognize_detections(d.detections(), "mcr")
    assert r.hand is not None and r.hand.flowers == ()
    assert list(r.roles[-2:]) == ["ignored", "ignored"]


def test_doubtful_tiles_set_apart_never_change_the_hand() -> None:
    """A doubtful tile the layout would lay in the hand once read as a flower is not one
    (the hand must stay the same detections): here the hand is left as it was read."""
    b = SceneBuilder().standing("123m456p789s11sEE").win("E").row()
    d = b.standing("P").uncertain(UNSEEN).standing("E").detections()
    before = recognize_detections(d, "mcr")
    assert not any("read doubtfully" in n for n in before.notes)


def test_a_fairly_sure_reading_with_flower_alternatives_is_doubtful_too() -> None:
    """top-1 0.8 is doubtful only when the top-k puts ≥ 0.03 on bonus codes together."""
    b = SceneBuilder().standing("7p").uncertain([("7p", 0.8), ("4f", 0.06), ("2f", 0.05)])
    b.standing("P").uncertain([("P", 0.8), ("9p", 0.1), ("5f", 0.01)])
    d = b.standing("123m456p789s11sE", apart=True).win("E").detections()
    lay = analyze(d)
    assert flower_runs(d, lay, weak_p=0.7) == []
    assert flower_runs(d, lay, weak_p=0.7, fair_p=0.9, bonus_p=0.03) == [[0]]


def test_a_hand_one_over_reads_a_fairly_sure_kind_at_its_row_end_with_flower_odds() -> None:
    """A season read 7p at 0.77 with 0.18 on bonus codes, at the row's end of a hand one
    tile over: read as a flower (its likeliest, 4f), and the hand wins."""
    b = SceneBuilder().standing("7p").uncertain([("7p", 0.77), ("4f", 0.06), ("2f", 0.05)])
    d = b.standing("123m456p789s11sE", apart=True).standing("E").win("E").detections()
    r = recognize_detections(d, "mcr", {"claim_win": True})
    assert r.hand is not None and r.hand.flowers == ("4f",) and r.score is not None
