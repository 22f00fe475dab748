"""Xiamen (厦门): a meld's tile of the gold's kind is a 白板 standing in, and the copies are
counted as the tiles are (RULES.md, Xiamen: "白板 stands in for the gold's own face (can
chow/pung/kong as it)"; "A discarded gold cannot be claimed": golds are never melded).

Gold 5m: ``[555m,1]`` is three 白板 (P), so the hand may still hold all four golds 5m, and
at most one more P (four 白板 in all). Before the seventy-fourth session the copy count
took the meld's codes as written: a ready hand with such a meld and a gold raised "5 copies
of 5m" from its waits (the trial win on the gold), its discards and its win on a gold, and
a hand holding two golds beside such a pung could not be given at all. Zhenjiang's 百搭
melded is its own face (seed 001; RULES.md): there the codes as written are the tiles.
Hands in notation; each test names the rule it checks."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

import scoring
from scoring import HandError
from tilecam.app import create_app
from tilecam.cli import main
from tilecam.settings import Settings

GOLD = {"rules": "xiamen", "gold": "5m"}
#: Ready: 123m 4m+金 789m 78p EE beside the pung of 白板 (one gold: self-draw only).
READY = "[555m,1]123m456m789m78pEE"
#: READY having drawn 9p: a win self-drawn, and a hand to discard from.
DREW = READY + "9p"
#: READY won on a gold drawn: five 5m written, two golds and three 白板 held.
WON_ON_GOLD = READY + "5m"
#: All four golds beside the pung of 白板, and the fourth 白板 standing.
FOUR_GOLDS = "[555m,1]5555m123p456pPEEE"


def xm(hand: str, **kw: Any) -> scoring.Score:
    return scoring.score(hand, **{**GOLD, **kw})


def fan_counts(s: scoring.Score) -> dict[str, int]:
    return {f.zh: f.count for f in s.fans}


# --- what a hand may hold ------------------------------------------------------------


def test_a_pung_of_the_golds_kind_is_three_white_dragons_beside_four_golds() -> None:
    """Rule: golds are never melded, so [555m,1] under gold 5m is three 白板; the four 5m
    (golds) may all stand beside it."""
    s = xm(FOUR_GOLDS, self_drawn=True)
    assert s.legal and fan_counts(s)["金"] == 4 and s.total == 32


def test_a_chow_through_the_golds_face_holds_a_white_dragon_beside_four_golds() -> None:
    """Rule: 白板 chows as the gold's face: [456m,1]'s 5m is a 白板, four golds stand."""
    s = xm("[456m,1]5555m123p456p78pEE", self_drawn=True)
    assert s.legal and fan_counts(s)["金"] == 4


@pytest.mark.parametrize("hand", [
    "[555m,1]PP123p456p789pEES",     # 3 白板 in the pung + 2 P standing
    "[5555m,1]P123p456p789pEEE",     # 4 白板 in the kong + 1 P standing
    "[555m,1][PPP,2]123p456p789pE",  # one pung of 5m written, one of P: 6 白板
])
def test_a_fifth_white_dragon_counting_the_stand_ins_is_refused(hand: str) -> None:
    """Rule: 4 of each tile; a meld's 5m is a 白板, so it counts toward the 4 P."""
    with pytest.raises(HandError, match=r"copies of P \(白板\): there are only 4"):
        xm(hand, self_drawn=True)


def test_a_fifth_gold_is_refused() -> None:
    """Rule: 4 of each tile; the standing 5m are golds, the meld's are not."""
    with pytest.raises(HandError, match="5 copies of 5m"):
        xm("[555m,1]55555m123p456pEEE", self_drawn=True)


def test_other_rules_count_the_meld_as_written() -> None:
    """MCR has no stand-ins; a Zhenjiang 百搭 melded is its own face (seed 001): five 5m."""
    with pytest.raises(HandError, match="5 copies of 5m"):
        scoring.score("[555m,1]55m123p456p789pEE", rules="mcr", self_drawn=True)
    with pytest.raises(HandError, match="5 copies of 5m"):
        scoring.score("[555m,1]55m123p456p99s9s", rules="zhenjiang", wild="5m",
                      self_drawn=True)
    assert scoring.stand_ins("zhenjiang", wild="5m") == scoring.stand_ins("mcr") == ()


