"""A dark frame brightened before its tiles are looked for.

A dim room darkens the whole photo and squeezes the tiles' glyphs into a few grey levels:
on the real photos as taken, brightness × 0.45 (with the sensor noise such a photo
carries) lowers the share read with every tile right from 78.8 to 71.5 % (training
photos; ``bench/robustness_eval.py``). The ivory tile faces are the brightest things on
most tables, so the bright end of the frame says how dark it is: a frame whose 99th
percentile of grey (:func:`bright_level`) is under ``below`` is scaled so that it reaches
``to`` (the manifest's ``detector.brighten``, :class:`vision.manifest.DetectorSpec`).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

#: The percentile of grey read as the frame's bright end (tile faces; a few specular
#: highlights above it do not count).
BRIGHT_PERCENTILE = 99.0
#: Every this many rows and columns are read (a 1280×960 frame: 76,800 pixels).
STRIDE = 4


def bright_level(image: npt.NDArray[np.uint8]) -> float:
    """The :data:`BRIGHT_PERCENTILE` of a BGR (or grey) ``image`` ``(H, W[, 3])`` in grey
    levels (0–255), read on every :data:`STRIDE`-th row and column.

    >>> img = np.full((40, 40, 3), 60, np.uint8)
    >>> img[:20] = 100
    >>> bright_level(img)
    100.0
    """
    sample = image[::STRIDE, ::STRIDE]
    if sample.ndim == 3:  # ITU-R BT.601 luma, as cv2's BGR → grey
        sample = sample[..., 0] * 0.114 + sample[..., 1] * 0.587 + sample[..., 2] * 0.299
    return float(np.percentile(sample, BRIGHT_PERCENTILE)) if sample.size else 0.0


def brighten_if_dark(
    image: npt.NDArray[np.uint8], below: float, to: float
) -> tuple[npt.NDArray[np.uint8], float]:
    """``image`` scaled so that its :func:`bright_level` becomes ``to`` when that level is
    under ``below`` (else as it is), and the level measured. ``below`` ≤ 0: never (the
    level is then not measured and reported as 0).

    >>> dim = np.full((8, 8, 3), 50, np.uint8)
    >>> out, level = brighten_if_dark(dim, 140.0, 220.0)
    >>> level, int(out[0, 0, 0])
    (50.0, 220)
    >>> brighten_if_dark(dim, 0.0, 220.0)[0] is dim
    True
    """
    if below <= 0 or to <= 0:
        return image, 0.0
    level = bright_level(image)
    if level >= below:
        return image, level
    gain = to / max(level, 1.0)
    out = np.clip(image.astype(np.float32) * gain + 0.5, 0, 255)
    return out.astype(np.uint8), level
