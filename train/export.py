"""Export a trained checkpoint to ONNX and write ``models/manifest.json``.

usage: .venv-train/bin/python train/export.py runs/<name>/weights/best.pt \
           [--imgsz 640] [--version 2026-11-29.1] [--conf 0.25] [--dynamic] \
           [--classifier tiles-cls.onnx ...] [--reader tiles-bonus.onnx ...] \
           [--glyph-reader tiles-glyph.onnx ...] [--glyph-reader-blurred tiles-glyph-blur.onnx]
       .venv-train/bin/python train/export.py runs/<name>/weights/epochN.pt --imgsz 512 \
           --dynamic --version 2026-12-02.26 --as-scales-file

Writes ``models/tilecam-tiles-yolo11n.onnx`` (ultralytics export, opset 17, simplified,
input [1,3,S,S] RGB 0..1 letterboxed with 114 grey, output [1, 4+43, N]; with
``--dynamic`` the input height and width are dynamic, so ``vision.detect`` feeds a 4:3
frame as S × 3S/4 and a zoomed row as a strip) and the manifest
the inference side reads (names = tile codes in output-class order). Checks the file
with onnxruntime against the PyTorch model on a random input before writing the manifest.

With ``--as-scales-file`` the checkpoint is shipped *beside* the detector instead: written
as ``models/tiles-photo.onnx`` and named as the manifest's ``detector.scales_file`` (the
detector the passes at the other ``scales`` run — the close-up photos' second input size;
:meth:`vision.detect.Detector.detect`); the rest of the manifest stays as it is but for
``version``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import numpy as np  # noqa: E402
import onnxruntime as ort  # noqa: E402

from vision.classes import BONUS, CLASSES, GLYPHS  # noqa: E402
from vision.manifest import DetectorSpec  # noqa: E402
from vision.postprocess import SCORE_MODES  # noqa: E402

FILE = "tilecam-tiles-yolo11n.onnx"
SCALES_FILE = "tiles-photo.onnx"
BLURRED_FILE = "tiles-cls-blur.onnx"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("weights")
    ap.add_argument("--imgsz", type=int, default=640)
    ap.add_argument("--version", required=True)
    ap.add_argument("--conf", type=float, default=0.25)
    ap.add_argument("--iou", type=float, default=0.5)
    ap.add_argument("--contain", type=float, default=0.65,
                    help="NMS also drops a box covered more than this share by a better one "
                         "(vision.postprocess.nms; recipe step 21 of models/README.md)")
    ap.add_argument("--weak-conf", type=float, default=0.0,
                    help="keep boxes scored in [weak-conf, conf) apart for the hand-completion "
                         "rule (Detections.weak; 0: none; recipe step 23 of models/README.md)")
    ap.add_argument("--bonus-conf", type=float, default=None,
                    help="keep a box read as a flower or season from this lower score "
                         "(detector.bonus_conf; recipe step 49 of models/README.md)")
    ap.add_argument("--row-fill", type=float, nargs=3, default=None,
                    metavar=("MIN_SCORE", "TOLERANCE", "MIN_P"),
                    help="keep a box scored from MIN_SCORE and read with top-1 probability "
                         "MIN_P where a row of kept tiles goes on (detector.row_fill, "
                         "vision/row_fill.py; recipe step 53 of models/README.md: 0.25 0.5 0.9)")
    ap.add_argument("--agreed", type=float, nargs=2, default=None, metavar=("SHARE", "WEIGHT"),
                    help="fuse with the classifier weight WEIGHT in a frame whose detector and "
                         "classifier top codes agree on at least SHARE of the boxes "
                         "(classifier.agreed; recipe step 64 of models/README.md: 0.9 0.7)")
    ap.add_argument("--more-views-below", type=float, default=0.0, metavar="P",
                    help="with --classifier-tta 2, read a crop whose top probability stays "
                         "under P in the other two quarter turns too (classifier."
                         "more_views_below; recipe step 65 of models/README.md: 0.9; 0: never)")
    ap.add_argument("--more-views-max", type=int, default=0, metavar="N",
                    help="at most N crops a frame get those views, the least sure first "
                         "(classifier.more_views_max; 0: no bound)")
    ap.add_argument("--blurred", nargs=2, default=None, metavar=("FILE", "BELOW"),
                    help="with --classifier: ship FILE as tiles-cls-blur.onnx, the classifier "
                         "of frames whose crops' sharpness is under BELOW (classifier.blurred, "
                         "vision/sharpness.py; recipe step 67 of models/HISTORY.md: 0.006)")
    ap.add_argument(
        "--score",
        choices=SCORE_MODES,
        default="any",
        help="what --conf thresholds (vision.postprocess.tile_score; default any)",
    )
    ap.add_argument("--models", default=str(REPO / "models"))
    ap.add_argument("--classifier", type=Path, help="crop classifier ONNX to ship beside it")
    ap.add_argument("--classifier-size", type=int, default=48)
    ap.add_argument("--classifier-weight", type=float, default=0.7)
    ap.add_argument(
        "--classifier-tta", type=int, choices=(1, 2, 4), default=4, help="views per crop"
    )
    ap.add_argument("--dynamic", action="store_true", help="dynamic input height/width")
    ap.add_argument("--as-scales-file", action="store_true",
                    help=f"ship the checkpoint as {SCALES_FILE}, the manifest's "
                         "detector.scales_file, keeping the rest of the manifest")
    _reader_options(ap, "reader", below_p=1.0,
                    what="bonus-tile reader ONNX (train/classifier/train.py --codes "
                         "1f,...,8f) to ship beside it as tiles-bonus.onnx (first of the "
                         "manifest's 'readers')")
    _reader_options(ap, "glyph-reader", below_p=0.9,
                    what="glyph reader ONNX (train/classifier/train.py --codes 1m,...,9m,E,S,W,N)"
                         " to ship beside it as tiles-glyph.onnx (second of the 'readers')")
    args = ap.parse_args()

    import torch  # the training venv's; imported here so the manifest helpers load without it
    from ultralytics import YOLO

    model = YOLO(args.weights)
    names = [model.names[i] for i in range(len(model.names))]
    if names != list(CLASSES):
        sys.exit(f"model classes {names} are not tilecam's 43 classes in order")
    onnx_path = Path(
        model.export(
            format="onnx",
            imgsz=args.imgsz,
            opset=17,
            simplify=True,
            dynamic=args.dynamic,
            device="cpu",
        )
    )
    # onnxruntime must give what torch gives (also on a 4:3 input when dynamic)
    session = ort.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"])
    net = model.model.float().eval()
    shapes = [(args.imgsz, args.imgsz)]
    if args.dynamic:
        shapes.append((args.imgsz * 3 // 4 // 32 * 32, args.imgsz))
    for h, w in shapes:
        x = np.random.default_rng(0).random((1, 3, h, w), dtype=np.float32)
        ort_out = session.run(None, {session.get_inputs()[0].name: x})[0]
        with torch.no_grad():
            torch_out = net(torch.from_numpy(x))[0].numpy()
        err = float(np.abs(ort_out - torch_out).max())
        print(f"input {h}×{w}: onnx output {ort_out.shape}, max |onnx - torch| = {err:.2e}")
        if ort_out.shape != (1, 4 + len(CLASSES), ort_out.shape[2]) or err > 1e-2:
            sys.exit("exported model does not match the checkpoint")

    models = Path(args.models)
    models.mkdir(exist_ok=True)
    manifest_path = models / "manifest.json"
    manifest = json.loads(manifest_path.read_text()) if manifest_path.is_file() else {}
    if args.as_scales_file:
        write_scales_file(onnx_path, models, manifest, args.version, args.imgsz)
        return
    shutil.copyfile(onnx_path, models / FILE)
    if manifest.pop("calibration", None) is not None:
        print("the old hand-confidence calibration was dropped: refit it for this model with")
        print(f"  .venv/bin/python train/calibrate.py {models} --write")
    manifest.update(
        name="tilecam-tiles-yolo11n",
        version=args.version,
        detector={
            "file": FILE,
            "imgsz": args.imgsz,
            "names": names,
            "input": "rgb",
            "letterbox_pad": 114,
            "output": "yolo",
            "conf": args.conf,
            "iou": args.iou,
            "contain": args.contain,
            "score": args.score,
            **({"weak_conf": args.weak_conf} if args.weak_conf > 0 else {}),
            **({"bonus_conf": args.bonus_conf} if args.bonus_conf is not None else {}),
            **({"row_fill": dict(zip(("min_score", "tolerance", "min_p"), args.row_fill,
                                     strict=True))}
               if args.row_fill is not None else {}),
            "zoom": {
                "below_px": DetectorSpec.zoom_below,
                "min_gain": DetectorSpec.zoom_min_gain,
                "target_px": DetectorSpec.zoom_target,
                "grid": DetectorSpec.zoom_grid,
                "grid_below_px": DetectorSpec.zoom_grid_below,
            },
        },
    )
    if args.classifier:
        target = models / "tiles-cls.onnx"
        size = args.classifier_size
        ship_classifier(args.classifier, target, size)
        blurred = None
        if args.blurred:
            ship_classifier(Path(args.blurred[0]), models / BLURRED_FILE, size)
            blurred = (BLURRED_FILE, float(args.blurred[1]))
        manifest["classifier"] = classifier_entry(
            target.name, size, args.classifier_weight, args.classifier_tta, args.agreed,
            args.more_views_below, args.more_views_max, blurred)
    readers = [
        reader_entry(models / target, names, *settings)
        for target, names, settings in (
            ("tiles-bonus.onnx", BONUS, _reader_settings(args, "reader")),
            ("tiles-glyph.onnx", GLYPHS, _reader_settings(args, "glyph_reader")),
        )
        if settings is not None
    ]
    if readers:
        manifest.pop("reader", None)
        manifest["readers"] = readers
    manifest_path.write_text(json.dumps(manifest, indent=2) + "\n")
    size = (models / FILE).stat().st_size / 2**20
    print(f"wrote {models / FILE} ({size:.1f} MB) and {manifest_path}")


def ship_classifier(source: Path, target: Path, size: int) -> None:
    """Copy a crop classifier ONNX to ``target`` (unless it is that file) and check that it
    reads ``(B, 3, size, size)`` crops into ``(B, 43 * 4)`` logits; exits naming the fault."""
    ship_crop_network(source, target, size, len(CLASSES) * 4, "classifier")


def ship_crop_network(
    source: Path, target: Path, size: int, width: int, what: str, codes: str = ""
) -> None:
    """Copy a crop network's ONNX (a classifier or a reader, ``what``) to ``target``
    (unless it is that file) and check that it reads ``(B, 3, size, size)`` crops into
    ``(B, width)`` logits; exits naming the fault (and ``codes``, when given)."""
    if source.resolve() != target.resolve():
        shutil.copyfile(source, target)
    session = ort.InferenceSession(str(target), providers=["CPUExecutionProvider"])
    probe = np.zeros((2, 3, size, size), np.float32)
    out = session.run(None, {session.get_inputs()[0].name: probe})[0]
    if out.shape != (2, width):
        sys.exit(f"{what} {target.name} output {out.shape} is not (B, {width})"
                 + (f" for {codes}" if codes else ""))


def write_scales_file(
    onnx_path: Path, models: Path, manifest: dict[str, object], version: str, imgsz: int
) -> None:
    """Ship ``onnx_path`` as ``models/tiles-photo.onnx``, the detector of the passes at the
    manifest's other ``scales``, and name it in ``manifest`` (written to
    ``models/manifest.json`` with ``version``); the shipped detector must exist, take the
    same input size and name the same classes."""
    detector = manifest.get("detector")
    if not isinstance(detector, dict) or not (models / str(detector.get("file"))).is_file():
        sys.exit(f"--as-scales-file needs a shipped detector in {models / 'manifest.json'}")
    if detector.get("imgsz") != imgsz or detector.get("names") != list(CLASSES):
        sys.exit(f"--as-scales-file: the shipped detector takes imgsz {detector.get('imgsz')} "
                 f"and its classes; this export is imgsz {imgsz}")
    if not detector.get("scales"):
        print("note: the manifest lists no other 'scales', so the file will not run")
    shutil.copyfile(onnx_path, models / SCALES_FILE)
    detector["scales_file"] = SCALES_FILE
    manifest["version"] = version
    (models / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    size = (models / SCALES_FILE).stat().st_size / 2**20
    print(f"wrote {models / SCALES_FILE} ({size:.1f} MB) as detector.scales_file "
          f"and {models / 'manifest.json'} (version {version})")


def classifier_entry(
    file: str,
    size: int,
    weight: float,
    tta: int,
    agreed: tuple[float, float] | list[float] | None = None,
    more_views_below: float = 0.0,
    more_views_max: int = 0,
    blurred: tuple[str, float] | None = None,
) -> dict[str, object]:
    """The manifest's ``classifier`` object (read by ``vision.manifest``): crops of
    ``size`` px, fused at ``weight``, ``tta`` views; ``agreed`` ``(share, weight)``,
    ``more_views_below`` / ``more_views_max`` and ``blurred`` ``(file, below)`` only when
    given (recipe steps 64, 65 and 67 of models/HISTORY.md).

    >>> e = classifier_entry("tiles-cls.onnx", 64, 0.85, 2, (0.9, 0.7), 0.9, 12)
    >>> e["tta"], e["agreed"], e["more_views_below"], e["more_views_max"]
    (2, {'share': 0.9, 'weight': 0.7}, 0.9, 12)
    >>> "more_views_below" in classifier_entry("tiles-cls.onnx", 64, 0.85, 2)
    False
    >>> classifier_entry("c.onnx", 64, 0.85, 2, blurred=("b.onnx", 0.006))["blurred"]
    {'file': 'b.onnx', 'below': 0.006}
    """
    return {
        "file": file,
        "size": size,
        "names": list(CLASSES),
        "rotations": [0, 90, 180, 270],
        "weight": weight,
        "tta": tta,
        **({"agreed": dict(zip(("share", "weight"), agreed, strict=True))}
           if agreed is not None else {}),
        **({"more_views_below": more_views_below} if more_views_below > 0 else {}),
        **({"more_views_max": more_views_max} if more_views_max > 0 else {}),
        **({"blurred": {"file": blurred[0], "below": blurred[1]}} if blurred else {}),
    }


def _reader_options(ap: argparse.ArgumentParser, name: str, below_p: float, what: str) -> None:
    """``--NAME PATH`` and its manifest settings ``--NAME-size/-weight/-tta/-min-mass/-below-p``."""
    ap.add_argument(f"--{name}", type=Path, help=what)
    ap.add_argument(f"--{name}-size", type=int, default=96, help="crop side, px")
    ap.add_argument(f"--{name}-weight", type=float, default=0.5)
    ap.add_argument(f"--{name}-tta", type=int, choices=(1, 2, 4), default=2)
    ap.add_argument(f"--{name}-min-mass", type=float, default=0.1)
    ap.add_argument(f"--{name}-below-p", type=float, default=below_p,
                    help="look again only at tiles whose top-1 probability is below this")
    ap.add_argument(f"--{name}-blurred", type=Path, metavar="FILE",
                    help="with --blurred: ship FILE beside it as its network for the frames "
                         "the classifier's gate judges smeared (the reader's blurred_file, "
                         "'<reader>-blur.onnx'; recipe step 67)")


def _reader_settings(
    args: argparse.Namespace, key: str
) -> tuple[Path, int, dict[str, float], Path | None] | None:
    """The source file, crop size, manifest settings and network for smeared frames given
    for one reader (None: not given); ``below_p`` is written only when below 1."""
    source = getattr(args, key)
    blurred = getattr(args, f"{key}_blurred")
    flag = "--" + key.replace("_", "-")
    if source is None:
        if blurred is not None:
            sys.exit(f"{flag}-blurred needs {flag}")
        return None
    if blurred is not None and not args.blurred:
        sys.exit(f"{flag}-blurred needs --blurred: the classifier's gate judges which frames "
                 "are smeared")
    settings = {k: getattr(args, f"{key}_{k}") for k in ("weight", "tta", "min_mass")}
    if getattr(args, f"{key}_below_p") < 1:
        settings["below_p"] = getattr(args, f"{key}_below_p")
    return source, getattr(args, f"{key}_size"), settings, blurred


def reader_entry(
    target: Path,
    names: tuple[str, ...],
    source: Path,
    size: int,
    settings: dict[str, float],
    blurred: Path | None = None,
) -> dict[str, object]:
    """Copy a reader from ``source`` to ``target`` beside the detector and return its
    manifest entry (``settings``: weight, tta, min_mass, below_p); with ``blurred``, that
    network too, as ``<target stem>-blur.onnx``, the entry's ``blurred_file``. Each
    one's output width is checked against ``names``."""
    entry: dict[str, object] = {"file": target.name, "size": size, "names": list(names),
                                **settings}
    ship_crop_network(source, target, size, len(names) * 4, "reader", str(list(names)))
    if blurred is not None:
        smeared = target.with_name(f"{target.stem}-blur.onnx")
        ship_crop_network(blurred, smeared, size, len(names) * 4, "reader", str(list(names)))
        entry["blurred_file"] = smeared.name
    return entry


if __name__ == "__main__":
    main()
