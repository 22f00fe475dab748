"""The shipped crop classifier reads tiles rendered in the test: right codes, right rotations.

Crops are cut from synthetic hand scenes (held-out art when installed) at their true boxes
with :func:`vision.preprocess.crop_batch`, exactly as :mod:`vision.detect` cuts them, and
decoded with :func:`vision.postprocess.decode_classifier`. The classifier is the manifest's
``classifier`` entry, else ``models/tiles-cls.onnx``; the test skips with a reason when
neither is there or no tile art is installed. A model that is there but blind fails.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from vision.classes import CLASSES
from vision.detections import ROTATIONS
from vision.manifest import MANIFEST, default_model_dir
from vision.postprocess import decode_classifier
from vision.preprocess import crop_batch

#: Smoke thresholds below what the shipped classifier reads on these held-out-art scenes
#: (2026-11-29: codes 41 % of 63 tiles, rotation 89 %, quarter-turned rotation 90 %); a
#: blind model reads codes 1 in 43 and rotations 1 in 4.
MIN_CODE_RIGHT = 0.3
MIN_ROTATION_RIGHT = 0.75
SHIPPED_FILE = "tiles-cls.onnx"

Scene = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]


def _classifier_file() -> Path | None:
    """The classifier ONNX the manifest names, else the shipped file when present."""
    model_dir = default_model_dir()
    manifest = model_dir / MANIFEST
    if manifest.is_file():
        entry = json.loads(manifest.read_text(encoding="utf-8")).get("classifier")
        if entry and (model_dir / entry["file"]).is_file():
            return model_dir / str(entry["file"])
    path = model_dir / SHIPPED_FILE
    return path if path.is_file() else None


@pytest.fixture(scope="module")
def session() -> object:
    path = _classifier_file()
    if path is None:
        pytest.skip(f"no crop classifier in {default_model_dir()} ({SHIPPED_FILE} missing)")
    import onnxruntime as ort

    return ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])


@pytest.fixture(scope="module")
def scenes() -> list[Scene]:
    """Four 960×720 hand scenes: BGR image, true boxes (n, 4), class ids (n,), rotation
    indices (n,) (0..3 clockwise quarter turns; -1 for face-down tiles)."""
    try:
        from vision.synth.art import HELD_OUT, ArtError, available_sets, default_sets, load_art
        from vision.synth.scene import SceneOptions, class_of, render_scene
    except ImportError as exc:
        pytest.skip(f"synthetic data generator not available ({exc})")
    try:
        names = [HELD_OUT] if HELD_OUT in available_sets() else default_sets()[:1]
        art = load_art(names[0])
    except (ArtError, IndexError) as exc:
        pytest.skip(f"no tile art installed for the synthetic scenes ({exc})")
    opts = SceneOptions(width=960, height=720, hand_prob=1.0, extras_prob=0.0, min_tile_px=36)
    out = []
    for i in range(4):
        result = render_scene(art, np.random.default_rng([5, i]), opts)
        tiles = result.truth["tiles"]
        boxes = np.array([t["box"] for t in tiles], np.float32).reshape(-1, 4)
        ids = np.array([class_of(t) for t in tiles], np.int64)
        rots = np.array([-1 if t["face_down"] else t["rotation"] // 90 for t in tiles], np.int64)
        out.append((np.ascontiguousarray(result.image[..., ::-1]), boxes, ids, rots))
    return out


def _predict(session: object, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Class ids and rotation indices the classifier reads from ``crops (B, 3, S, S)``."""
    name = session.get_inputs()[0].name  # type: ignore[attr-defined]
    logits = session.run(None, {name: crops})[0]  # type: ignore[attr-defined]
    cls, rot = decode_classifier(logits, len(CLASSES))
    return cls.argmax(axis=1), rot.argmax(axis=1)


def _crops(session: object, scenes: list[Scene]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    size = int(session.get_inputs()[0].shape[2])  # type: ignore[attr-defined]
    crops = np.concatenate([crop_batch(img, boxes, size) for img, boxes, _, _ in scenes])
    ids = np.concatenate([s[2] for s in scenes])
    rots = np.concatenate([s[3] for s in scenes])
    return crops, ids, rots


def test_classifier_output_is_class_times_rotation_logits(session: object) -> None:
    size = int(session.get_inputs()[0].shape[2])  # type: ignore[attr-defined]
    x = np.random.default_rng(0).random((3, 3, size, size), dtype=np.float32)
    name = session.get_inputs()[0].name  # type: ignore[attr-defined]
    assert session.run(None, {name: x})[0].shape == (3, len(CLASSES) * len(ROTATIONS))  # type: ignore[attr-defined]


def test_classifier_reads_codes_of_rendered_tiles(session: object, scenes: list[Scene]) -> None:
    crops, ids, _ = _crops(session, scenes)
    got, _ = _predict(session, crops)
    assert len(ids) > 20
    right = float((got == ids).mean())
    assert right >= MIN_CODE_RIGHT, f"codes right on only {right:.0%} of {len(ids)} tiles"


def test_classifier_reads_clockwise_rotation_of_rendered_tiles(
    session: object, scenes: list[Scene]
) -> None:
    crops, _, rots = _crops(session, scenes)
    face_up = rots >= 0
    _, got = _predict(session, crops[face_up])
    right = float((got == rots[face_up]).mean())
    assert right >= MIN_ROTATION_RIGHT, f"rotation right on only {right:.0%}"


def test_quarter_turn_of_the_crop_turns_the_rotation(session: object, scenes: list[Scene]) -> None:
    """Turning a crop a quarter counter-clockwise moves the tile's clockwise rotation back
    by 90°: the rotation output follows the image, not the tile code."""
    crops, _, rots = _crops(session, scenes)
    face_up = rots >= 0
    turned = np.ascontiguousarray(np.rot90(crops[face_up], 1, axes=(2, 3)))
    _, got = _predict(session, turned)
    right = float((got == (rots[face_up] - 1) % 4).mean())
    assert right >= MIN_ROTATION_RIGHT, f"turned rotation right on only {right:.0%}"
