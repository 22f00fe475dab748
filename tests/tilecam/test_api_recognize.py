"""``POST /v1/recognize``: a photo → tiles, hand, melds, score — through the HTTP layer.

The fast tests use a fake detector (dependency override) that "finds" a laid-out hand,
so they check the service: form/query context fields, the JSON shape, annotation, and
that the score is exactly the scorer's. One test runs the shipped model on a synthetic
image (skipped with the reason when no model is in ``models/``).
"""

from __future__ import annotations

import base64
import json
import os
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np
import pytest
from fastapi.testclient import TestClient

import scoring
from tilecam.api.deps import get_detector
from tilecam.app import create_app
from tilecam.settings import REPO_ROOT, Settings
from vision.detections import Detections

HAND = "[EEE,2]123m456p789sNN"


class SceneDetector:
    """Finds a winning hand laid out as at the table (a claimed pung of E with its middle
    tile sideways, the winning N set apart), scaled to the photo."""

    calls = 0

    def __call__(self, image: np.ndarray) -> Detections:
        from vision.layout_scene import SceneBuilder

        SceneDetector.calls += 1
        d = SceneBuilder().standing("123m456p789s").meld("EEE", sideways=1).standing("N")
        d = d.win("N").detections()
        w0, h0 = d.image_size or (1, 1)
        h, w = image.shape[:2]
        scale = np.array([w / w0, h / h0, w / w0, h / h0], np.float32)
        return Detections(
            boxes=(d.boxes * scale).astype(np.float32), class_ids=d.class_ids,
            confidences=d.confidences, rotations=d.rotations, topk_ids=d.topk_ids,
            topk_probs=d.topk_probs, image_size=(w, h),
        )


def jpeg(width: int = 640, height: int = 480) -> bytes:
    img = np.full((height, width, 3), (40, 110, 40), np.uint8)
    ok, buf = cv2.imencode(".jpg", img)
    assert ok
    return buf.tobytes()


@pytest.fixture()
def client() -> Iterator[TestClient]:
    app = create_app(Settings(load_model=False))
    app.dependency_overrides[get_detector] = SceneDetector
    with TestClient(app, raise_server_exceptions=False) as c:
        yield c


def post(client: TestClient, data: dict[str, str] | None = None, query: str = ""):  # type: ignore[no-untyped-def]
    return client.post(
        "/v1/recognize" + query, files={"image": ("hand.jpg", jpeg(), "image/jpeg")}, data=data
    )


def test_recognize_reads_and_scores_the_hand_like_the_scorer(client: TestClient) -> None:
    r = post(client, {"self_drawn": "true", "seat_wind": "S"})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["hand"] == HAND
    assert body["image"] == "hand.jpg" and body["image_size"] == [640, 480]
    assert len(body["tiles"]) == 14
    roles = [t["role"] for t in body["tiles"]]
    assert roles.count("meld") == 3 and roles.count("winning") == 1
    assert body["melds"][0]["kind"] == "pung" and body["melds"][0]["claimed_from"] == 2
    want = scoring.score(HAND, self_drawn=True, seat_wind="S").to_dict()
    assert body["score"] == want
    assert "annotated_jpeg" not in body
    assert 0 < body["reading_confidence"] <= 1
    assert body["hand_confidence"] is None  # this stand-in detector has no calibration


class CalibratedSceneDetector(SceneDetector):
    def __init__(self) -> None:
        self.calibration = {
            "features": ["win", "corrections"],
            "coef": [2.0, -1.0],
            "intercept": -1.0,
        }


def test_recognize_gives_the_calibrated_hand_confidence() -> None:
    """Rule: with a calibrated model the API answers hand_confidence = σ(b + Σ w·signal);
    here a win with no corrections: σ(-1 + 2) = 0.7311."""
    app = create_app(Settings(load_model=False))
    app.dependency_overrides[get_detector] = CalibratedSceneDetector
    with TestClient(app, raise_server_exceptions=False) as c:
        body = post(c).json()
    assert body["hand_confidence"] == pytest.approx(0.7311, abs=1e-4)


def test_recognize_context_changes_the_score(client: TestClient) -> None:
    discard = post(client).json()["score"]
    assert discard == scoring.score(HAND).to_dict()
    prevalent = post(client, {"prevalent_wind": "E"}).json()["score"]
    north = post(client, {"prevalent_wind": "N"}).json()["score"]
    assert prevalent["total"] != north["total"]  # 圈风刻 of E only when E is prevalent


