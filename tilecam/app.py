"""The FastAPI application factory.

Routers are modules in :mod:`tilecam.api.routes` that define ``router``
(an :class:`fastapi.APIRouter`); they are discovered and included in name order,
so adding an endpoint module never touches this file.

Every error is answered as JSON ``{"error": {"code", "message"}}``
(see :mod:`tilecam.api.errors`).
"""

from __future__ import annotations

import importlib
import pkgutil

from fastapi import FastAPI

from tilecam import __version__
from tilecam.api import routes
from tilecam.api.errors import install_error_handlers


def create_app() -> FastAPI:
    """Build the service app (uvicorn calls this with ``factory=True``)."""
    app = FastAPI(
        title="tilecam",
        version=__version__,
        description="Mahjong hand recognition and scoring (MCR, Xiamen, Zhenjiang).",
    )
    install_error_handlers(app)
    for info in sorted(pkgutil.iter_modules(routes.__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{routes.__name__}.{info.name}")
        app.include_router(module.router)
    return app
