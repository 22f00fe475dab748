"""Detector output → tiles: decode YOLO rows, NMS, class probabilities, rotation, top-k.

All functions are plain numpy over arrays; shapes are stated per function.

The ultralytics YOLO head gives ``[1, 4 + C, N]``: for each of ``N`` anchors the box
centre, width and height in *input* pixels, then ``C`` independent per-class scores
(sigmoids, 0..1). Tiles never overlap, so NMS is class-agnostic: two boxes on the same
spot are the same tile whatever class each one reads.

>>> out = np.zeros((1, 6, 3), np.float32)
>>> out[0, :, 0] = [50, 50, 20, 30, 0.9, 0.1]   # a tile, class 0
>>> out[0, :, 1] = [51, 50, 20, 30, 0.2, 0.8]   # the same tile, read as class 1
>>> out[0, :, 2] = [150, 50, 20, 30, 0.1, 0.05]  # below the threshold
>>> boxes, scores = decode_yolo(out, conf_threshold=0.25)
>>> keep = nms(boxes, scores.max(axis=1), iou_threshold=0.5)
>>> boxes[keep].tolist(), scores[keep].argmax(axis=1).tolist()
([[40.0, 35.0, 60.0, 65.0]], [0])
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from vision.detections import ROTATIONS

F32 = npt.NDArray[np.float32]
I64 = npt.NDArray[np.int64]
#: Boxes of any float dtype (taken as float32).
Floats = npt.NDArray[np.floating[Any]]

#: A box wider than this many times its height is taken as a tile lying sideways.
SIDEWAYS_ASPECT = 1.15
#: What a detector's confidence threshold applies to (:func:`tile_score`).
SCORE_MODES = ("max", "any")


def tile_score(scores: F32, mode: str = "max") -> F32:
    """How sure the detector is that a tile is there, ``(n,)`` from class scores
    ``(n, C)``: ``"max"`` the best class score; ``"any"`` the chance that at least one
    class is present, ``1 - Π(1 - s_c)`` — higher than the best score when the detector
    hesitates between look-alike classes (eight flowers, four winds), where each score
    alone may fall under the threshold.

    >>> s = np.array([[0.15, 0.12, 0.10], [0.9, 0.0, 0.0]], np.float32)
    >>> [tile_score(s, m).astype(float).round(3).tolist() for m in ("max", "any")]
    [[0.15, 0.9], [0.327, 0.9]]
    """
    if mode == "max":
        best: F32 = scores.max(axis=1) if len(scores) else np.zeros(0, np.float32)
        return best
    if mode == "any":
        miss = np.prod(1.0 - np.clip(scores, 0.0, 1.0, dtype=np.float64), axis=1)
        hit: F32 = (1.0 - miss).astype(np.float32)
        return hit
    raise ValueError(f"tile score mode must be 'max' or 'any', got {mode!r}")


def decode_yolo(
    output: npt.NDArray[np.floating], conf_threshold: float, score: str = "max"
) -> tuple[F32, F32]:
    """Keep the anchors whose tile score (:func:`tile_score` with mode ``score``) reaches
    ``conf_threshold``.

    ``output``: ``(1, 4 + C, N)`` or ``(4 + C, N)``, boxes as ``cx, cy, w, h``.
    Returns ``boxes (m, 4)`` xyxy in the same pixels and ``scores (m, C)``.
    """
    out = np.asarray(output, np.float32)
    if out.ndim == 3:
        if out.shape[0] != 1:
            raise ValueError(f"expected a batch of one image, got output shape {out.shape}")
        out = out[0]
    if out.ndim != 2 or out.shape[0] < 5:
        raise ValueError(f"expected YOLO output (1, 4 + classes, anchors), got {output.shape}")
    best = out[4:].max(axis=0)
    if score == "max":
        idx = np.flatnonzero(best >= conf_threshold)
    else:  # "any" >= "max": score only the anchors that could pass
        idx = np.flatnonzero(best >= conf_threshold / (out.shape[0] - 4))
        idx = idx[tile_score(out[4:, idx].T, score) >= conf_threshold]
    rows = out[:, idx]
    cx, cy, w, h = rows[0], rows[1], rows[2], rows[3]
    boxes = np.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], axis=1)
    scores = np.ascontiguousarray(rows[4:].T)
    return boxes.astype(np.float32), scores.astype(np.float32)


def _overlap(box: F32, boxes: F32) -> tuple[F32, F32, F32]:
    """Intersection areas of xyxy ``box (4,)`` with each of ``boxes (n, 4)``, the box's own
    area and the others' areas → ``(n,)``, scalar, ``(n,)``."""
    ix = np.clip(np.minimum(box[2], boxes[:, 2]) - np.maximum(box[0], boxes[:, 0]), 0, None)
    iy = np.clip(np.minimum(box[3], boxes[:, 3]) - np.maximum(box[1], boxes[:, 1]), 0, None)
    area = (box[2] - box[0]) * (box[3] - box[1])
    areas = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
    return ix * iy, area, areas


