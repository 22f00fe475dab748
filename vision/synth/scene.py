"""Lay tiles out as real tables show them and render one synthetic photo.

Two kinds of scene:

- ``hand``: one player's hand, as laid for scoring (seed 003, 鸣牌的摆放): the standing
  tiles in a row, the winning tile set apart at its right, exposed melds with the
  claimed tile turned sideways (chow: the claimed tile; pung and melded kong: left
  tile when claimed from the left, a middle one from opposite, the right one from the
  right), an added kong's extra tile sideways beyond the claimed one, concealed kongs
  with both end tiles face down, bonus tiles in their own group. Arrangements:
  ``inline`` (row: bonus, standing, winning, melds), ``two-rows`` (melds and bonus in
  a second row beyond the standing row) and ``melds-left``. Optionally other tiles
  (``role: other``): a face-down wall segment, discards, an opposite player's meld
  row upside-down.
- ``closeup``: a few random tiles (every class, ``back`` included) in small grids or
  scattered, larger in the image; no hand.

The whole table is seen by a camera from the player's side or any other side
(camera roll about 0, 90, 180 or 270 degrees with jitter), so rows can appear upside
down or vertical. Tile sizes in the image range about 20-120 px (height).
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
from vision.synth.art import ArtSet
from vision.synth.hands import SynthHand, SynthMeld, random_hand, tile_sort_key
from vision.synth.render import (
    Camera,
    Canvas,
    TileBox,
    apply_affine,
    bevel,
    rounded_mask,
)

U8 = npt.NDArray[np.uint8]
F32 = npt.NDArray[np.float32]
F64 = npt.NDArray[np.float64]

BACK_COLOURS = ((40, 120, 70), (30, 80, 150), (220, 170, 40), (200, 90, 40), (230, 228, 215),
                (120, 40, 140), (40, 40, 40))


@dataclass
class Placed:
    """A tile on the table with its ground-truth role."""

    box: TileBox
    role: str  # standing | winning | meld | flower | other
    meld: int | None = None
    sideways: bool = False
    claimed: bool = False
    added: bool = False


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


@dataclass
class SceneResult:
    """The rendered image ``(H, W, 3)`` uint8 RGB, the tile index map ``(H, W)`` int32
    (tile id painted last, ``-1`` table), and the ground truth ``truth`` (JSON-ready)."""

    image: U8
    index: npt.NDArray[np.int32]
    truth: dict[str, Any] = field(default_factory=dict)


# ---------------------------------------------------------------------------- layout
class _Row:
    """Place tiles left to right along ``+x`` with their near edge at ``y0``."""

    def __init__(self, w: float, h: float, rng: np.random.Generator, y0: float = 0.0) -> None:
        self.w, self.h, self.rng = w, h, rng
        self.x = 0.0
        self.y0 = y0
        self.tiles: list[Placed] = []

    def gap(self, tiles: float) -> None:
        self.x += tiles * self.w

    def put(self, code: str, role: str, *, sideways: bool = False, face_down: bool = False,
            meld: int | None = None, claimed: bool = False, added_beyond: bool = False) -> None:
        jitter = np.clip(self.rng.normal(0, 0.4, 2), -0.3, 0.3)
        yaw_j = self.rng.normal(0, 1.2)
        if sideways:
            yaw = 90.0 if self.rng.random() < 0.7 else -90.0
            cx = self.x + self.h / 2
            cy = self.y0 + self.w / 2
            if added_beyond:
                cx -= self.h + 0.4  # same column as the previous (claimed) tile
                cy += self.w + 0.8
            else:
                self.x += self.h + 0.4
        else:
            yaw = 0.0
            cx, cy = self.x + self.w / 2, self.y0 + self.h / 2
            self.x += self.w + 0.4
        tb = TileBox(code, cx + jitter[0], cy + jitter[1], yaw + yaw_j, face_down=face_down)
        self.tiles.append(Placed(tb, role, meld, sideways, claimed, added_beyond))


def _meld_tiles(m: SynthMeld, rng: np.random.Generator) -> list[tuple[str, bool, bool, bool]]:
    """The meld's tiles left to right: (code, sideways, face_down, added_beyond)."""
    tiles = sorted(m.tiles, key=tile_sort_key)
    if m.kind == "kong" and m.claimed_from is None:
        return [(t, False, i in (0, 3), False) for i, t in enumerate(tiles)]
    if m.kind == "chow":
        idx = m.claimed_index or 0
        return [(t, i == idx, False, False) for i, t in enumerate(tiles)]
    src = m.claimed_from or 1
    n = 3 if (m.kind == "pung" or m.added) else 4
    if src == 1:
        idx = 0
    elif src == 3:
        idx = n - 1
    else:
        idx = 1 if n == 3 else int(rng.integers(1, 3))
    out = [(t, i == idx, False, False) for i, t in enumerate(tiles[:n])]
    if m.added:
        out.insert(idx + 1, (tiles[3], True, False, True))
    return out


