"""Hands that pin Xiamen (厦门, 金) and Zhenjiang (镇江, 百搭) rules the rest of the suite left
loose.

Each case was found by a mutation test of the regional rule sets (session 78:
``scoring/rulesets/xiamen*.py``, ``zhenjiang*.py``, ``scoring/regional/wild_hand.py``): a
small change to the engine (a flipped comparison, a dropped condition, a constant moved by
one) that every other test still passed. Each test names the rule it checks (RULES.md,
seeds 000 and 001, ``docs/regional-rules.md``) and the mutant it kills (file:line and the
change).
"""

from __future__ import annotations

from typing import Any

import pytest
from test_score_self_drawn import xm, zj  # Xiamen gold 9s, Zhenjiang 百搭 2m, unless given

import scoring
from scoring import HandError


def chips(s: scoring.Score) -> list[tuple[int, int]]:
    """Each payer's (chips, bonus money outside the chips) of a Xiamen settlement."""
    return [(p.amount, getattr(p, "bonus", 0)) for p in s.settlement.payments]


# ------------------------------------------------------------------ Zhenjiang 百搭 copies
def test_zhenjiang_wild_won_on_from_an_unknown_seat_may_be_the_named_first_wild_discard() -> None:
    """百搭 tiles (docs/regional-rules.md): a 百搭 the winner took may be one of the named
    discards. Won on a discarded 2m (打搭放冲, its own face) with the discarder's seat not
    given, the four 2m the winner holds and left's 打首搭 are four tiles, not five: the
    2m won on may be left's. Kills zhenjiang.py:466 ``if seat is None`` forced false (a
    tile from an unknown seat matched to no name)."""
    s = zj("222m345p678p99sEE 2m", first_wild_discard="left")
    assert s.legal
    assert [(f.zh, f.points) for f in s.fans] == [("冲", 1), ("打搭放冲", 1)]
    with pytest.raises(HandError, match="only 4 tiles"):  # right's is the fifth
        zj("222m345p678p99sEE 2m", first_wild_discard="left", discarder=3)


def test_zhenjiang_claimed_wild_pung_matches_its_seat_before_an_unknown_seat_takes_one() -> None:
    """百搭 tiles: the pung [222m,1] (百搭 melded, its own face) was made on left's 碰后打搭,
    and the 2m won on (no seat given) is right's: 3 + 1 tiles held, two named discards,
    both the winner's, so four tiles. A tile from an unknown seat takes a name only after
    the melds of known seats took theirs. Kills zhenjiang.py:465 ``key=lambda x: x is
    None`` flipped (the unknown seat takes left's name first, and the pung finds none)."""
    s = zj("[222m,1]34m678p99sEEE 2m", wild_after_pung="left,right")
    assert s.legal
    assert s.total == 2  # 冲 1 + 打搭放冲 1


@pytest.mark.parametrize(("meld", "first", "legal"), [
    ("[222m,1]", "left", True), ("[222m,2]", "opposite", True), ("[222m,3]", "right", True),
    ("[222m,2]", "left", False), ("[222m,3]", "opposite", False), ("[222m,1]", "right", False),
])
def test_zhenjiang_claimed_wild_pung_is_the_discard_of_its_own_seat_only(
        meld: str, first: str, legal: bool) -> None:
    """百搭 tiles: a claimed pung of the 百搭 kind was made on a discard of the seat its
    meld names (1 left, 2 opposite, 3 right), so it may be that seat's 打首搭 and no other
    seat's. Self-drawn, the winner holds all four 2m; a 打首搭 by another seat is a fifth.
    Kills zhenjiang.py:460 ``in (1, 2, 3)`` with 2 → 1 (an opposite meld read as one from
    an unknown seat, matched to left's name)."""
    hand = f"{meld}345p678p99sEE 2m"
    if legal:
        assert zj(hand, first_wild_discard=first, self_drawn=True).total == 1  # 自摸 1
    else:
        with pytest.raises(HandError, match="5 tiles cannot be"):
            zj(hand, first_wild_discard=first, self_drawn=True)


# ------------------------------------------------------------------------ Xiamen 金 gold
def test_xiamen_gold_white_dragon_allows_melds_of_other_kinds() -> None:
    """Xiamen 金 (RULES.md): the gold may be any kind, 白板 included; then 白板 plays no
    stand-in, and only a meld holding a P (a gold melded) is refused. A melded pung of E
    beside a P gold: 底 8 + 金 1 + 碰(字) 1 = 10, self-drawn ×2. Kills xiamen.py:439
    ``T.index(t) == WHITE`` flipped (every meld without a P refused as a gold melded)."""
    s = xm("[EEE,1]456m789m234p567pP 5s", gold="P", self_drawn=True)
    assert s.legal
    assert [(f.zh, f.points) for f in s.fans] == [("底", 8), ("金", 1), ("碰(字)", 1)]
    assert s.total == 20
    with pytest.raises(HandError, match="golds are never melded"):
        xm("[PPP,1]456m789m234p567pE 5s", gold="P", self_drawn=True)


