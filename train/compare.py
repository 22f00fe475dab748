"""Compare candidate model folders on the choice data or the report sets, one row each.

The protocol of the model card's recipe (steps 36–38): a candidate is **chosen** on
*choice* data only — the first 400 training copies (all, and those of the photos whose
labels are trustworthy on turned tiles), held-out art set v1, and the end-to-end scenes of
the training art ``tune1280``, ``choice2`` and ``turned-choice`` (hands left either way
up), since the thirtieth session its hands that do not win (``false claims``, ``waiting``:
no more scored as wins), and since the thirty-seventh the held-out art's own choice scenes
(``choice-heldout``, ``choice-heldout-table``: other seeds than the report sets, for rules
aimed at unseen art), and since the thirty-ninth all training copies' tile multisets
through ``recognize`` (``train multisets``) — and **reported** on the *report* sets (hk
val in four selections, held-out art v2, the val photos' tile multisets through
``recognize``, the end-to-end held-out-art scenes, ``turned-heldout`` among them, and the
held-out art's hands that do not win). The report sets never choose. Until the
forty-fourth session a candidate shipped only if no choice figure was below the shipped
model's; since the forty-fifth it ships when ``paired`` against the shipped model on the
choice data finds **no figure worse and at least one better**; among several such
candidates, the one with the most figures better, then the largest sum over the figures
of units better minus units worse.

Every figure is one documented command (``--dry-run`` prints them): ``tilecam eval`` for
tile F1 and photos all right, ``bench/layout_eval.py`` for exact hands (end to end) and
photo multisets. The scene sets are made by their recipes (README, ``datasets/synth.md``)
when missing, with ``--make-sets``; a missing set is otherwise reported as missing.

usage: .venv/bin/python train/compare.py choice|report MODEL_DIR [MODEL_DIR ...]
           [--make-sets] [--dry-run] [--json] [--only NAME ...] [--save DIR]
       .venv/bin/python train/compare.py paired BASE_SAVED CAND_SAVED [--alpha A] [--json]

``--save DIR`` keeps each column's whole JSON result as ``DIR/<label>/<column>.json``
(``<label>``: the model folder's path, ``/`` as ``_``). ``paired BASE CAND`` then compares
two such saved folders item by item — the same photos and scenes read by both models — with
an exact sign test on the items only one of them gets wrong (McNemar's test; a photo's
export copies count as one unit, worse when the candidate gets more of them wrong): a column's
figure is *worse* (or *better*) only when so many more items go wrong one way that chance
would do it less than once in 20 (one-sided). Figures that move by a scene or two are
*level*: with the same 200 scenes, one model's 2 misreads more are within chance. A
candidate **passes** when no figure is worse by that test. Each saved result carries a
digest of its set's labels (``_labels``, :func:`labels_digest`); two results read against
different labels (the photos rebuilt or the scenes regenerated in between) are not paired::

    .venv/bin/python train/compare.py choice models /tmp/m-cand --save /tmp/cmp
    .venv/bin/python train/compare.py paired /tmp/cmp/models /tmp/cmp/_tmp_m-cand

Rows are model folders (``models`` is the shipped one); columns the measurements, as
``F1 / all right %`` (``tilecam eval``), ``exact / MCR score right %`` (scenes) or
``top-1 / corrected %`` (photo multisets) or ``read right / scored as a win %`` (hands
that do not win: false win claims and hands one tile short; the second figure is the error a
referee must not make, lower is better).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vision.data.photos import source_stem

REPO = Path(__file__).resolve().parents[1]
PY = str(REPO / ".venv" / "bin" / "python")
TILECAM = str(REPO / ".venv" / "bin" / "tilecam")
PHOTOS = "datasets/build/hk-photos"
GENERATED = "datasets/generated"


@dataclass(frozen=True)
class SceneSet:
    """A generated set and the ``tilecam dataset synth`` arguments that make it."""

    path: str
    synth: tuple[str, ...]

    def command(self) -> list[str]:
        return [TILECAM, "dataset", "synth", "--out", self.path, *self.synth]


_TABLE = ("--imgsz", "1280", "960", "--hand-prob", "1")
#: the scene sets of the protocol, by name (recipes: README "Reading a hand", datasets/synth.md)
SETS: dict[str, SceneSet] = {
    "v1": SceneSet(f"{GENERATED}/synth-val-heldout",
                   ("--count", "200", "--seed", "2", "--art", "heldout")),
    "v2": SceneSet(f"{GENERATED}/synth-val-heldout-v2",
                   ("--count", "200", "--seed", "4", "--art", "heldout")),
    "layout-eval-heldout": SceneSet(
        f"{GENERATED}/layout-eval-heldout",
        ("--count", "200", "--seed", "3", "--art", "heldout", "--hand-prob", "1",
         "--extras-prob", "0")),
    "tune1280": SceneSet("/tmp/s3/tune1280",
                         ("--count", "80", "--seed", "555", "--art", "default", *_TABLE)),
    "choice2": SceneSet("/tmp/s8/choice2",
                        ("--count", "300", "--seed", "556", "--art", "default", *_TABLE)),
    "heldoutB": SceneSet("/tmp/heldoutB",
                         ("--count", "100", "--seed", "777", "--art", "heldout", *_TABLE)),
    "heldoutC": SceneSet("/tmp/s9/heldoutC",
                         ("--count", "100", "--seed", "778", "--art", "heldout", *_TABLE)),
    # hands whose face-up tiles lie either way up, as players leave them (twenty-first
    # session): the training art with table extras (choice), the held-out art (report)
    "turned-choice": SceneSet("/tmp/s21/turned-choice",
                              ("--count", "300", "--seed", "5", "--art", "default", *_TABLE,
                               "--turned-hands", "1")),
    "turned-heldout": SceneSet("/tmp/s21/turned-heldout",
                               ("--count", "200", "--seed", "3", "--art", "heldout",
                                "--hand-prob", "1", "--extras-prob", "0",
                                "--turned-hands", "1")),
    # hands that do not win (thirtieth session, README "Hands that do not win"): false win
    # claims and hands one tile short, training art at the table (choice) and held-out art
    "false-claims": SceneSet("/tmp/nm/table",
                             ("--count", "200", "--seed", "5", "--art", "default", *_TABLE,
                              "--near-miss", "1")),
    "waiting": SceneSet("/tmp/nm/wait-table",
                        ("--count", "200", "--seed", "5", "--art", "default", *_TABLE,
                         "--waiting", "1", "--near-miss", "0.5")),
    "false-claims-heldout": SceneSet("/tmp/nm/heldout",
                                     ("--count", "200", "--seed", "3", "--art", "heldout",
                                      "--hand-prob", "1", "--extras-prob", "0",
                                      "--near-miss", "1")),
    # the held-out art's hands for choosing rules aimed at unseen art (thirty-seventh
    # session): other seeds than the report sets', the same two framings
    "choice-heldout": SceneSet("/tmp/s37/sets/choice-heldout",
                               ("--count", "200", "--seed", "901", "--art", "heldout",
                                "--hand-prob", "1", "--extras-prob", "0")),
    "choice-heldout-table": SceneSet("/tmp/s37/sets/choice-heldout-table",
                                     ("--count", "100", "--seed", "902", "--art", "heldout",
                                      *_TABLE)),
    "waiting-heldout": SceneSet("/tmp/nm/wait-heldout",
                                ("--count", "200", "--seed", "3", "--art", "heldout",
                                 "--hand-prob", "1", "--extras-prob", "0", "--waiting", "1")),
}


@dataclass(frozen=True)
class Measure:
    """One column: how to measure a model folder and which set it needs."""

    name: str
    kind: str  # "eval" (tilecam eval), "scenes" (layout_eval synth), "photos" (multisets),
    #            "not_winning" (layout_eval synth on a set of hands that do not win)
    args: tuple[str, ...] = ()
    needs: str | None = None  # a key of SETS

    def folder(self) -> str:
        """The set this column reads: its scene set, else the real photos."""
        return SETS[self.needs].path if self.needs else PHOTOS

    def command(self, model_dir: str) -> list[str]:
        where = self.folder()
        if self.kind == "eval":
            return [TILECAM, "eval", where, *self.args, "--model-dir", model_dir, "--json"]
        if self.kind in ("scenes", "not_winning"):
            return [PY, "bench/layout_eval.py", "--json", "synth", where, "--detector",
                    "--model-dir", model_dir, *self.args]
        return [PY, "bench/layout_eval.py", "--json", "photos", where, "--model-dir", model_dir,
                *self.args]

    def figure(self, result: dict[str, Any]) -> str:
        """The cell text for one JSON result.

        >>> Measure("x", "eval").figure({"f1": 0.93241, "images_all_right": 0.6552})
        '0.9324 / 65.5'
        >>> Measure("x", "scenes").figure({"exact_end_to_end": 0.28,
        ...                                "same_mcr_score_end_to_end": 0.63})
        '28.0 / 63.0'
        >>> Measure("x", "not_winning").figure({"waiting_scenes": {
        ...     "end_to_end_read_right": 0.52, "end_to_end_scored_as_win": 0.045}})
        '52.0 / 4.5'
        """
        if self.kind == "eval":
            return f"{result['f1']:.4f} / {100 * result['images_all_right']:.1f}"
        if self.kind == "scenes":
            return (f"{100 * result['exact_end_to_end']:.1f} / "
                    f"{100 * result['same_mcr_score_end_to_end']:.1f}")
        if self.kind == "not_winning":
            tally = result.get("near_miss_scenes") or result["waiting_scenes"]
            return (f"{100 * tally['end_to_end_read_right']:.1f} / "
                    f"{100 * tally['end_to_end_scored_as_win']:.1f}")
        return (f"{100 * result['exact_multiset_top1']:.1f} / "
                f"{100 * result['exact_multiset_corrected']:.1f}")


#: Per kind of column, its paired figures: (figure name, key of the list of items it gets
#: wrong in the column's JSON result). ``scored as a win`` counts an error, so its wrong
#: items are the scenes scored as wins.
PAIRED_FIGURES: dict[str, tuple[tuple[str, str], ...]] = {
    "eval": (("all right", "not_all_right"),),
    "scenes": (("exact", "end_to_end_not_exact"),
               ("MCR score right", "end_to_end_not_same_mcr_score")),
    "not_winning": (("read right", "end_to_end_not_read_right"),
                    ("not scored as a win", "end_to_end_scored_as_win_scenes")),
    "photos": (("top-1", "not_exact_multiset_top1"),
               ("corrected", "not_exact_multiset_corrected")),
}


def item_count(kind: str, result: dict[str, Any]) -> int:
    """How many items (photos, scenes) a column's JSON result read.

    >>> item_count("eval", {"images": 400})
    400
    >>> item_count("not_winning", {"scenes": 0, "waiting_scenes": {"scenes": 200}})
    200
    """
    if kind == "eval":
        return int(result["images"])
    if kind == "photos":
        return int(result["photos"])
    if kind == "not_winning":
        tally = result.get("near_miss_scenes") or result["waiting_scenes"]
        return int(tally["scenes"])
    return int(result["scenes"])


def wrong_items(kind: str, key: str, result: dict[str, Any]) -> set[str]:
    """The items a column's JSON result got wrong for one paired figure (``key``)."""
    if kind == "not_winning":
        result = result.get("near_miss_scenes") or result["waiting_scenes"]
    if key not in result:
        raise KeyError(f"the saved result has no {key!r} list (saved before the per-item "
                       "lists existed? measure again with --save)")
    return set(result[key])


