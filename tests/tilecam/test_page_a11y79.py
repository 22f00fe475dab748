"""The session-78 additions to the phone page and the score-sheet page, for a phone user
and a screen-reader user (review "a11y" of the seventy-ninth session), in a real browser
(headless Chromium via selenium, as ``test_page``; skipped without it):

- "Send the photo again": its wait (Retry-After) counted down beside it each second,
  outside any live region, and said once to a screen reader when it is over; focus on
  the reading's Cancel after a press, not lost to the page's start with the hidden
  button; back on the button (or on "Take a photo") when the reading ends;
- the photo kept (not lost) when its reading is cancelled, when it fails again, when
  the fetch itself throws, and when a rule field holds a number that cannot be sent;
- Retry-After read as RFC 9110 §10.2.3 writes it: whole seconds (digits only) or an HTTP
  date, counted from the answer's own Date header (the server's clock, not the phone's);
  garbage is no wait; a wait is kept at most an hour (a timer of ~25 days fires at once);
- a long wait said in minutes, on both pages;
- the waiting button told apart by more than a paler colour, its text legible (contrast
  ≥ 4.5:1), and the line fitting a 320 px phone; the new boxes' contrast ≥ 4.5:1.
"""

from __future__ import annotations

import email.utils
import re
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from test_page import NEEDS_BROWSER, browser, wait_for
from test_page409_78 import error_answer, open_sheet, sheet_server, stored
from test_page_review import HAND_A, hand, load, norm, photo, server, text, upload
from test_sheet_page import cells
from test_tables_helpers import new_event

pytestmark = NEEDS_BROWSER
pytest.importorskip("selenium.webdriver", reason="selenium (dev extra) is missing")

__all__ = ["browser", "server", "sheet_server"]  # the fixtures, shared with the pages' tests

STATIC = Path(__file__).resolve().parents[2] / "tilecam" / "static"
BUSY = "the server is busy: no recognition slot became free within 30 s; try again"

# the page's fetch throws once for ``arguments[0]`` (no network), then fetches as before
# (through WRAP_FETCH's plan, when there is one)
THROW_ONCE = """
const path = arguments[0];
const real = window.fetch;
let thrown = false;
window.fetch = function (p, opts) {
  if (!thrown && String(p).split("?")[0] === path) {
    thrown = true;
    return Promise.reject(new TypeError("Failed to fetch"));
  }
  return real.call(window, p, opts);
};
"""

# count the changes of #photo-said's text (what a screen reader is told)
COUNT_SAID = """
window.__said = [];
new MutationObserver(() => window.__said.push(document.getElementById("photo-said")
  .textContent)).observe(document.getElementById("photo-said"),
  { childList: true, characterData: true, subtree: true });
"""


def active(driver: Any) -> str:
    """The id of the element with focus ("" for the page itself)."""
    return str(driver.execute_script("return document.activeElement.id || ''"))


def busy_answer(headers: dict[str, str]) -> dict[str, Any]:
    """A 503 ``busy`` answer of ``/v1/recognize`` with extra ``headers``."""
    answer = error_answer(503, "busy", BUSY)
    answer["headers"] = {**answer["headers"], **headers}
    return answer


def http_date(at: float) -> str:
    """``at`` (Unix seconds) as an HTTP date ("Mon, 07 Dec 2026 23:30:00 GMT")."""
    return email.utils.formatdate(at, usegmt=True)


def again_button(driver: Any) -> Any:
    """"Send the photo again", scrolled to the middle of the window (not under the sticky
    header, where a click would land on the header)."""
    from selenium.webdriver.common.by import By

    button = driver.find_element(By.ID, "photo-again-btn")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", button)
    return button


# --- the wait, counted down and said once -------------------------------------------------


