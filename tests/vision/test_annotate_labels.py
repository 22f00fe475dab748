"""The detect image's labels (vision/annotate.py) can be read: no label hides another or
is crossed by a box drawn after it, labels stay inside the image, and their size follows
the tiles' size, not the image's (a far hand in a big photo, a small photo, a row that
runs top to bottom)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from drawing_calls import Recorder, overlapping

from vision.annotate import annotate
from vision.detections import Detections


def row(n: int, x0: float, y0: float, w: float, h: float, dx: float, dy: float,
        size: tuple[int, int]) -> Detections:
    """``n`` tiles ``w`` x ``h``, each ``dx, dy`` from the last (overlapping when the
    step is under the tile's size), with codes 1m 2m ... and mixed confidences."""
    codes = [f"{k % 9 + 1}{'mps'[k // 9 % 3]}" for k in range(n)]
    boxes = [(x0 + k * dx, y0 + k * dy, x0 + k * dx + w, y0 + k * dy + h) for k in range(n)]
    conf = [(0.95, 0.62, 0.31)[k % 3] for k in range(n)]
    rotations = [(0, 90, 0, 0)[k % 4] for k in range(n)]
    return Detections.from_lists(boxes, codes, conf, rotations=rotations, image_size=size)


@pytest.mark.parametrize("case", ["perspective row", "vertical row", "tiny photo"])
def test_labels_neither_overlap_nor_are_crossed(monkeypatch: pytest.MonkeyPatch,
                                                case: str) -> None:
    """Every code is written once, no label covers another, nothing is drawn over a
    label, and every label lies inside the image (HEAD drew each label at its box's
    corner, in detection order: a later box or label covered the earlier ones)."""
    if case == "perspective row":
        h, w = 480, 640
        det = row(14, 40, 200, 40, 55, 26, 3, (w, h))  # tiles overlapping in perspective
    elif case == "vertical row":
        h, w = 640, 480
        det = row(14, 200, 20, 55, 40, 4, 30, (w, h))  # a row running top to bottom
    else:
        h, w = 150, 200
        det = row(14, 10, 60, 11, 16, 10, 1, (w, h))
    rec = Recorder(monkeypatch)
    out = annotate(np.zeros((h, w, 3), np.uint8), det)
    texts = rec.texts()
    shown = " ".join(c.text for c in texts)
    assert all(code in shown for code in det.codes)
    assert rec.hidden(texts[0].image, out.shape) == []
    assert overlapping([c.rect for c in texts]) == []
    x1 = min(c.rect[0] for c in texts)
    y1 = min(c.rect[1] for c in texts)
    assert x1 >= 0 and y1 >= 0
    assert max(c.rect[2] for c in texts) <= w and max(c.rect[3] for c in texts) <= h


def test_text_size_follows_the_tiles_not_the_image(monkeypatch: pytest.MonkeyPatch) -> None:
    """The same tiles give the same label size in a 640x480 and a 4000x3000 photo; tiles
    twice the size give labels about twice the size (HEAD scaled labels with the image's
    long side: 2.5 in the big photo whatever the tiles)."""
    def code_scale(shape: tuple[int, int], tile: float) -> float:
        rec = Recorder(monkeypatch)
        det = row(6, 30, 40, tile, tile * 1.4, tile * 1.05, 0, (shape[1], shape[0]))
        annotate(np.zeros((*shape, 3), np.uint8), det)
        return max(c.scale for c in rec.texts())

    small, big = code_scale((480, 640), 30), code_scale((3000, 4000), 30)
    assert small == pytest.approx(big)
    assert code_scale((3000, 4000), 60) == pytest.approx(2 * big, rel=0.05)
    assert code_scale((150, 200), 8) >= 0.4  # clamped where it can still be read
    # a code is about as wide as a tile: readable, not wider than two tiles
    tw = cv2.getTextSize("8m", cv2.FONT_HERSHEY_SIMPLEX, big, 1)[0][0]
    assert 0.5 * 30 <= tw <= 1.2 * 30


def test_style_and_placement_helpers() -> None:
    """Lines and text grow with the tiles; two labels that would overlap above their
    tiles are put one above, one below."""
    from vision.annotate import place_labels, style_for

    s1, s2 = style_for([(0, 0, 30, 42)], (480, 640)), style_for([(0, 0, 90, 126)], (480, 640))
    assert s2.scale > s1.scale and s2.line > s1.line
    r = place_labels([(10, 40, 30, 70), (22, 40, 42, 70)], [(30, 12), (30, 12)], (120, 100))
    assert overlapping([(int(a), int(b), int(c), int(d)) for a, b, c, d in r]) == []
    assert r[0][3] <= 40 and r[1][1] >= 70
