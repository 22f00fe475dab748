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

The target folder (``--models``; without it the shipped ``models/``, announced) keeps every
entry and setting of its manifest that no flag changes: the detector's ``scales``,
``scales_file``, ``denoise``, ``zoom``, ``weak_conf``, ...; the classifier's ``agreed``,
``more_views_*`` and ``blurred`` (and its ``size``, ``weight``, ``tta`` unless flagged);
the readers not given, and a given reader's settings and ``blurred_file``. A manifest with
a calibration (fitted for the networks this replaces) needs ``--calibration drop`` (the
refit commands are printed) or ``--calibration keep``. Everything is written into a copy
of the folder beside it and checked there (every named file present, each crop network
reading its entry's crop size, the runtime's ``vision.manifest.read_manifest``); only then
is the copy swapped in, so a failed export leaves the folder as it was.
"""

from __future__ import annotations

import argparse
import json
import os
import runpy
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

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

#: the options given on the command line (``train/_options.py``, shared with
#: ``classifier/run_settings.py``; run from its path: ``train`` is no package)
given_options: Callable[[argparse.ArgumentParser, list[str]], set[str]] = runpy.run_path(
    str(Path(__file__).resolve().parent / "_options.py"))["given_options"]


def main() -> None:
    ap = build_parser()
    argv = sys.argv[1:]
    args = ap.parse_args(argv)
    given = given_options(ap, argv)
    models = Path(args.models)
    if "models" not in given:
        print(f"note: no --models, so the shipped folder {models} is the target (a candidate "
              "goes in a copy: --models DIR)")
    old = read_folder_manifest(models)
    if args.as_scales_file:
        check_scales_file(models, old, args.imgsz)
    else:
        manifest, notes = merged_manifest(old, args, given, list(CLASSES))
        for line in notes:
            print(line)
    onnx_path = export_detector(args)
    if args.as_scales_file:
        write_scales_file(onnx_path, models, old, args.version, args.imgsz)
        return
    write_models(models, manifest, onnx_path, args)


def build_parser() -> argparse.ArgumentParser:
    """The command line of this script (see the module doc)."""
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
    ap.add_argument("--classifier-size", type=int, default=64,
                    help="crop side (default: the folder's classifier entry's, else 64)")
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
    ap.add_argument("--calibration", choices=("keep", "drop"),
                    help="what to do with the folder's hand/score calibration, fitted for the "
                         "networks this export replaces: drop it (then refit it: the "
                         "commands are printed) or keep it as it is; required when the "
                         "manifest has one")
    return ap


def read_folder_manifest(models: Path) -> dict[str, Any]:
    """The manifest of the model folder ``models`` ({} when it has none); exits naming the
    file when it cannot be read."""
    path = models / "manifest.json"
    if not path.is_file():
        return {}
    try:
        manifest = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        sys.exit(f"cannot read {path}: {exc}")
    if not isinstance(manifest, dict):
        sys.exit(f"{path}: expected a JSON object")
    return manifest


#: detector settings with an export flag: manifest key -> argparse dest
DETECTOR_FLAGS = {"conf": "conf", "iou": "iou", "contain": "contain", "score": "score",
                  "weak_conf": "weak_conf", "bonus_conf": "bonus_conf", "row_fill": "row_fill"}
#: classifier settings with an export flag (besides the network and ``blurred``)
CLASSIFIER_FLAGS = {"size": "classifier_size", "weight": "classifier_weight",
                    "tta": "classifier_tta", "agreed": "agreed",
                    "more_views_below": "more_views_below", "more_views_max": "more_views_max"}
READERS = (("reader", "tiles-bonus.onnx", BONUS), ("glyph_reader", "tiles-glyph.onnx", GLYPHS))
READER_KEYS = ("size", "weight", "tta", "min_mass", "below_p")


def _flag_value(key: str, value: Any) -> tuple[bool, Any]:
    """(keep?, manifest value) of a detector or classifier flag: 0 or None means "none"
    for the optional keys, which are then left out."""
    if key == "row_fill":
        return value is not None, (dict(zip(("min_score", "tolerance", "min_p"), value,
                                            strict=True)) if value is not None else None)
    if key == "agreed":
        return value is not None, (dict(zip(("share", "weight"), value, strict=True))
                                   if value is not None else None)
    if key in ("weak_conf", "more_views_below", "more_views_max"):
        return value > 0, value
    if key == "bonus_conf":
        return value is not None, value
    return True, value


def _apply_flags(entry: dict[str, Any], flags: dict[str, str], args: argparse.Namespace,
                 given: set[str]) -> None:
    """Set in ``entry`` each setting whose flag was given, and each required one it lacks
    (from the flag's default); the entry's other keys are left as they are."""
    for key, dest in flags.items():
        keep, value = _flag_value(key, getattr(args, dest))
        if dest in given:
            if keep:
                entry[key] = value
            else:
                entry.pop(key, None)
        elif key not in entry and keep and key in ("conf", "iou", "contain", "score", "size",
                                                   "weight", "tta"):
            entry[key] = value


def merged_manifest(
    old: dict[str, Any], args: argparse.Namespace, given: set[str], names: list[str]
) -> tuple[dict[str, Any], list[str]]:
    """The manifest a detector export writes over ``old`` (the target folder's): every
    entry and setting of ``old`` is carried over, and only the networks and the settings
    whose flags are in ``given`` change (``detector.file``/``imgsz``/``names`` always).
    Returns it and the notes to print; exits, before anything is written, where the mix
    would not hold together (naming what it would drop or break)."""
    manifest = json.loads(json.dumps(old))  # a deep copy
    notes: list[str] = []
    detector = dict(manifest.get("detector") or {})
    old_imgsz = detector.get("imgsz")
    if detector.get("scales_file") and old_imgsz not in (None, args.imgsz):
        sys.exit(f"the folder's detector.scales_file {detector['scales_file']} takes imgsz "
                 f"{old_imgsz}; an export at --imgsz {args.imgsz} would break it: export at "
                 f"{old_imgsz}, or remove scales_file from a copy of the folder first")
    detector.update(file=FILE, imgsz=args.imgsz, names=names, input="rgb", letterbox_pad=114,
                    output="yolo")
    _apply_flags(detector, DETECTOR_FLAGS, args, given)
    if "zoom" not in detector:
        detector["zoom"] = {
            "below_px": DetectorSpec.zoom_below,
            "min_gain": DetectorSpec.zoom_min_gain,
            "target_px": DetectorSpec.zoom_target,
            "grid": DetectorSpec.zoom_grid,
            "grid_below_px": DetectorSpec.zoom_grid_below,
        }
    carried = sorted(k for k in detector if k not in (*DETECTOR_FLAGS, "file", "imgsz",
                                                        "names", "input", "letterbox_pad",
                                                        "output"))
    if old.get("detector") and carried:
        notes.append(f"detector settings carried over from the folder: {', '.join(carried)}")
    manifest.update(name="tilecam-tiles-yolo11n", version=args.version, detector=detector)
    _merge_classifier(manifest, args, given, notes)
    _merge_readers(manifest, args, given, notes)
    if "calibration" in manifest:
        if args.calibration is None:
            sys.exit("the folder's manifest has a calibration, fitted for the networks this "
                     "export replaces: add --calibration drop (then refit it) or "
                     "--calibration keep")
        if args.calibration == "drop":
            notes.extend(refit_commands(manifest.pop("calibration"), args.models))
    return manifest, notes


def _merge_classifier(manifest: dict[str, Any], args: argparse.Namespace, given: set[str],
                      notes: list[str]) -> None:
    """:func:`merged_manifest`'s ``classifier`` entry: the folder's, with the network and
    the settings whose flags were given."""
    cls_given = sorted(d for d in (*CLASSIFIER_FLAGS.values(), "blurred") if d in given)
    if args.classifier or cls_given:
        if not args.classifier and not manifest.get("classifier"):
            sys.exit(f"{', '.join('--' + d.replace('_', '-') for d in cls_given)} set the "
                     "classifier's entry, and the folder has none: add --classifier FILE")
        entry = dict(manifest.get("classifier") or {})
        entry.update(file="tiles-cls.onnx" if args.classifier else entry["file"],
                     names=list(CLASSES), rotations=[0, 90, 180, 270])
        _apply_flags(entry, CLASSIFIER_FLAGS, args, given)
        if args.blurred:
            entry["blurred"] = {"file": BLURRED_FILE, "below": float(args.blurred[1])}
        kept = sorted(k for k in ("agreed", "more_views_below", "more_views_max", "blurred")
                      if k in entry and CLASSIFIER_FLAGS.get(k, k) not in given)
        if kept:
            notes.append(f"classifier settings carried over from the folder: {', '.join(kept)}"
                         + (" (blurred: its network was taught on the old classifier)"
                            if "blurred" in kept and args.classifier else ""))
        manifest["classifier"] = entry


def _merge_readers(manifest: dict[str, Any], args: argparse.Namespace, given: set[str],
                   notes: list[str]) -> None:
    """:func:`merged_manifest`'s ``readers``: the folder's, each reader given replacing
    the entry of its file (its settings carried over unless flagged), or added."""
    readers = manifest.pop("readers", None)
    if readers is None and "reader" in manifest:
        readers = [manifest["reader"]]
    new_readers = list(readers or [])
    for key, target, codes in READERS:
        settings = _reader_settings(args, key)
        flag = "--" + key.replace("_", "-")
        stray = [f"{flag}-{k.replace('_', '-')}" for k in READER_KEYS
                 if f"{key}_{k}" in given]
        if settings is None:
            if stray:
                sys.exit(f"{', '.join(stray)} need {flag} (the reader's network)")
            continue
        _, size, values, blurred = settings
        at = next((i for i, r in enumerate(new_readers)
                   if isinstance(r, dict) and r.get("file") == target), None)
        entry = dict(new_readers[at]) if at is not None else {}
        entry.update(file=target, names=list(codes))
        for k in READER_KEYS:
            if f"{key}_{k}" in given or k not in entry:
                value = size if k == "size" else values.get(k)
                if value is not None:
                    entry[k] = value
                elif k == "below_p":
                    entry.pop(k, None)
        if blurred is not None:
            entry["blurred_file"] = f"{Path(target).stem}-blur.onnx"
        elif "blurred_file" in entry:
            notes.append(f"reader {target}: blurred_file {entry['blurred_file']} carried over "
                         "(taught on the old reader)")
        if at is None:
            new_readers.append(entry)
        else:
            new_readers[at] = entry
    if readers is not None or new_readers:
        manifest.pop("reader", None)
        manifest["readers"] = new_readers


def refit_commands(calibration: dict[str, Any], models: str | Path) -> list[str]:
    """The notes printed when ``calibration`` is dropped: the recipe's fits (model card,
    2026-12-05.35) with the dropped fit's own features, the ``score`` fit too if it had one.

    >>> refit_commands({"features": ["a", "b"], "score": {}}, "M")[2].split()[-4:]
    ['b', '--event', 'score', '--write']
    """
    data = ("--data datasets/build/hk-photos --data datasets/generated/synth-val-heldout "
            "--weight synth-val-heldout=3")
    features = " ".join(calibration.get("features") or [])
    base = (f"  .venv/bin/python train/calibrate.py {models} {data}"
            + (f" --features {features}" if features else "") + " --write")
    lines = ["the calibration was dropped: refit it for the new networks with", base]
    if "score" in calibration:
        lines.append(base.replace(" --write", " --event score --write"))
    return lines


def export_detector(args: argparse.Namespace) -> Path:
    """Export ``args.weights`` to ONNX (beside it) and check it against torch; exits when
    it is not tilecam's 43 classes or the outputs differ."""
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
    return onnx_path


def write_models(
    models: Path, manifest: dict[str, Any], onnx_path: Path, args: argparse.Namespace
) -> None:
    """Write the new detector ``onnx_path``, the crop networks ``args`` names and
    ``manifest`` into ``models``: all of it in a copy beside the folder, checked there
    (shapes, the runtime's own manifest reader), and swapped in only when all is well."""
    with staged(models) as stage:
        shutil.copyfile(onnx_path, stage / FILE)
        if args.classifier:
            shutil.copyfile(args.classifier, stage / "tiles-cls.onnx")
        if args.blurred:
            shutil.copyfile(args.blurred[0], stage / BLURRED_FILE)
        for key, target, _ in READERS:
            settings = _reader_settings(args, key)
            if settings is not None:
                shutil.copyfile(settings[0], stage / target)
                if settings[3] is not None:
                    shutil.copyfile(settings[3], stage / f"{Path(target).stem}-blur.onnx")
        (stage / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
        check_folder(stage, models)
    size = (models / FILE).stat().st_size / 2**20
    print(f"wrote {models / FILE} ({size:.1f} MB) and {models / 'manifest.json'} "
          f"(version {manifest.get('version')})")


def check_folder(stage: Path, models: Path) -> None:
    """Exit (naming ``models``, left as it was) unless every file the manifest in ``stage``
    names is there and the runtime's manifest reader accepts it."""
    from vision.manifest import ModelError, read_manifest

    manifest = json.loads((stage / "manifest.json").read_text())
    named = [manifest["detector"].get("file"), manifest["detector"].get("scales_file")]
    cls = manifest.get("classifier") or {}
    named += [cls.get("file"), (cls.get("blurred") or {}).get("file")]
    for r in manifest.get("readers") or [manifest.get("reader") or {}]:
        named += [r.get("file"), r.get("blurred_file")]
    missing = sorted(str(n) for n in named if n and not (stage / str(n)).is_file())
    if missing:
        sys.exit(f"the new manifest names files the folder lacks ({', '.join(missing)}); "
                 f"{models} was left as it was")
    try:
        read_manifest(stage)
    except ModelError as exc:
        sys.exit(f"the new manifest would not load ({exc}); {models} was left as it was")
    # every crop network reads its entry's crops into its codes x 4 rotations
    if cls:
        for name in (cls["file"], (cls.get("blurred") or {}).get("file")):
            if name:
                _check_crop_network(stage / str(name), int(cls["size"]), len(CLASSES) * 4,
                                    "classifier", models)
    for r in manifest.get("readers") or [manifest.get("reader") or {}]:
        for name in (r.get("file"), r.get("blurred_file")):
            if name:
                _check_crop_network(stage / str(name), int(r["size"]), len(r["names"]) * 4,
                                    "reader", models, str(list(r["names"])))


def _check_crop_network(path: Path, size: int, width: int, what: str, models: Path,
                        codes: str = "") -> None:
    """:func:`ship_crop_network`'s check of a file already in place, naming ``models``
    (left as it was) and the entry's crop size when it fails."""
    try:
        ship_crop_network(path, path, size, width, what, codes)
    except SystemExit as exc:
        sys.exit(f"{exc}; {models} was left as it was")
    except Exception as exc:  # onnxruntime: e.g. a fixed input of another size
        sys.exit(f"{what} {path.name} does not read {size} px crops ({exc}); check the "
                 f"crop size flag; {models} was left as it was")


@contextmanager
def staged(models: Path) -> Iterator[Path]:
    """A copy of the folder ``models`` (empty when it does not exist) in a temporary
    folder beside it, to write into; swapped in for ``models`` when the block ends
    normally, removed (``models`` untouched) when it raises or exits. A symbolic link to
    the folder stays one: the folder it names is the one staged and swapped."""
    models = Path(os.path.realpath(models))
    parent = models.parent
    parent.mkdir(parents=True, exist_ok=True)
    stage = Path(tempfile.mkdtemp(prefix=f".{models.name}.new-", dir=parent))
    try:
        if models.is_dir():
            shutil.copytree(models, stage, symlinks=True, dirs_exist_ok=True)
        else:
            stage.chmod(0o777 & ~_umask())
        yield stage
    except BaseException:
        shutil.rmtree(stage, ignore_errors=True)
        raise
    swap_in(stage, models)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def swap_in(stage: Path, models: Path) -> None:
    """Put the folder ``stage`` in the place of ``models`` (two renames on the same file
    system; the old folder is removed after). Should the second rename fail, the old
    folder is put back."""
    if not models.exists():
        stage.rename(models)
        return
    old = Path(tempfile.mkdtemp(prefix=f".{models.name}.old-", dir=models.absolute().parent))
    old.rmdir()
    models.rename(old)
    try:
        stage.rename(models)
    except BaseException:
        old.rename(models)
        raise
    shutil.rmtree(old)


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


def check_scales_file(models: Path, manifest: dict[str, Any], imgsz: int) -> None:
    """Exit unless ``manifest`` (of ``models``) has a shipped detector that takes ``imgsz``
    and tilecam's classes (``--as-scales-file``)."""
    detector = manifest.get("detector")
    if not isinstance(detector, dict) or not (models / str(detector.get("file"))).is_file():
        sys.exit(f"--as-scales-file needs a shipped detector in {models / 'manifest.json'}")
    if detector.get("imgsz") != imgsz or detector.get("names") != list(CLASSES):
        sys.exit(f"--as-scales-file: the shipped detector takes imgsz {detector.get('imgsz')} "
                 f"and its classes; this export is imgsz {imgsz}")


def write_scales_file(
    onnx_path: Path, models: Path, manifest: dict[str, Any], version: str, imgsz: int
) -> None:
    """Ship ``onnx_path`` as ``models/tiles-photo.onnx``, the detector of the passes at the
    manifest's other ``scales``, and name it in ``manifest`` (written to
    ``models/manifest.json`` with ``version``); the shipped detector must exist, take the
    same input size and name the same classes. Written through a copy of the folder,
    swapped in when checked (:func:`staged`)."""
    check_scales_file(models, manifest, imgsz)
    detector = manifest["detector"]
    if not detector.get("scales"):
        print("note: the manifest lists no other 'scales', so the file will not run")
    with staged(models) as stage:
        shutil.copyfile(onnx_path, stage / SCALES_FILE)
        detector["scales_file"] = SCALES_FILE
        manifest["version"] = version
        (stage / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
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
