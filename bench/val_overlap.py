"""How much of the real-photo validation figure rests on tiles the training photos show too.

The hk-photos are split into train and val **by source photo** (file-name stem), so no
copy of a val photo is trained on. But the project photographed the same tiles more
than once: one hand from two angles, the eight flowers laid out again, four tiles moved
about on a table. Such a val photo shows exactly the tiles of a training photo, though
never the same picture. This bench asks whether the val figure leans on them.

For each val photo (its original copy, :func:`vision.evaluate.original_copies`) it finds
the training photo whose labelled tiles overlap most, as a multiset
(:func:`tile_overlap`: shared tiles over the larger count; 1.0 = the same tiles), and
reports ``tilecam eval``'s figures (IoU 0.5, the detector's own thresholds, every copy)
for the val photos in each band of that overlap:

- ``same tiles``: overlap 1.0 — a training photo shows exactly these tiles;
- ``most tiles``: overlap from 0.8;
- ``others``: under 0.8.

Only the labels are compared, not the pictures: the same tiles in another arrangement
count as the same. The photos held out of this project (which the model is also judged
on) come from the same project, so they can show tiles of its training photos just as
often; the figure over all val photos stays the one to quote, this bench says how much
of it the first band carries.

Usage::

    .venv/bin/python bench/val_overlap.py [--data datasets/build/hk-photos] [--model-dir M]
        [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from vision.classes import CLASSES  # noqa: E402
from vision.data.photos import source_stem  # noqa: E402
from vision.evaluate import ImageResult, Sample, all_right_interval  # noqa: E402

#: Bands of the best overlap with a training photo: (name, lowest overlap), highest first.
BANDS: tuple[tuple[str, float], ...] = (("same tiles", 1.0), ("most tiles", 0.8), ("others", 0.0))


def tile_overlap(a: Counter[str], b: Counter[str]) -> float:
    """Tiles two photos share (multiset intersection) over the larger photo's count.

    >>> tile_overlap(Counter("1m 1m 2m".split()), Counter("1m 2m 2m".split()))
    0.6666666666666666
    >>> tile_overlap(Counter(["E", "E"]), Counter(["E", "E"]))
    1.0
    >>> tile_overlap(Counter(), Counter())
    0.0
    """
    larger = max(sum(a.values()), sum(b.values()))
    return sum((a & b).values()) / larger if larger else 0.0


def tiles_by_photo(samples: Sequence[Sample]) -> dict[str, Counter[str]]:
    """``{stem: tile codes}`` of each photo's original copy (``samples``: one split)."""
    from vision.evaluate import original_copies

    return {source_stem(s.image.name): Counter(CLASSES[i] for i in s.class_ids)
            for s in original_copies(samples)}


def closest(val: dict[str, Counter[str]],
            train: dict[str, Counter[str]]) -> dict[str, tuple[float, str | None]]:
    """``{val stem: (best overlap, training stem with it)}``; ``(0.0, None)`` when no
    training photo shares a tile. Ties go to the first training stem in sorted order."""
    out: dict[str, tuple[float, str | None]] = {}
    for stem, tiles in val.items():
        best: tuple[float, str | None] = (0.0, None)
        for other in sorted(train):
            o = tile_overlap(tiles, train[other])
            if o > best[0]:
                best = (o, other)
        out[stem] = best
    return out


def band(overlap: float) -> str:
    """The :data:`BANDS` name of an overlap.

    >>> band(1.0), band(0.85), band(0.5)
    ('same tiles', 'most tiles', 'others')
    """
    return next(name for name, low in BANDS if overlap >= low)


def band_figures(results: Sequence[ImageResult],
                 overlaps: dict[str, tuple[float, str | None]]) -> list[dict[str, Any]]:
    """Per band, then ``all`` and ``all but same tiles``: photos, copies, tile F1 and the
    share of copies with every tile right, with its 95 % interval by source photo.
    ``results``: one per val copy."""
    groups: dict[str, list[ImageResult]] = {name: [] for name, _ in BANDS}
    for r in results:
        groups[band(overlaps.get(source_stem(r.image), (0.0, None))[0])].append(r)
    rows = []
    rest = [r for name, rs in groups.items() if name != BANDS[0][0] for r in rs]
    for name, rs in [*groups.items(), ("all", list(results)), ("all but same tiles", rest)]:
        right = sum(r.right for r in rs)
        found = right + sum(r.false_pos for r in rs)
        true = sum(r.n_true for r in rs)
        p = right / found if found else 0.0
        rc = right / true if true else 0.0
        lo, hi = all_right_interval(rs)
        rows.append({
            "band": name,
            "photos": len({source_stem(r.image) for r in rs}),
            "copies": len(rs),
            "f1": round(2 * p * rc / (p + rc), 4) if p + rc else 0.0,
            "images_all_right": round(sum(r.all_right for r in rs) / len(rs), 4) if rs else 0.0,
            "interval": [round(lo, 4), round(hi, 4)],
        })
    return rows


def measure(data: Path, model_dir: str | None) -> dict[str, Any]:
    """The bands' figures and each val photo's closest training photo."""
    from vision.detect import detection_scores, evaluation_detector
    from vision.evaluate import evaluate, load_dataset

    try:
        val, train = load_dataset(data, "val"), load_dataset(data, "train")
    except ValueError as exc:
        raise SystemExit(f"val_overlap: {exc}") from None
    overlaps = closest(tiles_by_photo(val), tiles_by_photo(train))
    setup = evaluation_detector(model_dir)  # as `tilecam eval` runs it
    report = evaluate(val, setup.detector.detect, conf=setup.conf, score=detection_scores,
                      thresholds=setup.thresholds, operating=setup.operating.detect
                      if setup.operating is not None else None)
    return {
        "dataset": str(data),
        "model": setup.detector.name,
        "bands": band_figures(report.results, overlaps),
        "closest": {k: {"overlap": round(o, 4), "train": t}
                    for k, (o, t) in sorted(overlaps.items())},
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=REPO / "datasets" / "build" / "hk-photos")
    ap.add_argument("--model-dir")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    out = measure(args.data, args.model_dir)
    if args.json:
        print(json.dumps(out, ensure_ascii=False))
        return 0
    print(f"{out['dataset']} val, model {out['model']}: bands by the closest training photo")
    print(f"{'band':<18} {'photos':>6} {'copies':>6} {'F1':>6} {'all right':>9}  95 % interval")
    for r in out["bands"]:
        lo, hi = r["interval"]
        print(f"{r['band']:<18} {r['photos']:>6} {r['copies']:>6} {r['f1']:>6.3f} "
              f"{100 * r['images_all_right']:>8.1f}%  {100 * lo:.1f}-{100 * hi:.1f}%")
    same = [(k, v) for k, v in out["closest"].items() if v["overlap"] >= 1.0]
    if same:
        print("same tiles as a training photo:")
        for k, v in same:
            print(f"  {k}  ~  {v['train']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
