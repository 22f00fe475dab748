"""Session 77's small mends of the table API (left77).

1. A table of the seventy-second session's, its settings stored with a ``version`` that
   differs from its event's (MCR ``wmo-2006`` event, settings ``{"version":
   "98-strict"}``), scores a posted win under the table's version; a photo's or a camera's
   win there was refused 400 ``invalid_context`` (the settings checked whole).
2. ``GET /v1/tables/{id}`` says ``settings_refused`` when the scorer refuses the table's
   stored settings (Xiamen ``chip_stack`` 0), before the first frame.
3. (tests/tilecam/test_waits_workers.py) a process worker's 503 ``timeout`` has
   ``Retry-After``.
4. ``tilecam watch`` waits out a 503's ``Retry-After`` (at most 60 s), as a 429's.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, update
from test_tables_helpers import (
    FakeCamera,
    admin,
    bearer,
    client_for,
    database_url,
    frame,
    make_app,
)
from test_watch_camera import write_video

from tilecam.api.answer_schemas import TableWithNextOut
from tilecam.cli import main
from tilecam.commands import watch
from tilecam.db.models import GameTable

#: MCR: a concealed kong of 1m, a melded kong of 9p, two chows of bamboo and the pair of
#: 5m, won on a discard.
KONGS_WIN = "[1111m][9999p,1]123s456s5m5m"
#: Xiamen (seed 000 stakes): five sets and a pair, no gold held (gold 9s).
XIAMEN_WIN = "123m456m789m123p456p55s"

Api = tuple[TestClient, FakeCamera, str]


@pytest.fixture
def api(tmp_path: Path) -> Iterator[Api]:
    url = database_url("sqlite", tmp_path)
    app, cam = make_app(url, tmp_path / "data")
    cam.show(120, KONGS_WIN)
    cam.show(130, XIAMEN_WIN)
    for client in client_for(app):
        yield client, cam, url


def _stored(url: str, table: int, settings: dict[str, Any]) -> None:
    """Store ``settings`` as an older tilecam did (no route changes a table's)."""
    engine = create_engine(url)
    try:
        with engine.begin() as conn:
            conn.execute(update(GameTable).where(GameTable.id == table)
                         .values(rule_settings=settings))
    finally:
        engine.dispose()


def _tables(client: TestClient, rules: str, version: str | None,
            count: int) -> list[tuple[int, str]]:
    """``count`` tables of a new event of ``rules``/``version``: (id, key) pairs."""
    body: dict[str, Any] = {"name": "E", "rules": rules}
    if version is not None:
        body["version"] = version
    event = client.post("/v1/events", json=body, headers=admin()).json()["id"]
    out = []
    for i in range(count):
        r = client.post(f"/v1/events/{event}/tables", headers=admin(),
                        json={"name": f"T{i}", "players": [f"{p}{i}" for p in "ABCD"]})
        assert r.status_code == 201, r.text
        out.append((r.json()["id"], r.json()["api_key"]))
    return out


def _hand_1(client: TestClient, t: int) -> dict[str, Any]:
    hands = client.get(f"/v1/tables/{t}/hands", headers=admin()).json()["hands"]
    assert len(hands) == 1, hands
    return dict(hands[0])


def _clash_tables(client: TestClient, url: str, count: int) -> list[tuple[int, str]]:
    """MCR ``wmo-2006`` tables whose stored settings give ``version`` 98-strict."""
    tables = _tables(client, "mcr", "wmo-2006", count)
    for t, _ in tables:
        _stored(url, t, {"version": "98-strict"})
    return tables


# --- 1. a photo's and a camera's win at a version-clash table -----------------------------


def test_a_photo_s_and_a_camera_s_win_score_as_a_posted_one_at_a_version_clash_table(
        api: Api) -> None:
    """The table is scored under its own version (wmo-2006), its stored settings version
    left out, whoever reports the win: the posted win, the photo's and the camera's
    (three frames in a row) are one settled win of E on S's discard, of the same total."""
    client, _, url = api
    (posted, kp), (photo, kf), (camera, kc) = _clash_tables(client, url, 3)
    win = {"winner": "E", "discarder": "S"}
    r = client.post(f"/v1/tables/{posted}/hands", headers=bearer(kp),
                    json={"hand": KONGS_WIN, **win})
    assert r.status_code == 201, r.text
    r = client.post(f"/v1/tables/{photo}/photos", headers=bearer(kf), data=win,
                    files={"image": ("p.jpg", frame(120), "image/jpeg")})
    assert r.status_code in (200, 201), r.text
    for _ in range(3):
        r = client.post(f"/v1/tables/{camera}/frames", headers=bearer(kc), data=win,
                        files={"image": ("f.jpg", frame(120), "image/jpeg")})
        assert r.status_code == 200, r.text
    assert r.json()["status"] == "recorded"
    want = _scored(_hand_1(client, posted))
    assert want[0] == "win" and want[2] > 0
    assert _scored(_hand_1(client, photo)) == _scored(_hand_1(client, camera)) == want


def _scored(hand: dict[str, Any]) -> tuple[str, str, int, list[int]]:
    """A hand's outcome, tiles, total and points (in seat order: each table's players
    have their own names)."""
    return hand["outcome"], hand["hand"], hand["total"], list(hand["points"].values())


def test_a_version_clash_table_s_bad_context_is_named_not_its_settings(api: Api) -> None:
    """A posted win given a field MCR does not have (a gold) at such a table: the answer
    names the field, not the table's settings (which the scorer takes, as it scores)."""
    client, _, url = api
    [(t, k)] = _clash_tables(client, url, 1)
    r = client.post(f"/v1/tables/{t}/hands", headers=bearer(k),
                    json={"hand": KONGS_WIN, "winner": "E", "discarder": "S",
                          "context": {"gold": "5m"}})
    assert r.status_code == 400, r.text
    assert "keeps settings" not in r.json()["error"]["message"]


# --- 2. GET /v1/tables/{id}: settings_refused ------------------------------------------------


def test_a_table_s_refused_settings_are_said_before_the_first_frame(api: Api) -> None:
    """Xiamen ``chip_stack`` 0 with the cap on (refused since session 75): the table's
    view says so, with what a referee can do; null for a table whose settings the scorer
    takes — a version-clash table's too, which scores its wins."""
    client, _, url = api
    [(bad, kb), (ok, ko)] = _tables(client, "xiamen", None, 2)
    _stored(url, bad, {"chip_stack": 0})
    [(clash, kc)] = _clash_tables(client, url, 1)
    view = client.get(f"/v1/tables/{bad}", headers=bearer(kb)).json()
    TableWithNextOut.model_validate(view)
    refused = view["settings_refused"]
    assert "chip_stack=0" in refused and "cannot be changed" in refused
    assert f"/v1/tables/{bad}/close" in refused
    for t, k in ((ok, ko), (clash, kc)):
        assert client.get(f"/v1/tables/{t}", headers=bearer(k)).json()["settings_refused"] \
            is None
    # the same message as the first frame's refusal
    r = client.post(f"/v1/tables/{bad}/frames", headers=bearer(kb),
                    data={"winner": "S", "self_drawn": "true", "context": '{"gold": "9s"}'},
                    files={"image": ("f.jpg", frame(130), "image/jpeg")})
    assert r.status_code == 409 and refused in r.json()["error"]["message"]


def test_the_table_schema_declares_settings_refused(api: Api) -> None:
    client, _, _ = api
    schemas = client.get("/openapi.json").json()["components"]["schemas"]
    table = schemas["TableOut"]["properties"]["settings_refused"]
    assert {t.get("type") for t in table["anyOf"]} == {"string", "null"}
    assert "settings_refused" in schemas["TableOut"]["required"]


# --- 4. tilecam watch: a 503's Retry-After -------------------------------------------------


def _watch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
           answers: list[tuple[int, dict[str, Any], float]], levels: list[int],
           ) -> tuple[int, list[dict[str, Any]], list[float]]:
    """Run ``tilecam watch`` over a video of ``levels`` against a server answering each
    post from ``answers`` (the last repeats): exit status, fields sent, sleeps (s)."""
    write_video(tmp_path / "v.avi", levels)
    sent: list[dict[str, Any]] = []
    slept: list[float] = []

    def post(server: str, table: int, key: str, jpeg: bytes, fields: Any = None) -> Any:
        sent.append(dict(fields or {}))
        return answers.pop(0) if len(answers) > 1 else answers[0]

    monkeypatch.setattr(watch, "post_frame", post)
    monkeypatch.setattr(time, "sleep", slept.append)  # the watch's waits, counted
    code = main(["watch", "--table", "1", "--key", "k", "--source",
                 str(tmp_path / "v.avi"), "--every", "1"])
    return code, sent, slept


