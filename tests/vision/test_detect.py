"""The Detector pipeline on hand-made model outputs (test doubles for the backends)."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import vision
from vision import postprocess as pp
from vision.classes import class_id
from vision.detect import Detector, detection_scores, fusion_weight, keep_thresholds
from vision.manifest import ClassifierSpec, ModelError, read_manifest


class FakeBackend:
    """Returns a fixed output; records the inputs it was given."""

    name = "fake"
    input_shape: tuple[int | None, ...] = (1, 3, 640, 640)

    def __init__(self, output: np.ndarray) -> None:
        self.output = output.astype(np.float32)
        self.inputs: list[np.ndarray] = []

    def run(self, batch: np.ndarray) -> np.ndarray:
        self.inputs.append(batch)
        if self.output.ndim == 2 and self.output.shape[0] != len(batch):
            return np.repeat(self.output[:1], len(batch), axis=0)
        return self.output


#: Manifest zoom settings for one detector pass per frame (no zoom or grid pass).
ONE_PASS: dict[str, Any] = {"below_px": 0}


def _model_dir(
    tmp_path: Path,
    names: list[str],
    classifier: dict[str, Any] | None = None,
    zoom: dict[str, Any] = ONE_PASS,
) -> Path:
    """A model folder whose manifest names ``names``; ``zoom={}`` keeps the default zoom
    and grid passes."""
    manifest: dict[str, Any] = {
        "name": "test-model",
        "detector": {
            "file": "det.onnx",
            "imgsz": 640,
            "names": names,
            "input": "rgb",
            "zoom": zoom,
        },
    }
    if classifier:
        manifest["classifier"] = classifier
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    return tmp_path


def _yolo(rows: list[list[float]]) -> np.ndarray:
    return np.asarray(rows, np.float32).T[None]


# 1280×960 image → 640 input: scale 0.5, 80 px of padding on top.
ROWS = [
    [115, 200, 30, 40, 0.90, 0.05, 0.0],  # upright 1m at original (200, 200, 260, 280)
    [116, 200, 30, 40, 0.30, 0.60, 0.0],  # the same tile read as 2m: suppressed
    [300, 200, 40, 30, 0.00, 0.10, 0.8],  # a face-down tile lying sideways
    [500, 500, 30, 40, 0.10, 0.10, 0.1],  # below the threshold
]


def test_detect_maps_boxes_codes_topk_rotation(tmp_path: Path) -> None:
    backend = FakeBackend(_yolo(ROWS))
    det = Detector(_model_dir(tmp_path, ["1m", "2m", "back"]), backend=backend, topk=3)
    d = det.detect(np.zeros((960, 1280, 3), np.uint8))
    assert backend.inputs[0].shape == (1, 3, 640, 640)
    assert d.codes == ["1m", "back"]
    assert d.boxes[0].tolist() == pytest.approx([200, 200, 260, 280])
    assert d.boxes[1].tolist() == pytest.approx([560, 210, 640, 270])
    assert d.rotations.tolist() == [0, 90]
    assert d.face_down.tolist() == [False, True]
    assert d.confidences.tolist() == pytest.approx([0.9, 0.8])
    assert d.topk_ids[0].tolist()[:2] == [class_id("1m"), class_id("2m")]
    assert d.topk_probs[0, 0] == pytest.approx(0.9 / 0.95)
    assert d.image_size == (1280, 960)
    assert d.meta["model"] == "test-model" and d.meta["ms"]["total"] >= 0
    assert d.meta["confidence"] == "score"
    assert detection_scores(d) is d.confidences


def test_detect_empty_result_and_thresholds(tmp_path: Path) -> None:
    det = Detector(_model_dir(tmp_path, ["1m", "2m", "back"]), backend=FakeBackend(_yolo(ROWS)))
    strict = Detector(tmp_path, backend=FakeBackend(_yolo(ROWS)), conf=0.95)
    assert len(strict.detect(np.zeros((960, 1280, 3), np.uint8))) == 0
    assert len(det.detect(np.zeros((960, 1280, 3), np.uint8))) == 2


def test_classifier_decides_code_and_rotation(tmp_path: Path) -> None:
    names = ["1m", "5p", "back"]
    logits = np.full((1, len(names) * 4), -5.0, np.float32)
    logits[0, 1 * 4 + 2] = 6.0  # 5p, lying at 180°
    model_dir = _model_dir(
        tmp_path,
        ["tile", "back"],
        classifier={"file": "cls.onnx", "size": 32, "names": names},
    )
    cls = FakeBackend(logits)
    det = Detector(
        model_dir,
        backend=FakeBackend(_yolo([[115, 200, 30, 40, 0.9, 0.0], [300, 200, 30, 40, 0.8, 0.0]])),
        classifier=cls,
    )
    d = det.detect(np.zeros((960, 1280, 3), np.uint8))
    assert d.codes == ["5p", "5p"]
    assert d.rotations.tolist() == [180, 180]
    assert cls.inputs[0].shape == (2, 3, 32, 32)
    assert 0.8 < d.confidences[0] <= 0.9
    assert d.meta["confidence"] == "score*p1"
    assert detection_scores(d).tolist() == pytest.approx([0.9, 0.8])


def test_output_shape_must_match_manifest(tmp_path: Path) -> None:
    det = Detector(_model_dir(tmp_path, ["1m", "2m"]), backend=FakeBackend(_yolo(ROWS)))
    with pytest.raises(ModelError, match="does not match the manifest's 2 classes"):
        det.detect(np.zeros((64, 64, 3), np.uint8))


def test_bad_image_raises_image_error(tmp_path: Path) -> None:
    det = Detector(_model_dir(tmp_path, ["1m", "2m", "back"]), backend=FakeBackend(_yolo(ROWS)))
    with pytest.raises(vision.imageio.ImageError, match="not an image"):
        det.detect(b"definitely not a photo")


def test_manifest_errors_name_the_problem(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match=r"manifest\.json is missing"):
        read_manifest(tmp_path)
    (tmp_path / "manifest.json").write_text("{not json")
    with pytest.raises(ModelError, match="cannot read"):
        read_manifest(tmp_path)
    (tmp_path / "manifest.json").write_text(json.dumps({"detector": {"file": "x.onnx"}}))
    with pytest.raises(ModelError, match="'names' field is missing"):
        read_manifest(tmp_path)
    _model_dir(tmp_path, ["tile"])
    with pytest.raises(ModelError, match="not tile codes and there is no classifier"):
        read_manifest(tmp_path)
    _model_dir(tmp_path, ["1m"], classifier={"file": "c.onnx", "size": 8, "names": ["1x"]})
    with pytest.raises(ModelError, match="not tile codes"):
        read_manifest(tmp_path)
    _model_dir(tmp_path, ["1m"])
    with pytest.raises(ModelError, match=r"model file named in .* is missing"):
        Detector(tmp_path)


def test_vision_detect_is_callable_however_it_was_imported(tmp_path: Path) -> None:
    import vision.detect as module

    det = Detector(_model_dir(tmp_path, ["1m", "2m", "back"]), backend=FakeBackend(_yolo(ROWS)))
    img = np.zeros((960, 1280, 3), np.uint8)
    assert len(vision.detect(img, detector=det)) == 2
    assert len(module.detect(img, detector=det)) == 2
    assert callable(vision.load_detector)


def test_big_jpeg_is_decoded_reduced_but_boxes_are_full_size(tmp_path: Path) -> None:
    import cv2

    det = Detector(_model_dir(tmp_path, ["1m", "2m", "back"]), backend=FakeBackend(_yolo(ROWS)))
    frame = np.full((1920, 2560, 3), 80, np.uint8)
    jpeg = cv2.imencode(".jpg", frame)[1].tobytes()
    from_array = det.detect(frame)
    from_jpeg = det.detect(jpeg)  # decoded at 1/4: 640×480
    assert from_jpeg.image_size == from_array.image_size == (2560, 1920)
    assert np.allclose(from_jpeg.boxes, from_array.boxes, atol=0.5)
    assert from_array.boxes[0].tolist() == pytest.approx([400, 400, 520, 560])


def test_dynamic_input_model_runs_on_the_smallest_rectangle(tmp_path: Path) -> None:
    backend = FakeBackend(_yolo([[115, 200, 30, 40, 0.9, 0.0, 0.0]]))
    backend.input_shape = (1, 3, None, None)
    det = Detector(_model_dir(tmp_path, ["1m", "2m", "back"]), backend=backend)
    d = det.detect(np.zeros((960, 1280, 3), np.uint8))
    assert backend.inputs[0].shape == (1, 3, 480, 640)  # no padding rows for a 4:3 frame
    assert d.boxes[0].tolist() == pytest.approx([200, 360, 260, 440])
    det.detect(np.zeros((1280, 960, 3), np.uint8))
    assert backend.inputs[1].shape == (1, 3, 640, 480)


class SequenceBackend:
    """Answers each call with the next output of a list; records the inputs."""

    name = "sequence"
    input_shape: tuple[int | None, ...] = (1, 3, 640, 640)

    def __init__(self, outputs: list[np.ndarray]) -> None:
        self.outputs = [o.astype(np.float32) for o in outputs]
        self.inputs: list[np.ndarray] = []

    def run(self, batch: np.ndarray) -> np.ndarray:
        self.inputs.append(batch)
        return self.outputs[len(self.inputs) - 1]


# 1280×960 frame → 640 input: scale 0.5, 80 px of padding on top. Three 1m tiles of
# 20×28 input px (short side 20 < 32: too small for the model) in a row.
SMALL_ROW = [[300 + 20 * i, 300, 20, 28, 0.6, 0.0] for i in range(3)]


def test_zoom_pass_runs_the_small_tiles_region_again_and_merges(tmp_path: Path) -> None:
    """Rule: tiles whose median short side is under zoom.below_px input pixels get a second,
    enlarged look at their region; the passes are merged by NMS (the better box wins)."""
    from vision.preprocess import letterbox

    model = _model_dir(tmp_path, ["1m", "2m"], zoom={})
    # first pass, in frame pixels: x 580-620, 620-660, 660-700; y 412-468 (40 × 56 px);
    # the zoom region: their bounding box grown by 1.5 tile lengths (56 px) per side
    boxes = np.array([[580 + 40 * i, 412, 620 + 40 * i, 468] for i in range(3)], np.float32)
    grow = 1.5 * 56
    region = (
        int(boxes[:, 0].min() - grow),
        int(boxes[:, 1].min() - grow),
        int(boxes[:, 2].max() + grow + 0.5),
        int(boxes[:, 3].max() + grow + 0.5),
    )
    x1, y1, x2, y2 = region
    _, lb = letterbox(np.zeros((y2 - y1, x2 - x1, 3), np.uint8), 640)
    # the zoom pass sees the three tiles sharper (score 0.9) and a fourth one, a 2m, to
    # the right of them that the first pass missed (frame pixels 700-740 × 412-468),
    # answered in crop-input pixels
    want = np.array([[700, 412, 740, 468]], np.float32)
    fourth = lb.to_input(want - np.array([x1, y1, x1, y1], np.float32))[0]
    zoom_rows = [
        [*((b - [x1, y1, x1, y1]) * lb.scale + [lb.pad_x, lb.pad_y] * 2).reshape(2, 2).mean(0),
         (b[2] - b[0]) * lb.scale, (b[3] - b[1]) * lb.scale, 0.9, 0.0]
        for b in boxes
    ]  # fmt: skip
    zoom_rows.append([*(fourth[:2] + fourth[2:]) / 2, *(fourth[2:] - fourth[:2]), 0.0, 0.8])
    backend = SequenceBackend([_yolo(SMALL_ROW), _yolo(zoom_rows)])
    det = Detector(model, backend=backend).detect(np.zeros((960, 1280, 3), np.uint8))
    assert len(backend.inputs) == 2 and backend.inputs[1].shape == (1, 3, 640, 640)
    assert det.meta["zoom"] == pytest.approx(min(640 / (x2 - x1), 640 / (y2 - y1)) / 0.5, 1e-3)
    assert det.codes == ["1m", "1m", "1m", "2m"]
    assert det.confidences[:3].tolist() == pytest.approx([0.9] * 3)  # the zoomed boxes won
    assert det.boxes[3].tolist() == pytest.approx(want[0].tolist(), abs=0.5)
    assert "zoom" in det.meta["ms"]


def test_no_zoom_for_tiles_big_enough_or_when_disabled(tmp_path: Path) -> None:
    """Rule: tiles at least zoom.below_px input pixels across, or below_px 0: one pass."""
    big = [[300 + 40 * i, 300, 40, 56, 0.6, 0.0] for i in range(3)]
    backend = SequenceBackend([_yolo(big)])
    det = Detector(_model_dir(tmp_path, ["1m", "2m"], zoom={}), backend=backend)(
        np.zeros((960, 1280, 3), np.uint8)
    )
    assert len(backend.inputs) == 1 and det.meta["zoom"] == 1.0 and len(det) == 3
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    manifest["detector"]["zoom"] = {"below_px": 0}
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    backend = SequenceBackend([_yolo(SMALL_ROW)])
    det = Detector(tmp_path, backend=backend)(np.zeros((960, 1280, 3), np.uint8))
    assert len(backend.inputs) == 1 and det.meta["zoom"] == 1.0


class DynamicSequenceBackend(SequenceBackend):
    """A :class:`SequenceBackend` whose model takes any input height and width."""

    input_shape: tuple[int | None, ...] = (1, 3, None, None)


def test_region_pass_input_grows_past_imgsz_within_the_first_pass_area(tmp_path: Path) -> None:
    """Manifest ``zoom.max_px``: a long thin region (a hand row across a big photo) may get
    an input long side above imgsz, as long as its area stays within the first pass's; a
    square region keeps imgsz; without max_px nothing grows past imgsz."""
    backend = DynamicSequenceBackend([])
    plain = Detector(_model_dir(tmp_path, ["1m"], zoom={}), backend=backend)
    assert plain.region_input_size(2000, 300, 1500, 640 * 480) == (640, 96)
    grown = Detector(_model_dir(tmp_path, ["1m"], zoom={"max_px": 1280}), backend=backend)
    assert grown.region_input_size(2000, 300, 1500, 640 * 480) == (1280, 192)
    assert grown.region_input_size(2000, 300, 600, 640 * 480) == (608, 96)  # wants less
    # the area binds: 1000 × 250 grows to a long side of √(640·480 / 0.25) = 1108 → 1120 × 288
    assert grown.region_input_size(1000, 250, 1500, 640 * 480) == (1120, 288)
    assert grown.region_input_size(1000, 1000, 1500, 640 * 480) == (640, 640)


def _weak_region_model(tmp_path: Path, weak_region: bool) -> Detector:
    """Three 1m tiles found (score 0.6), seven more scored weakly (0.2) in a row to their
    right and one weak box far away, all 20 × 28 input px (too small): the zoom pass runs
    on their region."""
    rows = [[300 + 20 * i, 300, 20, 28, 0.6, 0.0] for i in range(3)]
    rows += [[360 + 20 * i, 300, 20, 28, 0.2, 0.0] for i in range(7)]
    rows.append([600, 500, 20, 28, 0.2, 0.0])  # a weak box a table's width away
    model = _model_dir(tmp_path, ["1m", "2m"], zoom={"weak_region": weak_region})
    manifest = json.loads((model / "manifest.json").read_text())
    manifest["detector"]["weak_conf"] = 0.15
    (model / "manifest.json").write_text(json.dumps(manifest))
    empty = np.zeros((1, 6, 0), np.float32)
    return Detector(model, backend=DynamicSequenceBackend([_yolo(rows), empty]))


def test_weak_region_draws_the_zoom_region_around_weak_boxes_too(tmp_path: Path) -> None:
    """Manifest ``zoom.weak_region``: tiles seen small are often scored low; when the weak
    boxes outnumber the found tiles two to one, the zoom region takes in those chained to
    the tiles found (each within a tile length of the next), not the one far away."""
    frame = np.zeros((960, 1280, 3), np.uint8)
    seen: dict[bool, list[tuple[int, ...]]] = {}
    for flag in (False, True):
        det = _weak_region_model(tmp_path, flag)
        locate = det._locate
        shapes: list[tuple[int, ...]] = []

        def record(img: np.ndarray, *a: Any, _s: list[tuple[int, ...]] = shapes,
                   _f: Any = locate, **k: Any) -> Any:
            _s.append(img.shape[:2])
            return _f(img, *a, **k)

        det._locate = record  # type: ignore[method-assign]
        det.detect(frame)
        seen[flag] = shapes
    # found tiles span frame x 580-700, the weak row 700-980 (40 px each, ×2 of input);
    # the far box (frame 1180-1220 × 912-968) stays out
    (h0, w0), (h1, w1) = seen[False][1], seen[True][1]
    assert h0 == h1 and w1 - w0 == 280


def _cell_rows(frame_boxes: list[list[float]], cell: tuple[int, int, int, int]) -> np.ndarray:
    """A 2-class (1m, 2m) YOLO output for one grid cell answering ``frame_boxes`` (frame
    pixels, all read as 1m at 0.9), as the cell's 640 × 640 letterboxed input sees them."""
    from vision.preprocess import letterbox

    x1, y1, x2, y2 = cell
    _, lb = letterbox(np.zeros((y2 - y1, x2 - x1, 3), np.uint8), 640)
    rows = []
    for b in frame_boxes:
        bx = lb.to_input(np.array([b], np.float32) - np.array([x1, y1, x1, y1], np.float32))[0]
        rows.append([*(bx[:2] + bx[2:]) / 2, *(bx[2:] - bx[:2]), 0.9, 0.0])
    return _yolo(rows) if rows else np.zeros((1, 6, 0), np.float32)


