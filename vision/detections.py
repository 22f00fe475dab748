"""One container for the tiles found in an image.

All stages of the vision pipeline (detect → classify → layout → correction)
read and return a :class:`Detections`. Arrays are row-aligned, one row per tile:

============  ===========  =======  ==================================================
field         shape        dtype    meaning
============  ===========  =======  ==================================================
boxes         (n, 4)       float32  pixel box ``x1, y1, x2, y2`` in the original image
class_ids     (n,)         int64    index into :data:`vision.classes.CLASSES`
confidences   (n,)         float32  probability of the top-1 class, 0..1
rotations     (n,)         int64    how the tile lies: 0, 90, 180 or 270 degrees
                                    (clockwise from upright as seen in the image)
topk_ids      (n, k)       int64    alternative classes, best first (column 0 = top-1)
topk_probs    (n, k)       float32  their probabilities
rotation_     (n, 4)       float32  optional: probability of each rotation 0/90/180/270
probs                               (the crop classifier's); None when not known
============  ===========  =======  ==================================================

``weak`` (optional) is a second container: boxes the detector scored under its threshold
(manifest ``weak_conf`` ≤ score < ``conf``), classified like the others but not part of
the reading; :mod:`vision.recognize` may take one when the rules say a tile is missing.

``face_down`` is derived: a row whose class is ``back``.

>>> import numpy as np
>>> d = Detections.from_lists([(0, 0, 10, 14)], ["5p"], [0.9])
>>> len(d), d.codes, d.face_down.tolist()
(1, ['5p'], [False])
>>> d.to_records()[0]["code"]
'5p'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from vision.classes import BACK, CLASSES, class_id

_BACK_ID = class_id(BACK)
ROTATIONS = (0, 90, 180, 270)


@dataclass(frozen=True)
class Detections:
    """Row-aligned arrays describing tiles found in one image (see module doc)."""

    boxes: npt.NDArray[np.float32]
    class_ids: npt.NDArray[np.int64]
    confidences: npt.NDArray[np.float32]
    rotations: npt.NDArray[np.int64]
    topk_ids: npt.NDArray[np.int64]
    topk_probs: npt.NDArray[np.float32]
    #: Image size ``(width, height)`` in pixels, when known.
    image_size: tuple[int, int] | None = None
    #: Free-form facts about how the detections were made (model name, timings in ms).
    meta: dict[str, Any] = field(default_factory=dict)
    #: Probability of each rotation 0/90/180/270, ``(n, 4)``, when a classifier gave them
    #: (a 180°-symmetric face such as 5p or a face-down tile shows ~equal 0 and 180).
    rotation_probs: npt.NDArray[np.float32] | None = None
    #: Boxes scored under the detector's threshold (see module doc); None: none kept.
    weak: Detections | None = None

    def __post_init__(self) -> None:
        n = len(self.boxes)
        if self.boxes.shape != (n, 4):
            raise ValueError(f"boxes must have shape (n, 4), got {self.boxes.shape}")
        for name in ("class_ids", "confidences", "rotations"):
            arr = getattr(self, name)
            if arr.shape != (n,):
                raise ValueError(f"{name} must have shape ({n},), got {arr.shape}")
        if self.topk_ids.shape != self.topk_probs.shape or self.topk_ids.shape[0] != n:
            raise ValueError("topk_ids and topk_probs must both have shape (n, k)")
        if self.rotation_probs is not None and self.rotation_probs.shape != (n, 4):
            raise ValueError(f"rotation_probs must have shape ({n}, 4)")
        if n and not np.isin(self.rotations, ROTATIONS).all():
            raise ValueError("rotations must be 0, 90, 180 or 270")
        if n and ((self.class_ids < 0) | (self.class_ids >= len(CLASSES))).any():
            raise ValueError("class_ids out of range")
        _check_numbers(self.boxes, self.confidences, self.topk_probs, self.rotation_probs)

    # ----------------------------------------------------------------- builders
    @classmethod
    def empty(cls, image_size: tuple[int, int] | None = None, k: int = 1) -> Detections:
        """No tiles."""
        return cls(
            boxes=np.zeros((0, 4), np.float32),
            class_ids=np.zeros(0, np.int64),
            confidences=np.zeros(0, np.float32),
            rotations=np.zeros(0, np.int64),
            topk_ids=np.zeros((0, k), np.int64),
            topk_probs=np.zeros((0, k), np.float32),
            image_size=image_size,
        )

    @classmethod
    def from_lists(
        cls,
        boxes: Sequence[Sequence[float]],
        codes: Sequence[str],
        confidences: Sequence[float] | None = None,
        rotations: Sequence[int] | None = None,
        topk: Sequence[Sequence[tuple[str, float]]] | None = None,
        image_size: tuple[int, int] | None = None,
    ) -> Detections:
        """Build from plain Python lists (tests, hand-made layouts, automatic tables).

        ``topk`` gives, per tile, ``(code, probability)`` pairs best first; by default
        the single top-1 code with its confidence.
        """
        n = len(codes)
        conf = [1.0] * n if confidences is None else list(confidences)
        rot = [0] * n if rotations is None else list(rotations)
        if topk is None:
            topk = [[(c, p)] for c, p in zip(codes, conf, strict=True)]
        k = max((len(t) for t in topk), default=1)
        ids = np.zeros((n, k), np.int64)
        probs = np.zeros((n, k), np.float32)
        for i, alts in enumerate(topk):
            for j in range(k):
                code, p = alts[min(j, len(alts) - 1)]
                ids[i, j] = class_id(code)
                probs[i, j] = p if j < len(alts) else 0.0
        with np.errstate(over="ignore"):  # past float32: inf, refused as not finite
            box_array = np.asarray(boxes, np.float32).reshape(n, 4)
        return cls(
            boxes=box_array,
            class_ids=np.array([class_id(c) for c in codes], np.int64),
            confidences=np.asarray(conf, np.float32),
            rotations=np.asarray(rot, np.int64),
            topk_ids=ids,
            topk_probs=probs,
            image_size=image_size,
        )

    # ----------------------------------------------------------------- views
    def __len__(self) -> int:
        return len(self.boxes)

    @property
    def codes(self) -> list[str]:
        """Top-1 tile code of every row."""
        return [CLASSES[i] for i in self.class_ids.tolist()]

    @property
    def face_down(self) -> npt.NDArray[np.bool_]:
        """True where the tile is shown face down (class ``back``)."""
        down: npt.NDArray[np.bool_] = self.class_ids == _BACK_ID
        return down

    @property
    def centers(self) -> npt.NDArray[np.float32]:
        """Box centres, shape (n, 2), pixels."""
        return np.stack(
            [(self.boxes[:, 0] + self.boxes[:, 2]) / 2, (self.boxes[:, 1] + self.boxes[:, 3]) / 2],
            axis=1,
        ).astype(np.float32)

    def select(self, index: npt.ArrayLike) -> Detections:
        """A new container with the rows picked by ``index`` (mask or integer indices)."""
        idx = np.asarray(index)
        return Detections(
            boxes=self.boxes[idx],
            class_ids=self.class_ids[idx],
            confidences=self.confidences[idx],
            rotations=self.rotations[idx],
            topk_ids=self.topk_ids[idx],
            topk_probs=self.topk_probs[idx],
            image_size=self.image_size,
            meta=dict(self.meta),
            rotation_probs=None if self.rotation_probs is None else self.rotation_probs[idx],
            weak=self.weak,
        )

    def join(self, other: Detections) -> Detections:
        """This container's rows followed by ``other``'s (same top-k width); rotation
        probabilities are kept when both have them. ``weak`` and ``meta`` stay this one's.

        >>> a = Detections.from_lists([(0, 0, 10, 14)], ["5p"])
        >>> a.join(Detections.from_lists([(12, 0, 22, 14)], ["E"])).codes
        ['5p', 'E']
        """
        if self.topk_ids.shape[1] != other.topk_ids.shape[1]:
            raise ValueError("cannot join detections with different top-k widths")
        rp = None
        if self.rotation_probs is not None and other.rotation_probs is not None:
            rp = np.concatenate([self.rotation_probs, other.rotation_probs])
        return Detections(
            boxes=np.concatenate([self.boxes, other.boxes]),
            class_ids=np.concatenate([self.class_ids, other.class_ids]),
            confidences=np.concatenate([self.confidences, other.confidences]),
            rotations=np.concatenate([self.rotations, other.rotations]),
            topk_ids=np.concatenate([self.topk_ids, other.topk_ids]),
            topk_probs=np.concatenate([self.topk_probs, other.topk_probs]),
            image_size=self.image_size,
            meta=dict(self.meta),
            rotation_probs=rp,
            weak=self.weak,
        )

    def to_records(self) -> list[dict[str, Any]]:
        """One JSON-ready dict per tile: ``code, box, confidence, rotation, face_down, topk``."""
        out = []
        for i in range(len(self)):
            out.append(
                {
                    "code": CLASSES[int(self.class_ids[i])],
                    "box": [round(float(v), 1) for v in self.boxes[i]],
                    "confidence": round(float(self.confidences[i]), 4),
                    "rotation": int(self.rotations[i]),
                    "face_down": bool(self.class_ids[i] == _BACK_ID),
                    "topk": [
                        {"code": CLASSES[int(c)], "p": round(float(p), 4)}
                        for c, p in zip(self.topk_ids[i], self.topk_probs[i], strict=True)
                        if p > 0
                    ],
                }
            )
        return out


#: How far past 1 a tile's alternatives' probabilities may add up (float rounding).
PROB_SUM_SLACK = 1e-3


def _check_numbers(boxes: npt.NDArray[np.float32], confidences: npt.NDArray[np.float32],
                   topk_probs: npt.NDArray[np.float32],
                   rotation_probs: npt.NDArray[np.float32] | None) -> None:
    """ValueError naming the first tile whose box is not finite or has its corners
    swapped (``x2 < x1`` or ``y2 < y1``), or whose confidence, alternatives' or rotation
    probabilities are not finite or not within 0..1, or whose alternatives add up past
    1: the layout measures rows and judges sides by these numbers, the correction weighs
    readings by them, and a reading must stay valid JSON."""
    if not len(boxes):
        return
    bad = ~np.isfinite(boxes).all(axis=1)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"tile {i}: box {boxes[i].tolist()} is not finite")
    swapped = (boxes[:, 2] < boxes[:, 0]) | (boxes[:, 3] < boxes[:, 1])
    if swapped.any():
        i = int(np.flatnonzero(swapped)[0])
        raise ValueError(f"tile {i}: box {boxes[i].tolist()} is not x1, y1, x2, y2 "
                         "with x2 ≥ x1 and y2 ≥ y1")
    named = [("confidence", confidences), ("alternatives' probabilities", topk_probs)]
    if rotation_probs is not None:
        named.append(("rotation probabilities", rotation_probs))
    for name, arr in named:
        rows = arr.reshape(len(boxes), -1)
        bad = ~np.isfinite(rows).all(axis=1)
        if bad.any():
            raise ValueError(f"tile {int(np.flatnonzero(bad)[0])}: {name} not finite")
        bad = ((rows < 0) | (rows > 1)).any(axis=1)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ValueError(f"tile {i}: {name} {rows[i].tolist()} not within 0..1")
    over = topk_probs.reshape(len(boxes), -1).sum(axis=1) > 1.0 + PROB_SUM_SLACK
    if over.any():
        i = int(np.flatnonzero(over)[0])
        raise ValueError(f"tile {i}: its alternatives' probabilities "
                         f"{topk_probs[i].tolist()} add up to more than 1")
