"""Letterbox geometry, grey input with autocontrast, classifier crops."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.preprocess import autocontrast, crop_batch, letterbox, prepare_input


@pytest.mark.parametrize(("w", "h"), [(1280, 960), (960, 1280), (640, 640), (333, 1000), (50, 20)])
def test_letterbox_round_trip_maps_boxes_back(w: int, h: int) -> None:
    img = np.zeros((h, w, 3), np.uint8)
    canvas, lb = letterbox(img, 640)
    assert canvas.shape == (640, 640, 3)
    boxes = np.array([[0, 0, w, h], [w * 0.25, h * 0.5, w * 0.5, h * 0.75]], np.float32)
    back = lb.to_original(lb.to_input(boxes))
    assert np.allclose(back, boxes, atol=0.01 * max(w, h) / 640 + 1e-3)


def test_letterbox_keeps_ratio_centres_and_pads_114() -> None:
    img = np.full((960, 1280, 3), 7, np.uint8)
    canvas, lb = letterbox(img, 640)
    assert lb.scale == pytest.approx(0.5)
    assert (lb.pad_x, lb.pad_y) == (0, 80)
    assert (canvas[:80] == 114).all() and (canvas[560:] == 114).all()
    assert (canvas[80:560] == 7).all()


def test_letterbox_pads_with_the_asked_value() -> None:
    canvas, lb = letterbox(np.zeros((100, 50), np.uint8), 64, pad_value=0)
    assert canvas.shape == (64, 64)
    assert lb.pad_x == 16 and lb.pad_y == 0


def test_to_original_clips_to_the_image() -> None:
    _, lb = letterbox(np.zeros((960, 1280, 3), np.uint8), 640)
    out = lb.to_original(np.array([[-10, 0, 700, 700]], np.float32))
    assert out.tolist() == [[0, 0, 1280, 960]]


def test_prepare_input_rgb_swaps_channels_and_scales() -> None:
    img = np.zeros((10, 10, 3), np.uint8)
    img[..., 0] = 255  # blue in BGR
    x, _ = prepare_input(img, 10)
    assert x.shape == (1, 3, 10, 10) and x.dtype == np.float32
    assert x[0, 2].min() == 1.0 and x[0, 0].max() == 0.0  # blue is the last RGB channel


def test_prepare_input_gray_autocontrast_stretches_before_padding() -> None:
    img = np.zeros((10, 20, 3), np.uint8)
    img[:, :10] = 100
    img[:, 10:] = 150
    x, _ = prepare_input(img, 20, mode="gray", pad_value=0, use_autocontrast=True)
    assert np.array_equal(x[0, 0], x[0, 1]) and np.array_equal(x[0, 1], x[0, 2])
    assert x[0, 0, 5:15].min() == 0.0 and x[0, 0, 5:15].max() == 1.0
    assert (x[0, 0, :5] == 0).all()  # padding rows


def test_autocontrast_flat_image_unchanged() -> None:
    flat = np.full((3, 3), 9, np.uint8)
    assert np.array_equal(autocontrast(flat), flat)


def test_unknown_input_mode() -> None:
    with pytest.raises(ValueError, match="input mode"):
        prepare_input(np.zeros((4, 4, 3), np.uint8), 8, mode="hsv")  # type: ignore[arg-type]


def test_crop_batch_expands_and_converts_to_rgb() -> None:
    img = np.zeros((100, 100, 3), np.uint8)
    img[40:60, 40:60] = (0, 0, 255)  # red square
    crops = crop_batch(img, np.array([[40, 40, 60, 60], [0, 0, 0, 0]], np.float32), 16)
    assert crops.shape == (2, 3, 16, 16)
    assert crops[0, 0, 8, 8] == pytest.approx(1.0)  # red is RGB channel 0
    assert crops[0, 0, 0, 0] == 0.0  # the 10% margin shows the black table
    assert (crops[1] == 0).all()  # an empty box gives a blank crop


def test_shrink_averages_areas_like_one_area_resize_in_halvings() -> None:
    """Letterbox reduction (``shrink``): halvings then one area resize give the detector
    nearly the pixels of one ``INTER_AREA`` resize (a fine checkerboard stays mid-grey
    instead of aliasing), in the requested size; enlargements stay bilinear."""
    from vision.preprocess import shrink

    rng = np.random.default_rng(0)
    yy, xx = np.mgrid[0:960, 0:1280]
    img = np.dstack([(xx * 255 // 1279), (yy * 255 // 959), ((xx + yy) % 2) * 255])
    img = np.clip(img + rng.normal(0, 8, img.shape), 0, 255).astype(np.uint8)
    out = shrink(img, (512, 384))
    ref = cv2.resize(img, (512, 384), interpolation=cv2.INTER_AREA)
    assert out.shape == ref.shape == (384, 512, 3)
    assert np.abs(out[..., :2].astype(int) - ref[..., :2]).mean() < 1.5  # the gradients
    checker = out[..., 2].astype(float)
    assert abs(checker.mean() - 127.5) < 5 and checker.std() < 12  # no aliasing stripes
    small = img[:100, :100]
    assert np.array_equal(shrink(small, (150, 150)),
                          cv2.resize(small, (150, 150), interpolation=cv2.INTER_LINEAR))
