"""When a camera's view counts as a revealed hand: the same complete hand over N frames.

Each frame is read into a :class:`Reading` (the hand in notation, whether it is a
complete winning shape, how many tiles were seen). :func:`step` advances the
camera's :class:`Watch` state by one frame and says what to do:

- ``record``: the same complete hand has now been seen in ``needed`` frames in a
  row and it is none of the hands recorded since the table was last seen cleared →
  record it (once);
- ``recorded``: the camera still shows a hand recorded since the table was last seen
  cleared — any of them, not only the last (:attr:`Watch.recorded`) — or a hand read
  otherwise with no gap since a record (the same tiles, re-read) → nothing to do;
  :attr:`Watch.matched` says which recorded hand, and :attr:`Watch.differs` whether the
  frame read it otherwise;
- ``waiting``: not (yet) stable, or not complete.

A camera that keeps sending a revealed hand therefore records it once. The same
hand can be recorded again only after the table was seen empty (no tiles, in a frame
that shows a lit view: :attr:`Reading.view`) for ``needed`` frames in a row, i.e. after
the tiles were cleared for the next hand; a frame or two of misreading in between does
not re-arm it, and neither does a frame that shows nothing (a covered lens, the lights
down) or something else than the table's surface (the camera turned onto a wall: ``view``
false), which says nothing about the table. Every hand recorded since the table was last
seen cleared is remembered, not only the last: a still hand seen through seconds of
motion blur, whose smeared frames read the same wrong hand three tiles away (recorded
as another hand: it is too far from the first to be its tiles re-read), is the first
hand again when it is seen sharp again — before the seventy-fourth session it was
recorded, and paid, a second time. A hand read otherwise than
the one recorded — within a few tiles of it (``near``) — is recorded only after
``needed`` frames in a row without a complete hand since the camera last read a
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

A hand, a misreading far from it (smeared frames: ``near`` says no) recorded as another,
the hand again — the first hand, not a third:

>>> w, smeared = Watch(), Reading("111222333m444p9p", complete=True, tiles=14)
>>> far = lambda a, b: False
>>> [step(w, x, needed=2, near=far)[1] for x in (hand, hand, smeared, smeared, hand, hand)]
['waiting', 'record', 'waiting', 'record', 'recorded', 'recorded']
>>> w.recorded, w.matched
(['123m456m789m123p55p', '111222333m444p9p'], '123m456m789m123p55p')
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field


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


#: The most recorded hands a camera remembers between cleared tables (the latest kept):
#: a camera that never sees the table cleared still remembers a whole session's hands.
MOST_REMEMBERED = 64


@dataclass
class Watch:
    """A table camera's state (persisted as :class:`tilecam.db.CameraState`)."""

    signature: str | None = None
    streak: int = 0
    empty_streak: int = 0
    #: every hand key recorded since the table was last seen cleared, the latest last
    #: (at most :data:`MOST_REMEMBERED`); a cleared table empties it
    recorded: list[str] = field(default_factory=list)
    frames_seen: int = 0
    #: frames in a row without a complete hand since the camera last read a recorded
    #: hand (kept at ``needed``)
    quiet_streak: int = 0
    #: after :func:`step`: the recorded key this frame was taken for (answered
    #: ``recorded``, or the one it recorded), else None
    matched: str | None = None
    #: after :func:`step`: the frame was taken for :attr:`matched` though read otherwise
    #: (within a few tiles of it, no gap since: the same tiles re-read)
    differs: bool = False

    @property
    def recorded_signature(self) -> str | None:
        """The hand key recorded last since the table was last seen cleared (None: none)."""
        return self.recorded[-1] if self.recorded else None


def step(watch: Watch, reading: Reading, needed: int,
         near: Callable[[str, str], bool] | None = None,
         same: Callable[[str, str], bool] | None = None) -> tuple[Watch, str]:
    """Advance ``watch`` (in place) by one frame; returns it and the decision. ``near(a,
    b)``: whether two hand keys may be one hand's tiles read otherwise (default: any two
    may); a hand read otherwise than one recorded since the table was last seen cleared
    waits for a gap only then — a camera that sends frames only when a hand is shown
    records the next, different, hand at once. ``same(a, b)``: whether a key other than
    a recorded one's text is still that hand (default: only the same text is) — a
    camera's key carries what its frames said of the win
    (:func:`tilecam.tables.camera.frame_key`), and a frame that says less than the
    recorded one (no winner) is that hand, one that says otherwise (another winner) is
    not.

    >>> w = Watch(recorded=["A|E>S"])
    >>> agree = lambda a, b: a.split("|")[0] == b.split("|")[0] and "W" not in a + b
    >>> step(w, Reading("A", True, 14), 1, near=agree, same=agree)[1]
    'recorded'
    >>> step(w, Reading("A|W>N", True, 14), 1, near=agree, same=agree)[1]
    'record'
    """
    if needed < 1:
        raise ValueError(f"stable frame count must be at least 1, not {needed}")
    watch.frames_seen += 1
    watch.matched, watch.differs = None, False
    sig = reading.signature
    if reading.tiles == 0 and not reading.view:
        # nothing in view: neither a cleared table nor the hand put away — it breaks a
        # run of frames (of a hand, of an empty table) and counts for nothing else
        watch.signature, watch.streak, watch.empty_streak = None, 0, 0
        return watch, "waiting"
    if reading.tiles == 0:
        watch.empty_streak += 1
        if watch.empty_streak >= needed:
            watch.recorded = []
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
    for key in reversed(watch.recorded):  # the latest first
        if sig == key or (same is not None and same(sig, key)):
            # a recorded hand still in view: it was never put away, whatever frames without
            # a complete hand (an arm over the tiles, smeared frames read as another
            # hand) came between
            watch.quiet_streak, watch.matched = 0, key
            return watch, "recorded"
    if watch.quiet_streak < needed:
        for key in reversed(watch.recorded):
            if near is None or near(sig, key):
                # a recorded hand's tiles, read otherwise: no new hand
                watch.matched, watch.differs = key, True
                return watch, "recorded"
    if watch.streak >= needed:
        watch.recorded = [*watch.recorded, sig][-MOST_REMEMBERED:]
        watch.quiet_streak, watch.matched = 0, sig
        return watch, "record"
    return watch, "waiting"