def sign_test(worse: int, better: int) -> float:
    """One-sided exact sign test: the chance of ``worse`` or more of the ``worse + better``
    discordant items going one way when each way is equally likely (McNemar's exact test).

    >>> sign_test(0, 0)
    1.0
    >>> round(sign_test(5, 0), 4)  # five items worse, none better: 1/32
    0.0312
    >>> round(sign_test(3, 1), 4)
    0.3125
    """
    n = worse + better
    if n == 0:
        return 1.0
    return float(sum(math.comb(n, k) for k in range(worse, n + 1)) / 2 ** n)


@dataclass(frozen=True)
class Paired:
    """One figure of one column, base against candidate on the same items."""

    column: str
    figure: str
    items: int
    base_right: int
    cand_right: int
    # units (a scene, or a photo with its export copies) the candidate gets more of wrong
    # than the base, and fewer
    worse: int
    better: int
    alpha: float = 0.05

    @property
    def p_worse(self) -> float:
        return sign_test(self.worse, self.better)

    @property
    def p_better(self) -> float:
        return sign_test(self.better, self.worse)

    @property
    def verdict(self) -> str:
        """``worse``, ``better`` or ``level`` at the one-sided level ``alpha``.

        >>> Paired("c", "exact", 200, 70, 64, worse=6, better=0).verdict
        'worse'
        >>> Paired("c", "exact", 200, 70, 68, worse=3, better=1).verdict
        'level'
        """
        if self.p_worse < self.alpha:
            return "worse"
        if self.p_better < self.alpha:
            return "better"
        return "level"

    def row(self) -> str:
        pct = 100 / max(self.items, 1)
        return (f"{self.column} | {self.figure} | {self.items} | "
                f"{self.base_right * pct:.1f} → {self.cand_right * pct:.1f} | "
                f"+{self.better} −{self.worse} | {min(self.p_worse, self.p_better):.3f} | "
                f"{self.verdict}")


