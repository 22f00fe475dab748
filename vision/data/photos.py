"""Prepare the real photos (``../shared/datasets/hk-photos``) as a YOLO dataset.

The source is a Roboflow export: every source photo has up to 5 augmented *copies*
sharing a file-name *stem* (the part before ``.rf.``). The export flipped copies
horizontally and vertically at random, so about a third of the copies are **mirrored**
(glyphs that no real table shows); copies with both flips are 180° rotations and fine.

How the mirrored copies are found (two steps):

1. **Parity within a stem** (relative, geometric): copies of one photo differ by
   rotations, shear and flips. SIFT keypoints are matched between copy 0 and each
   other copy, and between the *mirror image* of copy 0 and each other copy; an
   affine model is fitted with RANSAC in both cases. Whichever match has more inliers
   says whether the copy has the same handedness as copy 0 (parity 0) or the
   opposite one (parity 1). SIFT descriptors are not mirror-invariant, so the wrong
   hypothesis finds few inliers (typically 10x fewer).
2. **Which parity group is the real one** (absolute): where the export kept the photo
   once *un-augmented* beside its augmented copies, that copy is the one with the
   tightest boxes (rotation and shear only loosen axis-aligned boxes;
   :func:`original_copy`), it is never mirrored, and its parity group is the real one.
   But for about 40 % of the stems no copy is un-augmented: the tightest copy is itself
   turned or sheared (the export's fill shows in its corners,
   :func:`vision.data.relabel.fill_corners`) and was flipped as often as any other copy.
   For a stem whose tightest copy shows fill corners, the copies are matched against the
   other stems' un-augmented originals and their mirror images
   (:mod:`vision.data.handedness`): a clear verdict decides; without one, a stem whose
   tightest copy is turned (:data:`~vision.data.relabel.TURNED_CORNERS` corners or
   more) is left out as ambiguous, and one with a corner or two (a dark table edge, most
   often) keeps the tightest copy's group. See ``models/README.md``, "Mirrored copies".
   Pluggable alternative: a scorer, e.g. a reference detector (:class:`DetectorScorer`)
   comparing a copy with its mirror image (a weak cue for mahjong-detector, measured in
   ``models/README.md``).

Mirrored copies are then flipped back (image and labels, ``mirrored="fix"``) or left
out (``mirrored="drop"``). Each augmented copy's labels are then rebuilt from that
original's (:mod:`vision.data.relabel`; the export's own boxes on turned copies are grown
across neighbouring tiles), unless ``labels_from="export"``. Train/validation are split
by stem, so no photo leaks.

The output is a YOLO dataset: ``images/{train,val}``, ``labels/{train,val}``
(class ids of :data:`vision.classes.CLASSES`), ``data.yaml``, ``mirror.csv`` (per copy:
stem, parity, mirrored, split, how it was judged) and ``labels.csv`` (per copy: its
alignment with the original) for audit.
"""

from __future__ import annotations

import ast
import csv
import random
import re
import shutil
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import cv2
import numpy as np
import numpy.typing as npt

from vision.classes import CLASSES, class_id
from vision.data.handedness import HandednessCue, cue_verdict, stem_vote
from vision.data.label_fixes import LABEL_FIXES, LabelFix, apply_label_fixes
from vision.data.relabel import (
    TURNED_CORNERS,
    Features,
    LabelMapper,
    fill_corners,
    ratio_matches,
)

#: hk-photos class name → tile code (RULES.md). ``bf`` = flowers plum, orchid,
#: chrysanthemum, bamboo (``5f``-``8f``); ``bs`` = seasons spring..winter (``1f``-``4f``).
HK_CODES: dict[str, str] = {
    **{f"sc{r}": f"{r}m" for r in range(1, 10)},
    **{f"sd{r}": f"{r}p" for r in range(1, 10)},
    **{f"sb{r}": f"{r}s" for r in range(1, 10)},
    "hwe": "E",
    "hws": "S",
    "hww": "W",
    "hwn": "N",
    "hdr": "C",
    "hdg": "F",
    "hdw": "P",
    **{f"bs{r}": f"{r}f" for r in range(1, 5)},
    **{f"bf{r}": f"{r + 4}f" for r in range(1, 5)},
}

#: Class names used by other detectors (mahjong-detector's Japanese names) → tile codes.
ALIAS_CODES: dict[str, str] = {
    "chun": "C",
    "haku": "P",
    "hatsu": "F",
    "nan": "S",
    "pe": "N",
    "sha": "W",
    "tou": "E",
}

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png")

#: A labelled image: ``(n, 5)`` float64 rows ``class_id, cx, cy, w, h``, coordinates
#: normalised to 0..1 of the image width/height, class ids of :data:`CLASSES`.
Labels = npt.NDArray[np.float64]
#: ``scorer(image_bgr, labels) -> float``: how well a reference model recognises the
#: labelled tiles; higher = more natural (un-mirrored) glyphs.
Scorer = Callable[[npt.NDArray[np.uint8], Labels], float]
Progress = Callable[[Iterable[str]], Iterable[str]]


def source_stem(name: str) -> str:
    """The source photo a Roboflow copy came from.

    >>> source_stem("hand_046_jpg.rf.3a82ad70dc2ff0c0.jpg")
    'hand_046_jpg'
    >>> source_stem("plain.jpg")
    'plain'
    """
    base = Path(name).name
    return base.split(".rf.")[0] if ".rf." in base else Path(base).stem