def box_iou(box: F32, boxes: F32) -> F32:
    """IoU of one xyxy ``box (4,)`` with each of ``boxes (n, 4)`` → ``(n,)``.

    >>> box_iou(np.array([0, 0, 2, 2], np.float32), np.array([[1, 0, 3, 2]], np.float32))
    array([0.33333334], dtype=float32)
    """
    return _iou(*_overlap(box, boxes))


def _iou(inter: F32, area: F32, areas: F32) -> F32:
    """IoU from :func:`_overlap`'s intersections and areas."""
    union = area + areas - inter
    return np.where(union > 0, inter / np.maximum(union, 1e-9), 0.0).astype(np.float32)


def _cover(inter: F32, area: F32, areas: F32) -> F32:
    """Intersection over the smaller area, from :func:`_overlap`'s figures."""
    return (inter / np.maximum(np.minimum(area, areas), 1e-9)).astype(np.float32)


def iou_matrix(a: Floats, b: Floats) -> F32:
    """Pairwise IoU of xyxy boxes ``a (n, 4)`` and ``b (m, 4)`` → ``(n, m)``."""
    a = np.asarray(a, np.float32).reshape(-1, 4)
    b = np.asarray(b, np.float32).reshape(-1, 4)
    ix = np.minimum(a[:, None, 2], b[None, :, 2]) - np.maximum(a[:, None, 0], b[None, :, 0])
    iy = np.minimum(a[:, None, 3], b[None, :, 3]) - np.maximum(a[:, None, 1], b[None, :, 1])
    inter = np.clip(ix, 0, None) * np.clip(iy, 0, None)
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    union = area_a[:, None] + area_b[None, :] - inter
    return np.where(union > 0, inter / np.maximum(union, 1e-9), 0.0).astype(np.float32)


def edge_gaps(a: F32, b: F32) -> F32:
    """Pairwise edge-to-edge distance of xyxy boxes ``a (n, 4)`` and ``b (m, 4)`` →
    ``(n, m)``, in their pixels: the larger of the x and y gaps (negative when the boxes
    overlap).

    >>> a = np.array([[0, 0, 10, 14]], np.float32)
    >>> edge_gaps(a, np.array([[12, 0, 22, 14], [5, 20, 9, 30]], np.float32)).tolist()
    [[2.0, 6.0]]
    """
    a = np.asarray(a, np.float32).reshape(-1, 4)
    b = np.asarray(b, np.float32).reshape(-1, 4)
    gap_x = np.maximum(a[:, None, 0] - b[None, :, 2], b[None, :, 0] - a[:, None, 2])
    gap_y = np.maximum(a[:, None, 1] - b[None, :, 3], b[None, :, 1] - a[:, None, 3])
    gaps: F32 = np.maximum(gap_x, gap_y)
    return gaps


def median_short_side(boxes: F32) -> float:
    """Median short side of ``boxes`` ``(n, 4)`` xyxy, in their pixels (0 when empty)."""
    b = np.asarray(boxes).reshape(-1, 4)
    if not len(b):
        return 0.0
    return float(np.median(np.minimum(b[:, 2] - b[:, 0], b[:, 3] - b[:, 1])))


def box_cover(box: F32, boxes: F32) -> F32:
    """Intersection of ``box (4,)`` with each of ``boxes (n, 4)`` over the smaller of the
    two areas: 1 when one box lies inside the other.

    >>> box_cover(np.array([0, 0, 4, 4], np.float32), np.array([[1, 1, 3, 3]], np.float32))
    array([1.], dtype=float32)
    """
    return _cover(*_overlap(box, boxes))


