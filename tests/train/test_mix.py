"""``train/mix.py``: the training list and what training validates on (no torch needed)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _tree(root: Path, split_files: dict[str, list[str]]) -> None:
    for split, names in split_files.items():
        (root / "images" / split).mkdir(parents=True, exist_ok=True)
        (root / "labels" / split).mkdir(parents=True, exist_ok=True)
        for name in names:
            (root / "images" / split / name).write_bytes(b"jpeg")
            (root / "labels" / split / (Path(name).stem + ".txt")).write_text("0 .5 .5 .1 .1\n")


def _mix(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(REPO / "train" / "mix.py"), *args],
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_mix_takes_copies_per_photo_and_validates_on_held_out_synthetic_art(
    tmp_path: Path,
) -> None:
    """Rule: at most N copies of each real photo; with --val-synth the run validates on the
    held-out synthetic scenes, never on the real val photos the model card reports."""
    photos, synth, held = tmp_path / "photos", tmp_path / "synth", tmp_path / "held"
    _tree(photos, {
        "train": [f"a_jpg.rf.{i}.jpg" for i in range(5)] + ["b_jpg.rf.0.jpg"],
        "val": ["v_jpg.rf.0.jpg"],
    })  # fmt: skip
    for folder, count in ((synth, 4), (held, 3)):
        (folder / "images").mkdir(parents=True)
        (folder / "labels").mkdir()
        for i in range(count):
            (folder / "images" / f"{i:06d}.jpg").write_bytes(b"jpeg")
            (folder / "labels" / f"{i:06d}.txt").write_text("0 .5 .5 .1 .1\n")
    out = tmp_path / "mix.yaml"
    r = _mix(str(out), "--photos", str(photos), "--copies-per-stem", "2", "--synth", str(synth),
             "--synth-count", "3", "--val-synth", str(held), "--val-count", "2")  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert "3 photo copies + 3 synthetic scenes" in r.stdout  # a: 2 of 5, b: 1
    train = out.with_suffix(".txt").read_text().split()
    assert sum("a_jpg" in p for p in train) == 2 and sum("b_jpg" in p for p in train) == 1
    val_line = next(line for line in out.read_text().splitlines() if line.startswith("val:"))
    val = Path(val_line.split(": ", 1)[1]).read_text().split()
    assert val == [str(held.resolve() / "images" / f"{i:06d}.jpg") for i in range(2)]
    assert "nc: 43" in out.read_text()


def test_mix_without_val_synth_validates_on_the_real_val_split(tmp_path: Path) -> None:
    photos = tmp_path / "photos"
    _tree(photos, {"train": ["a_jpg.rf.0.jpg"], "val": ["v_jpg.rf.0.jpg"]})
    out = tmp_path / "mix.yaml"
    assert _mix(str(out), "--photos", str(photos)).returncode == 0
    assert f"val: {photos.resolve() / 'images' / 'val'}" in out.read_text()


def test_mix_names_a_missing_synthetic_folder(tmp_path: Path) -> None:
    photos = tmp_path / "photos"
    _tree(photos, {"train": ["a_jpg.rf.0.jpg"], "val": []})
    r = _mix(str(tmp_path / "m.yaml"), "--photos", str(photos), "--val-synth", str(tmp_path / "no"))
    assert r.returncode != 0 and "no images under" in r.stderr
