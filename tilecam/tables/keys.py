"""Table API keys: random tokens shown once, stored as SHA-256, compared in constant time.

>>> key = new_key()
>>> len(key) >= 43 and key.startswith("tc_")
True
>>> verify_key(key, hash_key(key)), verify_key(key + "x", hash_key(key))
(True, False)
>>> new_view_key().startswith(VIEW_PREFIX)
True
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

PREFIX = "tc_"
#: A viewing key's prefix: it reads a table's sheet and records nothing.
VIEW_PREFIX = "tv_"


def new_key() -> str:
    """A new key: ``tc_`` + 32 random bytes, URL-safe base64 (256 bits of entropy)."""
    return PREFIX + secrets.token_urlsafe(32)


def new_view_key() -> str:
    """A new viewing key: ``tv_`` + 32 random bytes, URL-safe base64."""
    return VIEW_PREFIX + secrets.token_urlsafe(32)


def hash_key(key: str) -> str:
    """Hex SHA-256 of the key (what the database keeps)."""
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def verify_key(key: str, stored_hash: str) -> bool:
    """Whether ``key`` hashes to ``stored_hash``, compared in constant time."""
    return hmac.compare_digest(hash_key(key), stored_hash)


def verify_admin_key(given: str, admin_key: str) -> bool:
    """Constant-time check of the admin key; an empty configured key matches nothing."""
    if not admin_key:
        return False
    return hmac.compare_digest(hash_key(given), hash_key(admin_key))
