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
    # read a hand for its score: the sheet keeps only its fans, less their sets
    assert body["hands"] == [
        {**{k: v for k, v in h.items() if k not in ("score", "recognized")},
         "fans": [{k: v for k, v in f.items() if k != "sets"} for f in h["score"]["fans"]]}
        for h in hands]
    assert body["hands"][0]["fans"] and all(
        set(f) == {"zh", "en", "value", "count"} for f in body["hands"][0]["fans"])
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


def _event_with_view_keys(client) -> list[tuple[int, str, str]]:
    """Two tables of a new event: ``(table id, key, viewing key)``."""
    r = client.post("/v1/events", json={"name": "Viewers", "rules": "mcr"}, headers=admin())
    event = r.json()["id"]
    out = []
    for i in range(2):
        t = client.post(f"/v1/events/{event}/tables", headers=admin(), json={
            "name": f"V{i}", "players": [f"P{i}{j}" for j in range(4)]}).json()
        assert t["view_key"].startswith("tv_") and t["api_key"].startswith("tc_")
        out.append((t["id"], t["api_key"], t["view_key"]))
    return out


def test_a_viewing_key_reads_the_sheet_and_records_nothing(sheet) -> None:
    """The players' phones hold the viewing key, not the key the camera records with:
    every read of the sheet answers it; a hand, a frame or a referee's action is 403."""
    client, _ = sheet
    (t, k, v), (t2, _k2, v2) = _event_with_view_keys(client)
    client.post(f"/v1/tables/{t}/hands", headers=bearer(k),
                json={"hand": PLAIN_HAND, "winner": "N", "discarder": "E"})
    for path in ("", "/sheet", "/standings", "/hands", "/hands/1", "/penalties", "/sheet.csv"):
        r = client.get(f"/v1/tables/{t}{path}", headers=bearer(v))
        assert r.status_code == 200, (path, r.text)
    post = client.post(f"/v1/tables/{t}/hands", headers=bearer(v), json={"outcome": "draw"})
    assert post.status_code == 403 and "viewing key only reads" in post.text
    pen = client.post(f"/v1/tables/{t}/penalties", headers=bearer(v),
                      json={"player": "P00", "kind": "warning"})
    assert pen.status_code == 403 and "viewing key only reads" in pen.text
    assert client.get(f"/v1/tables/{t}/sheet", headers=bearer(v2)).status_code == 403
    assert client.get(f"/v1/tables/{t2}/sheet", headers=bearer(v2)).status_code == 200
    assert client.get(f"/v1/tables/{t}/sheet", headers=bearer("tv_nonsense")).status_code == 401


def test_the_referee_mints_a_new_viewing_key_and_the_old_one_stops(sheet) -> None:
    client, _ = sheet
    (t, k, v), _ = _event_with_view_keys(client)
    assert client.post(f"/v1/tables/{t}/view-key", headers=bearer(k)).status_code == 403
    r = client.post(f"/v1/tables/{t}/view-key", headers=admin())
    assert r.status_code == 201, r.text
    fresh = r.json()["view_key"]
    assert fresh != v and fresh.startswith("tv_")
    assert client.get(f"/v1/tables/{t}/sheet", headers=bearer(v)).status_code == 401
    assert client.get(f"/v1/tables/{t}/sheet", headers=bearer(fresh)).status_code == 200
    assert client.post("/v1/tables/99999/view-key", headers=admin()).status_code == 404


def test_the_referee_mints_a_new_table_key_and_the_old_one_stops(sheet) -> None:
    """A table's key is shown once, at its creation: one that leaked, or whose creation
    answer was lost, could not be replaced (concurrency review of the sixty-eighth
    session). The referee mints a new one; the old one stops at once."""
    client, _ = sheet
    (t, k, v), _ = _event_with_view_keys(client)
    assert client.post(f"/v1/tables/{t}/key", headers=bearer(k)).status_code == 403
    assert client.post(f"/v1/tables/{t}/key", headers=bearer(v)).status_code == 403
    r = client.post(f"/v1/tables/{t}/key", headers=admin())
    assert r.status_code == 201, r.text
    fresh = r.json()["api_key"]
    assert fresh != k and fresh.startswith("tc_")
    draw = {"outcome": "draw"}
    assert client.post(f"/v1/tables/{t}/hands", headers=bearer(k), json=draw).status_code == 401
    assert client.post(f"/v1/tables/{t}/hands", headers=bearer(fresh), json=draw).status_code == 201
    assert client.get(f"/v1/tables/{t}/sheet", headers=bearer(v)).status_code == 200
    assert client.post("/v1/tables/99999/key", headers=admin()).status_code == 404


