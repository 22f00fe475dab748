"""Find the tiles in an image: ``detect(image) -> Detections``.

A :class:`Detector` is loaded once from a model folder holding ``manifest.json``
(the contract in ``models/README.md``)::

    {"detector": {"file": "tiles.onnx", "imgsz": 640, "names": ["1m", ...],
                  "input": "rgb" | "gray", "letterbox_pad": 114, "output": "yolo",
                  "autocontrast": false, "conf": 0.25, "iou": 0.5, "contain": 0.65,
                  "score": "any",
                  "zoom": {"below_px": 32, "min_gain": 1.5, "target_px": 64,
                           "grid": 2, "grid_below_px": 20}},
     "classifier": {"file": "crops.onnx", "size": 64, "names": [...],
                    "rotations": [0, 90, 180, 270], "weight": 0.5, "tta": 2,
                    "more_views_below": 0.7},
     "readers": [{"file": "glyphs.onnx", "size": 96, "names": ["1m", ..., "N"],
                  "weight": 0.5, "tta": 2, "min_mass": 0.1, "below_p": 0.9}],
     "name": "tilecam-yolo11n", "version": "..."}

``autocontrast``, ``conf``, ``iou``, ``contain`` (NMS also drops a box covered more than this
share by a better one; absent: IoU only), ``fuse`` (``{"iou": 0.5, "rel": 0.5}``: each kept
box scored at least ``conf`` becomes the score-weighted mean of the candidates it overlaps
at that IoU scoring at least ``rel`` × its score, :func:`vision.postprocess.fuse_kept`;
absent: the kept boxes as they are), ``scales`` (e.g. ``[384]``: more input sizes for
the first pass, fused with it, :meth:`Detector.detect`) with ``scales_min_px``,
``scales_each_px`` and ``scales_file`` (another detector file in the folder for those
passes), ``one_set`` (``true``: the tiles are read as one set's — each flower
once, each kind at most four times, :mod:`vision.set_counts`), ``row_fill`` (boxes under
the threshold kept where a row of kept tiles goes on, :mod:`vision.row_fill`), ``score``,
``zoom``,
``weight``, ``tta``, ``name`` and ``version`` are optional; so are a top-level
``calibration`` (the hand confidence, :mod:`vision.confidence`), ``readers`` (second
looks from larger crops at some codes, applied in order after the classifier;
:class:`ReaderSpec`; a single ``reader`` object is read too) and ``numeral`` (the
numeral reader of seasons and flowers, after the readers: ``{"file": "numerals.onnx",
"size": [48, 80], "top": 0.45, "weight": 1.0, "min_mass": 0.3}``, :class:`NumeralSpec`).
Detector names that are not tile codes (e.g. ``"tile"``) are generic: their probability is
spread over the classes the detector does not name, and the crop classifier decides.

Pipeline (one frame): letterbox (to the model's fixed input, or to the smallest
stride-32 rectangle when the ONNX input height/width are dynamic) → detector → decode
+ confidence threshold → class-agnostic NMS → boxes back to original pixels → zoom or
grid pass when the tiles look small or few (see :meth:`Detector.detect`) → class
probabilities (detector scores normalised, fused with the classifier's when there is
one, then re-ranked within each reader's codes) → top-k → rotation (classifier, else
box aspect: a box wider than 1.15 × its height is a sideways tile, 90; without the
classifier 0 vs 180 and 90 vs 270 cannot be told apart and are reported as 0 and 90).

``confidence`` of a tile is the detector's tile score (0..1, what the threshold applies to:
the best class score, or with ``"score": "any"`` the chance that some class is present,
:func:`vision.postprocess.tile_score`) times, with a classifier, the fused top-1
probability; ``meta["confidence"]`` says which (``"score"`` or ``"score*p1"``) and
:func:`detection_scores` gives the detector's own scores back (a tile is kept when that
score reaches the threshold, so a tile whose code is uncertain is still reported, with
its alternatives). With the manifest's ``bonus_conf`` a tile read as a flower or season
is kept from that lower score (:func:`keep_thresholds`).
"""

from __future__ import annotations

import dataclasses
import json
import os
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from vision import postprocess as pp
from vision.backends import Backend, open_backend
from vision.classes import BONUS, BONUS_IDS, CLASSES
from vision.confidence import CalibrationError, check_calibration
from vision.detections import ROTATIONS, Detections
from vision.imageio import ImageSource, load_image_reduced
from vision.numeral import fuse_numerals, numeral_odds, strips_batch
from vision.postprocess import classify_views
from vision.preprocess import crop_batch, input_size, prepare_input
from vision.row_fill import RowFill, in_rows
from vision.set_counts import within_one_set

#: columns of the bonus codes ``1f``…``8f`` in the 43-class order
_BONUS_COLUMNS = np.array([CLASSES.index(code) for code in BONUS], np.int64)

#: ``(43,)`` True at the flowers' and seasons' class indices.
_IS_BONUS = np.isin(np.arange(len(CLASSES)), sorted(BONUS_IDS))

#: Where the shipped model lives (``<repo>/models``); ``TILECAM_MODEL_DIR`` overrides it.
DEFAULT_MODEL_DIR = Path(__file__).resolve().parent.parent / "models"
MANIFEST = "manifest.json"


def default_model_dir() -> Path:
    """``$TILECAM_MODEL_DIR`` if set, else ``<repo>/models``."""
    env = os.environ.get("TILECAM_MODEL_DIR")
    return Path(env) if env else DEFAULT_MODEL_DIR


class ModelError(ValueError):
    """The model folder or its manifest is missing or inconsistent."""


