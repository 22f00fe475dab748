"""``tilecam db backup OUT`` for every OUT the file system takes (the seventy-sixth
session): names of 230 to 255 bytes failed, the copy's ``OUT.<random>.part`` (18 bytes
more) or SQLite's ``-journal`` beside it (8 more again) being past the 255-byte limit of
a name; and a copy whose whole path was over the 504 bytes SQLite opens failed too,
though OUT was a good path. The copy's name is now OUT's cut short where it must be;
a name too long for the file system, a folder given as OUT (or an OUT ending in "/",
which wrote a file named as the folder), an empty OUT and a folder that is a file are
each a clear error (exit 2, no traceback) that writes nothing; a name with bytes that
are not UTF-8 is printed with them escaped (printing it failed after the backup was
written). The copy is still published only where OUT does not exist.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

from tilecam.cli import main
from tilecam.db.backup import backup_sqlite


@pytest.fixture
def sqlite_db(tmp_path: Path) -> Path:
    file = tmp_path / "src" / "tilecam.db"
    file.parent.mkdir()
    conn = sqlite3.connect(file)
    try:
        conn.execute("PRAGMA journal_mode=WAL")  # the service's mode: rows in the log too
        conn.execute("CREATE TABLE t (a integer)")
        conn.execute("INSERT INTO t VALUES (7)")
        conn.commit()
    finally:
        conn.close()
    return file


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    out = tmp_path / "out"
    out.mkdir()
    return out


@pytest.fixture
def name_max(folder: Path) -> int:
    """The longest name, in bytes, ``folder``'s file system takes."""
    try:
        limit = os.pathconf(folder, "PC_NAME_MAX")
    except (AttributeError, OSError, ValueError):
        pytest.skip("a platform that does not say how long a file name may be")
    if not 64 <= limit <= 1024:
        pytest.skip(f"a file system whose names are up to {limit} bytes")
    return limit


def _backup(out: Path | str, sqlite_db: Path) -> int:
    return main(["db", "backup", str(out), "--url", f"sqlite:///{sqlite_db}"])


def _rows(file: Path) -> list[tuple[int]]:
    """The backup's rows, read from a copy of its bytes (SQLite itself opens no path over
    504 bytes, and some backups here are at longer ones: a restore moves the file)."""
    with tempfile.TemporaryDirectory() as there:
        check = Path(there) / "check.db"
        shutil.copyfile(file, check)
        conn = sqlite3.connect(check)
        try:
            assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
            assert conn.execute("PRAGMA journal_mode").fetchone() == ("delete",)  # one file
            return list(conn.execute("SELECT a FROM t"))
        finally:
            conn.close()


def _error(capsys: pytest.CaptureFixture[str]) -> str:
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err and captured.out == ""
    return captured.err


def _deep_folder(root: Path, length: int) -> Path:
    """A new folder below ``root`` whose real path is ``length`` bytes long."""
    here = root.resolve()
    while len(os.fsencode(here)) < length:
        step = min(200, length - len(os.fsencode(here)) - 1)
        here = here / ("d" * max(step, 1))
    here.mkdir(parents=True)
    assert len(os.fsencode(here)) == length
    return here


# --- names the file system takes, however long ---------------------------------------------


@pytest.mark.parametrize("short_of_max", [26, 25, 18, 17, 9, 8, 1, 0],
                         ids=lambda n: f"max-{n}")
def test_an_ascii_name_up_to_the_longest_the_file_system_takes_is_backed_up(
        sqlite_db: Path, folder: Path, name_max: int, short_of_max: int,
        capsys: pytest.CaptureFixture[str]) -> None:
    """On Linux's 255: 229 worked, 230-237 failed ("cannot back up the database: unable to
    open database file", the copy's -journal too long) and 238-255 failed ("File name
    too long", the copy's own name)."""
    out = folder / ("b" * (name_max - short_of_max))
    assert _backup(out, sqlite_db) == 0, capsys.readouterr().err
    assert "backed up to" in capsys.readouterr().out
    assert _rows(out) == [(7,)]
    assert [p.name for p in folder.iterdir()] == [out.name]  # no copy, no journal left


@pytest.mark.parametrize("name", ["中" * 85, "a" + "中" * 84, "ab" + "中" * 84, "备份" * 41 + "😀"],
                         ids=["85-chinese", "a+84-chinese", "ab+84-chinese", "with-emoji"])
def test_a_name_of_characters_many_bytes_long_up_to_255_bytes_is_backed_up(
        sqlite_db: Path, folder: Path, name_max: int, name: str) -> None:
    """255 bytes, not characters: 85 × 中 (3 bytes each) is the longest; the copy's name is
    cut short at whole characters, whatever byte the limit falls on."""
    if name_max != 255 or sys.getfilesystemencoding() != "utf-8":
        pytest.skip("a file system of 255-byte names in UTF-8 (Linux's)")
    assert len(name.encode()) in (250, 253, 254, 255)
    out = folder / name
    assert _backup(out, sqlite_db) == 0
    assert _rows(out) == [(7,)]
    assert [p.name for p in folder.iterdir()] == [name]


