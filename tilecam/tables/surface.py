"""What a table's surface looks like to its camera, and whether a frame with no tiles shows it.

A table camera takes a frame with no tiles for the table cleared (a new deal may begin),
but a camera knocked onto a wall, the floor or a player's shirt also sees no tiles. So the
camera learns the surface it sees *around the tiles* in frames where tiles were read
(:func:`sample_frame` with their boxes, :func:`learn`) and, once it knows it, a frame with
no tiles counts as the table cleared only where that part of the frame still shows the
same surface (:func:`judge`).

The look of a surface is measured so that the light can change under it:

- colour as chromaticity, ``r = R / (R + G + B)`` and ``g = G / (R + G + B)``, which a
  lamp dimmed or brightened leaves unchanged: a :data:`BINS` × :data:`BINS` histogram of the
  pixels, compared by histogram intersection after a one-bin blur (a slight colour cast
  moves little of it); pixels too dark for a colour (all channels under
  :data:`COLOUR_LEVEL`) are left out;
- detail as each pixel's brightness gradient over its neighbourhood's brightness (also
  unchanged by dimming): the region's mean, compared as a ratio with a floor, so that
  smooth surfaces (cloth, paint) are all alike and only a surface far busier or far
  plainer than the table's counts against it.

Frames are measured at about :data:`WORK_SIDE` pixels on their longer side (a 1280×960
frame: 320×240), about 2 ms. A surface that has the table's colour and detail (a pale
wall above a white table, floorboards under a wooden one) is not told from it. The
thresholds were chosen with ``bench/camera_surface.py`` on synthetic table scenes (the
cleared table kept as the table at a quarter of the light; a texture floor low enough to
tell a flat wall from a grained laminate would have failed it under dim-light noise).

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
#: Smallest share of the learned surface's colour a frame must show: histogram
#: intersection, 0-1 (a hand or an arm may cover part of the table).
COLOUR_MATCH = 0.5
#: Detail (mean relative gradient) under this counts as smooth: smooth surfaces compare
#: alike whatever their detail.
DETAIL_FLOOR = 0.01
#: A frame whose detail is more than this many times the surface's (or less than its
#: inverse), both at least :data:`DETAIL_FLOOR`, is another surface.
DETAIL_RATIO = 3.0
#: Smallest share of the region whose colour can be read for a judgement.
READABLE_SHARE = 0.3
#: Share of a model that a frame of the same surface replaces; one that does not match
#: the surface (a new cloth, the camera moved to another table) replaces more of it.
BLEND_SAME, BLEND_OTHER = 0.2, 0.5
#: A JSON model is refused beyond this many characters (a corrupt row).
MOST_JSON_CHARS = 20_000

#: A box in pixels of the frame: ``(x0, y0, x1, y1)``.
Box = tuple[float, float, float, float]
F32 = npt.NDArray[np.float32]
I16 = npt.NDArray[np.int16]


@dataclass(frozen=True)
class SurfaceSample:
    """One frame measured: maps at the working size ``(h, w)`` (about :data:`WORK_SIDE` on
    the longer side), and where tiles were read.

    ``bins``: each pixel's chromaticity bin, ``0 .. BINS² - 1``, or -1 where it is too dark
    for a colour or under a tile; ``detail``: each pixel's relative gradient (0-1);
    ``region``: the tiles' surroundings as fractions of the frame, ``(x0, y0, x1, y1)`` in
    0-1, or None when no tiles with boxes were given; ``surface_px``: working-size pixels
    of surface (readable, no tile) in that region.
    """

    bins: I16 = field(repr=False)
    detail: F32 = field(repr=False)
    region: tuple[float, float, float, float] | None = None
    surface_px: int = 0
    tiles: int = 0

    @property
    def teaches(self) -> bool:
        """Whether the frame can teach the table's surface: :data:`LEARN_TILES` tiles with
        boxes and enough surface around them (a twentieth of their surroundings)."""
        if self.region is None or self.tiles < LEARN_TILES:
            return False
        return self.surface_px >= max(50, _area(self.region, self.bins.shape) // 20)

    def look(self, region: tuple[float, float, float, float]) -> Look:
        """The colour histogram and detail of ``region`` (fractions of the frame)."""
        y0, y1, x0, x1 = _pixels(region, self.bins.shape)
        bins = self.bins[y0:y1, x0:x1]
        readable = bins >= 0
        total = int(bins.size)
        count = int(readable.sum())
        hist = np.bincount(bins[readable].ravel(), minlength=BINS * BINS).astype(np.float64)
        if count:
            hist /= count
        detail = float(self.detail[y0:y1, x0:x1][readable].mean()) if count else 0.0
        return Look(hist, detail, count / total if total else 0.0, count)


@dataclass(frozen=True)
class Look:
    """A region's colour ``hist`` (``BINS²`` shares summing to 1, or zeros), mean ``detail``,
    the ``readable`` share of its pixels (0-1) and their ``count``."""

    hist: npt.NDArray[np.float64] = field(repr=False)
    detail: float
    readable: float
    count: int


@dataclass
class SurfaceModel:
    """A table's surface as its camera learned it: colour ``hist`` (``BINS²`` shares summing
    to 1), mean ``detail``, ``region`` (where the tiles lie, fractions ``(x0, y0, x1, y1)``
    of the frame) and the number of ``frames`` it was learned from."""

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
    ``colour`` (histogram intersection, 0-1) and ``detail`` (the frame's detail over the
    surface's) when compared.
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
    bins[np.maximum(np.maximum(b, g), r) < COLOUR_LEVEL] = -1
    grey = total / 3.0
    gx = cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3)
    local = cv2.blur(grey, (5, 5))
    detail = np.minimum((np.abs(gx) + np.abs(gy)) / (8.0 * (local + 8.0)), 1.0)
    region: tuple[float, float, float, float] | None = None
    surface_px = 0
    if boxes:
        sx, sy = small.shape[1] / width, small.shape[0] / height
        pad = 2  # working pixels: a tile's edge, shadow and the gradient's reach
        for x0, y0, x1, y1 in boxes:
            bins[max(0, int(y0 * sy) - pad):math.ceil(y1 * sy) + pad,
                 max(0, int(x0 * sx) - pad):math.ceil(x1 * sx) + pad] = -1
        region = surroundings(boxes, width, height)
        y0i, y1i, x0i, x1i = _pixels(region, bins.shape)
        surface_px = int((bins[y0i:y1i, x0i:x1i] >= 0).sum())
    return SurfaceSample(bins, detail.astype(np.float32), region, surface_px, len(boxes))


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
    the surface around its tiles blended in — a fifth of the model where it shows the
    same surface, half where it does not (a new cloth, other light, the camera moved);
    ``model`` unchanged when the frame cannot teach."""
    if not sample.teaches or sample.region is None:
        return model
    look = sample.look(sample.region)
    if look.count == 0:
        return model
    if model is None:
        return SurfaceModel(look.hist, look.detail, sample.region, 1)
    colour, ratio = _compare(model, look)
    same = colour >= COLOUR_MATCH and ratio <= DETAIL_RATIO
    a = BLEND_SAME if same else BLEND_OTHER
    hist = (1 - a) * model.hist + a * look.hist
    region = tuple((1 - a) * m + a * s for m, s in zip(model.region, sample.region,
                                                         strict=True))
    x0, y0, x1, y1 = region
    return SurfaceModel(hist / hist.sum(), (1 - a) * model.detail + a * look.detail,
                        (x0, y0, x1, y1), model.frames + 1)


