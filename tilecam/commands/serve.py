"""``tilecam serve``: run the HTTP service with uvicorn."""

from __future__ import annotations

import argparse
from typing import Any


def register(sub: Any) -> None:
    p = sub.add_parser("serve", help="run the HTTP service (API and phone page)")
    p.add_argument("--host", default=None, help="bind address (default from settings: 127.0.0.1)")
    p.add_argument("--port", type=int, default=None, help="TCP port (default from settings: 8000)")
    p.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import uvicorn

    from tilecam.settings import get_settings

    settings = get_settings()
    uvicorn.run(
        "tilecam.app:create_app",
        factory=True,
        host=args.host or settings.host,
        port=args.port or settings.port,
        workers=max(1, args.workers),
        log_level="info",
    )
    return 0
