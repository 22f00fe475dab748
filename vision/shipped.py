"""Where the shipped model is found, with no third-party import (the service's settings
and the command line read it before any network is loaded).

In a checkout or an editable install (``make serve``, ``pip install -e .``) the model is
the repository's ``models/`` folder. A wheel (``pip install .``, ``pipx install``) carries
a copy of it as ``vision/shipped_model/`` (``setup.py`` copies it there when the wheel is
built), because an installed package has no repository beside it.
"""

from __future__ import annotations

from pathlib import Path

#: The model file a model folder is read by (the contract in ``models/README.md``).
MANIFEST = "manifest.json"

#: ``<repo>/models``: the shipped model in a checkout or an editable install.
REPO_MODEL_DIR = Path(__file__).resolve().parent.parent / "models"

#: The copy of ``models/`` a wheel carries (absent in a checkout: git ignores it).
PACKAGED_MODEL_DIR = Path(__file__).resolve().parent / "shipped_model"


def shipped_model_dir() -> Path:
    """The shipped model's folder: the wheel's copy when this is an installed wheel
    (it holds a ``manifest.json``), else ``<repo>/models``."""
    return PACKAGED_MODEL_DIR if (PACKAGED_MODEL_DIR / MANIFEST).is_file() else REPO_MODEL_DIR
