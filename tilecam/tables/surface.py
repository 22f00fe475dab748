"""What a table's surface looks like to its camera, and whether a frame with no tiles shows it.

A table camera takes a frame with no tiles for the table cleared (a new deal may begin),
but a camera knocked onto a wall, the floor or a player's shirt also sees no tiles. So the
camera learns the surface it sees *around the tiles* in frames where tiles were read
(:func:`sample_frame` with their boxes, :func:`learn`) and, once it knows it, a frame with
no tiles counts as the table cleared only where that part of the frame still shows the
same surface (:func:`judge`).

The judgement errs towards the table: a frame wrongly taken for "not the table" loses
the cleared table — the gap after a recorded hand that lets the same hand, or one a tile
or two from it, be recorded next — which is worse than the wall wrongly taken for the
table (the gap the surface closes). So it says ``elsewhere`` only on strong evidence,
and the look of a surface is measured so that the light and what lies on the table can
change:

- colour as chromaticity, ``r = R / (R + G + B)`` and ``g = G / (R + G + B)``, which a
  lamp dimmed or brightened leaves unchanged: a :data:`BINS` × :data:`BINS` histogram.
  The surface is learned from its *smooth* pixels only (:data:`SMOOTH_DETAIL`), so the
  edges of what the recognizer did not box (a wall of face-down tiles, racks) and the
  blended colours along them stay out. A frame is compared by how much of *its* colour
  is the surface's: the intersection of the two histograms after a one-bin blur (a
  colour cast, a camera's auto white balance moves little of it), the surface's shares
  taken :data:`CLUTTER` times — so a bare table matches a surface learned with clutter
  around the tiles, and an arm or a heap of face-down tiles on it lowers the figure
  only by the share it covers. A frame with less than :data:`COLOUR_MATCH` of its colour
  the surface's is another surface. Pixels too dark for a colour (all channels under
  :data:`COLOUR_LEVEL`) are left out; a frame teaches only where at least
  :data:`READABLE_SHARE` of the surface is readable, and is judged where at least half
  that is;
- detail as each pixel's brightness gradient over its neighbourhood's brightness (also
  unchanged by dimming): the region's median (which the edges of clutter do not move),
  compared one way, with a floor: only a frame whose table-coloured pixels are far
  busier than the table (floorboards under a wooden table) counts against it — a frame
  plainer than the learned surface (the cloth bare of what lay on it) never does.

Frames are measured at about :data:`WORK_SIDE` pixels on their longer side (a 1280×960
frame: 320×240), about 2 ms. A surface that has the table's colour (a pale wall above a
white table, floorboards under a wooden one, a grey wall by a grey cloth) is not told
from it. The thresholds were chosen with ``bench/camera_surface.py`` on synthetic table
scenes, so that the cleared table stays the table — dimmed, brightened, under a cast,
with an arm or a heap of face-down tiles on it, after a surface learned with walls of
face-down tiles around the hand, under auto white balance — in 97 % or more of the
scenes in each case.

The learned :class:`SurfaceModel` is kept with the camera's other state, in the database
(``camera_states.surface``, JSON: :meth:`SurfaceModel.to_json`, migration 0009).

>>> felt = np.zeros((240, 320, 3), np.uint8); felt[:] = (60, 130, 40)   # BGR, green cloth
>>> hand = felt.copy(); hand[100:130, 60:260] = 235                    # a row of tiles
>>> tiles = [(60 + 50 * i, 100, 110 + 50 * i, 130) for i in range(4)]
>>> model = learn(None, sample_frame(hand, tiles))
>>> model = learn(model, sample_frame(hand, tiles))
>>> judge(model, sample_frame(felt // 3)).view       # the lights dimmed: still the table
'table'
>>> wall = np.full((240, 320, 3), (170, 190, 215), np.uint8)          # a beige wall
>>> judge(model, sample_frame(wall)).view
'elsewhere'
>>> judge(None, sample_frame(wall)).view             # never seen the table: as before
'unlearned'
"""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

log = logging.getLogger("tilecam.tables")

