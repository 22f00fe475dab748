"""``tilecam detect --json`` after the image-input review: a file name that is not valid
UTF-8 still gives a line of valid JSON text (UTF-8), naming the file as Python does."""

from __future__ import annotations

import json
import os
from pathlib import Path

import cv2
import numpy as np
import pytest

import vision.detect as detect_module
from tilecam.cli import main


class FakeBackend:
    name = "fake"
    input_shape: tuple[int | None, ...] = (1, 3, 640, 640)

    def run(self, batch: np.ndarray) -> np.ndarray:
        return np.asarray([[115, 200, 30, 40, 0.9, 0.05]], np.float32).T[None]


@pytest.fixture
def model_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    d = tmp_path / "model"
    d.mkdir()
    (d / "det.onnx").write_bytes(b"stand-in")
    detector = {"file": "det.onnx", "imgsz": 640, "names": ["1m", "2m"], "input": "rgb",
                "zoom": {"below_px": 0}}
    (d / "manifest.json").write_text(json.dumps({"name": "fake", "detector": detector}))
    monkeypatch.setattr(detect_module, "open_backend", lambda path, threads=None: FakeBackend())
    return d


def _non_utf8_photo(tmp_path: Path) -> str:
    """A 320×240 JPEG whose file name is not UTF-8 (Latin-1 é), as Python names it (a lone
    surrogate); skips where the file system takes only UTF-8 names."""
    raw = os.fsencode(tmp_path) + b"/caf\xe9.jpg"
    try:
        with open(raw, "wb") as f:
            f.write(cv2.imencode(".jpg", np.full((240, 320, 3), 90, np.uint8))[1].tobytes())
    except OSError:
        pytest.skip("this file system takes only UTF-8 names")
    return os.fsdecode(raw)


def test_detect_json_line_is_valid_utf8_for_a_non_utf8_file_name(
    model_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    name = _non_utf8_photo(tmp_path)
    good = tmp_path / "café.jpg"
    good.write_bytes(Path(name).read_bytes())
    assert main(["detect", "--json", "--model-dir", str(model_dir), name, str(good)]) == 0
    lines = capsys.readouterr().out.splitlines()
    records = [json.loads(line.encode("utf-8").decode("utf-8")) for line in lines]
    assert [r["image"] for r in records] == [name, str(good)]
    assert "café.jpg" in lines[1]  # a valid name is still written as it reads
    assert (records[0]["width"], records[0]["height"]) == (320, 240)


def test_recognize_json_line_is_valid_utf8_for_a_non_utf8_file_name(
    model_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The same for ``tilecam recognize --json`` (it wrote the raw byte)."""
    name = _non_utf8_photo(tmp_path)
    assert main(["recognize", "--json", "--model-dir", str(model_dir), name]) == 0
    line = capsys.readouterr().out.strip()
    assert json.loads(line.encode("utf-8").decode("utf-8"))["image"] == name
