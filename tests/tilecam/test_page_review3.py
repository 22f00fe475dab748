"""The phone page's answers to its third review (headless Chromium via selenium, as
``test_page.py``): a tile read as a flower and corrected to a kind does not become the
winning tile; a Xiamen win type does not stop photos being read; a photo kept after a
refusal is not read over a hand typed since; each rule set's choices and a typed hand's
flowers survive a trip to other rules; the waits and discards fit a phone; controls the
rules do not read are hidden; the photo's boxes are reached by Tab in the hand's order; a
number the browser cannot read is named.

The app runs with a stand-in detector that "finds" a hand whose one 1m was read as a
flower (1f) lying apart from the row, whatever the photo, listing its tiles last first.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from test_page import NEEDS_BROWSER, browser, serve, wait_for
from test_page_review import (
    choose_rules,
    correct,
    fitted,
    hand,
    load,
    text,
    type_hand,
    upload,
)

import scoring
from tilecam.api.deps import get_detector
from tilecam.app import create_app
from tilecam.settings import Settings
from vision.detections import Detections
from vision.layout_scene import SceneBuilder

pytestmark = NEEDS_BROWSER
pytest.importorskip("selenium.webdriver", reason="selenium (dev extra) is missing")

__all__ = ["browser"]  # the fixture, shared with the phone page's tests

#: The row as laid (no tile set apart: the winning tile is the row's last, N) and a 1m
#: read as the flower 1f beside it: the photo shows 111m456p789sEEENN, won on N.
ROW = "11m456p789sEEENN"
FLOWER_TILE = 0  # detection index of the tile read as 1f (the detector lists it first)


def scene_g() -> Detections:
    """The scene, listed by the detector last tile first (flower, then the row from its
    right end)."""
    d = SceneBuilder().standing(ROW).flowers("1f").detections()
    return d.select(np.arange(len(d))[::-1])


class FlowerSceneDetector:
    def __call__(self, image: np.ndarray) -> Detections:
        h, w = image.shape[:2]
        return fitted(scene_g(), w, h)


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    app = create_app(Settings(load_model=False))
    app.dependency_overrides[get_detector] = FlowerSceneDetector
    yield from serve(app)


def photo(tmp_path: Path) -> Path:
    img = np.full((960, 1280, 3), (40, 110, 40), np.uint8)
    for x1, y1, x2, y2 in fitted(scene_g(), 1280, 960).boxes.astype(int):
        cv2.rectangle(img, (x1 + 2, y1 + 2), (x2 - 2, y2 - 2), (235, 235, 225), -1)
    path = tmp_path / "hand.jpg"
    cv2.imwrite(str(path), img)
    return path


def calls(driver: Any, path: str) -> int:
    return int(driver.execute_script(f"return (window.__calls || {{}})['{path}'] || 0"))


def test_a_flower_corrected_to_a_kind_does_not_become_the_winning_tile(
    server: str, browser: Any, tmp_path: Path
) -> None:
    """The tile read as 1f corrected to 1m joins the standing tiles before the row's last
    tile, N, which stays the winning tile (it went last, and the hand was scored won on
    1m: 7 fan for 10)."""
    load(browser, server)
    upload(browser, photo(tmp_path))
    wait_for(lambda: hand(browser).endswith("1f"), what="the photo's hand with its flower")
    correct(browser, FLOWER_TILE, "1m")
    want = scoring.score("111m456p789sEEENN")
    assert want.total != scoring.score("11m456p789sEEENN1m").total
    wait_for(lambda: "1f" not in hand(browser), what="1m among the standing tiles")
    assert hand(browser) == "11m456p789sEEEN1mN"  # the corrected 1m before the row's last
    wait_for(lambda: text(browser, "total") == str(want.total), what=f"total {want.total}")


def test_a_xiamen_win_type_does_not_stop_the_photo_being_read(
    server: str, browser: Any, tmp_path: Path
) -> None:
    """Xiamen's win type (游金 …) rides in the rule fields the page sends with a photo:
    every photo was refused 400 while one was chosen."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    load(browser, server, {"/v1/recognize": [0]})
    choose_rules(browser, "xiamen")
    Select(browser.find_element(By.CSS_SELECTOR, '#rule-context [data-name="gold"]')
           ).select_by_value('"5m"')
    Select(browser.find_element(By.CSS_SELECTOR, '#rule-context [data-name="win"]')
           ).select_by_value('"you_jin"')
    upload(browser, photo(tmp_path))
    wait_for(lambda: hand(browser), what="the photo read")
    assert "rule_context" not in text(browser, "error")
    assert calls(browser, "/v1/recognize") == 1


