"""A grainy frame smoothed before its tiles are looked for.

Sensor noise — a dim room, a cheap table camera — costs the detector more than most
things a photo goes through: on the real photos as taken, Gaussian noise of σ 10 grey
levels lowers the share read with every tile right from 78.8 to 65.3 % (training photos;
``bench/robustness_eval.py``), while a slight blur costs little. So a frame whose noise
is plainly above a clean photo's is smoothed a little first: a Gaussian blur of
``sigma`` px (the manifest's ``detector.denoise``, :class:`vision.manifest.DetectorSpec`).

The noise is estimated with Immerkær's mask (blind to smooth shading and straight
edges) over a few bands of rows spread down the frame, from a low quantile of its
response so that texture does not pass for noise (:func:`noise_sigma`): the real photos
as taken measure 0–2, the same photos with noise of σ 10 in each colour channel 4.6–14.5.
"""

from __future__ import annotations

from statistics import NormalDist

import cv2
import numpy as np
import numpy.typing as npt

#: Immerkær's mask: the difference of two Laplacians, blind to planes and straight edges.
_MASK = np.array([[1, -2, 1], [-2, 4, -2], [1, -2, 1]], np.float32)
#: Bands of rows measured, and their height (px): the estimate reads ~1/4 of a 960-row
#: frame (a band needs 3 rows for the mask; 18 keep 16 after the borders are cut).
BANDS = 12
BAND_ROWS = 18
#: The quantile of the absolute responses read (see :func:`noise_sigma`) ...
QUANTILE = 0.2
#: ... and where it lies for white Gaussian noise, in units of the response's σ (6 σ of
#: the noise for this mask): the ``(1 + QUANTILE) / 2`` quantile of the standard normal.
_HALF_NORMAL_Q = NormalDist().inv_cdf((1 + QUANTILE) / 2)
#: The largest absolute response of the mask to 8-bit grey (16 × 255).
_MAX_RESPONSE = 16 * 255


def noise_sigma(image: npt.NDArray[np.uint8]) -> float:
    """The σ (grey levels) of white Gaussian noise that would explain the fine grain of
    a BGR (or grey) ``image`` ``(H, W[, 3])`` seen in grey, read from :data:`BANDS` bands
    of rows (noise of σ 10 in each colour channel on its own is about 6.7 in grey).

    From the :data:`QUANTILE` quantile of the mask's absolute response rather than its
    mean: texture and edges (a woven cloth, the tiles' glyphs) raise the upper part of
    the responses, noise all of them, so the low quantile reads the noise alone as long
    as some of the frame is smooth. A clean photo reads 0–2, the same photo with σ 10 of
    noise 4.6–14.5 (hk-photos as taken, 244 photos).

    >>> flat = np.full((120, 160, 3), 128, np.uint8)
    >>> noise_sigma(flat)
    0.0
    >>> rng = np.random.default_rng(0)
    >>> grainy = np.clip(128 + rng.normal(0, 10, flat.shape), 0, 255).astype(np.uint8)
    >>> 5.5 < noise_sigma(grainy) < 8.0
    True
    >>> 8.5 < noise_sigma(grainy[..., 0]) < 11.5  # one channel: grey already
    True
    >>> weave = np.tile(np.array([[0, 255], [255, 0]], np.uint8), (60, 80))  # texture
    >>> noise_sigma(np.where(np.arange(160) < 100, weave, 128).astype(np.uint8))
    0.0
    """
    h = image.shape[0]
    if h < 3 or image.shape[1] < 3:
        return 0.0
    rows = min(BAND_ROWS, h)
    counts = np.zeros(_MAX_RESPONSE + 1, np.int64)  # how often each |response| occurs
    for y in np.unique(np.linspace(0, h - rows, min(BANDS, h - rows + 1)).astype(int)):
        band = image[y:y + rows]
        grey = cv2.cvtColor(band, cv2.COLOR_BGR2GRAY) if band.ndim == 3 else band
        response = cv2.filter2D(grey, cv2.CV_16S, _MASK)[1:-1, 1:-1]  # whole numbers
        counts += np.bincount(np.abs(response.astype(np.int32)).ravel(),
                              minlength=_MAX_RESPONSE + 1)
    total = int(counts.sum())
    if not total:
        return 0.0
    level = int(np.searchsorted(np.cumsum(counts), QUANTILE * (total - 1), side="right"))
    return level / (6.0 * _HALF_NORMAL_Q)


def smooth_if_grainy(
    image: npt.NDArray[np.uint8], above: float, sigma: float
) -> tuple[npt.NDArray[np.uint8], float]:
    """``image`` blurred by a Gaussian of ``sigma`` px when :func:`noise_sigma` reaches
    ``above`` (else as it is), and the noise measured. ``above`` ≤ 0: never (the noise
    is then not measured and reported as 0).

    >>> rng = np.random.default_rng(1)
    >>> img = np.clip(128 + rng.normal(0, 10, (60, 80, 3)), 0, 255).astype(np.uint8)
    >>> out, grain = smooth_if_grainy(img, 5.0, 0.8)
    >>> grain > 5.0 and float(out.std()) < float(img.std())
    True
    >>> smooth_if_grainy(img, 0.0, 0.8)[0] is img
    True
    """
    if above <= 0 or sigma <= 0:
        return image, 0.0
    grain = noise_sigma(image)
    if grain < above:
        return image, grain
    return np.asarray(cv2.GaussianBlur(image, (0, 0), sigma), np.uint8), grain