def test_grid_pass_when_the_first_pass_finds_almost_nothing(tmp_path: Path) -> None:
    """Rule: a frame where the first pass finds fewer than 3 tiles is detected again in
    2 × 2 overlapping cells; a tile cut by a cell's inner side is dropped there (the
    neighbouring cell holds it whole) and a tile seen by two cells is kept once."""
    from vision.zoom import grid_cells

    cells = grid_cells((1280, 960), 2)
    assert cells[0] == (0, 0, 720, 540) and cells[1] == (560, 0, 1280, 540)
    near, shared = [100, 100, 130, 140], [600, 100, 630, 140]
    cut = [560, 300, 575, 340]  # what cell 1 sees of a tile at x 545-575, cut at x 560
    outputs = [
        np.zeros((1, 6, 0), np.float32),  # first pass: nothing
        _cell_rows([near, shared], cells[0]),
        _cell_rows([shared, cut], cells[1]),
        _cell_rows([], cells[2]),
        _cell_rows([], cells[3]),
    ]
    backend = SequenceBackend(outputs)
    det = Detector(_model_dir(tmp_path, ["1m", "2m"], zoom={}), backend=backend)(
        np.zeros((960, 1280, 3), np.uint8)
    )
    assert len(backend.inputs) == 5
    assert det.meta["zoom_pass"] == "grid"
    assert det.meta["zoom"] == pytest.approx(min(640 / 720, 640 / 540) / 0.5, 1e-3)
    got = sorted(det.boxes.tolist())
    assert len(got) == 2
    assert got[0] == pytest.approx(near, abs=0.5) and got[1] == pytest.approx(shared, abs=0.5)