def test_a_photo_kept_after_a_refusal_is_not_read_over_a_hand_typed_since(
    server: str, browser: Any, tmp_path: Path
) -> None:
    """Zhenjiang without its indicator: the photo is refused and kept; the user then types
    a hand and chooses the indicator that hand needs. The kept photo was read and replaced
    the typed hand without a word; now typing drops it."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    load(browser, server, {"/v1/recognize": [0]})
    choose_rules(browser, "zhenjiang")
    upload(browser, photo(tmp_path))
    wait_for(lambda: "百搭" in text(browser, "error"), what="the refusal")
    typed = "123m456m789m123pEE"
    type_hand(browser, typed)
    Select(browser.find_element(By.CSS_SELECTOR, '#rule-context [data-name="indicator"]')
           ).select_by_value('"9s"')
    time.sleep(1.5)
    assert hand(browser) == typed
    assert calls(browser, "/v1/recognize") == 1


def test_each_rule_sets_choices_and_the_flower_count_survive_other_rules(
    server: str, browser: Any
) -> None:
    """MCR's version and flower count, Xiamen's gold and a setting: as left, after a
    trip to other rules (they went back to their defaults: 95 fan for 98)."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    load(browser, server)
    typed = "[EEE,2][SSSS,1]WWWNN55pN"
    type_hand(browser, typed)
    Select(browser.find_element(By.ID, "version")).select_by_value("98-strict")
    for _ in range(3):
        browser.find_element(By.ID, "flowers-plus").click()
    want = scoring.score(typed, version="98-strict", flowers=3).total
    wait_for(lambda: text(browser, "total") == str(want), what=f"total {want}")
    choose_rules(browser, "xiamen")
    gold = browser.find_element(By.CSS_SELECTOR, '#rule-context [data-name="gold"]')
    Select(gold).select_by_value('"9s"')
    base = browser.find_element(By.CSS_SELECTOR, '#rule-settings [data-name="base_nondealer"]')
    browser.execute_script("arguments[0].value = '20'", base)
    choose_rules(browser, "zhenjiang")
    choose_rules(browser, "mcr")
    assert browser.find_element(By.ID, "version").get_attribute("value") == "98-strict"
    assert text(browser, "flowers") == "3"
    wait_for(lambda: text(browser, "total") == str(want), what=f"total {want} again")
    choose_rules(browser, "xiamen")
    assert browser.find_element(
        By.CSS_SELECTOR, '#rule-context [data-name="gold"]').get_attribute("value") == '"9s"'
    assert browser.find_element(
        By.CSS_SELECTOR, '#rule-settings [data-name="base_nondealer"]'
    ).get_attribute("value") == "20"


def test_waits_show_no_null_and_discards_fit_a_phone(server: str, browser: Any) -> None:
    """Every wait a legal win: the waits box ended in a line "null". A hand that drew (14
    tiles, no win) gets its discards, and their table fits a 360 px screen (one cell per
    discard's waits, which wraps)."""
    load(browser, server)
    type_hand(browser, "[EEE,2][SSSS,1]WWWNN55p")
    wait_for(lambda: "Ready" in text(browser, "waits"), what="the waits")
    assert "null" not in text(browser, "waits")
    browser.set_window_size(360, 740)
    try:
        type_hand(browser, "1112345678999m1p")
        wait_for(lambda: "discard to be ready" in text(browser, "waits"), what="the discards")
        assert "1p" in text(browser, "waits") and "null" not in text(browser, "waits")
        width = browser.execute_script(
            "return [document.documentElement.scrollWidth, document.documentElement.clientWidth]")
        assert width[0] <= width[1], width
    finally:
        browser.set_window_size(412, 915)


def test_controls_the_rules_do_not_read_are_hidden(server: str, browser: Any) -> None:
    """Xiamen and Zhenjiang read no winds, 海底 or 和绝张 (GET /v1/rules win_fields): those
    controls are hidden there (they changed nothing), and shown again under MCR."""
    from selenium.webdriver.common.by import By

    load(browser, server)

    def shown(id_: str) -> bool:
        return bool(browser.find_element(By.ID, id_).is_displayed())

    assert shown("seat_wind") and shown("last_wall_tile") and shown("self_drawn")
    for rules in ("xiamen", "zhenjiang"):
        choose_rules(browser, rules)
        assert not shown("seat_wind") and not shown("prevalent_wind")
        assert not shown("last_wall_tile") and not shown("last_of_kind")
        assert shown("self_drawn") and shown("kong")
    choose_rules(browser, "mcr")
    assert shown("seat_wind") and shown("last_wall_tile")


