"""One build step pyproject.toml cannot say: a wheel carries a copy of the shipped model.

The model lives in ``models/`` at the repository's root, beside the packages, so an
installed wheel (``pip install .``, ``pipx install``) would have none. Building a wheel
copies the files ``models/manifest.json`` names, with the manifest and the model card,
into ``vision/shipped_model/``, where :func:`vision.shipped.shipped_model_dir` finds them.
An editable install (``make serve``, ``pip install -e .``) reads ``models/`` in place.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
MODELS = ROOT / "models"


def model_files(folder: Path) -> list[str]:
    """The names of ``folder``'s files a model reading needs: the manifest, every file
    it names (``"file"`` keys at any depth), the model card, and the licence notices of
    the weights it derives from (``NOTICE-*.md``)."""
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    names = {"manifest.json", "README.md"} | {p.name for p in folder.glob("NOTICE-*.md")}

    def walk(node: object) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key.endswith("file") and isinstance(value, str):
                    names.add(value)
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(manifest)
    missing = sorted(n for n in names if not (folder / n).is_file())
    if missing:
        raise SystemExit(f"models/manifest.json names files models/ lacks: {missing}")
    return sorted(names)


class BuildWithModel(build_py):
    """``build_py`` that also copies the shipped model into the built ``vision`` package."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False) or not (MODELS / "manifest.json").is_file():
            return
        target = Path(self.build_lib) / "vision" / "shipped_model"
        target.mkdir(parents=True, exist_ok=True)
        for name in model_files(MODELS):
            shutil.copyfile(MODELS / name, target / name)


if __name__ == "__main__":  # setuptools runs this file as __main__; tests import it
    setup(cmdclass={"build_py": BuildWithModel})
