"""The access log keeps no key sent in a URL (the table-client review of the
seventy-seventh session, finding 7a): ``GET /v1/tables/13/hands?key=tc_…`` was written in
full by uvicorn's access log. ``tilecam serve`` now gives uvicorn a logging
configuration (:func:`tilecam.access_log.log_config`) whose access log writes the
value of a key-like query parameter ``[redacted]``.

The polish of review 77 (finding 2) closes what that missed: a key with no ``=``, behind
``Bearer``, after ``;`` or percent-encoded; the admin and referee keys (free-form
strings) under any parameter name or none; and it keeps ``monkey`` and ``author``, which
were blanked for holding ``key`` and ``auth``.
"""

from __future__ import annotations

import io
import logging
import logging.config
from collections.abc import Iterator
from typing import Any

import pytest
from uvicorn.protocols.utils import get_path_with_query_string

from tilecam.cli import main
from tilecam.commands import serve
from tilecam.settings import get_settings

TABLE_KEY = "tc_Zm9vYmFyYmF6cXV4cXV1eGZvb2Jhcg"
VIEW_KEY = "tv_dmlld2luZ2tleXZpZXdpbmdrZXk"
ADMIN_KEY = "admin-key-for-tests-0123456789"
LOGGERS = ("uvicorn", "uvicorn.error", "uvicorn.access")


@pytest.fixture()
def uvicorn_logs() -> Iterator[None]:
    """Put uvicorn's loggers back as they were after the test configures them."""
    kept = {name: (lg.handlers[:], lg.filters[:], lg.level, lg.propagate)
            for name in LOGGERS for lg in [logging.getLogger(name)]}
    yield
    for name, (handlers, filters, level, propagate) in kept.items():
        lg = logging.getLogger(name)
        lg.handlers[:], lg.filters[:] = handlers, filters
        lg.level, lg.propagate = level, propagate


