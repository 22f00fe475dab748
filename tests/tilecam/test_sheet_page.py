"""The score-sheet page (``/sheet``) in a real browser (headless Chromium via selenium).

The app runs on SQLite with uvicorn on a free loopback port; the test fills a table's
sheet through the API, opens ``/sheet#table=…&key=…`` and checks that the page shows
what the API says: the standings, the next hand and who may not win it (停和), the hands
and the referee's rulings — and that it reads the sheet again on its own, and says so
when the key is wrong. Skipped (with the reason) when Chromium, chromedriver or
selenium are missing, as the phone page's tests are.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from test_page import NEEDS_BROWSER, browser, screenshot, serve, wait_for
from test_tables_helpers import admin, bearer, database_url, make_app, new_event

from tilecam.db.engine import dispose_engines

pytestmark = NEEDS_BROWSER
pytest.importorskip("selenium.webdriver", reason="selenium (dev extra) is missing")

__all__ = ["browser"]  # the fixture, shared with the phone page's tests

PLAIN_HAND = "123m456m789m123p55p"  # a legal MCR win


@pytest.fixture(scope="module")
def sheet_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    tmp = tmp_path_factory.mktemp("sheet-page")
    app, _ = make_app(database_url("sqlite", Path(tmp)), Path(tmp) / "data")
    yield from serve(app)
    dispose_engines()


def cells(driver: Any, table: str) -> list[list[str]]:
    """The text of each row's cells (header rows left out) of the page's table ``table``."""
    from selenium.webdriver.common.by import By

    rows = driver.find_elements(By.CSS_SELECTOR, f"#{table} tr")
    return [[td.text for td in row.find_elements(By.TAG_NAME, "td")] for row in rows
            if row.find_elements(By.TAG_NAME, "td")]


def test_the_sheet_page_shows_the_table_as_the_api_does(sheet_server: str, browser: Any) -> None:
    """A win, a 停和 on the hand in play and a warning: the page's standings, next hand,
    hands and rulings match the API; a hand recorded later appears without a reload."""
    from selenium.webdriver.common.by import By

    with httpx.Client(base_url=sheet_server) as api:
        _, [(t, k)] = new_event(api, tables=1)  # type: ignore[arg-type]
        assert api.post(f"/v1/tables/{t}/hands", headers=bearer(k), json={
            "hand": PLAIN_HAND, "winner": "N", "discarder": "E"}).status_code == 201
        for body in ({"player": "Bo0", "kind": "bar", "hand": 2, "reason": "错碰"},
                     {"player": "Cai0", "kind": "warning", "reason": "摸牌 early"}):
            assert api.post(f"/v1/tables/{t}/penalties", headers=admin(),
                            json=body).status_code == 201
        standings = api.get(f"/v1/tables/{t}/standings", headers=bearer(k)).json()
        # the players' phones hold the viewing key, which records nothing
        view = api.post(f"/v1/tables/{t}/view-key", headers=admin()).json()["view_key"]

        browser.get(f"{sheet_server}/sheet#table={t}&key={view}")
        rows = wait_for(lambda: cells(browser, "standings"), what="the standings")
        shown = {r[1].splitlines()[0]: int(r[2]) for r in rows}
        assert shown == {p["player"]: p["total"] for p in standings["players"]}
        assert any("警告 ×1" in r[1] for r in rows if r[1].startswith("Cai0"))
        assert "Bo0" in browser.find_element(By.CSS_SELECTOR, "#next .barred").text
        hand = cells(browser, "hands")[0]
        recorded = api.get(f"/v1/tables/{t}/hands/1", headers=bearer(k)).json()
        assert hand[0] == "1" and "winner Dan0" in hand[1], hand
        assert recorded["hand"] in hand[1] and f"{recorded['total']} fan" in hand[1], hand
        rulings = " ".join(" ".join(r) for r in cells(browser, "penalties"))
        assert "停和 (bar)" in rulings and "警告 (warning)" in rulings
        assert browser.find_element(By.ID, "open").is_displayed() is False
        screenshot(browser, "sheet.png")

        assert api.post(f"/v1/tables/{t}/hands", headers=bearer(k),
                        json={"outcome": "draw"}).status_code == 201
        wait_for(lambda: len(browser.find_elements(By.CSS_SELECTOR, "#hands tr[data-hand]"))
                 == 2, timeout=15,
                 what="the page to read the sheet again")
        assert cells(browser, "hands")[0][0] == "2"


def test_a_wrong_key_is_named_and_the_form_asked_again(sheet_server: str,
                                                       browser: Any) -> None:
    """The page says the key does not open the table and shows the form again."""
    from selenium.webdriver.common.by import By

    with httpx.Client(base_url=sheet_server) as api:
        _, [(t, _k)] = new_event(api, tables=1)  # type: ignore[arg-type]
    browser.get(f"{sheet_server}/sheet#table={t}&key=not-the-key")
    error = wait_for(lambda: browser.find_element(By.ID, "error").text, what="an error")
    assert "Check the table number and its key" in error
    assert browser.find_element(By.ID, "open").is_displayed()


def test_another_table_or_a_bad_address_leaves_no_sheet_on_show(sheet_server: str,
                                                                 browser: Any) -> None:
    """Table 1's sheet, then table 2 with table 1's key (403): the error and the form,
    and table 1's sheet gone; an address with no table number is named, nothing read."""
    from selenium.webdriver.common.by import By

    with httpx.Client(base_url=sheet_server) as api:
        _, [(t, k), (t2, _k2)] = new_event(api, tables=2)  # type: ignore[arg-type]
    browser.get(f"{sheet_server}/sheet#table={t}&key={k}")
    wait_for(lambda: cells(browser, "standings"), what="the standings")
    browser.execute_script(f"location.hash = 'table={t2}&key={k}'")
    error = wait_for(lambda: browser.find_element(By.ID, "error").text, what="an error")
    assert "Check the table number and its key" in error
    assert not browser.find_element(By.ID, "standings-card").is_displayed()
    assert browser.find_element(By.ID, "table-title").text == "Score sheet"
    browser.execute_script("location.hash = 'table=abc&key=x'")
    wait_for(lambda: "#table=N&key=" in browser.find_element(By.ID, "error").text,
             what="the address named")
    assert browser.find_element(By.ID, "open").is_displayed()


