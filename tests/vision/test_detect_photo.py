"""Detector.detect given a reduced Photo (vision.imageio.load_for_reading): the passes over
the whole frame read the reduced picture; the region pass and every crop are cut from the
photo's own pixels when the tiles are small there, and the pixels are never asked for
when they are big (test doubles for the backends)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from vision.detect import Detector
from vision.imageio import Photo
from vision.zoom import FINE_TILE_PX


class Recording:
    """A backend answering each call with the next output of a list (the last one
    repeated, as many rows as the batch for a 2-d output); records the inputs."""

    name = "recording"
    input_shape: tuple[int | None, ...] = (1, 3, 640, 640)

    def __init__(self, outputs: list[np.ndarray]) -> None:
        self.outputs = [o.astype(np.float32) for o in outputs]
        self.inputs: list[np.ndarray] = []

    def run(self, batch: np.ndarray) -> np.ndarray:
        self.inputs.append(batch)
        out = self.outputs[min(len(self.inputs), len(self.outputs)) - 1]
        return np.repeat(out[:1], len(batch), axis=0) if out.ndim == 2 else out


def _model(tmp_path: Path, zoom: dict[str, Any]) -> Path:
    manifest = {
        "name": "test-model",
        "detector": {"file": "det.onnx", "imgsz": 640, "names": ["tile", "back"],
                     "input": "rgb", "zoom": zoom},
        "classifier": {"file": "cls.onnx", "size": 32, "names": ["1m", "5p", "back"]},
    }
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    return tmp_path


def _yolo(rows: list[list[float]]) -> np.ndarray:
    return np.asarray(rows, np.float32).T[None]


def _logits() -> np.ndarray:
    logits = np.full((1, 12), -5.0, np.float32)
    logits[0, 0] = 6.0  # 1m, upright
    return logits


def _row(side: float) -> list[list[float]]:
    """Three tiles in a row, ``side`` × 1.4 ``side`` input px, at 0.5 input px per pixel
    of a 1280 × 960 picture (80 px of padding on top)."""
    return [[300 + side * i, 300, side, 1.4 * side, 0.9, 0.0] for i in range(3)]


class Pixels:
    """The photo's own pixels (2560 × 1920, bright where the 1280 × 960 picture is
    black), counting how often they were asked for."""

    def __init__(self) -> None:
        self.asked = 0

    def __call__(self) -> np.ndarray:
        self.asked += 1
        return np.full((1920, 2560, 3), 200, np.uint8)


def _photo(pixels: Pixels) -> Photo:
    return Photo(np.zeros((960, 1280, 3), np.uint8), (2560, 1920), decode=pixels)


def test_small_tiles_are_cropped_from_the_photos_pixels(tmp_path: Path) -> None:
    side = 20.0  # 40 px in the picture: under FINE_TILE_PX
    assert 2 * side < FINE_TILE_PX
    det_b, cls_b = Recording([_yolo(_row(side))]), Recording([_logits()])
    det = Detector(_model(tmp_path, {"below_px": 0}), backend=det_b, classifier=cls_b)
    pixels = Pixels()
    d = det.detect(_photo(pixels))
    assert pixels.asked == 1 and len(det_b.inputs) == 1  # one detection, of the picture
    assert float(det_b.inputs[0].max()) == pytest.approx(114 / 255)  # black + letterbox pad
    assert float(cls_b.inputs[0].min()) == pytest.approx(200 / 255)  # crops of the pixels
    assert d.image_size == (2560, 1920)
    # boxes in the photo's pixels: picture px (580, 412, 620, 468) doubled
    assert d.boxes[0].tolist() == pytest.approx([1160, 824, 1240, 936])
    assert d.codes == ["1m", "1m", "1m"]


def test_big_tiles_never_ask_for_the_photos_pixels(tmp_path: Path) -> None:
    side = 40.0  # 80 px in the picture
    det_b, cls_b = Recording([_yolo(_row(side))]), Recording([_logits()])
    det = Detector(_model(tmp_path, {"below_px": 0}), backend=det_b, classifier=cls_b)
    pixels = Pixels()
    d = det.detect(_photo(pixels))
    assert pixels.asked == 0 and len(det_b.inputs) == 1
    assert float(cls_b.inputs[0].max()) == 0.0  # crops of the (black) picture
    assert d.image_size == (2560, 1920)
    assert d.boxes[0].tolist() == pytest.approx([1120, 768, 1280, 992])


def test_the_region_pass_of_small_tiles_is_cut_from_the_photos_pixels(tmp_path: Path) -> None:
    side = 20.0
    det_b = Recording([_yolo(_row(side)), _yolo(_row(side))])
    det = Detector(_model(tmp_path, {}), backend=det_b, classifier=Recording([_logits()]))
    pixels = Pixels()
    d = det.detect(_photo(pixels))
    assert len(det_b.inputs) == 2 and d.meta["zoom_pass"] == "region"
    assert pixels.asked == 1
    region_input = det_b.inputs[1]
    assert float(region_input.min()) >= 114 / 255 - 1e-6  # pixels (200) and pad, no black
    assert float(region_input.max()) == pytest.approx(200 / 255)
    assert d.image_size == (2560, 1920)
    assert (d.boxes[:, 2] <= 2560).all() and (d.boxes[:, 3] <= 1920).all()


def test_the_same_region_input_size_either_way(tmp_path: Path) -> None:
    """The region cut from the pixels is the picture's region doubled: the same input."""
    side = 20.0
    runs = []
    for photo in (np.zeros((960, 1280, 3), np.uint8), _photo(Pixels())):
        det_b = Recording([_yolo(_row(side)), _yolo(_row(side))])
        det = Detector(_model(tmp_path, {}), backend=det_b, classifier=Recording([_logits()]))
        d = det.detect(photo)
        runs.append((det_b.inputs[1].shape, d.meta["zoom"],
                     d.boxes * (1.0 if d.image_size == (1280, 960) else 0.5)))
    assert runs[0][0] == runs[1][0] and runs[0][1] == runs[1][1]
    assert runs[0][2] == pytest.approx(runs[1][2], abs=1.0)


def test_a_photo_not_reduced_is_read_as_its_pixels(tmp_path: Path) -> None:
    det_b, cls_b = Recording([_yolo(_row(20.0))]), Recording([_logits()])
    det = Detector(_model(tmp_path, {"below_px": 0}), backend=det_b, classifier=cls_b)
    picture = np.zeros((960, 1280, 3), np.uint8)
    d = det.detect(Photo(picture, (1280, 960), picture))
    e = Detector(tmp_path, backend=Recording([_yolo(_row(20.0))]),
                 classifier=Recording([_logits()])).detect(picture)
    assert d.image_size == e.image_size == (1280, 960)
    assert d.boxes.tolist() == e.boxes.tolist()
