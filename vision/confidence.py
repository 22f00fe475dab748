"""How likely a reading is exactly right: a calibrated hand confidence.

:attr:`vision.recognize.Recognition.reading_confidence` is the model's own probability
that every final code is right, boxes taken as found. It cannot see tiles the detector
missed or boxes on things that are not tiles, and the classifier's probabilities are
over-confident, so it says 0.9 for readings that are right far less often than 9 times
in 10. The *hand confidence* maps a few signals of one recognition onto the measured
probability that its tile multiset is exactly right, with a logistic model fitted on
photos with known answers (``train/calibrate.py``) and stored in the model's manifest::

    "calibration": {"features": ["log_reading", ...], "coef": [...], "intercept": -0.4,
                    "fitted_on": "..."}

Signals (:func:`hand_features`, one number each):

- ``log_reading``: log10 of ``reading_confidence`` (floored at 1e-6);
- ``min_score``: the lowest detector score among the tiles (a weak box may be no tile);
- ``weak_boxes``: tiles whose detector score is under 0.4, counted up to
  :data:`WEAK_BOXES_MOST` (3);
- ``hand_read``: 1 when the reading is a hand the scorer takes (scored, or its waits
  given), else 0 (wrong tile count, no hand);
- ``win``: 1 when that hand is a scored win (a complete hand is unlikely with a tile
  missing or extra), else 0;
- ``corrections``: tiles the rule-aware correction changed;
- ``mean_log_p``: mean over tiles of log10 of the probability of the final code (floored
  at 1e-3, as outside the top-k) — low on tile sets the classifier has not learned;
- ``min_p``: the lowest such probability.

A model without a calibration entry has no hand confidence (``None``). The shipped fit was
made on MCR readings (``train/calibrate.py`` recognises with the MCR rules); for the
Xiamen and Zhenjiang rule sets the same coefficients are used as they are — their
``hand_read`` / ``win`` signals were not calibrated on their own.

**Score confidence.** A score does not always depend on every code: under MCR a bonus
tile is one fan whichever flower or season it is, and a misread numeral on a flower
changes the hand but not its score. A rule set names such codes in groups
(:attr:`scoring.rulesets.base.RuleSet.score_alike`). The *score confidence*
(:func:`score_confidence`) is the calibrated probability that the tile multiset is right
**up to those groups** — every tile the score counts, and what it counts it as. Its
signals (:func:`score_features`) are those above with each tile's probability taken for
its code's whole group, plus one:

- ``by_place``: bonus tiles the model did not read as bonus tiles (group probability
  under :data:`BY_PLACE_P`) that the reading took for flowers by where they lie and how
  many tiles the hand holds (:mod:`vision.flower_rereads`); their probability (near 0 on
  tile art the model never saw) is left out of the other signals, and this count may
  carry what such a reading is worth — the shipped fit leaves it out, as it fitted no
  better with it (``models/HISTORY.md``, recipe step 69).

It is fitted on its own (``train/calibrate.py --event score``) and stored in the
calibration entry as ``"score": {"features", "coef", "intercept", "fitted_on"}``. A rule
set with no alike codes (Zhenjiang: no flowers) has score confidence = hand confidence.
The shipped fit was made with the MCR groups; Xiamen's finer groups (seasons apart from
flowers) use the same coefficients.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeGuard

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from vision.recognize import Recognition

#: The signals a calibration may use (its ``features`` name them, in its coefficients' order).
FEATURES: tuple[str, ...] = (
    "log_reading",
    "min_score",
    "weak_boxes",
    "hand_read",
    "win",
    "corrections",
    "mean_log_p",
    "min_p",
)
#: The signals a score calibration may use: :data:`FEATURES` over alike codes, and
#: ``by_place``.
SCORE_FEATURES: tuple[str, ...] = (*FEATURES, "by_place")
#: A flower-role tile whose group probability is under this was read as a flower by place.
BY_PLACE_P = 0.5
#: A tile whose detector score is under this counts as a weak box.
WEAK_SCORE = 0.4
#: The most weak boxes the ``weak_boxes`` signal counts. The shipped fit weighs them
#: positively (a weak box kept is mostly a flower kept from a lower score, and right),
#: which the photos it was fitted on bear out up to a few (of the 1,656 frames of the
#: sixty-eighth session's check: 0 weak boxes 1,516, 1: 109, 2: 18, 3: 6, more: 7); past
#: them the sign extrapolated — 14 weak boxes of coin-flip tiles came at 0.79, every box
#: weak at 1.00.
WEAK_BOXES_MOST = 3
#: Probability counted for a final code outside a tile's top-k alternatives.
_FLOOR = 1e-3


class CalibrationError(ValueError):
    """A manifest's ``calibration`` entry is malformed."""


