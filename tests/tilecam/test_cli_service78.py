"""The commands and the service give the same answer for the same input (seventy-eighth
session): ``tilecam score``/``waits``/``rules``/``recognize``/``detect`` against ``POST
/v1/score``, ``/v1/waits``, ``GET /v1/rules``, ``POST /v1/recognize`` and ``/v1/detect``.

What differed and is checked here:

- a hand whose win context is wrong too: the service names the context (400
  ``invalid_context``, checked before the hand: :mod:`tilecam.api.hands`), the commands
  named the hand (``123x --rules xiamen``: "unknown character 'x'" at the command line,
  "Xiamen needs the gold" from the service); ``--flowers 1`` under Zhenjiang, which plays
  without flowers, was "remove the flowers" (as of flowers written in the hand) where the
  service says "flowers=1 cannot be (leave it out)";
- ``tilecam rules show NAME --json`` lacked the ``versions`` and ``default_version`` that
  each rule set of ``GET /v1/rules`` has;
- ``tilecam recognize`` said what was wrong with a photo it could not read without
  naming the file where the message does not ("truncated JPEG …"), as ``tilecam detect``
  names it.

Answers that agreed already are checked too (a score and a wait analysis under each rule
set, field for field; the tiles ``tilecam detect`` and ``POST /v1/detect`` find in a real
photo whose EXIF orientation turns it, boxes and confidences within 1e-3).
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from fastapi.testclient import TestClient

from tilecam.app import create_app
from tilecam.cli import main
from tilecam.settings import Settings
from vision.manifest import MANIFEST, default_model_dir

REPO = Path(__file__).resolve().parents[2]
#: A real table photo of the hk-photos set (CC BY 4.0; models/README.md): a hand with a
#: pung of 2m and one of 中 claimed, read by the shipped model as 14 tiles.
PHOTO = (REPO.parent / "shared" / "datasets" / "hk-photos" / "images" /
         "393108498_1026650501930230_4447288272682756468_n_jpg.rf."
         "18ceba63359900c6a0dbfa7195a8ce09.jpg")


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    """The service without a model (scoring, waits in a thread, rules)."""
    settings = Settings(load_model=False, waits_processes=False,
                        data_dir=tmp_path_factory.mktemp("data"))
    with TestClient(create_app(settings), raise_server_exceptions=False) as c:
        yield c


def command(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """Exit code, stdout and stderr of ``tilecam ARGS``."""
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


# --- the context's mistakes before the hand's ----------------------------------------

#: (command line, route, body): a hand and a win context both wrong, or flowers under
#: rules without them; the service answers 400 invalid_context with the message the
#: command must print.
CONTEXT_FIRST = [
    ("score 123x --rules xiamen", "score", {"hand": "123x", "rules": "xiamen"}),
    ("score 123m456p789s1112z --rules zhenjiang", "score",
     {"hand": "123m456p789s1112z", "rules": "zhenjiang"}),
    ("score 123m456p789s2m3m4mEE --rules zhenjiang --context wild=2m --flowers 1", "score",
     {"hand": "123m456p789s2m3m4mEE", "rules": "zhenjiang", "rule_context": {"wild": "2m"},
      "flowers": 1}),
    ("waits 123x --rules xiamen", "waits", {"hand": "123x", "rules": "xiamen"}),
    ("waits 123m456p789s --version 2099", "waits", {"hand": "123m456p789s",
                                                     "version": "2099"}),
    ("waits 123m456p789s2m3m4mE --rules zhenjiang --context wild=2m --flowers 2", "waits",
     {"hand": "123m456p789s2m3m4mE", "rules": "zhenjiang", "rule_context": {"wild": "2m"},
      "flowers": 2}),
]


@pytest.mark.parametrize(("line", "route", "body"), CONTEXT_FIRST,
                         ids=[c[0] for c in CONTEXT_FIRST])
def test_a_wrong_context_is_named_before_the_hand_as_the_service_names_it(
        line: str, route: str, body: dict[str, Any], client: TestClient,
        capsys: pytest.CaptureFixture[str]) -> None:
    r = client.post(f"/v1/{route}", json=body)
    assert r.status_code == 400, r.text
    error = r.json()["error"]
    assert error["code"] == "invalid_context"
    name = line.split()[0]
    code, out, err = command(shlex.split(line), capsys)
    assert (code, out) == (2, "")
    assert err == f"tilecam {name}: error: {error['message']}\n"


def test_flowers_under_rules_without_them_name_the_count_given(
        capsys: pytest.CaptureFixture[str]) -> None:
    """The count given is what is wrong, not flowers in the hand (there are none)."""
    code, _, err = command(["score", "123m456p789s2m3m4mEE", "--rules", "zhenjiang",
                            "--context", "wild=2m", "--flowers", "1"], capsys)
    assert code == 2
    assert "flowers=1 cannot be (leave it out)" in err
    assert "remove the flowers" not in err


# --- answers that agree ------------------------------------------------------------

#: (command line, route, body) of hands in notation under each rule set.
SAME_ANSWER = [
    ("score [EEE,2][SSSS,1]WWWNN55pN --self-drawn", "score",  # RULES.md: 98 fan
     {"hand": "[EEE,2][SSSS,1]WWWNN55pN", "self_drawn": True}),
    ("score 555666777p5556s7s --discarder 2 --seat S --prevalent W --version wmo-2006",
     "score", {"hand": "555666777p5556s7s", "discarder": 2, "seat_wind": "S",
               "prevalent_wind": "W", "version": "wmo-2006"}),
    ("score '123m456m789m234p567p9s 1f 3p' --rules xiamen --context gold=9s "
     "--context win=游金", "score",
     {"hand": "123m456m789m234p567p9s 1f 3p", "rules": "xiamen",
      "rule_context": {"gold": "9s", "win": "游金"}}),
    ("score 123m456p789s2m3m4mEE --rules zhenjiang --context indicator=1m --self-drawn",
     "score", {"hand": "123m456p789s2m3m4mEE", "rules": "zhenjiang",
               "rule_context": {"indicator": "1m"}, "self_drawn": True}),
    ("waits 123m456p789s1122z --seen EES", "waits",
     {"hand": "123m456p789s1122z", "seen": "EES"}),
    ("waits 1112345678999m1p", "waits", {"hand": "1112345678999m1p"}),
    ("waits 123m456m789m234p567p9s --rules xiamen --context gold=9s", "waits",
     {"hand": "123m456m789m234p567p9s", "rules": "xiamen", "rule_context": {"gold": "9s"}}),
    ("waits 13m456p789s2m3m4mEE --rules zhenjiang --context wild=2m --seen 5m", "waits",
     {"hand": "13m456p789s2m3m4mEE", "rules": "zhenjiang", "rule_context": {"wild": "2m"},
      "seen": "5m"}),
]


@pytest.mark.parametrize(("line", "route", "body"), SAME_ANSWER,
                         ids=[c[0] for c in SAME_ANSWER])
def test_the_command_answers_what_the_service_answers(
        line: str, route: str, body: dict[str, Any], client: TestClient,
        capsys: pytest.CaptureFixture[str]) -> None:
    r = client.post(f"/v1/{route}", json=body)
    assert r.status_code == 200, r.text
    code, out, _ = command([*shlex.split(line), "--json"], capsys)
    assert code == 0
    assert json.loads(out) == r.json()


def test_rules_show_json_is_the_rule_sets_entry_of_get_rules(
        client: TestClient, capsys: pytest.CaptureFixture[str]) -> None:
    """Versions included: MCR's four, with mil-2015 the default; none for the others."""
    served = {r["name"]: r for r in client.get("/v1/rules").json()["rule_sets"]}
    assert served["mcr"]["default_version"] == "mil-2015"
    for name, entry in served.items():
        code, out, _ = command(["rules", "show", name, "--json"], capsys)
        assert code == 0
        assert json.loads(out) == entry, name


