"""Draw tiles on an image: boxes coloured by confidence, with the code (and rotation).

Reusable by any stage: pass ``labels`` to write something else than the codes (e.g.
layout roles), ``colors`` to override the confidence colours. :func:`draw` is the
drawing core :mod:`vision.render` shares: every outline first, then every label on a
filled background, placed so that no two labels overlap where the picture leaves room
(:func:`place_labels`), inside the image, sized from the tiles (:func:`style_for`).

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

import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from vision.detections import Detections

BGR = tuple[int, int, int]
Rect = tuple[float, float, float, float]

#: Confidence colours (BGR): sure, unsure, doubtful.
GREEN: BGR = (60, 200, 60)
AMBER: BGR = (0, 190, 255)
RED: BGR = (40, 40, 230)

FONT = cv2.FONT_HERSHEY_SIMPLEX
#: Width of a tile code ("8m") at font scale 1: a code is drawn about 0.8 tile wide.
_CODE_WIDTH = cv2.getTextSize("8m", FONT, 1.0, 1)[0][0]
#: Font scales of a label's main text: below the first it cannot be read, above the
#: second a label is larger than any tile needs.
MIN_SCALE, MAX_SCALE = 0.4, 3.0
#: The scale of a label's second part (the confidence) against its main text.
SMALL = 0.7


def confidence_color(confidence: float) -> BGR:
    """Green from 0.8, amber from 0.5, red below."""
    if confidence >= 0.8:
        return GREEN
    if confidence >= 0.5:
        return AMBER
    return RED


def label_for(det: Detections, i: int) -> str:
    """``code`` plus ``>rotation`` when not upright and the confidence as ``.dd``."""
    main, small = label_parts(det, i)
    return main + small.replace(" ", "", 1) if small.startswith(" >") else main + small


def label_parts(det: Detections, i: int) -> tuple[str, str]:
    """The code (drawn large) and the rest of :func:`label_for` (drawn smaller).

    >>> d = Detections.from_lists([(0, 0, 9, 9)], ["5p"], [0.6], rotations=[180])
    >>> label_parts(d, 0)
    ('5p', ' >180 .60')
    """
    rot = int(det.rotations[i])
    conf = f" {float(det.confidences[i]):.2f}".replace(" 0.", " .").replace(" 1.00", " 1")
    return det.codes[i], (f" >{rot}" if rot else "") + conf


@dataclass(frozen=True)
class Style:
    """Sizes of one drawing: the labels' font scale and stroke, the boxes' line width,
    the padding inside a label and the gap between a label and what it names."""

    scale: float
    text_thick: int
    line: int
    pad: int
    gap: int


def style_for(boxes: npt.ArrayLike, shape: Sequence[int]) -> Style:
    """Sizes from the tiles, not the image: a code about 0.8 of a tile's size wide,
    clamped to :data:`MIN_SCALE`..:data:`MAX_SCALE`, where a tile's size is the median
    over tiles of its short side or, if less, the distance to the next tile's centre
    (tiles that overlap in perspective leave less room); boxes' lines about 1/20 of a
    tile's short side. An image with no boxes takes a tile as 1/30 of its long side.

    >>> style_for([(0, 0, 50, 70)], (480, 640)) == style_for([(0, 0, 50, 70)], (3000, 4000))
    True
    >>> [style_for([(0, 0, w, 1.4 * w)], (480, 640)).scale for w in (50, 100)]
    [0.889, 1.778]
    """
    b = np.asarray(boxes, np.float64).reshape(-1, 4)
    if len(b):
        short_sides = np.minimum(b[:, 2] - b[:, 0], b[:, 3] - b[:, 1])
        room = short_sides
        if len(b) > 1:
            c = (b[:, :2] + b[:, 2:]) / 2
            dist = np.hypot(*(c[:, None, :] - c[None, :, :]).transpose(2, 0, 1))
            np.fill_diagonal(dist, np.inf)
            room = np.minimum(short_sides, dist.min(axis=1))
        size, short = float(np.median(room)), float(np.median(short_sides))
    else:
        size = short = max(shape[0], shape[1]) / 30
    scale = float(np.clip(0.8 * max(size, 1.0) / _CODE_WIDTH, MIN_SCALE, MAX_SCALE))
    line = int(np.clip(round(short / 20), 1, 10))
    return Style(scale=round(scale, 3), text_thick=max(1, round(scale * 1.6)), line=line,
                 pad=max(1, round(3 * scale)), gap=max(1, line))


@dataclass(frozen=True)
class Outline:
    """A rectangle drawn before every label: ``thick`` pixels wide, dashed or not."""

    rect: Rect
    color: BGR
    thick: int
    dashed: bool = False


@dataclass(frozen=True)
class Label:
    """A text on a filled ``fill`` background next to ``anchor`` (the rectangle it names):
    ``text`` in the style's font, ``small`` after it in smaller type. ``below_first``:
    try below the anchor before above it."""

    text: str
    anchor: Rect
    fill: BGR
    small: str = ""
    below_first: bool = False


def _small(style: Style) -> float:
    """The font scale of a label's second part: :data:`SMALL` of the main text's, and
    no smaller than can still be read."""
    return max(0.33, style.scale * SMALL)


def text_color(fill: BGR) -> BGR:
    """Black on a light ``fill``, white on a dark one."""
    b, g, r = fill
    return (0, 0, 0) if 0.299 * r + 0.587 * g + 0.114 * b >= 128 else (255, 255, 255)


def label_size(label: Label, style: Style) -> tuple[int, int, int, int]:
    """``(width, height, baseline y from the top, main text width)`` of ``label``'s box;
    every label of a style is as high (room for capitals and descenders), so that a
    row's labels line up."""
    tw = cv2.getTextSize(label.text, FONT, style.scale, style.text_thick)[0][0]
    sw = 0
    if label.small:
        sw = cv2.getTextSize(label.small, FONT, _small(style),
                             max(1, style.text_thick - 1))[0][0]
    (_, th), base = cv2.getTextSize("Ag", FONT, style.scale, style.text_thick)
    return tw + sw + 2 * style.pad, th + base + 2 * style.pad, style.pad + th, tw


