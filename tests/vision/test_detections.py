"""The Detections container: shapes, validation, conversions."""

from __future__ import annotations

import numpy as np
import pytest

from vision.classes import CLASSES, class_id
from vision.detections import Detections


def test_from_lists_round_trip_records() -> None:
    d = Detections.from_lists(
        [(0, 0, 10, 14), (12, 0, 22, 14)],
        ["5p", "back"],
        [0.9, 0.8],
        rotations=[0, 90],
        topk=[[("5p", 0.9), ("6p", 0.05)], [("back", 0.8)]],
    )
    assert d.codes == ["5p", "back"]
    assert d.face_down.tolist() == [False, True]
    rec = d.to_records()
    assert rec[0]["topk"] == [{"code": "5p", "p": 0.9}, {"code": "6p", "p": 0.05}]
    assert rec[1]["rotation"] == 90 and rec[1]["face_down"] is True
    assert rec[1]["topk"] == [{"code": "back", "p": 0.8}]


def test_select_keeps_rows_aligned() -> None:
    d = Detections.from_lists([(0, 0, 1, 1), (5, 5, 6, 6), (9, 9, 10, 10)], ["1m", "2m", "3m"])
    s = d.select(np.array([2, 0]))
    assert s.codes == ["3m", "1m"]
    assert s.boxes[0].tolist() == [9, 9, 10, 10]
    assert s.centers.tolist() == [[9.5, 9.5], [0.5, 0.5]]


def test_bad_shapes_and_values_are_rejected() -> None:
    with pytest.raises(ValueError, match="rotations"):
        Detections.from_lists([(0, 0, 1, 1)], ["1m"], rotations=[45])
    with pytest.raises(ValueError, match="unknown tile code"):
        Detections.from_lists([(0, 0, 1, 1)], ["0m"])
    with pytest.raises(ValueError, match="boxes"):
        Detections(
            boxes=np.zeros((2, 3), np.float32),
            class_ids=np.zeros(2, np.int64),
            confidences=np.zeros(2, np.float32),
            rotations=np.zeros(2, np.int64),
            topk_ids=np.zeros((2, 1), np.int64),
            topk_probs=np.zeros((2, 1), np.float32),
        )


def test_empty_and_class_table() -> None:
    assert len(Detections.empty()) == 0
    assert len(CLASSES) == 43 and len(set(CLASSES)) == 43
    assert class_id("P") == 33


def test_rotation_probs_are_optional_checked_and_kept_by_select() -> None:
    d = Detections.from_lists([(0, 0, 10, 14), (12, 0, 22, 14)], ["5p", "E"])
    assert d.rotation_probs is None and d.select([1]).rotation_probs is None
    probs = np.array([[0.5, 0, 0.5, 0], [1, 0, 0, 0]], np.float32)
    with_probs = Detections(d.boxes, d.class_ids, d.confidences, d.rotations, d.topk_ids,
                            d.topk_probs, rotation_probs=probs)
    assert with_probs.select([1]).rotation_probs.tolist() == [[1, 0, 0, 0]]  # type: ignore[union-attr]
    with pytest.raises(ValueError, match="rotation_probs"):
        Detections(d.boxes, d.class_ids, d.confidences, d.rotations, d.topk_ids, d.topk_probs,
                   rotation_probs=probs[:1])


@pytest.mark.parametrize(("box", "why"), [
    ((22, 14, 12, 0), "x2 ≥ x1"),             # corners swapped
    ((12, 0, 22, float("nan")), "not finite"),
    ((12, 0, 1e39, 14), "not finite"),         # past float32: inf
])
def test_a_box_not_finite_or_with_its_corners_swapped_is_refused_naming_the_tile(
    box: tuple[float, float, float, float], why: str,
) -> None:
    """Issue 6, bad input: hand-made detections (automatic tables, Python callers) with a
    box the layout cannot measure once crashed deep in it (``max() arg is an empty
    sequence``) or put NaN into the reading's JSON; the container now refuses them."""
    with pytest.raises(ValueError, match=f"tile 1: .*{why}"):
        Detections.from_lists([(0, 0, 10, 14), box], ["5p", "E"])


def test_a_confidence_not_finite_is_refused() -> None:
    with pytest.raises(ValueError, match="tile 0: confidence not finite"):
        Detections.from_lists([(0, 0, 10, 14)], ["5p"], [float("nan")])
    with pytest.raises(ValueError, match="tile 0: alternatives"):
        Detections.from_lists([(0, 0, 10, 14)], ["5p"], [0.9],
                              topk=[[("5p", 0.9), ("6p", float("inf"))]])


@pytest.mark.parametrize(("conf", "topk", "why"), [
    (1.5, [("5p", 1.5)], "confidence \\[1.5\\] not within 0..1"),
    (0.5, [("5p", 0.5), ("6p", -0.1)], "alternatives' probabilities .* not within 0..1"),
    (0.9, [("5p", 0.9), ("6p", 0.9)], ".* add up to more than 1"),
])
def test_probabilities_outside_0_to_1_are_refused(
        conf: float, topk: list[tuple[str, float]], why: str) -> None:
    """Issue 6 (the correction weighs readings by their probabilities): hand-made ones
    of 1.5 were echoed back as a correction "ratio 15", a negative one was ignored."""
    with pytest.raises(ValueError, match=f"tile 0: {why}"):
        Detections.from_lists([(0, 0, 10, 14)], ["5p"], [conf], topk=[topk])


def test_rotation_probabilities_outside_0_to_1_are_refused() -> None:
    """The layout judges sideways tiles and which side a hand faces by them."""
    d = Detections.from_lists([(0, 0, 10, 14)], ["5p"])
    with pytest.raises(ValueError, match="tile 0: rotation probabilities"):
        Detections(d.boxes, d.class_ids, d.confidences, d.rotations, d.topk_ids,
                   d.topk_probs, rotation_probs=np.array([[np.nan, 0, 0, 0]], np.float32))
