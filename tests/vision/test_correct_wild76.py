"""The rule-aware correction under the wild-tile rule sets (review zjadv, session 76):
Zhenjiang 百搭 and Xiamen 金 (RULES.md; docs/regional-rules.md). Each test names the rule.

F1 the win test asks the parts of the context that decide which tiles win: a 百搭 won on a
   discard (or robbed) is its own face; 游金 has a shape of its own; a discarded gold cannot
   be won on. A legal reading within ``max_win_ratio`` is taken over a 诈胡; with none, the
   winning shape by its tiles alone is still scored (the score says why it is illegal).
F2 Xiamen 三游 / a non-dealer's 三金倒 at the opening are declared on 16 tiles.
F3 Zhenjiang plays no flowers: a claimed win's tile read as a flower apart is tried as its
   kind.
F4 Xiamen golds are never melded: a gold's own face in a meld is a gold, not a 白板.
F5 ``correct()`` builds its hands with the rules' stand-ins by itself.
F6 a tile re-read, then corrected, is one change from the detector's own reading.
F7 Zhenjiang claims no chows: a meld that is no set is not called a chow.
"""

from __future__ import annotations

from typing import Any

import scoring
from vision.correct import correct, winning_shape_check
from vision.layout import analyze
from vision.layout_scene import SceneBuilder
from vision.recognize import UNMARKED_WINNING_NOTE, Recognition, recognize_detections

ZJ: dict[str, Any] = {"indicator": "1m"}  # 百搭 2m
THIRTEEN = "111p456m789m123pS"  # waits on S; on 2m (百搭) only self-drawn


def _read(b: SceneBuilder, rules: str, ctx: dict[str, Any]) -> Recognition:
    return recognize_detections(b.detections(), rules, ctx)


def _changes(rec: Recognition) -> list[tuple[str, str]]:
    return [(c["from"], c["to"]) for c in rec.to_dict()["corrections"]]


def _baida_or_s(p_wild: float) -> SceneBuilder:
    return SceneBuilder().standing(THIRTEEN).win("2m").uncertain(
        [("2m", p_wild), ("S", round(0.95 - p_wild, 2))])


# --------------------------------------------------------------------------- F1
def test_zhenjiang_baida_won_on_a_discard_is_its_own_face_so_the_legal_reading_is_taken(
) -> None:
    """RULES.md (Zhenjiang): a discarded 百搭 is its own face for the winner. The 2m read
    0.5 (S 0.45) won on a discard makes no hand; S does: S is read, not a 诈胡 — with the
    discarder named or not (a win is on a discard unless self-drawn), up to 9 times less
    probable (``max_win_ratio`` 10)."""
    assert not scoring.score(THIRTEEN + "2m", rules="zhenjiang", **ZJ).legal
    for ctx in ({**ZJ, "discarder": 1}, ZJ):
        for p_wild in (0.5, 0.85):
            rec = _read(_baida_or_s(p_wild), "zhenjiang", ctx)
            assert rec.hand_text == "111p456789m123pSS", (ctx, p_wild)
            assert _changes(rec) == [("2m", "S")]
            assert rec.score is not None and rec.score.legal and rec.score.total == 1


def test_zhenjiang_baida_self_drawn_is_wild_and_kept() -> None:
    """Self-drawn, the 2m is wild and completes the hand: kept (no change)."""
    rec = _read(_baida_or_s(0.5), "zhenjiang", {**ZJ, "self_drawn": True})
    assert rec.hand_text == "111p456789m123pS2m" and _changes(rec) == []
    assert rec.score is not None and rec.score.legal


def test_zhenjiang_a_sure_baida_won_on_a_discard_is_still_scored_as_the_false_win() -> None:
    """With no legal reading within ``max_win_ratio`` the reading of winning shape by its
    tiles alone is kept and scored, as before: the score says 诈胡."""
    rec = _read(SceneBuilder().standing(THIRTEEN).win("2m"), "zhenjiang",
                {**ZJ, "discarder": 1})
    assert rec.hand_text == "111p456789m123pS2m" and _changes(rec) == []
    assert rec.score is not None and not rec.score.legal and "诈胡" in rec.score.details["reason"]