def test_the_whole_sheet_comes_gzipped_to_a_client_that_takes_it(sheet) -> None:
    """Phones read the sheet every few seconds: it comes compressed where the client
    says it takes gzip, and plain where it does not (the client decodes it)."""
    client, _ = sheet
    t, k = new_table(client)
    plain = client.get(f"/v1/tables/{t}/sheet",
                       headers={**bearer(k), "Accept-Encoding": "identity"})
    assert "Content-Encoding" not in plain.headers
    packed = client.get(f"/v1/tables/{t}/sheet",
                        headers={**bearer(k), "Accept-Encoding": "gzip"})
    assert packed.headers["Content-Encoding"] == "gzip" and packed.json() == plain.json()


def test_an_admin_key_that_looks_like_a_viewing_key_still_reads(tmp_path) -> None:
    """The admin key is the operator's choice: one that starts with ``tv_`` reads the
    tables as any admin key does (it was taken for an unknown viewing key: 401)."""
    from test_tables_helpers import client_for, database_url, make_app

    odd = "tv_operators-own-admin-key-0123456789"
    app, _ = make_app(database_url("sqlite", tmp_path), tmp_path / "data", admin_key=odd)
    for client in client_for(app):
        r = client.post("/v1/events", json={"name": "E", "rules": "mcr"}, headers=admin(odd))
        t = client.post(f"/v1/events/{r.json()['id']}/tables", headers=admin(odd), json={
            "name": "T", "players": ["A", "B", "C", "D"]}).json()["id"]
        assert client.get(f"/v1/tables/{t}/sheet", headers=admin(odd)).status_code == 200


def test_player_names_are_compared_as_they_read(sheet) -> None:
    """Names that read alike are one name (Unicode NFC: "Zoé" typed as é or as e and an
    accent), and a zero-width space is no name — both were accepted as distinct players
    (concurrency review of the sixty-eighth session); a penalty finds the player typed
    either way."""
    client, _ = sheet
    r = client.post("/v1/events", json={"name": "Names", "rules": "mcr"}, headers=admin())
    event = r.json()["id"]
    url = f"/v1/events/{event}/tables"
    twins = ["Zo\u00e9", "Zoe\u0301", "Bo", "Cai"]
    r = client.post(url, json={"name": "T1", "players": twins}, headers=admin())
    assert r.status_code == 400 and "must differ" in r.text, r.text
    blank = ["Ann", "\u200b", "Bo", "Cai"]
    r = client.post(url, json={"name": "T1", "players": blank}, headers=admin())
    assert r.status_code == 400 and "player name 2 of 4 is empty" in r.text, r.text
    r = client.post(url, json={"name": "T1", "players": ["Zo\u00e9", "Ann", "Bo", "Cai"]},
                    headers=admin())
    assert r.status_code == 201, r.text
    t = r.json()["id"]
    p = client.post(f"/v1/tables/{t}/penalties", headers=admin(),
                    json={"player": "Zoe\u0301", "kind": "warning"})
    assert p.status_code == 201 and p.json()["player"] == "Zo\u00e9", p.text


def test_a_name_kept_before_names_were_tidied_is_found_typed_either_way(sheet) -> None:
    """Sheets written before names were kept NFC hold them as typed ("Zoe" and an
    accent): a penalty finds that player whichever way the name is typed."""
    from sqlalchemy import update

    from tilecam.db.models import Player

    client, _ = sheet
    r = client.post("/v1/events", json={"name": "Old", "rules": "mcr"}, headers=admin())
    r = client.post(f"/v1/events/{r.json()['id']}/tables", headers=admin(),
                    json={"name": "T1", "players": ["Zoe", "Ann", "Bo", "Cai"]})
    t = r.json()["id"]
    sf = client.app.state.table_db  # type: ignore[attr-defined]
    with sf() as session, session.begin():
        session.execute(update(Player).where(Player.table_id == t, Player.position == 0)
                        .values(name="Zoe\u0301"))
    for typed in ("Zoe\u0301", "Zo\u00e9"):
        p = client.post(f"/v1/tables/{t}/penalties", headers=admin(),
                        json={"player": typed, "kind": "warning"})
        assert p.status_code == 201, p.text