def test_the_copy_is_written_beside_out_under_a_name_the_file_system_takes(
        sqlite_db: Path, folder: Path, name_max: int,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The copy is OUT's name cut short, ``.<random>.part``, in OUT's folder (a hard
    link publishes it: the same file system), with room for SQLite's ``-journal``."""
    out = folder / ("中" * 85 if name_max == 255 else "c" * name_max)
    opened: list[Path] = []
    connect = sqlite3.connect

    def spy(path: Any, *args: Any, **kwargs: Any) -> sqlite3.Connection:
        opened.append(Path(path))
        conn: sqlite3.Connection = connect(path, *args, **kwargs)
        return conn

    monkeypatch.setattr(sqlite3, "connect", spy)
    backup_sqlite(sqlite_db, out)
    part = opened[-1]
    assert part.parent == folder and part.name.endswith(".part")
    assert len(os.fsencode(part.name + "-journal")) <= name_max
    assert out.name.startswith(part.name.rsplit(".", 2)[0])
    assert not part.exists() and _rows(out) == [(7,)]


def test_a_short_name_keeps_the_documented_copy_name(sqlite_db: Path, folder: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[str] = []
    connect = sqlite3.connect

    def spy(path: Any, *args: Any, **kwargs: Any) -> sqlite3.Connection:
        seen.append(Path(path).name)
        conn: sqlite3.Connection = connect(path, *args, **kwargs)
        return conn

    monkeypatch.setattr(sqlite3, "connect", spy)
    backup_sqlite(sqlite_db, folder / "backup.db")
    name = seen[-1]
    assert name.startswith("backup.db.") and name.endswith(".part")
    assert len(name) == len("backup.db.") + 12 + len(".part")


def test_a_long_out_that_appears_meanwhile_is_never_replaced(
        sqlite_db: Path, folder: Path, name_max: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """The long names' copy is published as OUT only where no file has the name by then,
    as a short name's is."""
    out = folder / ("e" * name_max)
    connect = sqlite3.connect

    def racing(path: Any, *args: Any, **kwargs: Any) -> sqlite3.Connection:
        if str(path).endswith(".part") and not out.exists():
            out.write_text("someone else's")
        conn: sqlite3.Connection = connect(path, *args, **kwargs)
        return conn

    monkeypatch.setattr(sqlite3, "connect", racing)
    with pytest.raises(ValueError, match="exists"):
        backup_sqlite(sqlite_db, out)
    assert out.read_text() == "someone else's"
    assert [p.name for p in folder.iterdir()] == [out.name]


# --- names and paths too long -----------------------------------------------------------------


def test_a_name_longer_than_the_file_system_takes_is_named_so(
        sqlite_db: Path, folder: Path, name_max: int,
        capsys: pytest.CaptureFixture[str]) -> None:
    out = folder / ("f" * (name_max + 1))
    assert _backup(out, sqlite_db) == 2
    err = _error(capsys)
    assert f"{name_max + 1} bytes long" in err and f"at most {name_max} bytes" in err, err
    assert "shorter name" in err
    assert list(folder.iterdir()) == []


def test_a_chinese_name_over_255_bytes_is_named_so_in_bytes(
        sqlite_db: Path, folder: Path, name_max: int,
        capsys: pytest.CaptureFixture[str]) -> None:
    """86 characters: far under 255 characters, but 258 bytes."""
    if name_max != 255 or sys.getfilesystemencoding() != "utf-8":
        pytest.skip("a file system of 255-byte names in UTF-8 (Linux's)")
    assert _backup(folder / ("中" * 86), sqlite_db) == 2
    err = _error(capsys)
    assert "258 bytes long" in err and "at most 255 bytes" in err and "3 bytes" in err, err
    assert list(folder.iterdir()) == []


def test_a_deep_folder_takes_long_names_its_copy_cut_to_what_sqlite_opens(
        sqlite_db: Path, tmp_path: Path, name_max: int) -> None:
    """A folder 380 bytes deep: an OUT of 120 or more bytes failed ("unable to open
    database file": SQLite opens no path over 504 bytes, and the copy's was 18 longer than
    OUT's); the copy's name is cut short for SQLite too. Through a short link to the
    folder as well: SQLite resolves links, and so does the cut."""
    deep = _deep_folder(tmp_path / "deep", 380)
    for name in ("g" * 120, "h" * min(name_max, 255)):
        out = deep / name
        backup_sqlite(sqlite_db, out)
        assert _rows(out) == [(7,)]
    link = tmp_path / "l"
    link.symlink_to(deep, target_is_directory=True)
    backup_sqlite(sqlite_db, link / ("i" * 200))
    assert sorted(len(p.name) for p in deep.iterdir()) == [120, 200, min(name_max, 255)]


def test_a_folder_too_deep_for_sqlite_says_to_use_a_shorter_path(
        sqlite_db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A folder 495 bytes deep leaves no room for any copy's name under SQLite's 504
    bytes (its unix VFS's limit up to at least 3.46: a SQLite that opens longer paths
    writes the backup)."""
    deep = _deep_folder(tmp_path / "deep", 495)
    out = deep / "x.db"
    code = _backup(out, sqlite_db)
    if code == 0:
        assert _rows(out) == [(7,)]
        return
    assert code == 2
    err = _error(capsys)
    assert f"cannot write {out}" in err and "folder with a shorter path" in err, err
    assert list(deep.iterdir()) == []


# --- OUT that is no new file in a folder --------------------------------------------------


def test_a_folder_given_as_out_is_named_a_folder(
        sqlite_db: Path, folder: Path, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    link = tmp_path / "to-out"
    link.symlink_to(folder, target_is_directory=True)
    for out in (folder, link):
        assert _backup(out, sqlite_db) == 2
        err = _error(capsys)
        assert f"{out} is a folder" in err and "tilecam-backup.db" in err, err
    assert list(folder.iterdir()) == []


def test_out_ending_in_a_slash_is_refused_not_written_as_a_file(
        sqlite_db: Path, folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``tilecam db backup new/`` wrote a file named ``new`` (Path drops the "/")."""
    assert _backup(f"{folder / 'new'}/", sqlite_db) == 2
    err = _error(capsys)
    assert "ends in /" in err and "not a folder" in err, err
    assert list(folder.iterdir()) == []


def test_an_empty_out_is_refused(sqlite_db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """It was ". exists: give a new file"."""
    assert _backup("", sqlite_db) == 2
    assert "is empty" in _error(capsys)


def test_out_in_a_folder_that_does_not_exist(
        sqlite_db: Path, folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = folder / "missing" / "backup.db"
    assert _backup(out, sqlite_db) == 2
    assert f"no folder {out.parent} to write backup.db in" in _error(capsys)
    assert list(folder.iterdir()) == []


def test_out_in_a_folder_that_is_a_file(
        sqlite_db: Path, folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (folder / "notes.txt").write_text("mine")
    out = folder / "notes.txt" / "backup.db"
    assert _backup(out, sqlite_db) == 2
    assert f"{out.parent} is not a folder" in _error(capsys)
    assert (folder / "notes.txt").read_text() == "mine"


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0,
                    reason="root writes in a read-only folder (the /proc test covers root)")
def test_out_in_a_read_only_folder_names_the_destination(
        sqlite_db: Path, folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder.chmod(0o555)
    try:
        out = folder / "backup.db"
        assert _backup(out, sqlite_db) == 2
        err = _error(capsys)
        assert f"cannot write {out}" in err and "ermission denied" in err, err
        assert str(sqlite_db) not in err
        assert list(folder.iterdir()) == []
    finally:
        folder.chmod(0o755)


def test_a_name_with_bytes_that_are_not_utf8_is_printed_escaped(
        sqlite_db: Path, folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``b\\xff.db`` (Latin-1 ÿ, say): the backup was written, then printing its name to a
    strict UTF-8 stdout (capsys's; en_US.UTF-8's) raised, and the command said "error:
    'utf-8' codec can't encode…" and exited 2."""
    if sys.platform == "darwin" or sys.getfilesystemencoding() != "utf-8":
        pytest.skip("a file system that takes any bytes in a name, read as UTF-8")
    out = folder / os.fsdecode(b"b\xff.db")
    assert _backup(out, sqlite_db) == 0
    assert "b\\xff.db" in capsys.readouterr().out
    assert _rows(out) == [(7,)]


#: Runs in a child process: upgrade the SQLite file argv[1] (at an older revision), so
#: that its copy is taken, and say which of the command modules got imported on the way.
UPGRADE_AND_LIST = """
import sys
from tilecam.db import make_engine, upgrade
copy = upgrade(make_engine("sqlite:///" + sys.argv[1]))
print(copy is not None, sorted(m for m in sys.modules if m.startswith("tilecam.commands")))
"""


def test_the_copy_before_an_upgrade_needs_no_command_module(tmp_path: Path) -> None:
    """Layering (seventy-ninth session): the database layer's copy before an upgrade is
    :mod:`tilecam.db.backup`'s; until then it imported ``backup_sqlite`` from the ``tilecam
    db`` command's module (:mod:`tilecam.commands.db`) — the service, upgrading on its
    first request, imported the CLI's code."""
    import subprocess

    from tilecam.db import make_engine, upgrade

    file = tmp_path / "tilecam.db"
    engine = make_engine(f"sqlite:///{file}")
    upgrade(engine, "0009_camera_surface")
    engine.dispose()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run([sys.executable, "-c", UPGRADE_AND_LIST, str(file)],
                          capture_output=True, text=True, env=env, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "True []"


def test_the_cli_still_starts_without_sqlalchemy() -> None:
    """Moving the backup out of :mod:`tilecam.commands.db` keeps the CLI's start light:
    the command imports the database modules when it runs, not when it is listed."""
    import subprocess

    code = ("import sys, contextlib\nfrom tilecam.cli import main\n"
            "with contextlib.suppress(SystemExit):\n    main(['--version'])\n"
            "print('sqlalchemy' in sys.modules)")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "False"
