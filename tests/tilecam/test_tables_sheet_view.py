"""``GET /v1/tables/{id}/sheet``: the whole sheet in one answer, as the four reads give it
(the score-sheet page's one request every few seconds, so that phones reading the sheet
do not eat the rate limit of the key the table's camera posts frames with). Every test
runs on SQLite and on PostgreSQL."""

from __future__ import annotations

from test_tables_helpers import admin, bearer, new_event, new_table

PLAIN_HAND = "123m456m789m123p55p"


def test_the_whole_sheet_is_the_four_reads_in_one(sheet) -> None:
    client, _ = sheet
    t, k = new_table(client)
    client.post(f"/v1/tables/{t}/hands", headers=bearer(k),
                json={"hand": PLAIN_HAND, "winner": "N", "discarder": "E"})
    client.post(f"/v1/tables/{t}/penalties", headers=admin(),
                json={"player": "Bo0", "kind": "bar", "hand": 2})
    whole = client.get(f"/v1/tables/{t}/sheet", headers=bearer(k))
    assert whole.status_code == 200, whole.text
    body = whole.json()
    base = f"/v1/tables/{t}"
    assert body["table"] == client.get(base, headers=bearer(k)).json()
    assert body["standings"] == client.get(f"{base}/standings", headers=bearer(k)).json()
    hands = client.get(f"{base}/hands", headers=bearer(k)).json()["hands"]
    assert body["hands"] == [{k: v for k, v in h.items() if k not in ("score", "recognized")}
                             for h in hands]  # read a hand for its score
    assert body["penalties"] == client.get(f"{base}/penalties",
                                           headers=bearer(k)).json()["penalties"]
    assert body["table"]["next_hand"]["barred"] == [{"seat": "E", "player": "Bo0"}]


def test_the_whole_sheet_takes_the_tables_own_key(sheet) -> None:
    """Another table's key: 403; none: 401; a table that is not there: 404 (admin)."""
    client, _ = sheet
    _, [(t, _k), (_t2, k2)] = new_event(client)
    assert client.get(f"/v1/tables/{t}/sheet", headers=bearer(k2)).status_code == 403
    assert client.get(f"/v1/tables/{t}/sheet").status_code == 401
    assert client.get("/v1/tables/99999/sheet", headers=admin()).status_code == 404


def test_an_unchanged_sheet_answers_304(sheet) -> None:
    """The answer's ETag sent back gets 304 while nothing changed, 200 after a change."""
    client, _ = sheet
    t, k = new_table(client)
    first = client.get(f"/v1/tables/{t}/sheet", headers=bearer(k))
    etag = first.headers["ETag"]
    again = client.get(f"/v1/tables/{t}/sheet", headers={**bearer(k), "If-None-Match": etag})
    assert again.status_code == 304 and again.content == b""
    client.post(f"/v1/tables/{t}/penalties", headers=admin(),
                json={"player": "Ann0", "kind": "warning"})
    changed = client.get(f"/v1/tables/{t}/sheet", headers={**bearer(k), "If-None-Match": etag})
    assert changed.status_code == 200 and changed.headers["ETag"] != etag
    assert changed.json()["penalties"][0]["kind"] == "warning"
