"""Tiles seen elsewhere (``seen``: others' discards and melds) in ``scoring.waits`` and
``scoring.discards``, and a discard that leaves the hand ready in form only (every wait
dead). Hands in notation; each test names the rule it checks."""

from __future__ import annotations

import random

import pytest

import scoring
from scoring import tiles as T

CODES = [T.code(k) for k in range(T.NUM_KINDS)]


def _waits(w: scoring.Waits) -> dict[str, tuple[int, bool]]:
    """Each wait's tiles left, and whether it has a score."""
    return {t.tile: (t.remaining, t.discard is not None or t.self_drawn is not None)
            for t in w.waits}


# --- 1. the tiles seen lower the tiles left ------------------------------------------


def test_each_tile_seen_is_one_fewer_left_to_wait_on() -> None:
    """123m456p789sEESS waits on E and S (2 left each); one S seen elsewhere leaves 1."""
    assert _waits(scoring.waits("123m456p789sEESS")) == {"E": (2, True), "S": (2, True)}
    assert _waits(scoring.waits("123m456p789sEESS", seen="S")) == {"E": (2, True),
                                                                   "S": (1, True)}


def test_a_wait_whose_other_copies_are_seen_is_dead_listed_with_none_left_no_score() -> None:
    """Both E seen: the E wait stays listed (a formal wait), with 0 left and no score;
    the hand is still live on S."""
    w = scoring.waits("123m456p789sEESS", seen="EE")
    assert _waits(w) == {"E": (0, False), "S": (2, True)}
    assert w.live and w.to_dict()["live"] is True
    assert w.to_dict()["waits"][0] == {"tile": "E", "remaining": 0, "discard": None,
                                       "self_drawn": None}


def test_a_hand_whose_every_wait_is_seen_is_ready_in_form_only() -> None:
    """形式听牌: ready by shape (shanten 0), but no copy of E or S is left to win on."""
    w = scoring.waits("123m456p789sEESS", seen="E E S S")
    body = w.to_dict()
    assert (body["ready"], body["shanten"], body["live"]) == (True, 0, False)
    assert body["seen"] == "EESS"
    assert not scoring.waits("123m456p789sESWN").to_dict()["live"]  # not ready: not live


def test_seen_takes_notation_spaces_commas_tenhou_codes_and_a_list_of_codes() -> None:
    """The notation's groups, parted by spaces or commas, and codes; all count alike."""
    ways = ["11z2z", "EES", "E, E S", ["E", "1z", "S"], ("2z", "E", "E")]
    assert {scoring.waits("123m456p789sEESS", seen=s).seen for s in ways} == {"EES"}
    assert scoring.waits("123m456p789sEESS", seen="").seen == ""


def test_seen_lowers_the_useful_draws_of_a_discard_not_ready() -> None:
    """有效牌 below ready: 456m789p4s5s7s9sEESS, discarding 5s keeps 8s (4), E (2), S (2);
    two 8s and an E seen elsewhere leave 8s (2), E (1), S (2): 5 in all, not 8."""
    def five(seen: str | None) -> list[tuple[str, int]]:
        d = scoring.discards("456m789p4s5s7s9sEESS", seen=seen)
        x = next(x for x in d.discards if x.tile == "5s")
        return [(u.tile, u.remaining) for u in x.useful or ()]

    assert five(None) == [("8s", 4), ("E", 2), ("S", 2)]
    assert five("8s8sE") == [("8s", 2), ("E", 1), ("S", 2)]
    assert five("8s8s8s8sEE") == [("S", 2)]  # a kind with none left is no useful draw


def test_a_discard_counts_the_tile_it_lets_go_and_the_tiles_seen() -> None:
    """[EEE,2]123m456p789sN1s: discarding 1s waits on N, held 1 — 3 left; two N seen
    leave 1; discarding N, the 1s wait has 4 less the hand's 1s and the two seen."""
    d = scoring.discards("[EEE,2]123m456p789sN1s", seen="NN1s1s")
    got = {x.tile: _waits(x.waits) for x in d.ready_after}
    assert got == {"1s": {"N": (1, True)}, "N": {"1s": (1, True)}}
    assert d.to_dict()["seen"] == "11sNN"


# --- validation --------------------------------------------------------------------


