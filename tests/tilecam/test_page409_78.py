"""The phone page and the score-sheet page against what the service answers since the
seventy-seventh session (review "page409" of the seventy-eighth), in a real browser
(headless Chromium via selenium, as ``test_page``; skipped without it):

- a table whose stored settings the service refuses (the table view's
  ``settings_refused``: no win there is scored or recorded) is said so on its sheet page,
  in a player's words, with the service's message for the referee;
- the sheet page, on a 429, says it reads the sheet again by itself and when, not the
  service's "retry in 4 s"; a 429 that refuses the key itself (too many refused keys from
  one address) is a refused key: the page stops and asks for the key;
- a photo the server did not read (503 ``busy`` or ``timeout``, 429) is said in a phone
  user's words — where a ``timeout``'s time went (the queue, or the reading), "try again"
  once, never "Retry-After" — and kept: "Send the photo again" sends it once the
  Retry-After has passed (a hand at the table is mixed for the next deal).

The pages never record anything: no request of theirs can answer one of the 409 codes
(``tilecam.tables.sheet.CONFLICT_CODES``); see the review's report.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import create_engine, update
from test_page import NEEDS_BROWSER, browser, serve, wait_for
from test_page_review import (
    HAND_A,
    WRAP_FETCH,
    hand,
    load,
    norm,
    photo,
    server,
    text,
    type_hand,
    upload,
)
from test_sheet_page import cells
from test_tables_helpers import admin, database_url, make_app, new_event

from tilecam.api.errors import timeout_error
from tilecam.db.engine import dispose_engines
from tilecam.db.models import GameTable

pytestmark = NEEDS_BROWSER
pytest.importorskip("selenium.webdriver", reason="selenium (dev extra) is missing")

__all__ = ["browser", "server"]  # the fixtures, shared with the pages' other tests


@pytest.fixture(scope="module")
def sheet_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """The service with a database of its own: ``(base URL, database URL)``."""
    tmp = tmp_path_factory.mktemp("page409")
    url = database_url("sqlite", Path(tmp))
    # keys' buckets as shipped but smaller: a reader's every 5 s fits, a burst of wrong
    # keys from one address is soon 429
    app, _ = make_app(url, Path(tmp) / "data", rate_limit_per_s=0.5, rate_limit_burst=10)
    for base in serve(app):
        yield base, url
    dispose_engines()


def stored(url: str, table: int, settings: dict[str, Any]) -> None:
    """Store ``settings`` as an older tilecam did (no route changes a table's)."""
    engine = create_engine(url)
    try:
        with engine.begin() as conn:
            conn.execute(update(GameTable).where(GameTable.id == table)
                         .values(rule_settings=settings))
    finally:
        engine.dispose()


def error_answer(status: int, code: str, message: str,
                 retry_after: int | None = None) -> dict[str, Any]:
    """A step of ``WRAP_FETCH``'s plan: the service's JSON error answer."""
    headers = {"Content-Type": "application/json"}
    if retry_after is not None:
        headers["Retry-After"] = str(retry_after)
    return {"status": status, "headers": headers,
            "text": json.dumps({"error": {"code": code, "message": message}})}


def open_sheet(driver: Any, base: str, table: int, key: str,
               plan: dict[str, list[Any]] | None = None) -> None:
    """The sheet page of ``table``; with ``plan``, its reads answered as ``WRAP_FETCH``
    says (wrapped before the table is opened, through the address)."""
    from selenium.webdriver.common.by import By

    driver.get(f"{base}/sheet")
    wait_for(lambda: driver.find_element(By.ID, "open").is_displayed(), what="the form")
    if plan:
        driver.execute_script(WRAP_FETCH, plan)
    driver.execute_script(f"location.hash = 'table={table}&key={key}';")


# --- the sheet page: a table whose settings are refused ----------------------------------


def test_a_table_whose_settings_are_refused_says_no_win_is_recorded_there(
        sheet_server: tuple[str, str], browser: Any) -> None:
    """A Xiamen table keeping ``chip_stack`` 0 (stored by an older tilecam; refused since
    the seventy-fifth session: every win would pay 0): every win there is 409
    ``table_settings_refused``, and its sheet page says so above the next hand, with the
    service's message folded under it; a table of the same event whose settings are
    taken shows no such line. Before, the two pages looked alike."""
    from selenium.webdriver.common.by import By

    base, url = sheet_server
    with httpx.Client(base_url=base) as api:
        _, [(t, k), (u, uk)] = new_event(api, rules="xiamen")  # type: ignore[arg-type]
        stored(url, t, {"chip_stack": 0})
        refused = api.get(f"/v1/tables/{t}", headers=admin()).json()["settings_refused"]
        assert refused and "chip_stack" in refused
        win = api.post(f"/v1/tables/{t}/hands", headers={"Authorization": f"Bearer {k}"},
                       json={"hand": "123m456m789m123p55p", "winner": "N", "discarder": "E"})
        assert win.json()["error"]["code"] == "table_settings_refused", win.text

    open_sheet(browser, base, t, k)
    wait_for(lambda: cells(browser, "standings"), what="the standings")
    box = browser.find_element(By.ID, "settings-refused")
    assert box.is_displayed()
    assert "No win can be recorded or scored at this table" in box.text
    assert "Ask the referee" in box.text
    said = box.find_element(By.TAG_NAME, "details").get_attribute("textContent")
    assert "chip_stack" in said and f"table {t} keeps settings" in said, said
    assert "Next hand: 1" in browser.find_element(By.ID, "next-card").text

    open_sheet(browser, base, u, uk)
    wait_for(lambda: cells(browser, "standings") and "T2" in browser.find_element(
        By.ID, "table-title").text, what="the other table")
    assert not browser.find_element(By.ID, "settings-refused").is_displayed()


# --- the sheet page: 429 -------------------------------------------------------------------


def test_a_rate_limited_read_says_the_page_reads_again_and_when(
        sheet_server: tuple[str, str], browser: Any) -> None:
    """A 429 ``rate_limited`` (Retry-After 7 s) on a read: the page waits 7 s, and says
    so — "reads it again in 7 s by itself" — not the service's "retry in 7 s", which
    asked the reader to do it; a 503 says when too (the page's own 5 s pause)."""
    base, _ = sheet_server
    with httpx.Client(base_url=base) as api:
        _, [(t, k), _] = new_event(api)  # type: ignore[arg-type]
    path = f"/v1/tables/{t}/sheet"
    plan = {path: [error_answer(429, "rate_limited",
                                "too many requests with this key: retry in 7 s", 7),
                   error_answer(503, "database_unavailable", "the database is not reachable"),
                   0]}
    open_sheet(browser, base, t, k, plan)
    said = wait_for(lambda: text(browser, "error"), what="the 429")
    assert "The page reads it again in 7 s by itself." in said, said
    assert "too many requests with this key just now" in said
    assert "retry in" not in said
    said = wait_for(lambda: "database" in text(browser, "error") and text(browser, "error"),
                    timeout=12, what="the 503")
    assert "The page reads it again in 5 s by itself." in said, said
    wait_for(lambda: cells(browser, "standings"), timeout=12, what="the sheet read again")
    assert text(browser, "error") == ""


def test_a_429_refusing_the_key_stops_the_reads_and_asks_for_the_key(
        sheet_server: tuple[str, str], browser: Any) -> None:
    """A 429 that refuses the key (too many refused keys from this address: the
    service's "this request is refused (401 unauthorized: …)") is a wrong key: sent again
    it is refused again, and counts against the address again. The page says the key was
    refused, stops and shows the form, as on a 401 (it read on every Retry-After)."""
    from selenium.webdriver.common.by import By

    base, _ = sheet_server
    with httpx.Client(base_url=base) as api:
        _, [(t, _k), _] = new_event(api)  # type: ignore[arg-type]
        for n in range(12):  # spend this address's refusals
            answer = api.get(f"/v1/tables/{t}/sheet",
                             headers={"Authorization": f"Bearer tv_wrong{n}"})
            if answer.status_code == 429:
                break
        assert answer.status_code == 429, answer.text
        message = answer.json()["error"]["message"]
        assert message.startswith("this request is refused (401 unauthorized")
        assert answer.json()["error"]["code"] == "keys_refused"
    plan = {f"/v1/tables/{t}/sheet": [error_answer(429, "keys_refused", message, 5)]}
    open_sheet(browser, base, t, "tv_wrong", plan)
    said = wait_for(lambda: text(browser, "error"), what="the refusal")
    assert "the key was refused (the key is not valid)" in said, said
    assert "Check the table number and its key." in said
    assert "reads it again" not in said
    wait_for(lambda: browser.find_element(By.ID, "open").is_displayed(), what="the form")
    assert browser.execute_script("return window.__calls[arguments[0]]",
                                  f"/v1/tables/{t}/sheet") == 1


# --- the phone page: a photo the server was too busy to read -----------------------------

# the service's own words (the page reads where the time went from them: a change of
# wording there must fail here)
QUEUED = timeout_error("recognition did not finish within 30 s", 30.0, 27.3, slots=2,
                       in_progress=14, requests="image requests", retry_after_s=2).message
RAN = timeout_error("recognition did not finish within 30 s", 30.0, 0.4, slots=2,
                    in_progress=1, requests="image requests", retry_after_s=2,
                    advice="try a smaller image").message
BUSY = "the server is busy: no recognition slot became free within 30 s; try again"


@pytest.mark.parametrize(("answer", "want"), [
    (error_answer(503, "timeout", QUEUED, 2),
     "the server is busy reading other photos: this one waited 27 s for its turn and was "
     "not read. Try again in 2 s."),
    (error_answer(503, "timeout", RAN, 2),
     "reading this photo took longer than the server allows (30 s). Try again in 2 s."),
    (error_answer(503, "busy", BUSY, 2),
     "the server is busy reading other photos. Try again in 2 s."),
    (error_answer(429, "rate_limited", "too many requests: retry in 2 s", 2),
     "too many photos were sent just now. Try again in 2 s."),
])
def test_a_photo_the_server_was_too_busy_to_read_is_said_plainly_and_kept(
        server: str, browser: Any, tmp_path: Path, answer: dict[str, Any], want: str) -> None:
    """503 ``timeout`` (its time in the queue, or in the reading), 503 ``busy`` and 429:
    said in a phone user's words, "try again" once, with the Retry-After; never the
    service's advice to programs ("Retry-After", "send fewer at once"). The photo is kept:
    "Send the photo again" is enabled once the Retry-After has passed and reads it (scene
    A's hand); the hand typed before stays in the hand box until then."""
    from selenium.webdriver.common.by import By

    load(browser, server, {"/v1/recognize": [answer, 0]})
    type_hand(browser, "123m456m789m123p55p")
    upload(browser, photo(tmp_path))
    said = wait_for(lambda: text(browser, "error"), what="the refusal")
    assert f"Photo: {want}" in said, said
    assert len(re.findall("try again", said, re.IGNORECASE)) == 1, said
    assert "Retry-After" not in said and "send fewer" not in said
    assert "The photo is kept" in said
    assert hand(browser) == "123m456m789m123p55p"
    again = browser.find_element(By.ID, "photo-again-btn")
    assert again.is_displayed() and not again.is_enabled()  # the Retry-After first
    wait_for(lambda: again.is_enabled(), timeout=5, what="the wait over")
    again.click()
    wait_for(lambda: hand(browser) == norm(HAND_A), what="the photo read")
    assert not browser.find_element(By.ID, "photo-again").is_displayed()
    assert browser.execute_script("return window.__calls['/v1/recognize']") == 2


def test_a_photo_refused_for_what_it_is_is_not_offered_again(
        server: str, browser: Any, tmp_path: Path) -> None:
    """A refusal that sending the same photo again cannot mend (503 ``not_ready``: no
    model; 400 ``invalid_image``) offers no "Send the photo again"."""
    from selenium.webdriver.common.by import By

    for answer in (error_answer(503, "not_ready", "the tile detector is not available: x"),
                   error_answer(400, "invalid_image", "the image could not be decoded")):
        load(browser, server, {"/v1/recognize": [answer]})
        upload(browser, photo(tmp_path))
        wait_for(lambda: text(browser, "error"), what="the refusal")
        assert not browser.find_element(By.ID, "photo-again").is_displayed()
