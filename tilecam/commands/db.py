"""``tilecam db``: create or upgrade the event-table database (Alembic migrations), show
its revision, or back a SQLite database up to one file."""

from __future__ import annotations

import argparse
import os
import secrets
import shutil
import sqlite3
from pathlib import Path
from typing import Any


def register(sub: Any) -> None:
    p = sub.add_parser("db", help="create, upgrade or back up the event-table database")
    p.add_argument("action", choices=["upgrade", "current", "backup"],
                   help="upgrade: apply migrations up to the newest; current: show the "
                        "revision; backup OUT: copy a SQLite database, whole and "
                        "consistent, into the new file OUT (safe while the service runs; "
                        "PostgreSQL: use pg_dump)")
    p.add_argument("out", nargs="?", default=None, metavar="OUT",
                   help="backup: the file to write (must not exist yet)")
    p.add_argument("--url", default=None,
                   help="database URL (default: TILECAM_DATABASE_URL, else SQLite in "
                        "TILECAM_DATA_DIR/tilecam.db)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from alembic.util import CommandError
    from sqlalchemy.exc import SQLAlchemyError

    from tilecam.db import make_engine, upgrade
    from tilecam.db.engine import parsed_url, sqlite_file
    from tilecam.db.migrate import current_revision, head_revision, known_revisions
    from tilecam.settings import get_settings

    if args.url is not None and not args.url.strip():
        raise ValueError("--url is empty: give a database URL, or leave --url out for "
                         "TILECAM_DATABASE_URL or the default SQLite file")
    if (args.action == "backup") != (args.out is not None):
        raise ValueError("give the file to write after backup (tilecam db backup OUT), and "
                         "after backup only")
    if args.out == "":
        raise ValueError("the file to write after backup is empty: give its name "
                         "(tilecam db backup OUT)")
    if args.out is not None and args.out.endswith(("/", os.sep)):  # Path drops the "/"
        raise ValueError(f"{_printable(args.out)} ends in {args.out[-1]}: give the file to "
                         "write, not a folder (such as "
                         f"{_printable(args.out)}tilecam-backup.db)")
    last = os.path.basename(args.out or "")
    if last in (".", ".."):  # Path("new/.") is Path("new"): a file new was written
        raise ValueError(f"{_printable(args.out)} names a folder (its last part is {last}): "
                         "give the file to write, not a folder (such as "
                         f"{_printable(args.out)}{os.sep}tilecam-backup.db)")
    url = args.url or get_settings().sqlalchemy_url
    shown = parsed_url(url).render_as_string(hide_password=True)  # ValueError: no URL
    file = sqlite_file(url)  # db current does not make an empty database to read
    if args.action == "backup":
        if file is None:
            raise ValueError(f"{shown}: tilecam db backup copies a SQLite database file; "
                             "back up a PostgreSQL database with pg_dump")
        backup_sqlite(file, Path(args.out))
        print(f"{shown}: backed up to {_printable(args.out)}")
        return 0
    if args.action == "current" and file is not None and not file.exists():
        print(f"{shown}: no database yet (tilecam db upgrade, or the service's first use, "
              "makes it)")
        return 0
    engine = make_engine(url)
    try:
        if args.action == "upgrade":
            # NewerDatabase (a ValueError) for a newer tilecam's database
            copy = upgrade(engine)
            if copy is not None:
                print(f"{shown}: its copy from before the upgrade is {_printable(copy)} "
                      "(to go back to the tilecam that wrote it, put the copy in place "
                      f"of {_printable(file or copy)})")
        rev = current_revision(engine)
    except (SQLAlchemyError, CommandError) as exc:
        raise ValueError(f"cannot use the database {shown}: "
                         f"{exc.__class__.__name__}: {str(exc).splitlines()[0]}") from None
    finally:
        engine.dispose()
    head = head_revision()
    if rev == head:
        state = "up to date"
    elif rev is not None and rev not in known_revisions():
        state = (f"ahead: written by a newer tilecam (this tilecam's newest is {head}; "
                 "upgrade tilecam to use it)")
    else:
        state = f"behind (newest is {head})"
    print(f"{engine.url.render_as_string(hide_password=True)}: revision {rev or 'none'}, {state}")
    return 0


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
        raise ValueError(f"no database at {_printable(file)} to back up")
    if os.path.isdir(out):  # a link to a folder too (no error: a name too long is False)
        raise ValueError(f"{_printable(out)} is a folder: give a new file to write, such as "
                         f"{_printable(out / 'tilecam-backup.db')}")
    if os.path.lexists(out):  # a link to nowhere too: it is a file of the user's
        raise ValueError(f"{_printable(out)} exists: give a new file (a backup never "
                         "overwrites one)")
    if not os.path.isdir(out.parent):
        if os.path.lexists(out.parent):
            raise ValueError(f"{_printable(out.parent)} is not a folder: cannot write "
                             f"{_printable(out.name)} in it")
        raise ValueError(f"no folder {_printable(out.parent)} to write "
                         f"{_printable(out.name)} in")
    name_max, name_bytes = _name_max(out.parent), len(os.fsencode(out.name))
    if name_bytes > name_max:
        raise ValueError(f"cannot write {_printable(out)}: its name is "
                         f"{name_bytes} bytes long, and the file system of "
                         f"{_printable(out.parent)} allows at most {name_max} bytes in a "
                         "file name (a character such as 中 takes 3 bytes): give a shorter "
                         "name")
    try:
        source = sqlite3.connect(file, timeout=30)
    except sqlite3.Error as exc:
        raise ValueError(f"cannot back up {_printable(file)}: {exc}") from None
    part: Path | None = None
    try:
        part = _new_part(out, name_max)
        try:
            copy = sqlite3.connect(part)
        except sqlite3.Error as exc:
            raise ValueError(f"cannot write {_printable(out)}: {exc} (in "
                             f"{_printable(out.parent)}){_path_hint(part)}") from None
        try:
            try:
                source.backup(copy)
                copy.execute("PRAGMA journal_mode=DELETE")  # one file, whatever the source's
                check = copy.execute("PRAGMA quick_check").fetchone()
            except sqlite3.Error as exc:
                raise ValueError(f"cannot back up {_printable(file)} to "
                                 f"{_printable(out)}: {exc}; nothing was written to "
                                 f"{_printable(out)}{_path_hint(part)}") from None
            if check is None or check[0] != "ok":
                raise ValueError(f"the copy of {_printable(file)} does not check ({check}): "
                                 "the database may be damaged; nothing was written to "
                                 f"{_printable(out)}")
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
            f"copy's in {_printable(part.parent)} is {length - len(_SQLITE_SUFFIX)}: back "
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
            raise ValueError(f"cannot write {_printable(out)}: {exc.strerror or exc} "
                             f"(in {_printable(out.parent)})") from None
        return part
    raise ValueError(f"cannot write {_printable(out)}: no new file name for its copy in "
                     f"{_printable(out.parent)}")


def _printable(text: str | os.PathLike[str]) -> str:
    """``text`` (a path from the command line) with any bytes that are not UTF-8 shown as
    ``\\xNN``, so that printing it cannot fail after the backup is written; each message
    shows a path so, as the success line does (until the seventy-sixth session's review
    an error showed such a byte as ``\\udcff``).

    >>> _printable("b\\udcff.db")
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
        raise ValueError(f"{_printable(out)} exists: give a new file (a backup never "
                         "overwrites one; it appeared while the copy was written)") from None
    except OSError:  # a file system without hard links: create out itself, exclusively
        try:
            fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except FileExistsError:
            raise ValueError(f"{_printable(out)} exists: give a new file (a backup "
                             "never overwrites one; it appeared while the copy was "
                             "written)") from None
        except OSError as exc:
            raise ValueError(f"cannot write {_printable(out)}: "
                             f"{exc.strerror or exc}") from None
        try:
            with os.fdopen(fd, "wb") as dst, open(part, "rb") as src:
                shutil.copyfileobj(src, dst)
                dst.flush()
                os.fsync(dst.fileno())
        except OSError as exc:
            os.unlink(out)  # the file made just now, half written
            raise ValueError(f"cannot write {_printable(out)}: "
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
