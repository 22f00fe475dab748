"""onnxruntime backend (the runtime dependency; no torch)."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt


def default_threads() -> int:
    """Intra-op threads: ``TILECAM_THREADS`` if set, else the CPU cores this process may use
    (at most 4; small YOLO models gain little beyond that and a shared box suffers)."""
    env = os.environ.get("TILECAM_THREADS")
    if env:
        try:
            threads = int(env)
        except ValueError:
            raise ValueError(f"TILECAM_THREADS must be a whole number, got {env!r}") from None
        if threads < 1:  # before, -3 was taken as 1 without a word
            raise ValueError(f"TILECAM_THREADS must be 1 or more, got {threads}")
        return threads
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        cores = os.cpu_count() or 1
    return max(1, min(4, cores))


def spinning() -> bool:
    """Whether onnxruntime's worker threads may spin during a run that is the only one in
    progress (:class:`OnnxBackend`): ``TILECAM_SPIN`` (``1`` or ``0``) if set, else on."""
    env = os.environ.get("TILECAM_SPIN")
    if env is None or env.strip() == "":
        return True
    value = env.strip().lower()
    if value in ("1", "true", "yes", "on"):
        return True
    if value in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"TILECAM_SPIN must be 1 or 0, got {env!r}")


class _RunsInFlight:
    """Which threads of this process are running onnxruntime models, over all backends.

    A thread counts as busy while one of its runs is in progress and for ``window_s``
    seconds after its last run ended: a frame's pipeline runs several models with a few
    milliseconds of Python between them (NMS, crops), and a run started in such a gap
    overlaps the other stream's next run all the same.
    """

    def __init__(self, window_s: float = 0.02) -> None:
        self._lock = threading.Lock()
        self.window_s = window_s
        self._running: dict[int, int] = {}
        self._ended: dict[int, float] = {}

    def enter(self) -> bool:
        """Count one run of this thread in; True when no other thread is busy."""
        me, now = threading.get_ident(), time.monotonic()
        with self._lock:
            others = any(n for t, n in self._running.items() if t != me) or any(
                now - end < self.window_s for t, end in self._ended.items() if t != me
            )
            self._running[me] = self._running.get(me, 0) + 1
            return not others

    def leave(self) -> None:
        me, now = threading.get_ident(), time.monotonic()
        with self._lock:
            self._running[me] -= 1
            if not self._running[me]:
                del self._running[me]
            self._ended[me] = now
            for t in [t for t, end in self._ended.items() if now - end >= self.window_s]:
                del self._ended[t]


_IN_FLIGHT = _RunsInFlight()


class OnnxBackend:
    """An ONNX model on onnxruntime's CPU provider (or the providers asked for).

    Worker threads spin during a run when the run is the only one in progress in this
    process: they wait microseconds between the network's parallel sections, and
    ``session.force_spinning_stop`` ends the spinning when the run ends, so the detector's,
    the classifier's and the readers' pools never spin against each other between runs.
    When runs overlap (the service reads two images at once, or a table camera's frame
    arrives during an upload) spinning threads would steal the cores the other run needs,
    so a run started while another thread is busy (:class:`_RunsInFlight`) goes to a
    second session of the same model with spinning off (made on the first overlap).
    Measured in the forty-sixth session on 2 cores, in pairs of processes in random order
    (``bench/spin_bench.py --pairs 12``; ``docs/status-log.md``): one stream 43.6 ms per
    1280×960 frame against 47.8 ms without spinning (better in 10 of 12 pairs); two
    streams 25.8 against 26.1 frames/s (level), where spinning in every run had given
    19-23 against 26. ``TILECAM_SPIN=0`` turns spinning off altogether.

    Memory: each session allocates its tensors from the C library as a run needs them
    and hands them back after it (``enable_cpu_mem_arena`` and ``enable_mem_pattern``
    off). With onnxruntime's defaults every session (the detector's, the classifier's,
    the readers', each with its quiet twin) kept a CPU arena grown to the largest input
    and crop batch it had seen, plus the planned blocks of every input shape: a
    long-running service's RSS climbed to about 0.7 GB in 300 recognitions and stayed
    there. Measured in the seventy-third session (``tilecam serve``, 2 clients at once
    posting hk-photos val photos at 640-1920 px and synthetic 1280×960 scenes to
    ``/v1/recognize``, 300 answers, twice): RSS 193 MiB idle → 678 MiB with the
    defaults, 375 MiB with both off (one off alone: 555-583 MiB); the pipeline's time
    per frame, the two interleaved A B B A in one process, 0.98-1.02 of the defaults'
    (no measurable cost). ``bench/api_recognize_load.py --duration 120 --photos 400``
    repeats the memory figure (README, "Service").
    """

    def __init__(
        self,
        path: str | Path,
        *,
        threads: int | None = None,
        providers: list[str] | None = None,
    ) -> None:
        self._path = Path(path)
        self._threads = threads or default_threads()
        self._providers = providers or ["CPUExecutionProvider"]
        spin = spinning()
        self._session = self._make_session(spin=spin)
        # without spinning the one session serves overlapping runs as well
        self._quiet_session: Any = None if spin else self._session
        self._quiet_lock = threading.Lock()
        inp = self._session.get_inputs()[0]
        self._input_name = inp.name
        self._input_shape = tuple(d if isinstance(d, int) else None for d in inp.shape)
        self.name = f"onnxruntime {self._session.get_providers()[0]}"

    def _make_session(self, *, spin: bool) -> Any:
        import onnxruntime as ort

        opts = ort.SessionOptions()
        opts.intra_op_num_threads = self._threads
        opts.inter_op_num_threads = 1
        opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        # no arena kept grown to the largest run, no planned blocks per input shape: the
        # service's memory stays near what one run needs (class doc, Memory)
        opts.enable_cpu_mem_arena = False
        opts.enable_mem_pattern = False
        opts.add_session_config_entry("session.intra_op.allow_spinning", "1" if spin else "0")
        if spin:
            opts.add_session_config_entry("session.force_spinning_stop", "1")
        try:
            return ort.InferenceSession(
                str(self._path), sess_options=opts, providers=self._providers
            )
        except Exception as exc:  # onnxruntime raises its own exception types
            raise ValueError(f"cannot load ONNX model {self._path}: {exc}") from exc

    def _quiet(self) -> Any:
        """The session without spinning, for runs that overlap others (made once)."""
        if self._quiet_session is None:
            with self._quiet_lock:
                if self._quiet_session is None:
                    self._quiet_session = self._make_session(spin=False)
        return self._quiet_session

    @property
    def input_shape(self) -> tuple[int | None, ...]:
        return self._input_shape

    def run(self, batch: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
        """Run the model on ``batch`` (N×C×H×W float32); returns its first output."""
        feed = {self._input_name: np.ascontiguousarray(batch, np.float32)}
        alone = _IN_FLIGHT.enter()  # no other thread ran a model in the last 20 ms
        try:
            session = self._session if alone else self._quiet()
            out = session.run(None, feed)
        finally:
            _IN_FLIGHT.leave()
        return np.asarray(out[0], np.float32)
