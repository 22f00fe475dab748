"""The copy of a database taken before an upgrade changes it, and ``tilecam db backup``.

A database at an older schema is copied before :func:`tilecam.db.migrate.upgrade` applies
any revision (no older tilecam opens an upgraded database, and nothing downgrades one):

* a SQLite file beside it (:func:`backup_file`, named by :func:`backup_name`) with
  SQLite's online backup (:func:`backup_sqlite`, also ``tilecam db backup OUT``);
* a PostgreSQL database with ``pg_dump`` in its custom format (:func:`backup_postgres`,
  named by :func:`pg_backup_name`) into ``TILECAM_BACKUP_DIR`` (default
  ``TILECAM_DATA_DIR``), with the ``pg_dump`` of ``TILECAM_PG_DUMP`` (default: the one
  on ``PATH``). Until the seventy-ninth session a PostgreSQL database was upgraded with
  no copy, the log advising ``pg_dump``.

A copy that cannot be written stops the upgrade (:class:`BackupFailed`, nothing
changed), saying how to go on: make the copy possible, or take one yourself and upgrade
without it (``tilecam db upgrade --no-backup``; the service: ``TILECAM_UPGRADE_BACKUP=0``;
:func:`copy_plan`).

Until the seventy-ninth session this code lived in :mod:`tilecam.commands.db` and
:mod:`tilecam.db.migrate` (the database layer importing a command's module).
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
import sqlite3
import subprocess
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sqlalchemy.engine import URL

    from tilecam.settings import Settings


#: What every :class:`BackupFailed` says: the API's 503 finds it there and words its
#: answer for it (no "try again": the operator must act; :data:`tilecam.db.engine.
#: PERMANENT_FAULTS`, :func:`tilecam.api.errors.unavailable`).
COPY_NOT_WRITTEN = "its copy from before could not be written"


class BackupFailed(ValueError):
    """The copy of a database taken before upgrading it could not be written; the upgrade
    was not begun (nothing was changed). A ValueError: the CLI prints it on one line and
    exits 2; the API answers 503 ``database_unavailable`` with it, without "try again"
    (until the seventy-ninth session's review, ``Retry-After: 5``: each request ran the
    upgrade and ``pg_dump`` again, and only the operator can mend it)."""


#: What a :class:`BackupFailed` says to do when the copy cannot be made: the way to
#: upgrade without one (the flag of ``tilecam db upgrade``, the service's setting).
WITHOUT_COPY = ("upgrade without a copy: tilecam db upgrade --no-backup (the service: "
                "TILECAM_UPGRADE_BACKUP=0)")


#: How long, in seconds, ``pg_dump`` waits for a table's shared lock (held off by
#: another session's ALTER TABLE, VACUUM FULL …) before it gives up
#: (``--lock-wait-timeout``).
PG_LOCK_WAIT_S = 60.0
#: How long, in seconds, ``pg_dump`` may run in all before it is killed: the service
#: upgrades under a lock every request waits on.
PG_DUMP_TIMEOUT_S = 3600.0


@dataclass(frozen=True)
class CopyPlan:
    """Whether and how an upgrade copies the database first: ``enabled`` (the setting
    ``upgrade_backup``, ``--no-backup`` turns it off), the folder of a PostgreSQL
    database's copy (``backup_dir``, else ``data_dir``), the ``pg_dump`` program (a
    name looked up on ``PATH``, or a path), and how long in seconds ``pg_dump`` waits
    for a table's lock (``lock_wait_s``) and may run in all (``timeout_s``)."""

    enabled: bool = True
    folder: Path = Path(".")
    pg_dump: str = "pg_dump"
    lock_wait_s: float = PG_LOCK_WAIT_S
    timeout_s: float = PG_DUMP_TIMEOUT_S


