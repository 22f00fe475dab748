"""和绝张 (MCR fan 58, "last tile", 4 fan) in ``scoring.waits`` and ``scoring.discards``
given the tiles seen elsewhere (``seen``).

The rule (seed 003, RULES.md "Win context"): a win on a tile is 和绝张 when the other
three copies are already in sight on the table — in other players' discards and melds
(``seen``), in the winner's own exposed melds, and (``discards``) the copy the hand lets
go — and the winner holds none of them concealed (standing). A wait on such a tile
scores it both on a discard and self-drawn; without ``seen`` the table is not known and
no wait counts it. Xiamen and Zhenjiang have no such win (RULES.md, seeds 000/001).
Hands in notation; each test names the rule it checks."""

from __future__ import annotations

import random

import pytest

import scoring
from scoring import tiles as T

LAST = "和绝张"


def _fans(s: scoring.Score | None) -> list[str]:
    assert s is not None
    return [f.zh for f in s.fans]


def _wait(w: scoring.Waits, tile: str) -> scoring.WaitTile:
    return next(t for t in w.waits if t.tile == tile)


def _both_count_it(t: scoring.WaitTile) -> bool:
    """Whether the wait scores 和绝张 on a discard and self-drawn (asserting it is one or
    the other for both)."""
    on_discard, drawn = LAST in _fans(t.discard), LAST in _fans(t.self_drawn)
    assert on_discard == drawn, t
    return on_discard


def _as_scored(hand: str, tile: str, *, last_of_kind: bool = False) -> tuple[int, int]:
    """``hand`` won on ``tile`` scored by :func:`scoring.score`: the totals on a discard
    and self-drawn, with ``last_of_kind`` or without."""
    won = hand + tile
    return (scoring.score(won, last_of_kind=last_of_kind).total,
            scoring.score(won, self_drawn=True, last_of_kind=last_of_kind).total)


# --- the other three copies in sight, none held concealed: 和绝张 -------------------


def test_three_seen_elsewhere_is_the_last_tile_on_a_discard_and_self_drawn() -> None:
    """45m456p789s123sEE waits on 3m and 6m; the three other 3m seen elsewhere (the hand
    holds none): the 3m wait counts 和绝张 both ways, worth what score() gives the win
    with last_of_kind; 6m, all four left, does not."""
    hand = "45m456p789s123sEE"
    w = scoring.waits(hand, seen="333m")
    three, six = _wait(w, "3m"), _wait(w, "6m")
    assert three.remaining == 1 and _both_count_it(three)
    assert (three.discard.total, three.self_drawn.total) == (  # type: ignore[union-attr]
        _as_scored(hand, "3m", last_of_kind=True))
    assert six.remaining == 4 and not _both_count_it(six)


def test_two_seen_and_one_in_the_winners_own_exposed_chow_is_the_last_tile() -> None:
    """[345m,1]45m789s123sEE: one 3m in the claimed chow, two seen elsewhere — the three
    other copies are in sight. 和绝张 (4 fan) lifts the self-drawn win to the 8-fan
    minimum: legal, where without seen it is 4 fan and no win."""
    hand = "[345m,1]45m789s123sEE"
    three = _wait(scoring.waits(hand, seen="3m 3m"), "3m")
    assert three.remaining == 1 and _both_count_it(three)
    assert three.self_drawn is not None and three.self_drawn.legal
    assert (three.discard.total, three.self_drawn.total) == (  # type: ignore[union-attr]
        _as_scored(hand, "3m", last_of_kind=True))
    plain = _wait(scoring.waits(hand), "3m")
    assert plain.self_drawn is not None and not plain.self_drawn.legal
    assert three.self_drawn.total == plain.self_drawn.total + 4


def test_the_winners_own_exposed_pung_holds_the_three_other_copies() -> None:
    """[444m,1]56m456p789sEE waits on 4m and 7m: the claimed pung shows three 4m, so with
    ``seen`` given (even nothing seen elsewhere, ``seen=""``) the 4m wait is 和绝张."""
    hand = "[444m,1]56m456p789sEE"
    four = _wait(scoring.waits(hand, seen=""), "4m")
    assert four.remaining == 1 and _both_count_it(four)
    assert not _both_count_it(_wait(scoring.waits(hand, seen=""), "7m"))


# --- not the last tile -------------------------------------------------------------


