"""Engines and sessions for SQLite (default) and PostgreSQL.

SQLite is opened in WAL mode with ``synchronous=FULL`` (an acknowledged commit
survives a killed process and a power cut), foreign keys on, a 30 s busy
timeout, and every transaction started with ``BEGIN IMMEDIATE`` so that two
processes writing at once queue for the lock instead of failing half-way.
"""

from __future__ import annotations

import logging
import os
import re
import threading
from pathlib import Path
from typing import Any

from sqlalchemy import URL, Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError
from sqlalchemy.orm import Session, sessionmaker

from tilecam.db.backup import COPY_NOT_WRITTEN

log = logging.getLogger("tilecam.db")
_engines: dict[str, Engine] = {}
_lock = threading.Lock()


def sqlite_file(url: str) -> Path | None:
    """The file of a SQLite URL, or None for in-memory databases and other backends.

    >>> sqlite_file("sqlite:////srv/t.db"), sqlite_file("sqlite://")
    (PosixPath('/srv/t.db'), None)
    >>> sqlite_file("sqlite:///file:x?mode=memory&uri=true"), sqlite_file(
    ...     "sqlite:///file:/srv/t.db?uri=true")
    (None, PosixPath('/srv/t.db'))
    """
    parsed = make_url(url)
    if not parsed.drivername.startswith("sqlite"):
        return None
    if not parsed.database or parsed.database == ":memory:":
        return None
    if parsed.query.get("uri") == "true":  # an SQLite URI filename: file:PATH?mode=…
        if parsed.query.get("mode") == "memory":
            return None
        return Path(parsed.database.removeprefix("file:"))
    return Path(parsed.database)


#: What a database URL looks like, for messages.
URL_FORMS = "sqlite:///FILE or postgresql://USER@HOST:PORT/DB"


def parsed_url(url: str) -> URL:
    """``url`` parsed; ValueError naming what is wrong — no URL, a port that is no
    number, a database tilecam does not use — without repeating the URL (it may hold a
    password).

    >>> parsed_url("sqlite:///t.db").database
    't.db'
    >>> parsed_url("bogus")
    Traceback (most recent call last):
    ...
    ValueError: the database URL does not parse as one: use sqlite:///FILE or postgresql://USER@HOST:PORT/DB
    """
    try:
        parsed = make_url(url)
    except ArgumentError:
        raise ValueError(f"the database URL does not parse as one: use {URL_FORMS}") from None
    except ValueError as exc:  # e.g. a port that is no number
        raise ValueError(f"the database URL does not parse ({exc}): use {URL_FORMS}") from None
    if not parsed.drivername.startswith(("sqlite", "postgresql", "postgres")):
        raise ValueError(f"unsupported database URL {parsed.drivername!r}: use {URL_FORMS}")
    if parsed.drivername.startswith("postgres"):
        _check_driver(parsed)
    return parsed


def _check_driver(parsed: URL) -> None:
    """ValueError naming the missing module when the driver of a PostgreSQL URL does not
    import (a bare ``postgresql://`` takes psycopg 3, the ``postgres`` extra)."""
    if parsed.drivername in ("postgresql", "postgres"):
        parsed = parsed.set(drivername="postgresql+psycopg")
    try:
        parsed.get_dialect().import_dbapi()
    except ImportError as exc:
        module = exc.name or str(exc)
        raise ValueError(f"a PostgreSQL database needs its driver {module!r}, which this "
                         "install lacks: pip install -e '.[postgres]' (psycopg) and a "
                         "postgresql:// URL, or use sqlite:///FILE") from None
    except Exception as exc:  # an unknown driver name: SQLAlchemy's NoSuchModuleError
        raise ValueError(f"unsupported database driver {parsed.drivername!r} ({exc}): use "
                         f"{URL_FORMS}") from None


def make_engine(url: str) -> Engine:
    """A new engine for ``url`` (``sqlite:///path`` or ``postgresql+psycopg://…``).

    For SQLite the parent folder of the file is created. A bare ``postgresql://``
    URL is given the psycopg (3) driver. A URL that is none raises ValueError
    (:func:`parsed_url`).
    """
    parsed = parsed_url(url)
    if parsed.drivername in ("postgresql", "postgres"):
        parsed = parsed.set(drivername="postgresql+psycopg")
    if parsed.drivername.startswith("sqlite"):
        file = sqlite_file(url)
        if file is not None:
            file.parent.mkdir(parents=True, exist_ok=True)
        # a file: as many connections as the server's worker threads (AnyIO's 40) — a
        # file costs nothing to open, and a request waiting for a connection rather
        # than for the database only waits longer; in memory: SQLAlchemy's own pool
        pool = {"pool_size": 5, "max_overflow": POOL_OVERFLOW} if file is not None else {}
        engine = create_engine(
            parsed,
            connect_args={"check_same_thread": False, "timeout": 30},
            **pool,
        )
        _configure_sqlite(engine)
        return engine
    if not parsed.drivername.startswith("postgresql"):
        raise ValueError(
            f"unsupported database URL {parsed.drivername!r}: use sqlite:///FILE or "
            "postgresql://USER@HOST:PORT/DB"
        )
    return create_engine(parsed, pool_pre_ping=True, connect_args=postgres_connect_args(url))


