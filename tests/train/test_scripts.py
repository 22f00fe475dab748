"""The shell scripts of ``train/`` and CI parse (``bash -n``): they run on machines where a
syntax error costs a whole lent-GPU call or a CI run."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCRIPTS = sorted([*REPO.glob("train/**/*.sh"), REPO / ".ci" / "run"])


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: str(p.relative_to(REPO)))
def test_script_parses(script: Path) -> None:
    run = subprocess.run(["bash", "-n", str(script)], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr


def test_the_scripts_are_found() -> None:
    names = {p.name for p in SCRIPTS}
    assert {"prepare.sh", "run.sh", "pipeline.sh", "run"} <= names
