"""Render one synthetic table photo with its ground truth.

Steps: choose and arrange the tiles (:mod:`vision.synth.arrange`: a ``hand`` scene, one
player's hand laid out for scoring, optionally with other tiles around; or a
``closeup`` of a few random tiles), frame them with a camera (elevation 35-90 degrees,
roll about 0/90/180/270 or any angle, zoom for tile heights of about 20-120 px with
every tile inside the image), draw the table surface in perspective, shadows and
clutter, paint the tiles (:mod:`vision.synth.paint`), apply light and camera effects
(:mod:`vision.synth.photometric`), and record every tile's box, rotation and role.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from vision.classes import BACK, class_id
from vision.synth import photometric
from vision.synth.arrange import Placed, layout_closeup, layout_extras, layout_hand
from vision.synth.art import ArtSet
from vision.synth.hands import (
    SynthHand,
    is_winning,
    near_miss,
    random_hand,
    tile_sort_key,
    waiting_hand,
)
from vision.synth.paint import paint_all, shadows
from vision.synth.render import Camera, Canvas, TileBox, apply_affine

__all__ = ["Placed", "SceneOptions", "SceneResult", "class_of", "layout_closeup",
           "layout_extras", "layout_hand", "render_scene"]

U8 = npt.NDArray[np.uint8]
F32 = npt.NDArray[np.float32]
F64 = npt.NDArray[np.float64]


@dataclass
class SceneOptions:
    """Knobs of :func:`render_scene`. Sizes in pixels."""

    width: int = 640
    height: int = 640
    #: Probability that a scene is a full hand (else a close-up of a few tiles).
    hand_prob: float = 0.75
    #: Probability that a hand scene also shows other tiles (wall, discards, opponent).
    extras_prob: float = 0.35
    min_tile_px: float = 20.0
    max_tile_px: float = 120.0
    #: Probability that a concealed kong is laid as four face-up tiles (0: never, and no
    #: draw is made, so sets made before the option are unchanged).
    face_up_kongs: float = 0.0
    #: Probability that a hand's tiles lying face up are left either way up, each turned
    #: 180° on the table with probability 1/2 — players rarely turn every tile upright
    #: (most of the real photos show such hands). 0: never, and no draw is made.
    turned_hands: float = 0.0
    #: Probability that a hand scene shows a false win claim: one standing tile of the
    #: complete hand swapped so the 14 tiles have no winning shape
    #: (:func:`vision.synth.hands.near_miss`; truth ``wins: false``). 0: never, and no
    #: draw is made.
    near_miss: float = 0.0
    #: Probability that a hand scene shows a hand one tile short, waiting (听): the tile
    #: set apart for the win taken away (:func:`vision.synth.hands.waiting_hand`; truth
    #: ``waiting: true`` with its ``waits``). Drawn after ``near_miss``, so a false claim
    #: may become a hand that is not ready. 0: never, and no draw is made.
    waiting: float = 0.0


@dataclass
class SceneResult:
    """The rendered image ``(H, W, 3)`` uint8 RGB, the tile index map ``(H, W)`` int32
    (tile id painted last, ``-1`` table), and the ground truth ``truth`` (JSON-ready)."""

    image: U8
    index: npt.NDArray[np.int32]
    truth: dict[str, Any] = field(default_factory=dict)


# ------------------------------------------------------------------------- rendering
@dataclass
class _View:
    """How the table is seen: camera, 2x3 pixel affine (zoom, roll, shift) and facts for
    the ground truth."""

    camera: Camera
    affine: F64
    elevation_deg: float
    roll_deg: float
    tile_px: float


def _arrange(art: ArtSet, rng: np.random.Generator, opts: SceneOptions, w: float, h: float
             ) -> tuple[list[Placed], SynthHand | None, str, tuple[float, float]]:
    """Choose the scene and lay its tiles out (mm), centred, slightly turned on the table.
    Also returns the layout's size before the turn (see :func:`_extent`)."""
    hand: SynthHand | None = None
    if rng.random() < opts.hand_prob:
        hand = random_hand(rng, bonus=art.has_bonus, face_up_kongs=opts.face_up_kongs)
        if opts.near_miss > 0 and rng.random() < opts.near_miss:
            hand = near_miss(rng, hand)
        if opts.waiting > 0 and rng.random() < opts.waiting:
            hand = waiting_hand(hand)
        placed, arrangement = layout_hand(hand, rng, w, h)
        if rng.random() < 0.1:  # some players keep the standing row upright on its edge
            for p in placed:
                if p.role in ("standing", "winning") and not p.box.face_down:
                    p.box.standing = True
        if opts.turned_hands > 0 and rng.random() < opts.turned_hands:
            turn_either_way(placed, rng)
        if rng.random() < opts.extras_prob:
            xs = [p.box.x for p in placed]
            ys = [p.box.y for p in placed]
            placed += layout_extras(rng, art, w, h, (min(xs), min(ys), max(xs), max(ys)),
                                    on_table=[p.box.code for p in placed])
    else:
        placed = layout_closeup(rng, art, w, h)
        arrangement = "closeup"
    size = _extent(placed)
    ang = math.radians(rng.normal(0, 6))
    ca, sa = math.cos(ang), math.sin(ang)
    pxs = np.array([p.box.x for p in placed])
    pys = np.array([p.box.y for p in placed])
    mx, my = (pxs.min() + pxs.max()) / 2, (pys.min() + pys.max()) / 2
    for p in placed:
        dx, dy = p.box.x - mx, p.box.y - my
        p.box.x, p.box.y = dx * ca - dy * sa, dx * sa + dy * ca
        p.box.yaw += math.degrees(ang)
    return placed, hand, arrangement, size