#: Connections a SQLite engine opens beyond its 5 kept ones (see :func:`make_engine`).
POOL_OVERFLOW = 40

#: Seconds a PostgreSQL connection may take to open before the request that needs it is
#: answered ``database_unavailable`` (a server that does not answer would otherwise hold
#: it for the operating system's TCP timeout, minutes). ``?connect_timeout=N`` in the
#: URL overrides it.
CONNECT_TIMEOUT_S = 10


def postgres_connect_args(url: str) -> dict[str, Any]:
    """The driver arguments :func:`make_engine` adds to a PostgreSQL URL.

    >>> postgres_connect_args("postgresql://tc@db/tilecam")
    {'connect_timeout': 10}
    >>> postgres_connect_args("postgresql://tc@db/tilecam?connect_timeout=3")
    {}
    """
    return {} if "connect_timeout" in make_url(url).query else {
        "connect_timeout": CONNECT_TIMEOUT_S}


#: What :class:`tilecam.db.migrate.NewerDatabase` says of a database at a revision this
#: tilecam does not ship (the API's 503 then says to upgrade tilecam, not to repair it).
NEWER_TILECAM = "written by a newer tilecam"

#: Database reasons no retry mends (a file the server may not write, one that is no
#: database or is damaged, a schema from a newer tilecam, a path that cannot be a file):
#: a transaction is not tried again, and the API answers without "try again" and
#: ``Retry-After`` (:func:`tilecam.api.errors.unavailable`) — an operator must act.
PERMANENT_FAULTS = ("readonly database", "file is not a database", "malformed",
                    "Can't locate revision", "Not a directory", "Permission denied",
                    # tilecam.db.migrate.NewerDatabase: a schema from a newer tilecam
                    NEWER_TILECAM,
                    # PostgreSQL: a password refused, a database that takes no writes (a
                    # hot standby, default_transaction_read_only), a role without grants
                    "password authentication failed", "read-only transaction",
                    "permission denied for",
                    # tilecam.db.backup.BackupFailed: no copy before an upgrade (no
                    # pg_dump, a full disk …); until the seventy-ninth session's review
                    # "try again" with Retry-After, each request running pg_dump again
                    COPY_NOT_WRITTEN)
#: PostgreSQL's refusal, at connection, of a database or role the URL names that is not
#: there (not a relation or prepared statement that does not exist, which may pass).
_NO_SUCH_DATABASE = re.compile(r'FATAL: +(database|role) ".*" does not exist')
# ("unable to open database file" is also what SQLite says when the server runs out of
# file handles, an overload that passes: lasting only where the file cannot be, see
# lasting_fault)


def first_line(exc: BaseException) -> str:
    """The database driver's reason for ``exc`` (a SQLAlchemy error's ``orig``, else the
    exception itself), its first line (SQLAlchemy adds the SQL, the parameters and a link
    to its docs), or the exception's type when it gave none."""
    orig = getattr(exc, "orig", None)
    reason = str(orig if orig is not None else exc).strip().splitlines()
    return reason[0].strip() if reason else type(exc).__name__


def lasting_fault(reason: str, url: str | None = None) -> bool:
    """Whether the database's ``reason`` for failing is one no retry mends
    (:data:`PERMANENT_FAULTS`), or "unable to open database file" where SQLite's file
    (``url``) cannot be: a folder, or missing in a folder the server may not write.

    >>> lasting_fault("attempt to write a readonly database"), lasting_fault("locked")
    (True, False)
    >>> lasting_fault("unable to open database file", "sqlite:////")
    True
    >>> lasting_fault('connection failed: FATAL:  database "tc" does not exist')
    True
    >>> lasting_fault('prepared statement "p1" does not exist')
    False
    """
    if any(fault in reason for fault in PERMANENT_FAULTS) or _NO_SUCH_DATABASE.search(reason):
        return True
    file = sqlite_file(url) if url and "unable to open database" in reason else None
    if file is None:
        return False
    return file.is_dir() or (not file.exists() and file.parent.is_dir()
                             and not os.access(file.parent, os.W_OK))