def copy_plan(enabled: bool | None = None, settings: Settings | None = None) -> CopyPlan:
    """The :class:`CopyPlan` of ``settings`` (the service's own: ``create_app``'s), else
    of the process's (``TILECAM_UPGRADE_BACKUP``, ``TILECAM_BACKUP_DIR``,
    ``TILECAM_DATA_DIR``, ``TILECAM_PG_DUMP``); ``enabled``, where given, overrides
    ``upgrade_backup`` (``--no-backup``). Read only when a database needs a copy: an
    upgrade with nothing to apply reads no setting. (Until the seventy-ninth session's
    review the service's upgrade read the process's settings, not the app's.)"""
    if settings is None:
        from tilecam.settings import get_settings

        settings = get_settings()
    return CopyPlan(enabled=settings.upgrade_backup if enabled is None else enabled,
                    folder=settings.backup_folder, pg_dump=settings.pg_dump)


def shown_url(url: URL) -> str:
    """``url`` as a message or the log shows it: no password, neither the URL's own nor
    one in its query (``?password=``, which libpq and psycopg take too).

    >>> from sqlalchemy.engine import make_url
    >>> shown_url(make_url("postgresql+psycopg://tc:pw@db/club?password=s3cret&sslmode=require"))
    'postgresql+psycopg://tc:***@db/club?sslmode=require'
    """
    return url.difference_update_query(["password"]).render_as_string(hide_password=True)


#: The longest name (bytes) a copy taken before an upgrade gets: most file systems take
#: 255 bytes in a name (ext4, XFS, APFS, NTFS's 255 UTF-16 units).
BACKUP_NAME_MAX = 255


def backup_name(file: Path, revision: str, when: datetime, attempt: int = 0) -> Path:
    """Where the copy of the SQLite ``file`` at ``revision`` is written before an upgrade
    at ``when`` (UTC): beside it, named for the revision it is at and the time to the
    second (``-2``, ``-3`` … after it for a second or third ``attempt`` in that second).

    >>> backup_name(Path("/srv/tilecam.db"), "0002_append_only_history",
    ...             datetime(2026, 12, 7, 21, 5, 9, tzinfo=UTC)).name
    'tilecam.before-upgrade-from-0002_append_only_history-20261207T210509Z.db'
    >>> backup_name(Path("/srv/t"), "0009_camera_surface",
    ...             datetime(2026, 12, 7, 21, 5, 9, tzinfo=UTC), attempt=1).name
    't.before-upgrade-from-0009_camera_surface-20261207T210509Z-2'

    A database whose name leaves no room for that is named shorter in the copy (the
    file system takes at most :data:`BACKUP_NAME_MAX` bytes in a name; a 200-byte name
    stopped the upgrade with "File name too long"):

    >>> name = backup_name(Path("/srv/" + "中" * 70 + ".db"), "0002_append_only_history",
    ...                    datetime(2026, 12, 7, 21, 5, 9, tzinfo=UTC)).name
    >>> len(name.encode()), name.endswith("-20261207T210509Z.db")
    (254, True)
    """
    stamp = when.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")
    again = f"-{attempt + 1}" if attempt else ""
    tail = f".before-upgrade-from-{revision}-{stamp}{again}{file.suffix}"
    stem = file.stem
    while stem and len(os.fsencode(stem + tail)) > BACKUP_NAME_MAX:
        stem = stem[:-1]  # whole characters: a long database name is cut, not refused
    return file.with_name(stem + tail)


def backup_file(file: Path, current: str, target: str) -> Path:
    """Copy the SQLite ``file`` (at revision ``current``) to a new file beside it
    (:func:`backup_name`) with SQLite's online backup (its write-ahead log's rows too;
    never over another file: :func:`backup_sqlite`); the copy's path.
    :class:`BackupFailed` naming why when it cannot be written."""
    when = datetime.now(UTC)
    reason = ""
    for attempt in range(20):
        out = backup_name(file, current, when, attempt)
        try:
            if out.exists():
                continue
            backup_sqlite(file, out)
        except (ValueError, OSError) as exc:  # OSError: a name the file system refuses
            reason = str(exc)
            if out.exists():  # another process's copy took the name meanwhile
                continue
            break
        return out
    raise BackupFailed(f"the database {file} at revision {current} was not upgraded to "
                       f"{target}: {COPY_NOT_WRITTEN} "
                       f"({reason or 'no free name beside it'}); nothing was changed. Make "
                       f"room in (or give write access to) {file.parent} and start tilecam "
                       "again, or copy the database elsewhere yourself and "
                       f"{WITHOUT_COPY}")