def hand_features(rec: Recognition) -> dict[str, float]:
    """The signals of :data:`FEATURES` for one recognition (see module doc)."""
    p = code_probabilities(rec) if len(rec.detections) else np.array([_FLOOR])
    return _signals(rec, p)


def score_features(rec: Recognition, alike: Sequence[Sequence[str]]) -> dict[str, float]:
    """The signals of :data:`SCORE_FEATURES` for one recognition, the codes of each group
    of ``alike`` taken as one (see module doc)."""
    if not len(rec.detections):
        return {**_signals(rec, np.array([_FLOOR])), "by_place": 0.0}
    p = code_probabilities(rec, alike)
    placed = np.array([r == "flower" for r in rec.roles], bool) & (p < BY_PLACE_P)
    kept = p[~placed]
    signals = _signals(rec, kept if len(kept) else np.array([1.0]))
    return {**signals, "by_place": float(placed.sum())}


def _signals(rec: Recognition, p: npt.NDArray[np.float64]) -> dict[str, float]:
    """:data:`FEATURES` of ``rec`` with ``p`` ``(m,)`` the probabilities of the final
    codes the probability signals are taken over."""
    from vision.detect import detection_scores

    d = rec.detections
    scores = detection_scores(d) if len(d) else None
    # log10 of reading_confidence (the product of p; 0 with no tiles), floored at 1e-6
    log_reading = max(float(np.log10(p).sum()), -6.0) if len(d) else -6.0
    return {
        "log_reading": log_reading,
        "min_score": float(scores.min()) if scores is not None else 0.0,
        "weak_boxes": (float(min((scores < WEAK_SCORE).sum(), WEAK_BOXES_MOST))
                       if scores is not None else 0.0),
        "hand_read": 1.0 if _won(rec) or rec.waits is not None else 0.0,
        "win": 1.0 if _won(rec) else 0.0,
        "corrections": float(len(rec.correction.best.changes)),
        "mean_log_p": float(np.mean(np.log10(p))),
        "min_p": float(p.min()),
    }


def _won(rec: Recognition) -> bool:
    """Whether the tiles read make the win the photo shows: scored, or a winning shape
    claimed as a win that the scorer refused for the win context alone (a 和绝张 the hand
    contradicts) — how sure the reading is does not hang on the context it is scored in."""
    return rec.score is not None or rec.refused_win


def code_probabilities(
    rec: Recognition, alike: Sequence[Sequence[str]] = ()
) -> npt.NDArray[np.float64]:
    """``(n,)`` probability of each detection's final code from its top-k alternatives
    (:data:`_FLOOR` for a code outside them); with ``alike`` groups of codes, a code of a
    group gets the summed probability of the whole group's codes among the alternatives."""
    from vision.classes import class_id

    d = rec.detections
    group_of = {c: g for g in alike for c in g}
    out = np.full(len(d), _FLOOR)
    for i, code in enumerate(rec.codes):
        ids = [class_id(c) for c in group_of.get(code, (code,))]
        hits = np.isin(d.topk_ids[i], ids)
        if hits.any():
            out[i] = max(float(d.topk_probs[i][hits].sum()), _FLOOR)
    return out


def check_calibration(entry: Any) -> dict[str, Any]:
    """``entry`` as a checked calibration: ``features`` (names from :data:`FEATURES`),
    one number per feature in ``coef``, a numeric ``intercept``. Raises
    :class:`CalibrationError` naming the fault.

    >>> check_calibration({"features": ["win"], "coef": [2.0], "intercept": -1})["coef"]
    [2.0]
    >>> check_calibration({"features": ["colour"], "coef": [1], "intercept": 0})
    Traceback (most recent call last):
    ...
    vision.confidence.CalibrationError: calibration: unknown features ['colour']
    """
    checked = _check_fit(entry, "calibration", FEATURES)
    if "score" in entry:
        checked["score"] = _check_fit(entry["score"], "calibration.score", SCORE_FEATURES)
    return checked


