"""The phone page's answers to its review (headless Chromium via selenium, as
``test_page.py``): what the page shows stays the hand and the controls on screen when
answers come late or out of order, a tap-correction keeps the layout's order, a close
alternative stays used, waits say what their numbers are, and the photo buttons can be
reached by keyboard; plus the smaller points (timeouts, plain error messages, rules
without flowers, a photo the browser cannot show, tile numbers, narrow phones).
The second review's: flowers put back by rules that play them, an alternative usable
again, tiles named by their place in the hand, and a photo refused for its win context
kept and read again once that is set.

The app runs with a stand-in detector that "finds" one of four laid-out hands, chosen by
the colour of the photo's background, so that two photos give two different readings.
Slow or failing answers are made in the page: ``fetch`` is wrapped to hold a request back
for a while, or to answer for the server.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from test_page import NEEDS_BROWSER, browser, scene, serve, wait_for

import scoring
from tilecam.api.deps import get_detector
from tilecam.app import create_app
from tilecam.settings import Settings
from vision.detections import Detections
from vision.layout_scene import SceneBuilder

pytestmark = NEEDS_BROWSER
pytest.importorskip("selenium.webdriver", reason="selenium (dev extra) is missing")

__all__ = ["browser"]  # the fixture, shared with the phone page's tests

# scene A (test_page.scene): [EEE,2]123m456p789sNN, the 9s a close call with 6s
HAND_A = "[EEE,2]123m456p789sNN"
# scene B: another win, all standing, the winning E set apart
HAND_B = "111m234p567s789sEE"
# scene F: a win with flowers 1f 2f (MCR counts them; Zhenjiang plays without flowers)
HAND_F = "123m456p789sEEENN12f"
# scene C: 14 standing tiles, none set apart, listed by the detector out of row order;
# read as laid out it is no win (7777p)
ROW_C = "EEE7777666448p8p"
PERM_C = [12, 3, 7, 0, 13, 4, 9, 1, 11, 5, 2, 8, 6, 10]  # detector index → place in the row


def scene_b() -> Detections:
    return SceneBuilder().standing("111m234p567s789sE").win("E").detections()


def scene_f() -> Detections:
    """Scene F: a win with two flowers beside it."""
    return SceneBuilder().standing("123m456p789sEEEN").win("N").flowers("1f2f").detections()


def scene_c() -> Detections:
    d = SceneBuilder().standing(ROW_C).detections()
    return Detections(
        boxes=d.boxes[PERM_C], class_ids=d.class_ids[PERM_C], confidences=d.confidences[PERM_C],
        rotations=d.rotations[PERM_C], topk_ids=d.topk_ids[PERM_C],
        topk_probs=d.topk_probs[PERM_C], image_size=d.image_size,
    )


BACKGROUNDS: dict[str, tuple[tuple[int, int, int], Callable[[], Detections]]] = {
    "green": ((40, 110, 40), scene),
    "dark": ((60, 60, 60), scene_b),
    "light": ((170, 170, 170), scene_c),
    "red": ((40, 40, 160), scene_f),
}


def fitted(d: Detections, w: int, h: int) -> Detections:
    """``d`` scaled to a ``w``×``h`` photo."""
    w0, h0 = d.image_size or (1, 1)
    boxes = d.boxes * np.array([w / w0, h / h0, w / w0, h / h0], np.float32)
    return Detections(
        boxes=boxes.astype(np.float32), class_ids=d.class_ids, confidences=d.confidences,
        rotations=d.rotations, topk_ids=d.topk_ids, topk_probs=d.topk_probs,
        image_size=(w, h), meta={"model": "scene-test@1"},
    )


def background(image: np.ndarray) -> str:
    patch = image[:20, :20].reshape(-1, image.shape[2] if image.ndim == 3 else 1).mean(0)
    if len(patch) >= 3 and patch[1] - max(patch[0], patch[2]) > 30:
        return "green"
    if len(patch) >= 3 and abs(float(patch[0]) - float(patch[2])) > 60:  # BGR or RGB
        return "red"
    return "dark" if patch.mean() < 110 else "light"


class PhotoSceneDetector:
    """Finds scene A, B, C or F by the photo's background colour, scaled to the photo."""

    def __call__(self, image: np.ndarray) -> Detections:
        h, w = image.shape[:2]
        return fitted(BACKGROUNDS[background(image)][1](), w, h)


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    app = create_app(Settings(load_model=False))
    app.dependency_overrides[get_detector] = PhotoSceneDetector
    yield from serve(app)


