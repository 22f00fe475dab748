"""Flowers of a photo that shows none (set aside off-camera): ``POST /v1/recognize``
takes ``flowers`` (0-8, a form field or query parameter) as ``tilecam recognize
--flowers`` does (:mod:`vision.flower_count`, one function for both).

Before the seventy-eighth session the route refused the field (422 "Extra inputs are
not permitted"), so a phone or machine client could not get the command's score: the
real photo below scores 5 fan as read and 7 with ``--flowers 2`` (MCR: flowers add 1
each, after the 8-fan minimum).

Checked here: the route and the command give one score for one photo and one count
(a real hk-photos photo read by the shipped model, and a laid-out scene behind a fake
detector), and the page's way (the stepper's count through ``POST /v1/score`` after the
photo is read) gives it too; rules without flowers (Zhenjiang) refuse a count with 400
``invalid_context`` before the photo is decoded, in the service's words; a photo that
shows another number of flowers is refused, both counts named; a count that is no whole
number or out of 0-8 is a 422 naming ``flowers``. The phone page sends no count with a
photo (the stepper counts after the reading); a count stepped while the photo is read is
that photo's and is kept (before: set back to 0, the total without it).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from fastapi.testclient import TestClient

from tilecam.api.deps import get_detector
from tilecam.app import create_app
from tilecam.cli import main
from tilecam.settings import Settings
from vision.detections import Detections
from vision.layout_scene import SceneBuilder
from vision.manifest import MANIFEST, default_model_dir

try:  # the phone page's browser (selenium, Chromium); the route tests run without it
    from test_page import NEEDS_BROWSER, browser, serve, wait_for
    from test_page_review import fitted, hand, load, text, upload
except pytest.skip.Exception:  # selenium missing: test_page skips itself on import
    NEEDS_BROWSER = pytest.mark.skip(reason="selenium (dev extra) is missing")

__all__ = ["browser"]  # the fixture, shared with the phone page's tests

REPO = Path(__file__).resolve().parents[2]
#: A real table photo of the hk-photos validation set (CC BY 4.0; models/README.md): a
#: hand with a pung of 2m and one of 中 claimed, no flower shown; the shipped model reads
#: [222m,2][CCC,2]123789pPP, 5 fan.
REAL = (REPO / "datasets" / "build" / "hk-photos" / "images" / "val" /
        "393108498_1026650501930230_4447288272682756468_n_jpg.rf."
        "18ceba63359900c6a0dbfa7195a8ce09.jpg")


class SceneDetector:
    """Finds the boxes of a laid-out scene in any image (no model)."""

    def __init__(self, dets: Detections) -> None:
        self.dets = dets
        self.calls = 0

    def __call__(self, image: Any) -> Detections:
        self.calls += 1
        return self.dets


def won_scene(flowers: str = "") -> Detections:
    """A win: a claimed pung of E, 123m 456p 789s and a pair of N (the N won), with the
    flowers ``flowers`` laid apart (none by default)."""
    scene = SceneBuilder().standing("123m456p789sN").meld("EEE", sideways=1).win("N")
    return (scene.flowers(flowers) if flowers else scene).detections()


def blank_png(dets: Detections) -> bytes:
    """A plain photo of the scene's size (the fake detector supplies the boxes)."""
    assert dets.image_size is not None
    width, height = dets.image_size
    ok, buf = cv2.imencode(".png", np.full((height, width, 3), 200, np.uint8))
    assert ok
    return buf.tobytes()


def fake_client(detector: Any, tmp_path: Path) -> Iterator[TestClient]:
    app = create_app(Settings(load_model=False, waits_processes=False, data_dir=tmp_path))
    app.dependency_overrides[get_detector] = lambda: detector
    with TestClient(app, raise_server_exceptions=False) as c:
        yield c


def post(client: TestClient, image: bytes, **fields: str) -> Any:
    return client.post("/v1/recognize", data=fields,
                       files={"image": ("hand.png", image, "image/png")})