def test_a_kind_seen_more_often_than_the_hand_leaves_is_refused_naming_both_counts() -> None:
    """E: the hand holds 2, so at most 2 can be seen elsewhere."""
    with pytest.raises(scoring.HandError, match=r"seen: E seen 3 times, but the hand "
                       r"holds 2 of it .*at most 2 can be seen elsewhere"):
        scoring.waits("123m456p789sEESS", seen="EEE")
    with pytest.raises(scoring.HandError, match=r"seen: 1s seen 4 times, but the hand "
                       r"holds 1 of it"):  # the hand that drew holds the tile to discard
        scoring.discards("[EEE,2]123m456p789sN1s", seen="1111s")
    with pytest.raises(scoring.HandError, match="seen: 9p seen 5 times, but the hand holds "
                       "0 of it"):
        scoring.waits("123m456p789sEESS", seen="99999p")


@pytest.mark.parametrize(("seen", "message"), [
    ("12x", "seen: unknown character 'x' at position 3 of '12x'"),
    ("[555p,3]", "seen: give the tiles alone"),
    ("12", "seen: ranks '12' at the end of '12' need a suit letter"),
    (["1m", "9z"], "seen: unknown tile code '9z'"),
    (["1m", 5], "seen: tile 2 is int, not a tile code"),
    (7, "seen: the tiles seen elsewhere as notation or tile codes, not int"),
])
def test_seen_that_is_no_tiles_is_refused_naming_what(seen: object, message: str) -> None:
    with pytest.raises(scoring.HandError) as exc:
        scoring.waits("123m456p789sEESS", seen=seen)  # type: ignore[arg-type]
    assert str(exc.value).startswith(message), exc.value


def test_bonus_tiles_seen_are_ignored_where_the_game_has_them_refused_where_not() -> None:
    """No hand waits on a bonus tile and one drawn is replaced: seen, it changes no count
    (MCR, Xiamen); Zhenjiang plays without them and refuses them, as in a hand."""
    w = scoring.waits("123m456p789sEESS", seen="1f2fS")
    assert w.seen == "S" and _waits(w)["S"] == (1, True)
    x = scoring.waits("123m456m789m123s78pEE", rules="xiamen", gold="9p", seen="3f4f")
    assert x.seen == "" and x.ready
    with pytest.raises(scoring.HandError, match=r"seen: Zhenjiang .*plays without flowers: "
                       r"1f cannot be seen"):
        scoring.waits("111p456m789m13pSS", rules="zhenjiang", wild="2p", seen="1f")


# --- wild tiles seen ---------------------------------------------------------------


def test_a_xiamen_gold_seen_counts_as_its_kind() -> None:
    """Gold 9p, not held: the hand waits on 6p and 9p (a gold drawn completes it too); a
    9p seen (a gold discarded) is one fewer 9p to draw."""
    hand = "123m456m789m123s78pEE"
    plain = _waits(scoring.waits(hand, rules="xiamen", gold="9p"))
    seen = _waits(scoring.waits(hand, rules="xiamen", gold="9p", seen="9p9p6p"))
    assert plain["9p"][0] == 4 and seen["9p"][0] == 2
    assert plain["6p"][0] == 4 and seen["6p"][0] == 3
    with pytest.raises(scoring.HandError, match="seen: 9p seen 5 times"):
        scoring.waits(hand, rules="xiamen", gold="9p", seen="99999p")


def test_zhenjiang_wild_discards_named_and_seen_count_once() -> None:
    """百搭 2p, not held; 111p456m789m13pSS waits on 2p. 打首搭 named (one 百搭 discard)
    leaves 3; that discard listed in seen too is the same tile (3 left), two seen are
    two (2 left); the named discards and seen are the more of the two, not the sum."""
    def left(**kw: object) -> int:
        w = scoring.waits("111p456m789m13pSS", rules="zhenjiang", wild="2p", **kw)
        return _waits(w)["2p"][0]

    assert left() == 4
    assert left(first_wild_discard="left") == 3
    assert left(first_wild_discard="left", seen="2p") == 3
    assert left(first_wild_discard="left", seen="2p2p") == 2
    assert left(seen="2p2p2p2p") == 0


# --- 2. ready in form only ranks after the live ready discards -------------------