@pytest.mark.parametrize(("hand", "reason"), [
    ("123m456m789m234p567p9s 5s", "forbids winning on a discard"),  # a gold held
    ("123m456m789m234p567p5s 9s", "discarded gold"),  # the gold won on
])
def test_xiamen_tian_ting_won_on_a_discard_keeps_the_discard_rules(hand: str,
                                                                    reason: str) -> None:
    """Xiamen (RULES.md): holding a gold forbids winning on a discard, and a discarded
    gold cannot be won on; 天听 won on a discard (``discarder`` given, not self-drawn) is
    such a win, so both make it a 诈胡, while the same 天听 self-drawn is legal (×4).
    Kills xiamen.py:560 with ``or (win.kind == "tian_ting" and not win.self_drawn)``
    dropped."""
    s = xm(hand, win="天听", discarder=1)
    assert not s.legal
    assert reason in s.details["reason"]
    drawn = xm(hand, win="天听", self_drawn=True)
    assert drawn.legal and drawn.details["multiplier"] == 4


def test_xiamen_tian_ting_on_a_discarded_gold_is_no_winning_shape() -> None:
    """Xiamen (RULES.md): a discarded gold cannot be won on, 天听 on a discard included:
    a reader of photos asking with the whole context (``shape_wins(..., whole=True)``)
    gets no winning shape, though the same tiles self-drawn are one. Kills xiamen.py:279
    ``win.kind == "tian_ting"`` flipped in ``shape_context``."""
    rules = scoring.get_rule_set("xiamen")
    plain = scoring.resolved_settings(rules, None, None)
    hand = scoring.parse_hand("123m456m789m234p567p5s 9s")
    on_discard = {"gold": "9s", "win": "天听", "discarder": 1}
    assert not scoring.shape_wins(rules, hand, on_discard, plain, whole=True)
    drawn = {"gold": "9s", "win": "天听", "self_drawn": True}
    assert scoring.shape_wins(rules, hand, drawn, plain, whole=True)


def test_xiamen_tian_he_is_self_drawn_without_the_flag() -> None:
    """Xiamen (RULES.md, seed 000 天和：庄家起手就和牌): 天和 is the dealer's win on the deal,
    with no discard, so it is self-drawn whatever ``self_drawn`` says: the triplet 111m
    that the last tile completes is a concealed triplet (暗刻 水 1), not a pung claimed
    from a discard. (16 + 1) × 4 = 68. Kills xiamen.py:382 ``self_drawn = True`` → False
    (the win types won without a discard)."""
    s = xm("11m456m789m234p567p55s 1m", win="天和", dealer=True)
    assert s.legal and s.self_drawn
    assert [(f.zh, f.en, f.points) for f in s.fans] == [
        ("底", "Base (Dealer)", 16), ("暗刻", "Concealed Triplet", 1)]
    assert s.total == 68


def test_xiamen_tian_he_pays_no_bonus_and_names_its_water() -> None:
    """Xiamen money (RULES.md): 天和 ×4, and bonuses outside the chips only for 游金 50,
    双游 100, 三游 150 and 杀三 100: none for 天和. The 水 of a number triplet is
    "Concealed Triplet", an honour's "… of Honours", a melded honour pung "Melded Honour
    Pung". Kills xiamen_settings.py:98 ``bonus_tian_he`` 0 → 1 and xiamen.py:670 ``and``
    → ``or`` in the English label."""
    s = xm("11m789m234p567pNNN55s 1m", win="天和", dealer=True)
    assert chips(s) == [(76, 0)] * 3  # (16 + 1 + 2) × 4, no bonus
    assert [(f.en, f.points) for f in s.fans] == [
        ("Base (Dealer)", 16), ("Concealed Triplet", 1), ("Concealed Triplet of Honours", 2)]
    melded = xm("[EEE,1]11m789m234p567p55s 1m", self_drawn=True)
    assert [(f.en, f.points) for f in melded.fans] == [
        ("Base", 8), ("Melded Honour Pung", 1), ("Concealed Triplet", 1)]


