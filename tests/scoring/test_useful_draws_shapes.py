"""Useful draws (有效牌) counted by shape alone: each rule set's ``draw_shanten`` (MCR's
``scoring.mcr.waits.shanten``, the wild rule sets' ``scoring.wild.shanten`` of a hand
that drew) answers as the rule set's own waits do of every discard of every drawn hand,
and ``scoring.discards`` asks the waits once per discard only (session 73: asking the
waits made a random MCR hand's 何切 about 200 times slower, a Xiamen one's up to 3 s)."""

from __future__ import annotations

import itertools
import random

import pytest

import scoring
from scoring import tiles as T
from scoring import wild
from scoring.mcr import waits as mcr_waits
from scoring.rulesets.base import RuleSet, WinContext

CODES = [T.code(k) for k in range(T.NUM_KINDS)]


def _by_waits(rs: RuleSet, hand: scoring.Hand, draws: list[str], context: WinContext,
              settings: dict[str, object]) -> tuple[int, ...]:
    """The shanten after each draw as the rule set's waits tell it: the least over the
    drawn hand's discards of each kept hand's shanten."""
    out = []
    for tile in draws:
        drawn = scoring.Hand(hand.melds, (*hand.standing, tile), hand.flowers)
        out.append(min(
            rs.waits(scoring.Hand(drawn.melds, tuple(drawn.standing[:i] + drawn.standing[i + 1:]),
                                  drawn.flowers), context, settings).shanten
            for i in range(len(drawn.standing))))
    return tuple(out)


