"""``vision.data.degrade``: the training copies of photos taken by a worse camera
(motion blur, a dim room) that the detector's mix carries."""

from __future__ import annotations

import numpy as np

from vision.data.degrade import KINDS, darken, degrade, smear


def test_a_smear_spreads_a_dot_along_its_direction_and_keeps_the_light() -> None:
    dot = np.zeros((41, 41, 3), np.uint8)
    dot[20, 20] = 250
    out = smear(dot, 11, 90.0)[:, :, 0]
    column, row = out[:, 20], out[20, :]
    assert (column > 0).sum() >= 9 and (row > 0).sum() <= 3
    assert abs(int(out.sum()) - 250) <= 15


def test_darken_scales_the_brightness_and_adds_noise() -> None:
    img = np.full((64, 64, 3), 200, np.uint8)
    out = darken(img, 0.4, 4.0, np.random.default_rng(0)).astype(float)
    assert abs(out.mean() - 80.0) < 1.0
    assert 3.0 < out.std() < 5.0


def test_degrade_draws_both_changes_and_keeps_the_shape() -> None:
    img = np.random.default_rng(1).integers(0, 255, (48, 64, 3), dtype=np.uint8)
    rng = np.random.default_rng(7)
    kinds = set()
    for _ in range(40):
        out, kind = degrade(img, rng)
        assert out.shape == img.shape and out.dtype == np.uint8
        assert not np.array_equal(out, img)
        kinds.add(kind)
    assert kinds == set(KINDS)
