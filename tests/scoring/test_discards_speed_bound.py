"""The wait analysis of wild hands does work in proportion to the hand, not to its
readings (security review finding 3): a 17-tile Xiamen hand that drew holding four golds
took 4–9 s for ``scoring.discards``, as each of its ~200 trial wins listed every reading
(over 2,000 each) to show one. The regional scorers now build the one reading they show
(:func:`scoring.wild.best_reading`); these tests pin that it is the reading the full
listing picked, and that the listing is no longer made. No timing is asserted.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import pytest

import scoring
from scoring import tiles as T
from scoring import wild
from scoring.rulesets import xiamen, zhenjiang
from scoring.wild import Decomposition, best_reading, decompositions

#: The review's hands: 17 Xiamen tiles of one suit with four golds (gold 1m), drawn.
REVIEW_HANDS = ("11112223334445556m", "11113334445556667m")


def listed_choice(counts: Sequence[int], wilds: int = 0, *, free_face: int | None = None,
                  pair: bool = True, weights: Sequence[int] | None = None
                  ) -> Decomposition | None:
    """What the scorers chose before: every reading listed, the first with the most pung
    weight (Xiamen's ``_best_water``: ``water > best``), the first of all with none."""
    readings = decompositions(counts, wilds, free_face=free_face, pair=pair)
    if not readings:
        return None
    weight = list(weights) if weights is not None else [0] * T.NUM_KINDS

    def value(r: Decomposition) -> int:
        return sum(weight[s.kind] for s in r if s.shape == "pung")

    top = max(value(r) for r in readings)
    return next(r for r in readings if value(r) == top)


def random_counts(rng: random.Random) -> tuple[list[int], int, bool]:
    """A random complete hand (often from one or two suits), some tiles turned wild, and
    now and then a tile swapped so that it may not be complete."""
    pair = rng.random() < 0.8
    suits = rng.sample(range(4), rng.choice((1, 2, 4)))
    kinds = [k for k in range(34) if min(k // 9, 3) in suits]
    while True:
        c = [0] * 34
        if pair:
            c[rng.choice(kinds)] += 2
        for _ in range(rng.randint(1, 5)):
            k = rng.choice(kinds)
            if k < 27 and k % 9 <= 6 and rng.random() < 0.6:
                for d in range(3):
                    c[k + d] += 1
            else:
                c[k] += 3
        if max(c) <= 4:
            break
    held = [k for k, n in enumerate(c) for _ in range(n)]
    wilds = min(rng.randint(0, 4), len(held))
    for k in rng.sample(held, wilds):
        c[k] -= 1
    if rng.random() < 0.2:
        a, b = rng.randrange(34), rng.randrange(34)
        if c[a] and c[b] < 4:
            c[a] -= 1
            c[b] += 1
    return c, wilds, pair


def test_the_reading_built_is_the_one_the_full_listing_picked() -> None:
    """For every weighting (none: Zhenjiang's first reading; a triplet's 水 by number or
    honour: Xiamen's; any per kind), with or without the pair, complete or not."""
    rng = random.Random(70)
    for _ in range(1500):
        counts, wilds, pair = random_counts(rng)
        face = rng.randrange(34)
        pick = rng.random()
        if pick < 0.3:
            weights = None
        elif pick < 0.8:
            number, honour = rng.randrange(4), rng.randrange(4)
            weights = [honour if T.is_honour(k) else number for k in range(34)]
        else:
            weights = [rng.randrange(5) for _ in range(34)]
        got = best_reading(counts, wilds, free_face=face, pair=pair, weights=weights)
        want = listed_choice(counts, wilds, free_face=face, pair=pair, weights=weights)
        assert got == want, (counts, wilds, face, pair, weights)


def test_a_reading_with_a_chow_in_a_place_sorts_before_one_with_a_pung_there() -> None:
    """The readings' order (a reading is sorted pair, pungs, chows, and readings compare
    set by set, shape name first): with no weight the first reading holds as few pungs as
    it can — 111222333m read as three chows before three pungs."""
    c = [0] * 34
    for k in (0, 1, 2):
        c[k] = 3
    c[27] = 2
    first = best_reading(c)
    assert first == decompositions(c)[0]
    assert [s.shape for s in first or ()] == ["pair", "chow", "chow", "chow"]
    most = best_reading(c, weights=[1] * 34)
    assert [s.shape for s in most or ()] == ["pair", "pung", "pung", "pung"]


def test_best_reading_refuses_weights_it_cannot_use() -> None:
    with pytest.raises(ValueError, match="34 numbers"):
        best_reading([0] * 34, 2, weights=[1, 2])
    with pytest.raises(ValueError, match="none negative"):
        best_reading([0] * 34, 2, weights=[-1] * 34)
    assert best_reading([0] * 34, 2, free_face=5) == (wild.WildSet("pair", (5, 5), (5, 5)),)
    assert best_reading([0] * 34, 3) is None  # 3n + 2 tiles or nothing


@pytest.fixture
def listings(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[str, int]]]:
    """The full listings of readings the regional scorers ask for: (module, wilds)."""
    made: list[tuple[str, int]] = []
    for module in (xiamen, zhenjiang):
        def counted(counts: Sequence[int], wilds: int = 0, *args: Any,
                    _name: str = module.__name__,
                    _real: Callable[..., Any] = decompositions, **kwargs: Any) -> Any:
            made.append((_name, wilds))
            return _real(counts, wilds, *args, **kwargs)

        monkeypatch.setattr(module, "decompositions", counted)
    yield made


@pytest.mark.parametrize("hand", REVIEW_HANDS)
def test_a_xiamen_hand_with_four_golds_that_drew_lists_no_readings(
        hand: str, listings: list[tuple[str, int]]) -> None:
    """The review's hands: six discards × 34 trial wins, each self-drawn win's 水 read
    off one reading built for it; before, each trial listed its 800–2,100 readings
    (about 200 listings a hand)."""
    d = scoring.discards(hand, rules="xiamen", gold="1m")
    assert listings == []
    assert d.shanten == 0 and len(d.discards) == 6
    assert all(len(x.waits.waits) >= 33 for x in d.discards)


def test_a_zhenjiang_hand_lists_readings_only_without_its_wilds(
        listings: list[tuple[str, int]]) -> None:
    """Zhenjiang shows the first reading, or one with every 百搭 as its own face (脱搭):
    only such natural hands' readings are listed (a few), never those with wilds."""
    d = scoring.discards("11112223334445m", rules="zhenjiang", wild="1m")
    assert d.shanten == 0 and d.discards[0].waits.waits
    assert all(wilds == 0 for _module, wilds in listings)
    plain = scoring.score("123m456m789m111p55p", rules="zhenjiang", wild="5p", self_drawn=True)
    assert plain.details["no_wild"]
    assert [s["wild"] for s in plain.details["reading"]] == [[]] * 5
    assert (zhenjiang.__name__, 0) in listings


def _listed_scorers(monkeypatch: pytest.MonkeyPatch) -> None:
    """The regional scorers as they were: the reading chosen from the full listing."""
    monkeypatch.setattr(xiamen, "best_reading", listed_choice)
    monkeypatch.setattr(zhenjiang, "best_reading", listed_choice)


@pytest.mark.parametrize(("hand", "rules", "context"), [
    ("1112223334445556m", "xiamen", {"gold": "1m"}),    # three golds, one suit: waits
    ("1m1m1mEEE234p567s789s9s", "xiamen", {"gold": "E"}),  # three golds beside sets
    ("[EEE,1]1m1m2m3m4m5m9m9mC1pC1p2p3p1f", "xiamen", {"gold": "9m"}),  # drew, a flower
    ("11112223334445m", "zhenjiang", {"wild": "1m"}),   # four 百搭, drew
    ("5553334446667p", "zhenjiang", {"wild": "5p"}),    # three 百搭, waits
])
def test_analyses_answer_as_the_full_listing_did(
        hand: str, rules: str, context: dict[str, Any],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Waits and 何切 of wild hands, every score in them (fans, the sets a gold stands
    in): the same answer when the reading is chosen from the full listing."""
    parsed = scoring.parse_hand(hand)
    drew = parsed.tile_count == scoring.get_rule_set(rules).hand_size
    fn: Any = scoring.discards if drew else scoring.waits
    now = fn(hand, rules=rules, **context).to_dict()
    with monkeypatch.context() as m:
        _listed_scorers(m)
        before = fn(hand, rules=rules, **context).to_dict()
    assert now == before


def test_xiamen_scores_show_the_reading_the_full_listing_chose(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Every self-drawn win among Xiamen's trial wins of a few wild hands, scored both
    ways, whatever the 水 of a triplet (the choice weighs it)."""
    hands = ["1111222333444555m", "111m222p333sEEE456s9m", "1234567899m11p223sC"]
    waters = [{}, {"water_concealed_triplet": 0},
              {"water_concealed_triplet": 4, "water_concealed_triplet_honour": 0}]
    compared = 0
    for text in hands:
        for settings in waters:
            for kind in range(T.NUM_KINDS):
                trial = text + T.code(kind)
                try:
                    now = scoring.score(trial, rules="xiamen", gold="1m", self_drawn=True,
                                        settings=settings).to_dict()
                except scoring.HandError:
                    continue
                with monkeypatch.context() as m:
                    _listed_scorers(m)
                    before = scoring.score(trial, rules="xiamen", gold="1m", self_drawn=True,
                                           settings=settings).to_dict()
                assert now == before, (trial, settings)
                compared += now["legal"]
    assert compared > 50