#: Where a label may go around its anchor, best first: (side, lane). Sides: 0 above,
#: 1 below, 2 right, 3 left; a lane is one label height (or width) further out.
_SLOTS = ((0, 0), (1, 0), (2, 0), (3, 0), (0, 1), (1, 1), (2, 1), (3, 1), (0, 2), (1, 2),
          (2, 2), (3, 2), (0, 3), (1, 3), (0, 4), (1, 4))
#: A slot's cost per overlap with tiles (fraction of the label's area) and with a label
#: already placed (any overlap, plus its fraction).
_TILE_COST, _LABEL_COST = 20.0, 1000.0
#: Labels are kept at least a pixel apart.
_APART = np.array([-1.0, -1.0, 1.0, 1.0])


def place_labels(anchors: npt.ArrayLike, sizes: npt.ArrayLike, shape: Sequence[int],
                 obstacles: npt.ArrayLike = (), gap: int = 2,
                 below_first: Sequence[bool] | None = None) -> npt.NDArray[np.float64]:
    """Rectangles ``x1, y1, x2, y2`` for labels of ``sizes`` (width, height) next to
    ``anchors``, placed in the order given (the first ones get the best places): each
    takes the first of :data:`_SLOTS` (above, below, beside, further out) that overlaps
    no label already placed and as little of the ``obstacles`` (the tiles) as it can;
    inside the image of ``shape`` (height, width) where the label fits in it.

    >>> r = place_labels([(10, 40, 30, 70), (32, 40, 52, 70)], [(30, 12), (30, 12)], (120, 100))
    >>> r.tolist()
    [[5.0, 26.0, 35.0, 38.0], [27.0, 72.0, 57.0, 84.0]]
    """
    a = np.asarray(anchors, np.float64).reshape(-1, 4)
    sz = np.asarray(sizes, np.float64).reshape(-1, 2)
    n = len(a)
    if not n:
        return np.zeros((0, 4))
    h, w = shape[0], shape[1]
    lw, lh = sz[:, 0:1], sz[:, 1:2]  # (n, 1)
    cx, cy = (a[:, 0:1] + a[:, 2:3]) / 2, (a[:, 1:2] + a[:, 3:4]) / 2
    side = np.array([s for s, _ in _SLOTS])[None, :]
    lane = np.array([k for _, k in _SLOTS], np.float64)[None, :]
    if below_first is not None:  # swap above and below for those labels
        flip = np.asarray(below_first, bool)[:, None] & (side < 2)
        side = np.where(flip, 1 - side, side)
    above = a[:, 1:2] - gap - lh - lane * (lh + gap)
    below = a[:, 3:4] + gap + lane * (lh + gap)
    right = a[:, 2:3] + gap + lane * (lw + gap)
    left = a[:, 0:1] - gap - lw - lane * (lw + gap)
    x = np.select([side < 2, side == 2], [cx - lw / 2, right], left)
    y = np.select([side == 0, side == 1], [above, below], cy - lh / 2)
    x = np.clip(x, 0, np.maximum(0, w - lw))
    y = np.clip(y, 0, np.maximum(0, h - lh))
    cand = np.stack([x, y, x + lw, y + lh], axis=-1)  # (n, slots, 4)
    area = (lw * lh).clip(1)  # (n, 1)
    cost = np.broadcast_to(np.arange(len(_SLOTS), dtype=np.float64), x.shape).copy()
    obs = np.asarray(obstacles, np.float64).reshape(-1, 4)
    if len(obs):
        cost += _TILE_COST * np.minimum(1, _overlap(cand, obs).sum(axis=-1) / area)
    placed = np.zeros((n, 4))
    for k in range(n):
        c = cost[k]
        if k:
            hit = _overlap(cand[k], placed[:k] + _APART)  # (slots, k)
            c = c + _LABEL_COST * ((hit > 0).sum(axis=-1) + hit.sum(axis=-1) / area[k])
        placed[k] = cand[k, int(np.argmin(c))]
    return placed