def test_two_seen_and_one_held_concealed_is_not_the_last_tile() -> None:
    """123m456p789s123sE waits on E (the pair); two E seen elsewhere leave one to draw,
    but the hand holds the third concealed: not 和绝张, the score as without seen."""
    hand = "123m456p789s123sE"
    east = _wait(scoring.waits(hand, seen="EE"), "E")
    plain = _wait(scoring.waits(hand), "E")
    assert east.remaining == 1 and not _both_count_it(east)
    assert (east.discard, east.self_drawn) == (plain.discard, plain.self_drawn)


def test_without_seen_no_wait_counts_the_last_tile() -> None:
    """No ``seen``: what the rest of the table shows is not known, so no wait counts
    和绝张 — not even one whose other three copies are in the hand's own pung."""
    for hand, tile in (("45m456p789s123sEE", "3m"), ("[345m,1]45m789s123sEE", "3m"),
                       ("[444m,1]56m456p789sEE", "4m")):
        t = _wait(scoring.waits(hand), tile)
        assert not _both_count_it(t), hand
        assert (t.discard.total, t.self_drawn.total) == (  # type: ignore[union-attr]
            _as_scored(hand, tile)), hand


def test_fewer_than_three_in_sight_is_not_the_last_tile() -> None:
    """One 3m in the chow and one seen: two left to draw, no 和绝张."""
    three = _wait(scoring.waits("[345m,1]45m789s123sEE", seen="3m"), "3m")
    assert three.remaining == 2 and not _both_count_it(three)


def test_a_wait_with_no_copy_left_stays_dead_concealed_kong_or_all_seen() -> None:
    """A wait whose four copies are all out of the wall has no win, 和绝张 or not: the
    hand's concealed kong of the kind ([4444m]) or four seen elsewhere leave 0, listed
    with no score, as before; the live wait beside it is 和绝张 where its other three are
    seen."""
    w = scoring.waits("[4444m]56m456p789sEE", seen="777m")
    assert [(t.tile, t.remaining) for t in w.waits] == [("4m", 0), ("7m", 1)]
    assert (w.waits[0].discard, w.waits[0].self_drawn) == (None, None)
    assert _both_count_it(w.waits[1])
    dead = _wait(scoring.waits("45m456p789s123sEE", seen="3333m"), "3m")
    assert (dead.remaining, dead.discard, dead.self_drawn) == (0, None, None)


def test_the_last_tile_can_make_no_fan_win_no_win() -> None:
    """无番和 (8 fan) counts only when the hand has no other fan: [444m,1]56m456p789sEE on
    a 7m discard is 无番和 (legal); with the other three 7m seen it is 和绝张 alone (4
    fan) instead — under the 8-fan minimum, as score() says of that win."""
    hand = "[444m,1]56m456p789sEE"
    plain = _wait(scoring.waits(hand), "7m").discard
    assert plain is not None and plain.legal and _fans(plain) == ["无番和"]
    last = _wait(scoring.waits(hand, seen="777m"), "7m").discard
    assert last is not None and not last.legal and _fans(last) == [LAST]
    assert last == scoring.score(hand + "7m", last_of_kind=True)


# --- discards(): the copy let go is in sight too -----------------------------------


def test_discards_count_the_copy_let_go_among_the_three() -> None:
    """[345m,1]345m789s123sEE with one 3m seen elsewhere: letting 3m go keeps
    [345m,1]45m789s123sEE, waiting on 3m with one in the chow, one seen and one just
    discarded — 和绝张, as waits() scores the kept hand with those three seen. Another
    discard keeps the 3m standing (no 和绝张), and without seen none counts it."""
    hand = "[345m,1]345m789s123sEE"
    d = {x.tile: x for x in scoring.discards(hand, seen="3m").discards}
    three = _wait(d["3m"].waits, "3m")
    assert three.remaining == 1 and _both_count_it(three)
    same = _wait(scoring.waits("[345m,1]45m789s123sEE", seen="33m"), "3m")
    assert (three.discard, three.self_drawn) == (same.discard, same.self_drawn)
    for x in d.values():
        if x.tile != "3m":
            assert not any(_both_count_it(t) for t in x.waits.waits if t.remaining), x.tile
    plain = {x.tile: x for x in scoring.discards(hand).discards}
    assert not _both_count_it(_wait(plain["3m"].waits, "3m"))


