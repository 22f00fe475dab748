"""How a table camera's run of frames of one revealed hand gets recorded.

A table camera (``POST /v1/tables/{id}/frames``) records a hand once the recognizer has
read the same complete hand in ``needed`` frames in a row (:mod:`tilecam.tables.stability`).
Frames of a still scene differ by sensor noise, light and compression, and so may the
readings: on tile art the model never saw, mostly which flower or season a bonus tile is.

For each scene of a synthetic set (``truth/*.json`` of ``tilecam dataset synth``, winning
hands only) this makes ``--frames`` camera frames of the unchanged scene (Gaussian noise
σ 2–4, light ×0.96–1.04, a shift of up to 1 px, JPEG quality 80–95; seeded), reads each
with :func:`vision.recognize.recognize` (the table's reader, MCR), and runs the camera's
stability rule over them twice: with frames alike when their hand notation is equal
(the key ``hand``: before the fifty-third session) and when the table's rules score them
alike (``score``: :func:`tilecam.tables.scoring_bridge.score_key`, today's). Reported per
key: scenes recorded at all, recorded more than once (a duplicate on the score sheet),
recorded with the right MCR score (the recorded reading, against the truth hand), and the
frame at which the first record came.

Usage::

    .venv/bin/python bench/camera_stability.py datasets/generated/layout-eval-heldout
        [--frames 6] [--needed 3] [--fuse 1] [--limit N] [--seed 0] [--model-dir M] [--json]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
from pathlib import Path
from typing import Any

import cv2
import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

KEYS = ("hand", "score")


def camera_frames(image: np.ndarray, count: int, rng: random.Random) -> list[np.ndarray]:
    """``count`` frames (BGR, the shape of ``image``) of a still scene as a camera sends
    them: noise, a little light, a sub-pixel-to-1-px shift, JPEG."""
    h, w = image.shape[:2]
    out = []
    for _ in range(count):
        a = np.array([[1, 0, rng.uniform(-1, 1)], [0, 1, rng.uniform(-1, 1)]], np.float32)
        moved = cv2.warpAffine(image, a, (w, h), borderMode=cv2.BORDER_REFLECT)
        grain = np.random.default_rng(rng.randrange(2**32))
        noise = grain.normal(0, rng.uniform(2, 4), moved.shape)
        lit = np.clip(moved.astype(np.float32) * rng.uniform(0.96, 1.04) + noise, 0, 255)
        ok, buf = cv2.imencode(".jpg", lit.astype(np.uint8),
                               [cv2.IMWRITE_JPEG_QUALITY, rng.randint(80, 95)])
        frame = cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else None
        if frame is None:
            raise RuntimeError("a camera frame could not be JPEG-encoded and read back")
        out.append(frame)
    return out


def records(keys: list[str | None], needed: int) -> list[int]:
    """The frame indices at which the camera's stability rule records, for frames whose
    readings have these keys (None: no complete hand)."""
    from tilecam.tables.scoring_bridge import reread_of
    from tilecam.tables.stability import Reading, Watch, step

    watch, out = Watch(), []
    for i, key in enumerate(keys):
        _, decision = step(watch, Reading(key, key is not None, 14), needed, near=reread_of)
        if decision == "record":
            out.append(i)
    return out


def run(folder: Path, frames: int, needed: int, limit: int | None, seed: int,
        detector: Any, fuse: int = 1) -> dict[str, Any]:
    """The figures of the module doc for the scenes of ``folder``, read by ``detector``
    (a :class:`vision.detect.Detector` or any callable image → Detections); ``fuse``:
    frames read together as the service does (:class:`vision.frame_fusion.FrameMemory`,
    ``TILECAM_CAMERA_FUSE_FRAMES``; 1: each frame alone)."""
    import scoring
    from tilecam.tables.scoring_bridge import normalize_hand, score_key
    from vision.frame_fusion import FrameMemory
    from vision.imageio import load_image
    from vision.recognize import recognize
    from vision.synth.writer import truth_hand, winning_truths

    rng = random.Random(seed)
    tally: dict[str, dict[str, Any]] = {
        k: {"recorded": 0, "twice": 0, "right_score": 0, "first": []} for k in KEYS}
    scenes = flicker = 0
    for f, truth in winning_truths(folder, limit):
        scenes += 1
        true_hand = truth_hand(truth)
        context: dict[str, Any] = {"self_drawn": True}
        true_total = scoring.score(true_hand, **context).total
        image = load_image(folder / truth["image"])
        hands: list[str | None] = []
        totals: list[int | None] = []
        memory = FrameMemory(fuse)
        for frame in camera_frames(image, frames, rng):
            dets = memory.read(f.name, detector(frame)) if fuse > 1 else None
            rec = recognize(frame, "mcr", context, detector=detector, detections=dets)
            complete = rec.hand is not None and rec.score is not None
            hands.append(normalize_hand(rec.hand_text) if complete and rec.hand_text else None)
            totals.append(rec.score.total if rec.score is not None else None)
        flicker += len({h for h in hands if h}) > 1
        for key in KEYS:
            keyed = [None if h is None else (h if key == "hand" else score_key(h, "mcr"))
                     for h in hands]
            at = records(keyed, needed)
            t = tally[key]
            t["recorded"] += bool(at)
            t["twice"] += len(at) > 1
            t["right_score"] += bool(at) and totals[at[0]] == true_total
            if at:
                t["first"].append(at[0] + 1)
    out: dict[str, Any] = {"scenes": scenes, "frames": frames, "needed": needed, "seed": seed,
                           "fuse": fuse, "scenes_whose_complete_readings_differ": flicker}
    for key, t in tally.items():
        first = t.pop("first")
        out[key] = {**{k: v / max(scenes, 1) for k, v in t.items()},
                    "median_first_record_frame": statistics.median(first) if first else None}
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder", type=Path, help="synthetic set with truth/*.json")
    ap.add_argument("--frames", type=int, default=6, help="frames per scene (default 6)")
    ap.add_argument("--needed", type=int, default=3, help="stable frames to record (default 3)")
    ap.add_argument("--limit", type=int, default=None, help="at most this many scenes")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--fuse", type=int, default=1,
                    help="frames read together, the newest included (the service's "
                    "TILECAM_CAMERA_FUSE_FRAMES; default 1: each frame alone)")
    ap.add_argument("--model-dir", type=Path, default=None)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    if not (args.folder / "truth").is_dir():
        raise SystemExit(f"camera_stability: no truth/ in {args.folder}")
    if args.frames < 1 or args.needed < 1 or args.fuse < 1:
        raise SystemExit("camera_stability: --frames, --needed and --fuse must be at least 1")
    from vision.detect import Detector, load_detector

    detector = Detector(args.model_dir) if args.model_dir else load_detector()
    out = run(args.folder, args.frames, args.needed, args.limit, args.seed, detector,
              args.fuse)
    if args.json:
        print(json.dumps(out))
        return 0
    print(f"{out['scenes']} scenes × {out['frames']} frames, {out['needed']} needed, "
          f"{out['fuse']} read together; "
          f"complete readings differ between frames in "
          f"{out['scenes_whose_complete_readings_differ']}")
    for key in KEYS:
        t = out[key]
        print(f"  frames alike by {key:5s}: recorded {t['recorded']:.1%}, twice {t['twice']:.1%}, "
              f"right MCR score {t['right_score']:.1%}, first record at frame "
              f"{t['median_first_record_frame']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
