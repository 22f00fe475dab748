"""Top strips of bonus tiles for the numeral reader (:mod:`vision.numeral`), with labels.

usage: .venv/bin/python train/classifier/numeral_strips.py OUT.npz --art fresh-numbered \
           [--art kmahjongg-default ...] --scenes 2000 [--seed 0] [--workers 2]
       .venv/bin/python train/classifier/numeral_strips.py OUT.npz --synth DIR [--synth DIR]

Each bonus tile (season or flower) is cut by :func:`vision.numeral.upright_top` — the
serving cutter — from its truth box: at its own quarter turn (the upright top strip,
labelled with its numeral when the set prints one there, else *none*) and, with
``--wrong`` (default 1), at that many other quarter turns (labelled *none*: a strip cut at
the wrong turn shows no upright numeral). With ``--variants`` > 1 the further cuts use a
jittered box (``crops.py``'s jitter), standing in for detector boxes.

Sources:

* ``--art NAME`` (repeatable; scenes take them in turn): close-up scenes as
  ``bonus_closeups.py`` renders them (every face-up tile a bonus tile). ``fresh-numbered``
  draws a new *numbered* style per scene (:func:`vision.synth.procedural.numbered_bonus_faces`)
  whose corner is known: a top corner gives the numeral's label, a bottom one *none*.
  A named art set is labelled by :data:`NUMERAL_ON_TOP` (its numeral printed in a top
  corner) or *none*.
* ``--synth DIR`` (``tilecam dataset synth`` output): the bonus tiles of its scenes, each
  scene's art labelled as above — for measuring, upright strips only unless ``--wrong``.
* ``--flat N``: N new numbered styles whose faces are cut flat — no scene, no
  neighbours: each face 36-110 px high, turned up to ±8°, on a plain ground, sometimes
  softened — the easy examples a reader first learns where the numeral is from.

Writes ``strips`` uint8 ``(N, 3, H, W)`` RGB, ``labels`` int8 (0..3 the numeral 1..4, 4
*none*), ``classes`` int16 (class ids), ``upright`` bool (cut at the truth's turn),
``images`` str.
"""

from __future__ import annotations

import argparse
import json
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bonus_closeups import _bonus_art  # noqa: E402
from crops import jitter  # noqa: E402

from vision.classes import BONUS, class_id  # noqa: E402
from vision.numeral import STRIP_SIZE, upright_top  # noqa: E402

#: art sets whose seasons and flowers print their numeral in a top corner of the face
NUMERAL_ON_TOP = frozenset({"kmahjongg-default", "kmahjongg-jade", "gnome-postmodern"})
NONE = 4


def tile_strips(
    bgr: npt.NDArray[np.uint8],
    tiles: list[dict[str, Any]],
    labels: list[int],
    variants: int,
    wrong: int,
    amount: float,
    rng: np.random.Generator,
) -> tuple[list[npt.NDArray[np.uint8]], list[int], list[int], list[bool]]:
    """Strips of ``tiles`` (truth records: ``box``, ``rotation`` degrees clockwise,
    ``code``) with ``labels`` (the upright strip's answer per tile): per variant the
    upright strip and ``wrong`` strips at other turns (*none*)."""
    strips, out_labels, classes, upright = [], [], [], []
    for tile, label in zip(tiles, labels, strict=True):
        quarter = int(tile["rotation"]) // 90 % 4
        for v in range(variants):
            box = tuple(tile["box"]) if v == 0 else jitter(tuple(tile["box"]), amount, rng)
            others = rng.permutation([q for q in range(4) if q != quarter])[:wrong]
            for q in [quarter, *others.tolist()]:
                strips.append(upright_top(bgr, box, int(q)))
                out_labels.append(label if q == quarter else NONE)
                classes.append(class_id(tile["code"]))
                upright.append(q == quarter)
    return strips, out_labels, classes, upright


