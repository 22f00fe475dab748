"""``given_options``, shared by ``train/export.py`` and ``train/classifier/run_settings.py``
from ``train/_options.py``: one function, reached the same way whether a script runs
(``python train/export.py``, ``train/classifier/train.py`` importing ``run_settings``) or
a test loads it (``_train_script_<name>``), and no folder of ``train/`` put on
``sys.path`` for it (``train/train.py`` would then answer ``import train``)."""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO / "train" / "_options.py"


@pytest.mark.parametrize("script", ["export", "classifier/run_settings"])
def test_both_scripts_use_the_shared_function(
    script: str, train_module: Callable[[str], ModuleType]
) -> None:
    given = train_module(script).given_options
    assert Path(given.__code__.co_filename).resolve() == SHARED
    ap = argparse.ArgumentParser()
    ap.add_argument("weights")
    ap.add_argument("--classifier-size", type=int, default=64)
    ap.add_argument("--dynamic", action="store_true")
    ap.add_argument("--classifier", action="append", default=[])
    assert given(ap, ["w.pt"]) == {"weights"}
    assert given(ap, ["w.pt", "--classifier-s=96", "--dyn"]) == {
        "weights", "classifier_size", "dynamic"}
    assert given(ap, ["--classifier", "a.onnx", "w.pt"]) == {"weights", "classifier"}
    # the defaults are back afterwards, and after a refused command line too
    with pytest.raises(SystemExit):
        given(ap, ["w.pt", "--classifier-size", "big"])
    assert vars(ap.parse_args(["w.pt"])) == {
        "weights": "w.pt", "classifier_size": 64, "dynamic": False, "classifier": []}


def test_loading_a_script_leaves_the_import_path_alone() -> None:
    """Loaded afresh under a name of its own, as the tests load scripts: ``sys.path`` is
    as it was, and the only new module is the script (``train``, the shared file's own
    name or a folder's script do not appear)."""
    path, modules = list(sys.path), set(sys.modules)
    name = "_given_options_probe_run_settings"
    spec = importlib.util.spec_from_file_location(
        name, REPO / "train" / "classifier" / "run_settings.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert sys.path == path
    assert set(sys.modules) - modules <= {name}
    assert "train" not in sys.modules or "train" in modules


def test_the_scripts_reach_it_when_run() -> None:
    """As the scripts run: ``train/classifier/train.py`` imports ``run_settings`` from its
    folder put first on ``sys.path``; ``train/export.py`` runs with ``train/`` first."""
    code = ("import argparse, sys; sys.path.insert(0, 'train/classifier');"
            "from run_settings import given_options as g;"
            "ap = argparse.ArgumentParser(); ap.add_argument('--seed', default=0);"
            "print(sorted(g(ap, sys.argv[1:])))")
    run = subprocess.run([sys.executable, "-c", code, "--seed=3"], cwd=REPO,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "['seed']"
    run = subprocess.run([sys.executable, "train/export.py", "--help"], cwd=REPO,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert "--classifier-size" in run.stdout
