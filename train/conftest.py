"""pytest collects ``train/`` for its doctests (``make test``); the modules that import
torch or ultralytics at the top are left out where the training venv's packages are
absent (the runtime and dev venv has neither: DEVELOPERS.md, "keep training in its own
venv")."""

from __future__ import annotations

import importlib.util

NEEDS_TRAINING_VENV = [
    "classifier/export.py", "classifier/model.py", "classifier/train.py",
    "classifier/train_numeral.py", "quantize.py", "surgery.py",
]

collect_ignore = ([] if importlib.util.find_spec("torch") and importlib.util.find_spec(
    "ultralytics") else NEEDS_TRAINING_VENV)