def test_discards_score_the_hand_as_it_stands_on_the_last_tile_of_its_kind() -> None:
    """[345m,1]45m789s123sEE3m drew the 3m whose other copies are in the chow and seen
    (two): the hand as it stands is won on the last 3m — win_on_discard and
    win_self_drawn are score()'s with last_of_kind; without seen they are not."""
    hand = "[345m,1]45m789s123sEE3m"
    d = scoring.discards(hand, seen="33m")
    assert d.win_on_discard is not None and d.win_self_drawn is not None
    assert LAST in _fans(d.win_on_discard) and LAST in _fans(d.win_self_drawn)
    assert d.win_self_drawn == scoring.score(hand, self_drawn=True, last_of_kind=True)
    assert d.win is d.win_self_drawn  # legal self-drawn only (4 + 4 fan)
    plain = scoring.discards(hand)
    assert plain.win_self_drawn is not None and LAST not in _fans(plain.win_self_drawn)
    assert plain.win is not None and not plain.win.legal


def test_discards_rank_a_discard_made_legal_by_the_last_tile_first() -> None:
    """The order of discards weighs the tiles left that make a legal win: a wait lifted
    to the minimum by 和绝张 counts so (:func:`~scoring.rulesets.base.discard_order`)."""
    hand = "[345m,1]345m789s123sEE"
    got = scoring.discards(hand, seen="3m").discards[0]
    assert got.tile == "3m" and any(s is not None and s.legal
                                    for t in got.waits.waits
                                    for s in (t.discard, t.self_drawn))


# --- only MCR has it ---------------------------------------------------------------


def test_xiamen_and_zhenjiang_have_no_last_tile_win() -> None:
    """Xiamen (seed 000) and Zhenjiang (seed 001) score no 和绝张 and read no
    last_of_kind (their win_fields): the tiles seen change their waits' tiles left only."""
    for rules in ("xiamen", "zhenjiang"):
        assert "last_of_kind" not in scoring.get_rule_set(rules).win_fields
    hand = "123m456m789m123s78pEE"  # Xiamen, gold 1p: waits on 6p and 9p
    plain = _wait(scoring.waits(hand, rules="xiamen", gold="1p"), "9p")
    seen = _wait(scoring.waits(hand, rules="xiamen", gold="1p", seen="999p"), "9p")
    assert seen.remaining == 1 and (seen.discard, seen.self_drawn) == (plain.discard,
                                                                       plain.self_drawn)
    plain = _wait(scoring.waits("111p456m789m13pSS", rules="zhenjiang", wild="5s"), "2p")
    seen = _wait(scoring.waits("111p456m789m13pSS", rules="zhenjiang", wild="5s",
                               seen="222p"), "2p")
    assert seen.remaining == 1 and (seen.discard, seen.self_drawn) == (plain.discard,
                                                                       plain.self_drawn)


# --- against the reference calculator ----------------------------------------------


def test_last_tile_waits_match_the_reference_calculator() -> None:
    """pymahjonggb (dev extra) given is4thTile exactly where the rule says — the other
    three copies in the winner's melds or seen, none standing — scores each live wait
    of random ready hands (with claimed melds; a copy or two of some wait seen, up to
    the last) to the same totals, on a discard and self-drawn. It infers 和绝张 from the
    winner's own melds by itself, as tilecam does once ``seen`` is given."""
    pytest.importorskip("MahjongGB", reason="pymahjonggb (dev extra) is not installed")
    from oracle_differences import reference_score

    from scoring.mcr.samples import random_wins

    rng = random.Random(77)
    last = compared = 0
    for won, _ in random_wins(400, seed=77):
        hand = scoring.Hand(won.melds, won.standing[:-1], ())
        held = [0] * T.NUM_KINDS
        for code in (*hand.standing, *(c for m in hand.melds for c in m.tiles)):
            held[T.index(code)] += 1
        seen: list[str] = []
        for kind in dict.fromkeys(w.tile for w in scoring.waits(hand).waits):
            k = T.index(kind)
            if kind in hand.standing:  # a copy left or none: one is held concealed
                n = rng.randrange(max(1, 4 - held[k]))
            else:
                n = 3 - held[k] if rng.random() < 0.7 else rng.randrange(4)
                n = max(0, min(n, 3 - held[k]))
            seen += [kind] * n
        for t in scoring.waits(hand, seen=seen).waits:
            if not t.remaining:
                continue
            is_last = t.remaining == 1 and t.tile not in hand.standing
            complete = scoring.Hand(hand.melds, (*hand.standing, t.tile), ())
            for drawn, s in ((False, t.discard), (True, t.self_drawn)):
                assert s is not None
                ref_total, ref_fans = reference_score(
                    complete, {"self_drawn": drawn, "last_of_kind": is_last})
                assert s.total == ref_total, (str(complete), seen, drawn)
                assert (LAST in _fans(s)) == is_last == (ref_fans["last_tile"] == 1)
                compared += 1
            last += is_last
    assert compared > 400 and last > 40  # both branches exercised