def hk_code(name: str) -> str:
    """The tile code of an hk-photos class name.

    >>> hk_code("sd5"), hk_code("hdr"), hk_code("bs1"), hk_code("bf1")
    ('5p', 'C', '1f', '5f')
    """
    try:
        return HK_CODES[name]
    except KeyError:
        raise ValueError(f"unknown hk-photos class name {name!r}") from None


def read_class_names(src: Path) -> list[str]:
    """The class names (in YOLO id order) from ``src/classes.yaml`` (``names: [...]``)."""
    path = src / "classes.yaml"
    if not path.is_file():
        raise ValueError(f"{path} not found: is {src} an hk-photos folder?")
    match = re.search(r"^names:\s*(\[.*?\])", path.read_text(encoding="utf-8"), re.M | re.S)
    if not match:
        raise ValueError(f"{path} has no 'names: [...]' list")
    names = ast.literal_eval(match.group(1))
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise ValueError(f"{path}: names must be a list of strings")
    unknown = [n for n in names if n not in HK_CODES]
    if unknown:
        raise ValueError(f"{path}: unknown hk-photos class name(s) "
                         f"{', '.join(map(repr, unknown))} (known: sc1-9, sd1-9, sb1-9, "
                         "hwe hws hww hwn, hdr hdg hdw, bs1-4, bf1-4)")
    return names


#: How far (in normalised units) a label's centre or polygon point may lie outside
#: 0..1: rounding in the export, not a tile outside the picture.
COORD_TOLERANCE = 1e-3


