"""Boxes scored under the tile threshold that sit where a row of found tiles goes on.

Players lay tiles in rows, touching or nearly so. When two tiles found (scored at
least the threshold) lie side by side, the next tile of their row is expected one step
further on either side — the step being the vector between their centres — and, when
they are two steps apart, one in between. A box the detector scored lower (a tile it
half saw: glare, a steep view, a flower's faint face) whose centre falls on such a
spot, whose area matches the pair's, whose code the classifiers are sure of and which
overlaps no tile already kept is taken as a tile too. The rule works on box centres,
so rows tilted at any angle are followed.

The manifest turns it on with ``detector.row_fill`` (see :class:`RowFill`); the
detector then keeps such boxes among the tiles with their own (low) score, and
``recognize`` reads them as tiles of the hand too
(:func:`vision.weak_boxes.below_threshold_as_weak` hands only flowers and face-down
tiles kept under the threshold back to its rules as weak boxes).

>>> import numpy as np
>>> boxes = np.array([[0, 0, 10, 14], [10, 0, 20, 14], [20, 0, 30, 14], [60, 0, 70, 14]],
...                  np.float32)
>>> scores, top_p = np.array([0.9, 0.9, 0.3, 0.3], np.float32), np.full(4, 0.95, np.float32)
>>> in_rows(boxes, scores, top_p, np.array([True, True, False, False]), RowFill()).tolist()
[False, False, True, False]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from vision.postprocess import box_iou

F32 = npt.NDArray[np.float32]
Mask = npt.NDArray[np.bool_]


@dataclass(frozen=True)
class RowFill:
    """Settings of :func:`in_rows` (manifest ``detector.row_fill``)."""

    #: Lowest detector tile score a box may have to be taken (0..1).
    min_score: float = 0.25
    #: How far (in the box's own short sides) its centre may lie from the spot expected.
    tolerance: float = 0.5
    #: Lowest top-1 probability of the box's reading (a box read as no code for sure is
    #: as often a tile the classes do not hold — a joker, a fifth flower set — or a
    #: tile's side).
    min_p: float = 0.9
    #: Two found tiles are neighbours in a row when their centres lie this many of their
    #: mean long sides apart (touching tiles: about 0.75 side by side, 1.0 end to end).
    step: tuple[float, float] = (0.5, 1.6)
    #: Area of the box over the pair's mean area, lowest and highest.
    area: tuple[float, float] = (0.6, 1.6)
    #: Highest IoU the box may have with any tile kept (found or taken before it).
    max_iou: float = 0.2


def _expected_spots(boxes: F32, rows: npt.NDArray[np.int64], fill: RowFill
                    ) -> tuple[F32, F32]:
    """Where further tiles of the rows through ``boxes[rows]`` would lie: centres
    ``(m, 2)`` in pixels and the area ``(m,)`` each is expected to have."""
    b = boxes[rows].astype(np.float64)
    centre = np.stack([(b[:, 0] + b[:, 2]) / 2, (b[:, 1] + b[:, 3]) / 2], axis=1)
    w, h = b[:, 2] - b[:, 0], b[:, 3] - b[:, 1]
    area, long_side = w * h, np.maximum(w, h)
    i, j = np.triu_indices(len(rows), k=1)
    ratio = area[i] / np.maximum(area[j], 1e-9)
    similar = (ratio >= fill.area[0]) & (ratio <= fill.area[1])
    step = centre[j] - centre[i]
    dist = np.hypot(step[:, 0], step[:, 1]) / ((long_side[i] + long_side[j]) / 2)
    pair_area = (area[i] + area[j]) / 2
    beside = similar & (dist >= fill.step[0]) & (dist <= fill.step[1])
    between = similar & (dist >= 2 * fill.step[0]) & (dist <= 2 * fill.step[1])
    spots = np.concatenate([
        (centre[j] + step)[beside], (centre[i] - step)[beside],
        ((centre[i] + centre[j]) / 2)[between],
    ])
    areas = np.concatenate([pair_area[beside], pair_area[beside], pair_area[between]])
    return spots.astype(np.float32), areas.astype(np.float32)


def in_rows(boxes: F32, scores: F32, top_p: F32, kept: Mask, fill: RowFill) -> Mask:
    """Which boxes not ``kept`` to take as tiles, ``(n,)``: scored at least
    ``fill.min_score``, read with a top-1 probability of at least ``fill.min_p``,
    centred on a spot where a row of kept tiles goes on (see the module doc), of the
    expected area, and overlapping no kept tile (nor a box taken before it, best score
    first) by more than ``fill.max_iou``.

    ``boxes`` ``(n, 4)`` xyxy pixels; ``scores`` ``(n,)`` the detector's tile scores;
    ``top_p`` ``(n,)`` the top-1 probabilities of the boxes' readings; ``kept`` ``(n,)``
    the boxes already kept by the threshold.
    """
    out = np.zeros(len(boxes), bool)
    rows = np.flatnonzero(kept)
    candidates = np.flatnonzero(~kept & (scores >= fill.min_score) & (top_p >= fill.min_p))
    if len(rows) < 2 or not len(candidates):
        return out
    spots, areas = _expected_spots(boxes, rows, fill)
    if not len(spots):
        return out
    taken = list(rows.tolist())
    for k in candidates[np.argsort(-scores[candidates], kind="stable")].tolist():
        x1, y1, x2, y2 = (float(v) for v in boxes[k])
        centre = np.array([(x1 + x2) / 2, (y1 + y2) / 2], np.float32)
        off = np.hypot(*(spots - centre).T)
        ratio = (x2 - x1) * (y2 - y1) / np.maximum(areas, 1e-9)
        on_spot = (off <= fill.tolerance * min(x2 - x1, y2 - y1)) & (
            ratio >= fill.area[0]) & (ratio <= fill.area[1])
        if not on_spot.any():
            continue
        if box_iou(boxes[k], boxes[taken]).max() > fill.max_iou:
            continue
        out[k] = True
        taken.append(k)
    return out
