"""One container for the tiles found in an image.

All stages of the vision pipeline (detect → classify → layout → correction)
read and return a :class:`Detections`. Arrays are row-aligned, one row per tile:

============  ===========  =======  ==================================================
field         shape        dtype    meaning
============  ===========  =======  ==================================================
boxes         (n, 4)       float32  pixel box ``x1, y1, x2, y2`` in the original image
class_ids     (n,)         int64    index into :data:`vision.classes.CLASSES`
confidences   (n,)         float32  0..1: the detector's tile score × the top-1 probability
                                    (``meta["confidence"] == "score*p1"``; the score alone,
                                    ``"score"``, without a crop classifier); the score itself:
                                    :func:`vision.detect.detection_scores`
rotations     (n,)         int64    how the tile lies: 0, 90, 180 or 270 degrees
                                    (clockwise from upright as seen in the image)
topk_ids      (n, k)       int64    alternative classes, best first (column 0 = top-1,
                                    equal to ``class_ids``); k ≥ 1
topk_probs    (n, k)       float32  their probabilities (the fused class distribution's:
                                    classes under the fusion's floor tie at a near-zero
                                    value, ordered by class index)
rotation_     (n, 4)       float32  optional: probability of each rotation 0/90/180/270
probs                               (the crop classifier's); None when not known
============  ===========  =======  ==================================================

``weak`` (optional) is a second container: boxes the detector scored under its threshold
(manifest ``weak_conf`` ≤ score < ``conf``), classified like the others but not part of
the reading; :mod:`vision.recognize` may take one when the rules say a tile is missing.

``face_down`` is derived: a row whose class is ``back``.

The constructor takes arrays or plain lists: each field is converted to the dtype above
(integer fields refuse non-integer numbers), and it refuses, with a ``ValueError`` naming
the field or the tile, shapes that do not line up, class ids outside
``0..len(CLASSES) - 1`` (in ``class_ids`` or ``topk_ids``), a ``topk_ids`` column 0 that
is not ``class_ids``, a top-k width of 0, rotations other than 0/90/180/270, boxes that are
not finite or have their corners swapped, and probabilities outside 0..1.

A container is compared by identity: ``a == b`` is ``a is b`` and ``hash(a)`` is the
object's (it can go in a set, ``in`` a list); the arrays inside are mutable, so a value
equality could not keep a stable hash. Compare contents field by field with
``np.array_equal``.

>>> import numpy as np
>>> d = Detections.from_lists([(0, 0, 10, 14)], ["5p"], [0.9])
>>> len(d), d.codes, d.face_down.tolist()
(1, ['5p'], [False])
>>> d.to_records()[0]["code"]
'5p'
>>> d.select(slice(0, 1)).codes, len(d.select([]))
(['5p'], 0)
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
#: Decimals of the probabilities :meth:`Detections.to_records` writes. An alternative
#: after the first whose probability rounds to 0 there (under 0.00005) is left out of the
#: records: those are the classes the fusion's floor ties at one near-zero value, listed
#: in class index order (1m, 2m, 3m, ...), which says nothing about the tile.
RECORD_DECIMALS = 4

#: Each array field's dtype (module doc's table).
_FIELDS: tuple[tuple[str, type[np.generic]], ...] = (
    ("boxes", np.float32),
    ("class_ids", np.int64),
    ("confidences", np.float32),
    ("rotations", np.int64),
    ("topk_ids", np.int64),
    ("topk_probs", np.float32),
    ("rotation_probs", np.float32),
)


@dataclass(frozen=True, eq=False)
class Detections:
    """Row-aligned arrays describing tiles found in one image (see module doc).

    Compared and hashed by identity (``eq=False``): see module doc."""

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
        for name, dtype in _FIELDS:
            value = getattr(self, name)
            if value is None and name == "rotation_probs":
                continue  # optional
            object.__setattr__(self, name, _as_array(name, value, dtype))
        n = len(self.boxes) if self.boxes.ndim else 0
        if self.boxes.shape != (n, 4):
            raise ValueError(f"boxes must have shape (n, 4), got {self.boxes.shape}")
        for name in ("class_ids", "confidences", "rotations"):
            arr = getattr(self, name)
            if arr.shape != (n,):
                raise ValueError(f"{name} must have shape ({n},), got {arr.shape}")
        if (self.topk_ids.shape != self.topk_probs.shape or self.topk_ids.ndim != 2
                or self.topk_ids.shape[0] != n or self.topk_ids.shape[1] < 1):
            raise ValueError(f"topk_ids and topk_probs must both have shape ({n}, k) with "
                             f"k ≥ 1 (column 0 the top-1), got {self.topk_ids.shape} and "
                             f"{self.topk_probs.shape}")
        if self.rotation_probs is not None and self.rotation_probs.shape != (n, 4):
            raise ValueError(f"rotation_probs must have shape ({n}, 4)")
        if n and not np.isin(self.rotations, ROTATIONS).all():
            raise ValueError("rotations must be 0, 90, 180 or 270")
        for name in ("class_ids", "topk_ids"):
            arr = getattr(self, name)
            arr = arr if arr.ndim == 2 else arr[:, None]
            bad = ((arr < 0) | (arr >= len(CLASSES))).any(axis=1)
            if bad.any():
                i = int(np.flatnonzero(bad)[0])
                raise ValueError(f"{name} out of range: tile {i} holds {arr[i].tolist()}; "
                                 f"class ids are 0..{len(CLASSES) - 1}")
        differ = self.topk_ids[:, 0] != self.class_ids
        if differ.any():
            i = int(np.flatnonzero(differ)[0])
            raise ValueError(f"tile {i}: topk_ids column 0 ({CLASSES[int(self.topk_ids[i, 0])]}) "
                             f"is not its class ({CLASSES[int(self.class_ids[i])]}): "
                             "column 0 is the top-1")
        for name in ("confidences", "topk_probs", "rotation_probs"):
            arr = getattr(self, name)
            if arr is not None and arr.size and bool((arr > 1).any()):
                # float32 sums round past 1 (a softmax marginal read 1.0000001): a
                # probability that far over is 1; one further over is refused below
                within = arr <= 1 + PROB_SUM_SLACK
                object.__setattr__(self, name, np.where(within, np.minimum(arr, 1), arr)
                                   .astype(np.float32))
        _check_numbers(self.boxes, self.confidences, self.topk_probs, self.rotation_probs)

    # ----------------------------------------------------------------- builders
    @classmethod
    def empty(cls, image_size: tuple[int, int] | None = None, k: int = 1) -> Detections:
        """No tiles, of top-k width ``k`` (at least 1, as :func:`vision.postprocess.top_k`
        gives)."""
        k = max(1, k)
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

        ``topk`` gives, per tile, ``(code, probability)`` pairs best first, at least one
        (the tile's own code first); by default the single top-1 code with its confidence.
        A tile of fewer pairs than the widest is padded with its last code at
        probability 0. Lists whose lengths differ are refused with a ``ValueError``
        naming them.
        """
        n = len(codes)
        conf = [1.0] * n if confidences is None else list(confidences)
        rot = [0] * n if rotations is None else list(rotations)
        given = {"boxes": len(boxes), "confidences": len(conf), "rotations": len(rot)}
        if topk is not None:
            given["topk"] = len(topk)
        wrong = {k: v for k, v in given.items() if v != n}
        if wrong:
            raise ValueError(f"{n} codes but " + ", ".join(f"{v} {k}" for k, v in wrong.items())
                             + ": give one of each per tile")
        if topk is None:
            topk = [[(c, p)] for c, p in zip(codes, conf, strict=True)]
        for i, alts in enumerate(topk):
            if not len(alts):
                raise ValueError(f"tile {i}: topk is empty; give at least its top-1 "
                                 "(code, probability)")
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

    def select(self, index: int | slice | npt.ArrayLike) -> Detections:
        """A new container with the rows picked by ``index``, in its order: a boolean mask
        of one entry per row, a sequence or array of row numbers (``[]`` picks none), a
        slice, or one row number (a container of that one row). Row numbers count from
        the end when negative, as in numpy. Anything else, a mask of another length or a
        row number past the end is refused with an ``IndexError`` saying so.

        >>> d = Detections.from_lists([(0, 0, 1, 1), (5, 5, 6, 6), (9, 9, 10, 10)],
        ...                           ["1m", "2m", "3m"])
        >>> d.select([2, 0]).codes, d.select(-1).codes, d.select(slice(1, None)).codes
        (['3m', '1m'], ['3m'], ['2m', '3m'])
        >>> d.select(np.array([True, False, True])).codes, len(d.select([]))
        (['1m', '3m'], 0)
        """
        idx = _row_numbers(index, len(self))
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
        """One JSON-ready dict per tile: ``code, box, confidence, rotation, face_down, topk``.

        ``topk``: ``{"code", "p"}`` best first, ``p`` to :data:`RECORD_DECIMALS` decimals;
        the first is the tile's own code, always there; an alternative after it is listed
        only when its ``p`` does not round to 0 (the classes under the fusion's floor,
        tied at one near-zero value in class order, are left out). The arrays keep the
        full top-k (the layout and the correction read those).

        >>> d = Detections.from_lists([(0, 0, 10, 14)], ["7f"],
        ...                           topk=[[("7f", 0.99998), ("8f", 0.00002), ("1m", 4e-7)]])
        >>> d.to_records()[0]["topk"]
        [{'code': '7f', 'p': 1.0}]
        """
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
                        {"code": CLASSES[int(c)], "p": round(float(p), RECORD_DECIMALS)}
                        for j, (c, p) in enumerate(zip(self.topk_ids[i], self.topk_probs[i],
                                                       strict=True))
                        if j == 0 or round(float(p), RECORD_DECIMALS) > 0
                    ],
                }
            )
        return out


