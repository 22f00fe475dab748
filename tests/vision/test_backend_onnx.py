"""The onnxruntime backend's session settings: threads and spinning (README "Tile detection")."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import numpy as np
import pytest

from vision.backends import onnx as onnx_backend
from vision.backends.onnx import OnnxBackend, _RunsInFlight, default_threads, spinning

MODELS = Path(__file__).resolve().parents[2] / "models"
CLASSIFIER = MODELS / "tiles-cls.onnx"


def test_threads_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TILECAM_THREADS", "3")
    assert default_threads() == 3
    for few in ("0", "-3"):  # before, taken as 1 without a word (sixty-fifth session)
        monkeypatch.setenv("TILECAM_THREADS", few)
        with pytest.raises(ValueError, match=f"TILECAM_THREADS must be 1 or more, got {few}"):
            default_threads()
    monkeypatch.setenv("TILECAM_THREADS", "two")
    with pytest.raises(ValueError, match="TILECAM_THREADS must be a whole number, got 'two'"):
        default_threads()


def test_threads_default_is_the_usable_cores_at_most_four(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TILECAM_THREADS", raising=False)
    assert 1 <= default_threads() <= 4


@pytest.mark.parametrize(
    ("value", "expected"),
    [(None, True), ("", True), ("1", True), ("on", True), ("0", False), ("Off", False)],
)
def test_spinning_setting(
    monkeypatch: pytest.MonkeyPatch, value: str | None, expected: bool
) -> None:
    if value is None:
        monkeypatch.delenv("TILECAM_SPIN", raising=False)
    else:
        monkeypatch.setenv("TILECAM_SPIN", value)
    assert spinning() is expected


def test_spinning_setting_refuses_other_values(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TILECAM_SPIN", "fast")
    with pytest.raises(ValueError, match="TILECAM_SPIN must be 1 or 0, got 'fast'"):
        spinning()


@pytest.mark.skipif(not CLASSIFIER.is_file(), reason="the shipped crop classifier is missing")
def test_spinning_stops_at_the_end_of_each_run_and_does_not_change_outputs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    batch = np.random.default_rng(0).random((2, 3, 64, 64), dtype=np.float32)
    outputs = {}
    for value in ("1", "0"):
        monkeypatch.setenv("TILECAM_SPIN", value)
        backend = OnnxBackend(CLASSIFIER, threads=2)
        options = backend._session.get_session_options()
        assert options.get_session_config_entry("session.intra_op.allow_spinning") == value
        if value == "1":  # spinning only while a run is in progress
            assert options.get_session_config_entry("session.force_spinning_stop") == "1"
        outputs[value] = backend.run(batch)
    np.testing.assert_allclose(outputs["1"], outputs["0"], rtol=1e-5, atol=1e-5)


def test_a_file_that_is_not_a_model_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "broken.onnx"
    bad.write_bytes(b"not a model")
    with pytest.raises(ValueError, match=r"cannot load ONNX model .*broken\.onnx"):
        OnnxBackend(bad)


def _one_run_in_other_thread(runs: _RunsInFlight) -> None:
    """Another thread runs a model once (enters and leaves ``runs``) and ends."""

    def one_run() -> None:
        runs.enter()
        runs.leave()

    worker = threading.Thread(target=one_run)
    worker.start()
    worker.join()


def test_a_run_is_alone_when_no_other_thread_is_busy() -> None:
    runs = _RunsInFlight(window_s=0.05)
    assert runs.enter() is True
    assert runs.enter() is True  # the same thread's nested run does not count as overlap
    runs.leave()
    runs.leave()
    assert runs.enter() is True  # its own recent run does not either
    runs.leave()


def test_a_run_overlaps_while_another_thread_runs() -> None:
    runs = _RunsInFlight(window_s=0.05)
    started, release = threading.Event(), threading.Event()
    seen: list[bool] = []

    def other() -> None:
        seen.append(runs.enter())
        started.set()
        release.wait(5)
        runs.leave()

    worker = threading.Thread(target=other)
    worker.start()
    started.wait(5)
    assert runs.enter() is False  # the other thread's run is in progress
    runs.leave()
    release.set()
    worker.join()
    assert seen == [True]


def test_a_thread_stays_busy_for_the_window_after_its_run() -> None:
    runs = _RunsInFlight(window_s=0.2)

    _one_run_in_other_thread(runs)
    assert runs.enter() is False  # the other stream is between two of its models
    runs.leave()
    time.sleep(0.25)
    assert runs.enter() is True  # the other stream has gone quiet
    runs.leave()


@pytest.mark.skipif(not CLASSIFIER.is_file(), reason="the shipped crop classifier is missing")
def test_an_overlapping_run_goes_to_the_session_without_spinning(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TILECAM_SPIN", "1")
    runs = _RunsInFlight(window_s=10.0)
    monkeypatch.setattr(onnx_backend, "_IN_FLIGHT", runs)
    backend = OnnxBackend(CLASSIFIER, threads=1)
    batch = np.zeros((1, 3, 64, 64), np.float32)
    alone = backend.run(batch)
    assert backend._quiet_session is None  # not made until runs overlap

    _one_run_in_other_thread(runs)  # another thread ran a model within the window
    overlapping = backend.run(batch)
    quiet = backend._quiet_session
    assert quiet is not None and quiet is not backend._session
    options = quiet.get_session_options()
    assert options.get_session_config_entry("session.intra_op.allow_spinning") == "0"
    np.testing.assert_allclose(alone, overlapping, rtol=1e-5, atol=1e-5)


@pytest.mark.skipif(not CLASSIFIER.is_file(), reason="the shipped crop classifier is missing")
def test_without_spinning_there_is_one_session(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TILECAM_SPIN", "0")
    backend = OnnxBackend(CLASSIFIER, threads=1)
    assert backend._quiet_session is backend._session


@pytest.mark.skipif(not CLASSIFIER.is_file(), reason="the shipped crop classifier is missing")
def test_sessions_keep_no_arena_and_give_the_same_outputs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Memory (class doc): every session, the quiet one too, runs without onnxruntime's
    CPU arena and memory pattern — with them each session kept memory grown to the
    largest batch it had seen (a service's RSS 0.68 GB after 300 recognitions against
    0.38 GB, seventy-third session) — and answers as a session with the defaults does,
    for batches of every size."""
    import onnxruntime as ort

    monkeypatch.setenv("TILECAM_SPIN", "1")
    runs = _RunsInFlight(window_s=10.0)
    monkeypatch.setattr(onnx_backend, "_IN_FLIGHT", runs)
    backend = OnnxBackend(CLASSIFIER, threads=1)
    _one_run_in_other_thread(runs)
    backend.run(np.zeros((1, 3, 64, 64), np.float32))  # overlapping: the quiet session
    sessions = [backend._session, backend._quiet_session]
    assert sessions[1] is not None and sessions[1] is not sessions[0]
    for session in sessions:
        options = session.get_session_options()
        assert options.enable_cpu_mem_arena is False
        assert options.enable_mem_pattern is False
    plain = ort.InferenceSession(str(CLASSIFIER), providers=["CPUExecutionProvider"])
    name = plain.get_inputs()[0].name
    rng = np.random.default_rng(3)
    for size in (1, 17, 3, 40):
        batch = rng.random((size, 3, 64, 64), dtype=np.float32)
        np.testing.assert_allclose(backend.run(batch), plain.run(None, {name: batch})[0],
                                   rtol=1e-5, atol=1e-5)
