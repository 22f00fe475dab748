"""The service's access log without secrets: uvicorn logs each request's whole path and
query, so a key a client sends in a URL (``?key=tc_…``, which the service does not take)
would be kept in full. :func:`log_config` gives uvicorn a logging configuration whose
access log writes every secret :data:`REDACTED` (:class:`RedactKeys`)."""

from __future__ import annotations

import copy
import logging
import re
from collections.abc import Iterable
from typing import Any
from urllib.parse import unquote_plus

#: The last word of a query parameter's name that makes its value a secret (any case;
#: words split at ``-``, ``_``, ``.``, brackets and a camelCase capital): ``key``,
#: ``api_key``, ``apiKey``, ``X-Api-Key``, ``token``, ``access_token``, ``secret``,
#: ``password``, ``passwd``, ``pw``, ``auth``, ``Authorization`` … — whole words only, so
#: ``monkey`` and ``author`` are kept.
SECRET_WORDS = frozenset({"key", "apikey", "token", "accesstoken", "secret", "password",
                          "passwd", "pw", "auth", "authorization"})
#: A table's key (``tc_…``) or viewing key (``tv_…``, :mod:`tilecam.tables.keys`),
#: wherever it stands in a path or query, whatever the parameter's name.
KEY_TOKEN = re.compile(r"t[cv]_[A-Za-z0-9_-]{16,}", re.IGNORECASE)
#: What a secret in a path or query is written as in the access log.
REDACTED = "[redacted]"
#: Times a part of a query is percent-decoded, to find a key encoded twice.
DECODINGS = 3


def secret_name(name: str) -> bool:
    """Whether a query parameter's ``name`` (percent-encoded) names a secret: its last
    word (:data:`SECRET_WORDS`), whole.

    >>> [secret_name(n) for n in ("key", "X-Api-Key", "api%5Fkey", "accessToken", "PW")]
    [True, True, True, True, True]
    >>> [secret_name(n) for n in ("monkey", "author", "keys", "key_id", "page")]
    [False, False, False, False, False]
    """
    text = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", decoded(name)).lower()
    words = [word for word in re.split(r"[^a-z0-9]+", text) if word]
    return bool(words) and (words[-1] in SECRET_WORDS
                            or "".join(words[-2:]) in SECRET_WORDS)


def decoded(text: str) -> str:
    """``text`` percent-decoded (``+`` as a space) until it no longer changes, at most
    :data:`DECODINGS` times."""
    for _ in range(DECODINGS):
        plain = unquote_plus(text)
        if plain == text:
            break
        text = plain
    return text


def holds_key(text: str) -> bool:
    """Whether ``text`` holds a table or viewing key (:data:`KEY_TOKEN`) as it came or
    percent-decoded."""
    return bool(KEY_TOKEN.search(text) or KEY_TOKEN.search(decoded(text)))


def secret_pattern(secrets: Iterable[str]) -> re.Pattern[str] | None:
    """A pattern finding each of ``secrets`` (the admin and referee keys) as given,
    percent-encoded (any character as ``%XX``, either case of hex) or with ``+`` for a
    space, in any mix; None for none. Longer keys first, so that one key inside another
    is not left half shown."""
    alternatives = ["".join(map(char_pattern, secret))
                    for secret in sorted({s for s in secrets if s}, key=len, reverse=True)]
    return re.compile("|".join(alternatives)) if alternatives else None


def char_pattern(char: str) -> str:
    r"""A pattern for one character of a key in a URL: as it is, or its UTF-8 bytes as
    ``%XX`` (hex in either case), or ``+`` for a space.

    >>> print(char_pattern(" "), char_pattern("k"))
    (?:\ |%20|\+) (?:k|%6[Bb])
    """
    encoded = "".join("%" + "".join(f"[{h}{h.lower()}]" if h.isalpha() else h
                                    for h in f"{byte:02X}")
                      for byte in char.encode())
    forms = [re.escape(char), encoded, *([r"\+"] if char == " " else [])]
    return f"(?:{'|'.join(forms)})"


def redacted_path(path: str, secrets: Iterable[str] = ()) -> str:
    """``path`` (a request's path and query, as uvicorn's access log writes it) with each
    secret in it written :data:`REDACTED`: each of ``secrets`` (the admin and referee
    keys, :func:`secret_pattern`) wherever it stands; a path segment or query part that
    holds a table or viewing key (:func:`holds_key`, also with no ``=``, behind
    ``Bearer``, after ``;``); and the value of a parameter named like a key
    (:func:`secret_name`). The rest as it came.

    >>> redacted_path("/v1/tables/13/hands?key=tc_abcdefghijklmnopq&page=2")
    '/v1/tables/13/hands?key=[redacted]&page=2'
    >>> redacted_path("/v1/tables/13?k=Bearer+tv_abcdefghijklmnopq;X-Api-Key=s3cret")
    '/v1/tables/13?k=[redacted];X-Api-Key=[redacted]'
    >>> redacted_path("/v1/tables/13?admin=two%20words&monkey=1", ["two words"])
    '/v1/tables/13?admin=[redacted]&monkey=1'
    >>> redacted_path("/v1/score?rules=mcr"), redacted_path("/healthz")
    ('/v1/score?rules=mcr', '/healthz')
    """
    pattern = secret_pattern(secrets)
    if pattern is not None:
        path = pattern.sub(REDACTED, path)
    base, mark, query = path.partition("?")
    base = "/".join(REDACTED if holds_key(segment) else segment
                    for segment in base.split("/"))
    if not mark:
        return base
    parts = re.split(r"([&;])", query)
    for i in range(0, len(parts), 2):
        name, equals, value = parts[i].partition("=")
        if holds_key(name):
            parts[i] = REDACTED
        elif equals and value and (secret_name(name) or holds_key(value)):
            parts[i] = f"{name}={REDACTED}"
    return f"{base}?{''.join(parts)}"


def configured_secrets() -> tuple[str, ...]:
    """The admin key and the referee keys the settings hold (none when the settings
    cannot be read: the service refuses to start then)."""
    from tilecam.settings import SettingsError, get_settings

    try:
        settings = get_settings()
        return (settings.admin_key, *(key for _, key in settings.referees))
    except (SettingsError, ValueError):
        return ()


class RedactKeys(logging.Filter):
    """A filter of uvicorn's access log (``uvicorn.access``) that writes each request's
    secrets :data:`REDACTED` (:func:`redacted_path`; the admin and referee keys are read
    from the settings, in the worker process, when the filter is made): uvicorn logs the
    whole path and query, so a key sent as ``?key=tc_…`` was kept in full in the server's
    log. A record of another shape is let through as it is."""

    def __init__(self, name: str = "", secrets: Iterable[str] | None = None) -> None:
        super().__init__(name)
        self.secrets = tuple(configured_secrets() if secrets is None else secrets)

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if isinstance(args, tuple) and len(args) == 5 and isinstance(args[2], str):
            record.args = (*args[:2], redacted_path(args[2], self.secrets), *args[3:])
        return True


def log_config() -> dict[str, Any]:
    """uvicorn's logging configuration, with :class:`RedactKeys` on its access log (each
    worker process applies it)."""
    from uvicorn.config import LOGGING_CONFIG

    config = copy.deepcopy(LOGGING_CONFIG)
    config.setdefault("filters", {})["redact_keys"] = {
        "()": f"{RedactKeys.__module__}.{RedactKeys.__qualname__}"}
    access = config.setdefault("loggers", {}).setdefault("uvicorn.access", {})
    access["filters"] = [*access.get("filters", []), "redact_keys"]
    return config
