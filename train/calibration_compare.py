"""Compare the shipped confidence fit with the raw reading confidence and with candidate
refits, out of fold and on sets no fit reads.

Rows come from ``train/calibrate.py … --cache FILE.json`` (one per photo: ``set``,
``stem``, ``exact``, ``reading`` and the signals). Each candidate is a logistic fit
(``calibrate.fit_logistic``) over a set of signals, among them ``logit_reading``: the
logit of ``10 ** log_reading`` (the reading confidence, over the codes scored alike for
``--event score``), so that the raw figure itself is one of the fits a candidate can
learn. For each candidate: Brier / ECE out of fold on the fitting rows (folds by source
photo, as ``calibrate.py``), then, fitted on all of them, on each ``--test`` set; the
shipped fit and the raw figure beside them; and over all test rows pooled, the shipped
fit's Brier score minus the raw figure's with a bootstrap 95 % interval.

usage: .venv/bin/python train/calibration_compare.py MODEL_DIR --fit ROWS.json
           [--test NAME=ROWS.json ...] [--event hand|score] [--weight SET=W ...]
           [--resamples 20000] [--seed 72]
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "train"))

import calibrate as cal  # noqa: E402

#: Candidate signal sets (each a logistic fit; ``logit_reading`` is derived, see doc).
CANDIDATES: tuple[tuple[str, ...], ...] = (
    ("logit_reading",),
    ("logit_reading", "min_p"),
    ("logit_reading", "win", "min_p"),
    ("logit_reading", "win", "corrections"),
    ("logit_reading", "hand_read", "win", "corrections", "mean_log_p", "min_p"),
)
#: ... and for ``--event score`` also these (``by_place``: flowers read by where they lie).
SCORE_CANDIDATES: tuple[tuple[str, ...], ...] = (
    ("logit_reading", "win", "by_place"),
    ("logit_reading", "win", "min_p", "by_place"),
)
#: Probabilities are clipped to [EPS, 1 - EPS] before their logit is taken.
EPS = 1e-6


def with_logit(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``rows`` each with ``logit_reading`` added (from ``log_reading``, a log10).

    >>> with_logit([{"log_reading": math.log10(0.5)}])[0]["logit_reading"]
    0.0
    """
    for r in rows:
        p = min(max(10 ** float(r["log_reading"]), EPS), 1 - EPS)
        r["logit_reading"] = round(math.log(p / (1 - p)), 12)
    return rows


def raw_probability(rows: list[dict[str, Any]], event: str) -> np.ndarray:
    """The raw figure: the reading confidence, or for ``score`` the product of each tile's
    probability summed over the codes scored alike (``10 ** log_reading``)."""
    key = (lambda r: r["reading"]) if event == "hand" else (lambda r: 10 ** r["log_reading"])
    return np.array([float(key(r)) for r in rows])


def judge(p: np.ndarray, y: np.ndarray) -> str:
    """``Brier/ECE`` and the wrong readings at 0.7 or more (where the phone page does not
    ask for a check) and the right ones under it."""
    brier = float(np.mean((p - y) ** 2))
    wrong_sure = int(((p >= 0.7) & (y == 0)).sum())
    right_unsure = int(((p < 0.7) & (y == 1)).sum())
    return f"{brier:.4f}/{cal.ece(p, y):.3f} (wrong ≥0.7: {wrong_sure}, right <0.7: {right_unsure})"


def read_rows(path: Path) -> list[dict[str, Any]]:
    """The rows ``calibrate.py --cache`` wrote to ``path``; SystemExit naming the file
    when it cannot be read or holds no list of rows."""
    try:
        rows = json.loads(path.read_text())
    except (OSError, ValueError) as e:
        raise SystemExit(f"{path}: cannot read rows ({e})") from None
    if not isinstance(rows, list) or not rows or not all(isinstance(r, dict) for r in rows):
        raise SystemExit(f"{path}: expected a non-empty JSON list of rows (calibrate.py --cache)")
    return rows