def _random_short(rng: random.Random, rules: str) -> tuple[str, dict[str, str]]:
    """A hand one tile short dealt from a shuffled wall (half of them from two suits),
    and its gold / 百搭."""
    size = scoring.get_rule_set(rules).hand_size - 1
    wall = [k for k in range(34) for _ in range(4)]
    rng.shuffle(wall)
    if rng.random() < 0.5:
        suits = rng.sample(range(4), 2)
        wall = [k for k in wall if min(k // 9, 3) in suits]
    kind = CODES[rng.randrange(34)]
    extra = {"xiamen": {"gold": kind}, "zhenjiang": {"wild": kind}}.get(rules, {})
    return "".join(CODES[k] for k in wall[:size]), extra


@pytest.mark.parametrize("rules", ["mcr", "xiamen", "zhenjiang"])
def test_draw_shanten_by_shape_equals_the_waits_of_every_discard(rules: str) -> None:
    """The rule set's shanten after each draw, counted by shape, against its waits."""
    rs = scoring.get_rule_set(rules)
    assert type(rs).draw_shanten is not RuleSet.draw_shanten
    settings = scoring.resolved_settings(rs, None, None)
    rng = random.Random(73)
    for _ in range(3):
        text, extra = _random_short(rng, rules)
        hand = scoring.parse_hand(text)
        ctx = WinContext(extra=rs.resolve_context(extra))
        draws = [CODES[k] for k, n in enumerate(rs.held(hand, ctx)) if n < 4]
        assert rs.draw_shanten(hand, draws, ctx, settings) == _by_waits(
            rs, hand, draws, ctx, settings), (text, extra)


@pytest.mark.parametrize(("hand", "rules", "context"), [
    ("456m789p4s5s7s9sEESS", "mcr", {}),
    ("1p5p7m2p3s9sN6m1m1s8m2sS7s", "mcr", {}),
    ("6s1m5m3s6m7m2m8s1pS9p2p7s4m7p5p8m", "xiamen", {"gold": "6s"}),
    ("4p5m8p3m3s1sS2p6mWF8m1p7m", "zhenjiang", {"wild": "4s"}),
])
def test_discards_ask_the_waits_once_per_discard(
        hand: str, rules: str, context: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The useful draws are counted by shape: the waits (which score trial wins once a
    hand is ready) are asked once for each distinct discard, not for each draw."""
    rs = scoring.get_rule_set(rules)
    asked: list[str] = []
    real = type(rs).waits

    def counted(self: RuleSet, *args: object) -> scoring.Waits:
        asked.append(str(args[0]))
        return real(self, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(type(rs), "waits", counted)
    d = scoring.discards(hand, rules=rules, **context)
    assert d.shanten >= 1 and any(x.useful for x in d.discards)
    assert len(asked) == len(set(scoring.parse_hand(hand).standing))


def test_zhenjiang_useful_draws_leave_out_the_wilds_named_discarded() -> None:
    """A 百搭 named discarded (打首搭) is a copy gone: one fewer to draw, as for the
    waits (zhenjiang ``held``)."""
    plain = scoring.discards("1m9p2s5sESWNCFP3m6p8s", rules="zhenjiang", wild="5p")
    named = scoring.discards("1m9p2s5sESWNCFP3m6p8s", rules="zhenjiang", wild="5p",
                             first_wild_discard="left")
    for a, b in zip(plain.discards, named.discards, strict=True):
        left = {u.tile: u.remaining for u in a.useful}
        less = {u.tile: u.remaining for u in b.useful}
        assert left["5p"] == 4 and less["5p"] == 3


def test_xiamen_useful_draws_count_a_melded_stand_in_as_a_white() -> None:
    """Xiamen (RULES.md: 白板 stands in for the gold's face, and can pung as it): a meld
    [555m,1] under gold 5m is three 白板, so one white is left to draw, and four 5m."""
    d = scoring.discards("[555m,1]1p4p7p1s4s7sESWNCF9m2m", rules="xiamen", gold="5m")
    for x in d.discards:
        kinds = {u.tile: u.remaining for u in x.useful}
        assert kinds.get("5m") == 4 and kinds.get("P", 1) == 1


def test_wild_shanten_of_a_hand_that_drew_is_its_best_discards() -> None:
    """``scoring.wild.shanten`` of 3n + 2 tiles: the least over its discards."""
    rng = random.Random(5)
    for _ in range(300):
        c = [0] * 34
        while sum(c) < 11:
            k = rng.randrange(34)
            if c[k] < 4:
                c[k] += 1
        wilds = rng.randint(0, 3)
        total = sum(c) + wilds
        if total % 3 != 2:
            continue
        options = [wild.shanten([n - (i == k) for i, n in enumerate(c)], wilds)
                   for k in range(34) if c[k]]
        if wilds:
            options.append(wild.shanten(c, wilds - 1))
        assert wild.shanten(c, wilds) == min(options), (c, wilds)


def _walked_blocks(counts: tuple[int, ...], honours: bool) -> tuple[tuple[int, int, int], ...]:
    """The exhaustive walk ``_suit_blocks`` replaced (every reading of the suit)."""
    best: set[tuple[int, int, int]] = set()
    work = list(counts)

    def walk(i: int, m: int, t: int, p: int) -> None:
        while i < len(work) and work[i] == 0:
            i += 1
        if i == len(work):
            best.add((m, t, p))
            return
        moves: list[tuple[tuple[int, ...], int, int, int]] = []
        if work[i] >= 3:
            moves.append(((i, i, i), 1, 0, 0))
        if not honours and i + 2 < len(work) and work[i + 1] and work[i + 2]:
            moves.append(((i, i + 1, i + 2), 1, 0, 0))
        if work[i] >= 2:
            moves.append(((i, i), 0, 0, 1) if p == 0 else ((i, i), 0, 1, 0))
        if not honours and i + 1 < len(work) and work[i + 1]:
            moves.append(((i, i + 1), 0, 1, 0))
        if not honours and i + 2 < len(work) and work[i + 2]:
            moves.append(((i, i + 2), 0, 1, 0))
        moves.append(((i,), 0, 0, 0))
        for taken, dm, dt, dp in moves:
            for k in taken:
                work[k] -= 1
            walk(i, m + dm, t + dt, p + dp)
            for k in taken:
                work[k] += 1

    walk(0, 0, 0, 0)
    return tuple(sorted(b for b in best if not any(
        o != b and all(x >= y for x, y in zip(o, b, strict=True)) for o in best)))


def test_mcr_suit_blocks_memoised_equal_the_walk() -> None:
    """MCR's per-suit blocks, memoised on what is left of the suit, equal every reading
    walked: each suit of at most 6 tiles, and random ones of 7-14."""
    for size, honours in ((9, False), (7, True)):
        for c in itertools.product(range(5), repeat=size):
            if sum(c) <= 6:
                assert mcr_waits._suit_blocks(c, honours) == _walked_blocks(c, honours), c
    rng = random.Random(7)
    for _ in range(300):
        c = [0] * 9
        while sum(c) < rng.randint(7, 14):
            k = rng.randrange(9)
            if c[k] < 4:
                c[k] += 1
        key = tuple(c)
        assert mcr_waits._suit_blocks(key, False) == _walked_blocks(key, False), key


# --- the ranking (session 73, finding 2) ---------------------------------------------


def test_discards_not_ready_rank_by_useful_draws() -> None:
    """Finding 2 (有效牌): below ready, the discards of one shanten rank by their useful
    draws — the tiles left whose draw lowers the shanten (here a pymahjonggb brute force
    gives the same). 456m789p4s5s7s9sEESS: discarding 4s, 7s, 9s, E or S keeps 12 useful
    tiles, discarding 5s only 8 (8s E S); before, all six ranked in tile order, 5s second."""
    d = scoring.discards("456m789p4s5s7s9sEESS")
    assert d.shanten == 1 and not d.ready_after
    assert [(x.tile, x.waits.shanten, x.useful_draws) for x in d.discards[:6]] == [
        ("4s", 1, 12), ("7s", 1, 12), ("9s", 1, 12), ("E", 1, 12), ("S", 1, 12), ("5s", 1, 8)]
    four = d.discards[0]
    # copies left: 4 less the hand's (the discarded 4s counted: it lies dead)
    assert [(u.tile, u.remaining) for u in four.useful] == [("6s", 4), ("8s", 4), ("E", 2),
                                                            ("S", 2)]
    assert four.to_dict()["useful"] == [{"tile": "6s", "remaining": 4},
                                        {"tile": "8s", "remaining": 4},
                                        {"tile": "E", "remaining": 2},
                                        {"tile": "S", "remaining": 2}]
    assert four.to_dict()["useful_draws"] == 12
    assert all(x.to_dict()["useful_draws"] is None for x in scoring.discards(
        "[EEE,2]123m456p789sN1s").ready_after)


def test_useful_draws_of_a_regional_hand_count_the_wild_and_skip_what_is_gone() -> None:
    """Finding 2 under Zhenjiang (百搭 5p): a 百搭 drawn always brings a hand not ready
    nearer (it stands for any tile), and a kind the hand holds four of is no draw."""
    d = scoring.discards("1m1m1m1m9p2s5sESWNCFP", rules="zhenjiang", wild="5p")
    assert d.shanten >= 1
    for x in d.discards:
        if x.waits.shanten == 0:
            continue
        kinds = {u.tile: u.remaining for u in x.useful}
        assert kinds["5p"] == 4 and "1m" not in kinds
    keys = [(x.waits.shanten, -x.useful_draws) for x in d.discards]
    assert keys == sorted(keys)


def test_rules_that_count_no_shapes_alone_rank_discards_without_useful_draws(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A rule set without its own ``draw_shanten`` (the base's None) still answers what to
    discard: no useful draws counted (``useful_draws`` null), the order as before them."""
    rs = scoring.get_rule_set("mcr")
    monkeypatch.setattr(type(rs), "draw_shanten", RuleSet.draw_shanten)
    d = scoring.discards("19m19p19s1234567z5m")
    not_ready = [x for x in d.discards if not x.waits.ready]
    assert not_ready and all(x.useful is None for x in not_ready)
    assert all(x.to_dict()["useful_draws"] is None for x in not_ready)
