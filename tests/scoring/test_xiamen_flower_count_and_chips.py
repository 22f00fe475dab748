"""Xiamen (厦门) flowers given as a count, and a ``chip_stack`` of 0 (regional review of the
seventy-fifth session, /tmp/s75/report_regional.md findings 1 and 2). Each test names the
rule it checks; hands in notation.

1. RULES.md Xiamen 水: "each flower 1, a full set of four flowers or four seasons +4".
   A count of 8 bonus tiles is both full sets and 7 is exactly one, so such a count pays
   as its codes do; 4 to 6 may hold a set or not: none is counted and the settlement's
   note says so, and how to give the codes.
2. Seed 000: "杀三…清空了其他玩家的100筹码", "诈胡…支付各家每人半课的钱" — every 课 is
   played with a stake of chips; ``chip_stack=0`` with the payment cap on paid every win
   0 chips. It is refused, naming the settings (400 from the API, never a 500); with
   ``cap_at_stack=false`` it is taken: wins paid in full, no 杀三.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, update

import scoring
from scoring import HandError
from tilecam.app import create_app
from tilecam.db.engine import dispose_engines
from tilecam.db.models import GameTable
from tilecam.db.testing import fresh_sqlite_database
from tilecam.settings import Settings
from tilecam.tables import places
from tilecam.tables.sheet import RulesError, check_rules

ALL = ("left", "opposite", "right")
#: A self-drawn win with no gold held (gold 9s): 底 8, ×2.
PLAIN = "123m456m789m123p456p55s"
ADMIN = "admin-key-for-tests-0123456789"


def xm(hand: str, **kw: Any) -> scoring.Score:
    kw.setdefault("gold", "9s")
    kw.setdefault("self_drawn", True)
    return scoring.score(hand, rules="xiamen", **kw)


def items(s: scoring.Score) -> list[tuple[str, int, int]]:
    return [(f.zh, f.value, f.count) for f in s.fans]


def paid(s: scoring.Score) -> list[tuple[str, int, int]]:
    return [(p.payer, p.amount, getattr(p, "bonus", 0)) for p in s.settlement.payments]


# ------------------------------------------------------------- 1: flowers given as a count
def test_eight_flowers_as_a_count_pay_both_full_sets_as_the_eight_codes_do() -> None:
    """RULES.md Xiamen 水: "each flower 1, a full set of four flowers or four seasons +4".
    ``123m456m789m123p456p55s`` self-drawn with 8 flowers: 8 bonus tiles are all four
    seasons and all four flowers, so ``flowers=8`` pays as ``… 1f2f3f4f5f6f7f8f`` does:
    (底 8 + 花 8 + 四季 4 + 四花 4) × 2 = 48 a payer (it paid 32)."""
    counted = xm(PLAIN, flowers=8)
    listed = xm(PLAIN + " 1f2f3f4f5f6f7f8f")
    assert counted.total == listed.total == (8 + 8 + 4 + 4) * 2
    assert items(counted) == items(listed) == [
        ("底", 8, 1), ("花", 1, 8), ("四季", 4, 1), ("四花", 4, 1)]
    assert paid(counted) == paid(listed) == [(p, 48, 0) for p in ALL]
    assert counted.settlement == listed.settlement


def test_seven_flowers_as_a_count_pay_the_one_full_set_they_must_hold() -> None:
    """RULES.md Xiamen 水: "+4 for a full set of four flowers or four seasons". 7 of the 8
    bonus tiles leave one group short of one tile and the other whole, so ``flowers=7``
    holds exactly one full set: (底 8 + 花 7 + 4) × 2 = 38 a payer, as ``… 1f2f3f4f5f6f7f``
    pays (it paid 30)."""
    counted = xm(PLAIN, flowers=7)
    assert counted.total == (8 + 7 + 4) * 2 == xm(PLAIN + " 1f2f3f4f5f6f7f").total
    assert items(counted) == [("底", 8, 1), ("花", 1, 7), ("四季/四花", 4, 1)]
    assert paid(counted) == [(p, 38, 0) for p in ALL]
    assert "count" not in counted.settlement.note  # nothing left unknown
    # 游金 (×4) with 7 counted flowers: (底 8 + 金 1 + 花 7 + 4) × 4 + 50 bonus
    you_jin = xm("123m456m789m234p567p9s3p", win="游金", flowers=7, self_drawn=False)
    assert paid(you_jin) == [(p, 80, 50) for p in ALL]


@pytest.mark.parametrize("count", [4, 5, 6])
def test_four_to_six_flowers_as_a_count_say_their_full_set_was_not_counted(count: int) -> None:
    """RULES.md Xiamen 水: a full set is +4 — but ``flowers=4`` may be ``1f2f3f4f`` (四季)
    or ``1f2f5f6f`` (none): a count cannot tell. The score counts no set (the least the
    hand is worth, never more than it is) and its settlement note says so and how to give
    the codes; the codes score the set."""
    counted = xm(PLAIN, flowers=count)
    assert counted.total == (8 + count) * 2
    assert items(counted) == [("底", 8, 1), ("花", 1, count)]
    note = counted.settlement.note
    assert f"{count} flowers given as a count" in note
    assert "not counted" in note and "1f-4f" in note and "5f-8f" in note
    codes = " " + "1f2f3f4f5f6f"[:2 * count]  # all four seasons among them
    listed = xm(PLAIN + codes)
    assert listed.total == (8 + count + 4) * 2
    assert "count" not in listed.settlement.note
    # settling again from the total gives the same settlement, note and all
    rule_set = scoring.get_rule_set("xiamen")
    ctx = scoring.WinContext(self_drawn=True, flowers=count,
                             extra=rule_set.resolve_context({"gold": "9s"}))
    again = rule_set.settle(scoring.parse_hand(PLAIN), counted.total, True, ctx,
                            rule_set.resolve_settings())
    assert again == counted.settlement


@pytest.mark.parametrize(("count", "settings"), [
    (3, {}), (0, {}), (5, {"water_flower_set": 0})])
def test_a_count_that_can_hold_no_set_or_a_set_worth_nothing_says_nothing(
        count: int, settings: dict[str, int]) -> None:
    """RULES.md Xiamen 水: a full set is four tiles — 3 flowers hold none; with
    ``water_flower_set=0`` no set is worth anything: the note has nothing to warn of."""
    s = xm(PLAIN, flowers=count, settings=settings)
    assert s.total == (8 + count) * 2 and "count" not in s.settlement.note


def test_api_score_and_cli_pay_eight_counted_flowers_both_sets(
        capsys: pytest.CaptureFixture[str]) -> None:
    """RULES.md Xiamen 水 (full sets +4), through ``POST /v1/score`` (``flowers`` 8 → 48)
    and ``tilecam score --flowers 5`` (the note printed)."""
    from tilecam.cli import main

    with TestClient(create_app(Settings(load_model=False)),
                    raise_server_exceptions=False) as c:
        r = c.post("/v1/score", json={"hand": PLAIN, "rules": "xiamen", "self_drawn": True,
                                      "flowers": 8, "rule_context": {"gold": "9s"}})
        assert r.status_code == 200, r.text
        assert r.json()["total"] == 48
        r = c.post("/v1/score", json={"hand": PLAIN, "rules": "xiamen", "self_drawn": True,
                                      "flowers": 5, "rule_context": {"gold": "9s"}})
        assert r.status_code == 200 and "not counted" in r.json()["settlement"]["note"]
    assert main(["score", "--rules", "xiamen", "--context", "gold=9s", "--self-drawn",
                 "--flowers", "5", PLAIN]) == 0
    assert "5 flowers given as a count" in capsys.readouterr().out


# ------------------------------------------------------------------ 2: chip_stack 0
def test_chip_stack_zero_with_the_payment_cap_is_refused_naming_the_settings() -> None:
    """Seed 000: "杀三…清空了其他玩家的100筹码" — a 课 is played with a stake of chips, and
    with ``cap_at_stack`` a payer pays at most what he has: ``chip_stack=0`` paid
    ``123m456m789m123p456p55s`` 自摸 (16 a payer) 0 chips from everyone. Refused."""
    with pytest.raises(HandError, match=r"chip_stack=0 with cap_at_stack=true.*"
                                        r"chip_stack 1 or more.*cap_at_stack=false"):
        xm(PLAIN, settings={"chip_stack": 0})
    with pytest.raises(RulesError, match=r"chip_stack=0"):  # a table with it: 400
        check_rules("xiamen", None, {"chip_stack": 0})
    check_rules("xiamen", None, {"chip_stack": 1})
    one = xm(PLAIN, settings={"chip_stack": 1})
    assert paid(one) == [(p, 1, 100) for p in ALL]  # 1 chip each empties all three: 杀三


def test_chip_stack_zero_without_the_cap_pays_wins_in_full_and_never_kills_three() -> None:
    """Seed 000 "9、杀三…清空了其他玩家的100筹码": with ``cap_at_stack=false`` and
    ``chip_stack=0`` nobody holds chips to be emptied — ``123m456m789m123p456p55s`` 自摸
    pays (底 8) × 2 = 16 from each, no 杀三; a 三游 pays its (底 + 水) × 12 and its 150."""
    free = {"chip_stack": 0, "cap_at_stack": False}
    s = xm(PLAIN, settings=free)
    assert paid(s) == [(p, 16, 0) for p in ALL] and s.details["kill_three"] is False
    san = xm("123m456m789m234p567p9s", win="三游", settings=free, self_drawn=False)
    assert san.details["kill_three"] is False
    assert paid(san) == [(p, (8 + 1) * 12, 150) for p in ALL]


@pytest.fixture
def tables(tmp_path: Path) -> Iterator[tuple[TestClient, str]]:
    url = fresh_sqlite_database(tmp_path)
    app = create_app(Settings(database_url=url, data_dir=tmp_path / "data", admin_key=ADMIN,
                              load_model=False, rate_limit_per_s=1000.0,
                              rate_limit_burst=1000))
    with TestClient(app) as client:
        yield client, url
    dispose_engines()


def _table(client: TestClient, settings: dict[str, Any]) -> Any:
    admin = {"Authorization": f"Bearer {ADMIN}"}
    r = client.post("/v1/events", json={"name": "Xiamen open", "rules": "xiamen"},
                    headers=admin)
    assert r.status_code == 201, r.text
    return client.post(f"/v1/events/{r.json()['id']}/tables", headers=admin,
                       json={"name": "T1", "players": ["Ann", "Bo", "Cai", "Dan"],
                             "settings": settings})


def test_table_with_chip_stack_zero_and_the_cap_is_refused_with_a_400(
        tables: tuple[TestClient, str]) -> None:
    """Seed 000 (a 课 of 100筹码): a Xiamen table made with ``chip_stack`` 0 and the cap on
    recorded every win as 0 chips; it is refused (400, the settings named). Without the
    cap it is made, and ``123m456m789m123p456p55s`` 自摸 by S pays 16 from each."""
    client, _url = tables
    r = _table(client, {"chip_stack": 0})
    assert r.status_code == 400, r.text
    assert "chip_stack=0 with cap_at_stack=true" in r.text
    r = _table(client, {"chip_stack": 0, "cap_at_stack": False})
    assert r.status_code == 201, r.text
    t, key = r.json()["id"], r.json()["api_key"]
    h = client.post(f"/v1/tables/{t}/hands", headers={"Authorization": f"Bearer {key}"},
                    json={"hand": PLAIN, "winner": "S", "self_drawn": True,
                          "context": {"gold": "9s"}})
    assert h.status_code == 201, h.text
    assert h.json()["outcome"] == "win" and sorted(h.json()["points"].values()) == [
        -16, -16, -16, 48]


def test_score_sheet_pays_eight_counted_flowers_both_full_sets(
        tables: tuple[TestClient, str]) -> None:
    """RULES.md Xiamen 水 ("a full set of four flowers or four seasons +4") on a score
    sheet, whose hand report gives flowers as a count: ``123m456m789m123p456p55s`` 自摸 by
    S with ``flowers`` 8 takes 48 from each player (it took 32), as with the 8 codes."""
    client, _url = tables
    r = _table(client, {})
    assert r.status_code == 201, r.text
    t, key = r.json()["id"], r.json()["api_key"]
    auth = {"Authorization": f"Bearer {key}"}
    for body in ({"hand": PLAIN, "flowers": 8}, {"hand": PLAIN + " 1f2f3f4f5f6f7f8f"}):
        h = client.post(f"/v1/tables/{t}/hands", headers=auth,
                        json={**body, "winner": "S", "self_drawn": True,
                              "context": {"gold": "9s"}})
        assert h.status_code == 201, h.text
        assert h.json()["total"] == 48
        assert sorted(h.json()["points"].values()) == [-48, -48, -48, 144]


def test_table_stored_with_chip_stack_zero_still_reads_and_refuses_new_hands(
        tables: tuple[TestClient, str]) -> None:
    """Seed 000 (a 课 of 100筹码): a table stored with ``chip_stack`` 0 and the cap on
    before it was refused still shows its sheet and standings (no 500); a hand posted to
    it is refused naming the setting, not recorded as 0 chips — 409
    ``table_settings_refused`` since the seventy-seventh session (the table's fault, not
    the hand's; it was 400 ``invalid_context``)."""
    client, url = tables
    r = _table(client, {"chip_stack": 1})
    assert r.status_code == 201, r.text
    t, key = r.json()["id"], r.json()["api_key"]
    engine = create_engine(url)
    try:
        with engine.begin() as conn:
            conn.execute(update(GameTable).where(GameTable.id == t)
                         .values(rule_settings={"chip_stack": 0}))
    finally:
        engine.dispose()
    auth = {"Authorization": f"Bearer {key}"}
    for path in ("", "/sheet", "/standings"):
        got = client.get(f"/v1/tables/{t}{path}", headers=auth)
        assert got.status_code == 200, (path, got.text)
    h = client.post(f"/v1/tables/{t}/hands", headers=auth,
                    json={"hand": PLAIN, "winner": "S", "self_drawn": True,
                          "context": {"gold": "9s"}})
    assert (h.status_code, h.json()["error"]["code"]) == (409, "table_settings_refused"), h.text
    assert "chip_stack=0" in h.text


def test_places_read_a_stored_chip_stack_the_scorer_now_refuses() -> None:
    """Seed 000 (a 课 of 100筹码): the stake of a table's places is read from its stored
    settings even where the scorer refuses them now (``chip_stack`` 0 with the cap)."""
    assert places.chip_stack(GameTable(rules="xiamen", rule_settings={"chip_stack": 0})) == 0
    assert places.chip_stack(GameTable(rules="xiamen", rule_settings={})) == 100
    assert places.chip_stack(GameTable(rules="mcr", rule_settings={})) is None
