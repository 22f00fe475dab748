"""Tighter labels for a photo none of whose copies shows it as taken (vision.data.tighten).

The fixture is one generated "photo" exported five times, every copy turned in two steps
with the export's fill in its corners and boxes grown at each step (the enclosing box of
the turned box, then again): no copy keeps the labeller's boxes, as for a third of the
hk photos.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt
import pytest

from vision.data.photos import format_labels, prepare_photos
from vision.data.tighten import (
    CopyView,
    box_corners,
    carry_points,
    fill_edges,
    inscribed_box,
    photo_axes,
    tighten,
)
from vision.evaluate import load_dataset, original_copies
from vision.postprocess import iou_matrix

Image = npt.NDArray[np.uint8]
NAMES = ["sc1", "sd7", "hwe", "bf1", "bs4"]
SIZE = 320
#: per copy: two turns (degrees, counter-clockwise on screen as cv2 takes them)
TURNS = {"a": (12.0, -4.0), "b": (30.0, 8.0), "c": (-20.0, -15.0), "d": (40.0, 5.0),
         "e": (-35.0, 10.0)}


def _photo() -> tuple[Image, npt.NDArray[np.float64]]:
    """A textured table with six upright tiles in two rows; boxes in px ``(6, 4)``."""
    rng = np.random.default_rng(7)
    noise = rng.integers(0, 255, (SIZE // 8, SIZE // 8, 3), dtype=np.uint8)
    image = cv2.resize(noise, (SIZE, SIZE), interpolation=cv2.INTER_CUBIC)
    boxes = []
    for i in range(6):
        x0, y0 = 95 + 45 * (i % 3), 100 + 70 * (i // 3)
        cv2.rectangle(image, (x0, y0), (x0 + 36, y0 + 52), (235, 235, 235), -1)
        cv2.putText(image, "7RF4ZK"[i], (x0 + 6, y0 + 40), cv2.FONT_HERSHEY_SIMPLEX, 1.1,
                    (20, 40, 160), 3)
        boxes.append([x0, y0, x0 + 36, y0 + 52])
    return image, np.array(boxes, np.float64)


def _enclose(corners: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Axis-aligned boxes ``(n, 4)`` around corner sets ``(n, 4, 2)``, as corner sets."""
    lo, hi = corners.min(1), corners.max(1)
    return np.stack([lo, np.stack([hi[:, 0], lo[:, 1]], 1), hi,
                     np.stack([lo[:, 0], hi[:, 1]], 1)], 1)


def _export(image: Image, boxes: npt.NDArray[np.float64], turns: tuple[float, float]
            ) -> tuple[Image, npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """One copy: the image turned twice (black fill), the export's boxes (enclosed after
    each turn) and the true boxes (the tiles' corners turned once, enclosed)."""
    corners = np.stack([boxes[:, [0, 1]], boxes[:, [2, 1]], boxes[:, [2, 3]],
                        boxes[:, [0, 3]]], 1)
    grown, total = corners, np.eye(3)
    for degrees in turns:
        m = np.vstack([cv2.getRotationMatrix2D((SIZE / 2, SIZE / 2), degrees, 1.0), [0, 0, 1]])
        image = cv2.warpAffine(image, m[:2], (SIZE, SIZE), borderValue=(0, 0, 0))
        grown = _enclose(carry_points(grown, m))
        total = m @ total
    truth = _enclose(carry_points(corners, total))
    return image, grown, truth


def _labels(corners: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    lo, hi = corners.min(1), corners.max(1)
    c, s = (lo + hi) / 2 / SIZE, (hi - lo) / SIZE
    return np.column_stack([np.arange(len(c)) % len(NAMES), c, s])


def _write_export(root: Path) -> dict[str, npt.NDArray[np.float64]]:
    """The five turned copies and their grown labels; returns each copy's true boxes."""
    (root / "images").mkdir(parents=True)
    (root / "labels").mkdir(parents=True)
    (root / "classes.yaml").write_text(f"names: {NAMES}\n")
    image, boxes = _photo()
    truths = {}
    for key, turns in TURNS.items():
        copy, grown, truth = _export(image, boxes, turns)
        name = f"p_jpg.rf.{key}"
        cv2.imwrite(str(root / "images" / f"{name}.png"), copy)
        (root / "labels" / f"{name}.txt").write_text(format_labels(_labels(grown)))
        truths[name] = truth
    return truths


def _xyxy(labels: npt.NDArray[np.float64]) -> npt.NDArray[np.float32]:
    cx, cy, w, h = (labels[:, i] * SIZE for i in range(1, 5))
    return np.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], 1).astype(np.float32)


def _fit(out: Path, truths: dict[str, npt.NDArray[np.float64]], original: str) -> float:
    """Mean IoU of the prepared labels with the true boxes over the copies but the
    original (whose own grown boxes are kept either way)."""
    ious = []
    for name, truth in truths.items():
        if name == original:
            continue
        got = np.loadtxt(out / "labels" / "train" / f"{name}.txt", ndmin=2)
        want = np.stack([truth.min(1), truth.max(1)], 1).reshape(-1, 4).astype(np.float32)
        ious += iou_matrix(want, _xyxy(got)).max(1).tolist()
    return float(np.mean(ious))


