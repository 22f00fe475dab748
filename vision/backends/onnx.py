"""onnxruntime backend (the runtime dependency; no torch)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import numpy.typing as npt


def default_threads() -> int:
    """Intra-op threads: ``TILECAM_THREADS`` if set, else the CPU cores this process may use
    (at most 4; small YOLO models gain little beyond that and a shared box suffers)."""
    env = os.environ.get("TILECAM_THREADS")
    if env:
        try:
            return max(1, int(env))
        except ValueError:
            raise ValueError(f"TILECAM_THREADS must be a whole number, got {env!r}") from None
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        cores = os.cpu_count() or 1
    return max(1, min(4, cores))


class OnnxBackend:
    """An ONNX model on onnxruntime's CPU provider (or the providers asked for)."""

    def __init__(
        self,
        path: str | Path,
        *,
        threads: int | None = None,
        providers: list[str] | None = None,
    ) -> None:
        import onnxruntime as ort

        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads or default_threads()
        opts.inter_op_num_threads = 1
        opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        # Spinning worker threads burn a shared CPU between frames; let them sleep. (With
        # spinning one detector run is 1.4 ms faster alone, but the detector's, the
        # classifier's and the readers' pools then spin against each other: detect_bench
        # 104-109 ms against 56 ms, thirteenth session.)
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        try:
            self._session = ort.InferenceSession(
                str(path), sess_options=opts, providers=providers or ["CPUExecutionProvider"]
            )
        except Exception as exc:  # onnxruntime raises its own exception types
            raise ValueError(f"cannot load ONNX model {path}: {exc}") from exc
        inp = self._session.get_inputs()[0]
        self._input_name = inp.name
        self._input_shape = tuple(d if isinstance(d, int) else None for d in inp.shape)
        self.name = f"onnxruntime {self._session.get_providers()[0]}"

    @property
    def input_shape(self) -> tuple[int | None, ...]:
        return self._input_shape

    def run(self, batch: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
        out = self._session.run(None, {self._input_name: np.ascontiguousarray(batch, np.float32)})
        return np.asarray(out[0], np.float32)
