"""YOLO decode, class-agnostic NMS, probabilities, top-k, rotation decode, classifier fusion."""

from __future__ import annotations

import numpy as np
import pytest

from vision import postprocess as pp


def _yolo(rows: list[list[float]]) -> np.ndarray:
    """Hand-made detector output (1, 4 + C, N) from rows ``cx, cy, w, h, scores...``."""
    return np.asarray(rows, np.float32).T[None]


def test_decode_converts_centre_size_to_xyxy_and_thresholds() -> None:
    out = _yolo([[100, 50, 20, 40, 0.1, 0.7], [10, 10, 4, 4, 0.2, 0.1]])
    boxes, scores = pp.decode_yolo(out, conf_threshold=0.25)
    assert boxes.tolist() == [[90, 30, 110, 70]]
    assert scores[0].tolist() == pytest.approx([0.1, 0.7]) and scores.shape == (1, 2)


def test_decode_rejects_wrong_shapes() -> None:
    with pytest.raises(ValueError, match="batch of one"):
        pp.decode_yolo(np.zeros((2, 6, 3), np.float32), 0.5)
    with pytest.raises(ValueError, match="YOLO output"):
        pp.decode_yolo(np.zeros((1, 3, 3), np.float32), 0.5)


def test_decode_nothing_above_threshold() -> None:
    boxes, scores = pp.decode_yolo(_yolo([[1, 1, 1, 1, 0.1, 0.1]]), 0.5)
    assert boxes.shape == (0, 4) and scores.shape == (0, 2)


def test_nms_is_class_agnostic_and_keeps_best() -> None:
    boxes = np.array([[0, 0, 10, 14], [1, 0, 11, 14], [12, 0, 22, 14]], np.float32)
    # the first two are one tile read as two different classes
    keep = pp.nms(boxes, np.array([0.6, 0.9, 0.5], np.float32), iou_threshold=0.5)
    assert keep.tolist() == [1, 2]


def test_nms_keeps_touching_neighbours() -> None:
    boxes = np.array([[0, 0, 10, 14], [10, 0, 20, 14], [20, 0, 30, 14]], np.float32)
    keep = pp.nms(boxes, np.array([0.5, 0.9, 0.7], np.float32), 0.5)
    assert sorted(keep.tolist()) == [0, 1, 2]
    assert keep.tolist() == [1, 2, 0]  # best first


def test_nms_contain_drops_a_face_box_inside_a_body_box_and_keeps_neighbours() -> None:
    """One tile boxed twice — its whole body (10 x 14) and, inside it, its face (7 x 8) —
    overlaps at IoU 0.4, under the 0.5 threshold; ``contain`` drops the face box. Two
    neighbours overlapping a little (a tilted row) stay."""
    body, face = [0, 0, 10, 14], [1, 1, 8, 9]
    neighbour = [8, 0, 18, 14]  # 2 px of its 10 px width over the body box
    boxes = np.array([body, face, neighbour], np.float32)
    scores = np.array([0.9, 0.5, 0.8], np.float32)
    assert pp.box_iou(boxes[0], boxes[1:2])[0] == pytest.approx(0.4)
    assert sorted(pp.nms(boxes, scores, 0.5).tolist()) == [0, 1, 2]
    assert sorted(pp.nms(boxes, scores, 0.5, contain=0.65).tolist()) == [0, 2]


def test_nms_max_det_and_empty() -> None:
    boxes = np.array([[i * 20, 0, i * 20 + 10, 10] for i in range(5)], np.float32)
    assert len(pp.nms(boxes, np.arange(5, dtype=np.float32), 0.5, max_det=3)) == 3
    assert pp.nms(np.zeros((0, 4), np.float32), np.zeros(0, np.float32)).tolist() == []


def test_iou_matrix_matches_box_iou() -> None:
    a = np.array([[0, 0, 2, 2], [5, 5, 6, 6]], np.float32)
    b = np.array([[1, 0, 3, 2], [0, 0, 2, 2], [10, 10, 11, 11]], np.float32)
    m = pp.iou_matrix(a, b)
    assert m.shape == (2, 3)
    assert m[0].tolist() == pytest.approx([1 / 3, 1.0, 0.0])
    assert np.allclose(m[0], pp.box_iou(a[0], b))


def test_normalise_rows_sum_to_one_and_zero_rows_are_uniform() -> None:
    p = pp.normalise(np.array([[0.9, 0.3, 0.0], [0, 0, 0]], np.float32))
    assert p.sum(axis=1) == pytest.approx([1, 1])
    assert p[0].tolist() == pytest.approx([0.75, 0.25, 0])
    assert p[1].tolist() == pytest.approx([1 / 3] * 3)