def pg_backup_name(folder: Path, database: str, revision: str, when: datetime,
                   attempt: int = 0) -> Path:
    """Where ``pg_dump`` writes the copy of the PostgreSQL ``database`` at ``revision``
    before an upgrade at ``when`` (UTC): in ``folder``, named for the database, the
    revision and the time as a SQLite file's copy is (:func:`backup_name`), ending
    ``.dump`` (custom format: ``pg_restore`` reads it). A character of the database's
    name that is no letter, digit, ``_`` or ``-`` is written ``_``.

    >>> pg_backup_name(Path("/var/backups"), "tilecam", "0009_camera_surface",
    ...                datetime(2026, 12, 7, 21, 5, 9, tzinfo=UTC)).name
    'tilecam.before-upgrade-from-0009_camera_surface-20261207T210509Z.dump'
    >>> pg_backup_name(Path("."), "club/night.2", "0009_camera_surface",
    ...                datetime(2026, 12, 7, 21, 5, 9, tzinfo=UTC), attempt=1).name
    'club_night_2.before-upgrade-from-0009_camera_surface-20261207T210509Z-2.dump'
    """
    safe = re.sub(r"[^\w-]", "_", database) or "postgres"
    return backup_name(folder / f"{safe}.dump", revision, when, attempt)


def backup_postgres(url: URL, current: str, target: str, plan: CopyPlan,
                    server: tuple[int, ...] | None = None) -> Path:
    """Copy the PostgreSQL database of ``url`` (at revision ``current``) with ``pg_dump``
    (custom format, ``plan.pg_dump``) to a new file in ``plan.folder``
    (:func:`pg_backup_name`, readable by its owner only: it holds the keys' hashes); the
    copy's path. ``url`` names the database (:func:`tilecam.db.migrate.upgrade` fills in
    the one a URL without it connects to). ``server`` is the server's version
    (``(15, 18)``), named in an error.

    ``pg_dump`` writes ``NAME.dump.part`` (made new, mode 0600), which gets the copy's
    name only once ``pg_dump`` has ended well and written a custom-format file (it
    begins ``PGDMP``): an interrupted or failed dump leaves no file that looks like a
    copy. It waits at most ``plan.lock_wait_s`` for a table's lock and runs at most
    ``plan.timeout_s`` (then it is killed): the service upgrades under a lock its every
    request waits on.

    :class:`BackupFailed` (the unfinished file removed) when the URL names no database,
    ``pg_dump`` is not found, fails — a ``pg_dump`` older than the server refuses it,
    "server version mismatch" —, runs too long or writes no copy, or the folder cannot
    be written; the message says how to go on (:data:`WITHOUT_COPY`). Until the
    seventy-ninth session's review ``pg_dump`` wrote straight to ``NAME.dump``, had no
    time limit, and was given a password in the URL's query on its command line."""
    shown = shown_url(url)

    def failed(reason: str, fix: str) -> BackupFailed:
        return BackupFailed(f"the PostgreSQL database {shown} at revision {current} was not "
                            f"upgraded to {target}: {COPY_NOT_WRITTEN} ({reason}); nothing "
                            f"was changed. {fix}, or pg_dump the database yourself and "
                            f"{WITHOUT_COPY}")

    if not url.database:
        raise failed("the URL names no database", "Name the database in "
                     "TILECAM_DATABASE_URL (postgresql://USER@HOST/DATABASE)")
    program = shutil.which(plan.pg_dump)
    if program is None:
        raise failed(f"no pg_dump program: {plan.pg_dump!r} is not on PATH or not an "
                     "executable file", f"Install pg_dump {_client_hint(server)} and start "
                     "tilecam again (TILECAM_PG_DUMP names its path)")
    writable = (f"Give write access to {plan.folder}, or set TILECAM_BACKUP_DIR to a "
                "folder that can be written, and start tilecam again")
    if os.path.lexists(plan.folder) and not plan.folder.is_dir():
        raise failed(f"{plan.folder} is not a folder", writable)
    try:
        plan.folder.mkdir(parents=True, exist_ok=True)
        out = _new_dump_file(plan.folder, url.database, current)
    except OSError as exc:
        raise failed(f"cannot write in {plan.folder}: {exc.strerror or exc}",
                     writable) from None
    part = _part_of(out)
    try:
        done = _run_pg_dump(program, url, part, plan)
        wrong = _not_a_dump(part) if done.returncode == 0 else None
        if done.returncode == 0 and wrong is None:
            _publish(part, out)  # whole: only now under the copy's name, never over a file
    except ValueError as exc:  # _publish: out appeared meanwhile, or cannot be written
        raise failed(str(exc), writable) from None
    finally:  # interrupted (Ctrl-C, the service stopping) too: no half copy
        part.unlink(missing_ok=True)
    if done.returncode == 124:
        raise failed(f"{program} did not finish in {plan.timeout_s:g} s and was stopped",
                     "Find what holds the database up (a long transaction, a lock), or "
                     "dump it yourself")
    if done.returncode != 0:
        raise failed(*_pg_dump_failure(program, done.stderr, server))
    if wrong is not None:
        raise failed(f"{program} ended well but {wrong}", "Check that TILECAM_PG_DUMP "
                     "names PostgreSQL's pg_dump")
    return out


