"""Bonus-reader crops of numbered faces cut flat: no scene, no perspective, no neighbours.

usage: .venv/bin/python train/classifier/flat_faces.py OUT.npz --styles 2500 [--seed 1]

A diagnostic for the bonus-tile reader (model card, recipe step 50): each new style of
:func:`vision.synth.procedural.numbered_bonus_faces` (seasons share one picture, flowers
another, a small corner numeral tells the four apart) gives its eight faces, each twice:
turned a random quarter (clockwise, the crop's rotation index), 40-90 px high on a plain
random ground with a 10 % margin, sometimes softened, resized to a ``--size`` square as
:func:`vision.preprocess.crop_batch` resizes a box. Whether a reader learns the numeral
here but not on scene crops (``bonus_closeups.py --art fresh-numbered``) tells whether the
network or the scene crop is what fails. Writes the arrays of ``crops.py`` (``crops``
uint8 ``(N, 3, S, S)`` RGB, ``classes`` int16, ``rotations`` int8, ``synthetic``,
``images``). Needs Pillow and a CJK font, as procedural art does.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from vision.classes import class_id
from vision.synth.procedural import (
    numbered_bonus_faces,
    random_style,
    usable_fonts,
)


def flat_crop(face: npt.NDArray[np.uint8], quarter: int, height: int,
              ground: tuple[int, int, int], soften: float, size: int) -> npt.NDArray[np.uint8]:
    """``face`` ``(H, W, 3)`` RGB scaled to ``height`` px, turned ``quarter`` × 90°
    clockwise, on ``ground`` with a 10 % margin, softened by a Gaussian of ``soften`` px
    (0: none), resized to ``(3, size, size)``.

    >>> face = np.zeros((160, 120, 3), np.uint8)
    >>> flat_crop(face, 1, 60, (255, 255, 255), 0.0, 96).shape
    (3, 96, 96)
    """
    width = max(1, round(height * face.shape[1] / face.shape[0]))
    f = np.ascontiguousarray(np.rot90(cv2.resize(face, (width, height),
                                                 interpolation=cv2.INTER_AREA), -quarter))
    fh, fw = f.shape[:2]
    mx, my = int(fw * 0.1), int(fh * 0.1)
    canvas = np.empty((fh + 2 * my, fw + 2 * mx, 3), np.uint8)
    canvas[:] = ground
    canvas[my:my + fh, mx:mx + fw] = f
    if soften > 0:
        canvas = cv2.GaussianBlur(canvas, (3, 3), soften)
    return np.asarray(cv2.resize(canvas, (size, size), interpolation=cv2.INTER_AREA)
                      .transpose(2, 0, 1), np.uint8)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--styles", type=int, default=2500)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--size", type=int, default=96, help="crop side in pixels")
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    fonts = usable_fonts()
    if not fonts:
        raise SystemExit("flat_faces: no CJK font installed (apt-get install fonts-noto-cjk)")
    crops, classes, rotations, images = [], [], [], []
    for i in range(args.styles):
        faces = numbered_bonus_faces(random_style(rng, fonts, "varied"), rng)
        for code, face in faces.items():
            for _ in range(2):
                quarter = int(rng.integers(0, 4))
                ground = tuple(int(v) for v in rng.integers(0, 255, 3))
                soften = float(rng.uniform(0.3, 1.0)) if rng.random() < 0.3 else 0.0
                crops.append(flat_crop(face, quarter, int(rng.uniform(40, 90)),
                                       ground, soften, args.size))  # type: ignore[arg-type]
                classes.append(class_id(code))
                rotations.append(quarter)
                images.append(f"flat:{i}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez(args.out, crops=np.stack(crops), classes=np.array(classes, np.int16),
             rotations=np.array(rotations, np.int8), synthetic=np.ones(len(classes), bool),
             images=np.array(images))
    print(f"wrote {len(classes)} crops of {args.styles} styles to {args.out}")


if __name__ == "__main__":
    main()
