"""Two gaps a review of the rule-aware correction found outside it (session 75):

1. Xiamen, gold 5m: a hand holding all four golds beside a claimed chow shown 4m 白板 6m
   (白板 standing in for the gold's face, notation ``[456m]``) gave no hand ("5 copies of
   5m"): the layout built its hand without the rules' stand-ins
   (:attr:`scoring.hand.Hand.melded_as`), though the scorer takes the notation.
2. A tile standing among the standing tiles, read as a flower at 0.5 with a suit tile at
   0.45, was never tried as that tile: a claimed 14-tile win read as 13 tiles and a
   flower (:func:`vision.recognize.reread_standing_flower`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import pytest

import scoring
import vision.layout as layout_mod
from scoring.hand import HandError
from vision.layout import Layout, analyze
from vision.layout_rows import MeldLayout
from vision.layout_scene import SceneBuilder
from vision.recognize import Recognition, recognize_detections

GOLD: dict[str, Any] = {"gold": "5m"}
FOUR_GOLDS = "[456m,1]5m1p5m2p5m3p5m456pEE1s1s"


def _four_golds(win: bool = True) -> SceneBuilder:
    """Xiamen, gold 5m: the four golds standing, a claimed chow laid 4m 白板 6m."""
    b = SceneBuilder().standing("5m1p5m2p5m3p5m456pEE1s").meld("4mP6m", sideways=0)
    return b.win("1s") if win else b


def _read(b: SceneBuilder, rules: str, ctx: Mapping[str, object] | None) -> Recognition:
    return recognize_detections(b.detections(), rules, ctx)


# --------------------------------------------------------------------------- gap 1
def test_four_golds_beside_a_white_dragon_chow_are_the_hand_the_scorer_scores() -> None:
    """Self-drawn, the hand scores as its notation does; no tile is "corrected"."""
    ctx: dict[str, Any] = {**GOLD, "self_drawn": True}
    rec = _read(_four_golds(), "xiamen", ctx)
    assert rec.hand is not None and scoring.format_hand(rec.hand) == FOUR_GOLDS
    assert rec.score is not None and rec.score.legal
    assert rec.score.total == scoring.score(FOUR_GOLDS, rules="xiamen", **ctx).total
    assert rec.to_dict()["corrections"] == []


def test_four_golds_on_a_discard_get_the_scorers_own_refusal() -> None:
    """On a discard the scorer refuses the win (four golds: self-draw only); the photo
    says so, as the notation does, instead of "5 copies of 5m"."""
    rec = _read(_four_golds(), "xiamen", GOLD)
    expected = scoring.score(FOUR_GOLDS, rules="xiamen", **GOLD)
    assert rec.hand is not None and scoring.format_hand(rec.hand) == FOUR_GOLDS
    assert rec.score is not None and not rec.score.legal
    assert rec.score.details["reason"] == expected.details["reason"]


def test_four_golds_waiting_beside_a_white_dragon_chow_give_the_waits() -> None:
    rec = _read(_four_golds(win=False), "xiamen", GOLD)
    assert rec.hand is not None and rec.waits is not None and rec.waits.ready
    assert rec.unscorable is None


def test_an_alternative_reading_of_four_golds_has_its_hand_and_score() -> None:
    """The alternatives read the meld tiles as the chosen hand does (their hand and
    the check that it is another hand, ``_distinct_hands``)."""
    b = SceneBuilder().standing("5m1p5m2p5m3p5m456pE").standing("E")
    b.uncertain([("E", 0.5), ("S", 0.45)])
    b.standing("1s").meld("4mP6m", sideways=0).win("1s")
    rec = _read(b, "xiamen", {**GOLD, "self_drawn": True})
    assert rec.hand is not None and scoring.format_hand(rec.hand) == FOUR_GOLDS
    [alt] = rec.alternatives
    assert alt["hand"] == "[456m,1]5m1p5m2p5m3p5m456pES1s1s"
    assert alt["score"] is not None and "unscorable" not in alt


def test_a_rule_that_mends_a_four_golds_hand_reads_the_chow_as_the_rules_do() -> None:
    """A tile only weakly seen (the 1p) is taken to complete the win: the rules' win test
    builds its hand on a layout of its own, which reads the meld tiles as the rules do
    too (``WinTest.melded_as``)."""
    full = _four_golds().detections()
    k = full.codes.index("1p")
    d = replace(full.select([i for i in range(len(full)) if i != k]), weak=full.select([k]))
    ctx: dict[str, Any] = {**GOLD, "self_drawn": True}
    rec = recognize_detections(d, "xiamen", ctx)
    assert rec.hand is not None and scoring.format_hand(rec.hand) == FOUR_GOLDS
    assert rec.score is not None and rec.score.legal
    assert any("weakly seen tile (1p" in n for n in rec.notes)


def test_the_layouts_hand_reads_a_meld_as_the_rules_do() -> None:
    lay = Layout(melds=(MeldLayout((0, 1, 2), 0, 1),), standing=(3, 4, 5, 6, 7))
    codes = ["4m", "P", "6m", "5m", "5m", "5m", "5m", "E"]
    gold = (("5m", "P"),)
    with pytest.raises(HandError, match="not three consecutive"):
        lay.hand(codes)  # no stand-ins (MCR): 4m 白板 6m is no set
    hand = lay.hand(codes, melded_as=gold)
    assert hand.melds[0].tiles == ("4m", "5m", "6m") and hand.melded_as == gold
    # the stand-ins the layout carries (set by recognize_detections), unless told
    assert replace(lay, melded_as=gold).hand(codes) == hand
    assert replace(lay, melded_as=gold) == lay  # not part of the layout's equality
    with pytest.raises(HandError, match="5 copies of 5m"):  # the chow written 456m
        lay.hand(["4m", "5m", "6m", *codes[3:]])
    assert lay.hand(["4m", "5m", "6m", *codes[3:]], melded_as=gold).standing[:4] == ("5m",) * 4


def test_only_a_chow_that_needs_its_stand_in_is_written_so() -> None:
    gold = (("5m", "P"),)
    chow = MeldLayout((0, 1, 2), 0, 1)
    assert layout_mod.meld_as_written(chow, ["P", "P", "P"], None, gold).tiles == ("P", "P", "P")
    with pytest.raises(HandError, match="4m7mP"):  # no set either way: the error as read
        layout_mod.meld_as_written(chow, ["4m", "P", "7m"], None, gold)
    written = layout_mod.meld_as_written(chow, ["4m", "5m", "6m"], None, gold)
    assert written.tiles == ("4m", "5m", "6m")


def test_without_stand_ins_a_fifth_gold_is_still_five_copies() -> None:
    """MCR has no stand-ins: five 5m (four standing, one in a chow) are refused."""
    b = SceneBuilder().standing("5m1p5m2p5m3p5m4pEE").meld("456m", sideways=0).win("E")
    rec = _read(b, "mcr", None)
    assert rec.hand is None and rec.unscorable is not None
    assert "5 copies of 5m" in rec.unscorable


# --------------------------------------------------------------------------- gap 2
def _among(topk: list[tuple[str, float]]) -> SceneBuilder:
    """123m456p78s, a tile read as a flower standing among them, EEEN and the winning N:
    with 9s for that tile it is a 14-tile win (9s completes 789s)."""
    b = SceneBuilder().standing("123m456p78s").standing("1f").uncertain(topk)
    return b.standing("EEEN").win("N")


def test_a_flower_among_the_standing_tiles_is_read_as_the_kind_a_claimed_win_needs() -> None:
    rec = _read(_among([("1f", 0.5), ("9s", 0.45)]), "mcr", {"claim_win": True})
    assert rec.hand is not None and scoring.format_hand(rec.hand) == "123m456p789sEEENN"
    assert rec.score is not None and rec.score.legal
    [change] = rec.to_dict()["corrections"]
    assert (change["from"], change["to"]) == ("1f", "9s")
    assert change["ratio"] == pytest.approx(0.5 / 0.45, abs=1e-3)
    assert any("standing among the standing tiles" in n for n in rec.notes)


def test_the_kind_is_found_behind_another_flower() -> None:
    rec = _read(_among([("1f", 0.5), ("2f", 0.3), ("9s", 0.2)]), "mcr", {"claim_win": True})
    assert rec.hand is not None and scoring.format_hand(rec.hand) == "123m456p789sEEENN"


def test_a_flower_among_the_standing_tiles_stays_without_a_claim() -> None:
    """13 tiles and a flower are also a waiting hand: nothing claimed, nothing forced."""
    for ctx in (None, {"claim_win": False}):
        rec = _read(_among([("1f", 0.5), ("9s", 0.45)]), "mcr", ctx)
        assert rec.hand is not None and rec.hand.flowers == ("1f",)
        assert rec.score is None and rec.to_dict()["corrections"] == []


@pytest.mark.parametrize("topk", [
    [("1f", 0.95), ("9s", 0.01)],  # 95 times less likely: past the win's 10×
    [("1f", 0.5), ("2p", 0.45)],  # its kind makes no win
    [("1f", 0.9), ("2f", 0.1)],  # no kind among its readings
])
def test_a_flower_among_the_standing_tiles_stays_when_its_kind_does_not_win(
        topk: list[tuple[str, float]]) -> None:
    rec = _read(_among(topk), "mcr", {"claim_win": True})
    assert rec.hand is not None and rec.hand.flowers == ("1f",)
    assert rec.score is None and rec.to_dict()["corrections"] == []


def _laid_apart(where: str) -> SceneBuilder:
    """The hand of :func:`_among` with its flower (1f 0.5, 9s 0.45) laid apart."""
    b = SceneBuilder().standing("123m456p78sEEEN")
    if where == "flower group":
        b.standing("N").flowers("1f")
    elif where == "own row":
        b.win("N").row().flowers("1f")
    else:
        b.win("N").flowers("2f1f")
    return b.uncertain([("1f", 0.5), ("9s", 0.45)])


APART = ["flower group", "own row", "after the winning tile"]


@pytest.mark.parametrize("where", APART)
def test_a_flower_laid_apart_is_never_read_as_a_kind(where: str) -> None:
    rec = _read(_laid_apart(where), "mcr", {"claim_win": True})
    assert rec.hand is not None and "1f" in rec.hand.flowers
    assert rec.to_dict()["corrections"] == []


def test_the_flowers_among_the_standing_tiles_are_those_between_two() -> None:
    assert all(layout_mod.flowers_among_standing(analyze(_laid_apart(w).detections())) == []
               for w in APART)
    d = _among([("1f", 0.5), ("9s", 0.45)]).detections()
    assert layout_mod.flowers_among_standing(analyze(d)) == [d.codes.index("1f")]
    # between a meld and a standing tile: laid beyond the melds, not among the standing
    b = SceneBuilder().standing("123m456p78s").meld("EEE", sideways=1).flowers("1f")
    d = b.standing("NN").detections()
    assert layout_mod.flowers_among_standing(analyze(d)) == []


def test_a_real_flower_among_the_standing_tiles_of_a_whole_hand_stays() -> None:
    """14 tiles and a flower among them: the count needs no tile, the flower stays."""
    b = SceneBuilder().standing("123m456p789s").standing("1f")
    b.uncertain([("1f", 0.5), ("9s", 0.45)])
    rec = _read(b.standing("EEEN").win("N"), "mcr", {"claim_win": True})
    assert rec.hand is not None and rec.hand.flowers == ("1f",)
    assert rec.score is not None and rec.score.legal


def test_xiamen_four_golds_waiting_beside_a_stand_in_chow_keep_an_unsure_gold() -> None:
    """Xiamen (seed 000, RULES.md): a chow 4m 白板 6m with gold 5m is a set; the hand
    ``5m1p5m2p5m3p5m456pEE1s`` + ``[4mP6m]`` is ready (听), so with nothing claimed an
    unsure gold read 5m 0.6 / 6m 0.35 is not re-read 6m to make it ready (the correction's
    ready check once dropped the stand-ins and counted five 5m)."""
    from vision.layout_scene import SceneBuilder
    from vision.recognize import recognize_detections

    b = SceneBuilder().standing("5m1p5m2p5m3p").standing("5m")
    b.uncertain([("5m", 0.6), ("6m", 0.35)])
    b.standing("456pEE1s").meld("4mP6m", sideways=0)
    rec = recognize_detections(b.detections(), "xiamen", {"gold": "5m"}).to_dict()
    assert rec["corrections"] == []
    assert rec["hand"] is not None and rec["hand"].count("5m") >= 4
    assert rec.get("waits") and rec["waits"]["waits"]
