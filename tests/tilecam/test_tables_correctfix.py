"""The score sheet after the seventy-fourth session's review "reviewtables" (fixer
"correctfix"), each test naming the rule it checks:

- 1: a void hand or a false claim's record keeps its state unless the correction gives
  ``outcome`` (409 otherwise); ``changed`` names ``outcome`` whenever the recorded
  outcome changes (void, false claim or pending to a win);
- 2: a revision's note leaves a part out only when it is the same as a part kept, never
  because a kept part contains its words (a referee's reason was lost);
- 3: a correction's ``kept`` lists only fields it left out and left unchanged;
- 4: the event's standings sum a player's tables of one rule set (MCR points and Xiamen
  chips are never one total), each line saying its rules;
- 5: a withdrawn table is ``withdrawn``, not ``complete``.

The sheet page's words for a closed or withdrawn table are checked in
``test_sheet_page_closed.py`` (a browser).
"""

from __future__ import annotations

import csv
import io
from typing import Any

from fastapi.testclient import TestClient
from test_tables_helpers import FakeCamera, admin, bearer, new_event, new_table

Sheet = tuple[TestClient, FakeCamera]
WIN = "123m456m789m234p55s"  # MCR: 21 points on a discard
LOW_WIN = "[234m,1]456p678s234s99m"  # a winning shape of 4 fan: held pending under MCR
XIAMEN_WIN = "123m456m789m123p456p55s"  # five sets and a pair, no gold held (gold 9s)


def post(client: TestClient, t: int, k: str, **body: Any) -> Any:
    r = client.post(f"/v1/tables/{t}/hands", headers=bearer(k), json=body)
    assert r.status_code == 201, r.text
    return r.json()


def correct(client: TestClient, t: int, n: int, **body: Any) -> Any:
    return client.post(f"/v1/tables/{t}/hands/{n}/corrections", headers=admin(), json=body)


def standings(client: TestClient, t: int) -> Any:
    return client.get(f"/v1/tables/{t}/standings", headers=admin()).json()


def totals(client: TestClient, t: int) -> dict[str, int]:
    return {p["player"]: p["total"] for p in standings(client, t)["players"]}


# --- 1. a void hand or a false claim keeps its state ------------------------------------------


def test_a_void_hand_stays_void_unless_the_correction_gives_outcome(sheet: Sheet) -> None:
    """Rule 1: a reason alone ("void confirmed") or a detail (``flowers``) on a void hand
    is refused (409, naming ``outcome``) and the hand stays void, scoring nothing (it
    scored again, answering ``changed: []``); ``"outcome": "win"`` reinstates it as
    recorded and ``changed`` names ``outcome``."""
    client, _ = sheet
    t, k = new_table(client)
    post(client, t, k, hand=WIN, winner="S", discarder="E")
    scored = totals(client, t)
    assert client.post(f"/v1/tables/{t}/hands/1/void", headers=admin(),
                       json={"reason": "misdeal"}).status_code == 201
    void = totals(client, t)
    assert set(void.values()) == {0}
    for body in ({"reason": "void confirmed after review"},
                 {"flowers": 1, "reason": "note a flower"},
                 {"winner": "W", "discarder": "E", "reason": "it was W"}):
        r = correct(client, t, 1, **body)
        assert r.status_code == 409, (body, r.text)
        message = r.json()["error"]["message"]
        assert "void" in message and '"outcome"' in message, message
        assert totals(client, t) == void and standings(client, t)["hands_void"] == [1]
    history = client.get(f"/v1/tables/{t}/hands/1", headers=admin()).json()["history"]
    assert [r["action"] for r in history] == ["record", "void"]
    back = correct(client, t, 1, outcome="win", reason="the misdeal was not")
    assert back.status_code == 201, back.text
    assert back.json()["outcome"] == "win" and back.json()["changed"] == ["outcome"]
    assert "outcome" not in back.json()["kept"] and totals(client, t) == scored
    # the hand's tiles given say what it becomes too (a correction before the
    # seventy-fourth session always gave them)
    assert client.post(f"/v1/tables/{t}/hands/1/void", headers=admin(),
                       json={"reason": "misdeal after all"}).status_code == 201
    tiles = correct(client, t, 1, hand=WIN, reason="the hand as won")
    assert tiles.status_code == 201, tiles.text
    assert tiles.json()["changed"] == ["outcome"] and totals(client, t) == scored


