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

import os
import tempfile
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
