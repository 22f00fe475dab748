"""Wild tiles in decomposition (scoring.wild): completeness, readings, waits."""

from __future__ import annotations

import random
from functools import cache
from itertools import combinations_with_replacement

import pytest

from scoring import tiles as T
from scoring.wild import completing_kinds, decompositions, is_complete


def counts_of(codes: str) -> list[int]:
    """Count vector from space-free codes like ``"1m2m3mEE"`` → 34 ints (honours 1 char)."""
    out = [0] * 34
    i = 0
    while i < len(codes):
        if codes[i].isdigit():
            out[T.index(codes[i : i + 2])] += 1
            i += 2
        else:
            out[T.index(codes[i])] += 1
            i += 1
    return out


@cache
def natural_complete(counts: tuple[int, ...], pair: bool = True) -> bool:
    """Independent brute-force checker for a natural hand: sets + exactly one pair."""
    i = next((k for k, c in enumerate(counts) if c), -1)
    if i < 0:
        return not pair
    c = list(counts)
    if pair and c[i] >= 2:
        c[i] -= 2
        if natural_complete(tuple(c), False):
            return True
        c[i] += 2
    if c[i] >= 3:
        c[i] -= 3
        if natural_complete(tuple(c), pair):
            return True
        c[i] += 3
    if i < 27 and i % 9 <= 6 and c[i + 1] and c[i + 2]:
        c[i] -= 1
        c[i + 1] -= 1
        c[i + 2] -= 1
        if natural_complete(tuple(c), pair):
            return True
    return False


def brute_force(counts: list[int], k: int) -> bool:
    """Complete iff some substitution of the k wilds (any kinds, all 34) is complete."""
    if (sum(counts) + k) % 3 != 2:
        return False
    for kinds in combinations_with_replacement(range(34), k):
        trial = list(counts)
        for x in kinds:
            trial[x] += 1
        if natural_complete(tuple(trial)):
            return True
    return False


def random_hand(rng: random.Random, n_sets: int) -> list[int]:
    """A random complete natural hand of n_sets sets + pair (tiles from a small pool)."""
    c = [0] * 34
    pool = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 27, 28, 31]
    p = rng.choice(pool)
    c[p] += 2
    for _ in range(n_sets):
        i = rng.choice(pool)
        if i < 27 and i % 9 <= 6 and rng.random() < 0.6:
            for d in range(3):
                c[i + d] += 1
        else:
            c[i] += 3
    return c


def test_property_wild_complete_iff_some_substitution_is_complete() -> None:
    """A hand with k wilds is complete iff some substitution makes a natural complete hand."""
    rng = random.Random(20261129)
    cases = 0
    positives = 0
    for trial in range(360):
        k = rng.choice((0, 1, 1, 2, 2, 3)) if trial % 12 else 3
        n_sets = rng.choice((0, 1, 2, 3))
        if rng.random() < 0.5:
            # A complete hand with k tiles turned into wilds (the natural tile removed).
            c = random_hand(rng, n_sets)
            tiles = [i for i, n in enumerate(c) for _ in range(n)]
            for x in rng.sample(tiles, min(k, len(tiles))):
                c[x] -= 1
            # Perturb sometimes so negatives near positives are covered too.
            if rng.random() < 0.4:
                x = rng.choice([i for i, n in enumerate(c) if n] or [0])
                if c[x]:
                    c[x] -= 1
                    c[rng.randrange(34)] += 1
        else:
            size = 3 * n_sets + 2 - k
            c = [0] * 34
            for _ in range(max(size, 0)):
                c[rng.choice((0, 1, 2, 3, 4, 6, 8, 9, 10, 12, 27, 33))] += 1
        expected = brute_force(c, k)
        assert is_complete(c, k) is expected, (c, k)
        assert bool(decompositions(c, k)) is expected, (c, k)
        cases += 1
        positives += expected
    # The generator must exercise both outcomes, or the property says little.
    assert positives > 60
    assert cases - positives > 60


def test_every_reading_is_a_valid_substitution() -> None:
    """Each reading's faces are the natural tiles plus one face per wild."""
    rng = random.Random(7)
    for _ in range(60):
        c = random_hand(rng, 3)
        tiles = [i for i, n in enumerate(c) for _ in range(n)]
        for x in rng.sample(tiles, 2):
            c[x] -= 1
        for reading in decompositions(c, 2):
            natural = [0] * 34
            wild_used = 0
            for s in reading:
                for f in s.natural_faces:
                    natural[f] += 1
                wild_used += len(s.wild_faces)
                if s.shape == "chow":
                    assert s.faces[1] == s.faces[0] + 1 and s.faces[2] == s.faces[0] + 2
                else:
                    assert len(set(s.faces)) == 1
            assert natural == c
            assert wild_used == 2
            assert [s.shape for s in reading].count("pair") == 1


