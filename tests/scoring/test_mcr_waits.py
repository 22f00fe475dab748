"""Wait analysis: waits with their scores, formal waits, shanten when not ready."""

from __future__ import annotations

import pytest

import scoring
from scoring import HandError
from scoring.mcr.waits import formal_waits, shanten
from scoring.tiles import index


def counts(text: str) -> list[int]:
    c = [0] * 34
    for t in scoring.parse_hand(text).standing:
        c[index(t)] += 1
    return c


def test_nine_gates_waits_on_every_tile_of_its_suit() -> None:
    w = scoring.waits("1112345678999m")
    assert w.ready and [t.tile for t in w.waits] == [f"{r}m" for r in range(1, 10)]
    assert all(t.discard is not None and t.discard.total >= 88 for t in w.waits)
    assert w.waits[0].remaining == 1 and w.waits[1].remaining == 3


def test_each_wait_has_a_discard_and_a_self_drawn_score() -> None:
    w = scoring.waits("[EEE,2][SSSS,1]WWWNN55p")
    assert [t.tile for t in w.waits] == ["5p", "N"]
    north = w.waits[1]
    assert north.discard is not None and north.self_drawn is not None
    assert north.self_drawn.total == 98 and north.discard.total < 98


def test_formal_wait_counts_kinds_whose_four_copies_are_held() -> None:
    waits = formal_waits(counts("1234444678m456p"), 0)
    assert index("4m") in waits and index("1m") in waits


def test_held_out_wait_has_no_tiles_left_and_no_score() -> None:
    w = scoring.waits("1234444678m456p")
    four = next(t for t in w.waits if t.tile == "4m")
    assert four.remaining == 0 and four.discard is None and four.self_drawn is None


def test_formal_wait_counts_honours_whose_four_copies_are_held() -> None:
    """As for the suits: four 發 held, a fifth would make a pung and the pair."""
    assert formal_waits(counts("234p567p789pFFFF"), 0) == [index("F")]
    w = scoring.waits("666778899mFFFF")  # 6m by seven pairs, 發 formally
    assert [(t.tile, t.remaining) for t in w.waits] == [("6m", 1), ("F", 0)]


def test_seven_pairs_wait_is_a_formal_wait() -> None:
    assert index("9s") in formal_waits(counts("445566m2277779s"), 0)


@pytest.mark.parametrize(
    ("hand", "expected"),
    [
        ("123m456p789s1122z", 0),
        ("123m456p789sESWN", 2),
        ("19m19p19sESWNCF1m", 0),
        ("147m258p369sESWN", 0),
        ("13579m13579p135s", 4),
    ],
)
def test_shanten(hand: str, expected: int) -> None:
    assert shanten(counts(hand), 0) == expected
    w = scoring.waits(hand)
    assert w.shanten == expected and w.ready == (expected == 0)


def test_knitted_straight_shanten_with_a_meld_counts_no_fifth_set() -> None:
    """组合龙 with one claimed chow: 9 knitted tiles and a pair from the 10 standing + 1.
    Here 258m 369p 147s holds 2m 8m 3p 9p 7s and the pair 3s3s: 4 knitted tiles
    missing, 3 changes from ready (the reference calculator agrees); the 678s left over
    is no fifth set to count."""
    standing = counts("28m39p336778s")
    assert sum(standing) == 10
    assert shanten(standing, 1) == 3


def test_not_ready_hand_reports_shanten_and_no_waits() -> None:
    d = scoring.waits("123m456p789sESWN").to_dict()
    assert d["ready"] is False and d["shanten"] == 2 and d["waits"] == []


def test_waits_need_thirteen_tiles() -> None:
    with pytest.raises(HandError, match="wrong number of tiles for a wait: 14"):
        scoring.waits("19m19s19pESWNCFPP")


def test_waits_of_random_wins_contain_their_winning_tile_with_its_score() -> None:
    from scoring import Hand
    from scoring.mcr.samples import random_wins

    for hand, ctx in random_wins(300, seed=13):
        waiting = Hand(hand.melds, hand.standing[:-1], hand.flowers)
        winds = {"seat_wind": ctx["seat_wind"], "prevalent_wind": ctx["prevalent_wind"]}
        w = scoring.waits(waiting, flowers=ctx["flowers"], **winds)
        assert w.ready
        tile = next(t for t in w.waits if t.tile == hand.standing[-1])
        for self_drawn, got in ((False, tile.discard), (True, tile.self_drawn)):
            want = scoring.score(hand, self_drawn=self_drawn, flowers=ctx["flowers"], **winds)
            assert got is not None and got.total == want.total


