"""One box over two tiles: a kong's sideways tile with the added tile (加杠) on it.

An added kong is laid as a claimed pung with the fourth tile on its sideways tile, just
beyond it (seed 003). Seen from a slant the two tiles overlap so much that the detector
often gives them one box (12 of 60 added kongs in the synthetic scenes of session 34): a
box that lies in the row like a sideways tile but reaches further across the row than one
tile can, beside two tiles of one kind. :func:`stacked_boxes` finds such boxes;
:func:`split_stack` reads one as the two tiles it covers, both of the pair's kind, so the
layout sees the added kong (the caller keeps that reading only when the hand then wins,
see :func:`vision.tile_rereads.split_stacked_box`).

Lengths are pixels of the image; ratios are against the median of the box's upright
neighbours in its row (up to two on each side), so perspective does not matter.

>>> from vision.layout_scene import SceneBuilder
>>> d = SceneBuilder().standing("123m456p99s").meld("PPP", sideways=2).row().detections()
>>> k = 10  # the sideways P: make its box reach across the row like a stack of two
>>> boxes = d.boxes.copy(); boxes[k, 1] -= 0.9 * (boxes[k, 3] - boxes[k, 1])
>>> from dataclasses import replace
>>> [(s.tile, s.code) for s in stacked_boxes(replace(d, boxes=boxes))]
[(10, 'P')]
"""

from __future__ import annotations

import itertools
import statistics
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import numpy.typing as npt

from vision.classes import BACK, BONUS, class_id
from vision.detections import Detections
from vision.layout import rotation_margins
from vision.layout_geometry import Frame, canonical_frame, link_rows

#: A stack reaches across its row at least this many times its upright neighbours (a
#: single sideways tile: median 0.82, 99th percentile 1.05; a stack of two: 1.11-1.42,
#: median 1.21 — the synthetic choice, tune and held-out scenes of session 34).
STACK_ACROSS = 1.1
#: ... and along its row at least this many times (a stack lies like a sideways tile, its
#: long side along the row: stacks 1.0-1.36; upright tiles 0.91-1.11, 5th-95th percentile).
STACK_ALONG = 1.0
#: The added tile lies beyond its base, so a stack reaches past its upright neighbours'
#: edge on one side across the row by at least this many tile heights (stacks 0.23-0.50,
#: one 0.13; other boxes passing the tests above at most 0.19 on the choice scenes)...
STACK_BEYOND = 0.2
#: ... and not past their other edge by more than this (a tile box too big all round
#: reaches past both), nor short of it by more than ``STACK_SHORT`` (a box off its row).
STACK_OTHER = 0.05
STACK_SHORT = 0.45
#: The stack touches the pair beside it (gap along the row at most this many tile widths).
STACK_GAP = 0.5
#: Each part of a split box, as a share of the box's extent across the row; the two parts
#: overlap by ``2 * STACK_PART - 1`` of it (little enough that the layout does not put
#: the added tile in its base's row).
STACK_PART = 0.55
#: A box this close to the picture's edge (pixels) is cut by it and never taken for a stack.
EDGE_PX = 2.0


@dataclass(frozen=True)
class Stack:
    """A box that may cover a sideways tile and the tile added on it.

    ``tile``: the detection; ``code``: the kind of the two tiles beside it (the pung's);
    ``pair``: those two detections; ``across``/``along``: the box's extents across and
    along the row over its upright neighbours' median; ``beyond``: how far it reaches past
    their edge on its far side, in their heights; ``frame_rotation``: the image rotation
    that made the rows run left to right (:class:`vision.layout_geometry.Frame`)."""

    tile: int
    code: str
    pair: tuple[int, int]
    across: float
    along: float
    beyond: float
    frame_rotation: int = 0


def stacked_boxes(
    dets: Detections, row_link_gap: float = 3.0, row_overlap: float = 0.5
) -> list[Stack]:
    """Boxes of ``dets`` that reach :data:`STACK_ACROSS` times across their row and
    :data:`STACK_ALONG` times along it against their upright neighbours, past those
    neighbours' edge on one side by :data:`STACK_BEYOND` but not on the other (see
    :data:`STACK_OTHER`), and touch two tiles read as one kind (not a flower or a back) on
    one side or one on each side; largest across first. A box the picture's edge cuts is
    never one. Rows as :func:`vision.layout_geometry.link_rows` links them."""
    n = len(dets)
    if n < 3:
        return []
    wh = dets.boxes[:, 2:] - dets.boxes[:, :2]
    area = wh[:, 0] * wh[:, 1]
    if area.max() < STACK_ACROSS * STACK_ALONG * float(np.median(area)):
        return []  # no box big enough against the tiles (no work)
    codes = dets.codes
    frame = canonical_frame(dets.boxes, dets.rotations, rotation_margins(dets))
    plain = {k for k in range(n) if codes[k] != BACK and codes[k] not in BONUS}
    cut = _at_edge(dets).tolist()
    upright = {k for k in range(n) if int(frame.rotation[k]) in (0, 180)}
    h, w = frame.h.tolist(), frame.w.tolist()
    y1, y2 = frame.y1().tolist(), frame.y2().tolist()
    found: list[Stack] = []
    for row in link_rows(frame, row_link_gap, row_overlap):
        for pos, k in enumerate(row):
            if codes[k] == BACK or cut[k]:
                continue
            near = [j for j in row[max(0, pos - 2):pos] + row[pos + 1:pos + 3] if j in upright]
            if len(near) < 2:
                continue
            height = statistics.median(h[j] for j in near)
            width = statistics.median(w[j] for j in near)
            if not (height > 0 and width > 0):  # degenerate boxes: no shape to judge
                continue
            across = h[k] / height
            if across < STACK_ACROSS:
                continue
            along = w[k] / width
            if along < STACK_ALONG:
                continue
            far = (statistics.median(y1[j] for j in near) - y1[k]) / height
            close = (y2[k] - statistics.median(y2[j] for j in near)) / height
            beyond, other = max(far, close), min(far, close)
            if beyond < STACK_BEYOND or not -STACK_SHORT <= other <= STACK_OTHER:
                continue
            pair = _pair_beside(frame, row, pos, codes, plain)
            if pair is not None:
                found.append(Stack(k, codes[pair[0]], pair, round(across, 3), round(along, 3),
                                   round(beyond, 3), frame.frame_rotation))
    found.sort(key=lambda s: -s.across)
    return found


