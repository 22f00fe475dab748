"""How well a table camera tells its table's cleared surface from a view of something else.

A table camera takes a frame with no tiles for the table cleared only where the frame
shows the surface it learned around the tiles (:mod:`tilecam.tables.surface`). For each
scene of a synthetic set (``truth/*.json`` of ``tilecam dataset synth``: tiles with boxes
on a table surface — felt, wood, laminate, cloth, plain, some with the table's edge and
the floor beyond) this

- teaches a fresh surface model with ``--frames`` camera frames of the scene (noise,
  light ×0.96–1.04, JPEG 80–95; seeded) and the scene's true tile boxes;
- clears the table: the tiles painted out of the scene (``cv2.inpaint`` of their boxes,
  grown by 3 px), and judges that frame as sent, with the lamp dimmed to ×0.5 and ×0.25
  (sensor noise σ 3 on top), with a warm cast (red ×1.1, blue ×0.88), with a stronger
  one (``cast_1.2``: red ×1.2, blue ÷1.2), with a forearm (a skin-coloured band) across a
  quarter of it, and with the tiles turned face down and pushed together (``heap``:
  tile backs over about three fifths of the hand's place) — each should count as the
  table seen cleared;
- and, each with a model of its own, learned and judged alike: ``backs_learned`` — the
  frames that teach also show two walls of face-down tiles, above and below the hand,
  which the recognizer does not box, and the cleared table has none; ``auto_wb_close``
  — the frames framed close (the hand's place grown by two tile lengths) and each given a
  grey-world auto white balance at half strength, which shifts the cleared table's
  colour against the frames with tiles; ``dark_fixed`` — every frame at ×0.15 light
  (a dark mat at a fixed exposure), where a surface too dark to learn leaves the camera
  ``unlearned``, which counts as the table too;
- judges other views with no tiles, each lit at ×0.6–1.2, which should not be:
  ``wall`` (flat paint, a soft gradient), ``floor`` (the synthesizer's wood or laminate),
  ``shirt`` (its cloth: stripes or checks), and the cleared table of another scene
  (another table: counted apart, by the two surfaces' kinds, as two tables of one kind
  and colour may look alike and need not be told apart); the same views are judged
  against the ``backs_learned`` model too (what the lenient colour measure costs when the
  surface learned clutter).

Reported: the share of each cleared variant that counts as the table seen cleared
(:attr:`~tilecam.tables.surface.Verdict.shows_table`: ``table``, or ``unlearned``), of
each other view judged ``elsewhere`` (in all, and by the kind of the table's surface), and
the time of one frame's measure and judgement (:func:`tilecam.tables.surface.sample_frame`
and :func:`~tilecam.tables.surface.judge`) on the cleared frames, the set's size
(1280×960 for ``synth-table``): median and 90th percentile ms, one run each.

Usage::

    .venv/bin/python bench/camera_surface.py datasets/generated/synth-table
        [--frames 3] [--limit N] [--seed 0] [--json]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

U8 = npt.NDArray[np.uint8]
CLEARED = ("as_sent", "dim_0.5", "dim_0.25", "warm_cast", "cast_1.2", "forearm", "heap",
           "backs_learned", "auto_wb_close", "dark_fixed")
OTHER = ("wall", "floor", "shirt")
#: Colours of tile backs (BGR): blue, green, yellow, and the ivory face's edge.
BACKS = ((150, 95, 30), (60, 140, 40), (40, 170, 210))
IVORY = (215, 230, 240)
Boxes = list[tuple[float, float, float, float]]


def jitter(image: U8, rng: random.Random, light: float = 1.0, noise: float | None = None,
           cast: tuple[float, float, float] = (1.0, 1.0, 1.0)) -> U8:
    """A camera frame of ``image`` (BGR uint8): light × ``light`` (× 0.96–1.04), a colour
    ``cast`` (B, G, R factors), Gaussian noise σ ``noise`` (2–4 when None), JPEG 80–95."""
    grain = np.random.default_rng(rng.randrange(2**32))
    sigma = rng.uniform(2, 4) if noise is None else noise
    lit = image.astype(np.float32) * np.array(cast, np.float32) * light * rng.uniform(0.96, 1.04)
    lit = np.clip(lit + grain.normal(0, sigma, image.shape), 0, 255).astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", lit, [cv2.IMWRITE_JPEG_QUALITY, rng.randint(80, 95)])
    frame = cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else None
    if frame is None:
        raise RuntimeError("a frame could not be JPEG-encoded and read back")
    return np.asarray(frame, np.uint8)


def cleared(image: U8, boxes: list[tuple[float, float, float, float]]) -> U8:
    """``image`` with the tiles in ``boxes`` (pixels) painted out: the table cleared."""
    mask = np.zeros(image.shape[:2], np.uint8)
    for x0, y0, x1, y1 in boxes:
        cv2.rectangle(mask, (int(x0) - 3, int(y0) - 3), (int(x1) + 3, int(y1) + 3), 255, -1)
    return np.asarray(cv2.inpaint(image, mask, 3, cv2.INPAINT_TELEA), np.uint8)


def forearm(image: U8, rng: random.Random) -> U8:
    """``image`` with a skin-coloured band (a forearm) across about a quarter of it."""
    out = image.copy()
    h, w = image.shape[:2]
    tone = np.array([rng.uniform(90, 150), rng.uniform(120, 170), rng.uniform(170, 225)])
    y = rng.randint(h // 4, 3 * h // 4)
    cv2.line(out, (0, y), (w, y + rng.randint(-h // 4, h // 4)), tone.tolist(), h // 4)
    return out


def face_down(image: U8, boxes: Boxes, rng: random.Random, heap: bool) -> U8:
    """``image`` with face-down tiles the recognizer does not box (backs of one colour, an
    ivory edge along each): walls of two rows just above and just below the tiles in
    ``boxes`` (none over a tile) — or with ``heap``, tiles scattered over their place
    (grown by a tile), to cover about three fifths of it, as when they are pushed
    together to be shuffled."""
    out = image.copy()
    h, w = image.shape[:2]
    tw = float(np.median([x1 - x0 for x0, _, x1, _ in boxes]))
    th = float(np.median([y1 - y0 for _, y0, _, y1 in boxes]))
    colour = BACKS[rng.randrange(len(BACKS))]
    x0, y0 = min(b[0] for b in boxes), min(b[1] for b in boxes)
    x1, y1 = max(b[2] for b in boxes), max(b[3] for b in boxes)
    bh = max(3.0, 0.6 * th)

    def back(x: float, y: float) -> None:
        xa, ya = round(x), round(y)
        xb, yb = round(x + tw) - 1, round(y + bh) - 1
        cv2.rectangle(out, (xa, ya), (xb, yb), colour, -1)
        cv2.rectangle(out, (xa, ya), (xb, ya + max(1, int(bh / 4))), IVORY, -1)

    if heap:
        gx0, gy0, gx1, gy1 = x0 - tw, y0 - th, x1 + tw, y1 + th
        count = int(0.9 * (gx1 - gx0) * (gy1 - gy0) / (tw * bh)) + 1
        for _ in range(count):
            back(rng.uniform(gx0, gx1 - tw), rng.uniform(gy0, gy1 - bh))
    else:  # along the tiles: two rows of backs just above each, and two just below
        taken = [(bx0 - 2, by0 - 2, bx1 + 2, by1 + 2) for bx0, by0, bx1, by1 in boxes]
        for bx0, by0, _, by1 in boxes:
            for y in (by0 - 0.3 * th - bh, by0 - 0.3 * th - 2 * bh - 1, by1 + 0.3 * th,
                      by1 + 0.3 * th + bh + 1):
                if not any(x < bx0 + tw and bx0 < u and y < v and y + bh > t
                           for x, t, u, v in taken):
                    back(bx0, y)
    return np.asarray(out[:h, :w], np.uint8)


def auto_white_balance(image: U8, strength: float = 0.5) -> U8:
    """``image`` white-balanced by the grey world (each channel scaled towards the mean
    of all three) at ``strength``: what a camera's automatic white balance does with a
    frame whose colours change, the hand's ivory tiles in one frame and not the next."""
    means = image.reshape(-1, 3).mean(axis=0)
    gains = 1.0 + strength * (means.mean() / np.maximum(means, 1.0) - 1.0)
    return np.asarray(np.clip(image * gains.astype(np.float32), 0, 255), np.uint8)