def _overlap(r: npt.NDArray[np.float64], o: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Intersection areas of each rectangle of ``r`` (..., 4) with each of ``o`` (m, 4):
    shape (..., m)."""
    r = r[..., None, :]
    iw = np.minimum(r[..., 2], o[:, 2]) - np.maximum(r[..., 0], o[:, 0])
    ih = np.minimum(r[..., 3], o[:, 3]) - np.maximum(r[..., 1], o[:, 1])
    out: npt.NDArray[np.float64] = np.clip(iw, 0, None) * np.clip(ih, 0, None)
    return out


def dashed_rectangle(image: npt.NDArray[np.uint8], rect: Rect, color: BGR, thick: int) -> None:
    """A rectangle of dashes (about 3 line widths long) on ``image``, in place."""
    x1, y1, x2, y2 = (round(float(v)) for v in rect)
    dash = 3 * thick + 4
    for (ax, ay), (bx, by) in (((x1, y1), (x2, y1)), ((x2, y1), (x2, y2)),
                               ((x2, y2), (x1, y2)), ((x1, y2), (x1, y1))):
        length = max(abs(bx - ax), abs(by - ay))
        for s in range(0, length, 2 * dash):
            e = min(length, s + dash)
            p = (ax + (bx - ax) * s // max(length, 1), ay + (by - ay) * s // max(length, 1))
            q = (ax + (bx - ax) * e // max(length, 1), ay + (by - ay) * e // max(length, 1))
            cv2.line(image, p, q, color, thick, cv2.LINE_AA)


def draw(image: npt.NDArray[np.uint8], outlines: Sequence[Outline], labels: Sequence[Label],
         style: Style, obstacles: npt.ArrayLike = ()) -> npt.NDArray[np.float64]:
    """Draw on ``image`` in place: every outline, a thin leader from each label placed
    away from its anchor to the anchor, then every label (placed by :func:`place_labels`
    in the order given, away from the ``obstacles``) on its filled background, so that
    nothing is drawn over a label. Returns the labels' rectangles."""
    sizes = [label_size(lab, style) for lab in labels]
    rects = place_labels([lab.anchor for lab in labels], [s[:2] for s in sizes], image.shape,
                         obstacles, style.gap, [lab.below_first for lab in labels])
    for o in outlines:
        if o.dashed:
            dashed_rectangle(image, o.rect, o.color, o.thick)
        else:
            x1, y1, x2, y2 = (round(float(v)) for v in o.rect)
            cv2.rectangle(image, (x1, y1), (x2, y2), o.color, o.thick, cv2.LINE_AA)
    for lab, r in zip(labels, rects, strict=True):
        ax1, ay1, ax2, ay2 = lab.anchor
        pa = (min(max((r[0] + r[2]) / 2, ax1), ax2), min(max((r[1] + r[3]) / 2, ay1), ay2))
        pl = (min(max(pa[0], r[0]), r[2]), min(max(pa[1], r[1]), r[3]))
        if abs(pa[0] - pl[0]) + abs(pa[1] - pl[1]) > 2 * style.gap + 1:
            cv2.line(image, (round(pl[0]), round(pl[1])), (round(pa[0]), round(pa[1])),
                     lab.fill, max(1, style.line // 2), cv2.LINE_AA)
    for lab, (lw, lh, base_y, tw), r in zip(labels, sizes, rects, strict=True):
        x, y = round(float(r[0])), round(float(r[1]))
        cv2.rectangle(image, (x, y), (x + lw - 1, y + lh - 1), lab.fill, cv2.FILLED)
        ink = text_color(lab.fill)
        cv2.putText(image, lab.text, (x + style.pad, y + base_y), FONT, style.scale, ink,
                    style.text_thick, cv2.LINE_AA)
        if lab.small:
            cv2.putText(image, lab.small, (x + style.pad + tw, y + base_y), FONT,
                        _small(style), ink, max(1, style.text_thick - 1), cv2.LINE_AA)
    return rects


def annotate(
    image: npt.NDArray[np.uint8],
    det: Detections,
    *,
    labels: Sequence[str] | None = None,
    colors: Sequence[BGR] | None = None,
) -> npt.NDArray[np.uint8]:
    """A copy of the BGR ``image`` with one box and label per row of ``det``: the code
    large, rotation and confidence smaller after it (or ``labels``), on the box's colour
    (``colors``, default by confidence: green sure, amber unsure, red doubtful).

    Sizes follow the tiles (:func:`style_for`); labels are placed left to right, each
    where it hides no other label (:func:`draw`).
    """
    out = np.ascontiguousarray(image.copy())
    style = style_for(det.boxes, out.shape)
    boxes = np.asarray(det.boxes, np.float64).reshape(-1, 4)
    fills = [colors[i] if colors is not None else confidence_color(float(det.confidences[i]))
             for i in range(len(det))]
    outlines = [Outline(tuple(boxes[i]), fills[i], style.line) for i in range(len(det))]
    marks = []
    for i in np.argsort(boxes[:, 0], kind="stable"):
        text, small = (labels[i], "") if labels is not None else label_parts(det, int(i))
        marks.append(Label(text, tuple(boxes[i]), fills[i], small))
    draw(out, outlines, marks, style, boxes)
    return out


#: File name endings an annotated image may be written to.
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".webp", ".bmp")


def folder_problem(path: str | Path) -> str | None:
    """Why no annotated image can be written to ``path`` whatever is there now, or None:
    a name without an image ending (or one this OpenCV cannot encode), a folder that does
    not exist or is no folder, a folder in which no file can be made (found by making one,
    not by asking for permissions: root is granted those where the file system still
    refuses, as in ``/sys``). Every ``OUT-N.jpg`` of one ``--annotate OUT.jpg`` shares these.

    >>> folder_problem("out.gif")
    'cannot write out.gif: end the name in .jpg, .jpeg, .png, .webp or .bmp'
    >>> folder_problem("/no/such/folder/out.jpg")
    'cannot write /no/such/folder/out.jpg: folder /no/such/folder does not exist'
    """
    p = Path(path)
    if p.suffix.lower() not in IMAGE_SUFFIXES:
        return f"cannot write {p}: end the name in .jpg, .jpeg, .png, .webp or .bmp"
    if not cv2.haveImageWriter(str(p)):
        return f"cannot write {p}: this OpenCV cannot encode {p.suffix} images"
    folder = p.parent
    if not folder.exists():
        return f"cannot write {p}: folder {folder} does not exist"
    if not folder.is_dir():
        return f"cannot write {p}: {folder} is not a folder"
    try:
        fd, probe = tempfile.mkstemp(prefix=".tilecam-", suffix=".probe", dir=folder)
    except OSError as exc:
        return f"cannot write {p}: no file can be made in folder {folder}: {_cause(exc)}"
    os.close(fd)
    Path(probe).unlink(missing_ok=True)
    return None


def target_problem(path: str | Path) -> str | None:
    """Why an annotated image cannot be written to ``path`` (checked before the work that
    makes it), or None: a :func:`folder_problem`, a folder where the file should be, a
    file there that cannot be opened for writing (opened, not asked about; it is left as
    it was).

    >>> target_problem("out.gif")
    'cannot write out.gif: end the name in .jpg, .jpeg, .png, .webp or .bmp'
    """
    p = Path(path)
    if (problem := folder_problem(p)) is not None:
        return problem
    if p.is_dir():
        return f"cannot write {p}: it is a folder"
    if p.is_file():  # a regular file (a pipe's open would wait for a reader)
        try:
            with open(p, "ab"):  # appends nothing: the file is as it was
                pass
        except OSError as exc:
            return f"cannot write {p}: {_cause(exc)}"
    return None


def _cause(exc: OSError) -> str:
    """An OSError's cause in words, without its errno and path.

    >>> _cause(PermissionError(13, "Permission denied", "/sys/x.jpg"))
    'permission denied'
    >>> _cause(IsADirectoryError(21, "Is a directory", "out.jpg"))
    'it is a folder'
    """
    if isinstance(exc, IsADirectoryError):
        return "it is a folder"
    if exc.strerror:
        return exc.strerror[:1].lower() + exc.strerror[1:]
    return str(exc) or type(exc).__name__


def save_image(path: str | Path, image: npt.NDArray[np.uint8]) -> Path:
    """Write ``image`` to ``path`` (format from the suffix); ``ValueError`` naming the
    cause if it cannot: a name :func:`folder_problem` refuses, the encoder refusing the
    image, or the file system refusing the file (a folder in the way, permission denied,
    a folder that went away…).

    The image is encoded in memory and written by Python, so that OpenCV prints no
    warning of its own and the real cause is known.
    """
    p = Path(path)
    if p.suffix.lower() not in IMAGE_SUFFIXES:
        raise ValueError(f"cannot write {p}: end the name in .jpg, .jpeg, .png, .webp or .bmp")
    try:
        ok, buf = cv2.imencode(p.suffix.lower(), image)
    except cv2.error:
        ok, buf = False, None
    if not ok or buf is None:
        raise ValueError(f"cannot write {p}: OpenCV could not encode the image as {p.suffix}")
    try:
        fh = open(p, "wb")  # noqa: SIM115 (closed below; a failed write removes the file)
    except FileNotFoundError as exc:
        if not p.parent.is_dir():
            raise ValueError(f"cannot write {p}: folder {p.parent} does not exist") from None
        raise ValueError(f"cannot write {p}: {_cause(exc)}") from None
    except OSError as exc:
        if p.is_dir():
            raise ValueError(f"cannot write {p}: it is a folder") from None
        raise ValueError(f"cannot write {p}: {_cause(exc)}") from None
    try:
        with fh:
            fh.write(buf.tobytes())
    except OSError as exc:  # a full disk: no half-written picture is left behind
        p.unlink(missing_ok=True)
        raise ValueError(f"cannot write {p}: {_cause(exc)}") from None
    return p


def same_files(targets: Sequence[str | Path], inputs: Sequence[str | Path]
               ) -> list[tuple[Path, Path]]:
    """The ``(target, input)`` pairs where writing ``target`` would overwrite ``input``:
    the same path once resolved (links followed, ``..`` and the current folder taken
    into account), or the same file reached another way (a hard link).

    >>> [(t.name, i.name) for t, i in same_files(["a/../in.jpg", "out.jpg"], ["in.jpg"])]
    [('in.jpg', 'in.jpg')]
    """
    by_path: dict[str, Path] = {}
    by_inode: dict[tuple[int, int], Path] = {}
    for name in inputs:
        q = Path(name)
        by_path.setdefault(os.path.normcase(str(q.resolve())), q)
        try:
            st = q.stat()
        except OSError:
            continue
        by_inode.setdefault((st.st_dev, st.st_ino), q)
    found = []
    for name in targets:
        t = Path(name)
        hit = by_path.get(os.path.normcase(str(t.resolve())))
        if hit is None:
            try:
                target_stat = t.stat()
            except OSError:  # not there yet: only a path can name an input
                pass
            else:
                hit = by_inode.get((target_stat.st_dev, target_stat.st_ino))
        if hit is not None:
            found.append((t, hit))
    return found
