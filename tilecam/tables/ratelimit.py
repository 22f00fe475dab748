"""Per-key rate limiting: a token bucket per key, in process memory.

Each key may make ``rate`` requests per second on average with bursts of up to
``burst``. Buckets are per process: with several workers each enforces its own.

>>> clock = iter([0.0, 0.0, 0.0, 0.5]).__next__
>>> limiter = RateLimiter(rate=2.0, burst=2, clock=clock)
>>> [limiter.check("k") for _ in range(3)]
[0.0, 0.0, 0.5]
>>> limiter.check("k")  # half a second later one token is back
0.0

Memory is bounded: buckets are kept least recently used first, a bucket that has
refilled to ``burst`` is forgotten (it says no more than a new one would), and at most
``max_keys`` are kept — past that the least recently used is forgotten even if it is not
full yet. Every check costs O(1) amortised, however many keys there are.
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable

#: Full buckets dropped from the old end at each check, at most (amortised cleaning).
SWEEP_PER_CHECK = 2


def retry_after_s(wait: float) -> int:
    """The whole seconds a client over the limit is told to wait, ``Retry-After``'s
    figure and the 429 message's alike: ``wait`` (seconds until a token is free,
    :meth:`RateLimiter.check`) rounded up, at least 1 — a message saying "retry in 0.0 s"
    next to ``Retry-After: 1`` told the client two things.

    >>> retry_after_s(0.04), retry_after_s(1.0), retry_after_s(1.2)
    (1, 1, 2)
    """
    return max(1, math.ceil(wait))


class RateLimiter:
    """Token buckets keyed by a string (a key hash, or a client address).

    ``rate``: tokens per second; ``burst``: a bucket's size (tokens); ``max_keys``: the
    most buckets kept at once (the hard cap on memory); ``clock``: seconds, monotonic.
    """

    def __init__(
        self,
        rate: float,
        burst: int,
        clock: Callable[[], float] = time.monotonic,
        max_keys: int = 100_000,
    ) -> None:
        if rate <= 0 or burst < 1:
            raise ValueError(f"rate limit needs rate > 0 and burst >= 1, not {rate}, {burst}")
        if max_keys < 1:
            raise ValueError(f"rate limit needs max_keys >= 1, not {max_keys}")
        self.rate = float(rate)
        self.burst = float(burst)
        self._clock = clock
        self._max_keys = max_keys
        #: key → (tokens left when last seen, when last seen); least recently seen first
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        """Buckets kept now."""
        return len(self._buckets)

    def check(self, key: str) -> float:
        """Take one token for ``key``: 0.0 when allowed, else seconds until one is free."""
        with self._lock:
            now = self._clock()
            tokens = self._tokens(self._buckets.get(key), now)
            allowed = tokens >= 1.0
            self._store(key, tokens - 1.0 if allowed else tokens, now)
            return 0.0 if allowed else (1.0 - tokens) / self.rate

    def _tokens(self, bucket: tuple[float, float] | None, now: float) -> float:
        """The tokens of ``bucket`` at ``now`` (refilled since it was last seen)."""
        if bucket is None:
            return self.burst
        tokens, last = bucket
        return min(self.burst, tokens + max(0.0, now - last) * self.rate)

    def _store(self, key: str, tokens: float, now: float) -> None:
        """Keep ``key``'s bucket as the most recently used, and forget old ones: those
        full again at the old end (a few per call), then the oldest past ``max_keys``."""
        buckets = self._buckets
        buckets[key] = (tokens, now)
        buckets.move_to_end(key)
        for _ in range(SWEEP_PER_CHECK):
            oldest = next(iter(buckets))
            if oldest == key or self._tokens(buckets[oldest], now) < self.burst:
                break
            del buckets[oldest]
        while len(buckets) > self._max_keys:
            buckets.popitem(last=False)
