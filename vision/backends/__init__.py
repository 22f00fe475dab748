"""Inference backends behind one small interface (:class:`vision.backends.base.Backend`).

- ``onnxruntime`` (:mod:`vision.backends.onnx`) — the runtime backend, no torch.
- ``ultralytics`` (:mod:`vision.backends.ultralytics`) — runs a ``.pt`` checkpoint with
  torch for training/evaluation; imported only when asked for (``pip install .[train]``).

:func:`open_backend` picks one by the model file's suffix.
"""

from __future__ import annotations

from pathlib import Path

from vision.backends.base import Backend

__all__ = ["Backend", "open_backend"]


def open_backend(path: str | Path, *, threads: int | None = None) -> Backend:
    """Open a model file: ``.onnx`` with onnxruntime, ``.pt`` with ultralytics (lazily)."""
    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"model file not found: {p}")
    if p.suffix == ".onnx":
        from vision.backends.onnx import OnnxBackend

        return OnnxBackend(p, threads=threads)
    if p.suffix == ".pt":
        from vision.backends.ultralytics import UltralyticsBackend

        return UltralyticsBackend(p, threads=threads)
    raise ValueError(f"unsupported model file {p.name}: expected .onnx or .pt")