#: Chromaticity bins per axis (r and g, each 0-1).
BINS = 16
#: A frame is measured at about this many pixels on its longer side.
WORK_SIDE = 320
#: A pixel whose channels are all under this level (0-255, after the downscale that
#: averages away most sensor noise) is too dark for its colour to be read.
COLOUR_LEVEL = 10
#: Frames with at least this many tiles, with boxes, teach the surface around them.
LEARN_TILES = 4
#: The surface is judged once it was learned from this many frames.
LEARNED_FRAMES = 2
#: Smallest share of the surface's pixels (its part of the frame, less the tiles) whose
#: colour can be read for a frame to teach the surface. A frame with no tiles is judged
#: when at least half this share is readable (:data:`JUDGED_READABLE`), so that a surface
#: learned at one exposure (a dark mat) is always judged at that exposure.
READABLE_SHARE = 0.3
JUDGED_READABLE = READABLE_SHARE / 2
#: A pixel is learned as the surface's colour only where it is smooth: its detail at most
#: this, or three times the region's median detail where that is more (a grained table).
#: Edges — of tiles the recognizer did not box (a wall of face-down tiles, racks), of
#: shadows — are left out, and so are the blended colours along them.
SMOOTH_DETAIL = 0.08
#: A frame may show a colour of the learned surface at up to this many times that
#: colour's share of it: what the camera learned besides the table (clutter it did not
#: box — a wall of face-down tiles, racks — up to 1 − 1/:data:`CLUTTER` of what it
#: learned) does not count against the bare table.
CLUTTER = 2.5
#: A colour is one the surface has where it holds this share of it (blurred by one bin,
#: taken :data:`CLUTTER` times): the frame's pixels whose texture is compared.
SURFACE_COLOUR = 0.01
#: Smallest share of a frame's colour (in the surface's part of the frame) that must be
#: the learned surface's (:func:`judge`). A frame under it shows mostly colours the table
#: never had: strong evidence of another surface. What the surface learned besides (up to
#: :data:`CLUTTER`) never counts against a frame, and what lies on the table (an arm, a
#: heap of face-down tiles) lowers the figure only by the share it covers.
COLOUR_MATCH = 0.4
#: Detail (median relative gradient) under this counts as smooth: smooth surfaces
#: compare alike whatever their detail.
DETAIL_FLOOR = 0.01
#: A frame whose table-coloured pixels have a median detail more than this many times
#: the surface's (both at least :data:`DETAIL_FLOOR`) is another surface of that colour
#: (floorboards under a wooden table). One-sided: a frame plainer than the surface (the
#: cloth bare of what lay on it) never counts against it.
DETAIL_RATIO = 3.0
#: Share of a model that a frame of the same surface replaces; one that does not match
#: the surface (a new cloth, the camera moved to another table) replaces more of it.
BLEND_SAME, BLEND_OTHER = 0.2, 0.5
#: A JSON model is refused beyond this many characters (a corrupt row).
MOST_JSON_CHARS = 20_000
#: :attr:`SurfaceSample.bins` of a pixel too dark for a colour, and of one under a tile.
DARK_BIN, TILE_BIN = -1, -2

#: A box in pixels of the frame: ``(x0, y0, x1, y1)``.
Box = tuple[float, float, float, float]
F32 = npt.NDArray[np.float32]
I16 = npt.NDArray[np.int16]