def test_raw_body_with_query_context(client: TestClient) -> None:
    r = client.post(
        "/v1/recognize?self_drawn=1&seat_wind=W",
        content=jpeg(),
        headers={"content-type": "image/jpeg"},
    )
    assert r.status_code == 200, r.text
    assert r.json()["score"] == scoring.score(HAND, self_drawn=True, seat_wind="W").to_dict()


def test_annotate_adds_a_decodable_jpeg(client: TestClient) -> None:
    r = post(client, query="?annotate=1")
    assert r.status_code == 200, r.text
    url = r.json()["annotated_jpeg"]
    assert url.startswith("data:image/jpeg;base64,")
    img = cv2.imdecode(np.frombuffer(base64.b64decode(url.split(",", 1)[1]), np.uint8), 1)
    assert img.shape[1] == 640 and img.shape[0] >= 480  # the fan panel goes below


@pytest.mark.parametrize(
    ("fields", "status", "code", "word"),
    [
        ({"seat_wind": "X"}, 422, "invalid_request", "seat_wind"),
        ({"self_drawn": "maybe"}, 422, "invalid_request", "self_drawn"),
        ({"selfdrawn": "true"}, 422, "invalid_request", "selfdrawn"),
        ({"settings": "[1, 2]"}, 422, "invalid_request", "settings"),
        ({"settings": "{bad json"}, 422, "invalid_request", "settings"),
        ({"rules": "poker"}, 400, "invalid_context", "poker"),
        ({"version": "1850"}, 400, "invalid_context", "1850"),
        ({"rule_context": '{"rules": "mcr"}'}, 400, "invalid_context", "rules"),
        # contradictory or unknown win context: refused before the photo is read (it was
        # a 200 "unscorable", where /v1/score answers 400)
        ({"self_drawn": "true", "discarder": "1"}, 400, "invalid_context", "no discarder"),
        ({"rules": "zhenjiang", "rule_context": '{"gold": "1m"}'}, 400, "invalid_context",
         "gold"),
        ({"hidden_kongs": "5p Q"}, 400, "invalid_context", "'Q' is not a tile kind"),
    ],
)
def test_bad_context_fields_are_4xx_naming_the_field(
    client: TestClient, fields: dict[str, str], status: int, code: str, word: str
) -> None:
    r = post(client, fields)
    assert r.status_code == status, r.text
    err = r.json()["error"]
    assert err["code"] == code and word in err["message"], err


def test_recognize_without_a_model_is_503() -> None:
    with TestClient(create_app(Settings(load_model=False))) as c:
        r = post(c)
    assert r.status_code == 503
    assert r.json()["error"]["code"] == "not_ready"


#: The shipped model, or another model folder named by $TILECAM_MODEL_DIR.
MODEL_DIR = Path(os.environ.get("TILECAM_MODEL_DIR") or REPO_ROOT / "models")


def synthetic_hand_photo() -> tuple[bytes, int]:
    """A rendered 1280×960 photo of a laid-out hand (tile art installed on this machine)
    and its number of tiles; skips when no art set can be loaded."""
    from vision.synth.art import ArtError, load_art
    from vision.synth.scene import SceneOptions, render_scene

    for name in ("xmahjongg-real", "gnome-postmodern", "fluffy"):
        try:
            art = load_art(name)
            break
        except (ArtError, ImportError, OSError):
            continue
    else:
        pytest.skip("no tile art set is installed to render a synthetic photo")
    opts = SceneOptions(width=1280, height=960, hand_prob=1.0, extras_prob=0.0,
                        min_tile_px=50.0, max_tile_px=90.0)  # fmt: skip
    scene = render_scene(art, np.random.default_rng(7), opts)
    ok, buf = cv2.imencode(".jpg", cv2.cvtColor(scene.image, cv2.COLOR_RGB2BGR))
    assert ok
    return buf.tobytes(), len(scene.truth.get("tiles", []))