def test_stand_ins_read_a_hand_given_as_notation_or_as_a_hand() -> None:
    """Rule: the gold (given as gold, or as the indicator, whose kind it is) decides which
    meld tiles are 白板; a hand parsed with it, or parsed as written, scores alike."""
    melded_as = scoring.stand_ins("xiamen", indicator="5m")
    assert melded_as == scoring.stand_ins("xiamen", gold="5m") == (("5m", "P"),)
    assert scoring.stand_ins("xiamen", gold="P") == scoring.stand_ins("xiamen") == ()
    with pytest.raises(HandError, match="7 copies of 5m"):
        scoring.parse_hand(FOUR_GOLDS)  # as written: MCR's reading
    hand = scoring.parse_hand(FOUR_GOLDS, melded_as=melded_as)
    assert xm(hand, self_drawn=True).total == xm(FOUR_GOLDS, self_drawn=True).total
    # a hand read as written, within the copies: Xiamen reads its meld itself
    assert scoring.waits(scoring.parse_hand(READY), **GOLD).ready
    # a hand read with Xiamen's stand-ins is read again under other rules
    with pytest.raises(HandError, match="7 copies of 5m"):
        scoring.score(hand, rules="mcr", self_drawn=True)


# --- waits, what to discard, the win on a gold -----------------------------------------


def test_waits_of_a_ready_hand_with_a_pung_of_the_golds_kind() -> None:
    """Rule: a trial win on a gold adds a copy of 5m, not of the meld's 白板: 5m is a
    wait with 3 left (one gold held), P with 1 (three in the meld); holding a gold, each
    wins self-drawn only."""
    w = scoring.waits(READY, **GOLD)
    assert w.ready and w.live
    left = {t.tile: t.remaining for t in w.waits}
    assert left == {"5m": 3, "6p": 4, "9p": 4, "P": 1}
    assert all(t.discard is None and t.self_drawn is not None for t in w.waits)


def test_waits_count_tiles_seen_against_the_white_dragons_of_the_meld() -> None:
    """Rule: 4 of each tile: the pung holds three 白板, so one P seen leaves none, two
    cannot be."""
    w = scoring.waits(READY, seen="P", **GOLD)
    assert {t.tile: t.remaining for t in w.waits}["P"] == 0
    with pytest.raises(HandError, match="P seen 2 times, but the hand holds 3"):
        scoring.waits(READY, seen="PP", **GOLD)


def test_waits_beside_four_golds_list_neither_the_gold_nor_the_white_dragon() -> None:
    """Rule: all four golds and all four 白板 (three in the pung) are held: no copy of
    either is left to draw."""
    w = scoring.waits("[555m,1]5555m123p456pPEE", **GOLD)
    assert w.ready and {"5m", "P"}.isdisjoint(t.tile for t in w.waits)


def test_what_to_discard_from_a_hand_with_a_pung_of_the_golds_kind() -> None:
    """Rule: as the waits: the hand that drew is a win self-drawn (holding a gold), and
    each discard's waits count the meld's 5m as 白板."""
    d = scoring.discards(DREW, **GOLD)
    assert d.win is not None and d.win_self_drawn is not None and d.win_self_drawn.legal
    assert d.win_on_discard is not None and not d.win_on_discard.legal
    first = d.discards[0]
    assert first.waits.ready
    assert {t.tile: t.remaining for t in first.waits.waits}["5m"] == 3


def test_a_win_on_a_gold_beside_a_pung_of_the_golds_kind() -> None:
    """Rule: the fifth 5m written is the second gold (the meld's three are 白板)."""
    s = xm(WON_ON_GOLD, self_drawn=True)
    assert s.legal and fan_counts(s)["金"] == 2 and s.total == 20


