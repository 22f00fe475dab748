"""Labels of a photo's augmented copies, mapped from its un-augmented original.

The Roboflow export behind hk-photos turned copies by right angles and ±45°, sheared
them, and wrote each copy's labels itself — and on most turned or sheared copies those
labels do not sit on the tiles: boxes shifted by half a tile or more, or grown to cover
two (measured on the val split in ``models/README.md``, "Labels of the augmented
copies"). The un-augmented original's labels do fit (the labeller drew them there).

So each copy's labels are rebuilt from the original's: SIFT keypoints of the original
are matched with the copy's, a homography *original px → copy px* is fitted with
RANSAC, every original box's four corners are carried through it, and the copy's box is
the axis-aligned box around them (a turned tile's box encloses the turned tile), cut
to the image. A box of which less than ``min_visible`` of its area stays inside the
copy is left out (the tile lies mostly outside the frame). A copy whose homography
cannot be trusted (too few inliers, a degenerate or strongly perspective transform)
gets ``None``: the caller leaves it out rather than train on labels nobody checked.
"""

from __future__ import annotations

import csv
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import cv2
import numpy as np
import numpy.typing as npt

from vision.data.tighten import (
    CopyView,
    box_corners,
    carry_points,
    fill_edges,
    fill_mask,
    tighten,
)
from vision.postprocess import iou_matrix

#: ``(n, 5)`` rows ``class_id, cx, cy, w, h`` normalised to the image (as in photos.py).
Labels = npt.NDArray[np.float64]
Image = npt.NDArray[np.uint8]

#: Fewer RANSAC inliers than this and the copy's transform is not trusted.
MIN_INLIERS = 25
#: Largest perspective term |h20|, |h21| (per px) of a trusted homography: the export
#: only turns, shears, flips and crops, which are affine (h20 = h21 = 0).
MAX_PERSPECTIVE = 2e-4


@dataclass(frozen=True)
class Alignment:
    """How one copy sits on its original."""

    #: 3×3 homography, original px → copy px (row-major), or None when not found.
    matrix: npt.NDArray[np.float64] | None
    #: RANSAC inliers among the ratio-tested SIFT matches.
    inliers: int
    #: The matches that survived the ratio test.
    matches: int

    @property
    def trusted(self) -> bool:
        return self.matrix is not None and self.inliers >= MIN_INLIERS


Features = tuple[npt.NDArray[np.float32], npt.NDArray[np.float32] | None]


def ratio_matches(
    matcher: cv2.BFMatcher, a: Features, b: Features, ratio: float = 0.75
) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    """Point pairs ``(src (k, 2), dst (k, 2))`` of the SIFT matches from ``a`` to ``b``
    (keypoint positions and descriptors) that pass Lowe's ratio test."""
    (pa, da), (pb, db) = a, b
    if da is None or db is None:
        return np.zeros((0, 2), np.float32), np.zeros((0, 2), np.float32)
    pairs = matcher.knnMatch(da, db, k=2)
    good = [m[0] for m in pairs if len(m) == 2 and m[0].distance < ratio * m[1].distance]
    return (
        pa[[m.queryIdx for m in good]].reshape(-1, 2),
        pb[[m.trainIdx for m in good]].reshape(-1, 2),
    )


class CopyAligner:
    """Finds the homography from an original photo to one of its copies (SIFT + RANSAC)."""

    def __init__(self, features: int = 2000, threshold_px: float = 2.0) -> None:
        self.threshold_px = threshold_px
        self._sift = cv2.SIFT.create(nfeatures=features)
        self._matcher = cv2.BFMatcher(cv2.NORM_L2)

    def features(self, image: Image) -> Features:
        """Keypoint positions ``(n, 2)`` in image px and their descriptors ``(n, 128)``."""
        grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
        keypoints, descriptors = self._sift.detectAndCompute(grey, None)
        points = np.asarray([k.pt for k in keypoints], np.float32).reshape(-1, 2)
        return cast(Features, (points, descriptors))

    def align(self, original: Features, copy: Image) -> Alignment:
        """The homography from ``original`` (its :meth:`features`) to the image ``copy``."""
        copied = self.features(copy)
        if len(original[0]) < 4 or len(copied[0]) < 4:
            return Alignment(None, 0, 0)
        src, dst = ratio_matches(self._matcher, original, copied)
        if len(src) < 4:
            return Alignment(None, 0, len(src))
        matrix, mask = cv2.findHomography(
            src, dst, cv2.RANSAC, self.threshold_px, maxIters=5000, confidence=0.999
        )
        if matrix is None or mask is None:
            return Alignment(None, 0, len(src))
        inliers = int(mask.sum())
        if not plausible(np.asarray(matrix, np.float64)):
            return Alignment(None, inliers, len(src))
        return Alignment(np.asarray(matrix, np.float64), inliers, len(src))