def _fresh_numbered(rng: np.random.Generator, hollow: float = 0.0, grow: float = 0.0,
                    drift: float = 0.0) -> tuple[object, bool]:
    """A new numbered style's eight bonus faces and whether its numeral is on top
    (``hollow``, ``grow``, ``drift``: :func:`vision.synth.procedural.numbered_bonus_faces`)."""
    from vision.synth.art import ArtSet
    from vision.synth.procedural import (
        NUMBER_CORNERS,
        numbered_bonus_faces,
        random_style,
        usable_fonts,
    )

    weights = np.array([w for _, w in NUMBER_CORNERS])
    corner = int(rng.choice(len(weights), p=weights / weights.sum()))
    style = random_style(rng, usable_fonts(), "varied")
    faces = {c: [f] for c, f in numbered_bonus_faces(style, rng, corner, hollow, grow,
                                                             drift).items()}
    on_top = NUMBER_CORNERS[corner][0][1] < 0.5
    return ArtSet("fresh-numbered", faces, ivory=style.ground), on_top


def label_of(code: str, on_top: bool) -> int:
    """The upright strip's answer for a bonus ``code``: its numeral (0..3) or *none*."""
    return (int(code[0]) - 1) % 4 if on_top else NONE


def _scene(job: tuple[int, str, int, int, int, float, float, float, float]
           ) -> dict[str, npt.NDArray[np.generic]]:
    """Strips of one close-up scene: ``(index, art, seed, variants, wrong, jitter,
    hollow, grow, drift)``."""
    from vision.synth.scene import SceneOptions, render_scene

    index, name, seed, variants, wrong, amount, hollow, grow, drift = job
    rng = np.random.default_rng([seed, index])
    if name == "fresh-numbered":
        art, on_top = _fresh_numbered(rng, hollow, grow, drift)
    else:
        art, on_top = _bonus_art(name), name in NUMERAL_ON_TOP
    res = render_scene(art, rng, SceneOptions(hand_prob=0.0))  # type: ignore[arg-type]
    tiles = [t for t in res.truth["tiles"] if not t["face_down"] and t["code"] in BONUS]
    bgr = np.ascontiguousarray(res.image[:, :, ::-1])
    s, lab, cls, up = tile_strips(bgr, tiles, [label_of(t["code"], on_top) for t in tiles],
                                  variants, wrong, amount, rng)
    return _arrays(s, lab, cls, up, f"{name}:{index}")


def _arrays(strips: list[npt.NDArray[np.uint8]], labels: list[int], classes: list[int],
            upright: list[bool], image: str) -> dict[str, npt.NDArray[np.generic]]:
    return {
        "strips": (np.stack(strips) if strips
                   else np.zeros((0, 3, *STRIP_SIZE), np.uint8)),
        "labels": np.asarray(labels, np.int8),
        "classes": np.asarray(classes, np.int16),
        "upright": np.asarray(upright, bool),
        "images": np.asarray([image] * len(labels)),
    }


def flat_style(job: tuple[int, int, int, float, float, float, float]
               ) -> dict[str, npt.NDArray[np.generic]]:
    """Strips of one numbered style's eight faces cut flat: ``(index, seed, wrong,
    jitter, hollow, grow, drift)``."""
    index, seed, wrong, amount, hollow, grow, drift = job
    rng = np.random.default_rng([seed, index, 7])
    art, on_top = _fresh_numbered(rng, hollow, grow, drift)
    strips, labels, classes, upright = [], [], [], []
    for code, faces in art.faces.items():  # type: ignore[attr-defined]
        face = faces[0]
        height = int(rng.uniform(36, 110))
        width = max(8, round(height * face.shape[1] / face.shape[0]))
        small = cv2.resize(face, (width, height), interpolation=cv2.INTER_AREA)
        ground = tuple(int(v) for v in rng.integers(0, 255, 3))
        margin = height // 2
        canvas = np.empty((height + 2 * margin, width + 2 * margin, 3), np.uint8)
        canvas[:] = ground
        canvas[margin:margin + height, margin:margin + width] = small
        turn = cv2.getRotationMatrix2D((canvas.shape[1] / 2, canvas.shape[0] / 2),
                                       float(rng.uniform(-8, 8)), 1.0)
        canvas = cv2.warpAffine(canvas, turn, (canvas.shape[1], canvas.shape[0]),
                                borderValue=ground)
        if rng.random() < 0.3:
            canvas = cv2.GaussianBlur(canvas, (3, 3), float(rng.uniform(0.3, 1.0)))
        bgr = np.ascontiguousarray(canvas[:, :, ::-1])
        tile = {"box": [margin, margin, margin + width, margin + height], "rotation": 0,
                "code": code}
        s, lab, cls, up = tile_strips(bgr, [tile], [label_of(code, on_top)], 1, wrong,
                                      amount, rng)
        strips += s
        labels += lab
        classes += cls
        upright += up
    return _arrays(strips, labels, classes, upright, f"flat:{index}")


