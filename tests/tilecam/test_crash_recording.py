"""Crash safety: the server is killed with SIGKILL while an automatic table posts hands;
after a restart no acknowledged hand is lost or duplicated and the database is consistent."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest

ADMIN = "crash-test-admin-key-0123456789"
HAND = "123m456m789m123p456p55s"  # a Xiamen win (gold 9s, none held)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _start(data_dir: Path, port: int, workers: int = 1) -> subprocess.Popen[bytes]:
    env = {**os.environ, "TILECAM_DATA_DIR": str(data_dir), "TILECAM_ADMIN_KEY": ADMIN,
           "TILECAM_LOAD_MODEL": "0", "TILECAM_DATABASE_URL": "",
           "TILECAM_RATE_LIMIT_PER_S": "100000", "TILECAM_RATE_LIMIT_BURST": "100000"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "tilecam.cli", "serve", "--port", str(port), "--workers",
         str(workers)],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )
    deadline = time.monotonic() + 180  # generous: the test machine may be loaded
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                return proc
        except httpx.HTTPError:
            time.sleep(0.2)
        if proc.poll() is not None:
            break
    _kill(proc)
    pytest.fail("the server did not start within 180 s")


def _kill(proc: subprocess.Popen[bytes]) -> None:
    """SIGKILL the server and any worker processes it started (its own session)."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=120)


def _body(n: int) -> dict[str, object]:
    if n % 3 == 0:
        return {"number": n, "outcome": "draw"}
    return {"number": n, "hand": HAND, "winner": "ESWN"[n % 4], "self_drawn": True,
            "context": {"gold": "9s"}}


def _post_until_killed(url: str, key: str, start: int, acked: list[int]) -> None:
    with httpx.Client(timeout=120, headers={"Authorization": f"Bearer {key}"}) as client:
        for n in range(start, 17):
            try:
                r = client.post(url, json=_body(n))
            except httpx.HTTPError:
                return
            if r.status_code in (200, 201):
                acked.append(n)


def test_kill_9_while_recording_loses_and_duplicates_nothing(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    proc = _start(data_dir, port)
    try:
        adm = {"Authorization": f"Bearer {ADMIN}"}
        ev = httpx.post(f"{base}/v1/events", json={"name": "crash", "rules": "xiamen"},
                        headers=adm, timeout=120).json()
        tb = httpx.post(f"{base}/v1/events/{ev['id']}/tables", headers=adm, timeout=120,
                        json={"name": "T1", "players": ["a", "b", "c", "d"]}).json()
        table, key = tb["id"], tb["api_key"]
        url = f"{base}/v1/tables/{table}/hands"
        acked: list[int] = []
        for cycle in range(2):
            start = len(acked) + 1
            poster = threading.Thread(target=_post_until_killed, args=(url, key, start, acked))
            poster.start()
            target = start + 3
            deadline = time.monotonic() + 180
            while len(acked) < target - 1 and time.monotonic() < deadline and poster.is_alive():
                time.sleep(0.005)
            _kill(proc)  # kill -9 mid-stream
            poster.join(timeout=150)
            assert len(acked) >= target - 1, f"cycle {cycle}: only {len(acked)} hands acknowledged"
            proc = _start(data_dir, port)
            hands = httpx.get(f"{base}/v1/tables/{table}/hands", timeout=120,
                              headers={"Authorization": f"Bearer {key}"}).json()["hands"]
            numbers = [h["number"] for h in hands]
            # Every acknowledged hand is there, once; at most the one in flight was also
            # committed before the kill; places are contiguous from 1.
            assert numbers == list(range(1, len(numbers) + 1))
            assert set(acked) <= set(numbers)
            assert len(numbers) - len(acked) in (0, 1)
            for h in hands:
                assert h["outcome"] == _body(h["number"]).get("outcome", "win")
            # The table re-sends what it did not get an answer for: recorded once.
            for n in range(len(acked) + 1, len(numbers) + 1):
                r = httpx.post(url, json=_body(n), headers={"Authorization": f"Bearer {key}"},
                               timeout=120)
                assert r.status_code == 200 and r.json()["created"] is False
                acked.append(n)
        _post_until_killed(url, key, len(acked) + 1, acked)
        assert acked == list(range(1, 17))
    finally:
        _kill(proc)
    db = sqlite3.connect(data_dir / "tilecam.db")
    try:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert db.execute("PRAGMA foreign_key_check").fetchall() == []
        rows = db.execute("SELECT number FROM hands WHERE table_id = ? ORDER BY number",
                          (table,)).fetchall()
        assert [r[0] for r in rows] == list(range(1, 17))
        revs = db.execute("SELECT h.number, r.revision FROM hand_revisions r "
                          "JOIN hands h ON h.id = r.hand_id ORDER BY h.number").fetchall()
        assert revs == [(n, 1) for n in range(1, 17)]
        sums = db.execute("SELECT settlement FROM hand_revisions").fetchall()
        import json

        assert all(sum(json.loads(s[0])) == 0 for s in sums)
    finally:
        db.close()


def test_two_worker_processes_record_each_hand_once(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    proc = _start(data_dir, port, workers=2)
    try:
        adm = {"Authorization": f"Bearer {ADMIN}"}
        ev = httpx.post(f"{base}/v1/events", json={"name": "w", "rules": "xiamen"},
                        headers=adm, timeout=120).json()
        tb = httpx.post(f"{base}/v1/events/{ev['id']}/tables", headers=adm, timeout=120,
                        json={"name": "T1", "players": ["a", "b", "c", "d"]}).json()
        url = f"{base}/v1/tables/{tb['id']}/hands"
        auth = {"Authorization": f"Bearer {tb['api_key']}"}
        codes: dict[int, list[int]] = {n: [] for n in range(1, 5)}
        auto: list[int] = []

        def resend(n: int) -> None:  # several senders of the same numbered hand
            with httpx.Client(timeout=120, headers=auth) as c:
                codes[n].append(c.post(url, json=_body(n)).status_code)

        def draw() -> None:  # hands without a number take the next place
            with httpx.Client(timeout=120, headers=auth) as c:
                r = c.post(url, json={"outcome": "draw"})
                assert r.status_code == 201, r.text
                auto.append(r.json()["number"])

        for n in range(1, 5):
            threads = [threading.Thread(target=resend, args=(n,)) for _ in range(4)]
            for th in threads:
                th.start()
            for th in threads:
                th.join()
        threads = [threading.Thread(target=draw) for _ in range(8)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        assert all(sorted(c) == [200, 200, 200, 201] for c in codes.values()), codes
        assert sorted(auto) == list(range(5, 13))
        hands = httpx.get(url, headers=auth, timeout=120).json()["hands"]
        assert [h["number"] for h in hands] == list(range(1, 13))
    finally:
        _kill(proc)
