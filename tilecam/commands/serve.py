"""``tilecam serve``: run the HTTP service (API and phone page) with uvicorn.

Settings come from ``TILECAM_*`` environment variables (:mod:`tilecam.settings`);
``--host``/``--port`` override them. Each worker process loads the detector once
at startup and runs up to ``TILECAM_RECOGNIZE_CONCURRENCY`` recognitions at a time.
"""

from __future__ import annotations

import argparse
from typing import Any


def register(sub: Any) -> None:
    p = sub.add_parser(
        "serve",
        help="run the HTTP service (API and phone page)",
        description="Run the tilecam HTTP service: the API under /v1, docs at /docs, "
        "the phone page at /.",
    )
    p.add_argument("--host", default=None, help="bind address (default from settings: 127.0.0.1)")
    p.add_argument("--port", type=int, default=None, help="TCP port (default from settings: 8000)")
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


def run(args: argparse.Namespace) -> int:
    import uvicorn

    from tilecam.settings import get_settings

    if args.workers < 1:
        raise ValueError(f"--workers must be at least 1, got {args.workers}")
    port = args.port if args.port is not None else get_settings().port
    if not 0 <= port <= 65535:
        raise ValueError(f"--port must be 0-65535, got {port}")
    settings = get_settings()
    uvicorn.run(
        "tilecam.app:create_app",
        factory=True,
        host=args.host or settings.host,
        port=port,
        workers=args.workers,
        log_level=args.log_level,
        access_log=not args.no_access_log,
        timeout_graceful_shutdown=5,
    )
    return 0