def test_the_wait_is_counted_down_beside_the_button_and_said_once_when_over(
        server: str, browser: Any, tmp_path: Path) -> None:
    """A 503 ``busy`` with Retry-After 5: the button is disabled and the line beside it
    (its description, in no live region) says "available in 5 s", counting down; the
    screen reader is told once, when the wait is over, that the photo can be sent now —
    not every second. Before, the button turned enabled in silence and nothing said how
    long was left."""
    from selenium.webdriver.common.by import By

    load(browser, server, {"/v1/recognize": [busy_answer({"Retry-After": "5"}), 0]})
    browser.execute_script(COUNT_SAID)
    upload(browser, photo(tmp_path))
    wait_for(lambda: text(browser, "error"), what="the refusal")
    button = again_button(browser)
    wait = browser.find_element(By.ID, "photo-again-wait")
    assert not button.is_enabled()
    assert re.fullmatch(r"available in [1-5] s", wait.text), wait.text
    assert button.get_attribute("aria-describedby") == "photo-again-wait"
    live = browser.execute_script(
        "return arguments[0].closest('[aria-live], [role=status], [role=alert]')", wait)
    assert live is None  # a countdown in a live region is said every second
    seen = {wait.text}

    def over() -> bool:
        seen.add(wait.text)
        return bool(button.is_enabled())

    wait_for(over, timeout=8, what="the wait over")
    assert len(seen - {""}) >= 2, seen  # counted down, not a fixed "3 s"
    assert wait.text == ""
    wait_for(lambda: browser.execute_script("return window.__said.length"), timeout=2,
             what="the wait said over")
    time.sleep(1.2)  # (a countdown said each second would add to it)
    said = browser.execute_script("return window.__said")
    assert said == ["The photo can be sent again now: “Send the photo again”."], said
    button.click()
    wait_for(lambda: hand(browser) == norm(HAND_A), what="the photo read")


# --- focus -------------------------------------------------------------------------------


def test_focus_follows_the_resend_to_cancel_and_back(
        server: str, browser: Any, tmp_path: Path) -> None:
    """Enter on "Send the photo again" hides the button while the photo is read: focus
    goes to that reading's Cancel (before, to the page's start: a keyboard user's next
    Tab began at the top), and when it is read, to "Take a photo", where a photo's
    reading leaves it."""
    from selenium.webdriver.common.keys import Keys

    plan = {"/v1/recognize": [busy_answer({}), 3000, 0]}
    load(browser, server, plan)
    upload(browser, photo(tmp_path))
    wait_for(lambda: text(browser, "error"), what="the refusal")
    button = again_button(browser)
    assert button.is_enabled()
    browser.execute_script("arguments[0].focus()", button)
    button.send_keys(Keys.ENTER)
    wait_for(lambda: text(browser, "busy"), what="the reading")
    assert active(browser) == "busy-cancel"
    wait_for(lambda: hand(browser) == norm(HAND_A), what="the photo read")
    wait_for(lambda: active(browser) == "photo", timeout=3, what="focus on Take a photo")


