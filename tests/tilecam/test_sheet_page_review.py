"""The score-sheet page (``/sheet``) after the sixty-ninth session's audit, in a real
browser (headless Chromium via selenium, as ``test_sheet_page``): what the next hand's
place rests on (a Xiamen win held pending keeps the dealer; any pending claim may move
the place), players told apart at 360 px, a referee's correction shown, the rulings in
what each player paid (and a repeat offence's step booked again), errors in words, and
the page's tables and regions named. Skipped without the browser, as the others are.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from test_page import NEEDS_BROWSER, browser, screenshot, serve, wait_for
from test_sheet_page import cells
from test_tables_helpers import admin, bearer, database_url, make_app, new_event

from tilecam.db.engine import dispose_engines

pytestmark = NEEDS_BROWSER
pytest.importorskip("selenium.webdriver", reason="selenium (dev extra) is missing")

__all__ = ["browser"]

PLAIN_HAND = "123m456m789m123p55p"  # a legal MCR win
LOW_WIN = "[234m,1]456p678s234s99m"  # a winning shape of 4 fan: held pending under MCR
XIAMEN_WIN = "123m456m789m123p456p55s"  # five sets and a pair, no gold held (gold 9s)
XIAMEN_FALSE = "123m456m789m123p456p5s9s"  # won on a discarded gold: 诈胡, held pending


@pytest.fixture(scope="module")
def sheet_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    tmp = tmp_path_factory.mktemp("sheet-page-review")
    app, _ = make_app(database_url("sqlite", Path(tmp)), Path(tmp) / "data")
    yield from serve(app)
    dispose_engines()


def post_hand(api: httpx.Client, t: int, k: str, **body: Any) -> dict[str, Any]:
    r = api.post(f"/v1/tables/{t}/hands", headers=bearer(k), json=body)
    assert r.status_code == 201, r.text
    return dict(r.json())


def penalize(api: httpx.Client, t: int, **body: Any) -> dict[str, Any]:
    r = api.post(f"/v1/tables/{t}/penalties", headers=admin(), json=body)
    assert r.status_code == 201, r.text
    return dict(r.json())


def open_sheet(browser: Any, server: str, t: int, k: str) -> None:
    browser.get(f"{server}/sheet#table={t}&key={k}")
    wait_for(lambda: cells(browser, "standings"), what="the standings")


def next_text(browser: Any) -> str:
    from selenium.webdriver.common.by import By

    return str(browser.find_element(By.ID, "next").text)


def test_a_xiamen_dealer_win_held_pending_is_said_to_keep_the_dealer(
    sheet_server: str, browser: Any,
) -> None:
    """The dealer's 诈胡 held pending: the API places the next hand with the same dealer
    (``assumed_after``); the page must not say the deal was taken to pass."""
    with httpx.Client(base_url=sheet_server) as api:
        _, [(t, k)] = new_event(api, rules="xiamen", tables=1)  # type: ignore[arg-type]
        post_hand(api, t, k, hand=XIAMEN_WIN, winner="E", self_drawn=True,
                  context={"gold": "9s"})
        held = post_hand(api, t, k, hand=XIAMEN_FALSE, winner="E", discarder="S",
                         context={"gold": "9s"})
        assert held["outcome"] == "pending"
        nxt = api.get(f"/v1/tables/{t}", headers=bearer(k)).json()["next_hand"]
        assert (nxt["dealer"], nxt["assumed_after"]) == ("Ann0", 2)
    open_sheet(browser, sheet_server, t, k)
    text = next_text(browser)
    assert "dealer Ann0" in text
    assert "deal passed" not in text, text
    assert "hand 2" in text and "same dealer" in text and "may move" in text, text


def test_a_xiamen_hand_with_no_winner_known_is_said_to_pass_the_deal(
    sheet_server: str, browser: Any,
) -> None:
    with httpx.Client(base_url=sheet_server) as api:
        _, [(t, k)] = new_event(api, rules="xiamen", tables=1)  # type: ignore[arg-type]
        held = post_hand(api, t, k, hand=XIAMEN_WIN, self_drawn=True, context={"gold": "9s"})
        assert held["outcome"] == "pending"
    open_sheet(browser, sheet_server, t, k)
    text = next_text(browser)
    assert "hand 1's deal passed" in text and "may move" in text, text


def test_an_mcr_claim_held_pending_warns_that_the_next_hand_may_move(
    sheet_server: str, browser: Any,
) -> None:
    """No ``assumed_after`` outside Xiamen, but a claim ruled false is played on at its
    place: the page says the next hand's place may move while a hand is pending."""
    with httpx.Client(base_url=sheet_server) as api:
        _, [(t, k)] = new_event(api, tables=1)  # type: ignore[arg-type]
        held = post_hand(api, t, k, hand=LOW_WIN, winner="S", discarder="E")
        assert held["outcome"] == "pending"
    open_sheet(browser, sheet_server, t, k)
    text = next_text(browser)
    assert "Hand 1 is held pending" in text and "may move" in text, text


