"""``POST /v1/waits`` runs its analyses through a bounded pool with admission (security
review finding 3): it needs no key, and it ran in AnyIO's 40-thread pool, so forty
analyses of seconds each could run at once beside the automatic tables' ``/v1/score``.
Now ``TILECAM_WAITS_CONCURRENCY`` run at once, 8 per slot may wait, one more is 503
``busy`` with ``Retry-After`` at once, and an analysis past ``TILECAM_REQUEST_TIMEOUT_S``
is 503 ``timeout`` — as ``/v1/recognize`` does with its own pool.

These tests hold analyses in the service's process (a gate in place of
``scoring.waits``), so they run them in the thread pool (``TILECAM_WAITS_PROCESSES=0``,
the fallback); the worker processes, the default, have the same admission and are
tested in ``test_waits_workers.py``.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any

import pytest
from fastapi.testclient import TestClient

import scoring
from tilecam.api.routes.waits import QUEUE_PER_SLOT, AnalysisLimiter
from tilecam.app import create_app
from tilecam.settings import Settings

WAITING = "123m456m789m123p5p"  # MCR, 13 tiles: waits
DREW = "123m456m789m123p5p7s"  # MCR, 14 tiles: discards
WIN = "123m456m789m123p55p"


@contextmanager
def client_with(**settings: Any) -> Iterator[TestClient]:
    """A client of the service with its wait analyses in the thread pool (unless
    ``waits_processes`` is given)."""
    settings.setdefault("waits_processes", False)
    app = create_app(Settings(load_model=False, **settings))
    with TestClient(app, raise_server_exceptions=False) as c:
        yield c


class Gate:
    """Stands in for ``scoring.waits``: each call records its thread and waits until
    the gate opens (or ``hold_s`` passes), then answers as the scorer does."""

    def __init__(self, real: Callable[..., Any], hold_s: float = 10.0) -> None:
        self.real = real
        self.hold_s = hold_s
        self.open = threading.Event()
        self.lock = threading.Lock()
        self.inside = 0
        self.most_inside = 0
        self.started = 0
        self.threads: list[str] = []

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        with self.lock:
            self.inside += 1
            self.started += 1
            self.most_inside = max(self.most_inside, self.inside)
            self.threads.append(threading.current_thread().name)
        try:
            self.open.wait(self.hold_s)
            return self.real(*args, **kwargs)
        finally:
            with self.lock:
                self.inside -= 1

    def wait_started(self, n: int, timeout_s: float = 10.0) -> None:
        deadline = time.monotonic() + timeout_s
        while self.started < n:
            assert time.monotonic() < deadline, f"{self.started} of {n} analyses started"
            time.sleep(0.01)


@pytest.fixture
def gate(monkeypatch: pytest.MonkeyPatch) -> Iterator[Gate]:
    g = Gate(scoring.waits)
    monkeypatch.setattr(scoring, "waits", g)
    yield g
    g.open.set()


def post_waits(client: TestClient, hand: str = WAITING) -> Any:
    return client.post("/v1/waits", json={"hand": hand})


def test_analyses_run_in_their_own_pool_not_anyio_s(gate: Gate) -> None:
    """They ran in AnyIO's shared 40-thread pool (``run_in_threadpool``)."""
    gate.open.set()
    with client_with() as client:
        r = post_waits(client)
    assert r.status_code == 200, r.text
    assert r.json() == gate.real(WAITING).to_dict()
    assert gate.threads and all(name.startswith("waits") for name in gate.threads)


def test_no_more_analyses_run_at_once_than_the_setting_allows(gate: Gate) -> None:
    """TILECAM_WAITS_CONCURRENCY=2: six requests at once, two analyses at a time, all
    answered."""
    with client_with(waits_concurrency=2) as client, ThreadPoolExecutor(6) as pool:
        futures = [pool.submit(post_waits, client) for _ in range(6)]
        gate.wait_started(2)
        time.sleep(0.2)  # the others are admitted and wait for a slot
        assert gate.started == 2
        gate.open.set()
        codes = [f.result().status_code for f in futures]
    assert codes == [200] * 6
    assert gate.most_inside == 2