def fuse_kept(boxes: F32, scores: F32, keep: I64, iou_threshold: float,
              rel: float = 0.5) -> F32:
    """Each box :func:`nms` kept, replaced by the score-weighted mean of the candidates
    overlapping it at IoU ≥ ``iou_threshold`` whose score is at least ``rel`` × its own
    (itself included): the candidates agree on a tile's extent better than the best-scored
    one alone (weighted box fusion, after NMS). ``boxes (n, 4)``, ``scores (n,)`` the
    scores NMS ranked by, ``keep`` its result; returns ``(len(keep), 4)``.

    >>> b = np.array([[0, 0, 10, 10], [2, 0, 12, 10], [30, 0, 40, 10]], np.float32)
    >>> s = np.array([0.9, 0.9, 0.8], np.float32)
    >>> fuse_kept(b, s, np.array([0, 2]), 0.5).tolist()
    [[1.0, 0.0, 11.0, 10.0], [30.0, 0.0, 40.0, 10.0]]
    """
    boxes = np.asarray(boxes, np.float32)
    scores = np.asarray(scores, np.float32)
    keep = np.asarray(keep, np.int64)
    if not len(keep):
        return boxes[keep]
    iou = iou_matrix(boxes[keep], boxes)
    near = (iou >= iou_threshold) & (scores[None, :] >= rel * scores[keep][:, None])
    near[np.arange(len(keep)), keep] = True
    w = np.where(near, scores[None, :], 0.0).astype(np.float32)
    return np.asarray((w @ boxes) / w.sum(axis=1, keepdims=True), np.float32)


def fuse_passes(
    passes: Sequence[tuple[F32, F32, F32]], iou_threshold: float = 0.5,
    min_side: Sequence[float] | None = None,
) -> tuple[F32, F32]:
    """One set of boxes from several detector passes over one image at other input sizes
    (weighted box fusion across passes).

    ``passes``: per pass its kept boxes ``(n_p, 4)`` in image pixels, their class scores
    ``(n_p, C)`` and tile scores ``(n_p,)`` (what NMS ranked them by). Boxes of later
    passes join the box of the earlier ones they overlap most at IoU ≥ ``iou_threshold``
    (one per pass, best scores first); each group becomes one box, the tile-score-weighted
    mean of its members, with the *mean* class scores over all passes — a pass that saw no
    box there counts zero. A tile every pass finds keeps about its score; one that only
    one of two passes finds keeps half, so a box scored weakly at one size and strongly
    at another can cross the threshold, and one pass's lone strong box may fall below.
    ``min_side`` (one per pass, image pixels; default all 0): a pass *abstains* on a tile
    whose fused box has a short side below its value — too small at that pass's input to
    be seen — so its box there is left out and its score mean is over the other passes
    (a group only abstaining passes saw is dropped).
    Returns boxes ``(m, 4)`` and class scores ``(m, C)``, groups in the order first seen.

    >>> b1 = np.array([[0, 0, 10, 10], [50, 0, 60, 10]], np.float32)
    >>> b2 = np.array([[1, 0, 11, 10], [90, 0, 99, 10]], np.float32)
    >>> s1, s2 = np.array([[0.9], [0.6]], np.float32), np.array([[0.3], [0.8]], np.float32)
    >>> boxes, scores = fuse_passes([(b1, s1, s1[:, 0]), (b2, s2, s2[:, 0])])
    >>> boxes.round(2).tolist()
    [[0.25, 0.0, 10.25, 10.0], [50.0, 0.0, 60.0, 10.0], [90.0, 0.0, 99.0, 10.0]]
    >>> [round(float(v), 2) for v in scores[:, 0]]
    [0.6, 0.3, 0.4]
    """
    if not passes:
        raise ValueError("fuse_passes needs at least one pass")
    if min_side is not None and len(min_side) != len(passes):
        raise ValueError(f"fuse_passes: {len(min_side)} min_side values, {len(passes)} passes")
    n_cls = passes[0][1].shape[1]
    members: list[list[tuple[F32, F32, float, int]]] = []
    fused: list[F32] = []
    for p, (boxes, scores, tile) in enumerate(passes):
        boxes = np.asarray(boxes, np.float32).reshape(-1, 4)
        known = len(members)  # groups of the earlier passes
        taken = np.zeros(known, bool)
        iou = iou_matrix(boxes, np.asarray(fused, np.float32)) if known and len(boxes) else None
        grown: list[int] = []
        for i in np.argsort(-np.asarray(tile), kind="stable"):
            j = -1
            if iou is not None:
                cand = np.where(taken, -1.0, iou[i])
                j = int(cand.argmax())
                if cand[j] < iou_threshold:
                    j = -1
            if j >= 0:
                taken[j] = True
                members[j].append((boxes[i], scores[i], float(tile[i]), p))
                grown.append(j)
            else:
                members.append([(boxes[i], scores[i], float(tile[i]), p)])
                fused.append(boxes[i])
        for j in grown:  # the group's box, for the next pass to match against
            w = np.array([m[2] for m in members[j]], np.float32) + 1e-6
            fused[j] = (w @ np.stack([m[0] for m in members[j]])) / w.sum()
    need = [0.0] * len(passes) if min_side is None else [float(v) for v in min_side]
    out_b: list[F32] = []
    out_s: list[F32] = []
    for group, box in zip(members, fused, strict=True):
        short = float(min(box[2] - box[0], box[3] - box[1]))
        seeing = [p for p, side in enumerate(need) if short >= side]
        kept = [m for m in group if m[3] in seeing]
        if not kept:
            continue
        if len(kept) < len(group):  # an abstaining pass's box leaves the group's mean
            w = np.array([m[2] for m in kept], np.float32) + 1e-6
            box = (w @ np.stack([m[0] for m in kept])) / w.sum()
        out_b.append(box)
        out_s.append(np.asarray(np.sum([m[1] for m in kept], axis=0) / len(seeing), np.float32))
    if not out_b:
        return np.zeros((0, 4), np.float32), np.zeros((0, n_cls), np.float32)
    return np.stack(out_b).astype(np.float32), np.asarray(np.stack(out_s), np.float32)