def pair_results(column: str, kind: str, base: dict[str, Any], cand: dict[str, Any],
                 alpha: float = 0.05) -> list[Paired]:
    """The paired figures of one column from the two models' saved JSON results
    (``ValueError`` when they read different items or, both saved with a digest of their
    set's labels, different labels)."""
    digests = base.get("_labels"), cand.get("_labels")
    if all(digests) and digests[0] != digests[1]:
        raise ValueError(f"{column}: measured against different labels ({digests[0]} and "
                         f"{digests[1]}: the set was rebuilt in between) — measure the base "
                         "again")
    n = item_count(kind, base)
    if item_count(kind, cand) != n:
        raise ValueError(f"{column}: the two results read {n} and {item_count(kind, cand)} "
                         "items — not the same set")
    out = []
    for figure, key in PAIRED_FIGURES[kind]:
        bad_base, bad_cand = wrong_items(kind, key, base), wrong_items(kind, key, cand)
        # a photo's export copies are not independent items: compare per source photo, by
        # how many of its copies each model gets wrong (a scene is its own unit)
        per_base = Counter(map(source_stem, bad_base))
        per_cand = Counter(map(source_stem, bad_cand))
        units = set(per_base) | set(per_cand)
        out.append(Paired(column, figure, n, n - len(bad_base), n - len(bad_cand),
                          worse=sum(per_cand[u] > per_base[u] for u in units),
                          better=sum(per_cand[u] < per_base[u] for u in units),
                          alpha=alpha))
    return out


