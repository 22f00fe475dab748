"""Turn a photo whose rows run far off its edges so that they run level, and map boxes back.

Near a 45° roll the detector's axis-aligned boxes are square whatever a tile's shape, the
crop classifier sees every tile half turned, and which tile lies sideways (a meld's claim
source) becomes a guess. :func:`straight_region` turns the photo by the rows' measured
tilt and cuts the region of the tiles found, so a second detection sees the rows level
and the tiles larger; :func:`detections_back` brings that detection's boxes back to the
photo's pixels (the axis-aligned box around each turned box) for the caller's output.

All coordinates are pixels; ``A`` is a 2 × 3 affine matrix from photo pixels to region
pixels. A region cut from a reduced picture of the photo (:func:`vision.imageio.halved`)
has its map from the photo's own pixels by :func:`from_reduced`, so its boxes come back
in the photo's pixels all the same; so do a whole reduced picture's detections
(:func:`reduced_back`).

>>> img = np.zeros((960, 1280, 3), np.uint8)
>>> boxes = np.array([[600, 400, 640, 450], [640, 440, 680, 490]], np.float32)
>>> region, A = straight_region(img, boxes, 45.0)
>>> back = boxes_back(apply_affine(A, boxes), A, (1280, 960))
>>> bool(np.all(back[:, :2] <= boxes[:, :2] + 1) and np.all(back[:, 2:] >= boxes[:, 2:] - 1))
True
"""

from __future__ import annotations

import dataclasses
import math

import cv2
import numpy as np
import numpy.typing as npt

from vision.detections import Detections
from vision.imageio import DEFAULT_MAX_PIXELS

F32 = npt.NDArray[np.float32]


def straight_region(
    image: npt.NDArray[np.uint8], boxes: npt.ArrayLike, tilt_deg: float, margin: float = 2.0,
    max_pixels: int | None = None,
) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.float64]]:
    """The photo turned by ``tilt_deg`` (counter-clockwise, as the layout measures the
    rows' tilt) and cut to the tiles of ``boxes`` ``(n, 4)`` plus ``margin`` tile lengths
    on every side; the corners the turn exposes are grey (114, as the detector's
    letterbox). The region is shrunk to at most ``max_pixels`` pixels (default
    :data:`vision.imageio.DEFAULT_MAX_PIXELS`, the photo size limit: a turned photo is
    larger than the photo, and one near the limit would pass it — a photo's region under
    the limit is left as it is). Returns the region ``(h, w, 3)`` and ``A`` ``(2, 3)``,
    photo pixels → region pixels."""
    b = np.asarray(boxes, np.float64).reshape(-1, 4)
    h, w = image.shape[:2]
    m = cv2.getRotationMatrix2D((w / 2, h / 2), float(tilt_deg), 1.0)
    cos, sin = abs(m[0, 0]), abs(m[0, 1])
    nw, nh = int(h * sin + w * cos), int(h * cos + w * sin)
    m[0, 2] += nw / 2 - w / 2
    m[1, 2] += nh / 2 - h / 2
    x1, y1, x2, y2 = 0, 0, nw, nh  # no tiles: the whole turned photo
    if len(b):
        centres = np.stack([(b[:, 0] + b[:, 2]) / 2, (b[:, 1] + b[:, 3]) / 2], axis=1)
        pts = centres @ m[:, :2].T + m[:, 2]
        pad = margin * float(np.median(np.maximum(b[:, 2] - b[:, 0], b[:, 3] - b[:, 1])))
        x1 = int(max(0.0, pts[:, 0].min() - pad))
        y1 = int(max(0.0, pts[:, 1].min() - pad))
        x2 = int(min(float(nw), pts[:, 0].max() + pad))
        y2 = int(min(float(nh), pts[:, 1].max() + pad))
    a = np.asarray(m, np.float64).copy()
    a[:, 2] -= (x1, y1)
    rw, rh = max(1, x2 - x1), max(1, y2 - y1)
    limit = DEFAULT_MAX_PIXELS if max_pixels is None else max_pixels
    if rw * rh > limit:  # shrink the turned region to the limit (the map shrinks with it)
        shrink = math.sqrt(limit / (rw * rh))
        a *= shrink
        rw, rh = max(1, math.floor(rw * shrink)), max(1, math.floor(rh * shrink))
    region = cv2.warpAffine(image, a, (rw, rh), flags=cv2.INTER_LINEAR,
                            borderValue=(114, 114, 114))
    return np.asarray(region, np.uint8), a