def test_a_cancelled_reading_keeps_the_photo_and_focus(
        server: str, browser: Any, tmp_path: Path) -> None:
    """Cancel (by keyboard) on a slow reading: the photo is kept — "Send the photo again"
    is shown, enabled, and has focus; a screen reader is told so — and sending it reads
    it. Before, Cancel dropped the photo (a hand at the table cannot be photographed
    again) and focus went to the page's start."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    load(browser, server, {"/v1/recognize": [60000, 0]})
    upload(browser, photo(tmp_path))
    wait_for(lambda: text(browser, "busy"), what="the reading")
    cancel = browser.find_element(By.ID, "busy-cancel")
    browser.execute_script("arguments[0].focus()", cancel)
    cancel.send_keys(Keys.ENTER)
    button = again_button(browser)
    wait_for(lambda: button.is_displayed(), timeout=3, what="the photo kept")
    assert button.is_enabled()
    assert active(browser) == "photo-again-btn"
    said = browser.find_element(By.ID, "photo-said")
    wait_for(lambda: "The photo is kept" in said.get_attribute("textContent"), timeout=2,
             what="the cancel said")
    button.send_keys(Keys.ENTER)
    wait_for(lambda: hand(browser) == norm(HAND_A), what="the photo read")


# --- the photo kept ----------------------------------------------------------------------


def test_a_fetch_that_throws_keeps_the_photo_through_two_failures(
        server: str, browser: Any, tmp_path: Path) -> None:
    """No network (the fetch throws) on the photo, then a 503 on its resend: each time the
    photo is kept and offered again, and the third send reads it. (A check of what
    already worked: it passed before this review's changes.)"""
    load(browser, server, {"/v1/recognize": [busy_answer({}), 0]})
    browser.execute_script(THROW_ONCE, "/v1/recognize")
    upload(browser, photo(tmp_path))
    said = wait_for(lambda: text(browser, "error"), what="no network")
    assert "cannot reach the server" in said and "The photo is kept" in said, said
    again_button(browser).click()
    wait_for(lambda: "busy" in text(browser, "error"), what="the 503")
    again_button(browser).click()
    wait_for(lambda: hand(browser) == norm(HAND_A), what="the photo read")


def test_a_resend_with_an_unreadable_number_keeps_the_photo(
        server: str, browser: Any, tmp_path: Path) -> None:
    """A rule setting holding a number that cannot be sent ("1e": the field's badInput):
    the photo is not sent and not lost — "Send the photo again" sends it once the number
    is mended. Before, the photo was dropped (and with it, after a 503, the photo the
    button kept)."""
    from selenium.webdriver.common.by import By

    load(browser, server, {"/v1/recognize": [busy_answer({}), 0]})
    upload(browser, photo(tmp_path))
    wait_for(lambda: text(browser, "error"), what="the 503")
    browser.execute_script("document.getElementById('settings-box').open = true")
    field = browser.find_element(By.CSS_SELECTOR, "#rule-settings [data-name=min_fan]")
    field.clear()
    field.send_keys("1e")
    assert browser.execute_script("return arguments[0].validity.badInput", field)
    again_button(browser).click()
    said = wait_for(lambda: "not a number" in text(browser, "error")
                    and text(browser, "error"), what="the unreadable field")
    assert "The photo is kept" in said, said
    button = again_button(browser)
    assert button.is_displayed() and button.is_enabled()
    field.clear()
    field.send_keys("8")
    again_button(browser).click()
    wait_for(lambda: hand(browser) == norm(HAND_A), what="the photo read")


# --- Retry-After: an HTTP date, garbage, a long wait -------------------------------------


def test_a_retry_after_date_is_counted_on_the_servers_clock(
        server: str, browser: Any, tmp_path: Path) -> None:
    """Retry-After as an HTTP date 3 s after the answer's Date, from a server whose clock
    is two hours ahead of the phone's: the wait is 3 s. Before, it was counted on the
    phone's clock: "Try again in 7203 s", and the button disabled for two hours."""
    server_now = time.time() + 7200
    headers = {"Date": http_date(server_now), "Retry-After": http_date(server_now + 3)}
    load(browser, server, {"/v1/recognize": [busy_answer(headers), 0]})
    upload(browser, photo(tmp_path))
    said = wait_for(lambda: text(browser, "error"), what="the refusal")
    assert "Try again in 3 s." in said, said
    button = again_button(browser)
    assert not button.is_enabled()
    wait_for(lambda: button.is_enabled(), timeout=6, what="the wait over")


@pytest.mark.parametrize(("value", "want"), [
    ("1e12", None),            # not digits: no wait (before: 10¹² s, a timer firing at once)
    ("0x10", None),            # not digits (before: 16 s)
    ("soon", None),
    ("Wed, 21 Oct 2099 07:28:00 GMT", "Try again in 60 min."),  # kept at most an hour
    ("600", "Try again in 10 min."),                            # minutes, not "600 s"
])
def test_a_retry_after_that_is_garbage_or_long(
        server: str, browser: Any, tmp_path: Path, value: str, want: str | None) -> None:
    """Garbage is no wait: no "Try again in", the button enabled at once; a long wait is
    said in minutes, at most an hour, and the button waits."""
    load(browser, server, {"/v1/recognize": [busy_answer({"Retry-After": value})]})
    upload(browser, photo(tmp_path))
    said = wait_for(lambda: text(browser, "error"), what="the refusal")
    button = again_button(browser)
    if want is None:
        assert "Try again in" not in said and button.is_enabled(), said
    else:
        assert want in said and not button.is_enabled(), said
        time.sleep(1.2)  # a timer of more than ~25 days would have fired by now
        assert not button.is_enabled()


def sheet_429(retry_after: str) -> dict[str, Any]:
    """A 429 ``rate_limited`` answer of a sheet read with Retry-After ``retry_after``."""
    answer = error_answer(429, "rate_limited", "too many requests with this key: retry")
    answer["headers"] = {**answer["headers"], "Retry-After": retry_after}
    return answer


def test_the_sheet_says_a_long_wait_in_minutes(
        sheet_server: tuple[str, str], browser: Any) -> None:
    """A 429 with Retry-After 600 on a sheet read: "reads it again in 10 min by itself"
    (before: "in 600 s")."""
    base, _ = sheet_server
    with httpx.Client(base_url=base) as api:
        _, [(t, k), _] = new_event(api)  # type: ignore[arg-type]
    open_sheet(browser, base, t, k, {f"/v1/tables/{t}/sheet": [sheet_429("600")]})
    said = wait_for(lambda: text(browser, "error"), what="the 429")
    assert "The page reads it again in 10 min by itself." in said, said
    browser.get(f"{base}/sheet")  # its reads stop


def test_the_sheet_does_not_read_again_at_once_on_a_garbage_retry_after(
        sheet_server: tuple[str, str], browser: Any) -> None:
    """A 429 with Retry-After "1e12" (not digits, not a date) is the page's own 5 s pause:
    one read in 1.5 s. Before, it was 10¹² s: a 10¹⁵ ms timer, which fires at once, so
    the page read the sheet again and again, as fast as the 429s came, saying "in
    1000000000000 s"."""
    base, _ = sheet_server
    with httpx.Client(base_url=base) as api:
        _, [(t, k), _] = new_event(api)  # type: ignore[arg-type]
    path = f"/v1/tables/{t}/sheet"
    open_sheet(browser, base, t, k, {path: [sheet_429("1e12")]})
    said = wait_for(lambda: text(browser, "error"), what="the 429")
    time.sleep(1.5)
    calls = browser.execute_script("return window.__calls[arguments[0]]", path)
    assert calls == 1, (calls, said)
    assert "The page reads it again in 5 s by itself." in said, said
    browser.get(f"{base}/sheet")  # its reads stop


# --- not colour alone, contrast, 320 px -------------------------------------------------


def _rgb(css: str) -> tuple[float, ...]:
    """An ``rgb()``/``rgba()`` computed colour as (r, g, b, alpha), 0-255 and 0-1."""
    parts = [float(x) for x in re.findall(r"[\d.]+", css)]
    return tuple(parts[:3]) + ((parts[3],) if len(parts) > 3 else (1.0,))


def _over(top: tuple[float, ...], under: tuple[float, ...], alpha: float) -> tuple[float, ...]:
    return tuple(t * alpha + u * (1 - alpha) for t, u in zip(top[:3], under[:3], strict=True))


def contrast(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    """WCAG 2 contrast ratio of two sRGB colours (0-255 channels)."""
    def lum(c: tuple[float, ...]) -> float:
        lin = [x / 255 / 12.92 if x / 255 <= 0.03928 else ((x / 255 + 0.055) / 1.055) ** 2.4
               for x in c[:3]]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]
    hi, lo = sorted((lum(a), lum(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_the_waiting_button_is_legible_and_not_told_by_colour_alone_at_320_px(
        server: str, browser: Any, tmp_path: Path) -> None:
    """While it waits, the button's text is ≥ 4.5:1 on what the phone shows (opacity
    counted), its border dashed, the wait written beside it; at 320 px the line fits the
    card. Before: white on a faded green, 2.6:1, the fading its only sign."""
    from selenium.webdriver.common.by import By

    size = browser.get_window_size()
    try:
        browser.set_window_size(320, 700)
        load(browser, server, {"/v1/recognize": [busy_answer({"Retry-After": "30"})]})
        upload(browser, photo(tmp_path))
        wait_for(lambda: text(browser, "error"), what="the refusal")
        button = again_button(browser)
        style = browser.execute_script(
            "const s = getComputedStyle(arguments[0]); return [s.color, s.backgroundColor,"
            " s.opacity, s.borderTopStyle]", button)
        white = (255.0, 255.0, 255.0)
        alpha = float(style[2])
        ink = _over(_rgb(style[0]), white, alpha)
        bg_rgba = _rgb(style[1])
        ground = _over(_over(bg_rgba, white, bg_rgba[3]), white, alpha)
        assert contrast(ink, ground) >= 4.5, style
        assert style[3] == "dashed", style
        assert text(browser, "photo-again-wait").startswith("available in")
        line = browser.find_element(By.ID, "photo-again")
        card = browser.find_element(By.ID, "photo-card")
        assert line.rect["x"] + line.rect["width"] <= card.rect["x"] + card.rect["width"]
        assert browser.execute_script(
            "return document.documentElement.scrollWidth <= innerWidth")
    finally:
        browser.set_window_size(size["width"], size["height"])


@pytest.mark.parametrize(("rule", "least"), [(".refused", 4.5), (".error", 4.5)])
def test_the_boxes_text_contrast(rule: str, least: float) -> None:
    """The settings-refused box on the sheet and the error box (the 429's and 503's
    words): text ≥ 4.5:1 on the box, from app.css. (A guard: both passed before.)"""
    css = (STATIC / "app.css").read_text(encoding="utf-8")
    body = re.search(re.escape(rule) + r" \{([^}]*)\}", css)
    assert body, rule
    variables = dict(re.findall(r"--([\w-]+): (#[0-9a-f]{6})", css))

    def colour(prop: str) -> tuple[float, ...]:
        value = re.search(rf"(?<![-\w]){prop}: ([^;]+);", body.group(1))
        assert value, (rule, prop)
        raw = value.group(1).strip()
        raw = variables.get(raw[6:-1].lstrip("-"), raw) if raw.startswith("var(") else raw
        return tuple(float(int(raw[i:i + 2], 16)) for i in (1, 3, 5))

    assert contrast(colour("color"), colour("background")) >= least


def test_the_refused_box_fits_a_320_px_phone_and_says_it_in_words(
        sheet_server: tuple[str, str], browser: Any) -> None:
    """The settings-refused box at 320 px: in the card, no sideways scroll, its fold a
    44 px target that Enter opens; what it says is in words, not in its amber alone.
    (A guard: it passed before.)"""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    base, url = sheet_server
    with httpx.Client(base_url=base) as api:
        _, [(t, k), _] = new_event(api, rules="xiamen")  # type: ignore[arg-type]
    stored(url, t, {"chip_stack": 0})
    size = browser.get_window_size()
    try:
        browser.set_window_size(320, 700)
        open_sheet(browser, base, t, k)
        wait_for(lambda: cells(browser, "standings"), what="the standings")
        box = browser.find_element(By.ID, "settings-refused")
        card = browser.find_element(By.ID, "next-card")
        assert box.rect["x"] + box.rect["width"] <= card.rect["x"] + card.rect["width"]
        assert browser.execute_script(
            "return document.documentElement.scrollWidth <= innerWidth")
        assert "No win can be recorded" in box.text
        summary = box.find_element(By.TAG_NAME, "summary")
        assert summary.rect["height"] >= 44
        browser.execute_script("arguments[0].focus()", summary)
        summary.send_keys(Keys.ENTER)
        assert box.find_element(By.TAG_NAME, "details").get_attribute("open") is not None
    finally:
        browser.set_window_size(size["width"], size["height"])
        browser.get(f"{base}/sheet")  # its reads stop