def test_top_k_orders_and_caps() -> None:
    ids, probs = pp.top_k(np.array([[0.1, 0.6, 0.3], [0.5, 0.2, 0.3]], np.float32), 5)
    assert ids.tolist() == [[1, 2, 0], [0, 2, 1]]
    assert probs[:, 0].tolist() == pytest.approx([0.6, 0.5])


def test_rotation_from_aspect_threshold() -> None:
    boxes = np.array([[0, 0, 30, 40], [0, 0, 40, 30], [0, 0, 34, 30], [0, 0, 35, 30]], np.float32)
    # 34/30 = 1.133 is still upright (perspective), 35/30 = 1.167 is sideways
    assert pp.rotation_from_aspect(boxes).tolist() == [0, 90, 0, 90]


def test_decode_classifier_marginals() -> None:
    # two classes × four rotations; class 1 at rotation 180 dominates
    logits = np.full((1, 8), -10.0, np.float32)
    logits[0, 1 * 4 + 2] = 5.0
    logits[0, 0 * 4 + 2] = 3.0
    cls, rot = pp.decode_classifier(logits, 2)
    assert cls.shape == (1, 2) and rot.shape == (1, 4)
    assert cls[0].argmax() == 1 and rot[0].argmax() == 2
    assert cls.sum() == pytest.approx(1) and rot.sum() == pytest.approx(1)
    with pytest.raises(ValueError, match="classifier output"):
        pp.decode_classifier(np.zeros((1, 7), np.float32), 2)


def test_map_to_classes_places_columns() -> None:
    out = pp.map_to_classes(np.array([[0.2, 0.8]], np.float32), np.array([3, 0]), 4)
    assert out[0].tolist() == pytest.approx([0.8, 0, 0, 0.2])


def test_fuse_weights() -> None:
    det = np.array([[0.7, 0.3]], np.float32)
    cls = np.array([[0.2, 0.8]], np.float32)
    assert pp.fuse(det, cls, weight=0.0)[0] == pytest.approx(det[0], abs=1e-4)
    assert pp.fuse(det, cls, weight=1.0)[0] == pytest.approx(cls[0], abs=1e-4)
    both = pp.fuse(det, cls)
    assert both.sum() == pytest.approx(1) and both[0, 1] > 0.5