def save_label(model_dir: str) -> str:
    """The folder name under ``--save`` for a model folder.

    >>> save_label("/tmp/m-cand/")
    '_tmp_m-cand'
    >>> save_label("models")
    'models'
    """
    return model_dir.rstrip("/").replace("/", "_") or "_"


def paired_main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(
        prog="compare.py paired",
        description="Compare two models' saved results (compare.py ... --save) item by item.")
    ap.add_argument("base", help="saved folder of the base model (e.g. /tmp/cmp/models)")
    ap.add_argument("cand", help="saved folder of the candidate")
    ap.add_argument("--alpha", type=float, default=0.05,
                    help="one-sided level of the sign test (default 0.05)")
    ap.add_argument("--json", action="store_true", help="one JSON object")
    args = ap.parse_args(argv)
    base_dir, cand_dir = Path(args.base), Path(args.cand)
    for d in (base_dir, cand_dir):
        if not d.is_dir():
            ap.error(f"{d}: no such folder (saved by compare.py choice|report ... --save)")
    rows: list[Paired] = []
    skipped: list[str] = []
    for m in (m for protocol in PROTOCOLS.values() for m in protocol):  # the columns' order
        path, other = base_dir / column_file(m.name), cand_dir / column_file(m.name)
        if not path.is_file() and not other.is_file():
            continue
        if not path.is_file() or not other.is_file():
            skipped.append(f"{m.name} (saved for one model only)")
            continue
        try:
            rows += pair_results(m.name, m.kind, json.loads(path.read_text()),
                                 json.loads(other.read_text()), args.alpha)
        except (KeyError, ValueError) as exc:
            skipped.append(f"{m.name} ({exc})")
    if not rows:
        ap.error("no column saved in both folders")
    passes = all(r.verdict != "worse" for r in rows)
    if args.json:
        print(json.dumps({
            "base": str(base_dir), "cand": str(cand_dir), "alpha": args.alpha,
            "passes": passes, "skipped": skipped,
            "figures": [{**r.__dict__, "p_worse": round(r.p_worse, 4),
                         "p_better": round(r.p_better, 4), "verdict": r.verdict}
                        for r in rows]}))
        return 0
    print("column | figure | items | base → cand % | units better / worse | p | verdict")
    print("(a unit: a scene, or a photo with all its export copies)")
    for r in rows:
        print(r.row())
    if skipped:
        print("not paired: " + "; ".join(skipped))
    print(f"{'passes' if passes else 'does not pass'}: "
          f"{sum(r.verdict == 'worse' for r in rows)} figure(s) worse, "
          f"{sum(r.verdict == 'better' for r in rows)} better (one-sided p < {args.alpha})")
    return 0


