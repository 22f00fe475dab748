"""The detect image's labels (vision/annotate.py) can be read: no label hides another or
is crossed by a box drawn after it, labels stay inside the image, and their size follows
the tiles' size, not the image's (a far hand in a big photo, a small photo, a row that
runs top to bottom)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
import pytest

from vision.annotate import annotate
from vision.detections import Detections


@dataclass
class Call:
    """One OpenCV drawing call: ``kind`` text/fill/rect/line; ``rect`` the text's box
    (or the rectangle's corners, the line's ends)."""

    kind: str
    image: int
    rect: tuple[int, int, int, int]
    text: str = ""
    scale: float = 0.0
    thick: int = 1


class Recorder:
    """Records cv2.putText/rectangle/line calls (and still draws them)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls: list[Call] = []
        self.put, self.rect, self.line = cv2.putText, cv2.rectangle, cv2.line

        def put_text(img: Any, text: str, org: Any, font: int, scale: float, color: Any,
                     thick: int = 1, *a: Any, **k: Any) -> Any:
            (tw, th), base = cv2.getTextSize(text, font, scale, thick)
            x, y = (int(v) for v in org)
            self.calls.append(Call("text", id(img), (x, y - th, x + tw, y + base), text,
                                   scale, thick))
            return self.put(img, text, org, font, scale, color, thick, *a, **k)

        def rectangle(img: Any, p1: Any, p2: Any, color: Any, thick: int = 1, *a: Any,
                      **k: Any) -> Any:
            kind = "fill" if thick < 0 else "rect"
            self.calls.append(Call(kind, id(img), (*p1, *p2), thick=thick))
            return self.rect(img, p1, p2, color, thick, *a, **k)

        def line(img: Any, p1: Any, p2: Any, color: Any, thick: int = 1, *a: Any,
                 **k: Any) -> Any:
            self.calls.append(Call("line", id(img), (*p1, *p2), thick=thick))
            return self.line(img, p1, p2, color, thick, *a, **k)

        monkeypatch.setattr(cv2, "putText", put_text)
        monkeypatch.setattr(cv2, "rectangle", rectangle)
        monkeypatch.setattr(cv2, "line", line)

    def texts(self, image: int | None = None) -> list[Call]:
        return [c for c in self.calls if c.kind == "text" and image in (None, c.image)]

    def hidden(self, image: int, shape: tuple[int, ...]) -> list[str]:
        """Texts on ``image`` with anything drawn over them afterwards (a label's
        background, a box or outline, another text)."""
        mask = np.zeros(shape[:2], np.uint8)
        out = []
        for c in reversed([c for c in self.calls if c.image == image]):
            x1, y1, x2, y2 = c.rect
            if c.kind in ("text", "fill"):
                region = mask[max(0, min(y1, y2)):max(0, max(y1, y2)),
                              max(0, min(x1, x2)):max(0, max(x1, x2))]
                if c.kind == "text" and region.any():
                    out.append(c.text)
                region[...] = 1
            elif c.kind == "rect":
                self.rect(mask, (x1, y1), (x2, y2), 1, c.thick)
            else:
                self.line(mask, (x1, y1), (x2, y2), 1, c.thick)
        return out


def overlapping(rects: list[tuple[int, int, int, int]]) -> list[tuple[int, int]]:
    """Pairs of rectangles whose insides overlap."""
    pairs = []
    for i, a in enumerate(rects):
        for j in range(i + 1, len(rects)):
            b = rects[j]
            if min(a[2], b[2]) > max(a[0], b[0]) and min(a[3], b[3]) > max(a[1], b[1]):
                pairs.append((i, j))
    return pairs


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
