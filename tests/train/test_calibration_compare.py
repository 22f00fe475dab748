"""``train/calibration_compare.py``: candidate confidence fits against the raw figure."""

from __future__ import annotations

import importlib.util
import json
import math
import sys
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[2]


def _module():  # type: ignore[no-untyped-def]
    sys.path.insert(0, str(REPO / "train"))
    spec = importlib.util.spec_from_file_location(
        "calibration_compare", REPO / "train" / "calibration_compare.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


cmp = _module()


def _rows(n: int, seed: int, name: str) -> list[dict[str, object]]:
    """Readings right exactly as often as their reading confidence says."""
    rng = np.random.default_rng(seed)
    rows: list[dict[str, object]] = []
    for i in range(n):
        p = float(rng.uniform(0.02, 0.98))
        row: dict[str, object] = {"set": name, "stem": f"{name}{i}", "reading": p,
                                  "exact": bool(rng.random() < p)}
        row.update({f: 0.0 for f in cmp.cal.SCORE_FEATURES})
        row["log_reading"] = math.log10(p)
        rows.append(row)
    return rows


def test_a_logit_fit_can_learn_the_raw_figure() -> None:
    """Rule: ``logit_reading`` makes the raw reading confidence one of the fits — on
    readings exactly as right as their confidence says, the fit is (nearly) the identity."""
    rows = cmp.with_logit(_rows(20000, 0, "a"))
    x, y = cmp.cal._xy(rows, ("logit_reading",))
    w, b = cmp.cal.fit_logistic(x, y, l2=1e-6)
    assert w[0] == pytest.approx(1.0, abs=0.06)
    assert b == pytest.approx(0.0, abs=0.06)


def test_report_compares_shipped_raw_and_candidates(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The pooled line says how far the shipped fit's Brier score is from the raw one's; a
    shipped fit that says 0.5 for everything loses to a calibrated raw figure."""
    models = tmp_path / "m"
    models.mkdir()
    (models / "manifest.json").write_text(json.dumps(
        {"calibration": {"features": ["win"], "coef": [0.0], "intercept": 0.0}}))
    fit, test = tmp_path / "fit.json", tmp_path / "test.json"
    fit.write_text(json.dumps(_rows(600, 1, "f")))
    test.write_text(json.dumps(_rows(600, 2, "t")))
    assert cmp.main([str(models), "--fit", str(fit), "--test", f"t={test}",
                     "--resamples", "500"]) == 0
    out = capsys.readouterr().out
    pooled = out.strip().splitlines()[-1]
    assert pooled.startswith("all test rows (600): shipped 0.2500")
    low = float(pooled.split("(95 % ")[1].split(" to ")[0])
    assert low > 0  # the constant 0.5 is clearly worse than the calibrated raw figure


def test_malformed_test_argument_is_named(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match=r"expected NAME=ROWS\.json"):
        cmp.main([str(tmp_path), "--fit", str(tmp_path / "x.json"), "--test", "nothing"])


def test_missing_rows_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match=r"x\.json: cannot read rows"):
        cmp.main([str(tmp_path), "--fit", str(tmp_path / "x.json")])