def test_players_with_alike_names_are_told_apart_at_360_px(sheet_server: str,
                                                          browser: Any) -> None:
    """Four "Zhang …" players on a 360 px phone: every name column shows the whole
    name (no ellipsis), and the hands and standings fit without sideways scrolling."""
    from selenium.webdriver.common.by import By

    names = ["Zhang Wei", "Zhang Min", "Zhang Lei", "Bartholomew"]
    with httpx.Client(base_url=sheet_server) as api:
        r = api.post("/v1/events", headers=admin(), json={"name": "Narrow", "rules": "mcr"})
        assert r.status_code == 201, r.text
        r = api.post(f"/v1/events/{r.json()['id']}/tables", headers=admin(),
                     json={"name": "T1", "players": names})
        assert r.status_code == 201, r.text
        t, k = r.json()["id"], r.json()["api_key"]
        post_hand(api, t, k, hand=PLAIN_HAND, winner="N", discarder="E")
        post_hand(api, t, k, hand=PLAIN_HAND, winner="S", self_drawn=True)
        penalize(api, t, player="Bartholomew", kind="warning", reason="slow")
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": 360, "height": 740, "deviceScaleFactor": 1, "mobile": True})
    try:
        open_sheet(browser, sheet_server, t, k)
        heads = browser.find_elements(By.CSS_SELECTOR, "#hands th.name")
        assert [" ".join(h.text.split()) for h in heads] == names
        for head in heads:
            assert browser.execute_script(
                "return arguments[0].scrollWidth <= arguments[0].clientWidth", head), head.text
        for table in ("hands", "standings"):
            fits = browser.execute_script(
                "const t = document.getElementById(arguments[0]);"
                "return [t.scrollWidth, t.parentElement.clientWidth];", table)
            assert fits[0] <= fits[1], (table, fits)
        screenshot(browser, "sheet-360.png")
        browser.execute_script("document.getElementById('hands-card').scrollIntoView()")
        screenshot(browser, "sheet-360-hands.png")
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def test_a_referees_correction_of_a_win_is_shown(sheet_server: str, browser: Any) -> None:
    with httpx.Client(base_url=sheet_server) as api:
        _, [(t, k)] = new_event(api, tables=1)  # type: ignore[arg-type]
        post_hand(api, t, k, hand=PLAIN_HAND, winner="N", discarder="E")
        r = api.post(f"/v1/tables/{t}/hands/1/corrections", headers=admin(), json={
            "hand": PLAIN_HAND, "winner": "W", "discarder": "E", "reason": "winner was W"})
        assert r.status_code == 201, r.text
    open_sheet(browser, sheet_server, t, k)
    hand = cells(browser, "hands")[0]
    assert "winner Cai0" in hand[1], hand
    assert "corrected by the referee" in hand[1] and "winner was W" in hand[1], hand