def layout_hand(hand: SynthHand, rng: np.random.Generator, w: float, h: float
                ) -> tuple[list[Placed], str]:
    """Table positions (mm) of a hand's tiles and the arrangement's name."""
    arrangement = str(rng.choice(["inline", "two-rows", "melds-left"], p=[0.45, 0.35, 0.2]))
    near = _Row(w, h, rng)
    far = _Row(w, h, rng, y0=h * rng.uniform(1.15, 1.8))

    def melds(row: _Row) -> None:
        for mi, m in enumerate(hand.melds):
            for code, side, down, beyond in _meld_tiles(m, rng):
                row.put(code, "meld", sideways=side, face_down=down, meld=mi,
                        claimed=side and not beyond, added_beyond=beyond)
            row.gap(rng.uniform(0.3, 1.0))

    def flowers(row: _Row) -> None:
        for f in hand.flowers:
            row.put(f, "flower")
        if hand.flowers:
            row.gap(rng.uniform(0.6, 1.5))

    def standing(row: _Row) -> None:
        for t in hand.standing[:-1]:
            row.put(t, "standing")
        row.gap(rng.uniform(0.35, 1.2))
        row.put(hand.standing[-1], "winning")

    if arrangement == "inline":
        flowers(near)
        standing(near)
        near.gap(rng.uniform(0.8, 1.6))
        melds(near)
    elif arrangement == "two-rows":
        standing(near)
        flowers(far)
        melds(far)
        if rng.random() < 0.5:  # right-align the far row
            shift = near.x - far.x
            for p in far.tiles:
                p.box.x += shift
    else:
        melds(near)
        near.gap(rng.uniform(0.5, 1.2))
        standing(near)
        flowers(far)
    return near.tiles + far.tiles, arrangement


