"""A photo taken with the camera turned (issue 6: layout robust to rows seen turned):
``bench/orientation_eval.py`` turns a photo and its label boxes alike, so the figures it
gives per turn compare the same tiles."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

import numpy as np
import pytest

from vision.detections import Detections


@pytest.fixture(scope="module")
def bench(bench_module: Callable[[str], ModuleType]) -> ModuleType:
    return bench_module("orientation_eval")


def _white_box(image: np.ndarray) -> tuple[int, int, int, int]:
    """The xyxy px box (end exclusive) around the white pixels of ``image``."""
    ys, xs = np.nonzero(image[..., 0] > 128)
    return int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1


@pytest.mark.parametrize("degrees", [90, 180, 270])
def test_a_quarter_turned_box_lands_where_the_turned_tile_does(
    bench: ModuleType, degrees: int
) -> None:
    img = np.zeros((60, 100, 3), np.uint8)
    img[10:20, 30:50] = 255  # a 20 × 10 px "tile" at (30, 10)
    turned = bench.turn_image(img, degrees)
    assert turned.shape[:2] == ((100, 60) if degrees % 180 else (60, 100))
    box = bench.turn_boxes(np.array([[30, 10, 50, 20]], np.float32), 100, 60, degrees)
    assert box[0].round().astype(int).tolist() == list(_white_box(turned))


@pytest.mark.parametrize("degrees", [10, -20])
def test_a_tilted_box_holds_the_tilted_tile_and_the_canvas_the_photo(
    bench: ModuleType, degrees: int
) -> None:
    img = np.zeros((60, 100, 3), np.uint8)
    img[10:20, 30:50] = 255
    turned = bench.turn_image(img, degrees)
    # the whole photo is kept: its area grows by the corners the tilt adds
    assert turned.shape[0] * turned.shape[1] > 60 * 100
    x0, y0, x1, y1 = bench.turn_boxes(np.array([[30, 10, 50, 20]], np.float32),
                                      100, 60, degrees)[0]
    wx0, wy0, wx1, wy1 = _white_box(turned)
    assert abs(x0 - wx0) <= 1.5 and abs(y0 - wy0) <= 1.5
    assert abs(x1 - wx1) <= 1.5 and abs(y1 - wy1) <= 1.5


def test_turned_labels_stay_yolo_rows_of_the_turned_picture(bench: ModuleType) -> None:
    from pathlib import Path

    from vision.evaluate import Sample

    labels = np.array([[4, 0.4, 0.25, 0.2, 1 / 6]])  # box (30, 10)-(50, 20) in 100 × 60
    s = bench.turned_sample(Sample(Path("x.jpg"), labels), 100, 60, 90)
    # turned a quarter clockwise: (40, 30)-(50, 50) in a 60 × 100 picture
    assert s.class_ids.tolist() == [4]
    assert s.boxes(60, 100).round().tolist() == [[40, 30, 50, 50]]


def test_sideways_majority_counts_tiles_at_a_quarter_turn(bench: ModuleType) -> None:
    def dets(rotations: list[int]) -> Detections:
        n = len(rotations)
        boxes = [[10 * i, 0, 10 * i + 8, 12] for i in range(n)]
        return Detections.from_lists(boxes, ["1m"] * n, [0.9] * n, rotations)

    assert bench.sideways_majority(dets([90, 270, 90, 0]))
    assert not bench.sideways_majority(dets([90, 0, 180, 0]))
    assert not bench.sideways_majority(dets([90, 270, 0, 180]))  # half is no majority
    assert not bench.sideways_majority(dets([]))