def test_the_rulings_show_what_each_player_paid_and_a_step_booked_again(
    sheet_server: str, browser: Any,
) -> None:
    """错和 on Cai0 costs 30 (10 to each other player), a payment names who gains, and a
    repeat offence whose step a void changed says so (``rebooked``)."""
    with httpx.Client(base_url=sheet_server) as api:
        _, [(t, k)] = new_event(api, tables=1)  # type: ignore[arg-type]
        wrong = penalize(api, t, player="Cai0", kind="wrong_win", hand=1, reason="7 fan")
        assert wrong["deltas"]["Cai0"] == -30
        penalize(api, t, player="Dan0", kind="payment", to="Bo0", points=8)
        first = penalize(api, t, player="Bo0", kind="early_draw", hand=1)
        penalize(api, t, player="Bo0", kind="early_draw", hand=1)
        third = penalize(api, t, player="Bo0", kind="early_draw", hand=1)
        assert third["points"] == 10
        r = api.post(f"/v1/tables/{t}/penalties/{first['id']}/void", headers=admin(),
                     json={"reason": "it was his turn"})
        assert r.status_code == 200, r.text
        pens = api.get(f"/v1/tables/{t}/penalties", headers=bearer(k)).json()["penalties"]
        assert any(p["rebooked"] for p in pens)
    open_sheet(browser, sheet_server, t, k)
    rows = cells(browser, "penalties")
    wrong_row = next(r for r in rows if r[0].startswith("Cai0"))
    assert wrong_row[1] == "-30" and "+10" in wrong_row[0], wrong_row
    pay = next(r for r in rows if r[0].startswith("Dan0"))
    assert pay[1] == "-8" and "to Bo0 (+8)" in pay[0], pay
    again = [r for r in rows if r[0].startswith("Bo0") and "step changed" in r[0]]
    assert again and "10 → 5" in again[-1][0] and again[-1][1] == "-5", rows


def test_xiamen_names_a_false_win_as_it_does(sheet_server: str, browser: Any) -> None:
    """Xiamen's word is 诈胡, and its 诈胡 is paid in money apart from the chips."""
    with httpx.Client(base_url=sheet_server) as api:
        _, [(t, k)] = new_event(api, rules="xiamen", tables=1)  # type: ignore[arg-type]
        penalize(api, t, player="Cai0", kind="false_win")
    open_sheet(browser, sheet_server, t, k)
    row = cells(browser, "penalties")[0]
    assert "诈胡 (false_win)" in row[0] and row[1] == "-150 money", row


def test_a_table_number_the_server_does_not_take_is_named_in_words(
    sheet_server: str, browser: Any,
) -> None:
    from selenium.webdriver.common.by import By

    browser.get(f"{sheet_server}/sheet#table=99999999999&key=x")
    error = wait_for(lambda: browser.find_element(By.ID, "error").text, what="an error")
    assert "path." not in error and "table_id" not in error, error
    assert browser.find_element(By.ID, "open").is_displayed()


def test_without_javascript_the_form_does_not_post_to_the_page(sheet_server: str) -> None:
    """The form shows only once the script runs (a post to /sheet answers 405 JSON); the
    page says it needs JavaScript instead."""
    page = httpx.get(f"{sheet_server}/sheet").text
    form = page[page.index('<form id="open"'):].split(">", 1)[0]
    assert " hidden" in form, form
    assert "<noscript>" in page


def test_the_sheets_tables_and_regions_are_named_and_the_status_is_live(
    sheet_server: str, browser: Any,
) -> None:
    """Every header cell has a scope, every table and scrolling region a name; a status
    region says what changes (the "updated" pill is not one: see
    test_sheet_page_a11y); the long hint on the key goes once the sheet is open."""
    from selenium.webdriver.common.by import By

    with httpx.Client(base_url=sheet_server) as api:
        _, [(t, k)] = new_event(api, tables=1)  # type: ignore[arg-type]
        post_hand(api, t, k, hand=PLAIN_HAND, winner="N", discarder="E")
        penalize(api, t, player="Cai0", kind="warning", reason="slow")
    open_sheet(browser, sheet_server, t, k)
    heads = browser.find_elements(By.CSS_SELECTOR, "table.sheet th")
    assert heads and all(h.get_attribute("scope") for h in heads)
    for table in browser.find_elements(By.CSS_SELECTOR, "table.sheet"):
        assert table.accessible_name, table.get_attribute("id")
    for region in browser.find_elements(By.CSS_SELECTOR, ".scroll"):
        assert region.get_attribute("role") == "region" and region.accessible_name
    assert browser.find_element(By.ID, "sheet-status").get_attribute("role") == "status"
    hints = [h.text for h in browser.find_elements(By.CSS_SELECTOR, "#open-card .hint")
             if h.is_displayed()]
    assert not any("bookmark" in h for h in hints), hints
