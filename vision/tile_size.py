"""How large the hand's tiles are in the picture, and a note when they are small.

Tiles under about 30 pixels across are read wrong far more often than larger ones. On
the synthetic table scenes of the training art (`bench/layout_eval.py synth --detector`
on choice2 and turned-choice, 600 winning hands at 1280 × 960, model 2026-12-03.27),
hands read exactly end to end by the median short side of their tiles' boxes:

==========  =====  =====
short side  hands  exact
==========  =====  =====
< 25 px        51   45 %
25–30 px       53   53 %
30–35 px       46   80 %
35–40 px       43   67 %
40–50 px       79   82 %
50–70 px      142   87 %
≥ 70 px       186   87 %
==========  =====  =====

:func:`vision.recognize.recognize` adds :func:`size_note` to a reading whose hand tiles
are under :data:`SMALL_TILE_PX`: the user can take a closer photo, or frame the table
tighter, before trusting it. The note names where its figures come from: real close-up
photos shrunk until their tiles are 20–28 px (30 hk val photos at 320–400 px wide,
seventy-fifth session's review) read 86–94 % all right, about as at full size, so the
threshold is the table scenes' and says less about close-ups.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from vision.postprocess import median_short_side

__all__ = ["SMALL_TILES", "SMALL_TILE_PX", "hand_tile_px", "size_note"]

#: Hand tiles whose boxes' median short side is under this many pixels get the note.
SMALL_TILE_PX = 30.0
#: The words of :func:`size_note` that say the tiles are small (to find the note).
SMALL_TILES = "the tiles are small in the picture"


def hand_tile_px(boxes: npt.NDArray[np.floating], rows: Sequence[Sequence[int]]) -> float | None:
    """Median short side, in pixels, of the boxes ``boxes`` ``(n, 4)`` (xyxy) of the
    detections in ``rows`` (indices); None when the rows hold none.

    >>> b = np.array([[0, 0, 20, 28], [20, 0, 41, 28], [0, 40, 60, 100]], np.float32)
    >>> hand_tile_px(b, [[0, 1]])
    20.5
    >>> hand_tile_px(b, []) is None
    True
    """
    idx = [int(d) for row in rows for d in row]
    if not idx:
        return None
    return median_short_side(np.asarray(boxes)[idx])


def size_note(px: float | None, small: float = SMALL_TILE_PX) -> str | None:
    """The note for hand tiles of median short side ``px`` pixels: None when they are
    ``small`` px or more (or unknown).

    >>> size_note(24.4)  # doctest: +ELLIPSIS
    'the tiles are small in the picture (about 24 px across): ... a closer photo...'
    >>> size_note(30.0) is None and size_note(None) is None
    True
    """
    if px is None or px >= small:
        return None
    return (
        f"{SMALL_TILES} (about {px:.0f} px across): on synthetic table scenes about half "
        f"the hands with tiles under {small:.0f} px were misread, a sixth of those with "
        "larger ones — a "
        "closer photo, or a camera framing the table tighter, reads them better"
    )
