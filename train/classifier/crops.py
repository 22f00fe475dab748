"""Cut labelled tile crops for the crop classifier, with the serving code's own cropper.

usage: .venv/bin/python train/classifier/crops.py OUT.npz --size 48 \
           --photos datasets/build/hk-photos --split train [--variants 2] \
           [--synth datasets/generated/synth-train-v2 ...] [--jitter 0.06] [--seed 0] \
           [--codes 1f,2f,3f,4f,5f,6f,7f,8f]

Every crop is made by :func:`vision.preprocess.crop_batch` (box grown 10 %, resized to a
square, RGB) — the function ``vision.detect`` feeds the classifier — so training and
serving see identical pixels. ``--variants N`` cuts each labelled tile N times: the first
from the labelled box, the others from a jittered box (each side's length scaled and the
centre shifted by up to ``--jitter`` of the box size), standing in for detector boxes;
``--no-exact`` jitters the first one too.

Sources:

* ``--photos DIR`` (YOLO layout, ``images/<split>``, ``labels/<split>``): the class is the
  label, the rotation unknown (recorded as -1: real photos lie at 0 or 180 plus ±45°).
* ``--synth DIR`` (``tilecam dataset synth`` output): class and clockwise rotation from
  ``truth/*.json``; face-down tiles (``back``) get rotation -1 (only known modulo 180).

Writes ``OUT.npz`` with ``crops`` uint8 ``(N, 3, S, S)`` RGB, ``classes`` int16 ``(N,)``
(ids of :data:`vision.classes.CLASSES`), ``rotations`` int8 ``(N,)`` (0..3 = 0/90/180/270
clockwise, -1 unknown), ``synthetic`` bool ``(N,)`` and ``images`` (source file per crop).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from vision.classes import CLASSES, class_id  # noqa: E402
from vision.preprocess import crop_batch  # noqa: E402

Box = tuple[float, float, float, float]
#: one labelled tile: xyxy pixel box, class id, rotation index (-1 unknown)
Tile = tuple[Box, int, int]


def photo_tiles(root: Path, split: str) -> Iterator[tuple[Path, list[Tile]]]:
    """``(image path, tiles)`` of a YOLO-layout split; rotation unknown (-1)."""
    for image in sorted((root / "images" / split).glob("*.jpg")):
        label = root / "labels" / split / (image.stem + ".txt")
        if not label.is_file():
            continue
        img = cv2.imread(str(image), cv2.IMREAD_UNCHANGED)
        if img is None:
            continue
        h, w = img.shape[:2]
        tiles: list[Tile] = []
        for line in label.read_text().split("\n"):
            parts = line.split()
            if len(parts) != 5:
                continue
            c, cx, cy, bw, bh = int(parts[0]), *map(float, parts[1:])
            box = ((cx - bw / 2) * w, (cy - bh / 2) * h, (cx + bw / 2) * w, (cy + bh / 2) * h)
            tiles.append((box, c, -1))
        yield image, tiles


def synth_tiles(root: Path) -> Iterator[tuple[Path, list[Tile]]]:
    """``(image path, tiles)`` of a synthetic set from its ``truth/*.json``."""
    for truth in sorted((root / "truth").glob("*.json")):
        record = json.loads(truth.read_text())
        tiles: list[Tile] = []
        for t in record["tiles"]:
            cid = class_id(str(t["label"]))
            rot = -1 if t["face_down"] else int(t["rotation"]) // 90 % 4
            x1, y1, x2, y2 = (float(v) for v in t["box"])
            tiles.append(((x1, y1, x2, y2), cid, rot))
        yield root / record["image"], tiles


def only_codes(
    source: Iterator[tuple[Path, list[Tile]]], keep: set[int]
) -> Iterator[tuple[Path, list[Tile]]]:
    """``source`` with only the tiles whose class id is in ``keep`` (images left with
    none are skipped unread)."""
    for image, tiles in source:
        kept = [t for t in tiles if t[1] in keep]
        if kept:
            yield image, kept


def jitter(box: Box, amount: float, rng: np.random.Generator) -> Box:
    """``box`` with width/height scaled by ``1 ± amount`` and the centre moved by up to
    ``amount`` of the box size (pixels in, pixels out)."""
    x1, y1, x2, y2 = box
    w, h = x2 - x1, y2 - y1
    sw, sh, dx, dy = rng.uniform(-amount, amount, 4)
    cx, cy = (x1 + x2) / 2 + dx * w, (y1 + y2) / 2 + dy * h
    w, h = w * (1 + sw), h * (1 + sh)
    return (cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2)


def cut_variants(
    img: npt.NDArray[np.uint8],
    boxes: list[Box],
    size: int,
    variants: int,
    amount: float,
    rng: np.random.Generator,
    exact: bool = True,
) -> list[npt.NDArray[np.uint8]]:
    """Crops of ``boxes`` (pixels of the BGR ``img``) cut ``variants`` times, each a
    ``(len(boxes), 3, size, size)`` uint8 RGB array: the first from the boxes themselves
    (unless not ``exact``), the others from boxes jittered by ``amount`` (:func:`jitter`)."""
    out = []
    for v in range(variants):
        cut_boxes = [b if v == 0 and exact else jitter(b, amount, rng) for b in boxes]
        batch = crop_batch(img, np.asarray(cut_boxes, np.float32), size)
        out.append(np.rint(batch * 255).astype(np.uint8))
    return out


def cut(
    sources: list[Iterator[tuple[Path, list[Tile]]]],
    size: int,
    variants: int,
    amount: float,
    seed: int,
    exact: bool = True,
) -> dict[str, npt.NDArray[np.generic]]:
    """All crops of ``sources`` (see the module docstring for the arrays returned)."""
    rng = np.random.default_rng(seed)
    crops, classes, rotations, synthetic, images = [], [], [], [], []
    n_images = 0
    for source in sources:
        for image, tiles in source:
            img = cv2.imread(str(image), cv2.IMREAD_COLOR)
            if img is None or not tiles:
                continue
            is_synth = (image.parent.parent / "truth").is_dir()
            for batch in cut_variants(img, [t[0] for t in tiles], size, variants, amount, rng,
                                      exact):
                crops.append(batch)
                classes += [t[1] for t in tiles]
                rotations += [t[2] for t in tiles]
                synthetic += [is_synth] * len(tiles)
                images += [image.name] * len(tiles)
            n_images += 1
            if n_images % 500 == 0:
                print(f"{n_images} images, {sum(len(c) for c in crops)} crops", flush=True)
    return {
        "crops": np.concatenate(crops),
        "classes": np.asarray(classes, np.int16),
        "rotations": np.asarray(rotations, np.int8),
        "synthetic": np.asarray(synthetic, bool),
        "images": np.asarray(images),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--size", type=int, default=48, help="crop side in pixels")
    ap.add_argument("--photos", type=Path, action="append", default=[])
    ap.add_argument("--split", default="train", help="split of the --photos folders")
    ap.add_argument("--synth", type=Path, action="append", default=[])
    ap.add_argument("--variants", type=int, default=1, help="crops per tile (1 = exact box)")
    ap.add_argument("--jitter", type=float, default=0.06)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-exact", action="store_true", help="jitter the first variant too")
    ap.add_argument("--codes", help="cut only tiles of these codes, comma-separated "
                                    "(e.g. the bonus tiles 1f,...,8f)")
    args = ap.parse_args()
    sources = [photo_tiles(p, args.split) for p in args.photos]
    sources += [synth_tiles(s) for s in args.synth]
    if args.codes:
        keep = {class_id(c) for c in args.codes.split(",")}
        sources = [only_codes(s, keep) for s in sources]
    if not sources:
        ap.error("give at least one --photos or --synth folder")
    data = cut(sources, args.size, args.variants, args.jitter, args.seed, exact=not args.no_exact)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez(args.out, **data)
    counts = np.bincount(data["classes"], minlength=len(CLASSES)).astype(np.float64)
    present = np.where(counts > 0, counts, np.inf)
    print(
        f"{args.out}: {len(data['crops'])} crops of {args.size}px; "
        f"rarest class cut {CLASSES[int(present.argmin())]} ({int(present.min())})"
    )


if __name__ == "__main__":
    main()