def _at_edge(dets: Detections) -> npt.NDArray[np.bool_]:
    """Which boxes ``(n,)`` touch the picture's edge (within :data:`EDGE_PX`): the picture
    cuts such a tile, so its box's shape says nothing (a tilted row's last tile, cut by the
    edge, looks deeper than its neighbours). None known without ``image_size``."""
    if dets.image_size is None:
        return np.zeros(len(dets), bool)
    width, height = dets.image_size
    b = dets.boxes
    return np.asarray((b[:, 0] <= EDGE_PX) | (b[:, 1] <= EDGE_PX)
                      | (b[:, 2] >= width - EDGE_PX) | (b[:, 3] >= height - EDGE_PX))


def _pair_beside(
    frame: Frame, row: list[int], pos: int, codes: list[str], plain: set[int]
) -> tuple[int, int] | None:
    """Two tiles of one kind touching ``row[pos]`` on one side (the nearer pair first) or
    one on each side, or None."""
    for a, b in ((pos + 1, pos + 2), (pos - 1, pos - 2), (pos - 1, pos + 1)):
        if min(a, b) < 0 or max(a, b) >= len(row):
            continue
        i, j = row[a], row[b]
        if i not in plain or j not in plain or codes[i] != codes[j]:
            continue
        # the tiles touch: the stack and its neighbour, and the pair's two tiles
        chain = sorted((row[pos], i, j), key=lambda t: float(frame.cx[t]))
        if all(_gap(frame, s, t) <= STACK_GAP for s, t in itertools.pairwise(chain)):
            return (i, j)
    return None


def _gap(frame: Frame, left: int, right: int) -> float:
    """Gap along the row between two tiles, in tile widths (negative: they overlap)."""
    gap = (frame.cx[right] - frame.w[right] / 2) - (frame.cx[left] + frame.w[left] / 2)
    unit = (frame.short_side[left] + frame.short_side[right]) / 2
    return float(gap / max(unit, 1e-6))


def split_stack(dets: Detections, stack: Stack) -> Detections:
    """``dets`` with the box of ``stack.tile`` read as two tiles of ``stack.code``, both
    sideways: the tile keeps its index for the part whose edge lines up with the pair's
    (the claimed tile, in the row), and the part beyond it (the added tile) is appended as
    the last detection. Each part is :data:`STACK_PART` of the box across the row. Both
    are read ``stack.code`` with the probability of the pair's weaker reading of it (the
    box's own reading, of two faces at once, is not used) and the pair's lower confidence;
    their rotation is sideways with 90 and 270 equally likely."""
    k = stack.tile
    axis = 0 if stack.frame_rotation in (90, 270) else 1  # image axis across the rows
    box = dets.boxes[k].astype(np.float64)
    pair = dets.boxes[list(stack.pair)].astype(np.float64)
    low, high = box[axis], box[axis + 2]
    extent = high - low
    # the claimed tile lines up with the row: the box's edge nearer the pair's edge
    at_low = abs(low - pair[:, axis].mean()) <= abs(high - pair[:, axis + 2].mean())
    part = STACK_PART * extent
    base, top = box.copy(), box.copy()
    if at_low:
        base[axis + 2] = low + part
        top[axis] = high - part
    else:
        base[axis] = high - part
        top[axis + 2] = low + part
    cid = class_id(stack.code)
    p = float(min(_prob_of(dets, i, cid) for i in stack.pair))
    conf = float(min(dets.confidences[list(stack.pair)]))  # no surer than the pair's tiles
    side = (stack.frame_rotation + 90) % 360
    rot_p = np.zeros(4, np.float32)
    rot_p[side // 90] = rot_p[((side + 180) % 360) // 90] = 0.5
    kk = dets.topk_ids.shape[1]
    ids_row = np.full(kk, cid, np.int64)
    probs_row = np.zeros(kk, np.float32)
    probs_row[0] = p

    def with_row(arr: npt.NDArray[Any], index: int, value: npt.ArrayLike) -> npt.NDArray[Any]:
        out = arr.copy()
        out[index] = value
        return np.concatenate([out, np.asarray(value, arr.dtype)[None]])

    rotation_probs = None
    if dets.rotation_probs is not None:
        rotation_probs = with_row(dets.rotation_probs, k, rot_p)
    boxes = with_row(dets.boxes, k, base.astype(np.float32))
    boxes[-1] = top.astype(np.float32)
    return replace(
        dets,
        boxes=boxes,
        class_ids=with_row(dets.class_ids, k, cid),
        confidences=with_row(dets.confidences, k, min(conf, p)),
        rotations=with_row(dets.rotations, k, side),
        topk_ids=with_row(dets.topk_ids, k, ids_row),
        topk_probs=with_row(dets.topk_probs, k, probs_row),
        rotation_probs=rotation_probs,
    )


def _prob_of(dets: Detections, i: int, cid: int) -> float:
    """Probability detection ``i`` gives class ``cid`` (0 when not in its top-k)."""
    hit = np.flatnonzero(dets.topk_ids[i] == cid)
    return float(dets.topk_probs[i, hit[0]]) if len(hit) else 0.0