def layout_extras(rng: np.random.Generator, art: ArtSet, w: float, h: float,
                  extent: tuple[float, float, float, float]) -> list[Placed]:
    """Other tiles around a hand: a face-down wall, discards, an opposite meld row."""
    x0, _, x1, y1 = extent
    out: list[Placed] = []
    codes = list(art.codes)
    far_y = y1 + h * rng.uniform(1.5, 4)
    if rng.random() < 0.5:  # wall segments, face down, lengthwise along x
        for _ in range(int(rng.integers(1, 3))):
            n = int(rng.integers(4, 14))
            sx = rng.uniform(x0 - 2 * w, max(x0, x1 - n * w))
            for i in range(n):
                out.append(Placed(TileBox(str(rng.choice(codes)), sx + i * (w + 0.3), far_y,
                                          rng.normal(0, 1), face_down=True), "other"))
            far_y += h * rng.uniform(1.1, 1.6)
    if rng.random() < 0.25:  # a pile of tiles pushed together, any way up
        n = int(rng.integers(6, 20))
        cx = rng.uniform(x0, x1)
        pile = [Placed(TileBox(str(rng.choice(codes)), cx + rng.normal(0, 2 * w),
                               far_y + h + abs(rng.normal(0, 1.5 * h)), rng.uniform(0, 360),
                               face_down=bool(rng.random() < 0.3)), "other") for _ in range(n)]
        _separate(pile, math.hypot(w, h))  # any yaw: keep diagonals apart
        lift = far_y + math.hypot(w, h) / 2 + 1 - min(p.box.y for p in pile)
        for p in pile:
            p.box.y += max(0.0, lift)
        out += pile
        far_y = max(p.box.y for p in pile) + h * 1.3
    if rng.random() < 0.6:  # discards in rows, a little untidy, mostly facing the player
        n = int(rng.integers(2, 9))
        cols = int(rng.integers(3, 7))
        sx = rng.uniform(x0, max(x0 + 1, x1 - cols * w))
        x, row = sx, 0
        for i in range(n):
            if i and i % cols == 0:
                x, row = sx, row + 1
            yaw = float(rng.choice([0, 90, 180, 270])) if rng.random() < 0.3 else 180.0
            across = h if yaw in (90.0, 270.0) else w
            jx, jy = np.clip(rng.normal(0, 0.8, 2), -1.2, 1.2)
            out.append(Placed(TileBox(str(rng.choice(codes)), x + across / 2 + jx,
                                      far_y + row * (h + 4.0) + jy, yaw + rng.normal(0, 2)),
                              "other"))
            x += across + 4.0
        far_y += (h + 4.0) * ((n - 1) // cols + 1) + h * 0.5
    if rng.random() < 0.4:  # opposite player's meld, seen upside down
        k = str(rng.choice([c for c in codes if not c.endswith("f")]))
        for i in range(3):
            out.append(Placed(TileBox(k, x1 - i * (w + 0.4), far_y + h / 2, 180 + rng.normal(0, 1)),
                              "other"))
    return out


def layout_closeup(rng: np.random.Generator, art: ArtSet, w: float, h: float) -> list[Placed]:
    """A few random tiles (``back`` included): rows of touching tiles (like tiles lined
    up for a photo), a small grid, or scattered."""
    codes = [*art.codes, BACK]
    out: list[Placed] = []
    mode = str(rng.choice(["rows", "grid", "scattered"], p=[0.5, 0.25, 0.25]))
    group_yaw = float(rng.choice([0, 90, 180, 270], p=[0.55, 0.15, 0.15, 0.15]))
    cells: list[tuple[float, float]] = []
    if mode == "rows":
        y = 0.0
        for _ in range(int(rng.integers(1, 5))):
            n = int(rng.integers(2, 10))
            x0 = rng.uniform(-1.5, 1.5) * w
            cells += [(x0 + c * (w + 0.4), y) for c in range(n)]
            y += h * rng.uniform(1.05, 2.0)
    elif mode == "grid":
        cols, rows = int(rng.integers(2, 5)), int(rng.integers(1, 5))
        cells = [(c * (w + 0.5), r * (h + 0.5)) for r in range(rows) for c in range(cols)]
    else:
        cells = [(rng.uniform(0, 4 * w), rng.uniform(0, 3 * h)) for _ in range(rng.integers(2, 9))]
    c_, s_ = math.cos(math.radians(group_yaw)), math.sin(math.radians(group_yaw))
    for x, y in cells:
        code = str(rng.choice(codes))
        down = code == BACK
        if down:
            code = str(rng.choice(art.codes))
        if mode == "scattered":
            yaw = float(rng.choice([0, 90, 180, 270])) + rng.normal(0, 10)
        else:
            x, y = x * c_ - y * s_, x * s_ + y * c_
            yaw = group_yaw + rng.normal(0, 1.5)
        out.append(Placed(TileBox(code, x, y, yaw, face_down=down), "other"))
    if mode == "scattered":  # push overlapping tiles apart (simple relaxation)
        _separate(out, math.hypot(w, h))
    return out


def _separate(tiles: list[Placed], dist: float) -> None:
    for _ in range(30):
        moved = False
        for i, a in enumerate(tiles):
            for b in tiles[i + 1 :]:
                dx, dy = b.box.x - a.box.x, b.box.y - a.box.y
                d = math.hypot(dx, dy)
                if d < dist:
                    push = (dist - d) / 2 + 0.1
                    ux, uy = (dx / d, dy / d) if d > 1e-6 else (1.0, 0.0)
                    a.box.x -= ux * push
                    a.box.y -= uy * push
                    b.box.x += ux * push
                    b.box.y += uy * push
                    moved = True
        if not moved:
            return


# ------------------------------------------------------------------------- rendering
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
        hand = random_hand(rng, bonus=art.has_bonus)
        placed, arrangement = layout_hand(hand, rng, w, h)
        if rng.random() < 0.1:  # some players keep the standing row upright on its edge
            for p in placed:
                if p.role in ("standing", "winning") and not p.box.face_down:
                    p.box.standing = True
        if rng.random() < opts.extras_prob:
            xs = [p.box.x for p in placed]
            ys = [p.box.y for p in placed]
            placed += layout_extras(rng, art, w, h, (min(xs), min(ys), max(xs), max(ys)))
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
    bg = _shadows(bg, placed, corners, camera, affine, light, rng)
    if rng.random() < 0.3:
        bg = photometric.clutter(rng, bg, [apply_affine(affine, pr) for pr in proj])
    canvas = Canvas(bg)
    _paint_all(canvas, art, rng, placed, corners, view, light)

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


def _paint_all(canvas: Canvas, art: ArtSet, rng: np.random.Generator, placed: list[Placed],
               corners: list[F64], view: _View, light: F64) -> None:
    """Paint every tile, far to near (painter's algorithm), with one body style."""
    camera = view.camera
    cam_depth = [float(camera.depth(c.mean(0, keepdims=True))[0]) - 0.01 * placed[i].box.z
                 for i, c in enumerate(corners)]
    order = sorted(range(len(placed)), key=lambda i: -cam_depth[i])
    back_tex = art.back.astype(np.float32) if art.back is not None and rng.random() < 0.5 else None
    back_colour = BACK_COLOURS[int(rng.integers(0, len(BACK_COLOURS)))]
    ivory = np.array(art.ivory, np.float32) * rng.uniform(0.92, 1.02)
    two_tone = rng.random() < 0.6
    split = rng.uniform(0.45, 0.7)
    tex_h = int(np.clip(view.tile_px * 1.6, 16, 160))
    tex_cache: dict[Any, F32] = {}
    masks: dict[tuple[int, int], tuple[F32, F32]] = {}
    ambient = rng.uniform(0.6, 0.85)
    for i in order:
        _paint_tile(canvas, i, placed[i], corners[i], camera, view.affine, light, ambient,
                    _texture_for(art, placed[i], rng, back_tex, back_colour, tex_h, tex_cache),
                    masks, ivory, np.array(back_colour, np.float32), two_tone, split, rng)


def _tile_records(placed: list[Placed], proj: list[F64], view: _View,
                  dims: tuple[float, float, float]) -> list[dict[str, Any]]:
    """Ground truth per tile: pixel box (hull of the projected body), rotation, role."""
    tiles = []
    for i, p in enumerate(placed):
        px = apply_affine(view.affine, proj[i])
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


def _hand_truth(hand: SynthHand | None, tiles: list[dict[str, Any]]) -> dict[str, Any]:
    """The hand's part of the ground truth (``hand: None`` for close-ups)."""
    if hand is None:
        return {"hand": None}
    return {
        "hand": hand.notation(),
        "winning_tile": hand.winning_tile,
        "flowers": list(hand.flowers),
        "standing": list(hand.standing),
        "melds": [
            {"kind": m.kind, "tiles": sorted(m.tiles, key=tile_sort_key),
             "claimed_from": m.claimed_from, "claimed_index": m.claimed_index,
             "added": m.added, "concealed": m.claimed_from is None,
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


def _shadows(bg: F32, placed: list[Placed], corners: list[F64], camera: Camera, affine: F64,
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


def class_of(tile: dict[str, Any]) -> int:
    """YOLO class id of a ground-truth tile record."""
    return class_id(str(tile["label"]))