def test_xiamen_you_jin_is_asked_as_you_jin_so_its_legal_reading_is_taken() -> None:
    """RULES.md (Xiamen 游金): the pair is a gold and the drawn tile. 8p (0.5, 7p 0.45)
    makes a plain self-drawn shape but no 游金; 7p makes 游金 (40)."""
    b = (SceneBuilder().standing("123m456p789s123s77p").standing("8p")
         .uncertain([("8p", 0.5), ("7p", 0.45)]).standing("5m").win("9p"))
    rec = _read(b, "xiamen", {"gold": "5m", "win": "游金"})
    assert _changes(rec) == [("8p", "7p")]
    assert rec.score is not None and rec.score.legal
    assert rec.score.total == scoring.score("123m456p789123s777p5m9p", rules="xiamen",
                                            gold="5m", win="游金").total


def test_xiamen_a_discarded_gold_cannot_be_won_on_so_the_legal_reading_is_taken() -> None:
    """RULES.md (Xiamen): "A discarded gold cannot be claimed or won on." The winning tile
    read as the gold 5m (0.5, 7p 0.45) on a discard is read 7p, a legal win. The winning
    tile is not a held gold (the sixty-eighth session's case, kept:
    test_recognize.test_a_gold_held_on_a_discard_win_is_kept_and_the_score_says_why_it_is_not_legal)."""
    ctx = {"gold": "5m", "discarder": 1}
    b = SceneBuilder().standing("123m456p789s123s77p99p").win("5m").uncertain(
        [("5m", 0.5), ("7p", 0.45)])
    rec = _read(b, "xiamen", ctx)
    assert _changes(rec) == [("5m", "7p")]
    assert rec.score is not None and rec.score.legal
    sure = _read(SceneBuilder().standing("123m456p789s123s77p99p").win("5m"), "xiamen", ctx)
    assert _changes(sure) == [] and sure.score is not None and not sure.score.legal
    assert "discarded gold" in sure.score.details["reason"]


def test_the_shape_check_asks_the_wins_origin() -> None:
    hand = scoring.parse_hand(THIRTEEN + "2m")
    assert not winning_shape_check("zhenjiang", {**ZJ, "discarder": 1})(hand)
    assert not winning_shape_check("zhenjiang", {**ZJ, "kong": True})(hand)  # robbed
    assert winning_shape_check("zhenjiang", {**ZJ, "self_drawn": True})(hand)


# --------------------------------------------------------------------------- F2
def test_xiamen_san_you_and_a_non_dealers_opening_three_golds_are_declared_on_16_tiles(
) -> None:
    """docs/regional-rules.md: 三游 may be written as its 16 tiles; a non-dealer's 三金倒
    at the opening is on the 16 dealt tiles. With the win type given the photo is scored
    (it gave the waits), and no "winning tile not set apart" note: the win has none."""
    for hand, ctx in (("123m456m789m234p567p9s", {"gold": "9s", "win": "三游"}),
                      ("9s9s9s1m4m7m2p5p8p3sESWNCF",
                       {"gold": "9s", "win": "三金倒", "opening": True})):
        rec = _read(SceneBuilder().standing(hand), "xiamen", ctx)
        assert rec.score is not None and rec.waits is None, hand
        assert rec.score.total == scoring.score(hand, rules="xiamen", **ctx).total
        assert not any(n.startswith(UNMARKED_WINNING_NOTE) for n in rec.notes), rec.notes


def test_xiamen_sixteen_tiles_with_no_sixteen_tile_win_named_still_wait() -> None:
    rec = _read(SceneBuilder().standing("123m456m789m234p567p9s"), "xiamen", {"gold": "9s"})
    assert rec.score is None and rec.waits is not None and rec.waits.ready


# --------------------------------------------------------------------------- F3
def test_zhenjiang_plays_no_flowers_so_a_claimed_wins_tile_read_as_a_flower_is_tried() -> None:
    """RULES.md (Zhenjiang: 136 tiles, no flowers): the winning tile set apart read 1f
    (0.6, S 0.35) is a misread tile; with the win claimed it is read S (score 1). Not
    claimed, the 13 tiles still give their waits."""
    b = SceneBuilder().standing(THIRTEEN).win("1f").uncertain([("1f", 0.6), ("S", 0.35)])
    rec = _read(b, "zhenjiang", {**ZJ, "self_drawn": True, "claim_win": True})
    assert rec.hand_text == "111p456789m123pSS" and _changes(rec) == [("1f", "S")]
    assert rec.score is not None and rec.score.total == 1
    assert not any("no reading within" in n for n in rec.notes), rec.notes
    waiting = _read(b, "zhenjiang", {**ZJ, "self_drawn": True})
    assert waiting.score is None and waiting.waits is not None and waiting.waits.ready