def test_a_discard_ready_in_form_only_ranks_before_those_one_from_ready() -> None:
    """形式听牌: [EEE,2]123p456p1111mE — discarding E waits on 1m alone (all four held),
    discarding 1m waits on E alone (all four held): ready in form only, neither can win
    as it stands (``live`` false). They still rank before the discards one from ready:
    after 1m or E, 122 of the tiles left make a ready hand that can win, after 1p none of
    its 10 useful draws (by shape) does (the seventy-fourth session's review; ranking
    them last, as this session first did, gave the worse advice)."""
    d = scoring.discards("[EEE,2]123p456p1111mE")
    order = [x.tile for x in d.discards]
    assert set(order[:2]) == {"1m", "E"} and order[2] == "1p"
    form = [x for x in d.discards if x.waits.ready]
    assert {x.tile for x in form} == {"1m", "E"}
    assert all(not x.live and x.to_dict()["live"] is False for x in form)
    assert d.discards[2].to_dict()["live"] is False  # not ready: not live
    assert d.shanten == 0  # by shape; the discards say which are live


def test_a_discard_ready_in_form_only_ranks_after_a_live_ready_one() -> None:
    """The N seen: discarding 1s waits on N with none left, discarding N waits on 1s."""
    d = scoring.discards("[EEE,2]123m456p789sN1s", seen="NNN")
    assert d.discards[0].tile == "N" and d.discards[0].live
    assert d.discards[1].tile == "1s" and not d.discards[1].live
    assert all(not x.waits.ready for x in d.discards[2:])


def test_a_discard_below_the_minimum_is_live_not_in_form_only() -> None:
    """A wait with a copy left that scores under MCR's 8 fan is live (the shape can win;
    the fan decide): it keeps its place among the ready discards, after the legal ones
    (678m345sFFF456s9m2m: 2m's waits score under 8)."""
    d = scoring.discards("678m345sFFF456s9m2m")
    two = next(x for x in d.discards if x.tile == "2m")
    assert two.waits.ready and two.live
    assert [x.tile for x in d.ready_after][-1] == "2m"


# --- differential: seen against the answer without it ------------------------------