#: Candidate count up to which :func:`nms` compares all pairs at once (n² floats: 1,024
#: candidates take 4 MB a matrix); above it, one box against the rest at a time.
NMS_MATRIX_MAX = 1024


def nms(boxes: F32, scores: F32, iou_threshold: float = 0.5, max_det: int = 300,
        contain: float | None = None) -> I64:
    """Class-agnostic non-maximum suppression.

    ``boxes (n, 4)`` xyxy, ``scores (n,)``. Returns the indices kept, best score first:
    a box is dropped when its IoU with a better kept box exceeds ``iou_threshold`` or,
    with ``contain``, when more than that share of the smaller box lies in the other
    (:func:`box_cover`) — a tile's face boxed inside a box of its whole body overlaps it
    at an IoU under 0.5 but is covered almost whole. Up to :data:`NMS_MATRIX_MAX`
    candidates every pair is measured at once (the same float32 arithmetic, so the same
    boxes are kept; about 1 ms less for a frame's few hundred candidates).

    >>> b = np.array([[0, 0, 10, 10], [1, 0, 11, 10], [20, 0, 30, 10]], np.float32)
    >>> nms(b, np.array([0.9, 0.8, 0.7], np.float32)).tolist()
    [0, 2]
    """
    order = np.argsort(-np.asarray(scores), kind="stable")
    if order.size <= NMS_MATRIX_MAX:
        return _nms_matrix(np.asarray(boxes)[order], order, iou_threshold, max_det, contain)
    keep: list[int] = []
    while order.size and len(keep) < max_det:
        i = int(order[0])
        keep.append(i)
        if order.size == 1:
            break
        rest = order[1:]
        overlap = _overlap(boxes[i], boxes[rest])  # once for both tests
        ok = _iou(*overlap) <= iou_threshold
        if contain is not None:
            ok &= _cover(*overlap) <= contain
        order = rest[ok]
    return np.asarray(keep, np.int64)


