"""The FastAPI application factory.

Routers are modules in :mod:`tilecam.api.routes` that define ``router``
(an :class:`fastapi.APIRouter`); they are discovered and included in name order
(a module may set ``ROUTE_PRIORITY``, default 100; lower is matched first, which the
hot ``/v1/score`` path uses), so adding an endpoint module never touches this file.

At startup (the lifespan) the tile detector is loaded once from
``Settings.model_dir`` when a model is there; ``GET /readyz`` says whether it is.
The scoring endpoints work without a model. At a clean stop the lifespan closes the
database's engine (:func:`tilecam.db.engine.dispose_engine`): a SQLite file's
write-ahead log is folded into it.

Every error is answered as JSON ``{"error": {"code", "message"}}``
(see :mod:`tilecam.api.errors`); request bodies are capped in size and in time
(``request_timeout_s``) by :class:`tilecam.api.upload.BodyLimitMiddleware`.
"""

from __future__ import annotations

import importlib
import logging
import pkgutil
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

from tilecam import __version__
from tilecam.api import routes
from tilecam.api.deps import RecognitionLimiter
from tilecam.api.errors import install_error_handlers
from tilecam.api.openapi import install_openapi
from tilecam.api.routes.waits import AnalysisLimiter
from tilecam.api.upload import FORM_OVERHEAD_BYTES, BodyLimitMiddleware
from tilecam.db.engine import dispose_engine
from tilecam.settings import Settings, get_settings

log = logging.getLogger("tilecam.app")

STATIC_DIR = Path(__file__).resolve().parent / "static"


def load_detector_into(app: FastAPI, settings: Settings) -> None:
    """Load the detector from ``settings.model_dir`` onto ``app.state`` (once, at startup).

    Leaves ``app.state.detector`` as ``None`` and the reason in
    ``app.state.detector_error`` when there is no model or it cannot be loaded, so
    the rest of the service (scoring) still runs and ``/readyz`` explains.
    """
    app.state.detector = None
    app.state.detector_error = None
    app.state.detector_load_s = None
    if not settings.load_model:
        app.state.detector_error = "model loading is turned off (TILECAM_LOAD_MODEL=0)"
        return
    manifest = settings.model_dir / "manifest.json"
    if not manifest.is_file():
        app.state.detector_error = f"no model: {manifest} does not exist"
        log.warning("tilecam: %s; recognition answers 503", app.state.detector_error)
        return
    start = time.perf_counter()
    try:
        from vision import load_detector

        threads = settings.detector_threads
        options = {"threads": threads} if threads > 0 else {}
        app.state.detector = load_detector(settings.model_dir, **options)
    except Exception as exc:  # a broken model must not stop the scoring service
        app.state.detector_error = f"the model in {settings.model_dir} failed to load: {exc}"
        log.exception("tilecam: %s", app.state.detector_error)
        return
    app.state.detector_load_s = round(time.perf_counter() - start, 3)
    log.info("tilecam: detector loaded in %.2f s", app.state.detector_load_s)


def create_app(settings: Settings | None = None) -> FastAPI:
    """Build the service app (uvicorn calls this with ``factory=True``).

    ``settings`` defaults to the process settings from the environment.
    """
    settings = settings or get_settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        load_detector_into(app, settings)
        app.state.limiter = RecognitionLimiter(
            settings.recognize_concurrency, settings.request_timeout_s, settings.recognize_queue
        )
        app.state.waits_limiter = AnalysisLimiter(
            settings.waits_concurrency, settings.request_timeout_s,
            processes=settings.waits_processes)
        try:
            yield
        finally:
            try:
                app.state.limiter.shutdown()
                await app.state.waits_limiter.aclose()
            finally:
                # SQLite: the write-ahead log folded into tilecam.db, so that the file
                # alone holds every row once the service has stopped; an app started
                # again opens (and checks) the database afresh
                app.state.table_db = None  # tilecam.tables.access.database's
                dispose_engine(settings.sqlalchemy_url)

    app = FastAPI(
        title="tilecam",
        version=__version__,
        description=(
            "Mahjong hand recognition and scoring (MCR, Xiamen, Zhenjiang). "
            'Every error is JSON: {"error": {"code": "...", "message": "..."}}. '
            "Event, table and referee endpoints take a key as Authorization: Bearer KEY "
            "(or X-Api-Key: KEY): the admin key (TILECAM_ADMIN_KEY) or a named referee's "
            "key (TILECAM_REFEREE_KEYS), a table's key, or a "
            "table's viewing key for reading its sheet — each operation says which."
        ),
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.state.detector = None
    app.state.detector_error = "the service is starting"
    install_error_handlers(app)
    app.add_middleware(
        BodyLimitMiddleware, max_bytes=settings.max_upload_bytes + FORM_OVERHEAD_BYTES,
        form_bytes=FORM_OVERHEAD_BYTES, timeout_s=settings.request_timeout_s,
    )
    modules = [
        importlib.import_module(f"{routes.__name__}.{info.name}")
        for info in sorted(pkgutil.iter_modules(routes.__path__), key=lambda m: m.name)
        if not info.name.startswith("_")
    ]
    # Requests are matched against routes in order: hot paths (ROUTE_PRIORITY 0) first.
    for module in sorted(modules, key=lambda m: getattr(m, "ROUTE_PRIORITY", 100)):
        app.include_router(module.router)
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    # keys, error shapes and codes in /openapi.json and /docs
    install_openapi(app, [module.router for module in modules])
    return app