def photo(tmp_path: Path, kind: str = "green", suffix: str = ".jpg") -> Path:
    colour, make = BACKGROUNDS[kind]
    img = np.full((960, 1280, 3), colour, np.uint8)
    for x1, y1, x2, y2 in fitted(make(), 1280, 960).boxes.astype(int):
        cv2.rectangle(img, (x1 + 2, y1 + 2), (x2 - 2, y2 - 2), (235, 235, 225), -1)
    path = tmp_path / f"hand-{kind}{suffix}"
    cv2.imwrite(str(path), img)
    return path


# fetch, wrapped: plan[path] is a list, one entry per call (the last one repeats): a
# number holds the request back that many ms (an abort still ends it), an object
# {status, text, headers} answers for the server, {patch} merges keys into its JSON answer
WRAP_FETCH = """
const plan = arguments[0];
if (!window.__realFetch) window.__realFetch = window.fetch;
window.fetch = async function (path, opts = {}) {
  const p = String(path).split("?")[0];
  window.__calls = window.__calls || {};
  window.__calls[p] = (window.__calls[p] || 0) + 1;
  const list = plan[p];
  let step = 0;
  if (list) step = list.length > 1 ? list.shift() : list[0];
  if (step && typeof step === "object" && "status" in step) {
    return new Response(step.text || "", { status: step.status, headers: step.headers || {} });
  }
  const signal = opts.signal;
  if (typeof step === "number" && step > 0) {
    await new Promise((ok, fail) => {
      const t = setTimeout(ok, step);
      if (signal) signal.addEventListener("abort", () => { clearTimeout(t); fail(signal.reason); });
    });
  }
  const answer = await window.__realFetch.call(window, path, opts);
  if (step && typeof step === "object" && step.patch) {
    const body = Object.assign(await answer.json(), step.patch);
    return new Response(JSON.stringify(body), {
      status: answer.status, headers: { "Content-Type": "application/json" } });
  }
  return answer;
};
"""


def load(driver: Any, server: str, plan: dict[str, list[Any]] | None = None) -> None:
    from selenium.webdriver.common.by import By

    driver.get(server + "/")
    wait_for(lambda: driver.find_element(By.TAG_NAME, "body").get_attribute("data-ready"),
             what="page start")
    if plan:
        driver.execute_script(WRAP_FETCH, plan)


def upload(driver: Any, path: Path, which: str = "photo") -> None:
    from selenium.webdriver.common.by import By

    driver.find_element(By.ID, which).send_keys(str(path))


def hand(driver: Any) -> str:
    from selenium.webdriver.common.by import By

    return str(driver.find_element(By.ID, "hand").get_attribute("value"))


def text(driver: Any, id_: str) -> str:
    from selenium.webdriver.common.by import By

    element = driver.find_element(By.ID, id_)
    return str(element.text) if element.is_displayed() else ""


def busy(driver: Any) -> bool:
    from selenium.webdriver.common.by import By

    return bool(driver.find_element(By.ID, "busy").is_displayed())


def norm(h: str) -> str:
    return scoring.format_hand(scoring.parse_hand(h))


def type_hand(driver: Any, h: str) -> None:
    from selenium.webdriver.common.by import By

    box = driver.find_element(By.ID, "hand")
    box.clear()
    box.send_keys(h)
    driver.find_element(By.ID, "score-btn").click()


def correct(driver: Any, index: int, code: str) -> None:
    """Tap the box of tile ``index`` on the photo and pick ``code``."""
    from selenium.webdriver.common.by import By

    driver.find_element(By.CSS_SELECTOR, f'#overlay rect[data-index="{index}"]').click()
    wait_for(lambda: driver.find_element(By.ID, "picker").is_displayed(), what="tile picker")
    driver.find_element(By.CSS_SELECTOR, f'#picker-grid button[data-code="{code}"]').click()


# ----------------------------------------------------------------------------- H1