_TRAIN400 = ("--split", "train", "--limit", "400")
PROTOCOLS: dict[str, tuple[Measure, ...]] = {
    "choice": (
        Measure("trusted train 400", "eval", (*_TRAIN400, "--copies", "trusted")),
        Measure("train 400", "eval", _TRAIN400),
        Measure("held-out v1", "eval", (), "v1"),
        Measure("tune1280", "scenes", (), "tune1280"),
        Measure("choice2", "scenes", (), "choice2"),
        Measure("turned-choice", "scenes", (), "turned-choice"),
        Measure("false claims", "not_winning", (), "false-claims"),
        Measure("waiting", "not_winning", (), "waiting"),
        Measure("choice-heldout", "scenes", (), "choice-heldout"),
        Measure("choice-heldout-table", "scenes", (), "choice-heldout-table"),
        # the training photos' tile multisets before / after recognize (its rules must not
        # lower them: issue 6), all 1,692 copies (about 5 minutes)
        Measure("train multisets", "photos", ("--split", "train")),
    ),
    "report": (
        Measure("hk val", "eval", ("--split", "val")),
        Measure("trusted", "eval", ("--split", "val", "--copies", "trusted")),
        Measure("originals", "eval", ("--split", "val", "--copies", "originals")),
        Measure("untouched", "eval", ("--split", "val", "--copies", "untouched")),
        Measure("held-out v2", "eval", (), "v2"),
        Measure("val multisets", "photos", ("--split", "val")),
        Measure("heldoutB", "scenes", ("--limit", "100"), "heldoutB"),
        Measure("heldoutC", "scenes", ("--limit", "100"), "heldoutC"),
        Measure("layout-eval-heldout", "scenes", ("--limit", "200"), "layout-eval-heldout"),
        Measure("turned-heldout", "scenes", (), "turned-heldout"),
        Measure("false claims held-out", "not_winning", (), "false-claims-heldout"),
        Measure("waiting held-out", "not_winning", (), "waiting-heldout"),
    ),
}


def _present(measure: Measure) -> bool:
    return (REPO / measure.folder()).is_dir()


def _run(command: list[str]) -> dict[str, Any] | str:
    """The command's JSON output, or a short reason it gave none."""
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        return f"failed ({last[:80]})"
    try:
        result = json.loads(done.stdout)
    except json.JSONDecodeError:
        return "no JSON output"
    return result if isinstance(result, dict) else "no JSON object"