def _check_fit(entry: Any, where: str, known: Sequence[str]) -> dict[str, Any]:
    """One logistic fit ``entry`` checked, its signals among ``known``."""
    if not isinstance(entry, Mapping):
        raise CalibrationError(f"{where}: expected an object with features, coef, intercept")
    features, coef, intercept = entry.get("features"), entry.get("coef"), entry.get("intercept")
    if not isinstance(features, list) or not all(isinstance(f, str) for f in features):
        raise CalibrationError(f"{where}: 'features' must be a list of names")
    unknown = [f for f in features if f not in known]
    if unknown:
        raise CalibrationError(f"{where}: unknown features {unknown}")

    def number(v: Any) -> TypeGuard[float]:
        return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)

    if not isinstance(coef, list) or len(coef) != len(features) or not all(map(number, coef)):
        raise CalibrationError(f"{where}: 'coef' must hold one number per feature")
    if not number(intercept):
        raise CalibrationError(f"{where}: 'intercept' must be a number")
    return {**entry, "coef": [float(c) for c in coef], "intercept": float(intercept)}


def logistic(
    features: Mapping[str, float], names: Sequence[str], coef: Sequence[float], intercept: float
) -> float:
    """``1 / (1 + exp(-(intercept + Σ coef·feature)))``, the fitted probability.

    >>> logistic({"win": 1.0, "weak_boxes": 2.0}, ["win", "weak_boxes"], [2.0, -1.0], 0.0)
    0.5
    """
    z = intercept + sum(c * features[n] for n, c in zip(names, coef, strict=True))
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)


def more_copies_than_exist(rec: Recognition, alike: Sequence[Sequence[str]] = ()) -> bool:
    """Whether ``rec``'s final hand tiles (every role but ignored; face-down tiles aside)
    hold more copies of a code than a set has — five of a kind, a flower twice — the
    codes of each ``alike`` group taken as one code with as many copies as its members.
    No such multiset is right, however sure its tiles: a reading the correction could
    not mend (``unscorable`` "5 copies of 5p") once came at 0.97."""
    from vision.classes import BACK, BONUS
    from vision.layout import IGNORED

    def copies(code: str) -> int:
        return 1 if code in BONUS else 4

    group_of = {c: g[0] for g in alike for c in g}
    size = {g[0]: sum(copies(c) for c in g) for g in alike}
    counts = Counter(group_of.get(c, c) for c, role in zip(rec.codes, rec.roles, strict=True)
                     if role != IGNORED and c != BACK)
    return any(n > size.get(c, copies(c)) for c, n in counts.items())


def hand_confidence(rec: Recognition, calibration: Mapping[str, Any] | None) -> float | None:
    """The calibrated probability that ``rec``'s tile multiset is exactly right, or None
    without a calibration; 0 for a multiset no set of tiles holds
    (:func:`more_copies_than_exist`)."""
    if calibration is None:
        return None
    if more_copies_than_exist(rec):
        return 0.0
    return logistic(
        hand_features(rec),
        calibration["features"],
        calibration["coef"],
        calibration["intercept"],
    )


def score_confidence(rec: Recognition, calibration: Mapping[str, Any] | None) -> float | None:
    """The calibrated probability that ``rec``'s tile multiset is right up to the codes
    its rule set scores alike (see module doc), never under the hand confidence (the
    event it holds): the hand confidence for a rule set with none; None without a
    calibration, or without a ``score`` fit when it is needed. A
    reading with no tiles lies outside the score fit (its floor probability, weighed
    negatively there, gave 0.9995 for a blank photo): it takes the hand confidence."""
    from scoring.rulesets import get_rule_set

    alike = get_rule_set(rec.rules).score_alike
    if not alike:
        return hand_confidence(rec, calibration)
    fit = calibration.get("score") if calibration is not None else None
    if fit is None:
        return None
    if not len(rec.detections):
        return hand_confidence(rec, calibration)
    if more_copies_than_exist(rec, alike):
        return 0.0
    fitted = logistic(score_features(rec, alike), fit["features"], fit["coef"], fit["intercept"])
    # a multiset right is right up to the alike codes too: never less sure than the hand
    # (two fits apart could say so: a score confidence under the hand confidence)
    hand = hand_confidence(rec, calibration)
    return fitted if hand is None else max(fitted, hand)