#: The first bytes of every file ``pg_dump --format=custom`` writes.
PG_DUMP_MAGIC = b"PGDMP"


def _not_a_dump(part: Path) -> str | None:
    """Why the file ``part`` that ``pg_dump`` wrote is no custom-format copy (it wrote
    nothing, or something else), or None where it begins :data:`PG_DUMP_MAGIC`."""
    try:
        with open(part, "rb") as f:
            head = f.read(len(PG_DUMP_MAGIC))
    except OSError as exc:
        return f"its copy cannot be read ({exc.strerror or exc})"
    if not head:
        return "wrote nothing (0 bytes)"
    if head != PG_DUMP_MAGIC:
        return "its file is not a pg_dump custom-format file (no PGDMP at its start)"
    return None


def _client_hint(server: tuple[int, ...] | None) -> str:
    """Which ``pg_dump`` to install for a server of version ``server``.

    >>> print(_client_hint((16, 4)))
    of the server's version 16 or newer (e.g. on Debian or Ubuntu: postgresql-client-16)
    >>> print(_client_hint(None))
    of the server's major version or newer
    """
    if not server:
        return "of the server's major version or newer"
    return (f"of the server's version {server[0]} or newer (e.g. on Debian or Ubuntu: "
            f"postgresql-client-{server[0]})")


def _part_of(out: Path) -> Path:
    """The file ``pg_dump`` writes the copy ``out`` in until it is whole (``OUT.part``)."""
    return out.with_name(out.name + ".part")


