"""Probabilities stay within 0..1 through float32 rounding (camera review, session 74).

A classifier row with one sure reading and a few faint ones in the same quarter turn
makes the float32 rotation marginal (a sum of 43 joint probabilities) come out as
1.0000001; ``Detections`` refused it, and ``/v1/recognize`` answered 500 on about one
frame in 343.
"""

from __future__ import annotations

import numpy as np
import pytest

from vision import postprocess as pp
from vision.detections import Detections

#: logits of ``(1, 43 * 4)`` whose float32 rotation marginal rounds past 1 (found by search)
_SURE_WITH_FAINT = {0: -14.353494644165039, 12: -16.05328369140625, 32: -14.277982711791992,
                    36: -17.24200439453125, 44: -16.253904342651367, 48: 0.0,
                    56: -14.278742790222168, 80: -17.02809715270996,
                    100: -17.15072250366211, 104: -16.395647048950195}


def _row() -> np.ndarray:
    lg = np.full((1, 43 * 4), -60.0, np.float32)
    for i, v in _SURE_WITH_FAINT.items():
        lg[0, i] = v
    return lg


def test_the_row_rounds_past_one_as_summed_in_float32() -> None:
    """The case is real: the plain float32 marginal of this row is above 1."""
    joint = pp.softmax(_row(), axis=1).reshape(1, 43, 4)
    assert joint.sum(axis=1).max() > 1


def test_decode_classifier_marginals_stay_within_one() -> None:
    """Rule: class and rotation probabilities are probabilities, at most 1."""
    cls, rot = pp.decode_classifier(_row(), 43)
    assert cls.max() <= 1 and rot.max() <= 1
    assert rot[0].argmax() == 0 and rot[0, 0] == pytest.approx(1.0)


def _dets(rotation_row: list[float], confidence: float = 0.9) -> Detections:
    return Detections(
        boxes=np.array([[0, 0, 10, 14]], np.float32),
        class_ids=np.array([0]),
        confidences=np.array([confidence], np.float32),
        rotations=np.array([0]),
        topk_ids=np.array([[0]]),
        topk_probs=np.array([[confidence]], np.float32),
        rotation_probs=np.array([rotation_row], np.float32),
    )


def test_detections_take_a_probability_rounded_just_past_one_as_one() -> None:
    """Rule: a probability past 1 by float rounding (within PROB_SUM_SLACK) reads as 1."""
    row = [2.1e-12, 5.1e-11, 6.7e-13, 1.0000001192092896]
    d = _dets(row)
    assert d.rotation_probs is not None and float(d.rotation_probs.max()) == 1.0
    assert float(d.rotation_probs[0, 0]) == pytest.approx(2.1e-12)


def test_detections_still_refuse_a_probability_well_past_one() -> None:
    """Rule: a probability of 1.01 is no rounding: refused, naming the tile."""
    with pytest.raises(ValueError, match="tile 0: rotation probabilities"):
        _dets([0.0, 0.0, 0.0, 1.01])
    with pytest.raises(ValueError, match="tile 0: confidence"):
        _dets([0.0, 0.0, 0.0, 1.0], confidence=1.5)
