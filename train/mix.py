"""Write the data.yaml of a training mix: real-photo train split + synthetic scenes.

usage: .venv/bin/python train/mix.py OUT.yaml --photos datasets/build/hk-photos \
           [--synth datasets/generated/synth-train ...]

Validation is the real-photo val split (by stem, un-mirrored).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.classes import CLASSES


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("out", type=Path)
    ap.add_argument("--photos", type=Path, required=True, help="prepared hk-photos folder")
    ap.add_argument("--synth", type=Path, nargs="*", default=[], help="synthetic set folders")
    args = ap.parse_args()
    train = [args.photos.resolve() / "images" / "train"]
    for folder in args.synth:
        images = folder.resolve() / "images"
        if not images.is_dir():
            sys.exit(f"{images} not found")
        train.append(images)
    lines = ["train:"] + [f"  - {p}" for p in train]
    lines += [f"val: {args.photos.resolve() / 'images' / 'val'}", f"nc: {len(CLASSES)}", "names:"]
    lines += [f"  {i}: '{code}'" for i, code in enumerate(CLASSES)]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(lines) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