def read_labels(path: Path, names: Sequence[str]) -> Labels:
    """Read one YOLO label file, mapping class ids through ``names`` to :data:`CLASSES` ids.

    Polygon rows (``cls x1 y1 x2 y2 ...``) become their enclosing box. Returns ``(n, 5)``.
    A row with a value that is not a finite number, a box of no width or height, or a
    centre or polygon point outside the image (0..1, :data:`COORD_TOLERANCE`) is refused
    (ValueError naming ``file:line``).
    """
    rows: list[list[float]] = []
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        parts = line.split()
        if not parts:
            continue
        try:
            values = [float(p) for p in parts]
        except ValueError:
            raise ValueError(f"{path}:{lineno}: not numbers: {line!r}") from None
        if not all(np.isfinite(values)):
            raise ValueError(f"{path}:{lineno}: not a finite number: {line!r}")
        src_id = int(values[0])
        if not 0 <= src_id < len(names) or values[0] != src_id:
            raise ValueError(f"{path}:{lineno}: class id {parts[0]} out of range")
        cls = class_id(hk_code(names[src_id]))
        if len(values) == 5:
            cx, cy, w, h = values[1:]
            points = [cx, cy]
        elif len(values) >= 7 and len(values) % 2 == 1:
            xs, ys = values[1::2], values[2::2]
            cx, cy = (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2
            w, h = max(xs) - min(xs), max(ys) - min(ys)
            points = values[1:]
        else:
            raise ValueError(f"{path}:{lineno}: expected 5 values or a polygon, got {len(values)}")
        if not all(-COORD_TOLERANCE <= v <= 1 + COORD_TOLERANCE for v in points):
            what = "centre" if len(values) == 5 else "polygon point"
            raise ValueError(f"{path}:{lineno}: {what} outside the image (0..1): {line!r}")
        if w <= 0 or h <= 0:
            raise ValueError(f"{path}:{lineno}: box of no width or height: {line!r}")
        rows.append([cls, cx, cy, w, h])
    return np.array(rows, np.float64).reshape(-1, 5)


def flip_labels(labels: Labels) -> Labels:
    """Labels of the horizontally flipped image (``cx → 1 - cx``)."""
    out = labels.copy()
    out[:, 1] = 1.0 - out[:, 1]
    return out


def rotate_labels_cw(labels: Labels) -> Labels:
    """Labels of the image rotated 90° clockwise (``(x, y) → (1 - y, x)``)."""
    out = labels.copy()
    out[:, 1], out[:, 2] = 1.0 - labels[:, 2], labels[:, 1]
    out[:, 3], out[:, 4] = labels[:, 4], labels[:, 3]
    return out


def format_labels(labels: Labels) -> str:
    """YOLO text, one ``class cx cy w h`` line per tile (6 decimals)."""
    return "".join(f"{int(r[0])} {r[1]:.6f} {r[2]:.6f} {r[3]:.6f} {r[4]:.6f}\n" for r in labels)


# ----------------------------------------------------------------- parity (relative)
class ParityMatcher:
    """Tells whether two copies of one photo have the same handedness (SIFT + RANSAC)."""

    def __init__(self, max_side: int = 400, features: int = 1000) -> None:
        self.max_side = max_side
        self._sift = cv2.SIFT.create(nfeatures=features)
        self._matcher = cv2.BFMatcher(cv2.NORM_L2)

    def _features(self, image: npt.NDArray[np.uint8]) -> Features:
        grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
        scale = self.max_side / max(grey.shape[:2])
        if scale < 1:
            grey = cv2.resize(grey, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        keypoints, descriptors = self._sift.detectAndCompute(grey, None)
        points = np.asarray([k.pt for k in keypoints], np.float32).reshape(-1, 2)
        return cast(Features, (points, descriptors))

    def _inliers(self, a: Features, b: Features) -> int:
        if len(a[0]) < 3 or len(b[0]) < 3:
            return 0
        src, dst = ratio_matches(self._matcher, a, b)
        if len(src) < 3:
            return 0
        model, mask = cv2.estimateAffine2D(src, dst, ransacReprojThreshold=3.0)
        if model is None or mask is None:
            return 0
        return int(mask.sum())

    def parities(self, images: Sequence[npt.NDArray[np.uint8]]) -> list[tuple[int, int, int]]:
        """Per copy: ``(parity, inliers_same, inliers_mirrored)`` relative to copy 0.

        Parity 0 = same handedness as copy 0 (copy 0 itself is ``(0, -1, -1)``).
        """
        if not images:
            return []
        ref = self._features(images[0])
        ref_mirror = self._features(cast("npt.NDArray[np.uint8]", cv2.flip(images[0], 1)))
        out = [(0, -1, -1)]
        for image in images[1:]:
            feats = self._features(image)
            same, mirrored = self._inliers(ref, feats), self._inliers(ref_mirror, feats)
            out.append((0 if same >= mirrored else 1, same, mirrored))
        return out


# --------------------------------------------------------- handedness (absolute)
def _code_of(name: str) -> str | None:
    code = ALIAS_CODES.get(name, name)
    return code if code in CLASSES else None


class DetectorScorer:
    """Scores a labelled image with a reference YOLO ONNX detector (ultralytics export).

    The score is the mean, over labelled tiles the detector knows, of the detector's
    probability for the labelled class at anchors near the tile centre, taking the best
    of the four right-angle rotations of the image (the detector was trained on upright
    tiles; copies may be turned by 90°).

    ``input="gray"``: grey + autocontrast (how mahjong-detector was trained);
    ``"rgb"``: colour (tilecam's own model).
    """

    def __init__(self, model: Path, *, input: str = "gray", threads: int = 2) -> None:
        import onnxruntime as ort

        if input not in ("gray", "rgb"):
            raise ValueError(f"input must be 'gray' or 'rgb', got {input!r}")
        if not Path(model).is_file():
            raise ValueError(f"reference model {model} not found")
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        self._session = ort.InferenceSession(
            str(model), options, providers=["CPUExecutionProvider"]
        )
        meta = self._session.get_modelmeta().custom_metadata_map
        names = ast.literal_eval(meta.get("names", "{}"))
        if not names:
            raise ValueError(f"{model}: no class names in the ONNX metadata")
        self._row = {}  # our class id -> output row
        for idx, name in names.items():
            code = _code_of(str(name))
            if code is not None:
                self._row[class_id(code)] = 4 + int(idx)
        shape = self._session.get_inputs()[0].shape
        self.size = int(shape[2]) if isinstance(shape[2], int) else 640
        self.input = input

    def _tensor(self, image: npt.NDArray[np.uint8]) -> npt.NDArray[np.float32]:
        image = cast("npt.NDArray[np.uint8]",
                     cv2.resize(image, (self.size, self.size), interpolation=cv2.INTER_AREA))
        if self.input == "gray":
            grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY).astype(np.float32)
            lo, hi = np.percentile(grey, (0.5, 99.5))
            grey = np.clip((grey - lo) * 255.0 / max(hi - lo, 1.0), 0, 255)
            planes = np.repeat(grey[None], 3, 0)
        else:
            planes = image[:, :, ::-1].transpose(2, 0, 1).astype(np.float32)
        return np.ascontiguousarray(planes[None] / 255.0, dtype=np.float32)

    def _score_upright(self, image: npt.NDArray[np.uint8], labels: Labels) -> float:
        name = self._session.get_inputs()[0].name
        out = self._session.run(None, {name: self._tensor(image)})[0][0]
        cx, cy = out[0] / self.size, out[1] / self.size
        values = []
        for cls, x, y, w, h in labels:
            row = self._row.get(int(cls))
            if row is None:
                continue
            near = (np.abs(cx - x) < 0.3 * w) & (np.abs(cy - y) < 0.3 * h)
            values.append(float(out[row][near].max()) if near.any() else 0.0)
        return float(np.mean(values)) if values else 0.0

    def __call__(self, image: npt.NDArray[np.uint8], labels: Labels) -> float:
        best = 0.0
        for _ in range(4):
            best = max(best, self._score_upright(image, labels))
            image = cast("npt.NDArray[np.uint8]", cv2.rotate(image, cv2.ROTATE_90_CLOCKWISE))
            labels = rotate_labels_cw(labels)
        return best


def handedness_margin(scorer: Scorer, image: npt.NDArray[np.uint8], labels: Labels) -> float:
    """``scorer(image) - scorer(mirror image)``: > 0 when the copy looks un-mirrored."""
    return scorer(image, labels) - scorer(cast("npt.NDArray[np.uint8]", cv2.flip(image, 1)),
                                          flip_labels(labels))


def tightness(labels: Labels) -> float:
    """Mean box area (normalised): copies turned by ~45° have loose, larger boxes."""
    return float((labels[:, 3] * labels[:, 4]).mean()) if len(labels) else 1.0


@dataclass(frozen=True)
class CopyDecision:
    """How one copy of a source photo was judged."""

    name: str
    stem: str
    parity: int
    inliers_same: int
    inliers_mirrored: int
    margin: float | None  # handedness margin (or tightness ratio) when judged, else None
    mirrored: bool
    #: The stem's copies cannot be judged: both parity groups hold an equally tight copy
    #: (the original cannot be told apart), or no copy is un-augmented and the
    #: cross-photo cue is unclear.
    ambiguous: bool = False
    #: The copy's cross-photo cue margin (:meth:`HandednessCue.margin`, > 0: reads as
    #: taken) when the cue was asked, else None.
    cue: float | None = None
    #: What decided: ``"original"`` (the un-augmented original's group, or a tie),
    #: ``"cue"`` (the cross-photo cue, or it was unclear), ``"tightest"`` (the tightest
    #: copy's group although it shows fill corners: the cue turned off), ``"scorer"``;
    #: ``""`` unjudged.
    judged_by: str = ""


def compute_parities(
    groups: dict[str, list[Path]],
    matcher: ParityMatcher | None = None,
    progress: Progress | None = None,
) -> dict[str, tuple[int, int, int]]:
    """``{file name: (parity, inliers_same, inliers_mirrored)}`` for every copy of every stem."""
    matcher = matcher or ParityMatcher()
    out: dict[str, tuple[int, int, int]] = {}
    stems: Iterable[str] = sorted(groups)
    if progress is not None:
        stems = progress(stems)
    for stem in stems:
        paths = groups[stem]
        for path, parity in zip(
            paths, matcher.parities([_load_image(p) for p in paths]), strict=True
        ):
            out[path.name] = parity
    return out


#: Box-area ratio below which the tightest copies of both parity groups count as a tie.
TIE_RATIO = 1.02


def original_copy(labels: Sequence[Labels]) -> tuple[int, float] | None:
    """The copy with the tightest boxes, and how much looser the next copy's boxes are.

    Roboflow's export keeps each source photo once un-augmented beside its augmented
    copies; rotation and shear only ever loosen axis-aligned boxes, so the copy with the
    smallest mean box area is the original, which is never mirrored. Returns ``(index,
    ratio)`` with ratio = next-smallest / smallest mean box area (1.0 = a tie), or None
    when no copy has labels.
    """
    areas = sorted((tightness(lb), i) for i, lb in enumerate(labels) if len(lb))
    if not areas:
        return None
    ratio = areas[1][0] / areas[0][0] if len(areas) > 1 and areas[0][0] > 0 else 1.0
    return areas[0][1], ratio


#: Fill corners (:func:`vision.data.relabel.fill_corners`) of the tightest copy from
#: which its group is checked with the cross-photo cue: at one or two it is most often
#: the photo as taken with a dark table edge (the cue overrules it only when clear), from
#: :data:`~vision.data.relabel.TURNED_CORNERS` on it is turned (the cue must be clear).
CUE_CORNERS = 1

#: The cue margins of a stem's copies (one per copy, None where a copy gives none),
#: asked for only when the stem needs them.
CueMargins = Callable[[], Sequence[float | None]]


def decide_stem(
    names: Sequence[str],
    images: Sequence[npt.NDArray[np.uint8]],
    labels: Sequence[Labels],
    matcher: ParityMatcher,
    scorer: Scorer | None = None,
    *,
    votes_per_group: int = 1,
    cue: HandednessCue | None = None,
) -> list[CopyDecision]:
    """Split one stem's copies into parity groups and decide which group is mirrored.

    With no ``scorer``, the group holding the un-augmented original
    (:func:`original_copy`) is the real one; its ``margin`` is the ratio of the other
    group's tightest mean box area to the original's. Below :data:`TIE_RATIO` both
    groups hold an equally tight copy and every decision is marked ``ambiguous``.
    When that tightest copy shows the export's fill in :data:`CUE_CORNERS` corners or
    more, it may be an augmented copy (flipped as often as any), and ``cue`` (references
    of other stems, this stem's left out) decides instead where its verdict is clear
    (:func:`vision.data.handedness.cue_verdict`); where it is not (or no ``cue`` is
    given) a stem whose tightest copy is turned (:data:`TURNED_CORNERS` corners or more)
    is ``ambiguous``, and one with fewer keeps the tightest copy's group.
    With a ``scorer``, each group votes with its ``votes_per_group`` tightest-boxed
    copies; a copy's vote counts for its own group and against the other (its mirror
    image belongs there).
    """
    stem = source_stem(names[0]) if names else ""
    margins: CueMargins | None = None
    if cue is not None:
        ref = cue

        def margins() -> list[float | None]:
            return [ref.margin(image, exclude=stem) for image in images]

    return judge_stem(
        names, images, labels, matcher.parities(images), scorer,
        votes_per_group=votes_per_group, cue=margins,
    )


def judge_stem(
    names: Sequence[str],
    images: Sequence[npt.NDArray[np.uint8]],
    labels: Sequence[Labels],
    parities: Sequence[tuple[int, int, int]],
    scorer: Scorer | None = None,
    *,
    votes_per_group: int = 1,
    cue: CueMargins | None = None,
    by_tightest: bool = False,
) -> list[CopyDecision]:
    """:func:`decide_stem` with the parities known, and the cue as its copies' margins
    (asked for only when the tightest copy shows fill corners). ``by_tightest``: the
    tightest copy's group is the real one even when it shows fill corners, the cue not
    asked (the rule before the cue, for comparison: about 42 hk-photos photos come out
    mirrored)."""
    margins: list[float | None] = [None] * len(labels)
    cues: Sequence[float | None] = [None] * len(labels)
    ambiguous = False
    if scorer is None:
        judged_by = "original"
        original = original_copy(labels)
        group0_mirrored = original is not None and parities[original[0]][0] == 1
        if original is not None:
            i0 = original[0]
            others = [
                tightness(labels[i])
                for i, p in enumerate(parities)
                if p[0] != parities[i0][0] and len(labels[i])
            ]
            ratio = min(others) / max(tightness(labels[i0]), 1e-12) if others else float("inf")
            margins[i0] = min(ratio, 99.0)
            ambiguous = ratio < TIE_RATIO
            fill = fill_corners(images[i0])
            if not ambiguous and fill >= CUE_CORNERS and by_tightest:
                judged_by = "tightest"
            elif not ambiguous and fill >= CUE_CORNERS:
                verdict = None
                if cue is not None:
                    cues = list(cue())
                    vote = stem_vote(cues, [p[0] for p in parities], parities[i0][0])
                    verdict = cue_verdict(vote)
                if verdict is not None:  # True: the tightest copy's group reads as taken
                    group0_mirrored = (parities[i0][0] == 0) != verdict
                    judged_by = "cue"
                elif fill >= TURNED_CORNERS:
                    ambiguous = True
                    judged_by = "cue"
    else:
        judged_by = "scorer"
        for group in (0, 1):
            members = [i for i, p in enumerate(parities) if p[0] == group and len(labels[i])]
            members.sort(key=lambda i: tightness(labels[i]))
            for i in members[:votes_per_group]:
                margins[i] = handedness_margin(scorer, images[i], labels[i])
        vote = sum(
            (m if parities[i][0] == 0 else -m) for i, m in enumerate(margins) if m is not None
        )
        group0_mirrored = vote < 0
    stem = source_stem(names[0])
    return [
        CopyDecision(
            name=names[i],
            stem=stem,
            parity=p[0],
            inliers_same=p[1],
            inliers_mirrored=p[2],
            margin=margins[i],
            mirrored=(p[0] == 0) == group0_mirrored,
            ambiguous=ambiguous,
            cue=cues[i],
            judged_by=judged_by,
        )
        for i, p in enumerate(parities)
    ]


# ----------------------------------------------------------------------- dataset
def reference_photos(groups: dict[str, list[Path]], labels_dir: Path,
                     names: Sequence[str]) -> list[tuple[str, Path]]:
    """The cross-photo cue's references: per stem whose un-augmented original is kept,
    that copy (photos as taken, so right-handed). Kept: the tightest-boxed copy
    (:func:`original_copy`) shows no fill corner, and no other copy's boxes are within
    :data:`TIE_RATIO` of it (which might be its mere mirror image)."""
    out = []
    for stem in sorted(groups):
        paths = groups[stem]
        original = original_copy([_copy_labels(labels_dir, p, names) for p in paths])
        if original is None or original[1] < TIE_RATIO:
            continue
        path = paths[original[0]]
        if fill_corners(_load_image(path)) == 0:
            out.append((stem, path))
    return out


def group_copies(images_dir: Path) -> dict[str, list[Path]]:
    """Image files grouped by source stem (sorted by name)."""
    groups: dict[str, list[Path]] = {}
    for path in sorted(images_dir.iterdir()):
        if path.suffix.lower() in IMAGE_SUFFIXES:
            groups.setdefault(source_stem(path.name), []).append(path)
    return groups


def split_stems(stems: Iterable[str], val_fraction: float, seed: int) -> tuple[set[str], set[str]]:
    """Deterministic train/val split of stems (at least one val stem if fraction > 0).

    >>> train, val = split_stems(["a", "b", "c", "d", "e"], 0.2, 0)
    >>> len(train), len(val), train.isdisjoint(val)
    (4, 1, True)
    """
    if not 0.0 <= val_fraction < 1.0:
        raise ValueError(f"val_fraction must be in [0, 1), got {val_fraction}")
    ordered = sorted(set(stems))
    random.Random(seed).shuffle(ordered)
    n_val = round(len(ordered) * val_fraction)
    if val_fraction > 0 and n_val == 0 and len(ordered) > 1:
        n_val = 1
    return set(ordered[n_val:]), set(ordered[:n_val])


def jpeg_complete(data: bytes) -> bool:
    """Whether JPEG ``data`` ends its last scan with the end-of-image marker (FF D9).

    OpenCV decodes a truncated JPEG without an error (the missing rows grey), so a copy
    cut short in transfer would pass, its labels on tiles it no longer shows.

    >>> whole = bytes.fromhex("ffd8ffda0001ffd9")
    >>> jpeg_complete(whole), jpeg_complete(whole[:-2])
    (True, False)
    """
    return data.rfind(b"\xff\xd9") > data.rfind(b"\xff\xda")


def _load_image(path: Path) -> npt.NDArray[np.uint8]:
    """A copy as BGR; ValueError naming the file when it is unreadable or a truncated
    JPEG (:func:`jpeg_complete`)."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ValueError(f"{path}: not readable ({exc.strerror})") from None
    if data.startswith(b"\xff\xd8") and not jpeg_complete(data):
        raise ValueError(f"{path}: truncated JPEG (no end-of-image marker after its last scan)")
    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR) if data else None
    if image is None:
        raise ValueError(f"{path}: not a readable image")
    return cast("npt.NDArray[np.uint8]", image)


def _read_decisions(path: Path) -> dict[str, CopyDecision]:
    if not path.is_file():
        return {}
    out = {}
    with path.open(newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            out[row["name"]] = CopyDecision(
                name=row["name"],
                stem=row["stem"],
                parity=int(row["parity"]),
                inliers_same=int(row["inliers_same"]),
                inliers_mirrored=int(row["inliers_mirrored"]),
                margin=float(row["margin"]) if row["margin"] else None,
                mirrored=row["mirrored"] == "1",
                ambiguous=row.get("ambiguous") == "1",
                cue=float(row["cue"]) if row.get("cue") else None,
                judged_by=row.get("judged_by") or "",
            )
    return out


def prepare_photos(
    src: Path,
    out: Path,
    *,
    val_fraction: float = 0.2,
    seed: int = 0,
    mirrored: str = "fix",
    scorer: Scorer | None = None,
    reference_model: Path | None = None,
    reference_input: str = "gray",
    votes_per_group: int = 5,
    labels_from: str = "original",
    label_fixes: Sequence[LabelFix] = LABEL_FIXES,
    tighten: bool = True,
    cut_fill: bool = True,
    cue: bool = True,
    progress: Progress | None = None,
) -> dict[str, int]:
    """Build a YOLO dataset from hk-photos in ``out`` and return counts.

    ``mirrored``: ``"fix"`` flips mirrored copies back (image and labels), ``"drop"``
    leaves them out, ``"keep"`` copies them unchanged without judging (only for a
    handedness-agnostic warm-up stage; never for validation). ``scorer`` (or
    ``reference_model``, an ultralytics ONNX detector read with ``reference_input``)
    decides which parity group is un-mirrored, each group voting with its
    ``votes_per_group`` tightest-boxed copies; by default (neither given) the group
    of the un-augmented original copy is the real one (:func:`original_copy`), and where
    no copy may be un-augmented the cross-photo cue decides (``cue``).
    Copies without labels are left out (``unlabelled``): they show tiles nobody marked.
    Decisions are cached in ``out/mirror.csv``: a re-run with the same ``out`` reuses
    them (the parities and the cue's margins; a build made before the cue is judged again
    from its parities, and the copies it turned round are aligned again).

    ``labels_from``: ``"original"`` (default) rebuilds every augmented copy's labels from
    its un-augmented original (:mod:`vision.data.relabel`: SIFT homography, boxes carried
    across), because the export's own labels of turned and sheared copies are mostly off
    the tiles; copies that cannot be aligned are left out (``unaligned``). ``"export"``
    keeps the export's labels. Alignments are cached in ``out/labels.csv`` (per copy:
    inliers, homography, boxes in the export and mapped, and their agreement).
    ``tighten`` (default): a photo none of whose copies shows it as taken (its original
    is turned too) gets its other copies' boxes from the five copies' boxes intersected
    (:mod:`vision.data.tighten`; ``tightened`` counts those copies) instead of the
    original's grown boxes carried across; ``False`` keeps the carried boxes.
    ``cut_fill`` (default): every copy's boxes are cut to its picture, so that a tile the
    export's turn moved into the flat fill around the copy is not labelled there
    (:func:`vision.data.relabel.cut_to_picture`; ``fill_dropped`` and ``fill_cut`` count
    the boxes dropped and cut); ``False`` keeps them.

    ``cue`` (default): a photo whose tightest copy shows the export's fill in its corners
    (no copy may show it as taken) is judged by the cross-photo cue
    (:mod:`vision.data.handedness`, :func:`judge_stem`), and left out as ambiguous when
    the cue is unclear and the copy turned; ``False`` takes the tightest copy's group as
    real all the same (the build before the cue).

    ``label_fixes``: corrections to the originals' labels (:mod:`vision.data.label_fixes`;
    ``()`` for the labels as exported), applied before they are carried to the copies
    (with ``labels_from="export"`` only the original gets them).

    Returns ``{"stems", "images", "train_images", "val_images", "train_stems",
    "val_stems", "mirrored", "fixed", "dropped", "unlabelled", "ambiguous", "mapped",
    "tightened", "unaligned", "tiles", "label_fixes", "label_fixes_skipped",
    "fill_dropped", "fill_cut"}``.
    Copies of stems whose original cannot be told (``ambiguous``) are left out.
    """
    src, out = Path(src), Path(out)
    if mirrored not in ("fix", "drop", "keep"):
        raise ValueError(f"mirrored must be 'fix', 'drop' or 'keep', got {mirrored!r}")
    if labels_from not in ("original", "export"):
        raise ValueError(f"labels_from must be 'original' or 'export', got {labels_from!r}")
    if labels_from == "original" and mirrored == "keep":
        raise ValueError("labels_from='original' needs mirrored copies fixed or dropped")
    images_dir, labels_dir = src / "images", src / "labels"
    if not images_dir.is_dir() or not labels_dir.is_dir():
        raise ValueError(f"{src} must hold images/ and labels/ (an hk-photos folder)")
    names = read_class_names(src)
    groups = group_copies(images_dir)
    if not groups:
        raise ValueError(f"no images in {images_dir}")
    train_stems, val_stems = split_stems(groups, val_fraction, seed)

    cache_path = out / "mirror.csv"
    _claim_folder(out)
    judge = _StemJudge(_read_decisions(cache_path), mirrored == "keep", scorer,
                       reference_model, reference_input, votes_per_group,
                       lambda: reference_photos(groups, labels_dir, names), cue)
    for split in ("train", "val"):
        (out / "images" / split).mkdir(parents=True, exist_ok=True)
        (out / "labels" / split).mkdir(parents=True, exist_ok=True)
    counts = dict.fromkeys(_COUNTS, 0)
    mapper = (LabelMapper(out / "labels.csv", tighten=tighten, cut_fill=cut_fill)
              if labels_from == "original" else None)
    decisions: list[CopyDecision] = []
    stems: Iterable[str] = sorted(groups)
    if progress is not None:
        stems = progress(stems)
    for stem in stems:
        paths = groups[stem]
        images = [_load_image(p) for p in paths]
        labels = [_copy_labels(labels_dir, p, names) for p in paths]
        stem_decisions = judge.decide(stem, paths, images, labels)
        decisions.extend(stem_decisions)
        if mapper is not None and any(
            p.name in judge.cached and judge.cached[p.name].mirrored != d.mirrored
            for p, d in zip(paths, stem_decisions, strict=True)
        ):  # turned round since the cached alignments were found: find them again
            mapper.forget([p.name for p in paths])
        copies = _StemCopies(paths, images, labels, stem_decisions, mirrored != "keep")
        copies.mend_original(label_fixes, counts)
        mapped = None
        if mapper is not None and copies.original is not None and not stem_decisions[0].ambiguous:
            mapped = mapper.stem_labels(
                [p.name for p in paths], copies.fixed_images, copies.fixed_labels,
                copies.original[0]
            )
        split = "val" if stem in val_stems else "train"
        for i in range(len(paths)):
            _write_copy(out, split, copies, i, mirrored, mapped, mapper, counts)

    if mapper is not None:
        mapper.save()
        counts["fill_dropped"], counts["fill_cut"] = mapper.fill_dropped, mapper.fill_cut
    if mirrored == "keep":
        cache_path = out / "mirror-unjudged.csv"
    _write_decisions(cache_path, decisions, val_stems)
    _write_data_yaml(out)
    counts.update(stems=len(groups), train_stems=len(train_stems), val_stems=len(val_stems))
    return counts


#: The file that marks a folder as :func:`prepare_photos`'s build (written before any
#: image, so that an interrupted build is taken up again).
BUILD_MARK = ".tilecam-photos"


def _claim_folder(out: Path) -> None:
    """Mark ``out`` as a photos build, or refuse (ValueError) a folder that holds images
    or labels no photos build wrote (a synthetic set, another dataset): a run would mix
    the photos into it and take copies out of its splits. An earlier build (its mark, or
    the ``mirror.csv`` of a build from before the mark) is taken up again."""
    ours = (out / BUILD_MARK).is_file() or (out / "mirror.csv").is_file() or (
        out / "mirror-unjudged.csv").is_file()
    held = [name for name in ("images", "labels") if (out / name).exists()]
    if held and not ours:
        raise ValueError(f"{out} holds {' and '.join(held)} that no `tilecam dataset photos` "
                         "run wrote: give another --out (or empty that folder)")
    out.mkdir(parents=True, exist_ok=True)
    (out / BUILD_MARK).write_text("tilecam dataset photos: the real-photo build\n",
                                  encoding="utf-8")


#: What :func:`prepare_photos` counts over the copies (besides the stems).
_COUNTS = ("images", "train_images", "val_images", "mirrored", "fixed", "dropped",
           "unlabelled", "ambiguous", "mapped", "tightened", "unaligned", "tiles",
           "label_fixes", "label_fixes_skipped", "fill_dropped", "fill_cut")


def _copy_labels(labels_dir: Path, image: Path, names: Sequence[str]) -> Labels:
    """The export's labels of the copy ``image`` (its class names read as ``names``)."""
    label_path = labels_dir / (image.stem + ".txt")
    if not label_path.is_file():
        raise ValueError(f"{label_path} missing for image {image.name}")
    return read_labels(label_path, names)