def test_a_control_changed_while_the_photo_is_read_is_scored(
    server: str, browser: Any, tmp_path: Path
) -> None:
    """H1: self-drawn and seat S set while the photo is read (sent as a discard win, seat
    E): the total shown is the one for the controls on screen."""
    from selenium.webdriver.common.by import By

    load(browser, server, {"/v1/recognize": [2500, 0]})
    upload(browser, photo(tmp_path))
    wait_for(lambda: busy(browser), what="reading the photo")
    browser.find_element(By.ID, "self_drawn").click()
    browser.find_element(By.CSS_SELECTOR, '#seat_wind label[data-wind="S"]').click()
    wait_for(lambda: hand(browser) == norm(HAND_A), what="the photo's hand")
    want = scoring.score(HAND_A, self_drawn=True, seat_wind="S").total
    assert want != scoring.score(HAND_A).total  # what the photo was sent with
    wait_for(lambda: text(browser, "total") == str(want), timeout=8, what=f"total {want}")
    time.sleep(0.5)
    assert text(browser, "total") == str(want)
    assert browser.find_element(By.ID, "self_drawn").is_selected()


# -------------------------------------------------------------------------- H2, M1


def test_a_late_score_answer_does_not_replace_the_photos_result(
    server: str, browser: Any, tmp_path: Path
) -> None:
    """H2: a typed hand's score arrives after a photo's reading: the photo's stays."""
    typed = "[EEE,2][SSSS,1]WWWNN55pN"
    load(browser, server, {"/v1/score": [3000, 0]})
    type_hand(browser, typed)
    upload(browser, photo(tmp_path))
    want = scoring.score(HAND_A).total
    assert want != scoring.score(typed).total
    wait_for(lambda: hand(browser) == norm(HAND_A) and text(browser, "total") == str(want),
             what="the photo's hand and total")
    time.sleep(3.5)  # the typed hand's answer has come and gone
    assert hand(browser) == norm(HAND_A)
    assert text(browser, "total") == str(want)


def test_the_newer_photo_wins_and_busy_shows_until_it_is_read(
    server: str, browser: Any, tmp_path: Path
) -> None:
    """M1: photo A then at once photo B. A answering first does not show A nor hide
    "busy"; A answering last does not replace B."""
    a, b = photo(tmp_path, "green"), photo(tmp_path, "dark")
    total_b = str(scoring.score(HAND_B).total)
    # A quick, B slow: while B is read the page shows neither A nor "done"
    load(browser, server, {"/v1/recognize": [1500, 5000]})
    upload(browser, a, "photo")
    upload(browser, b, "photo-pick")
    time.sleep(3)
    assert busy(browser), "busy hid while the newer photo was still being read"
    assert hand(browser) != norm(HAND_A)
    wait_for(lambda: hand(browser) == norm(HAND_B), what="photo B's hand")
    wait_for(lambda: not busy(browser), timeout=5, what="busy hidden")
    # A slow, B quick: A's late answer is not shown
    load(browser, server, {"/v1/recognize": [3000, 0]})
    upload(browser, a, "photo")
    upload(browser, b, "photo-pick")
    wait_for(lambda: hand(browser) == norm(HAND_B) and text(browser, "total") == total_b,
             what="photo B's hand and total")
    time.sleep(3.5)
    assert hand(browser) == norm(HAND_B)
    assert text(browser, "total") == total_b
    assert not busy(browser)


# ----------------------------------------------------------------------------- H3


def test_a_tap_correction_keeps_the_layouts_order_and_last_tile(
    server: str, browser: Any, tmp_path: Path
) -> None:
    """H3: the detector lists the row out of order. Correcting a 7p to 8p writes the row
    as laid out, so the 8p at its right end stays the last (winning) tile: 58 fan, not
    the 98 of the hand won on a 4p; the chips follow the same order. Correcting that
    last tile keeps it last."""
    from selenium.webdriver.common.by import By

    load(browser, server)
    upload(browser, photo(tmp_path, "light"))
    wait_for(lambda: hand(browser) == ROW_C, what="the row as laid out")
    seventh = PERM_C.index(6)  # detector index of the row's 7th tile, a 7p
    correct(browser, seventh, "8p")
    want = "EEE7778666448p8p"
    wait_for(lambda: hand(browser) == want, timeout=8, what=want)
    total = scoring.score(want).total
    assert total != scoring.score("EEE777866648p8p4p").total
    wait_for(lambda: text(browser, "total") == str(total), what=f"total {total}")
    chips = [c.text.split("\n")[0] for c in
             browser.find_elements(By.CSS_SELECTOR, "#hand-tiles button")]
    assert chips == ["E", "E", "E", "7p", "7p", "7p", "8p", "6p", "6p", "6p", "4p", "4p",
                     "8p", "8p"]
    # the last tile (the winning one) corrected: still the last
    correct(browser, PERM_C.index(13), "4p")
    want = "EEE7778666448p4p"
    wait_for(lambda: hand(browser) == want, timeout=8, what=want)
    total = scoring.score(want).total
    wait_for(lambda: text(browser, "total") == str(total), what=f"total {total}")


