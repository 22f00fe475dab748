"""The phone page shows a Xiamen or Zhenjiang result in its rule set's own words (review
s73 F5; headless Chromium via selenium, as ``test_page.py``).

Before, every result was MCR's: the chips of a regional total were called "fan", a
regional 诈胡 "below the minimum" (neither rule set has one), a false claimant's payments
"pays -6", Xiamen's bonus money was left out, and so were Zhenjiang's 打首搭 / 碰后打搭
transfers — a hand whose real net was winner -5, left -7, opposite -6, right +18 read
"left pays 1". MCR's display is kept as it was.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from test_page import NEEDS_BROWSER, SceneDetector, browser, serve, wait_for
from test_page_review import choose_rules, load, text, type_hand

import scoring
from tilecam.api.deps import get_detector
from tilecam.app import create_app
from tilecam.settings import Settings

pytestmark = NEEDS_BROWSER
pytest.importorskip("selenium.webdriver", reason="selenium (dev extra) is missing")

__all__ = ["browser"]  # the fixture, shared with the phone page's tests

#: A settlement's seats as the page names them: the table's Chinese beside the English.
SEAT = {"left": "left (上家)", "opposite": "opposite (对家)", "right": "right (下家)"}


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    app = create_app(Settings(load_model=False))
    app.dependency_overrides[get_detector] = SceneDetector
    yield from serve(app)


def content(driver: Any, id_: str) -> str:
    """An element's text as the page set it (spaces and lines as they are)."""
    return str(driver.execute_script(f"return document.getElementById('{id_}').textContent"))


def shown(driver: Any, score: scoring.Score) -> dict[str, str]:
    """What the page shows for ``score``'s answer, given as /v1/score gives it (JSON text:
    its keys in their order)."""
    driver.execute_script("renderScore(JSON.parse(arguments[0]))",
                          json.dumps(score.to_dict(), ensure_ascii=False))
    unit = driver.execute_script("return document.querySelector('.total small').textContent")
    return {"big": f"{content(driver, 'total')} {unit}",
            "head": content(driver, "head-total"), "pill": content(driver, "legal"),
            "settlement": content(driver, "settlement")}


def test_a_zhenjiang_hand_typed_shows_its_transfers_and_net(server: str, browser: Any) -> None:
    """Typed and scored by /v1/score: 打首搭 by the right-hand player moves more chips
    than the win, and the page says who ends up with what."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    load(browser, server)
    choose_rules(browser, "zhenjiang")
    Select(browser.find_element(By.CSS_SELECTOR, '#rule-context [data-name="indicator"]')
           ).select_by_value('"1m"')
    Select(browser.find_element(By.CSS_SELECTOR,
                                '#rule-context [data-name="first_wild_discard"]')
           ).select_by_value('"right"')
    # (a click by script: the sticky header may lie over the box after the selects)
    browser.execute_script("arguments[0].click()", browser.find_element(By.ID, "self_drawn"))
    hand = "123m456m789m234pEE"
    want = scoring.score(hand, rules="zhenjiang", indicator="1m", self_drawn=True,
                         first_wild_discard="right")
    net = ", ".join(f"{SEAT.get(seat, seat)} {n:+d}" for seat, n in want.details["net"].items())
    type_hand(browser, hand)
    wait_for(lambda: "Net" in text(browser, "settlement"), what="the net")
    got = text(browser, "settlement")
    assert f"Net (chips): {net}" in got
    assert ("Transfers: winner → right (下家) 6 (打首搭); left (上家) → right (下家) 6 (打首搭)"
            in got)
    assert text(browser, "head-total") == f"{want.total} chip" + ("" if want.total == 1 else "s")
    assert "fan" not in text(browser, "head-total")


def test_regional_results_say_chips_their_false_win_and_every_amount(
    server: str, browser: Any
) -> None:
    load(browser, server)
    # Zhenjiang 打首搭 on a discard win: "left pays 1" alone was all the page said
    z = scoring.score("123m456m789m234pEE", rules="zhenjiang", indicator="1m", discarder=1,
                      first_wild_discard="right")
    got = shown(browser, z)
    assert got["big"] == "1 chip" and got["head"] == "1 chip" and got["pill"] == "legal win"
    assert "Settlement (chips): winner +1; left (上家) pays 1" in got["settlement"]
    assert ("Net (chips): winner -5, left (上家) -7, opposite (对家) -6, right (下家) +18"
            in got["settlement"])
    # Zhenjiang 诈胡: the claimant pays each other player; no "pays -6", no minimum
    f = scoring.score("123m456m789m234pES", rules="zhenjiang", indicator="1m", discarder=1)
    got = shown(browser, f)
    assert got["pill"] == "not a win: 诈胡" and got["head"] == "✗ 0 chips"  # not by colour alone
    assert "pays -" not in got["settlement"] and "minimum" not in got["settlement"]
    assert ("claimant -18; left (上家) receives 6, opposite (对家) receives 6, right (下家) "
            "receives 6") in got["settlement"]
    assert f"Not a win (诈胡): {f.details['reason']}" in got["settlement"]
    assert ("Net (chips): claimant -18, left (上家) +6, opposite (对家) +6, right (下家) +6"
            in got["settlement"])
    # Xiamen 游金: the bonus money apart from the chips is shown
    x = scoring.score("123m456m789m234p567p9s 1f 3p", rules="xiamen", gold="9s", win="游金",
                      dealer=True)
    got = shown(browser, x)
    assert got["big"] == "72 chips" and got["pill"] == "legal win"
    assert ("winner +216, +150 bonus money apart from the chips; left (上家) pays 72 + 50 "
            "bonus money, opposite (对家) pays 72 + 50 bonus money") in got["settlement"]
    # Xiamen 诈胡: the claimant pays money, no chips
    xf = scoring.score("123m456m789m234p567p12s", rules="xiamen", gold="9s")
    got = shown(browser, xf)
    assert got["pill"] == "not a win: 诈胡" and got["big"] == "0 chips"
    assert ("claimant 0, -150 money apart from the chips; left (上家) receives 50 money "
            "apart from the chips") in got["settlement"]


def test_mcr_results_read_as_before(server: str, browser: Any) -> None:
    load(browser, server)
    s = scoring.score("[EEE,2][SSSS,1]WWWNN55pN", discarder=2)
    got = shown(browser, s)
    assert got["big"] == f"{s.total} fan" and got["head"] == f"{s.total} fan"
    assert got["pill"] == "legal win"
    assert got["settlement"] == (f"Settlement (points): left (上家) pays 8, opposite (对家) pays "
                                 f"{8 + s.total}, right (下家) pays 8 — {s.settlement.note}")
    low = scoring.score("[123m,1]456m789p234s5s5s", discarder=3)
    got = shown(browser, low)
    assert got["pill"] == "below the minimum" and got["head"] == "✗ 3 fan"
    assert got["settlement"] == f"Settlement (points):  — {low.settlement.note}"


def test_regional_waits_say_chips_and_mcr_waits_fan(server: str, browser: Any) -> None:
    load(browser, server)

    def hint(w: scoring.Waits) -> str:
        browser.execute_script("renderWaits(JSON.parse(arguments[0]))",
                               json.dumps(w.to_dict(), ensure_ascii=False))
        return str(browser.execute_script(
            "return document.querySelector('#waits p.hint').textContent"))

    z = scoring.waits("123m456m789m234pE", rules="zhenjiang", indicator="1m")
    assert hint(z) == "The chips if the hand is won on each tile:"
    assert hint(scoring.waits("123m456p789sEEEN")) == "The fan if the hand is won on each tile:"