# ------------------------------------------------------------------------- Zhenjiang
def test_zhenjiang_winner_cannot_have_won_on_his_own_wild_after_pung_discard() -> None:
    """百搭 tiles (docs/regional-rules.md): the winner's own 碰后打搭 discard left his hand,
    so it is a tile beside the four 2m he holds, never the 2m he won on (no seat given):
    five tiles, a HandError; the same discard named for left may be the one won on.
    Kills zhenjiang.py:467 with ``n != "winner"`` dropped (an unknown seat's tile matched
    to the winner's own name)."""
    with pytest.raises(HandError, match="5 tiles cannot be"):
        zj("[333p,1]222m678p99sEE 2m", wild_after_pung="winner")
    assert zj("[333p,1]222m678p99sEE 2m", wild_after_pung="left").legal


def test_zhenjiang_session_is_four_rounds() -> None:
    """Seed 001 (四圈为一将): a Zhenjiang session is four rounds, and after a drawn hand
    the dealer deals again (黄牌庄家不变). Kills zhenjiang.py:183 ``rounds=4`` → 3."""
    deal = scoring.get_rule_set("zhenjiang").deal
    assert (deal.rounds, deal.stays_on_draw) == (4, True)


def test_xiamen_self_drawn_note_says_unit_times_multiplier() -> None:
    """Xiamen money (RULES.md): each of the three others pays unit × multiplier, unit =
    底 + 水; only 三游 (seed 000: 无需再计算水数自然杀三) is paid as every chip a payer has.
    A self-drawn win with two flowers says 10 × 2. Kills xiamen.py:692 the 三游 test
    forced true (every win's note worded as a 三游's)."""
    s = xm("123m456m789m234p567p5s 1f5f 5s", self_drawn=True)
    assert s.settlement.note == "自摸: each payer pays (底 + 水) 10 × 2 chips"


@pytest.mark.parametrize(("field", "named"), [("indicator", "the gold indicator 2f"),
                                              ("gold", "the gold 2f")])
def test_xiamen_flower_as_gold_names_the_field_given(field: str, named: str) -> None:
    """Xiamen 金 (RULES.md): the gold is turned up after flower replacement, so it is never
    a flower; the refusal names the field that was given (``indicator`` or ``gold``).
    Kills xiamen.py:355 ``name == "indicator"`` forced false."""
    with pytest.raises(HandError, match=f"^{named} is a flower"):
        tile: dict[str, Any] = {field: "2f"}
        scoring.score("123m456m789m234p567p5s 5s", rules="xiamen", self_drawn=True, **tile)


@pytest.mark.parametrize("self_drawn", [False, True])
def test_zhenjiang_settle_of_a_legal_win_agrees_with_its_score(self_drawn: bool) -> None:
    """Zhenjiang (RULES.md): a win by self-draw or on a discard; the discarder pays for a
    discard win (no double win), each other player for a self-drawn one. A score sheet
    settling a legal win by its total gets the score's own settlement, not a 诈胡's.
    Kills zhenjiang.py:278 ``if not legal`` forced true."""
    rules = scoring.get_rule_set("zhenjiang")
    hand = scoring.parse_hand("111p456m789m123pEE")
    kw: dict[str, Any] = {"self_drawn": True} if self_drawn else {"discarder": 3}
    s = zj("111p456m789m123pEE", indicator="8s", **kw)
    ctx = scoring.WinContext(**kw, extra=rules.resolve_context({"indicator": "8s"}))
    again = rules.settle(hand, s.total, True, ctx, rules.resolve_settings())
    assert again == s.settlement
    assert [(p.payer, p.amount) for p in again.payments] == (
        [("left", 1), ("opposite", 1), ("right", 1)] if self_drawn else [("right", 1)])


def test_xiamen_san_you_with_an_empty_payer_is_no_kill_three() -> None:
    """Xiamen (RULES.md, seed 000): 三游 is 杀三 by itself, emptying all three others; a
    payer who has no chips left is not emptied by it, so no 杀三 and no 杀三 bonus (150
    only), and the note says so. Kills xiamen.py:693 ``if kill`` forced true in the 三游
    note."""
    hand = "123m456m789m234p567p9s 1f 9s"
    s = xm(hand, win="三游", chips_left=0)
    assert not s.details["kill_three"]
    assert s.settlement.note == ("三游: each payer pays all the chips he has + 150 bonus "
                                 "outside the chips (no 杀三: a payer had no chips to lose)")
    full = xm(hand, win="三游")
    assert full.details["kill_three"]
    assert full.settlement.note.startswith("三游: 杀三 by itself — ")


def test_xiamen_discarder_alone_emptied_is_no_kill_three() -> None:
    """Xiamen 杀三 (RULES.md bonus 100): the win empties all three others. With
    ``discard_payers=discarder`` a discard win has one payer; emptying him (5 chips left,
    owed 8) is no 杀三: no bonus. Kills xiamen_money.py:222 with ``len(payers) == 3``
    dropped."""
    s = xm("123m456m789m234p567p5s 5s", discarder=1, chips_left=5,
           settings={"discard_payers": "discarder"})
    assert not s.details["kill_three"]
    assert [p.payer for p in s.settlement.payments] == ["left"]
    assert chips(s) == [(5, 0)]


