"""``tilecam serve``: run the HTTP service (API and phone page) with uvicorn.

Settings come from ``TILECAM_*`` environment variables (:mod:`tilecam.settings`);
``--host``/``--port`` override them. Each worker process loads the detector once
at startup and runs up to ``TILECAM_RECOGNIZE_CONCURRENCY`` recognitions at a time.
"""

from __future__ import annotations

import argparse
import errno
import socket
from typing import Any


def register(sub: Any) -> None:
    p = sub.add_parser(
        "serve",
        help="run the HTTP service (API and phone page)",
        description="Run the tilecam HTTP service: the API under /v1, docs at /docs, "
        "the phone page at /.",
    )
    p.add_argument("--host", default=None, help="bind address (default from settings: 127.0.0.1)")
    p.add_argument("--port", type=port_number, default=None,
                   help="TCP port (default from settings: 8000)")
    p.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    p.add_argument(
        "--log-level",
        default="info",
        choices=["critical", "error", "warning", "info", "debug"],
        help="server log level (default info)",
    )
    p.add_argument(
        "--no-access-log", action="store_true", help="do not log each request (faster under load)"
    )
    p.set_defaults(func=run)


def port_number(text: str) -> int:
    """``--port``'s value as a whole number (:func:`run` checks its range). ``make serve``
    passes ``TILECAM_PORT`` (or ``PORT=``) here, so the message names them too.

    >>> port_number("8080")
    8080
    >>> port_number("abc")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: 'abc' is not a port (a whole number 0-65535; ...
    """
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a port (a whole number 0-65535; make serve passes TILECAM_PORT "
            "or PORT= here)") from None


def check_runtime_settings() -> None:
    """Raise ValueError naming a bad ``TILECAM_THREADS`` or ``TILECAM_SPIN`` (read by the
    model's runtime, not :mod:`tilecam.settings`) or a database URL that is none, before
    the service starts: otherwise it would start, and answer every photo 503 when the
    model failed to load, or every table request 503 "try again"."""
    from tilecam.db.engine import parsed_url
    from tilecam.settings import get_settings
    from vision.backends.onnx import default_threads, spinning

    default_threads()
    spinning()
    try:
        parsed_url(get_settings().sqlalchemy_url)
    except ValueError as exc:
        raise ValueError(f"TILECAM_DATABASE_URL: {exc}") from None


def run(args: argparse.Namespace) -> int:
    import uvicorn

    from tilecam.settings import get_settings

    if args.workers < 1:
        raise ValueError(f"--workers must be at least 1, got {args.workers}")
    port = args.port if args.port is not None else get_settings().port
    if not 0 <= port <= 65535:
        raise ValueError(f"--port must be 0-65535, got {port}")
    settings = get_settings()
    check_runtime_settings()
    host = args.host or settings.host
    problem = bind_problem(host, port)  # before the model loads and uvicorn says it its way
    if problem is not None:
        raise ValueError(problem)
    uvicorn.run(
        "tilecam.app:create_app",
        factory=True,
        host=host,
        port=port,
        workers=args.workers,
        log_level=args.log_level,
        access_log=not args.no_access_log,
        timeout_graceful_shutdown=5,
    )
    return 0


def bind_problem(host: str, port: int) -> str | None:
    """Why the service could not listen on ``host``:``port``, in words that say what to
    do, or None when it can (the address is tried the way the server binds it, then let
    go; another program may still take it in between, and the server then says so).

    >>> import socket
    >>> with socket.socket() as held:
    ...     held.bind(("127.0.0.1", 0)); held.listen()
    ...     print("already in use" in bind_problem("127.0.0.1", held.getsockname()[1]))
    True
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET  # as uvicorn chooses it
    try:
        found = socket.getaddrinfo(host, port, family, socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        return (f"cannot serve on host {host!r}: {getattr(exc, 'strerror', None) or exc} "
                "(127.0.0.1: this machine only; 0.0.0.0: every network)")
    address = found[0][4]
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
        try:
            s.bind(address)
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                return (f"port {port} on {host} is already in use (another tilecam serve, or "
                        "another program): stop it, or choose another port "
                        "(make serve PORT=8001, or tilecam serve --port 8001)")
            if exc.errno == errno.EACCES:
                return (f"no permission to listen on port {port} (ports under 1024 need "
                        "administrator rights): choose a port of 1024 or more")
            if exc.errno == errno.EADDRNOTAVAIL:
                return (f"{host} is not an address of this machine: serve on 127.0.0.1 "
                        "(this machine only) or 0.0.0.0 (every network)")
            return f"cannot listen on {host}:{port}: {exc.strerror or exc}"
    return None