@dataclass(frozen=True)
class SurfaceSample:
    """One frame measured: maps at the working size ``(h, w)`` (about :data:`WORK_SIDE` on
    the longer side), and where tiles were read.

    ``bins``: each pixel's chromaticity bin, ``0 .. BINS² - 1``, or :data:`DARK_BIN` where
    it is too dark for a colour, :data:`TILE_BIN` under a tile; ``detail``: each pixel's
    relative gradient (0-1); ``region``: the tiles' surroundings as fractions of the frame,
    ``(x0, y0, x1, y1)`` in 0-1, or None when no tiles with boxes were given; ``surface_px``:
    working-size pixels of surface (readable, no tile) in that region, of ``open_px`` not
    under a tile.
    """

    bins: I16 = field(repr=False)
    detail: F32 = field(repr=False)
    region: tuple[float, float, float, float] | None = None
    surface_px: int = 0
    tiles: int = 0
    open_px: int = 0

    @property
    def teaches(self) -> bool:
        """Whether the frame can teach the table's surface: :data:`LEARN_TILES` tiles with
        boxes, and around them a surface whose colour can be read (:data:`READABLE_SHARE`
        of it, 50 working pixels at least)."""
        if self.region is None or self.tiles < LEARN_TILES:
            return False
        return self.surface_px >= max(50, READABLE_SHARE * self.open_px)

    def look(self, region: tuple[float, float, float, float]) -> Look:
        """The readable pixels of ``region`` (fractions of the frame): their colour bins and
        details, and the share of the region's pixels not under a tile they make."""
        y0, y1, x0, x1 = _pixels(region, self.bins.shape)
        bins = self.bins[y0:y1, x0:x1]
        readable = bins >= 0
        open_px = int((bins != TILE_BIN).sum())
        count = int(readable.sum())
        return Look(bins[readable].astype(np.intp), self.detail[y0:y1, x0:x1][readable],
                    count / open_px if open_px else 0.0)


@dataclass(frozen=True)
class Look:
    """A region's readable pixels: their colour ``bins`` and ``detail`` (flat, alike in
    length), and the ``readable`` share of the region's pixels not under a tile (0-1)."""

    bins: npt.NDArray[np.intp] = field(repr=False)
    detail: F32 = field(repr=False)
    readable: float

    @property
    def count(self) -> int:
        return int(self.bins.size)

    def hist(self, smooth_below: float | None = None) -> npt.NDArray[np.float64]:
        """The colour histogram (``BINS²`` shares summing to 1, or zeros) of the readable
        pixels — those whose detail is at most ``smooth_below`` where given."""
        bins = self.bins if smooth_below is None else self.bins[self.detail <= smooth_below]
        hist = np.bincount(bins, minlength=BINS * BINS).astype(np.float64)
        return hist / bins.size if bins.size else hist

    def median_detail(self, where: npt.NDArray[np.bool_] | None = None) -> float:
        """The median detail of the readable pixels (those ``where`` says); 0 for none."""
        detail = self.detail if where is None else self.detail[where]
        return float(np.median(detail)) if detail.size else 0.0


@dataclass
class SurfaceModel:
    """A table's surface as its camera learned it: colour ``hist`` (``BINS²`` shares summing
    to 1, of its smooth pixels), median ``detail``, ``region`` (where the tiles lie,
    fractions ``(x0, y0, x1, y1)`` of the frame) and the number of ``frames`` it was
    learned from. A model stored by the first version of this rule (the colour of every
    pixel around the tiles, the mean detail) reads as it is: both only make judgements
    more lenient."""

    hist: npt.NDArray[np.float64]
    detail: float
    region: tuple[float, float, float, float]
    frames: int = 1

    def to_json(self) -> str:
        """Compact JSON: the histogram's non-zero bins as ``[bin, share]`` pairs."""
        pairs = [[int(i), round(float(v), 5)] for i in np.flatnonzero(self.hist > 5e-6)
                 for v in (self.hist[i],)]
        return json.dumps({"v": 1, "bins": BINS, "hist": pairs,
                           "detail": round(self.detail, 5),
                           "region": [round(v, 5) for v in self.region],
                           "frames": self.frames}, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str | None) -> SurfaceModel | None:
        """The model stored as ``text``; None for none — and for one that cannot be read
        (logged), which the camera then learns again rather than fail its frames."""
        if not text:
            return None
        try:
            if len(text) > MOST_JSON_CHARS:
                raise ValueError(f"{len(text):,} characters")
            data = json.loads(text)
            if data.get("v") != 1 or data.get("bins") != BINS:
                raise ValueError(f"version {data.get('v')!r}, {data.get('bins')!r} bins")
            hist = np.zeros(BINS * BINS, np.float64)
            for i, v in data["hist"]:
                if not 0 <= int(i) < BINS * BINS:
                    raise ValueError(f"bin {i} out of 0-{BINS * BINS - 1}")
                hist[int(i)] = float(v)
            region = tuple(float(v) for v in data["region"])
            detail, frames = float(data["detail"]), int(data["frames"])
            if (len(region) != 4 or not all(math.isfinite(v) for v in (*region, detail))
                    or not np.isfinite(hist).all() or hist.sum() <= 0 or (hist < 0).any()
                    or frames < 1 or detail < 0):
                raise ValueError("values out of range")
            x0, y0, x1, y1 = region
            if not (0 <= x0 < x1 <= 1 and 0 <= y0 < y1 <= 1):
                raise ValueError(f"region {region} is not a part of the frame")
            return cls(hist / hist.sum(), detail, (x0, y0, x1, y1), frames)
        except (ValueError, TypeError, KeyError, IndexError, AttributeError) as exc:
            log.warning("tilecam: a stored table surface could not be read (%s); "
                        "the camera learns it again", exc)
            return None


