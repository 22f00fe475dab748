"""The shell scripts of ``train/`` and CI parse (``bash -n``): they run on machines where a
syntax error costs a whole lent-GPU call or a CI run."""

from __future__ import annotations

import re
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


def test_prepare_packs_only_sets_it_makes() -> None:
    """``train/gpu/prepare.sh`` step 5 packs ``--synth "$G/NAME:N"`` sets; each must be made
    in step 2 (``synth "$G/NAME" ...``), or a bare machine's pack fails after minutes of work."""
    text = (REPO / "train" / "gpu" / "prepare.sh").read_text()
    made = set(re.findall(r'^synth "\$G/([\w-]+)"', text, flags=re.M))
    packed = set(re.findall(r'--(?:val-)?synth "\$G/([\w-]+):', text))
    assert packed, "no --synth sets found in prepare.sh"
    assert packed <= made, f"packed but never made: {sorted(packed - made)}"
    assert {"synth-train-p-c", "synth-train-pict-b"} <= packed