def test_a_false_claim_keeps_its_ruling_unless_the_correction_gives_outcome(
        sheet: Sheet) -> None:
    """Rule 1: a reason alone on a record ruled a false claim is refused (409) and the
    ruling and its 错和 penalty stand (the hand went back to pending, the penalty gone,
    answering ``changed: []``); ``"outcome": "win"`` undoes the ruling, and says so."""
    client, _ = sheet
    t, k = new_table(client)
    post(client, t, k, hand=LOW_WIN, winner="W", discarder="N")
    assert client.post(f"/v1/tables/{t}/hands/1/false-claim", headers=admin(),
                       json={"reason": "4 fan", "kind": "wrong_win"}).status_code == 201
    ruled = totals(client, t)
    assert sorted(ruled.values()) == [-30, 10, 10, 10]
    for body in ({"reason": "ruling confirmed"}, {"flowers": 1, "reason": "a flower"}):
        r = correct(client, t, 1, **body)
        assert r.status_code == 409, r.text
        message = r.json()["error"]["message"]
        assert "false claim" in message and '"outcome"' in message, message
        assert totals(client, t) == ruled and standings(client, t)["false_claims"] == [1]
    undone = correct(client, t, 1, outcome="win", reason="ruling undone")
    assert undone.status_code == 201, undone.text
    assert undone.json()["outcome"] == "pending"  # 4 fan: held for the referee again
    assert undone.json()["changed"] == ["outcome"]
    assert standings(client, t)["false_claims"] == []


def test_a_held_win_confirmed_names_the_outcome_and_one_left_pending_does_not(
        sheet: Sheet) -> None:
    """Rule 1: a pending hand keeps behaving as before — a reason alone scores it again
    as it stands (4 fan: still pending, nothing changed) — and a correction that
    settles it names ``outcome`` among ``changed`` (it named only the fields given)."""
    client, _ = sheet
    t, k = new_table(client)
    post(client, t, k, hand=LOW_WIN, winner="W", discarder="N")
    again = correct(client, t, 1, reason="looked again")
    assert again.status_code == 201, again.text
    assert again.json()["outcome"] == "pending" and again.json()["changed"] == []
    unknown = post(client, t, k, hand=WIN)  # the winner not known: held pending
    assert unknown["outcome"] == "pending"
    settled = correct(client, t, 2, winner="S", discarder="E", reason="S won it")
    assert settled.status_code == 201, settled.text
    assert settled.json()["outcome"] == "win"
    assert settled.json()["changed"] == ["outcome", "winner", "discarder"]


# --- 2. a note's parts compared whole ---------------------------------------------------------


def test_a_reason_inside_the_tables_note_is_kept_in_the_revisions_note(sheet: Sheet) -> None:
    """Rule 2: a referee's reason "2 flowers" beside a table's note "scored 2 flowers" is
    the revision's own part (it was dropped, so the history could not say why the
    revision exists); the same whole part is still written once."""
    client, _ = sheet
    t, k = new_table(client)
    post(client, t, k, hand=WIN, winner="S", discarder="E", flowers=2,
         note="scored 2 flowers")
    first = correct(client, t, 1, reason="2 flowers")
    assert first.json()["note"] == "scored 2 flowers; 2 flowers"
    second = correct(client, t, 1, reason="2 flowers")
    assert second.json()["note"] == "scored 2 flowers; 2 flowers"
    same = correct(client, t, 1, reason="scored 2 flowers")
    assert same.json()["note"] == "scored 2 flowers"
    held = post(client, t, k, hand=LOW_WIN, winner="W", discarder="N", note="referee")
    assert "referee" in held["note"].split("; "), held["note"]


# --- 3. kept: left out and unchanged ----------------------------------------------------------