def close_crop(boxes: Boxes, size: tuple[int, int]) -> tuple[int, int, int, int]:
    """The part ``(x0, y0, x1, y1)`` of a frame of ``size`` = (h, w) a camera framed close
    on the tiles in ``boxes`` sees: their place grown by two tile lengths."""
    h, w = size
    grow = 2 * float(np.median([max(x1 - x0, y1 - y0) for x0, y0, x1, y1 in boxes]))
    return (max(0, int(min(b[0] for b in boxes) - grow)),
            max(0, int(min(b[1] for b in boxes) - grow)),
            min(w, int(max(b[2] for b in boxes) + grow) + 1),
            min(h, int(max(b[3] for b in boxes) + grow) + 1))


def other_view(kind: str, size: tuple[int, int], rng: random.Random) -> U8:
    """A lit view with no tiles of a ``wall``, the ``floor`` or a ``shirt``, BGR
    ``size`` = (h, w)."""
    from vision.synth.photometric import surface

    h, w = size
    np_rng = np.random.default_rng(rng.randrange(2**32))
    if kind == "wall":
        base = np.array([rng.uniform(150, 240) + rng.uniform(-25, 10) for _ in range(3)])
        ramp = np.linspace(rng.uniform(0.8, 1.0), rng.uniform(1.0, 1.2), h)[:, None, None]
        return np.asarray(np.clip(base[None, None, :] * ramp * np.ones((1, w, 1)), 0, 255),
                          np.uint8)
    tex, _ = surface(np_rng, max(h, w), "cloth" if kind == "shirt"
                     else rng.choice(["wood", "laminate"]))
    return np.asarray(tex[:h, :w, ::-1], np.uint8)  # RGB → BGR


