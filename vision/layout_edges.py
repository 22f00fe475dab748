"""Which edges of the picture a hand row may run past (a tile cut off by the frame).

A photo that cuts the end of the hand row off leaves a tile the detector cannot box — a
sliver at the edge, or nothing — and the hand comes out a tile short or no win. The row
itself says where its next tile would lie: one pitch (the median distance between
neighbouring tile centres) beyond its end tile, the size of that tile. When that tile
would stick out of the picture by at least :data:`MIN_OUTSIDE` of its length along the
row, the row may go on past that edge. :func:`vision.recognize.recognize` then adds a note
to readings that are no scored win (see :func:`edge_note`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

__all__ = ["CUT_OFF", "MIN_OUTSIDE", "SIDES", "edge_note", "rows_past_edge"]

#: The words of :func:`edge_note` that say a tile may be missing (to find the note).
CUT_OFF = "a tile there may be cut off"

#: A side is reported when the next tile would lie at least this share of its length
#: along the row outside the picture (a tile three quarters visible is usually boxed).
MIN_OUTSIDE = 0.25
#: Picture sides, in the order they are reported.
SIDES = ("left", "right", "top", "bottom")
#: A row end counts only for the sides it points at: the cosine between the row's
#: direction and the side's outward normal must reach this (rows along an edge do not
#: run past it).
_MIN_COS = 0.5


def _ends(
    centres: npt.NDArray[np.float64],
) -> list[tuple[int, npt.NDArray[np.float64]]]:
    """Both ends of a row of ``centres`` ``(n, 2)`` (n ≥ 2, in row order): ``(index of
    the end tile, unit vector pointing away from the row)``."""
    axis = centres[-1] - centres[0]
    norm = float(np.hypot(*axis))
    if norm <= 0:
        return []
    u = axis / norm
    return [(len(centres) - 1, u), (0, -u)]


def rows_past_edge(
    boxes: npt.NDArray[np.float32],
    rows: Sequence[Sequence[int]],
    image_size: tuple[int, int],
    *,
    min_outside: float = MIN_OUTSIDE,
) -> list[str]:
    """Sides of a ``width × height`` picture (``image_size``) past which a row may go on.

    ``boxes`` ``(n, 4)`` xyxy pixels; ``rows``: detection indices of each row in order
    along it (rows of one tile say nothing). Returns a subset of :data:`SIDES`, in that
    order.

    >>> b = np.array([[500, 100, 540, 160], [540, 100, 580, 160], [580, 100, 620, 160]],
    ...              np.float32)
    >>> rows_past_edge(b, [[0, 1, 2]], (640, 480))  # the next tile would be half outside
    ['right']
    >>> rows_past_edge(b, [[0, 1, 2]], (700, 480))  # it would fit
    []
    >>> rows_past_edge(b, [[2, 1, 0]], (640, 480))  # order along the row does not matter
    ['right']
    """
    width, height = image_size
    found: set[str] = set()
    for row in rows:
        if len(row) < 2:
            continue
        idx = np.asarray(row, int)
        b = boxes[idx].astype(np.float64)
        centres = np.stack([(b[:, 0] + b[:, 2]) / 2, (b[:, 1] + b[:, 3]) / 2], axis=1)
        pitch = float(np.median(np.hypot(*np.diff(centres, axis=0).T)))
        for end, u in _ends(centres):
            half_w = (b[end, 2] - b[end, 0]) / 2
            half_h = (b[end, 3] - b[end, 1]) / 2
            nx, ny = centres[end] + u * pitch
            along = abs(u[0]) * 2 * half_w + abs(u[1]) * 2 * half_h  # tile length on the row
            if along <= 0:
                continue
            outside = {
                "left": (half_w - nx, -u[0]),
                "right": (nx + half_w - width, u[0]),
                "top": (half_h - ny, -u[1]),
                "bottom": (ny + half_h - height, u[1]),
            }
            for side, (past, cos) in outside.items():
                if cos >= _MIN_COS and past >= min_outside * along:
                    found.add(side)
    return [s for s in SIDES if s in found]


def edge_note(sides: Sequence[str]) -> str | None:
    """The note for a reading that is no scored win whose hand rows run to ``sides``.

    >>> edge_note(["right"])[:63]
    "the hand row runs to the picture's right edge: a tile there may"
    >>> edge_note([]) is None
    True
    """
    if not sides:
        return None
    where = " and ".join(sides)
    edges = "edges" if len(sides) > 1 else "edge"
    return (
        f"the hand row runs to the picture's {where} {edges}: {CUT_OFF} "
        "(take the photo with the whole hand inside it)"
    )
