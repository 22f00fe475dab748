"""Named referee keys (``TILECAM_REFEREE_KEYS``; review "autotable" of the seventy-fourth
session, finding 8: one admin secret for every referee, every ruling written by an
anonymous ``referee``), each test naming the rule it checks:

- R1: a named referee key opens what the admin key opens, and what its holder records
  — a correction, a void, a hand, a penalty and its void — is written by
  ``referee NAME``, in the hand's history and in the penalty;
- R2: an unknown key (near a referee's, or a referee's name) is 401; a table key on a
  referee route is still 403;
- R3: the admin key is unchanged: it opens the same routes and writes ``referee``;
- R4: referee keys alone (no admin key) open the referee routes;
- R5: each referee key has a rate-limit bucket of its own, with the admin key's settings;
- R6: a bad ``TILECAM_REFEREE_KEYS`` refuses to start with a message naming what is
  wrong, and never shows a key.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from test_tables_helpers import (
    ADMIN,
    admin,
    bearer,
    client_for,
    database_url,
    make_app,
    new_table,
)

from tilecam.settings import Settings, SettingsError, get_settings

LI = "li-referee-secret-0123456789"
WANG = "wang:referee-secret-9876543210"  # a key may hold a ':'
REFEREES = f"Li:{LI}, Wang:{WANG}"
WIN = "123m456m789m234p55s"  # MCR: 21 points on a discard


@pytest.fixture(params=["sqlite", "postgres"])
def client(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[TestClient]:
    app, _ = make_app(database_url(str(request.param), tmp_path), tmp_path / "data",
                      referee_keys=REFEREES)
    yield from client_for(app)


def post(client: TestClient, path: str, key: str, **body: Any) -> Any:
    return client.post(path, headers=bearer(key), json=body)


# --- R1. a named key rules, and its name is the author --------------------------------------


def test_a_named_referee_key_corrects_a_hand_and_is_its_revisions_author(
        client: TestClient) -> None:
    """R1: Li's correction and Wang's void of a hand are in its history as ``referee Li``
    and ``referee Wang``, after the table's own ``table:ID``."""
    t, k = new_table(client)
    r = post(client, f"/v1/tables/{t}/hands", k, hand=WIN, winner="E", discarder="S")
    assert r.status_code == 201, r.text
    r = post(client, f"/v1/tables/{t}/hands/1/corrections", LI, winner="W",
             reason="W won, not E")
    assert r.status_code == 201, r.text
    assert r.json()["author"] == "referee Li" and r.json()["winner"]["seat"] == "W"
    r = post(client, f"/v1/tables/{t}/hands/1/void", WANG, reason="misdeal")
    assert r.status_code == 201, r.text
    history = client.get(f"/v1/tables/{t}/hands/1", headers=bearer(k)).json()["history"]
    assert [(h["action"], h["author"]) for h in history] == [
        ("record", f"table:{t}"), ("correct", "referee Li"), ("void", "referee Wang")]


def test_a_hand_recorded_with_a_named_referee_key_names_the_referee(
        client: TestClient) -> None:
    """R1: a hand a referee records is the referee's (``source``), written by
    ``referee NAME`` (``author``)."""
    t, _ = new_table(client)
    r = post(client, f"/v1/tables/{t}/hands", LI, outcome="draw")
    assert r.status_code == 201, r.text
    assert (r.json()["source"], r.json()["author"]) == ("referee", "referee Li")


def test_a_penalty_and_its_void_name_the_referees_who_ruled(client: TestClient) -> None:
    """R1: a penalty booked with Li's key is ``referee Li``'s in the penalty list; Wang
    can void it (the void's reason is kept)."""
    t, k = new_table(client)
    r = post(client, f"/v1/tables/{t}/penalties", LI, player=1, kind="deduction",
             points=10, reason="slow play")
    assert r.status_code == 201, r.text
    assert r.json()["author"] == "referee Li"
    pen = r.json()["id"]
    r = post(client, f"/v1/tables/{t}/penalties/{pen}/void", WANG, reason="appeal upheld")
    assert r.status_code == 200, r.text
    listed = client.get(f"/v1/tables/{t}/penalties", headers=bearer(k)).json()["penalties"]
    assert [(p["author"], p["void"]) for p in listed] == [("referee Li", True)]