def _new_dump_file(folder: Path, database: str, current: str) -> Path:
    """A free name in ``folder`` for the copy (:func:`pg_backup_name`; ``-2`` … where a
    name is taken) whose ``.part`` file (:func:`_part_of`) was created new, empty, mode
    0600: the copy gets its name only once ``pg_dump`` has written it whole."""
    when = datetime.now(UTC)
    for attempt in range(20):
        out = pg_backup_name(folder, database, current, when, attempt)
        if os.path.lexists(out):
            continue
        try:
            os.close(os.open(_part_of(out), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        except FileExistsError:
            continue
        return out
    raise FileExistsError(f"no free name for the copy in {folder}")


def _run_pg_dump(program: str, url: URL, out: Path,
                 plan: CopyPlan) -> subprocess.CompletedProcess[str]:
    """Run ``pg_dump`` on the database of ``url`` into ``out`` (custom format), waiting at
    most ``plan.lock_wait_s`` seconds for a table's lock and killed after
    ``plan.timeout_s`` seconds (then return code 124). The password — the URL's, or one
    in its query — goes in the environment (``PGPASSWORD``), not on its command line,
    which other users may read; ``--no-password``: it never waits on a prompt."""
    env = dict(os.environ)
    password = url.password if url.password is not None else url.query.get("password")
    if password is not None:
        env["PGPASSWORD"] = str(password)
    env.setdefault("PGCONNECT_TIMEOUT", "10")
    lock_wait_ms = max(1, round(plan.lock_wait_s * 1000))
    cmd = [program, "--format=custom", "--no-password", f"--file={out}",
           f"--lock-wait-timeout={lock_wait_ms}ms", f"--dbname={pg_conninfo(url)}"]
    try:
        return subprocess.run(cmd, capture_output=True, text=True, env=env, check=False,
                              stdin=subprocess.DEVNULL, timeout=plan.timeout_s)
    except subprocess.TimeoutExpired:  # run() has killed it
        return subprocess.CompletedProcess(cmd, 124, "", "")
    except OSError as exc:  # found on PATH, yet not a program this system runs
        return subprocess.CompletedProcess(cmd, 126, "", f"pg_dump: {exc}")


def pg_conninfo(url: URL) -> str:
    """The libpq connection string of ``url`` for ``pg_dump --dbname``: host, port, user,
    database and the URL's query (``sslmode`` …); never the password, neither the URL's
    nor one in its query (``PGPASSWORD`` carries it: :func:`_run_pg_dump`).

    >>> from sqlalchemy.engine import make_url
    >>> pg_conninfo(make_url("postgresql+psycopg://tc:pw@db.local:5433/tile cam"
    ...                      "?sslmode=require"))
    "host='db.local' port='5433' user='tc' dbname='tile cam' sslmode='require'"
    """
    parts = {"host": url.host, "port": url.port, "user": url.username,
             "dbname": url.database}
    for key, value in url.query.items():
        if key == "password":  # until the seventy-ninth session's review: on argv
            continue
        parts[key] = ",".join(value) if isinstance(value, tuple) else value
    quoted = (f"{key}='{_libpq_quote(str(value))}'" for key, value in parts.items()
              if value is not None)
    return " ".join(quoted)


def _libpq_quote(value: str) -> str:
    r"""``value`` for a single-quoted libpq value: ``\`` and ``'`` escaped.

    >>> print(_libpq_quote("it's a\\b"))
    it\'s a\\b
    """
    return value.replace("\\", "\\\\").replace("'", "\\'")


#: ``pg_dump``'s refusal of a newer server: "aborting because of server version
#: mismatch" and its detail "server version: 16.4; pg_dump version: 15.18".
_MISMATCH = re.compile(r"server version: ([^;\n]+); pg_dump version: ([^\n]+)")


def _pg_dump_failure(program: str, stderr: str,
                     server: tuple[int, ...] | None) -> tuple[str, str]:
    """Why ``pg_dump`` failed (from its ``stderr``) and what to do, for
    :func:`backup_postgres`'s message: a server newer than ``pg_dump`` is named as such,
    and a table's lock it gave up waiting for (``--lock-wait-timeout``).

    >>> reason, fix = _pg_dump_failure("/usr/bin/pg_dump", "pg_dump: error: aborting "
    ...     "because of server version mismatch\\npg_dump: detail: server version: 16.4; "
    ...     "pg_dump version: 15.18\\n", None)
    >>> print(reason)  # doctest: +NORMALIZE_WHITESPACE
    server version mismatch: /usr/bin/pg_dump is version 15.18, the server 16.4;
    pg_dump must be of the server's major version or newer
    >>> print(fix)  # doctest: +NORMALIZE_WHITESPACE
    Install pg_dump of the server's version 16 or newer (e.g. on Debian or Ubuntu:
    postgresql-client-16) and set TILECAM_PG_DUMP to its path (e.g. on Debian:
    /usr/lib/postgresql/16/bin/pg_dump)
    >>> print(_pg_dump_failure("pg_dump", "pg_dump: error: query failed: ERROR:  canceling "
    ...     "statement due to statement timeout\\npg_dump: detail: Query was: LOCK TABLE "
    ...     "public.events IN ACCESS SHARE MODE\\n", None)[1])  # doctest: +NORMALIZE_WHITESPACE
    Another session holds a lock on a table (ALTER TABLE, VACUUM FULL …): start tilecam
    again once it has ended
    """
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    found = _MISMATCH.search(stderr)
    if found or "version mismatch" in stderr:
        if found:
            versions = (f"{program} is version {found.group(2).strip()}, the server "
                        f"{found.group(1).strip()}")
            major = re.match(r"\d+", found.group(1).strip())
            server = (int(major.group()),) if major else server
        else:
            versions = f"{program} is older than the server"
        return (f"server version mismatch: {versions}; pg_dump must be of the server's "
                "major version or newer", f"Install pg_dump {_client_hint(server)} and "
                "set TILECAM_PG_DUMP to its path (e.g. on Debian: /usr/lib/postgresql/"
                f"{server[0] if server else 'N'}/bin/pg_dump)")
    said = "; ".join(lines[-3:]) or "no message"
    if "LOCK TABLE" in stderr and "timeout" in stderr:
        return (f"{program} failed: {said}", "Another session holds a lock on a table "
                "(ALTER TABLE, VACUUM FULL …): start tilecam again once it has ended")
    return (f"{program} failed: {said}", "Make pg_dump work with the database's URL "
            "(TILECAM_DATABASE_URL) and start tilecam again")


def backup_sqlite(file: Path, out: Path) -> None:
    """Copy the SQLite database ``file`` — its write-ahead log's rows too — into the new
    file ``out``, whole and consistent, with SQLite's online backup (safe while the
    service writes: the copy is of one moment). ``out`` is one file (no ``-wal`` beside
    it) that ``TILECAM_DATA_DIR``'s ``tilecam.db`` can be replaced by, the service
    stopped. ValueError (nothing written) when there is no database, ``out`` exists or
    is a folder, its folder does not exist, or its name is longer than the folder's file
    system allows (255 bytes on Linux: 85 characters such as 中, 3 bytes each in UTF-8).

    No file but ``out`` is ever replaced or removed, ``out`` included: the copy is
    written to a new file of its own beside ``out`` (a name made up for it, created only
    where no file has it: ``OUT.<random>.part``, OUT's name shortened where the whole
    would be too long — see :func:`_part_name`), and published as ``out`` with a hard
    link, which fails where ``out`` exists by then (another backup, another program);
    where the folder's file system has no hard links, ``out`` is created only where it
    does not exist (``O_EXCL``) and the copy's bytes written into it. The temporary
    file is removed in every case. Before the seventy-fifth session's review the copy
    was ``OUT.part``, which a backup deleted whoever's it was, and ``out`` was replaced
    (``os.replace``) had it appeared meanwhile; until the seventy-sixth, an OUT name of
    230 to 255 bytes failed (the copy's name, or its ``-journal``'s, was past 255). A
    destination that cannot be written is named as such (``cannot write OUT``), not as
    the database."""
    if not file.is_file():
        raise ValueError(f"no database at {printable(file)} to back up")
    if os.path.isdir(out):  # a link to a folder too (no error: a name too long is False)
        raise ValueError(f"{printable(out)} is a folder: give a new file to write, such as "
                         f"{printable(out / 'tilecam-backup.db')}")
    if os.path.lexists(out):  # a link to nowhere too: it is a file of the user's
        raise ValueError(f"{printable(out)} exists: give a new file (a backup never "
                         "overwrites one)")
    if not os.path.isdir(out.parent):
        if os.path.lexists(out.parent):
            raise ValueError(f"{printable(out.parent)} is not a folder: cannot write "
                             f"{printable(out.name)} in it")
        raise ValueError(f"no folder {printable(out.parent)} to write "
                         f"{printable(out.name)} in")
    name_max, name_bytes = _name_max(out.parent), len(os.fsencode(out.name))
    if name_bytes > name_max:
        raise ValueError(f"cannot write {printable(out)}: its name is "
                         f"{name_bytes} bytes long, and the file system of "
                         f"{printable(out.parent)} allows at most {name_max} bytes in a "
                         "file name (a character such as 中 takes 3 bytes): give a shorter "
                         "name")
    try:
        source = sqlite3.connect(file, timeout=30)
    except sqlite3.Error as exc:
        raise ValueError(f"cannot back up {printable(file)}: {exc}") from None
    part: Path | None = None
    try:
        part = _new_part(out, name_max)
        try:
            copy = sqlite3.connect(part)
        except sqlite3.Error as exc:
            raise ValueError(f"cannot write {printable(out)}: {exc} (in "
                             f"{printable(out.parent)}){_path_hint(part)}") from None
        try:
            try:
                source.backup(copy)
                copy.execute("PRAGMA journal_mode=DELETE")  # one file, whatever the source's
                check = copy.execute("PRAGMA quick_check").fetchone()
            except sqlite3.Error as exc:
                raise ValueError(f"cannot back up {printable(file)} to "
                                 f"{printable(out)}: {exc}; nothing was written to "
                                 f"{printable(out)}{_path_hint(part)}") from None
            if check is None or check[0] != "ok":
                raise ValueError(f"the copy of {printable(file)} does not check ({check}): "
                                 "the database may be damaged; nothing was written to "
                                 f"{printable(out)}")
        finally:
            copy.close()
        _publish(part, out)
    finally:
        source.close()
        if part is not None:
            part.unlink(missing_ok=True)


#: The longest suffix SQLite adds to a database's name for a file of its own beside it
#: (``-journal``; ``-wal`` and ``-shm`` are shorter): the copy's name leaves room for it.
_SQLITE_SUFFIX = "-journal"
#: SQLite's unix VFS opens no database whose full path (links resolved) and
#: :data:`_SQLITE_SUFFIX` together are longer than this many bytes (``MAX_PATHNAME``).
_SQLITE_PATH_MAX = 512


def _name_max(folder: Path) -> int:
    """The longest file name, in bytes, that ``folder``'s file system allows (255 where
    the platform does not say)."""
    try:
        limit = os.pathconf(folder, "PC_NAME_MAX")
    except (AttributeError, OSError, ValueError):  # no pathconf (Windows), no answer
        return 255
    return limit if limit > 0 else 255


def _part_name(out: Path, token: str, name_max: int) -> str:
    """The name of the copy's file beside ``out``: ``OUT.<token>.part``, OUT's name cut
    short (whole characters) where that name, or the ``-journal`` SQLite puts beside it,
    would be longer than the file system allows (``name_max`` bytes), or its full path
    longer than SQLite opens (:data:`_SQLITE_PATH_MAX`). So every OUT whose name the file
    system takes is written, in any folder whose real path leaves SQLite room for the
    copy's (up to about 485 bytes); the caller refuses a name too long for the file
    system, and names SQLite's limit where a deeper folder meets it.

    >>> _part_name(Path("/b/backup.db"), "0a1b", 255)
    'backup.db.0a1b.part'
    >>> len(_part_name(Path("/b/" + "中" * 85), "0a1b", 255).encode())
    247
    """
    suffix = f".{token}.part"
    folder = os.fsencode(os.path.realpath(out.parent))  # SQLite resolves links too
    room = min(name_max, _SQLITE_PATH_MAX - len(folder) - 1) - len(_SQLITE_SUFFIX)
    stem = out.name
    while stem and len(os.fsencode(stem + suffix)) > room:
        stem = stem[:-1]
    return stem + suffix


def _path_hint(part: Path) -> str:
    """Where the copy's path is longer than SQLite opens: a sentence saying so."""
    length = len(os.fsencode(os.path.realpath(part))) + len(_SQLITE_SUFFIX)
    if length <= _SQLITE_PATH_MAX:
        return ""
    return (f" (SQLite opens no file whose path is over "
            f"{_SQLITE_PATH_MAX - len(_SQLITE_SUFFIX)} bytes, links resolved, and the "
            f"copy's in {printable(part.parent)} is {length - len(_SQLITE_SUFFIX)}: back "
            "up into a folder with a shorter path, then move the file)")


def _new_part(out: Path, name_max: int) -> Path:
    """A new, empty file beside ``out`` for its copy to be written in: a name made up for
    it (:func:`_part_name`) and created only where no file has it (``O_EXCL``), so that
    no other file — another backup's, the user's — is ever written or removed.
    ValueError naming ``out`` when its folder cannot be written."""
    for _ in range(100):
        part = out.with_name(_part_name(out, secrets.token_hex(6), name_max))
        try:
            os.close(os.open(part, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
        except FileExistsError:
            continue
        except OSError as exc:
            raise ValueError(f"cannot write {printable(out)}: {exc.strerror or exc} "
                             f"(in {printable(out.parent)})") from None
        return part
    raise ValueError(f"cannot write {printable(out)}: no new file name for its copy in "
                     f"{printable(out.parent)}")


def printable(text: str | os.PathLike[str]) -> str:
    """``text`` (a path from the command line) with any bytes that are not UTF-8 shown as
    ``\\xNN``, so that printing it cannot fail after the backup is written; each message
    shows a path so, as the success line does (until the seventy-sixth session's review
    an error showed such a byte as ``\\udcff``).

    >>> printable("b\\udcff.db")
    'b\\\\xff.db'
    """
    return os.fsencode(text).decode("utf-8", "backslashreplace")


def _publish(part: Path, out: Path) -> None:
    """Give the complete copy ``part`` the name ``out``, only where ``out`` does not exist
    (a hard link; else a new file created with ``O_EXCL`` and the bytes copied in): never
    replacing a file. ``part`` is left for the caller to remove."""
    try:
        os.link(part, out)
    except FileExistsError:
        raise ValueError(f"{printable(out)} exists: give a new file (a backup never "
                         "overwrites one; it appeared while the copy was written)") from None
    except OSError:  # a file system without hard links: create out itself, exclusively
        try:
            fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except FileExistsError:
            raise ValueError(f"{printable(out)} exists: give a new file (a backup "
                             "never overwrites one; it appeared while the copy was "
                             "written)") from None
        except OSError as exc:
            raise ValueError(f"cannot write {printable(out)}: "
                             f"{exc.strerror or exc}") from None
        try:
            with os.fdopen(fd, "wb") as dst, open(part, "rb") as src:
                shutil.copyfileobj(src, dst)
                dst.flush()
                os.fsync(dst.fileno())
        except OSError as exc:
            os.unlink(out)  # the file made just now, half written
            raise ValueError(f"cannot write {printable(out)}: "
                             f"{exc.strerror or exc}") from None
    _sync_folder(out.parent)


def _sync_folder(folder: Path) -> None:
    """Make a new name in ``folder`` durable (where the platform can: best effort)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
