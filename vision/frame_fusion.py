"""Frames of one still scene read together: a table camera's tile readings averaged.

An overhead camera sends frame after frame of a hand that does not move; each frame's
reading differs a little (sensor noise, light, compression), and where the model is
unsure — a flower's numeral, an unfamiliar tile set — the top code may flip from frame to
frame. :func:`fuse` gives the latest frame's detections the code probabilities averaged
over the earlier frames of the same scene: each of its boxes takes, from every earlier
frame, the box that overlaps it most (IoU at least ``iou``), and its top-k becomes the
top-k of the mean of those frames' probability vectors (a code outside a frame's top-k
counts 0 there). Boxes, detector scores, rotations and everything else stay the latest
frame's. :func:`same_scene` says whether two frames show the same tiles in the same
places (else the earlier ones are not fused).

Shapes: ``boxes`` ``(n, 4)`` pixels xyxy; ``topk_ids``/``topk_probs`` ``(n, k)``.

>>> import numpy as np
>>> from vision.detections import Detections
>>> def one(code_probs):  # one box, its top-2 readings
...     ids = np.array([[c for c, _ in code_probs]], np.int64)
...     p = np.array([[p for _, p in code_probs]], np.float32)
...     return Detections(np.array([[10, 10, 50, 70]], np.float32), ids[:, 0], p[:, 0],
...                       np.zeros(1, np.int64), ids, p, (100, 100))
>>> a, b, c = one([(1, 0.55), (2, 0.45)]), one([(2, 0.6), (1, 0.4)]), one([(2, 0.7), (1, 0.3)])
>>> fused = fuse(a, [b, c])
>>> int(fused.class_ids[0]), round(float(fused.topk_probs[0, 0]), 3)
(2, 0.583)
"""

from __future__ import annotations

import threading
from collections.abc import Hashable, Sequence
from dataclasses import replace

import numpy as np

from vision.classes import CLASSES
from vision.detections import Detections
from vision.postprocess import iou_matrix

#: Boxes of two frames are one tile when they overlap at least this much (IoU).
FUSE_IOU = 0.5
#: Two frames show one scene when this share of each one's boxes has such a partner.
SAME_SCENE_SHARE = 0.9


def same_scene(a: Detections, b: Detections, iou: float = FUSE_IOU,
               share: float = SAME_SCENE_SHARE) -> bool:
    """Whether frames ``a`` and ``b`` show the same tiles in the same places: both found
    tiles, in frames of one size, and at least ``share`` of each one's boxes overlap a box
    of the other by ``iou`` or more."""
    if not len(a) or not len(b) or a.image_size != b.image_size:
        return False
    m = iou_matrix(a.boxes, b.boxes)
    return bool((m.max(axis=1) >= iou).mean() >= share and (m.max(axis=0) >= iou).mean() >= share)


def fuse(latest: Detections, earlier: Sequence[Detections], iou: float = FUSE_IOU) -> Detections:
    """``latest`` with each box's top-k taken from the mean code probabilities of it and
    its partners in ``earlier`` (see module doc); ``meta["fused_frames"]`` says how many
    frames were averaged at most. Unchanged when ``earlier`` is empty or ``latest`` has
    no boxes."""
    if not len(latest) or not earlier:
        return latest
    n, k = latest.topk_ids.shape
    dense = np.zeros((n, len(CLASSES)))
    counts = np.zeros(n)

    def add(d: Detections, rows: np.ndarray, into: np.ndarray) -> None:
        for i, j in zip(into.tolist(), rows.tolist(), strict=True):
            np.add.at(dense[i], d.topk_ids[j], d.topk_probs[j].astype(np.float64))
            counts[i] += 1

    add(latest, np.arange(n), np.arange(n))
    used = 1
    for d in earlier:
        if not len(d):
            continue
        m = iou_matrix(latest.boxes, d.boxes)
        best = m.argmax(axis=1)
        hit = m[np.arange(n), best] >= iou
        if hit.any():
            add(d, best[hit], np.flatnonzero(hit))
            used += 1
    dense /= counts[:, None]
    ids = np.argsort(-dense, axis=1, kind="stable")[:, :k]
    probs = np.take_along_axis(dense, ids, axis=1).astype(np.float32)
    return replace(latest, class_ids=ids[:, 0].astype(np.int64),
                   topk_ids=ids.astype(np.int64), topk_probs=probs,
                   meta={**latest.meta, "fused_frames": used})


class FrameMemory:
    """Each camera's latest frames' detections (keyed by anything: a table id), for reading
    a still scene's frames together; in memory, per process (a restart or another worker
    starts afresh, which only means fewer frames averaged). Thread-safe."""

    def __init__(self, frames: int) -> None:
        if frames < 1:
            raise ValueError(f"frames to read together must be at least 1, not {frames}")
        #: frames read together, the newest included (1: each frame alone)
        self.frames = frames
        self._lock = threading.Lock()
        self._by_camera: dict[Hashable, list[Detections]] = {}

    def remember(self, camera: Hashable, dets: Detections) -> list[Detections]:
        """The earlier frames of ``camera`` that show the scene of ``dets``
        (:func:`same_scene`; oldest first, at most ``frames - 1``), and ``dets`` kept as
        its newest frame; a frame of another scene forgets the earlier ones."""
        with self._lock:
            kept = [d for d in self._by_camera.get(camera, []) if same_scene(dets, d)]
            earlier = kept[-(self.frames - 1):] if self.frames > 1 else []
            self._by_camera[camera] = [*earlier, dets]
            return earlier

    def read(self, camera: Hashable, dets: Detections) -> Detections:
        """``dets`` fused with the earlier frames of the same scene (:func:`fuse`), and
        remembered."""
        return fuse(dets, self.remember(camera, dets))
