"""``constraints.txt``: `make serve` and `make test` install the versions the project is
tested with, every dependency is pinned for each tested Python, and
``tools/pin_versions.py`` merges per-Python resolutions into such a file."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from types import ModuleType

import pytest
from packaging.markers import Marker
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

REPO = Path(__file__).resolve().parents[1]
CONSTRAINTS = REPO / "constraints.txt"
TESTED = ("3.11", "3.12", "3.13")  # the Pythons the file was resolved and tested under


def _pins() -> list[tuple[str, Version, Marker]]:
    """``(name, version, marker)`` of each line of constraints.txt."""
    out = []
    for line in CONSTRAINTS.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        req = Requirement(line)
        (spec,) = req.specifier
        assert spec.operator == "==", f"{line!r}: a constraint pins one version (==)"
        assert req.marker is not None, f"{line!r}: every pin names the Pythons it is for"
        out.append((canonicalize_name(req.name), Version(spec.version), req.marker))
    return out


def _pinned_for(python: str) -> dict[str, Version]:
    """The versions constraints.txt gives under Python ``python`` ("3.12")."""
    env = {"python_version": python, "python_full_version": f"{python}.0"}
    found: dict[str, Version] = {}
    for name, version, marker in _pins():
        if marker.evaluate(env):
            assert name not in found, f"{name} is pinned twice for Python {python}"
            found[name] = version
    return found


def _declared() -> list[Requirement]:
    """The project's runtime and dev requirements (pyproject.toml)."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    return [Requirement(r) for r in (*project["dependencies"],
                                     *project["optional-dependencies"]["dev"])]


@pytest.mark.parametrize("python", TESTED)
def test_every_dependency_is_pinned_within_its_declared_range(python: str) -> None:
    """Each runtime and dev requirement has one pin for each tested Python, and the pin
    satisfies pyproject.toml's own range (a pin outside it would make pip fail)."""
    pinned = _pinned_for(python)
    for req in _declared():
        name = canonicalize_name(req.name)
        assert name in pinned, f"{req.name} is not pinned for Python {python}"
        assert req.specifier.contains(pinned[name], prereleases=True), (
            f"{req.name}: pinned {pinned[name]}, pyproject asks {req.specifier}")


def test_a_python_newer_than_those_tested_gets_the_newest_releases() -> None:
    """No pin applies to an untested newer Python: it installs as before pinning."""
    newest = max(TESTED, key=lambda v: tuple(map(int, v.split("."))))
    major, minor = map(int, newest.split("."))
    assert _pinned_for(f"{major}.{minor + 1}") == {}


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_installs_the_project_with_the_pinned_versions() -> None:
    """`make serve`/`make test` pass constraints.txt to each pip install of the project;
    `CONSTRAINTS=` leaves it out (newest releases)."""

    def recipe(*args: str) -> list[str]:
        done = subprocess.run(["make", "-n", "-B", "-s", ".venv/.stamp-dev", *args], cwd=REPO,
                              capture_output=True, text=True, check=True)
        return [line for line in done.stdout.splitlines() if "pip install" in line
                and " -e " in line]

    pinned = recipe()
    assert len(pinned) == 2 and all("-c constraints.txt" in line for line in pinned), pinned
    assert not any("-c " in line for line in recipe("CONSTRAINTS="))


@pytest.fixture(scope="module")
def pin_versions() -> ModuleType:
    spec = importlib.util.spec_from_file_location("pin_versions",
                                                  REPO / "tools" / "pin_versions.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["pin_versions"] = module
    spec.loader.exec_module(module)
    return module


def test_merge_gives_one_line_where_the_pythons_agree_and_one_per_python_otherwise(
    pin_versions: ModuleType,
) -> None:
    lines = pin_versions.merge({
        "3.12": {"NumPy": "2.5.5", "typing_extensions": "4.16.0", "tomli": "2.2.1"},
        "3.11": {"numpy": "2.4.6", "typing-extensions": "4.16.0", "tomli": "2.2.1",
                 "exceptiongroup": "1.3.0"},
    })
    assert lines == [
        'exceptiongroup==1.3.0 ; python_version == "3.11"',
        'numpy==2.4.6 ; python_version == "3.11"',
        'numpy==2.5.5 ; python_version == "3.12"',
        'tomli==2.2.1 ; python_version < "3.13"',
        'typing-extensions==4.16.0 ; python_version < "3.13"',
    ]
    # what the merge writes is what the checks above read
    for line in lines:
        req = Requirement(line)
        assert req.marker is not None and not req.marker.evaluate({"python_version": "3.13"})


def test_merge_refuses_no_python(pin_versions: ModuleType) -> None:
    with pytest.raises(ValueError, match="at least one --python"):
        pin_versions.merge({})
