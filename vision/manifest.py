"""The model folder's ``manifest.json`` — what :class:`vision.detect.Detector` loads (the
contract in ``models/README.md``)::

    {"detector": {"file": "tiles.onnx", "imgsz": 640, "names": ["1m", ...],
                  "input": "rgb" | "gray", "letterbox_pad": 114, "output": "yolo",
                  "autocontrast": false, "conf": 0.25, "iou": 0.5, "contain": 0.65,
                  "score": "any",
                  "zoom": {"below_px": 32, "min_gain": 1.5, "target_px": 64,
                           "grid": 2, "grid_below_px": 20}},
     "classifier": {"file": "crops.onnx", "size": 64, "names": [...],
                    "rotations": [0, 90, 180, 270], "weight": 0.5, "tta": 2,
                    "more_views_below": 0.7, "more_views_max": 12},
     "readers": [{"file": "glyphs.onnx", "size": 96, "names": ["1m", ..., "N"],
                  "weight": 0.5, "tta": 2, "min_mass": 0.1, "below_p": 0.9}],
     "name": "tilecam-yolo11n", "version": "..."}

``autocontrast``, ``conf``, ``iou``, ``contain`` (NMS also drops a box covered more than this
share by a better one; absent: IoU only), ``fuse`` (``{"iou": 0.5, "rel": 0.5}``: each kept
box scored at least ``conf`` becomes the score-weighted mean of the candidates it overlaps
at that IoU scoring at least ``rel`` × its score, :func:`vision.postprocess.fuse_kept`;
absent: the kept boxes as they are), ``scales`` (e.g. ``[384]``: more input sizes for
the first pass, fused with it, :meth:`vision.detect.Detector.detect`) with ``scales_min_px``,
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
"size": [48, 80], "top": 0.45, "weight": 1.0, "min_mass": 0.3}``, optional ``min_odds``;
:class:`NumeralSpec`).
Detector names that are not tile codes (e.g. ``"tile"``) are generic: their probability is
spread over the classes the detector does not name, and the crop classifier decides.

:func:`read_manifest` reads and checks it: a missing key, a value of the wrong kind or
range, or a file the folder lacks is a :class:`ModelError` naming the key.
"""

from __future__ import annotations

import dataclasses
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vision import postprocess as pp
from vision.classes import CLASSES
from vision.detections import ROTATIONS
from vision.row_fill import RowFill
from vision.shipped import MANIFEST as MANIFEST
from vision.shipped import shipped_model_dir

#: Where the shipped model lives (``<repo>/models``, or an installed wheel's copy of it:
#: :mod:`vision.shipped`); ``TILECAM_MODEL_DIR`` overrides it.
DEFAULT_MODEL_DIR = shipped_model_dir()


def default_model_dir() -> Path:
    """``$TILECAM_MODEL_DIR`` if set, else the shipped model (:data:`DEFAULT_MODEL_DIR`)."""
    env = os.environ.get("TILECAM_MODEL_DIR")
    return Path(env) if env else DEFAULT_MODEL_DIR


def model_name(manifest: dict[str, Any], fallback: str) -> str:
    """How every reading names a model (``name@version``): the manifest's ``name`` (else
    ``fallback``, the detector file's stem), with ``@version`` when it has a version.

    >>> model_name({"name": "tiles", "version": "2026-12-05.35"}, "x"), model_name({}, "x")
    ('tiles@2026-12-05.35', 'x')
    """
    name = str(manifest.get("name") or fallback)
    return f"{name}@{manifest['version']}" if manifest.get("version") else name


