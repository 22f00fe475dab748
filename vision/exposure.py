"""A dark frame brightened before its tiles are looked for.

A dim room darkens the whole photo and squeezes the tiles' glyphs into a few grey levels:
on the real photos as taken, brightness × 0.45 (with the sensor noise such a photo
carries) lowers the share read with every tile right from 78.8 to 71.5 % (training
photos; ``bench/robustness_eval.py``). The ivory tile faces are the brightest things on
most tables, so the bright end of the frame says how dark it is: a frame whose 99th
percentile of grey (:func:`bright_level`) is under ``below`` is scaled so that it reaches
``to`` (the manifest's ``detector.brighten``, :class:`vision.manifest.DetectorSpec`;
off in the shipped model, whose detector reads the dark synthetic scenes better as they
are: recipe steps 59 and 68).

A reading of a dark frame says so instead (:func:`dark_note`, added by
:func:`vision.recognize.recognize`): the val photos as taken, model 2026-12-05.34, have
every tile right 76.5 % of the time, made dim 68.6 % (``bench/robustness_eval.py``, 51
photos). The note comes with none of the 406 val copies as taken (their bright end
171 and up), one of the 193 untouched training photos, and every one of them dimmed; it
costs about 0.2 ms a 1280 × 960 frame.
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


#: A frame whose bright end (:func:`bright_level`) is under this gets :func:`dark_note`.
DARK_BELOW = 140.0
#: The words of :func:`dark_note` that say the photo is dark (to find the note).
DARK = "the photo is dark"


def dark_note(image: npt.NDArray[np.uint8], below: float = DARK_BELOW) -> str | None:
    """The note for a dark BGR ``image`` ``(H, W, 3)``: its bright end, read on every
    eighth row and column (:func:`bright_level`'s stride over every second row and
    column: a quarter of its work), under ``below`` grey levels; None when it is not dark.

    >>> dim = np.full((40, 40, 3), 60, np.uint8)
    >>> dark_note(dim)  # doctest: +ELLIPSIS
    'the photo is dark (its brightest tiles at grey level 60 of 255): ... more light...'
    >>> dark_note(np.full((40, 40, 3), 200, np.uint8)) is None
    True
    """
    level = bright_level(image[::2, ::2])
    if level >= below:
        return None
    return (
        f"{DARK} (its brightest tiles at grey level {level:.0f} of 255): in tests photos "
        "made that dark had every tile right 69 % of the time, against 77 % as taken — "
        "more light reads them better"
    )