def test_a_zhenjiang_wild_melded_is_its_own_face_in_waits_and_discards() -> None:
    """Rule (Zhenjiang, seed 001): a 百搭 in a meld is its own face: [555m,1] and the 5m
    standing are all four 5m, so 5m is no wait, and what to discard answers."""
    w = scoring.waits("[555m,1]5m123p456p789p", rules="zhenjiang", wild="5m")
    assert w.ready and "5m" not in {t.tile for t in w.waits}
    d = scoring.discards("[555m,1]5m123p456p789pE", rules="zhenjiang", wild="5m")
    assert d.shanten == 0


# --- tilecam waits / score and the API -------------------------------------------------


def test_cli_waits_and_score_read_the_meld_as_the_rules_do(
        capsys: pytest.CaptureFixture[str]) -> None:
    """Rule: as above, through ``tilecam waits`` (a hand of either size) and ``tilecam
    score``; a dead 5m wait is told "the others are held or seen", the meld's 5m being
    白板, not "the hand holds all four"."""
    ctx = ["--rules", "xiamen", "--context", "gold=5m"]
    assert main(["waits", READY, *ctx]) == 0
    assert "5m 五万  3 left" in capsys.readouterr().out
    assert main(["waits", "[555m,1]5555m123p456pPEE", *ctx, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["ready"] is True
    assert main(["waits", DREW, *ctx, "--seen", "5m5m5m"]) == 0
    out = capsys.readouterr().out
    assert "5m 五万 (0 left: the others are held or seen)" in out
    assert "holds all four" not in out
    assert main(["score", WON_ON_GOLD, *ctx, "--self-drawn", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["total"] == 20
    assert main(["score", FOUR_GOLDS, *ctx, "--self-drawn", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["total"] == 32


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with TestClient(create_app(Settings(load_model=False)), raise_server_exceptions=False) as c:
        yield c


def test_api_score_and_waits_read_the_meld_as_the_rules_do(client: TestClient) -> None:
    """Rule: as above, through ``POST /v1/score`` (notation or structured tiles) and
    ``POST /v1/waits`` (a hand of either size); a fifth 白板 is a 400 naming it."""
    ctx = {"rules": "xiamen", "rule_context": {"gold": "5m"}}
    r = client.post("/v1/score", json={"hand": FOUR_GOLDS, "self_drawn": True, **ctx})
    assert r.status_code == 200 and r.json()["total"] == 32
    tiles = {"melds": [{"kind": "pung", "tiles": ["5m"] * 3, "claimed_from": 1}],
             "standing": ["5m"] * 4 + ["1p", "2p", "3p", "4p", "5p", "6p", "P", "E", "E"],
             "winning_tile": "E"}
    r = client.post("/v1/score", json={**tiles, "self_drawn": True, **ctx})
    assert r.status_code == 200 and r.json()["total"] == 32
    r = client.post("/v1/waits", json={"hand": READY, **ctx})
    assert r.status_code == 200 and r.json()["ready"] is True
    r = client.post("/v1/waits", json={"hand": DREW, **ctx})
    assert r.status_code == 200 and r.json()["win_total"] == 18
    r = client.post("/v1/score", json={"hand": "[555m,1]PP123p456p789pEES",
                                       "self_drawn": True, **ctx})
    assert r.status_code == 400 and "5 copies of P (白板)" in r.json()["error"]["message"]


def test_a_gold_kind_meld_without_the_gold_is_told_the_gold_is_missing() -> None:
    """Rule: whether [555m,1] beside four 5m is too many copies depends on the gold (its
    meld tiles are 白板 when 5m is the gold), so a Xiamen hand given no gold is told
    that, not "7 copies of 5m" (the seventy-fourth session's diff review)."""
    with pytest.raises(scoring.HandError, match="needs the gold"):
        scoring.waits("[555m,1]5555m123p456pPEE", rules="xiamen")
    with pytest.raises(scoring.HandError, match="copies of 5m"):  # MCR: too many, as written
        scoring.waits("[555m,1]5555m123p456pPE")


def test_tilecam_waits_tells_the_missing_gold_first(capsys: pytest.CaptureFixture[str]) -> None:
    """Rule: as the library, ``tilecam waits`` says the gold is missing."""
    assert main(["waits", "[555m,1]5555m123p456pPEE", "--rules", "xiamen"]) == 2
    assert "needs the gold" in capsys.readouterr().err
