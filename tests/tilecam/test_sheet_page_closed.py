"""The score-sheet page (``/sheet``) for a table the referee closed or withdrew (review
"reviewtables" of the seventy-fourth session, finding 5), in a real browser (headless
Chromium via selenium, as ``test_sheet_page``). Rule 5: the page says "Closed by the
referee" with the reason given, or "Withdrawn", where it said "The session is over." for
both; a table whose rounds are played still reads so. Skipped without the browser.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from test_page import NEEDS_BROWSER, browser, serve, wait_for
from test_sheet_page import cells
from test_tables_helpers import admin, bearer, database_url, make_app, new_event

from tilecam.db.engine import dispose_engines

pytestmark = NEEDS_BROWSER
pytest.importorskip("selenium.webdriver", reason="selenium (dev extra) is missing")

__all__ = ["browser"]

PLAIN_HAND = "123m456m789m123p55p"  # a legal MCR win


@pytest.fixture(scope="module")
def sheet_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    tmp = tmp_path_factory.mktemp("sheet-page-closed")
    app, _ = make_app(database_url("sqlite", Path(tmp)), Path(tmp) / "data")
    yield from serve(app)
    dispose_engines()


def shown(browser: Any, server: str, t: int, k: str) -> tuple[str, str]:
    """The page's next-hand card and sheet-state line for table ``t``."""
    from selenium.webdriver.common.by import By

    browser.get(f"{server}/sheet#table={t}&key={k}")
    wait_for(lambda: cells(browser, "standings"), what="the standings")
    return (str(browser.find_element(By.ID, "next").text),
            str(browser.find_element(By.ID, "sheet-state").text))


def test_a_closed_or_withdrawn_table_is_named_so_on_the_sheet_page(sheet_server: str,
                                                                   browser: Any) -> None:
    """Rule 5: closed → "Closed by the referee: <reason>", withdrawn → "Withdrawn"; never
    "The session is over." for either."""
    with httpx.Client(base_url=sheet_server) as api:
        _, [(t, k), (u, uk)] = new_event(api)  # type: ignore[arg-type]
        for table, key in ((t, k), (u, uk)):
            assert api.post(f"/v1/tables/{table}/hands", headers=bearer(key), json={
                "hand": PLAIN_HAND, "winner": "N", "discarder": "E"}).status_code == 201
        assert api.post(f"/v1/tables/{t}/close", headers=admin(),
                        json={"reason": "time called at 18:00"}).status_code == 200
        assert api.patch(f"/v1/tables/{u}", headers=admin(),
                         json={"withdrawn": True}).status_code == 200
        closed_key = api.post(f"/v1/tables/{t}/view-key", headers=admin()).json()["view_key"]
        withdrawn_key = api.post(f"/v1/tables/{u}/view-key",
                                 headers=admin()).json()["view_key"]

    nxt, state = shown(browser, sheet_server, t, closed_key)
    assert "Closed by the referee" in nxt and "time called at 18:00" in nxt, nxt
    assert "closed by the referee" in state and "session is over" not in state, state
    assert "The session is over" not in nxt

    nxt, state = shown(browser, sheet_server, u, withdrawn_key)
    assert "Withdrawn" in nxt and "The session is over" not in nxt, nxt
    assert "withdrawn" in state and "session is over" not in state, state


def closings_shown(browser: Any, server: str, t: int, k: str, want: str) -> tuple[str, str, str]:
    """The page's next-hand card (its title too), sheet-state line and record of closings
    for table ``t``, once the next-hand card says ``want``."""
    from selenium.webdriver.common.by import By

    browser.get(f"{server}/sheet#table={t}&key={k}")
    wait_for(lambda: want in browser.find_element(By.ID, "next-card").text, what=want)
    closings = browser.find_element(By.ID, "closings")
    return (str(browser.find_element(By.ID, "next-card").text),
            str(browser.find_element(By.ID, "sheet-state").text),
            str(closings.text) if closings.is_displayed() else "")


def test_a_reopened_table_shows_its_close_and_reopening(sheet_server: str,
                                                        browser: Any) -> None:
    """A table closed by mistake and reopened (``POST …/reopen``): the page shows its next
    hand again, says "reopened by the referee", and lists the close and the reopening
    with their reasons; closed again, it says the close that stands (not the record) and
    lists the earlier ones as before this close. A table only closed lists none."""
    with httpx.Client(base_url=sheet_server) as api:
        _, [(t, k), (u, uk)] = new_event(api)  # type: ignore[arg-type]
        for table, key in ((t, k), (u, uk)):
            assert api.post(f"/v1/tables/{table}/hands", headers=bearer(key), json={
                "hand": PLAIN_HAND, "winner": "N", "discarder": "E"}).status_code == 201
            assert api.post(f"/v1/tables/{table}/close", headers=admin(),
                            json={"reason": "time called at 18:00"}).status_code == 200
        assert api.post(f"/v1/tables/{t}/reopen", headers=admin(),
                        json={"reason": "closed the wrong table"}).status_code == 200
        view = api.post(f"/v1/tables/{t}/view-key", headers=admin()).json()["view_key"]
        only_closed = api.post(f"/v1/tables/{u}/view-key", headers=admin()).json()["view_key"]

    nxt, state, closings = closings_shown(browser, sheet_server, t, view, "Next hand: 2")
    assert "reopened by the referee" in state and "closed by the referee" not in state, state
    assert "Closed and reopened by the referee" in closings, closings
    assert "time called at 18:00 (by referee)" in closings
    assert "closed the wrong table (by referee)" in closings
    assert closings.index("time called") < closings.index("closed the wrong table")

    with httpx.Client(base_url=sheet_server) as api:
        assert api.post(f"/v1/tables/{t}/close", headers=admin(),
                        json={"reason": "time called at 18:30"}).status_code == 200
    nxt, state, closings = closings_shown(browser, sheet_server, t, view,
                                          "Closed by the referee")
    assert "Closed by the referee: time called at 18:30 (by referee)." in nxt, nxt
    assert "18:00" not in nxt and "wrong table" not in nxt
    assert "closed by the referee" in state and "reopened" not in state, state
    assert closings.startswith("Before this close:") and "wrong table" in closings, closings

    nxt, state, closings = closings_shown(browser, sheet_server, u, only_closed,
                                          "Closed by the referee: time called at 18:00")
    assert "closed by the referee" in state and "reopened" not in state, state
    assert closings == ""