def plausible(matrix: npt.NDArray[np.float64]) -> bool:
    """Whether a homography looks like the export's augmentations: nearly affine, not
    mirrored (mirrored copies were flipped back before), area kept within 4× either way.

    >>> plausible(np.eye(3)), plausible(np.diag([-1.0, 1.0, 1.0]))
    (True, False)
    """
    m = np.asarray(matrix, np.float64)
    if not np.all(np.isfinite(m)) or abs(m[2, 2]) < 1e-9:
        return False
    m = m / m[2, 2]
    if abs(m[2, 0]) > MAX_PERSPECTIVE or abs(m[2, 1]) > MAX_PERSPECTIVE:
        return False
    det = float(np.linalg.det(m[:2, :2]))
    return 0.25 < det < 4.0


def map_labels(
    labels: Labels,
    matrix: npt.NDArray[np.float64],
    source_size: tuple[int, int],
    target_size: tuple[int, int],
    min_visible: float = 0.5,
) -> Labels:
    """``labels`` of an image of ``source_size`` (w, h) carried through ``matrix``
    (source px → target px) onto an image of ``target_size``: each box's corners mapped,
    the axis-aligned box around them cut to the target, kept when at least
    ``min_visible`` of its area is inside. Returns ``(m, 5)`` normalised labels.

    >>> lb = np.array([[3, 0.25, 0.5, 0.1, 0.2]])
    >>> turn = np.array([[0.0, -1.0, 100.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])  # 90° cw
    >>> map_labels(lb, turn, (100, 100), (100, 100)).round(3).tolist()
    [[3.0, 0.5, 0.25, 0.2, 0.1]]
    """
    labels = np.asarray(labels, np.float64).reshape(-1, 5)
    if not len(labels):
        return labels.copy()
    corners = carry_points(box_corners(labels, source_size), matrix)
    return boxes_around(labels[:, 0], corners, target_size, min_visible)


def boxes_around(
    classes: npt.NDArray[np.float64],
    corners: npt.NDArray[np.float64],
    target_size: tuple[int, int],
    min_visible: float = 0.5,
) -> Labels:
    """Normalised labels ``(m, 5)``: the axis-aligned box around each tile's ``corners``
    ``(n, k, 2)`` (px of an image of ``target_size``), cut to the image, kept when at
    least ``min_visible`` of its area is inside."""
    tw, th = target_size
    lo, hi = corners.min(1), corners.max(1)
    area = np.prod(hi - lo, axis=1)
    clo = np.clip(lo, 0, [tw, th])
    chi = np.clip(hi, 0, [tw, th])
    inside = np.prod(np.maximum(chi - clo, 0), axis=1)
    keep = (area > 0) & (inside >= min_visible * np.maximum(area, 1e-12))
    centre, size = (clo + chi) / 2, chi - clo
    out = np.column_stack(
        [classes, centre[:, 0] / tw, centre[:, 1] / th, size[:, 0] / tw, size[:, 1] / th]
    )
    kept: npt.NDArray[np.float64] = out[keep]
    return kept


#: Corners filled flat and dark (the export's fill around a turned or sheared copy) from
#: which a copy counts as turned: a ±45° turn fills all four, most shears three.
TURNED_CORNERS = 3


