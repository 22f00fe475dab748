"""ultralytics/torch backend for training and evaluation (``pip install .[train]``).

Runs the raw network of a ``.pt`` checkpoint, so its output has the same layout as the
exported ONNX model and goes through the same numpy post-processing. torch and
ultralytics are imported only when this backend is constructed; they are not runtime
dependencies of tilecam.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt


class UltralyticsBackend:
    """A YOLO ``.pt`` checkpoint evaluated with torch on the CPU."""

    def __init__(self, path: str | Path, *, threads: int | None = None) -> None:
        try:
            import torch
            from ultralytics import YOLO
        except ImportError as exc:
            raise ValueError(
                "the ultralytics backend needs torch and ultralytics "
                "(install the 'train' extra in a separate venv)"
            ) from exc
        if threads:
            torch.set_num_threads(threads)
        self._torch = torch
        self._model: Any = YOLO(str(path)).model.float().eval()
        self.name = f"ultralytics {Path(path).name} (torch {torch.__version__})"

    @property
    def input_shape(self) -> tuple[int | None, ...]:
        return (None, 3, None, None)

    def run(self, batch: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
        with self._torch.inference_mode():
            out = self._model(self._torch.from_numpy(np.ascontiguousarray(batch, np.float32)))
        if isinstance(out, (list, tuple)):
            out = out[0]
        return np.asarray(out.detach().cpu().numpy(), np.float32)
