"""``train/audit_labels.py``: how unmatched boxes and labels are sorted (no model needed)."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

import numpy as np
import pytest


@pytest.fixture(scope="module")
def audit(train_module: Callable[[str], ModuleType]) -> ModuleType:
    return train_module("audit_labels")


def _f32(rows: list[list[float]]) -> np.ndarray:
    return np.asarray(rows, np.float32).reshape(-1, 4)


def test_each_kind_of_disagreement_is_named(audit: ModuleType) -> None:
    """A second box on a matched tile is a duplicate; a box at IoU 0.2–0.5 with a label no
    box took is loose (and so is that label); a box mostly inside a label is inside; a box
    far from every label is 'no label'; a label with no box near is missed."""
    labels = _f32([[0, 0, 10, 10], [20, 0, 30, 10], [40, 0, 60, 20], [100, 0, 110, 10]])
    boxes = _f32([
        [0, 0, 10, 10],  # matches label 0
        [0, 0, 10, 11],  # the same tile again, scored lower
        [22, 0, 34, 12],  # label 1 at IoU 0.49
        [40, 0, 60, 20],  # matches label 2
        [42, 2, 50, 10],  # inside label 2
        [70, 0, 80, 10],  # near no label
    ])
    scores = np.array([0.9, 0.5, 0.8, 0.9, 0.6, 0.7], np.float32)
    by_box, by_label = audit.sort_unmatched(labels, boxes, scores)
    assert by_box == {1: "duplicate", 2: "loose", 4: "inside", 5: "no label"}
    assert by_label == {1: "loose", 3: "missed"}


def test_no_labels_or_no_boxes(audit: ModuleType) -> None:
    none = _f32([])
    one = _f32([[0, 0, 10, 10]])
    assert audit.sort_unmatched(none, one, np.array([0.9], np.float32)) == ({0: "no label"}, {})
    assert audit.sort_unmatched(one, none, np.zeros(0, np.float32)) == ({}, {0: "missed"})


def test_misreads_are_matched_boxes_of_another_code(audit: ModuleType) -> None:
    """Only detections matched to a label count; a right code or no match is no misread."""
    matched = np.array([0, 1, -1, 2])
    labels = np.array([0, 9, 34])  # 1m, 1p, 1f
    dets = np.array([0, 18, 9, 38])  # 1m right, 1p read 1s, unmatched, 1f read 5f
    assert audit.misreads(matched, labels, dets) == [(1, "1p", "1s"), (3, "1f", "5f")]
