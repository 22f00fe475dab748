"""The score-sheet page for a screen-reader user, what review "a11y" of the seventy-ninth
session left (follow-up "a11y2"), in a real browser (headless Chromium via selenium, as
``test_sheet_page_a11y``; skipped without it):

- a table whose stored settings are refused (``settings_refused``: no win there is
  recorded) is said once by the page's status region when the table is opened — its box
  sits in the "Next hand" card, which a screen reader reaches only by hunting — and not
  again at each read (every 5 s), nor when the sheet changes; another table opened is
  said afresh; the reads move no focus;
- a refused key (401, 403, or a 429 ``keys_refused`` standing for one) or a table the
  server does not have (404): the form comes back with focus on the field to fix, marked
  ``aria-invalid`` and described by the error (``aria-describedby``); the mark goes when
  the field is edited.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from test_page import NEEDS_BROWSER, browser, serve, wait_for
from test_page409_78 import error_answer, sheet_server, stored
from test_page_review import WRAP_FETCH, text
from test_sheet_page import cells
from test_tables_helpers import database_url, make_app, new_event

from tilecam.db.engine import dispose_engines

pytestmark = NEEDS_BROWSER
pytest.importorskip("selenium.webdriver", reason="selenium (dev extra) is missing")

__all__ = ["browser", "sheet_server"]  # the fixtures, shared with the pages' other tests

REFUSED = "No win can be recorded or scored at this table"

# what the status region said (each change of its text) since the page opened
WATCH = """window.__said = [];
const status = document.getElementById('sheet-status');
new MutationObserver(() => window.__said.push(status.textContent)).observe(status,
  {childList: true, characterData: true, subtree: true});"""

# read again every 0.2 s instead of 5 s, from now
FAST = "state.refreshMs = 200; stop(); read(state.seq);"


@pytest.fixture(scope="module")
def roomy_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """The service with a database of its own and keys' buckets large enough for a read
    every 0.2 s: ``(base URL, database URL)``."""
    tmp = tmp_path_factory.mktemp("sheet-a11y79")
    url = database_url("sqlite", Path(tmp))
    app, _ = make_app(url, Path(tmp) / "data")
    for base in serve(app):
        yield base, url
    dispose_engines()


def open_watched(driver: Any, base: str, table: int | str, key: str,
                 plan: dict[str, list[Any]] | None = None) -> None:
    """The sheet page of ``table``, its status region watched (``WATCH``) from before the
    table is opened; with ``plan``, its reads answered as ``WRAP_FETCH`` says."""
    from selenium.webdriver.common.by import By

    driver.get(f"{base}/sheet")
    wait_for(lambda: driver.find_element(By.ID, "open").is_displayed(), what="the form")
    driver.execute_script(WATCH)
    if plan:
        driver.execute_script(WRAP_FETCH, plan)
    driver.execute_script(f"location.hash = 'table={table}&key={key}';")


def said(driver: Any) -> list[str]:
    """What the status region said since the watch began, in order."""
    return list(driver.execute_script("return window.__said"))


def active(driver: Any) -> str:
    """The id of the element with focus ("" for the page itself, or one without an id)."""
    return str(driver.execute_script("return document.activeElement.id || ''"))


def refused_table(base: str, url: str) -> tuple[tuple[int, str], tuple[int, str]]:
    """Two Xiamen tables of a new event, the first keeping ``chip_stack`` 0 (refused since
    the seventy-fifth session): ``((table, key), (table, key))``."""
    with httpx.Client(base_url=base) as api:
        _, [(t, k), (u, uk)] = new_event(api, rules="xiamen")  # type: ignore[arg-type]
    stored(url, t, {"chip_stack": 0})
    return (t, k), (u, uk)


# --- settings refused: said once when the table is opened ---------------------------------


def test_a_table_whose_settings_are_refused_is_said_once_when_opened(
        roomy_server: tuple[str, str], browser: Any) -> None:
    """Opening a table whose settings are refused: the status region says once that no
    win can be recorded there and where the referee's options are ("Next hand"). Reads
    every 0.2 s say nothing more and leave focus where it was (the standings); a draw
    recorded is said as a change, without the refusal again. Before, nothing was said:
    the box sat in the "Next hand" card, found only by reading down to it."""
    base, url = roomy_server
    (t, k), _ = refused_table(base, url)
    open_watched(browser, base, t, k)
    wait_for(lambda: cells(browser, "standings"), what="the standings")
    first = wait_for(lambda: said(browser), what="the refusal said")
    assert len(first) == 1 and first[0].startswith(REFUSED), first
    assert '"Next hand"' in first[0], first
    browser.execute_script(
        "document.querySelector('#standings-card .scroll').id = 'standings-scroll';"
        "document.getElementById('standings-scroll').focus();")
    browser.execute_script(FAST)
    time.sleep(1.5)  # several reads (each a 304: nothing changed)
    assert said(browser) == first
    assert active(browser) == "standings-scroll"
    with httpx.Client(base_url=base) as api:
        draw = api.post(f"/v1/tables/{t}/hands", headers={"Authorization": f"Bearer {k}"},
                        json={"outcome": "draw"})
        assert draw.status_code == 201, draw.text
    now = wait_for(lambda: len(said(browser)) > 1 and said(browser), what="the draw said")
    assert len(now) == 2 and now[1].startswith("The sheet changed"), now
    assert REFUSED not in now[1], now
    time.sleep(1.0)
    assert said(browser) == now
    assert active(browser) == "standings-scroll"
    browser.get(f"{base}/sheet")  # its reads stop


def test_another_table_opened_is_said_afresh(
        roomy_server: tuple[str, str], browser: Any) -> None:
    """The refusal is said per table opened: a table whose settings are taken says
    nothing of it; the refused one opened after it (another address, same page) is said
    once again. Before, neither was said."""
    base, url = roomy_server
    (t, k), (u, uk) = refused_table(base, url)
    open_watched(browser, base, u, uk)
    wait_for(lambda: cells(browser, "standings"), what="the standings")
    time.sleep(0.5)
    assert not any(REFUSED in s for s in said(browser)), said(browser)
    browser.execute_script(f"location.hash = 'table={t}&key={k}';")
    now = wait_for(lambda: [s for s in said(browser) if REFUSED in s], what="the refusal")
    assert len(now) == 1, said(browser)
    browser.get(f"{base}/sheet")  # its reads stop


# --- a refusal moves focus to the field to fix --------------------------------------------


def refused_key_message(base: str) -> str:
    """The service's own message of a 429 ``keys_refused`` (a wrong key, past the
    address's refused keys), spent on ``base`` (a server with small buckets)."""
    with httpx.Client(base_url=base) as api:
        _, [(t, _k), _] = new_event(api)  # type: ignore[arg-type]
        for n in range(12):
            answer = api.get(f"/v1/tables/{t}/sheet",
                             headers={"Authorization": f"Bearer tv_wrong{n}"})
            if answer.status_code == 429:
                break
    assert answer.json()["error"]["code"] == "keys_refused", answer.text
    return str(answer.json()["error"]["message"])


