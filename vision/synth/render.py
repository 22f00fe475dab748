"""Draw 3D tile bodies on a table image with a pinhole camera.

World frame (millimetres): the table is the plane ``z = 0``; ``x`` to the player's
right, ``y`` away from the player, ``z`` up. A tile is a box ``W x H x D`` (face width,
face height, thickness). Its local axes: ``u`` (glyph right), ``v`` (glyph up) and
``n`` (out of the face); the box spans ``u in [-W/2, W/2]``, ``v in [-H/2, H/2]``,
``n in [-D, 0]`` around the face centre.

Projection: ``camera.project`` maps world points to normalised image coordinates;
a 2x3 similarity ``A`` (zoom, camera roll, principal point shift) then maps them to
pixels. Tiles are painted far to near (painter's algorithm) with back-face culling.
Rotation labels are read from the projected glyph-up vector, so they agree with what
the image shows, whatever the camera did.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np
import numpy.typing as npt

F32 = npt.NDArray[np.float32]
F64 = npt.NDArray[np.float64]
U8 = npt.NDArray[np.uint8]


@dataclass
class TileBox:
    """One tile in the world.

    ``yaw`` (degrees, counter-clockwise seen from above) turns the glyph-up direction
    from ``+y``; ``z`` is the height of the tile's lowest face above the table;
    ``standing`` stands the tile on its bottom edge with the face towards ``-y``
    (before yaw); ``face_down`` lays it on its face (the back is up).
    """

    code: str
    x: float
    y: float
    yaw: float = 0.0
    z: float = 0.0
    face_down: bool = False
    standing: bool = False

    def axes(self) -> tuple[F64, F64, F64]:
        """Unit vectors ``u, v, n`` of the tile in world coordinates."""
        c, s = math.cos(math.radians(self.yaw)), math.sin(math.radians(self.yaw))
        fwd = np.array([-s, c, 0.0])  # +y turned by yaw
        up = np.array([0.0, 0.0, 1.0])
        if self.standing:
            v, n = up, -fwd
        elif self.face_down:
            v, n = fwd, -up
        else:
            v, n = fwd, up
        u = np.cross(v, n)
        return u, v, n

    def corners(self, w: float, h: float, d: float) -> tuple[F64, F64]:
        """World corners: ``face`` (4, 3) in texture order TL, TR, BR, BL, and ``back``
        (4, 3) the same corners moved ``d`` behind the face."""
        u, v, n = self.axes()
        if self.standing:
            centre = np.array([self.x, self.y, self.z + h / 2]) + n * (d / 2)
        elif self.face_down:
            centre = np.array([self.x, self.y, self.z])
        else:
            centre = np.array([self.x, self.y, self.z + d])
        hw, hh = w / 2, h / 2
        face = np.stack([centre - u * hw + v * hh, centre + u * hw + v * hh,
                         centre + u * hw - v * hh, centre - u * hw - v * hh])
        back = face - n * d
        return face, back


@dataclass
class Camera:
    """Pinhole camera at ``position`` looking at ``target``; image ``x`` right, ``y`` down.

    ``project`` returns normalised coordinates (focal length 1, principal point 0).
    """

    position: F64
    target: F64
    rot: F64 = field(init=False)

    def __post_init__(self) -> None:
        fwd = self.target - self.position
        fwd = fwd / np.linalg.norm(fwd)
        # Image "up" follows world +y (far side of the table at the top of the image).
        up_hint = np.array([0.0, 1.0, 0.0])
        right = np.cross(fwd, up_hint)
        if np.linalg.norm(right) < 1e-6:
            right = np.array([1.0, 0.0, 0.0])
        right /= np.linalg.norm(right)
        down = np.cross(fwd, right)
        self.rot = np.stack([right, down, fwd])  # rows: camera x, y, z in world

    def to_camera(self, pts: F64) -> F64:
        return (np.asarray(pts, np.float64) - self.position) @ self.rot.T

    def project(self, pts: F64) -> F64:
        """World points ``(n, 3)`` → normalised image points ``(n, 2)``."""
        c = self.to_camera(pts)
        z = np.maximum(c[:, 2:3], 1e-6)
        return c[:, :2] / z

    def depth(self, pts: F64) -> F64:
        return self.to_camera(pts)[:, 2]


def apply_affine(a: F64, pts: F64) -> F64:
    """Apply a 2x3 affine to points ``(n, 2)``."""
    return pts @ a[:, :2].T + a[:, 2]


def rounded_mask(h: int, w: int, radius: float) -> F32:
    """Float mask ``(h, w)`` of a rectangle with rounded corners (anti-aliased)."""
    m = np.zeros((h * 4, w * 4), np.uint8)
    r = max(1, round(radius * 4))
    cv2.rectangle(m, (r, 0), (w * 4 - 1 - r, h * 4 - 1), 255, -1)
    cv2.rectangle(m, (0, r), (w * 4 - 1, h * 4 - 1 - r), 255, -1)
    for cx, cy in ((r, r), (w * 4 - 1 - r, r), (r, h * 4 - 1 - r), (w * 4 - 1 - r, h * 4 - 1 - r)):
        cv2.circle(m, (cx, cy), r, 255, -1)
    return cv2.resize(m, (w, h), interpolation=cv2.INTER_AREA).astype(np.float32) / 255.0


def bevel(h: int, w: int, width: float, depth: float) -> F32:
    """Multiplicative shading ``(h, w)`` darkening a face towards its edges (rounded
    edges of a real tile catch less light)."""
    yy = np.minimum(np.arange(h), np.arange(h)[::-1])[:, None].astype(np.float32)
    xx = np.minimum(np.arange(w), np.arange(w)[::-1])[None, :].astype(np.float32)
    d = np.minimum(yy, xx)
    return (1.0 - depth * np.exp(-d / max(width, 0.5))).astype(np.float32)


class Canvas:
    """An RGB float image being painted, with a tile-index map and a tile-top mask.

    ``image``: ``(H, W, 3)`` float32 0..255. ``index``: ``(H, W)`` int32, the tile id
    that painted each pixel last (``-1`` for the table). ``tops``: ``(H, W)`` float32,
    coverage of tile faces that point up (for glare).
    """

    def __init__(self, background: F32) -> None:
        self.image = background.astype(np.float32)
        h, w = self.image.shape[:2]
        self.index = np.full((h, w), -1, np.int32)
        self.tops = np.zeros((h, w), np.float32)

    @property
    def size(self) -> tuple[int, int]:
        return self.image.shape[1], self.image.shape[0]

    def paint_texture(self, quad: F64, texture: F32, alpha: F32, shade: float | F32,
                      tile_id: int, top: bool) -> None:
        """Warp ``texture`` (th, tw, 3) with coverage ``alpha`` (th, tw) onto ``quad``
        (4, 2 pixel corners TL, TR, BR, BL), multiplied by ``shade``."""
        w_img, h_img = self.size
        x0 = max(0, math.floor(quad[:, 0].min()) - 1)
        y0 = max(0, math.floor(quad[:, 1].min()) - 1)
        x1 = min(w_img, math.ceil(quad[:, 0].max()) + 2)
        y1 = min(h_img, math.ceil(quad[:, 1].max()) + 2)
        if x1 <= x0 or y1 <= y0:
            return
        th, tw = texture.shape[:2]
        src = np.array([[0, 0], [tw, 0], [tw, th], [0, th]], np.float32)
        dst = (quad - [x0, y0]).astype(np.float32)
        m = cv2.getPerspectiveTransform(src, dst)
        size = (x1 - x0, y1 - y0)
        rgba = np.dstack([texture, alpha])
        warped = cv2.warpPerspective(rgba, m, size, flags=cv2.INTER_LINEAR,
                                     borderMode=cv2.BORDER_CONSTANT, borderValue=0)
        a = warped[..., 3:4]
        roi = self.image[y0:y1, x0:x1]
        col = warped[..., :3] * shade
        roi[:] = roi * (1 - a) + col * a
        hit = a[..., 0] > 0.5
        self.index[y0:y1, x0:x1][hit] = tile_id
        if top:
            t = self.tops[y0:y1, x0:x1]
            t[:] = np.maximum(t * (1 - a[..., 0]), a[..., 0])
        elif hit.any():
            self.tops[y0:y1, x0:x1][hit] = 0

    def paint_polygon(self, poly: F64, colour: npt.ArrayLike, tile_id: int) -> None:
        """Fill a convex polygon (k, 2) with a flat colour (anti-aliased edges)."""
        w_img, h_img = self.size
        x0 = max(0, math.floor(poly[:, 0].min()) - 1)
        y0 = max(0, math.floor(poly[:, 1].min()) - 1)
        x1 = min(w_img, math.ceil(poly[:, 0].max()) + 2)
        y1 = min(h_img, math.ceil(poly[:, 1].max()) + 2)
        if x1 <= x0 or y1 <= y0:
            return
        mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
        pts = np.round((poly - [x0, y0]) * 16).astype(np.int32)
        cv2.fillConvexPoly(mask, pts, 255, lineType=cv2.LINE_AA, shift=4)
        a = (mask.astype(np.float32) / 255.0)[..., None]
        roi = self.image[y0:y1, x0:x1]
        roi[:] = roi * (1 - a) + np.asarray(colour, np.float32) * a
        hit = a[..., 0] > 0.5
        self.index[y0:y1, x0:x1][hit] = tile_id
        self.tops[y0:y1, x0:x1][hit] = 0
