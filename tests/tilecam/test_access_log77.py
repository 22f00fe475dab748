"""The access log keeps no key sent in a URL (the table-client review of the
seventy-seventh session, finding 7a): ``GET /v1/tables/13/hands?key=tc_…`` was written in
full by uvicorn's access log. ``tilecam serve`` now gives uvicorn a logging
configuration (:func:`tilecam.commands.serve.log_config`) whose access log writes the
value of a key-like query parameter ``[redacted]``.
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