# ----------------------------------------------------------------------------- M2


def test_a_used_alternative_stays_after_a_tap_correction(
    server: str, browser: Any, tmp_path: Path
) -> None:
    """M2: "use" on the 786s reading puts 6s on the photo's tile; correcting another
    tile afterwards keeps it."""
    from selenium.webdriver.common.by import By

    load(browser, server)
    upload(browser, photo(tmp_path))
    use = wait_for(lambda: browser.find_element(By.CSS_SELECTOR, "#notes button"),
                   what="an alternative reading")
    use.click()
    alt = "[EEE,2]123m456p786sNN"
    wait_for(lambda: hand(browser) == alt, what="the alternative hand")
    nine = browser.find_element(By.CSS_SELECTOR, '#overlay rect[data-index="8"]')
    assert "changed" in str(nine.get_attribute("class"))
    chips = [c.text.split("\n")[0] for c in
             browser.find_elements(By.CSS_SELECTOR, "#hand-tiles button")]
    assert "6s" in chips and "9s" not in chips
    assert "Using the alternative reading" in text(browser, "hand-note")
    correct(browser, 0, "4m")  # 1m → 4m: 423m is still a chow
    want = "[EEE,2]423m456p786sNN"
    wait_for(lambda: hand(browser) == want, timeout=8, what=want)
    total = scoring.score(want).total
    wait_for(lambda: text(browser, "total") == str(total), what=f"total {total}")


# ----------------------------------------------------------------------------- M3


def test_waits_say_what_their_numbers_are_and_which_are_not_legal(
    server: str, browser: Any
) -> None:
    """M3: each wait's fan on a discard and self-drawn is labelled; a wait below the
    minimum says it is not a legal win."""
    from selenium.webdriver.common.by import By

    short = "[234m,1][456p,1]678sWWW5s"
    waits = scoring.waits(short)
    assert all(not w.discard.legal for w in waits.waits)
    load(browser, server)
    type_hand(browser, short)
    shown = wait_for(lambda: text(browser, "waits"), what="waits")
    assert "On a discard" in shown and "Self-drawn" in shown
    assert "not legal" in shown and "not a legal win" in shown
    bad = browser.find_elements(By.CSS_SELECTOR, "#waits td.bad")
    assert len(bad) == 2 * len(waits.waits)
    for w in waits.waits:
        assert w.tile in shown and f"{w.remaining} left" in shown


# ----------------------------------------------------------------------------- M4


def test_the_photo_buttons_are_reached_by_keyboard(server: str, browser: Any) -> None:
    """M4: Tab from the top reaches the camera input, then the picker input; each shows a
    focus ring on its (button-like) label."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    load(browser, server)
    active = "return document.activeElement && document.activeElement.id"
    ring = ("return getComputedStyle(document.querySelector("
            "`label[for='${arguments[0]}']`)).outlineStyle")
    for want in ("photo", "photo-pick"):
        ActionChains(browser).send_keys(Keys.TAB).perform()
        assert browser.execute_script(active) == want
        assert browser.execute_script(ring, want) not in ("none", "")
        field = browser.find_element(By.ID, want)
        assert field.value_of_css_property("display") != "none"


# ------------------------------------------------------------------------ the lows


def test_rules_without_flowers_turn_the_stepper_off_and_drop_the_flowers(
    server: str, browser: Any
) -> None:
    """L1."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    load(browser, server)
    type_hand(browser, "[EEE,2]123m456p789sNN1f")
    Select(browser.find_element(By.ID, "rules")).select_by_value("zhenjiang")
    wait_for(lambda: hand(browser) == "[EEE,2]123m456p789sNN", what="the flowers dropped")
    assert "without flowers" in text(browser, "hand-note")
    assert browser.find_element(By.ID, "flowers-plus").get_attribute("disabled") is not None
    assert "without flowers" in text(browser, "flowers-none")
    Select(browser.find_element(By.ID, "rules")).select_by_value("mcr")
    # the flower the page took out is put back (third review), and counts itself
    wait_for(lambda: hand(browser) == "[EEE,2]123m456p789sNN1f", what="the flower put back")
    assert browser.find_element(By.ID, "flowers-plus").get_attribute("disabled") is not None
    type_hand(browser, "[EEE,2]123m456p789sNN")
    assert browser.find_element(By.ID, "flowers-plus").get_attribute("disabled") is None


