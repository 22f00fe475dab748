"""Which way round a photo reads, judged from *other* photos of the same tile sets.

:mod:`vision.data.photos` splits a stem's copies into two handedness (parity) groups and
takes the group of the export's un-augmented original as the real one. For about 40 % of
hk-photos' stems no copy is un-augmented: the tightest-boxed copy is itself turned or
sheared (the export's flat fill shows in its corners, :func:`vision.data.relabel.fill_corners`),
and the export flipped such a copy as often as any other (about 38 %). There the parity
groups say nothing about which one is real.

The photos show a few tile sets over and over, so a photo taken as it is shares local
patterns (numerals, characters, the printed corner indices) with the other photos taken
as they are, and SIFT descriptors, which are not mirror-invariant, tell the two apart.
:class:`HandednessCue` holds the descriptors of *reference* photos known to be
right-handed (the un-augmented originals of the other stems) and of their mirror images;
a copy's descriptors are matched against both (nearest neighbour, ratio test) and
:meth:`HandednessCue.margin` compares the share matching the right-handed references for
the copy and for its mirror image (from -2, surely mirrored, to 2, surely as taken).
:func:`stem_vote` averages that over a stem's copies, each turned round to one parity
group, and :func:`cue_verdict` takes it only beyond :data:`CUE_MARGIN`.

Calibrated on hk-photos' 175 reference stems (tightest copy un-augmented), each held out
of the references in turn and judged by the others: none reads the wrong way round at any
margin from 0.2 up (the lowest vote -0.05, the 5th percentile 0.70), 13 are unclear at
:data:`CUE_MARGIN` (``models/README.md``, "Mirrored copies").
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import cast

import cv2
import numpy as np
import numpy.typing as npt

Image = npt.NDArray[np.uint8]

#: Stem vote (mean copy margin, -2..2) from which the cue decides; below it the stem is
#: unclear. Calibrated on the stems whose original is kept, each held out of the
#: references: see ``models/README.md``, "Mirrored copies".
CUE_MARGIN = 0.6
#: Ratio-tested matches (a copy and its mirror image together) below which a copy gives
#: no margin.
MIN_MATCHES = 20


class HandednessCue:
    """SIFT descriptors of right-handed reference photos and of their mirror images.

    ``references``: ``(stem, image)`` pairs, each photo as taken. ``exclude`` in
    :meth:`counts` and :meth:`margin` leaves a stem's references out of the matching
    (a stem must not be judged by its own photo).
    """

    def __init__(
        self,
        references: Iterable[tuple[str, Image]],
        *,
        features: int = 800,
        ratio: float = 0.7,
        neighbours: int = 6,
    ) -> None:
        self.ratio = ratio
        self.neighbours = neighbours
        self._sift = cv2.SIFT.create(nfeatures=features)
        blocks: list[npt.NDArray[np.float32]] = []
        mirrored: list[npt.NDArray[np.bool_]] = []
        owners: list[npt.NDArray[np.int32]] = []
        self.stems: list[str] = []
        for stem, image in references:
            index = len(self.stems)
            self.stems.append(stem)
            for flipped in (False, True):
                desc = self.descriptors(_flip(image) if flipped else image)
                blocks.append(desc)
                mirrored.append(np.full(len(desc), flipped))
                owners.append(np.full(len(desc), index, np.int32))
        self._owner_index = {stem: i for i, stem in enumerate(self.stems)}
        self._mirrored = np.concatenate(mirrored) if mirrored else np.zeros(0, bool)
        self._owner = np.concatenate(owners) if owners else np.zeros(0, np.int32)
        self._matcher: cv2.FlannBasedMatcher | None = None
        if len(self._mirrored) > neighbours:
            pool = np.ascontiguousarray(np.concatenate(blocks), np.float32)
            self._matcher = cv2.FlannBasedMatcher({"algorithm": 1, "trees": 4},
                                                  {"checks": 64})
            self._matcher.add([pool])
            cv2.setRNGSeed(0)  # FLANN's randomised trees: the same trees, the same matches
            self._matcher.train()

    def __len__(self) -> int:
        """How many reference photos."""
        return len(self.stems)

    def descriptors(self, image: Image) -> npt.NDArray[np.float32]:
        """``(n, 128)`` SIFT descriptors of ``image`` (BGR or grey)."""
        grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
        _, desc = self._sift.detectAndCompute(grey, None)
        if desc is None:
            return np.zeros((0, 128), np.float32)
        return np.asarray(desc, np.float32)

    def counts(self, image: Image, exclude: str | None = None) -> tuple[int, int]:
        """Ratio-tested matches of ``image``'s descriptors with the references as taken
        and with their mirror images (the references of stem ``exclude`` left out)."""
        desc = self.descriptors(image)
        if self._matcher is None or not len(desc):
            return 0, 0
        skip = self._owner_index.get(exclude, -1) if exclude is not None else -1
        right = mirror = 0
        for found in self._matcher.knnMatch(desc, k=self.neighbours):
            kept = [m for m in found if self._owner[m.trainIdx] != skip][:2]
            if len(kept) == 2 and kept[0].distance < self.ratio * kept[1].distance:
                if self._mirrored[kept[0].trainIdx]:
                    mirror += 1
                else:
                    right += 1
        return right, mirror

    def margin(self, image: Image, exclude: str | None = None,
               min_matches: int = MIN_MATCHES) -> float | None:
        """How right-handed ``image`` reads, from -2 (mirrored) to 2 (as taken): the share
        of its matches that go to the references as taken, less that share for its
        mirror image. None with fewer than ``min_matches`` matches in all."""
        a = self.counts(image, exclude)
        b = self.counts(_flip(image), exclude)
        if sum(a) + sum(b) < min_matches:
            return None
        return _share(a) - _share(b)


def _share(counts: tuple[int, int]) -> float:
    """``(right - mirrored) / (right + mirrored)``, 0 without matches."""
    right, mirror = counts
    return (right - mirror) / (right + mirror) if right + mirror else 0.0


def _flip(image: Image) -> Image:
    return cast(Image, cv2.flip(image, 1))


def stem_vote(margins: Sequence[float | None], parities: Sequence[int],
              parity: int) -> float | None:
    """How right-handed parity group ``parity`` of a stem reads: the mean over its copies
    with a margin, a copy of the other group counting with its margin negated (its
    mirror image belongs to this group). None when no copy has a margin.

    >>> stem_vote([1.5, -1.0, None], [0, 1, 0], 0)
    1.25
    >>> stem_vote([1.5, -1.0, None], [0, 1, 0], 1)
    -1.25
    >>> stem_vote([None], [0], 0) is None
    True
    """
    signed = [m if p == parity else -m
              for m, p in zip(margins, parities, strict=True) if m is not None]
    return float(np.mean(signed)) if signed else None


def cue_verdict(vote: float | None, margin: float = CUE_MARGIN) -> bool | None:
    """True: the group voted on is right-handed; False: it is mirrored; None: unclear
    (no vote, or one within ``margin`` of 0).

    >>> cue_verdict(1.4), cue_verdict(-0.9), cue_verdict(0.3), cue_verdict(None)
    (True, False, None, None)
    """
    if vote is None or abs(vote) < margin:
        return None
    return vote > 0