@pytest.mark.parametrize("after_grid", [False, True])
def test_region_pass_after_the_grid_when_the_cells_tiles_are_still_small(
    tmp_path: Path, after_grid: bool
) -> None:
    """Manifest ``zoom.region_after_grid``: a hand far away is found by the grid pass's
    cells but still small there (20 frame px = 18 input px of a 720-px cell at 640): the
    region pass then looks at those tiles closer (a sixth detector run); without the
    setting the grid pass is the last."""
    from vision.zoom import grid_cells

    cells = grid_cells((1280, 960), 2)
    tiles = [[100 + 20 * i, 100, 120 + 20 * i, 128] for i in range(3)]
    empty = np.zeros((1, 6, 0), np.float32)
    outputs = [empty, _cell_rows(tiles, cells[0]), *(_cell_rows([], c) for c in cells[1:]),
               empty]
    backend = SequenceBackend(outputs)
    zoom = {"region_after_grid": after_grid}
    det = Detector(_model_dir(tmp_path, ["1m", "2m"], zoom=zoom), backend=backend)(
        np.zeros((960, 1280, 3), np.uint8)
    )
    assert len(det) == 3
    if after_grid:
        assert len(backend.inputs) == 6 and det.meta["zoom_pass"] == "grid+region"
        assert det.meta["zoom"] > min(640 / 720, 640 / 540) / 0.5  # closer than the cells
    else:
        assert len(backend.inputs) == 5 and det.meta["zoom_pass"] == "grid"


def test_no_grid_pass_for_tiles_not_tiny_or_when_disabled(tmp_path: Path) -> None:
    """Rule: 3 or more tiles of at least zoom.grid_below_px (20) input pixels spread over
    the frame get no grid pass; neither does any frame when zoom.grid is 0."""
    spread = [[40 + 280 * i, 300, 24, 34, 0.6, 0.0] for i in range(3)]  # 24 px: < 32
    backend = SequenceBackend([_yolo(spread)])
    det = Detector(_model_dir(tmp_path, ["1m", "2m"], zoom={}), backend=backend)(
        np.zeros((960, 1280, 3), np.uint8)
    )
    assert len(backend.inputs) == 1 and det.meta["zoom_pass"] == "none" and len(det) == 3
    backend = SequenceBackend([np.zeros((1, 6, 0), np.float32)])
    det = Detector(_model_dir(tmp_path, ["1m", "2m"], zoom={"grid": 0}), backend=backend)(
        np.zeros((960, 1280, 3), np.uint8)
    )
    assert len(backend.inputs) == 1 and det.meta["zoom_pass"] == "none" and len(det) == 0


def test_no_grid_pass_on_small_frames(tmp_path: Path) -> None:
    """Rule: a frame the first pass did not shrink at least zoom.min_gain times is not cut
    up (its cells would only be blown up)."""
    backend = SequenceBackend([np.zeros((1, 6, 0), np.float32)])
    det = Detector(_model_dir(tmp_path, ["1m", "2m"], zoom={}), backend=backend)(
        np.zeros((480, 640, 3), np.uint8)
    )
    assert len(backend.inputs) == 1 and det.meta["zoom_pass"] == "none"


def test_any_class_score_keeps_a_tile_the_detector_hesitates_over(tmp_path: Path) -> None:
    """Rule: with detector.score "any" the threshold applies to 1 - Π(1 - s_c), so a tile
    whose scores spread over look-alike classes (0.15 / 0.12 / 0.10: no class reaches
    0.25) is kept, at 0.327; with "max" it is dropped. Background stays out either way."""
    rows = [
        [115, 200, 30, 40, 0.15, 0.12, 0.10],  # a flower the detector hesitates over
        [300, 200, 30, 40, 0.05, 0.04, 0.03],  # background
    ]
    names = ["1f", "2f", "3f"]
    model = _model_dir(tmp_path, names)
    det = Detector(model, backend=FakeBackend(_yolo(rows)), conf=0.25)(
        np.zeros((960, 1280, 3), np.uint8)
    )
    assert len(det) == 0
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    manifest["detector"]["score"] = "any"
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    det = Detector(tmp_path, backend=FakeBackend(_yolo(rows)), conf=0.25)(
        np.zeros((960, 1280, 3), np.uint8)
    )
    assert det.codes == ["1f"]
    assert det.confidences[0] == pytest.approx(1 - 0.85 * 0.88 * 0.90, abs=1e-5)
    manifest["detector"]["score"] = "mean"
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(ModelError, match="'score' must be 'max' or 'any'"):
        read_manifest(tmp_path)


def test_contain_setting_is_read_and_checked(tmp_path: Path) -> None:
    model = _model_dir(tmp_path, ["1m"])
    manifest = json.loads((model / "manifest.json").read_text())
    assert read_manifest(model)[0].contain is None  # absent: IoU-only NMS, as before
    manifest["detector"]["contain"] = 0.65
    (model / "manifest.json").write_text(json.dumps(manifest))
    assert read_manifest(model)[0].contain == 0.65
    for bad in (0, 1.5, "0.6", True):
        manifest["detector"]["contain"] = bad
        (model / "manifest.json").write_text(json.dumps(manifest))
        with pytest.raises(ModelError, match="'contain' must be a number in"):
            read_manifest(model)


def test_fuse_setting_moves_a_kept_box_to_its_candidates_mean(tmp_path: Path) -> None:
    """Manifest ``"fuse"``: a strong kept box becomes the score-weighted mean of the
    candidates it suppressed at that IoU (a second box of the tile, 4 input px to its
    right, scored alike, shifts it 2 input px = 4 image px); absent, the kept box as it is.
    Bad values are named."""
    rows = [
        [115, 200, 30, 40, 0.90, 0.05],  # 1m at original (200, 200, 260, 280)
        [119, 200, 30, 40, 0.85, 0.05],  # the same tile found 4 input px to the right
    ]
    model = _model_dir(tmp_path, ["1m", "2m"])
    image = np.zeros((960, 1280, 3), np.uint8)
    plain = Detector(model, backend=FakeBackend(_yolo(rows)), conf=0.25)(image)
    assert len(plain) == 1 and plain.boxes[0].tolist() == pytest.approx([200, 200, 260, 280])
    manifest = json.loads((model / "manifest.json").read_text())
    manifest["detector"]["fuse"] = {"iou": 0.5, "rel": 0.5}
    (model / "manifest.json").write_text(json.dumps(manifest))
    assert read_manifest(model)[0].fuse == (0.5, 0.5)
    fused = Detector(model, backend=FakeBackend(_yolo(rows)), conf=0.25)(image)
    shift = 8 * 0.85 / (0.90 + 0.85)  # image px: 2 × (4 input px × the second's weight)
    assert fused.boxes[0].tolist() == pytest.approx([200 + shift, 200, 260 + shift, 280],
                                                    abs=1e-3)
    for bad in ({"iou": 0}, {"rel": 1.5}, {"iou": "0.5"}, {"size": 1}, 0.5):
        manifest["detector"]["fuse"] = bad
        (model / "manifest.json").write_text(json.dumps(manifest))
        with pytest.raises(ModelError, match="'fuse"):
            read_manifest(model)


def _scales_model(tmp_path: Path, **detector: Any) -> Path:
    """imgsz 640 plus a 384 pass (manifest ``scales``), conf 0.5 with weak boxes from
    0.2, no zoom pass."""
    model = _model_dir(tmp_path, ["1m", "2m"])
    manifest = json.loads((model / "manifest.json").read_text())
    manifest["detector"].update(conf=0.5, weak_conf=0.2, scales=[384], **detector)
    (model / "manifest.json").write_text(json.dumps(manifest))
    return model


def _tile_rows(scale: float, scores: list[tuple[float, float]]) -> list[list[float]]:
    """Tile ``i`` at frame pixels (200 + 100i, 300, 280 + 100i, 412), seen at ``scale``
    input px per frame px (a dynamic-input model: no padding), scored ``(1m, 2m)``."""
    return [[(240 + 100 * i) * scale, 356 * scale, 80 * scale, 112 * scale, *s]
            for i, s in enumerate(scores)]


def test_other_scales_keep_a_tile_one_size_sees_weakly_and_another_strongly(
    tmp_path: Path,
) -> None:
    """Manifest ``scales``: the photo is detected again at each size and the passes fused
    (boxes averaged, class scores the mean over the passes). The fourth tile, 0.3 at 640
    and 0.9 at 384, is kept at 0.6; a box only the 384 pass sees (0.8) falls to 0.4,
    below conf; tiles both passes see keep their score."""
    first = _tile_rows(0.5, [(0.9, 0), (0.9, 0), (0.9, 0), (0.3, 0)])
    second = _tile_rows(0.3, [(0.9, 0), (0.9, 0), (0.9, 0), (0.9, 0), (0, 0.8)])
    backend = DynamicSequenceBackend([_yolo(first), _yolo(second)])
    model = _scales_model(tmp_path)
    assert read_manifest(model)[0].scales == (384,)
    det = Detector(model, backend=backend)(np.zeros((960, 1280, 3), np.uint8))
    assert [b.shape for b in backend.inputs] == [(1, 3, 480, 640), (1, 3, 288, 384)]
    assert det.meta["scales"] == [640, 384]
    order = np.argsort(det.boxes[:, 0])
    assert [det.codes[i] for i in order] == ["1m"] * 4
    assert detection_scores(det)[order].tolist() == pytest.approx([0.9, 0.9, 0.9, 0.6], abs=1e-3)
    assert det.boxes[order[3]].tolist() == pytest.approx([500, 300, 580, 412], abs=0.5)
    # without scales, one pass: the fourth tile stays weak
    backend = DynamicSequenceBackend([_yolo(first)])
    manifest = json.loads((model / "manifest.json").read_text())
    del manifest["detector"]["scales"]
    (model / "manifest.json").write_text(json.dumps(manifest))
    det = Detector(model, backend=backend)(np.zeros((960, 1280, 3), np.uint8))
    assert len(det) == 3 and det.meta["scales"] == [640] and len(backend.inputs) == 1


