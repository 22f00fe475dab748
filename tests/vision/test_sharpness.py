"""The note ``vision.recognize.recognize`` adds for a frame the crop classifier's gate
judged smeared (``vision.sharpness.blur_note``): val copies judged smeared have every tile
right 68 % of the time, sharp ones 80 %."""

from __future__ import annotations

import numpy as np

from vision.detections import Detections
from vision.layout_scene import SceneBuilder
from vision.recognize import Recognition, recognize
from vision.sharpness import SMEARED, blur_note
from vision.tile_size import SMALL_TILES


def _read(scale: float, blurred: bool) -> Recognition:
    """A winning hand at ``scale`` times the builder's tile size, as the detector returns
    a lit frame its gate judged smeared (or sharp)."""
    d: Detections = SceneBuilder().standing("123m456p789sEEEN").win("N").detections(
        scale=scale, origin=(20.0, 20.0))
    d.meta.update(blurred=blurred, sharpness=0.002 if blurred else 0.02)
    h, w = int(d.boxes[:, 3].max()) + 40, int(d.boxes[:, 2].max()) + 40
    return recognize(np.full((h, w, 3), 220, np.uint8), "mcr", detector=lambda image: d)


def test_a_frame_judged_smeared_gets_a_note_to_hold_still() -> None:
    """Rule (``blur_note``): a frame the gate judged smeared gets a note saying so and what
    to do; a sharp frame does not. The reading itself is unchanged."""
    sharp, smeared = _read(1.0, False), _read(1.0, True)
    assert smeared.hand_text == sharp.hand_text and smeared.score is not None
    assert sharp.score is not None and smeared.score.total == sharp.score.total
    assert [n for n in smeared.notes if SMEARED in n] == [blur_note(True)]
    assert any(SMEARED in n for n in smeared.to_dict()["notes"])
    assert not any(SMEARED in n for n in sharp.notes)


def test_small_tiles_get_the_size_note_alone() -> None:
    """Rule: small tiles look soft anyway; the size note says what to do about them."""
    small = _read(0.5, True)
    assert any(SMALL_TILES in n for n in small.notes)
    assert not any(SMEARED in n for n in small.notes)


def test_no_note_for_a_frame_not_judged() -> None:
    assert blur_note(None) is None and blur_note(False) is None
