"""Xiamen golds are never melded (session 78, review goldmeld): the correction's readings.

Rule (RULES.md, Xiamen; seed 000 "白板可以代替金牌参与吃碰杠"; docs/regional-rules.md "Golds
are never melded"): the gold's copies are wild and are never claimed or melded; 白板 (P)
stands in for the gold's own face in a chow, pung or kong, and the notation writes that
stand-in with the gold's code (gold 5m: ``[555m,1]`` is three 白板). So a meld tile the
detector read as the gold's own face is a gold, and a meld holding one is no legal
reading: before, gold 5m, a claimed pung read 5m 5m 5m was a legal win scored as three
白板 (the gold faces seen were lost silently), and a meld 5m 5m 7m was mended 7m → 5m into
such a pung. Now the top-1 reading names the problem and the correction re-reads such a
tile within its top-k (as the 白板 standing in, or another kind), naming the change.

Hands: 123p456p789pEE12s + a meld, won on 3s (17 tiles, self-drawn), gold 5m.
"""

from __future__ import annotations

from typing import Any

import pytest

from vision.correct import CorrectionResult, correct, winning_shape_check
from vision.layout import analyze
from vision.layout_scene import SceneBuilder
from vision.recognize import Recognition, recognize_detections

GOLD: dict[str, Any] = {"gold": "5m", "self_drawn": True}
STANDING = "123p456p789pEE12s"  # with a meld and 3s: five sets and the pair EE
GOLD_IN_PUNG = ("meld 5m5m5m holds 3 tiles read as the gold 5m (golds are never melded; "
                "a 白板 stands in for it)")
GOLD_IN_CHOW = ("meld 4m5m6m holds a tile read as the gold 5m (golds are never melded; "
                "a 白板 stands in for it)")


def _hand(meld: str) -> SceneBuilder:
    return SceneBuilder().standing(STANDING).meld(meld, sideways=0)


def _unsure(b: SceneBuilder, positions: tuple[int, ...],
            readings: list[tuple[str, float]]) -> SceneBuilder:
    """``b`` with the tiles ``positions`` back from the last placed read ``readings``."""
    for k in positions:
        b._cur[-k].topk = list(readings)
        b._cur[-k].code = readings[0][0]
    return b


def _correct(b: SceneBuilder, rules: str = "xiamen", ctx: dict[str, Any] = GOLD,
             size: int = 17) -> CorrectionResult:
    d = b.detections()
    return correct(d, analyze(d), rules=rules, hand_size=size,
                   is_winning=winning_shape_check(rules, ctx))


def _read(b: SceneBuilder, rules: str = "xiamen", ctx: dict[str, Any] = GOLD) -> Recognition:
    return recognize_detections(b.detections(), rules, ctx)


def _changes(res: CorrectionResult) -> list[tuple[str, str]]:
    return [(c.before, c.after) for c in res.best.changes]


def test_a_pung_read_as_the_golds_own_face_is_no_legal_reading() -> None:
    """Golds are never melded: a claimed pung read 5m 5m 5m (sure) under gold 5m is three
    golds melded. The top-1 reading names it, nothing in reach mends it, and the hand is
    not scored as a win (it was: a legal win of three 白板, 16 chips)."""
    b = _hand("5m5m5m").win("3s")
    res = _correct(b)
    assert res.problems == (GOLD_IN_PUNG,)
    assert not res.best.legal and not res.best.winning and _changes(res) == []
    rec = _read(b)
    assert rec.score is None and "top-1 reading: " + GOLD_IN_PUNG in rec.notes


def test_a_golds_face_in_a_chow_is_reread_as_the_white_dragon_standing_in() -> None:
    """白板 stands in for the gold's face in a chow: 4m ? 6m whose middle tile reads 5m 0.55
    / P 0.44 is the 白板, the change named 5m → P (before: kept as a melded gold, no
    change). The notation writes the stand-in with the gold's code, ``[456m,1]``."""
    b = _unsure(_hand("4m5m6m"), (2,), [("5m", 0.55), ("P", 0.44)]).win("3s")
    res = _correct(b)
    assert res.problems == (GOLD_IN_CHOW,)
    assert _changes(res) == [("5m", "P")] and res.best.legal and res.best.winning
    rec = _read(b)
    assert rec.hand_text == "[456m,1]123456789pEE12s3s"
    assert rec.score is not None and rec.score.legal