def synth_dir(root: Path, wrong: int, seed: int) -> list[dict[str, npt.NDArray[np.generic]]]:
    """Strips of the bonus tiles of a ``tilecam dataset synth`` folder (exact boxes)."""
    rng = np.random.default_rng(seed)
    parts = []
    for truth in sorted((root / "truth").glob("*.json")):
        record = json.loads(truth.read_text())
        tiles = [t for t in record["tiles"] if not t["face_down"] and t["code"] in BONUS]
        if not tiles:
            continue
        bgr = cv2.imread(str(root / record["image"]), cv2.IMREAD_COLOR)
        if bgr is None:
            continue
        on_top = record.get("art") in NUMERAL_ON_TOP
        s, lab, cls, up = tile_strips(bgr, tiles, [label_of(t["code"], on_top) for t in tiles],
                                      1, wrong, 0.0, rng)
        parts.append(_arrays(s, lab, cls, up, f"{root.name}/{record['image']}"))
    return parts


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--art", action="append", default=[], help="art set (repeatable)")
    ap.add_argument("--synth", type=Path, action="append", default=[])
    ap.add_argument("--scenes", type=int, default=600)
    ap.add_argument("--flat", type=int, default=0, help="numbered styles cut flat")
    ap.add_argument("--hollow", type=float, default=0.0,
                    help="numbered styles: chance their numerals are outlined and filled pale")
    ap.add_argument("--grow", type=float, default=0.0,
                    help="numbered styles: numeral box enlarged by up to this share")
    ap.add_argument("--drift", type=float, default=0.0,
                    help="numbered styles: numeral moved inwards by up to this share of the face")
    ap.add_argument("--variants", type=int, default=2, help="cuts per tile (1 = exact box)")
    ap.add_argument("--wrong", type=int, default=None,
                    help="strips per cut at other turns (default 1 for --art, 0 for --synth)")
    ap.add_argument("--jitter", type=float, default=0.06)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    if not args.art and not args.synth and not args.flat:
        ap.error("give --art, --synth or --flat")
    parts: list[dict[str, npt.NDArray[np.generic]]] = []
    for root in args.synth:
        parts += synth_dir(root, 0 if args.wrong is None else args.wrong, args.seed)
    if args.art:
        for name in args.art:  # fail early on a set without bonus tiles
            if name != "fresh-numbered":
                _bonus_art(name)
        wrong = 1 if args.wrong is None else args.wrong
        jobs = [(i, args.art[i % len(args.art)], args.seed, args.variants, wrong, args.jitter,
                 args.hollow, args.grow, args.drift) for i in range(args.scenes)]
        with ProcessPoolExecutor(args.workers) as pool:
            for k, part in enumerate(pool.map(_scene, jobs, chunksize=8), 1):
                parts.append(part)
                if k % 200 == 0:
                    print(f"{k}/{len(jobs)} scenes", flush=True)
    if args.flat:
        wrong = 1 if args.wrong is None else args.wrong
        with ProcessPoolExecutor(args.workers) as pool:
            parts += list(pool.map(flat_style, [(i, args.seed, wrong, args.jitter, args.hollow,
                                                 args.grow, args.drift) for i in range(args.flat)],
                                   chunksize=16))
    data = {key: np.concatenate([p[key] for p in parts]) for key in parts[0]}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez(args.out, **data)
    counts = np.bincount(data["labels"], minlength=5).tolist()
    print(f"wrote {len(data['labels'])} strips to {args.out}; per answer 1,2,3,4,none: {counts}")


if __name__ == "__main__":
    main()