def turn_either_way(placed: list[Placed], rng: np.random.Generator) -> None:
    """Turn each face-up tile lying on the table 180° with probability 1/2, in place: a
    hand as players leave it. Tiles standing on edge (they face their player) and
    face-down tiles (no glyph) keep their yaw; a sideways tile stays sideways."""
    for p in placed:
        if p.box.face_down or p.box.standing:
            continue
        if rng.random() < 0.5:
            p.box.yaw += 180.0


def _extent(placed: list[Placed]) -> tuple[float, float]:
    """Size of the layout (mm): the larger side of its centres' bounding box, and the
    largest distance of a centre from the layout's middle along x or y."""
    xs = np.array([p.box.x for p in placed])
    ys = np.array([p.box.y for p in placed])
    side = float(max(np.ptp(xs), np.ptp(ys)))
    mx, my = (xs.min() + xs.max()) / 2, (ys.min() + ys.max()) / 2
    reach = float(max(np.abs(xs - mx).max(), np.abs(ys - my).max()))
    return side, reach


def _frame(rng: np.random.Generator, opts: SceneOptions, placed: list[Placed],
           dims: tuple[float, float, float], extent: float, closeup: bool
           ) -> tuple[_View, list[F64]]:
    """Camera (elevation 35-90 degrees, from the player's side), roll, and the zoom that
    gives the wanted tile size while every tile stays inside the image. Also returns each
    tile's 8 world corners ``(8, 3)`` (face then back, see :meth:`TileBox.corners`)."""
    elev = math.radians(rng.uniform(48, 90) if rng.random() < 0.8 else rng.uniform(35, 48))
    dist = extent * rng.uniform(1.3, 3.5)
    az = math.radians(rng.normal(0, 12))
    cam_pos = np.array([dist * math.cos(elev) * math.sin(az),
                        -dist * math.cos(elev) * math.cos(az), dist * math.sin(elev)])
    target = np.array([rng.normal(0, extent * 0.05), rng.normal(0, extent * 0.05), 0.0])
    if abs(math.degrees(elev) - 90) < 1e-3:
        cam_pos[1] -= 1e-3
    camera = Camera(cam_pos, target)
    if math.degrees(elev) > 65:  # from high above a tile standing on its edge shows no face
        for p in placed:
            p.box.standing = False
    if rng.random() < 0.35:  # any angle (hand-held photos, tilted tables)
        roll = float(rng.uniform(0, 360))
    else:
        roll = float(rng.choice([0, 90, 180, 270], p=[0.5, 0.12, 0.26, 0.12])) + rng.normal(0, 10)
    # corners depend on standing, so they are computed after the camera decided it
    corners = [np.vstack(p.box.corners(*dims)) for p in placed]
    proj = [camera.project(c) for c in corners]
    med_h = float(np.median([np.linalg.norm(pr[0] - pr[3]) for pr in proj]))
    cr, sr = math.cos(math.radians(roll)), math.sin(math.radians(roll))
    rot = np.array([[cr, -sr], [sr, cr]])
    rp = np.vstack(proj) @ rot.T
    span = rp.max(0) - rp.min(0)
    margin = 4.0
    fit = min((opts.width - 2 * margin) / max(span[0], 1e-9),
              (opts.height - 2 * margin) / max(span[1], 1e-9))
    lo_px = opts.min_tile_px if not closeup else min(opts.max_tile_px,
                                                     max(opts.min_tile_px, 35.0))
    want = math.exp(rng.uniform(math.log(lo_px), math.log(opts.max_tile_px)))
    scale = min(want / med_h, fit)
    lo = -rp.min(0) * scale + margin
    hi = np.array([opts.width, opts.height]) - margin - rp.max(0) * scale
    off = np.array([rng.uniform(lo[i], max(lo[i], hi[i])) for i in range(2)])
    affine = np.hstack([rot * scale, off[:, None]])
    return _View(camera, affine, math.degrees(elev), roll % 360, med_h * scale), corners


