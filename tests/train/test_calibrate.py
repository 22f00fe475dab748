"""``train/calibrate.py``: the logistic fit and the cross-validated report (numpy only)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[2]


def _module():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("calibrate", REPO / "train" / "calibrate.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    sys.modules["calibrate"] = mod
    spec.loader.exec_module(mod)
    return mod


cal = _module()


def test_fit_recovers_known_weights() -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(20000, 2)) * [1.0, 3.0] + [0.0, 5.0]
    p = 1 / (1 + np.exp(-(0.5 + 2.0 * x[:, 0] - 0.5 * x[:, 1])))
    y = (rng.random(len(x)) < p).astype(float)
    w, b = cal.fit_logistic(x, y, l2=1e-6)
    assert w == pytest.approx([2.0, -0.5], abs=0.08)
    assert b == pytest.approx(0.5, abs=0.2)


def test_cross_validation_calibrates_an_over_confident_signal() -> None:
    """Rule: the out-of-fold calibrated confidence matches the hit rate far better than a
    raw confidence that says 0.95 for readings right half the time."""
    rng = np.random.default_rng(1)
    rows = []
    for i in range(600):
        good = rng.random() < 0.5
        exact = rng.random() < (0.8 if good else 0.2)
        row = {"stem": f"photo{i // 3}", "exact": bool(exact), "reading": 0.95}
        row.update({f: 0.0 for f in cal.FEATURES})
        row["win"] = 1.0 if good else 0.0
        rows.append(row)
    report = cal.evaluate(rows, folds=5, l2=1.0)
    assert report["sources"] == 200
    assert report["raw"]["ece"] > 0.4
    assert report["calibrated_out_of_fold"]["ece"] < 0.08
    assert report["calibrated_out_of_fold"]["brier"] < report["raw"]["brier"]


def test_folds_keep_a_photos_copies_together() -> None:
    assert cal.fold_of("hand_046_jpg", 5) == cal.fold_of("hand_046_jpg", 5)
    assert {cal.fold_of(f"s{i}", 5) for i in range(100)} == set(range(5))


def _rows(n: int = 300) -> list[dict[str, object]]:
    rng = np.random.default_rng(2)
    rows = []
    for i in range(n):
        good = rng.random() < 0.5
        row: dict[str, object] = {"set": "s", "stem": f"p{i}", "reading": 0.9,
                                  "exact": bool(rng.random() < (0.8 if good else 0.2))}
        row.update({f: 0.0 for f in cal.SCORE_FEATURES})
        row["win"] = 1.0 if good else 0.0
        rows.append(row)
    return rows


def test_a_score_fit_is_written_beside_the_hand_fit_and_kept_by_a_hand_refit(
    tmp_path: Path,
) -> None:
    """``--event score --write`` puts the fit under ``calibration.score``; refitting the
    hand confidence afterwards keeps it."""
    import json

    caches = {}
    for event in ("hand", "score"):  # a cache holds the rows of one event
        caches[event] = tmp_path / f"rows-{event}.json"
        caches[event].write_text(json.dumps(
            [{**r, "path": "app", "event": event} for r in _rows()]))
    hand = {"features": ["win"], "coef": [1.0], "intercept": 0.0}
    (tmp_path / "manifest.json").write_text(json.dumps({"calibration": hand}))
    args = [str(tmp_path), "--cache", str(caches["hand"]), "--json", "--write"]
    assert cal.main([str(tmp_path), "--cache", str(caches["score"]), "--json", "--write",
                     "--event", "score", "--features", "win", "by_place"]) == 0
    written = json.loads((tmp_path / "manifest.json").read_text())["calibration"]
    assert written["features"] == ["win"] and written["coef"] == [1.0]
    assert written["score"]["features"] == ["win", "by_place"]
    assert written["score"]["fitted_on"].startswith("the multiset up to")
    assert cal.main([*args, "--features", "win"]) == 0
    again = json.loads((tmp_path / "manifest.json").read_text())["calibration"]
    assert again["coef"] != [1.0] and again["score"] == written["score"]


def test_by_place_is_refused_for_the_hand_confidence(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="--event score only"):
        cal.main([str(tmp_path), "--features", "win", "by_place"])


def test_rows_are_read_as_the_app_reads_a_photo_unless_told_otherwise(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Rule: the hand confidence is fitted on the readings the service gives — each photo
    through ``vision.recognize.recognize`` (level re-read, weak boxes, sideways second
    reading) — and ``--path detections`` keeps the old one-pass reading of the boxes."""
    from types import SimpleNamespace

    import vision.confidence
    import vision.detect
    import vision.evaluate
    import vision.recognize

    calls: list[tuple[str, object]] = []
    image = tmp_path / "hand_001_jpg.rf.abc.jpg"
    rec = SimpleNamespace(codes=("1m",), reading_confidence=0.5)

    class FakeDetector:
        def __init__(self, model_dir: Path) -> None:
            pass

        def __call__(self, img: object) -> str:
            return "boxes"

    def fake_recognize(img: object, rules: str, **kw: object) -> SimpleNamespace:
        calls.append(("recognize", img))
        assert isinstance(kw["detector"], FakeDetector)
        return rec

    def fake_detections(dets: object, rules: str) -> SimpleNamespace:
        calls.append(("recognize_detections", dets))
        return rec

    monkeypatch.setattr(vision.detect, "Detector", FakeDetector)
    monkeypatch.setattr(vision.evaluate, "load_dataset",
                        lambda data, split: [SimpleNamespace(image=image, class_ids=[0])])
    monkeypatch.setattr(vision.recognize, "recognize", fake_recognize)
    monkeypatch.setattr(vision.recognize, "recognize_detections", fake_detections)
    monkeypatch.setattr(vision.confidence, "hand_features", lambda r: {"win": 0.0})
    rows = cal.collect(tmp_path, "val", tmp_path)
    assert calls == [("recognize", image)]
    assert rows[0]["exact"] and rows[0]["reading"] == 0.5
    calls.clear()
    cal.collect(tmp_path, "val", tmp_path, path="detections")
    assert calls == [("recognize_detections", "boxes")]


def test_a_cache_read_another_way_is_refused(tmp_path: Path) -> None:
    """Diff review: the cached rows did not say how they were read, so ``--path app``
    silently reused rows of ``--path detections`` (or of the other event)."""
    import json

    cache = tmp_path / "rows.json"
    row = {"set": "s", "stem": "p", "exact": True, "reading": 0.9}
    cache.write_text(json.dumps([{**row, "path": "detections", "event": "hand"}]))
    with pytest.raises(SystemExit, match="read with --path detections --event hand, not "
                                         "--path app --event hand"):
        cal.main([str(tmp_path), "--cache", str(cache)])
    cache.write_text(json.dumps([row]))  # an older calibrate.py's cache
    with pytest.raises(SystemExit, match=r"written by an older calibrate\.py"):
        cal.main([str(tmp_path), "--cache", str(cache), "--path", "detections"])
