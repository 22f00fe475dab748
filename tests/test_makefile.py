"""The Makefile: the port and host a user asks for are the ones served; the Python the venv
is made with is one tilecam runs on."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


def serve_command(*args: str, **env: str) -> str:
    """The last line `make -n serve` would run (nothing is run)."""
    base = {k: v for k, v in os.environ.items() if k not in ("TILECAM_PORT", "TILECAM_HOST")}
    base.pop("PORT", None)
    base.pop("HOST", None)
    done = subprocess.run(
        ["make", "-n", "-s", "serve", *args],
        cwd=REPO,
        env={**base, **env},
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip().splitlines()[-1]


def test_serve_defaults_to_localhost_8000() -> None:
    assert serve_command().endswith("tilecam serve --host 127.0.0.1 --port 8000")


def test_serve_takes_the_port_and_host_from_the_tilecam_settings() -> None:
    """README: `TILECAM_PORT=9000 make serve` serves on 9000 (settings prefix TILECAM_)."""
    line = serve_command(TILECAM_PORT="9000", TILECAM_HOST="0.0.0.0")
    assert line.endswith("tilecam serve --host 0.0.0.0 --port 9000")


def test_serve_takes_the_port_from_make() -> None:
    """README: `make serve PORT=9000`, which wins over TILECAM_PORT."""
    assert serve_command("PORT=9100", TILECAM_PORT="9000").endswith("--port 9100")


# ------------------------------------------------------------ the Python the venv is made with

FAKE_PYTHON = """#!/bin/sh
# A stand-in interpreter reporting Python {version}: answers -V and the Makefile's version
# check, makes a "venv" holding a copy of itself, and takes any other command as done.
case "$1" in
  -V) echo "Python {version}" ;;
  -c) exit {check_rc} ;;
  -m) if [ "$2" = venv ]; then
        mkdir -p "$3/bin"; cp "$0" "$3/bin/python"; : > "$3/pyvenv.cfg"
      fi ;;
esac
exit 0
"""


def fake_python(path: Path, version: str) -> Path:
    """A shell script at ``path`` standing in for Python ``version`` (e.g. "3.10.13")."""
    old = tuple(int(p) for p in version.split(".")[:2]) < (3, 11)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(FAKE_PYTHON.format(version=version, check_rc=1 if old else 0))
    path.chmod(0o755)
    return path


def make_install(tmp_path: Path, python: Path) -> subprocess.CompletedProcess[str]:
    """`make install PYTHON=python` in a copy of the project's stamp inputs (the fake
    interpreters stand in for venv and pip: nothing is installed)."""
    for name in ("pyproject.toml", "constraints.txt"):
        shutil.copy(REPO / name, tmp_path / name)
    return subprocess.run(["make", "-f", str(REPO / "Makefile"), "install", f"PYTHON={python}"],
                          cwd=tmp_path, capture_output=True, text=True)


def test_a_python_older_than_3_11_is_refused_with_what_to_do(tmp_path: Path) -> None:
    """pyproject's requires-python >= 3.11: `make` says so and names PYTHON=, and makes no
    venv (pip would have failed after making one, and every later run reused it)."""
    done = make_install(tmp_path, fake_python(tmp_path / "old" / "python", "3.10.13"))
    assert done.returncode != 0
    assert "needs Python 3.11 or newer" in done.stderr and "Python 3.10.13" in done.stderr
    assert "PYTHON=python3.11" in done.stderr
    assert not (tmp_path / ".venv").exists()


def test_a_missing_python_is_named(tmp_path: Path) -> None:
    done = make_install(tmp_path, tmp_path / "no-such-python")
    assert done.returncode != 0 and "is not found" in done.stderr


def test_a_venv_left_by_an_old_python_is_made_again(tmp_path: Path) -> None:
    """A .venv made by Python 3.10 (before the check, or by hand) is replaced when a newer
    PYTHON is named, instead of failing again the same way."""
    fake_python(tmp_path / ".venv" / "bin" / "python", "3.10.13")
    (tmp_path / ".venv" / "pyvenv.cfg").write_text("")
    done = make_install(tmp_path, fake_python(tmp_path / "new" / "python", "3.12.1"))
    assert done.returncode == 0, done.stderr
    assert "making it again" in done.stdout
    version = subprocess.run([str(tmp_path / ".venv" / "bin" / "python"), "-V"],
                             capture_output=True, text=True, check=True).stdout
    assert version.strip() == "Python 3.12.1"
    assert (tmp_path / ".venv" / ".stamp-runtime").exists()


def test_a_good_venv_is_kept(tmp_path: Path) -> None:
    fake_python(tmp_path / ".venv" / "bin" / "python", "3.11.7")
    (tmp_path / ".venv" / "pyvenv.cfg").write_text("")
    done = make_install(tmp_path, fake_python(tmp_path / "new" / "python", "3.12.1"))
    assert done.returncode == 0, done.stderr
    assert "making it again" not in done.stdout
    version = subprocess.run([str(tmp_path / ".venv" / "bin" / "python"), "-V"],
                             capture_output=True, text=True, check=True).stdout
    assert version.strip() == "Python 3.11.7"