def _random_drawn(rng: random.Random, rules: str) -> tuple[str, dict[str, str], list[int]]:
    """A hand that drew, dealt from a shuffled wall (often from two suits, so that ready
    discards come up), its gold / 百搭, and some of the wall's other tiles seen."""
    size = scoring.get_rule_set(rules).hand_size
    wall = [k for k in range(34) for _ in range(4)]
    rng.shuffle(wall)
    if rng.random() < 0.6:
        suits = rng.sample(range(4), 2)
        wall = [k for k in wall if min(k // 9, 3) in suits]
    kind = CODES[rng.randrange(34)]
    extra = {"xiamen": {"gold": kind}, "zhenjiang": {"wild": kind}}.get(rules, {})
    seen = [0] * 34
    for k in wall[size:size + rng.randrange(4, 30)]:
        seen[k] += 1
    return "".join(CODES[k] for k in wall[:size]), extra, seen


@pytest.mark.parametrize("rules", ["mcr", "xiamen", "zhenjiang"])
def test_seen_changes_only_the_tiles_left_as_counted_by_hand(rules: str) -> None:
    """Seeing tiles changes no shape: each discard's waits are those found without
    ``seen``, each with 4 less the hand that drew's and the seen copies left (counted
    here, the hand's tiles as written), no score where none is left, else the same
    score — but under MCR with 和绝张 (4 fan) added where one copy is left and the kept
    hand holds none standing (the other three in sight); the useful draws
    are the kinds with a copy left, each with that count; ``live`` says whether a wait
    has one; and the live ready discards come first, then those ready in form only,
    then those one or more from ready (the order rule)."""
    rng = random.Random(74)
    rs = scoring.get_rule_set(rules)
    checked = form_only = 0
    for _ in range(6 if rules == "mcr" else 3):
        text, extra, seen = _random_drawn(rng, rules)
        hand = scoring.parse_hand(text)
        written = [0] * 34
        for t in hand.standing:
            written[T.index(t)] += 1
        gone = [written[k] + seen[k] for k in range(34)]
        try:
            plain = scoring.discards(hand, rules=rules, **extra)
        except scoring.HandError:  # a hand the rules refuse (a fifth 白板 in Xiamen)
            continue
        shown = "".join(CODES[k] * n for k, n in enumerate(seen))
        got = scoring.discards(hand, rules=rules, seen=shown, **extra)
        before = {x.tile: x for x in plain.discards}
        for x in got.discards:
            old = before[x.tile]
            assert x.waits.shanten == old.waits.shanten
            assert [t.tile for t in x.waits.waits] == [t.tile for t in old.waits.waits]
            kept = list(hand.standing)
            kept.remove(x.tile)
            for t, o in zip(x.waits.waits, old.waits.waits, strict=True):
                left = max(0, 4 - gone[T.index(t.tile)])
                assert t.remaining == left, (text, x.tile, t.tile)
                if rules == "mcr" and left == 1 and t.tile not in kept:  # 和绝张 (4 fan)
                    for s, plain_s in ((t.discard, o.discard), (t.self_drawn, o.self_drawn)):
                        assert s is not None and plain_s is not None
                        assert s.total == plain_s.total + 4, (text, x.tile, t.tile)
                        assert "和绝张" in [f.zh for f in s.fans]
                    continue
                assert (t.discard, t.self_drawn) == ((o.discard, o.self_drawn) if left
                                                     else (None, None))
            assert x.live == (x.waits.ready and any(t.remaining for t in x.waits.waits))
            if old.useful is None:
                assert x.useful is None
            else:
                assert x.useful is not None
                want = [(u.tile, 4 - gone[T.index(u.tile)]) for u in old.useful
                        if gone[T.index(u.tile)] < 4]
                assert [(u.tile, u.remaining) for u in x.useful] == want
            checked += 1
            form_only += x.waits.ready and not x.live
        first = next((i for i, x in enumerate(got.discards)
                      if x.waits.ready and not x.live), len(got.discards))
        assert all(not x.live for x in got.discards[first:]), text
        kinds = [(0 if x.live else 1 if x.waits.ready else 2) for x in got.discards]
        assert kinds == sorted(kinds), text
        assert rs.name == got.rules
    assert checked > 20


def test_useful_draws_with_seen_match_the_reference_calculator() -> None:
    """MCR, against pymahjonggb's shanten (brute force): a kind is a useful draw of a
    discard not ready when a copy is left — 4 less the hand that drew's and the seen —
    and the kept hand with it drawn has a discard nearer to ready; its count is the
    copies left."""
    pytest.importorskip("MahjongGB", reason="pymahjonggb (dev extra) is not installed")
    from MahjongGB import MahjongShanten
    from oracle_differences import ref_tile

    def ref_shanten(tiles: list[str]) -> int:
        return int(MahjongShanten(pack=(), hand=tuple(ref_tile(t) for t in tiles)))

    rng = random.Random(75)
    compared = 0
    for _ in range(4):
        text, _extra, seen = _random_drawn(rng, "mcr")
        hand = scoring.parse_hand(text)
        gone = [seen[k] + hand.standing.count(CODES[k]) for k in range(34)]
        shown = "".join(CODES[k] * n for k, n in enumerate(seen))
        for x in scoring.discards(hand, seen=shown).discards:
            if x.waits.ready:
                continue
            kept = list(hand.standing)
            kept.remove(x.tile)
            now = ref_shanten(kept)
            want = []
            for k in range(34):
                if gone[k] >= 4:
                    continue
                drawn = [*kept, CODES[k]]
                after = min(ref_shanten(drawn[:i] + drawn[i + 1:]) for i in range(14))
                if after < now:
                    want.append((CODES[k], 4 - gone[k]))
            assert [(u.tile, u.remaining) for u in x.useful or ()] == want, (text, x.tile)
            compared += 1
    assert compared > 20


def test_seen_groups_end_at_spaces_and_commas() -> None:
    """Rule (the notation of ``seen``): a space or comma ends a group, so ranks left
    without a suit letter are refused, not joined to the next group's letter."""
    with pytest.raises(scoring.HandError, match="need a suit letter"):
        scoring.waits("123m456p789sEESS", seen="1, 5m")
    assert scoring.waits("123m456p789sEESS", seen="123m 4p,5p").to_dict()["seen"] == "123m45p"


def test_seen_text_is_bounded() -> None:
    """Rule: ``seen`` holds at most the table's tiles; a text far longer is refused at once
    (a long run of digits read as one group took seconds)."""
    with pytest.raises(scoring.HandError, match="2000 characters"):
        scoring.waits("123m456p789sEESS", seen="1" * 2000)
