"""Shared fixtures for the tests of ``train/`` (scripts, not an installed package)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[2]
TRAIN_PY = REPO / ".venv-train" / "bin" / "python"


@pytest.fixture(scope="session")
def train_module() -> Callable[[str], ModuleType]:
    """Load ``train/<name>.py`` (once; later calls return it) as a module of its own name,
    ``_train_script_<name>``; a script in a folder of ``train/`` is named with it
    (``"classifier/crops"``)."""

    def load(name: str) -> ModuleType:
        # under a name of its own: a script's bare stem would shadow a package (``train``
        # is also the folder bench/ imports ``train.compare`` from) or be shadowed by one
        stem = f"_train_script_{name.replace('/', '_')}"
        if stem in sys.modules:
            return sys.modules[stem]
        path = REPO / "train" / f"{name}.py"
        spec = importlib.util.spec_from_file_location(stem, path)
        assert spec and spec.loader
        mod = importlib.util.module_from_spec(spec)
        sys.modules[stem] = mod
        spec.loader.exec_module(mod)
        return mod

    return load


@pytest.fixture(scope="session")
def train_python(
    tmp_path_factory: pytest.TempPathFactory,
) -> Callable[..., subprocess.CompletedProcess[str]]:
    """``run(code, *args)``: Python ``code`` in the training venv (torch, ultralytics),
    offline, from the repository root, with ``args`` as ``sys.argv[1:]``. Skips the test
    when that venv is missing (it is not part of ``make test``'s install)."""
    if not TRAIN_PY.exists():
        pytest.skip("needs the training venv (.venv-train: torch, ultralytics)")
    config = tmp_path_factory.mktemp("yolo-config")
    env = {"YOLO_OFFLINE": "1", "YOLO_CONFIG_DIR": str(config), "PATH": "/usr/bin:/bin"}
    probe = subprocess.run([str(TRAIN_PY), "-c", "import torch, ultralytics, onnxruntime"],
                           capture_output=True, text=True, timeout=120, env=env)
    if probe.returncode != 0:  # e.g. an install cut short (train/setup_venv.sh again)
        pytest.skip("the training venv .venv-train is incomplete: "
                    + (probe.stderr.strip().splitlines() or ["?"])[-1])

    def run(code: str, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(TRAIN_PY), "-c", code, *args], capture_output=True,
                              text=True, env=env, timeout=300, cwd=REPO)  # fmt: skip

    return run