@dataclass
class _StemJudge:
    """Which copies of each stem are mirrored (:func:`judge_stem`); none when ``keep``
    (copies kept as they are, unjudged). An earlier run's cache (``cached``) that holds
    every copy of a stem gives its parities, so SIFT + RANSAC are not repeated, and, when
    that run judged by the original or the cue, its copies' cue margins; with a scorer
    its decisions are taken as they are. The cross-photo cue (the photos ``references``
    lists; not with ``use_cue`` False, :func:`judge_stem`'s ``by_tightest``), the
    reference scorer and the matcher are made at first use."""

    cached: dict[str, CopyDecision]
    keep: bool
    scorer: Scorer | None
    reference_model: Path | None
    reference_input: str
    votes_per_group: int
    references: Callable[[], list[tuple[str, Path]]]
    use_cue: bool = True
    matcher: ParityMatcher | None = None
    cue: HandednessCue | None = None

    def decide(self, stem: str, paths: Sequence[Path], images: list[npt.NDArray[np.uint8]],
               labels: list[Labels]) -> list[CopyDecision]:
        if self.keep:
            return [CopyDecision(p.name, stem, 0, -1, -1, None, False) for p in paths]
        names = [p.name for p in paths]
        cached = [self.cached[n] for n in names if n in self.cached]
        known = len(cached) == len(names)
        by_scorer = self.scorer is not None or self.reference_model is not None
        if known and by_scorer:
            return cached
        if known:
            parities = [(d.parity, d.inliers_same, d.inliers_mirrored) for d in cached]
        else:
            self.matcher = self.matcher or ParityMatcher()
            parities = self.matcher.parities(images)
        if self.scorer is None and self.reference_model is not None:
            self.scorer = DetectorScorer(self.reference_model, input=self.reference_input)
        margins: CueMargins
        if known and all(d.judged_by in ("original", "cue") for d in cached):
            stored = [d.cue for d in cached]

            def margins() -> list[float | None]:
                return stored
        else:
            def margins() -> list[float | None]:
                cue = self.reference_cue()
                return [cue.margin(image, exclude=stem) for image in images]

        return judge_stem(names, images, labels, parities, self.scorer,
                          votes_per_group=self.votes_per_group, cue=margins,
                          by_tightest=not self.use_cue)

    def reference_cue(self) -> HandednessCue:
        """The cross-photo cue, its references read at first use."""
        if self.cue is None:
            self.cue = HandednessCue((stem, _load_image(path)) for stem, path in self.references())
        return self.cue


