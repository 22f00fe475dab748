"""Records the OpenCV drawing calls of the annotated images (``vision/annotate.py``,
``vision/render.py``) for the legibility tests: what was drawn where, and which texts
something was drawn over afterwards."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
import pytest


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
    color: tuple[int, ...] = ()


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
                                   scale, thick, tuple(color)))
            return self.put(img, text, org, font, scale, color, thick, *a, **k)

        def rectangle(img: Any, p1: Any, p2: Any, color: Any, thick: int = 1, *a: Any,
                      **k: Any) -> Any:
            kind = "fill" if thick < 0 else "rect"
            self.calls.append(Call(kind, id(img), (*p1, *p2), thick=thick, color=tuple(color)))
            return self.rect(img, p1, p2, color, thick, *a, **k)

        def line(img: Any, p1: Any, p2: Any, color: Any, thick: int = 1, *a: Any,
                 **k: Any) -> Any:
            self.calls.append(Call("line", id(img), (*p1, *p2), thick=thick, color=tuple(color)))
            return self.line(img, p1, p2, color, thick, *a, **k)

        monkeypatch.setattr(cv2, "putText", put_text)
        monkeypatch.setattr(cv2, "rectangle", rectangle)
        monkeypatch.setattr(cv2, "line", line)

    def images(self) -> list[int]:
        """The arrays drawn on, in order: the photo's copy, then the panel."""
        seen: list[int] = []
        for c in self.calls:
            if c.image not in seen:
                seen.append(c.image)
        return seen

    def texts(self, image: int | None = None) -> list[Call]:
        """The texts drawn (on ``image`` only, when given)."""
        return [c for c in self.calls if c.kind == "text" and image in (None, c.image)]

    def hidden(self, image: int, shape: tuple[int, ...]) -> list[str]:
        """Texts on ``image`` with anything drawn over them afterwards."""
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