def run(folder: Path, frames: int, limit: int | None, seed: int) -> dict[str, Any]:
    """The figures of the module doc for the scenes of ``folder``."""
    from tilecam.tables.surface import SurfaceModel, judge, learn, sample_frame, tile_boxes

    def taught(shots: list[U8], boxes: Boxes) -> SurfaceModel | None:
        model = None
        for shot in shots:
            model = learn(model, sample_frame(shot, boxes))
        return model

    rng = random.Random(seed)
    truths = sorted((folder / "truth").glob("*.json"))[:limit]
    scenes: list[tuple[str, Any, U8]] = []
    ok: Counter[str] = Counter()
    seen: Counter[str] = Counter()
    cluttered: Counter[str] = Counter()
    pairs: Counter[str] = Counter()
    pairs_told: Counter[str] = Counter()
    by_kind: Counter[tuple[str, str]] = Counter()
    by_kind_told: Counter[tuple[str, str]] = Counter()
    ms: list[float] = []
    for path in truths:
        truth = json.loads(path.read_text())
        read = cv2.imread(str(folder / truth["image"]), cv2.IMREAD_COLOR)
        if read is None:
            continue
        image = np.asarray(read, np.uint8)
        h, w = image.shape[:2]
        boxes = tile_boxes(truth["tiles"], w, h)
        if not boxes:
            continue
        model = taught([jitter(image, rng) for _ in range(frames)], boxes)
        empty = cleared(image, boxes)
        variants = {
            "as_sent": jitter(empty, rng),
            "dim_0.5": jitter(empty, rng, light=0.5, noise=3),
            "dim_0.25": jitter(empty, rng, light=0.25, noise=3),
            "warm_cast": jitter(empty, rng, cast=(0.88, 1.0, 1.1)),
            "cast_1.2": jitter(empty, rng, cast=(1 / 1.2, 1.0, 1.2)),
            "forearm": jitter(forearm(empty, rng), rng),
            "heap": jitter(face_down(empty, boxes, rng, heap=True), rng),
        }
        for name, frame in variants.items():
            t0 = time.perf_counter()
            verdict = judge(model, sample_frame(frame))
            ms.append((time.perf_counter() - t0) * 1000)
            seen[name] += 1
            ok[name] += verdict.shows_table
        # models of their own: clutter learned, a close framing with auto white balance,
        # a dark mat at a fixed exposure
        walls = face_down(image, boxes, rng, heap=False)
        backs = taught([jitter(walls, rng) for _ in range(frames)], boxes)
        cx0, cy0, cx1, cy1 = close_crop(boxes, (h, w))
        near = [(x0 - cx0, y0 - cy0, x1 - cx0, y1 - cy0) for x0, y0, x1, y1 in boxes]
        awb = taught([auto_white_balance(jitter(image, rng)[cy0:cy1, cx0:cx1])
                      for _ in range(frames)], near)
        dark = taught([jitter(image, rng, light=0.15) for _ in range(frames)], boxes)
        for name, own, frame in (
                ("backs_learned", backs, jitter(empty, rng)),
                ("auto_wb_close", awb, auto_white_balance(jitter(empty, rng)[cy0:cy1, cx0:cx1])),
                ("dark_fixed", dark, jitter(empty, rng, light=0.15))):
            seen[name] += 1
            ok[name] += judge(own, sample_frame(frame)).shows_table
        table = str(truth.get("surface", "?")).split("+")[0]
        for kind in OTHER:
            frame = jitter(other_view(kind, (h, w), rng), rng, light=rng.uniform(0.6, 1.2))
            sample = sample_frame(frame)
            told = judge(model, sample).view == "elsewhere"
            seen[kind] += 1
            ok[kind] += told
            by_kind[table, kind] += 1
            by_kind_told[table, kind] += told
            cluttered[kind] += judge(backs, sample).view == "elsewhere"
        scenes.append((str(truth.get("surface", "?")), model, empty))
    for i, (kind, model, _) in enumerate(scenes):
        for j, (other_kind, _, empty) in enumerate(scenes):
            if i == j or (j - i) % len(scenes) > 3:  # each table against the next three
                continue
            key = " vs ".join(sorted((kind.split("+")[0], other_kind.split("+")[0])))
            pairs[key] += 1
            frame = jitter(empty, rng, light=rng.uniform(0.6, 1.2))
            pairs_told[key] += judge(model, sample_frame(frame)).view == "elsewhere"
    return {
        "scenes": len(scenes), "frames": frames, "seed": seed,
        "cleared_judged_table": {k: round(ok[k] / max(seen[k], 1), 4) for k in CLEARED},
        "other_judged_elsewhere": {k: round(ok[k] / max(seen[k], 1), 4) for k in OTHER},
        "other_judged_elsewhere_by_table": {
            table: {k: f"{by_kind_told[table, k]}/{by_kind[table, k]}" for k in OTHER}
            for table in sorted({t for t, _ in by_kind})},
        "other_judged_elsewhere_backs_learned": {
            k: round(cluttered[k] / max(seen[k], 1), 4) for k in OTHER},
        "another_table_judged_elsewhere": {
            k: f"{pairs_told[k]}/{pairs[k]}" for k in sorted(pairs)},
        "another_table_overall": round(sum(pairs_told.values()) / max(sum(pairs.values()), 1),
                                       4),
        "judge_ms_median": round(float(np.median(ms)), 2) if ms else None,
        "judge_ms_p90": round(float(np.percentile(ms, 90)), 2) if ms else None,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder", type=Path, help="synthetic set with truth/*.json")
    ap.add_argument("--frames", type=int, default=3, help="frames that teach (default 3)")
    ap.add_argument("--limit", type=int, default=None, help="at most this many scenes")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", action="store_true", help="print JSON only")
    args = ap.parse_args(argv)
    if args.frames < 1:
        ap.error("--frames must be at least 1")
    if not (args.folder / "truth").is_dir():
        ap.error(f"{args.folder} has no truth/ folder (a `tilecam dataset synth` set)")
    out = run(args.folder, args.frames, args.limit, args.seed)
    if args.json:
        print(json.dumps(out))
        return 0
    for key, value in out.items():
        print(f"{key}: {value}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
