"""Row fill (:mod:`vision.row_fill`): boxes scored under the threshold taken as tiles
where a row of kept tiles goes on — and nowhere else."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from vision.detect import Detector, detection_scores, keep_thresholds
from vision.detections import Detections
from vision.manifest import ModelError, read_manifest
from vision.row_fill import RowFill, in_rows
from vision.weak_boxes import below_threshold_as_weak

FILL = RowFill(min_score=0.25, tolerance=0.5, min_p=0.9)


def _taken(boxes: np.ndarray, scores: np.ndarray, top_p: float = 0.95) -> np.ndarray:
    """:func:`in_rows` with the tiles scored 0.4 or more kept, every reading's top-1
    probability ``top_p``."""
    return in_rows(boxes, scores, np.full(len(boxes), top_p, np.float32), scores >= 0.4, FILL)


def _row(n: int, x0: float = 100, y0: float = 100, w: float = 40, h: float = 56,
         angle_deg: float = 0.0, step: float = 41) -> np.ndarray:
    """``n`` axis-aligned boxes ``(n, 4)`` of tiles ``w × h`` whose centres step
    ``step`` px along a line at ``angle_deg`` (the boxes of a tilted row)."""
    a = math.radians(angle_deg)
    cx = x0 + step * np.arange(n) * math.cos(a)
    cy = y0 + step * np.arange(n) * math.sin(a)
    return np.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], 1).astype(np.float32)


def test_a_weak_box_at_the_end_of_a_row_is_taken() -> None:
    boxes = _row(5)
    scores = np.array([0.9, 0.8, 0.9, 0.85, 0.3], np.float32)
    assert _taken(boxes, scores).tolist() == [False] * 4 + [True]


def test_a_weak_box_in_a_gap_of_the_row_is_taken() -> None:
    """A tile the detector half saw between two found ones (two steps apart)."""
    boxes = _row(3)[[0, 2, 1]]
    scores = np.array([0.9, 0.9, 0.26], np.float32)
    assert _taken(boxes, scores).tolist() == [False, False, True]


@pytest.mark.parametrize("angle", [30.0, 45.0, 90.0, 150.0])
def test_a_tilted_row_is_followed(angle: float) -> None:
    boxes = _row(4, x0=400, y0=400, angle_deg=angle)
    scores = np.array([0.3, 0.9, 0.9, 0.9], np.float32)
    assert _taken(boxes, scores).tolist() == [True, False, False, False]


def test_boxes_off_the_row_or_of_another_size_or_too_weak_are_left_out() -> None:
    row = _row(3)
    off_row = _row(1, x0=100 + 3 * 41, y0=100 + 40)  # where the row goes on, but 40 px low
    far = _row(1, x0=100 + 6 * 41)  # the same line, three steps further
    small = _row(1, x0=100 + 3 * 41, w=20, h=28)  # on the spot, a quarter the area
    boxes = np.concatenate([row, off_row, far, small])
    scores = np.array([0.9, 0.9, 0.9, 0.35, 0.35, 0.35], np.float32)
    assert not _taken(boxes, scores).any()
    on_spot = np.concatenate([row, _row(1, x0=100 + 3 * 41)])
    too_weak = np.array([0.9, 0.9, 0.9, 0.2], np.float32)
    assert not _taken(on_spot, too_weak).any()


def test_a_box_over_a_kept_tile_is_not_taken_and_two_on_one_spot_give_one_tile() -> None:
    row = _row(3)
    second_look = row[2:3] + np.float32(6)  # a weak box over the third tile
    twins = np.concatenate([_row(1, x0=100 + 3 * 41), _row(1, x0=100 + 3 * 41 + 3)])
    boxes = np.concatenate([row, second_look, twins])
    scores = np.array([0.9, 0.9, 0.9, 0.35, 0.3, 0.28], np.float32)
    assert _taken(boxes, scores).tolist() == [False] * 4 + [True, False]


def test_a_box_read_as_no_code_for_sure_is_not_taken() -> None:
    """A box on the spot whose reading is spread (a joker, a tile of a set the classes do
    not hold, a tile's side) stays out."""
    boxes = _row(3)
    scores = np.array([0.9, 0.9, 0.3], np.float32)
    assert _taken(boxes, scores, top_p=0.95).tolist() == [False, False, True]
    assert not _taken(boxes, scores, top_p=0.6).any()


def test_a_single_tile_found_makes_no_row() -> None:
    boxes = _row(2)
    scores = np.array([0.9, 0.3], np.float32)
    assert not _taken(boxes, scores).any()


def test_keep_thresholds_lower_only_the_filled_rows() -> None:
    codes = ["1m", "2m", "3m", "4m"]
    d = Detections.from_lists([tuple(b) for b in _row(4).tolist()], codes,
                              [0.9, 0.9, 0.3, 0.1], topk=[[(c, 0.95)] for c in codes])
    assert keep_thresholds(d, 0.4).tolist() == pytest.approx([0.4] * 4)
    assert keep_thresholds(d, 0.4, row_fill=FILL).tolist() == pytest.approx(
        [0.4, 0.4, 0.25, 0.4])  # the fourth: too weak, and on no spot of the two found


class FakeBackend:
    """A detector backend returning one fixed YOLO output ``(1, 4 + C, N)``."""

    name = "fake"
    input_shape: tuple[int | None, ...] = (1, 3, 640, 640)

    def __init__(self, rows: list[list[float]]) -> None:
        self.output = np.asarray(rows, np.float32).T[None]

    def run(self, batch: np.ndarray) -> np.ndarray:
        return self.output


def _fill_model(tmp_path: Path, fill: object) -> Path:
    """A model folder (detector classes 1m, 2m; conf 0.4, weak boxes from 0.15, one pass
    per frame) with ``row_fill`` set to ``fill`` unless it is None."""
    detector: dict[str, object] = {"file": "det.onnx", "imgsz": 640, "names": ["1m", "2m"],
                                   "conf": 0.4, "weak_conf": 0.15, "zoom": {"below_px": 0}}
    if fill is not None:
        detector["row_fill"] = fill
    (tmp_path / "manifest.json").write_text(json.dumps({"name": "t", "detector": detector}))
    return tmp_path


#: In 640 input px (the 1280 × 960 frame halved, 80 px padding on top): three 1m tiles
#: touching in a row, scored 0.9, 0.9 and 0.3, and a 2m scored 0.28 far from them.
FILL_ROWS = [
    [115, 200, 30, 40, 0.9, 0.0],
    [145, 200, 30, 40, 0.9, 0.0],
    [175, 200, 30, 40, 0.3, 0.0],
    [400, 400, 30, 40, 0.0, 0.28],
]


def test_the_manifests_row_fill_keeps_the_rows_weak_box_and_recognize_keeps_it_a_tile(
    tmp_path: Path,
) -> None:
    """``detector.row_fill``: ``detect`` returns the row's third tile (its own low
    score), the lone box stays weak; ``recognize`` keeps the filled tile (a kind, not a
    flower) as a tile of the hand and hands only the lone box to its rules as weak."""
    frame = np.zeros((960, 1280, 3), np.uint8)
    plain = Detector(_fill_model(tmp_path, None), backend=FakeBackend(FILL_ROWS))
    without = plain.detect(frame)
    assert len(without) == 2 and without.weak is not None and len(without.weak) == 2
    filled = Detector(_fill_model(tmp_path, {"min_score": 0.25, "tolerance": 0.5}),
                      backend=FakeBackend(FILL_ROWS))
    d = filled.detect(frame)
    assert d.codes == ["1m", "1m", "1m"]
    assert detection_scores(d).tolist() == pytest.approx([0.9, 0.9, 0.3])
    assert d.weak is not None and d.weak.codes == ["2m"]
    for_hand = below_threshold_as_weak(d)
    assert for_hand.codes == ["1m", "1m", "1m"]
    assert for_hand.weak is not None and for_hand.weak.codes == ["2m"]


@pytest.mark.parametrize("bad", [0.3, [0.25], {"min_score": 0}, {"min_score": 1.5},
                                 {"tolerance": "0.5"}, {"min_score": True},
                                 {"min_score": 0.25, "step": 2}])
def test_row_fill_setting_is_checked(tmp_path: Path, bad: object) -> None:
    assert read_manifest(_fill_model(tmp_path, None))[0].row_fill is None
    with pytest.raises(ModelError, match="row_fill"):
        read_manifest(_fill_model(tmp_path, bad))