def cli_json(args: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    assert main([*args, "--json"]) == 0, capsys.readouterr().err
    out: dict[str, Any] = json.loads(capsys.readouterr().out)
    return out


def cli_error(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    return err


def page_total(client: TestClient, hand: str, flowers: int) -> int:
    """The page's way: the photo read without the count, then its hand scored by
    ``POST /v1/score`` with the stepper's count."""
    r = client.post("/v1/score", json={"hand": hand, "flowers": flowers})
    assert r.status_code == 200, r.text
    return int(r.json()["total"])


# --- one photo, one count, one score ---------------------------------------------------

@pytest.fixture()
def scene_photo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, SceneDetector]:
    """The won scene as a photo file, its boxes found by the command (vision.detect) and by
    the route (the detector dependency) alike."""
    dets = won_scene()
    path = tmp_path / "hand.png"
    path.write_bytes(blank_png(dets))
    import vision.detect

    monkeypatch.setattr(vision.detect, "detect", lambda *a, **k: dets)
    return path, SceneDetector(dets)


def test_route_and_command_count_the_flowers_of_a_photo_that_shows_none(
        scene_photo: tuple[Path, SceneDetector], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    """MCR: each flower adds 1 after the minimum, so 3 flowers add 3 (RULES.md)."""
    path, detector = scene_photo
    plain = cli_json(["recognize", str(path)], capsys)
    assert plain["hand"].startswith("[EEE,") and plain["hand"].endswith("]123m456p789sNN")
    counted = cli_json(["recognize", str(path), "--flowers", "3"], capsys)
    assert counted["score"]["total"] == plain["score"]["total"] + 3
    for client in fake_client(detector, tmp_path / "data"):
        as_form = post(client, path.read_bytes(), flowers="3")
        assert as_form.status_code == 200, as_form.text
        raw = client.post("/v1/recognize?flowers=3", content=path.read_bytes(),
                          headers={"content-type": "image/png"})
        assert raw.status_code == 200, raw.text
        for body in (as_form.json(), raw.json()):
            assert body["hand"] == counted["hand"]
            assert body["score"] == counted["score"]
        none = post(client, path.read_bytes(), flowers="0")
        assert none.json()["score"] == plain["score"]
        assert page_total(client, plain["hand"], 3) == counted["score"]["total"]


@pytest.fixture(scope="module")
def real_client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    if not REAL.is_file():
        pytest.skip(f"no hk-photos validation photo: {REAL} is missing")
    if not (default_model_dir() / MANIFEST).is_file():
        pytest.skip(f"no shipped model: {default_model_dir() / MANIFEST} is missing")
    settings = Settings(waits_processes=False, data_dir=tmp_path_factory.mktemp("data"))
    with TestClient(create_app(settings), raise_server_exceptions=False) as c:
        yield c


def test_a_real_photo_scores_alike_by_route_command_and_page(
        real_client: TestClient, capsys: pytest.CaptureFixture[str]) -> None:
    """The shipped model's reading of a real photo: 5 fan, 7 with 2 flowers, whichever
    is asked (before: the route answered 422 to ``flowers``)."""
    plain = cli_json(["recognize", str(REAL)], capsys)
    counted = cli_json(["recognize", str(REAL), "--flowers", "2"], capsys)
    assert not counted["hand"].endswith("f") and "score" in counted, counted["hand"]
    assert counted["score"]["total"] == plain["score"]["total"] + 2
    r = post(real_client, REAL.read_bytes(), flowers="2")
    assert r.status_code == 200, r.text
    assert r.json()["hand"] == counted["hand"]
    assert r.json()["score"] == counted["score"]
    assert page_total(real_client, plain["hand"], 2) == counted["score"]["total"]


# --- refusals --------------------------------------------------------------------------

def test_rules_without_flowers_refuse_a_count_before_the_photo_is_decoded(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Zhenjiang plays 136 tiles, none a flower: 400 invalid_context in the words of
    /v1/score ("flowers=1 cannot be (leave it out)"), even for a body that is no image,
    and the detector never runs; the command refuses it as --flowers 1."""
    detector = SceneDetector(won_scene())
    for client in fake_client(detector, tmp_path):
        r = post(client, b"not an image", rules="zhenjiang", rule_context='{"wild": "2m"}',
                 flowers="1")
        assert r.status_code == 400, r.text
        assert r.json()["error"]["code"] == "invalid_context"
        score = client.post("/v1/score", json={"hand": "123m456p789s2m3m4mEE", "rules":
                            "zhenjiang", "rule_context": {"wild": "2m"}, "flowers": 1})
        assert r.json()["error"]["message"] == score.json()["error"]["message"] == (
            "Zhenjiang plays 136 tiles without flowers: flowers=1 cannot be (leave it out)")
    assert detector.calls == 0
    err = cli_error(["recognize", "missing.jpg", "--rules", "zhenjiang", "--context",
                     "wild=2m", "--flowers", "1"], capsys)
    assert "--flowers 1 cannot be (leave it out)" in err


def test_a_photo_showing_another_number_of_flowers_is_refused_naming_both(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """The flowers a photo shows are read from it and counted: 1 given for a photo that
    shows 2f 5f is 400 invalid_context naming 1 and 2 (as the command's exit 2); 2 given
    is what the photo says, and its own reading is answered."""
    dets = won_scene("2f 5f")
    image = blank_png(dets)
    path = tmp_path / "hand.png"
    path.write_bytes(image)
    import vision.detect

    monkeypatch.setattr(vision.detect, "detect", lambda *a, **k: dets)
    for client in fake_client(SceneDetector(dets), tmp_path / "data"):
        r = post(client, image, flowers="1")
        assert r.status_code == 400, r.text
        error = r.json()["error"]
        assert error["code"] == "invalid_context"
        assert "flowers 1:" in error["message"] and "shows 2 flower(s) (2f 5f)" in error["message"]
        same = post(client, image, flowers="2")
        assert same.status_code == 200, same.text
        as_read = post(client, image)
        assert same.json()["hand"] == as_read.json()["hand"]
        assert same.json()["hand"].endswith("25f")
        assert same.json()["score"] == as_read.json()["score"]
    err = cli_error(["recognize", str(path), "--flowers", "1"], capsys)
    assert "--flowers 1:" in err and "shows 2 flower(s) (2f 5f)" in err


@pytest.mark.parametrize("value, why", [
    ("2.5", "valid integer"), ("two", "valid integer"), ("true", "valid integer"),
    ("9", "less than or equal to 8"), ("-1", "greater than or equal to 0")])
def test_a_count_that_is_no_whole_number_from_0_to_8_is_a_422(
        value: str, why: str, tmp_path: Path) -> None:
    """A count of bonus tiles is a whole number from 0 to 8: the 422 says which it is not
    (before: every ``flowers`` was "Extra inputs are not permitted")."""
    detector = SceneDetector(won_scene())
    image = blank_png(detector.dets)
    for client in fake_client(detector, tmp_path):
        for r in (post(client, image, flowers=value),
                  client.post("/v1/recognize", params={"flowers": value}, content=image,
                              headers={"content-type": "image/png"})):
            assert r.status_code == 422, r.text
            assert r.json()["error"]["message"].startswith("flowers:"), r.text
            assert why in r.json()["error"]["message"], r.text
    assert detector.calls == 0


def test_flowers_in_rule_context_stay_refused_and_the_field_is_documented(
        tmp_path: Path) -> None:
    """The count is a field: rule_context may not set it (400), and /docs lists it as a
    form field and a query parameter, 0-8."""
    detector = SceneDetector(won_scene())
    for client in fake_client(detector, tmp_path):
        r = post(client, blank_png(detector.dets), rule_context='{"flowers": 2}')
        assert r.status_code == 400 and "give them as fields" in r.text, r.text
        op = client.get("/openapi.json").json()["paths"]["/v1/recognize"]["post"]
        form = op["requestBody"]["content"]["multipart/form-data"]["schema"]["properties"]
        assert form["flowers"]["minimum"] == 0 and form["flowers"]["maximum"] == 8
        assert "flowers" in [p["name"] for p in op["parameters"] if p["in"] == "query"]
        assert "flowers" in op["description"]


# --- the phone page --------------------------------------------------------------------

class SlowSceneDetector:
    """The won scene (no flower), found after ``delay_s`` seconds, fitted to the photo."""

    delay_s = 2.5

    def __call__(self, image: Any) -> Detections:
        time.sleep(self.delay_s)
        picture = getattr(image, "picture", image)
        h, w = picture.shape[:2]
        return fitted(won_scene(), w, h)


@pytest.fixture(scope="module")
def slow_server() -> Iterator[str]:
    app = create_app(Settings(load_model=False, waits_processes=False))
    app.dependency_overrides[get_detector] = SlowSceneDetector
    yield from serve(app)


@NEEDS_BROWSER
def test_the_page_keeps_a_flower_count_stepped_while_the_photo_is_read(
        slow_server: str, browser: Any, tmp_path: Path) -> None:
    """A player sets 2 flowers aside and steps them in while the photo is read: the
    total counts them (MCR +2), as /v1/recognize with flowers=2 does. Before: the
    stepper went back to 0 when the reading came, and the total left them out."""
    from selenium.webdriver.common.by import By

    import scoring

    path = tmp_path / "hand.jpg"
    cv2.imwrite(str(path), np.full((960, 1280, 3), (40, 110, 40), np.uint8))
    load(browser, slow_server)
    upload(browser, path)
    wait_for(lambda: browser.find_element(By.ID, "busy").is_displayed(), what="reading")
    for _ in range(2):
        browser.find_element(By.ID, "flowers-plus").click()
    wait_for(lambda: hand(browser), timeout=40, what="the photo's hand")
    want = scoring.score(hand(browser), flowers=2).total
    assert want == scoring.score(hand(browser)).total + 2
    wait_for(lambda: text(browser, "total") == str(want), what=f"total {want}")
    assert text(browser, "flowers") == "2"