def main(argv: list[str] | None = None) -> int:
    from vision.confidence import logistic

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("model_dir", type=Path)
    ap.add_argument("--fit", type=Path, required=True, help="rows the candidates are fitted on")
    ap.add_argument("--test", action="append", default=[], metavar="NAME=ROWS.json")
    ap.add_argument("--event", choices=("hand", "score"), default="hand")
    ap.add_argument("--weight", action="append", default=[], metavar="SET=W")
    ap.add_argument("--l2", type=float, default=1.0)
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--resamples", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=72)
    args = ap.parse_args(argv)
    weights = {}
    for item in args.weight:
        name, _, value = item.partition("=")
        try:
            weights[name] = float(value)
        except ValueError:
            raise SystemExit(f"--weight {item!r}: expected SET=NUMBER") from None
    named = []
    for item in args.test:
        name, sep, path = item.partition("=")
        if not sep:
            raise SystemExit(f"--test {item!r}: expected NAME=ROWS.json")
        named.append((name, Path(path)))
    fit_rows = with_logit(read_rows(args.fit))
    tests = {name: with_logit(read_rows(path)) for name, path in named}
    shipped = cal.manifest_fit(args.model_dir, args.event)
    candidates = CANDIDATES + (SCORE_CANDIDATES if args.event == "score" else ())

    print(f"out of fold on {args.fit} ({len(fit_rows)} rows), per set: Brier/ECE")
    sets = sorted({str(r.get("set")) for r in fit_rows})
    for features in candidates:
        report = cal.evaluate(fit_rows, args.folds, args.l2, features, weights)
        parts = [f"{n} {report['sets'][n]['calibrated_out_of_fold']['brier']:.4f}/"
                 f"{report['sets'][n]['calibrated_out_of_fold']['ece']:.3f}" for n in sets]
        print(f"  {' + '.join(features):64s} " + "  ".join(parts))
    raw_fit = raw_probability(fit_rows, args.event)
    y_fit = np.array([float(r["exact"]) for r in fit_rows])
    for n in sets:
        sel = np.array([str(r.get("set")) == n for r in fit_rows])
        print(f"  raw, {n}: {judge(raw_fit[sel], y_fit[sel])}")

    fitted = []
    for features in candidates:
        x, y = cal._xy(fit_rows, features)
        w, b = cal.fit_logistic(x, y, args.l2, weights=cal.row_weights(fit_rows, weights))
        fitted.append((features, w, b))
    pooled_shipped, pooled_raw, pooled_y = [], [], []
    for name, rows in tests.items():
        y = np.array([float(r["exact"]) for r in rows])
        ps = np.array([logistic(r, shipped["features"], shipped["coef"], shipped["intercept"])
                       for r in rows])
        pr = raw_probability(rows, args.event)
        pooled_shipped.append(ps)
        pooled_raw.append(pr)
        pooled_y.append(y)
        print(f"{name}: {len(rows)} rows, exact {y.mean():.3f}; Brier/ECE")
        print(f"  {'shipped fit':64s} {judge(ps, y)}")
        print(f"  {'raw':64s} {judge(pr, y)}")
        for features, w, b in fitted:
            x, _ = cal._xy(rows, features)
            print(f"  {' + '.join(features):64s} {judge(cal.predict(x, w, b), y)}")
    if tests:
        ps, pr, y = (np.concatenate(v) for v in (pooled_shipped, pooled_raw, pooled_y))
        d = (ps - y) ** 2 - (pr - y) ** 2
        rng = np.random.default_rng(args.seed)
        means = np.array([d[rng.integers(0, len(d), len(d))].mean()
                          for _ in range(args.resamples)])
        lo, hi = np.percentile(means, [2.5, 97.5])
        print(f"all test rows ({len(y)}): shipped {np.mean((ps - y) ** 2):.4f} / ECE "
              f"{cal.ece(ps, y):.3f}, raw {np.mean((pr - y) ** 2):.4f} / ECE {cal.ece(pr, y):.3f}; "
              f"shipped − raw Brier {d.mean():+.4f} (95 % {lo:+.4f} to {hi:+.4f}, "
              f"{args.resamples} resamples)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
