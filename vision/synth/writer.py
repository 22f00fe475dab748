"""Write a synthetic data set in YOLO layout, with per-image ground truth.

Layout of ``out``::

    images/000000.jpg        the photo (JPEG, quality drawn per image)
    labels/000000.txt        YOLO: ``class cx cy w h`` (normalised), classes of vision/classes.py
    truth/000000.json        layout ground truth (see vision.synth.scene), plus file and seed
    data.yaml                ultralytics data file (names = vision.classes.CLASSES)
    manifest.json            how the set was made (command options, art sets, counts)

Image ``i`` is drawn from ``numpy.random.default_rng([seed, i])`` alone, so a set is
the same whatever the number of worker processes, and a set of ``N`` images is the
first ``N`` of a larger one with the same seed.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass
from multiprocessing import get_all_start_methods, get_context
from pathlib import Path
from typing import TYPE_CHECKING, Any

import cv2
import numpy as np

if TYPE_CHECKING:
    import scoring

from vision.classes import CLASSES
from vision.synth.art import ArtSet, load_art
from vision.synth.scene import SceneOptions, SceneResult, class_of, render_scene


@dataclass
class SynthConfig:
    """What to generate."""

    out: Path
    count: int
    seed: int = 0
    art: Sequence[str] = ()
    width: int = 640
    height: int = 640
    hand_prob: float = 0.75
    extras_prob: float = 0.35
    face_up_kongs: float = 0.0
    turned_hands: float = 0.0
    near_miss: float = 0.0
    waiting: float = 0.0
    jpeg_quality: tuple[int, int] = (40, 95)
    workers: int = 1


def yolo_lines(truth: dict[str, Any]) -> list[str]:
    """YOLO label lines ``class cx cy w h`` (normalised to the image size)."""
    w, h = float(truth["width"]), float(truth["height"])
    lines = []
    for t in truth["tiles"]:
        x1, y1, x2, y2 = t["box"]
        x1, x2 = max(0.0, x1), min(w, x2)
        y1, y2 = max(0.0, y1), min(h, y2)
        if x2 <= x1 or y2 <= y1:
            continue
        cx, cy = (x1 + x2) / 2 / w, (y1 + y2) / 2 / h
        lines.append(f"{class_of(t)} {cx:.6f} {cy:.6f} {(x2 - x1) / w:.6f} {(y2 - y1) / h:.6f}")
    return lines


def data_yaml(out: Path) -> str:
    """An ultralytics data file for a set in ``out`` (train and val both point at it)."""
    names = "\n".join(f"  {i}: '{c}'" for i, c in enumerate(CLASSES))
    return (f"# tilecam synthetic set; class names = vision/classes.py CLASSES\n"
            f"path: {out.resolve()}\ntrain: images\nval: images\nnc: {len(CLASSES)}\n"
            f"names:\n{names}\n")


def render_one(arts: Sequence[ArtSet], cfg: SynthConfig, index: int) -> tuple[SceneResult, int]:
    """Scene ``index`` of a set: its render and its JPEG quality."""
    rng = np.random.default_rng([cfg.seed, index])
    art = arts[int(rng.integers(0, len(arts)))]
    opts = SceneOptions(width=cfg.width, height=cfg.height, hand_prob=cfg.hand_prob,
                        extras_prob=cfg.extras_prob, face_up_kongs=cfg.face_up_kongs,
                        turned_hands=cfg.turned_hands, near_miss=cfg.near_miss,
                        waiting=cfg.waiting)
    result = render_scene(art, rng, opts)
    q = int(rng.integers(cfg.jpeg_quality[0], cfg.jpeg_quality[1] + 1))
    return result, q


def _write(cfg: SynthConfig, index: int, result: SceneResult, quality: int) -> None:
    stem = f"{index:06d}"
    ok, buf = cv2.imencode(".jpg", result.image[..., ::-1], [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise OSError(f"could not encode image {stem}")
    (cfg.out / "images" / f"{stem}.jpg").write_bytes(buf.tobytes())
    (cfg.out / "labels" / f"{stem}.txt").write_text("\n".join(yolo_lines(result.truth)) + "\n")
    truth = {"image": f"images/{stem}.jpg", "seed": [cfg.seed, index], "jpeg_quality": quality,
             **result.truth}
    (cfg.out / "truth" / f"{stem}.json").write_text(json.dumps(truth, ensure_ascii=False) + "\n")


_WORKER: dict[str, Any] = {}


def _init_worker(cfg: SynthConfig) -> None:
    _WORKER["cfg"] = cfg
    _WORKER["arts"] = [load_art(n) for n in cfg.art]


def _job(index: int) -> int:
    cfg: SynthConfig = _WORKER["cfg"]
    result, q = render_one(_WORKER["arts"], cfg, index)
    _write(cfg, index, result, q)
    return len(result.truth["tiles"])


class Progress:
    """A one-line progress bar on a text stream (``count/total``, rate, ETA).

    The rate's clock starts at ``update(0)``, which :func:`generate` sends once the art is
    loaded, as the first image starts being made (else at the bar's making): loading the
    art is no image made, and counted in it gave a rate far too low and an ETA far too long
    at the start.
    """

    def __init__(self, total: int, stream: Any = None, every_s: float = 0.5) -> None:
        self.total, self.done = total, 0
        self.stream = stream if stream is not None else sys.stderr
        self.t0 = self.last = time.monotonic()
        self.every_s = every_s

    def start(self) -> None:
        """Start the clock now (the work begins)."""
        self.t0 = self.last = time.monotonic()

    def update(self, n: int = 1) -> None:
        """``n`` more images done; ``update(0)`` before the first starts the clock."""
        if n == 0:
            if self.done == 0:
                self.start()
            return
        self.done += n
        now = time.monotonic()
        if now - self.last >= self.every_s or self.done == self.total:
            self.last = now
            rate = self.done / max(now - self.t0, 1e-9)
            eta = (self.total - self.done) / rate if rate > 0 else 0.0
            width = 30
            fill = int(width * self.done / max(self.total, 1))
            self.stream.write(f"\r[{'#' * fill}{'.' * (width - fill)}] {self.done}/{self.total} "
                              f"{rate:.1f} img/s ETA {eta:.0f}s ")
            if self.done == self.total:
                self.stream.write("\n")
            self.stream.flush()


def code_version() -> str | None:
    """The git commit of the generator's checkout (``+dirty`` with local changes), or
    ``None`` outside a git checkout."""
    root = Path(__file__).resolve().parents[2]
    try:
        head = subprocess.run(["git", "-C", str(root), "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, timeout=5, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--",
                                "vision/synth"], capture_output=True, text=True, timeout=5,
                               check=True).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return head + ("+dirty" if dirty else "")


#: The file a synth run writes in its ``--out`` folder before its first image: what
#: ``--overwrite`` may replace is a set this command wrote (an interrupted run's too).
MARKER = ".tilecam-synth"


def generate(cfg: SynthConfig, progress: Callable[[int], None] | None = None) -> dict[str, Any]:
    """Write ``cfg.count`` images to ``cfg.out``; returns the manifest (also written).

    ``progress(0)`` is called once when the art is loaded and the first image starts
    being made (the clock of the manifest's rate starts then too), then ``progress(1)``
    per image written (:class:`Progress`)."""
    if cfg.count < 1:
        raise ValueError(f"--count must be at least 1, got {cfg.count}")
    if not (32 <= cfg.width <= 4096 and 32 <= cfg.height <= 4096):
        raise ValueError(f"--imgsz must be 32..4096 pixels, got {cfg.width}x{cfg.height}")
    if not cfg.art:
        raise ValueError("no art set selected")
    if cfg.seed < 0:
        raise ValueError(f"--seed must be 0 or more, got {cfg.seed}")
    arts = [load_art(n) for n in cfg.art]  # fails early with a clear message
    for sub in ("images", "labels", "truth"):
        (cfg.out / sub).mkdir(parents=True, exist_ok=True)
    (cfg.out / MARKER).write_text("written by tilecam dataset synth\n")  # before any image
    t0 = time.monotonic()
    if progress:
        progress(0)  # the work starts: a progress bar's clock starts here, not at art loading
    tiles = 0
    if cfg.workers <= 1:
        for i in range(cfg.count):
            result, q = render_one(arts, cfg, i)
            _write(cfg, i, result, q)
            tiles += len(result.truth["tiles"])
            if progress:
                progress(1)
    else:
        # workers start from a clean process, never forked from this one: a fork of a
        # process whose threads (OpenCV's, onnxruntime's, a test runner's) hold a lock
        # can deadlock the child (Python 3.12+ warns of it; 3.14 makes forkserver the default)
        ctx = get_context("forkserver" if "forkserver" in get_all_start_methods() else "spawn")
        with ctx.Pool(cfg.workers, initializer=_init_worker, initargs=(cfg,)) as pool:
            for n in pool.imap_unordered(_job, range(cfg.count), chunksize=4):
                tiles += n
                if progress:
                    progress(1)
    seconds = time.monotonic() - t0
    (cfg.out / "data.yaml").write_text(data_yaml(cfg.out))
    manifest = {
        "generator": "tilecam dataset synth",
        "code": code_version(),
        "config": {k: (str(v) if isinstance(v, Path) else v) for k, v in asdict(cfg).items()},
        "art": list(cfg.art),
        "images": cfg.count,
        "tiles": tiles,
        "seconds": round(seconds, 2),
        "images_per_second": round(cfg.count / max(seconds, 1e-9), 2),
        "classes": list(CLASSES),
    }
    (cfg.out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    return manifest


def truth_hand(truth: dict[str, Any]) -> scoring.Hand:
    """The hand of one scene's ground truth (``truth/*.json`` with a ``hand``), its bonus
    tiles taken from ``flowers`` when the notation leaves them out.

    >>> truth_hand({"hand": "123m456m789m123p55p", "flowers": ["2f"]}).flowers
    ('2f',)
    """
    import scoring

    hand = scoring.parse_hand(truth["hand"])
    if truth.get("flowers") and not hand.flowers:
        hand = scoring.Hand(hand.melds, hand.standing, tuple(truth["flowers"]))
    return hand


def winning_truths(out: Path, limit: int | None = None) -> Iterator[tuple[Path, dict[str, Any]]]:
    """The scenes of the set in ``out`` that show a winning hand (``truth/*.json`` with a
    ``hand`` not marked ``wins: false``), in file order, at most ``limit`` of them: each
    truth file and its ground truth."""
    count = 0
    for f in sorted((out / "truth").glob("*.json")):
        truth = json.loads(f.read_text())
        if not truth.get("hand") or truth.get("wins") is False:
            continue
        if limit is not None and count >= limit:
            return
        count += 1
        yield f, truth
