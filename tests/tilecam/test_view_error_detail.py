"""``view_error`` (a write recorded, reading it back failed) says the database driver's
reason — which names the database server's host, port and user — only to the admin key,
as a 503 ``database_unavailable`` does; a table key and a named referee key
(``TILECAM_REFEREE_KEYS``; review "keyscope" of session 76, finding 2) read that the
reason is in the server's log, where it is."""

from __future__ import annotations

import logging
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
    frame,
    make_app,
    new_event,
)

import scoring
from tilecam.api.errors import REASON_LOGGED

needs_mcr = pytest.mark.skipif("mcr" not in scoring.rule_sets(),
                               reason="the MCR rule set is not built yet")

#: What a PostgreSQL driver says when the server goes away: its host, port and user.
DRIVER_TEXT = ('connection to server at "10.0.0.5", port 5432 failed: FATAL:  password '
               'authentication failed for user "tilecam_prod"')
PLAIN_HAND = "123m456m789m123p55p"
#: A named referee's key: it opens what the admin key opens, but is not the operator's.
LI = "li-referee-secret-0123456789"


@pytest.fixture
def client(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[TestClient]:
    """A service whose every read-back of a hand or penalty after its write fails with
    :data:`DRIVER_TEXT` (the write itself commits)."""
    from sqlalchemy.exc import OperationalError

    from tilecam.api.routes import tables as routes
    from tilecam.tables import views

    def lost(*_: Any, **__: Any) -> None:
        raise OperationalError("SELECT …", {}, Exception(DRIVER_TEXT))

    app, cam = make_app(database_url("sqlite", tmp_path), tmp_path / "data",
                        referee_keys=f"Li:{LI}")
    cam.show(120, PLAIN_HAND)
    monkeypatch.setattr(routes, "_hand_view", lost)
    monkeypatch.setattr(views, "penalty_view", lost)
    yield from client_for(app)


def _hidden(view_error: str, where: str) -> None:
    assert view_error == f"recorded; reading it back failed ({REASON_LOGGED}): GET {where} shows it"
    for part in ("10.0.0.5", "5432", "tilecam_prod", "password"):
        assert part not in view_error


def _driver_text_logged(caplog: pytest.LogCaptureFixture) -> None:
    assert any(DRIVER_TEXT in r.getMessage() for r in caplog.records
               if r.name == "tilecam.api"), [r.getMessage() for r in caplog.records]


@needs_mcr
def test_a_table_key_reads_the_general_reason_and_the_log_keeps_the_driver_s(
    client: TestClient, caplog: pytest.LogCaptureFixture
) -> None:
    _, [(t, k)] = new_event(client, tables=1)
    with caplog.at_level(logging.WARNING, logger="tilecam.api"):
        r = client.post(f"/v1/tables/{t}/hands", headers=bearer(k),
                        json={"hand": PLAIN_HAND, "winner": "E", "self_drawn": True})
    assert r.status_code == 201, r.text
    assert r.json()["recorded"] is True and r.json()["number"] == 1
    _hidden(r.json()["view_error"], f"/v1/tables/{t}/hands/1")
    _driver_text_logged(caplog)


@needs_mcr
def test_a_camera_frame_that_records_a_hand_hides_the_driver_s_reason_from_the_table_key(
    client: TestClient, caplog: pytest.LogCaptureFixture
) -> None:
    _, [(t, k)] = new_event(client, tables=1)
    with caplog.at_level(logging.WARNING, logger="tilecam.api"):
        answers = [client.post(f"/v1/tables/{t}/frames", headers=bearer(k),
                               files={"image": ("f.jpg", frame(120), "image/jpeg")},
                               data={"winner": "E", "self_drawn": "true"})
                   for _ in range(3)]
    assert [a.status_code for a in answers] == [200] * 3, answers[-1].text
    last = answers[-1].json()
    assert last["status"] == "recorded", last
    assert last["recorded"]["recorded"] is True
    _hidden(last["recorded"]["view_error"], f"/v1/tables/{t}/hands/1")
    _driver_text_logged(caplog)


@needs_mcr
def test_the_admin_key_reads_the_driver_s_reason(client: TestClient) -> None:
    _, [(t, _k)] = new_event(client, tables=1)
    r = client.post(f"/v1/tables/{t}/hands", headers=admin(),
                    json={"hand": PLAIN_HAND, "winner": "E", "self_drawn": True})
    assert r.status_code == 201, r.text
    assert r.json()["view_error"] == (f"recorded; reading it back failed ({DRIVER_TEXT}): "
                                      f"GET /v1/tables/{t}/hands/1 shows it")
    p = client.post(f"/v1/tables/{t}/penalties", headers=admin(),
                    json={"player": 1, "kind": "deduction", "points": 10, "hand": 1})
    assert p.status_code == 201 and p.json()["recorded"] is True, p.text
    assert DRIVER_TEXT in p.json()["view_error"]
    assert f"GET /v1/tables/{t}/penalties" in p.json()["view_error"]


@needs_mcr
def test_a_named_referee_key_reads_the_general_reason_on_every_write_it_may_make(
    client: TestClient, caplog: pytest.LogCaptureFixture
) -> None:
    """A referee key opens the admin's routes, yet is told only that the reason is in the
    server's log — on a hand, a camera frame, a correction, a void, a false claim, a
    penalty and a penalty's void — and the log keeps the driver's text."""
    _, [(t, _k), (t2, _k2)] = new_event(client, tables=2)
    ref = bearer(LI)
    hand = f"/v1/tables/{t}/hands/1"
    with caplog.at_level(logging.WARNING, logger="tilecam.api"):
        for number in (1, 2):
            r = client.post(f"/v1/tables/{t}/hands", headers=ref,
                            json={"hand": PLAIN_HAND, "winner": "E", "self_drawn": True})
            assert r.status_code == 201 and r.json()["recorded"] is True, r.text
            _hidden(r.json()["view_error"], f"/v1/tables/{t}/hands/{number}")
        for path, body in ((f"{hand}/corrections", {"winner": "S", "reason": "S won"}),
                           (f"{hand}/false-claim", {"reason": "no win", "kind": "wrong_win"}),
                           (f"/v1/tables/{t}/hands/2/void", {"reason": "misdeal"})):
            r = client.post(path, headers=ref, json=body)
            assert r.status_code == 201 and r.json()["recorded"] is True, (path, r.text)
            _hidden(r.json()["view_error"], path.rsplit("/", 1)[0])
        p = client.post(f"/v1/tables/{t}/penalties", headers=ref,
                        json={"player": 1, "kind": "deduction", "points": 10})
        assert p.status_code == 201 and p.json()["recorded"] is True, p.text
        _hidden(p.json()["view_error"], f"/v1/tables/{t}/penalties")
        v = client.post(f"/v1/tables/{t}/penalties/{p.json()['id']}/void", headers=ref,
                        json={"reason": "appeal upheld"})
        assert v.status_code == 200 and v.json()["recorded"] is True, v.text
        _hidden(v.json()["view_error"], f"/v1/tables/{t}/penalties")
        answers = [client.post(f"/v1/tables/{t2}/frames", headers=ref,
                               files={"image": ("f.jpg", frame(120), "image/jpeg")},
                               data={"winner": "E", "self_drawn": "true"})
                   for _ in range(3)]
        assert [a.status_code for a in answers] == [200] * 3, answers[-1].text
        assert answers[-1].json()["status"] == "recorded", answers[-1].text
        _hidden(answers[-1].json()["recorded"]["view_error"], f"/v1/tables/{t2}/hands/1")
    _driver_text_logged(caplog)


@needs_mcr
def test_the_admin_key_reads_the_driver_s_reason_where_a_referee_key_does_not(
    client: TestClient
) -> None:
    """The same write (a penalty's void) by the admin key and by a referee key: only the
    admin key's answer names the driver's reason."""
    _, [(t, _k)] = new_event(client, tables=1)
    ids = []
    for key in (ADMIN, LI):
        p = client.post(f"/v1/tables/{t}/penalties", headers=bearer(key),
                        json={"player": 1, "kind": "deduction", "points": 10})
        assert p.status_code == 201, p.text
        ids.append(p.json()["id"])
    by_admin = client.post(f"/v1/tables/{t}/penalties/{ids[0]}/void", headers=admin(),
                           json={"reason": "appeal upheld"})
    by_referee = client.post(f"/v1/tables/{t}/penalties/{ids[1]}/void", headers=bearer(LI),
                             json={"reason": "appeal upheld"})
    assert DRIVER_TEXT in by_admin.json()["view_error"], by_admin.text
    _hidden(by_referee.json()["view_error"], f"/v1/tables/{t}/penalties")
