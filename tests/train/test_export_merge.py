"""``train/export.py`` into a folder that already has a manifest (review s69, findings 2-4
and 12): every setting no flag changes is carried over, a calibration needs an explicit
choice, and the folder is written through a checked copy, so a failed export leaves it
as it was. No torch: the detector ONNX is a stand-in file (the runtime's manifest reader
does not open it); the crop networks are the shipped ones."""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

from vision.classes import CLASSES
from vision.manifest import read_manifest

SHIPPED = Path(__file__).resolve().parents[2] / "models"

#: the model card's stage F export into a candidate copy (recipe step 22), with today's
#: flags; the folder is a copy of the shipped models/
STAGE_F = ["runs/tilesF/weights/last.pt", "--imgsz", "512", "--dynamic", "--version",
           "2026-12-06.99", "--conf", "0.4", "--classifier", "CLS", "--classifier-size", "64",
           "--classifier-weight", "0.85", "--classifier-tta", "2", "--calibration", "drop"]


def _folder(tmp_path: Path) -> Path:
    models = tmp_path / "m"
    models.mkdir()
    for f in SHIPPED.iterdir():
        if f.suffix in (".onnx", ".json"):
            shutil.copyfile(f, models / f.name)
    return models


def _digest(folder: Path) -> dict[str, str]:
    return {f.name: hashlib.sha256(f.read_bytes()).hexdigest() for f in sorted(folder.iterdir())}


def _plan(export: ModuleType, models: Path, argv: list[str]) -> tuple[object, dict, list[str]]:
    ap = export.build_parser()
    argv = [a.replace("CLS", str(models / "tiles-cls.onnx")) for a in argv]
    argv += ["--models", str(models)]
    args = ap.parse_args(argv)
    old = json.loads((models / "manifest.json").read_text())
    manifest, notes = export.merged_manifest(old, args, export.given_options(ap, argv),
                                             list(CLASSES))
    return args, manifest, notes


def test_a_detector_export_keeps_every_setting_no_flag_changes(
    tmp_path: Path, train_module: Callable[[str], ModuleType]
) -> None:
    """Findings 2 and 3: the stage F command over a copy of models/ keeps the detector's
    384 px pass, denoise, zoom (below_px 40, not the default 32), weak/bonus/row_fill, the
    classifier's blurred/agreed/more_views entries and both readers; only the flagged
    values, the version and the networks change; the runtime loads the result."""
    export = train_module("export")
    models = _folder(tmp_path)
    before = json.loads((models / "manifest.json").read_text())
    args, manifest, notes = _plan(export, models, STAGE_F)
    onnx = tmp_path / "new.onnx"
    onnx.write_bytes(b"new detector")
    export.write_models(models, manifest, onnx, args)
    after = json.loads((models / "manifest.json").read_text())
    assert (models / "tilecam-tiles-yolo11n.onnx").read_bytes() == b"new detector"
    assert after["version"] == "2026-12-06.99"
    assert "calibration" not in after
    assert after["detector"] == before["detector"]  # conf 0.4 as before: nothing else moved
    assert after["classifier"] == before["classifier"]
    assert after["readers"] == before["readers"]
    spec, cls, _ = read_manifest(models)
    assert spec.scales == (384,) and spec.zoom_below == 40.0 and spec.denoise_above == 5.5
    assert cls is not None and cls.blurred is not None
    assert any("--event score" in n for n in notes), notes
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".m.")]


def test_flags_change_only_their_own_settings(
    tmp_path: Path, train_module: Callable[[str], ModuleType]
) -> None:
    """``--conf``, ``--weak-conf 0`` and ``--more-views-below 0`` change (or remove)
    their own keys; a reader given alone replaces its entry and keeps the other reader and
    its own ``blurred_file``; without --classifier-size the folder's 64 px is kept."""
    export = train_module("export")
    models = _folder(tmp_path)
    before = json.loads((models / "manifest.json").read_text())
    argv = ["w.pt", "--version", "v", "--imgsz", "512", "--conf", "0.3", "--weak-conf", "0",
            "--classifier", "CLS", "--more-views-below", "0", "--calibration", "keep",
            "--glyph-reader", str(SHIPPED / "tiles-glyph.onnx")]
    _, manifest, _ = _plan(export, models, argv)
    d, c = manifest["detector"], manifest["classifier"]
    assert d["conf"] == 0.3 and "weak_conf" not in d and d["scales"] == [384]
    assert c["size"] == 64 and c["weight"] == 0.85 and c["tta"] == 2
    assert "more_views_below" not in c and c["more_views_max"] == 12 and c["blurred"]
    assert manifest["readers"] == before["readers"]
    assert manifest["calibration"] == before["calibration"]


