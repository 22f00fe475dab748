"""Corrections to the hk-photos labels: tiles whose label contradicts the tile.

A tile set holds one of each bonus tile (``1f``-``8f``) and four of each other kind, so
a photo of one set whose labels name a flower or season twice, or a kind five times or
more, has a wrong label. Every original of the export was checked for that (train and
val alike, before looking at any model's readings); where the tile itself says what it
is — its numeral and character, and the set's colours as the same photo's other bonus
tiles show them (red numerals for the seasons 春夏秋冬, blue for the flowers 梅蘭菊竹) —
the label is corrected here. Photos whose labels the picture cannot settle (a blurred or
cut tile, blank faces) keep them.

The fixes apply to the un-augmented original's label file; the other copies' labels are
carried from it (:mod:`vision.data.relabel`), so every copy gets them. A fix is looked
up by its photo (the stem of ``copy``): one whose row does not hold the code it
expects, or whose copy is missing or is not the copy the preparation takes as the
photo's original (another version of the data), is not applied and is counted as
skipped. ``tilecam dataset photos --no-label-fixes`` builds the labels as
exported.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from vision.classes import CLASSES

Labels = npt.NDArray[np.float64]


@dataclass(frozen=True)
class LabelFix:
    """Row ``row`` (0-based, as :func:`vision.data.photos.read_labels` reads the file) of
    the label file of image ``copy`` is labelled ``was`` and shows ``now``; ``why`` is
    what the picture shows."""

    copy: str
    row: int
    was: str
    now: str
    why: str

    @property
    def stem(self) -> str:
        """The source photo of ``copy`` (its name before ``.rf.``, as
        :func:`vision.data.photos.source_stem`).

        >>> LabelFix("hand_046_jpg.rf.3a82.jpg", 0, "1f", "3f", "").stem
        'hand_046_jpg'
        """
        return self.copy.split(".rf.")[0] if ".rf." in self.copy else self.copy.rsplit(".", 1)[0]


#: The corrections (twenty-first session). Found by listing every original whose labels
#: name one bonus code twice (7 photos: 4 settled by the picture; ``393106986_…``,
#: ``393108476_…``, ``z9BwrWhdora…`` not — blurred or cut tiles) or one kind more than four
#: times (3 photos: 1 settled; ``CcHsiIAqV2qS…``'s five 7m blurred, ``IMG_20231030_204854``'s
#: eight 白 blank faces).
LABEL_FIXES: tuple[LabelFix, ...] = (
    LabelFix("2aGXQnBH5SHRuF2LqyrkpYxAIOY3vY_jpg.rf.5662bf152f937a69bd6cdd8fa65f6830.jpg",
             70, "1f", "3f", "shows 3 秋 (autumn); the photo's 1 春 is labelled 1f too"),
    LabelFix("370016222_1500674184032780_3587499100410576785_n_jpg.rf."
             "491cb4906e71a92889a66e6af375ce08.jpg",
             4, "7f", "3f", "shows a red 3 and 秋; the photo's blue 3 菊 is the 7f, and no tile "
             "is labelled 3f"),
    LabelFix("399992495_188000297668658_3604753273341327818_n_jpg.rf."
             "41b91d603377a0fb67c089f529ec92d9.jpg",
             13, "7f", "6f", "shows a blue 2 beside an orchid (蘭); both bonus tiles of the "
             "photo are labelled 7f"),
    LabelFix("399992495_188000297668658_3604753273341327818_n_jpg.rf."
             "41b91d603377a0fb67c089f529ec92d9.jpg",
             14, "7f", "3f", "shows a red 三: this set's seasons carry red numerals (hand_034 "
             "and 393088663 label its red 一 as 1f)"),
    LabelFix("d1AKzgUIuM5zTsYpIfk5v0WcIrPRwS_jpg.rf.3157f6047d1d89a56de3212cb6001088.jpg",
             39, "4f", "8f", "shows 竹 4 and bamboo; the sheet's 4 冬 is labelled 4f too"),
    LabelFix("420632200_399521625861232_1345695193706140643_n_jpg.rf."
             "2b205c72551554872bb8a5ff2a16f0f6.jpg",
             12, "2p", "9m", "a 萬 tile (九 over 萬, as its neighbour labelled 9m), not dots; "
             "the row holds six tiles labelled 2p: SSS FF 2222p 999m 999p"),
    LabelFix("420632200_399521625861232_1345695193706140643_n_jpg.rf."
             "2b205c72551554872bb8a5ff2a16f0f6.jpg",
             13, "2p", "9m", "as row 12: the second of the two 萬 tiles labelled 2p"),
)


def apply_label_fixes(
    copy: str, labels: Labels, fixes: Sequence[LabelFix] = LABEL_FIXES
) -> tuple[Labels, int, int]:
    """``labels`` ``(n, 5)`` of image ``copy`` with the fixes for it applied: the fixed
    labels (a copy when any applies), how many applied and how many were skipped (the
    row missing or not holding ``was``).

    >>> fix = LabelFix("a.jpg", 1, "7f", "3f", "test")
    >>> rows = np.array([[CLASSES.index("1m"), .5, .5, .1, .1],
    ...                  [CLASSES.index("7f"), .2, .2, .1, .1]])
    >>> fixed, applied, skipped = apply_label_fixes("a.jpg", rows, [fix])
    >>> CLASSES[int(fixed[1, 0])], applied, skipped, CLASSES[int(rows[1, 0])]
    ('3f', 1, 0, '7f')
    >>> apply_label_fixes("b.jpg", rows, [fix])[1:]
    (0, 0)
    """
    mine = [f for f in fixes if f.copy == copy]
    if not mine:
        return labels, 0, 0
    out = labels.copy()
    applied = skipped = 0
    for f in mine:
        if 0 <= f.row < len(out) and CLASSES[int(out[f.row, 0])] == f.was:
            out[f.row, 0] = CLASSES.index(f.now)
            applied += 1
        else:
            skipped += 1
    return out, applied, skipped
