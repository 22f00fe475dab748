"""One set in view (RULES.md: four copies of each kind, one of each flower and season):
the readings of a frame's tiles never show a flower twice or a kind five times."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from vision.classes import CLASSES, class_id
from vision.set_counts import CAPACITY, assign, within_one_set


def _probs(readings: list[dict[str, float]]) -> np.ndarray:
    """Rows of probabilities over the 43 classes; the rest of each row spread thin."""
    p = np.full((len(readings), len(CLASSES)), 1e-4, np.float32)
    for row, reading in enumerate(readings):
        for code, value in reading.items():
            p[row, class_id(code)] = value
    return p / p.sum(axis=1, keepdims=True)


def _codes(p: np.ndarray) -> list[str]:
    return [CLASSES[i] for i in p.argmax(axis=1)]


def test_capacity_is_four_per_kind_one_per_bonus_tile_and_no_limit_on_backs() -> None:
    """Rule: a set has 4 copies of each of the 34 kinds, 1 of each of the 8 bonus tiles."""
    assert CAPACITY[class_id("5m")] == 4 and CAPACITY[class_id("P")] == 4
    assert all(CAPACITY[class_id(f"{r}f")] == 1 for r in range(1, 9))
    assert CAPACITY[class_id("back")] > 100


def test_assign_matches_brute_force_on_random_costs() -> None:
    rng = np.random.default_rng(0)
    for _ in range(200):
        n = int(rng.integers(1, 5))
        m = int(rng.integers(n, 7))
        cost = rng.random((n, m))
        cols = assign(cost)
        assert len(set(cols.tolist())) == n
        best = min(sum(cost[i, c] for i, c in enumerate(perm))
                   for perm in itertools.permutations(range(m), n))
        assert cost[np.arange(n), cols].sum() == pytest.approx(best)


def test_assign_rejects_more_rows_than_columns() -> None:
    with pytest.raises(ValueError, match="rows <= columns"):
        assign(np.zeros((3, 2)))


def test_second_copy_of_a_flower_goes_to_the_less_sure_tile_s_next_reading() -> None:
    """Rule: one 7f in a set. Two tiles read 7f: the surer keeps it, the other takes
    its next code; neither reading offers the code the other holds."""
    p = _probs([{"7f": 0.9, "5f": 0.05}, {"7f": 0.6, "5f": 0.1, "6f": 0.25}])
    q, changed = within_one_set(p)
    assert _codes(q) == ["7f", "6f"] and changed.tolist() == [1]
    assert q[1, class_id("7f")] == 0 and q[1].sum() == pytest.approx(1)
    assert q[0, class_id("6f")] == 0 and q[0, class_id("7f")] > p[0, class_id("7f")]


def test_the_joint_reading_is_the_most_probable_not_a_greedy_one() -> None:
    """Three tiles, two bonus codes they all lean to: the sum of log probabilities decides,
    so the tile that has a good third choice gives way, not the least sure one."""
    p = _probs([{"1f": 0.50, "2f": 0.45, "3f": 0.01},
                {"1f": 0.55, "2f": 0.40, "3f": 0.01},
                {"1f": 0.45, "2f": 0.10, "3f": 0.40}])
    q, changed = within_one_set(p)
    assert _codes(q) == ["2f", "1f", "3f"]
    assert sorted(changed.tolist()) == [0, 2]


def test_a_fifth_copy_of_a_kind_moves_to_its_next_reading() -> None:
    """Rule: four copies of 6p. Five tiles read 6p: the least sure becomes 9p (a 6p/9p
    look-alike), beside the 9p already there — room for four, so that one stays."""
    rows = [{"6p": 0.95}] * 4 + [{"6p": 0.5, "9p": 0.45}] + [{"9p": 0.9}]
    q, changed = within_one_set(_probs(rows))
    assert _codes(q) == ["6p"] * 4 + ["9p", "9p"] and changed.tolist() == [4]


def test_a_full_code_s_holders_are_considered_too() -> None:
    """8f is full (one tile holds it); a second 7f can only move to 8f if the 8f tile
    moves on to 6f, which it half believes: the best joint reading does that."""
    p = _probs([{"7f": 0.95}, {"7f": 0.6, "8f": 0.38}, {"8f": 0.5, "6f": 0.45}])
    q, changed = within_one_set(p)
    assert _codes(q) == ["7f", "8f", "6f"] and sorted(changed.tolist()) == [1, 2]


def test_nothing_changes_when_the_counts_are_possible() -> None:
    p = _probs([{"1f": 0.9}, {"2f": 0.9}, {"5m": 0.9}, {"5m": 0.9}, {"back": 0.9}, {"back": 0.9}])
    q, changed = within_one_set(p)
    assert q is p or np.array_equal(q, p)
    assert changed.size == 0


def test_a_tile_with_no_free_code_among_its_k_keeps_its_reading() -> None:
    """Nine tiles all sure they are 1f, k = 2: eight bonus codes but each tile offers only
    1f and 2f — two are placed, the rest keep 1f (reported, not forced)."""
    p = _probs([{"1f": 0.9, "2f": 0.05}] * 9)
    q, changed = within_one_set(p, k=2)
    codes = _codes(q)
    assert codes.count("2f") == 1 and codes.count("1f") == 8 and len(changed) == 1


def test_empty_reading() -> None:
    q, changed = within_one_set(np.zeros((0, len(CLASSES)), np.float32))
    assert q.shape == (0, len(CLASSES)) and changed.size == 0
