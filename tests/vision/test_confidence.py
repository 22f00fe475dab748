"""The calibrated hand confidence (``vision/confidence.py``): its signals, the logistic
map from the manifest's calibration, and how a malformed calibration is reported."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from vision.confidence import (
    FEATURES,
    CalibrationError,
    check_calibration,
    hand_confidence,
    hand_features,
    logistic,
)
from vision.detect import Detector, ModelError
from vision.layout_scene import SceneBuilder
from vision.recognize import recognize_detections

ZJ = {"indicator": "C"}  # Zhenjiang: 百搭 (wild) is F
CAL = {
    "features": list(FEATURES),
    "coef": [1.2, 1.5, -0.1, -1.5, 2.2, 0.9, -3.0, 2.9],
    "intercept": -2.4,
}


def test_signals_of_a_won_hand_read_as_shown() -> None:
    b = SceneBuilder().standing("123m456p789sN").meld("EEE", sideways=1).win("N")
    d = b.detections()
    rec = recognize_detections(d, "zhenjiang", ZJ)
    f = hand_features(rec)
    assert set(f) == set(FEATURES)
    assert f["log_reading"] == pytest.approx(math.log10(rec.reading_confidence))
    assert f["min_score"] == pytest.approx(float(d.confidences.min()))
    assert f["weak_boxes"] == float((d.confidences < 0.4).sum())
    assert (f["hand_read"], f["win"], f["corrections"]) == (1.0, 1.0, 0.0)
    p1 = d.topk_probs[:, 0].astype(float)
    assert f["mean_log_p"] == pytest.approx(float(np.mean(np.log10(p1))))
    assert f["min_p"] == pytest.approx(float(p1.min()))


def test_signals_of_a_corrected_hand_and_of_an_empty_frame() -> None:
    b = SceneBuilder().standing("5555p").standing("5p").uncertain([("5p", 0.7), ("6p", 0.25)])
    b.standing("7p123sEEEN").win("N")
    f = hand_features(recognize_detections(b.detections(), "zhenjiang", ZJ))
    assert f["corrections"] == 1.0
    assert f["min_p"] == pytest.approx(0.25)  # the corrected tile counts with its new code
    from vision.detections import Detections

    empty = hand_features(recognize_detections(Detections.empty(), "zhenjiang", ZJ))
    assert empty["log_reading"] == -6.0 and empty["min_score"] == 0.0
    assert empty["hand_read"] == 0.0 and empty["win"] == 0.0


def test_hand_confidence_is_the_logistic_of_the_signals() -> None:
    rec = recognize_detections(
        SceneBuilder().standing("123m456p789sN").meld("EEE", sideways=1).win("N").detections(),
        "zhenjiang",
        ZJ,
        calibration=CAL,
    )
    f = hand_features(rec)
    z = CAL["intercept"] + sum(c * f[n] for n, c in zip(FEATURES, CAL["coef"], strict=True))
    assert rec.hand_confidence == pytest.approx(1 / (1 + math.exp(-z)))
    assert rec.to_dict()["hand_confidence"] == pytest.approx(1 / (1 + math.exp(-z)), abs=1e-4)
    assert hand_confidence(rec, None) is None
    plain = recognize_detections(rec.detections, "zhenjiang", ZJ)
    assert plain.hand_confidence is None and plain.to_dict()["hand_confidence"] is None


def test_logistic_is_stable_far_from_zero() -> None:
    assert logistic({"win": 1.0}, ["win"], [-1000.0], 0.0) == pytest.approx(0.0)
    assert logistic({"win": 1.0}, ["win"], [1000.0], 0.0) == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("entry", "fault"),
    [
        ([1, 2], "expected an object"),
        ({"features": "win", "coef": [1], "intercept": 0}, "'features' must be a list"),
        ({"features": ["win"], "coef": [1, 2], "intercept": 0}, "one number per feature"),
        ({"features": ["win"], "coef": [True], "intercept": 0}, "one number per feature"),
        ({"features": ["win"], "coef": [1], "intercept": "0"}, "'intercept' must be a number"),
        ({"features": ["win"], "coef": [float("nan")], "intercept": 0}, "one number"),
    ],
)
def test_malformed_calibration_is_named(entry: object, fault: str) -> None:
    with pytest.raises(CalibrationError, match=fault):
        check_calibration(entry)


def test_detector_reads_the_manifest_calibration(tmp_path: Path) -> None:
    class Fake:
        name = "fake"
        input_shape = (1, 3, 64, 64)

        def run(self, batch: np.ndarray) -> np.ndarray:
            return np.zeros((1, 5, 0), np.float32)

    manifest = {
        "detector": {"file": "d.onnx", "imgsz": 64, "names": ["1m"]},
        "calibration": CAL,
    }
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    assert Detector(tmp_path, backend=Fake()).calibration == CAL
    manifest["calibration"] = {"features": ["luck"], "coef": [1], "intercept": 0}
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(ModelError, match="unknown features"):
        Detector(tmp_path, backend=Fake())
