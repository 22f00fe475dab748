"""Box geometry for the layout step: a canonical frame where rows run left to right.

A photo may be taken from any side and at any tilt. This module turns the detector's
axis-aligned boxes into a *canonical frame*: rows horizontal, tiles of the nearest
player's rows standing upright (rotation 0), rows of the player across the table at
rotation 180. It then links tiles into rows by box overlap and finds tiles stacked on
a sideways tile (an added kong, 加杠).

All lengths are pixels of the original image unless stated otherwise; gaps are also
given in *tile widths* (divided by the short side of the tiles around them).

>>> import numpy as np
>>> boxes = np.array([[0, 0, 10, 14], [10, 0, 20, 14], [20, 0, 30, 14]], np.float32)
>>> g = canonical_frame(boxes, np.array([0, 0, 0]))
>>> g.frame_rotation, abs(round(g.tilt_deg, 1))
(0, 0.0)
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

Array = npt.NDArray[np.float64]


@dataclass(frozen=True)
class Frame:
    """Tiles in the canonical frame (arrays of shape (n,), pixels; n = number of tiles).

    ``cx, cy``: box centres after turning and de-tilting the image (y grows towards the
    nearest player). ``w, h``: the tile's extent along and across the rows.
    ``rotation``: how the tile lies relative to the rows (0 upright, 90/270 sideways,
    180 upside down). ``frame_rotation``: the image rotation (0/90/180/270) that made
    the rows horizontal; ``tilt_deg``: the residual tilt removed, in degrees.
    """

    cx: Array
    cy: Array
    w: Array
    h: Array
    rotation: npt.NDArray[np.int64]
    frame_rotation: int
    tilt_deg: float

    @property
    def short_side(self) -> Array:
        """Tile width along the row for upright tiles: min(w, h) of each box, pixels."""
        return np.minimum(self.w, self.h)

    def x1(self) -> Array:
        return self.cx - self.w / 2

    def x2(self) -> Array:
        return self.cx + self.w / 2

    def y1(self) -> Array:
        return self.cy - self.h / 2

    def y2(self) -> Array:
        return self.cy + self.h / 2

    def take(self, idx: list[int]) -> Frame:
        """The frame of the tiles ``idx`` alone (in that order; index ``k`` of the result
        is tile ``idx[k]``), with the same turn and tilt."""
        return Frame(self.cx[idx], self.cy[idx], self.w[idx], self.h[idx],
                     self.rotation[idx], self.frame_rotation, self.tilt_deg)


def _axis_angle(vx: Array, vy: Array) -> float:
    """Dominant axis direction (radians, in (-pi/2, pi/2]) of undirected vectors: the
    peak of a smoothed histogram of their angles (5° bins), refined by the mean of the
    vectors within 12° of it. Robust to other tiles in the picture (discards in a grid,
    a wall at another angle) as long as the hand's rows give the most vectors."""
    if len(vx) == 0:
        return 0.0
    ang = np.arctan2(vy, vx) % math.pi  # undirected: 0..pi
    bins = 36
    hist = np.bincount((ang / math.pi * bins).astype(np.int64) % bins, minlength=bins)
    smooth = hist + 0.5 * (np.roll(hist, 1) + np.roll(hist, -1))
    peak = (int(np.argmax(smooth)) + 0.5) * math.pi / bins
    diff = np.abs((ang - peak + math.pi / 2) % math.pi - math.pi / 2)
    keep = diff < math.radians(12)
    c, s = np.cos(2 * ang[keep]), np.sin(2 * ang[keep])
    mean = math.atan2(float(s.sum()), float(c.sum())) / 2
    return mean - math.pi if mean > math.pi / 2 else mean


def _neighbour_vectors(cx: Array, cy: Array) -> tuple[Array, Array]:
    """Vector from each tile centre to its nearest neighbour's centre."""
    n = len(cx)
    if n < 2:
        return np.zeros(0), np.zeros(0)
    dx = cx[None, :] - cx[:, None]
    dy = cy[None, :] - cy[:, None]
    d = dx * dx + dy * dy
    np.fill_diagonal(d, np.inf)
    j = d.argmin(axis=1)
    idx = np.arange(n)
    return dx[idx, j], dy[idx, j]