def test_a_failed_second_photo_says_the_first_is_still_shown(
    server: str, browser: Any, tmp_path: Path
) -> None:
    """L3."""
    too_big = {"status": 413, "text": '{"error": {"code": "image_too_large", '
               '"message": "the image is over the limit"}}',
               "headers": {"Content-Type": "application/json"}}
    load(browser, server, {"/v1/recognize": [0, too_big]})
    upload(browser, photo(tmp_path))
    wait_for(lambda: hand(browser) == norm(HAND_A), what="the first photo")
    upload(browser, photo(tmp_path, "dark"), "photo-pick")
    err = wait_for(lambda: text(browser, "error"), what="the error")
    # a 413 is said in words a phone user can act on (a11y review: it was bytes)
    assert "too large for the server" in err and "Take a photo" in err
    assert "previous photo" in err
    assert hand(browser) == norm(HAND_A)


def test_a_stalled_upload_times_out_or_is_cancelled(
    server: str, browser: Any, tmp_path: Path
) -> None:
    """L4: no answer in the time allowed says so; Cancel stops the wait."""
    from selenium.webdriver.common.by import By

    load(browser, server, {"/v1/recognize": [60000]})
    browser.execute_script("state.uploadTimeoutMs = 1500;")
    upload(browser, photo(tmp_path))
    err = wait_for(lambda: text(browser, "error"), timeout=8, what="the timeout")
    assert "no answer from the server in 2 s" in err
    assert not busy(browser)
    browser.execute_script("state.uploadTimeoutMs = 60000;")
    upload(browser, photo(tmp_path, "dark"), "photo-pick")
    wait_for(lambda: busy(browser), what="reading")
    browser.find_element(By.ID, "busy-cancel").click()
    wait_for(lambda: not busy(browser), timeout=3, what="cancelled")
    assert hand(browser) == ""


def test_answers_without_json_are_said_plainly_with_retry_after(
    server: str, browser: Any, tmp_path: Path
) -> None:
    """L5: a gateway's HTML 502 with Retry-After, and a proxy's HTML 413."""
    page = "<html><body><h1>Bad Gateway</h1></body></html>"
    plan = {"/v1/recognize": [
        {"status": 502, "text": page, "headers": {"Retry-After": "7"}},
        {"status": 413, "text": page},
    ]}
    load(browser, server, plan)
    upload(browser, photo(tmp_path))
    err = wait_for(lambda: text(browser, "error"), what="the 502")
    assert "unavailable" in err and "Try again in 7 s" in err and "JSON" not in err
    upload(browser, photo(tmp_path, "dark"), "photo-pick")
    wait_for(lambda: "photo is too large for the server" in text(browser, "error"),
             what="the 413")


def test_a_photo_the_browser_cannot_show_is_said_and_its_reading_shown(
    server: str, browser: Any, tmp_path: Path
) -> None:
    """L6: a TIFF: the server reads it, the browser cannot draw it."""
    load(browser, server)
    upload(browser, photo(tmp_path, suffix=".tif"))
    wait_for(lambda: hand(browser) == norm(HAND_A), what="the reading")
    wait_for(lambda: "cannot show this photo" in text(browser, "notes"), what="the note")
    from selenium.webdriver.common.by import By

    assert not browser.find_element(By.ID, "stage").is_displayed()