@pytest.mark.parametrize("seed", range(5))
def test_nms_all_pairs_at_once_keeps_the_same_boxes_as_one_at_a_time(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the matrix path (up to NMS_MATRIX_MAX candidates) is a speed-up, never a change:
    # random boxes with ties, empty boxes and both suppression tests
    rng = np.random.default_rng(seed)
    for trial in range(60):
        n = int(rng.integers(1, 300))
        xy = rng.uniform(0, 200, (n, 2))
        wh = rng.uniform(0.5, 40, (n, 2))
        wh[rng.random(n) < 0.05] = 0
        boxes = np.concatenate([xy, xy + wh], 1).astype(np.float32)
        scores = np.round(rng.random(n), 1 if trial % 2 else 6).astype(np.float32)
        contain = (None, 0.65)[trial % 2]
        fast = pp.nms(boxes, scores, 0.5, 100, contain)
        monkeypatch.setattr(pp, "NMS_MATRIX_MAX", -1)
        slow = pp.nms(boxes, scores, 0.5, 100, contain)
        monkeypatch.undo()
        assert fast.tolist() == slow.tolist()


def test_fuse_kept_weighs_candidates_by_score_and_leaves_far_or_weak_ones_out() -> None:
    """Weighted box fusion after NMS: candidates at IoU ≥ the threshold scoring at least
    ``rel`` × the kept box's score are averaged into it; a neighbour (IoU < threshold) and
    a weak candidate are not."""
    b = np.array([[0, 0, 10, 20], [2, 0, 12, 20], [0, 1, 10, 21], [11, 0, 21, 20]],
                 np.float32)
    s = np.array([0.9, 0.3, 0.6, 0.8], np.float32)
    keep = pp.nms(b, s, 0.5)
    assert keep.tolist() == [0, 3]
    out = pp.fuse_kept(b, s, keep, 0.5, rel=0.5)
    # box 1 (0.3 < 0.45) is left out; box 2 moves the kept one down by 0.6 / 1.5 px
    np.testing.assert_allclose(out[0], [0, 0.4, 10, 20.4], atol=1e-5)
    np.testing.assert_allclose(out[1], b[3])
    # at rel 0.3 box 1 counts too: x1 = 2 × 0.3 / 1.8, y1 = 0.6 / 1.8, and so on
    np.testing.assert_allclose(pp.fuse_kept(b, s, keep, 0.5, rel=0.3)[0],
                               [1 / 3, 1 / 3, 10 + 1 / 3, 20 + 1 / 3], atol=1e-5)
    assert pp.fuse_kept(b, s, np.array([], np.int64), 0.5).shape == (0, 4)


def test_fuse_passes_averages_a_tile_over_the_passes_that_saw_it() -> None:
    """Rule (weighted box fusion across input sizes): a tile's boxes from several passes
    become one box, the tile-score-weighted mean, with the mean class scores over *all*
    passes — a pass that saw nothing there counts zero; boxes that overlap nothing stand
    alone; each pass joins a group at most once."""
    from vision.postprocess import fuse_passes

    b1 = np.array([[0, 0, 10, 14], [40, 0, 50, 14]], np.float32)
    s1 = np.array([[0.8, 0.0], [0.0, 0.3]], np.float32)
    b2 = np.array([[2, 0, 12, 14], [1, 0, 11, 14], [80, 0, 90, 14]], np.float32)
    s2 = np.array([[0.4, 0.0], [0.6, 0.1], [0.0, 0.7]], np.float32)
    boxes, scores = fuse_passes([(b1, s1, s1.max(1)), (b2, s2, s2.max(1))], 0.5)
    assert len(boxes) == 4  # the 2nd pass's two boxes on tile 0: the better one joins
    assert boxes[0].tolist() == pytest.approx([(0 * 0.8 + 1 * 0.6) / 1.4, 0,
                                               (10 * 0.8 + 11 * 0.6) / 1.4, 14], abs=1e-4)
    assert scores[0].tolist() == pytest.approx([0.7, 0.05])
    assert scores[1].tolist() == pytest.approx([0.0, 0.15])  # only the first pass saw it
    # new groups of a pass come best score first
    assert boxes[2].tolist() == pytest.approx([80, 0, 90, 14])
    assert scores[2].tolist() == pytest.approx([0.0, 0.35])
    assert boxes[3].tolist() == pytest.approx([2, 0, 12, 14])  # the lesser one stands alone
    assert scores[3].tolist() == pytest.approx([0.2, 0.0])
    one, one_s = fuse_passes([(b1, s1, s1.max(1))])
    assert one.tolist() == b1.tolist() and np.allclose(one_s, s1)
    empty, empty_s = fuse_passes([(np.zeros((0, 4), np.float32), np.zeros((0, 2), np.float32),
                                   np.zeros(0, np.float32))] * 2)
    assert empty.shape == (0, 4) and empty_s.shape == (0, 2)


def test_fuse_passes_lets_a_pass_abstain_on_tiles_too_small_for_it() -> None:
    """Rule (``min_side``): a pass counts on a tile only when the tile's short side is at
    least its value (image px) — a smaller input cannot see small tiles, so its silence
    there is no evidence: a small tile only the first pass saw keeps its score, a small box
    only the abstaining pass drew is dropped, big tiles are averaged as before."""
    from vision.postprocess import fuse_passes

    small = np.array([[0, 0, 8, 11]], np.float32)  # short side 8 px
    big = np.array([[40, 0, 60, 28]], np.float32)  # short side 20 px
    s1 = np.array([[0.8, 0.0], [0.6, 0.0]], np.float32)
    s2 = np.array([[0.0, 0.7], [0.2, 0.0]], np.float32)
    p1 = (np.concatenate([small, big]), s1, s1.max(1))
    p2 = (np.concatenate([small + 100, big]), s2, s2.max(1))  # its small box elsewhere
    boxes, scores = fuse_passes([p1, p2], 0.5, [0.0, 10.0])
    assert len(boxes) == 2  # the second pass's lone small box is gone
    assert boxes[0].tolist() == pytest.approx(small[0].tolist())
    assert scores[0].tolist() == pytest.approx([0.8, 0.0])  # not halved
    assert scores[1].tolist() == pytest.approx([0.4, 0.0])  # both passes count
    # without min_side, the old rule: halved, and the lone small box kept at half
    boxes, scores = fuse_passes([p1, p2], 0.5)
    assert len(boxes) == 3 and scores[0].tolist() == pytest.approx([0.4, 0.0])
    with pytest.raises(ValueError, match="min_side"):
        fuse_passes([p1, p2], 0.5, [0.0])
