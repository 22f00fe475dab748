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


def test_a_win_the_scorer_refuses_for_its_context_is_as_sure_a_reading() -> None:
    """How sure the tiles are read does not hang on the win context: MCR 和绝张 on 8s with
    another 8s in the hand cannot happen (the scorer refuses it), but the tiles still make
    the winning shape the photo shows — the same signals, the same hand confidence."""
    b = SceneBuilder().standing("123m456p789s8s").standing("EEE", apart=True).win("8s")
    plain = recognize_detections(b.detections(), "mcr", calibration=CAL)
    refused = recognize_detections(b.detections(), "mcr", {"last_of_kind": True},
                                   calibration=CAL)
    assert plain.score is not None and refused.score is None and refused.unscorable
    assert hand_features(refused) == hand_features(plain)
    assert refused.hand_confidence == plain.hand_confidence
    # a regional scorer refusing the context (杠开 with no kong among the melds) alike
    won = SceneBuilder().standing("123m456p789sN").meld("EEE", sideways=1).win("N")
    zj = recognize_detections(won.detections(), "zhenjiang", ZJ, calibration=CAL)
    zj_kong = recognize_detections(won.detections(), "zhenjiang",
                                   {**ZJ, "kong": True, "self_drawn": True}, calibration=CAL)
    assert zj.score is not None and zj_kong.score is None and zj_kong.refused_win
    assert hand_features(zj_kong) == hand_features(zj)


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


# ---------------------------------------------------------------- score confidence
SCORE_CAL = {**CAL, "score": {**CAL, "coef": [0.7, 5.4, 0.6, -0.4, 1.5, 0.3, -6.0, 4.7]}}


def _won_with_unsure_season() -> SceneBuilder:
    """A won MCR hand whose one season is read 1f 0.5 / 2f 0.4 / 5p 0.1."""
    b = SceneBuilder().standing("123m456p789s11sEE").win("E").row()
    return b.flowers("1f").uncertain([("1f", 0.5), ("2f", 0.4), ("5p", 0.1)])


def test_score_signals_take_a_bonus_tile_for_any_flower_under_mcr() -> None:
    """MCR 花牌 counts bonus tiles by number: the season read 1f at 0.5 is a bonus tile at
    0.9, and the score confidence, over that, is higher than the hand confidence."""
    from scoring.rulesets import get_rule_set
    from vision.confidence import score_features

    rec = recognize_detections(_won_with_unsure_season().detections(), "mcr",
                               calibration=SCORE_CAL)
    assert rec.score is not None and rec.hand is not None and rec.hand.flowers == ("1f",)
    hand = hand_features(rec)
    score = score_features(rec, get_rule_set("mcr").score_alike)
    assert hand["min_p"] == pytest.approx(0.5)
    assert score["min_p"] == pytest.approx(0.9)
    assert score["by_place"] == 0.0
    assert rec.score_confidence is not None and rec.hand_confidence is not None
    assert rec.score_confidence > rec.hand_confidence
    assert rec.to_dict()["score_confidence"] == pytest.approx(rec.score_confidence, abs=1e-4)


def test_xiamen_scores_seasons_apart_from_flowers_so_only_its_group_is_summed() -> None:
    """Xiamen 水 pays for all four seasons or all four flowers: a season read 1f at 0.5
    with 2f 0.4 and 5f 0.1 is a season at 0.9, not a bonus tile at 1.0."""
    from scoring.rulesets import get_rule_set
    from vision.confidence import code_probabilities

    b = SceneBuilder().standing("123m456p789s11sEE").win("E").row()
    b.flowers("1f").uncertain([("1f", 0.5), ("2f", 0.4), ("5f", 0.1)])
    rec = recognize_detections(b.detections(), "mcr")
    last = len(rec.detections) - 1
    xiamen = code_probabilities(rec, get_rule_set("xiamen").score_alike)
    mcr = code_probabilities(rec, get_rule_set("mcr").score_alike)
    assert rec.codes[last] == "1f"
    assert (xiamen[last], mcr[last]) == (pytest.approx(0.9), pytest.approx(1.0))


def test_a_flower_read_by_where_it_lies_is_left_out_of_the_score_signals() -> None:
    """Tiles set apart and read as flowers by place (vision.flower_rereads) have a bonus
    probability far under 0.5; the score signals count them in ``by_place`` instead of
    letting their 0.08 stand for how sure the reading is."""
    from scoring.rulesets import get_rule_set
    from vision.confidence import BY_PLACE_P, score_features

    b = SceneBuilder().standing("123m456p789s11sEE").win("E").row()
    b.flowers("2f").uncertain([("2f", 0.95), ("3f", 0.05)])
    b.standing("5f").uncertain([("7p", 0.5), ("5f", 0.08)])
    rec = recognize_detections(b.detections(), "mcr")
    assert rec.hand is not None and sorted(rec.hand.flowers) == ["2f", "5f"]
    hand = hand_features(rec)
    score = score_features(rec, get_rule_set("mcr").score_alike)
    assert hand["min_p"] == pytest.approx(0.08)
    assert score["by_place"] == 1.0 and score["min_p"] > BY_PLACE_P