@dataclass(frozen=True)
class DetectorSpec:
    """The ``detector`` entry of the manifest."""

    file: Path
    imgsz: int
    names: tuple[str, ...]
    input: str
    letterbox_pad: int
    autocontrast: bool
    conf: float
    iou: float
    #: NMS also drops a box whose area lies more than this share inside a better box
    #: (:func:`vision.postprocess.box_cover`); None: IoU only.
    contain: float | None = None
    #: Box fusion after NMS (:func:`vision.postprocess.fuse_kept`): ``(iou, rel)``, or
    #: None for the kept boxes as they are.
    fuse: tuple[float, float] | None = None
    #: More input sizes (long side, px) for the first pass, fused with the ``imgsz`` pass
    #: by :func:`vision.postprocess.fuse_passes` on photos whose tiles are not small
    #: (see :meth:`Detector.detect`); empty: one pass.
    scales: tuple[int, ...] = ()
    #: ... only when the first pass's tiles have a median short side of at least this
    #: many input px (smaller tiles, a table camera's, are left to the zoom pass).
    scales_min_px: float = 32.0
    #: A pass abstains on a tile whose short side is below this many of *its* input px
    #: (too small for it to see): its box there is left out and the tile's class scores
    #: are the mean over the passes that can see it; a pass that would abstain on all but
    #: 2 of the first pass's tiles does not run. 0: every pass counts on every tile.
    scales_each_px: float = 0.0
    #: The detector file the other ``scales`` run (manifest ``scales_file``, e.g. one whose
    #: boxes were trained on close-up photos); None: the first pass's own ``file``.
    scales_file: Path | None = None
    #: Zoom pass (see :meth:`Detector.detect`): when the median short side of the found
    #: tiles is below ``zoom_below`` input pixels (0 disables), the tiles' region is run
    #: again, enlarged, if that enlarges it at least ``zoom_min_gain`` times.
    zoom_below: float = 32.0
    zoom_min_gain: float = 1.5
    #: Grid pass: when the first pass finds fewer than 3 tiles, or very small tiles spread
    #: so wide that their region cannot be enlarged enough, the frame is cut into
    #: ``zoom_grid × zoom_grid`` overlapping cells, each detected on its own (0 disables).
    zoom_grid: int = 2
    #: ... when the median short side of the tiles found is below ``zoom_grid_below``
    #: input pixels (or fewer than 3 tiles were found).
    zoom_grid_below: float = 20.0
    #: Region pass input: enlarge until the tiles' median short side is ``zoom_target``
    #: input px, no more (0: always the full ``imgsz``), for dynamic-input models.
    zoom_target: float = 64.0
    #: ... up to this input long side (0: ``imgsz``), as long as the input's area stays
    #: within ``imgsz²`` (a long thin region — a hand row across a phone photo — is
    #: enlarged for the cost of one square pass).
    zoom_max_px: float = 0.0
    #: The region is drawn around the weak boxes too (``weak_conf``; tiles seen small are
    #: often scored low) when they outnumber the tiles found two to one.
    zoom_weak_region: bool = False
    #: After a grid pass, the region pass runs on what the cells found when those tiles
    #: are still small (``zoom_below`` at the cells' scale).
    zoom_region_after_grid: bool = False
    #: What ``conf`` thresholds: ``"max"`` (best class score) or ``"any"`` (the chance
    #: that some class is present; see :func:`vision.postprocess.tile_score`).
    score: str = "max"
    #: Boxes scored in ``[weak_conf, conf)`` are kept apart as ``Detections.weak``
    #: (classified, not part of the reading) for rules that ask for a missing tile
    #: (:mod:`vision.recognize`); 0: none.
    weak_conf: float = 0.0
    #: Boxes read as a flower or season (:func:`keep_thresholds`) are kept from this tile
    #: score (below ``conf``): the detector scores those eight rare classes lower than the
    #: others (training photos: median 0.72 on a tile against 0.86 for the other kinds);
    #: None: ``conf``.
    bonus_conf: float | None = None
    #: The tiles found (scored at least ``conf``) are read as one set's: where the top-1
    #: codes show a flower twice or a kind five times, the most probable reading that does
    #: not is taken (:func:`vision.set_counts.within_one_set`).
    one_set: bool = False
    #: Boxes scored under the threshold (down to ``row_fill.min_score``) lying where a
    #: row of kept tiles goes on are kept too (:mod:`vision.row_fill`); None: off.
    row_fill: RowFill | None = None


@dataclass(frozen=True)
class ClassifierSpec:
    """The optional ``classifier`` entry of the manifest."""

    file: Path
    size: int
    names: tuple[str, ...]
    weight: float
    #: Test-time views per crop: 1 (as cut), 2 (+ turned 180°) or 4 (every quarter turn);
    #: their class probabilities are averaged, rotations turned back first.
    tta: int = 1
    #: With 2 views: crops whose top probability stays under this get the other two
    #: quarter turns too (manifest ``more_views_below``; 0: never)
    more_views_below: float = 0.0
    #: second looks at some tiles, in order (manifest ``readers``, or one ``reader``)
    readers: tuple[ReaderSpec, ...] = ()
    #: the numeral reader, after the readers (manifest ``numeral``)
    numeral: NumeralSpec | None = None


@dataclass(frozen=True)
class NumeralSpec:
    """The manifest's optional ``numeral`` entry: the numeral reader
    (:mod:`vision.numeral`). It looks at each tile whose probability on the eight bonus
    codes reaches ``min_mass``, cuts the top strip of its face at all four quarter turns
    (``top`` of the upright box, resized to ``size`` ``(H, W)``), and re-ranks the tile's
    bonus codes by the numeral odds to the power ``weight``; the chance the tile is a
    bonus tile at all stays as it was."""

    file: Path
    size: tuple[int, int]
    top: float
    weight: float
    min_mass: float


@dataclass(frozen=True)
class ReaderSpec:
    """One entry of the manifest's ``readers`` (or its single ``reader``): a second
    classifier that looks again at some tiles from larger crops than the classifier's and
    reads only a few codes (the bonus tiles; the characters and winds).

    It looks at each tile whose fused probability on its ``names`` reaches ``min_mass``
    and, when ``below_p`` < 1, whose top-1 probability is below ``below_p`` (only the
    tiles the models are unsure of), and re-ranks the tile's probability *within* its
    codes (product of experts with weight ``weight``, :func:`vision.postprocess.fuse`);
    the probability that the tile is one of them at all stays as it was."""

    file: Path
    size: int
    names: tuple[str, ...]
    weight: float
    tta: int = 1
    min_mass: float = 0.1
    below_p: float = 1.0


def _need(entry: dict[str, Any], key: str, kind: type | tuple[type, ...], where: str) -> Any:
    if key not in entry:
        raise ModelError(f"{where}: the {key!r} field is missing")
    value = entry[key]
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        raise ModelError(f"{where}: {key!r} has the wrong type ({type(value).__name__})")
    return value


def read_manifest(model_dir: Path) -> tuple[DetectorSpec, ClassifierSpec | None, dict[str, Any]]:
    """Parse and check ``model_dir/manifest.json``; raises :class:`ModelError` naming the fault."""
    path = model_dir / MANIFEST
    if not path.is_file():
        raise ModelError(
            f"no model in {model_dir}: {MANIFEST} is missing "
            "(the shipped model goes in models/, see models/README.md)"
        )
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise ModelError(f"cannot read {path}: {exc}") from None
    if not isinstance(manifest, dict) or not isinstance(manifest.get("detector"), dict):
        raise ModelError(f"{path}: expected an object with a 'detector' entry")
    where = f"{path} detector"
    d = manifest["detector"]
    names = tuple(_need(d, "names", list, where))
    if not names or not all(isinstance(n, str) for n in names):
        raise ModelError(f"{where}: 'names' must be a non-empty list of class names")
    mode = d.get("input", "rgb")
    if mode not in ("rgb", "gray"):
        raise ModelError(f"{where}: 'input' must be 'rgb' or 'gray', got {mode!r}")
    if d.get("output", "yolo") != "yolo":
        raise ModelError(f"{where}: only 'yolo' output is supported, got {d.get('output')!r}")
    det = DetectorSpec(
        file=model_dir / _need(d, "file", str, where),
        imgsz=int(_need(d, "imgsz", int, where)),
        names=names,
        input=mode,
        letterbox_pad=int(d.get("letterbox_pad", 114)),
        autocontrast=bool(d.get("autocontrast", False)),
        conf=float(d.get("conf", 0.25)),
        iou=float(d.get("iou", 0.5)),
        contain=_contain(d.get("contain"), where),
        fuse=_fuse(d.get("fuse"), where),
        scales=_scales(d.get("scales", []), where),
        scales_min_px=_positive(d.get("scales_min_px", 32.0), "'scales_min_px'", where),
        scales_each_px=_positive(d.get("scales_each_px", 0.0), "'scales_each_px'", where),
        scales_file=_scales_file(d.get("scales_file"), model_dir, where),
        score=_score_mode(d.get("score", "max"), where),
        weak_conf=_weak_conf(d.get("weak_conf", 0.0), float(d.get("conf", 0.25)), where),
        bonus_conf=_bonus_conf(d.get("bonus_conf"), float(d.get("conf", 0.25)), where),
        one_set=_flag(d.get("one_set", False), "'one_set'", where),
        row_fill=_row_fill(d.get("row_fill"), where),
        **_zoom_fields(d.get("zoom", {}), where),
    )
    cls: ClassifierSpec | None = None
    c = manifest.get("classifier")
    if c:
        where = f"{path} classifier"
        cnames = tuple(_need(c, "names", list, where))
        unknown = [n for n in cnames if n not in CLASSES]
        if unknown:
            raise ModelError(f"{where}: names {unknown} are not tile codes")
        if tuple(c.get("rotations", ROTATIONS)) != ROTATIONS:
            raise ModelError(f"{where}: 'rotations' must be [0, 90, 180, 270]")
        cls = ClassifierSpec(
            file=model_dir / _need(c, "file", str, where),
            size=int(_need(c, "size", int, where)),
            names=cnames,
            weight=float(c.get("weight", 0.5)),
            tta=_tta(c.get("tta", 1), where),
            more_views_below=_unit(c.get("more_views_below", 0.0), "more_views_below", where),
        )
    generic = [n for n in names if n not in CLASSES]
    readers = _reader_specs(manifest, model_dir, path)
    if readers:
        if cls is None:
            raise ModelError(f"{path}: a 'reader' needs a 'classifier' entry too")
        cls = dataclasses.replace(cls, readers=readers)
    numeral = _numeral_spec(manifest.get("numeral"), model_dir, f"{path} numeral")
    if numeral is not None:
        if cls is None:  # the strips are cut by the classifier's quarter turns
            raise ModelError(f"{path}: a 'numeral' reader needs a 'classifier' entry too")
        cls = dataclasses.replace(cls, numeral=numeral)
    if generic and cls is None:
        raise ModelError(
            f"{path}: detector classes {generic} are not tile codes and there is no classifier"
        )
    return det, cls, manifest


