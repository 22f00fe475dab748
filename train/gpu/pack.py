"""Pack a detector training mix small enough to travel to a lent GPU machine.

The device tool sends the working tree plus carried folders (64 MiB in all), and nothing
from ``../shared``. This writes a self-contained YOLO dataset: every image shrunk so its
long side is ``--size`` px (ultralytics resizes to ``imgsz`` on load anyway, so at
``--size`` = training ``imgsz`` nothing is lost but file size) and stored as WebP, labels
copied unchanged (they are normalised), a ``data.yaml`` with relative folders.

usage: .venv/bin/python train/gpu/pack.py .gpu/data --photos datasets/build/hk-photos \
           --copies-per-stem 4 --synth datasets/generated/synth-train:300 \
           --val-synth datasets/generated/synth-val-heldout:60 [--size 512 --quality 80]

Real photos come from the train split only (by stem: the val photos never travel; with
``--trusted-photos`` only those whose original the export left untouched); each
``--synth FOLDER:N`` adds N seeded scenes of that set; ``--val-synth`` (held-out art) is
what the final validation of the run reads, so no checkpoint is chosen on real photos.
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from vision.classes import CLASSES
from vision.data.degrade import degrade
from vision.data.photos import group_copies
from vision.evaluate import load_dataset, trusted_stems

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".webp")


def _spec(text: str) -> tuple[Path, int]:
    """``FOLDER:N`` → (folder, N); ``FOLDER`` alone means all scenes (N = 0)."""
    folder, _, count = text.partition(":")
    return Path(folder), int(count or 0)


def _scenes(folder: Path) -> list[Path]:
    """Images of a YOLO folder (``images/`` + ``labels/``) that have a label file."""
    images = folder / "images"
    if not images.is_dir():
        sys.exit(f"{images} not found")
    return sorted(
        p
        for p in images.iterdir()
        if p.suffix.lower() in IMAGE_SUFFIXES and (folder / "labels" / (p.stem + ".txt")).is_file()
    )


def _write(
    src: Path,
    label: Path,
    out: Path,
    split: str,
    name: str,
    size: int,
    quality: int,
    change: np.random.Generator | None = None,
) -> int:
    """Shrink ``src`` to long side ``size`` px, write it as WebP and copy its label.

    With ``change``, the image first gets one change of :func:`vision.data.degrade.degrade`
    at its own size (drawn from that generator). Returns the bytes written for the image.
    """
    image = cv2.imread(str(src), cv2.IMREAD_COLOR)
    if image is None:
        sys.exit(f"cannot read {src}")
    if change is not None:
        image, _ = degrade(image, change)
    h, w = image.shape[:2]
    scale = size / max(h, w)
    if scale < 1:
        image = cv2.resize(
            image, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA
        )
    ok, data = cv2.imencode(".webp", image, [cv2.IMWRITE_WEBP_QUALITY, quality])
    if not ok:
        sys.exit(f"cannot encode {src}")
    (out / "images" / split / f"{name}.webp").write_bytes(data.tobytes())
    shutil.copyfile(label, out / "labels" / split / f"{name}.txt")
    return int(data.size)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("out", type=Path)
    ap.add_argument("--photos", type=Path, required=True, help="prepared hk-photos folder")
    ap.add_argument("--copies-per-stem", type=int, default=5)
    ap.add_argument("--synth", action="append", default=[], help="FOLDER[:N] synthetic scenes")
    ap.add_argument("--val-synth", required=True, help="FOLDER[:N] held-out art for validation")
    ap.add_argument("--size", type=int, default=512, help="long side in px")
    ap.add_argument("--quality", type=int, default=80, help="WebP quality 1..100")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--trusted-photos",
        action="store_true",
        help="only the photos whose original the export left untouched (their labels on "
        "turned copies are carried from the photo as taken; vision.evaluate.trusted_stems)",
    )
    ap.add_argument(
        "--degrade",
        type=float,
        default=0.0,
        help="share of the photo copies written motion-blurred or dim "
        "(vision.data.degrade; 0: none)",
    )
    args = ap.parse_args()
    rng = random.Random(args.seed)
    changes = np.random.default_rng(args.seed)
    out: Path = args.out
    if out.exists():
        shutil.rmtree(out)
    for split in ("train", "val"):
        (out / "images" / split).mkdir(parents=True)
        (out / "labels" / split).mkdir(parents=True)

    total = 0
    counts: dict[str, int] = {}
    photos = args.photos.resolve()
    groups = group_copies(photos / "images" / "train")
    if args.trusted_photos:
        trusted = trusted_stems(load_dataset(photos, "train"))
        groups = {stem: paths for stem, paths in groups.items() if stem in trusted}
    for stem, paths in sorted(groups.items()):
        for i, p in enumerate(sorted(rng.sample(paths, min(args.copies_per_stem, len(paths))))):
            label = photos / "labels" / "train" / (p.stem + ".txt")
            change = changes if changes.random() < args.degrade else None
            total += _write(
                p, label, out, "train", f"hk-{stem}-{i}", args.size, args.quality, change
            )
            counts["hk-photos"] = counts.get("hk-photos", 0) + 1
            if change is not None:
                counts["hk-photos changed"] = counts.get("hk-photos changed", 0) + 1
    jobs = [(spec, "train") for spec in args.synth] + [(args.val_synth, "val")]
    for spec, split in jobs:
        folder, n = _spec(spec)
        scenes = _scenes(folder)
        if n:
            scenes = sorted(rng.sample(scenes, min(n, len(scenes))))
        for p in scenes:
            label = folder / "labels" / (p.stem + ".txt")
            total += _write(
                p, label, out, split, f"{folder.name}-{p.stem}", args.size, args.quality
            )
        counts[f"{folder.name} ({split})"] = len(scenes)

    names = "\n".join(f"  {i}: '{code}'" for i, code in enumerate(CLASSES))
    (out / "data.yaml").write_text(
        f"train: images/train\nval: images/val\nnc: {len(CLASSES)}\nnames:\n{names}\n"
    )
    for k, v in counts.items():
        print(f"{k}: {v} images")
    print(f"{total / 2**20:.1f} MiB of images in {out}")


if __name__ == "__main__":
    main()