def canonical_frame(
    boxes: npt.ArrayLike, rotations: npt.ArrayLike, weights: npt.ArrayLike | None = None
) -> Frame:
    """Turn boxes (n, 4) xyxy and the detector's rotations (n,) into the canonical frame.

    The row direction comes from nearest-neighbour vectors (tiles of a row touch); when
    rows run up-down in the image, the image is turned by 90° or 270° — whichever most
    tiles' rotations agree with, each tile counted with its ``weights`` entry (how sure
    it is of its rotation against the opposite one; 1 each by default) — so that those
    tiles stand upright.
    """
    b = np.asarray(boxes, np.float64).reshape(-1, 4)
    rot = np.asarray(rotations, np.int64).reshape(-1)
    w8 = np.ones(len(rot)) if weights is None else np.asarray(weights, np.float64).reshape(-1)
    cx = (b[:, 0] + b[:, 2]) / 2
    cy = (b[:, 1] + b[:, 3]) / 2
    bw = b[:, 2] - b[:, 0]
    bh = b[:, 3] - b[:, 1]
    vx, vy = _neighbour_vectors(cx, cy)
    angle = _axis_angle(vx, vy)
    frame_rot = 0
    if abs(angle) > math.pi / 4:
        n90 = float(w8[rot == 90].sum())
        n270 = float(w8[rot == 270].sum())
        frame_rot = 270 if n270 > n90 else 90
    if frame_rot == 90:  # tile tops point to +x: turn the picture counter-clockwise
        cx, cy, bw, bh = cy.copy(), -cx, bh, bw
        vx, vy = vy, -vx
    elif frame_rot == 270:  # tile tops point to -x: turn clockwise
        cx, cy, bw, bh = -cy, cx.copy(), bh, bw
        vx, vy = -vy, vx
    tilt = _axis_angle(vx, vy) if len(vx) else 0.0
    if abs(tilt) > math.radians(1):
        c, s = math.cos(-tilt), math.sin(-tilt)
        cx, cy = c * cx - s * cy, s * cx + c * cy
        # Axis-aligned boxes of tilted tiles are inflated; recover the tile's own sides.
        ca, sa = math.cos(abs(tilt)), math.sin(abs(tilt))
        den = ca * ca - sa * sa
        if den > 0.35:
            w = (bw * ca - bh * sa) / den
            h = (bh * ca - bw * sa) / den
            ok = (w > 0.2 * bw) & (h > 0.2 * bh)
            bw = np.where(ok, w, bw)
            bh = np.where(ok, h, bh)
    # rotation relative to the rows: the detector's rotation is the tile's angle in the
    # image rounded to 90°; the rows' own angle is frame_rot + tilt, known more finely
    tilt_deg = math.degrees(tilt)
    rel = (np.round((rot - frame_rot - tilt_deg) / 90.0).astype(np.int64) * 90) % 360
    return Frame(cx, cy, bw, bh, rel, frame_rot, tilt_deg)


class _Union:
    def __init__(self, n: int) -> None:
        self.parent = list(range(n))

    def find(self, i: int) -> int:
        while self.parent[i] != i:
            self.parent[i] = self.parent[self.parent[i]]
            i = self.parent[i]
        return i

    def union(self, i: int, j: int) -> None:
        ri, rj = self.find(i), self.find(j)
        if ri != rj:
            self.parent[max(ri, rj)] = min(ri, rj)