@dataclass(frozen=True)
class Verdict:
    """Whether a frame with no tiles shows the table's surface.

    ``view``: ``table`` (the surface learned: the table seen cleared), ``elsewhere`` (a lit
    view, but not that surface: not the table), ``unlearned`` (no surface learned yet: taken
    for the table, as before the camera learned one) or ``unreadable`` (the table's part of
    the frame too dark for a colour: no view of the table); ``note`` says so in words;
    ``colour`` (the share of the frame's colour that is the surface's, 0-1:
    :data:`COLOUR_MATCH`) and ``detail`` (the median detail of the frame's table-coloured
    pixels over the surface's: :data:`DETAIL_RATIO`) when compared.
    """

    view: str
    note: str
    colour: float | None = None
    detail: float | None = None

    @property
    def shows_table(self) -> bool:
        """Whether the frame may count as the table (seen empty)."""
        return self.view in ("table", "unlearned")


def tile_boxes(tiles: Iterable[Any], width: int, height: int) -> list[Box]:
    """The boxes of recognizer tiles (``{"box": [x0, y0, x1, y1], ...}``, pixels) that lie
    in a ``width`` × ``height`` frame, clipped to it; tiles without a usable box (missing,
    not four finite numbers, empty) are left out.

    >>> tile_boxes([{"box": [10, 5, 30, 35]}, {}, {"box": [1, 2]}, {"box": [90, 0, 99, 9]}],
    ...            64, 48)
    [(10.0, 5.0, 30.0, 35.0)]
    """
    out: list[Box] = []
    for tile in tiles:
        box = tile.get("box") if isinstance(tile, Mapping) else None
        if not isinstance(box, Sequence) or isinstance(box, str) or len(box) != 4:
            continue
        try:
            x0, y0, x1, y1 = (float(v) for v in box)
        except (TypeError, ValueError):
            continue
        if not all(math.isfinite(v) for v in (x0, y0, x1, y1)):
            continue
        x0, x1 = max(0.0, min(x0, x1)), min(float(width), max(x0, x1))
        y0, y1 = max(0.0, min(y0, y1)), min(float(height), max(y0, y1))
        if x1 - x0 >= 1 and y1 - y0 >= 1:
            out.append((x0, y0, x1, y1))
    return out


