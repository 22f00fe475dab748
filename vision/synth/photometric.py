"""Table surfaces and camera/lighting effects. Never flips or mirrors anything.

Surfaces are drawn in table coordinates (then warped by the scene's perspective);
effects work on the finished RGB float image ``(H, W, 3)`` with values 0..255.
"""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt

F32 = npt.NDArray[np.float32]
U8 = npt.NDArray[np.uint8]

SURFACES = ("felt", "wood", "laminate", "cloth", "plain")


def _noise(rng: np.random.Generator, h: int, w: int, scale: float) -> F32:
    """Smooth noise ``(h, w)`` in about -1..1 with features ``scale`` pixels wide."""
    sh, sw = max(2, int(h / scale) + 2), max(2, int(w / scale) + 2)
    small = rng.standard_normal((sh, sw)).astype(np.float32)
    return np.asarray(cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC), np.float32)


def surface(rng: np.random.Generator, size: int, kind: str | None = None) -> tuple[F32, str]:
    """A square table texture ``(size, size, 3)`` float32 RGB and its kind."""
    kind = kind or str(rng.choice(SURFACES, p=[0.3, 0.25, 0.2, 0.1, 0.15]))
    h = w = size
    if kind == "felt":
        base = np.array(
            [(40, 120, 60), (30, 100, 80), (30, 70, 130), (120, 30, 40), (60, 60, 60),
             (70, 150, 80), (20, 90, 60)][int(rng.integers(0, 7))], np.float32)
        base = base * rng.uniform(0.8, 1.2)
        grain = rng.standard_normal((h, w)).astype(np.float32) * rng.uniform(4, 12)
        weave = np.zeros((h, w), np.float32)
        if rng.random() < 0.5:  # woven mat texture like many automatic tables
            p = rng.uniform(3, 7)
            yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
            weave = (np.sin(xx * 2 * np.pi / p) * np.sin(yy * 2 * np.pi / p)) * rng.uniform(5, 15)
        img = base[None, None, :] + (grain + weave + _noise(rng, h, w, 80) * 10)[..., None]
    elif kind in ("wood", "laminate"):
        light = kind == "laminate"
        base = (np.array([222, 214, 208], np.float32) * rng.uniform(0.8, 1.08) if light
                else np.array([196, 150, 100], np.float32) * rng.uniform(0.6, 1.15))
        # Grain: noise stretched along the boards, fine streaks plus broad bands.
        fine = np.asarray(cv2.resize(rng.standard_normal((h, max(2, w // 24))).astype(np.float32),
                                     (w, h), interpolation=cv2.INTER_LINEAR), np.float32)
        fine = fine + 0.5 * cv2.resize(rng.standard_normal((h, max(2, w // 4))).astype(np.float32),
                                 (w, h), interpolation=cv2.INTER_LINEAR)
        broad = cv2.resize(rng.standard_normal((max(2, h // 12), max(2, w // 150)))
                           .astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
        amp = rng.uniform(3, 8) if light else rng.uniform(6, 16)
        shade = fine * amp + broad * amp * 1.5 + _noise(rng, h, w, 90) * amp * 0.6
        img = base[None, None, :] + shade[..., None] * np.array([1.0, 0.92, 0.8], np.float32)
        if rng.random() < 0.4:  # board seams
            step = int(rng.integers(60, 200))
            off = int(rng.integers(0, step))
            img[off::step, :, :] *= 0.75
        if rng.random() < 0.5:
            img = np.ascontiguousarray(np.transpose(img, (1, 0, 2)))
    elif kind == "cloth":
        c1 = rng.uniform(40, 230, 3).astype(np.float32)
        c2 = rng.uniform(40, 230, 3).astype(np.float32)
        p = rng.uniform(20, 80)
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        if rng.random() < 0.5:
            m = ((xx // p + yy // p) % 2).astype(np.float32)
        else:
            m = ((xx // p) % 2).astype(np.float32)
        m = cv2.GaussianBlur(m, (0, 0), 1.0)[..., None]
        img = c1 * (1 - m) + c2 * m + _noise(rng, h, w, 3)[..., None] * 6
    else:  # plain: white/grey desk or paper
        base = (rng.uniform(150, 245) + rng.uniform(-8, 8, 3)).astype(np.float32)
        img = base[None, None, :] + _noise(rng, h, w, 100)[..., None] * rng.uniform(1, 5)
        img = img + rng.standard_normal((h, w, 1)).astype(np.float32) * 2
    return np.clip(img, 0, 255).astype(np.float32), kind


def with_table_edge(rng: np.random.Generator, tex: F32, edge: float, side: int) -> F32:
    """Replace the part of a square texture beyond ``edge`` (0..1 across the texture,
    measured from ``side``: 0 bottom, 1 right, 2 top, 3 left) by a wooden frame strip and
    another surface (the floor or the table's rim), as photos of a table's edge show."""
    size = tex.shape[0]
    frame, _ = surface(rng, size, "wood")
    beyond, _ = surface(rng, size, str(rng.choice(["wood", "plain", "laminate"])))
    out = np.rot90(tex, side).copy()  # work with the edge at the bottom
    frame_r = np.rot90(frame, side)
    beyond_r = np.rot90(beyond, side)
    r0 = int(np.clip(edge, 0.05, 0.98) * size)
    width = int(rng.uniform(0.03, 0.12) * size)
    out[r0 : r0 + width] = frame_r[r0 : r0 + width] * rng.uniform(0.8, 1.1)
    out[r0 + width :] = beyond_r[r0 + width :] * rng.uniform(0.4, 0.9)
    return np.ascontiguousarray(np.rot90(out, -side))


def clutter(rng: np.random.Generator, img: F32, tiles: list[npt.NDArray[np.float64]]) -> F32:
    """Things that are not tiles lying on the table (a phone, a remote, chips, coins,
    paper), drawn where no tile is: flat shapes with a soft shadow. ``tiles`` are each
    tile's projected corners in pixels ``(8, 2)``, kept clear."""
    h, w = img.shape[:2]
    busy = np.zeros((h, w), np.uint8)
    for c in tiles:
        hull = cv2.convexHull(np.round(c).astype(np.int32))
        cv2.fillConvexPoly(busy, hull, 1)
    busy = np.asarray(cv2.dilate(busy, np.ones((9, 9), np.uint8)), np.uint8)
    out: npt.NDArray[np.floating] = img.copy()
    for _ in range(int(rng.integers(1, 4))):
        shape = np.zeros((h, w), np.uint8)
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        size = rng.uniform(0.04, 0.25) * min(h, w)
        kind = rng.random()
        if kind < 0.4:  # rounded rectangle: phone, remote, box
            rect = ((cx, cy), (size, size * rng.uniform(0.3, 2.5)), rng.uniform(0, 180))
            pts = cv2.boxPoints(rect).astype(np.int32)
            cv2.fillConvexPoly(shape, pts, 1, lineType=cv2.LINE_AA)
        elif kind < 0.75:  # disc: coin, chip, cup seen from above
            cv2.circle(shape, (int(cx), int(cy)), max(2, int(size / 2)), 1, -1, cv2.LINE_AA)
        else:  # thin stick: scoring stick, pen
            rect = ((cx, cy), (size * 2, max(2.0, size * 0.08)), rng.uniform(0, 180))
            cv2.fillConvexPoly(shape, cv2.boxPoints(rect).astype(np.int32), 1, lineType=cv2.LINE_AA)
        shape[busy > 0] = 0
        if not shape.any():
            continue
        m = shape.astype(np.float32)
        shadow = cv2.GaussianBlur(np.roll(m, (3, 3), (0, 1)), (0, 0), 3)
        out *= (1 - 0.35 * shadow)[..., None]
        colour = rng.uniform(10, 245, 3).astype(np.float32)
        shade = 1 + _noise(rng, h, w, max(4.0, size / 2)) * 0.08
        out = out * (1 - m[..., None]) + (colour[None, None, :] * shade[..., None]) * m[..., None]
    return np.asarray(out, np.float32)


def lighting(rng: np.random.Generator, img: F32) -> F32:
    """Uneven illumination: a linear ramp and a vignette, plus a colour cast."""
    h, w = img.shape[:2]
    yy = np.arange(h, dtype=np.float32)[:, None]  # broadcast instead of full grids
    xx = np.arange(w, dtype=np.float32)[None, :]
    ang = rng.uniform(0, 2 * np.pi)
    ramp = ((xx / w - 0.5) * np.cos(ang) + (yy / h - 0.5) * np.sin(ang)) * rng.uniform(0, 0.5)
    r2 = ((xx / w - 0.5) ** 2 + (yy / h - 0.5) ** 2) * 2
    vig = 1 - r2 * rng.uniform(0, 0.35)
    gain = (1 + ramp) * vig * rng.uniform(0.8, 1.2)
    cast = np.array([rng.uniform(0.9, 1.1), 1.0, rng.uniform(0.88, 1.1)], np.float32)
    return np.asarray(img * gain[..., None] * cast, np.float32)


def glare(rng: np.random.Generator, img: F32, tops: F32, tile_px: float) -> F32:
    """Specular spots on glossy tile faces: soft white blobs where ``tops`` (coverage of
    upward faces, ``(H, W)`` 0..1) is set."""
    h, w = img.shape[:2]
    out = img
    for _ in range(int(rng.integers(1, 4))):
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        sx = rng.uniform(0.3, 3.0) * tile_px
        sy = sx * rng.uniform(0.3, 1.5)
        yy, xx = np.ogrid[0:h, 0:w]
        blob = np.exp(-(((xx - cx) / sx) ** 2 + ((yy - cy) / sy) ** 2)).astype(np.float32)
        k = blob * tops * rng.uniform(60, 200)
        out = out + k[..., None]
    return out


def camera_effects(rng: np.random.Generator, img: F32) -> F32:
    """Defocus or motion blur, then sensor noise."""
    r = rng.random()
    if r < 0.35:
        img = np.asarray(cv2.GaussianBlur(img, (0, 0), rng.uniform(0.4, 1.6)), np.float32)
    elif r < 0.5:
        n = int(rng.integers(3, 8))
        k = np.zeros((n, n), np.float32)
        k[n // 2, :] = 1.0 / n
        m = cv2.getRotationMatrix2D(((n - 1) / 2, (n - 1) / 2), rng.uniform(0, 180), 1.0)
        k = np.asarray(cv2.warpAffine(k, m, (n, n)), np.float32)
        k /= max(float(k.sum()), 1e-6)
        img = np.asarray(cv2.filter2D(img, -1, k), np.float32)
    sigma = rng.uniform(0, 6)
    if sigma > 0.5:
        img = img + rng.standard_normal(img.shape).astype(np.float32) * sigma
    return img


def to_uint8(img: F32) -> U8:
    out: U8 = np.clip(img + 0.5, 0, 255).astype(np.uint8)
    return out
