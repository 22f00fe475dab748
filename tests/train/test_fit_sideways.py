"""train/fit_sideways.py: the features it fits on are the layout's own, and the fit finds
the direction the labels give (the layout's sideways-tile model, vision.layout_sideways)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from types import ModuleType

import numpy as np
import pytest

from vision.detections import Detections
from vision.layout_scene import SceneBuilder


def scene() -> Detections:
    """1-9m standing, [555p,2] (middle tile sideways), EE; sure rotation probabilities."""
    d = SceneBuilder().standing("123456789m").meld("555p", sideways=1).standing("EE").detections()
    p = np.full((len(d), 4), 0.01, np.float32)
    p[np.arange(len(d)), (d.rotations // 90) % 4] = 0.97
    return dataclasses.replace(d, rotation_probs=p)


def test_tile_rows_give_the_layouts_features(train_module: Callable[[str], ModuleType]) -> None:
    fit = train_module("fit_sideways")
    rows = dict(fit.tile_rows(scene()))
    assert len(rows) == 14
    p_side, log_w, log_h, back, rule = rows[10]  # the sideways 5p
    assert p_side > 0.9 and log_w > 0.2 and log_h < -0.2 and back == 0 and rule == 1
    assert rows[0][0] < 0.1 and abs(rows[0][1]) < 1e-6


def test_tile_rows_need_rotation_probabilities(train_module: Callable[[str], ModuleType]) -> None:
    fit = train_module("fit_sideways")
    with pytest.raises(ValueError, match="rotation probabilities"):
        fit.tile_rows(dataclasses.replace(scene(), rotation_probs=None))


def test_fit_separates_wide_low_tiles(train_module: Callable[[str], ModuleType]) -> None:
    fit = train_module("fit_sideways")
    rng = np.random.default_rng(0)
    n = 400
    y = (rng.random(n) < 0.2).astype(np.float64)
    x = np.column_stack([
        np.where(y > 0, rng.uniform(0.2, 0.9, n), rng.uniform(0.05, 0.6, n)),  # p_side
        np.where(y > 0, 0.3, 0.0) + rng.normal(0, 0.05, n),  # log w / row
        np.where(y > 0, -0.3, 0.0) + rng.normal(0, 0.05, n),  # log h / row
        np.zeros(n), np.zeros(n),
    ])
    w = fit.fit_logistic(fit.design(x), y)
    assert w[2] > 0 > w[3]
    assert ((fit.design(x) @ w > 0) == (y > 0)).mean() > 0.97