def test_a_request_past_the_slots_and_their_queue_is_503_busy_with_retry_after(
        gate: Gate) -> None:
    """One slot, so eight requests are admitted (one running, seven waiting for the
    slot); the ninth is answered at once, while the others still wait."""
    admitted = 1 * QUEUE_PER_SLOT
    with client_with(waits_concurrency=1) as client, ThreadPoolExecutor(admitted) as pool:
        futures = [pool.submit(post_waits, client) for _ in range(admitted)]
        gate.wait_started(1)
        limiter: AnalysisLimiter = client.app.state.waits_limiter  # type: ignore[attr-defined]
        deadline = time.monotonic() + 10
        while limiter.admitted < admitted:
            assert time.monotonic() < deadline
            time.sleep(0.01)
        r = post_waits(client, DREW)
        assert r.status_code == 503, r.text
        assert r.json()["error"]["code"] == "busy"
        assert "wait analyses" in r.json()["error"]["message"]
        assert r.headers["Retry-After"] == "1"
        assert gate.started == 1
        gate.open.set()
        assert [f.result().status_code for f in futures] == [200] * admitted


def test_an_analysis_past_the_time_budget_is_503_timeout_and_keeps_its_slot(
        gate: Gate) -> None:
    """TILECAM_REQUEST_TIMEOUT_S bounds the answer; the analysis, which cannot be
    stopped, holds its slot until it ends, so a request behind it gets no slot within the
    budget either (503 busy)."""
    with client_with(waits_concurrency=1, request_timeout_s=0.3) as client:
        r = post_waits(client)
        assert r.status_code == 503, r.text
        assert r.json()["error"]["code"] == "timeout"
        limiter: AnalysisLimiter = client.app.state.waits_limiter  # type: ignore[attr-defined]
        assert limiter.running == 1
        behind = post_waits(client)
        assert behind.status_code == 503 and behind.json()["error"]["code"] == "busy"
        assert behind.headers["Retry-After"] == "1"
        gate.open.set()
        deadline = time.monotonic() + 10
        while limiter.running:
            assert time.monotonic() < deadline
            time.sleep(0.01)
        assert post_waits(client).status_code == 200


def test_scoring_is_not_held_up_by_the_analyses_pool(gate: Gate) -> None:
    """With every analysis slot taken and requests queued, ``/v1/score`` (the automatic
    tables' hot path) is answered: it never goes through that pool."""
    with client_with(waits_concurrency=1) as client, ThreadPoolExecutor(3) as pool:
        futures = [pool.submit(post_waits, client) for _ in range(3)]
        gate.wait_started(1)
        r = client.post("/v1/score", json={"hand": WIN, "self_drawn": True})
        assert r.status_code == 200 and r.json()["legal"]
        assert gate.started == 1
        gate.open.set()
        assert [f.result().status_code for f in futures] == [200] * 3


@pytest.mark.parametrize("processes", [False, True], ids=["threads", "processes"])
def test_a_bad_hand_is_still_400_from_the_pool(processes: bool) -> None:
    """A HandError raised in the pool's thread (or worker process) is the same 400
    invalid_hand."""
    with client_with(waits_processes=processes) as client:
        r = client.post("/v1/waits", json={"hand": "111m"})  # refused by scoring.waits
        assert r.status_code == 400 and r.json()["error"]["code"] == "invalid_hand"
        drew = client.post("/v1/waits", json={"hand": DREW})
        assert drew.status_code == 200 and drew.json() == scoring.discards(DREW).to_dict()


def test_the_concurrency_is_a_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TILECAM_WAITS_CONCURRENCY", "3")
    assert Settings().waits_concurrency == 3
    monkeypatch.delenv("TILECAM_WAITS_CONCURRENCY")
    assert Settings().waits_concurrency == 1
    assert Settings().waits_processes is True
    monkeypatch.setenv("TILECAM_WAITS_PROCESSES", "0")
    assert Settings().waits_processes is False
    with pytest.raises(ValueError, match="at least 1"):
        AnalysisLimiter(0, 1.0)
