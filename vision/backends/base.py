"""The backend interface: one float32 NCHW batch in, the first output array out."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt


@runtime_checkable
class Backend(Protocol):
    """A loaded model that maps an input batch to its (first) output.

    ``run`` takes ``(B, 3, S, S)`` float32 (0..1) and returns the raw model output, e.g.
    ``(1, 4 + C, N)`` for a YOLO detector or ``(B, K)`` logits for a classifier.
    """

    #: Short human-readable description (``"onnxruntime CPUExecutionProvider"``).
    name: str

    def run(self, batch: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
        """Run the model on ``batch`` and return its first output as float32."""
        ...

    @property
    def input_shape(self) -> tuple[int | None, ...]:
        """The declared input shape; ``None`` where a dimension is dynamic."""
        ...