def _nms_matrix(b: F32, order: I64, iou_threshold: float, max_det: int,
                contain: float | None) -> I64:
    """:func:`nms` on boxes ``b (n, 4)`` already sorted best first (``order`` their
    original indices), every pair measured at once as :func:`_overlap` measures one."""
    x1, y1, x2, y2 = b[:, None, 0], b[:, None, 1], b[:, None, 2], b[:, None, 3]
    ix = np.clip(np.minimum(x2, b[None, :, 2]) - np.maximum(x1, b[None, :, 0]), 0, None)
    iy = np.clip(np.minimum(y2, b[None, :, 3]) - np.maximum(y1, b[None, :, 1]), 0, None)
    inter = ix * iy
    areas = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    ok = _iou(inter, areas[:, None], areas[None, :]) <= iou_threshold
    if contain is not None:
        ok &= _cover(inter, areas[:, None], areas[None, :]) <= contain
    dropped = np.zeros(len(b), bool)
    keep: list[int] = []
    for i in range(len(b)):
        if dropped[i]:
            continue
        keep.append(int(order[i]))
        if len(keep) >= max_det:
            break
        dropped |= ~ok[i]
    return np.asarray(keep, np.int64)


def normalise(scores: F32) -> F32:
    """Rows of non-negative scores ``(n, C)`` → probabilities summing to 1 per row.

    >>> normalise(np.array([[0.6, 0.2, 0.0]], np.float32)).round(2).tolist()
    [[0.75, 0.25, 0.0]]
    """
    s = np.clip(np.asarray(scores, np.float32), 0, None)
    total = s.sum(axis=1, keepdims=True)
    out = np.where(total > 0, s / np.maximum(total, 1e-12), 1.0 / max(1, s.shape[1]))
    return np.asarray(out, np.float32)


def softmax(logits: npt.NDArray[np.floating], axis: int = -1) -> F32:
    """Numerically stable softmax along ``axis``."""
    z = np.asarray(logits, np.float64)
    z = np.exp(z - z.max(axis=axis, keepdims=True))
    return np.asarray(z / z.sum(axis=axis, keepdims=True), np.float32)


def top_k(probs: F32, k: int) -> tuple[I64, F32]:
    """The ``k`` most probable columns of each row of ``probs (n, C)``, best first.

    Returns ``ids (n, k)`` and ``probs (n, k)``; ``k`` is capped at ``C``.

    >>> top_k(np.array([[0.1, 0.7, 0.2]], np.float32), 2)
    (array([[1, 2]]), array([[0.7, 0.2]], dtype=float32))
    """
    p = np.asarray(probs, np.float32)
    k = max(1, min(k, p.shape[1]))
    ids = np.argsort(-p, axis=1, kind="stable")[:, :k].astype(np.int64)
    return ids, np.take_along_axis(p, ids, axis=1)


def rotation_from_aspect(boxes: F32, ratio: float = SIDEWAYS_ASPECT) -> I64:
    """Rotation guessed from the box shape: 90 when wider than ``ratio`` × height, else 0.

    A box cannot tell 0 from 180 or 90 from 270 (an upside-down tile has the same box);
    only the crop classifier sees which way up the face is.

    >>> rotation_from_aspect(np.array([[0, 0, 30, 40], [0, 0, 40, 30]], np.float32)).tolist()
    [0, 90]
    """
    w = boxes[:, 2] - boxes[:, 0]
    h = boxes[:, 3] - boxes[:, 1]
    return np.where(w > ratio * h, 90, 0).astype(np.int64)


def map_to_classes(probs: F32, source_ids: I64, n_classes: int) -> F32:
    """Spread ``probs (n, C_src)`` onto ``n_classes`` columns; column ``j`` goes to
    ``source_ids[j]`` (classes not in the source get 0)."""
    out = np.zeros((probs.shape[0], n_classes), np.float32)
    for j, target in enumerate(np.asarray(source_ids).tolist()):
        out[:, target] += probs[:, j]
    return out


def decode_classifier(logits: F32, n_names: int) -> tuple[F32, F32]:
    """Classifier logits ``(B, n_names * 4)`` (index ``class * 4 + rotation_index``) →
    ``class_probs (B, n_names)`` and ``rotation_probs (B, 4)`` (0/90/180/270), each the
    marginal of one softmax over all class × rotation pairs."""
    lg = np.asarray(logits, np.float32)
    if lg.ndim != 2 or lg.shape[1] != n_names * len(ROTATIONS):
        raise ValueError(
            f"classifier output must have shape (B, {n_names * len(ROTATIONS)}), got {lg.shape}"
        )
    joint = softmax(lg, axis=1).reshape(len(lg), n_names, len(ROTATIONS))
    # a float32 sum of ~170 terms can round past 1 (1.0000001): probabilities stay in 0..1
    return np.minimum(joint.sum(axis=2), 1), np.minimum(joint.sum(axis=1), 1)