def test_zhenjiang_one_named_discard_is_one_tile_taken() -> None:
    """百搭 tiles: left's 碰后打搭 may be one tile the winner took from left, not two. The
    winner holds all four 2m, the pung [222m,1] and the 2m won on both from left; right's
    打首搭 and the second 2m from left make five tiles with left's one named discard. Kills
    zhenjiang.py:469 ``names[seat] -= 1`` → 0 (a name matched again)."""
    with pytest.raises(HandError, match="5 tiles cannot be"):
        zj("[222m,1]34m678p99sEEE 2m", discarder=1, wild_after_pung="left",
           first_wild_discard="right")
    assert zj("[222m,1]34m678p99sEEE 2m", discarder=1, wild_after_pung="left").legal


def test_zhenjiang_waits_count_a_wild_after_pung_discard_as_gone() -> None:
    """百搭 tiles: each 碰后打搭 discards one of the four 2m, as a 打首搭 does. Holding three
    2m with left's 碰后打搭 named, no 2m is left to wait on (none to draw), and holding four
    beside it is refused. Kills zhenjiang.py:479 the ``wild_after_pung`` field read as
    empty by the waits."""
    hand = "2m2m2m456m789m111pS"
    gone = {w.tile: w.remaining
            for w in scoring.waits(hand, rules="zhenjiang", indicator="1m",
                                   wild_after_pung="left").waits}
    assert "2m" not in gone and gone["S"] == 3
    with pytest.raises(HandError, match="5 tiles cannot be"):
        scoring.waits("2m2m2m2m456m789m11pS", rules="zhenjiang", indicator="1m",
                      wild_after_pung="left")


def test_zhenjiang_false_win_scores_nothing_and_pays_six_to_each() -> None:
    """Zhenjiang (RULES.md): a false win (诈胡) pays 6× the base chip to each other player;
    its score is not a win, worth 0 (the penalty is in the settlement). Kills
    zhenjiang.py:592 the 诈胡's total 0 → 1."""
    s = zj("111p456m789m123pSN", indicator="8s", discarder=1)
    assert (s.legal, s.total) == (False, 0)
    assert [(p.payer, p.amount) for p in s.settlement.payments] == [
        ("left", -6), ("opposite", -6), ("right", -6)]


def test_xiamen_seven_flower_codes_name_the_full_set() -> None:
    """Xiamen 水 (RULES.md): each flower 1, and +4 for a full set of four seasons or four
    flowers. Seven listed codes 1f-7f hold all four seasons (四季) and not all four
    flowers: 8 + 7 + 4 = 19, self-drawn ×2. (Only a count of 7 given without codes is the
    unnamed 四季/四花.) Kills xiamen_money.py:141 with ``not flowers`` dropped."""
    s = xm("123m456m789m234p567p5s 1f2f3f4f5f6f7f 5s", self_drawn=True)
    assert [(f.zh, f.points, f.count) for f in s.fans] == [
        ("底", 8, 1), ("花", 7, 7), ("四季", 4, 1)]
    assert s.total == 38


def test_xiamen_discard_win_takes_the_reading_with_the_most_water() -> None:
    """Xiamen 水 (RULES.md: concealed triplet 1): of a hand's readings the score takes the
    one worth the most (就高). 111222333m is three chows or three concealed triplets; won
    on a discarded 5s (the pair), the triplets: 8 + 3 = 11 × 1. Kills xiamen.py:656 with
    ``water > best[0]`` dropped (the first reading listed, the chows, kept)."""
    s = xm("111222333m456p789p5s 5s", discarder=1)
    assert [(f.zh, f.points, f.count) for f in s.fans] == [("底", 8, 1), ("暗刻", 3, 3)]
    assert s.total == 11
    assert s.details["reading_text"][:4] == ["55s", "111m", "222m", "333m"]


# ---------------------------------------------------------------------- scoring.wild
def test_sets_of_wilds_alone_default_to_the_lowest_kind() -> None:
    """Wild tiles (scoring.wild: a set made only of wilds is read as ``free_face``, by
    default the lowest kind, 1m) in the reading a scorer shows: ``best_reading`` agrees
    with ``decompositions`` when no face is given. Kills wild.py:318 the default face
    0 → 1."""
    from scoring.wild import best_reading, decompositions

    nothing = [0] * 34
    for wilds in (2, 5):
        first = best_reading(nothing, wilds)
        assert first == decompositions(nothing, wilds)[0]
        assert first is not None and {s.kind for s in first} == {0}
