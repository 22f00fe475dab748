"""Find the tiles in an image: ``detect(image) -> Detections``.

A :class:`Detector` is loaded once from a model folder holding ``manifest.json``; what
the manifest may say, and how it is checked, is :mod:`vision.manifest`.

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
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from vision import postprocess as pp
from vision.backends import Backend, open_backend
from vision.classes import BONUS, BONUS_IDS, CLASSES
from vision.confidence import CalibrationError, check_calibration
from vision.denoise import smooth_if_grainy
from vision.detections import ROTATIONS, Detections
from vision.exposure import brighten_if_dark
from vision.imageio import MAX_DECODABLE_PIXELS, ImageSource, Photo, load_image_reduced
from vision.manifest import (
    MANIFEST,
    ClassifierSpec,
    ModelError,
    ReaderSpec,
    default_model_dir,
    model_name,
    read_manifest,
)
from vision.numeral import fuse_numerals, numeral_odds, strips_batch
from vision.postprocess import classify_views
from vision.preprocess import crop_batch, input_size, prepare_input
from vision.row_fill import RowFill, in_rows
from vision.set_counts import within_one_set
from vision.sharpness import crop_sharpness
from vision.zoom import (
    big_enough,
    chained_to,
    grid_cells,
    grid_shape,
    median_long_side,
    tiles_big,
    touches_inner_edge,
    zoom_region,
)

#: columns of the bonus codes ``1f``…``8f`` in the 43-class order
_BONUS_COLUMNS = np.array([CLASSES.index(code) for code in BONUS], np.int64)

#: ``(43,)`` True at the flowers' and seasons' class indices.
_IS_BONUS = np.isin(np.arange(len(CLASSES)), sorted(BONUS_IDS))


#: A row counts as a flower or season for ``bonus_conf`` when its top-1 code is one and
#: its top-k alternatives give the eight at least this much probability together (more
#: likely a bonus tile than not; a box whose reading is spread over unrelated kinds is not).
BONUS_MASS = 0.5


def fusion_weight(detector_probs: npt.NDArray[np.float32],
                  classifier_probs: npt.NDArray[np.float32], spec: ClassifierSpec) -> float:
    """The classifier's weight in :func:`vision.postprocess.fuse` for one frame: the
    manifest's ``weight``, or its ``agreed`` weight when the detector's and the
    classifier's top codes agree on at least the ``agreed`` share of the frame's boxes
    (``(n, C)`` each) — a frame of a tile set the detector reads as the classifier does.

    >>> spec = ClassifierSpec(Path("c.onnx"), 64, ("1m", "2m"), 0.85, agreed=(0.75, 0.7))
    >>> d = np.array([[0.9, 0.1], [0.8, 0.2], [0.3, 0.7], [0.6, 0.4]], np.float32)
    >>> c = np.array([[0.7, 0.3], [0.6, 0.4], [0.2, 0.8], [0.1, 0.9]], np.float32)
    >>> fusion_weight(d, c, spec), fusion_weight(d[:3], c[:3], spec)
    (0.7, 0.7)
    >>> fusion_weight(d[2:], c[2:], spec)  # one of two agrees
    0.85
    """
    if spec.agreed is None or not len(detector_probs):
        return spec.weight
    share, weight = spec.agreed
    agree = float(np.mean(detector_probs.argmax(axis=1) == classifier_probs.argmax(axis=1)))
    return weight if agree >= share else spec.weight


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


class _Cut:
    """The larger picture of the same photo that :meth:`Detector.detect` cuts the zoom
    region and the crops from when the tiles are small in the picture ``img`` it detected
    in: got from ``full`` when first needed and prepared as the detector prepares a frame
    (brightened, smoothed: judged on its own pixels, as when the photo is given whole).
    :meth:`box` takes boxes in ``img``'s pixels to the larger picture's; ``factor`` is
    its pixels per ``img`` pixel, ``(4,)`` for xyxy boxes."""

    def __init__(self, img: npt.NDArray[np.uint8], spec: Any,
                 full: Callable[[], npt.NDArray[np.uint8]]) -> None:
        self._img = img
        self._spec = spec
        self._full = full
        self._picture: npt.NDArray[np.uint8] | None = None
        self.factor = np.ones(4, np.float32)

    @property
    def picture(self) -> npt.NDArray[np.uint8]:
        if self._picture is None:
            pixels, _ = brighten_if_dark(self._full(), self._spec.brighten_below,
                                         self._spec.brighten_to)
            pixels, _ = smooth_if_grainy(pixels, self._spec.denoise_above,
                                         self._spec.denoise_sigma)
            self._picture = pixels
            self.factor = np.array([pixels.shape[1] / self._img.shape[1],
                                    pixels.shape[0] / self._img.shape[0]] * 2, np.float32)
        return self._picture

    def box(self, boxes: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
        """``boxes`` in ``img``'s pixels, in :attr:`picture`'s."""
        _ = self.picture  # sets the factor
        return np.asarray(boxes * self.factor, np.float32)


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
        blurred_classifier: Backend | None = None,
        blurred_readers: Sequence[Backend | None] | None = None,
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
        #: the classifier for smeared frames (manifest ``classifier.blurred``)
        self.blurred_classifier: Backend | None = None
        if self.classifier_spec is not None and self.classifier_spec.blurred is not None:
            self.blurred_classifier = blurred_classifier or self._open(
                self.classifier_spec.blurred[0], threads)
        #: second looks (manifest ``readers``): spec, backend and class ids of its names
        self.readers: list[tuple[ReaderSpec, Backend, npt.NDArray[np.int64]]] = []
        #: each reader's network for smeared frames (manifest ``blurred_file``), or None
        self.blurred_readers: list[Backend | None] = []
        specs = self.classifier_spec.readers if self.classifier_spec is not None else ()
        if readers is not None and len(readers) != len(specs):
            raise ValueError(f"{len(readers)} reader backends for {len(specs)} manifest readers")
        if blurred_readers is not None and len(blurred_readers) != len(specs):
            raise ValueError(f"{len(blurred_readers)} blurred-reader backends for "
                             f"{len(specs)} manifest readers")
        for i, spec in enumerate(specs):
            backend_i = readers[i] if readers is not None else self._open(spec.file, threads)
            ids = np.array([CLASSES.index(n) for n in spec.names], np.int64)
            self.readers.append((spec, backend_i, ids))
            self.blurred_readers.append(
                blurred_readers[i] if blurred_readers is not None
                else self._open(spec.blurred_file, threads) if spec.blurred_file else None)
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
        self.name = model_name(self.manifest, self.spec.file.stem)
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

    def __call__(self, image: ImageSource | Photo) -> Detections:
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
        cut: _Cut | None = None,
        edge_px: float = 2.0,
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32], float, str]:
        """The second look (see :meth:`detect`): the region pass when the tiles found
        look small and sit close together, else the grid pass when few tiles were found
        or small ones are spread wide. Both passes are merged with the first
        (class-agnostic NMS). Returns boxes, scores, the enlargement (1.0 when there was
        no second pass) and which pass ran (``"none"``, ``"region"``, ``"grid"`` or
        ``"grid+region"``: with ``zoom_region_after_grid``, the region pass over the tiles
        the cells found when they are still small). The grid's cells are cut from ``img``,
        the region from ``cut``'s picture when given (boxes always in ``img``'s pixels)."""
        spec = self.spec
        if spec.zoom_below <= 0:
            return boxes, scores, 1.0, "none"
        height, width = img.shape[:2]
        strong = boxes[self._strong(scores)]  # decide on the tiles found
        few_small = len(strong) < 3 and not tiles_big(strong, scale, spec)
        if not few_small and zoom_region(strong, (width, height), scale,
                                         below=spec.zoom_below) is None:
            return boxes, scores, 1.0, "none"  # tiles big enough
        zoomed = self._region_pass(img, boxes, scores, scale, cut)
        if zoomed is not None:
            return (*zoomed, "region")
        # grid pass: few or very small tiles, on frames the first pass shrank enough
        tiny = len(strong) < 3 or pp.median_short_side(strong) * scale < spec.zoom_grid_below
        if not tiny or spec.zoom_grid < 2 or scale * spec.zoom_min_gain > 1.0:
            return boxes, scores, 1.0, "none"
        found_b, found_s, gains = [], [], []
        shape = grid_shape((width, height), spec.zoom_grid)  # a strip: more cells along it
        for cell in grid_cells((width, height), spec.zoom_grid, shape=shape):
            x1, y1, x2, y2 = cell
            cb, cs, cell_scale = self._locate(np.ascontiguousarray(img[y1:y2, x1:x2]))
            keep = ~touches_inner_edge(cb, cell, (width, height), tolerance=edge_px)
            found_b.append(cb[keep] + np.array([x1, y1, x1, y1], np.float32))
            found_s.append(cs[keep])
            gains.append(cell_scale / scale)
        boxes, scores = self._merge(boxes, scores, found_b, found_s)
        grid_gain = min(gains)
        if spec.zoom_region_after_grid:  # tiles the cells found still small: look closer
            zoomed = self._region_pass(img, boxes, scores, scale * grid_gain, cut)
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
        cut: _Cut | None = None,
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32], float] | None:
        """The region pass over ``boxes`` seen at ``scale`` input px per ``img`` px (see
        :meth:`detect`): the merged boxes and scores and the enlargement, or None when the
        tiles found are not small, too few, or their region cannot be enlarged
        ``zoom_min_gain`` times. The region is cut from ``cut``'s picture when given (the
        photo at full size: the same input size, more detail), boxes in ``img``'s pixels."""
        spec = self.spec
        height, width = img.shape[:2]
        strong = boxes[self._strong(scores)]
        region = zoom_region(strong, (width, height), scale, below=spec.zoom_below)
        if region is None:
            return None
        if spec.zoom_weak_region and 2 * len(strong) < len(boxes):
            near = chained_to(strong, boxes, median_long_side(strong))
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
        if cut is None:
            zb, zs, _ = self._locate(np.ascontiguousarray(img[y1:y2, x1:x2]), size=(sw, sh))
            zb = zb + np.array([x1, y1, x1, y1], np.float32)
        else:  # the same region of the larger picture, at the same input size
            big = cut.picture
            bx1, by1, bx2, by2 = (round(float(v)) for v in
                                  cut.box(np.array([x1, y1, x2, y2], np.float32)))
            bx2, by2 = min(bx2, big.shape[1]), min(by2, big.shape[0])
            zb, zs, _ = self._locate(np.ascontiguousarray(big[by1:by2, bx1:bx2]), size=(sw, sh))
            zb = (zb + np.array([bx1, by1, bx1, by1], np.float32)) / cut.factor
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

    def detect(self, image: ImageSource | Photo, *, other_scales: bool = True) -> Detections:
        """Tiles in ``image`` (path, encoded bytes or BGR array; see :func:`load_image`;
        or a :class:`vision.imageio.Photo`).

        A large JPEG is decoded at a reduced scale that still covers the detector input
        (see :func:`vision.imageio.load_image_reduced`); boxes are always in pixels of
        the full-resolution image, whose ``(width, height)`` is ``image_size``.

        A :class:`~vision.imageio.Photo` (:func:`vision.imageio.load_for_reading`) is
        detected in its ``picture``: the first pass, the other scales and the grid cells
        see the same input from it as from the photo (one 512 px input either way). When
        the picture is reduced and the tiles found are small there (under
        :data:`vision.zoom.FINE_TILE_PX`: :func:`vision.zoom.big_enough`), the region pass
        and every crop are cut from the photo's own ``pixels`` instead (decoded then,
        brightened and smoothed as a frame given whole is), as when the photo is given
        whole; else from the picture, and the pixels are never asked for. Boxes are in the
        photo's pixels, ``image_size`` its ``size``.

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
        ``meta["scales"]`` lists the input sizes that ran. ``other_scales=False`` runs the
        first size alone (:mod:`vision.recognize` does so for a photo's level re-read).

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
        # an array is decoded already (the service under its own TILECAM_MAX_PIXELS):
        # only the decoder's ceiling applies to it, not the default limit again
        full: Callable[[], npt.NDArray[np.uint8]] | None = None
        if isinstance(image, Photo):  # read from its picture; its pixels when tiles are small
            img, size = image.picture, image.size
            if image.reduced:
                photo = image
                full = lambda: photo.pixels  # noqa: E731
        else:
            img, size = load_image_reduced(image, min_long_side=self._min_long_side,
                                           max_array_pixels=MAX_DECODABLE_PIXELS)
        t_decoded = time.perf_counter()
        shown = img
        img, level = brighten_if_dark(img, self.spec.brighten_below, self.spec.brighten_to)
        lit = img
        img, grain = smooth_if_grainy(img, self.spec.denoise_above, self.spec.denoise_sigma)
        grainy = {"bright": round(level, 1), "brightened": lit is not shown,
                  "noise": round(grain, 2), "smoothed": img is not lit}
        t1 = time.perf_counter()
        denoise_ms = (t1 - t_decoded) * 1000
        boxes, scores, scale = self._locate(img)
        passes = [self.spec.imgsz]
        if other_scales:
            boxes, scores, passes = self._other_scales(img, boxes, scores, scale)
        # small tiles in a reduced picture: the region and the crops from the photo's pixels
        cut = (_Cut(img, self.spec, full)
               if full is not None and not big_enough(boxes[self._strong(scores)]) else None)
        t_detect = time.perf_counter()
        # a grid cell drops tiles within 2 of the photo's px of its inner sides (cut
        # there, found whole next door): fewer of a reduced picture's px
        edge_px = 2.0 * min(1.0, img.shape[1] / size[0]) if size[0] else 2.0
        boxes, scores, gain, zoom_pass = self._zoom(img, boxes, scores, scale, cut, edge_px)
        t_zoom = time.perf_counter()
        if not len(boxes):
            det = Detections.empty(size, self.topk)
            det.meta.update(zoom=gain, zoom_pass=zoom_pass, scales=passes, **grainy)
            return self._finish(det, t0, t1, t_detect, t_zoom, 0, denoise_ms=denoise_ms)
        score = pp.tile_score(scores, self.spec.score)
        probs = pp.normalise(scores) @ self._det_map
        rotations = pp.rotation_from_aspect(boxes)
        rotation_probs = None
        t4 = time.perf_counter()
        read_ms = 0.0
        crop_meta: dict[str, Any] = {}  # which classifier read the crops, when there is a choice
        if self.classifier is not None and self.classifier_spec is not None:
            assert self._cls_ids is not None
            # the picture the crops are cut from, and the boxes in its pixels
            picture, cut_boxes = (img, boxes) if cut is None else (cut.picture, cut.box(boxes))
            crops = crop_batch(picture, cut_boxes, self.classifier_spec.size)
            crop_classifier = self._crop_classifier(crops, crop_meta)
            cls_probs, rot_probs = classify_views(
                crop_classifier.run,
                crops,
                len(self.classifier_spec.names),
                self.classifier_spec.tta,
                self.classifier_spec.more_views_below,
                self.classifier_spec.more_views_max,
            )
            cls_full = pp.map_to_classes(cls_probs, self._cls_ids, len(CLASSES))
            probs = pp.fuse(probs, cls_full, fusion_weight(probs, cls_full,
                                                          self.classifier_spec))
            rotations = np.asarray(ROTATIONS, np.int64)[rot_probs.argmax(axis=1)]
            rotation_probs = np.asarray(rot_probs, np.float32)
            t_read = time.perf_counter()
            probs = self._read_again(picture, cut_boxes, probs, bool(crop_meta.get("blurred")))
            probs = self._read_numerals(picture, cut_boxes, probs, rotation_probs)
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
        det.meta.update(zoom=gain, zoom_pass=zoom_pass, scales=passes, **grainy)
        det.meta.update(crop_meta)
        if one_set_changed is not None:
            det.meta["one_set_changed"] = one_set_changed
        return self._finish(det, t0, t1, t_detect, t_zoom, (t5 - t4) * 1000 - read_ms, read_ms,
                            denoise_ms=denoise_ms)

    def _crop_classifier(self, crops: npt.NDArray[np.float32], meta: dict[str, Any]) -> Backend:
        """The classifier that reads this frame's ``crops`` ``(N, 3, S, S)``: the blurred
        one (manifest ``classifier.blurred``) when their sharpness
        (:func:`vision.sharpness.crop_sharpness`) is under its ``below``, else the
        classifier; ``meta`` gets ``sharpness`` and ``blurred`` when there is a choice."""
        assert self.classifier is not None and self.classifier_spec is not None
        if self.blurred_classifier is None or self.classifier_spec.blurred is None:
            return self.classifier
        sharp = crop_sharpness(crops)
        blurred = sharp < self.classifier_spec.blurred[1]
        meta.update(sharpness=round(sharp, 5), blurred=blurred)
        return self.blurred_classifier if blurred else self.classifier

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
        blurred: bool = False,
    ) -> npt.NDArray[np.float32]:
        """The readers' second looks in manifest order (:class:`ReaderSpec`): ``probs``
        ``(n, 43)`` with, for each tile a reader looks at, the split of the tile's mass on
        the reader's codes fused with the reader's reading of a ``size`` px crop; the mass
        itself, and the other codes, unchanged. In a frame judged ``blurred`` a reader with
        a ``blurred_file`` reads with that network."""
        for (spec, backend, ids), smeared in zip(self.readers, self.blurred_readers,
                                                 strict=True):
            if blurred and smeared is not None:
                backend = smeared
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
        sure = odds.max(axis=1) >= spec.min_odds
        look, odds = look[sure], odds[sure]
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
        *,
        denoise_ms: float = 0.0,
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
                "decode_image": round((t1 - t0) * 1000 - denoise_ms, 2),
                "denoise": round(denoise_ms, 2),
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


def detect(image: ImageSource | Photo, *, detector: Detector | None = None,
           other_scales: bool = True) -> Detections:
    """Tiles in ``image`` using ``detector`` or the cached default one from ``models/``
    (``other_scales``: see :meth:`Detector.detect`)."""
    return (detector or load_detector()).detect(image, other_scales=other_scales)


#: Threshold a detector runs at for evaluation: mAP needs the low-confidence tail, and the
#: rows under the operating threshold are dropped again by :func:`evaluation_detector`'s
#: ``thresholds`` for the tile counts.
EVAL_CONF = 0.01


@dataclasses.dataclass(frozen=True)
class EvaluationDetector:
    """A detector set up for :func:`vision.evaluate.evaluate`, as ``tilecam eval`` runs it.

    ``detector`` keeps every box scored ≥ :data:`EVAL_CONF`, for mAP50's ranking;
    ``operating`` is the detector as :func:`detect` runs it at ``conf``, the operating
    threshold (the manifest's unless overridden), whose answers P/R/F1 and images-right
    score: a detector decoding down to :data:`EVAL_CONF` makes its per-frame choices
    (the zoom pass, the blurred-crop classifier, the extra classifier views) over boxes
    the shipped one never sees, and read 18 of 406 hk val copies otherwise.
    :meth:`thresholds` gives the score each of ``detector``'s rows needs to count as a
    tile (``conf``, the manifest's ``bonus_conf`` for flowers and seasons, ``row_fill``),
    shape ``(n,)``.
    """

    detector: Detector
    conf: float
    operating: Detector | None = None

    def thresholds(self, det: Detections) -> npt.NDArray[np.float32]:
        spec = self.detector.spec
        return keep_thresholds(det, self.conf, spec.bonus_conf, spec.row_fill)


def evaluation_detector(
    model_dir: str | Path | None = None, *, conf: float | None = None,
    backend: Backend | None = None,
) -> EvaluationDetector:
    """The model in ``model_dir`` (``backend`` replacing its detector file, e.g. other
    weights) set up for evaluation at operating threshold ``conf`` (default the
    manifest's)."""
    probe = Detector(model_dir, backend=backend, conf=conf)
    operating = probe.conf
    detector = Detector(model_dir, conf=min(EVAL_CONF, operating), backend=probe.backend)
    return EvaluationDetector(detector, operating, probe)