def test_joiners_that_shape_a_name_are_kept_and_a_kept_name_is_found_as_it_is(
        sheet) -> None:
    """Names keep the characters that make them (an emoji's ZWJ and tag characters — two
    flags are two names —, a Persian ZWNJ); only those that show and mean nothing go. On
    a sheet from before, holding "Ann" and "Ann" + a zero-width space, a penalty for
    "Ann" finds "Ann" — an exact name first."""
    from sqlalchemy import update

    from tilecam.db.models import Player

    client, _ = sheet
    r = client.post("/v1/events", json={"name": "Joiners", "rules": "mcr"}, headers=admin())
    url = f"/v1/events/{r.json()['id']}/tables"
    england = "Sam \U0001f3f4\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f"
    scotland = "Sam \U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f"
    persian = "\u0646\u06cc\u06a9\u200c\u067e\u0648\u0631"
    players = [england, scotland, persian, "Ann"]
    r = client.post(url, json={"name": "T1", "players": players}, headers=admin())
    assert r.status_code == 201, r.text
    t = r.json()["id"]
    got = client.get(f"/v1/tables/{t}", headers=admin()).json()
    assert [p["name"] for p in got["players"]] == players
    sf = client.app.state.table_db  # type: ignore[attr-defined]
    with sf() as session, session.begin():
        session.execute(update(Player).where(Player.table_id == t, Player.position == 0)
                        .values(name="Ann\u200b"))
    p = client.post(f"/v1/tables/{t}/penalties", headers=admin(),
                    json={"player": "Ann", "kind": "warning"})
    assert p.status_code == 201 and p.json()["player"] == "Ann", p.text


def test_a_penalty_sent_again_under_its_request_id_is_booked_once(sheet) -> None:
    """Never doubled: a referee's phone that did not hear the answer sends the penalty
    again. Without a name for the request it was booked twice — a repeat offence a step
    higher (0, then 5) — (concurrency review F4); with ``request_id`` the second finds
    the first (200, ``created`` false), and the same name for another penalty is a 409."""
    client, _ = sheet
    _, [(t, k), _] = new_event(client)
    draw = client.post(f"/v1/tables/{t}/hands", headers=bearer(k), json={"outcome": "draw"})
    assert draw.status_code == 201, draw.text
    body = {"player": 1, "kind": "empty_claim", "hand": 2, "request_id": "ref-7-0001"}
    first = client.post(f"/v1/tables/{t}/penalties", headers=admin(), json=body)
    assert first.status_code == 201 and first.json()["created"] is True, first.text
    again = client.post(f"/v1/tables/{t}/penalties", headers=admin(), json=body)
    assert again.status_code == 200, again.text
    assert again.json()["id"] == first.json()["id"] and again.json()["created"] is False
    assert again.json()["points"] == 0 and again.json()["request_id"] == "ref-7-0001"
    other = client.post(f"/v1/tables/{t}/penalties", headers=admin(),
                        json={**body, "player": 2})
    assert other.status_code == 409 and "ref-7-0001" in other.text, other.text
    pens = client.get(f"/v1/tables/{t}/penalties", headers=admin()).json()["penalties"]
    assert len(pens) == 1
    plain = {"player": 1, "kind": "empty_claim", "hand": 2}
    step = client.post(f"/v1/tables/{t}/penalties", headers=admin(), json=plain)
    assert step.status_code == 201 and step.json()["points"] == 5, step.text
    pay = {"player": 0, "kind": "payment", "to": 2, "points": 8, "hand": 1,
           "request_id": "ref-7-0002"}
    assert client.post(f"/v1/tables/{t}/penalties", headers=admin(),
                       json=pay).status_code == 201
    for changed in ({"points": 30}, {"to": 3}, {"reason": "another"}):
        r = client.post(f"/v1/tables/{t}/penalties", headers=admin(), json={**pay, **changed})
        assert r.status_code == 409, (changed, r.text)