def labels_digest(folder: str | Path) -> str:
    """A short digest of what a set says is true: every ``labels/**/*.txt`` (YOLO labels)
    and ``truth/*.json`` (scene truths) under ``folder``, by relative path and bytes.
    Saved with each column's result (``_labels``), so that ``paired`` refuses to pair two
    results read against different labels — a rebuilt dataset (labels cut, fixed or
    tightened) or regenerated scenes. ``""`` when the folder holds neither.

    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp()); (d / "labels").mkdir()
    >>> _ = (d / "labels" / "a.txt").write_text("0 0.5 0.5 0.1 0.1\\n")
    >>> before = labels_digest(d)
    >>> _ = (d / "labels" / "a.txt").write_text("0 0.5 0.5 0.1 0.2\\n")
    >>> len(before), before != labels_digest(d), labels_digest(d / "none")
    (12, True, '')
    """
    root = Path(folder)
    files = sorted([*root.glob("labels/**/*.txt"), *root.glob("truth/*.json")])
    if not files:
        return ""
    h = hashlib.sha256()
    for f in files:
        h.update(str(f.relative_to(root)).encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()[:12]


def column_file(name: str) -> str:
    """The file a column's result is saved in.

    >>> column_file("held-out v1")
    'held-out_v1.json'
    """
    return name.replace(" ", "_").replace("/", "_") + ".json"


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["paired"]:
        return paired_main(argv[1:])
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("protocol", choices=sorted(PROTOCOLS))
    ap.add_argument("model_dirs", nargs="+", help="model folders (e.g. models /tmp/m-cand)")
    ap.add_argument("--only", action="append", default=[], metavar="NAME",
                    help="only these columns (repeatable)")
    ap.add_argument("--make-sets", action="store_true", help="generate missing scene sets")
    ap.add_argument("--dry-run", action="store_true", help="print the commands, run nothing")
    ap.add_argument("--json", action="store_true", help="one JSON object per model folder")
    ap.add_argument("--save", metavar="DIR",
                    help="keep each column's JSON result as DIR/<label>/<column>.json "
                         "(for compare.py paired)")
    args = ap.parse_args(argv)
    measures = [m for m in PROTOCOLS[args.protocol] if not args.only or m.name in args.only]
    if args.only and len(measures) != len(set(args.only)):
        known = ", ".join(m.name for m in PROTOCOLS[args.protocol])
        ap.error(f"--only names one of: {known}")
    for model_dir in args.model_dirs:
        if not args.dry_run and not (Path(model_dir) / "manifest.json").is_file():
            ap.error(f"{model_dir}: no manifest.json (not a model folder)")
    needed = {m.needs for m in measures if m.needs and not _present(m)}
    for key in sorted(needed):
        make = " ".join(SETS[key].command())
        if args.dry_run:
            print(make)
        elif args.make_sets:
            print(f"making {key}: {make}", file=sys.stderr)
            subprocess.run(SETS[key].command(), cwd=REPO, check=True, capture_output=True)
    if args.dry_run:
        for model_dir in args.model_dirs:
            for m in measures:
                print(" ".join(m.command(model_dir)))
        return 0
    if not args.json:
        print(" | ".join(["model", *(m.name for m in measures)]))
    for model_dir in args.model_dirs:
        row: dict[str, str] = {}
        for m in measures:
            if not _present(m):
                row[m.name] = "set missing (--make-sets)"
                continue
            result = _run(m.command(model_dir))
            row[m.name] = result if isinstance(result, str) else m.figure(result)
            if args.save and not isinstance(result, str):
                keep = Path(args.save) / save_label(model_dir)
                keep.mkdir(parents=True, exist_ok=True)
                (keep / column_file(m.name)).write_text(
                    json.dumps({"_column": m.name, "_model": model_dir,
                                "_labels": labels_digest(REPO / m.folder()), **result}))
        if args.json:
            print(json.dumps({"model": model_dir, "protocol": args.protocol, **row}))
        else:
            print(" | ".join([model_dir, *row.values()]), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
