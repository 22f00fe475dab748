"""A hand row that runs off the picture (``vision.layout_edges``) and the note
``vision.recognize.recognize`` adds for it: a tile cut off by the frame leaves a hand short."""

from __future__ import annotations

import numpy as np

from vision.detections import Detections
from vision.layout_edges import edge_note, rows_past_edge
from vision.layout_scene import SceneBuilder
from vision.recognize import recognize

ZJ = {"indicator": "C"}


def _row(n: int, x0: float = 100.0, y0: float = 100.0, w: float = 40.0, h: float = 60.0,
         vertical: bool = False) -> np.ndarray:
    """``n`` touching boxes from ``(x0, y0)``, along x (or y when ``vertical``)."""
    out = []
    for i in range(n):
        if vertical:
            out.append((x0, y0 + i * h, x0 + w, y0 + (i + 1) * h))
        else:
            out.append((x0 + i * w, y0, x0 + (i + 1) * w, y0 + h))
    return np.asarray(out, np.float32)


def test_a_row_ending_at_the_right_edge_may_go_on_past_it() -> None:
    b = _row(5)  # ends at x = 300
    assert rows_past_edge(b, [list(range(5))], (320, 400)) == ["right"]  # next tile half out
    assert rows_past_edge(b, [list(range(5))], (331, 400)) == []  # next tile 3/4 in: boxed


def test_a_row_ending_at_both_ends_reports_both_sides() -> None:
    b = _row(5, x0=0.0)
    assert rows_past_edge(b, [list(range(5))], (205, 400)) == ["left", "right"]


def test_a_row_lying_along_an_edge_does_not_run_past_it() -> None:
    """The bottom of a horizontal row touching the picture's bottom says nothing."""
    b = _row(5, y0=340.0)  # bottom at 400
    assert rows_past_edge(b, [list(range(5))], (1000, 400)) == []


def test_a_vertical_row_runs_past_the_top_or_bottom() -> None:
    b = _row(4, x0=50.0, y0=10.0, vertical=True)  # from y = 10 to 250
    assert rows_past_edge(b, [list(range(4))], (400, 270)) == ["top", "bottom"]


def test_single_tiles_and_empty_rows_say_nothing() -> None:
    b = _row(1, x0=0.0)
    assert rows_past_edge(b, [[0], []], (40, 60)) == []
    assert edge_note([]) is None


def _short_hand() -> Detections:
    """A hand of 12 tiles (two short of a win), laid from x = 200."""
    return SceneBuilder().standing("123m456p789sEEN").detections()


def _image_to(d: Detections, extra: float) -> np.ndarray:
    """A blank picture ending ``extra`` tile widths after the row's last tile."""
    w = float(d.boxes[:, 2].max() - d.boxes[:, 0].min()) / len(d)
    width = int(d.boxes[:, 2].max() + extra * w)
    return np.zeros((int(d.boxes[:, 3].max()) + 200, width, 3), np.uint8)


def test_recognize_notes_a_short_hand_whose_row_runs_off_the_picture() -> None:
    d = _short_hand()
    r = recognize(_image_to(d, 0.4), "zhenjiang", ZJ, detector=lambda image: d)
    assert r.score is None
    assert any("right edge" in n and "cut off" in n for n in r.notes)
    assert any("cut off" in n for n in r.to_dict()["notes"])


def test_no_note_when_the_row_ends_well_inside_the_picture() -> None:
    d = _short_hand()
    r = recognize(_image_to(d, 3.0), "zhenjiang", ZJ, detector=lambda image: d)
    assert r.score is None and not any("cut off" in n for n in r.notes)


def test_no_note_for_a_won_hand_at_the_edge() -> None:
    d = SceneBuilder().standing("123m456p789sEEEN").win("N").detections()
    r = recognize(_image_to(d, 0.2), "zhenjiang", ZJ, detector=lambda image: d)
    assert r.score is not None and not any("cut off" in n for n in r.notes)


def test_no_note_for_a_hand_with_all_its_tiles_that_is_no_win() -> None:
    """Fourteen tiles and no win: a tile cut off is not what is wrong."""
    d = SceneBuilder().standing("123m456p789sEEWN").win("S").detections()
    r = recognize(_image_to(d, 0.2), "zhenjiang", ZJ, detector=lambda image: d)
    assert r.score is None and not any("cut off" in n for n in r.notes)
