"""A long sheet whose early hands a referee corrected: every later hand the correction
moved has a ``reseat`` revision more, so a sheet's revisions grow with each correction,
not with its hands. Its reads (the table and its next hand, the standings, the whole
sheet, the hand list, the CSV, the event's standings) and a posted hand load each hand's
current revision only; a hand's history is loaded where it is shown (soak review,
session 73: every request loaded and decoded every revision, 0.3-0.7 s at 400 hands and
2,500 revisions). Every test runs on SQLite and on PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import event
from test_tables_helpers import admin, bearer, new_event

from tilecam.db.models import HandRevision

WIN = "123m456m789m123p456p55s"  # five sets and a pair, no gold held (gold 9s)
HANDS = 10


@contextmanager
def revisions_loaded() -> Iterator[list[int]]:
    """The ids of the hand revisions read from the database while the block runs (an
    object the session already holds is not read again)."""
    seen: list[int] = []

    def loaded(target: HandRevision, _context: Any) -> None:
        seen.append(target.id)

    event.listen(HandRevision, "load", loaded)
    try:
        yield seen
    finally:
        event.remove(HandRevision, "load", loaded)


def win(winner: str, **extra: Any) -> dict[str, Any]:
    return {"hand": WIN, "winner": winner, "self_drawn": True, "context": {"gold": "9s"},
            **extra}


def corrected_sheet(client: TestClient) -> tuple[int, int, str]:
    """A Xiamen sheet of :data:`HANDS` hands whose hand 1 was corrected three times (a
    drawn hand keeps the deal with its dealer: each correction moves every later hand)."""
    event_id, [(t, k)] = new_event(client, rules="xiamen", tables=1)
    for n in range(HANDS):
        r = client.post(f"/v1/tables/{t}/hands", headers=bearer(k), json=win("ESWN"[n % 4]))
        assert r.status_code == 201, r.text
    for body in ({"outcome": "draw"}, win("S"), {"outcome": "draw"}):
        r = client.post(f"/v1/tables/{t}/hands/1/corrections", headers=admin(),
                        json={**body, "reason": "the referee's correction"})
        assert r.status_code == 201, r.text
    return event_id, t, k


def test_a_corrected_sheet_is_read_from_each_hand_s_current_revision(
        sheet: tuple[TestClient, Any]) -> None:
    client, _ = sheet
    event_id, t, k = corrected_sheet(client)
    hands = client.get(f"/v1/tables/{t}/hands", headers=bearer(k)).json()["hands"]
    revisions = sum(h["revision"] for h in hands)
    assert revisions > 3 * HANDS  # the corrections gave the later hands revisions
    for url in (f"/v1/tables/{t}", f"/v1/tables/{t}/standings", f"/v1/tables/{t}/sheet",
                f"/v1/tables/{t}/hands", f"/v1/tables/{t}/sheet.csv",
                f"/v1/events/{event_id}/standings"):
        with revisions_loaded() as seen:
            assert client.get(url, headers=admin()).status_code == 200
        assert len(seen) == HANDS, (url, len(seen), revisions)
    # a hand's view with its history: the sheet's current revisions, and its own history
    with revisions_loaded() as seen:
        five = client.get(f"/v1/tables/{t}/hands/5", headers=bearer(k)).json()
    assert len(five["history"]) == five["revision"] > 1
    assert len(seen) == HANDS + five["revision"] - 1
    # a hand posted: the sheet read to place it, then the answer read back
    with revisions_loaded() as seen:
        r = client.post(f"/v1/tables/{t}/hands", headers=bearer(k), json={"outcome": "draw"})
    assert r.status_code == 201, r.text
    assert len(seen) <= 2 * HANDS + 1


def test_a_hand_sent_again_after_a_correction_moved_it_is_still_the_same_hand(
        sheet: tuple[TestClient, Any]) -> None:
    """A repeat post is compared with the hand's record (its first revision), not with
    the ``reseat`` revision a correction of an earlier hand gave it; the answers of a
    correction and of a hand's GET list every revision."""
    client, _ = sheet
    _, [(t, k)] = new_event(client, rules="xiamen", tables=1)
    for n, winner in ((1, "E"), (2, "S")):
        r = client.post(f"/v1/tables/{t}/hands", headers=bearer(k), json=win(winner, number=n))
        assert r.status_code == 201, r.text
    for body in ({"outcome": "draw"}, win("W")):
        fixed = client.post(f"/v1/tables/{t}/hands/1/corrections", headers=admin(),
                            json={**body, "reason": "the referee's correction"})
        assert fixed.status_code == 201, fixed.text
    assert [h["action"] for h in fixed.json()["history"]] == ["record", "correct", "correct"]
    two = client.get(f"/v1/tables/{t}/hands/2", headers=bearer(k)).json()
    assert [h["action"] for h in two["history"]] == ["record", "reseat", "reseat"]
    again = client.post(f"/v1/tables/{t}/hands", headers=bearer(k), json=win("S", number=2))
    assert again.status_code == 200, again.text
    assert again.json()["created"] is False
    assert (again.json()["revision"], again.json()["action"]) == (3, "reseat")
    other = client.post(f"/v1/tables/{t}/hands", headers=bearer(k), json=win("N", number=2))
    assert other.status_code == 409, other.text
