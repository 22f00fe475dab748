"""How bright a frame is (``vision.exposure``) and the note ``vision.recognize.recognize``
adds for a dark one: photos made dim read every tile right less often (val photos as
taken 76.5 %, dimmed 68.6 %), so the reading says more light would help."""

from __future__ import annotations

import numpy as np

from vision.detections import Detections
from vision.exposure import DARK, DARK_BELOW, bright_level, dark_note
from vision.layout_scene import SceneBuilder
from vision.recognize import recognize


def _frame(level: int) -> np.ndarray:
    """A table at grey 40 with ivory tiles at ``level``, 640 × 480 (BGR)."""
    img = np.full((480, 640, 3), 40, np.uint8)
    img[100:300, 100:500] = level
    return img


def test_the_bright_end_is_the_tiles_not_the_table() -> None:
    assert bright_level(_frame(210)) == 210.0
    assert bright_level(_frame(90)) == 90.0


def test_a_dark_frame_gets_a_note_and_a_lit_one_does_not() -> None:
    """Rule: a frame whose bright end is under ``DARK_BELOW`` (140 grey levels) gets the
    note, naming its level; at ``DARK_BELOW`` and above, none."""
    note = dark_note(_frame(90))
    assert note is not None and note.startswith(DARK) and "grey level 90 of 255" in note
    assert dark_note(_frame(int(DARK_BELOW))) is None
    assert dark_note(_frame(int(DARK_BELOW) - 1)) is not None


def test_a_reading_of_a_dark_photo_says_so_and_is_unchanged() -> None:
    """Rule (``vision.exposure.dark_note`` in ``recognize``): the same detections read
    from a dark and a lit picture give the same hand and score; only the dark one's notes
    say it is dark."""
    d: Detections = SceneBuilder().standing("123m456p789sEEEN").win("N").detections(
        origin=(20.0, 20.0))
    h, w = int(d.boxes[:, 3].max()) + 40, int(d.boxes[:, 2].max()) + 40
    lit = np.full((h, w, 3), 220, np.uint8)
    dark = np.full((h, w, 3), 70, np.uint8)
    a = recognize(lit, "mcr", detector=lambda image: d)
    b = recognize(dark, "mcr", detector=lambda image: d)
    assert a.score is not None and b.score is not None
    assert a.hand_text == b.hand_text and a.score.total == b.score.total
    assert not any(DARK in n for n in a.notes)
    assert [n for n in b.notes if DARK in n] == [dark_note(dark)]
    assert any(DARK in n for n in b.to_dict()["notes"])


def test_a_dark_photo_is_not_also_called_smeared() -> None:
    """Rule: the crops' sharpness falls with the light, so a dark frame the gate judged
    smeared gets the dark note alone."""
    from vision.sharpness import SMEARED

    d = SceneBuilder().standing("123m456p789sEEEN").win("N").detections(origin=(20.0, 20.0))
    d.meta.update(blurred=True)
    h, w = int(d.boxes[:, 3].max()) + 40, int(d.boxes[:, 2].max()) + 40
    dark = recognize(np.full((h, w, 3), 70, np.uint8), "mcr", detector=lambda image: d)
    lit = recognize(np.full((h, w, 3), 220, np.uint8), "mcr", detector=lambda image: d)
    assert any(DARK in n for n in dark.notes) and not any(SMEARED in n for n in dark.notes)
    assert any(SMEARED in n for n in lit.notes) and not any(DARK in n for n in lit.notes)
