"""What a 12-megapixel photo costs ``vision.recognize`` beside a 1280×960 one, and
whether it reads the same.

There is no real 12 MP table photo among the data, so the large photos are made:

- ``hk``: one copy of each hk-photos val photo (640 px, ``--hk DIR``), enlarged to
  4032 × 3024 (``INTER_CUBIC``) with mild noise (σ 2 grey levels) and saved as JPEG
  quality 92; its 1280 × 960 version is the photo enlarged to that size. Its
  *original* is the 640 px photo itself.
- ``synth-small``: overhead table scenes rendered at 4032 × 3024 by ``tilecam dataset
  synth --imgsz 4032 3024 --hand-prob 1 --extras-prob 0`` (tiles 20–120 px tall in the
  4032 px frame: small in it, about 6–38 px at 1280 × 960).
- ``synth-mid``: the same scenes with tiles 60–260 px tall in the 4032 px frame
  (:func:`vision.synth.scene.render_scene`, JPEG quality 92).

A synthetic scene's 1280 × 960 version is its render shrunk (``INTER_AREA``); its
original is the 4032 px render, whose truth gives every tile's code.

Each version is read end to end from its file, ``recognize(path)`` (decoding
included). The bench prints, per set:

- the median ms per photo of the 1280 × 960 version and of the 12 MP one, and the
  median over photos of the 12 MP version's time over the 1280 × 960 one's; beside them
  (a checkout with :data:`vision.imageio.READ_MIN_LONG_SIDE`) the 12 MP version read at
  full size throughout — the setting out of reach: what ``recognize`` did before it read
  large photos reduced. Each photo is timed ``--rounds`` times, the versions in
  alternating passes (:mod:`bench._timing`), so a slow spell of the machine falls on
  all alike;
- how many 12 MP photos were first read from their reduced picture and how many were
  read at full size (tiles too small in the reduced picture: their crops cut from the
  photo's pixels, :meth:`vision.detect.Detector.detect`; a checkout before that detected
  such a photo again at full size);
- agreement counts: the codes found (every tile's final code, as a multiset) on the
  12 MP version equal those found on it at full size (listing the photos that differ),
  those on the original (hk) or the truth's (synthetic; and the same for the 1280 × 960
  version and the full-size reading), those on the 1280 × 960 version, those found on
  the same 12 MP photo given as decoded pixels (as the service and ``tilecam recognize``
  give it: halved, where the file is decoded reduced by libjpeg), and, with
  ``--compare FILE`` (the ``--save`` of another run, e.g. from a checkout of the code
  before a change), those found on the same 12 MP photo by that run.

Usage::

    .venv/bin/python bench/large_photo_bench.py [--photos 78] [--synth 24] [--mid 24]
        [--rounds 3] [--work /tmp/large_photo_bench] [--save FILE] [--compare FILE]
        [--fine-px PX] [--json]

``--fine-px`` sets :data:`vision.zoom.FINE_TILE_PX` (the tile size in the reduced
picture under which a photo's crops are cut at full size) for the run.

The test photos are made once into ``--work`` and reused. To measure the code before a
change, run this file from a worktree of it (``git worktree add``): the bench imports
``vision`` from the checkout it lies in.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from _timing import side_by_side_ms  # bench/ is on sys.path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

BIG = (4032, 3024)
SMALL = (1280, 960)
QUALITY = 92
SEED = 7612


def _read(path: Path) -> np.ndarray:
    img = cv2.imread(str(path))
    if img is None:
        raise OSError(f"could not read {path}")
    return img


def _write_jpeg(path: Path, img: np.ndarray) -> None:
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, QUALITY])
    if not ok:
        raise OSError(f"could not encode {path}")
    path.write_bytes(buf.tobytes())


def make_hk(src: Path, out: Path, count: int) -> list[dict[str, Any]]:
    """One copy of each of the first ``count`` val photos (by source name), enlarged."""
    out.mkdir(parents=True, exist_ok=True)
    first: dict[str, Path] = {}
    for f in sorted(src.glob("*.jpg")):
        first.setdefault(f.name.split(".rf.")[0], f)
    items = []
    for k, (stem, f) in enumerate(sorted(first.items())[:count]):
        big, small = out / f"{stem}-12mp.jpg", out / f"{stem}-1280.jpg"
        if not (big.exists() and small.exists()):
            img = _read(f)
            noise = np.random.default_rng([SEED, k]).normal(0.0, 2.0, (BIG[1], BIG[0], 3))
            up = cv2.resize(img, BIG, interpolation=cv2.INTER_CUBIC).astype(np.float64)
            _write_jpeg(big, np.clip(up + noise, 0, 255).astype(np.uint8))
            _write_jpeg(small, cv2.resize(img, SMALL, interpolation=cv2.INTER_CUBIC))
        items.append({"name": stem, "original": str(f), "12mp": str(big), "1280": str(small)})
    return items


def _truth_codes(truth: dict[str, Any]) -> list[str]:
    return sorted(str(t["label"]) for t in truth["tiles"])


def _shrunk_versions(images: list[Path], out: Path) -> list[dict[str, Any]]:
    items = []
    for big in images:
        small = out / f"{big.stem}-1280.jpg"
        if not small.exists():
            img = _read(big)
            _write_jpeg(small, cv2.resize(img, SMALL, interpolation=cv2.INTER_AREA))
        truth = json.loads((big.parent.parent / "truth" / f"{big.stem}.json").read_text())
        items.append({"name": big.stem, "12mp": str(big), "1280": str(small),
                      "truth": _truth_codes(truth)})
    return items


def make_synth_small(out: Path, count: int) -> list[dict[str, Any]]:
    """``count`` scenes by ``tilecam dataset synth`` at 4032 × 3024 (small tiles)."""
    if not (out / "images").is_dir() or len(list((out / "images").glob("*.jpg"))) != count:
        tilecam = Path(sys.executable).with_name("tilecam")
        subprocess.run([str(tilecam), "dataset", "synth", "--out", str(out), "--count",
                        str(count), "--seed", str(SEED), "--imgsz", str(BIG[0]), str(BIG[1]),
                        "--hand-prob", "1", "--extras-prob", "0", "--overwrite", "--quiet"],
                       check=True)
    return _shrunk_versions(sorted((out / "images").glob("*.jpg")), out)


def make_synth_mid(out: Path, count: int) -> list[dict[str, Any]]:
    """``count`` scenes rendered at 4032 × 3024 with tiles 60–260 px tall."""
    from vision.synth.art import load_art, resolve_art_names
    from vision.synth.scene import SceneOptions, render_scene

    for sub in ("images", "truth"):
        (out / sub).mkdir(parents=True, exist_ok=True)
    arts = None
    for i in range(count):
        img_path = out / "images" / f"{i:06d}.jpg"
        if img_path.exists():
            continue
        arts = arts or [load_art(a) for a in resolve_art_names(None)]
        rng = np.random.default_rng([SEED + 1, i])
        art = arts[int(rng.integers(0, len(arts)))]
        opts = SceneOptions(width=BIG[0], height=BIG[1], hand_prob=1.0, extras_prob=0.0,
                            min_tile_px=60.0, max_tile_px=260.0)
        scene = render_scene(art, rng, opts)
        _write_jpeg(img_path, np.ascontiguousarray(scene.image[..., ::-1]))
        (out / "truth" / f"{i:06d}.json").write_text(json.dumps(scene.truth) + "\n")
    return _shrunk_versions(sorted((out / "images").glob("*.jpg"))[:count], out)


class ReadSizes:
    """Records the size of every picture :meth:`vision.detect.Detector.detect` is given
    (a detector's whole-photo reads and the level re-reads alike); given a reduced
    :class:`vision.imageio.Photo`, its picture's size, then the photo's when the detector
    asked for its pixels (crops cut at full size)."""

    def __init__(self) -> None:
        from vision.detect import Detector

        self.seen: list[tuple[int, int]] = []
        original = Detector.detect

        def detect(det: Any, image: Any, **kw: Any) -> Any:
            picture = getattr(image, "picture", image)  # a Photo: its picture
            shape = getattr(picture, "shape", None)
            self.seen.append((int(shape[1]), int(shape[0])) if shape is not None else (0, 0))
            found = original(det, image, **kw)
            if getattr(image, "reduced", False) and getattr(image, "has_pixels", False):
                self.seen.append(tuple(image.size))
            return found

        setattr(Detector, "detect", detect)  # noqa: B010 (a bench's probe, this process only)


def reading(rec: Any) -> dict[str, Any]:
    return {"codes": sorted(rec.codes), "hand": rec.hand_text,
            "load_ms": round(float(rec.ms.get("load", 0.0)), 1)}


def full_size_switch() -> Any:
    """A context manager that has ``recognize`` read every photo at full size (the code
    before the reduced reading: :data:`vision.imageio.READ_MIN_LONG_SIDE` out of reach),
    or None when this checkout has no such setting (it reads them so anyway)."""
    import contextlib

    import vision.imageio

    if not hasattr(vision.imageio, "READ_MIN_LONG_SIDE"):
        return None

    @contextlib.contextmanager
    def at_full_size() -> Any:
        kept = vision.imageio.READ_MIN_LONG_SIDE
        vision.imageio.READ_MIN_LONG_SIDE = 1 << 30
        try:
            yield
        finally:
            vision.imageio.READ_MIN_LONG_SIDE = kept

    return at_full_size


def _count_same(codes: list[list[str]], others: list[list[str]]) -> int:
    return sum(a == b for a, b in zip(codes, others, strict=True))


def run_set(name: str, items: list[dict[str, Any]], rounds: int, sizes: ReadSizes,
            before: dict[str, Any] | None) -> dict[str, Any]:
    from vision.recognize import recognize

    switch = full_size_switch()

    def at_full_size(path: str) -> Any:
        assert switch is not None
        with switch():
            return recognize(path)

    for item in items:
        for version in ("original", "1280", "12mp"):
            if version not in item:
                continue
            sizes.seen.clear()
            item[f"read_{version}"] = reading(recognize(item[version]))
            if version == "12mp":  # the first detection's picture: full size or reduced
                item["reduced"] = bool(sizes.seen) and max(sizes.seen[0]) < max(BIG)
                item["full_size_read"] = any(s in (BIG, BIG[::-1]) for s in sizes.seen)
        if switch is not None:
            item["read_12mp_full"] = reading(at_full_size(item["12mp"]))
        # the same photo given as pixels (as the service and ``tilecam recognize`` give it)
        item["read_12mp_pixels"] = reading(recognize(_read(Path(item["12mp"]))))
    calls: list[tuple[Any, list[str]]] = [(recognize, [i["1280"] for i in items])]
    if switch is not None:
        calls.append((at_full_size, [i["12mp"] for i in items]))
    calls.append((recognize, [i["12mp"] for i in items]))
    timed = side_by_side_ms(calls, rounds)
    codes = [i["read_12mp"]["codes"] for i in items]
    out: dict[str, Any] = {
        "photos": len(items),
        "ms_1280": round(timed[0]["median"], 1),
        "ms_12mp": round(timed[-1]["median"], 1),
        "ratio_12mp_to_1280": round(timed[-1]["ratio_to_first"], 2),
        "load_ms_12mp": round(statistics.median(i["read_12mp"]["load_ms"] for i in items), 1),
        "read_reduced": sum(bool(i.get("reduced")) for i in items),
        "read_at_full_size": sum(bool(i.get("full_size_read")) for i in items),
        "same_as_1280": _count_same(codes, [i["read_1280"]["codes"] for i in items]),
        "same_as_pixels": _count_same(codes, [i["read_12mp_pixels"]["codes"] for i in items]),
    }
    full = [i["read_12mp_full"]["codes"] for i in items] if switch is not None else None
    if full is not None:
        out["ms_12mp_full_size"] = round(timed[1]["median"], 1)
        out["ratio_12mp_full_size_to_1280"] = round(timed[1]["ratio_to_first"], 2)
        out["same_as_full_size"] = _count_same(codes, full)
        out["differ_from_full_size"] = [
            {"photo": i["name"], "now": i["read_12mp"]["hand"],
             "full_size": i["read_12mp_full"]["hand"]}
            for i in items if i["read_12mp"]["codes"] != i["read_12mp_full"]["codes"]]
    for key, theirs in (("original", "read_original"), ("truth", None)):
        if key not in items[0]:
            continue
        want = [i[theirs]["codes"] if theirs else i["truth"] for i in items]
        out[f"same_as_{key}"] = _count_same(codes, want)
        out[f"1280_same_as_{key}"] = _count_same([i["read_1280"]["codes"] for i in items], want)
        if full is not None:
            out[f"full_size_same_as_{key}"] = _count_same(full, want)
    if before is not None:
        them = {i["name"]: i for i in before.get(name, {}).get("items", [])}
        common = [i for i in items if i["name"] in them]
        out["compared"] = len(common)
        out["same_as_compared"] = sum(
            i["read_12mp"]["codes"] == them[i["name"]]["read_12mp"]["codes"] for i in common)
        out["differ_from_compared"] = [
            {"photo": i["name"], "now": i["read_12mp"]["hand"],
             "compared": them[i["name"]]["read_12mp"]["hand"]}
            for i in common if i["read_12mp"]["codes"] != them[i["name"]]["read_12mp"]["codes"]]
    return {"summary": out, "items": items}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hk", type=Path, default=REPO / "datasets/build/hk-photos/images/val",
                    help="folder of the 640 px photos (default: hk-photos val)")
    ap.add_argument("--photos", type=int, default=78, help="hk photos (default 78: all)")
    ap.add_argument("--synth", type=int, default=24, help="small-tile scenes (default 24)")
    ap.add_argument("--mid", type=int, default=24, help="mid-size-tile scenes (default 24)")
    ap.add_argument("--rounds", type=int, default=3, help="timed calls per photo (default 3)")
    ap.add_argument("--work", type=Path, default=Path("/tmp/large_photo_bench"),
                    help="where the test photos are made (default /tmp/large_photo_bench)")
    ap.add_argument("--save", type=Path, help="write every reading to this JSON file")
    ap.add_argument("--compare", type=Path, help="a --save of another run to compare with")
    ap.add_argument("--fine-px", type=float, default=None,
                    help="vision.zoom.FINE_TILE_PX for this run (default: as shipped)")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args(argv)
    if args.rounds < 1:
        ap.error("--rounds must be at least 1")

    import vision
    from vision.detect import load_detector

    if args.fine_px is not None:
        import vision.zoom

        if not hasattr(vision.zoom, "FINE_TILE_PX"):
            ap.error("--fine-px: this checkout's vision.zoom has no FINE_TILE_PX")
        vision.zoom.FINE_TILE_PX = args.fine_px
    load_detector()
    sizes = ReadSizes()
    before = json.loads(args.compare.read_text()) if args.compare else None
    sets: list[tuple[str, list[dict[str, Any]]]] = []
    if args.photos > 0:
        sets.append(("hk", make_hk(args.hk, args.work / "hk", args.photos)))
    if args.synth > 0:
        sets.append(("synth-small", make_synth_small(args.work / "synth-small", args.synth)))
    if args.mid > 0:
        sets.append(("synth-mid", make_synth_mid(args.work / "synth-mid", args.mid)))
    result: dict[str, Any] = {"vision": str(Path(vision.__file__).parent),
                              "fine_px": getattr(sys.modules.get("vision.zoom"), "FINE_TILE_PX",
                                                 None),
                              "cpu_cores": len(os.sched_getaffinity(0)),
                              "load_average": round(os.getloadavg()[0], 2)}
    for name, items in sets:
        result[name] = run_set(name, items, args.rounds, sizes, before)
    if args.save:
        args.save.write_text(json.dumps(result) + "\n")
    summary = {name: result[name]["summary"] for name, _ in sets}
    if args.json:
        print(json.dumps({k: v for k, v in result.items() if k not in summary} | summary,
                         indent=1))
        return 0
    print(f"vision from {result['vision']} (FINE_TILE_PX {result['fine_px']}); "
          f"{result['cpu_cores']} cores, load average {result['load_average']}")
    for name, s in summary.items():
        print(f"{name}: {s['photos']} photos; median ms 1280×960 {s['ms_1280']}, 12 MP "
              f"{s['ms_12mp']} ({s['ratio_12mp_to_1280']}× per photo; load "
              f"{s['load_ms_12mp']} ms); 12 MP first read reduced {s['read_reduced']}, "
              f"read at full size {s['read_at_full_size']}")
        if "ms_12mp_full_size" in s:
            print(f"  12 MP read at full size throughout (the code before): "
                  f"{s['ms_12mp_full_size']} ms ({s['ratio_12mp_full_size_to_1280']}× per "
                  f"photo); codes the same as now: {s['same_as_full_size']}/{s['photos']}")
            for d in s["differ_from_full_size"]:
                print(f"    {d['photo']}: now {d['now']}, at full size {d['full_size']}")
        for key, what in (("original", "the original's"), ("truth", "the truth's")):
            if f"same_as_{key}" in s:
                line = (f"  codes = {what}: 12 MP {s[f'same_as_{key}']}/{s['photos']}, "
                        f"1280×960 {s[f'1280_same_as_{key}']}")
                if f"full_size_same_as_{key}" in s:
                    line += f", 12 MP at full size {s[f'full_size_same_as_{key}']}"
                print(line)
        print(f"  12 MP codes = 1280×960 codes: {s['same_as_1280']}/{s['photos']}; = the "
              f"same photo's given as pixels: {s['same_as_pixels']}/{s['photos']}")
        if "compared" in s:
            print(f"  12 MP codes = --compare run's: {s['same_as_compared']}/{s['compared']}")
            for d in s["differ_from_compared"]:
                print(f"    {d['photo']}: now {d['now']}, compared {d['compared']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
