"""``train/gpu/pack.py``: the travelling training mix, and its ``--trusted-photos`` choice
(only photos whose original the export left untouched, so that every copy's labels are
the photo's own boxes carried onto it)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

REPO = Path(__file__).resolve().parents[2]

#: the ``photo_and_turned`` fixture of tests/conftest.py
PhotoAndTurned = Callable[[int], tuple[np.ndarray, np.ndarray]]


def _photos(root: Path, photo_and_turned: PhotoAndTurned) -> Path:
    """Stem ``p``: an untouched original and a turned copy; stem ``q``: only a turned copy
    (its corners hold the export's dark fill), so ``q``'s labels cannot be trusted."""
    photo, turned = photo_and_turned(3)
    images, labels = root / "images" / "train", root / "labels" / "train"
    images.mkdir(parents=True)
    labels.mkdir(parents=True)
    for name, image, side in (("p_jpg.rf.a", photo, 0.2), ("p_jpg.rf.b", turned, 0.3),
                              ("q_jpg.rf.c", turned, 0.2)):  # fmt: skip
        cv2.imwrite(str(images / f"{name}.png"), image)
        (labels / f"{name}.txt").write_text(f"0 0.5 0.5 {side} {side}\n")
    yaml = "train: images/train\nval: images/train\nnc: 1\nnames: ['1m']\n"
    (root / "data.yaml").write_text(yaml)
    return root


def _synth(root: Path) -> Path:
    (root / "images").mkdir(parents=True)
    (root / "labels").mkdir()
    cv2.imwrite(str(root / "images" / "s0.png"), np.full((64, 64, 3), 128, np.uint8))
    (root / "labels" / "s0.txt").write_text("0 0.5 0.5 0.25 0.25\n")
    return root


def _pack(tmp_path: Path, photo_and_turned: PhotoAndTurned, *more: str) -> list[str]:
    photos = _photos(tmp_path / "hk", photo_and_turned)
    synth, out = _synth(tmp_path / "sy"), tmp_path / "out"
    run = subprocess.run(
        [sys.executable, "train/gpu/pack.py", str(out), "--photos", str(photos),
         "--synth", str(synth), "--val-synth", f"{synth}:1", "--size", "64", *more],
        capture_output=True, text=True, cwd=REPO, timeout=120,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    names = sorted(p.stem for p in (out / "images" / "train").iterdir())
    for stem in names:  # every packed image keeps its label file
        assert (out / "labels" / "train" / f"{stem}.txt").read_text().startswith("0 ")
    return names


def test_pack_keeps_every_photo_by_default(
    tmp_path: Path, photo_and_turned: PhotoAndTurned
) -> None:
    assert _pack(tmp_path, photo_and_turned) == ["hk-p_jpg-0", "hk-p_jpg-1", "hk-q_jpg-0", "sy-s0"]


def test_trusted_photos_leave_out_photos_whose_original_is_turned(
    tmp_path: Path, photo_and_turned: PhotoAndTurned
) -> None:
    packed = _pack(tmp_path, photo_and_turned, "--trusted-photos")
    assert packed == ["hk-p_jpg-0", "hk-p_jpg-1", "sy-s0"]


def test_degrade_one_changes_every_photo_copy_and_no_synthetic_scene(
    tmp_path: Path, photo_and_turned: PhotoAndTurned
) -> None:
    """``--degrade 1``: each photo copy is written motion-blurred or dim; the labels and
    the synthetic scenes are as without it."""
    plain = _pack(tmp_path / "a", photo_and_turned)
    changed = _pack(tmp_path / "b", photo_and_turned, "--degrade", "1")
    assert plain == changed
    a, b = tmp_path / "a" / "out" / "images" / "train", tmp_path / "b" / "out" / "images" / "train"
    for stem in plain:
        before = cv2.imread(str(a / f"{stem}.webp")).astype(int)
        after = cv2.imread(str(b / f"{stem}.webp")).astype(int)
        differs = np.abs(before - after).mean() > 2.0
        assert differs == stem.startswith("hk-"), stem