# --- photos --------------------------------------------------------------------------

def test_recognize_names_the_photo_it_cannot_read(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A JPEG cut in half: the service's 400 (its upload loader, :func:`load_photo`: with
    no model the route answers 503 first) says what is wrong; the command says it of the
    file named, before any model is loaded."""
    from tilecam.api.errors import ApiError
    from tilecam.api.upload import load_photo

    ok, buf = cv2.imencode(".jpg", np.full((64, 96, 3), 128, np.uint8))
    assert ok
    cut = tmp_path / "cut.jpg"
    cut.write_bytes(buf.tobytes()[: len(buf) // 2])
    with pytest.raises(ApiError) as refused:
        load_photo(cut.read_bytes(), 40_000_000, 15 * 1024 * 1024)
    assert refused.value.status_code == 400
    message = refused.value.message
    assert message.startswith("truncated JPEG")
    code, out, err = command(["recognize", str(cut)], capsys)
    assert (code, out) == (2, "")
    assert err == f"tilecam recognize: error: {cut}: {message}\n"


def real_photo() -> np.ndarray:
    """:data:`PHOTO`'s pixels (BGR), skipping the test without it or the shipped model."""
    if not PHOTO.is_file():
        pytest.skip(f"no hk-photos photo: {PHOTO} is missing")
    if not (default_model_dir() / MANIFEST).is_file():
        pytest.skip(f"no shipped model: {default_model_dir() / MANIFEST} is missing")
    bgr = cv2.imread(str(PHOTO))
    assert bgr is not None, PHOTO
    return bgr


