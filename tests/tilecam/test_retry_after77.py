"""Retry-After and messages a machine can act on (the table-client review of the
seventy-seventh session, findings 6 and 7b–c):

- a frame's (or ``/v1/recognize``'s) 503 ``timeout`` had no ``Retry-After``, and always
  said "try a smaller image", also when its 30 s went on waiting behind other requests:
  it now says where the time went, and gives ``Retry-After`` — what its wait in the queue
  took when it waited (the server is busy), the limiter's figure when it ran long;
- a 429 said "retry in 0.0 s" next to ``Retry-After: 1``: both now give the same whole
  seconds;
- the refused keys' limit is per address, so past it a wrong key is 429, not 401: the
  429 now says the request was refused anyway and why, and a valid key from that address
  is not held back.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from test_tables_helpers import bearer, client_for, database_url, make_app, new_table

from tilecam.api.deps import RecognitionLimiter
from tilecam.api.errors import MOST_RETRY_AFTER_S, ApiError, timeout_error


def timed_out(limiter: RecognitionLimiter, first_s: float, second_s: float) -> ApiError:
    """The ApiError of a second job (``time.sleep(second_s)``) sent while a first one
    (``first_s``) holds the limiter's only slot."""

    async def scenario() -> ApiError:
        first = asyncio.ensure_future(limiter.run(time.sleep, first_s))
        await asyncio.sleep(0.02)
        try:
            with pytest.raises(ApiError) as info:
                await limiter.run(time.sleep, second_s)
            return info.value
        finally:
            await asyncio.gather(first, return_exceptions=True)
            await asyncio.sleep(max(first_s, second_s))  # the jobs end before the pool
            limiter.shutdown()

    return asyncio.run(scenario())


def test_a_timeout_spent_in_the_queue_says_so_with_retry_after() -> None:
    """One slot, 2.5 s: the second job waits about 2.2 s for the first, then runs out of
    time. Its 503 says it waited in the queue behind other requests — not "try a smaller
    image" — and Retry-After is that wait, rounded up: 3 s."""
    exc = timed_out(RecognitionLimiter(slots=1, timeout_s=2.5), 2.2, 2.0)
    assert (exc.status_code, exc.code) == (503, "timeout")
    assert exc.message.startswith("recognition did not finish within 2.5 s: it waited 2.")
    assert "s in the queue for the server's only slot," in exc.message, exc.message
    assert "the server is busy" in exc.message and "smaller image" not in exc.message
    assert exc.headers == {"Retry-After": "3"}


def test_a_timeout_spent_running_says_so_with_retry_after() -> None:
    """A job alone that runs past the time: its 503 says it ran (and for how long), with
    the smaller-image advice, and Retry-After is the limiter's 2 s."""

    async def scenario() -> ApiError:
        limiter = RecognitionLimiter(slots=1, timeout_s=0.3)
        try:
            with pytest.raises(ApiError) as info:
                await limiter.run(time.sleep, 0.6)
            return info.value
        finally:
            await asyncio.sleep(0.4)
            limiter.shutdown()

    exc = asyncio.run(scenario())
    assert (exc.status_code, exc.code) == (503, "timeout")
    assert exc.message.startswith("recognition did not finish within 0.3 s: it ran 0.")
    assert exc.message.endswith("s in the queue); try a smaller image"), exc.message
    assert exc.headers == {"Retry-After": "2"}


@pytest.fixture()
def slow_keys(tmp_path: Path) -> Iterator[TestClient]:
    """An app whose table keys and refused keys may make 2 requests a second, 1 at once."""
    app, _ = make_app(database_url("sqlite", tmp_path), tmp_path / "data",
                      rate_limit_per_s=2.0, rate_limit_burst=1)
    yield from client_for(app)


def get(client: TestClient, t: int, key: str) -> Any:
    return client.get(f"/v1/tables/{t}/standings", headers=bearer(key))


def test_a_429_says_the_seconds_retry_after_gives(slow_keys: TestClient) -> None:
    """Two requests at once with one table key: the second is 429, its message and
    Retry-After both 1 s (it said "retry in 0.5 s" next to "Retry-After: 1")."""
    t, k = new_table(slow_keys)
    assert get(slow_keys, t, k).status_code == 200
    r = get(slow_keys, t, k)
    assert r.status_code == 429 and r.json()["error"]["code"] == "rate_limited"
    assert r.headers["Retry-After"] == "1"
    assert r.json()["error"]["message"] == "too many requests with this key: retry in 1 s"


def test_a_refused_key_past_the_addresss_limit_says_it_is_refused_anyway(
        slow_keys: TestClient) -> None:
    """A stale key twice at once from one address: 401, then 429 — whose message says
    the key was refused (401, not valid), that sending it again will not help, and the
    seconds Retry-After gives. The table's valid key from that address is not held."""
    t, k = new_table(slow_keys)
    stale = "tc_" + "x" * 43
    assert get(slow_keys, t, stale).status_code == 401
    r = get(slow_keys, t, stale)
    assert r.status_code == 429 and r.headers["Retry-After"] == "1"
    message = r.json()["error"]["message"]
    assert "refused (401 unauthorized: the key is not valid)" in message, message
    assert "sent again as it is, it is refused again" in message
    assert "a valid key is not held back" in message and message.endswith("retry in 1 s")
    assert get(slow_keys, t, k).status_code == 200


@pytest.mark.parametrize("timeout_s", [600.0, 1e6])
def test_retry_after_of_a_long_wait_in_the_queue_is_at_most_a_minute(
        timeout_s: float) -> None:
    """Polish of review 77, finding 6: ``TILECAM_REQUEST_TIMEOUT_S`` has no upper bound,
    and a 503 ``timeout`` that waited in the queue gave its whole wait as Retry-After
    (599 s for a 600 s timeout, 999999 s for 1e6 s). It is now capped at
    MOST_RETRY_AFTER_S (60 s); a short wait still gives its own seconds."""
    exc = timeout_error(f"recognition did not finish within {timeout_s:g} s", timeout_s,
                        timeout_s - 1.0, slots=2, in_progress=9,
                        requests="image requests", retry_after_s=2)
    assert MOST_RETRY_AFTER_S == 60
    assert exc.headers == {"Retry-After": "60"}, exc.headers
    short = timeout_error("recognition did not finish within 30 s", 30.0, 17.5, slots=2,
                          in_progress=9, requests="image requests", retry_after_s=2)
    assert short.headers == {"Retry-After": "18"}


def test_the_timeout_message_names_one_slot_in_the_singular() -> None:
    """Polish of review 77, finding 6: one slot was "one of the server's 1 slots"; it is
    "the server's only slot", and two are still "one of the server's 2 slots"."""
    one, two = (timeout_error("recognition did not finish within 30 s", 30.0, 29.0,
                              slots=slots, in_progress=4, requests="image requests",
                              retry_after_s=2) for slots in (1, 2))
    assert "in the queue for the server's only slot, behind" in one.message, one.message
    assert "1 slots" not in one.message
    assert "in the queue for one of the server's 2 slots, behind" in two.message
