"""When a camera's view counts as a revealed hand: the same complete hand over N frames.

Each frame is read into a :class:`Reading` (the hand in notation, whether it is a
complete winning shape, how many tiles were seen). :func:`step` advances the
camera's :class:`Watch` state by one frame and says what to do:

- ``record``: the same complete hand has now been seen in ``needed`` frames in a
  row and it is not the hand recorded last → record it (once);
- ``recorded``: the camera still shows the hand recorded last — or a hand read
  otherwise with no gap since that record (the same tiles, re-read) → nothing to do;
- ``waiting``: not (yet) stable, or not complete.

A camera that keeps sending a revealed hand therefore records it once. The same
hand can be recorded again only after the table was seen empty (no tiles, in a frame
that shows a lit view: :attr:`Reading.view`) for ``needed`` frames in a row, i.e. after
the tiles were cleared for the next hand; a frame or two of misreading in between does
not re-arm it, and neither does a frame that shows nothing (a covered lens, the lights
down) or something else than the table's surface (the camera turned onto a wall: ``view``
false), which says nothing about the table. A hand read otherwise than
the one recorded last — within a few tiles of it (``near``) — is recorded only after
``needed`` frames in a row without a complete hand since the camera last read the
recorded hand (the revealed hand was put away): a reading of the revealed tiles that
changes — a tile found late, a code that flips — and stays for ``needed`` frames is not
a second hand on the score sheet, and nor is one after an arm over the tiles for a
while: the recorded hand read again after it shows it was never put away.

>>> w = Watch()
>>> hand = Reading("123m456m789m123p55p", complete=True, tiles=14)
>>> [step(w, hand, needed=3)[1] for _ in range(5)]
['waiting', 'waiting', 'record', 'recorded', 'recorded']
>>> empty = Reading(None, complete=False, tiles=0)
>>> [step(w, x, needed=2)[1] for x in (empty, hand, empty, empty, hand, hand)]
['waiting', 'recorded', 'waiting', 'waiting', 'waiting', 'record']
>>> reread = Reading("123m456m789m123p55p 1f", complete=True, tiles=15)
>>> [step(w, x, needed=2)[1] for x in (reread, reread, reread)]
['recorded', 'recorded', 'recorded']
>>> playing = Reading(None, complete=False, tiles=60)
>>> [step(w, x, needed=2)[1] for x in (playing, playing, reread, reread)]
['waiting', 'waiting', 'waiting', 'record']
>>> [step(w, x, needed=2)[1] for x in (playing, playing, reread, hand, hand)]
['waiting', 'waiting', 'recorded', 'recorded', 'recorded']
>>> dark = Reading(None, complete=False, tiles=0, view=False)
>>> [step(w, x, needed=2)[1] for x in (dark, dark, dark, hand)]
['waiting', 'waiting', 'waiting', 'recorded']
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Reading:
    """What one frame shows: ``hand`` (normalized notation, or any key that is equal for
    hands the table scores alike: :func:`tilecam.tables.scoring_bridge.score_key`) when
    tiles form a hand, ``complete`` when it is a complete winning shape, ``tiles``
    detected."""

    hand: str | None
    complete: bool
    tiles: int
    #: Whether the frame shows a view of the table at all: False for a frame with no
    #: tiles that is dark or blank (a covered lens, the lights down:
    #: :func:`tilecam.tables.camera.shows_a_view`) or that shows another surface than the
    #: one the camera learned around the tiles (a wall, the floor:
    #: :func:`tilecam.tables.surface.judge`), which tells nothing of the table — not an
    #: empty table.
    view: bool = True

    @property
    def signature(self) -> str | None:
        """The stable identity of a revealed hand, or None when the frame shows none."""
        return self.hand if (self.complete and self.hand) else None


@dataclass
class Watch:
    """A table camera's state (persisted as :class:`tilecam.db.CameraState`)."""

    signature: str | None = None
    streak: int = 0
    empty_streak: int = 0
    recorded_signature: str | None = None
    frames_seen: int = 0
    #: frames in a row without a complete hand since the camera last read the recorded
    #: hand (kept at ``needed``)
    quiet_streak: int = 0


def step(watch: Watch, reading: Reading, needed: int,
         near: Callable[[str, str], bool] | None = None,
         same: Callable[[str, str], bool] | None = None) -> tuple[Watch, str]:
    """Advance ``watch`` (in place) by one frame; returns it and the decision. ``near(a,
    b)``: whether two hand keys may be one hand's tiles read otherwise (default: any two
    may); a hand read otherwise than the one recorded last waits for a gap only then —
    a camera that sends frames only when a hand is shown records the next, different,
    hand at once. ``same(a, b)``: whether a key other than the recorded one's text is
    still the recorded hand (default: only the same text is) — a camera's key carries
    what its frames said of the win (:func:`tilecam.tables.camera.frame_key`), and a frame
    that says less than the recorded one (no winner) is that hand, one that says
    otherwise (another winner) is not.

    >>> w = Watch(recorded_signature="A|E>S")
    >>> agree = lambda a, b: a.split("|")[0] == b.split("|")[0] and "W" not in a + b
    >>> step(w, Reading("A", True, 14), 1, near=agree, same=agree)[1]
    'recorded'
    >>> step(w, Reading("A|W>N", True, 14), 1, near=agree, same=agree)[1]
    'record'
    """
    if needed < 1:
        raise ValueError(f"stable frame count must be at least 1, not {needed}")
    watch.frames_seen += 1
    sig = reading.signature
    if reading.tiles == 0 and not reading.view:
        # nothing in view: neither a cleared table nor the hand put away — it breaks a
        # run of frames (of a hand, of an empty table) and counts for nothing else
        watch.signature, watch.streak, watch.empty_streak = None, 0, 0
        return watch, "waiting"
    if reading.tiles == 0:
        watch.empty_streak += 1
        if watch.empty_streak >= needed:
            watch.recorded_signature = None
    else:
        watch.empty_streak = 0
    if sig is None:
        watch.signature, watch.streak = None, 0
        watch.quiet_streak = min(watch.quiet_streak + 1, needed)
        return watch, "waiting"
    if watch.quiet_streak < needed:
        watch.quiet_streak = 0  # a short gap between readings of a hand is no gap
    if sig == watch.signature:
        watch.streak += 1
    else:
        watch.signature, watch.streak = sig, 1
    if sig == watch.recorded_signature or (
            same is not None and watch.recorded_signature is not None
            and same(sig, watch.recorded_signature)):
        # the recorded hand still in view: it was never put away, whatever frames without
        # a complete hand (an arm over the tiles) came between
        watch.quiet_streak = 0
        return watch, "recorded"
    if (watch.recorded_signature is not None and watch.quiet_streak < needed
            and (near is None or near(sig, watch.recorded_signature))):
        return watch, "recorded"  # the recorded hand's tiles, read otherwise: no new hand
    if watch.streak >= needed:
        watch.recorded_signature = sig
        watch.quiet_streak = 0
        return watch, "record"
    return watch, "waiting"
