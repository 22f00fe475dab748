"""Xiamen with 白板 as the gold (session 79, review goldP): no 白板 in a meld.

Rule (RULES.md, Xiamen: "白板 stands in for the gold's own face (can chow/pung/kong as
it)", "A discarded gold cannot be claimed"; seed 000 "金打出后其它玩家不能吃、碰、杠该金牌";
docs/regional-rules.md "Golds are never melded"): when the indicator makes 白板 (P) the
gold, every P is a gold and nothing stands in for it, so a meld showing a P is a gold
melded. ``scoring.stand_ins`` is then empty, so before this session the correction had no
idea of the gold: a claimed pung read P P P was "not a winning hand" with no reason named
(only the waits' note said it), and a meld filler could mend P P ? into such a pung. Now
the reading names it as it names gold 5m's 5m 5m 5m (session 78), in the scorer's words
for a posted hand ("白板 is the gold here, and golds are never melded").

Hands: 123p456p789pEE12s + a meld, won on 3s (17 tiles, self-drawn), gold P.
"""

from __future__ import annotations

from typing import Any

import pytest
from test_gold_melds78 import STANDING, _changes, _hand, _unsure
from test_gold_melds78 import _correct as _correct78
from test_gold_melds78 import _read as _read78

import scoring
from vision.correct import CorrectionResult, winning_shape_check
from vision.layout_scene import SceneBuilder
from vision.recognize import Recognition

GOLD_P: dict[str, Any] = {"gold": "P", "self_drawn": True}
WHY = "(白板 is the gold here, and golds are never melded)"
GOLD_IN_PUNG = f"meld PPP holds 3 tiles read as the gold P {WHY}"


def _correct(b: SceneBuilder, rules: str = "xiamen", ctx: dict[str, Any] = GOLD_P,
             size: int = 17) -> CorrectionResult:
    return _correct78(b, rules, ctx, size)


def _read(b: SceneBuilder, ctx: dict[str, Any] = GOLD_P) -> Recognition:
    return _read78(b, "xiamen", ctx)




def test_the_shape_check_knows_the_gold_when_white_dragon_is_the_gold() -> None:
    """Golds are never melded: with gold P no stand-in says so (``stand_ins`` is empty),
    so the shape check carries the faces no meld shows itself; gold 5m keeps its 5m."""
    gold_p = winning_shape_check("xiamen", GOLD_P)
    assert getattr(gold_p, "stand_ins", None) == ()
    assert getattr(gold_p, "unmelded", None) == frozenset({"P"})
    gold_5m = winning_shape_check("xiamen", {"gold": "5m"})
    assert getattr(gold_5m, "unmelded", None) == frozenset({"5m"})
    assert getattr(winning_shape_check("zhenjiang", {"indicator": "F"}), "unmelded",
                   None) == frozenset()


@pytest.mark.parametrize("ctx", [GOLD_P, {"indicator": "P", "self_drawn": True}])
def test_a_pung_of_white_dragons_is_a_gold_melded_when_white_dragon_is_the_gold(
        ctx: dict[str, Any]) -> None:
    """Golds are never melded: a sure claimed pung P P P under gold P (given as the gold or
    as the indicator) is three golds melded. The top-1 reading names it and is no legal
    reading (before: physically legal, only "not a winning hand", no reason)."""
    b = _hand("PPP").win("3s")
    res = _correct(b, ctx=ctx)
    assert res.problems == (GOLD_IN_PUNG,)
    assert not res.best.legal and not res.best.winning and _changes(res) == []
    rec = _read(b, ctx)
    assert rec.score is None and "top-1 reading: " + GOLD_IN_PUNG in rec.notes


def test_a_kong_of_white_dragons_is_a_gold_melded_when_white_dragon_is_the_gold() -> None:
    """Golds are never melded: a claimed kong P P P P under gold P is named (4 golds)."""
    res = _correct(_hand("PPPP").win("3s"))
    assert res.problems == (f"meld PPPP holds 4 tiles read as the gold P {WHY}",)
    assert not res.best.legal


def test_a_concealed_kong_of_white_dragons_is_a_gold_melded() -> None:
    """Golds are never melded, a concealed kong included: one showing P P between its
    face-down ends under gold P is named and not scored."""
    b = SceneBuilder().standing(STANDING).concealed_kong("P").win("3s")
    res = _correct(b)
    assert res.problems == (f"concealed kong PP holds 2 tiles read as the gold P {WHY}",)
    assert not res.best.legal and _read(b).score is None


def test_an_unsure_pung_of_white_dragons_takes_its_other_reading_naming_why() -> None:
    """Golds are never melded: a pung whose tiles each read P 0.55 / F 0.44 under gold P is
    read FFF, each change named, and the top-1 reading's problem is the gold melded
    (before: the same reading, its reason only "not a winning hand")."""
    b = _unsure(_hand("PPP"), (1, 2, 3), [("P", 0.55), ("F", 0.44)]).win("3s")
    res = _correct(b)
    assert res.problems == (GOLD_IN_PUNG,)
    assert _changes(res) == [("P", "F")] * 3 and res.best.legal and res.best.winning
    rec = _read(b)
    assert rec.hand_text == "[FFF,1]123456789pEE12s3s"
    assert rec.score is not None and rec.score.legal


def test_a_meld_is_never_filled_with_the_white_dragon_when_it_is_the_gold() -> None:
    """Golds are never melded: a meld P P 7m (7m 0.6 / 9m 0.3) is not a set, and its
    filler P would make three golds melded. Before, 7m → P was taken (a pung of golds,
    physically legal); now no reading in reach is possible and the top-1 is kept."""
    b = _hand("PP7m").uncertain([("7m", 0.6), ("9m", 0.3)]).win("3s")
    res = _correct(b)
    assert _changes(res) == [] and not res.best.legal


def test_the_reading_and_the_scorer_give_one_reason() -> None:
    """Golds are never melded: the reader's problem for a pung P P P under gold P gives
    the reason the scorer gives for the posted hand ``[PPP,1]…`` (its refusal)."""
    with pytest.raises(scoring.HandError) as err:
        scoring.score("[PPP,1]123p456p789pEE12s3s", rules="xiamen", **GOLD_P)
    reason = str(err.value).removeprefix("meld PPP: ")
    (problem,) = _correct(_hand("PPP").win("3s")).problems
    assert problem.endswith(f"({reason})")


@pytest.mark.parametrize(("meld", "rules", "ctx", "size", "standing", "win"), [
    ("5m5m5m", "xiamen", GOLD_P, 17, STANDING, "3s"),  # a 5m is no gold under gold P
    ("PPP", "xiamen", {"gold": "5m", "self_drawn": True}, 17, STANDING, "3s"),  # stand-ins
    ("PPP", "mcr", {"self_drawn": True}, 14, "123p456p789p1s", "1s"),
    ("PPP", "zhenjiang", {"indicator": "F", "self_drawn": True}, 14, "123p456p789p1s", "1s"),
])
def test_melds_without_a_gold_face_are_read_as_before(
        meld: str, rules: str, ctx: dict[str, Any], size: int, standing: str,
        win: str) -> None:
    """Guard (passes before and after): a pung holding no gold's face is a legal set — gold
    P's 555m, gold 5m's 白板 standing in, MCR's PPP and Zhenjiang's (百搭 P, melded as its
    own face: seed 001) — no problem and no change."""
    b = SceneBuilder().standing(standing).meld(meld, sideways=0).win(win)
    res = _correct(b, rules, ctx, size)
    assert res.problems == () and _changes(res) == [] and res.best.legal and res.best.winning
