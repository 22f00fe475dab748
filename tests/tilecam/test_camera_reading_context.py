"""A table camera's frames read with the real recognizer (``frame_reader``; a stand-in
detector shows a Zhenjiang win): the frame's context in the recognizer's terms.

Seed 001 (Zhenjiang) names 碰后打搭 by seat, and a score sheet, which knows the seat winds,
takes them as winds (``wild_after_pung: "S"``) and fills ``dealer`` from the winner's
seat; the recognizer knows neither. A frame's context is given to it as the sheet would
give it (:func:`tilecam.tables.scoring_bridge.reading_context`), and a winning shape its
scorer refuses for the context (a 天胡 whose winner is no dealer) is still a complete
hand for the camera: the sheet scores, or holds it saying why, when it records it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np
import pytest
from fastapi.testclient import TestClient
from test_tables_helpers import ADMIN, bearer, new_table

from tilecam.app import create_app
from tilecam.db.engine import dispose_engines
from tilecam.settings import Settings
from vision.detections import Detections
from vision.layout_scene import SceneBuilder

JPEG = cv2.imencode(".jpg", np.full((480, 640, 3), 60, np.uint8))[1].tobytes()


def shown_win(image: np.ndarray) -> Detections:
    """The Zhenjiang win 123m456p789s11sEEE (E set apart), scaled to the frame."""
    d = SceneBuilder().standing("123m456p789s11sEE").win("E").detections()
    h, w = image.shape[:2]
    w0, h0 = d.image_size or (1, 1)
    boxes = d.boxes * np.array([w / w0, h / h0, w / w0, h / h0], np.float32)
    return Detections(boxes=boxes.astype(np.float32), class_ids=d.class_ids,
                      confidences=d.confidences, rotations=d.rotations, topk_ids=d.topk_ids,
                      topk_probs=d.topk_probs, image_size=(w, h), meta={"model": "scene@1"})


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    app = create_app(Settings(database_url=f"sqlite:///{tmp_path / 'cam.db'}",
                              data_dir=tmp_path / "data", admin_key=ADMIN, load_model=False,
                              stable_frames=1, rate_limit_per_s=1000.0,
                              rate_limit_burst=1000))
    with TestClient(app) as c:
        app.state.detector = shown_win
        yield c
    dispose_engines()


@pytest.mark.parametrize(("winner", "context", "outcome"), [
    ("E", {"indicator": "3m"}, "win"),
    ("E", {"indicator": "3m", "wild_after_pung": "S"}, "win"),  # a seat wind, as sheets take
    ("E", {"indicator": "3m", "tian_hu": True}, "win"),          # the dealer: the winner is E
    ("S", {"indicator": "3m", "tian_hu": True}, "pending"),      # 天胡 by no dealer: held
])
def test_a_zhenjiang_frame_is_read_with_its_context_as_the_sheet_reads_it(
    client: TestClient, winner: str, context: dict[str, object], outcome: str
) -> None:
    t, k = new_table(client, rules="zhenjiang")
    r = client.post(f"/v1/tables/{t}/frames", headers=bearer(k),
                    files={"image": ("f.jpg", JPEG, "image/jpeg")},
                    data={"winner": winner, "self_drawn": "true",
                          "context": json.dumps(context)})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["status"] == "recorded" and body["complete"], body
    assert body["recorded"]["outcome"] == outcome
    if outcome == "pending":
        assert "天胡" in body["recorded"]["note"]


def test_a_zhenjiang_frame_without_the_wild_is_refused_naming_it(client: TestClient) -> None:
    """No hand can be scored without the 百搭: 400, not frames waiting for ever."""
    t, k = new_table(client, rules="zhenjiang")
    r = client.post(f"/v1/tables/{t}/frames", headers=bearer(k),
                    files={"image": ("f.jpg", JPEG, "image/jpeg")},
                    data={"winner": "E", "self_drawn": "true"})
    assert r.status_code == 400 and "百搭" in r.json()["error"]["message"]