def test_a_calibrated_folder_needs_a_choice_before_anything_is_exported(
    tmp_path: Path, train_module: Callable[[str], ModuleType]
) -> None:
    """The calibration was fitted for the networks the export replaces: without
    ``--calibration drop|keep`` the export stops (before the slow ONNX export)."""
    export = train_module("export")
    models = _folder(tmp_path)
    argv = [a for a in STAGE_F if a not in ("--calibration", "drop")]
    with pytest.raises(SystemExit, match="--calibration drop"):
        _plan(export, models, argv)


def test_a_failed_export_leaves_the_folder_as_it_was(
    tmp_path: Path, train_module: Callable[[str], ModuleType]
) -> None:
    """Finding 4: a 64 px classifier shipped as 48 px crops fails its check; the folder
    keeps its old detector and manifest byte for byte and no staging folder is left."""
    export = train_module("export")
    models = _folder(tmp_path)
    before = _digest(models)
    argv = [a if a != "64" else "48" for a in STAGE_F]
    args, manifest, _ = _plan(export, models, argv)
    onnx = tmp_path / "new.onnx"
    onnx.write_bytes(b"new detector")
    with pytest.raises(SystemExit, match=r"(?s)48 px crops.*left as it was"):
        export.write_models(models, manifest, onnx, args)
    assert _digest(models) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m", "new.onnx"]


def test_a_broken_mix_is_refused_and_nothing_written(
    tmp_path: Path, train_module: Callable[[str], ModuleType]
) -> None:
    """A manifest the runtime would refuse (here a reader's blurred_file whose classifier
    lost its ``blurred`` gate) stops the export with the reader's message; untouched."""
    export = train_module("export")
    models = _folder(tmp_path)
    args, manifest, _ = _plan(export, models, STAGE_F)
    del manifest["classifier"]["blurred"]
    before = _digest(models)
    onnx = tmp_path / "new.onnx"
    onnx.write_bytes(b"new detector")
    with pytest.raises(SystemExit, match=r"blurred.*left as it was"):
        export.write_models(models, manifest, onnx, args)
    assert _digest(models) == before


def test_a_new_folder_is_made_whole(
    tmp_path: Path, train_module: Callable[[str], ModuleType]
) -> None:
    """A folder that does not exist yet (train/pipeline.sh's run folder) gets the detector,
    the classifier and the readers with the flags' values, and loads."""
    export = train_module("export")
    models = tmp_path / "run" / "models"
    ap = export.build_parser()
    argv = ["w.pt", "--version", "v", "--imgsz", "512", "--models", str(models),
            "--classifier", str(SHIPPED / "tiles-cls.onnx"), "--classifier-weight", "0.85",
            "--reader", str(SHIPPED / "tiles-bonus.onnx"),
            "--glyph-reader", str(SHIPPED / "tiles-glyph.onnx")]
    args = ap.parse_args(argv)
    manifest, _ = export.merged_manifest({}, args, export.given_options(ap, argv),
                                         list(CLASSES))
    onnx = tmp_path / "new.onnx"
    onnx.write_bytes(b"new detector")
    export.write_models(models, manifest, onnx, args)
    _, cls, _ = read_manifest(models)
    assert cls is not None and cls.size == 64 and len(cls.readers) == 2
    assert [r["file"] for r in manifest["readers"]] == ["tiles-bonus.onnx", "tiles-glyph.onnx"]


def test_given_options_tells_flags_from_defaults(
    train_module: Callable[[str], ModuleType]
) -> None:
    export = train_module("export")
    ap = export.build_parser()
    given = export.given_options(ap, ["w.pt", "--version", "v", "--classifier-s=64"])
    assert given == {"weights", "version", "classifier_size"}
    assert ap.parse_args(["w.pt", "--version", "v"]).classifier_size == 64  # defaults back


def test_a_folder_named_through_a_symbolic_link_is_written_where_the_link_points(
    tmp_path: Path, train_module: Callable[[str], ModuleType]
) -> None:
    """Diff review: an export into a symlinked models folder swapped a folder in for the
    link, then crashed cleaning up. The link stays a link, and its folder gets the files."""
    export = train_module("export")
    real = tmp_path / "real"
    real.mkdir()
    (real / "keep.txt").write_text("kept")
    link = tmp_path / "models"
    link.symlink_to(real, target_is_directory=True)
    with export.staged(link) as stage:
        (stage / "new.txt").write_text("new")
    assert link.is_symlink() and (real / "new.txt").read_text() == "new"
    assert (real / "keep.txt").read_text() == "kept"
