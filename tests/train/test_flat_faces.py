"""Numbered faces cut flat (train/classifier/flat_faces.py), the bonus reader's diagnostic
crops: a face turned a quarter lies turned in its crop, and the script writes every bonus
code twice per style with its rotation."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

pytest.importorskip("PIL", reason="procedural art needs Pillow (dev extra)")

from vision.classes import BONUS, class_id
from vision.synth import procedural as proc

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "train" / "classifier" / "flat_faces.py"


@pytest.fixture(scope="module")
def flat(train_module: Callable[[str], ModuleType]) -> ModuleType:
    return train_module("classifier/flat_faces")


def test_a_face_turned_a_quarter_lies_turned_in_its_crop(flat: ModuleType) -> None:
    face = np.full((160, 120, 3), 255, np.uint8)
    face[:40, :30] = 0  # a mark in the face's top-left corner
    upright = flat.flat_crop(face, 0, 80, (128, 128, 128), 0.0, 96)
    turned = flat.flat_crop(face, 1, 80, (128, 128, 128), 0.0, 96)
    dark_up = np.argwhere(upright[0] < 60).mean(axis=0)
    dark_turned = np.argwhere(turned[0] < 60).mean(axis=0)
    assert dark_up[0] < 48 and dark_up[1] < 48  # top left
    assert dark_turned[0] < 48 and dark_turned[1] > 48  # clockwise: top right


@pytest.mark.skipif(not proc.usable_fonts(), reason="no CJK font installed")
def test_every_bonus_code_twice_per_style_with_its_rotation(tmp_path: Path) -> None:
    out = tmp_path / "flat.npz"
    run = subprocess.run([sys.executable, str(SCRIPT), str(out), "--styles", "2", "--seed", "3",
                          "--size", "48"], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    with np.load(out) as d:
        assert d["crops"].shape == (32, 3, 48, 48) and d["crops"].dtype == np.uint8
        assert sorted(set(d["classes"].tolist())) == sorted(class_id(c) for c in BONUS)
        assert np.bincount(d["classes"]).max() == 4  # 2 styles x 2 turns
        assert set(d["rotations"].tolist()) <= {0, 1, 2, 3}