def test_a_named_referee_key_opens_what_the_admin_key_opens(client: TestClient) -> None:
    """R1: events, tables, sheets and standings, as the admin key."""
    r = client.post("/v1/events", json={"name": "Open", "rules": "mcr"}, headers=bearer(LI))
    assert r.status_code == 201, r.text
    event = r.json()["id"]
    r = client.post(f"/v1/events/{event}/tables", headers=bearer(WANG),
                    json={"name": "T1", "players": ["Ann", "Bo", "Cai", "Dan"]})
    assert r.status_code == 201, r.text
    t = r.json()["id"]
    for path in (f"/v1/tables/{t}", f"/v1/tables/{t}/sheet", f"/v1/events/{event}/standings"):
        assert client.get(path, headers=bearer(LI)).status_code == 200, path
    assert client.get("/v1/tables/999999", headers=bearer(LI)).status_code == 404


# --- R2. unknown keys -----------------------------------------------------------------------


@pytest.mark.parametrize("key", [LI + "x", LI[:-1], "Li", "Li:" + LI, "referee Li"])
def test_an_unknown_key_is_401_beside_referee_keys(client: TestClient, key: str) -> None:
    """R2: a key near a referee's, a referee's name, or the setting's entry itself opens
    nothing: 401 on a referee route and on a table's route."""
    t, k = new_table(client)
    post(client, f"/v1/tables/{t}/hands", k, outcome="draw")
    r = post(client, f"/v1/tables/{t}/hands/1/void", key, reason="x")
    assert r.status_code == 401 and r.json()["error"]["code"] == "unauthorized", r.text
    assert client.get(f"/v1/tables/{t}", headers=bearer(key)).status_code == 401
    r = post(client, f"/v1/tables/{t}/hands/1/void", k, reason="x")
    assert r.status_code == 403  # a table key on a referee route, as before


# --- R3. the admin key ----------------------------------------------------------------------


def test_the_admin_key_is_unchanged_beside_referee_keys(client: TestClient) -> None:
    """R3: the admin key still opens the referee routes and still writes ``referee``."""
    t, k = new_table(client)
    post(client, f"/v1/tables/{t}/hands", k, hand=WIN, winner="E", discarder="S")
    r = client.post(f"/v1/tables/{t}/hands/1/corrections", headers=admin(),
                    json={"winner": "W", "reason": "W won"})
    assert r.status_code == 201 and r.json()["author"] == "referee", r.text
    r = client.post(f"/v1/tables/{t}/penalties", headers=admin(),
                    json={"player": 2, "kind": "warning", "reason": "noise"})
    assert r.status_code == 201 and r.json()["author"] == "referee", r.text
    r = client.post(f"/v1/tables/{t}/hands", headers=admin(), json={"outcome": "draw"})
    assert (r.json()["source"], r.json()["author"]) == ("referee", "referee")


# --- R4. referee keys without an admin key --------------------------------------------------


def test_referee_keys_alone_open_the_referee_routes(tmp_path: Path) -> None:
    """R4: with no admin key, a referee key opens the referee routes (not
    ``admin_disabled``); an empty key still opens nothing."""
    app, _ = make_app(database_url("sqlite", tmp_path), tmp_path / "data", admin_key="",
                      referee_keys=f"Li:{LI}")
    for client in client_for(app):
        r = client.post("/v1/events", json={"name": "Open", "rules": "mcr"},
                        headers=bearer(LI))
        assert r.status_code == 201, r.text
        r = client.post(f"/v1/events/{r.json()['id']}/tables", headers=bearer(LI),
                        json={"name": "T1", "players": ["Ann", "Bo", "Cai", "Dan"]})
        t = r.json()["id"]
        r = post(client, f"/v1/tables/{t}/penalties", LI, player=3, kind="warning",
                 reason="noise")
        assert r.status_code == 201 and r.json()["author"] == "referee Li", r.text
        assert post(client, f"/v1/tables/{t}/penalties", ADMIN, player=3,
                    kind="warning").status_code == 401
        r = client.post(f"/v1/tables/{t}/penalties", headers={"Authorization": "Bearer "},
                        json={"player": 3, "kind": "warning"})
        assert r.status_code == 401


# --- R5. rate limits ------------------------------------------------------------------------