class _StemCopies:
    """One stem's copies: as exported (``images``, ``labels``), and turned back where
    judged mirrored (``fixed_images``, ``fixed_labels``; unless ``fix`` is False), with
    the un-augmented original among them (:func:`original_copy`)."""

    def __init__(self, paths: Sequence[Path], images: list[npt.NDArray[np.uint8]],
                 labels: list[Labels], decisions: list[CopyDecision], fix: bool) -> None:
        self.paths, self.images, self.labels, self.decisions = paths, images, labels, decisions
        self.fixed_images = [
            cast("npt.NDArray[np.uint8]", cv2.flip(im, 1)) if d.mirrored and fix else im
            for im, d in zip(images, decisions, strict=True)
        ]
        self.fixed_labels = [
            flip_labels(lb) if d.mirrored and fix else lb
            for lb, d in zip(labels, decisions, strict=True)
        ]
        self.original = original_copy(self.fixed_labels)

    def mend_original(self, label_fixes: Sequence[LabelFix], counts: dict[str, int]) -> None:
        """Apply this photo's ``label_fixes`` to the original's labels (counted in
        ``counts``). A fix of this photo made for another copy than the one taken as the
        original (or for a copy not there) is skipped: its row numbers are another file's."""
        stem = source_stem(self.paths[0].name)
        mine = [f for f in label_fixes if f.stem == stem]
        if not mine:
            return
        if self.original is None:
            counts["label_fixes_skipped"] += len(mine)
            return
        k = self.original[0]
        mended, applied, _ = apply_label_fixes(self.paths[k].name, self.fixed_labels[k], mine)
        counts["label_fixes"] += applied
        counts["label_fixes_skipped"] += len(mine) - applied
        if applied:
            self.fixed_labels[k] = mended
            if not self.decisions[k].mirrored:
                self.labels[k] = mended