#: PostgreSQL SQLSTATEs (or their two-character classes) that psycopg raises as a
#: DBAPIError other than OperationalError but that are the database's or its setup's
#: fault, not tilecam's SQL: a database that takes no writes (25006: a hot standby,
#: ``default_transaction_read_only``), a role without the grants (42501), insufficient
#: resources (53), an operator's intervention (57), a system or I/O error (58), a
#: damaged page or index (XX).
DATABASE_SQLSTATES = ("25006", "42501", "53", "57", "58", "XX")
#: SQLite result codes (``sqlite3.Error.sqlite_errorname``, by prefix) that are the
#: database file's fault, not tilecam's SQL: a damaged file or one that is no database
#: (``sqlite3.DatabaseError``: SQLITE_CORRUPT, SQLITE_NOTADB), and the faults SQLite
#: raises as OperationalError (I/O, full, read-only, cannot open, no permission).
DATABASE_SQLITE_CODES = ("SQLITE_CORRUPT", "SQLITE_NOTADB", "SQLITE_IOERR", "SQLITE_FULL",
                         "SQLITE_READONLY", "SQLITE_CANTOPEN", "SQLITE_PERM", "SQLITE_NOLFS",
                         "SQLITE_PROTOCOL")


#: What SQLite says (result code ``SQLITE_ERROR``) when a statement itself is wrong — a
#: table or column the schema does not have, a syntax error, a function or a transaction
#: misused: tilecam's SQL, which PostgreSQL raises as ``ProgrammingError`` but Python's
#: ``sqlite3`` as ``OperationalError``, beside the database's own faults (locked, busy,
#: full, read-only, I/O, cannot open), which never say these (:func:`sql_fault`).
SQLITE_SQL_FAULTS = re.compile(
    r"no such (table|column|function|index|view|trigger|savepoint|collation sequence|module)"
    r"|syntax error|unrecognized token|incomplete input|too many SQL variables"
    r"|has no column named|columns but \d+ values were supplied|\d+ values for \d+ columns"
    r"|ambiguous column name|wrong number of arguments to function|misuse of "
    r"|already exists|duplicate column name|sub-select returns|row value misused"
    r"|term out of range|do not have the same number of result columns|too many columns"
    r"|cannot start a transaction within a transaction|no transaction is active")


def sql_fault(exc: BaseException) -> bool:
    """Whether ``exc`` (a SQLAlchemy error) is SQLite's ``OperationalError`` for a statement
    that is itself wrong (:data:`SQLITE_SQL_FAULTS`, by its message; result code
    ``SQLITE_ERROR`` where the driver gives one): tilecam's SQL, a bug no retry mends —
    the one place an ``OperationalError`` is told from the database's failure
    (:func:`database_fault`, :func:`tilecam.tables.sheet.transaction`).

    >>> from sqlalchemy.exc import OperationalError
    >>> import sqlite3
    >>> sql_fault(OperationalError("SELECT x", {}, sqlite3.OperationalError(
    ...     "no such column: x")))
    True
    >>> sql_fault(OperationalError("BEGIN", {}, sqlite3.OperationalError(
    ...     "database is locked")))
    False
    """
    import sqlite3

    from sqlalchemy.exc import OperationalError

    orig = getattr(exc, "orig", None)
    if not isinstance(exc, OperationalError) or not isinstance(orig, sqlite3.OperationalError):
        return False
    if getattr(orig, "sqlite_errorname", None) not in (None, "SQLITE_ERROR"):
        return False
    return SQLITE_SQL_FAULTS.search(str(orig)) is not None