def _table(rng: np.random.Generator, opts: SceneOptions, view: _View, extent: float,
           reach: float, tile_h: float) -> tuple[F32, str]:
    """The table surface warped by the view ``(H, W, 3)`` float32, and its kind."""
    tex, surface_kind = photometric.surface(rng, 512)
    half = extent * rng.uniform(0.7, 1.4)
    if rng.random() < 0.35:  # a table edge in view, beyond the tiles
        side = int(rng.choice([0, 1, 2, 3], p=[0.55, 0.15, 0.15, 0.15]))
        edge = 0.5 + ((reach + tile_h) / (2 * half)) * rng.uniform(1.0, 1.6)
        if edge < 0.97:
            tex = photometric.with_table_edge(rng, tex, edge, side)
            surface_kind += "+edge"
    tbl = np.array([[-half, half, 0], [half, half, 0], [half, -half, 0], [-half, -half, 0]])
    tbl_px = apply_affine(view.affine, view.camera.project(tbl)).astype(np.float32)
    tex_px = np.array([[0, 0], [512, 0], [512, 512], [0, 512]], np.float32)
    hmat = cv2.getPerspectiveTransform(tex_px, tbl_px)
    bg = cv2.warpPerspective(tex, hmat, (opts.width, opts.height), flags=cv2.INTER_LINEAR,
                             borderMode=cv2.BORDER_REFLECT_101).astype(np.float32)
    return bg, surface_kind


def render_scene(art: ArtSet, rng: np.random.Generator, opts: SceneOptions | None = None,
                 ) -> SceneResult:
    """Draw one random scene with tiles of ``art``; see the module doc."""
    opts = opts or SceneOptions()
    # Tile proportions (mm): face 26 x 33-37, thickness 15-24 (riichi to Chinese sets).
    tw, th = 26.0, 26.0 * rng.uniform(1.28, 1.42)
    td = rng.uniform(15, 24)
    placed, hand, arrangement, (side, reach) = _arrange(art, rng, opts, tw, th)
    extent = side + 2 * th
    view, corners = _frame(rng, opts, placed, (tw, th, td), extent, hand is None)
    camera, affine = view.camera, view.affine
    proj = [camera.project(c) for c in corners]
    bg, surface_kind = _table(rng, opts, view, extent, reach, th)
    # Light from above, somewhat from one side.
    l_el = math.radians(rng.uniform(35, 80))
    l_az = rng.uniform(0, 2 * math.pi)
    light = np.array([math.cos(l_el) * math.cos(l_az), math.cos(l_el) * math.sin(l_az),
                      math.sin(l_el)])
    bg = shadows(bg, placed, corners, camera, affine, light, rng)
    if rng.random() < 0.3:
        bg = photometric.clutter(rng, bg, [apply_affine(affine, pr) for pr in proj])
    canvas = Canvas(bg)
    paint_all(canvas, art, rng, placed, corners, camera, affine, view.tile_px, light)

    img = canvas.image
    if rng.random() < 0.5:
        img = photometric.glare(rng, img, canvas.tops, view.tile_px)
    img = photometric.lighting(rng, img)
    img = photometric.camera_effects(rng, img)
    image = photometric.to_uint8(img)

    tiles = _tile_records(placed, proj, view, (tw, th, td))
    truth: dict[str, Any] = {
        "width": opts.width,
        "height": opts.height,
        "art": art.name,
        "scene": "hand" if hand else "closeup",
        "arrangement": arrangement,
        "surface": surface_kind,
        "camera": {"elevation_deg": round(view.elevation_deg, 1),
                   "roll_deg": round(view.roll_deg, 1), "tile_px": round(view.tile_px, 1)},
        "tiles": tiles,
    }
    truth.update(_hand_truth(hand, tiles))
    return SceneResult(image, canvas.index, truth)


