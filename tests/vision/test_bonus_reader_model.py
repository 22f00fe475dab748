"""The shipped bonus-tile reader (manifest ``reader``) tells the eight flowers apart.

Each of the eight bonus faces of the installed training tile sets is cut the way
:func:`vision.preprocess.crop_batch` cuts a detected tile (the face with a tenth of its
size as border, squashed to the reader's square input) and read with
:func:`vision.postprocess.classify_views`, as :mod:`vision.detect` reads it. Skips with a
reason when the model has no reader or no tile art is installed; a reader that is there but
blind (one flower in eight) fails.
"""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from vision.classes import BONUS
from vision.detect import MANIFEST, default_model_dir
from vision.postprocess import classify_views

#: Below what the shipped reader reads on these faces (2026-11-30.16: 22 of 32 flowers on
#: kmahjongg-default, -traditional, -jade and xmahjongg-real; .15: 23); chance is 1 in 8.
MIN_RIGHT = 0.4
#: Tile sets whose flowers the reader was trained on and draws legibly as bare faces.
SETS = ("kmahjongg-default", "kmahjongg-traditional", "kmahjongg-jade", "xmahjongg-real")


@pytest.fixture(scope="module")
def reader() -> tuple[object, dict[str, object]]:
    model_dir = default_model_dir()
    manifest = model_dir / MANIFEST
    entry = None
    if manifest.is_file():
        entry = json.loads(manifest.read_text(encoding="utf-8")).get("reader")
    if not entry or not (model_dir / entry["file"]).is_file():
        pytest.skip(f"the model in {model_dir} has no bonus-tile reader")
    import onnxruntime as ort

    session = ort.InferenceSession(
        str(model_dir / entry["file"]), providers=["CPUExecutionProvider"]
    )
    return session, entry


def _face_crops(size: int) -> tuple[np.ndarray, np.ndarray]:
    """Crops ``(n, 3, size, size)`` of every bonus face of :data:`SETS` installed here, and
    their indices in :data:`BONUS`."""
    try:
        from vision.synth.art import ArtError, available_sets, load_art
    except ImportError as exc:
        pytest.skip(f"synthetic data generator not available ({exc})")
    crops, truth = [], []
    for name in (n for n in SETS if n in available_sets()):
        try:
            art = load_art(name)
        except ArtError:
            continue
        for i, code in enumerate(BONUS):
            face = art.faces[code][0]
            h, w = face.shape[:2]
            m = max(h, w) // 10
            framed = np.full((h + 2 * m, w + 2 * m, 3), 60, np.uint8)
            framed[m : m + h, m : m + w] = face
            square = cv2.resize(framed, (size, size), interpolation=cv2.INTER_AREA)
            crops.append(square.transpose(2, 0, 1).astype(np.float32) / 255)
            truth.append(i)
    if not crops:
        pytest.skip("none of the tile sets the reader was trained on is installed")
    return np.stack(crops), np.array(truth)


def test_reader_reads_which_flower_or_season(reader: tuple[object, dict[str, object]]) -> None:
    session, entry = reader
    assert entry["names"] == list(BONUS)
    crops, truth = _face_crops(int(entry["size"]))  # type: ignore[call-overload]
    name = session.get_inputs()[0].name  # type: ignore[attr-defined]
    probs, _ = classify_views(
        lambda b: session.run(None, {name: b})[0],  # type: ignore[attr-defined]
        crops,
        len(BONUS),
        int(entry.get("tta", 1)),  # type: ignore[call-overload]
    )
    right = float((probs.argmax(axis=1) == truth).mean())
    assert right >= MIN_RIGHT, f"flowers right on only {right:.0%} of {len(truth)} faces"