@pytest.mark.skipif(
    not (MODEL_DIR / "manifest.json").is_file(),
    reason=f"no shipped model yet: {MODEL_DIR / 'manifest.json'} is missing",
)
def test_real_model_recognizes_a_synthetic_image() -> None:
    """The shipped detector, loaded by the app at startup, on a rendered hand photo."""
    photo, n_true = synthetic_hand_photo()
    with TestClient(create_app(Settings(model_dir=MODEL_DIR))) as c:
        ready = c.get("/readyz")
        assert ready.status_code == 200, ready.text
        loaded = ready.json()["model"]
        r = c.post("/v1/recognize", files={"image": ("s.jpg", photo, "image/jpeg")})
        d = c.post("/v1/detect", files={"image": ("s.jpg", photo, "image/jpeg")})
    assert r.status_code == 200, r.text
    assert d.status_code == 200, d.text
    body = r.json()
    assert body["image_size"] == [1280, 960]
    assert len(body["tiles"]) == len(d.json()["tiles"])
    # the reading names the model that made it, as the detection does (name@version)
    manifest = json.loads((MODEL_DIR / "manifest.json").read_text())
    assert body["model"] == d.json()["meta"]["model"] == loaded
    assert body["model"].endswith("@" + manifest["version"])
    assert {"score", "waits", "unscorable"} & set(body)
    assert len(body["tiles"]) >= n_true // 2, (len(body["tiles"]), n_true)
    for t in body["tiles"]:
        x1, y1, x2, y2 = t["box"]
        assert 0 <= x1 < x2 <= 1280 and 0 <= y1 < y2 <= 960


@pytest.mark.skipif(
    not (MODEL_DIR / "manifest.json").is_file(),
    reason=f"no shipped model yet: {MODEL_DIR / 'manifest.json'} is missing",
)
def test_requests_at_once_read_the_photo_as_one_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """Recognitions that overlap (``recognize_concurrency`` 2: onnxruntime runs from two
    threads, the second on sessions without thread spinning) give the same reading."""
    from concurrent.futures import ThreadPoolExecutor

    import vision.detect

    monkeypatch.setenv("TILECAM_SPIN", "1")  # the default: sessions that spin when alone
    monkeypatch.setattr(vision.detect, "_CACHE", {})  # a detector loaded with that setting

    photo, _ = synthetic_hand_photo()
    with TestClient(create_app(Settings(model_dir=MODEL_DIR, recognize_concurrency=2))) as c:

        def post() -> dict[str, object]:
            r = c.post("/v1/recognize", files={"image": ("s.jpg", photo, "image/jpeg")})
            assert r.status_code == 200, r.text
            return r.json()  # type: ignore[no-any-return]

        alone = post()
        with ThreadPoolExecutor(max_workers=4) as pool:
            together = list(pool.map(lambda _: post(), range(6)))
        detector = c.app.state.detector  # type: ignore[attr-defined]
        overlapped = detector.backend._quiet_session is not detector.backend._session

    def reading(body: dict[str, object]) -> tuple[object, ...]:
        return body["hand"], [(t["code"], t["role"]) for t in body["tiles"]]  # type: ignore[attr-defined]

    assert overlapped, "no two recognitions ran at once (the quiet session was never made)"
    assert all(reading(b) == reading(alone) for b in together)
    for body in together:
        for a, b in zip(alone["tiles"], body["tiles"], strict=True):  # type: ignore[call-overload]
            assert a["box"] == pytest.approx(b["box"], abs=0.5)


def test_settings_nested_too_deep_are_a_422_not_a_500() -> None:
    """Every bad input gets a clear error: a photo's ``settings`` field nested about 990
    deep escaped as a RecursionError (500 "this is a tilecam bug")."""
    from tilecam.api.errors import ApiError
    from tilecam.api.routes.recognize import parse_options

    deep = "[" * 2000 + "]" * 2000
    for key in ("settings", "rule_context"):
        with pytest.raises(ApiError, match=f"{key} nests lists or objects too deeply"):
            parse_options({key: '{"a": ' + deep + "}"})


def test_a_rule_sets_win_type_in_rule_context_reads_the_photo(client: TestClient) -> None:
    """Xiamen's win type (``win`` in rule_context, e.g. 游金 you_jin) is not the field
    ``win`` (whether the photo shows a win): the phone page sends it there, and every
    photo was refused 400 while a win type was chosen. A ``win`` in rule_context that is
    no name is still refused, saying which is which."""
    ctx = json.dumps({"gold": "5m", "win": "you_jin"})
    r = post(client, {"rules": "xiamen", "rule_context": ctx, "win": "false"})
    assert r.status_code == 200, r.text
    assert r.json()["hand"] == HAND and "score" not in r.json()
    r = post(client, {"rules": "xiamen", "rule_context": json.dumps({"gold": "5m", "win": True})})
    assert r.status_code == 400 and "win type by name" in r.json()["error"]["message"], r.text