def link_rows(f: Frame, max_gap: float = 3.0, min_overlap: float = 0.5) -> list[list[int]]:
    """Group tiles into rows: two tiles share a row when their extents across the row
    overlap by ``min_overlap`` of the smaller one and the gap between them along the
    row is at most ``max_gap`` tile widths. Rows are returned far to near (by ``cy``),
    each sorted along the row (by ``cx``)."""
    n = len(f.cx)
    x1, x2, y1, y2 = f.x1(), f.x2(), f.y1(), f.y2()
    short = f.short_side
    overlap = np.minimum(y2[:, None], y2[None, :]) - np.maximum(y1[:, None], y1[None, :])
    gap = np.maximum(x1[None, :] - x2[:, None], x1[:, None] - x2[None, :])
    linked = (overlap >= min_overlap * np.minimum(f.h[:, None], f.h[None, :])) & (
        gap <= max_gap * (short[:, None] + short[None, :]) / 2
    )
    uf = _Union(n)
    for i, j in zip(*np.nonzero(np.triu(linked, 1)), strict=True):
        uf.union(int(i), int(j))
    comps: dict[int, list[int]] = {}
    for i in range(n):
        comps.setdefault(uf.find(i), []).append(i)
    cx = f.cx.tolist()
    cy = f.cy.tolist()
    rows = [sorted(c, key=lambda k: cx[k]) for c in comps.values()]
    rows.sort(key=lambda r: sorted(cy[k] for k in r)[len(r) // 2])
    return rows


def row_spread(f: Frame, row: list[int]) -> float:
    """How far the tiles ``row`` lie off one straight line: the range of their centres'
    distances across the rows from the least-squares line through those centres, in tile
    heights (the median long side of their boxes). 0 for fewer than three tiles.

    A row of a hand lies in a band about one tile high whatever its slant against the
    picture's other rows (a sideways tile lies along the near edge, an eighth of a tile
    off its neighbours' centres); tiles heaped together, each overlapping the next by
    half a tile across the rows, are chained by :func:`link_rows` into one "row" that
    spreads over several tile heights.

    >>> boxes = np.array([[x, 0.2 * x, x + 10, 0.2 * x + 14] for x in (0, 10, 20, 30)],
    ...                  np.float32)  # a straight row, slanted against the frame
    >>> f = Frame(*((boxes[:, 0] + boxes[:, 2]) / 2, (boxes[:, 1] + boxes[:, 3]) / 2),
    ...           np.full(4, 10.0), np.full(4, 14.0), np.zeros(4, np.int64), 0, 0.0)
    >>> round(row_spread(f, [0, 1, 2, 3]), 3)
    0.0
    >>> f.cy[[1, 2]] += 14  # the middle two a whole tile height further across
    >>> round(row_spread(f, [0, 1, 2, 3]), 3)
    1.0
    """
    if len(row) < 3:
        return 0.0
    x = f.cx[row] - f.cx[row].mean()
    y = f.cy[row] - f.cy[row].mean()
    sxx = float((x * x).sum())
    slope = float((x * y).sum()) / sxx if sxx > 0 else 0.0
    across = y - slope * x
    height = statistics.median(np.maximum(f.w[row], f.h[row]).tolist())
    return float((across.max() - across.min()) / max(height, 1e-6))


def stacked_on(f: Frame, top: int, base: int) -> bool:
    """True when tile ``top`` lies on (or right against the far or near side of) tile
    ``base``: they overlap along the row by half the narrower one, and their centres are
    0.4-1.6 tile heights apart across the row."""
    wt, wb = f.w[top], f.w[base]
    ov = min(f.cx[top] + wt / 2, f.cx[base] + wb / 2) - max(f.cx[top] - wt / 2, f.cx[base] - wb / 2)
    if ov < 0.5 * min(wt, wb):
        return False
    dy = abs(f.cy[top] - f.cy[base])
    ref = min(f.h[top], f.h[base])
    on: bool = 0.4 * ref <= dy <= 1.6 * ref
    return on


def pitch_ratios(f: Frame, row: list[int]) -> list[float]:
    """For consecutive tiles of ``row`` (sorted by ``cx``): centre distance divided by the
    mean of their lengths along the row. Touching tiles give a constant of the picture
    (boxes include tile bodies seen at a slant, so it is often below 1)."""
    cx = f.cx[row]
    w = f.w[row]
    ratios: list[float] = ((cx[1:] - cx[:-1]) / ((w[1:] + w[:-1]) / 2)).tolist()
    return ratios


def gaps_along(f: Frame, row: list[int], touching: float | None = None) -> list[float]:
    """Gaps between consecutive tiles of ``row`` (sorted by ``cx``), in tile widths.

    A gap is measured from the centre distance, against what touching tiles there would
    show: the median pitch ratio (:func:`pitch_ratios`) of up to three pairs on each
    side, so perspective that shrinks a row along its length, and boxes inflated by tile
    bodies, do not look like gaps. ``touching``: the picture's ratio for rows too short
    to have their own (default 1.0, boxes that just touch).
    """
    ratios = pitch_ratios(f, row)
    w = f.w[row]
    short = f.short_side[row]
    default = 1.0 if touching is None else touching
    out = []
    for k, r in enumerate(ratios):
        window = ratios[max(0, k - 3) : k] + ratios[k + 1 : k + 4]
        ref = statistics.median(window) if len(window) >= 3 else default
        length = (w[k] + w[k + 1]) / 2
        unit = (short[k] + short[k + 1]) / 2
        out.append(float((r - ref) * length / unit))
    return out
