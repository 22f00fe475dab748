"""``bench/camera_stability.py``: a table camera's frames of one still hand, recorded once
when the rules score the readings alike (README "Tables")."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

from vision.detections import Detections


@pytest.fixture(scope="module")
def bench(bench_module: Callable[[str], ModuleType]) -> ModuleType:
    return bench_module("camera_stability")


def test_camera_frames_are_seeded_and_keep_the_scene(bench: ModuleType) -> None:
    image = np.full((60, 80, 3), 128, np.uint8)
    image[20:40, 30:50] = 240
    a = bench.camera_frames(image, 3, random.Random(1))
    b = bench.camera_frames(image, 3, random.Random(1))
    assert len(a) == 3 and all(f.shape == image.shape for f in a)
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    assert not np.array_equal(a[0], a[1])  # frames differ by noise
    assert all(np.abs(f.astype(int) - image).mean() < 8 for f in a)


def test_the_stability_rule_records_a_run_once_and_a_change_after_a_gap(
    bench: ModuleType,
) -> None:
    """Three alike frames in a row record; a still hand is not recorded twice; a frame
    that reads another complete hand breaks the run; a hand read otherwise right after a
    record is the same tiles, and another hand only after three frames without one."""
    x, y = "123m456m789m123p55p", "123m456m789m124p55p"  # one tile apart
    far = "[SSS,1]123m456m789m55p"  # three tiles from x: another hand
    assert bench.records([x, x, x, x, x], 3) == [2]
    assert bench.records([x, y, x, y, x], 3) == []
    assert bench.records([x, None, x, x, x, y, y, y], 3) == [4]
    assert bench.records([x, x, x, None, None, None, y, y, y], 3) == [2, 8]
    assert bench.records([x, x, x, far, far, far], 3) == [2, 5]


def test_a_flower_flickering_between_frames_is_recorded_only_by_the_score_key(
    bench: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A scene whose frames read one bonus tile as 2f and 7f in turn: alike by the score
    key (MCR: any bonus tile is one fan), recorded once with the right score; by the
    hand's notation never three alike in a row."""
    import json

    import cv2

    import vision.recognize
    from vision.layout_scene import SceneBuilder

    (tmp_path / "truth").mkdir()
    (tmp_path / "images").mkdir()
    cv2.imwrite(str(tmp_path / "images" / "a.jpg"), np.full((48, 64, 3), 100, np.uint8))
    truth = {"image": "images/a.jpg", "hand": "123m456m789m123p55p 2f"}
    (tmp_path / "truth" / "a.json").write_text(json.dumps(truth))
    seen = {"n": 0}

    def scene() -> Detections:
        flower = "2f" if seen["n"] % 2 == 0 else "7f"
        seen["n"] += 1
        b = SceneBuilder().standing("123m456m789m123p5p").win("5p").row()
        return b.flowers(flower).detections()

    real = vision.recognize.recognize

    def fake(image: Any, rules: str, context: Any, **kw: Any) -> Any:
        return real(image, rules, context, detections=scene(), detector=lambda _: scene())

    monkeypatch.setattr(vision.recognize, "recognize", fake)
    out = bench.run(tmp_path, 6, 3, None, 0, detector=None)
    assert out["scenes"] == 1 and out["scenes_whose_complete_readings_differ"] == 1
    assert out["hand"]["recorded"] == 0.0
    assert out["score"] == {"recorded": 1.0, "twice": 0.0, "right_score": 1.0,
                            "median_first_record_frame": 3}


# ``bench/camera_surface.py``: a cleared table told from a view of something else


def test_the_surface_bench_judges_cleared_tables_and_other_views(
    bench_module: Callable[[str], ModuleType], tmp_path: Path,
) -> None:
    """A green and a red cloth with a row of tiles: each cleared table (as sent, dimmed, a
    warm cast, a 20 % cast, a heap of face-down tiles on it, a surface learned beside
    walls of face-down tiles, a close framing with auto white balance, a dark mat at a
    fixed exposure) counts as the table; the flat wall, the striped shirt and the other
    table are not — after clutter was learned too; and every figure of the module doc is
    reported."""
    import json

    import cv2

    surface = bench_module("camera_surface")
    (tmp_path / "truth").mkdir()
    (tmp_path / "images").mkdir()
    rng = np.random.default_rng(0)
    for i, colour in enumerate(((40, 120, 45), (40, 40, 130))):  # green, red cloth
        image = np.clip(np.array(colour, np.float32) + rng.normal(0, 5, (240, 320, 3)), 0, 255)
        image = image.astype(np.uint8)
        tiles = [{"box": [60 + 16 * j, 100, 74 + 16 * j, 120]} for j in range(14)]
        for t in tiles:
            x0, y0, x1, y1 = t["box"]
            image[y0:y1, x0:x1] = (205, 225, 235)
        cv2.imwrite(str(tmp_path / "images" / f"{i}.png"), image)
        (tmp_path / "truth" / f"{i}.json").write_text(json.dumps(
            {"image": f"images/{i}.png", "surface": "felt", "tiles": tiles}))
    out = surface.run(tmp_path, frames=2, limit=None, seed=0)
    assert out["scenes"] == 2
    judged = out["cleared_judged_table"]
    assert set(judged) == set(surface.CLEARED)  # a forearm may cover a small table
    assert all(judged[k] == 1.0 for k in surface.CLEARED if k != "forearm"), judged
    for key in ("other_judged_elsewhere", "other_judged_elsewhere_backs_learned"):
        assert out[key]["wall"] == 1.0 and out[key]["shirt"] == 1.0, out[key]
    assert out["another_table_judged_elsewhere"] == {"felt vs felt": "2/2"}
    assert out["judge_ms_median"] is not None
    assert surface.main([str(tmp_path), "--json", "--frames", "2"]) == 0
    with pytest.raises(SystemExit):
        surface.main([str(tmp_path / "nothing")])