def _as_array(name: str, value: Any, dtype: type[np.generic]) -> npt.NDArray[Any]:
    """``value`` (an array or nested lists) as an array of ``dtype``: numbers of another
    width or kind are converted, except that an integer field takes integers only (a
    float class id or rotation is refused, not truncated); ``ValueError`` naming the
    field otherwise."""
    if isinstance(value, np.ndarray) and value.dtype == dtype:
        return value
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError) as exc:  # ragged lists
        raise ValueError(f"{name} must be an array of numbers: {exc}") from None
    integer = np.issubdtype(dtype, np.integer)
    kinds = "iu" if integer else "iuf"
    if arr.dtype.kind not in kinds and not (arr.size == 0 and arr.dtype.kind in "iuf"):
        what = "integers" if integer else "real numbers"
        raise ValueError(f"{name} must hold {what} ({np.dtype(dtype).name}), "
                         f"got dtype {arr.dtype}")
    with np.errstate(over="ignore"):  # past float32: inf, refused as not finite
        return arr.astype(dtype)


def _row_numbers(index: Any, n: int) -> npt.NDArray[np.int64]:
    """The row numbers ``index`` picks among ``n`` rows (see :meth:`Detections.select`)."""
    if isinstance(index, slice):
        return np.arange(n, dtype=np.int64)[index]
    idx = np.asarray(index)
    if idx.dtype == np.bool_:
        if idx.shape != (n,):
            raise IndexError(f"a boolean mask must have one entry per row ({n},), "
                             f"got shape {idx.shape}")
        return np.flatnonzero(idx).astype(np.int64)
    if idx.size == 0 and idx.ndim <= 1:
        return np.zeros(0, np.int64)
    if idx.dtype.kind not in "iu" or idx.ndim > 1:
        raise IndexError("select takes a boolean mask, row numbers, a slice or one row "
                         f"number; got {type(index).__name__} of dtype {idx.dtype} and "
                         f"shape {idx.shape}")
    rows = np.atleast_1d(idx).astype(np.int64)
    past = (rows >= n) | (rows < -n)
    if past.any():
        raise IndexError(f"row {int(rows[np.flatnonzero(past)[0]])} is past the "
                         f"{n} rows of the container")
    return np.where(rows < 0, rows + n, rows)


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