def shipped_model_name(model_dir: Path | None = None) -> str | None:
    """The :func:`model_name` of the model in ``model_dir`` (default
    :func:`default_model_dir`) from its manifest alone (no network is loaded), or None
    when the folder holds no readable manifest."""
    path = (model_dir or default_model_dir()) / MANIFEST
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
        detector = manifest.get("detector") or {}
        return model_name(manifest, Path(str(detector.get("file") or "model")).stem)
    except (OSError, ValueError, AttributeError):
        return None


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
    #: A frame whose grain (:func:`vision.denoise.noise_sigma`, grey levels) reaches
    #: ``denoise_above`` is blurred by a Gaussian of ``denoise_sigma`` px before anything
    #: is looked for (manifest ``denoise``: ``{"above": 3, "sigma": 0.8}``); 0: never.
    denoise_above: float = 0.0
    denoise_sigma: float = 0.0
    #: A frame whose bright end (:func:`vision.exposure.bright_level`, grey levels) is
    #: under ``brighten_below`` is scaled so that it reaches ``brighten_to`` before
    #: anything is looked for, and before ``denoise`` (manifest ``brighten``: ``{"below":
    #: 140, "to": 220}``); 0: never.
    brighten_below: float = 0.0
    brighten_to: float = 0.0


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
    #: At most this many crops a frame get those views, the least sure first (manifest
    #: ``more_views_max``; 0: no bound)
    more_views_max: int = 0
    #: second looks at some tiles, in order (manifest ``readers``, or one ``reader``)
    readers: tuple[ReaderSpec, ...] = ()
    #: the numeral reader, after the readers (manifest ``numeral``)
    numeral: NumeralSpec | None = None
    #: manifest ``agreed`` ``{"share": s, "weight": w}``: in a frame where the detector's
    #: and the classifier's top codes agree on at least share ``s`` of the boxes, the two
    #: are fused with ``w`` instead of ``weight`` (None: always ``weight``)
    agreed: tuple[float, float] | None = None
    #: manifest ``blurred`` ``{"file": f, "below": t}``: a classifier for smeared frames
    #: (same names, size and views) that reads a frame's crops instead of ``file`` when
    #: their :func:`vision.sharpness.crop_sharpness` is under ``t`` (None: never)
    blurred: tuple[Path, float] | None = None


@dataclass(frozen=True)
class NumeralSpec:
    """The manifest's optional ``numeral`` entry: the numeral reader
    (:mod:`vision.numeral`). It looks at each tile whose probability on the eight bonus
    codes reaches ``min_mass``, cuts the top strip of its face at all four quarter turns
    (``top`` of the upright box, resized to ``size`` ``(H, W)``), and re-ranks the tile's
    bonus codes by the numeral odds to the power ``weight``; the chance the tile is a
    bonus tile at all stays as it was. With ``min_odds`` > 0 only the tiles whose most
    likely numeral has at least those odds are re-ranked (the reader sure of it)."""

    file: Path
    size: tuple[int, int]
    top: float
    weight: float
    min_mass: float
    min_odds: float = 0.0


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
    #: manifest ``blurred_file``: this reader's network for the frames the classifier's
    #: ``blurred`` entry judges smeared (same names, size and views; None: this one)
    blurred_file: Path | None = None


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
    grain_above, grain_blur = _denoise(d.get("denoise"), where)
    dark_below, dark_to = _brighten(d.get("brighten"), where)
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
        denoise_above=grain_above,
        denoise_sigma=grain_blur,
        brighten_below=dark_below,
        brighten_to=dark_to,
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
            more_views_max=_count(c.get("more_views_max", 0), "more_views_max", where),
            agreed=_agreed(c.get("agreed"), where),
            blurred=_blurred(c.get("blurred"), model_dir, where),
        )
    generic = [n for n in names if n not in CLASSES]
    readers = _reader_specs(manifest, model_dir, path)
    if readers:
        if cls is None:
            raise ModelError(f"{path}: a 'reader' needs a 'classifier' entry too")
        cls = dataclasses.replace(cls, readers=readers)
        if cls.blurred is None and any(r.blurred_file is not None for r in readers):
            raise ModelError(f"{path}: a reader's 'blurred_file' needs the classifier's "
                             "'blurred' entry (which judges a frame smeared)")
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


