"""Tighter labels for a photo none of whose copies shows it as taken.

For about a third of hk-photos' source photos the export kept no un-augmented copy: all
five are turned or sheared (the export's flat fill shows in three or four corners), and
the export grew each box at every composed step, so even the tightest copy's boxes are
1.5–2× the tiles they label (``models/README.md``, "Labels of the augmented copies").
Carrying those boxes to the other copies (:mod:`vision.data.relabel`) grows them again.

But each of the five copies is a different turn of the *same* photo, and a grown box
still (nearly) holds its tile. So, per tile, the copies' boxes are pulled back into one
reference copy through the copies' homographies (each becomes a parallelogram there)
and intersected; the tile — a box upright in the photo as taken — lies inside that
intersection. The photo's own axes in the reference copy are read off the export's fill:
the fill's straight edges include the photo's borders, which every copy shows in the
same direction once carried into the reference frame (the other fill edges, the borders
of intermediate steps, scatter) (:func:`fill_edges`, :func:`photo_axes`). The largest
rectangle upright in the photo that fits in the intersection (:func:`inscribed_box`),
scaled by two factors fitted on photos whose original *is* kept, is the tile; its
parallelogram carried into each copy and boxed is that copy's label.

Measured on the 244 photos whose un-augmented original survives, rebuilding labels from
their four augmented copies alone with the tightest of them as the reference, as the
preparation must when no original is kept (``train/fit_tightening.py``; factors fitted on
the training photos): in the other copies, IoU with the labeller's boxes carried there
has median 0.67 → 0.82 and is ≥ 0.5 for 84.0 → 96.3 % of the training photos' tiles
(validation photos: 0.63 → 0.82, 75.6 → 98.3 %); in the reference itself its own boxes
are as good at IoU ≥ 0.5 (97.4 % against 95.8 %), so the preparation keeps them there.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

#: Each copy's box is grown by this many px per side before the intersection: the export's
#: boxes sit a few px off their tiles (centres ~8 px), so an exact intersection cuts tiles.
DILATE_PX = 4.0
#: The inscribed box's long and short sides are scaled by these factors: the medians of
#: labeller's box / inscribed box on the training photos whose original is kept, with
#: ``DILATE_PX`` (``train/fit_tightening.py`` prints them as fitted_long/short_scale).
LONG_SCALE = 0.978
SHORT_SCALE = 0.899
#: Fill edges of one copy agreeing within this many degrees support one direction.
AXIS_TOLERANCE_DEG = 1.5

Labels = npt.NDArray[np.float64]
Image = npt.NDArray[np.uint8]
Polygon = npt.NDArray[np.float64]  # (k, 2) px


@dataclass(frozen=True)
class CopyView:
    """One copy of the photo as the tightening sees it."""

    #: the export's labels of this copy ``(n, 5)`` normalised (mirrored copies flipped back)
    labels: Labels
    #: 3×3 homography, reference copy px → this copy's px
    matrix: npt.NDArray[np.float64]
    #: (width, height) px
    size: tuple[int, int]
    #: :func:`fill_edges` of this copy's image
    edges: list[tuple[float, float]]


def fill_mask(image: Image, tolerance: int = 3) -> npt.NDArray[np.bool_]:
    """Pixels of the export's flat fill: flood-filled from each corner that shows it
    (a flat, dark 15 px square), within ``tolerance`` grey levels. Shape ``(h, w)``."""
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    h, w = gray.shape
    mask = np.zeros((h + 2, w + 2), np.uint8)
    flags = 4 | cv2.FLOODFILL_MASK_ONLY | (255 << 8)
    for y, x in ((0, 0), (0, w - 1), (h - 1, 0), (h - 1, w - 1)):
        square = gray[max(0, y - 7) : y + 8, max(0, x - 7) : x + 8]
        if square.std() < 4 and square.mean() < 60 and not mask[y + 1, x + 1]:
            cv2.floodFill(gray.copy(), mask, (x, y), 255, tolerance, tolerance, flags)
    return mask[1:-1, 1:-1] > 0


def fill_edges(image: Image, min_length: float = 40.0) -> list[tuple[float, float]]:
    """The straight edges between the export's fill and the picture, as ``(direction in
    degrees mod 180, length px)``; the image's own borders are not edges. Empty when the
    copy shows no fill (not turned, or turned by a right angle).

    >>> rng = np.random.default_rng(0)
    >>> photo = cv2.resize(rng.integers(60, 255, (40, 40, 3), dtype=np.uint8), (320, 320))
    >>> turn = cv2.getRotationMatrix2D((160, 160), -20, 1.0)  # 20° clockwise on screen
    >>> turned = cv2.warpAffine(photo, turn, (320, 320), borderValue=(0, 0, 0))
    >>> sorted(round(a) for a, _ in fill_edges(turned))
    [20, 20, 110, 110]
    >>> fill_edges(photo)
    []
    """
    fill = fill_mask(image)
    if fill.sum() < 50:
        return []
    content = (~fill).astype(np.uint8) * 255
    content = np.asarray(cv2.morphologyEx(content, cv2.MORPH_OPEN, np.ones((5, 5), np.uint8)),
                         np.uint8)
    contours, _ = cv2.findContours(content, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    if not contours:
        return []
    outline = max(contours, key=cv2.contourArea)
    poly = cv2.approxPolyDP(outline, 3.0, True).reshape(-1, 2).astype(np.float64)
    h, w = image.shape[:2]
    edges = []
    for a in range(len(poly)):
        p, q = poly[a], poly[(a + 1) % len(poly)]
        d = q - p
        length = float(np.hypot(d[0], d[1]))
        if length < min_length:
            continue
        mid = (p + q) / 2
        along_side = min(mid[0], w - 1 - mid[0]) < 4 and abs(d[0]) < 0.05 * length
        along_top = min(mid[1], h - 1 - mid[1]) < 4 and abs(d[1]) < 0.05 * length
        if along_side or along_top:
            continue
        edges.append((float(np.degrees(np.arctan2(d[1], d[0])) % 180), length))
    return edges


def carry_direction(degrees: float, linear: npt.NDArray[np.float64]) -> float:
    """A direction (degrees) carried through a 2×2 linear map, degrees mod 180.

    >>> carry_direction(0.0, np.array([[0.0, -1.0], [1.0, 0.0]]))  # a quarter turn
    90.0
    """
    t = np.radians(degrees)
    v = linear @ np.array([np.cos(t), np.sin(t)])
    return float(np.degrees(np.arctan2(v[1], v[0])) % 180)


def _gap(a: npt.ArrayLike, b: float) -> npt.NDArray[np.float64]:
    """Angular distance of directions (degrees mod 180)."""
    return np.abs((np.asarray(a, np.float64) - b + 90) % 180 - 90)


def _mean_direction(directions: Sequence[tuple[float, float]]) -> float:
    """Length-weighted mean of directions (degrees mod 180)."""
    doubled = np.radians(2 * np.array([a for a, _ in directions]))
    weight = np.array([length for _, length in directions])
    mean = np.arctan2((weight * np.sin(doubled)).sum(), (weight * np.cos(doubled)).sum())
    return float(np.degrees(mean) / 2 % 180)


def photo_axes(edge_sets: Sequence[Sequence[tuple[float, float]]]) -> npt.NDArray[np.float64]:
    """The photo's x and y directions in the reference frame, as the columns of a 2×2
    matrix of unit vectors: the direction on which the most copies show a fill edge,
    and the best supported one 70–110° from it (a shear tilts them off a right angle).

    ``edge_sets``: per copy, its fill edges carried into the reference frame; a copy
    with no fill counts as showing the canvas axes of its own frame, carried in too.

    >>> axes = photo_axes([[(30.0, 300), (120.0, 300), (75.0, 200)],
    ...                    [(30.5, 250), (120.5, 280), (10.0, 300)],
    ...                    [(29.5, 280), (119.5, 260), (160.0, 100)]])
    >>> sorted(np.degrees(np.arctan2(axes[1], axes[0])).round(0).tolist())
    [30.0, 120.0]
    """
    grid = np.arange(0.0, 180.0, 0.1)
    support = np.zeros(len(grid))
    for edges in edge_sets:
        best = np.zeros(len(grid))
        for angle, length in edges:  # each copy counts once; longer edges break ties
            near = _gap(grid, angle) < AXIS_TOLERANCE_DEG
            best = np.maximum(best, near * (1 + min(length, 300.0) / 3000))
        support += best
    first = float(grid[int(support.argmax())])
    across = np.where(_gap(grid, first) > 70, support, -1.0)
    second = float(grid[int(across.argmax())])
    axes = []
    for rough in (first, second):
        nearest = []
        for edges in edge_sets:
            close = [(float(_gap(a, rough)), a, n) for a, n in edges
                     if _gap(a, rough) < 2 * AXIS_TOLERANCE_DEG]
            if close:
                _, a, n = min(close)
                nearest.append((a, n))
        t = np.radians(_mean_direction(nearest) if nearest else rough)
        axes.append([np.cos(t), np.sin(t)])
    return np.array(axes, np.float64).T


def inscribed_box(poly: Polygon, step: float = 0.5) -> tuple[float, float, float, float] | None:
    """The largest axis-aligned rectangle inside a convex polygon, ``(x0, y0, x1, y1)``,
    to ``step`` px in height; None for a degenerate polygon.

    A convex polygon's horizontal slice at height y is ``[l(y), r(y)]`` with l convex and
    r concave, so a rectangle spanning ``[y0, y1]`` fits iff its sides lie within
    ``max(l(y0), l(y1))`` and ``min(r(y0), r(y1))``: every pair of heights is tried.

    >>> diamond = np.array([[0, -2], [2, 0], [0, 2], [-2, 0]], float)
    >>> inscribed_box(diamond)
    (-1.0, -1.0, 1.0, 1.0)
    """
    p = np.asarray(poly, np.float64)
    if len(p) < 3 or cv2.contourArea(p.astype(np.float32)) <= 0:
        return None
    ys = np.arange(p[:, 1].min(), p[:, 1].max() + step / 2, step)
    left = np.full(len(ys), np.inf)
    right = np.full(len(ys), -np.inf)
    for a in range(len(p)):
        (x0, y0), (x1, y1) = p[a], p[(a + 1) % len(p)]
        if abs(y1 - y0) < 1e-9:
            at = np.abs(ys - y0) < 1e-9
            left[at] = np.minimum(left[at], min(x0, x1))
            right[at] = np.maximum(right[at], max(x0, x1))
            continue
        t = (ys - y0) / (y1 - y0)
        on = (t >= -1e-9) & (t <= 1 + 1e-9)
        xs = x0 + t * (x1 - x0)
        left[on] = np.minimum(left[on], xs[on])
        right[on] = np.maximum(right[on], xs[on])
    ok = np.isfinite(left) & np.isfinite(right)
    ys, left, right = ys[ok], left[ok], right[ok]
    if len(ys) < 2:
        return None
    i0, i1 = np.triu_indices(len(ys), 1)
    width = np.minimum(right[i0], right[i1]) - np.maximum(left[i0], left[i1])
    area = (ys[i1] - ys[i0]) * np.maximum(width, 0)
    k = int(area.argmax())
    if area[k] <= 0:
        return None
    a, b = i0[k], i1[k]
    return (float(max(left[a], left[b])), float(ys[a]), float(min(right[a], right[b])),
            float(ys[b]))


def box_corners(labels: Labels, size: tuple[int, int], grow: float = 0.0) -> Polygon:
    """The four corners ``(n, 4, 2)`` px of normalised label boxes, each side moved out by
    ``grow`` px (clockwise from top-left)."""
    w, h = size
    cx, cy = labels[:, 1] * w, labels[:, 2] * h
    hw, hh = labels[:, 3] * w / 2 + grow, labels[:, 4] * h / 2 + grow
    xs = np.stack([cx - hw, cx + hw, cx + hw, cx - hw], 1)
    ys = np.stack([cy - hh, cy - hh, cy + hh, cy + hh], 1)
    return np.stack([xs, ys], 2)


def carry_points(points: Polygon, matrix: npt.NDArray[np.float64]) -> Polygon:
    """Points ``(..., 2)`` carried through a 3×3 homography."""
    pts = np.concatenate([points, np.ones((*points.shape[:-1], 1))], -1) @ np.asarray(matrix).T
    return np.asarray(pts[..., :2] / pts[..., 2:3], np.float64)


def match_boxes(
    reference: Labels, ref_size: tuple[int, int], copy: CopyView
) -> npt.NDArray[np.int64]:
    """For each reference box, the index of the same tile's box in ``copy`` (-1: none):
    nearest centre once carried across, one to one, within half the box's size + 10 px;
    a box of another class only counts as farther (label fixes change the reference's)."""
    out = np.full(len(reference), -1, np.int64)
    if not len(reference) or not len(copy.labels):
        return out
    centres = carry_points(reference[:, 1:3] * np.asarray(ref_size, np.float64), copy.matrix)
    theirs = copy.labels[:, 1:3] * np.asarray(copy.size, np.float64)
    dist = np.linalg.norm(centres[:, None, :] - theirs[None, :, :], axis=2)
    reach = 0.5 * np.sqrt(reference[:, 3] * reference[:, 4]) * np.sqrt(ref_size[0] * ref_size[1])
    reach = reach + 10.0
    cost = dist + np.where(reference[:, None, 0] == copy.labels[None, :, 0], 0.0, reach[:, None])
    taken = np.zeros(len(copy.labels), bool)
    for i in np.argsort(cost.min(1), kind="stable"):
        for j in np.argsort(cost[i], kind="stable"):
            if taken[j] or dist[i, j] >= reach[i]:
                continue
            out[i] = j
            taken[j] = True
            break
    return out


def _touches_border(corners: Polygon, size: tuple[int, int], margin: float = 2.0) -> bool:
    """Whether a box reaches the image's edge (the export cut it there: it may not hold
    its whole tile)."""
    w, h = size
    return bool(corners[:, 0].min() <= margin or corners[:, 1].min() <= margin
                or corners[:, 0].max() >= w - margin or corners[:, 1].max() >= h - margin)


def _intersection(polys: Sequence[Polygon]) -> Polygon | None:
    current = np.asarray(polys[0], np.float32)
    for other in polys[1:]:
        area, inter = cv2.intersectConvexConvex(current, np.asarray(other, np.float32))
        if area <= 0 or inter is None:
            return None
        current = np.asarray(inter.reshape(-1, 2), np.float32)
    return np.asarray(current, np.float64)


def _scaled(box: tuple[float, float, float, float], long: float, short: float) -> Polygon:
    x0, y0, x1, y1 = box
    cx, cy, w, h = (x0 + x1) / 2, (y0 + y1) / 2, x1 - x0, y1 - y0
    w, h = (w * short, h * long) if h >= w else (w * long, h * short)
    return np.array([[cx - w / 2, cy - h / 2], [cx + w / 2, cy - h / 2],
                     [cx + w / 2, cy + h / 2], [cx - w / 2, cy + h / 2]])


def tighten(
    reference: Labels,
    ref_size: tuple[int, int],
    copies: Sequence[CopyView],
    scale: tuple[float, float] = (LONG_SCALE, SHORT_SCALE),
) -> list[Polygon | None]:
    """Per reference box, the tile's parallelogram ``(4, 2)`` in reference px, or None
    when no copy's box constrains it (every one cut by its image's edge).

    ``copies`` should include the reference itself (identity matrix, its own export
    labels): every copy's box of the tile is one constraint; the reference's labels say
    which tiles there are (each copy's box of a tile is found by :func:`match_boxes`).
    ``scale``: the factors for the inscribed box's long and short sides.
    """
    edge_sets = []
    for c in copies:
        back = np.asarray(np.linalg.inv(np.asarray(c.matrix, np.float64)[:2, :2]), np.float64)
        edges = c.edges or [(0.0, float(c.size[0])), (90.0, float(c.size[1]))]
        edge_sets.append([(carry_direction(a, back), n) for a, n in edges])
    axes = photo_axes(edge_sets)
    to_photo = np.linalg.inv(axes)  # reference px -> coordinates along the photo's axes
    # per copy, once: which reference box each of its boxes is, whether the image's edge
    # cuts it, and its grown box pulled back into photo-axis coordinates
    views = []
    for c in copies:
        cut = [_touches_border(b, c.size) for b in box_corners(c.labels, c.size)]
        grown = box_corners(c.labels, c.size, DILATE_PX)
        back = carry_points(grown, np.linalg.inv(np.asarray(c.matrix, np.float64)))
        views.append((match_boxes(reference, ref_size, c), cut, back @ to_photo.T))
    out: list[Polygon | None] = []
    for i in range(len(reference)):
        polys = [pulled[m[i]] for m, cut, pulled in views if m[i] >= 0 and not cut[m[i]]]
        region = _intersection(polys) if polys else None
        box = inscribed_box(region) if region is not None else None
        out.append(None if box is None else _scaled(box, *scale) @ axes.T)
    return out
