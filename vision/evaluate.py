"""Measure a detector on a YOLO-layout dataset: per-class P/R/F1, mAP50, whole hands right.

Dataset layout (ultralytics): ``DIR/data.yaml`` with ``names`` (tile codes, or the
hk-photos / mahjong-detector names, mapped to codes) and optional ``train``/``val`` paths;
images in ``DIR/images/<split>/`` (or ``DIR/<split>/images/``) and one label file per image
in the parallel ``labels`` folder, rows ``class cx cy w h`` normalised to 0..1.

Definitions (IoU threshold 0.5 by default):

- **tile right**: a detection matched one-to-one (greedy, best confidence first, highest
  IoU) to a ground-truth tile *and* carrying its code. A matched detection with another
  code is a false positive of its code, a false negative of the true code, and one
  *confusion* ``(true, read)``. Unmatched detections are false positives, unmatched
  ground truth false negatives. Per-class and overall (micro) precision, recall and F1
  count those, at the detector's operating confidence threshold.
- **image right**: every ground-truth tile right and no false positive.
- **mAP50**: per class, the area under the precision envelope of the detections of that
  class ranked by confidence (class-aware matching at IoU ≥ 0.5, all points), averaged
  over the classes present in the ground truth. Computed from every detection the
  detector returned (run it with a low threshold for a faithful mAP).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from vision.classes import BACK, BONUS, CLASSES
from vision.data.photos import source_stem, tightness
from vision.detections import Detections
from vision.imageio import image_size_from_header
from vision.manifest import ModelError
from vision.postprocess import iou_matrix

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".webp", ".bmp", ".tif", ".tiff")


# --------------------------------------------------------------------------- dataset
@dataclass(frozen=True)
class Sample:
    """One labelled image: ``labels`` ``(n, 5)`` rows ``class_id, cx, cy, w, h`` (0..1).

    ``labelled`` is False for an image with no label file (its ``labels`` then empty, as
    for an empty label file: YOLO reads both as an image showing no tile, but a missing
    file is often a mistake, so :func:`evaluate` counts them apart)."""

    image: Path
    labels: npt.NDArray[np.float64]
    labelled: bool = True

    def boxes(self, width: int, height: int) -> npt.NDArray[np.float32]:
        """Ground-truth xyxy boxes in pixels of a ``width × height`` image, ``(n, 4)``."""
        cx, cy, w, h = (self.labels[:, i] for i in range(1, 5))
        xyxy = np.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], axis=1)
        return np.asarray(xyxy * np.array([width, height, width, height]), np.float32)

    @property
    def class_ids(self) -> npt.NDArray[np.int64]:
        return self.labels[:, 0].astype(np.int64)


def code_for_name(name: str) -> str:
    """Tile code for a dataset class name (a code, or an hk-photos/mahjong-detector name).

    >>> code_for_name("5p"), code_for_name("hdr"), code_for_name("bf1"), code_for_name("tou")
    ('5p', 'C', '5f', 'E')
    """
    if name in CLASSES:
        return name
    hk = {"sc": "m", "sd": "p", "sb": "s"}
    if len(name) == 3 and name[:2] in hk and name[2] in "123456789":
        return f"{name[2]}{hk[name[:2]]}"
    if len(name) == 3 and name[:2] in ("bs", "bf") and name[2] in "1234":
        return f"{int(name[2]) + (4 if name[:2] == 'bf' else 0)}f"
    aliases = {
        "hwe": "E", "hws": "S", "hww": "W", "hwn": "N", "hdr": "C", "hdg": "F", "hdw": "P",
        "tou": "E", "nan": "S", "sha": "W", "pe": "N", "chun": "C", "hatsu": "F", "haku": "P",
    }  # fmt: skip
    if name in aliases:
        return aliases[name]
    raise ValueError(f"dataset class name {name!r} is not a tile code and has no known mapping")


def _read_yaml(path: Path) -> dict[str, Any]:
    import yaml

    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ValueError(f"cannot read {path}: {exc.strerror or exc}") from None
    except yaml.YAMLError as exc:
        raise ValueError(f"{path} is not valid YAML: {_yaml_problem(exc)}") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected a mapping with 'names'")
    return data


def _yaml_problem(exc: Exception) -> str:
    r"""A YAML error in one line: the problem and where (1-based line and column).

    >>> import yaml
    >>> try:
    ...     yaml.safe_load("names: {0: 1m\n")
    ... except yaml.YAMLError as exc:
    ...     print(_yaml_problem(exc))
    expected ',' or '}', but got '<stream end>' (line 2, column 1)
    """
    problem = getattr(exc, "problem", None)
    mark = getattr(exc, "problem_mark", None)
    if not problem:
        return " ".join(str(exc).split())
    where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""
    return f"{problem}{where}"


def _names(data: dict[str, Any], where: Path) -> list[str]:
    names = data.get("names")
    if isinstance(names, dict):
        names = [names[k] for k in sorted(names)]
    if not isinstance(names, list) or not names:
        raise ValueError(f"{where}: 'names' must list the class names")
    return [str(n) for n in names]


def _image_dir(root: Path, data: dict[str, Any], split: str) -> Path:
    base = Path(data["path"]) if data.get("path") else root
    if not base.is_absolute():
        base = root / base
    entry = data.get(split)
    candidates = []
    if isinstance(entry, str):
        candidates.append(base / entry)
    candidates += [root / "images" / split, root / split / "images", root / split]
    for c in candidates:
        if c.is_dir():
            return c
    tried = ", ".join(str(c) for c in candidates)
    raise ValueError(f"no images for split {split!r} in {root} (looked in {tried})")


def _label_path(image: Path) -> Path:
    parts = list(image.parts)
    for i in range(len(parts) - 2, -1, -1):
        if parts[i] == "images":
            parts[i] = "labels"
            return Path(*parts).with_suffix(".txt")
    return image.with_suffix(".txt")


#: How far outside 0..1 a label's centre or size may lie (rounding in exports).
LABEL_TOLERANCE = 1e-3


def _read_labels(path: Path, to_code_id: Sequence[int]) -> npt.NDArray[np.float64]:
    """The rows of a YOLO label file, each checked (``ValueError`` naming the file and
    line): five fields ``class cx cy w h``, the class a whole number naming one of the
    dataset's classes, the others finite, the centre within the image and the size
    positive and at most the image's (normalised; :data:`LABEL_TOLERANCE` either side).
    A line of more numbers (a segmentation polygon) is refused, not read as a box."""
    if not path.is_file():
        return np.zeros((0, 5))
    rows = []
    for line_no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        fields = line.split()
        if not fields:
            continue
        rows.append(_label_row(fields, f"{path}:{line_no}", to_code_id))
    return np.asarray(rows, np.float64).reshape(-1, 5)


def _label_row(fields: Sequence[str], where: str, to_code_id: Sequence[int]) -> list[float]:
    """One label line's ``[code id, cx, cy, w, h]``, or ``ValueError`` saying what is wrong.

    >>> _label_row("0 0.5 0.5 0.1 0.2".split(), "x.txt:1", [3])
    [3, 0.5, 0.5, 0.1, 0.2]
    >>> _label_row("3.7 0.5 0.5 0.1 0.1".split(), "x.txt:2", list(range(43)))
    Traceback (most recent call last):
    ...
    ValueError: x.txt:2: class 3.7 is not a whole number (expected 'class cx cy w h')
    """
    try:
        values = [float(v) for v in fields]
    except ValueError:
        raise ValueError(f"{where}: expected 'class cx cy w h' (numbers), "
                         f"got {' '.join(fields)!r}") from None
    if len(fields) >= 7 and len(fields) % 2 == 1:
        raise ValueError(f"{where}: expected 'class cx cy w h', got {len(fields)} numbers: "
                         "this looks like a segmentation label (class x1 y1 x2 y2 …), "
                         "not a box; give boxes")
    if len(fields) != 5:
        raise ValueError(f"{where}: expected 'class cx cy w h' (5 numbers), "
                         f"got {len(fields)}")
    if not all(np.isfinite(values)):
        raise ValueError(f"{where}: expected 'class cx cy w h' with finite numbers, "
                         f"got {' '.join(fields)!r}")
    if values[0] != int(values[0]):
        raise ValueError(f"{where}: class {fields[0]} is not a whole number "
                         "(expected 'class cx cy w h')")
    cls = int(values[0])
    if not 0 <= cls < len(to_code_id):
        raise ValueError(f"{where}: expected 'class cx cy w h' with a known class "
                         f"(0..{len(to_code_id) - 1}), got {fields[0]}")
    tol = LABEL_TOLERANCE
    for name, v in zip(("cx", "cy"), values[1:3], strict=True):
        if not -tol <= v <= 1 + tol:
            raise ValueError(f"{where}: centre {name} {v:g} lies outside the image "
                             "(expected 'class cx cy w h' normalised to 0..1)")
    for name, v in zip(("width", "height"), values[3:5], strict=True):
        if not 0 < v <= 1 + tol:
            raise ValueError(f"{where}: {name} {v:g} is not within (0, 1] "
                             "(expected 'class cx cy w h' normalised to 0..1)")
    return [to_code_id[cls], *values[1:5]]


def load_dataset(root: str | Path, split: str = "val") -> list[Sample]:
    """The labelled images of ``split`` in a YOLO dataset folder, sorted by file name.

    An image without a label file is kept with ``labelled`` False (no tiles); a split
    where no image has one is refused (the labels are elsewhere or missing, and every
    tile found would count as a false positive)."""
    root = Path(root)
    if root.is_file():
        raise ValueError(f"{root} is a file: give the dataset's folder (YOLO layout: "
                         "data.yaml, images/, labels/)")
    if not root.is_dir():
        raise ValueError(f"dataset folder not found: {root}")
    yaml_path = next(
        (root / n for n in ("data.yaml", "dataset.yaml") if (root / n).is_file()), None
    )
    if yaml_path is None:
        raise ValueError(f"{root} has no data.yaml (YOLO layout with class 'names' expected)")
    data = _read_yaml(yaml_path)
    to_code_id = [CLASSES.index(code_for_name(n)) for n in _names(data, yaml_path)]
    image_dir = _image_dir(root, data, split)
    images = sorted(p for p in image_dir.rglob("*") if p.suffix.lower() in IMAGE_SUFFIXES)
    if not images:
        raise ValueError(f"no images in split {split!r} of {root}")
    label_paths = [_label_path(p) for p in images]
    if not any(q.is_file() for q in label_paths):
        folder = label_paths[0].parent
        raise ValueError(f"no labels found for split {split} in {folder}: none of its "
                         f"{len(images)} images in {image_dir} has a label file there "
                         f"(such as {folder / label_paths[0].name})")
    return [Sample(p, _read_labels(q, to_code_id), labelled=q.is_file())
            for p, q in zip(images, label_paths, strict=True)]


def original_copies(samples: Sequence[Sample]) -> list[Sample]:
    """Per source photo, only its original copy (Roboflow's un-augmented one).

    Copies of one photo share a file-name stem (the part before ``.rf.``). The original is
    the copy the dataset preparation chose, where its ``labels.csv`` records it (and it is
    among ``samples``); otherwise the copy with the smallest mean normalised box area —
    the export's ±45° rotations and shear only loosen axis-aligned boxes
    (:func:`vision.data.photos.source_stem` and :func:`~vision.data.photos.tightness`, as
    the preparation decides it). Order follows ``samples``.

    >>> import numpy as np
    >>> tight = np.array([[0, .5, .5, .1, .1]]); loose = np.array([[0, .5, .5, .2, .2]])
    >>> keep = original_copies([Sample(Path("a.rf.1.jpg"), loose), Sample(Path("a.rf.2.jpg"),
    ...     tight), Sample(Path("b.jpg"), loose)])
    >>> [s.image.name for s in keep]
    ['a.rf.2.jpg', 'b.jpg']
    """
    present = {s.image.name for s in samples}
    recorded = {k: v for k, v in _recorded_originals(samples).items() if v in present}
    best: dict[str, tuple[float, int]] = {}
    for i, s in enumerate(samples):
        stem = source_stem(s.image.name)
        if stem in recorded:
            if s.image.name == recorded[stem]:
                best[stem] = (-np.inf, i)
            continue
        area = tightness(s.labels) if len(s.labels) else np.inf
        if stem not in best or area < best[stem][0]:
            best[stem] = (area, i)
    keep = {i for _, i in best.values()}
    return [s for i, s in enumerate(samples) if i in keep]


def _recorded_originals(samples: Sequence[Sample]) -> dict[str, str]:
    """``{stem: file name}`` of the original copy as ``tilecam dataset photos`` chose it,
    from the ``labels.csv`` beside ``images/`` (empty for other datasets). Once boxes of
    the other copies are tightened (:mod:`vision.data.tighten`), the tightest-boxed copy
    in the built dataset need no longer be the export's original."""
    import csv

    out: dict[str, str] = {}
    for root in {s.image.parent.parent.parent for s in samples}:
        path = root / "labels.csv"
        if not path.is_file():
            continue
        with path.open(newline="", encoding="utf-8") as fh:
            for row in csv.DictReader(fh):
                if row.get("original"):
                    out[source_stem(row["original"])] = row["original"]
    return out


def untouched_copies(samples: Sequence[Sample]) -> list[Sample]:
    """:func:`original_copies` whose image shows no sign of the export's turn or shear
    (fewer than :data:`~vision.data.relabel.TURNED_CORNERS` corners filled flat and dark,
    :func:`~vision.data.relabel.fill_corners`). For about a third of the hk photos no
    un-augmented copy survives and the tightest copy is itself turned; this keeps the
    photos as they were taken. Unreadable images are left out. Order follows ``samples``.
    """
    import cv2

    from vision.data.relabel import TURNED_CORNERS, fill_corners

    keep = []
    for s in original_copies(samples):
        image = cv2.imread(str(s.image), cv2.IMREAD_COLOR)
        if image is not None and fill_corners(np.asarray(image, np.uint8)) < TURNED_CORNERS:
            keep.append(s)
    return keep


def trusted_copies(samples: Sequence[Sample]) -> list[Sample]:
    """Every copy of the photos whose original is untouched (:func:`untouched_copies`).

    Their labels are the photo's own boxes carried onto each turned or sheared copy
    (``tilecam dataset photos``, labels from the original); for the other photos the
    original is itself turned and its boxes, which every copy inherits, are the export's
    grown ones. This is the set with trustworthy labels on turned tiles. Order follows
    ``samples``.
    """
    stems = trusted_stems(samples)
    return [s for s in samples if source_stem(s.image.name) in stems]


#: The selections of an export's copies, by the name ``tilecam eval --copies`` takes.
COPIES: dict[str, Callable[[Sequence[Sample]], list[Sample]]] = {
    "all": list,
    "originals": original_copies,
    "untouched": untouched_copies,
    "trusted": trusted_copies,
}


def select_copies(samples: Sequence[Sample], copies: str) -> list[Sample]:
    """The ``samples`` of the selection named ``copies`` (a key of :data:`COPIES`)."""
    try:
        return COPIES[copies](samples)
    except KeyError:
        raise ValueError(f"copies must be one of {', '.join(COPIES)}, got {copies!r}") from None


def trusted_stems(samples: Sequence[Sample]) -> set[str]:
    """File-name stems of the photos :func:`trusted_copies` keeps (those whose original,
    the tightest copy, shows no turn or shear)."""
    return {source_stem(s.image.name) for s in untouched_copies(samples)}


# --------------------------------------------------------------------------- matching
@dataclass
class ImageResult:
    """Matching outcome for one image."""

    image: str
    n_true: int
    right: int
    false_pos: int
    false_neg: int
    confusions: list[tuple[str, str]] = field(default_factory=list)
    error: str | None = None
    #: Tiles with no box at the IoU threshold that an otherwise unmatched detection
    #: still overlaps (IoU ≥ :data:`LOOSE_IOU`, one-to-one): the box and the label
    #: disagree on where the tile is. Each counts once in ``false_neg`` and once in
    #: ``false_pos``.
    misplaced: int = 0
    #: True codes of the tiles no detection matched at the IoU threshold (an unreadable
    #: image's tiles too), in label order.
    missed: list[str] = field(default_factory=list)
    #: Codes read for the detections that matched no tile at the IoU threshold (kept
    #: boxes only), in detection order.
    extra: list[str] = field(default_factory=list)
    #: Of the ``misplaced`` pairs, those whose box is read as another code than the tile's.
    misplaced_misread: int = 0

    @property
    def all_right(self) -> bool:
        return self.error is None and self.false_pos == 0 and self.false_neg == 0

    @property
    def failure(self) -> str | None:
        """Why the image is not all right (``None`` when it is): ``unreadable``,
        ``codes`` (every tile boxed and no extra box, some read as another code),
        ``boxes`` (every boxed tile read right, but a tile with no box or a box on no
        tile) or ``codes and boxes``."""
        if self.error is not None:
            return "unreadable"
        if self.all_right:
            return None
        codes = bool(self.confusions)
        boxes = self.false_neg > len(self.confusions) or self.false_pos > len(self.confusions)
        return "codes and boxes" if codes and boxes else "codes" if codes else "boxes"

    @property
    def cause(self) -> str | None:
        """Which tiles keep the image from being all right (``None`` when it is):

        - ``placement`` — every code read is right and every tile without a box has an
          unmatched box on it (IoU ≥ :data:`LOOSE_IOU`): box and label disagree on where
          the tile ends (a turned copy's loose label, or a poor box), nothing is missed,
          invented or misread;
        - ``bonus`` — every error involves a flower or season: each misread tile is one or
          is read as one, each tile with no box is one, each box on no tile is read as one;
        - ``other`` — the rest (suits, honours, face-down tiles; an unreadable image).

        >>> ImageResult("a.jpg", 9, 8, 1, 1, [("3f", "4f")]).cause
        'bonus'
        >>> ImageResult("a.jpg", 9, 8, 1, 1, misplaced=1, missed=["5m"], extra=["5m"]).cause
        'placement'
        >>> ImageResult("a.jpg", 9, 8, 1, 1, missed=["5m"], extra=["8f"]).cause
        'other'
        """
        if self.all_right:
            return None
        if self.error is not None:
            return "other"
        if (not self.confusions and not self.misplaced_misread
                and self.false_pos == self.false_neg == self.misplaced):
            return "placement"
        if (all(t in BONUS or r in BONUS for t, r in self.confusions)
                and all(t in BONUS for t in self.missed)
                and all(c in BONUS for c in self.extra)):
            return "bonus"
        return "other"


#: IoU at which an unmatched detection still counts as *on* an unmatched tile (``misplaced``).
LOOSE_IOU = 0.1


def match(
    gt_boxes: npt.NDArray[np.float32],
    det_boxes: npt.NDArray[np.float32],
    det_scores: npt.NDArray[np.float32],
    iou_threshold: float = 0.5,
) -> npt.NDArray[np.int64]:
    """One-to-one matching; returns for each detection the matched ground-truth index or -1.

    Detections are taken best score first; each takes the unmatched ground truth with
    the highest IoU ≥ ``iou_threshold``.
    """
    out = np.full(len(det_boxes), -1, np.int64)
    if not len(gt_boxes) or not len(det_boxes):
        return out
    iou = iou_matrix(det_boxes, gt_boxes)
    taken = np.zeros(len(gt_boxes), bool)
    for d in np.argsort(-det_scores, kind="stable"):
        cand = np.where(taken, -1.0, iou[d])
        g = int(cand.argmax())
        if cand[g] >= iou_threshold:
            out[d] = g
            taken[g] = True
    return out


def average_precision(recall: npt.NDArray[np.float64], precision: npt.NDArray[np.float64]) -> float:
    """Area under the precision envelope (all-point interpolation).

    >>> average_precision(np.array([0.5, 1.0]), np.array([1.0, 0.5]))
    0.75
    """
    r = np.concatenate([[0.0], recall, [1.0]])
    p = np.concatenate([[1.0], precision, [0.0]])
    p = np.maximum.accumulate(p[::-1])[::-1]
    steps = np.flatnonzero(r[1:] != r[:-1])
    return float(np.sum((r[steps + 1] - r[steps]) * p[steps + 1]))


# --------------------------------------------------------------------------- report
#: How many names of images without a label file a report shows.
UNLABELLED_SHOWN = 5


@dataclass
class EvalReport:
    """Everything :func:`evaluate` measured; ``to_dict`` for JSON, ``format`` for people."""

    images: int
    iou: float
    conf: float
    per_class: dict[str, dict[str, float | None]]
    precision: float
    recall: float
    f1: float
    map50: float
    images_all_right: float
    confused: list[tuple[str, str, int]]
    results: list[ImageResult]
    #: Median detection time per image (``meta["ms"]["total"]``), when reported.
    ms_median: float | None = None
    #: True when P/R/F1 scored the detector's own answer (``evaluate(operating=...)``):
    #: its rows were kept by its own thresholds (``conf`` for most boxes, lower ones for
    #: flowers and row fills), and their reported confidences may lie below ``conf``.
    as_shipped: bool = False
    #: Confused pairs left out of ``confused`` with the same count as its last one.
    confused_tied_out: int = 0
    #: The images evaluated that have no label file (``Sample.labelled`` False), counted
    #: as showing no tile; an empty label file is an image with no tile and is not here.
    images_without_labels: list[str] = field(default_factory=list)

    @property
    def all_right_interval(self) -> tuple[float, float]:
        """A 95 % interval for :attr:`images_all_right`: the 2.5th and 97.5th percentiles
        of the share over 20,000 resamples of the source photos with replacement (a
        photo's export copies are drawn together, :func:`all_right_interval`)."""
        return all_right_interval(self.results)

    @property
    def error_kinds(self) -> dict[str, int]:
        """Where the errors come from: tiles found but read as another code
        (``wrong_code``), tiles with no detection at the IoU threshold (``no_box``) and
        detections matching no tile (``extra_box``); ``misplaced`` counts the pairs among
        those two where a box still overlaps the tile (IoU ≥ :data:`LOOSE_IOU`) — box and
        label disagree on the tile's extent (loose labels on rotated copies, or a poor box)
        rather than a tile being missed or invented."""
        wrong = sum(len(r.confusions) for r in self.results)
        return {
            "wrong_code": wrong,
            "no_box": sum(r.false_neg for r in self.results) - wrong,
            "extra_box": sum(r.false_pos for r in self.results) - wrong,
            "misplaced": sum(r.misplaced for r in self.results),
        }

    @property
    def failure_kinds(self) -> dict[str, int]:
        """Images not all right, by :attr:`ImageResult.failure` (only kinds that occur,
        most frequent first): whether codes, boxes or both keep an image from being right."""
        kinds = Counter(r.failure for r in self.results if r.failure is not None)
        return dict(kinds.most_common())

    @property
    def failure_causes(self) -> dict[str, int]:
        """Images not all right, by :attr:`ImageResult.cause` (every cause, in the order
        ``bonus``, ``placement``, ``other``): how many fail on flowers and seasons alone,
        how many on where boxes end alone (codes right), how many on anything else."""
        kinds = Counter(r.cause for r in self.results if r.cause is not None)
        return {k: kinds[k] for k in ("bonus", "placement", "other")}

    @property
    def group_outcomes(self) -> dict[str, dict[str, int]]:
        """Per group of tiles — ``suits and honours`` (the 34 kinds), ``bonus`` (the eight
        flowers and seasons), ``face-down`` — how many labelled tiles were found with their
        code (``right``), found with another code (``misread``) or had no box at the IoU
        threshold (``no_box``). Groups without labelled tiles are left out."""
        out: dict[str, Counter[str]] = {}
        for r in self.results:
            for t, _ in r.confusions:
                out.setdefault(tile_group(t), Counter())["misread"] += 1
            for t in r.missed:
                out.setdefault(tile_group(t), Counter())["no_box"] += 1
        for code, m in self.per_class.items():  # every labelled tile: right, misread or missed
            if support := int(m["support"] or 0):
                out.setdefault(tile_group(code), Counter())["right"] += support
        for o in out.values():
            o["right"] -= o["misread"] + o["no_box"]
        order = ("suits and honours", "bonus", "face-down")
        return {g: {k: int(out[g][k]) for k in ("right", "misread", "no_box")}
                for g in order if g in out}

    def to_dict(self) -> dict[str, Any]:
        return {
            "images": self.images,
            "iou": self.iou,
            "conf": self.conf,
            "as_shipped": self.as_shipped,
            "precision": round(self.precision, 4),
            "recall": round(self.recall, 4),
            "f1": round(self.f1, 4),
            "map50": round(self.map50, 4),
            "images_all_right": round(self.images_all_right, 4),
            # 95 % interval by source photo (bootstrap; an export's copies drawn together)
            "images_all_right_interval": [round(v, 4) for v in self.all_right_interval],
            "ms_median": None if self.ms_median is None else round(self.ms_median, 1),
            "error_kinds": self.error_kinds,
            "failure_kinds": self.failure_kinds,
            "failure_causes": self.failure_causes,
            "group_outcomes": self.group_outcomes,
            "errors": [{"image": r.image, "error": r.error} for r in self.results if r.error],
            # images with no label file (counted as showing no tile), and the first names
            "images_without_labels": len(self.images_without_labels),
            "images_without_labels_first": [
                Path(n).name for n in self.images_without_labels[:UNLABELLED_SHOWN]],
            # the file names of the images not all right (unreadable ones too): what
            # ``train/compare.py paired`` pairs between two models on the same images
            "not_all_right": [Path(r.image).name for r in self.results if not r.all_right],
            "per_class": self.per_class,
            "confused": [{"true": t, "read": r, "count": n} for t, r, n in self.confused],
            "confused_tied_out": self.confused_tied_out,
        }

    def _unlabelled_line(self) -> str:
        names = [Path(n).name for n in self.images_without_labels[:UNLABELLED_SHOWN]]
        n = len(self.images_without_labels)
        more = n - len(names)
        return (f"{n} {'image has' if n == 1 else 'images have'} no label file (counted as "
                "showing no tile; an empty label file is an image with no tile): "
                + ", ".join(names) + (f" and {more} more" if more else ""))

    def format(self) -> str:
        """The report for people; a per-class figure that does not exist (no detection
        for precision, no labelled tile for recall and AP50) is shown as ``–``."""
        lines = [
            f"{self.images} images, IoU {self.iou}, " + (
                f"boxes as the detector keeps them (confidence ≥ {self.conf}; lower for "
                "flowers and row fills)" if self.as_shipped else f"confidence ≥ {self.conf}"),
            f"tiles: precision {self.precision:.3f}  recall {self.recall:.3f}  F1 {self.f1:.3f}",
            f"mAP50 {self.map50:.3f}   images with every tile right {self.images_all_right:.1%}"
            " (95 % interval by source photo {:.1%}–{:.1%})".format(*self.all_right_interval),
            *([f"median {self.ms_median:.1f} ms per image"] if self.ms_median is not None else []),
            "errors: {wrong_code} tiles read as another code, {no_box} tiles with no box "
            "at this IoU, {extra_box} boxes on no tile ({misplaced} of those pairs: a box "
            "overlaps the tile, IoU {loose}–{iou})".format(
                **self.error_kinds, loose=LOOSE_IOU, iou=self.iou),
            *([self._unlabelled_line()] if self.images_without_labels else []),
            *(["images not right: " + ", ".join(f"{n} {k}" for k, n in self.failure_kinds.items())]
              if self.failure_kinds else []),
            *(["images not right by cause: {bonus} only flowers and seasons, {placement} only "
               "where boxes end (codes right), {other} other".format(**self.failure_causes)]
              if self.failure_kinds else []),
            *[f"{g}: {o['right']} right, {o['misread']} misread, {o['no_box']} with no box"
              for g, o in self.group_outcomes.items()],
            "",
            f"{'class':<6}{'true':>6}{'found':>7}{'P':>7}{'R':>7}{'F1':>7}{'AP50':>7}",
        ]
        for code, m in self.per_class.items():
            cells = "".join(f"{'–' if m[k] is None else format(m[k], '.3f'):>7}"
                            for k in ("precision", "recall", "f1", "ap50"))
            lines.append(f"{code:<6}{int(m['support'] or 0):>6}{int(m['detections'] or 0):>7}"
                         f"{cells}")
        if self.confused:
            lines += ["", "most confused (true → read: count)"]
            lines += [f"  {t} → {r}: {n}" for t, r, n in self.confused]
            if self.confused_tied_out:
                n = self.confused[-1][2]
                lines.append(f"  and {self.confused_tied_out} more with {n}")
        errors = [r for r in self.results if r.error]
        if errors:
            lines += ["", f"{len(errors)} images could not be read:"]
            lines += [f"  {r.image}: {r.error}" for r in errors]
        return "\n".join(lines)


def all_right_interval(
    results: Sequence[ImageResult], resamples: int = 20_000, seed: int = 0
) -> tuple[float, float]:
    """95 % bootstrap interval of the share of images all right, resampling **source
    photos** (:func:`vision.data.photos.source_stem`): the copies of one photo go right or
    wrong together, so resampling copies alone would give too narrow an interval. Seeded:
    the same results give the same interval. ``(0.0, 0.0)`` for no images. The
    resamples are drawn in blocks of about 4 million photo draws, so memory stays bounded
    for large sets; 20,000 of them put the percentiles within about 0.2 points of their
    limit (with 2,000, the upper end of the val photos' interval moved by 0.7 points
    between seeds).

    >>> r = [ImageResult(f"p{i}.jpg", 1, 1 if i < 3 else 0, 0, 0 if i < 3 else 1)
    ...      for i in range(4)]
    >>> lo, hi = all_right_interval(r)
    >>> 0.0 <= lo <= 0.75 <= hi <= 1.0
    True
    """
    if not results:
        return 0.0, 0.0
    groups: dict[str, list[bool]] = {}
    for r in results:
        groups.setdefault(source_stem(r.image), []).append(r.all_right)
    right = np.array([sum(g) for g in groups.values()], np.float64)
    count = np.array([len(g) for g in groups.values()], np.float64)
    rng = np.random.default_rng(seed)
    block = max(1, 4_000_000 // len(right))
    shares = np.empty(resamples, np.float64)
    for start in range(0, resamples, block):
        n = min(block, resamples - start)
        draws = rng.integers(0, len(right), (n, len(right)))
        shares[start:start + n] = right[draws].sum(axis=1) / count[draws].sum(axis=1)
    lo, hi = np.percentile(shares, [2.5, 97.5])
    return float(lo), float(hi)


def most_confused(confusions: Counter[tuple[str, str]], top: int
                  ) -> list[tuple[str, str, int]]:
    """The ``top`` most frequent (true, read) pairs, most frequent first and pairs of one
    count ordered by their codes' text (not by the order the images met them).

    >>> most_confused(Counter({("9p", "6p"): 2, ("3f", "4f"): 2, ("1m", "7m"): 5}), 2)
    [('1m', '7m', 5), ('3f', '4f', 2)]
    """
    ranked = sorted(confusions.items(), key=lambda kv: (-kv[1], kv[0]))
    return [(t, r, n) for (t, r), n in ranked[:top]]


def tied_out(confusions: Counter[tuple[str, str]], top: int) -> int:
    """How many pairs :func:`most_confused` leaves out with the same count as its last.

    >>> tied_out(Counter({("9p", "6p"): 2, ("3f", "4f"): 2, ("1m", "7m"): 5}), 2)
    1
    """
    shown = most_confused(confusions, top)
    if not shown or len(confusions) <= top:
        return 0
    last = shown[-1][2]
    return sum(1 for n in confusions.values() if n == last) - sum(
        1 for *_, n in shown if n == last)


def tile_group(code: str) -> str:
    """The group :attr:`EvalReport.group_outcomes` counts a tile code in.

    >>> [tile_group(c) for c in ("5p", "C", "3f", "back")]
    ['suits and honours', 'suits and honours', 'bonus', 'face-down']
    """
    if code == BACK:
        return "face-down"
    return "bonus" if code in BONUS else "suits and honours"


def _ratio(a: float, b: float) -> float:
    return a / b if b else 0.0


def _f1(p: float, r: float) -> float:
    return 2 * p * r / (p + r) if p + r else 0.0


def evaluate(
    samples: Iterable[Sample],
    detect: Callable[[Path], Detections],
    *,
    conf: float = 0.25,
    iou: float = 0.5,
    top_confusions: int = 10,
    progress: Callable[[int], None] | None = None,
    score: Callable[[Detections], npt.NDArray[np.float32]] | None = None,
    thresholds: Callable[[Detections], npt.NDArray[np.float32]] | None = None,
    operating: Callable[[Path], Detections] | None = None,
) -> EvalReport:
    """Run ``detect`` on every sample and score it (see the module doc for definitions).

    ``conf`` is the operating threshold for P/R/F1 and images-right, applied to
    ``score(det)`` (default: the confidences; :func:`vision.detect.detection_scores`
    reproduces the detector's own threshold); ``detect`` may return lower-scored rows,
    which only mAP50 uses (ranked by confidence). ``thresholds(det)``, when given, is
    the score each row needs instead of ``conf`` (``(n,)``; e.g. a lower one for boxes
    read as flowers, :func:`vision.detect.keep_thresholds`). ``operating``, when given,
    is the detector as shipped (:attr:`vision.detect.EvaluationDetector.operating`): its
    answer, every row of it, is what P/R/F1, images-right, the confusions and the times
    score, while ``detect``'s rows rank mAP50 only. ``ValueError`` from
    ``detect`` (e.g. an unreadable image) is recorded for that image, whose tiles then
    count as missed.

    ``per_class`` lists every class with a labelled tile or a detection (kept or not):
    ``support`` labelled tiles, ``detections`` kept, and ``precision``, ``recall``,
    ``f1``, ``ap50``, each ``None`` where it does not exist rather than 0 — a class with
    no labelled tile has no recall and no AP50 (and mAP50 is the mean over the classes
    with labelled tiles); one that also has no detection kept (listed only for rows below
    the threshold, which mAP50 ranks) has no precision or F1 either. A class with
    detections kept but no labelled tile keeps precision and F1 0: each of its detections
    is a false positive. Images with no label file (``Sample.labelled`` False) count as
    showing no tile and are listed in ``images_without_labels``.
    """
    n_cls = len(CLASSES)
    tp = np.zeros(n_cls)
    fp = np.zeros(n_cls)
    fn = np.zeros(n_cls)
    support = np.zeros(n_cls)
    ranked: list[list[tuple[float, bool]]] = [[] for _ in range(n_cls)]
    confusions: Counter[tuple[str, str]] = Counter()
    results: list[ImageResult] = []
    times: list[float] = []
    unlabelled: list[str] = []
    for k, sample in enumerate(samples):
        if not sample.labelled:
            unlabelled.append(str(sample.image))
        gt_ids = sample.class_ids
        np.add.at(support, gt_ids, 1)
        try:
            det = detect(sample.image)
            shipped = operating(sample.image) if operating is not None else None
        except ModelError:
            raise  # the model, not the image: one error, not every image unreadable
        except ValueError as exc:
            np.add.at(fn, gt_ids, 1)
            n = len(gt_ids)
            results.append(ImageResult(str(sample.image), n, 0, 0, n, [], str(exc),
                                       missed=[CLASSES[int(c)] for c in gt_ids]))
            if progress is not None:
                progress(k + 1)
            continue
        timed = shipped if shipped is not None else det
        if isinstance(timed.meta.get("ms"), dict) and "total" in timed.meta["ms"]:
            times.append(float(timed.meta["ms"]["total"]))
        if det.image_size is not None:
            width, height = det.image_size
        else:  # the detector did not say: read the size from the file header
            _, width, height = image_size_from_header(sample.image.read_bytes())
        gt_boxes = sample.boxes(width, height)
        # mAP: class-aware matching over every returned detection
        for c in np.unique(np.concatenate([gt_ids, det.class_ids])):
            dm = det.class_ids == c
            gm = gt_ids == c
            m = match(gt_boxes[gm], det.boxes[dm], det.confidences[dm], iou)
            ranked[int(c)] += list(
                zip(det.confidences[dm].tolist(), (m >= 0).tolist(), strict=True)
            )
        # operating point: class-agnostic matching, then compare codes
        if shipped is not None:  # the detector's own answer: every row is a tile it keeps
            boxes, ids, scores = shipped.boxes, shipped.class_ids, shipped.confidences
        else:
            need = thresholds(det) if thresholds is not None else conf
            keep = (score(det) if score is not None else det.confidences) >= need
            boxes, ids, scores = det.boxes[keep], det.class_ids[keep], det.confidences[keep]
        m = match(gt_boxes, boxes, scores, iou)
        res = ImageResult(str(sample.image), len(gt_ids), 0, 0, 0)
        matched_gt = np.zeros(len(gt_ids), bool)
        for d, g in enumerate(m.tolist()):
            if g < 0:
                fp[ids[d]] += 1
                res.false_pos += 1
                res.extra.append(CLASSES[int(ids[d])])
                continue
            matched_gt[g] = True
            if ids[d] == gt_ids[g]:
                tp[ids[d]] += 1
                res.right += 1
            else:
                fp[ids[d]] += 1
                fn[gt_ids[g]] += 1
                res.false_pos += 1
                res.false_neg += 1
                pair = (CLASSES[int(gt_ids[g])], CLASSES[int(ids[d])])
                res.confusions.append(pair)
                confusions[pair] += 1
        for g in np.flatnonzero(~matched_gt):
            fn[gt_ids[g]] += 1
            res.false_neg += 1
            res.missed.append(CLASSES[int(gt_ids[g])])
        free_d = np.flatnonzero(m < 0)
        free_g = np.flatnonzero(~matched_gt)
        if len(free_d) and len(free_g):
            loose = match(gt_boxes[free_g], boxes[free_d], scores[free_d], LOOSE_IOU)
            res.misplaced = int((loose >= 0).sum())
            res.misplaced_misread = sum(
                int(ids[d] != gt_ids[free_g[g]])
                for d, g in zip(free_d.tolist(), loose.tolist(), strict=True) if g >= 0)
        results.append(res)
        if progress is not None:
            progress(k + 1)

    per_class: dict[str, dict[str, float | None]] = {}
    aps = []
    for c in range(n_cls):
        if not support[c] and not tp[c] + fp[c] and not ranked[c]:
            continue
        found = tp[c] + fp[c]
        ap: float | None = None  # no labelled tile: no AP, and none in mAP50
        if support[c]:
            ap = 0.0
            rows = sorted(ranked[c], key=lambda t: -t[0])
            hits = np.array([h for _, h in rows], np.float64)
            ctp = np.cumsum(hits)
            cfp = np.cumsum(1 - hits)
            if len(rows):
                ap = average_precision(ctp / support[c], ctp / np.maximum(ctp + cfp, 1e-12))
            aps.append(ap)
        # no labelled tile and no detection kept: nothing to measure (only detections
        # below the operating threshold, which mAP50 ranks); a detection with no labelled
        # tile is a false positive: precision and F1 0, recall still none
        p = _ratio(tp[c], found) if found or support[c] else None
        r = _ratio(tp[c], tp[c] + fn[c]) if support[c] else None
        f1 = _f1(p or 0.0, r or 0.0) if p is not None else None
        per_class[CLASSES[c]] = {
            "support": int(support[c]),
            "detections": int(found),
            "precision": None if p is None else round(p, 4),
            "recall": None if r is None else round(r, 4),
            "f1": None if f1 is None else round(f1, 4),
            "ap50": None if ap is None else round(ap, 4),
        }
    precision = _ratio(tp.sum(), tp.sum() + fp.sum())
    recall = _ratio(tp.sum(), tp.sum() + fn.sum())
    return EvalReport(
        images=len(results),
        iou=iou,
        conf=conf,
        per_class=per_class,
        precision=precision,
        recall=recall,
        f1=_f1(precision, recall),
        map50=float(np.mean(aps)) if aps else 0.0,
        images_all_right=_ratio(sum(r.all_right for r in results), len(results)),
        confused=most_confused(confusions, top_confusions),
        confused_tied_out=tied_out(confusions, top_confusions),
        as_shipped=operating is not None,
        results=results,
        ms_median=float(np.median(times)) if times else None,
        images_without_labels=unlabelled,
    )