def test_kept_lists_only_the_fields_left_out_and_unchanged(sheet: Sheet) -> None:
    """Rule 3: a discarder given ends a self-draw (``self_drawn`` changed, not kept), a
    draw drops the win's hand, winner and discarder (changed, not kept); no field is in
    both lists."""
    client, _ = sheet
    t, k = new_table(client)
    post(client, t, k, hand=WIN, winner="S", self_drawn=True)
    ended = correct(client, t, 1, discarder="E", reason="it was a discard").json()
    assert ended["changed"] == ["discarder", "self_drawn"]
    assert "self_drawn" not in ended["kept"] and "hand" in ended["kept"]
    drawn = correct(client, t, 1, outcome="draw", reason="nobody won").json()
    assert drawn["changed"] == ["outcome", "hand", "winner", "discarder"]
    assert not {"hand", "winner", "discarder"} & set(drawn["kept"])
    for answer in (ended, drawn):
        assert not set(answer["changed"]) & set(answer["kept"])


# --- 4. event standings by rule set -----------------------------------------------------------


def test_event_standings_never_add_mcr_points_to_xiamen_chips(sheet: Sheet) -> None:
    """Rule 4: a player at an MCR table and a Xiamen table of one event has a line per
    rule set (her MCR points and Xiamen chips were one total), each line and each table
    line saying its ``rules``, each rule set ranked apart, the event's rules first; the
    CSV's last column is ``rules``."""
    client, _ = sheet
    event, [(m, mk)] = new_event(client, tables=1)
    x = client.post(f"/v1/events/{event}/tables", headers=admin(), json={
        "name": "X1", "rules": "xiamen", "players": ["Ann0", "Bo0", "Cai0", "Dan0"]}).json()
    post(client, m, mk, hand=WIN, winner="E", discarder="S")  # Ann0 wins at MCR
    post(client, x["id"], x["api_key"], hand=XIAMEN_WIN, winner="S", discarder="E",
         context={"gold": "9s"})  # Ann0 pays at Xiamen
    mcr, xia = totals(client, m), totals(client, x["id"])
    ev = client.get(f"/v1/events/{event}/standings", headers=admin()).json()
    ann = [(p["rules"], p["total"], p["tables"]) for p in ev["players"] if p["player"] == "Ann0"]
    assert ann == [("mcr", mcr["Ann0"], 1), ("xiamen", xia["Ann0"], 1)]
    assert [p["rules"] for p in ev["players"]] == ["mcr"] * 4 + ["xiamen"] * 4
    for p in ev["players"]:
        assert {x_["rules"] for x_ in p["lines"]} == {p["rules"]}
        assert p["money"] == 0 or p["rules"] == "xiamen"
    assert next(p["rank"] for p in ev["players"] if p["rules"] == "xiamen") == 1
    rows = list(csv.reader(io.StringIO(
        client.get(f"/v1/events/{event}/standings.csv",
                   headers=admin()).content.decode("utf-8-sig"))))
    assert rows[0][-1] == "rules" and [r[-1] for r in rows[1:]] == ["mcr"] * 4 + ["xiamen"] * 4


# --- 5. withdrawn is not complete -------------------------------------------------------------


def test_a_withdrawn_table_is_withdrawn_not_complete(sheet: Sheet) -> None:
    """Rule 5: a withdrawn table (one hand of 16) is ``withdrawn`` and not ``complete``
    (it said complete, as a session played out); a closed table is complete and closed."""
    client, _ = sheet
    _, [(t, k), (u, uk)] = new_event(client)
    post(client, t, k, hand=WIN, winner="E", discarder="S")
    post(client, u, uk, hand=WIN, winner="E", discarder="S")
    client.patch(f"/v1/tables/{t}", headers=admin(), json={"withdrawn": True})
    client.post(f"/v1/tables/{u}/close", headers=admin(), json={"reason": "time called"})
    w, c = standings(client, t), standings(client, u)
    assert (w["withdrawn"], w["complete"], w["closed"], w["next_hand"]) == (
        True, False, False, None)
    assert (c["withdrawn"], c["complete"], c["closed"], c["next_hand"]) == (
        False, True, True, None)