def served_config(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """The logging configuration ``tilecam serve`` hands uvicorn (uvicorn.run stubbed)."""
    seen: dict[str, Any] = {}
    monkeypatch.setattr("uvicorn.run", lambda *a, **kw: seen.update(kw))
    monkeypatch.setattr(serve, "bind_problem", lambda host, port: None)
    monkeypatch.setenv("TILECAM_LOAD_MODEL", "0")
    assert main(["serve", "--port", "8875"]) == 0
    assert "log_config" in seen, "tilecam serve leaves uvicorn its own logging"
    config: dict[str, Any] = seen["log_config"]
    return config


def access_line(config: dict[str, Any], path: str, query: str) -> str:
    """The access log's line for ``GET path?query`` answered 401, logged as uvicorn's
    HTTP protocols log it, under ``config`` with its access handler writing to a buffer."""
    buffer = io.StringIO()
    config["handlers"]["access"]["stream"] = buffer
    logging.config.dictConfig(config)
    scope = {"raw_path": path.encode(), "query_string": query.encode()}
    logging.getLogger("uvicorn.access").info(
        '%s - "%s %s HTTP/%s" %d', "10.0.0.7:5555", "GET",
        get_path_with_query_string(scope), "1.1", 401)  # type: ignore[arg-type]
    return buffer.getvalue()


def test_a_key_in_the_url_is_not_written_to_the_access_log(
        monkeypatch: pytest.MonkeyPatch, uvicorn_logs: None) -> None:
    """``key=tc_…``, a viewing key under any name, ``X-Api-Key=`` and ``api_key=``
    (percent-encoded) are written ``[redacted]``; the path, the other parameters and
    the status stay."""
    config = served_config(monkeypatch)
    query = (f"key={TABLE_KEY}&page=2&t={VIEW_KEY}&X-Api-Key={ADMIN_KEY}"
             f"&api%5Fkey={ADMIN_KEY}")
    line = access_line(config, "/v1/tables/13/hands", query)
    assert TABLE_KEY not in line and VIEW_KEY not in line and ADMIN_KEY not in line, line
    assert ('"GET /v1/tables/13/hands?key=[redacted]&page=2&t=[redacted]'
            '&X-Api-Key=[redacted]&api%5Fkey=[redacted] HTTP/1.1" 401') in line, line


def test_a_url_without_a_key_is_logged_as_it_came(
        monkeypatch: pytest.MonkeyPatch, uvicorn_logs: None) -> None:
    config = served_config(monkeypatch)
    line = access_line(config, "/v1/rules", "rules=mcr&version=2006")
    assert '"GET /v1/rules?rules=mcr&version=2006 HTTP/1.1" 401' in line, line
    assert '"GET /healthz HTTP/1.1" 401' in access_line(config, "/healthz", "")


#: An admin key and a referee key as an operator may choose them (a space inside is
#: allowed), set through the environment as ``tilecam serve`` reads them.
SPACED_ADMIN_KEY = "open sesame 2026"
REFEREE_KEY = "Wang-referee-pass"


@pytest.fixture()
def served_with_keys(monkeypatch: pytest.MonkeyPatch,
                     uvicorn_logs: None) -> Iterator[dict[str, Any]]:
    """The logging configuration ``tilecam serve`` hands uvicorn with
    ``TILECAM_ADMIN_KEY`` and ``TILECAM_REFEREE_KEYS`` set."""
    monkeypatch.setenv("TILECAM_ADMIN_KEY", SPACED_ADMIN_KEY)
    monkeypatch.setenv("TILECAM_REFEREE_KEYS", f"Wang:{REFEREE_KEY}")
    get_settings.cache_clear()
    try:
        yield served_config(monkeypatch)
    finally:
        get_settings.cache_clear()


@pytest.mark.parametrize(("query", "logged"), [
    (TABLE_KEY, "[redacted]"),  # a key with no name and no "="
    (f"page=2&{TABLE_KEY}", "page=2&[redacted]"),
    (f"k=Bearer+{TABLE_KEY}", "k=[redacted]"),
    (f"k=Bearer%20{TABLE_KEY}", "k=[redacted]"),
    (f"a=1;key={TABLE_KEY}", "a=1;key=[redacted]"),
    (f"a=1;t={VIEW_KEY}", "a=1;t=[redacted]"),
    (f"v=tv%5F{VIEW_KEY[3:]}", "v=[redacted]"),  # "_" percent-encoded
    (f"v=tv%255F{VIEW_KEY[3:]}", "v=[redacted]"),  # encoded twice
    ("admin=open+sesame+2026&page=1", "admin=[redacted]&page=1"),
    ("admin=open%20sesame%202026", "admin=[redacted]"),
    ("admin=open%20sesame+2026", "admin=[redacted]"),  # a mix
    ("admin=%6Fpen%20sesame%202026", "admin=[redacted]"),  # a letter encoded
    (f"k={REFEREE_KEY}", "k=[redacted]"),
    (f"k=Bearer+{REFEREE_KEY}", "k=Bearer+[redacted]"),
    (REFEREE_KEY, "[redacted]"),
    ("pw=x&passwd=y&Authorization=z", "pw=[redacted]&passwd=[redacted]"
                                      "&Authorization=[redacted]"),
    ("accessToken=x&access_token=y&apikey=z", "accessToken=[redacted]"
                                              "&access_token=[redacted]&apikey=[redacted]"),
])
def test_each_form_of_a_key_in_the_url_is_redacted(
        served_with_keys: dict[str, Any], query: str, logged: str) -> None:
    """A table or viewing key anywhere in the query (no ``=``, behind ``Bearer``, after
    ``;``, percent-encoded once or twice), the admin and referee keys by value under any
    name (as given, ``%20`` or ``+`` for the space, in any mix) and the value of a
    parameter whose name's last word is a key's (``pw``, ``passwd``, ``Authorization``,
    ``accessToken`` …) are written ``[redacted]``: before the polish each of these was
    logged in full."""
    line = access_line(served_with_keys, "/v1/tables/13/hands", query)
    assert f'"GET /v1/tables/13/hands?{logged} HTTP/1.1" 401' in line, line
    for secret in (TABLE_KEY, VIEW_KEY[3:], "sesame", REFEREE_KEY):
        assert secret not in line, line


def test_a_key_in_the_path_is_redacted(served_with_keys: dict[str, Any]) -> None:
    """A key or the admin key sent as a path segment (a client's mistake, answered 404)
    is not kept in the log either."""
    line = access_line(served_with_keys, f"/v1/tables/{TABLE_KEY}/open%20sesame%202026",
                       "")
    assert '"GET /v1/tables/[redacted]/[redacted] HTTP/1.1" 401' in line, line


def test_names_that_only_contain_key_or_auth_are_kept(
        served_with_keys: dict[str, Any]) -> None:
    """``monkey`` and ``author`` are not key names (whole words only: ``key`` and
    ``auth`` were matched anywhere in a name, so both values were blanked), nor are
    ``keys``, ``key_id`` or ``tokens_left``."""
    query = "monkey=1&author=ann&keys=3&key_id=7&tokens_left=2"
    line = access_line(served_with_keys, "/v1/rules", query)
    assert f'"GET /v1/rules?{query} HTTP/1.1" 401' in line, line