def test_every_wait_scores_as_the_hand_won_on_that_tile() -> None:
    """The waits' best scores, on a discard and on a self-draw, are the scores of the hand
    won on each wait tile (any standing tile taken out of a random win, not only the
    winning one; 69,776 such checks of 20,000 hands, seed 571, in the fifty-seventh
    session)."""
    import random

    from scoring import Hand
    from scoring.mcr.samples import random_wins

    rng = random.Random(57)
    checked = 0
    for hand, ctx in random_wins(300, seed=571):
        standing = list(hand.standing)
        standing.pop(rng.randrange(len(standing)))
        kw = {"seat_wind": ctx["seat_wind"], "prevalent_wind": ctx["prevalent_wind"],
              "flowers": ctx["flowers"]}
        for wait in scoring.waits(Hand(hand.melds, tuple(standing), hand.flowers), **kw).waits:
            if not wait.remaining:
                continue
            won = Hand(hand.melds, (*standing, wait.tile), hand.flowers)
            for self_drawn, got in ((False, wait.discard), (True, wait.self_drawn)):
                want = scoring.score(won, self_drawn=self_drawn, **kw)
                assert got is not None and (got.total, got.legal) == (want.total, want.legal)
                checked += 1
    assert checked > 600


def test_waits_and_shanten_match_the_reference_calculator() -> None:
    import random

    pytest.importorskip("MahjongGB", reason="pymahjonggb (dev extra) is not installed")
    from MahjongGB import MahjongShanten
    from oracle_differences import ref_tile, reference_waits

    from scoring.mcr.samples import random_wins
    from scoring.tiles import KINDS

    rng = random.Random(4)
    for hand, _ in random_wins(1000, seed=31):
        standing = list(hand.standing[:-1])
        c = counts("".join(standing)) if standing else [0] * 34
        assert formal_waits(c, len(hand.melds)) == sorted(
            index(t) for t in reference_waits(tuple(standing), len(hand.melds))
        )
        # swap a few tiles for a hand that may not be ready, and compare shanten
        held = {k: c[index(k)] + sum(m.tiles.count(k) for m in hand.melds) for k in KINDS}
        for _ in range(rng.randrange(4)):
            i = rng.randrange(len(standing))
            new = rng.choice([k for k in KINDS if held[k] < 4])
            held[standing[i]] -= 1
            held[new] += 1
            standing[i] = new
        packs = []
        for m in hand.melds:
            kind = {"chow": "CHI", "pung": "PENG", "kong": "GANG"}[m.kind]
            packs.append((kind, ref_tile(m.tiles[1 if m.kind == "chow" else 0]), 1))
        ref = MahjongShanten(pack=tuple(packs), hand=tuple(ref_tile(t) for t in standing))
        assert shanten(counts("".join(standing)), len(hand.melds)) == ref, standing


def test_shanten_and_waits_of_random_hands_match_the_reference_calculator() -> None:
    """Hands dealt at random (not one tile short of a win): 0-4 claimed melds, half of them
    from one or two suits, so that ready hands and knitted shapes come up too; shanten,
    and the formal waits of the ready ones, as the reference calculates them."""
    import random

    pytest.importorskip("MahjongGB", reason="pymahjonggb (dev extra) is not installed")
    from MahjongGB import MahjongShanten
    from oracle_differences import dealt_hand, ref_tile, reference_waits

    rng = random.Random(56)
    ready = 0
    for _ in range(3000):
        dealt = dealt_hand(rng)
        if dealt is None:
            continue
        standing, packs = dealt
        c = counts("".join(standing))
        want = MahjongShanten(pack=tuple(packs), hand=tuple(ref_tile(t) for t in standing))
        assert shanten(c, len(packs)) == want, (standing, packs)
        if want == 0:
            ready += 1
            assert formal_waits(c, len(packs)) == sorted(
                index(t) for t in reference_waits(tuple(standing), len(packs)))
    assert ready > 50  # the ready branch is exercised