def test_a_photo_with_no_untouched_copy_gets_its_copies_boxes_tightened(tmp_path: Path) -> None:
    """Rule (hk-photos preparation): when every copy is turned, each tile's box in the
    other copies is the copies' grown boxes intersected, not the tightest copy's carried."""
    truths = _write_export(tmp_path / "hk")
    # cue=False: no other photo to judge the handedness by (no copy is mirrored here)
    tight = prepare_photos(tmp_path / "hk", tmp_path / "tight", val_fraction=0.0, cue=False)
    carried = prepare_photos(tmp_path / "hk", tmp_path / "carried", val_fraction=0.0,
                             tighten=False, cue=False)
    assert (tight["images"], tight["unaligned"], tight["tightened"]) == (5, 0, 4)
    assert carried["tightened"] == 0
    original = "p_jpg.rf.a"  # the smallest turns grow its boxes least
    fit_tight = _fit(tmp_path / "tight", truths, original)
    fit_carried = _fit(tmp_path / "carried", truths, original)
    assert fit_tight > fit_carried + 0.1
    # the original keeps its own (export) boxes either way
    own = np.loadtxt(tmp_path / "hk" / "labels" / f"{original}.txt", ndmin=2)
    got = np.loadtxt(tmp_path / "tight" / "labels" / "train" / f"{original}.txt", ndmin=2)
    np.testing.assert_allclose(got[:, 1:], own[:, 1:], atol=1e-5)


def test_evaluation_takes_the_original_the_preparation_chose(tmp_path: Path) -> None:
    """Once the other copies' boxes are tighter than the original's, the tightest copy is
    no longer the original: ``--copies originals`` follows the preparation's record."""
    _write_export(tmp_path / "hk")
    prepare_photos(tmp_path / "hk", tmp_path / "tight", val_fraction=0.0, cue=False)
    samples = load_dataset(tmp_path / "tight", "train")
    assert [s.image.name for s in original_copies(samples)] == ["p_jpg.rf.a.png"]
    # when the recorded original is not among the samples, the tightest copy stands in
    rest = [s for s in samples if s.image.name != "p_jpg.rf.a.png"]
    assert len(original_copies(rest)) == 1


def test_tightening_needs_no_copy_shown_upright() -> None:
    """The photo's axes come from the fill edges all copies agree on; with them the
    intersection recovers the tiles in the reference copy's frame."""
    image, boxes = _photo()
    copies = {k: _export(image, boxes, t) for k, t in TURNS.items()}
    ref_grown = copies["b"][1]

    # homographies reference -> copy from the known turns (what SIFT estimates)
    def total(turns: tuple[float, float]) -> npt.NDArray[np.float64]:
        m = np.eye(3)
        for degrees in turns:
            m = np.vstack([cv2.getRotationMatrix2D((SIZE / 2, SIZE / 2), degrees, 1.0),
                           [0, 0, 1]]) @ m
        return m
    to_ref = np.linalg.inv(total(TURNS["b"]))
    views = [CopyView(_labels(grown), total(TURNS[k]) @ to_ref, (SIZE, SIZE), fill_edges(im))
             for k, (im, grown, _) in copies.items()]
    ref_labels = _labels(ref_grown)
    found = tighten(ref_labels, (SIZE, SIZE), views)
    assert all(p is not None for p in found)
    # carried into another copy, the tiles' parallelograms fit where the grown boxes do not
    _, _, truth_d = copies["d"]
    to_d = total(TURNS["d"]) @ to_ref
    truth = np.stack([truth_d.min(1), truth_d.max(1)], 1).reshape(-1, 4).astype(np.float32)

    def boxed(polys: npt.NDArray[np.float64]) -> npt.NDArray[np.float32]:
        q = carry_points(polys, to_d)
        return np.concatenate([q.min(1), q.max(1)], 1).astype(np.float32)

    est = np.diag(iou_matrix(truth, boxed(np.stack([p for p in found if p is not None]))))
    grown = np.diag(iou_matrix(truth, boxed(box_corners(ref_labels, (SIZE, SIZE)))))
    assert est.mean() > grown.mean() + 0.07
    assert est.min() > 0.6


def test_inscribed_box_of_a_turned_tile_lies_inside_it() -> None:
    corners = box_corners(np.array([[0, 0.5, 0.5, 0.2, 0.3]]), (200, 200))[0]
    m = np.vstack([cv2.getRotationMatrix2D((100, 100), 30, 1.0), [0, 0, 1]])
    turned = carry_points(corners, m)
    box = inscribed_box(turned)
    assert box is not None
    x0, y0, x1, y1 = box
    for x, y in ((x0, y0), (x1, y0), (x1, y1), (x0, y1)):
        inside = cv2.pointPolygonTest(turned.astype(np.float32), (x, y), True)
        assert inside >= -0.6  # within the 0.5 px step
    upright = inscribed_box(corners)
    assert upright == pytest.approx((80.0, 70.0, 120.0, 130.0), abs=0.5)


def test_photo_axes_ignore_edges_only_one_copy_shows() -> None:
    """The borders of an intermediate turn are long edges too, but each copy's lie
    elsewhere; the photo's borders are the directions shown by every copy."""
    sets = [[(10.0, 600), (100.0, 590), (55.0, 900)],
            [(10.2, 200), (100.1, 210), (140.0, 900)],
            [(9.8, 220), (99.9, 200), (75.0, 900)]]
    axes = photo_axes(sets)
    got = sorted(np.degrees(np.arctan2(axes[1], axes[0])).round(0).tolist())
    assert got == [10.0, 100.0]
