"""The shipped readers (manifest ``readers``) tell their codes apart on clean tile faces.

Each face of a reader's codes in the installed training tile sets is cut the way
:func:`vision.preprocess.crop_batch` cuts a detected tile (the face with a tenth of its
size as border, squashed to the reader's square input) and read with
:func:`vision.postprocess.classify_views`, as :mod:`vision.detect` reads it. Skips with a
reason when the model has no such reader or no tile art is installed; a reader that is
there but blind (chance level) fails.
"""

from __future__ import annotations

import json
from typing import Any

import cv2
import numpy as np
import pytest

from vision.classes import BONUS, GLYPHS
from vision.manifest import MANIFEST, default_model_dir
from vision.postprocess import classify_views

#: Tile sets the readers were trained on that draw their faces legibly as bare faces.
SETS = ("kmahjongg-default", "kmahjongg-traditional", "kmahjongg-jade", "xmahjongg-real")
#: Least share right per reader, well below what the shipped readers read on these faces
#: and far above chance (1 in 8 flowers, 1 in 13 glyphs). 2026-11-30.17: flowers 22 of 32
#: (.15: 23), glyphs 51 of 52.
MIN_RIGHT = {BONUS: 0.4, GLYPHS: 0.6}


def _entries() -> list[dict[str, Any]]:
    manifest = default_model_dir() / MANIFEST
    if not manifest.is_file():
        return []
    data = json.loads(manifest.read_text(encoding="utf-8"))
    return list(data.get("readers") or ([data["reader"]] if data.get("reader") else []))


def _reader(names: tuple[str, ...]) -> tuple[Any, dict[str, Any]]:
    model_dir = default_model_dir()
    entry = next((e for e in _entries() if tuple(e["names"]) == names), None)
    if entry is None or not (model_dir / entry["file"]).is_file():
        pytest.skip(f"the model in {model_dir} has no reader of {', '.join(names)}")
    import onnxruntime as ort

    session = ort.InferenceSession(
        str(model_dir / entry["file"]), providers=["CPUExecutionProvider"]
    )
    return session, entry


def _face_crops(size: int, names: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Crops ``(n, 3, size, size)`` of every face of ``names`` in :data:`SETS` installed
    here, and their indices in ``names``."""
    try:
        from vision.synth.art import ArtError, available_sets, load_art
    except ImportError as exc:
        pytest.skip(f"synthetic data generator not available ({exc})")
    crops, truth = [], []
    for set_name in (n for n in SETS if n in available_sets()):
        try:
            art = load_art(set_name)
        except ArtError:
            continue
        for i, code in enumerate(names):
            face = art.faces[code][0]
            h, w = face.shape[:2]
            m = max(h, w) // 10
            framed = np.full((h + 2 * m, w + 2 * m, 3), 60, np.uint8)
            framed[m : m + h, m : m + w] = face
            square = cv2.resize(framed, (size, size), interpolation=cv2.INTER_AREA)
            crops.append(square.transpose(2, 0, 1).astype(np.float32) / 255)
            truth.append(i)
    if not crops:
        pytest.skip("none of the tile sets the readers were trained on is installed")
    return np.stack(crops), np.array(truth)


@pytest.mark.parametrize(
    "names", [BONUS, GLYPHS], ids=["bonus tiles: which flower or season", "characters and winds"]
)
def test_reader_reads_its_codes(names: tuple[str, ...]) -> None:
    session, entry = _reader(names)
    crops, truth = _face_crops(int(entry["size"]), names)
    name = session.get_inputs()[0].name
    probs, _ = classify_views(
        lambda b: session.run(None, {name: b})[0], crops, len(names), int(entry.get("tta", 1))
    )
    right = float((probs.argmax(axis=1) == truth).mean())
    assert right >= MIN_RIGHT[names], f"right on only {right:.0%} of {len(truth)} faces"