BUSY = (503, {"error": {"code": "timeout", "message": "busy"}}, 7.0)
OK = (200, {"status": "waiting"}, 0.0)


def test_watch_waits_out_a_503_s_retry_after_and_sends_the_frame_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A 503 ``timeout`` with Retry-After 7: the watch waits 7 s and sends the same frame
    (its seq) again, not the next frame at once; the wait is said on stderr."""
    code, sent, slept = _watch(tmp_path, monkeypatch, [BUSY, OK, OK], [120, 130])
    assert code == 0 and slept == [7.0]
    assert [f["seq"] for f in sent][:2] == [sent[0]["seq"]] * 2 and len(sent) == 3
    err = capsys.readouterr().err
    assert '"http": 503' in err and '"waited_s": 7.0' in err and '"sent_again": true' in err


def test_watch_waits_at_most_a_minute_and_resends_a_frame_twice(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A Retry-After of an hour is waited 60 s; a frame answered 503 every time is sent
    three times (two resends), then its 503 is shown and the watch goes on; a 503
    without Retry-After is shown at once, as before."""
    hour = (503, BUSY[1], 3600.0)
    bare = (503, {"error": {"code": "unavailable", "message": "x"}}, 0.0)
    code, sent, slept = _watch(tmp_path, monkeypatch, [hour, hour, hour, bare, OK],
                               [120, 130])
    assert code == 0 and slept == [60.0] * 3
    assert len(sent) == 4 and len({f["seq"] for f in sent[:3]}) == 1
    assert sent[3]["seq"] != sent[0]["seq"]
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [line.get("http") for line in lines[:2]] == [503, 503]
    assert lines[-1]["frames_posted"] == 2
