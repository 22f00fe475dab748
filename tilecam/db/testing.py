"""Throwaway databases for tests: a fresh SQLite file, or a private PostgreSQL server.

:func:`postgres_server` starts one PostgreSQL server per process (``initdb`` +
``pg_ctl`` from ``/usr/lib/postgresql/*/bin`` or ``PATH``) in a temporary folder,
listening on 127.0.0.1 on a free port, as an unprivileged user when run as root;
it is stopped at exit. :func:`fresh_postgres_database` creates an empty database
on it. Both raise :class:`DatabaseUnavailable` with the reason when PostgreSQL
cannot be started here, so tests can skip with that reason.
"""

from __future__ import annotations

import atexit
import glob
import os
import shutil
import socket
import subprocess
import tempfile
import uuid
from dataclasses import dataclass
from pathlib import Path


class DatabaseUnavailable(RuntimeError):
    """PostgreSQL cannot be started on this machine (the message says why)."""


@dataclass
class PostgresServer:
    """A running throwaway server: its folder, port and the user it runs as."""

    root: Path
    port: int
    run_as: str | None

    def url(self, database: str = "postgres") -> str:
        """SQLAlchemy URL of ``database`` on this server (user ``postgres``, trust auth)."""
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{database}"


_server: PostgresServer | None = None
_failure: str | None = None


def _find_binary(name: str) -> str | None:
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    if found:
        return found[-1]
    return shutil.which(name)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _unprivileged_user() -> str | None:
    """The user to run PostgreSQL as: None when not root, else ``postgres`` or ``nobody``."""
    if os.geteuid() != 0:
        return None
    import pwd

    for name in ("postgres", "nobody"):
        try:
            pwd.getpwnam(name)
        except KeyError:
            continue
        return name
    raise DatabaseUnavailable("running as root and neither user 'postgres' nor 'nobody' exists")


def _run(cmd: list[str], run_as: str | None, timeout: float) -> subprocess.CompletedProcess[str]:
    if run_as is not None:
        runuser = shutil.which("runuser")
        cmd = [runuser, "-u", run_as, "--", *cmd] if runuser else ["su", run_as, "-s", "/bin/sh",
                                                                   "-c", " ".join(cmd)]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)


def _start() -> PostgresServer:
    initdb = _find_binary("initdb")
    pg_ctl = _find_binary("pg_ctl")
    if not initdb or not pg_ctl:
        raise DatabaseUnavailable(
            "PostgreSQL is not installed (no initdb/pg_ctl; Debian: apt-get install postgresql)"
        )
    try:
        import psycopg  # noqa: F401
    except ImportError as exc:
        raise DatabaseUnavailable("the psycopg driver is not installed (pip install "
                                  "'psycopg[binary]')") from exc
    run_as = _unprivileged_user()
    root = Path(tempfile.mkdtemp(prefix="tilecam-pg-"))
    root.chmod(0o755)
    data, sock = root / "data", root / "sock"
    sock.mkdir()
    if run_as is not None:
        import pwd

        pw = pwd.getpwnam(run_as)
        os.chown(root, pw.pw_uid, pw.pw_gid)
        os.chown(sock, pw.pw_uid, pw.pw_gid)
    res = _run([initdb, "-D", str(data), "-U", "postgres", "-A", "trust", "-E", "UTF8",
                "--no-sync"], run_as, 120)
    if res.returncode != 0:
        shutil.rmtree(root, ignore_errors=True)
        raise DatabaseUnavailable(f"initdb failed: {(res.stderr or res.stdout).strip()[-400:]}")
    port = _free_port()
    opts = (f"-p {port} -k {sock} -c listen_addresses=127.0.0.1 -c fsync=off "
            "-c max_connections=60")
    res = _run([pg_ctl, "-D", str(data), "-o", opts, "-l", str(root / "log"), "-w", "-t", "60",
                "start"], run_as, 90)
    if res.returncode != 0:
        log = (root / "log").read_text(errors="replace")[-400:] if (root / "log").exists() else ""
        shutil.rmtree(root, ignore_errors=True)
        raise DatabaseUnavailable(f"pg_ctl start failed: {res.stderr.strip()[-300:]} {log}")
    server = PostgresServer(root=root, port=port, run_as=run_as)

    def _stop() -> None:
        _run([pg_ctl, "-D", str(data), "-m", "immediate", "stop"], run_as, 60)
        shutil.rmtree(root, ignore_errors=True)

    atexit.register(_stop)
    return server


def postgres_server() -> PostgresServer:
    """The process's throwaway PostgreSQL server, started on first use."""
    global _server, _failure
    if _server is not None:
        return _server
    if _failure is not None:
        raise DatabaseUnavailable(_failure)
    try:
        _server = _start()
    except DatabaseUnavailable as exc:
        _failure = str(exc)
        raise
    except (OSError, subprocess.SubprocessError) as exc:
        _failure = f"could not start PostgreSQL: {exc}"
        raise DatabaseUnavailable(_failure) from exc
    return _server


def fresh_postgres_database() -> str:
    """Create an empty database on the throwaway server; returns its SQLAlchemy URL."""
    import psycopg

    server = postgres_server()
    name = f"t_{uuid.uuid4().hex[:16]}"
    with psycopg.connect(f"host=127.0.0.1 port={server.port} user=postgres dbname=postgres",
                         autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return server.url(name)


def fresh_sqlite_database(folder: Path) -> str:
    """SQLAlchemy URL of a new SQLite file in ``folder``."""
    return f"sqlite:///{(folder / f'tilecam-{uuid.uuid4().hex[:8]}.db').as_posix()}"
