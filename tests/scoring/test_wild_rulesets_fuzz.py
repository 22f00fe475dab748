"""Random hands through the Xiamen and Zhenjiang rule sets: a Score or a HandError, never
another exception; a legal result always pays; settle() agrees with score()."""

from __future__ import annotations

import random

import pytest

import scoring
import scoring.rulesets.zhenjiang
from scoring import HandError
from scoring import tiles as T

XIAMEN_WINS = ("plain", "游金", "双游", "三游", "三金倒", "天听", "天和")


def random_standing(rng: random.Random, size: int, bias: list[str]) -> list[str]:
    """``size`` tiles, at most 4 of a kind, drawn mostly from ``bias`` kinds."""
    out: list[str] = []
    while len(out) < size:
        t = rng.choice(bias) if rng.random() < 0.7 else rng.choice(T.KINDS)
        if out.count(t) < 4:
            out.append(t)
    return out


def complete_standing(rng: random.Random, sets: int, wild: str) -> list[str]:
    """A complete natural hand of ``sets`` sets and a pair, with some tiles then replaced
    by the wild kind (so wild readings are exercised); at most 4 of a kind."""
    while True:
        out = [rng.choice(T.KINDS)] * 2
        for _ in range(sets):
            i = rng.randrange(34)
            if i < 27 and i % 9 <= 6 and rng.random() < 0.6:
                out += [T.code(i), T.code(i + 1), T.code(i + 2)]
            else:
                out += [T.code(i)] * 3
        for _ in range(rng.randrange(3)):
            out[rng.randrange(len(out))] = wild
        rng.shuffle(out)
        if all(out.count(t) <= 4 for t in out):
            return out


@pytest.mark.parametrize("seed", range(4))
def test_xiamen_random_hands_score_or_raise_hand_error(seed: int) -> None:
    rng = random.Random(seed)
    rule_set = scoring.get_rule_set("xiamen")
    legal = 0
    for _ in range(120):
        gold = rng.choice(T.KINDS)
        bias = [gold, "P", *rng.sample(T.KINDS, 6)]
        if rng.random() < 0.5:
            standing = complete_standing(rng, 5, gold)
        else:
            standing = random_standing(rng, rng.choice((16, 17, 17, 17)), bias)
        hand = scoring.Hand.from_tiles(standing, flowers=rng.sample(T.FLOWERS, rng.randrange(3)))
        win = rng.choice(XIAMEN_WINS)
        kw = {"gold": gold, "win": win, "dealer": rng.random() < 0.5,
              "self_drawn": rng.random() < 0.5}
        try:
            s = scoring.score(hand, rules="xiamen", **kw)
        except HandError as exc:
            assert str(exc)
            continue
        if s.legal:
            legal += 1
            assert s.total > 0
            # Each payer pays unit × multiplier, capped at the 100 chips they have.
            assert {p.amount for p in s.settlement.payments} == {min(s.total, 100)}
            ctx = scoring.WinContext(self_drawn=bool(kw["self_drawn"]),
                                     extra=rule_set.resolve_context(
                                         {k: v for k, v in kw.items() if k != "self_drawn"}))
            again = rule_set.settle(hand, s.total, True, ctx, rule_set.resolve_settings())
            assert again == s.settlement
        else:
            assert s.details["reason"]
    assert legal >= 8  # the generator must reach real wins


@pytest.mark.parametrize("seed", range(4))
def test_zhenjiang_random_hands_score_or_raise_hand_error(seed: int) -> None:
    rng = random.Random(100 + seed)
    legal = 0
    for _ in range(120):
        indicator = rng.choice(T.KINDS)
        bias = rng.sample(T.KINDS, 6)
        melds = []
        if rng.random() < 0.3:
            melds.append(scoring.Meld.kong(rng.choice(T.KINDS), rng.choice((None, 1, 2, 3))))
        if rng.random() < 0.5:
            wild = scoring.rulesets.zhenjiang.wild_from_indicator(indicator)
            standing = complete_standing(rng, 4 - len(melds), wild)
        else:
            standing = random_standing(rng, 14 - 3 * len(melds), bias)
        try:
            hand = scoring.Hand.from_tiles(standing, melds=melds)
            s = scoring.score(hand, rules="zhenjiang", indicator=indicator,
                              self_drawn=rng.random() < 0.5, kong=rng.random() < 0.3)
        except HandError as exc:
            assert str(exc)
            continue
        if s.legal:
            assert s.total > 0
            legal += 1
        else:
            assert "诈胡" in s.details["reason"]
            assert [p.amount for p in s.settlement.payments] == [-6, -6, -6]
        assert sum(s.details["net"].values()) == 0
    assert legal >= 20  # the generator must reach real wins


@pytest.mark.parametrize("rules", ["xiamen", "zhenjiang"])
def test_waits_list_exactly_the_tiles_that_complete_a_win_with_their_scores(rules: str) -> None:
    """听 (waits) agrees with the scorer: for random hands one tile short (a complete hand
    less a tile, a few tiles the wild kind, some with one tile changed), a tile is listed
    exactly when the hand with it scores a legal win on a discard or a self-draw, each
    listed score has that win's total, and a hand is ready (shanten 0) exactly when it
    lists a tile. A fifth copy is never a wait."""
    rng = random.Random(62 if rules == "xiamen" else 63)
    sets = 5 if rules == "xiamen" else 4
    ready = 0
    for _ in range(40):
        indicator = rng.choice(T.KINDS)
        wild = (indicator if rules == "xiamen"
                else scoring.rulesets.zhenjiang.wild_from_indicator(indicator))
        standing = complete_standing(rng, sets, wild)
        standing.pop(rng.randrange(len(standing)))
        if rng.random() < 0.3:
            standing[rng.randrange(len(standing))] = rng.choice(T.KINDS)
        if any(standing.count(t) > 4 for t in standing):
            continue
        hand = "".join(standing)
        ctx = {"gold": indicator} if rules == "xiamen" else {"indicator": indicator}
        waits = scoring.waits(hand, rules=rules, **ctx)
        listed = {w.tile: w for w in waits.waits}
        assert waits.ready == bool(listed), hand
        ready += waits.ready
        for kind in T.KINDS:
            if standing.count(kind) == 4:
                assert kind not in listed, (hand, kind)
                continue
            totals = []
            for self_drawn in (False, True):
                try:
                    s = scoring.score(hand + kind, rules=rules, self_drawn=self_drawn, **ctx)
                    totals.append(s.total if s.legal else None)
                except HandError:
                    totals.append(None)
            if kind not in listed:
                assert totals == [None, None], (hand, indicator, kind, totals)
                continue
            entry = listed[kind]
            assert [None if s is None or not s.legal else s.total
                    for s in (entry.discard, entry.self_drawn)] == totals, (hand, kind)
    assert ready >= 15  # the generator must reach ready hands