def test_each_referee_key_has_its_own_bucket_with_the_admin_keys_settings(
        tmp_path: Path) -> None:
    """R5: Li spending her burst (the admin key's, not a table key's) leaves Wang's and
    the admin key's buckets full."""
    app, _ = make_app(database_url("sqlite", tmp_path), tmp_path / "data",
                      referee_keys=REFEREES, rate_limit_per_s=0.01, rate_limit_burst=2,
                      admin_rate_limit_per_s=0.01, admin_rate_limit_burst=5)
    for client in client_for(app):
        t, _ = new_table(client)  # 2 admin-key requests
        li = [client.get(f"/v1/tables/{t}", headers=bearer(LI)).status_code
              for _ in range(6)]
        assert li == [200] * 5 + [429]
        wang = [client.get(f"/v1/tables/{t}", headers=bearer(WANG)).status_code
                for _ in range(6)]
        assert wang == [200] * 5 + [429]
        assert client.get(f"/v1/tables/{t}", headers=admin()).status_code == 200


# --- R6. a bad setting refuses to start -----------------------------------------------------


@pytest.mark.parametrize(("value", "says"), [
    (f"Li:{LI},Li:{WANG}", "referee name 'Li' (entry 2) is given twice"),
    (f"Li:{LI},li:{WANG}", "referee name 'li' (entry 2) is given twice"),
    (f":{LI}", "entry 1 has no referee name"),
    ("Li:", "referee 'Li' (entry 1) has no key"),
    (f"Li:{LI},{WANG.replace(':', '')}", "entry 2 has no ':'"),
    (f"Li:{LI},Wang:{LI}", "referees 'Li' and 'Wang' have the same key"),
    (f"Li:{ADMIN}", "the key of referee 'Li' (entry 1) is the admin key"),
    (f"{'L' * 57}:{LI}", "referee name in entry 1 is 57 characters: at most 56"),
    (f"Li\tWang:{LI}", "referee name in entry 1 holds a control character"),
])
def test_a_bad_referee_keys_setting_is_refused_naming_what_is_wrong(
        monkeypatch: pytest.MonkeyPatch, value: str, says: str) -> None:
    """R6: the process settings refuse ``TILECAM_REFEREE_KEYS`` with one line naming the
    setting and the fault, the keys not shown; a good one reads as ``(name, key)``."""
    monkeypatch.setenv("TILECAM_ADMIN_KEY", ADMIN)
    monkeypatch.setenv("TILECAM_REFEREE_KEYS", value)
    get_settings.cache_clear()
    try:
        with pytest.raises(SettingsError) as err:
            get_settings()
    finally:
        get_settings.cache_clear()
    text = str(err.value)
    assert text.startswith("bad setting: TILECAM_REFEREE_KEYS=(not shown): ") and says in text
    for secret in (LI, WANG, WANG.replace(":", ""), ADMIN):
        assert secret not in text


def test_good_referee_keys_read_as_names_and_keys_and_are_never_shown() -> None:
    """R6: spaces around entries are trimmed, an empty entry skipped, a key may hold a
    ``:``; neither the referee keys nor the admin key is in the settings' repr."""
    settings = Settings(admin_key=ADMIN, referee_keys=f" Li:{LI} ,, Wang:{WANG},")
    assert settings.referees == (("Li", LI), ("Wang", WANG))
    assert Settings().referees == ()
    shown = repr(settings)
    assert LI not in shown and WANG not in shown and ADMIN not in shown


def test_tilecam_serve_refuses_to_start_with_bad_referee_keys(tmp_path: Path) -> None:
    """R6: ``tilecam serve`` stops before listening, exit 2, its one-line error naming
    ``TILECAM_REFEREE_KEYS`` and the fault, no key on its output."""
    env = {**os.environ, "TILECAM_ADMIN_KEY": ADMIN, "TILECAM_LOAD_MODEL": "0",
           "TILECAM_DATA_DIR": str(tmp_path), "TILECAM_REFEREE_KEYS": f"Li:{LI},Wang:{LI}"}
    done = subprocess.run([sys.executable, "-m", "tilecam.cli", "serve", "--port", "0"],
                          env=env, capture_output=True, text=True, timeout=120)
    out = done.stdout + done.stderr
    assert done.returncode == 2, out
    assert "TILECAM_REFEREE_KEYS=(not shown)" in out
    assert "referees 'Li' and 'Wang' have the same key" in out
    assert LI not in out and ADMIN not in out
