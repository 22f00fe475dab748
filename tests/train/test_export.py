"""``train/export.py``: a second detector shipped beside the first (``--as-scales-file``),
the classifier's settings, and a reader's network for smeared frames."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

from vision.classes import CLASSES
from vision.manifest import read_manifest


def _models(tmp_path: Path, imgsz: int = 512) -> Path:
    models = tmp_path / "models"
    models.mkdir()
    (models / "tilecam-tiles-yolo11n.onnx").write_bytes(b"first detector")
    manifest = {
        "name": "tilecam-tiles-yolo11n",
        "version": "old",
        "detector": {"file": "tilecam-tiles-yolo11n.onnx", "imgsz": imgsz,
                     "names": list(CLASSES), "conf": 0.4, "scales": [384]},
        "calibration": {"features": ["log_reading"], "coef": [1.0], "intercept": 0.0},
    }  # fmt: skip
    (models / "manifest.json").write_text(json.dumps(manifest))
    return models


def test_as_scales_file_names_the_photo_detector_and_keeps_the_rest(
    tmp_path: Path, train_module: Callable[[str], ModuleType]
) -> None:
    """Model card recipe step 44: the export becomes ``tiles-photo.onnx``, the manifest's
    ``detector.scales_file``; version changes; every other entry (the first detector, its
    settings, the calibration) stays as it was, and the inference side reads it."""
    export = train_module("export")
    models = _models(tmp_path)
    before = json.loads((models / "manifest.json").read_text())
    onnx = tmp_path / "epoch1.onnx"
    onnx.write_bytes(b"photo detector")
    export.write_scales_file(onnx, models, copy.deepcopy(before), "2026-12-02.26", 512)
    after = json.loads((models / "manifest.json").read_text())
    assert (models / "tiles-photo.onnx").read_bytes() == b"photo detector"
    assert after["version"] == "2026-12-02.26"
    assert after["detector"].pop("scales_file") == "tiles-photo.onnx"
    assert {k: v for k, v in after.items() if k != "version"} == {
        k: v for k, v in before.items() if k != "version"
    }
    assert read_manifest(models)[0].scales_file == models / "tiles-photo.onnx"


def test_as_scales_file_refuses_an_export_at_another_input_size(
    tmp_path: Path, train_module: Callable[[str], ModuleType]
) -> None:
    """The two detectors share the manifest's ``imgsz`` and classes: a mismatch is an error
    naming both sizes, and nothing is written."""
    export = train_module("export")
    models = _models(tmp_path, imgsz=640)
    onnx = tmp_path / "epoch1.onnx"
    onnx.write_bytes(b"photo detector")
    manifest = json.loads((models / "manifest.json").read_text())
    with pytest.raises(SystemExit, match=r"imgsz 640.*imgsz 512"):
        export.write_scales_file(onnx, models, manifest, "new", 512)
    assert not (models / "tiles-photo.onnx").exists()
    assert json.loads((models / "manifest.json").read_text())["version"] == "old"


def test_classifier_entry_carries_more_views_for_unsure_crops(
    tmp_path: Path, train_module: Callable[[str], ModuleType]
) -> None:
    """Model card recipe step 65: ``--more-views-below 0.9 --more-views-max 12`` write the
    classifier's ``more_views_below`` and ``more_views_max``, which the inference side
    reads back; 0 leaves them out (never / no bound)."""
    export = train_module("export")
    models = _models(tmp_path)
    manifest = json.loads((models / "manifest.json").read_text())
    manifest["classifier"] = export.classifier_entry("tiles-cls.onnx", 64, 0.85, 2,
                                                     (0.9, 0.7), 0.9, 12)
    (models / "manifest.json").write_text(json.dumps(manifest))
    _, cls, _ = read_manifest(models)
    assert cls is not None
    assert (cls.tta, cls.more_views_below, cls.more_views_max) == (2, 0.9, 12)
    assert "more_views_below" not in export.classifier_entry("tiles-cls.onnx", 64, 0.85, 2)


SHIPPED = Path(__file__).resolve().parents[2] / "models"


def test_a_readers_blurred_network_ships_beside_it_as_its_blurred_file(
    tmp_path: Path, train_module: Callable[[str], ModuleType]
) -> None:
    """Recipe step 67 (.34): ``--glyph-reader-blurred FILE`` ships FILE as
    ``tiles-glyph-blur.onnx`` and names it the reader's ``blurred_file``, which the
    inference side reads (with the classifier's ``blurred`` entry)."""
    from vision.classes import GLYPHS

    export = train_module("export")
    models = _models(tmp_path)
    entry = export.reader_entry(models / "tiles-glyph.onnx", GLYPHS,
                                SHIPPED / "tiles-glyph.onnx", 96, {"weight": 0.5},
                                SHIPPED / "tiles-glyph-blur.onnx")
    assert entry["blurred_file"] == "tiles-glyph-blur.onnx"
    shipped = (SHIPPED / "tiles-glyph-blur.onnx").read_bytes()
    assert (models / "tiles-glyph-blur.onnx").read_bytes() == shipped
    manifest = json.loads((models / "manifest.json").read_text())
    manifest["classifier"] = export.classifier_entry("tiles-cls.onnx", 64, 0.85, 2,
                                                     blurred=("tiles-cls-blur.onnx", 0.006))
    manifest["readers"] = [entry]
    (models / "manifest.json").write_text(json.dumps(manifest))
    _, cls, _ = read_manifest(models)
    assert cls is not None and cls.readers[0].blurred_file == models / "tiles-glyph-blur.onnx"
    plain = export.reader_entry(models / "tiles-glyph.onnx", GLYPHS,
                                SHIPPED / "tiles-glyph.onnx", 96, {"weight": 0.5})
    assert "blurred_file" not in plain


def test_a_readers_blurred_network_for_other_codes_is_refused(
    tmp_path: Path, train_module: Callable[[str], ModuleType]
) -> None:
    """The network for smeared frames must read the reader's codes: the bonus reader's
    8 codes offered as the glyph reader's 13 is an error naming the file."""
    from vision.classes import GLYPHS

    export = train_module("export")
    models = _models(tmp_path)
    with pytest.raises(SystemExit, match=r"tiles-glyph-blur\.onnx output \(2, 32\)"):
        export.reader_entry(models / "tiles-glyph.onnx", GLYPHS, SHIPPED / "tiles-glyph.onnx",
                            96, {"weight": 0.5}, SHIPPED / "tiles-bonus.onnx")


def test_a_readers_blurred_network_needs_the_reader_and_the_classifiers_gate(
    train_module: Callable[[str], ModuleType]
) -> None:
    """``--glyph-reader-blurred`` alone, or without ``--blurred`` (whose gate judges which
    frames are smeared), stops with a message naming what is missing."""
    import argparse

    export = train_module("export")
    base = {"glyph_reader_size": 96, "glyph_reader_weight": 0.5, "glyph_reader_tta": 2,
            "glyph_reader_min_mass": 0.1, "glyph_reader_below_p": 0.9}
    alone = argparse.Namespace(glyph_reader=None, glyph_reader_blurred=Path("g.onnx"),
                               blurred=None, **base)
    with pytest.raises(SystemExit, match=r"needs --glyph-reader$"):
        export._reader_settings(alone, "glyph_reader")
    ungated = argparse.Namespace(glyph_reader=Path("r.onnx"), glyph_reader_blurred=Path("g.onnx"),
                                 blurred=None, **base)
    with pytest.raises(SystemExit, match="needs --blurred"):
        export._reader_settings(ungated, "glyph_reader")
    gated = argparse.Namespace(glyph_reader=Path("r.onnx"), glyph_reader_blurred=Path("g.onnx"),
                               blurred=["b.onnx", "0.006"], **base)
    source, size, settings, blurred = export._reader_settings(gated, "glyph_reader")
    assert (source, size, blurred) == (Path("r.onnx"), 96, Path("g.onnx"))
    assert settings["below_p"] == 0.9