def test_without_alike_codes_the_score_confidence_is_the_hand_confidence() -> None:
    """Zhenjiang has no flowers and no alike codes: both confidences are one number; a
    calibration without a score fit gives MCR no score confidence."""
    b = SceneBuilder().standing("123m456p789sN").meld("EEE", sideways=1).win("N")
    rec = recognize_detections(b.detections(), "zhenjiang", ZJ, calibration=SCORE_CAL)
    assert rec.score_confidence == rec.hand_confidence is not None
    mcr = recognize_detections(_won_with_unsure_season().detections(), "mcr", calibration=CAL)
    assert mcr.hand_confidence is not None and mcr.score_confidence is None
    assert mcr.to_dict()["score_confidence"] is None


def test_the_score_confidence_is_never_under_the_hand_confidence() -> None:
    """A multiset right is right up to the codes scored alike: a score fit that says less
    than the hand fit (two fits apart can) gives the hand confidence instead."""
    low = {**CAL, "score": {**CAL, "intercept": -12.0}}
    rec = recognize_detections(_won_with_unsure_season().detections(), "mcr", calibration=low)
    assert rec.hand_confidence is not None and rec.hand_confidence > 0.01
    assert rec.score_confidence == rec.hand_confidence


def test_a_malformed_score_fit_is_named() -> None:
    with pytest.raises(CalibrationError, match=r"calibration\.score: unknown features"):
        check_calibration({**CAL, "score": {"features": ["luck"], "coef": [1], "intercept": 0}})
    with pytest.raises(CalibrationError, match="by_place"):
        check_calibration({"features": ["by_place"], "coef": [1], "intercept": 0})
    ok = check_calibration({**CAL, "score": {"features": ["by_place"], "coef": [1],
                                             "intercept": 0}})
    assert ok["score"]["coef"] == [1.0]


def test_a_reading_holding_five_of_a_kind_is_no_hand_that_can_be_right() -> None:
    """Issue 6 (honest about uncertainty): five sure 5p that the correction cannot mend
    (no alternatives) came at a hand confidence of 0.97 — above the same tiles read as a
    legal hand (0.90), so the page's check below 0.7 never showed. No multiset with five
    of a kind, or a flower twice, is right: both confidences are 0."""
    b = SceneBuilder().standing("55555p123sEEENN").win("N")
    rec = recognize_detections(b.detections(), "mcr", calibration=SCORE_CAL)
    assert rec.unscorable is not None and "5 copies of 5p" in rec.unscorable
    assert rec.hand_confidence == 0.0 and rec.score_confidence == 0.0
    legal = SceneBuilder().standing("55556p123sEEENN").win("N")
    other = recognize_detections(legal.detections(), "mcr", calibration=SCORE_CAL)
    assert other.hand_confidence is not None and other.hand_confidence > 0
    twice = SceneBuilder().standing("123m456p789s11sEE").win("E").row().flowers("1f1f")
    rec2 = recognize_detections(twice.detections(), "mcr", calibration=SCORE_CAL)
    assert rec2.hand_confidence == 0.0


def test_weak_boxes_count_up_to_three_so_a_hand_of_weak_boxes_is_not_sure() -> None:
    """Issue 6 (honest about uncertainty): the shipped fit weighs each weak box (score
    under 0.4) by +1.6 — kept flowers, right on its photos, which hold a few at most —
    so 14 weak boxes of coin-flip tiles came at a hand confidence of 0.79, and every box
    weak at 1.00. The signal counts up to three."""
    import json
    from dataclasses import replace

    from vision.confidence import WEAK_BOXES_MOST
    from vision.manifest import MANIFEST, default_model_dir

    b = SceneBuilder()
    for code in ["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "1s", "2s", "3s", "E"]:
        b.standing(code).uncertain([(code, 0.34), ("W", 0.33), ("N", 0.33)])
    d = b.win("E").uncertain([("E", 0.34), ("W", 0.33), ("N", 0.33)]).detections()
    weak = replace(d, confidences=np.full(len(d), 0.3, np.float32))
    rec = recognize_detections(weak, "mcr")
    assert hand_features(rec)["weak_boxes"] == WEAK_BOXES_MOST == 3
    manifest = default_model_dir() / MANIFEST
    if not manifest.is_file():
        pytest.skip(f"no shipped model: {manifest}")
    shipped = json.loads(manifest.read_text())["calibration"]
    sure = recognize_detections(weak, "mcr", calibration=shipped)
    assert sure.hand_confidence is not None and sure.hand_confidence < 0.05
