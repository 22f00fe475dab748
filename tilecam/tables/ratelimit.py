"""Per-key rate limiting: a token bucket per key, in process memory.

Each key may make ``rate`` requests per second on average with bursts of up to
``burst``. Buckets are per process: with several workers each enforces its own.

>>> clock = iter([0.0, 0.0, 0.0, 0.5]).__next__
>>> limiter = RateLimiter(rate=2.0, burst=2, clock=clock)
>>> [limiter.check("k") for _ in range(3)]
[0.0, 0.0, 0.5]
>>> limiter.check("k")  # half a second later one token is back
0.0
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable


class RateLimiter:
    """Token buckets keyed by a string (a key hash, or a client address)."""

    def __init__(
        self,
        rate: float,
        burst: int,
        clock: Callable[[], float] = time.monotonic,
        max_keys: int = 100_000,
    ) -> None:
        if rate <= 0 or burst < 1:
            raise ValueError(f"rate limit needs rate > 0 and burst >= 1, not {rate}, {burst}")
        self.rate = float(rate)
        self.burst = float(burst)
        self._clock = clock
        self._max_keys = max_keys
        self._buckets: dict[str, tuple[float, float]] = {}
        self._lock = threading.Lock()

    def check(self, key: str) -> float:
        """Take one token for ``key``: 0.0 when allowed, else seconds until one is free."""
        with self._lock:
            now = self._clock()
            tokens, last = self._buckets.get(key, (self.burst, now))
            tokens = min(self.burst, tokens + (now - last) * self.rate)
            if tokens >= 1.0:
                self._store(key, tokens - 1.0, now)
                return 0.0
            self._store(key, tokens, now)
            return (1.0 - tokens) / self.rate

    def _store(self, key: str, tokens: float, now: float) -> None:
        if key not in self._buckets and len(self._buckets) >= self._max_keys:
            # Forget full buckets first; they carry no state worth keeping.
            full = [k for k, (t, _) in self._buckets.items() if t >= self.burst]
            for k in full[: max(1, len(full))]:
                del self._buckets[k]
        self._buckets[key] = (tokens, now)