@pytest.mark.parametrize(("second", "text"), [("P", "[PPP,1]"), ("6m", "[666m,1]")])
def test_a_pung_of_gold_faces_takes_the_reading_its_top_k_allows(second: str,
                                                                 text: str) -> None:
    """Golds are never melded: a pung whose tiles each read 5m 0.55 / ``second`` 0.44 is
    read as the 白板 standing in (PPP) or as 666m, each tile's change named (before: 555m
    kept, three golds melded)."""
    b = _unsure(_hand("5m5m5m"), (1, 2, 3), [("5m", 0.55), (second, 0.44)]).win("3s")
    res = _correct(b)
    assert res.problems == (GOLD_IN_PUNG,)
    assert _changes(res) == [("5m", second)] * 3 and res.best.legal and res.best.winning
    rec = _read(b)
    assert rec.hand_text == text + "123456789pEE12s3s"
    assert rec.score is not None and rec.score.legal


def test_a_meld_is_never_filled_with_a_gold() -> None:
    """A meld 5m 5m 7m (7m 0.6 / 9m 0.3) is not a set; its mates 5m 5m are golds, so the
    filler 5m would make three golds melded. Before, 7m → 5m made a legal pung 555m
    (scored as three 白板); now no reading in reach is possible and the top-1 is kept."""
    b = _hand("5m5m7m").uncertain([("7m", 0.6), ("9m", 0.3)]).win("3s")
    res = _correct(b)
    assert res.problems == ("chow 5m5m7m is not three consecutive tiles of one suit",)
    assert _changes(res) == [] and not res.best.legal


def test_a_chow_tile_misread_as_the_gold_is_filled_with_the_white_dragon() -> None:
    """白板 stands in for the gold's face: a chow 4m 5m 6m whose 5m reads 0.6 (9s 0.3, no 白板
    among its readings) is mended through the meld filler the 白板 (5m → P), as a chow
    4m ? 6m is (before: kept as a melded gold)."""
    b = _unsure(_hand("4m5m6m"), (2,), [("5m", 0.6), ("9s", 0.3)]).win("3s")
    res = _correct(b)
    assert _changes(res) == [("5m", "P")] and res.best.legal and res.best.winning


def test_a_concealed_kong_showing_the_golds_face_is_no_legal_reading() -> None:
    """Golds are never melded, a concealed kong included: one showing 5m 5m between its
    face-down ends under gold 5m is named and not scored (it was a legal win, read as
    four 白板)."""
    b = SceneBuilder().standing(STANDING).concealed_kong("5m").win("3s")
    res = _correct(b)
    assert res.problems == ("concealed kong 5m5m holds 2 tiles read as the gold 5m (golds "
                            "are never melded; a 白板 stands in for it)",)
    assert not res.best.legal and _read(b).score is None


@pytest.mark.parametrize("meld", ["PPP", "4mP6m"])
def test_white_dragons_standing_in_are_read_as_before(meld: str) -> None:
    """Guard (passes before and after): a meld read with 白板 standing in for the gold is a
    legal set, no problem and no change."""
    res = _correct(_hand(meld).win("3s"))
    assert res.problems == () and _changes(res) == [] and res.best.legal and res.best.winning


@pytest.mark.parametrize(("rules", "ctx"), [("mcr", {"self_drawn": True}),
                                            ("zhenjiang", {"indicator": "4m",
                                                           "self_drawn": True})])
def test_rules_without_stand_ins_read_a_555m_pung_as_before(rules: str,
                                                            ctx: dict[str, Any]) -> None:
    """Guard (passes before and after): MCR has no gold, and Zhenjiang's 百搭 (5m here)
    has no stand-in, so a pung 5m 5m 5m is a legal set there."""
    b = SceneBuilder().standing("123p456p789p1s").meld("5m5m5m", sideways=0).win("1s")
    res = _correct(b, rules, ctx, 14)
    assert res.problems == () and _changes(res) == [] and res.best.legal and res.best.winning
