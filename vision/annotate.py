"""Draw tiles on an image: boxes coloured by confidence, with the code (and rotation).

Reusable by any stage: pass ``labels`` to write something else than the codes (e.g.
layout roles), ``colors`` to override the confidence colours.

>>> import numpy as np
>>> from vision.detections import Detections
>>> d = Detections.from_lists([(10, 10, 40, 50)], ["5p"], [0.95], rotations=[90])
>>> out = annotate(np.zeros((60, 80, 3), np.uint8), d)
>>> out.shape, bool(out.any())
((60, 80, 3), True)
>>> label_for(d, 0)
'5p>90 .95'
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from vision.detections import Detections

BGR = tuple[int, int, int]

#: Confidence colours (BGR): sure, unsure, doubtful.
GREEN: BGR = (60, 200, 60)
AMBER: BGR = (0, 190, 255)
RED: BGR = (40, 40, 230)


def confidence_color(confidence: float) -> BGR:
    """Green from 0.8, amber from 0.5, red below."""
    if confidence >= 0.8:
        return GREEN
    if confidence >= 0.5:
        return AMBER
    return RED


def label_for(det: Detections, i: int) -> str:
    """``code`` plus ``>rotation`` when not upright and the confidence as ``.dd``."""
    code = det.codes[i]
    rot = int(det.rotations[i])
    conf = float(det.confidences[i])
    text = code + (f">{rot}" if rot else "")
    return f"{text} {conf:.2f}".replace(" 0.", " .").replace(" 1.00", " 1")


def annotate(
    image: npt.NDArray[np.uint8],
    det: Detections,
    *,
    labels: Sequence[str] | None = None,
    colors: Sequence[BGR] | None = None,
) -> npt.NDArray[np.uint8]:
    """A copy of the BGR ``image`` with one box and label per row of ``det``.

    Line width and font size scale with the image (about 1/400 of its long side).
    """
    out = np.ascontiguousarray(image.copy())
    h, w = out.shape[:2]
    thick = max(1, round(max(h, w) / 400))
    font_scale = max(0.35, max(h, w) / 1600)
    for i in range(len(det)):
        x1, y1, x2, y2 = (round(float(v)) for v in det.boxes[i])
        color = colors[i] if colors is not None else confidence_color(float(det.confidences[i]))
        cv2.rectangle(out, (x1, y1), (x2, y2), color, thick, cv2.LINE_AA)
        text = labels[i] if labels is not None else label_for(det, i)
        (tw, th), base = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, font_scale, thick)
        ty = y1 - 2 if y1 - th - base - 2 >= 0 else min(h - 1, y2 + th + 2)
        tx = min(max(0, x1), max(0, w - tw - 1))
        cv2.rectangle(out, (tx, ty - th - base + 1), (tx + tw, ty + 1), color, cv2.FILLED)
        cv2.putText(
            out, text, (tx, ty - base + 1), cv2.FONT_HERSHEY_SIMPLEX, font_scale,
            (0, 0, 0), max(1, thick - 1), cv2.LINE_AA,
        )  # fmt: skip
    return out


#: File name endings an annotated image may be written to.
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".webp", ".bmp")


def target_problem(path: str | Path) -> str | None:
    """Why an annotated image cannot be written to ``path`` (checked before the work that
    makes it), or None: a name without an image ending, a folder that does not exist or
    cannot be written, a folder where the file should be.

    >>> target_problem("out.gif")
    'cannot write out.gif: end the name in .jpg, .jpeg, .png, .webp or .bmp'
    >>> target_problem("/no/such/folder/out.jpg")
    'cannot write /no/such/folder/out.jpg: folder /no/such/folder does not exist'
    """
    import os

    p = Path(path)
    if p.suffix.lower() not in IMAGE_SUFFIXES:
        return f"cannot write {p}: end the name in .jpg, .jpeg, .png, .webp or .bmp"
    if not p.parent.is_dir():
        return f"cannot write {p}: folder {p.parent} does not exist"
    if p.is_dir():
        return f"cannot write {p}: it is a folder"
    if not os.access(p.parent, os.W_OK) or (p.exists() and not os.access(p, os.W_OK)):
        return f"cannot write {p}: no permission to write there"
    return None


def save_image(path: str | Path, image: npt.NDArray[np.uint8]) -> Path:
    """Write ``image`` to ``path`` (format from the suffix); ``ValueError`` if it cannot
    (:func:`target_problem`, or the encoder refusing it)."""
    p = Path(path)
    if (problem := target_problem(p)) is not None:
        raise ValueError(problem)
    try:
        ok = cv2.imwrite(str(p), image)
    except cv2.error:
        ok = False
    if not ok:
        raise ValueError(f"cannot write {p}: the image could not be encoded there")
    return p
