"""When a tilted photo is read a second time turned level, and when that reading is taken.

:func:`vision.recognize.recognize` reads a photo once. Rows lying well off the photo's
edges give the detector tilted tiles, whose boxes and readings are worse; so some
readings of such photos are tried again on the photo turned level
(:mod:`vision.straighten`, a second detection). This module is the policy: which
readings (:func:`reason`) and which level readings replace them (:func:`take`).

- ``"no win"``: a reading that is no win, of rows :data:`STRAIGHTEN_DEG` or more off
  the edges — unless the context says the hand is no win (then no reading can win);
  the level reading is taken when it wins.
- ``"no answer"``: with the context saying the hand is no win, a reading that gives
  neither waits nor discards (tiles that make no hand, or a count no hand has), of rows
  :data:`STRAIGHTEN_DEG` or more off the edges; the level reading is taken when it gives
  one (the tiles are read alike whatever the claim: only the answer follows it).
- ``"unclear"``: a win with a claimed meld whose claim source is unclear, from
  :data:`STRAIGHTEN_UNCLEAR_DEG`; taken when the level reading wins with every claim
  clear.
- ``"doubtful"``: any other win whose confidence is under :data:`STRAIGHTEN_WIN_BELOW`,
  from :data:`STRAIGHTEN_WIN_DEG`; taken when the level reading wins with every claim
  clear, is likelier right and shows no fewer bonus tiles.

None of them for a photo with fewer boxes than a won hand's tiles less
:data:`STRAIGHTEN_TILES_SHORT`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from vision.recognize import Recognition

Reason = Literal["no win", "no answer", "unclear", "doubtful"]

#: A photo whose rows lie this many degrees or more off its edges, and whose reading is
#: no win, is read again from the photo turned level (:mod:`vision.straighten`); that
#: reading is taken when it is a win. 0: never.
STRAIGHTEN_DEG = 5.0
#: ... and from this tilt a win with a meld whose claim source is unclear
#: (:attr:`vision.layout.LayoutParams.claim_note_margin`), whose level reading is taken
#: when it is a win with every claim clear. 0: never.
STRAIGHTEN_UNCLEAR_DEG = 20.0
#: ... and from this tilt any other doubtful win (confidence under
#: :data:`STRAIGHTEN_WIN_BELOW`), whose level reading is taken when it is a win with every
#: claim clear that is likelier right (higher :func:`confidence`). 0: never.
STRAIGHTEN_WIN_DEG = 20.0
#: ... when its confidence (:func:`confidence`) is under this.
STRAIGHTEN_WIN_BELOW = 0.4
#: In each case only a photo with at least a won hand's tiles less this many boxes (the
#: kept ones; weak boxes not counted) is read again: a level reading is cut around the
#: tiles found, so one of a few tiles could not win; of 235 level readings that won on
#: the choice scenes (MCR), none had fewer than 12 boxes first, while hk val photos of
#: 3-9 tiles were read twice for nothing.
STRAIGHTEN_TILES_SHORT = 4
#: Whether the level reading is also detected at the detector's other input sizes
#: (manifest ``scales``, :meth:`vision.detect.Detector.detect`). The level region is cut
#: around the tiles, so they are large in it and the first size sees them: without the
#: other sizes the second detection takes about a quarter less time (the 13 of the
#: recognize bench's 32 hk photos read again: mean 85 → 63 ms for it), and on the choice
#: scenes no hand is read worse (sixtieth session; turned-choice one more exact).
LEVEL_OTHER_SCALES = False


def reason(rec: Recognition, boxes: int, hand_size: int, may_win: bool) -> Reason | None:
    """Why the photo of reading ``rec`` is read again turned level, or None when it is
    not. ``boxes``: the detections kept (weak ones not counted); ``hand_size``: a won
    hand's tiles under the rules (a kong counted as 3); ``may_win``: False when the
    context says the hand is no win."""
    if boxes < max(3, hand_size - STRAIGHTEN_TILES_SHORT):
        return None
    tilt = abs(rec.layout.tilt_deg)
    if not may_win:
        return "no answer" if not answered(rec) and 0 < STRAIGHTEN_DEG <= tilt else None
    if rec.score is None:
        return "no win" if 0 < STRAIGHTEN_DEG <= tilt else None
    if 0 < STRAIGHTEN_UNCLEAR_DEG <= tilt and unclear(rec):
        return "unclear"
    if 0 < STRAIGHTEN_WIN_DEG <= tilt and confidence(rec) < STRAIGHTEN_WIN_BELOW:
        return "doubtful"
    return None


def take(why: Reason, rec: Recognition, level: Recognition) -> bool:
    """Whether the level reading ``level`` replaces ``rec``, read again for ``why``."""
    if why == "no answer":
        return answered(level)
    if level.score is None:
        return False
    if why == "no win":
        return True
    if why == "unclear":
        return not unclear(level)
    return (not unclear(level) and confidence(level) > confidence(rec)
            and flower_count(level) >= flower_count(rec))


def answered(rec: Recognition) -> bool:
    """Whether a reading of a hand said to be no win gives an answer: its waits, or the
    discards of a hand that drew."""
    return rec.waits is not None or rec.discards is not None


def confidence(rec: Recognition) -> float:
    """How likely ``rec`` is right (0..1): its calibrated hand confidence, or the model's
    own reading confidence when the model has no calibration."""
    c = rec.hand_confidence
    return rec.reading_confidence if c is None else c


def flower_count(rec: Recognition) -> int:
    """How many bonus tiles ``rec``'s hand shows (0 without a hand)."""
    return 0 if rec.hand is None else len(rec.hand.flowers)


def unclear(rec: Recognition) -> bool:
    """Whether a claimed meld of ``rec`` has an unclear sideways tile."""
    return any(m.claim_unclear for m in rec.layout.melds)