def _reader_specs(manifest: dict[str, Any], model_dir: Path, path: Path) -> tuple[ReaderSpec, ...]:
    """The manifest's ``readers`` list (applied in its order) or its single ``reader``."""
    many, one = manifest.get("readers"), manifest.get("reader")
    if many and one:
        raise ModelError(f"{path}: give either 'readers' (a list) or one 'reader', not both")
    if not many:
        spec = _reader_spec(one, model_dir, f"{path} reader")
        return () if spec is None else (spec,)
    if not isinstance(many, list):
        raise ModelError(f"{path} readers: expected a list of reader objects")
    specs = [_reader_spec(e, model_dir, f"{path} readers[{i}]") for i, e in enumerate(many)]
    return tuple(s for s in specs if s is not None)


def _numeral_spec(entry: Any, model_dir: Path, where: str) -> NumeralSpec | None:
    """The ``numeral`` entry checked (None when absent or empty)."""
    if not entry:
        return None
    if not isinstance(entry, dict):
        raise ModelError(f"{where}: expected an object with 'file' and 'size'")
    size = _need(entry, "size", list, where)
    if len(size) != 2 or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 8
                                 for v in size):
        raise ModelError(f"{where}: 'size' must be [height, width], each at least 8 px, "
                         f"got {size!r}")
    top, weight = entry.get("top", 0.45), entry.get("weight", 1.0)
    min_mass = entry.get("min_mass", 0.3)
    for key, value in (("top", top), ("min_mass", min_mass)):
        _unit(value, key, where)
    if top <= 0:
        raise ModelError(f"{where}: 'top' must be above 0, got {top!r}")
    if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not 0 <= weight <= 4:
        raise ModelError(f"{where}: 'weight' must be a number in [0, 4], got {weight!r}")
    return NumeralSpec(file=model_dir / _need(entry, "file", str, where),
                       size=(int(size[0]), int(size[1])), top=float(top),
                       weight=float(weight), min_mass=float(min_mass))


def _reader_spec(entry: Any, model_dir: Path, where: str) -> ReaderSpec | None:
    """One reader entry checked (None when absent or empty)."""
    if not entry:
        return None
    if not isinstance(entry, dict):
        raise ModelError(f"{where}: expected an object with 'file', 'size' and 'names'")
    names = tuple(_need(entry, "names", list, where))
    unknown = [n for n in names if n not in CLASSES]
    if len(names) < 2 or unknown or len(set(names)) != len(names):
        raise ModelError(
            f"{where}: 'names' must be two or more distinct tile codes, got {list(names)!r}"
        )
    weight, min_mass = entry.get("weight", 0.5), entry.get("min_mass", 0.1)
    below_p = entry.get("below_p", 1.0)
    for key, value in (("weight", weight), ("min_mass", min_mass), ("below_p", below_p)):
        _unit(value, key, where)
    size = _need(entry, "size", int, where)
    if size < 8:
        raise ModelError(f"{where}: 'size' must be at least 8 px, got {size}")
    return ReaderSpec(
        file=model_dir / _need(entry, "file", str, where),
        size=size,
        names=names,
        weight=float(weight),
        tta=_tta(entry.get("tta", 1), where),
        min_mass=float(min_mass),
        below_p=float(below_p),
    )


def _score_mode(value: Any, where: str) -> str:
    if value not in pp.SCORE_MODES:
        raise ModelError(f"{where}: 'score' must be 'max' or 'any', got {value!r}")
    return str(value)


