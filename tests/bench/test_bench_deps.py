"""Benches that need a package of the dev extra, run in a venv without it (the one
``make serve`` makes): one line naming the package and the dev install, exit status 2,
no traceback (bench/_deps.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"

# Runs bench/<argv[1]> with the given top-level modules made unimportable, as they are in
# a venv with only tilecam's runtime packages.
WITHOUT = """
import importlib.abc, os, runpy, sys
blocked = set(sys.argv[1].split(","))
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in blocked:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None
sys.meta_path.insert(0, Block())
script = sys.argv[2]
sys.argv = sys.argv[2:]
sys.path[0] = os.path.dirname(script)
runpy.run_path(script, run_name="__main__")
"""

CASES = [
    ("fuzz_inputs.py", ["service", "--hands", "2", "--no-model"], "httpx2"),
    ("fuzz_tables.py", ["--steps", "2"], "httpx2"),
    ("sheet_bench.py", ["--hands", "2"], "httpx2"),
    ("api_recognize_load.py", ["--duration", "1"], "httpx"),
    ("score_bench.py", ["--hands", "2"], "pymahjonggb"),
    ("mcr_differential.py", ["--count", "2"], "pymahjonggb"),
]


@pytest.mark.parametrize(("script", "args", "package"), CASES, ids=[c[0] for c in CASES])
def test_a_missing_dev_package_is_one_line_naming_it_and_the_dev_install(
    script: str, args: list[str], package: str,
) -> None:
    blocked = "httpx,httpx2,MahjongGB"
    res = subprocess.run([sys.executable, "-c", WITHOUT, blocked, str(BENCH / script), *args],
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 2, res.stderr
    assert "Traceback" not in res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1, res.stderr
    assert f"needs the package {package} from tilecam's dev extra" in lines[0]
    assert ".venv/bin/pip install -c constraints.txt -e '.[dev]'" in lines[0]
    assert "pip install httpx2\n" not in res.stderr  # starlette's advice is not the fix