def judge(model: SurfaceModel | None, sample: SurfaceSample) -> Verdict:
    """Whether a frame with no tiles (``sample``) shows the table's surface ``model``."""
    if model is None or model.frames < LEARNED_FRAMES:
        return Verdict("unlearned", "the camera has not yet learned the table's surface "
                       "(it does from frames where it reads tiles): a frame with no tiles "
                       "counts as the table cleared")
    look = sample.look(model.region)
    if look.readable < READABLE_SHARE:
        return Verdict("unreadable", f"the table's part of the frame is too dark to see "
                       f"its surface ({look.readable:.0%} readable): no view of the table")
    colour, ratio = _compare(model, look)
    if colour < COLOUR_MATCH:
        return Verdict("elsewhere", f"the camera is not looking at the table surface it saw "
                       f"before (colour {colour:.0%} alike, under {COLOUR_MATCH:.0%}): not "
                       f"a cleared table", colour, ratio)
    if ratio > DETAIL_RATIO:
        return Verdict("elsewhere", f"the camera is not looking at the table surface it saw "
                       f"before (its texture {ratio:.1f}× apart, over {DETAIL_RATIO:g}×): "
                       f"not a cleared table", colour, ratio)
    return Verdict("table", f"the table's surface, with no tiles (colour {colour:.0%} "
                   f"alike): the table seen cleared", colour, ratio)


def _compare(model: SurfaceModel, look: Look) -> tuple[float, float]:
    """Colour intersection (0-1) of the blurred histograms, and the detail ratio (≥ 1)."""
    colour = float(np.minimum(_blur(model.hist), _blur(look.hist)).sum())
    a, b = max(model.detail, DETAIL_FLOOR), max(look.detail, DETAIL_FLOOR)
    return colour, max(a, b) / min(a, b)


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


def _area(region: tuple[float, float, float, float], shape: tuple[int, ...]) -> int:
    y0, y1, x0, x1 = _pixels(region, shape)
    return (y1 - y0) * (x1 - x0)
