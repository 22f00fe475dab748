"""The annotated recognition image: role colours, corrected tiles in red, meld outlines,
the winning tile marked, and a text panel with the hand and the fans (or the reason it
is not scored)."""

from __future__ import annotations

import numpy as np

from vision.layout_scene import SceneBuilder
from vision.recognize import recognize_detections
from vision.render import CORRECTED, ROLE_COLORS, panel_lines, render

ZJ = {"indicator": "C"}


def test_corrected_tile_is_drawn_in_red_and_listed() -> None:
    b = SceneBuilder().standing("5555p").standing("5p").uncertain([("5p", 0.7), ("6p", 0.25)])
    b.standing("7p123sEEEN").win("N")
    d = b.detections()
    r = recognize_detections(d, "zhenjiang", ZJ)
    [c] = r.correction.best.changes
    w, h = d.image_size or (1000, 400)
    out = render(np.zeros((h, w, 3), np.uint8), r)
    x1, y1, _, _ = (int(v) for v in d.boxes[c.tile])
    assert tuple(int(v) for v in out[y1, x1 + 5]) == CORRECTED
    assert any("5p -> 6p" in line for line in panel_lines(r))


def test_melds_and_the_winning_tile_are_marked() -> None:
    d = SceneBuilder().standing("123m456p789sN").meld("EEE", sideways=1).win("N").detections()
    r = recognize_detections(d, "zhenjiang", ZJ)
    w, h = d.image_size or (1000, 400)
    out = render(np.zeros((h, w, 3), np.uint8), r)
    assert out.shape[0] > h and out.shape[1] == w  # panel below
    colours = {tuple(int(v) for v in px) for px in out[:h].reshape(-1, 3)[::7]}
    assert ROLE_COLORS["meld"] in colours and ROLE_COLORS["winning"] in colours
    lines = panel_lines(r)
    assert lines[0].startswith("hand: [EEE,2]123m456p789sNN")
    assert any(line.startswith("total:") for line in lines)


def test_panel_says_why_a_hand_is_not_scored() -> None:
    d = SceneBuilder().standing("123m456p").detections()
    lines = panel_lines(recognize_detections(d, "zhenjiang", ZJ))
    assert any(line.startswith("not scored: 6 tiles found") for line in lines)


def test_a_meld_with_an_unsure_claim_source_is_listed() -> None:
    # the sideways 5p and its left neighbour both half look sideways: [555p,2] is unsure
    import dataclasses

    d = SceneBuilder().standing("123456789m").meld("555p", sideways=1).standing("EE").detections()
    p = np.full((len(d), 4), 0.01, np.float32)
    p[np.arange(len(d)), (d.rotations // 90) % 4] = 0.97
    p[10] = [0.55, 0.05, 0.35, 0.05]
    p[9] = [0.5, 0.3, 0.0, 0.2]
    d = dataclasses.replace(d, rotations=(p.argmax(axis=1) * 90).astype(np.int64),
                            rotation_probs=p)
    r = recognize_detections(d, "mcr", {"win": False})
    assert any(line.startswith("claim source unsure: [555p,2]") for line in panel_lines(r))
    clear = recognize_detections(dataclasses.replace(d, rotation_probs=None), "mcr",
                                 {"win": False})
    assert not any("claim source unsure" in line for line in panel_lines(clear))
