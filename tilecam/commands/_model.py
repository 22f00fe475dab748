"""Checks of a model path given on the command line that name what is wrong with it (a
folder where a file belongs), before the model loader reports it as missing."""

from __future__ import annotations

from pathlib import Path


def check_model_dir(path: str | Path | None, option: str) -> None:
    """ValueError when ``path`` (a model folder) is a file, or its ``manifest.json`` is a
    folder: the loader would say "manifest.json is missing".

    >>> check_model_dir(None, "--model-dir")
    """
    if path is None:
        return
    folder = Path(path)
    if folder.is_file():
        raise ValueError(f"{option} {path}: is a file, not a model folder (one with "
                         "manifest.json and the model's .onnx)")
    manifest = folder / "manifest.json"
    if manifest.is_dir():
        raise ValueError(f"{option} {path}: its manifest.json is a folder, not the model's "
                         "manifest file")


def check_model_file(path: str | Path | None, option: str) -> None:
    """ValueError when ``path`` (a model file) is a folder: the loader would say "model
    file not found".

    >>> check_model_file(None, "--weights")
    """
    if path is not None and Path(path).is_dir():
        raise ValueError(f"{option} {path}: is a folder, not a model file (.onnx or .pt)")
