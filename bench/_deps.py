"""Packages some benches need from tilecam's ``dev`` extra (pyproject.toml), which the
``.venv`` that ``make serve`` makes does not hold (``make test`` adds them). A bench that
needs one calls :func:`require` (or :func:`fastapi_test_client`) before it starts any work; when
the package is missing it ends with one line that names the package and the install
command, and exit status 2 — no traceback."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, NoReturn

if TYPE_CHECKING:
    from fastapi.testclient import TestClient

# The Makefile's dev install (its `.stamp-dev` rule), run from the checkout's root.
DEV_INSTALL = ".venv/bin/pip install -c constraints.txt -e '.[dev]'"


def missing_message(package: str, prog: str | None = None) -> str:
    """The one line for a missing dev package.

    >>> missing_message("httpx2", "sheet_bench.py")  # doctest: +NORMALIZE_WHITESPACE
    "sheet_bench.py: needs the package httpx2 from tilecam's dev extra, which is not
    installed here; install it with: .venv/bin/pip install -c constraints.txt -e '.[dev]'
    (or run make test once)"
    """
    prog = prog or Path(sys.argv[0]).name or "bench"
    return (f"{prog}: needs the package {package} from tilecam's dev extra, which is not "
            f"installed here; install it with: {DEV_INSTALL} (or run make test once)")


def missing(package: str) -> NoReturn:
    """Print :func:`missing_message` to stderr and exit with status 2."""
    print(missing_message(package), file=sys.stderr)
    raise SystemExit(2)


def require(module: str, package: str | None = None) -> ModuleType:
    """Import ``module`` (from the PyPI package ``package``, default the module's name), or
    end the bench as :func:`missing` does."""
    try:
        return importlib.import_module(module)
    except ImportError:
        missing(package or module.split(".")[0])


def fastapi_test_client() -> type[TestClient]:
    """FastAPI's ``TestClient`` class. Starlette builds it on ``httpx2`` (or the older
    ``httpx``) and raises a ``RuntimeError`` that advises a bare ``pip install httpx2``
    when neither is there: here that ends the bench as :func:`missing` does instead."""
    try:
        from fastapi.testclient import TestClient
    except (ImportError, RuntimeError):
        missing("httpx2")
    return TestClient

