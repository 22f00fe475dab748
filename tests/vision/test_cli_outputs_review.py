"""What the sixty-seventh session's audit of the command line found, each a test that
fails on the code before it: ``tilecam recognize --annotate`` threw the reading away when
its picture could not be written (F3) and could write over the photo it read (F8); the
``dataset synth`` progress bar counted the art loading as image time (F11)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from tilecam.cli import main
from vision.detections import Detections


@pytest.fixture
def photo(tmp_path: Path) -> Path:
    path = tmp_path / "hand.png"
    cv2.imwrite(str(path), np.full((240, 320, 3), 90, np.uint8))
    return path


@pytest.mark.parametrize("as_json", [True, False])
def test_recognize_gives_its_reading_when_the_picture_cannot_be_written(
    as_json: bool, photo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Before: the whole reading was done, then only the error was printed. Here a folder
    takes the picture's place while the photo is read."""
    import vision.detect

    target = tmp_path / "shown.jpg"

    def detect(image: Any, **kw: Any) -> Detections:
        target.mkdir()
        return Detections.empty()

    monkeypatch.setattr(vision.detect, "detect", detect)
    argv = ["recognize", str(photo), "--annotate", str(target), *(["--json"] if as_json else [])]
    assert main(argv) == 2
    out, err = capsys.readouterr()
    if as_json:
        reading = json.loads(out)
        assert reading["image"] == str(photo) and "0 tiles found" in reading["unscorable"]
    else:
        assert out.startswith(f"{photo}: 0 tiles found") and "not scored: " in out
    assert err.strip().splitlines() == [
        f"tilecam recognize: error: --annotate: annotated image not written: cannot write "
        f"{target}: it is a folder (the reading above is complete)"]


def test_recognize_refuses_to_write_over_the_photo_it_reads(
    photo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Before: ``recognize victim.jpg --annotate victim.jpg`` replaced the photo, exit 0."""
    import vision.detect

    read: list[object] = []
    monkeypatch.setattr(vision.detect, "detect",
                        lambda image, **kw: read.append(image) or Detections.empty())
    before = photo.read_bytes()
    monkeypatch.chdir(tmp_path)
    assert main(["recognize", "hand.png", "--annotate", str(photo)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and not read  # refused before the photo is read
    assert "--annotate: " in err and "would replace the photo" in err
    assert photo.read_bytes() == before


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_synth_progress_clock_starts_with_the_first_image(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Before: the bar's clock started before the art was loaded: 10 s of loading and two
    images in 1 s each showed 0.1 img/s and an ETA of 10 s after the first image."""
    import io

    import vision.synth.writer as writer

    clock = FakeClock()
    monkeypatch.setattr(writer.time, "monotonic", clock)
    stream = io.StringIO()
    bar = writer.Progress(2, stream=stream, every_s=0.0)
    clock.now += 10  # the art loads
    bar.update(0)  # generate: the first image starts
    clock.now += 1
    bar.update(1)
    assert stream.getvalue().endswith("] 1/2 1.0 img/s ETA 1s ")
    clock.now += 1
    bar.update(1)
    assert stream.getvalue().endswith("] 2/2 1.0 img/s ETA 0s \n")


def test_generate_tells_the_progress_when_the_first_image_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``generate`` calls ``progress(0)`` once the art is loaded, then ``progress(1)`` per
    image: the bar's clock and the manifest's both leave out the art loading."""
    import vision.synth.writer as writer
    from vision.classes import CLASSES
    from vision.synth.art import ArtSet

    calls: list[str] = []

    def load_art(name: str) -> ArtSet:
        calls.append("art")
        rng = np.random.default_rng(7)
        faces = {}
        for code in CLASSES[:-1]:
            face = np.full((64, 48, 3), 230, np.uint8)
            face[8:56, 6:42] = rng.integers(40, 200, 3)
            faces[code] = [face]
        return ArtSet("test-colours", faces)

    monkeypatch.setattr(writer, "load_art", load_art)
    cfg = writer.SynthConfig(out=tmp_path / "set", count=2, art=["test-colours"],
                             width=96, height=96)
    writer.generate(cfg, lambda n: calls.append(f"progress({n})"))
    assert calls == ["art", "progress(0)", "progress(1)", "progress(1)"]