def _agreed(entry: Any, where: str) -> tuple[float, float] | None:
    """The classifier's optional ``agreed`` entry as ``(share, weight)``."""
    if entry is None:
        return None
    if not isinstance(entry, dict) or set(entry) != {"share", "weight"}:
        raise ModelError(f"{where}: 'agreed' must be an object with 'share' and 'weight'")
    return (_unit(entry["share"], "agreed.share", where),
            _unit(entry["weight"], "agreed.weight", where))


def _blurred(entry: Any, model_dir: Path, where: str) -> tuple[Path, float] | None:
    """The classifier's optional ``blurred`` entry as ``(file, below)``."""
    if entry is None:
        return None
    if not isinstance(entry, dict) or set(entry) != {"file", "below"}:
        raise ModelError(f"{where}: 'blurred' must be an object with 'file' and 'below'")
    file = _need(entry, "file", str, f"{where} blurred")
    below = entry["below"]
    if isinstance(below, bool) or not isinstance(below, (int, float)) or not below > 0:
        raise ModelError(f"{where}: 'blurred.below' must be a number above 0, got {below!r}")
    return model_dir / file, float(below)


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
    min_mass, min_odds = entry.get("min_mass", 0.3), entry.get("min_odds", 0.0)
    for key, value in (("top", top), ("min_mass", min_mass), ("min_odds", min_odds)):
        _unit(value, key, where)
    if top <= 0:
        raise ModelError(f"{where}: 'top' must be above 0, got {top!r}")
    if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not 0 <= weight <= 4:
        raise ModelError(f"{where}: 'weight' must be a number in [0, 4], got {weight!r}")
    return NumeralSpec(file=model_dir / _need(entry, "file", str, where),
                       size=(int(size[0]), int(size[1])), top=float(top),
                       weight=float(weight), min_mass=float(min_mass),
                       min_odds=float(min_odds))


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
        blurred_file=(model_dir / _need(entry, "blurred_file", str, where)
                      if "blurred_file" in entry else None),
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


def _number_pair(
    value: Any, name: str, keys: tuple[str, str], top: float, where: str
) -> tuple[float, float]:
    """An entry ``name`` of two numbers in ``(0, top]`` under ``keys`` (both needed) as a
    tuple in that order; absent or ``null``: off, ``(0, 0)``."""
    if value is None:
        return 0.0, 0.0
    if not isinstance(value, dict) or set(value) != set(keys):
        raise ModelError(f"{where}: '{name}' must be an object with {list(keys)}, "
                         f"got {value!r}")
    for key in keys:
        v = value[key]
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 < v <= top:
            raise ModelError(f"{where}: '{name}.{key}' must be a number in (0, {top:g}], "
                             f"got {v!r}")
    return float(value[keys[0]]), float(value[keys[1]])


def _denoise(value: Any, where: str) -> tuple[float, float]:
    """The manifest's ``denoise`` (``{"above": 5.5, "sigma": 1.2}``: grain in grey levels,
    blur in px) as ``(above, sigma)``; absent: off."""
    return _number_pair(value, "denoise", ("above", "sigma"), 50.0, where)


def _brighten(value: Any, where: str) -> tuple[float, float]:
    """The manifest's ``brighten`` (``{"below": 140, "to": 220}``, grey levels, ``below`` <
    ``to``) as ``(below, to)``; absent: off."""
    below, to = _number_pair(value, "brighten", ("below", "to"), 255.0, where)
    if below >= to > 0:
        raise ModelError(f"{where}: 'brighten.below' ({below:g}) must be under 'to' ({to:g})")
    return below, to


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


def _count(value: Any, key: str, where: str) -> int:
    """A manifest whole number ≥ 0."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ModelError(f"{where}: {key!r} must be a whole number ≥ 0, got {value!r}")
    return value


def _tta(value: Any, where: str) -> int:
    if isinstance(value, bool) or value not in (1, 2, 4):
        raise ModelError(f"{where}: 'tta' must be 1, 2 or 4 views per crop, got {value!r}")
    return int(value)