def from_reduced(a: npt.NDArray[np.float64],
                 reduction: tuple[float, float]) -> npt.NDArray[np.float64]:
    """``a``, a map from the pixels of a picture of the photo reduced ``reduction`` =
    ``(rx, ry)`` times along x and y, as a map from the photo's own pixels.

    >>> a = np.array([[1.0, 0.0, -10.0], [0.0, 1.0, -20.0]])
    >>> from_reduced(a, (2.0, 2.0)).tolist()
    [[0.5, 0.0, -10.0], [0.0, 0.5, -20.0]]
    """
    out = np.asarray(a, np.float64).copy()
    out[:, 0] /= reduction[0]
    out[:, 1] /= reduction[1]
    return out


def reduced_back(dets: Detections, image_wh: tuple[int, int],
                 read_wh: tuple[int, int]) -> Detections:
    """``dets``, found by a detector given a ``read_wh`` = ``(width, height)`` picture of a
    ``image_wh`` photo (reduced, :func:`vision.imageio.halved`), with their boxes, and
    their weak boxes', in the photo's pixels (:func:`detections_back`). Their boxes are in
    the pixels of their ``image_size`` (a detector that reports it), else of the picture;
    ``dets`` itself when those are the photo's.

    >>> d = Detections.from_lists([(10, 20, 30, 50)], ["5p"], image_size=(2016, 1512))
    >>> back = reduced_back(d, (4032, 3024), (2016, 1512))
    >>> back.boxes.tolist(), back.image_size
    ([[20.0, 40.0, 60.0, 100.0]], (4032, 3024))
    """
    size = dets.image_size or read_wh
    if tuple(size) == tuple(image_wh):
        return dets
    a = from_reduced(np.eye(2, 3), (image_wh[0] / size[0], image_wh[1] / size[1]))
    return detections_back(dets, a, image_wh)


def apply_affine(a: npt.NDArray[np.float64], boxes: npt.ArrayLike) -> F32:
    """The axis-aligned boxes ``(n, 4)`` around ``boxes`` ``(n, 4)`` mapped by ``a``."""
    b = np.asarray(boxes, np.float64).reshape(-1, 4)
    xs = b[:, [0, 2, 2, 0]]
    ys = b[:, [1, 1, 3, 3]]
    px = a[0, 0] * xs + a[0, 1] * ys + a[0, 2]
    py = a[1, 0] * xs + a[1, 1] * ys + a[1, 2]
    return np.stack([px.min(1), py.min(1), px.max(1), py.max(1)], axis=1).astype(np.float32)


def boxes_back(boxes: npt.ArrayLike, a: npt.NDArray[np.float64], image_wh: tuple[int, int]) -> F32:
    """Region boxes ``(n, 4)`` back in photo pixels (the box around each turned box,
    clipped to the ``(width, height)`` photo)."""
    back = apply_affine(np.asarray(cv2.invertAffineTransform(a), np.float64), boxes)
    w, h = image_wh
    back[:, [0, 2]] = back[:, [0, 2]].clip(0, w)
    back[:, [1, 3]] = back[:, [1, 3]].clip(0, h)
    return back


def detections_back(
    dets: Detections, a: npt.NDArray[np.float64], image_wh: tuple[int, int]
) -> Detections:
    """``dets`` found in a region of :func:`straight_region` with its boxes (and its weak
    boxes') back in photo pixels and ``image_size`` the photo's; nothing else changes
    (rotations stay as the tiles lay in the region)."""
    weak = dets.weak
    if weak is not None:
        weak = dataclasses.replace(weak, boxes=boxes_back(weak.boxes, a, image_wh),
                                   image_size=image_wh)
    return dataclasses.replace(dets, boxes=boxes_back(dets.boxes, a, image_wh),
                               image_size=image_wh, weak=weak)
