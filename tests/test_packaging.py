"""An installed wheel (``pip install .``, ``pipx install``) is a whole tilecam: it carries
the shipped model (``setup.py`` copies ``models/`` into ``vision/shipped_model/``), finds
it there, and keeps its database in the user's data folder rather than in
``site-packages`` — the layout a checkout or an editable install (``make serve``) never
sees."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from types import ModuleType

import pytest

import vision.shipped as shipped
from tilecam.settings import default_data_dir

REPO = Path(__file__).resolve().parents[1]


def _setup_module() -> ModuleType:
    """``setup.py`` imported as a module (its ``setup()`` call runs only as __main__)."""
    spec = importlib.util.spec_from_file_location("tilecam_setup", REPO / "setup.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_checkout_keeps_its_data_in_the_repository(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[project]\n")
    assert default_data_dir(tmp_path) == tmp_path / "data"


@pytest.mark.skipif(sys.platform in ("win32", "darwin"), reason="the XDG folder is Linux's")
def test_an_installed_package_keeps_its_data_in_the_users_data_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    site = tmp_path / "site-packages"  # no pyproject.toml: not a checkout
    site.mkdir()
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert default_data_dir(site) == tmp_path / "xdg" / "tilecam"
    monkeypatch.setenv("XDG_DATA_HOME", "relative/ignored")  # the XDG spec: absolute only
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_data_dir(site) == tmp_path / "home" / ".local" / "share" / "tilecam"


def test_the_wheels_model_copy_is_preferred_when_it_is_there(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    copy = tmp_path / "shipped_model"
    monkeypatch.setattr(shipped, "PACKAGED_MODEL_DIR", copy)
    assert shipped.shipped_model_dir() == shipped.REPO_MODEL_DIR  # a checkout: no copy
    copy.mkdir()
    (copy / shipped.MANIFEST).write_text("{}")
    assert shipped.shipped_model_dir() == copy


def test_the_wheel_takes_every_file_the_manifest_names_and_the_model_card() -> None:
    if not (REPO / "models" / "manifest.json").is_file():
        pytest.skip("no shipped model in models/")
    names = _setup_module().model_files(REPO / "models")
    manifest = json.loads((REPO / "models" / "manifest.json").read_text())
    assert manifest["detector"]["file"] in names
    assert {"manifest.json", "README.md"} <= set(names)
    notices = {p.name for p in (REPO / "models").glob("NOTICE-*.md")}
    assert notices <= set(names)  # the MIT notice of the weights the detector starts from
    onnx = sorted(p.name for p in (REPO / "models").glob("*.onnx"))
    assert sorted(n for n in names if n.endswith(".onnx")) == onnx  # each one is in use


def test_a_manifest_naming_a_missing_file_stops_the_build(tmp_path: Path) -> None:
    (tmp_path / "manifest.json").write_text(json.dumps(
        {"detector": {"file": "tiles.onnx"}, "readers": [{"file": "glyphs.onnx"}]}))
    (tmp_path / "tiles.onnx").write_bytes(b"x")
    (tmp_path / "README.md").write_text("card")
    with pytest.raises(SystemExit, match=r"glyphs\.onnx"):
        _setup_module().model_files(tmp_path)


def test_a_built_wheel_reads_photos_with_the_shipped_model_and_keeps_data_out_of_site_packages(
        tmp_path: Path) -> None:
    """Builds the wheel as pip does (an isolated build fetches setuptools from the package
    index), unpacks it as an install would, and asks the unpacked tilecam where its model
    and data are, and for its model's name."""
    if not (REPO / "models" / "manifest.json").is_file():
        pytest.skip("no shipped model in models/")
    source = tmp_path / "source"  # a copy: pip builds in the tree and leaves build/ there
    source.mkdir()
    for name in ("pyproject.toml", "setup.py", "MANIFEST.in", "README.md", "LICENSE"):
        shutil.copy2(REPO / name, source / name)
    for name in ("scoring", "vision", "tilecam", "models"):
        shutil.copytree(REPO / name, source / name, ignore=shutil.ignore_patterns(
            "__pycache__", "shipped_model"))
    out = tmp_path / "wheel"
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(source)],
        capture_output=True, text=True, timeout=600)
    if build.returncode != 0:
        if "setuptools" in build.stderr and ("No matching distribution" in build.stderr
                                             or "Could not find a version" in build.stderr):
            pytest.skip("the package index has no setuptools for an isolated build")
        pytest.fail(f"pip wheel failed:\n{build.stderr[-2000:]}")
    (wheel,) = out.glob("tilecam-*.whl")
    site = tmp_path / "site-packages"
    with zipfile.ZipFile(wheel) as z:
        assert "vision/shipped_model/manifest.json" in z.namelist()
        assert not any(n.startswith("models/") for n in z.namelist())
        z.extractall(site)
    env = {k: v for k, v in os.environ.items() if not k.startswith("TILECAM_")}
    env.update(PYTHONPATH=str(site), HOME=str(tmp_path / "home"),
               XDG_DATA_HOME=str(tmp_path / "xdg"))
    probe = ("from tilecam.settings import Settings; from vision.manifest import "
             "shipped_model_name; s = Settings(); print(s.model_dir); print(s.data_dir); "
             "print(shipped_model_name())")
    ran = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         cwd=tmp_path, env=env, timeout=120, check=True)
    model_dir, data_dir, name = ran.stdout.split("\n")[:3]
    assert Path(model_dir) == site / "vision" / "shipped_model"
    assert Path(data_dir) == tmp_path / "xdg" / "tilecam"
    shipped_name = json.loads((REPO / "models" / "manifest.json").read_text())["version"]
    assert name.endswith("@" + shipped_name)