def test_the_photos_boxes_are_reached_in_the_hands_order(
    server: str, browser: Any, tmp_path: Path
) -> None:
    """Tab went through the boxes in the detector's order (here the flower, then the row
    from its right end); now the standing row from its left end, then the flowers."""
    from selenium.webdriver.common.by import By

    load(browser, server)
    upload(browser, photo(tmp_path))
    wait_for(lambda: hand(browser).endswith("1f"), what="the photo's hand")
    rects = browser.find_elements(By.CSS_SELECTOR, "#overlay rect")
    labels = [str(r.get_attribute("aria-label")) for r in rects]  # "1m, standing tile 1 of 13…"
    assert "standing tile 1 of" in labels[0] and "flower" in labels[-1], labels
    places = [int(lab.split("standing tile ")[1].split()[0]) for lab in labels[:-1]]
    assert places == list(range(1, len(places) + 1)), labels


def test_a_number_the_browser_cannot_read_is_named(server: str, browser: Any) -> None:
    """A rule setting holding 1e400: the browser hands "" over, and the default was used
    without a word; now the score says which field and sends nothing."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    load(browser, server)
    choose_rules(browser, "xiamen")
    Select(browser.find_element(By.CSS_SELECTOR, '#rule-context [data-name="gold"]')
           ).select_by_value('"9s"')
    box = browser.find_element(By.CSS_SELECTOR, '#rule-context [data-name="dealer_repeats"]')
    box.clear()
    box.send_keys("1e400")
    type_hand(browser, "123m456m789m123pEEE5s5s")
    err = wait_for(lambda: text(browser, "error"), what="the error")
    assert "dealer repeats" in err and "not a number" in err


def test_a_tap_correction_over_a_typed_hand_says_what_it_replaced(
    server: str, browser: Any, tmp_path: Path
) -> None:
    """A tap corrects the photo's tiles and writes their hand into the hand box: a hand
    the user had typed there was replaced without a word; the note now shows it."""
    load(browser, server)
    upload(browser, photo(tmp_path))
    wait_for(lambda: hand(browser).endswith("1f"), what="the photo's hand")
    typed = "[EEE,2][SSSS,1]WWWNN55pN"
    type_hand(browser, typed)
    from selenium.webdriver.common.by import By

    box = browser.find_element(By.CSS_SELECTOR, f'#overlay rect[data-index="{FLOWER_TILE}"]')
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", box)
    correct(browser, FLOWER_TILE, "2f")
    wait_for(lambda: hand(browser).endswith("2f"), what="the corrected photo hand")
    assert typed in text(browser, "hand-note")


def test_a_photo_of_a_hand_that_drew_shows_its_discards_as_read(
    server: str, browser: Any, tmp_path: Path
) -> None:
    """A reading with ``discards`` (14 tiles, no win) is shown as read: the discards and
    the reason, with no second round trip to score it."""
    discards = {"rules": "mcr", "version": "mil-2015", "hand": "x", "shanten": 0,
                "discards": [{"tile": "9s", "ready": True, "shanten": 0,
                              "waits": [{"tile": "N", "remaining": 2, "discard": None,
                                         "self_drawn": None}]}]}
    patch = {"score": None, "waits": None, "discards": discards,
             "unscorable": "not a winning hand: 14 tiles, as a hand that drew"}
    load(browser, server, {"/v1/recognize": [{"patch": patch}]})
    upload(browser, photo(tmp_path))
    wait_for(lambda: "discard to be ready" in text(browser, "waits"), what="the discards")
    assert "9s" in text(browser, "waits") and "as a hand that drew" in text(browser, "error")
    assert calls(browser, "/v1/score") == 0


def test_no_flowers_are_counted_for_a_hand_typed_after_the_one_that_listed_them(
    server: str, browser: Any
) -> None:
    """A hand listing 1f 2f under MCR, Zhenjiang (they are taken out), then another hand
    typed, then MCR: the new hand has no flowers, and the stepper must not count the old
    hand's two (diff review: it scored 花牌 ×2, 14 fan for 12)."""
    load(browser, server)
    type_hand(browser, "123m456p789s123sNN12f")
    choose_rules(browser, "zhenjiang")
    wait_for(lambda: hand(browser) == "123m456p789s123sNN", what="the flowers taken out")
    type_hand(browser, "123m456p789s123sEE")
    choose_rules(browser, "mcr")
    time.sleep(0.5)
    assert hand(browser) == "123m456p789s123sEE" and text(browser, "flowers") == "0"
    want = scoring.score("123m456p789s123sEE").total
    wait_for(lambda: text(browser, "total") == str(want), what=f"total {want}")