def _weak_conf(value: Any, conf: float, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < conf:
        raise ModelError(
            f"{where}: 'weak_conf' must be a number in [0, conf = {conf}), got {value!r}"
        )
    return float(value)


def _bonus_conf(value: Any, conf: float, where: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= conf:
        raise ModelError(
            f"{where}: 'bonus_conf' must be a number in (0, conf = {conf}], got {value!r}"
        )
    return float(value)


#: A row counts as a flower or season for ``bonus_conf`` when its top-1 code is one and
#: its top-k alternatives give the eight at least this much probability together (more
#: likely a bonus tile than not; a box whose reading is spread over unrelated kinds is not).
BONUS_MASS = 0.5


def keep_thresholds(
    det: Detections, conf: float, bonus_conf: float | None = None,
    row_fill: RowFill | None = None, scores: npt.NDArray[np.float32] | None = None,
) -> npt.NDArray[np.float32]:
    """The tile score each row of ``det`` needs to be kept, ``(n,)``: ``conf``, or
    ``min(conf, bonus_conf)`` for a row read as a flower or season (top-1 a bonus code,
    and at least :data:`BONUS_MASS` of its top-k probability on the eight); with
    ``row_fill``, ``row_fill.min_score`` for a row lying where a row of the tiles kept so
    goes on (:func:`vision.row_fill.in_rows`). ``scores``: the detector's tile scores
    ``(n,)`` (default :func:`detection_scores`).

    >>> d = Detections.from_lists([(0, 0, 9, 12)] * 3, ["5p", "3f", "3f"],
    ...     topk=[[("5p", 0.9)], [("3f", 0.5), ("7f", 0.3)], [("3f", 0.3), ("N", 0.25)]])
    >>> [round(float(t), 2) for t in keep_thresholds(d, 0.4, 0.3)]
    [0.4, 0.3, 0.4]
    >>> row = Detections.from_lists([(0, 0, 9, 12), (9, 0, 18, 12), (18, 0, 27, 12)],
    ...     ["1m", "2m", "3m"], [0.9, 0.9, 0.3], topk=[[(c, 0.95)] for c in ["1m", "2m", "3m"]])
    >>> [round(float(t), 2) for t in keep_thresholds(row, 0.4, row_fill=RowFill())]
    [0.4, 0.4, 0.25]
    """
    out = np.full(len(det), conf, np.float32)
    if bonus_conf is not None and len(det):
        mass = (det.topk_probs * _IS_BONUS[det.topk_ids]).sum(axis=1)
        out[_IS_BONUS[det.class_ids] & (mass >= BONUS_MASS)] = min(conf, bonus_conf)
    if row_fill is not None and len(det):
        scores = detection_scores(det) if scores is None else scores
        taken = in_rows(det.boxes, scores, det.topk_probs[:, 0], scores >= out, row_fill)
        out[taken] = np.minimum(out[taken], row_fill.min_score)
    return out


def _row_fill(value: Any, where: str) -> RowFill | None:
    """The manifest's ``row_fill`` (``{"min_score": 0.25, "tolerance": 0.5, "min_p":
    0.9}``, each optional; absent or ``null``: off)."""
    if value is None:
        return None
    keys = ("min_score", "tolerance", "min_p")
    if not isinstance(value, dict) or set(value) - set(keys):
        raise ModelError(f"{where}: 'row_fill' must be an object with some of {list(keys)}, "
                         f"got {value!r}")
    fill = RowFill()
    given = {k: value.get(k, getattr(fill, k)) for k in keys}
    for key, v in given.items():
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 < v <= 1:
            raise ModelError(f"{where}: 'row_fill.{key}' must be a number in (0, 1], got {v!r}")
    return RowFill(min_score=float(given["min_score"]), tolerance=float(given["tolerance"]),
                   min_p=float(given["min_p"]))


def _contain(value: Any, where: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= 1:
        raise ModelError(f"{where}: 'contain' must be a number in (0, 1], got {value!r}")
    return float(value)


def _fuse(value: Any, where: str) -> tuple[float, float] | None:
    if value is None:
        return None
    if not isinstance(value, dict) or set(value) - {"iou", "rel"}:
        raise ModelError(f"{where}: 'fuse' must be an object with 'iou' and 'rel', got {value!r}")
    iou, rel = value.get("iou", 0.5), value.get("rel", 0.5)
    for key, v in (("iou", iou), ("rel", rel)):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 < float(v) <= 1:
            raise ModelError(f"{where}: 'fuse.{key}' must be a number in (0, 1], got {v!r}")
    return float(iou), float(rel)


def _scales_file(value: Any, model_dir: Path, where: str) -> Path | None:
    """``scales_file``: a file name in the model folder, or absent."""
    if value is None:
        return None
    if not isinstance(value, str) or not value or Path(value).name != value:
        raise ModelError(f"{where}: 'scales_file' must be a file name in the model folder, "
                         f"got {value!r}")
    return model_dir / value


def _scales(value: Any, where: str) -> tuple[int, ...]:
    """``scales``: a list of input long sides, whole multiples of 32 from 128 to 2048."""
    ok = isinstance(value, list) and all(
        isinstance(v, int) and not isinstance(v, bool) and 128 <= v <= 2048 and v % 32 == 0
        for v in value
    )
    if not ok:
        raise ModelError(
            f"{where}: 'scales' must be a list of input sizes (multiples of 32, 128-2048), "
            f"got {value!r}"
        )
    return tuple(value)


def _flag(value: Any, what: str, where: str) -> bool:
    """A manifest ``true``/``false``; ``what`` names it in the error."""
    if not isinstance(value, bool):
        raise ModelError(f"{where}: {what} must be true or false, got {value!r}")
    return value


def _positive(value: Any, what: str, where: str) -> float:
    """A manifest number ≥ 0; ``what`` names it in the error (e.g. ``"zoom 'below_px'"``)."""
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise ModelError(f"{where}: {what} must be a number ≥ 0, got {value!r}")
    return float(value)


def _zoom_fields(entry: Any, where: str) -> dict[str, Any]:
    """``{"below_px": 32, "min_gain": 1.5, "target_px": 64, "grid": 2, "grid_below_px":
    20, "max_px": 1024, "weak_region": true}`` (all optional; ``below_px`` 0 disables both
    extra passes, ``grid`` 0 the grid pass, ``target_px`` 0 runs the region pass at the
    full input size, ``max_px`` 0 keeps it within ``imgsz``)."""
    if not isinstance(entry, dict):
        raise ModelError(f"{where}: 'zoom' must be an object like {{\"below_px\": 32}}")
    out: dict[str, Any] = {}
    if "grid" in entry:
        grid = entry["grid"]
        if isinstance(grid, bool) or not isinstance(grid, int) or grid < 0 or grid == 1 or grid > 4:
            raise ModelError(f"{where}: zoom 'grid' must be 0 (off), 2, 3 or 4, got {grid!r}")
        out["zoom_grid"] = grid
    for key, field in (
        ("below_px", "zoom_below"),
        ("min_gain", "zoom_min_gain"),
        ("grid_below_px", "zoom_grid_below"),
        ("target_px", "zoom_target"),
        ("max_px", "zoom_max_px"),
    ):
        if key in entry:
            out[field] = _positive(entry[key], f"zoom {key!r}", where)
    for key, field in (("weak_region", "zoom_weak_region"),
                       ("region_after_grid", "zoom_region_after_grid")):
        if key in entry:
            if not isinstance(entry[key], bool):
                raise ModelError(f"{where}: zoom {key!r} must be true or false, "
                                 f"got {entry[key]!r}")
            out[field] = entry[key]
    return out


def _unit(value: Any, key: str, where: str) -> float:
    """A manifest number in 0..1."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
        raise ModelError(f"{where}: {key!r} must be a number in [0, 1], got {value!r}")
    return float(value)


def _tta(value: Any, where: str) -> int:
    if isinstance(value, bool) or value not in (1, 2, 4):
        raise ModelError(f"{where}: 'tta' must be 1, 2 or 4 views per crop, got {value!r}")
    return int(value)


def _median_long_side(boxes: npt.NDArray[np.float32]) -> float:
    """Median long side of ``boxes`` ``(n, 4)`` xyxy, in their pixels (0 when empty)."""
    if not len(boxes):
        return 0.0
    return float(np.median(np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1])))


def chained_to(
    seeds: npt.NDArray[np.float32], boxes: npt.NDArray[np.float32], reach: float
) -> npt.NDArray[np.float32]:
    """``seeds`` and the ``boxes`` ``(n, 4)`` xyxy reached from them through boxes at most
    ``reach`` px apart (edge to edge): a row of tiles chains along, tiles a table's width
    away do not join.

    >>> s = np.array([[0, 0, 10, 14]], np.float32)
    >>> b = np.array([[12, 0, 22, 14], [24, 0, 34, 14], [90, 0, 100, 14]], np.float32)
    >>> chained_to(s, b, 5.0)[:, 0].tolist()
    [0.0, 12.0, 24.0]
    """
    kept = [np.asarray(seeds, np.float32).reshape(-1, 4)]
    left = np.asarray(boxes, np.float32).reshape(-1, 4)
    frontier = kept[0]
    while len(frontier) and len(left):
        near = (pp.edge_gaps(left, frontier) <= reach).any(axis=1)
        frontier, left = left[near], left[~near]
        kept.append(frontier)
    return np.concatenate(kept)


def zoom_region(
    boxes: npt.NDArray[np.float32],
    image_wh: tuple[int, int],
    input_scale: float,
    *,
    below: float,
    margin: float = 1.5,
) -> tuple[int, int, int, int] | None:
    """The region worth a second, enlarged look, or None.

    ``boxes`` ``(n, 4)`` xyxy in pixels of a ``width × height`` image that the detector
    saw at ``input_scale`` input pixels per image pixel. When at least 3 tiles were found
    and their median short side is below ``below`` input pixels, the region is the
    tiles' bounding box grown by ``margin`` median tile lengths per side (missed tiles at
    the ends of a row), clipped to the image, ``(x1, y1, x2, y2)`` (ints). Whether the
    region is enough smaller than the image to be worth it is the caller's call.

    >>> b = np.array([[100, 100, 120, 130], [120, 100, 140, 130], [140, 100, 160, 130]],
    ...              np.float32)
    >>> zoom_region(b, (1280, 960), 0.4, below=24)
    (55, 55, 205, 175)
    >>> zoom_region(b, (1280, 960), 2.0, below=24) is None  # big enough already
    True
    """
    if below <= 0 or len(boxes) < 3:
        return None
    if pp.median_short_side(boxes) * input_scale >= below:
        return None
    grow = margin * _median_long_side(boxes)
    width, height = image_wh
    x1 = int(max(0.0, float(boxes[:, 0].min()) - grow))
    y1 = int(max(0.0, float(boxes[:, 1].min()) - grow))
    x2 = int(min(float(width), float(boxes[:, 2].max()) + grow + 0.5))
    y2 = int(min(float(height), float(boxes[:, 3].max()) + grow + 0.5))
    if x2 - x1 < 2 or y2 - y1 < 2:
        return None
    return x1, y1, x2, y2


def _tiles_big(boxes: npt.NDArray[np.float32], scale: float, spec: DetectorSpec) -> bool:
    """Whether the (few) ``boxes`` found are at least ``zoom_below`` input px across."""
    return bool(len(boxes)) and pp.median_short_side(boxes) * scale >= spec.zoom_below


def grid_cells(
    image_wh: tuple[int, int], n: int, overlap: float = 0.125
) -> list[tuple[int, int, int, int]]:
    """``n × n`` cells ``(x1, y1, x2, y2)`` (ints, row by row) covering a ``width ×
    height`` image; neighbouring cells overlap by ``overlap`` of the image's width
    (height), so every tile shorter than that lies whole inside at least one cell.

    >>> grid_cells((1280, 960), 2)
    [(0, 0, 720, 540), (560, 0, 1280, 540), (0, 420, 720, 960), (560, 420, 1280, 960)]
    """
    width, height = image_wh

    def spans(side: int) -> list[tuple[int, int]]:
        half = overlap * side / 2
        return [
            (int(max(0.0, i * side / n - half)), int(min(float(side), (i + 1) * side / n + half)))
            for i in range(n)
        ]

    return [(x1, y1, x2, y2) for y1, y2 in spans(height) for x1, x2 in spans(width)]


def touches_inner_edge(
    boxes: npt.NDArray[np.float32],
    cell: tuple[int, int, int, int],
    image_wh: tuple[int, int],
    tolerance: float = 2.0,
) -> npt.NDArray[np.bool_]:
    """Which ``boxes`` ``(n, 4)`` (xyxy in the cell's own pixels) reach within
    ``tolerance`` px of a side of ``cell`` that is inside the image: tiles cut by the
    cell, found whole in a neighbouring cell. Returns ``(n,)`` bools.

    >>> b = np.array([[0, 10, 30, 50], [100, 10, 130, 50], [690, 10, 719, 50]], np.float32)
    >>> touches_inner_edge(b, (560, 0, 1280, 540), (1280, 960)).tolist()
    [True, False, False]
    """
    x1, y1, x2, y2 = cell
    width, height = image_wh
    w, h = x2 - x1, y2 - y1
    cut = np.zeros(len(boxes), bool)
    if x1 > 0:
        cut |= boxes[:, 0] <= tolerance
    if y1 > 0:
        cut |= boxes[:, 1] <= tolerance
    if x2 < width:
        cut |= boxes[:, 2] >= w - tolerance
    if y2 < height:
        cut |= boxes[:, 3] >= h - tolerance
    return cut


class Detector:
    """A tile detector loaded once from a model folder; call it on images.

    ``conf`` and ``iou`` override the manifest's thresholds; ``topk`` is the number of
    alternatives kept per tile; ``threads`` the onnxruntime intra-op threads.
    ``backend``/``classifier``/``readers`` (one per manifest reader, in order) replace the
    manifest's model files with already opened backends (e.g. an ultralytics ``.pt``
    checkpoint during training, or a test double).
    """

    def __init__(
        self,
        model_dir: str | Path | None = None,
        *,
        conf: float | None = None,
        iou: float | None = None,
        topk: int = 5,
        max_det: int = 300,
        threads: int | None = None,
        backend: Backend | None = None,
        classifier: Backend | None = None,
        readers: Sequence[Backend] | None = None,
        scales_backend: Backend | None = None,
        numeral: Backend | None = None,
    ) -> None:
        self.model_dir = Path(model_dir) if model_dir is not None else default_model_dir()
        self.spec, self.classifier_spec, self.manifest = read_manifest(self.model_dir)
        self.conf = self.spec.conf if conf is None else conf
        self.iou = self.spec.iou if iou is None else iou
        self.topk = topk
        self.max_det = max_det
        self.backend: Backend = backend or self._open(self.spec.file, threads)
        #: what the other ``scales`` run: the manifest's ``scales_file``, else the detector
        self.scales_backend: Backend = scales_backend or (
            self._open(self.spec.scales_file, threads) if self.spec.scales_file
            else self.backend)
        self.classifier: Backend | None = None
        if self.classifier_spec is not None:
            self.classifier = classifier or self._open(self.classifier_spec.file, threads)
        #: second looks (manifest ``readers``): spec, backend and class ids of its names
        self.readers: list[tuple[ReaderSpec, Backend, npt.NDArray[np.int64]]] = []
        specs = self.classifier_spec.readers if self.classifier_spec is not None else ()
        if readers is not None and len(readers) != len(specs):
            raise ValueError(f"{len(readers)} reader backends for {len(specs)} manifest readers")
        for i, spec in enumerate(specs):
            backend_i = readers[i] if readers is not None else self._open(spec.file, threads)
            ids = np.array([CLASSES.index(n) for n in spec.names], np.int64)
            self.readers.append((spec, backend_i, ids))
        #: the numeral reader (manifest ``numeral``)
        self.numeral: Backend | None = None
        numeral_spec = self.classifier_spec.numeral if self.classifier_spec else None
        if numeral_spec is not None:
            self.numeral = numeral or self._open(numeral_spec.file, threads)
        #: hand-confidence calibration (manifest ``calibration``, :mod:`vision.confidence`)
        self.calibration: dict[str, Any] | None = None
        if "calibration" in self.manifest:
            try:
                self.calibration = check_calibration(self.manifest["calibration"])
            except CalibrationError as exc:
                raise ModelError(f"{self.model_dir / MANIFEST}: {exc}") from None
        self.name = str(self.manifest.get("name") or self.spec.file.stem)
        if self.manifest.get("version"):
            self.name += f"@{self.manifest['version']}"
        self._det_map = self._class_map(self.spec.names)
        # decode big JPEGs no smaller than the detector input (2× when crops are classified)
        self._min_long_side = self.spec.imgsz * (2 if self.classifier_spec else 1)
        self._cls_ids = (
            np.array([CLASSES.index(n) for n in self.classifier_spec.names], np.int64)
            if self.classifier_spec
            else None
        )

    def input_size(
        self, width: int, height: int, long_side: int = 0, cap: int = 0
    ) -> tuple[int, int]:
        """Model input ``(Sw, Sh)`` for a ``width × height`` image: the model's fixed input
        shape, or, when its height/width are dynamic, the smallest stride-32 rectangle with
        long side ``long_side`` (0: ``imgsz``), at most ``cap`` (0: ``imgsz``) — a 4:3
        frame runs at 640 × 480, a quarter less work."""
        shape = self.backend.input_shape
        if len(shape) == 4 and shape[2] and shape[3]:
            return int(shape[3]), int(shape[2])
        return input_size(width, height, min(long_side or self.spec.imgsz, cap or self.spec.imgsz))

    def region_input_size(
        self, width: int, height: int, long_side: int, area: int
    ) -> tuple[int, int]:
        """Model input ``(Sw, Sh)`` for the region pass over a ``width × height`` region
        wanting an input long side of ``long_side`` px: as :meth:`input_size`, but up to
        ``zoom_max_px`` (when above ``imgsz``) while the input holds no more than ``area``
        pixels (the first pass's: the region pass then costs no more than it).

        A 2000 × 300 hand row wanting 1,170 px gets 1024 × 160 with ``zoom_max_px`` 1024,
        ``imgsz`` 512 and the area of a 512 × 384 pass (512 × 96 without).
        """
        cap = max(float(self.spec.imgsz), self.spec.zoom_max_px)
        if cap <= self.spec.imgsz or long_side <= self.spec.imgsz:
            return self.input_size(width, height, long_side)
        aspect = min(width, height) / max(width, height, 1)
        by_area = (area / max(aspect, 1e-6)) ** 0.5
        size = int(max(self.spec.imgsz, min(long_side, cap, by_area)))
        return self.input_size(width, height, size, cap=size)

    def _open(self, file: Path, threads: int | None) -> Backend:
        if not file.is_file():
            raise ModelError(f"model file named in {self.model_dir / MANIFEST} is missing: {file}")
        return open_backend(file, threads=threads)

    def _class_map(self, names: tuple[str, ...]) -> npt.NDArray[np.float32]:
        """``(C_det, 43)`` matrix spreading detector class scores onto tile classes."""
        m = np.zeros((len(names), len(CLASSES)), np.float32)
        named = {CLASSES.index(n) for n in names if n in CLASSES}
        others = [i for i in range(len(CLASSES)) if i not in named]
        for j, n in enumerate(names):
            if n in CLASSES:
                m[j, CLASSES.index(n)] = 1.0
            else:
                m[j, others] = 1.0 / len(others)
        return m

    def __repr__(self) -> str:
        return f"Detector({self.name!r}, dir={str(self.model_dir)!r}, {self.backend.name})"

    def __call__(self, image: ImageSource) -> Detections:
        return self.detect(image)

    def _low_conf(self) -> float:
        """The threshold passes decode at: ``conf``, or ``weak_conf``, ``bonus_conf`` or
        ``row_fill.min_score`` when those are set and lower."""
        low = self.conf
        if self.spec.row_fill is not None:
            low = min(low, self.spec.row_fill.min_score)
        if self.spec.weak_conf > 0:
            low = min(low, self.spec.weak_conf)
        if self.spec.bonus_conf is not None:
            low = min(low, self.spec.bonus_conf)
        return low

    def _strong(self, scores: npt.NDArray[np.float32]) -> npt.NDArray[np.bool_]:
        """Which rows of ``scores`` reach ``conf`` (the rest are weak candidates)."""
        return np.asarray(pp.tile_score(scores, self.spec.score) >= self.conf)

    def _locate(
        self, img: npt.NDArray[np.uint8], long_side: int = 0,
        size: tuple[int, int] | None = None, backend: Backend | None = None,
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32], float]:
        """One detector pass over ``img`` (at an input long side of ``long_side`` px when
        the model's input is dynamic; 0: ``imgsz``; or at the input ``size`` given; by
        ``backend``, default the detector's):
        kept boxes ``(n, 4)`` in ``img``
        pixels, their class scores ``(n, C_det)``, and the letterbox scale (input px per
        ``img`` px). Boxes down to ``weak_conf`` are kept when that is set; NMS goes by
        score, so a weak box never suppresses a strong one."""
        tensor, lb = prepare_input(
            img,
            size or self.input_size(img.shape[1], img.shape[0], long_side),
            mode="gray" if self.spec.input == "gray" else "rgb",
            pad_value=self.spec.letterbox_pad,
            use_autocontrast=self.spec.autocontrast,
        )
        raw = (backend or self.backend).run(tensor)
        if raw.ndim != 3 or raw.shape[1] != 4 + len(self.spec.names):
            raise ModelError(
                f"detector output shape {raw.shape} does not match the manifest's "
                f"{len(self.spec.names)} classes (expected (1, {4 + len(self.spec.names)}, N))"
            )
        boxes, scores = pp.decode_yolo(raw, self._low_conf(), self.spec.score)
        ranked = pp.tile_score(scores, self.spec.score)
        keep = self._nms(boxes, ranked)
        kept = boxes[keep]
        if self.spec.fuse is not None:
            strong = ranked[keep] >= self.conf  # weak boxes stay as found
            kept[strong] = pp.fuse_kept(boxes, ranked, keep[strong], *self.spec.fuse)
        return lb.to_original(kept), scores[keep], lb.scale

    def _zoom(
        self,
        img: npt.NDArray[np.uint8],
        boxes: npt.NDArray[np.float32],
        scores: npt.NDArray[np.float32],
        scale: float,
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32], float, str]:
        """The second look (see :meth:`detect`): the region pass when the tiles found
        look small and sit close together, else the grid pass when few tiles were found
        or small ones are spread wide. Both passes are merged with the first
        (class-agnostic NMS). Returns boxes, scores, the enlargement (1.0 when there was
        no second pass) and which pass ran (``"none"``, ``"region"``, ``"grid"`` or
        ``"grid+region"``: with ``zoom_region_after_grid``, the region pass over the tiles
        the cells found when they are still small)."""
        spec = self.spec
        if spec.zoom_below <= 0:
            return boxes, scores, 1.0, "none"
        height, width = img.shape[:2]
        strong = boxes[self._strong(scores)]  # decide on the tiles found
        few_small = len(strong) < 3 and not _tiles_big(strong, scale, spec)
        if not few_small and zoom_region(strong, (width, height), scale,
                                         below=spec.zoom_below) is None:
            return boxes, scores, 1.0, "none"  # tiles big enough
        zoomed = self._region_pass(img, boxes, scores, scale)
        if zoomed is not None:
            return (*zoomed, "region")
        # grid pass: few or very small tiles, on frames the first pass shrank enough
        tiny = len(strong) < 3 or pp.median_short_side(strong) * scale < spec.zoom_grid_below
        if not tiny or spec.zoom_grid < 2 or scale * spec.zoom_min_gain > 1.0:
            return boxes, scores, 1.0, "none"
        found_b, found_s, gains = [], [], []
        for cell in grid_cells((width, height), spec.zoom_grid):
            x1, y1, x2, y2 = cell
            cb, cs, cell_scale = self._locate(np.ascontiguousarray(img[y1:y2, x1:x2]))
            keep = ~touches_inner_edge(cb, cell, (width, height))
            found_b.append(cb[keep] + np.array([x1, y1, x1, y1], np.float32))
            found_s.append(cs[keep])
            gains.append(cell_scale / scale)
        boxes, scores = self._merge(boxes, scores, found_b, found_s)
        grid_gain = min(gains)
        if spec.zoom_region_after_grid:  # tiles the cells found still small: look closer
            zoomed = self._region_pass(img, boxes, scores, scale * grid_gain)
            if zoomed is not None:
                zb, zs, gain = zoomed
                return zb, zs, round(gain * grid_gain, 3), "grid+region"
        return boxes, scores, round(grid_gain, 3), "grid"

    def _region_pass(
        self,
        img: npt.NDArray[np.uint8],
        boxes: npt.NDArray[np.float32],
        scores: npt.NDArray[np.float32],
        scale: float,
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32], float] | None:
        """The region pass over ``boxes`` seen at ``scale`` input px per ``img`` px (see
        :meth:`detect`): the merged boxes and scores and the enlargement, or None when the
        tiles found are not small, too few, or their region cannot be enlarged
        ``zoom_min_gain`` times."""
        spec = self.spec
        height, width = img.shape[:2]
        strong = boxes[self._strong(scores)]
        region = zoom_region(strong, (width, height), scale, below=spec.zoom_below)
        if region is None:
            return None
        if spec.zoom_weak_region and 2 * len(strong) < len(boxes):
            near = chained_to(strong, boxes, _median_long_side(strong))
            region = zoom_region(near, (width, height), scale, below=float("inf")) or region
        x1, y1, x2, y2 = region
        long_side = 0
        if spec.zoom_target > 0:  # enlarge until the tiles are zoom_target px, no more
            want = spec.zoom_target / max(pp.median_short_side(strong), 1.0)
            long_side = -(-round(max(x2 - x1, y2 - y1) * want) // 32) * 32
        fw, fh = self.input_size(width, height)
        sw, sh = self.region_input_size(x2 - x1, y2 - y1, long_side, fw * fh)
        gain = min(sw / (x2 - x1), sh / (y2 - y1)) / scale
        if gain < spec.zoom_min_gain:
            return None
        zb, zs, _ = self._locate(np.ascontiguousarray(img[y1:y2, x1:x2]), size=(sw, sh))
        zb = zb + np.array([x1, y1, x1, y1], np.float32)
        return (*self._merge(boxes, scores, [zb], [zs]), round(gain, 3))

    def _merge(
        self,
        boxes: npt.NDArray[np.float32],
        scores: npt.NDArray[np.float32],
        more_boxes: list[npt.NDArray[np.float32]],
        more_scores: list[npt.NDArray[np.float32]],
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
        """Boxes of several passes, one box per tile (class-agnostic NMS on best scores)."""
        boxes = np.concatenate([boxes, *more_boxes]).astype(np.float32)
        scores = np.concatenate([scores, *more_scores]).astype(np.float32)
        keep = self._nms(boxes, pp.tile_score(scores, self.spec.score))
        return boxes[keep], scores[keep]

    def _nms(self, boxes: npt.NDArray[np.float32], ranked: npt.NDArray[np.float32]
             ) -> npt.NDArray[np.int64]:
        """:func:`vision.postprocess.nms` with this detector's IoU, ``max_det`` and the
        manifest's ``contain``; ``ranked`` the tile scores ``(n,)``."""
        return pp.nms(boxes, ranked, self.iou, self.max_det, self.spec.contain)

    def detect(self, image: ImageSource) -> Detections:
        """Tiles in ``image`` (path, encoded bytes or BGR array; see :func:`load_image`).

        A large JPEG is decoded at a reduced scale that still covers the detector input
        (see :func:`vision.imageio.load_image_reduced`); boxes are always in pixels of
        the full-resolution image, whose ``(width, height)`` is ``image_size``.

        **Other scales** (manifest ``scales``, e.g. ``[384]``): when the first pass found
        3 or more tiles and they are not small (median short side at least
        ``scales_min_px`` input px, default 32; a table camera's small tiles are left to
        the zoom pass), the photo is detected again
        at each of those input sizes and the passes are fused
        (:func:`vision.postprocess.fuse_passes`: a tile's boxes averaged, its class scores
        the mean over the passes), then NMS again. A tile one size sees weakly and another
        strongly is kept; a box only one size sees is halved. With ``scales_each_px``
        a pass at another size abstains on the tiles smaller than that many of its own
        input px (it cannot see them; their score is the mean over the passes that can),
        and does not run when fewer than 3 of the first pass's tiles are that big for it.
        ``meta["scales"]`` lists the input sizes that ran.

        **Zoom pass**: a camera over a whole table sees tiles of 20–40 px in a 1280 × 960
        frame, a third of that at the model's input, where the detector misses most of
        them. When the median short side of the found tiles is below the manifest's
        ``zoom.below_px`` input pixels (default 32; 0 disables), the region around them
        (see :func:`zoom_region`) is detected again at a larger scale — enough to make
        the tiles ``zoom.target_px`` input px (default 64; 0: the full input size), when
        that enlarges it at least ``zoom.min_gain`` times (default 1.5) — and both passes
        are merged; ``meta["zoom"]`` is the enlargement (1.0 = no second pass).

        **Grid pass**: when the first pass found fewer than 3 tiles (none of them big), or
        small tiles spread over so much of the frame that their region cannot be enlarged
        ``min_gain`` times, the frame — if the first pass shrank it at least that much —
        is cut into ``zoom.grid × zoom.grid`` overlapping cells (default 2; 0 disables;
        see :func:`grid_cells`), each detected on its own; boxes cut by a cell's inner
        side are dropped (the neighbouring cell holds them whole) and all passes merged.
        It costs ``grid²`` detector runs, only on such frames; with ``zoom.region_after_grid``
        the tiles the cells found, when still small, get the region pass too (one run
        more). ``meta["zoom_pass"]`` says which second pass ran: ``"none"``, ``"region"``,
        ``"grid"`` or ``"grid+region"``.
        """
        t0 = time.perf_counter()
        img, size = load_image_reduced(image, min_long_side=self._min_long_side)
        t1 = time.perf_counter()
        boxes, scores, scale = self._locate(img)
        boxes, scores, passes = self._other_scales(img, boxes, scores, scale)
        t_detect = time.perf_counter()
        boxes, scores, gain, zoom_pass = self._zoom(img, boxes, scores, scale)
        t_zoom = time.perf_counter()
        if not len(boxes):
            det = Detections.empty(size, self.topk)
            det.meta.update(zoom=gain, zoom_pass=zoom_pass, scales=passes)
            return self._finish(det, t0, t1, t_detect, t_zoom, 0)
        score = pp.tile_score(scores, self.spec.score)
        probs = pp.normalise(scores) @ self._det_map
        rotations = pp.rotation_from_aspect(boxes)
        rotation_probs = None
        t4 = time.perf_counter()
        read_ms = 0.0
        if self.classifier is not None and self.classifier_spec is not None:
            assert self._cls_ids is not None
            crops = crop_batch(img, boxes, self.classifier_spec.size)
            cls_probs, rot_probs = classify_views(
                self.classifier.run,
                crops,
                len(self.classifier_spec.names),
                self.classifier_spec.tta,
                self.classifier_spec.more_views_below,
            )
            cls_full = pp.map_to_classes(cls_probs, self._cls_ids, len(CLASSES))
            probs = pp.fuse(probs, cls_full, self.classifier_spec.weight)
            rotations = np.asarray(ROTATIONS, np.int64)[rot_probs.argmax(axis=1)]
            rotation_probs = np.asarray(rot_probs, np.float32)
            t_read = time.perf_counter()
            probs = self._read_again(img, boxes, probs)
            probs = self._read_numerals(img, boxes, probs, rotation_probs)
            read_ms = (time.perf_counter() - t_read) * 1000
        one_set_changed: int | None = None  # tiles the one-set rule read otherwise
        if self.spec.one_set:
            strong_rows = np.flatnonzero(score >= self.conf)
            probs = probs.copy()
            probs[strong_rows], changed = within_one_set(probs[strong_rows], self.topk)
            one_set_changed = len(changed)
        t5 = time.perf_counter()
        if size != (img.shape[1], img.shape[0]):  # decoded reduced: back to full pixels
            boxes = boxes * np.array(
                [size[0] / img.shape[1], size[1] / img.shape[0]] * 2, np.float32
            )
        ids, top_probs = pp.top_k(probs, self.topk)
        confidence = score * (top_probs[:, 0] if self.classifier is not None else 1.0)
        every = Detections(
            boxes=boxes.astype(np.float32),
            class_ids=ids[:, 0].copy(),
            confidences=np.asarray(confidence, np.float32),
            rotations=rotations,
            topk_ids=ids,
            topk_probs=top_probs,
            image_size=size,
            rotation_probs=rotation_probs,
        )
        strong = score >= keep_thresholds(every, self.conf, self.spec.bonus_conf,
                                          self.spec.row_fill, score)
        det = every.select(strong)
        if not strong.all():
            det = dataclasses.replace(det, weak=every.select(~strong))
        det.meta.update(zoom=gain, zoom_pass=zoom_pass, scales=passes)
        if one_set_changed is not None:
            det.meta["one_set_changed"] = one_set_changed
        return self._finish(det, t0, t1, t_detect, t_zoom, (t5 - t4) * 1000 - read_ms, read_ms)

    def _other_scales(
        self,
        img: npt.NDArray[np.uint8],
        boxes: npt.NDArray[np.float32],
        scores: npt.NDArray[np.float32],
        scale: float,
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32], list[int]]:
        """The first pass fused with passes at the manifest's other ``scales`` (see
        :meth:`detect`); returns boxes, class scores and the input long sides that ran
        (the first pass's ``imgsz`` alone when no other ran)."""
        spec = self.spec
        ran = [spec.imgsz]
        if not spec.scales:
            return boxes, scores, ran
        ranked = pp.tile_score(scores, spec.score)
        # judged at the manifest's threshold (an evaluation decodes far lower)
        strong = boxes[ranked >= spec.conf]
        if len(strong) < 3 or pp.median_short_side(strong) * scale < spec.scales_min_px:
            return boxes, scores, ran
        height, width = img.shape[:2]
        passes = [(boxes, scores, ranked)]
        need = [0.0]  # image px a tile needs for a pass to count: the first pass, any
        short = np.minimum(strong[:, 2] - strong[:, 0], strong[:, 3] - strong[:, 1])
        for side in spec.scales:
            size = self.input_size(width, height, side, cap=side)
            if spec.scales_each_px > 0:  # a pass that would abstain on all but 2 tiles: skip
                at = min(size[0] / width, size[1] / height)  # its input px per image px
                if int((short * at >= spec.scales_each_px).sum()) < 3:
                    continue
            b, s, pass_scale = self._locate(img, size=size, backend=self.scales_backend)
            passes.append((b, s, pp.tile_score(s, spec.score)))
            need.append(spec.scales_each_px / pass_scale)
            ran.append(side)
        if len(passes) == 1:
            return boxes, scores, ran
        fused_b, fused_s = pp.fuse_passes(passes, self.iou, need)
        keep = self._nms(fused_b, pp.tile_score(fused_s, spec.score))
        return fused_b[keep], fused_s[keep], ran

    def _read_again(
        self,
        img: npt.NDArray[np.uint8],
        boxes: npt.NDArray[np.float32],
        probs: npt.NDArray[np.float32],
    ) -> npt.NDArray[np.float32]:
        """The readers' second looks in manifest order (:class:`ReaderSpec`): ``probs``
        ``(n, 43)`` with, for each tile a reader looks at, the split of the tile's mass on
        the reader's codes fused with the reader's reading of a ``size`` px crop; the mass
        itself, and the other codes, unchanged."""
        for spec, backend, ids in self.readers:
            mass = probs[:, ids].sum(axis=1)
            wanted = mass >= max(spec.min_mass, 1e-6)
            if spec.below_p < 1:
                wanted &= probs.max(axis=1) < spec.below_p
            look = np.flatnonzero(wanted)
            if not len(look):
                continue
            crops = crop_batch(img, boxes[look], spec.size)
            read, _ = classify_views(backend.run, crops, len(ids), spec.tta)
            within = probs[np.ix_(look, ids)] / mass[look, None]
            probs = probs.copy()
            probs[np.ix_(look, ids)] = pp.fuse(within, read, spec.weight) * mass[look, None]
        return probs

    def _read_numerals(
        self,
        img: npt.NDArray[np.uint8],
        boxes: npt.NDArray[np.float32],
        probs: npt.NDArray[np.float32],
        rotation_probs: npt.NDArray[np.float32],
    ) -> npt.NDArray[np.float32]:
        """``probs`` ``(n, 43)`` with the bonus codes of the tiles the numeral reader
        looks at (:class:`NumeralSpec`) re-ranked by its odds (:mod:`vision.numeral`)."""
        spec = self.classifier_spec.numeral if self.classifier_spec else None
        if spec is None or self.numeral is None:
            return probs
        mass = probs[:, _BONUS_COLUMNS].sum(axis=1)
        look = np.flatnonzero(mass >= max(spec.min_mass, 1e-6))
        if not len(look):
            return probs
        strips = strips_batch(img, boxes[look], spec.size, spec.top)
        answers = pp.softmax(self.numeral.run(strips)).reshape(len(look), 4, -1)
        odds = numeral_odds(answers, rotation_probs[look])
        probs = probs.copy()
        probs[np.ix_(look, _BONUS_COLUMNS)] = fuse_numerals(
            probs[np.ix_(look, _BONUS_COLUMNS)], odds, spec.weight)
        return probs

    def _finish(
        self,
        det: Detections,
        t0: float,
        t1: float,
        t_detect: float,
        t_zoom: float,
        classify_ms: float,
        read_ms: float = 0.0,
    ) -> Detections:
        end = time.perf_counter()
        made = {
            "model": self.name,
            "backend": self.backend.name,
            "confidence": "score*p1" if self.classifier is not None else "score",
            "conf": self.conf,
        }
        if det.weak is not None:  # the same detector's rows: detection_scores reads them too
            det.weak.meta.update(made)
        det.meta.update(
            **made,
            ms={
                "decode_image": round((t1 - t0) * 1000, 2),
                "detect": round((t_detect - t1) * 1000, 2),
                "zoom": round((t_zoom - t_detect) * 1000, 2),
                "classify": round(classify_ms, 2),
                "read": round(read_ms, 2),
                "total": round((end - t0) * 1000, 2),
            },
        )
        return det


def detection_scores(det: Detections) -> npt.NDArray[np.float32]:
    """The detector's score per row of ``det`` (what :class:`Detector` thresholds), ``(n,)``.

    Equal to ``det.confidences`` unless a classifier multiplied them by the top-1
    probability (``meta["confidence"] == "score*p1"``), which is divided out here.
    """
    if det.meta.get("confidence") == "score*p1" and len(det):
        p1 = np.maximum(det.topk_probs[:, 0], np.float32(1e-12))
        return np.asarray(det.confidences / p1, np.float32)
    return det.confidences


_CACHE: dict[Path, Detector] = {}
_LOCK = threading.Lock()


def load_detector(model_dir: str | Path | None = None, **options: Any) -> Detector:
    """A :class:`Detector` for ``model_dir`` (default :func:`default_model_dir`).

    Without options the detector is cached per folder, so repeated calls are free;
    with options (``conf``, ``iou``, ``topk``, ``threads``) a new one is built.
    """
    path = (Path(model_dir) if model_dir is not None else default_model_dir()).resolve()
    if options:
        return Detector(path, **options)
    with _LOCK:
        if path not in _CACHE:
            _CACHE[path] = Detector(path)
        return _CACHE[path]


def detect(image: ImageSource, *, detector: Detector | None = None) -> Detections:
    """Tiles in ``image`` using ``detector`` or the cached default one from ``models/``."""
    return (detector or load_detector()).detect(image)