def _tile_records(placed: list[Placed], proj: list[F64], view: _View,
                  dims: tuple[float, float, float]) -> list[dict[str, Any]]:
    """Ground truth per tile: pixel box (hull of the projected body), rotation, role.

    Boxes are in pixel-edge coordinates, as YOLO labels and the detector's boxes are
    (pixel ``i`` covers ``[i, i + 1)``): the projection puts pixel centres at integers, as
    OpenCV paints, so the hull moves by half a pixel (sixty-eighth session: labels sat
    0.5 px up and left of the painted tiles)."""
    tiles = []
    for i, p in enumerate(placed):
        px = apply_affine(view.affine, proj[i]) + 0.5
        x1, y1 = px.min(0)
        x2, y2 = px.max(0)
        rotation = _rotation(view.camera, view.affine, p.box, *dims)
        if p.box.face_down:
            rotation %= 180
        tiles.append({
            "id": i,
            "code": p.box.code,
            "label": BACK if p.box.face_down else p.box.code,
            "box": [round(float(x1), 2), round(float(y1), 2), round(float(x2), 2),
                    round(float(y2), 2)],
            "rotation": rotation,
            "face_down": p.box.face_down,
            "role": p.role,
            "meld": p.meld,
            "sideways": p.sideways,
            "claimed": p.claimed,
            "added": p.added,
            "upright_on_edge": p.box.standing,
        })
    return tiles


def _waiting_truth(hand: SynthHand) -> dict[str, Any]:
    """For a waiting hand, ``waiting: true``, its MCR ``shanten`` (0: ready) and the
    ``waits`` (kinds that complete it, in players' order); nothing for the others."""
    if not hand.waiting:
        return {}
    import scoring

    w = scoring.waits(hand.notation(), rules="mcr")
    waits = sorted({t.tile for t in w.waits}, key=tile_sort_key)
    return {"waiting": True, "shanten": w.shanten, "waits": waits}


def _hand_truth(hand: SynthHand | None, tiles: list[dict[str, Any]]) -> dict[str, Any]:
    """The hand's part of the ground truth (``hand: None`` for close-ups)."""
    if hand is None:
        return {"hand": None}
    return {
        "hand": hand.notation(),
        "wins": is_winning(hand),
        **_waiting_truth(hand),
        "winning_tile": hand.winning_tile,
        "flowers": list(hand.flowers),
        "standing": list(hand.standing),
        "melds": [
            {"kind": m.kind, "tiles": sorted(m.tiles, key=tile_sort_key),
             "claimed_from": m.claimed_from, "claimed_index": m.claimed_index,
             "added": m.added, "concealed": m.claimed_from is None, "face_up": m.face_up,
             "tile_ids": [t["id"] for t in tiles if t["meld"] == mi]}
            for mi, m in enumerate(hand.melds)
        ],
    }


def _rotation(camera: Camera, affine: F64, box: TileBox, w: float, h: float, d: float) -> int:
    """Clockwise rotation (0/90/180/270) of the glyph's up direction in the image."""
    face, _ = box.corners(w, h, d)
    centre = face.mean(0)
    _, v, _ = box.axes()
    pts = apply_affine(affine, camera.project(np.stack([centre, centre + v * (h / 2)])))
    dx, dy = pts[1] - pts[0]
    # Upright glyph: up vector points to -y in the image. Clockwise angle from there.
    ang = math.degrees(math.atan2(dx, -dy)) % 360
    return round(ang / 90.0) % 4 * 90


def class_of(tile: dict[str, Any]) -> int:
    """YOLO class id of a ground-truth tile record."""
    return class_id(str(tile["label"]))
