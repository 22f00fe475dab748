"""The phone page in a real browser (headless Chromium driven by selenium).

The app runs with uvicorn on a free loopback port in a thread, with a fake detector
(dependency override) that "finds" a laid-out winning hand in any photo. The test
uploads a photo, checks the tiles are boxed on it, taps a tile to correct it, sets the
win context and checks that the fan list and total follow the scorer. A phone-size
screenshot is written to ``$TILECAM_SCREENSHOT_DIR`` when that is set.

Skipped (with the reason) when Chromium, chromedriver or selenium are missing;
``.ci/run`` installs the Debian ``chromium`` and ``chromium-driver`` packages.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

import scoring
from tilecam.api.deps import get_detector
from tilecam.app import create_app
from tilecam.settings import Settings
from vision.detections import Detections

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
#: The skip every browser test module takes (the phone page's, the score sheet's).
NEEDS_BROWSER = pytest.mark.skipif(
    CHROMIUM is None or CHROMEDRIVER is None,
    reason="headless browser test needs Debian chromium and chromium-driver "
    "(apt-get install chromium chromium-driver; .ci/run installs them)",
)
pytestmark = NEEDS_BROWSER
webdriver = pytest.importorskip("selenium.webdriver", reason="selenium (dev extra) is missing")

# A winning MCR hand laid out as at the table: 12 standing tiles, a pung of E claimed
# from the player opposite (sideways tile in the middle), the winning tile set apart.
STANDING = "123m456p789s"
WINNING = "N"


def scene() -> Detections:
    from vision.layout_scene import SceneBuilder

    # the 9s is a close call between 9s and 6s (both readings win): an alternative
    b = SceneBuilder().standing("123m456p78s").standing("9s").uncertain([("9s", 0.5), ("6s", 0.45)])
    return b.meld("EEE", sideways=1).standing("N").win(WINNING).detections()


class SceneDetector:
    """Finds the scene's tiles in any photo, scaled to the photo's size."""

    def __call__(self, image: np.ndarray) -> Detections:
        d = scene()
        w0, h0 = d.image_size or (1, 1)
        h, w = image.shape[:2]
        boxes = d.boxes * np.array([w / w0, h / h0, w / w0, h / h0], np.float32)
        return Detections(
            boxes=boxes.astype(np.float32), class_ids=d.class_ids, confidences=d.confidences,
            rotations=d.rotations, topk_ids=d.topk_ids, topk_probs=d.topk_probs,
            image_size=(w, h), meta={"model": "scene-test@1"},
        )


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def serve(app: Any) -> Iterator[str]:
    """Run ``app`` with uvicorn on a free loopback port in a thread; yields its base URL
    and stops it after."""
    import uvicorn

    port = free_port()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
    srv = uvicorn.Server(config)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not srv.started:
        if time.monotonic() > deadline or not thread.is_alive():
            pytest.fail("uvicorn did not start")
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    srv.should_exit = True
    thread.join(10)


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    app = create_app(Settings(load_model=False))
    app.dependency_overrides[get_detector] = SceneDetector
    yield from serve(app)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="tilecam-chromium-")
    opts = Options()
    opts.binary_location = str(CHROMIUM)
    for flag in (
        "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--disable-dev-shm-usage", f"--user-data-dir={profile}", "--window-size=412,915",
        "--force-device-scale-factor=1", "--lang=en-US",
    ):  # fmt: skip
        opts.add_argument(flag)
    try:
        driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=opts)
    except Exception as exc:  # the browser exists but cannot start here
        shutil.rmtree(profile, ignore_errors=True)
        pytest.skip(f"headless Chromium could not start: {exc}")
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()
    shutil.rmtree(profile, ignore_errors=True)


def wait_for(cond: Any, timeout: float = 20.0, what: str = "condition") -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            value = cond()
        except Exception:
            value = None
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def expected_total(hand: str, **context: Any) -> int:
    return scoring.score(hand, **context).total


def screenshot(driver: Any, name: str) -> None:
    """Save the phone-size view, and the whole page, when $TILECAM_SCREENSHOT_DIR is set."""
    folder = os.environ.get("TILECAM_SCREENSHOT_DIR")
    if not folder:
        return
    Path(folder).mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(Path(folder) / name))
    size = driver.get_window_size()
    height = driver.execute_script("return document.documentElement.scrollHeight")
    driver.set_window_size(size["width"], max(size["height"], int(height)))
    driver.save_screenshot(str(Path(folder) / name.replace(".png", "-full.png")))
    driver.set_window_size(size["width"], size["height"])


def photo(tmp_path: Path) -> Path:
    img = np.full((960, 1280, 3), (40, 110, 40), np.uint8)  # green baize
    d = SceneDetector()(img)
    for x1, y1, x2, y2 in d.boxes.astype(int):
        cv2.rectangle(img, (x1 + 2, y1 + 2), (x2 - 2, y2 - 2), (235, 235, 225), -1)
    path = tmp_path / "hand.jpg"
    cv2.imwrite(str(path), img)
    return path


def test_typed_hand_is_scored_with_the_win_context(server: str, browser: Any) -> None:
    from selenium.webdriver.common.by import By

    browser.get(server + "/")
    wait_for(lambda: browser.find_element(By.TAG_NAME, "body").get_attribute("data-ready"),
             what="page start")
    options = browser.find_elements(By.CSS_SELECTOR, "#rules option")
    rules = [o.get_attribute("value") for o in options]
    assert "mcr" in rules
    hand = "[EEE,2][SSSS,1]WWWNN55pN"
    box = browser.find_element(By.ID, "hand")
    box.clear()
    box.send_keys(hand)
    browser.find_element(By.ID, "score-btn").click()
    want = expected_total(hand)
    wait_for(lambda: browser.find_element(By.ID, "total").text == str(want), what=f"total {want}")
    browser.find_element(By.ID, "self_drawn").click()
    want_self = expected_total(hand, self_drawn=True)
    wait_for(lambda: browser.find_element(By.ID, "total").text == str(want_self),
             what=f"self-drawn total {want_self}")
    fans = browser.find_element(By.ID, "fans").text
    assert "自摸" in fans or "不求人" in fans
    browser.find_element(By.ID, "self_drawn").click()  # back to a discard win


def test_bad_hand_shows_the_scorers_message(server: str, browser: Any) -> None:
    from selenium.webdriver.common.by import By

    browser.get(server + "/")
    wait_for(lambda: browser.find_element(By.TAG_NAME, "body").get_attribute("data-ready"),
             what="page start")
    box = browser.find_element(By.ID, "hand")
    box.send_keys("123m456x")
    browser.find_element(By.ID, "score-btn").click()
    err = wait_for(lambda: browser.find_element(By.ID, "error").is_displayed()
                   and browser.find_element(By.ID, "error").text, what="error message")
    assert "x" in err and "position" in err


def test_photo_is_boxed_and_a_tapped_tile_can_be_corrected(
    server: str, browser: Any, tmp_path: Path
) -> None:
    from selenium.webdriver.common.by import By

    browser.get(server + "/")
    wait_for(lambda: browser.find_element(By.TAG_NAME, "body").get_attribute("data-ready"),
             what="page start")
    upload = browser.find_element(By.ID, "photo")
    browser.execute_script("arguments[0].hidden = false;", upload)
    upload.send_keys(str(photo(tmp_path)))
    rects = wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, "#overlay rect"),
                     what="tile boxes")
    assert len(rects) == 14  # 9 standing + a pung + N + the winning N set apart
    hand = browser.find_element(By.ID, "hand").get_attribute("value")
    assert hand == scoring.format_hand(scoring.parse_hand(f"[EEE,2]{STANDING}N{WINNING}"))
    want = expected_total(hand)
    wait_for(lambda: browser.find_element(By.ID, "total").text == str(want), what="photo total")
    assert browser.find_elements(By.CSS_SELECTOR, "#overlay rect.winning")
    assert browser.find_elements(By.CSS_SELECTOR, "#overlay rect.meld")
    # the 9s is a 50 % call, so the page says the reading as a whole is at most 50 % sure
    sure = re.search(r"(\d+)% sure of every tile", browser.find_element(By.ID, "notes").text)
    assert sure is not None and int(sure.group(1)) <= 50
    assert "Read by model scene-test@1." in browser.find_element(By.ID, "notes").text
    screenshot(browser, "page-recognized.png")

    # tap the 9s (tile 9) and correct it to 6s: 786s is still a chow, the score changes
    browser.find_element(By.CSS_SELECTOR, '#overlay rect[data-index="8"]').click()
    wait_for(lambda: browser.find_element(By.ID, "picker").is_displayed(), what="tile picker")
    screenshot(browser, "page-picker.png")
    assert len(browser.find_elements(By.CSS_SELECTOR, "#picker-grid button")) == 43
    offered = browser.find_elements(By.CSS_SELECTOR, "#picker-top button")
    top = [b.get_attribute("data-code") for b in offered]
    assert top == ["6s"]  # the detector's alternative is offered first
    browser.find_element(By.CSS_SELECTOR, '#picker-grid button[data-code="6s"]').click()
    corrected = "[EEE,2]123m456p786sNN"
    wait_for(lambda: browser.find_element(By.ID, "hand").get_attribute("value") == corrected,
             what="corrected hand")
    assert browser.find_elements(By.CSS_SELECTOR, "#overlay rect.changed")
    new = expected_total(corrected)
    assert new != want
    wait_for(lambda: browser.find_element(By.ID, "total").text == str(new), what=f"total {new}")


def test_rule_set_fields_come_from_the_rules_endpoint(server: str, browser: Any) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    browser.get(server + "/")
    wait_for(lambda: browser.find_element(By.TAG_NAME, "body").get_attribute("data-ready"),
             what="page start")
    Select(browser.find_element(By.ID, "rules")).select_by_value("zhenjiang")
    assert not browser.find_element(By.ID, "version-field").is_displayed()  # MCR only
    field = '#rule-context select[data-name="indicator"]'
    indicator = wait_for(lambda: browser.find_element(By.CSS_SELECTOR, field), what="indicator")
    Select(indicator).select_by_value('"E"')  # 正搭 E: the 百搭 is S
    hand = "[EEE,2]123m456p789sSN"
    box = browser.find_element(By.ID, "hand")
    box.clear()
    box.send_keys(hand)
    browser.find_element(By.ID, "score-btn").click()
    want = scoring.score(hand, rules="zhenjiang", indicator="E")
    wait_for(lambda: browser.find_element(By.ID, "total").text == str(want.total),
             what=f"zhenjiang total {want.total}")
    fans = browser.find_element(By.ID, "fans").text
    assert all(f.zh in fans for f in want.fans)
    # a number setting takes what the scorer takes: whole chips from 0 to 10⁹
    chip = browser.find_element(By.CSS_SELECTOR, '#rule-settings input[data-name="base_chip"]')
    assert [chip.get_attribute(a) for a in ("step", "min", "max")] == ["1", "0", "1000000000"]


def test_a_tap_near_a_small_tile_opens_its_picker(
    server: str, browser: Any, tmp_path: Path
) -> None:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By

    browser.get(server + "/")
    wait_for(lambda: browser.find_element(By.TAG_NAME, "body").get_attribute("data-ready"),
             what="page start")
    upload = browser.find_element(By.ID, "photo")
    browser.execute_script("arguments[0].hidden = false;", upload)
    upload.send_keys(str(photo(tmp_path)))
    first = wait_for(lambda: browser.find_element(By.CSS_SELECTOR, '#overlay rect[data-index="0"]'),
                     what="tile boxes")
    height = first.size["height"]
    # a finger lands just below the first tile, outside its box
    below = int(height * 0.5) + 3  # offsets are from the element's centre
    ActionChains(browser).move_to_element_with_offset(first, 0, below).click().perform()
    wait_for(lambda: browser.find_element(By.ID, "picker").is_displayed(), what="tile picker")
    # the page numbers a tile only where a note names it (and draws that number on the
    # photo); the picker says what the tapped tile was read as
    assert browser.find_element(By.ID, "picker-title").text.endswith("Read as 1m 一万")


def test_a_close_alternative_reading_can_be_used(
    server: str, browser: Any, tmp_path: Path
) -> None:
    from selenium.webdriver.common.by import By

    browser.get(server + "/")
    wait_for(lambda: browser.find_element(By.TAG_NAME, "body").get_attribute("data-ready"),
             what="page start")
    upload = browser.find_element(By.ID, "photo")
    browser.execute_script("arguments[0].hidden = false;", upload)
    upload.send_keys(str(photo(tmp_path)))
    use = wait_for(lambda: browser.find_element(By.CSS_SELECTOR, "#notes button"),
                   what="an alternative reading")
    assert "786s" in browser.find_element(By.ID, "notes").text
    use.click()
    alt = "[EEE,2]123m456p786sNN"
    wait_for(lambda: browser.find_element(By.ID, "hand").get_attribute("value") == alt,
             what="the alternative hand")
    want = expected_total(alt)
    wait_for(lambda: browser.find_element(By.ID, "total").text == str(want), what=f"total {want}")


def test_a_photo_chosen_from_the_library_is_read_too(
    server: str, browser: Any, tmp_path: Path
) -> None:
    """The camera button's ``capture`` opens the camera only; the second picker (no
    ``capture``: the phone offers its library) reads the chosen photo the same way."""
    from selenium.webdriver.common.by import By

    browser.get(server + "/")
    wait_for(lambda: browser.find_element(By.TAG_NAME, "body").get_attribute("data-ready"),
             what="page start")
    pick = browser.find_element(By.ID, "photo-pick")
    assert pick.get_attribute("capture") in (None, "")
    browser.execute_script("arguments[0].hidden = false;", pick)
    pick.send_keys(str(photo(tmp_path)))
    rects = wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, "#overlay rect"),
                     what="tile boxes")
    assert len(rects) == 14
    hand = browser.find_element(By.ID, "hand").get_attribute("value")
    assert hand == scoring.format_hand(scoring.parse_hand(f"[EEE,2]{STANDING}N{WINNING}"))
    screenshot(browser, "page-photo-buttons.png")
