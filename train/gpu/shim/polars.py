"""Stand-in for polars on a lent GPU machine, which has no polars and no network.

ultralytics reads its ``results.csv`` with polars only to put the training history into
each checkpoint's metadata, inside a ``try`` that gives up on any error; with plots off it
needs polars nowhere else. ``train/gpu/run.sh`` puts this folder on ``PYTHONPATH`` there.
Never on the path of the app or of the CPU training venv (which has the real polars).
"""

from __future__ import annotations

from typing import NoReturn


def read_csv(*args: object, **kwargs: object) -> NoReturn:
    """Refuse: the caller catches this and stores no history."""
    raise RuntimeError("polars is not installed on this machine")