def test_readings_show_which_sets_use_a_wild() -> None:
    # 1m 2m  4p 5p 6p  E E + one wild: the only reading uses the wild as 3m.
    readings = decompositions(counts_of("1m2m4p5p6pEE"), 1, free_face=T.index("5s"))
    assert [[str(s) for s in r] for r in readings] == [
        ["pair E E", "chow 1m 2m 3m(wild)", "chow 4p 5p 6p"],
    ]
    only = readings[0]
    assert [s.uses_wild for s in only] == [False, True, False]
    assert only[1].to_dict() == {"shape": "chow", "tiles": ["1m", "2m", "3m"], "wild": ["3m"]}


def test_sets_of_wilds_only_read_as_the_wild_kind() -> None:
    # 123p + five wilds: pair and pung made only of wilds, read as the wild kind 5s.
    c = counts_of("1p2p3p")
    five = T.index("5s")
    readings = decompositions(c, 5, free_face=five)
    assert ("pair 5s(wild) 5s(wild)", "pung 5s(wild) 5s(wild) 5s(wild)", "chow 1p 2p 3p") in {
        tuple(str(s) for s in r) for r in readings
    }
    assert is_complete([0] * 34, 2)
    assert not is_complete([0] * 34, 3)


def test_wild_may_stand_for_a_fifth_copy() -> None:
    # 1m x4 + one wild: pung 1m1m1m and the pair 1m + 1m(wild), a fifth 1m face.
    c = counts_of("1m1m1m1m")
    assert not is_complete(c, 0)
    assert is_complete(c, 1)
    faces = {tuple(str(s) for s in r) for r in decompositions(c, 1)}
    assert ("pair 1m 1m(wild)", "pung 1m 1m 1m") in faces


def test_wrong_size_is_not_complete() -> None:
    assert not is_complete(counts_of("1m2m3m"), 0)
    assert not is_complete(counts_of("1m2m3m"), 1)
    assert decompositions(counts_of("1m2m3m"), 1) == []


def test_bad_count_vectors_are_rejected() -> None:
    with pytest.raises(ValueError, match="34 entries"):
        is_complete([0] * 10, 0)
    with pytest.raises(ValueError, match="negative"):
        is_complete([0] * 34, -1)


def test_completing_kinds_with_a_wild_is_every_kind() -> None:
    # 123m 456m 789m 111p + one wild: the wild pairs with any drawn tile.
    c = counts_of("1m2m3m4m5m6m7m8m9m1p1p1p")
    assert completing_kinds(c, 1) == list(range(34))
    # Without the wild the 12 tiles plus one make 13, not 3n + 2: nothing completes.
    assert completing_kinds(c, 0) == []


def test_seventeen_tiles_with_four_wilds_is_fast_enough_to_enumerate() -> None:
    # Xiamen size: 13 naturals + 4 wilds; every reading is enumerated without 34**4 work.
    c = counts_of("1m2m4m5m7p8p9pEE3s4s6s7s")
    assert is_complete(c, 4)
    readings = decompositions(c, 4)
    assert readings
    for r in readings:
        assert sum(len(s.wild_faces) for s in r) == 4


def test_shanten_matches_brute_force_exchanges() -> None:
    """shanten = fewest naturals to exchange (each for a wild) before one wild completes."""
    from itertools import combinations

    from scoring.wild import shanten

    def brute(c: list[int], w: int) -> int:
        tiles = [i for i, n in enumerate(c) for _ in range(n)]
        for k in range(len(tiles) + 1):
            for removed in set(combinations(tiles, k)):
                trial = list(c)
                for r in removed:
                    trial[r] -= 1
                if is_complete(trial, w + k + 1):
                    return k
        raise AssertionError("unreachable: removing every natural leaves only wilds")

    rng = random.Random(99)
    seen = set()
    for _ in range(250):
        w = rng.choice((0, 0, 1, 2))
        c = [0] * 34
        for _ in range(rng.choice((4, 7, 10)) - w):
            c[rng.choice((0, 1, 2, 6, 7, 8, 9, 10, 27, 28))] += 1
        if max(c) > 4:
            continue
        expected = brute(c, w)
        assert shanten(c, w) == expected, (c, w)
        seen.add(expected)
    assert {0, 1, 2} <= seen