def fuse(
    detector_probs: F32, classifier_probs: F32, weight: float = 0.5, floor: float = 1e-4
) -> F32:
    """Combine two class distributions ``(n, C)`` as a product of experts, renormalised.

    Exponents ``(min(1, 2(1 - weight)), min(1, 2 weight))``: ``weight`` 0.5 multiplies the
    two (agreement sharpens, a uniform detector column leaves the classifier's answer), 1 is
    the classifier only, 0 the detector only. The ``floor`` keeps one model's zero from
    vetoing a class the other is sure of; the classes both models put under it come out
    tied at one near-zero probability (:func:`top_k` lists ties in class order, and
    :meth:`vision.detections.Detections.to_records` leaves out those that print as 0).

    >>> fuse(np.array([[0.6, 0.4]], np.float32), np.array([[0.1, 0.9]], np.float32)).round(2)
    array([[0.14, 0.86]], dtype=float32)
    """
    a = min(1.0, 2 * (1 - weight))
    b = min(1.0, 2 * weight)
    d = np.log(np.clip(detector_probs, floor, None))
    c = np.log(np.clip(classifier_probs, floor, None))
    return softmax(a * d + b * c, axis=1)


def classify_views(
    run: Callable[[npt.NDArray[np.float32]], npt.NDArray[np.float32]],
    crops: npt.NDArray[np.float32],
    n_names: int,
    views: int,
    more_below: float = 0.0,
    more_max: int = 0,
) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    """Class ``(n, n_names)`` and rotation ``(n, 4)`` probabilities of ``crops``
    ``(n, 3, S, S)``, averaged over ``views`` turns of each crop (1, 2: 0° and 180°, 4: every
    quarter turn). ``run(batch) -> logits`` is the classifier. A crop turned ``k`` quarter
    turns counter-clockwise shows a tile whose clockwise rotation index is ``r - k``, so
    its rotation probabilities are shifted back by ``k`` before averaging. With 2 views
    and ``more_below`` > 0, the crops whose top class probability stays under it are
    also looked at in the other two quarter turns (all four views averaged for those):
    the views a sure tile does not need. ``more_max`` > 0 bounds how many crops get them
    (the least sure first), so that a frame of many unsure tiles costs at most
    ``2 × more_max`` crop runs more.
    """
    cls, rot = _views(run, crops, n_names, {1: (0,), 2: (0, 2), 4: (0, 1, 2, 3)}[views])
    if views == 2 and more_below > 0 and len(crops):
        top = cls.max(axis=1)
        unsure = np.flatnonzero(top < more_below)
        if 0 < more_max < len(unsure):
            unsure = np.sort(unsure[np.argsort(top[unsure], kind="stable")[:more_max]])
        if len(unsure):
            c2, r2 = _views(run, crops[unsure], n_names, (1, 3))
            cls[unsure] = (cls[unsure] + c2) * np.float32(0.5)
            rot[unsure] = (rot[unsure] + r2) * np.float32(0.5)
    return cls, rot


def _views(
    run: Callable[[npt.NDArray[np.float32]], npt.NDArray[np.float32]],
    crops: npt.NDArray[np.float32],
    n_names: int,
    turns: tuple[int, ...],
) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    """Class and rotation probabilities of ``crops`` averaged over these quarter
    ``turns`` (counter-clockwise), rotations turned back (see :func:`classify_views`)."""
    n = len(crops)
    batch = np.concatenate([np.ascontiguousarray(np.rot90(crops, k, axes=(2, 3))) for k in turns])
    cls, rot = decode_classifier(run(batch), n_names)
    cls_sum = np.zeros((n, n_names), np.float32)
    rot_sum = np.zeros((n, 4), np.float32)
    for i, k in enumerate(turns):
        cls_sum += cls[i * n : (i + 1) * n]
        rot_sum += np.roll(rot[i * n : (i + 1) * n], k, axis=1)
    share = np.float32(1 / len(turns))
    return cls_sum * share, rot_sum * share