# --------------------------------------------------------------------------- F4
GOLDS_STANDING = "5m1p5m2p5m3p5m456pEE1s"  # the four golds 5m, waiting on 1s


def test_xiamen_golds_are_never_melded_so_a_golds_face_in_a_meld_counts_as_a_gold() -> None:
    """RULES.md / docs: golds are never melded; a 白板 stands in for the gold's face. A
    pung read 5m 5m 5m beside the four golds shows seven 5m faces: flagged."""
    b = SceneBuilder().standing(GOLDS_STANDING).meld("5m5m5m", sideways=0).win("1s")
    rec = _read(b, "xiamen", {"gold": "5m", "self_drawn": True})
    assert "top-1 reading: 7 copies of 5m (there are 4)" in rec.notes, rec.notes


def test_xiamen_a_golds_face_read_in_a_meld_gives_way_to_a_legal_reading() -> None:
    b = SceneBuilder().standing(GOLDS_STANDING).meld("6m6m6m", sideways=0)
    for k in (1, 2, 3):  # each pung tile read 5m 0.55 / 6m 0.44
        b._cur[-k].topk = [("5m", 0.55), ("6m", 0.44)]
        b._cur[-k].code = "5m"
    rec = _read(b.win("1s"), "xiamen", {"gold": "5m", "self_drawn": True})
    assert rec.hand_text == "[666m,1]5m1p5m2p5m3p5m456pEE1s1s"
    assert rec.score is not None and rec.score.legal


def test_xiamen_a_chows_missing_gold_face_is_a_white_dragon_standing_in() -> None:
    """The meld filler of a chow 4m ? 6m under gold 5m is the 白板 (P) that shows there, not
    a fifth 5m."""
    b = SceneBuilder().standing(GOLDS_STANDING).meld("4m9s6m", sideways=0)
    b._cur[-2].topk = [("9s", 0.5), ("1s", 0.3)]
    rec = _read(b.win("1s"), "xiamen", {"gold": "5m", "self_drawn": True})
    assert _changes(rec) == [("9s", "P")]
    assert rec.hand_text == "[456m,1]5m1p5m2p5m3p5m456pEE1s1s"
    assert rec.score is not None and rec.score.legal


# --------------------------------------------------------------------------- F5
def test_correct_called_directly_reads_melds_with_the_rules_stand_ins() -> None:
    """Xiamen gold 5m: four golds beside a claimed chow 4m 白板 6m is a win
    (``[456m,1]5m1p5m2p5m3p5m456pEE1s1s``); ``correct()`` on a plain layout said "not a
    winning hand"."""
    ctx = {"gold": "5m", "self_drawn": True}
    d = SceneBuilder().standing(GOLDS_STANDING).meld("4mP6m", sideways=0).win("1s").detections()
    res = correct(d, analyze(d), rules="xiamen", hand_size=17,
                  is_winning=winning_shape_check("xiamen", ctx))
    assert res.problems == () and res.best.legal and res.best.winning


# --------------------------------------------------------------------------- F6
def test_a_tile_reread_then_corrected_is_one_change_from_the_detectors_reading() -> None:
    """Zhenjiang (no flowers): a tile inside the row read 1f 0.6 / 2m 0.3 / 3m 0.08 beside
    four 2m is re-read 2m, then corrected to 3m (a fifth 2m cannot be): one change,
    1f → 3m at 7.5 times."""
    b = (SceneBuilder().standing("2m2m2m2m111p").standing("1f")
         .uncertain([("1f", 0.6), ("2m", 0.3), ("3m", 0.08)]).standing("789mEE").win("E"))
    rec = _read(b, "zhenjiang", {**ZJ, "self_drawn": True})
    [c] = rec.to_dict()["corrections"]
    assert (c["from"], c["to"], c["p_from"], c["ratio"]) == ("1f", "3m", 0.6, 7.5)
    assert not any(n.startswith("top-1 reading:") for n in rec.notes), rec.notes


# --------------------------------------------------------------------------- F7
def test_zhenjiang_claims_no_chows_so_a_meld_that_is_no_set_is_not_called_a_chow() -> None:
    b = SceneBuilder().standing("111p456m789mS").meld("5p5p2m", sideways=0).win("S")
    rec = _read(b, "zhenjiang", {**ZJ, "self_drawn": True})
    texts = [rec.unscorable or "", *rec.notes]
    assert not any("chow" in t and "claim no chows" not in t for t in texts), texts
    assert rec.unscorable == "meld 2m5p5p is not a pung or kong (these rules claim no chows)"