def test_other_scales_false_detects_at_the_first_size_alone(tmp_path: Path) -> None:
    """``detect(image, other_scales=False)`` (a photo's level re-read): one pass at the
    manifest's ``imgsz`` although ``scales`` names another; the weak fourth tile stays
    weak."""
    first = _tile_rows(0.5, [(0.9, 0), (0.9, 0), (0.9, 0), (0.3, 0)])
    backend = DynamicSequenceBackend([_yolo(first)])
    det = Detector(_scales_model(tmp_path), backend=backend).detect(
        np.zeros((960, 1280, 3), np.uint8), other_scales=False)
    assert [b.shape for b in backend.inputs] == [(1, 3, 480, 640)]
    assert det.meta["scales"] == [640] and len(det) == 3


def test_other_scales_run_the_manifests_scales_file(tmp_path: Path) -> None:
    """Manifest ``scales_file``: the other sizes are detected by that model file (e.g. one
    whose boxes were trained on close-up photos), the first pass by the detector's own."""
    first = _tile_rows(0.5, [(0.9, 0), (0.9, 0), (0.9, 0), (0.3, 0)])
    second = _tile_rows(0.3, [(0.9, 0), (0.9, 0), (0.9, 0), (0.9, 0)])
    model = _scales_model(tmp_path, scales_file="photo.onnx")
    assert read_manifest(model)[0].scales_file == model / "photo.onnx"
    own, other = DynamicSequenceBackend([_yolo(first)]), DynamicSequenceBackend([_yolo(second)])
    det = Detector(model, backend=own, scales_backend=other)(np.zeros((960, 1280, 3), np.uint8))
    assert [b.shape for b in own.inputs] == [(1, 3, 480, 640)]
    assert [b.shape for b in other.inputs] == [(1, 3, 288, 384)]
    assert det.meta["scales"] == [640, 384] and len(det) == 4
    with pytest.raises(ModelError, match="is missing"):  # the file must be in the folder
        Detector(model, backend=own)
    for bad in ("", "../photo.onnx", 3):
        manifest = json.loads((model / "manifest.json").read_text())
        manifest["detector"]["scales_file"] = bad
        (model / "manifest.json").write_text(json.dumps(manifest))
        with pytest.raises(ModelError, match="'scales_file' must be"):
            read_manifest(model)


def test_no_other_scales_for_small_tiles_or_few(tmp_path: Path) -> None:
    """Rule: the other sizes run only when the first pass found 3 or more tiles whose
    median short side is at least ``scales_min_px`` input px (small tiles — a table
    camera's — are the zoom pass's business, and a smaller input loses them)."""
    big = _tile_rows(0.5, [(0.9, 0)] * 3)  # short side 40 input px
    for min_px, rows, passes in ((32, big, 2), (48, big, 1), (32, big[:2], 1)):
        backend = DynamicSequenceBackend([_yolo(rows), _yolo(rows)])
        model = _scales_model(tmp_path, scales_min_px=min_px)
        Detector(model, backend=backend)(np.zeros((960, 1280, 3), np.uint8))
        assert len(backend.inputs) == passes, (min_px, len(rows))


