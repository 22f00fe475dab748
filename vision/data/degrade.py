"""Training copies of real photos as a worse camera would take them.

The robustness bench (``bench/robustness_eval.py``) found two conditions the detector
reads much worse than the photos as taken: a shaking hand (motion blur) and a dim room.
The detector's training mix (``train/gpu/pack.py --degrade``) therefore carries some
photo copies changed so. The changes here are drawn over ranges around, not at, the
bench's fixed settings, so the bench stays a measurement and not a target:

- ``motion blur``: a straight smear of 4–12 px (at the photo's own size; the hk photos
  are 640 px) in a random direction;
- ``dim``: brightness × 0.3–0.65, then sensor noise of σ 2–6 grey levels.

Every function takes and returns a BGR ``uint8`` image of shape ``(H, W, 3)``; labels
stay valid since no pixel moves.
"""

from __future__ import annotations

import cv2
import numpy as np

Image = np.ndarray

#: The changes :func:`degrade` draws from, with their weights.
KINDS: dict[str, float] = {"motion blur": 0.6, "dim": 0.4}


def smear(img: Image, length: int, angle_deg: float) -> Image:
    """Blur along a straight line ``length`` px long at ``angle_deg`` (0 = horizontal).

    >>> dot = np.zeros((21, 21, 3), np.uint8); dot[10, 10] = 255
    >>> out = smear(dot, 9, 0.0)
    >>> int((out[10, :, 0] > 0).sum()), int((out[:, 10, 0] > 0).sum())
    (9, 1)
    """
    if length < 2:
        return img.copy()
    size = length if length % 2 else length + 1
    c = size // 2
    k = np.zeros((size, size), np.float32)
    k[c, c - length // 2 : c - length // 2 + length] = 1.0
    turn = cv2.getRotationMatrix2D((float(c), float(c)), angle_deg, 1.0)
    turned = np.asarray(cv2.warpAffine(k, turn, (size, size)), np.float32)
    turned /= max(float(turned.sum()), 1e-6)
    return np.asarray(cv2.filter2D(img, -1, turned), np.uint8)


def darken(img: Image, gain: float, sigma: float, rng: np.random.Generator) -> Image:
    """Brightness × ``gain`` plus Gaussian noise of ``sigma`` grey levels, clipped.

    >>> out = darken(np.full((4, 4, 3), 200, np.uint8), 0.5, 0.0, np.random.default_rng(0))
    >>> int(out.max())
    100
    """
    noisy = img.astype(np.float32) * gain + rng.normal(0.0, sigma, img.shape)
    return np.asarray(np.clip(noisy, 0, 255), np.uint8)


def degrade(img: Image, rng: np.random.Generator) -> tuple[Image, str]:
    """One change drawn from :data:`KINDS`; returns the changed image and its name.

    >>> img = np.full((32, 32, 3), 180, np.uint8)
    >>> out, kind = degrade(img, np.random.default_rng(3))
    >>> kind in KINDS, out.shape == img.shape
    (True, True)
    """
    names = list(KINDS)
    weights = np.array([KINDS[n] for n in names], np.float64)
    kind = names[int(rng.choice(len(names), p=weights / weights.sum()))]
    if kind == "motion blur":
        return smear(img, int(rng.integers(4, 13)), float(rng.uniform(0.0, 180.0))), kind
    return darken(img, float(rng.uniform(0.3, 0.65)), float(rng.uniform(2.0, 6.0)), rng), kind
