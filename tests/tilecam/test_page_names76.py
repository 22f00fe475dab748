"""The phone page names tiles and seats in Chinese as well as English (session 76, i18n
review finding 7; headless Chromium via selenium, as ``test_page.py``).

The 何切 table's "Waits on" column gave tile codes alone ("1m (3 left)") while its Discard
column and the waits table give "1m 一万"; a settlement's seats were English alone
("left pays 8"), where a table says 上家 / 对家 / 下家.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from test_page import NEEDS_BROWSER, SceneDetector, browser, serve, wait_for
from test_page_regional_words import shown
from test_page_review import load, text, type_hand

import scoring
from scoring.tiles import ZH_NAMES
from tilecam.api.deps import get_detector
from tilecam.app import create_app
from tilecam.settings import Settings

pytestmark = NEEDS_BROWSER
pytest.importorskip("selenium.webdriver", reason="selenium (dev extra) is missing")

__all__ = ["browser"]  # the fixture, shared with the phone page's tests


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    app = create_app(Settings(load_model=False))
    app.dependency_overrides[get_detector] = SceneDetector
    yield from serve(app)


def test_the_discards_waits_give_each_tiles_chinese_name(server: str, browser: Any) -> None:
    from selenium.webdriver.common.by import By

    hand = "1112345678999m1p"  # discard 1p: 九莲宝灯, waiting on 1m-9m
    ready = [x for x in scoring.discards(hand).to_dict()["discards"] if x["ready"]]
    load(browser, server)
    type_hand(browser, hand)
    wait_for(lambda: "discard to be ready" in text(browser, "waits"), what="the discards")
    cells = [c.text for c in browser.find_elements(By.CSS_SELECTOR, "#waits td.wrap")]
    assert len(cells) == len(ready)
    for x, cell in zip(ready, cells, strict=True):
        assert cell == ", ".join(f"{t['tile']} {ZH_NAMES[t['tile']]} ({t['remaining']} left)"
                                 for t in x["waits"])
    # the Chinese is marked as such, for a screen reader's voice
    marked = browser.find_elements(By.CSS_SELECTOR, '#waits td.wrap span[lang="zh-Hans"]')
    assert [m.text for m in marked][:2] == [ZH_NAMES[t["tile"]] for t in ready[0]["waits"]][:2]


def test_no_ready_discard_names_the_best_discards_in_chinese_too(
    server: str, browser: Any
) -> None:
    load(browser, server)
    type_hand(browser, "1359m1357p2468sEW")
    got = wait_for(lambda: text(browser, "waits") if "No discard" in text(browser, "waits")
                   else "", what="no ready discard")
    d = scoring.discards("1359m1357p2468sEW").to_dict()
    best = [x["tile"] for x in d["discards"] if x["shanten"] == d["shanten"]]
    assert f"the best ({', '.join(f'{t} {ZH_NAMES[t]}' for t in best)})" in got


@pytest.mark.parametrize(("rules", "hand", "ctx"), [
    ("mcr", "[EEE,2][SSSS,1]WWWNN55pN", {"discarder": 2}),
    ("mcr", "[EEE,2][SSSS,1]WWWNN55pN", {"self_drawn": True}),
    ("zhenjiang", "123m456m789m234pEE", {"indicator": "1m", "discarder": 3,
                                         "first_wild_discard": "left"}),
    ("xiamen", "123m456m789m234p567p9s 1f 3p", {"gold": "9s", "win": "游金"}),
])
def test_settlement_seats_have_their_chinese_names(
    server: str, browser: Any, rules: str, hand: str, ctx: dict[str, Any]
) -> None:
    load(browser, server)
    s = scoring.score(hand, rules=rules, **ctx)
    got = shown(browser, s)["settlement"]
    for en, zh in (("left", "上家"), ("opposite", "对家"), ("right", "下家")):
        assert f"{en} ({zh}) " in got, got
    assert not any(f"{en} pays" in got or f"{en} -" in got or f"{en} +" in got
                   for en in ("left", "opposite", "right")), got
