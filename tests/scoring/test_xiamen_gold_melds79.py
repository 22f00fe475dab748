"""Xiamen: a posted hand with a gold melded (session 79, review goldP).

Rule (RULES.md, Xiamen: "白板 stands in for the gold's own face (can chow/pung/kong as
it)", "A discarded gold cannot be claimed"; seed 000 "白板可以代替金牌参与吃碰杠",
"金打出后其它玩家不能吃、碰、杠该金牌"): golds are never melded.

- Gold P: 白板 is the gold, nothing stands in for it, so a meld of P (claimed pung or kong,
  concealed kong) is a gold melded: the scorer refuses it naming why, in every answer.
- Gold 5m: a meld's 5m is written for the 白板 standing in (docs/regional-rules.md, the
  seventy-fourth session; the reader of photos writes a chow's 白板 so, ``[456m,1]``), so
  ``[555m,1]`` and ``[5555m]`` are 白板, never golds: no refusal there.
- ``Xiamen.unmelded_faces``: the faces no meld shows (the gold's), which a reader of photos
  checks a meld's faces against (``stand_ins`` is empty with gold P).
Hands in notation; each test names the rule it checks.
"""

from __future__ import annotations

from typing import Any

import pytest

import scoring
from scoring.rulesets.xiamen import Xiamen

WHY = "白板 is the gold here, and golds are never melded"
#: Five sets and the pair EE beside a meld, won on 3s (17 tiles).
STANDING = "123p456p789pEE12s3s"


@pytest.mark.parametrize("ctx", [{"gold": "P"}, {"indicator": "P"}])
def test_the_faces_no_meld_shows_are_the_golds_white_dragon_included(
        ctx: dict[str, Any]) -> None:
    """Golds are never melded: with 白板 the gold there is no stand-in (``stand_ins``
    empty), yet its face is one no meld shows; gold 5m: the 5m face; no gold, none."""
    x = Xiamen()
    assert x.stand_ins(ctx) == () and x.unmelded_faces(ctx) == frozenset({"P"})
    assert x.unmelded_faces({"gold": "5m"}) == frozenset({"5m"})
    assert x.unmelded_faces({}) == frozenset()


@pytest.mark.parametrize(("meld", "shown"), [
    ("[PPP,1]", "PPP"), ("[PPPP,2]", "PPPP"), ("[PPPP]", "PPPP"), ("[PPPP,5]", "PPPP")])
def test_a_meld_of_the_gold_is_refused_when_white_dragon_is_the_gold(
        meld: str, shown: str) -> None:
    """Guard (passes before and after): golds are never melded; with 白板 the gold a P in
    a pung, melded, concealed or added kong is a gold melded: a HandError naming the
    meld, for the score, the waits and what to discard alike."""
    msg = f"meld {shown}: {WHY}"
    with pytest.raises(scoring.HandError, match=msg):
        scoring.score(meld + STANDING, rules="xiamen", gold="P", self_drawn=True)
    with pytest.raises(scoring.HandError, match=msg):
        scoring.waits(meld + STANDING[:-2], rules="xiamen", indicator="P")
    with pytest.raises(scoring.HandError, match=msg):
        scoring.discards(meld + STANDING, rules="xiamen", gold="P")


@pytest.mark.parametrize(("hand", "total"), [
    ("[555m,1]" + STANDING, 16),  # three 白板 standing in
    ("[PPP,1]" + STANDING, 16),   # the same pung written with 白板's own code
    ("[5555m]" + STANDING, 22),   # a concealed kong of 白板: 水 3
])
def test_a_meld_of_the_golds_kind_is_white_dragons_standing_in(hand: str, total: int) -> None:
    """Guard (passes before and after): golds are never melded, and 白板 melds as the gold's
    face, so under gold 5m the notation's meld 5m are 白板 (not golds): a legal win,
    holding no gold (底 8 × 2 self-drawn, the kong's 水 3 added)."""
    s = scoring.score(hand, rules="xiamen", gold="5m", self_drawn=True)
    assert s.legal and s.total == total
    assert "金" not in {f.zh for f in s.fans}