def test_other_scales_abstain_on_tiles_too_small_for_them(tmp_path: Path) -> None:
    """Rule (manifest ``scales_each_px``): a pass at another size counts on a tile only
    when the tile's short side is at least that many of its own input px. The tiles are
    24 px at 384 (40 at 640): with 30 px the 384 pass would abstain everywhere, so it does
    not run — the fourth tile keeps its 640 score (0.3, weak), no box only 384 draws; with
    20 px it runs and counts, as without the setting; with 30 px on 56 px tiles (34 at
    384) it runs and counts."""
    first = _tile_rows(0.5, [(0.9, 0), (0.9, 0), (0.9, 0), (0.3, 0)])
    second = _tile_rows(0.3, [(0.9, 0), (0.9, 0), (0.9, 0), (0.9, 0), (0, 0.8)])
    image = np.zeros((960, 1280, 3), np.uint8)
    cases = ((30, [0.9, 0.9, 0.9], False, 1), (20, [0.9, 0.9, 0.9, 0.6], True, 2))
    for each_px, strong, lone_box, passes in cases:
        model = _scales_model(tmp_path, scales_each_px=each_px)
        assert read_manifest(model)[0].scales_each_px == each_px
        backend = DynamicSequenceBackend([_yolo(first), _yolo(second)])
        det = Detector(model, backend=backend)(image)
        assert len(backend.inputs) == passes
        order = np.argsort(det.boxes[:, 0])
        assert detection_scores(det)[order].tolist() == pytest.approx(strong, abs=1e-3)
        assert det.codes == ["1m"] * len(strong)
        weak_codes = [] if det.weak is None else list(det.weak.codes)
        assert ("2m" in weak_codes) is lone_box  # the 384-only box, halved to 0.4 (weak)
    # bigger tiles (0.7 input px per frame px at 640: 56 px; 34 px at 384): 30 px counts
    first = _tile_rows(0.7, [(0.9, 0), (0.9, 0), (0.9, 0), (0.3, 0)])
    second = _tile_rows(0.42, [(0.9, 0), (0.9, 0), (0.9, 0), (0.9, 0)])
    backend = DynamicSequenceBackend([_yolo(first), _yolo(second)])
    det = Detector(_scales_model(tmp_path, scales_each_px=30), backend=backend)(
        np.zeros((640, 640 * 4 // 3, 3), np.uint8))
    assert len(backend.inputs) == 2
    assert sorted(detection_scores(det).tolist()) == pytest.approx([0.6, 0.9, 0.9, 0.9],
                                                                   abs=1e-3)


def test_scales_settings_are_checked(tmp_path: Path) -> None:
    model = _scales_model(tmp_path)
    manifest = json.loads((model / "manifest.json").read_text())
    for key, bad in (("scales", [400]), ("scales", 384), ("scales", [True]),
                     ("scales_min_px", -1), ("scales_min_px", "32"),
                     ("scales_each_px", -1), ("scales_each_px", "24")):
        manifest["detector"].update(scales=[384], scales_min_px=32)
        manifest["detector"][key] = bad
        (model / "manifest.json").write_text(json.dumps(manifest))
        with pytest.raises(ModelError, match=f"'{key}' must be"):
            read_manifest(model)


def test_zoom_settings_are_checked(tmp_path: Path) -> None:
    manifest = json.loads((_model_dir(tmp_path, ["1m"]) / "manifest.json").read_text())
    for bad in (
        {"below_px": -1},
        {"min_gain": "x"},
        [24],
        {"grid": 1},
        {"grid": "2"},
        {"grid": True},
        {"grid_below_px": -2},
        {"max_px": -1},
        {"weak_region": "yes"},
        {"region_after_grid": 1},
    ):
        manifest["detector"]["zoom"] = bad
        (tmp_path / "manifest.json").write_text(json.dumps(manifest))
        with pytest.raises(ModelError, match="zoom"):
            read_manifest(tmp_path)


def _corner_classifier(batch: np.ndarray) -> np.ndarray:
    """A stand-in classifier for tiles marked by one bright pixel in their top-left corner:
    reads the class (channel of the mark) and the clockwise rotation from where the mark is
    (top-left 0, top-right 90, bottom-right 180, bottom-left 270)."""
    out = np.full((len(batch), 2 * 4), -10.0, np.float32)
    corners = [(0, 0), (0, -1), (-1, -1), (-1, 0)]
    for i, crop in enumerate(batch):
        for r, (y, x) in enumerate(corners):
            for c in range(2):
                if crop[c, y, x] > 0.5:
                    out[i, c * 4 + r] = 10.0
    return out


@pytest.mark.parametrize("views", [1, 2, 4])
@pytest.mark.parametrize(
    ("corner", "rotation"), [((0, 0), 0), ((0, 7), 1), ((7, 7), 2), ((7, 0), 3)]
)
def test_test_time_views_turn_rotations_back(
    views: int, corner: tuple[int, int], rotation: int
) -> None:
    """Rule: a crop turned k quarter turns counter-clockwise shows rotation r - k; averaging
    the views must turn each view's rotation back, so all views agree on the tile's own."""
    from vision.postprocess import classify_views

    crop = np.zeros((1, 3, 8, 8), np.float32)
    crop[0, 1, corner[0], corner[1]] = 1.0  # class 1 lying at `rotation`
    cls, rot = classify_views(_corner_classifier, crop, 2, views)
    assert cls.argmax(1).tolist() == [1] and cls[0, 1] == pytest.approx(1.0, abs=1e-3)
    assert rot.argmax(1).tolist() == [rotation] and rot[0, rotation] == pytest.approx(1.0, abs=1e-3)


def test_more_views_go_only_to_crops_the_two_views_leave_unsure() -> None:
    """Rule (``more_views_below``): with 2 views, a crop whose top class probability stays
    under the bound is also read in the other two quarter turns and gets the four views'
    average; a sure crop is not looked at again."""
    from vision.postprocess import classify_views

    seen: list[int] = []

    def classifier(batch: np.ndarray) -> np.ndarray:
        seen.append(len(batch))
        out = _corner_classifier(batch)
        # crop 1 (its mark in channel 0 at the centre row) reads 60:40 upright, 50:50 turned
        for i, crop in enumerate(batch):
            if crop[2].sum() > 0:
                out[i] = -10.0
                out[i, 0 * 4] = np.log(0.6 if crop[2, 0, 0] > 0.5 else 0.5)
                out[i, 1 * 4] = np.log(0.4 if crop[2, 0, 0] > 0.5 else 0.5)
        return out

    crops = np.zeros((2, 3, 8, 8), np.float32)
    crops[0, 1, 0, 0] = 1.0  # sure: class 1 upright
    crops[1, 2, 0, 0] = crops[1, 2, 7, 7] = 1.0  # unsure: same look upright and turned 180°
    cls, _ = classify_views(classifier, crops, 2, 2, more_below=0.7)
    assert seen == [4, 2]  # 2 crops x 2 views, then the unsure crop x 2 more views
    assert cls[0, 1] == pytest.approx(1.0, abs=1e-3)
    assert cls[1, 0] == pytest.approx((0.6 + 0.6 + 0.5 + 0.5) / 4, abs=1e-3)
    seen.clear()
    classify_views(classifier, crops, 2, 2)
    assert seen == [4]


def test_more_views_go_to_the_least_sure_crops_up_to_the_bound() -> None:
    """Rule (``more_views_max``, model card recipe step 65): when more crops stay unsure
    than the bound, only the least sure get the other two quarter turns; the rest keep
    their two views' average."""
    from vision.postprocess import classify_views

    seen: list[int] = []
    upright = {0: 0.6, 1: 0.55, 2: 0.8}  # each crop's class-0 share, marked in channel 0

    def classifier(batch: np.ndarray) -> np.ndarray:
        seen.append(len(batch))
        out = np.full((len(batch), 2 * 4), -10.0, np.float32)
        for i, crop in enumerate(batch):
            k = round(float(crop[0].max()) * 10)
            p = upright[k] if crop[1, 0, 0] > 0.5 else 0.5  # turned crops read 50:50
            out[i, 0], out[i, 4] = np.log(p), np.log(1 - p)
        return out

    crops = np.zeros((3, 3, 8, 8), np.float32)
    for k in range(3):
        crops[k, 0, 3, 3] = k / 10
        crops[k, 1, 0, 0] = crops[k, 1, 7, 7] = 1.0  # upright and turned 180° look alike
    cls, _ = classify_views(classifier, crops, 2, 2, more_below=0.9, more_max=1)
    assert seen == [6, 2]  # 3 crops x 2 views, then the least sure one x 2 more
    assert cls[1, 0] == pytest.approx((0.55 + 0.55 + 0.5 + 0.5) / 4, abs=1e-3)
    assert cls[0, 0] == pytest.approx(0.6, abs=1e-3)
    assert cls[2, 0] == pytest.approx(0.8, abs=1e-3)
    seen.clear()
    classify_views(classifier, crops, 2, 2, more_below=0.9)
    assert seen == [6, 6]  # no bound: every unsure crop


def _classifier_setting_checked(
    tmp_path: Path, classifier: dict[str, Any], key: str, bad: tuple[Any, ...], good: Any
) -> ClassifierSpec:
    """Each of ``bad`` as the classifier's ``key`` is refused naming the key; ``good`` is
    read: the spec read with it."""
    for value in bad:
        classifier[key] = value
        with pytest.raises(ModelError, match=key):
            read_manifest(_model_dir(tmp_path, ["1m"], classifier))
    classifier[key] = good
    _, cls, _ = read_manifest(_model_dir(tmp_path, ["1m"], classifier))
    assert cls is not None
    return cls


def test_more_views_setting_is_checked(tmp_path: Path) -> None:
    classifier = {"file": "c.onnx", "size": 32, "names": ["1m"], "tta": 2,
                  "more_views_below": 1.5}
    with pytest.raises(ModelError, match="more_views_below"):
        read_manifest(_model_dir(tmp_path, ["1m"], classifier))
    classifier["more_views_below"] = 0.7
    _, cls, _ = read_manifest(_model_dir(tmp_path, ["1m"], classifier))
    assert cls is not None and cls.more_views_below == 0.7 and cls.more_views_max == 0
    bad = (-1, 2.5, True)
    assert _classifier_setting_checked(tmp_path, classifier, "more_views_max", bad,
                                       12).more_views_max == 12


def test_agreed_weight_setting_is_checked(tmp_path: Path) -> None:
    """Manifest ``classifier.agreed``: an object with ``share`` and ``weight`` in [0, 1];
    absent, the classifier's ``weight`` holds in every frame."""
    classifier: dict[str, object] = {"file": "c.onnx", "size": 32, "names": ["1m"]}
    _, cls, _ = read_manifest(_model_dir(tmp_path, ["1m"], classifier))
    assert cls is not None and cls.agreed is None
    bad = ({"share": 0.9}, {"share": 1.2, "weight": 0.7}, [0.9, 0.7])
    assert _classifier_setting_checked(tmp_path, classifier, "agreed", bad,
                                       {"share": 0.9, "weight": 0.7}).agreed == (0.9, 0.7)


def test_a_frame_whose_readers_agree_fuses_with_the_agreed_weight() -> None:
    """Rule (``agreed``): the detector's class scores weigh more in a frame where its top
    codes and the classifier's agree on at least the share given (a tile set it knows):
    a tile the two read differently then follows the detector further."""
    spec = ClassifierSpec(Path("c.onnx"), 64, ("1m", "2m"), 0.85, agreed=(0.9, 0.5))
    det = np.array([[0.9, 0.1]] * 9 + [[0.8, 0.2]], np.float32)
    cls = np.array([[0.8, 0.2]] * 9 + [[0.3, 0.7]], np.float32)  # 9 of 10 agree
    assert fusion_weight(det, cls, spec) == 0.5
    assert pp.fuse(det, cls, 0.5)[9].argmax() == 0  # the detector's 1m wins at 0.5
    assert pp.fuse(det, cls, 0.85)[9].argmax() == 1  # the classifier's 2m at 0.85
    cls[:2] = [0.1, 0.9]  # 7 of 10 agree: the manifest's weight
    assert fusion_weight(det, cls, spec) == 0.85
    assert fusion_weight(det, cls, dataclasses.replace(spec, agreed=None)) == 0.85


def test_tta_setting_is_checked(tmp_path: Path) -> None:
    classifier = {"file": "c.onnx", "size": 32, "names": ["1m"], "tta": 3}
    with pytest.raises(ModelError, match="tta"):
        read_manifest(_model_dir(tmp_path, ["1m"], classifier))
    classifier["tta"] = 4
    _, spec, _ = read_manifest(_model_dir(tmp_path, ["1m"], classifier))
    assert spec is not None and spec.tta == 4


def test_weak_boxes_are_kept_apart_and_leave_the_tiles_unchanged(tmp_path: Path) -> None:
    """Manifest ``weak_conf``: boxes scored in [weak_conf, conf) come back in ``weak``
    (for the hand-completion rule), never among the tiles."""
    model = _model_dir(tmp_path, ["1m", "2m", "back"])
    plain = Detector(model, backend=FakeBackend(_yolo(ROWS))).detect(
        np.zeros((960, 1280, 3), np.uint8)
    )
    assert plain.weak is None
    manifest = json.loads((model / "manifest.json").read_text())
    manifest["detector"]["weak_conf"] = 0.05
    (model / "manifest.json").write_text(json.dumps(manifest))
    d = Detector(model, backend=FakeBackend(_yolo(ROWS))).detect(
        np.zeros((960, 1280, 3), np.uint8)
    )
    assert d.codes == plain.codes and d.boxes.tolist() == plain.boxes.tolist()
    assert d.weak is not None and len(d.weak) == 1  # the row scored 0.1 (the 2m is suppressed)
    assert d.weak.boxes[0].tolist() == pytest.approx([970, 800, 1030, 880])
    assert float(d.weak.confidences[0]) == pytest.approx(0.1)


def test_weak_conf_setting_is_checked(tmp_path: Path) -> None:
    model = _model_dir(tmp_path, ["1m"])
    manifest = json.loads((model / "manifest.json").read_text())
    assert read_manifest(model)[0].weak_conf == 0.0
    for bad in (-0.1, 0.25, 0.5, "0.1", True):  # conf defaults to 0.25
        manifest["detector"]["weak_conf"] = bad
        (model / "manifest.json").write_text(json.dumps(manifest))
        with pytest.raises(ModelError, match="'weak_conf' must be a number in"):
            read_manifest(model)


def _bonus_conf_model(tmp_path: Path, bonus_conf: float | None) -> Path:
    model = _model_dir(tmp_path, ["1m", "2m", "1f"])
    manifest = json.loads((model / "manifest.json").read_text())
    manifest["detector"].update(conf=0.4, weak_conf=0.15)
    if bonus_conf is not None:
        manifest["detector"]["bonus_conf"] = bonus_conf
    (model / "manifest.json").write_text(json.dumps(manifest))
    return model


#: Tiles apart from each other: scored 0.35 a 1m and a 1f, 0.9 a 1m; and a box scored
#: 0.35 whose reading is spread (1f 0.37, 1m and 2m 0.32 each: no more likely a flower
#: than not).
BONUS_ROWS = [
    [115, 200, 30, 40, 0.35, 0.0, 0.0],
    [215, 200, 30, 40, 0.0, 0.0, 0.35],
    [315, 200, 30, 40, 0.9, 0.0, 0.0],
    [415, 200, 30, 40, 0.3, 0.3, 0.35],
]


def test_a_box_read_as_a_flower_is_kept_from_the_lower_bonus_conf(tmp_path: Path) -> None:
    """Manifest ``bonus_conf`` (the detector scores the eight bonus classes lower): a box
    read as a flower or season scored 0.35 is a tile at bonus_conf 0.3, one read as 1m
    with the same score stays weak, and so does one whose top-1 code is a flower but whose
    reading gives the eight less than half the probability; without the setting all stay
    weak."""
    frame = np.zeros((960, 1280, 3), np.uint8)
    plain = Detector(_bonus_conf_model(tmp_path, None), backend=FakeBackend(_yolo(BONUS_ROWS)))
    d = plain.detect(frame)
    assert d.codes == ["1m"] and d.weak is not None and sorted(d.weak.codes) == ["1f", "1f", "1m"]
    lower = Detector(_bonus_conf_model(tmp_path, 0.3), backend=FakeBackend(_yolo(BONUS_ROWS)))
    d = lower.detect(frame)
    assert sorted(d.codes) == ["1f", "1m"] and d.weak is not None
    assert sorted(d.weak.codes) == ["1f", "1m"]  # the spread reading stays weak
    assert (detection_scores(d) >= keep_thresholds(d, 0.4, 0.3)).all()
    assert not (detection_scores(d.weak) >= keep_thresholds(d.weak, 0.4, 0.3)).any()
    # a caller's own threshold binds the bonus tiles too when it is the lower one
    loose = Detector(_bonus_conf_model(tmp_path, 0.3), backend=FakeBackend(_yolo(BONUS_ROWS)),
                     conf=0.2)
    assert len(loose.detect(frame)) == 4


def test_bonus_conf_setting_is_checked(tmp_path: Path) -> None:
    model = _model_dir(tmp_path, ["1m"])
    assert read_manifest(model)[0].bonus_conf is None
    manifest = json.loads((model / "manifest.json").read_text())
    for bad in (0, -0.1, 0.3, "0.1", True):  # conf defaults to 0.25
        manifest["detector"]["bonus_conf"] = bad
        (model / "manifest.json").write_text(json.dumps(manifest))
        with pytest.raises(ModelError, match="'bonus_conf' must be a number in"):
            read_manifest(model)
    manifest["detector"]["bonus_conf"] = 0.25
    (model / "manifest.json").write_text(json.dumps(manifest))
    assert read_manifest(model)[0].bonus_conf == 0.25


def _assert_rejected(model: Path, manifest: dict[str, Any],
                     cases: Sequence[tuple[dict[str, Any], str]]) -> None:
    """Each ``(entries, message)``: the manifest with ``entries`` set is refused with a
    :class:`ModelError` matching ``message``."""
    for entries, message in cases:
        (model / "manifest.json").write_text(json.dumps({**manifest, **entries}))
        with pytest.raises(ModelError, match=message):
            read_manifest(model)


BONUS_READER = {"file": "bonus.onnx", "size": 16, "names": ["1f", "2f"], "weight": 1.0}


def _logits(probs_by_class: list[float]) -> np.ndarray:
    """Classifier logits ``(1, C * 4)`` whose class marginals are ``probs_by_class``
    (every tile lying at 0°)."""
    out = np.full((1, len(probs_by_class) * 4), -30.0, np.float32)
    for c, p in enumerate(probs_by_class):
        out[0, c * 4] = np.log(p)
    return out


def test_reader_reranks_the_bonus_split_and_keeps_the_bonus_mass(tmp_path: Path) -> None:
    """Manifest ``reader``: a tile the models give mostly to the flowers is looked at again
    by the flower reader, which decides *which* flower; how likely a flower it is at all,
    and every other code's share, stay as they were. A tile with almost no flower mass is
    not looked at."""
    names = ["1m", "1f", "2f"]
    model = _model_dir(tmp_path, ["tile"], classifier={"file": "c.onnx", "size": 32,
                                                       "names": names, "weight": 1.0})
    rows = [[115, 200, 30, 40, 0.9], [300, 200, 30, 40, 0.8]]
    cls = FakeBackend(np.concatenate([_logits([0.2, 0.5, 0.3]), _logits([0.98, 0.01, 0.01])]))
    plain = Detector(model, backend=FakeBackend(_yolo(rows)), classifier=cls, topk=3)
    before = plain.detect(np.zeros((960, 1280, 3), np.uint8))
    assert before.codes == ["1f", "1m"]
    manifest = json.loads((model / "manifest.json").read_text())
    manifest["reader"] = BONUS_READER
    (model / "manifest.json").write_text(json.dumps(manifest))
    reader = FakeBackend(np.array([[-30, -30, -30, -30, 2.0, -30, -30, -30]], np.float32))
    cls.inputs.clear()
    d = Detector(model, backend=FakeBackend(_yolo(rows)), classifier=cls, readers=[reader],
                 topk=3).detect(np.zeros((960, 1280, 3), np.uint8))
    assert [x.shape for x in reader.inputs] == [(1, 3, 16, 16)]  # only the flower-like tile
    assert d.codes == ["2f", "1m"]
    was = dict(zip(before.topk_ids[0].tolist(), before.topk_probs[0].tolist(), strict=True))
    p = dict(zip(d.topk_ids[0].tolist(), d.topk_probs[0].tolist(), strict=True))
    flower = class_id("1f"), class_id("2f")
    assert p[flower[1]] > 0.99 * (was[flower[0]] + was[flower[1]])
    assert p.get(flower[0], 0.0) + p[flower[1]] == pytest.approx(
        was[flower[0]] + was[flower[1]], abs=1e-3
    )
    assert p[class_id("1m")] == pytest.approx(was[class_id("1m")])
    assert d.topk_probs[1].tolist() == pytest.approx(before.topk_probs[1].tolist())


def test_glyph_reader_looks_only_at_unsure_tiles_of_its_codes(tmp_path: Path) -> None:
    """Manifest ``readers`` with ``below_p``: a reader of the characters looks again only at
    tiles that are mostly characters *and* whose top-1 probability is below ``below_p``;
    a sure character and a tile of other codes are not looked at, and the looked-at
    tile's mass on the characters stays (its split among them is re-ranked)."""
    names = ["4m", "5m", "1f", "2f"]
    classifier = {"file": "c.onnx", "size": 32, "names": names, "weight": 1.0}
    rows = [[115, 200, 30, 40, 0.9], [300, 200, 30, 40, 0.9], [500, 200, 30, 40, 0.9]]
    cls_out = np.concatenate([
        _logits([0.55, 0.4, 0.03, 0.02]),  # unsure: 4m or 5m
        _logits([0.97, 0.01, 0.01, 0.01]),  # a sure 4m
        _logits([0.02, 0.03, 0.55, 0.4]),  # unsure, but a flower
    ])
    frame = np.zeros((960, 1280, 3), np.uint8)
    model = _model_dir(tmp_path, ["tile"], classifier)
    plain = Detector(model, backend=FakeBackend(_yolo(rows)), classifier=FakeBackend(cls_out),
                     topk=3).detect(frame)
    assert plain.codes == ["4m", "4m", "1f"]
    manifest = json.loads((model / "manifest.json").read_text())
    manifest["readers"] = [{"file": "g.onnx", "size": 24, "names": ["4m", "5m"],
                            "weight": 0.5, "below_p": 0.9}]
    (model / "manifest.json").write_text(json.dumps(manifest))
    reader = FakeBackend(_logits([0.05, 0.95]))
    d = Detector(model, backend=FakeBackend(_yolo(rows)), classifier=FakeBackend(cls_out),
                 readers=[reader], topk=3).detect(frame)
    assert [x.shape for x in reader.inputs] == [(1, 3, 24, 24)]  # the unsure character only
    assert d.codes == ["5m", "4m", "1f"]
    m4, m5 = class_id("4m"), class_id("5m")
    was = dict(zip(plain.topk_ids[0].tolist(), plain.topk_probs[0].tolist(), strict=True))
    now = dict(zip(d.topk_ids[0].tolist(), d.topk_probs[0].tolist(), strict=True))
    assert now[m4] + now[m5] == pytest.approx(was[m4] + was[m5], abs=1e-4)
    for i in (1, 2):  # the sure character and the flower: as they were
        assert d.topk_probs[i].tolist() == plain.topk_probs[i].tolist()


def test_readers_list_and_single_reader_are_exclusive(tmp_path: Path) -> None:
    model = _model_dir(tmp_path, ["tile"], {"file": "c.onnx", "size": 32, "names": ["1f", "2f"]})
    manifest = json.loads((model / "manifest.json").read_text())
    _assert_rejected(model, manifest, (
        ({"reader": BONUS_READER, "readers": [BONUS_READER]}, "not both"),
        ({"readers": BONUS_READER}, "expected a list"),
        ({"readers": [BONUS_READER, {**BONUS_READER, "below_p": 2}]}, r"readers\[1\]: 'below_p'"),
    ))
    (model / "manifest.json").write_text(
        json.dumps({**manifest, "readers": [{**BONUS_READER, "below_p": 0.9}, BONUS_READER]})
    )
    _, cls, _ = read_manifest(model)
    assert cls is not None and [r.below_p for r in cls.readers] == [0.9, 1.0]


def test_reader_settings_are_checked(tmp_path: Path) -> None:
    classifier = {"file": "c.onnx", "size": 32, "names": ["1m", "1f", "2f"]}
    model = _model_dir(tmp_path, ["tile"], classifier)
    manifest = json.loads((model / "manifest.json").read_text())
    _assert_rejected(model, manifest, [({"reader": bad}, message) for bad, message in (
        ({**BONUS_READER, "names": ["1f", "9x"]}, "two or more distinct tile codes"),
        ({**BONUS_READER, "names": ["1f"]}, "two or more distinct tile codes"),
        ({**BONUS_READER, "weight": 1.5}, "'weight' must be a number in"),
        ({**BONUS_READER, "min_mass": "0.1"}, "'min_mass' must be a number in"),
        ({**BONUS_READER, "tta": 3}, "'tta' must be"),
        ({"file": "b.onnx", "names": ["1f", "2f"]}, "'size' field is missing"),
        ("bonus.onnx", "expected an object"),
    )])
    manifest["reader"] = BONUS_READER
    del manifest["classifier"]
    (model / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(ModelError, match="needs a 'classifier'"):
        read_manifest(model)


def _one_set_model(tmp_path: Path, one_set: Any) -> Path:
    model = _model_dir(tmp_path, ["1f", "2f"])
    manifest = json.loads((model / "manifest.json").read_text())
    manifest["detector"]["one_set"] = one_set
    (model / "manifest.json").write_text(json.dumps(manifest))
    return model


def test_one_set_reads_a_second_copy_of_a_flower_as_its_next_code(tmp_path: Path) -> None:
    """Manifest ``one_set`` (RULES.md: one of each flower in a set): two tiles both read 1f
    — the less sure one becomes 2f, its next reading; off (the default), both stay 1f."""
    rows = [[115, 200, 30, 40, 0.9, 0.3], [215, 200, 30, 40, 0.8, 0.6]]
    frame = np.zeros((960, 1280, 3), np.uint8)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    plain = Detector(_model_dir(tmp_path / "a", ["1f", "2f"]), backend=FakeBackend(_yolo(rows)))
    assert plain.detect(frame).codes == ["1f", "1f"]
    assert "one_set_changed" not in plain.detect(frame).meta
    one = Detector(_one_set_model(tmp_path / "b", True), backend=FakeBackend(_yolo(rows)))
    d = one.detect(frame)
    assert d.codes == ["1f", "2f"] and d.meta["one_set_changed"] == 1
    assert d.topk_ids[1].tolist()[:1] == [class_id("2f")]


@pytest.mark.parametrize("bad", ["yes", 1, None])
def test_one_set_must_be_true_or_false(tmp_path: Path, bad: Any) -> None:
    with pytest.raises(ModelError, match="'one_set' must be true or false"):
        read_manifest(_one_set_model(tmp_path, bad))


NUMERAL = {"file": "numerals.onnx", "size": [48, 80], "top": 0.45, "weight": 1.0,
           "min_mass": 0.3}


def test_numeral_reader_decides_which_of_four_from_the_strips_of_bonus_tiles(
    tmp_path: Path,
) -> None:
    """Manifest ``numeral``: a tile read as a season, unsure which, has its top strip cut
    at the four quarter turns and read; the numeral it shows decides which season, and
    its chance of being a bonus tile at all stays. A character tile is not looked at."""
    names = ["1m", "1f", "2f", "3f"]
    model = _model_dir(tmp_path, ["tile"], classifier={"file": "c.onnx", "size": 32,
                                                       "names": names, "weight": 1.0})
    rows = [[115, 200, 30, 40, 0.9], [300, 200, 30, 40, 0.9]]
    cls_out = np.concatenate([_logits([0.1, 0.5, 0.35, 0.05]), _logits([0.97, 0.01, 0.01, 0.01])])
    frame = np.zeros((960, 1280, 3), np.uint8)
    plain = Detector(model, backend=FakeBackend(_yolo(rows)), classifier=FakeBackend(cls_out),
                     topk=5).detect(frame)
    assert plain.codes == ["1f", "1m"]
    manifest = json.loads((model / "manifest.json").read_text())
    manifest["numeral"] = NUMERAL
    (model / "manifest.json").write_text(json.dumps(manifest))
    # upright strip: numeral 2; the other three turns: none
    numeral = FakeBackend(np.array([[-5, 5, -5, -5, 0], [-5, -5, -5, -5, 5],
                                    [-5, -5, -5, -5, 5], [-5, -5, -5, -5, 5]], np.float32))
    d = Detector(model, backend=FakeBackend(_yolo(rows)), classifier=FakeBackend(cls_out),
                 numeral=numeral, topk=5).detect(frame)
    assert [x.shape for x in numeral.inputs] == [(4, 3, 48, 80)]  # one tile, four turns
    assert d.codes == ["2f", "1m"]
    bonus = [class_id(c) for c in ("1f", "2f", "3f")]
    was = dict(zip(plain.topk_ids[0].tolist(), plain.topk_probs[0].tolist(), strict=True))
    now = dict(zip(d.topk_ids[0].tolist(), d.topk_probs[0].tolist(), strict=True))
    assert sum(now.get(i, 0.0) for i in bonus) == pytest.approx(
        sum(was.get(i, 0.0) for i in bonus), abs=1e-3)
    assert d.topk_probs[1].tolist() == plain.topk_probs[1].tolist()


def test_numeral_min_odds_leaves_tiles_whose_numeral_the_reader_is_unsure_of(
    tmp_path: Path,
) -> None:
    """Manifest ``numeral.min_odds``: a numeral read with odds under it re-ranks nothing
    (the tile keeps the classifier's reading); one read surely enough still decides."""
    names = ["1m", "1f", "2f", "3f"]
    model = _model_dir(tmp_path, ["tile"], classifier={"file": "c.onnx", "size": 32,
                                                       "names": names, "weight": 1.0})
    rows = [[115, 200, 30, 40, 0.9]]
    cls_out = _logits([0.1, 0.5, 0.35, 0.05])
    frame = np.zeros((960, 1280, 3), np.uint8)
    manifest = json.loads((model / "manifest.json").read_text())
    # upright strip: numeral 2, its odds between 0.5 and 0.7 once "none" is spread and the
    # turns weighed; the other three turns: none
    strips = np.array([[-5, 1.2, -5, -5, 0.9], [-5, -5, -5, -5, 5],
                       [-5, -5, -5, -5, 5], [-5, -5, -5, -5, 5]], np.float32)
    for min_odds, code in ((0.0, "2f"), (0.5, "2f"), (0.7, "1f")):
        manifest["numeral"] = {**NUMERAL, "min_odds": min_odds}
        (model / "manifest.json").write_text(json.dumps(manifest))
        d = Detector(model, backend=FakeBackend(_yolo(rows)), classifier=FakeBackend(cls_out),
                     numeral=FakeBackend(strips), topk=5).detect(frame)
        assert d.codes == [code], min_odds


def test_numeral_setting_is_checked(tmp_path: Path) -> None:
    model = _model_dir(tmp_path, ["tile"], {"file": "c.onnx", "size": 32, "names": ["1f", "2f"]})
    manifest = json.loads((model / "manifest.json").read_text())
    _assert_rejected(model, manifest, [({"numeral": bad}, message) for bad, message in (
        ({**NUMERAL, "size": [48]}, "'size' must be"),
        ({**NUMERAL, "size": [4, 80]}, "'size' must be"),
        ({**NUMERAL, "weight": -1}, "'weight' must be"),
        ({**NUMERAL, "top": 0}, "'top' must be"),
        ({**NUMERAL, "min_mass": 2}, "min_mass"),
        ({**NUMERAL, "min_odds": 1.5}, "min_odds"),
        ({"size": [48, 80]}, "'file' field is missing"),
        ("numerals.onnx", "expected an object"),
    )])
    manifest["numeral"] = NUMERAL
    (model / "manifest.json").write_text(json.dumps(manifest))
    spec = read_manifest(model)[1]
    assert spec is not None and spec.numeral is not None and spec.numeral.size == (48, 80)
    del manifest["classifier"]
    manifest["detector"]["names"] = ["1f", "2f"]
    (model / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(ModelError, match="needs a 'classifier'"):
        read_manifest(model)


def _with_entry(folder: Path, key: str, value: Any) -> Path:
    """``folder`` with ``value`` set as the manifest's ``detector[key]``."""
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["detector"][key] = value
    (folder / "manifest.json").write_text(json.dumps(manifest))
    return folder


def test_a_grainy_frame_is_smoothed_before_detection_and_a_clean_one_is_not(
    tmp_path: Path,
) -> None:
    """The manifest's ``denoise`` (vision.denoise): a frame with sensor noise is blurred
    before the detector sees it; a clean frame reaches the detector untouched."""
    folder = _with_entry(_model_dir(tmp_path, ["1m", "2m", "back"]), "denoise",
                         {"above": 3.0, "sigma": 1.0})
    backend = FakeBackend(_yolo(ROWS))
    det = Detector(folder, backend=backend)
    clean = np.full((480, 640, 3), 120, np.uint8)
    clean[100:300, 200:400] = 220  # a bright tile-like block: edges, no grain
    grainy = np.clip(clean + np.random.default_rng(0).normal(0, 12, clean.shape), 0, 255)
    d_clean = det.detect(clean)
    d_grainy = det.detect(grainy.astype(np.uint8))
    assert d_clean.meta["smoothed"] is False and d_clean.meta["noise"] < 1
    assert d_grainy.meta["smoothed"] is True and d_grainy.meta["noise"] > 5
    assert d_grainy.meta["ms"]["denoise"] >= 0 and d_grainy.meta["ms"]["decode_image"] >= 0
    off_backend = FakeBackend(_yolo(ROWS))
    off = Detector(_with_entry(folder, "denoise", None), backend=off_backend)
    assert off.detect(grainy.astype(np.uint8)).meta["smoothed"] is False
    # what the detector was given, in a flat patch of the frame: the grain smoothed away
    smoothed, as_is = backend.inputs[1], off_backend.inputs[0]
    patch = (0, slice(None), slice(420, 520), slice(40, 140))  # model input px
    assert float(smoothed[patch].std()) < 0.6 * float(as_is[patch].std())


@pytest.mark.parametrize("bad", [{"above": 3.0}, {"above": 0, "sigma": 1}, [3, 1],
                                 {"above": 3, "sigma": True}, {"above": 3, "sigma": 1, "x": 1}])
def test_a_wrong_denoise_entry_names_the_problem(tmp_path: Path, bad: Any) -> None:
    folder = _with_entry(_model_dir(tmp_path, ["1m"]), "denoise", bad)
    with pytest.raises(ModelError, match="denoise"):
        read_manifest(folder)


def test_a_dark_frame_is_brightened_before_detection_and_a_lit_one_is_not(
    tmp_path: Path,
) -> None:
    """The manifest's ``brighten`` (vision.exposure): a frame whose bright end is under
    ``below`` is scaled up to ``to`` before the detector sees it."""
    folder = _with_entry(_model_dir(tmp_path, ["1m", "2m", "back"]), "brighten",
                         {"below": 140, "to": 220})
    backend = FakeBackend(_yolo(ROWS))
    det = Detector(folder, backend=backend)
    lit = np.full((480, 640, 3), 90, np.uint8)
    lit[100:300, 200:400] = 210  # ivory tiles under a lamp
    dark = (lit * 0.45).astype(np.uint8)
    d_lit, d_dark = det.detect(lit), det.detect(dark)
    assert d_lit.meta["brightened"] is False and d_lit.meta["bright"] == pytest.approx(210)
    assert d_dark.meta["brightened"] is True and d_dark.meta["bright"] < 100
    fed_dark = backend.inputs[1][0, :, 80 + 150, 300]  # a tile pixel, model input (RGB 0..1)
    assert fed_dark.tolist() == pytest.approx([220 / 255] * 3, abs=0.01)


@pytest.mark.parametrize("bad", [{"below": 140}, {"below": 220, "to": 140},
                                 {"below": 0, "to": 200}, {"below": 100, "to": 300}])
def test_a_wrong_brighten_entry_names_the_problem(tmp_path: Path, bad: Any) -> None:
    folder = _with_entry(_model_dir(tmp_path, ["1m"]), "brighten", bad)
    with pytest.raises(ModelError, match="brighten"):
        read_manifest(folder)


def test_evaluation_detector_keeps_the_low_tail_and_counts_tiles_at_the_operating_conf(
    tmp_path: Path,
) -> None:
    """``tilecam eval``'s set-up: boxes down to EVAL_CONF are kept (for mAP); a row
    counts as a tile at the manifest's threshold, or at ``conf`` when given."""
    from vision.detect import EVAL_CONF, evaluation_detector

    model = _model_dir(tmp_path, ["1m", "2m", "back"])
    setup = evaluation_detector(model, backend=FakeBackend(_yolo(ROWS)))
    assert setup.detector.conf == EVAL_CONF and setup.conf == Detector(
        model, backend=FakeBackend(_yolo(ROWS))).spec.conf
    d = setup.detector.detect(np.zeros((960, 1280, 3), np.uint8))
    assert len(d) == 3  # the 0.1 box too
    kept = detection_scores(d) >= setup.thresholds(d)
    assert sorted(np.asarray(d.codes)[kept].tolist()) == ["1m", "back"]
    strict = evaluation_detector(model, conf=0.85, backend=FakeBackend(_yolo(ROWS)))
    d = strict.detector.detect(np.zeros((960, 1280, 3), np.uint8))
    assert np.asarray(d.codes)[detection_scores(d) >= strict.thresholds(d)].tolist() == ["1m"]


def test_blurred_classifier_setting_is_checked(tmp_path: Path) -> None:
    """Manifest ``classifier.blurred``: an object with ``file`` and a ``below`` above 0;
    without it no frame is read by a second classifier."""
    classifier: dict[str, Any] = {"file": "c.onnx", "size": 32, "names": ["1m"]}
    _, cls, _ = read_manifest(_model_dir(tmp_path, ["1m"], classifier))
    assert cls is not None and cls.blurred is None
    bad = ("b.onnx", {"file": "b.onnx"}, {"file": "b.onnx", "below": 0},
           {"file": "b.onnx", "below": True}, {"file": 3, "below": 0.01},
           {"file": "b.onnx", "below": 0.01, "extra": 1})
    got = _classifier_setting_checked(tmp_path, classifier, "blurred", bad,
                                      {"file": "b.onnx", "below": 0.006})
    assert got.blurred == (tmp_path / "b.onnx", 0.006)


def _blur_pair(tmp_path: Path) -> tuple[Detector, FakeBackend, FakeBackend]:
    """A detector with one 1m/5p box, a classifier reading 1m and a blurred one reading 5p."""
    names = ["1m", "5p"]
    model_dir = _model_dir(tmp_path, ["tile"], classifier={
        "file": "cls.onnx", "size": 32, "names": names,
        "blurred": {"file": "blur.onnx", "below": 0.006}})

    def reads(code: int) -> FakeBackend:
        logits = np.full((1, len(names) * 4), -5.0, np.float32)
        logits[0, code * 4] = 6.0
        return FakeBackend(logits)

    sharp, smeared = reads(0), reads(1)
    det = Detector(model_dir, backend=FakeBackend(_yolo([[320, 320, 200, 260, 0.9]])),
                   classifier=sharp, blurred_classifier=smeared)
    return det, sharp, smeared


def test_a_smeared_frame_is_read_by_the_blurred_classifier(tmp_path: Path) -> None:
    """Rule (``classifier.blurred``, recipe step 67): a frame whose crops are sharp is read
    by the classifier; the same frame smeared (its crops' Laplacian variance under
    ``below``) by the classifier for blurred frames; ``meta`` says which and why."""
    det, sharp, smeared = _blur_pair(tmp_path)
    rng = np.random.default_rng(0)
    img = np.full((640, 640, 3), 200, np.uint8)
    img[200:460, 220:420] = rng.integers(0, 2, (260, 200, 1)).astype(np.uint8) * 255  # strokes
    d = det.detect(img)
    assert d.codes == ["1m"] and d.meta["blurred"] is False and d.meta["sharpness"] > 0.006
    assert len(sharp.inputs) == 1 and not smeared.inputs
    flat = np.full((640, 640, 3), 200, np.uint8)  # nothing sharp left in the box
    d = det.detect(flat)
    assert d.codes == ["5p"] and d.meta["blurred"] is True and d.meta["sharpness"] < 0.006
    assert len(smeared.inputs) == 1 and len(sharp.inputs) == 1


def test_without_a_blurred_classifier_nothing_is_measured(tmp_path: Path) -> None:
    """No ``classifier.blurred``: the classifier reads every frame and ``meta`` has no
    sharpness (the shipped behaviour before the entry, byte for byte)."""
    names = ["1m", "5p"]
    logits = np.full((1, 8), -5.0, np.float32)
    logits[0, 0] = 6.0
    model_dir = _model_dir(tmp_path, ["tile"],
                           classifier={"file": "cls.onnx", "size": 32, "names": names})
    det = Detector(model_dir, backend=FakeBackend(_yolo([[320, 320, 200, 260, 0.9]])),
                   classifier=FakeBackend(logits))
    d = det.detect(np.full((640, 640, 3), 200, np.uint8))
    assert d.codes == ["1m"] and "sharpness" not in d.meta and det.blurred_classifier is None


def test_a_readers_blurred_file_needs_the_classifiers_blurred_entry(tmp_path: Path) -> None:
    """Manifest ``readers[i].blurred_file``: read only with ``classifier.blurred`` (which
    judges a frame smeared); named in the reader's spec."""
    reader = {"file": "g.onnx", "size": 32, "names": ["1m", "2m"], "blurred_file": "gb.onnx"}
    manifest = {"detector": {"file": "det.onnx", "imgsz": 640, "names": ["tile"]},
                "classifier": {"file": "c.onnx", "size": 32, "names": ["1m", "2m"]},
                "readers": [reader]}
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(ModelError, match="needs the classifier's 'blurred' entry"):
        read_manifest(tmp_path)
    manifest["classifier"]["blurred"] = {"file": "b.onnx", "below": 0.006}
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    _, cls, _ = read_manifest(tmp_path)
    assert cls is not None and cls.readers[0].blurred_file == tmp_path / "gb.onnx"


def test_a_smeared_frame_is_read_again_by_the_readers_blurred_networks(tmp_path: Path) -> None:
    """Rule (``readers[i].blurred_file``, recipe step 67): in a frame the classifier's gate
    judges smeared, a reader with a network for smeared frames reads with it; in a sharp
    frame with its own."""
    names = ["1m", "2m"]
    reader = {"file": "g.onnx", "size": 32, "names": names, "weight": 1.0,
              "blurred_file": "gb.onnx"}
    model_dir = _model_dir(tmp_path, ["tile"], classifier={
        "file": "cls.onnx", "size": 32, "names": names,
        "blurred": {"file": "blur.onnx", "below": 0.006}})
    manifest = json.loads((model_dir / "manifest.json").read_text())
    manifest["readers"] = [reader]
    (model_dir / "manifest.json").write_text(json.dumps(manifest))

    def reads(code: int | None) -> FakeBackend:  # None: undecided between the two
        logits = np.full((1, len(names) * 4), -5.0, np.float32)
        for c in (range(len(names)) if code is None else [code]):
            logits[0, c * 4] = 6.0
        return FakeBackend(logits)

    sharp_reader, smeared_reader = reads(0), reads(1)
    det = Detector(model_dir, backend=FakeBackend(_yolo([[320, 320, 200, 260, 0.9]])),
                   classifier=reads(None), blurred_classifier=reads(None),
                   readers=[sharp_reader], blurred_readers=[smeared_reader])
    rng = np.random.default_rng(0)
    img = np.full((640, 640, 3), 200, np.uint8)
    img[200:460, 220:420] = rng.integers(0, 2, (260, 200, 1)).astype(np.uint8) * 255
    assert det.detect(img).codes == ["1m"]
    assert det.detect(np.full((640, 640, 3), 200, np.uint8)).codes == ["2m"]
    assert len(sharp_reader.inputs) == 1 and len(smeared_reader.inputs) == 1