def test_a_regional_hand_is_counted_in_chips(sheet_server: str, browser: Any) -> None:
    """Zhenjiang (and Xiamen) count a hand in chips, their settlement's unit, as the phone
    page does; the sheet called them points."""
    with httpx.Client(base_url=sheet_server) as api:
        _, [(t, k)] = new_event(api, rules="zhenjiang", tables=1)  # type: ignore[arg-type]
        r = api.post(f"/v1/tables/{t}/hands", headers=bearer(k), json={
            "hand": "123m456m789m234pEE", "winner": "N", "discarder": "E",
            "context": {"indicator": "1m"}})
        assert r.status_code == 201, r.text
        total = api.get(f"/v1/tables/{t}/hands/1", headers=bearer(k)).json()["total"]
        view = api.post(f"/v1/tables/{t}/view-key", headers=admin()).json()["view_key"]
        browser.get(f"{sheet_server}/sheet#table={t}&key={view}")
        hand = wait_for(lambda: cells(browser, "hands"), what="the hands")[0]
        assert f"{total} chip" in hand[1] and "point" not in hand[1], hand


def test_each_hand_names_its_fans_and_fan_takes_no_plural(sheet_server: str,
                                                          browser: Any) -> None:
    """Each hand names its fans under its notation — the Chinese name (marked zh-Hans),
    the English one and the value, ``1×2`` for a fan counted twice — as the phone page
    lists a score's (review "i18n" of session 76, finding 6); a claim ruled false names
    the fans "as claimed"; the total is "N fan", as the phone page writes it (the sheet
    wrote "N fans"). A regional hand names its items too."""
    from selenium.webdriver.common.by import By

    with httpx.Client(base_url=sheet_server) as api:
        _, [(t, k)] = new_event(api, tables=1)  # type: ignore[arg-type]
        assert api.post(f"/v1/tables/{t}/hands", headers=bearer(k), json={
            "hand": "111m999m11p123s789s", "winner": "E",
            "self_drawn": True}).status_code == 201
        assert api.post(f"/v1/tables/{t}/hands", headers=bearer(k), json={
            "hand": PLAIN_HAND, "winner": "N", "discarder": "E"}).status_code == 201
        assert api.post(f"/v1/tables/{t}/hands/2/false-claim", headers=admin(), json={
            "reason": "错和", "kind": "wrong_win"}).status_code == 201
        first, second = api.get(f"/v1/tables/{t}/hands", headers=bearer(k)).json()["hands"]
        browser.get(f"{sheet_server}/sheet#table={t}&key={k}")
        wait_for(lambda: len(cells(browser, "hands")) == 4, what="the hands")
        lines = [e.text for e in browser.find_elements(By.CSS_SELECTOR, "#hands small.fan-list")]
        assert len(lines) == 2, lines  # newest first: the false claim, then the win
        pill = browser.find_element(By.CSS_SELECTOR, "#hands tr[data-hand='1'] .pill").text
        assert pill == f"win · winner Ann0 · {first['total']} fan", pill
        for f in first["score"]["fans"]:
            value = f"{f['value']}×{f['count']}" if f["count"] > 1 else str(f["value"])
            assert f"{f['zh']} {f['en']} {value}" in lines[1], lines[1]
        assert "幺九刻 Pung of Terminals or Honors 1×2" in lines[1]
        assert lines[0].startswith("as claimed: 清龙 Pure Straight 16 · ")
        assert len(second["score"]["fans"]) == lines[0].count(" · ") + 1
        marked = browser.find_elements(By.CSS_SELECTOR,
                                       "#hands small.fan-list span[lang='zh-Hans']")
        assert "幺九刻" in [m.text for m in marked]
        screenshot(browser, "sheet-fans.png")

        _, [(z, zk)] = new_event(api, rules="zhenjiang", tables=1)  # type: ignore[arg-type]
        r = api.post(f"/v1/tables/{z}/hands", headers=bearer(zk), json={
            "hand": "123m456m789m234pEE", "winner": "N", "discarder": "E",
            "context": {"indicator": "1m"}})
        assert r.status_code == 201, r.text
        browser.get(f"{sheet_server}/sheet#table={z}&key={zk}")
        line = wait_for(lambda: browser.find_element(By.CSS_SELECTOR,
                                                     "#hands small.fan-list").text,
                        what="the regional hand's items")
        for f in r.json()["score"]["fans"]:
            assert f"{f['zh']} {f['en']} {f['value']}" in line, line
