"""FastAPI dependencies of the event-table endpoints: database, keys, rate limits, recognizer.

- The database is opened on first use (per app and URL) and migrated to the newest
  schema (:func:`tilecam.db.upgrade`), so a fresh data dir just works.
- Keys come as ``Authorization: Bearer KEY`` (or ``X-Api-Key: KEY``). The admin key
  (``TILECAM_ADMIN_KEY``) opens admin and referee endpoints and may read any table; so
  does each named referee key (``TILECAM_REFEREE_KEYS``, ``name:key,…``), whose holder's
  rulings are written by ``referee NAME`` rather than ``referee`` (:attr:`Caller.author`);
  a table key opens only its own table; a table's viewing key (``tv_…``) only reads it
  (:func:`require_reader`). No key or an unknown key: 401; a valid key for something
  else: 403.
- Each key (by its hash) has a token bucket (``rate_limit_per_s``, ``rate_limit_burst``);
  the admin key has its own, higher by default (``admin_rate_limit_per_s``,
  ``admin_rate_limit_burst``: :data:`ADMIN_BUCKET`), and so has each referee key, with
  the admin key's settings; failed authentications are limited
  per client address. Over the limit: 429 with ``Retry-After``, whose whole seconds the
  message says too.

The refused keys' limit is per address, not per key: it bounds guessing from one place
(each guess is another key, so a limit per key would bound nothing). Its cost falls on
clients behind one address (a NAT, a proxy) that send wrong keys — after a device with a
stale key has spent the address's refusals, another wrong key from there is 429 rather
than 401 — never on a valid key, which this limit does not hold back; that 429's message
says the key was refused as well, and why (:func:`_fail`), so that sending it again is
not mistaken for the cure.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any

import numpy as np
from fastapi import Depends, Path, Request
from sqlalchemy.orm import Session, sessionmaker

from tilecam.api.errors import ApiError, may_read_database_reason, unavailable
from tilecam.db import GameTable, get_engine, session_factory, upgrade
from tilecam.db.engine import first_line
from tilecam.settings import Settings
from tilecam.tables import sheet
from tilecam.tables.camera import FrameReader, FrameReading, reading_from_recognition
from tilecam.tables.keys import VIEW_PREFIX, hash_key, verify_admin_key, verify_key
from tilecam.tables.ratelimit import RateLimiter, retry_after_s

log = logging.getLogger("tilecam.api")
_init_lock = threading.Lock()

#: A row id in a URL: positive and within a 32-bit database integer.
RowId = Annotated[int, Path(ge=1, le=2**31 - 1)]


def app_settings(request: Request) -> Settings:
    """The settings the app was built with (falls back to the environment's)."""
    settings = getattr(request.app.state, "settings", None)
    if settings is None:
        from tilecam.settings import get_settings

        settings = get_settings()
    return settings


def database(request: Request) -> sessionmaker[Session]:
    """Session factory of the app's database, migrated on first use.

    A database that cannot be opened is a 503 ``database_unavailable`` (``Retry-After``
    when trying again may help); the driver's reason is logged, and said only to a caller
    with the admin key (:func:`tilecam.api.errors.may_read_database_reason`): it names
    the database server's host, port and user, and this runs before any key is checked."""
    state = request.app.state
    sf: sessionmaker[Session] | None = getattr(state, "table_db", None)
    if sf is not None:
        return sf
    with _init_lock:
        sf = getattr(state, "table_db", None)
        if sf is None:
            settings = app_settings(request)
            url = settings.sqlalchemy_url
            try:
                engine = get_engine(url)
                upgrade(engine, settings=settings)  # its copy as the app's settings say
            except Exception as exc:
                reason = first_line(exc)
                log.warning("the database cannot be opened on %s %s: %s", request.method,
                            request.url.path, reason)
                # the driver's text names the server's host, port and user: the admin's
                message, headers = unavailable("the database cannot be opened", reason, url,
                                               show_reason=may_read_database_reason(request))
                raise ApiError(503, "database_unavailable", message,
                               headers=headers) from None
            sf = state.table_db = session_factory(engine)
    return sf


#: The rate-limit buckets of the admin key and of each referee key (:data:`ADMIN_BUCKET`,
#: one bucket per key) have their own settings
#: (``admin_rate_limit_per_s``, ``admin_rate_limit_burst``); every other bucket — the
#: table and viewing keys, failed authentications — the keys' (``rate_limit_per_s``,
#: ``rate_limit_burst``).
ADMIN_BUCKET = "admin_key_limiter"


def _limiter(request: Request, name: str) -> RateLimiter:
    state = request.app.state
    limiter = getattr(state, name, None)
    if limiter is None:
        with _init_lock:
            limiter = getattr(state, name, None)
            if limiter is None:
                s = app_settings(request)
                limiter = (RateLimiter(s.admin_rate_limit_per_s, s.admin_rate_limit_burst)
                           if name == ADMIN_BUCKET else
                           RateLimiter(s.rate_limit_per_s, s.rate_limit_burst))
                setattr(state, name, limiter)
    return limiter


def _throttle(request: Request, bucket: str, key: str,
              what: str = "too many requests with this key",
              code: str = "rate_limited") -> None:
    """429 ``code`` when ``key``'s token bucket of ``bucket`` is empty: ``what``
    and the whole seconds to wait, which ``Retry-After`` gives too
    (:func:`tilecam.tables.ratelimit.retry_after_s`)."""
    wait = _limiter(request, bucket).check(key)
    if wait > 0:
        seconds = retry_after_s(wait)
        raise ApiError(429, code, f"{what}: retry in {seconds} s",
                       headers={"Retry-After": str(seconds)})


def presented_key(request: Request) -> str | None:
    """The key sent with the request, if any."""
    auth = request.headers.get("authorization", "")
    if auth[:7].lower() == "bearer ":
        return auth[7:].strip() or None
    return request.headers.get("x-api-key", "").strip() or None


def _fail(request: Request, status: int, code: str, message: str) -> ApiError:
    """The refusal (``status``, ``code``, ``message``: a 401 or 403) of a request's key,
    counted against its address: past the address's limit it is a 429 instead, whose
    message says that the request is refused anyway, and why — sending it again as it
    is will not help — and that a valid key is not held back. Its code is
    ``keys_refused``, not ``rate_limited``: waiting does not make the key valid."""
    client = request.client.host if request.client else "unknown"
    _throttle(request, "auth_fail_limiter", f"fail:{client}",
              f"this request is refused ({status} {code}: {message}), and too many "
              "refused keys came from this address: sent again as it is, it is refused "
              "again (a valid key is not held back by this limit)", code="keys_refused")
    headers = {"WWW-Authenticate": "Bearer"} if status == 401 else None
    return ApiError(status, code, message, headers=headers)


@dataclass(frozen=True)
class Caller:
    """Who is calling: the admin (referee) — with ``referee`` the name of a named referee
    key's holder, None for the admin key —, or the table whose key was sent."""

    admin: bool
    table_id: int | None
    referee: str | None = None

    @property
    def is_admin_key(self) -> bool:
        """Whether the caller holds the admin key itself (``TILECAM_ADMIN_KEY``) — the
        operator's — and not a named referee key: :attr:`admin` is true for both, but only
        the admin key is told the database driver's own reason for a failure (it names the
        database's host, port and user), as
        :func:`tilecam.api.errors.may_read_database_reason` decides for a 503."""
        return self.admin and self.referee is None

    @property
    def author(self) -> str:
        """Who what the caller records is written by: ``referee`` (the admin key),
        ``referee NAME`` (a named referee key), ``table:ID`` (a table's key)."""
        if not self.admin:
            return f"table:{self.table_id}"
        return f"referee {self.referee}" if self.referee else "referee"


def _staff_caller(key: str, settings: Settings, table_id: int | None) -> Caller | None:
    """The admin's or a named referee's :class:`Caller` when ``key`` is the admin key or
    one of ``TILECAM_REFEREE_KEYS``, else None. Each configured key is compared, in
    constant time, whichever matches."""
    found: Caller | None = None
    if verify_admin_key(key, settings.admin_key):
        found = Caller(admin=True, table_id=table_id)
    for name, referee_key in settings.referees:
        if verify_admin_key(key, referee_key) and found is None:
            found = Caller(admin=True, table_id=table_id, referee=name)
    return found


def require_admin(
    request: Request, sf: Annotated[sessionmaker[Session], Depends(database)]
) -> Caller:
    """Only the admin key or a named referee key (401 without a key or with an unknown
    one, 403 with a table key)."""
    settings = app_settings(request)
    if not settings.admin_key and not settings.referees:
        raise ApiError(403, "admin_disabled",
                       "admin endpoints are off: start the service with TILECAM_ADMIN_KEY set "
                       "in its environment to enable them (or TILECAM_REFEREE_KEYS, named "
                       "referees' keys)")
    key = presented_key(request)
    if key is None:
        raise _fail(request, 401, "unauthorized",
                    "this endpoint needs the admin key or a referee key "
                    "(Authorization: Bearer KEY)")
    caller = _staff_caller(key, settings, None)
    if caller is not None:
        _throttle(request, ADMIN_BUCKET, hash_key(key))
        return caller
    with sf() as session:
        table = sheet.table_for_key(session, key)
        viewer = table is None and sheet.table_for_view_key(session, key) is not None
    if table is not None:
        raise _fail(request, 403, "forbidden", "a table key cannot use admin endpoints")
    if viewer:
        raise _fail(request, 403, "forbidden", "a viewing key only reads its table's sheet")
    raise _fail(request, 401, "unauthorized", "the key is not valid")


def require_table(
    table_id: RowId,
    request: Request,
    sf: Annotated[sessionmaker[Session], Depends(database)],
) -> Caller:
    """The table's own key, the admin key or a named referee key; a key of another table
    gets 403."""
    key = presented_key(request)
    if key is None:
        raise _fail(request, 401, "unauthorized",
                    f"table {table_id} needs its key (Authorization: Bearer KEY)")
    caller = _staff_caller(key, app_settings(request), table_id)
    if caller is not None:
        _throttle(request, ADMIN_BUCKET, hash_key(key))
        with sf() as session:
            if session.get(GameTable, table_id) is None:
                raise ApiError(404, "not_found", f"no table {table_id}")
        return caller
    with sf() as session:
        table = sheet.table_for_key(session, key)
        if table is None:
            if sheet.table_for_view_key(session, key) is not None:
                raise _fail(request, 403, "forbidden", "a viewing key only reads the sheet: "
                            "this needs the table's key")
            raise _fail(request, 401, "unauthorized", "the key is not valid")
        own = table.id == table_id and verify_key(key, table.key_hash)
    if not own:
        raise _fail(request, 403, "forbidden", f"this key belongs to another table, "
                    f"not table {table_id}")
    _throttle(request, "key_limiter", hash_key(key))
    return Caller(admin=False, table_id=table_id)


def require_reader(
    table_id: RowId,
    request: Request,
    sf: Annotated[sessionmaker[Session], Depends(database)],
) -> Caller:
    """Reading the sheet: the table's viewing key (``tv_…``), or whatever
    :func:`require_table` takes; another table's viewing key gets 403."""
    key = presented_key(request)
    if key is not None and key.startswith(VIEW_PREFIX):
        with sf() as session:
            table = sheet.table_for_view_key(session, key)
            mine = table is not None and table.id == table_id and table.view_key_hash is not None \
                and verify_key(key, table.view_key_hash)
        if table is None:  # no table's viewing key: the admin's, perhaps, or none
            return require_table(table_id, request, sf)
        if not mine:
            raise _fail(request, 403, "forbidden", f"this key belongs to another table, "
                        f"not table {table_id}")
        _throttle(request, "key_limiter", hash_key(key))
        return Caller(admin=False, table_id=table_id)
    return require_table(table_id, request, sf)


def frame_reader(request: Request, table_id: RowId) -> FrameReader:
    """The recognizer for camera frames: :func:`vision.recognize` with the app's detector,
    each frame's tile readings averaged with those of the table's earlier frames of the
    same scene (``TILECAM_CAMERA_FUSE_FRAMES`` frames in all; 1: each frame alone).

    ``table_id`` is the route's, validated as the route validates it (a path such as
    ``/v1/tables/null/frames`` is a 422, not an ``int()`` error).
    Tests override this dependency with a fake.
    """
    detector = getattr(request.app.state, "detector", None)
    if detector is None:
        reason = getattr(request.app.state, "detector_error", None) or "no model loaded"
        raise ApiError(503, "not_ready", f"the tile detector is not available: {reason}")
    from vision.frame_fusion import FrameMemory

    frames = app_settings(request).camera_fuse_frames
    with _init_lock:
        memory = getattr(request.app.state, "frame_memory", None)
        if memory is None or memory.frames != frames:
            memory = request.app.state.frame_memory = FrameMemory(frames)

    def read(image: np.ndarray, rules: str, context: Mapping[str, Any]) -> FrameReading:
        from vision.recognize import recognize

        fused = memory.read(table_id, detector(image))
        result = recognize(image, rules, dict(context) or None, detector=detector,
                           detections=fused)
        data = result.to_dict()
        together = int(fused.meta.get("fused_frames", 1))
        if together > 1:  # say so with the reading the sheet keeps
            data["notes"] = [*data["notes"], f"tiles read together over {together} frames "
                             "of the same scene"]
        return reading_from_recognition(data, refused_win=result.refused_win)

    return read


def photo_reader(request: Request) -> FrameReader:
    """The recognizer for one photo of a hand (``POST /v1/tables/{id}/photos``):
    :func:`vision.recognize` with the app's detector, the photo read alone — not averaged
    with a camera's frames (:func:`frame_reader`), so the same photo sent again reads the
    same. 503 ``not_ready`` without a model. Tests override this dependency with a fake."""
    detector = getattr(request.app.state, "detector", None)
    if detector is None:
        reason = getattr(request.app.state, "detector_error", None) or "no model loaded"
        raise ApiError(503, "not_ready", f"the tile detector is not available: {reason}")

    def read(image: np.ndarray, rules: str, context: Mapping[str, Any]) -> FrameReading:
        from vision.recognize import recognize

        result = recognize(image, rules, dict(context) or None, detector=detector)
        return reading_from_recognition(result.to_dict(), refused_win=result.refused_win)

    return read
