"""Which tiles of a row lie sideways (a claimed tile, 吃/碰/明杠), from two cues.

The crop classifier says how each tile is turned (rotation probabilities over 0/90/180/
270°). For faces that look alike turned a quarter (5p, 9p, the white dragon, most
dots) it splits its belief, and a sideways tile left standing breaks the meld it
belongs to. The box says it too: a tile lying sideways is wider along the row and lower
across it than its row's upright tiles. A small logistic model weighs the two:

    odds = b0 + b1·logit(p_side) + b2·log(w / w_row) + b3·log(h / h_row)
           + b4·back + b5·back·log(w / w_row)

``p_side`` is the classifier's probability of the two rotations that are sideways
relative to the rows (clipped to 0.01–0.99); ``w, h`` the tile's extent along and across
its row in the canonical frame (:class:`vision.layout_geometry.Frame`) and ``w_row,
h_row`` the row's medians; ``back`` 1 for a face-down tile (its face says nothing, its
shape everything). The layout calls a tile sideways when ``odds`` exceed
``LayoutParams.sideways_min_odds`` (−1, chosen on the choice scenes: a claimed tile missed
costs its meld's claim source, a standing tile called sideways only a cost in the row's
split).

:data:`SIDEWAYS_MODEL` was fitted (``train/fit_sideways.py``) on the tiles of the 250
``synth-table`` scenes (training art, made for detector training and never used by the
shipped model) as the shipped model 2026-11-30.17 reads them; it belongs to that
classifier and is refitted with it. Detections without rotation probabilities (no
classifier, or truth boxes) keep the rotation rule of :mod:`vision.layout`.

>>> p = sideways_probability(np.array([[0.5, 0.3, 0.1, 0.1]]), frame_rotation=0, tilt_deg=0)
>>> p.round(2).tolist()
[0.4]
>>> odds = sideways_odds([0.3, 0.3], [0.3, 0.0], [-0.25, 0.0], [False, False])
>>> (odds > 0).tolist()  # an unsure classifier: the wide, low box is the sideways one
[True, False]
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

Array = npt.NDArray[np.float64]

#: Logistic coefficients ``(b0 … b5)`` of the module doc, fitted for model 2026-11-30.17:
#: ``train/fit_sideways.py datasets/generated/synth-table`` (3,770 tiles, 448 sideways).
SIDEWAYS_MODEL: tuple[float, ...] = (-1.74, 1.0, 5.64, -11.88, -4.74, 23.1)


def sideways_probability(
    rotation_probs: npt.ArrayLike, frame_rotation: int, tilt_deg: float
) -> Array:
    """The classifier's probability ``(n,)`` that each tile lies sideways to its rows.

    ``rotation_probs`` ``(n, 4)`` over image rotations 0/90/180/270°; the rows run at
    ``frame_rotation + tilt_deg`` degrees in the image, so image rotation ``r`` is
    ``r - frame_rotation - tilt_deg`` relative to the rows, rounded to 90° as the layout
    rounds the detector's rotations.
    """
    p = np.asarray(rotation_probs, np.float64).reshape(-1, 4)
    rel = (np.round((np.arange(4) * 90 - frame_rotation - tilt_deg) / 90.0).astype(np.int64)
           * 90) % 360
    return np.asarray(p[:, np.isin(rel, (90, 270))].sum(axis=1))


def sideways_terms(
    p_side: npt.ArrayLike, log_w: npt.ArrayLike, log_h: npt.ArrayLike, back: npt.ArrayLike
) -> Array:
    """The model's inputs ``(n, 6)`` — ``1, logit(p_side), log_w, log_h, back,
    back·log_w`` (module doc) — for the layout and for fitting (``train/fit_sideways.py``):
    ``p_side`` the classifier's sideways probability, ``log_w``/``log_h`` the log of the
    tile's extent along/across the row over the row's median, ``back`` whether it is face
    down."""
    ps = np.clip(np.asarray(p_side, np.float64), 0.01, 0.99)
    lw = np.asarray(log_w, np.float64)
    bk = np.asarray(back, np.float64)
    return np.column_stack([np.ones(len(ps)), np.log(ps / (1 - ps)), lw,
                            np.asarray(log_h, np.float64), bk, bk * lw])


def sideways_odds(
    p_side: npt.ArrayLike,
    log_w: npt.ArrayLike,
    log_h: npt.ArrayLike,
    back: npt.ArrayLike,
    model: tuple[float, ...] = SIDEWAYS_MODEL,
) -> Array:
    """Log-odds ``(n,)`` that each tile lies sideways: :func:`sideways_terms` weighed by
    the ``model``'s 6 coefficients."""
    if len(model) != 6:
        raise ValueError(f"a sideways model has 6 coefficients, got {len(model)}")
    return np.asarray(sideways_terms(p_side, log_w, log_h, back) @ np.asarray(model, np.float64))


def row_features(
    w: Array, h: Array, row: list[int]
) -> tuple[Array, Array]:
    """``log(w / median w)`` and ``log(h / median h)`` of the tiles of ``row`` (indices
    into the frame's arrays ``w``, ``h``), in row order, ``(len(row),)`` each."""
    ww, hh = w[row], h[row]
    mw, mh = max(float(np.median(ww)), 1e-9), max(float(np.median(hh)), 1e-9)
    return np.log(ww / mw), np.log(hh / mh)


def claim_margin(odds: dict[int, float], tiles: tuple[int, ...], sideways: int) -> float | None:
    """How clearly one tile of a claimed meld is the sideways one, in log-odds: the least
    of the sideways tile's odds and the other tiles' negated odds, all taken relative to
    the layout's threshold (``odds``: detection index → odds minus the threshold, for the
    tiles the model judged). ``tiles``: the meld's laid-out tiles in row order (not an
    added tile stacked on it), ``sideways`` the position of the sideways one. None when
    a tile was not judged by the model.

    >>> claim_margin({3: 2.5, 4: -4.0, 5: -0.5}, (3, 4, 5), 0)
    0.5
    """
    if any(t not in odds for t in tiles):
        return None
    return min(odds[tiles[sideways]],
               *(-odds[t] for k, t in enumerate(tiles) if k != sideways))
