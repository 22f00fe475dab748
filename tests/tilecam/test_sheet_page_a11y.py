"""The score-sheet page's answers to its accessibility review (session 74; headless
Chromium via selenium, as ``test_sheet_page``): the "updated" pill is no longer a live
region spoken at every read (every 5 s) — a status region says what changed, once; the
same error is not written (announced) again at every failed read; a dropped connection is
called that; its Chinese is marked ``lang="zh-Hans"``; a long name stays in a 320 px card.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from test_page import NEEDS_BROWSER, browser, serve, wait_for
from test_sheet_page_review import PLAIN_HAND, open_sheet, penalize, post_hand
from test_tables_helpers import admin, database_url, make_app, new_event

from tilecam.db.engine import dispose_engines

pytestmark = NEEDS_BROWSER
pytest.importorskip("selenium.webdriver", reason="selenium (dev extra) is missing")

__all__ = ["browser"]


@pytest.fixture(scope="module")
def sheet_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    tmp = tmp_path_factory.mktemp("sheet-page-a11y")
    app, _ = make_app(database_url("sqlite", Path(tmp)), Path(tmp) / "data")
    yield from serve(app)
    dispose_engines()


# what the status region said, and how often the alert's text was written, since the
# watch began
WATCH = """window.__said = []; window.__alerts = 0;
const all = {childList: true, characterData: true, subtree: true};
const status = document.getElementById('sheet-status');
new MutationObserver(() => window.__said.push(status.textContent)).observe(status, all);
new MutationObserver(() => window.__alerts++).observe(document.getElementById('error'), all);
state.refreshMs = 200;  // read again every 0.2 s instead of 5 s
stop(); read(state.seq);"""


def reads(browser: Any) -> str:
    return str(browser.execute_script("return document.getElementById('updated').textContent"))


def test_only_changes_are_announced(sheet_server: str, browser: Any) -> None:
    """An unchanged sheet read again says nothing; a hand recorded says the sheet changed;
    reads failing show one error (not rewritten at each read) that calls the connection
    by name; reads working again say so."""
    import time

    with httpx.Client(base_url=sheet_server) as api:
        _, [(t, k)] = new_event(api, tables=1)  # type: ignore[arg-type]
        post_hand(api, t, k, hand=PLAIN_HAND, winner="N", discarder="E")
        open_sheet(browser, sheet_server, t, k)
        updated = browser.find_element("id", "updated")
        assert updated.get_attribute("aria-live") is None
        assert updated.get_attribute("role") is None
        browser.execute_script(WATCH)
        first = reads(browser)
        time.sleep(1.5)  # several reads (each a 304: nothing changed)
        assert browser.execute_script("return window.__said") == []
        wait_for(lambda: reads(browser) != first, what="a read after the watch began")
        assert api.post(f"/v1/tables/{t}/hands", headers={"Authorization": f"Bearer {k}"},
                        json={"outcome": "draw"}).status_code == 201
        said = wait_for(lambda: browser.execute_script("return window.__said"),
                        what="the change said")
        assert len(said) == 1 and said[0].startswith("The sheet changed"), said
    browser.execute_script(
        "window.__fetch = window.fetch;"
        "window.fetch = () => Promise.reject(new TypeError('Failed to fetch'));")
    error = wait_for(lambda: browser.find_element("id", "error").text, what="the error")
    assert "cannot reach the server: check the connection" in error
    assert "Failed to fetch" not in error
    time.sleep(1.5)  # more reads fail the same way
    assert browser.execute_script("return window.__alerts") == 1
    browser.execute_script("window.fetch = window.__fetch;")
    wait_for(lambda: "read again" in browser.execute_script("return window.__said.join(' ')"),
             what="the reads working again, said")
    assert not browser.find_element("id", "error").is_displayed()


def test_chinese_on_the_sheet_is_marked_as_chinese(sheet_server: str, browser: Any) -> None:
    with httpx.Client(base_url=sheet_server) as api:
        _, [(t, k)] = new_event(api, tables=1)  # type: ignore[arg-type]
        post_hand(api, t, k, hand=PLAIN_HAND, winner="N", discarder="E")
        penalize(api, t, player="Bo0", kind="bar", hand=2, reason="错碰")
        penalize(api, t, player="Cai0", kind="warning", reason="slow")
    open_sheet(browser, sheet_server, t, k)
    unmarked = browser.execute_script(
        "const w = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT); const out = [];"
        "let n; while ((n = w.nextNode())) { if (!/[\\u4e00-\\u9fff]/.test(n.data)) continue;"
        "  if (!n.parentElement.closest('[lang=zh-Hans]')) out.push(n.data.trim()); } return out;")
    assert unmarked == [], unmarked
    marked = browser.execute_script(
        "return [...document.querySelectorAll('[lang=zh-Hans]')].map(e => e.textContent)")
    assert {"停和", "警告", "错碰"} <= set(marked), marked
    assert any(m in ("东", "南", "西", "北") for m in marked), marked


def test_a_long_name_stays_in_a_320_px_card(sheet_server: str, browser: Any) -> None:
    """A nickname pushed Total, Hands and Penalties out of the standings card, and a long
    unbroken name scrolled the whole page sideways (the next hand's seats and dealer)."""
    names = ["mahjong_master_2024", "Bo", "Cai", "x" * 40]
    with httpx.Client(base_url=sheet_server) as api:
        r = api.post("/v1/events", headers=admin(), json={"name": "Narrow", "rules": "mcr"})
        assert r.status_code == 201, r.text
        r = api.post(f"/v1/events/{r.json()['id']}/tables", headers=admin(),
                     json={"name": "y" * 40, "players": names})
        assert r.status_code == 201, r.text
        t, k = r.json()["id"], r.json()["api_key"]
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": 320, "height": 700, "deviceScaleFactor": 1, "mobile": True})
    try:
        open_sheet(browser, sheet_server, t, k)
        fits = browser.execute_script(
            "const t = document.getElementById('standings'); const de = document.documentElement;"
            "return [t.getBoundingClientRect().width, t.parentElement.clientWidth,"
            " de.scrollWidth, de.clientWidth];")
        assert fits[0] <= fits[1] and fits[2] <= fits[3], fits
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