def fill_corners(image: Image, side: int = 8) -> int:
    """How many of the image's four ``side``-px corner squares are flat (std < 4) and
    dark (mean < 40): the export's fill where a turned or sheared copy left the frame.
    An un-augmented photo rarely has more than one or two (a dark table edge).

    >>> import numpy as np
    >>> photo = np.random.default_rng(0).integers(0, 255, (64, 64, 3), dtype=np.uint8)
    >>> turned = photo.copy()
    >>> for ys, xs in ((slice(0, 8), slice(0, 8)), (slice(0, 8), slice(-8, None)),
    ...                (slice(-8, None), slice(0, 8))):
    ...     turned[ys, xs] = 12
    >>> fill_corners(photo), fill_corners(turned)
    (0, 3)
    """
    squares = (
        image[:side, :side],
        image[:side, -side:],
        image[-side:, :side],
        image[-side:, -side:],
    )
    return sum(int(sq.std() < 4 and sq.mean() < 40) for sq in squares)


def box_agreement(a: Labels, b: Labels) -> float:
    """Median IoU of each box of ``a`` with the best box of ``b`` of the same class
    (0 when ``a`` or ``b`` is empty): how far a copy's export labels sit from the mapped
    ones (1 = the same boxes).

    >>> lb = np.array([[0, 0.5, 0.5, 0.2, 0.2]])
    >>> box_agreement(lb, lb), box_agreement(lb, lb + [0, 0.1, 0, 0, 0])
    (1.0, 0.333)
    """
    if not len(a) or not len(b):
        return 0.0
    iou = iou_matrix(_corners(a), _corners(b))
    iou = np.where(a[:, None, 0] == b[None, :, 0], iou, 0.0)
    return round(float(np.median(iou.max(axis=1))), 3)


def _corners(labels: Labels) -> npt.NDArray[np.float64]:
    cx, cy, w, h = (labels[:, i] for i in range(1, 5))
    return np.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], 1)


#: Corners filled flat and dark from which a copy's labels are cut to its picture
#: (:func:`cut_to_picture`): two, so that a photo as taken with one dark corner (a table
#: edge in shadow) is left alone.
FILL_CUT_CORNERS = 2
#: Grey level up to which a pixel of the flood-filled region counts as the export's fill
#: (it fills with black; JPEG leaves it within a few levels of 0).
FILL_LEVEL = 16
#: Largest share of a copy its fill can cover (a ±45° turn leaves about a fifth, shears a
#: third); a larger region is a dark picture the flood ran through, and the copy is left
#: alone.
FILL_MAX_SHARE = 0.5


def cut_to_picture(
    labels: Labels, image: Image, min_visible: float = 0.5
) -> tuple[Labels, int, int]:
    """``labels`` ``(n, 5)`` of a copy, each box cut to the part of it that shows the
    picture rather than the export's fill (:func:`vision.data.tighten.fill_mask`): a box
    less than ``min_visible`` of whose pixels show the picture is dropped (the export's
    turn cut that tile away, as a tile cut by the image's edge is dropped by
    :func:`boxes_around`), and a box the fill covers in part shrinks to the box around
    its picture pixels. Returns the labels, how many boxes were dropped and how many cut.
    A copy with fewer than :data:`FILL_CUT_CORNERS` filled corners, or whose fill (pixels
    of the flood at most :data:`FILL_LEVEL` grey) would cover more than
    :data:`FILL_MAX_SHARE` of it, is returned as it is.

    >>> photo = np.full((100, 100, 3), 200, np.uint8)
    >>> photo[:, :40] = 0  # the export's fill over the left 40 px
    >>> lb = np.array([[1, 0.15, 0.5, 0.1, 0.2],    # wholly in the fill
    ...                [2, 0.40, 0.5, 0.2, 0.2],    # half in it
    ...                [3, 0.80, 0.5, 0.2, 0.2]])   # wholly in the picture
    >>> kept, dropped, cut = cut_to_picture(lb, photo)
    >>> kept.round(2).tolist(), dropped, cut
    ([[2.0, 0.45, 0.5, 0.1, 0.2], [3.0, 0.8, 0.5, 0.2, 0.2]], 1, 1)
    """
    labels = np.asarray(labels, np.float64).reshape(-1, 5)
    if not len(labels) or fill_corners(image) < FILL_CUT_CORNERS:
        return labels, 0, 0
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    fill = fill_mask(image) & (gray <= FILL_LEVEL)
    if fill.mean() > FILL_MAX_SHARE:
        return labels, 0, 0
    picture = ~fill
    h, w = picture.shape
    keep = np.ones(len(labels), bool)
    out = labels.copy()
    cut = 0
    for i, (_, cx, cy, bw, bh) in enumerate(labels):
        x0 = int(np.clip(np.floor((cx - bw / 2) * w), 0, w))
        x1 = int(np.clip(np.ceil((cx + bw / 2) * w), 0, w))
        y0 = int(np.clip(np.floor((cy - bh / 2) * h), 0, h))
        y1 = int(np.clip(np.ceil((cy + bh / 2) * h), 0, h))
        shown = picture[y0:y1, x0:x1]
        if not shown.size or shown.all():
            continue
        if shown.mean() < min_visible:
            keep[i] = False
            continue
        ys, xs = np.nonzero(shown)
        # the picture pixels' box, never past the label's own (sub-pixel) edges
        a0 = max(x0 + int(xs.min()), (cx - bw / 2) * w)
        a1 = min(x0 + int(xs.max()) + 1, (cx + bw / 2) * w)
        b0 = max(y0 + int(ys.min()), (cy - bh / 2) * h)
        b1 = min(y0 + int(ys.max()) + 1, (cy + bh / 2) * h)
        box = [(a0 + a1) / 2 / w, (b0 + b1) / 2 / h, (a1 - a0) / w, (b1 - b0) / h]
        if not np.allclose(box, out[i, 1:], atol=0.5 / max(w, h)):
            out[i, 1:] = box
            cut += 1
    kept: Labels = out[keep]
    return kept, int((~keep).sum()), cut


