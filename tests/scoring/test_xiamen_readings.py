"""Xiamen (厦门) explanations name the tiles the hand holds: a gold as ``金(face)``, a 白板
(``P``) playing as the gold's face as ``P`` in its place, a meld as written (seventy-third
session; before, a 白板 was written as the gold's code and 三金倒's golds as bare codes)."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest

import scoring
from scoring import tiles as T


def xm(hand: str, **kw: Any) -> scoring.Score:
    return scoring.score(hand, rules="xiamen", **kw)


def sets_of(s: scoring.Score, zh: str) -> tuple[tuple[str, ...], ...]:
    return next(f.sets for f in s.fans if f.zh == zh)


def text_tiles(text: str) -> tuple[list[str], list[str]]:
    """The tiles a reading's set text names: (plain codes, faces of the golds)."""
    plain: list[str] = []
    golds: list[str] = []
    for part in text.split("+"):
        if part.startswith("金("):
            golds.append(part[2:-1])
            continue
        digits = ""
        for ch in part:
            if ch.isdigit():
                digits += ch
            elif ch in "mps":
                plain += [d + ch for d in digits]
                digits = ""
            else:
                plain.append(ch)
    return plain, golds


def test_white_dragon_pung_with_an_honour_gold_is_written_ppp_not_the_gold_code() -> None:
    # gold E: the three P play as E (a concealed honour pung, 2 水); the hand holds no E
    s = xm("123m456m789m123pPPP55s", gold="E", self_drawn=True)
    assert s.total == (8 + 2) * 2
    assert sets_of(s, "暗刻(字)") == (("PPP",),)
    assert s.details["reading_text"] == ["55s", "PPP", "123m", "456m", "789m", "123p"]
    # the machine reading gives the faces played
    assert s.details["reading"][1] == {"shape": "pung", "tiles": ["E", "E", "E"], "wild": []}


def test_white_dragon_in_a_chow_is_written_in_the_place_of_the_gold_face() -> None:
    # gold 5m: the only 5m is the gold (the pair 7s+金(7s)); P plays 5m in 4mP6m
    s = xm("4mP6m123p456p789pEEE5m7s", gold="5m", self_drawn=True)
    assert sets_of(s, "金") == (("7s+金(7s)",),)
    assert s.details["reading_text"] == ["7s+金(7s)", "EEE", "4mP6m", "123p", "456p", "789p"]


def test_you_jin_on_a_drawn_white_dragon_pairs_p_with_the_gold() -> None:
    # 游金: the pair is the drawn P (playing 5m) and the gold 5m
    s = xm("123p456p789p123sEEE5mP", gold="5m", win="游金")
    assert sets_of(s, "金") == (("P+金(5m)",),)
    assert s.details["reading_text"][0] == "P+金(5m)"


@pytest.mark.parametrize(("hand", "gold", "item", "shown"), [
    ("[PPP,1]123m456m789m123p55s", "C", "碰(字)", "PPP"),      # plays CCC
    ("[PPPP,2]123m678m789m123p55s", "5m", "明杠", "PPPP"),     # plays 5555m
    ("[PPPP]123m678m789m123p55s", "5m", "暗杠", "PPPP"),
    ("[5555m,1]123m678m789m123p55s", "5m", "明杠", "5555m"),   # 白板 written as the face
])
def test_melded_white_dragons_are_shown_as_the_meld_was_written(
        hand: str, gold: str, item: str, shown: str) -> None:
    s = xm(hand, gold=gold, self_drawn=True)
    assert s.legal, s.details
    assert sets_of(s, item) == ((shown,),)


def test_melded_white_pung_keeps_its_water_as_the_gold_face() -> None:
    # a 白板 pung plays as the gold's face: an honour pung (碰(字), 1 水) with gold C,
    # a number pung (no 水) with gold 5m; the text does not change what it is worth
    honour = xm("[PPP,1]123m678m789m123p55s", gold="C", self_drawn=True)
    number = xm("[PPP,1]123m678m789m123p55s", gold="5m", self_drawn=True)
    assert (honour.details["unit"], number.details["unit"]) == (9, 8)


def test_waits_and_score_write_a_white_dragon_the_same_way() -> None:
    # gold 5m: the waits list P apart from the gold 5m, and the P wait's score names PPP
    w = scoring.waits("123p456p789p123sPP7s7s", rules="xiamen", gold="5m")
    by_tile = {t.tile: t for t in w.waits}
    assert sorted(by_tile) == ["5m", "7s", "P"]
    won = by_tile["P"].self_drawn
    assert won is not None and sets_of(won, "暗刻") == (("PPP",),)
    assert sets_of(won, "暗刻") == sets_of(
        xm("123p456p789p123sPP7s7sP", gold="5m", self_drawn=True), "暗刻")


@pytest.mark.parametrize(("hand", "kw"), [
    ("123m456m789m123pPPP55s", {"gold": "E", "self_drawn": True}),
    ("4mP6m123p456p789pEEE5m7s", {"gold": "5m", "self_drawn": True}),
    ("123p456p789p123sEEE5mP", {"gold": "5m", "win": "游金"}),
    ("PP5m123p456p789pEEE12s", {"gold": "5m", "self_drawn": True}),
    ("123p456p789pEEEPPP5m5m", {"gold": "5m", "win": "双游"}),
    ("PPP5m5m123p456p789p11sE", {"gold": "5m", "win": "三游"}),
    ("123m456m789m123pPP5m5s5s", {"gold": "P", "self_drawn": True}),  # 白板 is the gold
])
def test_reading_text_names_exactly_the_standing_tiles(hand: str, kw: dict[str, Any]) -> None:
    s = xm(hand, **kw)
    assert s.legal, s.details
    gold = kw["gold"]
    plain: Counter[str] = Counter()
    golds = 0
    for text in s.details["reading_text"]:
        p, g = text_tiles(text)
        plain.update(p)
        golds += len(g)
        assert gold not in p  # a tile of the gold's kind standing is a gold, 金(…)
    standing = Counter(T.code(T.index(t)) for t in scoring.parse_hand(hand).standing)
    assert golds == standing.pop(gold, 0)
    assert plain == standing


def test_three_golds_writes_each_gold_as_jin_face() -> None:
    # 三金倒 has no reading: each gold is shown alone, 金(5m), as a lone 三游 gold is
    s = xm("5m5m5m123p456p789pEEESS", gold="5m", win="三金倒", dealer=True)
    assert s.details["win"] == "three_golds_later"
    assert s.total == (16 + 3) * 3
    assert sets_of(s, "金") == (("金(5m)",),) * 3
    opening = xm("5m5m5m123p456p789pEEES", gold="5m", win="三金倒", opening=True)
    assert sets_of(opening, "金") == (("金(5m)",),) * 3


def test_score_cli_text_and_json_write_the_white_dragon_as_p(
        capsys: pytest.CaptureFixture[str]) -> None:
    from tilecam.cli import main

    args = ["score", "--rules", "xiamen", "--context", "gold=E", "--self-drawn",
            "123m456m789m123pPPP55s"]
    assert main(args) == 0
    text = capsys.readouterr().out
    assert "PPP" in text and "EEE" not in text
    assert main([*args, "--json"]) == 0
    body = json.loads(capsys.readouterr().out)
    assert [f["sets"] for f in body["fans"] if f["zh"] == "暗刻(字)"] == [[["PPP"]]]
