"""Which tile lies sideways (seed 003, 鸣牌的摆放: the claimed tile is turned sideways and
its position gives the claim source) when the classifier is unsure of a tile's rotation:
the box shape decides (vision.layout_sideways)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from scoring.notation import format_meld
from vision.detections import Detections
from vision.layout import LayoutParams, analyze
from vision.layout_scene import SceneBuilder
from vision.layout_sideways import (
    SIDEWAYS_MODEL,
    row_features,
    sideways_odds,
    sideways_probability,
)


def with_rotation_probs(d: Detections, probs: dict[int, list[float]]) -> Detections:
    """``d`` with a classifier's rotation probabilities: sure of each tile's own rotation
    unless ``probs`` gives a tile other ones; rotations follow the probabilities."""
    p = np.zeros((len(d), 4), np.float32)
    p[np.arange(len(d)), (d.rotations // 90) % 4] = 0.97
    p += 0.01
    for i, row in probs.items():
        p[i] = row
    rot = (p.argmax(axis=1) * 90).astype(np.int64)
    return dataclasses.replace(d, rotations=rot, rotation_probs=p)


def meld_texts(d: Detections, params: LayoutParams | None = None) -> list[str]:
    lay = analyze(d, params)
    return [format_meld(m) for m in lay.hand(d.codes).melds]


def pung_scene() -> tuple[SceneBuilder, int]:
    """1-9m standing, a pung of 5p claimed from across (middle tile sideways), E pair;
    returns the builder and the index of the sideways 5p."""
    b = SceneBuilder().standing("123456789m").meld("555p", sideways=1).standing("EE").row()
    return b, 10


def test_sideways_probability_is_relative_to_the_rows() -> None:
    probs = np.array([[0.1, 0.7, 0.1, 0.1]])
    # rows along the image x axis: image rotation 90 is sideways
    assert sideways_probability(probs, 0, 0.0).round(2).tolist() == [0.8]
    # rows turned 90 degrees in the image: image rotation 90 is upright to them
    assert sideways_probability(probs, 90, 0.0).round(2).tolist() == [0.2]
    # a 50 degree tilt rounds the relation as the layout rounds rotations
    assert sideways_probability(probs, 0, 50.0).round(2).tolist() == [0.2]


def test_odds_weigh_shape_against_an_unsure_classifier() -> None:
    # a wide, low box with an unsure classifier is sideways; a normal box is not
    odds = sideways_odds([0.3, 0.3], [0.3, 0.0], [-0.25, 0.0], [False, False])
    assert odds[0] > 0 > odds[1]
    # a sure classifier is believed over an ordinary shape
    assert sideways_odds([0.99], [0.0], [0.0], [False])[0] > 0
    assert sideways_odds([0.01], [0.0], [0.0], [False])[0] < 0


def test_face_down_tiles_go_by_shape() -> None:
    # a back's rotation probabilities say nothing; its width along the row does
    odds = sideways_odds([0.5, 0.5], [0.35, 0.0], [-0.3, 0.0], [True, True])
    assert odds[0] > 0 > odds[1]


def test_model_needs_six_coefficients() -> None:
    with pytest.raises(ValueError, match="6 coefficients"):
        sideways_odds([0.5], [0.0], [0.0], [False], model=(1.0, 2.0))


def test_row_features_are_log_ratios_to_the_row_median() -> None:
    w = np.array([10.0, 10.0, 14.0, 10.0])
    h = np.array([14.0, 14.0, 10.0, 14.0])
    lw, lh = row_features(w, h, [0, 1, 2, 3])
    assert lw.round(3).tolist() == [0.0, 0.0, round(float(np.log(1.4)), 3), 0.0]
    assert lh[2] < 0


def test_claim_source_kept_when_the_classifier_is_unsure_of_the_sideways_tile() -> None:
    # RULES.md: [555p,2] = pung claimed from across, middle tile sideways. The classifier
    # calls the symmetric 5p upright (0.55) but its box is wide and low: still sideways.
    b, k = pung_scene()
    d = with_rotation_probs(b.detections(), {k: [0.55, 0.05, 0.35, 0.05]})
    assert int(d.rotations[k]) == 0
    assert meld_texts(d) == ["[555p,2]"]
    # by the rotation alone (the rule before the model) the claim is lost
    assert meld_texts(d, LayoutParams(sideways_model=None)) != ["[555p,2]"]


def test_upright_tile_with_an_unsure_classifier_stays_standing() -> None:
    # a standing 5m the classifier half takes for sideways keeps its ordinary box
    b, _ = pung_scene()
    d = with_rotation_probs(b.detections(), {4: [0.45, 0.3, 0.05, 0.2]})
    lay = analyze(d)
    assert 4 in lay.standing
    assert meld_texts(d) == ["[555p,2]"]


def test_detections_without_rotation_probabilities_use_the_rotation_rule() -> None:
    b, k = pung_scene()
    d = b.detections()
    assert d.rotation_probs is None
    assert analyze(d).sideways == analyze(d, LayoutParams(sideways_model=None)).sideways
    assert k in analyze(d).sideways


def test_shipped_coefficients_are_a_usable_model() -> None:
    assert len(SIDEWAYS_MODEL) == 6
    assert SIDEWAYS_MODEL[1] > 0  # the classifier's belief counts for sideways
    assert SIDEWAYS_MODEL[2] > 0 > SIDEWAYS_MODEL[3]  # wider along, lower across


@pytest.mark.parametrize(("tilt", "noted"), [(10.0, False), (30.0, False), (40.0, True)])
def test_rows_near_45_degrees_get_a_note(tilt: float, noted: bool) -> None:
    # near a 45 degree roll an axis-aligned box is square whatever the tile's shape, and
    # the quantised rotations split: the reading says its claim sources are uncertain
    b, _ = pung_scene()
    lay = analyze(b.detections(tilt_deg=tilt))
    assert any("off the picture's edges" in n for n in lay.notes) is noted


def test_tilt_note_can_be_turned_off() -> None:
    b, _ = pung_scene()
    lay = analyze(b.detections(tilt_deg=40.0), LayoutParams(warn_tilt_deg=0))
    assert not any("off the picture's edges" in n for n in lay.notes)


def test_a_claimed_meld_with_an_unclear_sideways_tile_gets_a_note() -> None:
    # [555p,2] with the classifier unsure of the middle 5p (its box still wide and low)
    # and half taking the left one for sideways: the claim source may be wrong, said so
    b, k = pung_scene()
    d = with_rotation_probs(b.detections(), {k: [0.55, 0.05, 0.35, 0.05],
                                             k - 1: [0.5, 0.3, 0.0, 0.2]})
    lay = analyze(d)
    (meld,) = lay.melds
    assert meld.claim_margin is not None and meld.claim_margin < 2.0
    assert any("lies sideways in the meld" in n for n in lay.notes)


def test_a_clear_claim_gets_no_note_and_a_wide_margin() -> None:
    b, _ = pung_scene()
    lay = analyze(with_rotation_probs(b.detections(), {}))
    (meld,) = lay.melds
    assert meld.claim_margin is not None and meld.claim_margin > 2.0
    assert not any("lies sideways" in n for n in lay.notes)


def test_no_margin_without_rotation_probabilities() -> None:
    b, _ = pung_scene()
    (meld,) = analyze(b.detections()).melds
    assert meld.claim_margin is None
