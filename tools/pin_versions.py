"""Write ``constraints.txt``: the exact package versions the project is tested with.

``make serve`` and ``make test`` install with ``pip install -c constraints.txt``, so a fresh
machine gets the versions the last full test run had, not whatever was released since
(Starlette 1.x moved its test client to another HTTP package between two sessions
here; a release could change ``make serve`` the same way). This script resolves the
project with its ``dev`` extra — unpinned, newest releases, as a plain ``pip install``
would — once for each Python given (a throwaway venv each, ``pip install --dry-run
--report``, nothing installed), and merges the answers: a package resolved alike under
every Python gets one line, one resolved differently one line per Python
(``python_version == "3.12"``). Every line also says ``python_version < "X.Y"`` for the
first Python newer than all of those given, so an untested newer Python installs the
newest releases, as before pinning.

Usage (then run ``make test`` under each Python before committing the file)::

    python3 tools/pin_versions.py --python python3.11 --python python3.12 \\
        --python python3.13 > constraints.txt
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PROJECT = "tilecam"

HEADER = """\
# The exact versions `make serve` and `make test` install (pip -c constraints.txt):
# the set the project was last tested with, per Python minor version. A Python newer
# than those tested matches no line and gets the newest releases. Written by
# tools/pin_versions.py; to move to newer releases, run it again (see its docstring),
# run `make test` under each Python and commit the file.
"""


def normalise(name: str) -> str:
    """A distribution name as pip compares them (PEP 503).

    >>> normalise("PyMahjongGB"), normalise("typing_extensions")
    ('pymahjonggb', 'typing-extensions')
    """
    return re.sub(r"[-_.]+", "-", name).lower()


def next_minor(versions: Sequence[str]) -> str:
    """The Python minor version after the newest of ``versions`` ("3.13" → "3.14").

    >>> next_minor(["3.11", "3.13", "3.12"])
    '3.14'
    """
    newest = max(tuple(int(p) for p in v.split(".")) for v in versions)
    return f"{newest[0]}.{newest[1] + 1}"


def merge(resolved: Mapping[str, Mapping[str, str]]) -> list[str]:
    """Constraint lines from ``{python minor: {package: version}}``, sorted by name.

    >>> merge({"3.11": {"numpy": "2.4.6", "h11": "0.16.0"},
    ...        "3.12": {"numpy": "2.5.5", "h11": "0.16.0"}})  # doctest: +NORMALIZE_WHITESPACE
    ['h11==0.16.0 ; python_version < "3.13"',
     'numpy==2.4.6 ; python_version == "3.11"',
     'numpy==2.5.5 ; python_version == "3.12"']
    """
    if not resolved:
        raise ValueError("no Python resolved: give at least one --python")
    below = next_minor(list(resolved))
    named = {py: {normalise(n): v for n, v in found.items()} for py, found in resolved.items()}
    lines = []
    for name in sorted({n for found in named.values() for n in found}):
        by_python = {py: found.get(name) for py, found in named.items()}
        if len(set(by_python.values())) == 1:
            lines.append(f'{name}=={next(iter(by_python.values()))} ; python_version < "{below}"')
            continue
        for py in sorted(by_python, key=lambda v: tuple(int(p) for p in v.split("."))):
            if by_python[py] is not None:
                lines.append(f'{name}=={by_python[py]} ; python_version == "{py}"')
    return lines


def resolve(python: str, extras: str = "dev") -> tuple[str, dict[str, str]]:
    """``(python minor, {package: version})`` that pip picks for the project with
    ``extras`` under the interpreter ``python``, in a throwaway venv."""
    with tempfile.TemporaryDirectory() as tmp:
        venv, report = Path(tmp) / "venv", Path(tmp) / "report.json"
        subprocess.run([python, "-m", "venv", str(venv)], check=True)
        py = str(venv / "bin" / "python")
        subprocess.run([py, "-m", "pip", "install", "-q", "--upgrade", "pip"], check=True)
        minor = subprocess.run(
            [py, "-c", "import sys; print(f'{sys.version_info[0]}.{sys.version_info[1]}')"],
            check=True, capture_output=True, text=True).stdout.strip()
        subprocess.run([py, "-m", "pip", "install", "-q", "--dry-run", "--report", str(report),
                        f"{REPO}[{extras}]"], check=True, stdout=subprocess.DEVNULL)
        found = {item["metadata"]["name"]: item["metadata"]["version"]
                 for item in json.loads(report.read_text())["install"]}
    found.pop(PROJECT, None)
    return minor, found


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--python", action="append", required=True,
                    help="an interpreter to resolve for (repeat for each Python)")
    args = ap.parse_args(argv)
    resolved: dict[str, dict[str, str]] = {}
    for python in args.python:
        minor, found = resolve(python)
        print(f"{python}: Python {minor}, {len(found)} packages", file=sys.stderr)
        resolved[minor] = found
    sys.stdout.write(HEADER + "\n".join(merge(resolved)) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