def database_fault(exc: BaseException) -> bool:
    """Whether ``exc`` (a SQLAlchemy error) is the database's failure — the server gone, a
    damaged file, a database that takes no writes, a role without grants
    (:data:`DATABASE_SQLSTATES`, :data:`DATABASE_SQLITE_CODES`, :func:`lasting_fault`) —
    rather than tilecam's: a uniqueness race or a constraint (``IntegrityError``, which a
    transaction tries again and which else is a tilecam bug), SQL that does not fit the
    schema, a value bound wrongly. An ``OperationalError`` is the database's (locked,
    busy, full, read-only, I/O, a server gone) unless it is SQLite's for wrong SQL ("no
    such column", a syntax error: :func:`sql_fault`), which is tilecam's on SQLite as its
    ``ProgrammingError`` is on PostgreSQL (until the seventy-fifth session's review every
    ``OperationalError`` was the database's, and such a bug a 503 "try again" on SQLite).

    >>> from sqlalchemy.exc import DatabaseError, IntegrityError, ProgrammingError
    >>> import sqlite3
    >>> database_fault(DatabaseError("SELECT 1", {}, sqlite3.DatabaseError(
    ...     "database disk image is malformed")))
    True
    >>> database_fault(ProgrammingError("SELECT x", {}, Exception("no such column: x")))
    False
    >>> database_fault(IntegrityError("INSERT", {}, Exception("UNIQUE constraint failed")))
    False
    >>> from sqlalchemy.exc import OperationalError
    >>> database_fault(OperationalError("SELECT x", {}, sqlite3.OperationalError(
    ...     "no such column: x"))), database_fault(OperationalError("BEGIN", {},
    ...     sqlite3.OperationalError("database is locked")))
    (False, True)
    """
    from sqlalchemy.exc import DBAPIError, IntegrityError, OperationalError

    if not isinstance(exc, DBAPIError) or isinstance(exc, IntegrityError):
        return False
    if isinstance(exc, OperationalError):
        return not sql_fault(exc)
    orig = exc.orig
    state = str(getattr(orig, "sqlstate", None) or getattr(orig, "pgcode", None) or "")
    if state and (state in DATABASE_SQLSTATES or state[:2] in DATABASE_SQLSTATES):
        return True
    code = str(getattr(orig, "sqlite_errorname", "") or "")
    if code.startswith(DATABASE_SQLITE_CODES):
        return True
    return lasting_fault(first_line(exc))


#: Connection execution option that marks a transaction that writes
#: (:func:`tilecam.tables.sheet.transaction`, the migrations): on SQLite it begins with
#: ``BEGIN IMMEDIATE``, every other with a deferred ``BEGIN``.
WRITE = "tilecam_write"


def _configure_sqlite(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn: Any, _record: Any) -> None:
        # Let SQLAlchemy, not the driver, decide when transactions begin.
        dbapi_conn.isolation_level = None
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA journal_mode=WAL")
        cur.execute("PRAGMA synchronous=FULL")
        cur.execute("PRAGMA foreign_keys=ON")
        cur.execute("PRAGMA busy_timeout=30000")
        cur.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Any) -> None:
        # A write takes the database's one write lock when it begins, so writers queue
        # for it (busy_timeout) rather than fail on upgrading a read; a read begins
        # deferred and, in WAL, reads its snapshot beside a writer without waiting.
        write = conn.get_execution_options().get(WRITE, False)
        conn.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")


def get_engine(url: str) -> Engine:
    """The process-wide engine for ``url`` (created on first use)."""
    with _lock:
        engine = _engines.get(url)
        if engine is None:
            engine = _engines[url] = make_engine(url)
        return engine


def dispose_engine(url: str) -> None:
    """Close the cached engine of ``url``, if one was made (the service's shutdown: the
    lifespan of :func:`tilecam.app.create_app`). A SQLite file's write-ahead log is first
    copied into the file (``PRAGMA wal_checkpoint(PASSIVE)``, which waits for no other
    process), and closing its last connection folds in the rest and removes
    ``tilecam.db-wal``, so that the file the README names holds every row once the
    service has stopped (before the seventy-fifth session every row stayed in the log
    until SQLite's own checkpoint at 1,000 pages: a copy of ``tilecam.db`` alone, even
    after a clean stop, held no table). A failure of the checkpoint is only logged: the
    log is kept, and read again at the next start."""
    with _lock:
        engine = _engines.pop(url, None)
    if engine is None:
        return
    if engine.dialect.name == "sqlite" and sqlite_file(url) is not None:
        try:
            raw = engine.raw_connection()  # outside a transaction, which would hold it
            try:
                cursor = raw.cursor()
                cursor.execute("PRAGMA wal_checkpoint(PASSIVE)")
                cursor.close()
            finally:
                raw.close()
        except Exception as exc:  # a read-only or damaged file: the log stays
            log.warning("tilecam: the database's log was not copied into it at shutdown "
                        "(%s); it is read again at the next start", first_line(exc))
    engine.dispose()


def dispose_engines() -> None:
    """Close every cached engine (tests and shutdown)."""
    with _lock:
        for engine in _engines.values():
            engine.dispose()
        _engines.clear()


def session_factory(engine: Engine) -> sessionmaker[Session]:
    """Sessions bound to ``engine`` that keep loaded objects usable after commit."""
    return sessionmaker(bind=engine, expire_on_commit=False)
