"""``train/fit_tightening.py``: on a photo whose untouched original is kept, rebuilding its
copies' boxes from the turned copies alone fits the truth better than carrying the
tightest turned copy's boxes, and the fitted side factors shrink (the generated export's
boxes hold their tiles exactly, so the inscribed box of their intersection, grown by
``DILATE_PX``, is no smaller than the tile)."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import cv2

from vision.data.photos import format_labels, prepare_photos

REPO = Path(__file__).resolve().parents[2]


def _fixture() -> ModuleType:
    """The generated export of ``tests/vision/test_tighten.py`` (a photo turned in two steps)."""
    path = REPO / "tests" / "vision" / "test_tighten.py"
    spec = importlib.util.spec_from_file_location("tighten_fixture", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_tightening_beats_carrying_where_the_truth_is_known(
    tmp_path: Path, train_module: Callable[[str], ModuleType]
) -> None:
    fx = _fixture()
    src = tmp_path / "hk"
    (src / "images").mkdir(parents=True)
    (src / "labels").mkdir(parents=True)
    (src / "classes.yaml").write_text(f"names: {fx.NAMES}\n")
    image, boxes = fx._photo()
    turns = {"a": (0.0, 0.0), **{k: fx.TURNS[k] for k in "bcde"}}  # a: the photo as taken
    for key, pair in turns.items():
        copy, grown, _ = fx._export(image, boxes, pair)
        cv2.imwrite(str(src / "images" / f"p_jpg.rf.{key}.png"), copy)
        (src / "labels" / f"p_jpg.rf.{key}.txt").write_text(format_labels(fx._labels(grown)))
    prepare_photos(src, tmp_path / "build", val_fraction=0.0)
    out = train_module("fit_tightening").run(tmp_path / "build", src)
    assert out["photos"] == 1 and out["fit_tiles"] == 6
    assert 0.5 < out["fitted_long_scale"] <= 1.02 and 0.5 < out["fitted_short_scale"] <= 1.02
    before, after = out["train other copies before"], out["train other copies tightened"]
    assert after["tiles"] == before["tiles"] > 0
    assert after["median_iou"] > before["median_iou"] + 0.05
