"""pytest collects ``train/`` for its doctests (``make test``). Its ignore list lives here,
at the root, not in ``train/conftest.py``: a second ``conftest.py`` among the testpaths
is imported as the module ``conftest`` too, and the doctest collection of
``tests/conftest.py`` then stops the whole run ("import file mismatch").

The modules that import torch or ultralytics at the top are left out where the training
venv's packages are absent (the runtime and dev venv has neither: DEVELOPERS.md, "keep
training in its own venv"). ``train/classifier/export.py`` and ``train/classifier/train.py``
(and ``train_numeral.py``, which imports the latter as ``train``) are left out always:
their names are those of ``train/export.py`` and ``train/train.py``, which pytest's
default import mode cannot hold both of.
"""

from __future__ import annotations

import importlib.util

SAME_NAME_AS_ANOTHER = [
    "train/classifier/export.py", "train/classifier/train.py",
    "train/classifier/train_numeral.py",
    "train/gpu/shim/polars.py",  # the GPU machine's stand-in: on no venv's path
]
NEEDS_TRAINING_VENV = ["train/classifier/model.py", "train/quantize.py", "train/surgery.py"]

_training_venv = bool(importlib.util.find_spec("torch") and importlib.util.find_spec(
    "ultralytics"))
collect_ignore = SAME_NAME_AS_ANOTHER + ([] if _training_venv else NEEDS_TRAINING_VENV)
