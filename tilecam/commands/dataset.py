"""``tilecam dataset``: build training data.

- ``tilecam dataset synth --out DIR --count N [--seed S] [--art SETS] [--imgsz W [H]]``:
  synthetic table photos in YOLO layout with per-image layout ground truth
  (:mod:`vision.synth`). ``--art`` takes comma-separated art set names, ``default``
  (every realistic set except the held-out one), ``heldout``, ``all``, and ``-name``
  after them to remove one (``--art=default,-fluffy``: with ``=``, as argparse reads a
  leading ``-`` as an option); ``--list-art`` shows what is installed.
- ``tilecam dataset photos [--src DIR] --out DIR``: the real photos
  (``../shared/datasets/hk-photos``) as a YOLO set split by file-name stem, mirrored
  copies fixed or dropped, each augmented copy's labels carried across from its
  un-augmented original (``--labels-from export`` keeps the export's; see
  :func:`vision.data.photos.prepare_photos`).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any


def register(sub: Any) -> None:
    p = sub.add_parser("dataset", help="build training data (synthetic scenes, real photos)")
    dsub = p.add_subparsers(dest="dataset_command", metavar="SUBCOMMAND")

    s = dsub.add_parser(
        "synth",
        help="render synthetic table photos with YOLO labels and layout ground truth",
        description="Render synthetic mahjong table photos (seeded, deterministic).",
    )
    s.add_argument("--out", type=Path, help="output folder (YOLO layout)")
    s.add_argument("--count", type=int, default=100, help="number of images (default 100)")
    s.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    s.add_argument(
        "--art",
        default="default",
        help="art sets: comma-separated names, 'default' (all realistic sets but the "
        "held-out one), 'heldout', 'all'; '-name' after them removes one, written with "
        "'=' so it is not read as an option: --art=default,-fluffy (default: default)",
    )
    s.add_argument(
        "--imgsz", type=int, nargs="+", default=[640], metavar="PX",
        help="image size: W (square) or W H in pixels (default 640)",
    )
    s.add_argument("--hand-prob", type=float, default=0.75,
                   help="share of scenes showing a full hand; the rest are close-ups (0..1)")
    s.add_argument("--extras-prob", type=float, default=0.35,
                   help="share of hand scenes with other tiles around (wall, discards); "
                   "use 0 for layout evaluation sets")
    s.add_argument("--face-up-kongs", type=float, default=0.0,
                   help="share of concealed kongs laid as four face-up tiles instead of "
                   "with face-down ends (0..1, default 0)")
    s.add_argument("--turned-hands", type=float, default=0.0,
                   help="share of hands whose face-up tiles lie either way up (each turned "
                   "180 degrees with probability 1/2), as players leave them (0..1, default 0)")
    s.add_argument("--near-miss", type=float, default=0.0,
                   help="share of hands shown as a false win claim: one standing tile swapped "
                   "so the 14 tiles have no winning shape (truth wins: false; 0..1, default 0)")
    s.add_argument("--waiting", type=float, default=0.0,
                   help="share of hands shown one tile short, waiting: the tile set apart "
                   "for the win taken away (truth waiting: true, with its waits; 0..1, "
                   "default 0)")
    s.add_argument("--overwrite", action="store_true",
                   help="replace a set already in --out (its images, labels, truth, "
                   "data.yaml and manifest.json; nothing else there is touched)")
    s.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    s.add_argument("--quiet", action="store_true", help="no progress bar")
    s.add_argument("--list-art", action="store_true", help="list installed art sets and exit")
    s.set_defaults(func=run_synth)

    ph = dsub.add_parser(
        "photos",
        help="prepare the real photos (hk-photos) as a YOLO set split by stem",
        description="Map hk-photos classes to tile codes, fix or drop mirrored copies, "
        "carry each original's labels onto its augmented copies, split train/val by "
        "file-name stem.",
    )
    ph.add_argument("--src", type=Path, default=None,
                    help="hk-photos folder (default ../shared/datasets/hk-photos)")
    ph.add_argument("--out", type=Path, required=True, help="output folder")
    ph.add_argument("--val-fraction", type=float, default=0.2, help="share of stems for val")
    ph.add_argument("--seed", type=int, default=0, help="split seed (default 0)")
    ph.add_argument("--mirrored", choices=("fix", "drop"), default="fix",
                    help="what to do with mirrored copies (default fix; photos whose "
                    "handedness cannot be told are left out either way)")
    ph.add_argument("--labels-from", choices=("original", "export"), default="original",
                    help="augmented copies' labels: mapped from the un-augmented original "
                    "(default; the export's own are off the tiles on turned copies) or the "
                    "export's")
    ph.add_argument("--no-tighten", action="store_true",
                    help="photos whose every copy is turned keep their original's grown boxes "
                    "carried across (by default each tile's box is the five copies' boxes "
                    "intersected: vision/data/tighten.py)")
    ph.add_argument("--no-fill-cut", action="store_true",
                    help="keep boxes that the export's turn carried into the flat fill around a "
                    "copy (by default each box is cut to the picture and dropped when less "
                    "than half of it shows: vision/data/relabel.py cut_to_picture)")
    ph.add_argument("--no-cue", action="store_true",
                    help="take the tightest copy's handedness as real even where it is turned "
                    "(the build before the cross-photo cue, for comparison: about 42 photos "
                    "come out mirrored; by default such photos are judged against the "
                    "others: vision/data/handedness.py)")
    ph.add_argument("--no-label-fixes", action="store_true",
                    help="keep every label as exported (by default the labels listed in "
                    "vision/data/label_fixes.py, which contradict their tiles, are corrected)")
    ph.add_argument("--quiet", action="store_true", help="no progress lines")
    ph.set_defaults(func=run_photos)
    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])


def _imgsz(values: list[int]) -> tuple[int, int]:
    if len(values) == 1:
        return values[0], values[0]
    if len(values) == 2:
        return values[0], values[1]
    raise ValueError(f"--imgsz takes W or W H, got {len(values)} numbers")


#: What ``tilecam dataset synth`` writes in its ``--out`` folder.
SYNTH_OUTPUTS = ("images", "labels", "truth", "data.yaml", "manifest.json")


def _synth_set(out: Path, marker: str) -> bool:
    """Whether ``out`` holds a set ``tilecam dataset synth`` wrote: its marker (written
    before the first image, so an interrupted run's too) or its manifest."""
    if (out / marker).is_file():
        return True
    try:
        manifest = json.loads((out / "manifest.json").read_text())
    except (OSError, ValueError):
        return False
    return isinstance(manifest, dict) and manifest.get("generator") == "tilecam dataset synth"


def _make_room(out: Path, overwrite: bool) -> None:
    """Refuse to write into a folder that holds a set already (its files would mix with
    the new ones: 3 old images and 1 new under a manifest of 1), unless ``overwrite``,
    which removes the old set's outputs (:data:`SYNTH_OUTPUTS`) and nothing else."""
    import shutil

    from vision.synth.writer import MARKER

    found = [name for name in SYNTH_OUTPUTS if (out / name).exists()]
    if not found:
        return
    held = len(list((out / "images").glob("*"))) if (out / "images").is_dir() else 0
    if not _synth_set(out, MARKER):
        raise ValueError(f"{out} holds {', '.join(found)} that no synth run wrote ({held} "
                         "images; no manifest.json of tilecam dataset synth): --overwrite "
                         "replaces only a synthetic set; give another --out")
    if not overwrite:
        raise ValueError(f"{out} already holds a set ({held} images; {', '.join(found)}): "
                         "give --overwrite to replace it, or another --out")
    for name in (*found, MARKER):
        if not (out / name).exists():
            continue
        path = out / name
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink()


def check_art_spec(spec: str | None) -> None:
    """ValueError for an ``--art`` that says nothing (``--art ''``, which would mean
    ``default``) or removes a set that is not selected before it (a typo such as
    ``--art=default,-fluffyy`` would remove nothing and keep ``fluffy``)."""
    from vision.synth.art import ArtError, resolve_art_names

    if spec is None:
        return
    items = [s.strip() for s in spec.split(",")]
    if not any(items):
        raise ValueError("--art is empty: give art set names, 'default', 'all' or 'heldout'")
    for i, item in enumerate(items):
        if not item.startswith("-"):
            continue
        before_spec = ",".join(x for x in items[:i] if x)
        try:
            before = resolve_art_names(before_spec) if before_spec else []
        except ArtError:
            before = []
        if item[1:] not in before:
            chosen = ", ".join(before) or "none"
            raise ValueError(f"--art: {item} removes nothing: {item[1:]!r} is not among the "
                             f"sets selected before it ({chosen})")


def run_synth(args: argparse.Namespace) -> int:
    from vision.synth.art import (
        HELD_OUT,
        available_sets,
        check_art_names,
        default_sets,
        missing_art_hint,
        missing_default_sets,
        resolve_art_names,
    )

    if args.list_art:
        have = available_sets()
        realistic = set(default_sets())
        for name in have:
            tags = []
            if name in realistic:
                tags.append("default")
            if name == HELD_OUT:
                tags = ["held out of 'default' for validation"]
            print(f"{name}{'  (' + ', '.join(tags) + ')' if tags else ''}")
        if not have:
            print("no art installed: see datasets/synth.md")
        return 0
    if args.out is None:
        raise ValueError("--out DIR is required")
    if args.count < 1:
        raise ValueError(f"--count must be at least 1, got {args.count}")
    for name in ("hand_prob", "extras_prob", "face_up_kongs", "turned_hands", "near_miss",
                 "waiting"):
        v = getattr(args, name)
        if not 0.0 <= v <= 1.0:
            raise ValueError(f"--{name.replace('_', '-')} must be between 0 and 1, got {v}")
    if args.workers < 1:
        raise ValueError(f"--workers must be at least 1, got {args.workers}")
    width, height = _imgsz(args.imgsz)
    if not (32 <= width <= 4096 and 32 <= height <= 4096):  # before a set is removed
        raise ValueError(f"--imgsz must be 32..4096 pixels, got {width}x{height}")
    if args.seed < 0:
        raise ValueError(f"--seed must be 0 or more, got {args.seed}")

    check_art_spec(args.art)

    from vision.synth.writer import Progress, SynthConfig, generate

    cfg = SynthConfig(
        out=args.out, count=args.count, seed=args.seed, art=resolve_art_names(args.art),
        width=width, height=height, hand_prob=args.hand_prob, extras_prob=args.extras_prob,
        face_up_kongs=args.face_up_kongs, turned_hands=args.turned_hands,
        near_miss=args.near_miss, waiting=args.waiting, workers=args.workers,
    )
    check_art_names(cfg.art)
    if args.art in (None, "default") and (missing := missing_default_sets()):
        print("tilecam dataset synth: note: the default art leaves out "
              + ", ".join(f"{n} (not installed: {missing_art_hint(n)})" for n in missing)
              + "; the same command gives other images where they are installed",
              file=sys.stderr)
    _make_room(args.out, args.overwrite)  # every option checked: only now is a set removed
    bar = None if args.quiet else Progress(cfg.count)
    manifest = generate(cfg, bar.update if bar else None)
    print(f"wrote {manifest['images']} images ({manifest['tiles']} tiles) to {cfg.out} "
          f"in {manifest['seconds']} s ({manifest['images_per_second']} img/s); "
          f"art: {', '.join(manifest['art'])}")
    return 0


def stem_progress(stems: Iterable[str]) -> Iterator[str]:
    """``stems`` passed through, a line on stderr every 50 and at the end (the photos take
    minutes: hk-photos' 2,150 copies of 430 stems are read, judged and written)."""
    import sys
    import time

    todo = list(stems)
    start = time.perf_counter()
    for i, stem in enumerate(todo, 1):
        yield stem
        if i % 50 == 0 or i == len(todo):
            print(f"photos: {i}/{len(todo)} stems, {time.perf_counter() - start:.0f} s",
                  file=sys.stderr, flush=True)


def run_photos(args: argparse.Namespace) -> int:
    try:
        from vision.data.label_fixes import LABEL_FIXES
        from vision.data.photos import prepare_photos
    except ImportError as exc:
        raise ValueError(f"real-photo preparation is not available: {exc}") from None
    from vision.synth.art import shared_dir

    src = args.src or shared_dir() / "datasets" / "hk-photos"
    if not Path(src).is_dir():
        raise ValueError(f"hk-photos folder not found: {src} (use --src or TILECAM_SHARED)")
    if not 0.0 < args.val_fraction < 1.0:
        raise ValueError(f"--val-fraction must be between 0 and 1, got {args.val_fraction}")
    counts = prepare_photos(Path(src), args.out, val_fraction=args.val_fraction,
                            seed=args.seed, mirrored=args.mirrored,
                            labels_from=args.labels_from,
                            label_fixes=() if args.no_label_fixes else LABEL_FIXES,
                            tighten=not args.no_tighten, cut_fill=not args.no_fill_cut,
                            cue=not args.no_cue,
                            progress=None if args.quiet else stem_progress)
    print(json.dumps(counts))
    return 0
