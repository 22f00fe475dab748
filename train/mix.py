"""Write the data.yaml of a training mix: real-photo train split + synthetic scenes.

usage: .venv/bin/python train/mix.py OUT.yaml --photos datasets/build/hk-photos \
           [--copies-per-stem 3] [--synth datasets/generated/synth-train --synth-count 500]

The training list (``OUT.txt``, absolute image paths) takes at most ``copies-per-stem``
of each real photo's copies and ``synth-count`` synthetic scenes (seeded choice), so an
epoch fits the CPU budget. Validation during training (what ultralytics' ``best.pt`` is
chosen on) is the real-photo val split (by stem, un-mirrored), or, with ``--val-synth``,
synthetic scenes of a held-out art set, so that no checkpoint is chosen on the real
validation photos the model card reports.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.classes import CLASSES
from vision.data.photos import group_copies


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("out", type=Path)
    ap.add_argument("--photos", type=Path, required=True, help="prepared hk-photos folder")
    ap.add_argument("--copies-per-stem", type=int, default=5)
    ap.add_argument("--synth", type=Path, nargs="*", default=[], help="synthetic set folders")
    ap.add_argument("--synth-count", type=int, default=0, help="scenes per synthetic set (0 = all)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--val-copies",
        type=int,
        default=0,
        help="validate during training on this many copies per val photo (0 = all)",
    )
    ap.add_argument(
        "--val-synth",
        type=Path,
        help="validate during training on this synthetic set instead of the real val photos",
    )
    ap.add_argument("--val-count", type=int, default=100, help="scenes of --val-synth (0 = all)")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    photos = args.photos.resolve()
    files: list[Path] = []
    for paths in group_copies(photos / "images" / "train").values():
        files += rng.sample(paths, min(args.copies_per_stem, len(paths)))
    n_photos = len(files)
    for folder in args.synth:
        images = folder.resolve() / "images"
        if not images.is_dir():
            sys.exit(f"{images} not found")
        scenes = sorted(p for p in images.iterdir() if p.suffix.lower() in (".jpg", ".png"))
        scenes = [p for p in scenes if (folder.resolve() / "labels" / (p.stem + ".txt")).is_file()]
        if args.synth_count:
            scenes = rng.sample(scenes, min(args.synth_count, len(scenes)))
        files += scenes
    listing = args.out.with_suffix(".txt")
    listing.parent.mkdir(parents=True, exist_ok=True)
    listing.write_text("".join(f"{p}\n" for p in files))
    val: Path | str = photos / "images" / "val"
    if args.val_synth:
        images = args.val_synth.resolve() / "images"
        scenes = sorted(p for p in images.rglob("*") if p.suffix.lower() in (".jpg", ".png"))
        if not scenes:
            sys.exit(f"no images under {images}")
        val = args.out.with_name(args.out.stem + "-val.txt")
        val.write_text("".join(f"{p}\n" for p in scenes[: args.val_count or None]))
        val = val.resolve()
    elif args.val_copies:
        val_files: list[Path] = []
        for paths in group_copies(photos / "images" / "val").values():
            val_files += rng.sample(paths, min(args.val_copies, len(paths)))
        val = args.out.with_name(args.out.stem + "-val.txt")
        val.write_text("".join(f"{p}\n" for p in val_files))
        val = val.resolve()
    lines = [f"train: {listing.resolve()}", f"val: {val}"]
    lines += [f"nc: {len(CLASSES)}", "names:"] + [f"  {i}: '{c}'" for i, c in enumerate(CLASSES)]
    args.out.write_text("\n".join(lines) + "\n")
    print(f"wrote {args.out}: {n_photos} photo copies + {len(files) - n_photos} synthetic scenes")


if __name__ == "__main__":
    main()