def _write_copy(out: Path, split: str, copies: _StemCopies, i: int, mirrored: str,
                mapped: list[Labels | None] | None, mapper: LabelMapper | None,
                counts: dict[str, int]) -> None:
    """Write copy ``i`` of a stem into ``out``'s ``split`` (taking it out of the other
    split, where an earlier run may have put it), or leave it out: unjudgeable
    (ambiguous), unlabelled, mirrored under ``drop``, or not aligned with its original
    (``mapped``: the labels carried from the original, None for such a copy; None
    altogether: the export's labels). Counted in ``counts``."""
    path, decision = copies.paths[i], copies.decisions[i]
    image, label = copies.images[i], copies.labels[i]
    target = out / "images" / split / path.name
    label_target = out / "labels" / split / f"{path.stem}.txt"
    other = "val" if split == "train" else "train"  # an earlier run's other split:
    (out / "images" / other / path.name).unlink(missing_ok=True)  # never in both
    (out / "labels" / other / f"{path.stem}.txt").unlink(missing_ok=True)

    def leave_out(why: str) -> None:
        counts[why] += 1
        target.unlink(missing_ok=True)
        label_target.unlink(missing_ok=True)

    if decision.ambiguous and mirrored != "keep":
        return leave_out("ambiguous")
    if not len(label):  # photos with tiles but no labels would teach "no tile"
        return leave_out("unlabelled")
    if decision.mirrored:
        counts["mirrored"] += 1
        if mirrored == "drop":
            return leave_out("dropped")
        image, label = copies.fixed_images[i], copies.fixed_labels[i]
    if mapped is not None:
        checked = mapped[i]
        if checked is None:  # not aligned with its original: labels unchecked
            return leave_out("unaligned")
        counts["mapped"] += checked is not copies.fixed_labels[i]
        if mapper is not None and path.name in mapper.tightened:
            counts["tightened"] += 1
        label = checked
    if decision.mirrored:
        counts["fixed"] += 1
        if not cv2.imwrite(str(target), image, [cv2.IMWRITE_JPEG_QUALITY, 95]):
            raise ValueError(f"could not write {target}")
    else:
        shutil.copyfile(path, target)  # unchanged: keep the original bytes
    label_target.write_text(format_labels(label), encoding="utf-8")
    counts["images"] += 1
    counts[f"{split}_images"] += 1
    counts["tiles"] += len(label)
    return None