def test_live_regions_and_names(server: str, browser: Any) -> None:
    """L7: the notes and busy are announced; the wind groups and the flower count have
    names."""
    from selenium.webdriver.common.by import By

    load(browser, server)
    assert browser.find_element(By.ID, "notes").get_attribute("aria-live") == "polite"
    assert browser.find_element(By.ID, "busy").get_attribute("role") == "status"
    for id_, name in (("seat_wind", "Seat wind"), ("prevalent_wind", "Prevalent wind"),
                      ("flowers", "Flowers")):
        label = browser.find_element(By.ID, id_).get_attribute("aria-labelledby")
        assert browser.find_element(By.ID, label).get_attribute("textContent").startswith(name)


def test_corrections_name_the_tile_the_photo_numbers_and_skip_no_change(
    server: str, browser: Any, tmp_path: Path
) -> None:
    """L2 and L8: a correction note names the tile by the number drawn on its box (the
    answer's numbering, which the recognizer's notes use too); a "correction" to the
    same code is not shown."""
    from selenium.webdriver.common.by import By

    corrections = [
        {"tile": 0, "from": "1m", "to": "1m", "p_from": 0.9, "p_to": 0.9, "ratio": 1.0},
        {"tile": 8, "from": "6s", "to": "9s", "p_from": 0.45, "p_to": 0.5, "ratio": 0.9},
    ]
    load(browser, server, {"/v1/recognize": [{"patch": {"corrections": corrections}}]})
    upload(browser, photo(tmp_path))
    notes = wait_for(lambda: "Tile #8" in text(browser, "notes") and text(browser, "notes"),
                     what="the correction note")
    assert "instead of 1m" not in notes
    labels = {int(str(t.get_attribute("data-index"))): t.get_attribute("textContent")
              for t in browser.find_elements(By.CSS_SELECTOR, "#overlay text")}
    # the corrected tile's label says so in a mark (✎), not by the box's red alone
    assert labels[8] == "9s✎ #8" and labels[0] == "1m"
    first = browser.find_element(By.CSS_SELECTOR, '#overlay rect[data-index="0"]')
    assert "changed" not in str(first.get_attribute("class"))
    nine = browser.find_element(By.CSS_SELECTOR, '#overlay rect[data-index="8"]')
    assert "corrected from 6s" in str(nine.get_attribute("aria-label"))


def test_narrow_phone_header_and_long_errors(server: str, browser: Any) -> None:
    """L9: at 320 px the header's pills stay on one line each and a long error wraps
    instead of widening the page."""
    from selenium.webdriver.common.by import By

    size = browser.get_window_size()
    browser.set_window_size(320, 700)
    try:
        load(browser, server)
        type_hand(browser, "[EEE,2]123m456p789sNN")
        wait_for(lambda: text(browser, "head-total"), what="the header total")
        for id_ in ("head-total", "ready"):
            pill = browser.find_element(By.ID, id_)
            lh = str(pill.value_of_css_property("line-height"))
            line = float(lh[:-2]) if lh.endswith("px") else 20.0
            assert pill.size["height"] < 2 * line, f"#{id_} wraps"
        type_hand(browser, "x" * 120)
        wait_for(lambda: text(browser, "error"), what="the error")
        width = browser.execute_script(
            "return [document.documentElement.scrollWidth, document.documentElement.clientWidth]")
        assert width[0] <= width[1]
    finally:
        browser.set_window_size(size["width"], size["height"])


# ------------------------------------------------------------- second review: F8-F10, F2


def chips(driver: Any) -> list[Any]:
    from selenium.webdriver.common.by import By

    return list(driver.find_elements(By.CSS_SELECTOR, "#hand-tiles button"))


def choose_rules(driver: Any, name: str) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    Select(driver.find_element(By.ID, "rules")).select_by_value(name)