class LabelMapper:
    """Rebuilds the labels of each stem's copies from its original, caching every
    copy's alignment in a CSV (``cache``) so that a re-run skips SIFT.

    With ``tighten`` (the default), a stem whose original is itself turned (no copy
    shows the photo as taken: :func:`fill_corners` of the original ≥
    :data:`TURNED_CORNERS`) gets the other copies' boxes from
    :func:`vision.data.tighten.tighten` instead: the five copies' grown boxes intersected.
    The original keeps its own boxes: on the photos whose original is kept, the tightest
    augmented copy's own boxes fit its tiles at IoU ≥ 0.5 as often as the estimate
    (97.4 % against 95.8 % of the training photos' tiles; ``train/fit_tightening.py``),
    while carried to the other copies the estimate fits far better (96.3 % against 84.0 %).
    ``tightened`` holds the names of the copies so labelled.

    With ``cut_fill`` (the default), every copy's boxes are then cut to its picture
    (:func:`cut_to_picture`): a tile carried into the export's fill around a turned copy
    is not in that copy. ``fill_dropped`` and ``fill_cut`` count the boxes dropped and cut.
    """

    FIELDS = (
        "name",
        "original",
        "inliers",
        "matches",
        "matrix",
        "export_boxes",
        "mapped_boxes",
        "agreement",
        "tightened",
    )

    def __init__(
        self,
        cache: Path,
        aligner: CopyAligner | None = None,
        min_visible: float = 0.5,
        tighten: bool = True,
        cut_fill: bool = True,
    ) -> None:
        self.cache = Path(cache)
        self.min_visible = min_visible
        self.tighten = tighten
        self.cut_fill = cut_fill
        self.tightened: set[str] = set()
        self.fill_dropped = 0
        self.fill_cut = 0
        self._aligner = aligner
        self._rows: dict[str, dict[str, str]] = {}
        if self.cache.is_file():
            with self.cache.open(newline="", encoding="utf-8") as fh:
                self._rows = {row["name"]: row for row in csv.DictReader(fh)}

    def _alignment(self, name: str, original: str, image: Image,
                   features: Callable[[], Features]) -> dict[str, str]:
        """The cached row of copy ``name`` on ``original``, aligned now when missing."""
        row = self._rows.get(name)
        if row is None or row["original"] != original:
            found = self.aligner.align(features(), image)
            matrix = found.matrix if found.trusted else None
            row = {
                "name": name,
                "original": original,
                "inliers": str(found.inliers),
                "matches": str(found.matches),
                "matrix": "" if matrix is None else " ".join(f"{v:.9g}" for v in matrix.ravel()),
            }
        return row

    def stem_labels(
        self,
        names: Sequence[str],
        images: Sequence[Image],
        labels: Sequence[Labels],
        original: int,
    ) -> list[Labels | None]:
        """Per copy of one stem: its labels mapped from copy ``original`` (whose own
        labels are returned as they are), or None when the copy cannot be aligned or keeps
        no box."""
        source = images[original]
        size = (source.shape[1], source.shape[0])
        cached: list[Features] = []

        def features() -> Features:
            if not cached:
                cached.append(self.aligner.features(source))
            return cached[0]

        matrices: list[npt.NDArray[np.float64] | None] = []
        rows: list[dict[str, str] | None] = []
        for i, (name, image) in enumerate(zip(names, images, strict=True)):
            if i == original:
                matrices.append(np.eye(3))
                rows.append(None)
                continue
            aligned = self._alignment(name, names[original], image, features)
            rows.append(aligned)
            matrices.append(
                np.array([float(v) for v in aligned["matrix"].split()]).reshape(3, 3)
                if aligned["matrix"] else None
            )
        tiles = self._tightened(images, labels, original, matrices)
        out: list[Labels | None] = []
        for i, (name, image, own, matrix, row) in enumerate(
            zip(names, images, labels, matrices, rows, strict=True)
        ):
            target = (image.shape[1], image.shape[0])
            mapped: Labels | None
            if matrix is None:
                mapped = None
            elif i == original:  # its own boxes: as tight in its frame as the estimate
                mapped = own
            elif tiles is not None:
                mapped = boxes_around(labels[original][:, 0], carry_points(tiles, matrix),
                                      target, self.min_visible)
                self.tightened.add(name)
            else:
                mapped = map_labels(labels[original], matrix, size, target, self.min_visible)
            if mapped is not None and self.cut_fill:
                cut_labels, dropped, cut = cut_to_picture(mapped, image, self.min_visible)
                if dropped or cut:
                    mapped = cut_labels
                    self.fill_dropped += dropped
                    self.fill_cut += cut
            mapped = mapped if mapped is not None and len(mapped) else None
            if row is not None:
                row.update(
                    export_boxes=str(len(own)),
                    mapped_boxes=str(0 if mapped is None else len(mapped)),
                    agreement="" if mapped is None else str(box_agreement(own, mapped)),
                    tightened="" if tiles is None else "1",
                )
                self._rows[row["name"]] = row
            out.append(mapped)
        return out

    def _tightened(
        self,
        images: Sequence[Image],
        labels: Sequence[Labels],
        original: int,
        matrices: Sequence[npt.NDArray[np.float64] | None],
    ) -> npt.NDArray[np.float64] | None:
        """Every original box's tile corners ``(n, 4, 2)`` in the original's px from
        :func:`~vision.data.tighten.tighten` (a box it cannot constrain keeps its own
        corners), or None when the stem is not tightened (option off, or the original is
        not turned)."""
        source = images[original]
        if not self.tighten or fill_corners(source) < TURNED_CORNERS:
            return None
        views = [
            CopyView(lb, m, (im.shape[1], im.shape[0]), fill_edges(im))
            for im, lb, m in zip(images, labels, matrices, strict=True)
            if m is not None
        ]
        size = (source.shape[1], source.shape[0])
        own = box_corners(labels[original], size)
        found = tighten(labels[original], size, views)
        return np.stack([own[i] if p is None else p for i, p in enumerate(found)]) \
            if len(found) else own

    def forget(self, names: Sequence[str]) -> None:
        """Drop the cached alignments of copies ``names`` (found on images since turned
        round): the next :meth:`stem_labels` aligns them again."""
        for name in names:
            self._rows.pop(name, None)

    @property
    def aligner(self) -> CopyAligner:
        if self._aligner is None:
            self._aligner = CopyAligner()
        return self._aligner

    def save(self) -> None:
        """Write the cache (one row per copy seen, sorted by name)."""
        self.cache.parent.mkdir(parents=True, exist_ok=True)
        with self.cache.open("w", newline="", encoding="utf-8") as fh:
            writer = csv.DictWriter(fh, fieldnames=self.FIELDS)
            writer.writeheader()
            for name in sorted(self._rows):
                writer.writerow({k: self._rows[name].get(k, "") for k in self.FIELDS})
