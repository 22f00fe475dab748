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

A frame judged smeared also gets :func:`blur_note` in its reading
(:func:`vision.recognize.recognize`): such frames are read right less often even with the
networks for them. Model 2026-12-05.34, `tilecam eval`'s photo copies split by the gate
(`Detections.meta["blurred"]`): val 80.1 % of 337 sharp copies with every tile right
against 68.1 % of 69 judged smeared; training photos 81.3 % of 1,358 against 77.8 % of 334.

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


#: The words of :func:`blur_note` that say the tiles look smeared (to find the note).
SMEARED = "the tiles look smeared or out of focus"


def blur_note(blurred: bool | None) -> str | None:
    """The note for a frame the classifier's gate judged smeared (``blurred``, from
    ``Detections.meta["blurred"]``); None for a sharp frame or one not judged.

    >>> blur_note(True)  # doctest: +ELLIPSIS
    'the tiles look smeared or out of focus (a moving hand or camera?): ... hold still...'
    >>> blur_note(False) is None and blur_note(None) is None
    True
    """
    if blurred is not True:
        return None
    return (
        f"{SMEARED} (a moving hand or camera?): in tests 68 % of such photos had every "
        "tile right, against 80 % of sharp ones — hold still and take it again if a tile "
        "is wrong"
    )
