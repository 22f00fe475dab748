"""Crops of bonus tiles (seasons and flowers) from close-up scenes of one art set each.

usage: .venv/bin/python train/classifier/bonus_closeups.py OUT.npz --art pictorial-11 \
           [--art procedural-12 ...] --scenes 600 [--size 96] [--variants 2] [--seed 0] \
           [--workers 2]

The bonus-tile reader (``models/tiles-bonus.onnx``) reads which of the eight bonus tiles a
crop shows. The synthetic table scenes hold few of them (about two in a hand), so this
script renders close-ups (:func:`vision.synth.scene.render_scene` with ``hand_prob`` 0)
from an art set cut down to its eight bonus faces: every face-up tile of such a scene is a
season or a flower (face-down tiles are left out). Each scene takes one ``--art`` set in
turn. With the procedural sets (``procedural-<n>``, ``pictorial-<n>``) every style draws
its own picture on each face, so only the numeral and the character tell the eight apart —
what a reader of tile sets it has never seen has to learn. ``fresh-flower`` and
``fresh-varied`` draw a new procedural style for every scene (flower or varied
pictures; the chance a face shows its character drawn from 0.2-1.0, so many show only
the numeral): no face is seen twice, so no picture can be learned by heart.
``fresh-numbered`` draws a new *numbered* style per scene: the four seasons share one
picture, the four flowers another, and a small corner numeral tells the four apart
(:func:`vision.synth.procedural.numbered_bonus_faces`).

Crops are cut by :func:`vision.preprocess.crop_batch` (the serving cropper) from the truth
box, the first variant exact and the others jittered as ``crops.py`` does. Writes the
arrays of ``crops.py`` (``crops`` uint8 ``(N, 3, S, S)`` RGB, ``classes`` int16,
``rotations`` int8 0..3 clockwise, ``synthetic`` bool, ``images`` str).
"""

from __future__ import annotations

import argparse
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import numpy.typing as npt

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from crops import cut_variants  # noqa: E402

from vision.classes import BONUS, class_id  # noqa: E402

_ARTS: dict[str, object] = {}
#: ``--art`` names that draw a new procedural style per scene (picture kind after "fresh-")
FRESH = ("fresh-flower", "fresh-varied", "fresh-numbered")


def _bonus_art(name: str) -> object:
    """Art set ``name`` with only its eight bonus faces (cached per process)."""
    from vision.synth.art import ArtError, ArtSet, load_art

    if name not in _ARTS:
        art = load_art(name)
        if not art.has_bonus:
            raise ArtError(f"art set {name!r} has no bonus tiles")
        _ARTS[name] = ArtSet(f"{name}-bonus", {c: art.faces[c] for c in BONUS},
                             back=art.back, ivory=art.ivory)
    return _ARTS[name]


def _fresh_art(kind: str, rng: np.random.Generator) -> object:
    """The eight bonus faces of one new procedural style (``kind`` flower | varied |
    numbered: :func:`vision.synth.procedural.numbered_bonus_faces`)."""
    from dataclasses import replace

    from vision.synth.art import ArtSet
    from vision.synth.procedural import draw_face, random_style, usable_fonts

    if kind == "numbered":  # one picture per group, a small corner numeral (varied art)
        from vision.synth.procedural import numbered_bonus_faces

        style = random_style(rng, usable_fonts(), "varied")
        faces = {c: [face] for c, face in numbered_bonus_faces(style, rng).items()}
        return ArtSet("fresh-numbered", faces, ivory=style.ground)
    style = random_style(rng, usable_fonts(), kind)
    style = replace(style, bonus_char=float(rng.uniform(0.2, 1.0)))
    faces = {c: [draw_face(c, style, rng)] for c in BONUS}
    return ArtSet(f"fresh-{kind}", faces, ivory=style.ground)


def _scene(job: tuple[int, str, int, int, int, float]) -> dict[str, npt.NDArray[np.generic]]:
    """Crops of one close-up scene: ``(index, art name, seed, size, variants, jitter)``."""
    from vision.synth.scene import SceneOptions, render_scene

    index, name, seed, size, variants, amount = job
    rng = np.random.default_rng([seed, index])
    art = _fresh_art(name.removeprefix("fresh-"), rng) if name in FRESH else _bonus_art(name)
    res = render_scene(art, rng, SceneOptions(hand_prob=0.0))  # type: ignore[arg-type]
    tiles = [t for t in res.truth["tiles"] if not t["face_down"] and t["code"] in BONUS]
    bgr = np.ascontiguousarray(res.image[:, :, ::-1])
    crops = (cut_variants(bgr, [tuple(t["box"]) for t in tiles], size, variants, amount, rng)
             if tiles else [])
    n = len(crops) * len(tiles)
    return {"crops": np.concatenate(crops) if crops else np.zeros((0, 3, size, size), np.uint8),
            "classes": np.asarray([class_id(t["code"]) for t in tiles] * len(crops), np.int16),
            "rotations": np.asarray([int(t["rotation"]) // 90 % 4 for t in tiles] * len(crops),
                                    np.int8),
            "images": np.asarray([f"{name}:{index}"] * n)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--art", action="append", required=True, help="art set (repeatable)")
    ap.add_argument("--scenes", type=int, default=600)
    ap.add_argument("--size", type=int, default=96, help="crop side in pixels")
    ap.add_argument("--variants", type=int, default=2, help="crops per tile (1 = exact box)")
    ap.add_argument("--jitter", type=float, default=0.06)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    for name in args.art:  # fail early on a set without bonus tiles
        if name not in FRESH:
            _bonus_art(name)
    jobs = [(i, args.art[i % len(args.art)], args.seed, args.size, args.variants, args.jitter)
            for i in range(args.scenes)]
    parts: list[dict[str, npt.NDArray[np.generic]]] = []
    with ProcessPoolExecutor(args.workers) as pool:
        for k, part in enumerate(pool.map(_scene, jobs, chunksize=8), 1):
            parts.append(part)
            if k % 200 == 0:
                print(f"{k}/{len(jobs)} scenes, {sum(len(p['classes']) for p in parts)} crops",
                      flush=True)
    data = {key: np.concatenate([p[key] for p in parts]) for key in parts[0]}
    data["synthetic"] = np.ones(len(data["classes"]), bool)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez(args.out, **data)
    print(f"wrote {len(data['classes'])} crops from {len(jobs)} scenes to {args.out}")


if __name__ == "__main__":
    main()