def _write_decisions(path: Path, decisions: list[CopyDecision], val_stems: set[str]) -> None:
    """The mirror decisions as a CSV cache (read back by :func:`_read_decisions`)."""
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(["name", "stem", "split", "parity", "inliers_same",
                         "inliers_mirrored", "margin", "mirrored", "ambiguous", "cue",
                         "judged_by"])
        for d in decisions:
            writer.writerow(
                [
                    d.name,
                    d.stem,
                    "val" if d.stem in val_stems else "train",
                    d.parity,
                    d.inliers_same,
                    d.inliers_mirrored,
                    "" if d.margin is None else f"{d.margin:.5f}",
                    int(d.mirrored),
                    int(d.ambiguous),
                    "" if d.cue is None else f"{d.cue:.5f}",
                    d.judged_by,
                ]
            )


def _write_data_yaml(out: Path) -> None:
    """``out/data.yaml``: the dataset as ultralytics reads it (the 43 tile codes)."""
    yaml_lines = [
        f"path: {out.resolve()}",
        "train: images/train",
        "val: images/val",
        f"nc: {len(CLASSES)}",
        "names:",
    ]
    yaml_lines += [f"  {i}: '{code}'" for i, code in enumerate(CLASSES)]
    (out / "data.yaml").write_text("\n".join(yaml_lines) + "\n", encoding="utf-8")