@pytest.fixture(scope="module")
def turned_photo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real photo stored turned a quarter left with EXIF orientation 6 (a viewer,
    and both readers, turn it back)."""
    from PIL import Image

    bgr = real_photo()
    rgb = cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB)
    exif = Image.Exif()
    exif[0x0112] = 6
    path = tmp_path_factory.mktemp("turned") / "turned.jpg"
    Image.fromarray(np.ascontiguousarray(np.rot90(rgb, 1))).save(path, quality=95,
                                                                   exif=exif)
    return path


def test_detect_finds_the_tiles_the_service_finds(
        turned_photo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    settings = Settings(data_dir=tmp_path, waits_processes=False)
    with TestClient(create_app(settings), raise_server_exceptions=False) as c:
        r = c.post("/v1/detect", files={"image": ("turned.jpg", turned_photo.read_bytes(),
                                                  "image/jpeg")})
    assert r.status_code == 200, r.text
    served = r.json()
    code, out, _ = command(["detect", "--json", str(turned_photo)], capsys)
    assert code == 0
    line = json.loads(out)
    assert [line["width"], line["height"]] == served["image_size"]
    tiles = sorted(served["tiles"], key=lambda t: (t["box"][0] + t["box"][2]) / 2)
    assert len(tiles) >= 10  # the hand was found at all
    assert [t["code"] for t in line["tiles"]] == [t["code"] for t in tiles]
    for mine, theirs in zip(line["tiles"], tiles, strict=True):
        assert (mine["rotation"], mine["face_down"]) == (theirs["rotation"], theirs["face_down"])
        assert mine["confidence"] == pytest.approx(theirs["confidence"], abs=1e-3)
        assert mine["box"] == pytest.approx(theirs["box"], abs=1e-3)


@pytest.fixture(scope="module")
def large_photo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real photo enlarged to 4032×3024, a 12 MP phone photo's size, as a JPEG."""
    bgr = real_photo()
    path = tmp_path_factory.mktemp("large") / "large.jpg"
    big = cv2.resize(bgr, (4032, 3024), interpolation=cv2.INTER_CUBIC)
    assert cv2.imwrite(str(path), big, [cv2.IMWRITE_JPEG_QUALITY, 92])
    return path


def centre(tile: dict[str, Any]) -> tuple[float, float]:
    """Twice a tile's box centre (x, y), pixels: the order tiles are compared in."""
    x0, y0, x1, y1 = tile["box"]
    return (x0 + x1, y0 + y1)


def test_detect_reads_a_large_photo_as_recognize_does(
        large_photo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A 12 MP JPEG: ``tilecam detect`` and ``POST /v1/detect`` find the boxes (1e-3 px)
    and confidences the detector finds in the photo as ``tilecam recognize`` and ``POST
    /v1/recognize`` load it (``load_for_reading``: a large JPEG decoded reduced). Before,
    the two detect paths decoded the JPEG whole: boxes moved up to 3 px and confidences
    up to 0.016 between a photo's detections and those its reading starts from."""
    from vision.detect import load_detector
    from vision.imageio import load_for_reading

    reading = load_detector().detect(load_for_reading(large_photo)).to_records()
    settings = Settings(data_dir=tmp_path, waits_processes=False)
    upload = {"image": ("large.jpg", large_photo.read_bytes(), "image/jpeg")}
    with TestClient(create_app(settings), raise_server_exceptions=False) as c:
        detected = c.post("/v1/detect", files=upload)
    assert detected.status_code == 200, detected.text
    code, out, _ = command(["detect", "--json", str(large_photo)], capsys)
    assert code == 0
    want = sorted(reading, key=centre)
    assert len(want) >= 10  # the hand was found at all
    for tiles in (json.loads(out)["tiles"], detected.json()["tiles"]):
        assert len(tiles) == len(want)
        for mine, theirs in zip(sorted(tiles, key=centre), want, strict=True):
            assert mine["code"] == theirs["code"]
            assert mine["box"] == pytest.approx(theirs["box"], abs=1e-3)
            assert mine["confidence"] == pytest.approx(theirs["confidence"], abs=1e-3)
