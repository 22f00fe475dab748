"""Where a second detector pass looks when the first found the tiles small or few.

Plain geometry over boxes in image pixels ``(n, 4)`` xyxy: the region around the tiles
found, grown to take in the boxes chained to them (:func:`zoom_region`,
:func:`chained_to`), and the grid of overlapping cells a frame is cut into when few or
tiny tiles were found (:func:`grid_cells`, :func:`touches_inner_edge`).
:meth:`vision.detect.Detector.detect` runs the passes; the manifest's ``zoom`` entry
(:mod:`vision.manifest`) sets their thresholds. And whether tiles found in a large
photo's reduced picture are big enough there that the photo itself would show the
detector no more of them (:func:`big_enough`, for :func:`vision.recognize.recognize`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from vision import postprocess as pp

if TYPE_CHECKING:
    from vision.manifest import DetectorSpec


def median_long_side(boxes: npt.NDArray[np.float32]) -> float:
    """Median long side of ``boxes`` ``(n, 4)`` xyxy, in their pixels (0 when empty)."""
    if not len(boxes):
        return 0.0
    return float(np.median(np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1])))


def chained_to(
    seeds: npt.NDArray[np.float32], boxes: npt.NDArray[np.float32], reach: float
) -> npt.NDArray[np.float32]:
    """``seeds`` and the ``boxes`` ``(n, 4)`` xyxy reached from them through boxes at most
    ``reach`` px apart (edge to edge): a row of tiles chains along, tiles a table's width
    away do not join.

    >>> s = np.array([[0, 0, 10, 14]], np.float32)
    >>> b = np.array([[12, 0, 22, 14], [24, 0, 34, 14], [90, 0, 100, 14]], np.float32)
    >>> chained_to(s, b, 5.0)[:, 0].tolist()
    [0.0, 12.0, 24.0]
    """
    kept = [np.asarray(seeds, np.float32).reshape(-1, 4)]
    left = np.asarray(boxes, np.float32).reshape(-1, 4)
    frontier = kept[0]
    while len(frontier) and len(left):
        near = (pp.edge_gaps(left, frontier) <= reach).any(axis=1)
        frontier, left = left[near], left[~near]
        kept.append(frontier)
    return np.concatenate(kept)


def zoom_region(
    boxes: npt.NDArray[np.float32],
    image_wh: tuple[int, int],
    input_scale: float,
    *,
    below: float,
    margin: float = 1.5,
) -> tuple[int, int, int, int] | None:
    """The region worth a second, enlarged look, or None.

    ``boxes`` ``(n, 4)`` xyxy in pixels of a ``width × height`` image that the detector
    saw at ``input_scale`` input pixels per image pixel. When at least 3 tiles were found
    and their median short side is below ``below`` input pixels, the region is the
    tiles' bounding box grown by ``margin`` median tile lengths per side (missed tiles at
    the ends of a row), clipped to the image, ``(x1, y1, x2, y2)`` (ints). Whether the
    region is enough smaller than the image to be worth it is the caller's call.

    >>> b = np.array([[100, 100, 120, 130], [120, 100, 140, 130], [140, 100, 160, 130]],
    ...              np.float32)
    >>> zoom_region(b, (1280, 960), 0.4, below=24)
    (55, 55, 205, 175)
    >>> zoom_region(b, (1280, 960), 2.0, below=24) is None  # big enough already
    True
    """
    if below <= 0 or len(boxes) < 3:
        return None
    if pp.median_short_side(boxes) * input_scale >= below:
        return None
    grow = margin * median_long_side(boxes)
    width, height = image_wh
    x1 = int(max(0.0, float(boxes[:, 0].min()) - grow))
    y1 = int(max(0.0, float(boxes[:, 1].min()) - grow))
    x2 = int(min(float(width), float(boxes[:, 2].max()) + grow + 0.5))
    y2 = int(min(float(height), float(boxes[:, 3].max()) + grow + 0.5))
    if x2 - x1 < 2 or y2 - y1 < 2:
        return None
    return x1, y1, x2, y2


#: Short side, in pixels of a photo's reduced picture
#: (:func:`vision.imageio.load_for_reading`), that the tiles found there need (their
#: median) for the reading of that picture to stand for the photo's; smaller tiles are
#: read from the photo itself. On the synthetic table scenes (:mod:`vision.tile_size`)
#: hands of tiles 50–70 px read as well as those of larger ones (87 % exact), and tiles
#: under 50 px in a 2016 px picture are under 32 px in a 1280 × 960 frame: small, where a
#: sharper look still pays. On 24 scenes of tiles 60–260 px tall in a 4032 × 3024 photo
#: (``bench/large_photo_bench.py``), those read reduced got 20 all right against 18 at
#: full size; on 78 hk photos enlarged to 12 MP, 76 read the same codes as at full size
#: (the other two: which flower a tile read as a flower at p 0.006 is, and one 2m/3m).
FINE_TILE_PX = 50.0


def big_enough(boxes: npt.NDArray[np.floating], reduction: float = 1.0,
               px: float | None = None) -> bool:
    """Whether ``boxes`` ``(n, 4)`` xyxy, in a photo's pixels, are at least 3 whose median
    short side is ``px`` (default :data:`FINE_TILE_PX`, read at the call) or more in a
    picture of the photo reduced ``reduction`` times.

    >>> b = np.array([[0, 0, 120, 160], [120, 0, 240, 160], [240, 0, 360, 160]], np.float32)
    >>> big_enough(b, 2.0), big_enough(b, 2.5), big_enough(b[:2], 1.0)
    (True, False, False)
    """
    boxes = np.asarray(boxes, np.float32).reshape(-1, 4)
    need = FINE_TILE_PX if px is None else px
    return len(boxes) >= 3 and pp.median_short_side(boxes) >= need * reduction


def tiles_big(boxes: npt.NDArray[np.float32], scale: float, spec: DetectorSpec) -> bool:
    """Whether the (few) ``boxes`` found are at least ``zoom_below`` input px across."""
    return bool(len(boxes)) and pp.median_short_side(boxes) * scale >= spec.zoom_below


#: Most cells a strip's grid (:func:`grid_shape`) cuts it into: detector runs.
MOST_STRIP_CELLS = 16


def grid_shape(image_wh: tuple[int, int], n: int, most: int = MOST_STRIP_CELLS) -> tuple[int, int]:
    """``(columns, rows)`` of the grid pass's cells: ``n × n`` for a frame up to twice as
    long as it is wide; a longer strip (a panorama, a photo cropped to one row of tiles
    far away) is cut into more cells along its length, each about 4:3 like the detector's
    input — ``n`` across, ``ceil(n · long · 3 / (4 · short))`` along — at most ``most``
    cells in all (an ``n × n`` grid of an 8:1 strip shrinks its tiles 4× more).

    >>> grid_shape((1280, 960), 2), grid_shape((960, 1280), 2), grid_shape((1920, 1080), 2)
    ((2, 2), (2, 2), (2, 2))
    >>> grid_shape((3000, 1000), 2), grid_shape((640, 5120), 2), grid_shape((4000, 1), 2)
    ((5, 2), (2, 8), (8, 2))
    """
    width, height = image_wh
    long_side, short_side = max(width, height), max(min(width, height), 1)
    if long_side <= 2 * short_side:
        return n, n
    along = max(n, min(-(-n * long_side * 3 // (4 * short_side)), most // max(n, 1)))
    return (along, n) if width >= height else (n, along)


def grid_cells(
    image_wh: tuple[int, int], n: int, overlap: float = 0.125,
    shape: tuple[int, int] | None = None,
) -> list[tuple[int, int, int, int]]:
    """``n × n`` cells ``(x1, y1, x2, y2)`` (ints, row by row) covering a ``width ×
    height`` image; neighbouring cells overlap by ``overlap`` of the image's width
    (height), so every tile shorter than that lies whole inside at least one cell.
    ``shape``: ``(columns, rows)`` instead (:func:`grid_shape`); along an axis cut into
    ``k > n`` cells they overlap by ``overlap`` of ``n / k`` of its length (as ``n``
    cells of that length would), and a cell that comes twice (rows of a strip a few
    pixels thin) is given once. Every cell is at least 1 px on each side, however thin
    the image (a 1 px tall strip gives cells 1 px tall).

    >>> grid_cells((1280, 960), 2)
    [(0, 0, 720, 540), (560, 0, 1280, 540), (0, 420, 720, 960), (560, 420, 1280, 960)]
    >>> grid_cells((4000, 1), 2)
    [(0, 0, 2250, 1), (1750, 0, 4000, 1), (0, 0, 2250, 1), (1750, 0, 4000, 1)]
    >>> grid_cells((4000, 1000), 2, shape=(4, 2))[:4]
    [(0, 0, 1125, 562), (875, 0, 2125, 562), (1875, 0, 3125, 562), (2875, 0, 4000, 562)]
    """
    width, height = image_wh
    cols, rows = shape or (n, n)

    def spans(side: int, count: int) -> list[tuple[int, int]]:
        half = overlap * side * (n / count if count > n else 1.0) / 2
        out = []
        for i in range(count):
            start = min(int(max(0.0, i * side / count - half)), max(side - 1, 0))
            end = int(min(float(side), (i + 1) * side / count + half))
            out.append((start, max(end, start + 1)))
        return out

    cells = [(x1, y1, x2, y2) for y1, y2 in spans(height, rows) for x1, x2 in spans(width, cols)]
    return cells if shape is None else list(dict.fromkeys(cells))  # a thin strip: once each


def touches_inner_edge(
    boxes: npt.NDArray[np.float32],
    cell: tuple[int, int, int, int],
    image_wh: tuple[int, int],
    tolerance: float = 2.0,
) -> npt.NDArray[np.bool_]:
    """Which ``boxes`` ``(n, 4)`` (xyxy in the cell's own pixels) reach within
    ``tolerance`` px of a side of ``cell`` that is inside the image: tiles cut by the
    cell, found whole in a neighbouring cell. Returns ``(n,)`` bools.

    >>> b = np.array([[0, 10, 30, 50], [100, 10, 130, 50], [690, 10, 719, 50]], np.float32)
    >>> touches_inner_edge(b, (560, 0, 1280, 540), (1280, 960)).tolist()
    [True, False, False]
    """
    x1, y1, x2, y2 = cell
    width, height = image_wh
    w, h = x2 - x1, y2 - y1
    cut = np.zeros(len(boxes), bool)
    if x1 > 0:
        cut |= boxes[:, 0] <= tolerance
    if y1 > 0:
        cut |= boxes[:, 1] <= tolerance
    if x2 < width:
        cut |= boxes[:, 2] >= w - tolerance
    if y2 < height:
        cut |= boxes[:, 3] >= h - tolerance
    return cut
