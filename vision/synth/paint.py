"""Paint tile bodies and their shadows onto a :class:`~vision.synth.render.Canvas`.

A tile: its visible sides as two-tone quads (ivory front layer, coloured back layer),
then the big face (art, or the back when face down) warped from its texture with rounded
corners and bevel shading; Lambert light with an ambient term. Shadows: every corner
projected along the light onto the table, blurred, darkening the table only.
"""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from vision.synth.arrange import Placed
from vision.synth.art import ArtSet
from vision.synth.render import Camera, Canvas, apply_affine, bevel, rounded_mask

F32 = npt.NDArray[np.float32]
F64 = npt.NDArray[np.float64]

#: Plain back colours (RGB). No ivory or white: real backs are coloured, and a blank
#: ivory face is a white dragon (白) in many sets.
BACK_COLOURS = ((40, 120, 70), (30, 80, 150), (220, 170, 40), (200, 90, 40), (120, 40, 140),
                (40, 40, 40))
#: A painted back must differ from the set's blank faces by at least this RGB distance.
BLANK_FACE_MARGIN = 80.0


def _middle_colour(picture: npt.NDArray[np.uint8]) -> npt.NDArray[np.float64]:
    """Median RGB of the middle ninth of ``picture`` ``(H, W, 3 or 4)``."""
    h, w = picture.shape[:2]
    mid = picture[h // 3: 2 * h // 3, w // 3: 2 * w // 3, :3].reshape(-1, 3)
    colour: npt.NDArray[np.float64] = np.median(mid, axis=0).astype(np.float64)
    return colour


def _blank_faces(art: ArtSet) -> list[npt.NDArray[np.float64]]:
    """The colours a face-up tile of ``art`` shows when it is blank: the face colour and
    the middle of each white-dragon face."""
    return [np.asarray(art.ivory, np.float64), *map(_middle_colour, art.faces.get("P", []))]


def _clear_of(colour: npt.ArrayLike, blanks: list[npt.NDArray[np.float64]]) -> bool:
    """Whether ``colour`` (RGB) lies at least :data:`BLANK_FACE_MARGIN` from every blank."""
    c = np.asarray(colour, np.float64)
    return min(float(np.linalg.norm(c - b)) for b in blanks) >= BLANK_FACE_MARGIN


def back_colours_for(art: ArtSet) -> list[tuple[int, int, int]]:
    """The :data:`BACK_COLOURS` a face-down tile of ``art`` may be painted in: those at
    least :data:`BLANK_FACE_MARGIN` (RGB distance) from the set's face colour and from the
    middle of each of its white-dragon faces. A face-down tile never looks like a face-up
    blank 白 on a real table; a green back on a jade set or a black back on a set whose 白
    is dark would teach the classifier that they are one tile."""
    blanks = _blank_faces(art)
    return [c for c in BACK_COLOURS if _clear_of(c, blanks)] or list(BACK_COLOURS)


def back_picture_for(art: ArtSet) -> npt.NDArray[np.uint8] | None:
    """The set's own back picture, unless its middle looks like one of the set's blank
    faces (fluffy's dark back beside the dark white dragon of its Black body)."""
    if art.back is None:
        return None
    return art.back if _clear_of(_middle_colour(art.back), _blank_faces(art)) else None


def _texture_for(art: ArtSet, p: Placed, rng: np.random.Generator, back: F32 | None,
                 back_colour: tuple[int, int, int], target_h: int,
                 cache: dict[Any, F32]) -> F32:
    """The texture of the tile's visible big face, resized near ``target_h`` px."""
    if p.box.face_down:
        key: Any = ("back",)
        if key not in cache:
            if back is not None:
                tex = back
            else:
                tex = np.empty((160, 120, 3), np.float32)
                tex[:] = back_colour
                tex += rng.standard_normal((160, 120, 1)).astype(np.float32) * 3
            cache[key] = tex
        src = cache[key]
    else:
        variants = art.faces[p.box.code]
        vi = int(rng.integers(0, len(variants)))
        key = (p.box.code, vi)
        if key not in cache:
            cache[key] = variants[vi].astype(np.float32)
        src = cache[key]
    th = max(8, min(src.shape[0], target_h))
    if th == src.shape[0]:
        return src
    tw = max(6, round(src.shape[1] * th / src.shape[0]))
    rkey = (key, th)
    if rkey not in cache:
        cache[rkey] = np.asarray(cv2.resize(src, (tw, th), interpolation=cv2.INTER_AREA),
                                 np.float32)
    return cache[rkey]


def paint_all(canvas: Canvas, art: ArtSet, rng: np.random.Generator, placed: list[Placed],
              corners: list[F64], camera: Camera, affine: F64, tile_px: float,
              light: F64) -> None:
    """Paint every tile, far to near (painter's algorithm), with one body style."""
    cam_depth = [float(camera.depth(c.mean(0, keepdims=True))[0]) - 0.01 * placed[i].box.z
                 for i, c in enumerate(corners)]
    order = sorted(range(len(placed)), key=lambda i: -cam_depth[i])
    back_pic = back_picture_for(art)
    back_tex = back_pic.astype(np.float32) if back_pic is not None and rng.random() < 0.5 else None
    backs = back_colours_for(art)
    back_colour = backs[int(rng.integers(0, len(backs)))]
    ivory = np.array(art.ivory, np.float32) * rng.uniform(0.92, 1.02)
    two_tone = rng.random() < 0.6
    split = rng.uniform(0.45, 0.7)
    tex_h = int(np.clip(tile_px * 1.6, 16, 160))
    tex_cache: dict[Any, F32] = {}
    masks: dict[tuple[int, int], tuple[F32, F32]] = {}
    ambient = rng.uniform(0.6, 0.85)
    for i in order:
        _paint_tile(canvas, i, placed[i], corners[i], camera, affine, light, ambient,
                    _texture_for(art, placed[i], rng, back_tex, back_colour, tex_h, tex_cache),
                    masks, ivory, np.array(back_colour, np.float32), two_tone, split, rng)


def shadows(bg: F32, placed: list[Placed], corners: list[F64], camera: Camera, affine: F64,
             light: F64, rng: np.random.Generator) -> F32:
    """Darken the table under and beside each tile (cast shadow plus contact shadow)."""
    h, w = bg.shape[:2]
    mask = np.zeros((h, w), np.float32)
    lz = float(light[2])
    for c in corners:
        # project every corner along the light onto the table (z = 0)
        t = c[:, 2] / max(lz, 1e-3)
        shadow = c - np.outer(t, light)
        pts = apply_affine(affine, camera.project(np.vstack([shadow, c[c[:, 2] < 1e-6]])))
        hull = cv2.convexHull(np.round(pts * 4).astype(np.int32))
        cv2.fillConvexPoly(mask, hull, 1.0, lineType=cv2.LINE_AA, shift=2)
    tile_px = max(2.0, float(np.median([np.ptp(apply_affine(affine, camera.project(c))[:, 1])
                                        for c in corners])))
    mask = np.asarray(cv2.GaussianBlur(mask, (0, 0), max(0.8, tile_px * rng.uniform(0.03, 0.12))),
                      np.float32)
    strength = rng.uniform(0.25, 0.6)
    return bg * (1 - strength * np.clip(mask, 0, 1))[..., None]


def _paint_tile(canvas: Canvas, tile_id: int, p: Placed, corners: F64, camera: Camera,
                affine: F64, light: F64, ambient: float, texture: F32,
                masks: dict[tuple[int, int], tuple[F32, F32]], ivory: F32, back_colour: F32,
                two_tone: bool, split: float, rng: np.random.Generator) -> None:
    """Paint one tile box: visible sides (two-tone body), then the textured big face."""
    face, back = corners[:4], corners[4:]
    u, v, n = p.box.axes()
    px = apply_affine(affine, camera.project(corners))
    fpx, bpx = px[:4], px[4:]

    def lit(normal: F64) -> float:
        return float(ambient + (1 - ambient) * max(0.0, float(normal @ light)))

    def visible(normal: F64, centre: F64) -> bool:
        return float(normal @ (camera.position - centre)) > 0

    layer_col = back_colour if two_tone else ivory
    # four sides: quads between face edge i->i+1 and back edge
    side_normals = [v, u, -v, -u]  # edges TL-TR (top), TR-BR (right), BR-BL, BL-TL
    for k in range(4):
        a, b = k, (k + 1) % 4
        centre = (face[a] + face[b] + back[a] + back[b]) / 4
        normal = side_normals[k]
        if not visible(normal, centre):
            continue
        shade = lit(normal)
        mid_a = fpx[a] + (bpx[a] - fpx[a]) * split
        mid_b = fpx[b] + (bpx[b] - fpx[b]) * split
        canvas.paint_polygon(np.stack([fpx[a], fpx[b], mid_b, mid_a]), ivory * shade * 0.97,
                             tile_id)
        canvas.paint_polygon(np.stack([mid_a, mid_b, bpx[b], bpx[a]]), layer_col * shade * 0.95,
                             tile_id)
    # big faces: the art face (n) and the back (-n)
    face_centre = face.mean(0)
    if visible(n, face_centre) and not p.box.face_down:
        _paint_big(canvas, tile_id, fpx, texture, masks, lit(n), n[2] > 0.5, rng)
    back_centre = back.mean(0)
    if visible(-n, back_centre):
        if p.box.face_down:
            # seen from the back: texture corners follow the back's own orientation
            quad = np.stack([bpx[1], bpx[0], bpx[3], bpx[2]])
            _paint_big(canvas, tile_id, quad, texture, masks, lit(-n), -n[2] > 0.5, rng)
        else:
            canvas.paint_polygon(bpx, layer_col * lit(-n), tile_id)


def _paint_big(canvas: Canvas, tile_id: int, quad: F64, texture: F32,
               masks: dict[tuple[int, int], tuple[F32, F32]], shade: float, top: bool,
               rng: np.random.Generator) -> None:
    th, tw = texture.shape[:2]
    key = (th, tw)
    if key not in masks:
        masks[key] = (rounded_mask(th, tw, min(th, tw) * 0.1),
                      bevel(th, tw, min(th, tw) * 0.05, 0.3))
    alpha, bev = masks[key]
    canvas.paint_texture(quad, texture * (shade * bev)[..., None], alpha, 1.0, tile_id, top)