def test_flowers_come_back_with_rules_that_play_them(
    server: str, browser: Any, tmp_path: Path
) -> None:
    """F8: the photo's flowers, taken out of the hand box under Zhenjiang (no flowers), go
    back in under MCR and are scored; meanwhile their chips say they are not played. A
    hand the user typed is left as typed. A photo read under Zhenjiang (its flowers left
    out by the recognizer) says, back under MCR, how to count them."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    load(browser, server)
    upload(browser, photo(tmp_path, "red"))
    wait_for(lambda: hand(browser) == norm(HAND_F), what="the photo's hand with flowers")
    flower_chips = [c for c in chips(browser) if c.text.split("\n")[0] in ("1f", "2f")]
    assert len(flower_chips) == 2
    assert all("unplayed" not in str(c.get_attribute("class")) for c in flower_chips)
    choose_rules(browser, "zhenjiang")
    wait_for(lambda: hand(browser) == "123m456p789sEEENN", what="the flowers taken out")
    assert "12f taken out" in text(browser, "hand-note")
    for c in chips(browser):
        if c.text.split("\n")[0] in ("1f", "2f"):
            assert "unplayed" in str(c.get_attribute("class"))
            assert "not played" in str(c.get_attribute("aria-label"))
    choose_rules(browser, "mcr")
    wait_for(lambda: hand(browser) == norm(HAND_F), what="the flowers put back")
    assert "put back" in text(browser, "hand-note")
    assert all("unplayed" not in str(c.get_attribute("class")) for c in chips(browser))
    want = scoring.score(HAND_F).total
    assert want != scoring.score("123m456p789sEEENN").total
    wait_for(lambda: text(browser, "total") == str(want), what=f"total {want}")
    # a typed hand is the user's: not rebuilt from the photo, but the flowers the page took
    # out of it are put back (third review: they were lost, with a stale note)
    type_hand(browser, "123m456p789sEEENN1f")
    choose_rules(browser, "zhenjiang")
    wait_for(lambda: hand(browser) == "123m456p789sEEENN", what="the typed flower taken out")
    choose_rules(browser, "mcr")
    wait_for(lambda: hand(browser) == "123m456p789sEEENN1f", what="the typed flower put back")
    assert "1f put back" in text(browser, "hand-note")
    # edited under Zhenjiang, the hand is the user's new one: nothing is put back
    choose_rules(browser, "zhenjiang")
    wait_for(lambda: hand(browser) == "123m456p789sEEENN", what="the typed flower taken out")
    type_hand(browser, "123m456p789sEEENN")
    choose_rules(browser, "mcr")
    time.sleep(0.5)
    assert hand(browser) == "123m456p789sEEENN"
    assert "without flowers" not in text(browser, "hand-note")  # said of Zhenjiang
    # a photo read under Zhenjiang has its flowers left out by the recognizer: back under
    # MCR the page says how to count them
    choose_rules(browser, "zhenjiang")
    Select(browser.find_element(By.CSS_SELECTOR, '#rule-context [data-name="indicator"]')
           ).select_by_value('"1m"')
    upload(browser, photo(tmp_path, "red"))
    wait_for(lambda: "without flowers" in text(browser, "notes"), what="the Zhenjiang reading")
    assert hand(browser) == "123m456p789sEEENN"
    choose_rules(browser, "mcr")
    wait_for(lambda: "read it again" in text(browser, "hand-note"), what="the advice")
    assert "1f 2f" in text(browser, "hand-note")
    # and a button reads the same photo again under these rules (it was "take the photo
    # again": the page kept the photo all along)
    browser.find_element(By.CSS_SELECTOR, "#hand-note button").click()
    wait_for(lambda: hand(browser) == norm(HAND_F), what="the photo read again with flowers")


def test_an_alternative_no_longer_in_the_hand_box_can_be_used_again(
    server: str, browser: Any, tmp_path: Path
) -> None:
    """F9: "use", then the first reading typed back: the button is "use" again, and
    works."""
    from selenium.webdriver.common.by import By

    load(browser, server)
    upload(browser, photo(tmp_path))
    alt = "[EEE,2]123m456p786sNN"
    button = wait_for(lambda: browser.find_element(By.CSS_SELECTOR, "#notes li.alternative button"),
                      what="an alternative reading")
    button.click()
    wait_for(lambda: hand(browser) == alt, what="the alternative hand")
    assert button.text == "in use" and not button.is_enabled()
    type_hand(browser, HAND_A)
    wait_for(lambda: button.is_enabled() and button.text == "use", timeout=3,
             what="the button enabled again")
    button.click()
    wait_for(lambda: hand(browser) == alt, what="the alternative hand again")
    assert button.text == "in use" and not button.is_enabled()


def test_the_photos_tiles_have_names_that_say_their_place(
    server: str, browser: Any, tmp_path: Path
) -> None:
    """F10: every box on the photo (and every chip) has its own name: the tile and its
    place in the hand."""
    from selenium.webdriver.common.by import By

    load(browser, server)
    upload(browser, photo(tmp_path))
    wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, "#overlay rect"), what="the boxes")
    rects = browser.find_elements(By.CSS_SELECTOR, "#overlay rect")
    labels = [str(r.get_attribute("aria-label")) for r in rects]
    assert len(set(labels)) == len(labels), labels
    # (the tile in words too: "E" alone, or 白 shown as "P", says little to a screen reader)
    assert {"E east wind, meld 1 tile 1 of 3: correct it",
            "E east wind, meld 1 tile 2 of 3: correct it",
            "E east wind, meld 1 tile 3 of 3: correct it"} <= set(labels)
    assert "1m 1 character, standing tile 1 of 10: correct it" in labels
    assert "N north wind, standing tile 10 of 10: correct it" in labels
    assert "N north wind, winning tile: correct it" in labels
    chip_labels = [str(c.get_attribute("aria-label")) for c in chips(browser)]
    assert sorted(chip_labels) == sorted(labels)


def test_a_photo_refused_for_its_win_context_is_read_again_once_it_is_set(
    server: str, browser: Any, tmp_path: Path
) -> None:
    """F2: Zhenjiang needs the 百搭 (the indicator). Before the photo the page says so;
    a photo sent without it is refused, kept, and sent again once the indicator is chosen
    (once: a later change sends nothing); a newer photo replaces the kept one."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    calls = "return (window.__calls || {})['/v1/recognize'] || 0"
    load(browser, server, {"/v1/recognize": [0]})
    choose_rules(browser, "zhenjiang")
    needs = wait_for(lambda: text(browser, "photo-needs"), what="the photo's needs")
    assert "indicator" in needs
    indicator = browser.find_element(By.CSS_SELECTOR, '#rule-context [data-name="indicator"]')
    field = indicator.find_element(By.XPATH, "./ancestor::label[1]")
    assert "needed" in str(field.get_attribute("class"))
    upload(browser, photo(tmp_path, "dark"))
    err = wait_for(lambda: text(browser, "error"), what="the refusal")
    assert "百搭" in err and "then the photo is read again" in err
    assert hand(browser) == ""
    # a newer photo replaces the kept one (refused as well)
    upload(browser, photo(tmp_path), "photo-pick")
    wait_for(lambda: browser.execute_script(calls) == 2 and text(browser, "error"),
             what="the second refusal")
    Select(indicator).select_by_value('"1m"')
    wait_for(lambda: hand(browser), what="the kept photo read again")
    assert "EEE" in hand(browser) and "NN" in hand(browser)  # photo A's, not photo B's
    assert browser.execute_script(calls) == 3
    assert not text(browser, "photo-needs")
    assert "needed" not in str(field.get_attribute("class"))
    toggle = browser.find_element(By.ID, "self_drawn")
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", toggle)
    toggle.click()
    time.sleep(1)
    assert browser.execute_script(calls) == 3


def test_a_photo_refused_for_a_context_changed_while_it_was_read_is_read_again_at_once(
    server: str, browser: Any, tmp_path: Path
) -> None:
    """The indicator chosen while a Zhenjiang photo sent without it is on its way: the
    refusal answers a context the controls no longer show, so the photo is read again at
    once with theirs (it was kept until the next change, which may never come)."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    calls = "return (window.__calls || {})['/v1/recognize'] || 0"
    load(browser, server, {"/v1/recognize": [1500, 0]})
    choose_rules(browser, "zhenjiang")
    indicator = browser.find_element(By.CSS_SELECTOR, '#rule-context [data-name="indicator"]')
    upload(browser, photo(tmp_path, "dark"))
    wait_for(lambda: browser.execute_script(calls) == 1, what="the photo sent")
    Select(indicator).select_by_value('"1m"')  # while the first answer is on its way
    wait_for(lambda: hand(browser), what="the photo read again with the indicator")
    assert browser.execute_script(calls) == 2
    assert hand(browser) and not text(browser, "error")
