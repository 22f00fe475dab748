"""bench/fuzz_inputs.py: the fuzzer finds what it is meant to find, and the service and the
layout pass a short run of it."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType, SimpleNamespace
from typing import Any

import pytest


@pytest.fixture
def fuzz(bench_module: Callable[[str], ModuleType]) -> ModuleType:
    return bench_module("fuzz_inputs")


def _response(status: int, body: Any) -> SimpleNamespace:
    def json() -> Any:
        if isinstance(body, Exception):
            raise body
        return body

    return SimpleNamespace(status_code=status, json=json, text=str(body))


def test_a_5xx_a_body_not_json_or_an_error_without_its_object_is_a_failure(
    fuzz: ModuleType,
) -> None:
    found = fuzz.Failures()
    fuzz.check_response(found, "ok", _response(200, {"tiles": []}))
    fuzz.check_response(found, "clear error", _response(415, {"error": {"code": "x"}}))
    assert found.items == []
    fuzz.check_response(found, "bug", _response(500, {"error": {"code": "internal_error"}}))
    fuzz.check_response(found, "html", _response(400, ValueError("not JSON")))
    fuzz.check_response(found, "bare", _response(422, {"detail": "x"}))
    assert [f.split(":")[0] for f in found.items] == ["bug", "html", "bare"]


def test_no_model_loaded_is_a_clear_503_only_when_allowed(fuzz: ModuleType) -> None:
    found = fuzz.Failures()
    not_ready = _response(503, {"error": {"code": "not_ready", "message": "starting"}})
    fuzz.check_response(found, "allowed", not_ready, not_ready_ok=True)
    assert found.items == []
    fuzz.check_response(found, "not allowed", not_ready)
    assert len(found.items) == 1


def test_the_odd_images_include_thin_strips_exif_turns_and_broken_files(
    fuzz: ModuleType,
) -> None:
    images = fuzz.odd_images(0)
    assert {"1 px tall strip", "1 px wide strip", "exif orientation 6", "jpeg header only",
            "16-bit png", "random bytes"} <= set(images)
    assert all(isinstance(v, bytes) and v for v in images.values())
    assert fuzz.odd_images(0) == images  # seeded


def test_layout_fuzz_reports_an_exception_other_than_hand_error(fuzz: ModuleType) -> None:
    """A reader that raises ValueError on hands of 14 tiles is reported once, with the
    item; HandError (the documented bad-context error) is not a failure."""
    import scoring

    def reader(dets: Any, rules: str, context: Any) -> Any:
        if len(dets) == 14:
            raise ValueError("boom")
        if len(dets) == 13:
            raise scoring.HandError("a bad context")
        return SimpleNamespace(to_dict=dict)

    found, slowest = fuzz.fuzz_layout(3, 60, read=reader)
    assert len(found.items) == 1 and "ValueError: boom" in found.items[0]
    assert len(slowest) == 10


def test_random_detections_through_recognize_raise_nothing_but_hand_error(
    fuzz: ModuleType,
) -> None:
    """Issue 6, bad input: a short seeded run of random detection sets (rows at any
    slant, stacks, scatter, 0–60 tiles, frames down to 1 px) through
    ``recognize_detections`` (longer runs: ``bench/fuzz_inputs.py layout``)."""
    found, _ = fuzz.fuzz_layout(11, 40)
    assert found.items == []


def test_hands_and_odd_requests_at_the_service_get_results_or_clear_errors(
    fuzz: ModuleType,
) -> None:
    """Issue 5/brief, bad input: without a model (image endpoints answer 503 not_ready),
    odd images, odd option values and 40 random hands under the three rule sets at
    /v1/score and /v1/waits give results or 4xx errors with an error object."""
    found = fuzz.fuzz_service(5, 40, load_model=False)
    assert found.items == []
