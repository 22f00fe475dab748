"""The numeral reader: which of four a season or flower is, from the top of its face.

Many tile sets draw their four seasons alike (one picture) and their four flowers alike
(another) and tell the four of a group apart only by a small numeral (1-4 or 一-四) in a
top corner. The bonus reader reads a whole-tile crop, where such a numeral is a few pixels
wide; this module cuts the **top strip of the upright face** instead — the box turned
so the tile stands upright (by its clockwise rotation as it lies), its top ``TOP`` share
kept and enlarged to ``(H, W)`` — and a small network reads from it one of five answers:
the numeral 1, 2, 3 or 4, or *none* (no numeral there: a set without one, or a strip cut
at the wrong quarter turn).

As the tile's quarter turn is itself a reading, every looked-at tile is cut at all four
turns and the readings are weighed by the classifier's rotation probabilities
(:func:`numeral_odds`); *none* spreads evenly over the four numerals, so a set with no
numeral leaves the bonus tiles' reading as it was (:func:`fuse_numerals`).
"""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt

#: share of the upright box's height the strip keeps (the top)
TOP = 0.45
#: the network's input ``(height, width)`` in pixels
STRIP_SIZE = (48, 80)
#: growth of the box on every side before cutting, as a share of its width/height
EXPAND = 0.06
#: the reader's answers, in output order (index 4: no numeral in the strip)
ANSWERS: tuple[str, ...] = ("1", "2", "3", "4", "none")
#: numeral index (0..3) of each bonus code ``1f``…``8f`` in that order
BONUS_NUMERAL = np.array([0, 1, 2, 3, 0, 1, 2, 3], np.int64)


def upright_top(
    image: npt.NDArray[np.uint8],
    box: tuple[float, float, float, float] | npt.NDArray[np.floating],
    quarter: int,
    size: tuple[int, int] = STRIP_SIZE,
    top: float = TOP,
    expand: float = EXPAND,
) -> npt.NDArray[np.uint8]:
    """The top strip of one tile: ``(3, H, W)`` uint8 **RGB** from the BGR ``image``.

    ``box`` xyxy in ``image`` pixels, grown by ``expand`` per side (clipped); ``quarter``
    the tile's clockwise rotation as it lies, in quarter turns (0..3), undone by turning
    the cut counter-clockwise; the top ``top`` of the upright cut is resized to ``size``
    ``(H, W)``. A box outside the image gives a black strip.

    >>> img = np.zeros((100, 100, 3), np.uint8); img[10:30, 10:50] = 255  # bar at the top
    >>> s = upright_top(img, (10, 10, 50, 90), 0, (8, 16), expand=0)
    >>> s.shape, int(s.mean()) > 100
    ((3, 8, 16), True)
    >>> int(upright_top(img, (10, 10, 50, 90), 2, (8, 16), expand=0).mean())  # turned: bottom
    0
    """
    h, w = image.shape[:2]
    x1, y1, x2, y2 = (float(v) for v in box)
    dx, dy = (x2 - x1) * expand, (y2 - y1) * expand
    a, b = max(0, int(np.floor(x1 - dx))), max(0, int(np.floor(y1 - dy)))
    c, d = min(w, int(np.ceil(x2 + dx))), min(h, int(np.ceil(y2 + dy)))
    if c <= a or d <= b:
        return np.zeros((3, *size), np.uint8)
    cut = np.rot90(image[b:d, a:c], int(quarter) % 4)
    keep = max(1, int(np.ceil(cut.shape[0] * top)))
    strip = cv2.resize(np.ascontiguousarray(cut[:keep]), (size[1], size[0]),
                       interpolation=cv2.INTER_AREA)
    return np.ascontiguousarray(strip[:, :, ::-1].transpose(2, 0, 1))


def strips_batch(
    image: npt.NDArray[np.uint8],
    boxes: npt.NDArray[np.floating],
    size: tuple[int, int] = STRIP_SIZE,
    top: float = TOP,
) -> npt.NDArray[np.float32]:
    """Every box cut at all four quarter turns (:func:`upright_top`): ``(n * 4, 3, H, W)``
    float32 RGB in 0..1, tile-major (rows ``4i .. 4i+3`` are tile ``i`` at turns 0..3)."""
    out = np.empty((len(boxes) * 4, 3, *size), np.float32)
    for i, box in enumerate(np.asarray(boxes, np.float32)):
        for q in range(4):
            out[4 * i + q] = upright_top(image, box, q, size, top)
    out *= np.float32(1 / 255)
    return out


def numeral_odds(
    strip_probs: npt.NDArray[np.floating], rotation_probs: npt.NDArray[np.floating]
) -> npt.NDArray[np.float32]:
    """Probability of each numeral 1..4 per tile, ``(n, 4)`` rows summing to 1.

    ``strip_probs`` ``(n, 4, 5)``: the reader's answers for each tile's strip cut at
    quarter turns 0..3; ``rotation_probs`` ``(n, 4)``: how likely the tile lies at each
    turn. A strip's *none* spreads evenly over the four numerals.

    >>> sure_two = np.array([[0, 1, 0, 0, 0]] + [[0, 0, 0, 0, 1]] * 3, float)[None]
    >>> numeral_odds(sure_two, np.array([[1.0, 0, 0, 0]])).round(2).tolist()
    [[0.0, 1.0, 0.0, 0.0]]
    >>> numeral_odds(sure_two, np.array([[0, 0, 1.0, 0]])).round(2).tolist()  # other turn
    [[0.25, 0.25, 0.25, 0.25]]
    """
    p = np.asarray(strip_probs, np.float64)
    per_turn = p[:, :, :4] + p[:, :, 4:5] / 4
    r = np.asarray(rotation_probs, np.float64)
    r = r / np.maximum(r.sum(axis=1, keepdims=True), 1e-12)
    return np.asarray((per_turn * r[:, :, None]).sum(axis=1), np.float32)


def fuse_numerals(
    bonus_probs: npt.NDArray[np.floating], odds: npt.NDArray[np.floating], weight: float
) -> npt.NDArray[np.float32]:
    """The tiles' probabilities on the eight bonus codes ``(n, 8)`` (``1f``…``8f``)
    re-ranked by the numeral odds ``(n, 4)``: each code's share times its numeral's odds
    to the power ``weight``, rescaled so each row keeps its sum (the chance the tile is a
    bonus tile at all is not the numeral reader's to say).

    >>> p = np.array([[0.3, 0.3, 0.0, 0.0, 0.2, 0.2, 0.0, 0.0]])
    >>> [round(float(v), 2) for v in fuse_numerals(p, np.array([[0.1, 0.9, 0, 0]]), 1.0)[0]]
    [0.06, 0.54, 0.0, 0.0, 0.04, 0.36, 0.0, 0.0]
    """
    p = np.asarray(bonus_probs, np.float64)
    mass = p.sum(axis=1, keepdims=True)
    factor = np.asarray(odds, np.float64)[:, BONUS_NUMERAL] ** weight
    out = p * factor
    total = out.sum(axis=1, keepdims=True)
    out = np.where(total > 0, out / np.maximum(total, 1e-300) * mass, p)
    return np.asarray(out, np.float32)