def sample_frame(image: npt.NDArray[np.uint8], boxes: Sequence[Box] = ()) -> SurfaceSample:
    """Measure a decoded frame (BGR uint8, ``(H, W, 3)``; a grey ``(H, W)`` one has no
    colour: every pixel counts as neutral) with the ``boxes`` of the tiles read in it
    (pixels, :func:`tile_boxes`), masked out of its surface."""
    if image.ndim == 2:
        image = np.repeat(image[..., None], 3, axis=2)
    if image.ndim != 3 or image.shape[2] < 3 or image.shape[0] < 1 or image.shape[1] < 1:
        raise ValueError(f"a frame must be a BGR image (H, W, 3), not shape {image.shape}")
    if image.dtype != np.uint8:
        raise ValueError(f"a frame must have 8-bit channels (uint8), not {image.dtype}")
    height, width = image.shape[:2]
    scale = max(1, round(max(height, width) / WORK_SIDE))
    size = (max(1, width // scale), max(1, height // scale))
    small = image[..., :3]
    if scale > 1:
        small = np.asarray(cv2.resize(small, size, interpolation=cv2.INTER_AREA), np.uint8)
    # channel by channel: numpy's reductions over a last axis of 3 are slow
    b, g, r = (small[..., i].astype(np.float32) for i in range(3))
    total = b + g + r
    share = BINS / np.maximum(total, 1.0)
    ri = np.minimum((r * share).astype(np.int16), BINS - 1)
    gi = np.minimum((g * share).astype(np.int16), BINS - 1)
    bins = (ri * BINS + gi).astype(np.int16)
    bins[np.maximum(np.maximum(b, g), r) < COLOUR_LEVEL] = DARK_BIN
    grey = total / 3.0
    gx = cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3)
    local = cv2.blur(grey, (5, 5))
    detail = np.minimum((np.abs(gx) + np.abs(gy)) / (8.0 * (local + 8.0)), 1.0)
    region: tuple[float, float, float, float] | None = None
    surface_px = open_px = 0
    if boxes:
        sx, sy = small.shape[1] / width, small.shape[0] / height
        pad = 2  # working pixels: a tile's edge, shadow and the gradient's reach
        for x0, y0, x1, y1 in boxes:
            bins[max(0, int(y0 * sy) - pad):math.ceil(y1 * sy) + pad,
                 max(0, int(x0 * sx) - pad):math.ceil(x1 * sx) + pad] = TILE_BIN
        region = surroundings(boxes, width, height)
        y0i, y1i, x0i, x1i = _pixels(region, bins.shape)
        around = bins[y0i:y1i, x0i:x1i]
        surface_px = int((around >= 0).sum())
        open_px = int((around != TILE_BIN).sum())
    return SurfaceSample(bins, detail.astype(np.float32), region, surface_px, len(boxes),
                         open_px)


def surroundings(boxes: Sequence[Box], width: int, height: int) -> tuple[float, float,
                                                                           float, float]:
    """The part of a ``width`` × ``height`` frame around the tiles' ``boxes`` (pixels): their
    bounding box grown by one and a half tile lengths or a twentieth of the frame's longer
    side, whichever is more; as fractions ``(x0, y0, x1, y1)`` of the frame.

    >>> surroundings([(100, 100, 120, 130)], 640, 480)
    (0.08594, 0.11458, 0.25781, 0.36458)
    """
    sizes = sorted(max(x1 - x0, y1 - y0) for x0, y0, x1, y1 in boxes)
    margin = max(1.5 * sizes[len(sizes) // 2], max(width, height) / 20)
    x0 = max(0.0, min(b[0] for b in boxes) - margin) / width
    y0 = max(0.0, min(b[1] for b in boxes) - margin) / height
    x1 = min(float(width), max(b[2] for b in boxes) + margin) / width
    y1 = min(float(height), max(b[3] for b in boxes) + margin) / height
    return (round(x0, 5), round(y0, 5), round(x1, 5), round(y1, 5))


def learn(model: SurfaceModel | None, sample: SurfaceSample) -> SurfaceModel | None:
    """``model`` taught by a frame with tiles (``sample``, see :attr:`SurfaceSample.teaches`):
    the colour of the smooth surface around its tiles and the median detail there blended
    in — a fifth of the model where it shows the same surface, half where it does not (a
    new cloth, other light, the camera moved); ``model`` unchanged when the frame cannot
    teach."""
    if not sample.teaches or sample.region is None:
        return model
    look = sample.look(sample.region)
    if look.count == 0:
        return model
    detail = look.median_detail()
    hist = look.hist(smooth_below=max(SMOOTH_DETAIL, 3 * detail))
    if model is None:
        return SurfaceModel(hist, detail, sample.region, 1)
    colour, _ = _colour(model, hist)
    same = colour >= COLOUR_MATCH and _ratio(detail, model.detail) <= DETAIL_RATIO
    a = BLEND_SAME if same else BLEND_OTHER
    hist = (1 - a) * model.hist + a * hist
    region = tuple((1 - a) * m + a * s for m, s in zip(model.region, sample.region,
                                                         strict=True))
    x0, y0, x1, y1 = region
    return SurfaceModel(hist / hist.sum(), (1 - a) * model.detail + a * detail,
                        (x0, y0, x1, y1), model.frames + 1)


def judge(model: SurfaceModel | None, sample: SurfaceSample) -> Verdict:
    """Whether a frame with no tiles (``sample``) shows the table's surface ``model``.

    It errs towards the table: ``elsewhere`` only where most of the frame's colour there is
    none the table had (:data:`COLOUR_MATCH`), or where its table-coloured part is far
    busier than the table (:data:`DETAIL_RATIO`); ``unreadable`` only where that part of
    the frame is far too dark for a colour (:data:`JUDGED_READABLE`)."""
    if model is None or model.frames < LEARNED_FRAMES:
        return Verdict("unlearned", "the camera has not yet learned the table's surface "
                       "(it does from frames where it reads tiles): a frame with no tiles "
                       "counts as the table cleared")
    look = sample.look(model.region)
    if look.readable < JUDGED_READABLE:
        return Verdict("unreadable", f"the table's part of the frame is too dark to see "
                       f"its surface ({look.readable:.0%} readable): no view of the table")
    colour, alike = _colour(model, look.hist())
    if colour < COLOUR_MATCH:
        return Verdict("elsewhere", f"the camera is not looking at the table surface it saw "
                       f"before (colour {colour:.0%} alike, under {COLOUR_MATCH:.0%}): not "
                       f"a cleared table", colour)
    ratio = _ratio(look.median_detail(alike[look.bins]), model.detail)
    if ratio > DETAIL_RATIO:
        return Verdict("elsewhere", f"the camera is not looking at the table surface it saw "
                       f"before (its texture {ratio:.1f}× the table's, over {DETAIL_RATIO:g}×): "
                       f"not a cleared table", colour, ratio)
    return Verdict("table", f"the table's surface, with no tiles (colour {colour:.0%} "
                   f"alike): the table seen cleared", colour, ratio)


def _colour(model: SurfaceModel,
            hist: npt.NDArray[np.float64]) -> tuple[float, npt.NDArray[np.bool_]]:
    """How much of a frame's colour ``hist`` is the surface's (0-1): the intersection of
    the two, each blurred by one bin, with the surface's shares taken :data:`CLUTTER`
    times; and, by bin, whether the surface has that colour (:data:`SURFACE_COLOUR`)."""
    surface = CLUTTER * _blur(model.hist)
    return float(np.minimum(_blur(hist), surface).sum()), surface >= SURFACE_COLOUR


def _ratio(detail: float, surface: float) -> float:
    """A frame's detail over the surface's, both floored at :data:`DETAIL_FLOOR`."""
    return max(detail, DETAIL_FLOOR) / max(surface, DETAIL_FLOOR)


_KERNEL = np.array([1.0, 2.0, 1.0]) / 4.0


def _blur(hist: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """A ``BINS²`` histogram blurred by one bin along both axes (mass kept)."""
    h = hist.reshape(BINS, BINS)
    padded = np.pad(h, 1)
    rows = sum(k * padded[i:i + BINS, 1:-1] for i, k in enumerate(_KERNEL))
    padded = np.pad(rows, 1)
    both = sum(k * padded[1:-1, i:i + BINS] for i, k in enumerate(_KERNEL))
    out = np.asarray(both, np.float64).ravel()
    total = out.sum()
    return out / total * hist.sum() if total > 0 else out


def _pixels(region: tuple[float, float, float, float],
            shape: tuple[int, ...]) -> tuple[int, int, int, int]:
    """``region`` (fractions) as row and column bounds ``(y0, y1, x0, x1)`` of a map of
    ``shape`` (at least one pixel)."""
    h, w = shape[0], shape[1]
    x0 = min(max(0, int(region[0] * w)), w - 1)
    y0 = min(max(0, int(region[1] * h)), h - 1)
    x1 = max(x0 + 1, min(w, math.ceil(region[2] * w)))
    y1 = max(y0 + 1, min(h, math.ceil(region[3] * h)))
    return y0, y1, x0, x1
