"""How sharp a frame's tiles are, from the crops the classifier reads.

A shaking hand smears a photo (motion blur): the glyphs' strokes run into each other and
the crop classifier trained on sharp tiles misreads them (``2m`` as ``3m``, ``N`` as
``F``). The manifest's optional ``classifier.blurred`` entry names a second classifier
taught to read smeared crops as the first reads them sharp
(``train/classifier/train.py --motion --teacher-clean``); :func:`crop_sharpness` decides
which of the two reads a frame.

The measure is the median, over the frame's crops, of the variance of each crop's
Laplacian (grey, ``cv2.Laplacian`` 3 × 3 aperture, pixel values in 0..1, at the
classifier's crop size): a property of the tiles, not of the table around them. On the
real training photos as taken its 5th percentile is 0.0126; smeared 7 px it falls to
0.0035 (median); small tiles of a table camera, upsampled to the crop size, fall low too,
which is why the blurred classifier must also read sharp-but-small tiles as well as the
first (fiftieth session, ``models/HISTORY.md`` recipe step 67).

>>> import numpy as np
>>> flat = np.full((2, 3, 8, 8), 0.5, np.float32)
>>> crop_sharpness(flat)
0.0
>>> board = np.indices((8, 8)).sum(axis=0) % 2
>>> crops = np.stack([np.broadcast_to(board, (3, 8, 8))] * 3).astype(np.float32)
>>> crop_sharpness(crops) > 1.0
True
"""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt


def crop_sharpness(crops: npt.NDArray[np.floating]) -> float:
    """Median Laplacian variance of ``crops`` ``(N, 3, S, S)`` (RGB, 0..1); 0 for none."""
    if not len(crops):
        return 0.0
    grey = np.asarray(crops, np.float32).mean(axis=1)
    return float(np.median([cv2.Laplacian(g, cv2.CV_32F).var() for g in grey]))
