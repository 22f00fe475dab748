"""``tilecam recognize`` reads a large photo as ``POST /v1/recognize`` reads it.

The service loads an upload with :func:`vision.imageio.load_for_reading` (a 12 MP JPEG
decoded reduced by libjpeg, its own pixels decoded only for small tiles or an annotated
image); the command decoded the file whole and halved it, a picture close to the
reduced one but not equal — so the same photo could be read otherwise at the command
line than on the phone page. Checked with the shipped model on a rendered hand enlarged
to 4032 × 3024; skips without the model or tile art.
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from tilecam.api.upload import load_photo
from tilecam.cli import main
from vision.manifest import MANIFEST, default_model_dir


@pytest.fixture(scope="module")
def big_jpeg(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A rendered hand (1280 × 960) enlarged to a 4032 × 3024 JPEG, as a phone takes it."""
    if not (default_model_dir() / MANIFEST).is_file():
        pytest.skip(f"no shipped model: {default_model_dir() / MANIFEST} is missing")
    try:
        from vision.synth.art import ArtError, default_sets, load_art
        from vision.synth.scene import SceneOptions, render_scene
    except ImportError as exc:
        pytest.skip(f"synthetic data generator not available ({exc})")
    try:
        art = load_art(default_sets()[0])
    except (ArtError, IndexError) as exc:
        pytest.skip(f"no tile art installed for the synthetic scene ({exc})")
    opts = SceneOptions(width=1280, height=960, hand_prob=1.0, extras_prob=0.0,
                        min_tile_px=40)
    scene = render_scene(art, np.random.default_rng([2026, 77]), opts)
    bgr = np.ascontiguousarray(scene.image[..., ::-1])
    big = cv2.resize(bgr, (4032, 3024), interpolation=cv2.INTER_CUBIC)
    ok, buf = cv2.imencode(".jpg", big, [cv2.IMWRITE_JPEG_QUALITY, 92])
    assert ok
    path = tmp_path_factory.mktemp("large") / "hand-12mp.jpg"
    path.write_bytes(buf.tobytes())
    return path


def test_the_command_reads_a_12mp_jpeg_as_the_service_does(
        big_jpeg: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from vision.recognize import recognize

    service = recognize(load_photo(big_jpeg.read_bytes(), 40_000_000, 1 << 25),
                        rules="mcr").to_dict()
    assert main(["recognize", str(big_jpeg), "--json"]) == 0
    command = json.loads(capsys.readouterr().out)
    assert len(service["tiles"]) >= 10  # the hand was found at all
    assert [t["code"] for t in command["tiles"]] == [t["code"] for t in service["tiles"]]
    assert [t["box"] for t in command["tiles"]] == [t["box"] for t in service["tiles"]]
    assert command["hand"] == service["hand"]


def test_the_command_annotates_a_large_photo_from_its_own_pixels(
        big_jpeg: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "marked.jpg"
    assert main(["recognize", str(big_jpeg), "--annotate", str(out)]) == 0
    capsys.readouterr()
    marked = cv2.imread(str(out))
    # the photo at its own size, the fan list printed below it
    assert marked is not None and marked.shape[1] == 4032 and marked.shape[0] >= 3024
