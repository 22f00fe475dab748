"""reread_flower_runs never makes a flower of a tile that completes the pung or kong
beside it (vision.flower_runs.completes_a_set): a player lays a flower apart from the
hand or at a row's end, not as the fourth tile of a kong laid out. Seventy-ninth
session: on the hk-photos train split (370354741 …4bc2943f) one tile of NNNN read E at
p .63 (N .37) was re-read as a free 1f with no flower probability at all."""

from __future__ import annotations

from vision.classes import BONUS
from vision.correct import winning_shape_check
from vision.flower_rereads import reread_flower_runs
from vision.flower_runs import completes_a_set
from vision.layout import LayoutParams, analyze
from vision.layout_scene import SceneBuilder
from vision.recognize import recognize_detections
from vision.rewrite import WinTest

#: 666s 222s 777m 88s NNN, then the fourth N read doubtfully as E: 15 tiles, one over
HAND = "666s222s777m88sNNN"


def kong_end(readings: list[tuple[str, float]]) -> SceneBuilder:
    """``HAND`` in one row, then a tile with ``readings`` (top-k, best first)."""
    return SceneBuilder().standing(HAND).standing(readings[0][0]).uncertain(readings)


def flower_run_rereads(readings: list[tuple[str, float]]) -> list[str]:
    """The notes of reread_flower_runs on the scene, for an MCR win of 14 tiles (none
    when it keeps nothing)."""
    d = kong_end(readings).detections()
    test = WinTest("mcr", 14, winning_shape_check("mcr"))
    rw = reread_flower_runs(d, analyze(d), LayoutParams(), test)
    return [] if rw is None else list(rw.notes)


def test_the_fourth_tile_of_a_kong_read_doubtfully_is_no_flower() -> None:
    """E .63 / N .37 after NNN: its likeliest other reading completes the kong, and it
    gives no bonus code any probability, so it stays a hand tile (before: a free 1f and a
    win of NNN with a flower)."""
    readings = [("E", 0.63), ("N", 0.37)]
    d = kong_end(readings).detections()
    assert completes_a_set(d, analyze(d), len(d) - 1, [len(d) - 1])
    r = recognize_detections(d, "mcr", {"claim_win": True})
    assert flower_run_rereads(readings) == []
    assert r.hand is None or not any(c in BONUS for c in r.hand.flowers)
    assert r.roles[-1] != "flower"


def test_a_kong_reading_no_likelier_than_a_flower_leaves_the_tile_a_flower() -> None:
    """The same tile with as much on a bonus code as on N: the pung beside it does not
    outweigh the flower, and the run's re-read still wins with it as 3f."""
    readings = [("E", 0.6), ("N", 0.2), ("3f", 0.2)]
    d = kong_end(readings).detections()
    assert not completes_a_set(d, analyze(d), len(d) - 1, [len(d) - 1])
    notes = flower_run_rereads(readings)
    assert len(notes) == 1 and "3f" in notes[0]


def test_an_unseen_flower_beside_a_pung_is_still_read_as_one() -> None:
    """A flower of an unfamiliar set read weakly as dots beside NNN, with N only its third
    reading: no kong reading is among its likeliest, so the run re-reads it."""
    readings = [("7p", 0.3), ("4p", 0.2), ("N", 0.15)]
    d = kong_end(readings).detections()
    assert not completes_a_set(d, analyze(d), len(d) - 1, [len(d) - 1])
    assert len(flower_run_rereads(readings)) == 1