def check_marked(driver: Any, field: str) -> None:
    """``field`` has focus, is marked invalid and is described by the shown error."""
    from selenium.webdriver.common.by import By

    wait_for(lambda: active(driver) == field, what=f"focus on #{field}")
    node = driver.find_element(By.ID, field)
    assert node.get_attribute("aria-invalid") == "true"
    assert node.get_attribute("aria-describedby") == "error"
    assert driver.find_element(By.ID, "error").is_displayed()
    assert "Check the table number and its key." in text(driver, "error")
    other = "table-id" if field == "table-key" else "table-key"
    assert driver.find_element(By.ID, other).get_attribute("aria-invalid") is None


@pytest.mark.parametrize("refusal", ["401", "keys_refused"])
def test_a_refused_key_brings_focus_to_the_key_field(
        roomy_server: tuple[str, str], sheet_server: tuple[str, str], browser: Any,
        refusal: str) -> None:
    """A wrong key (a real 401), or a 429 ``keys_refused`` standing for one: the form
    comes back with focus on the key field, ``aria-invalid`` and described by the error;
    typing in it clears the mark; the reads have stopped, so focus stays where the user
    puts it. Before, focus was left on the page (the hidden cards'), the field unmarked."""
    from selenium.webdriver.common.by import By

    base, _ = roomy_server
    with httpx.Client(base_url=base) as api:
        _, [(t, k), _] = new_event(api)  # type: ignore[arg-type]
    plan = None
    if refusal == "keys_refused":
        message = refused_key_message(sheet_server[0])
        plan = {f"/v1/tables/{t}/sheet": [error_answer(429, "keys_refused", message, 5), 0]}
    open_watched(browser, base, t, "tv_wrong", plan)
    check_marked(browser, "table-key")
    key = browser.find_element(By.ID, "table-key")
    border = key.value_of_css_property("border-top-color")
    assert border == "rgba(185, 28, 28, 1)", border  # var(--red), beside the words
    key.send_keys(k)
    assert key.get_attribute("aria-invalid") is None
    assert key.get_attribute("aria-describedby") is None
    browser.execute_script("document.getElementById('table-id').focus()")
    time.sleep(1.0)
    assert active(browser) == "table-id"  # no read came to take it back
    browser.find_element(By.CSS_SELECTOR, "#open button[type=submit]").click()
    wait_for(lambda: cells(browser, "standings"), what="the sheet, with the right key")
    assert not any("refused" in s for s in said(browser))
    browser.get(f"{base}/sheet")  # its reads stop


def test_a_table_the_server_does_not_have_brings_focus_to_the_table_field(
        roomy_server: tuple[str, str], browser: Any) -> None:
    """A 404 ``not_found`` (a referee's key, a table number that is not there): the table
    number is the field to fix; a number the browser takes but the page does not send
    ("1e3", which the input's own checks let through) is the same, without a request.
    Before, focus stayed on the page, or on the submit button."""
    from selenium.webdriver.common.by import By

    base, _ = roomy_server
    plan = {"/v1/tables/99999/sheet": [error_answer(404, "not_found", "no table 99999")]}
    open_watched(browser, base, 99999, "tilecam-admin", plan)
    wait_for(lambda: active(browser) == "table-id", what="focus on the table number")
    field = browser.find_element(By.ID, "table-id")
    assert field.get_attribute("aria-invalid") == "true"
    assert field.get_attribute("aria-describedby") == "error"
    assert browser.find_element(By.ID, "table-key").get_attribute("aria-invalid") is None
    field.send_keys("1")
    assert field.get_attribute("aria-invalid") is None
    field.clear()
    field.send_keys("1e3")
    browser.find_element(By.ID, "table-key").send_keys("tv_any")
    browser.find_element(By.CSS_SELECTOR, "#open button[type=submit]").click()
    wait_for(lambda: active(browser) == "table-id", what="focus on the table number")
    assert field.get_attribute("aria-invalid") == "true"
    assert "The table number is a whole number" in text(browser, "error")
