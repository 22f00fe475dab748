"""Camera frames → recorded hands: read each frame, track stability, record once.

A :data:`FrameReader` turns a decoded frame into a :class:`FrameReading`; the
service's default runs :func:`vision.recognize`, tests inject a fake.
:func:`process_frame` advances the table's camera state and, when the hand has
been stable and complete for ``needed`` frames — the same hand as far as the table's
rules score it (:func:`tilecam.tables.scoring_bridge.score_key`: under MCR which flower
a bonus tile is does not count) — records the latest reading with the frame saved
under ``data_dir/frames/`` as its image reference — all in one transaction, so
a retried or concurrent frame cannot record the hand twice. Nor is a hand recorded again
that the camera recorded since the table was last seen cleared (:class:`Memory`: every
one, not only the last), or that a referee, an automatic table or a photo put on the
sheet meanwhile (:func:`_sheet_hand`); a record the camera later reads otherwise, stably,
is held for a referee (:func:`tilecam.tables.sheet.hold_for_review`). One photo of a hand
(:func:`record_photo`) is held to the same rule: a photo of a hand on the sheet since the
table was last seen cleared is :class:`AlreadyRecorded` (:func:`photo_shows`). A photo is
held to more than a frame: where the camera has seen the table cleared, a photo of any
complete hand while a hand recorded since then stands (whoever recorded it) is
:class:`AlreadyRecorded` too, however far its reading is from that hand
(:func:`photo_deal_hand`) — a deal has one win, so a second one before the table is seen
cleared is far likelier the hand misread (a bad photo, glare) than a new one; until the
seventy-sixth session a photo read more than 2 tiles from it was recorded, and paid, as a
second hand of the deal. ``new_hand`` says it is a new hand. A camera's frames keep their
own rule: a far reading is another hand at once (below).

A frame with no tiles counts as the table seen empty only when it shows the table: not a
dark frame (:func:`shows_a_view`), and — once the camera has learned the table's surface
around the tiles it read (:mod:`tilecam.tables.surface`, kept in ``camera_states.surface``)
— not a lit view of something else (a wall, the floor, a shirt). Each answer says what
the frame showed (:attr:`FrameResult.view`). A frame ``elsewhere`` counts neither as the
table seen empty nor as the gap after a recorded hand, and need not: a hand more than
:data:`~tilecam.tables.scoring_bridge.REREAD_TILES` tiles from the recorded one is
recorded at once, gap or none, while a nearer one may be the still hand read again after
the camera was turned away and back. What a false ``elsewhere`` would cost (a cleared
table not seen, so the same hand or a near one dealt next never recorded) is why the
surface's judgement errs towards the table.
"""

from __future__ import annotations

import json
import logging
import os
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from tilecam.db.models import CameraState, GameTable, Hand
from tilecam.tables import sheet
from tilecam.tables.places import report_of
from tilecam.tables.scoring_bridge import (
    HandReport,
    normalize_hand,
    reread_of,
    score_key,
    tiles_apart,
)
from tilecam.tables.stability import MOST_REMEMBERED, Reading, Watch, step
from tilecam.tables.surface import (
    LEARN_TILES,
    SurfaceModel,
    SurfaceSample,
    Verdict,
    judge,
    learn,
    sample_frame,
    tile_boxes,
)

log = logging.getLogger("tilecam.tables")


@dataclass(frozen=True)
class FrameReading:
    """What the recognizer read from one frame.

    ``hand``: notation of the tiles as a hand (None when no hand could be formed);
    ``complete``: a complete winning shape; ``tiles``: number of tiles detected;
    ``recognized``: the recognizer's full JSON answer, kept with a recorded hand.
    """

    hand: str | None
    complete: bool
    tiles: int
    recognized: Mapping[str, Any] = field(default_factory=dict)
    #: Whether the frame shows a view (:func:`shows_a_view`): a frame with no tiles that
    #: is dark — a covered lens, the lights down — is no view of an empty table.
    view: bool = True
    #: The frame measured for the table's surface (:func:`with_view`): a lit frame with
    #: no tiles, to judge; one with tiles and their boxes, to learn from. None: neither.
    surface: SurfaceSample | None = field(default=None, compare=False, repr=False)


#: A frame whose brightest 1 % of pixels (each pixel's brightest channel, 0-255) stays
#: under this level shows nothing: a lens covered, the lights off, a camera that sends
#: black. A lit table — an empty cloth too — is well above it.
DARK_LEVEL = 40


def shows_a_view(image: np.ndarray) -> bool:
    """Whether a decoded frame (BGR uint8) shows a lit view rather than darkness: the
    brightest 1 % of its pixels reach :data:`DARK_LEVEL`. A frame with no tiles that shows
    no view is not the table seen empty (:attr:`tilecam.tables.stability.Reading.view`).
    A camera turned onto some other lit surface is told from a cleared table by the surface
    it learned around the tiles (:mod:`tilecam.tables.surface`), not by this.

    >>> dark, grey = np.zeros((48, 64, 3), np.uint8), np.full((48, 64, 3), 90, np.uint8)
    >>> shows_a_view(dark), shows_a_view(grey)
    (False, True)
    """
    if image.size == 0:
        return False
    step = max(1, max(image.shape[:2]) // 256)  # a few tens of thousands of pixels is plenty
    sample = image[::step, ::step]
    bright = sample.max(axis=2) if sample.ndim == 3 else sample
    return bool(np.percentile(bright, 99) >= DARK_LEVEL)


def with_view(reading: FrameReading, image: np.ndarray) -> FrameReading:
    """``reading`` with what the frame ``image`` (BGR uint8 ``(H, W, 3)``) it was read from
    shows of the table: :attr:`FrameReading.view` (a frame with no tiles that is dark is
    no view) and :attr:`FrameReading.surface` — a lit frame with no tiles measured to be
    judged against the table's surface, one with :data:`tilecam.tables.surface.LEARN_TILES`
    tiles or more, with boxes (``recognized["tiles"][i]["box"]``, pixels), measured around
    them to learn it. A few milliseconds for a 1280×960 frame; a frame that cannot be
    measured (not a colour image) is left unmeasured, as before the surface was learned."""
    if not reading.view:
        return reading
    if reading.tiles == 0 and not shows_a_view(image):
        return replace(reading, view=False)
    boxes: list[tuple[float, float, float, float]] = []
    if reading.tiles != 0:
        tiles = reading.recognized.get("tiles") if isinstance(reading.recognized,
                                                              Mapping) else None
        if isinstance(tiles, list) and image.ndim >= 2:
            boxes = tile_boxes(tiles, int(image.shape[1]), int(image.shape[0]))
        if len(boxes) < LEARN_TILES:
            return reading  # too few tiles with boxes to learn the surface from
    try:
        sample = sample_frame(image, boxes)
    except ValueError as exc:
        log.warning("tilecam: a camera frame's surface was not measured: %s", exc)
        return reading
    return replace(reading, surface=sample)


#: What a frame showed of the table (:attr:`FrameResult.view`), besides the
#: :class:`tilecam.tables.surface.Verdict` views of a lit frame with no tiles.
TILES, DARK = "tiles", "dark"


def _look(state_surface: str | None, reading: FrameReading) -> tuple[Verdict | None,
                                                                      str | None]:
    """What a frame showed of the table (``tiles``, ``dark`` or a surface verdict) and the
    camera's surface model to store after it (JSON; ``state_surface`` unchanged when the
    frame did not teach it)."""
    if reading.tiles != 0:
        sample = reading.surface
        if sample is None or not sample.teaches:
            return Verdict(TILES, "tiles in view"), state_surface
        model = learn(SurfaceModel.from_json(state_surface), sample)
        return Verdict(TILES, "tiles in view"), (state_surface if model is None
                                                 else model.to_json())
    if not reading.view:
        return Verdict(DARK, f"the frame is dark (its brightest pixels under level "
                       f"{DARK_LEVEL} of 255): no view of the table"), state_surface
    if reading.surface is None:  # not measured: taken for the table, as before
        return None, state_surface
    return judge(SurfaceModel.from_json(state_surface), reading.surface), state_surface


#: ``(image BGR uint8 (H, W, 3), rules name, rule-set context) -> FrameReading``; the
#: context holds rule-specific fields a reading needs (e.g. Xiamen's ``gold``).
FrameReader = Callable[[np.ndarray, str, Mapping[str, Any]], FrameReading]


def reading_from_recognition(data: Mapping[str, Any], refused_win: bool = False) -> FrameReading:
    """Adapt ``vision.Recognition.to_dict()``: ``hand`` (notation), ``tiles`` (list), and
    ``score`` present when the tiles form a complete winning hand — or ``refused_win``
    (:attr:`vision.recognize.Recognition.refused_win`): a winning shape the recognizer's
    scorer refused for the frame's context, which the sheet scores (or holds, saying why)
    at the hand's place when it records it."""
    tiles = data.get("tiles") or []
    hand = data.get("hand")
    if isinstance(hand, dict):
        hand = hand.get("notation") or hand.get("text")
    complete = bool(hand) and (data.get("score") is not None or refused_win)
    return FrameReading(hand if isinstance(hand, str) and hand else None, complete,
                        len(tiles), dict(data))


#: Between a camera frame's hand key and what its fields say of the win (:func:`frame_key`).
CLAIM_MARK = "|"


def win_claim(report: HandReport) -> str:
    """What a frame's fields say of the win: the winner's seat wind (``?`` not said), then
    how it was won — the discarder's seat wind, ``*`` self-drawn, ``?`` not said; empty
    when they say nothing of it.

    >>> win_claim(HandReport(winner="E", discarder="S")), win_claim(HandReport(winner="N",
    ...     self_drawn=True)), win_claim(HandReport())
    ('E>S', 'N>*', '')
    """
    how = "*" if report.self_drawn else (report.discarder or "")
    if not report.winner and not how:
        return ""
    return f"{report.winner or '?'}>{how or '?'}"


def frame_key(key: str, report: HandReport) -> str:
    """A frame's key for the camera's stability (:func:`tilecam.tables.stability.step`):
    the hand's key (:func:`tilecam.tables.scoring_bridge.score_key`) and what the frame's
    fields say of the win (:func:`win_claim`), so that a frame of the same tiles, or of
    tiles a re-read apart, whose winner, discarder or self-draw contradict the hand the
    camera recorded is not answered as that hand (``already_recorded``) but counted as a
    new one (before the seventy-fourth session a photo of the next hand, two tiles from
    the last and won by another seat, was never recorded). A frame that says nothing of
    the win keys as the hand alone, as before.

    >>> frame_key("123m456m789m123p55p", HandReport(winner="W", discarder="N"))
    '123m456m789m123p55p|W>N'
    """
    claim = win_claim(report)
    return f"{key}{CLAIM_MARK}{claim}" if claim else key


def _key_parts(key: str) -> tuple[str, str, str]:
    """``(hand key, winner, how)`` of a :func:`frame_key` (empty where not said)."""
    hand, _, claim = key.partition(CLAIM_MARK)
    winner, _, how = claim.partition(">")
    return hand, winner.strip("?"), how.strip("?")


def claims_agree(a: str, b: str) -> bool:
    """Whether two frame keys' win claims may be one win: neither names another winner,
    nor another way of winning (another discarder, or a self-draw against a discard)
    than the other does; one that says nothing agrees with any.

    >>> claims_agree("X|E>S", "X|E>?"), claims_agree("X|E>S", "X"), claims_agree(
    ...     "X|E>S", "X|W>N"), claims_agree("X|E>*", "X|E>S")
    (True, True, False, False)
    """
    _, wa, ha = _key_parts(a)
    _, wb, hb = _key_parts(b)
    return not (wa and wb and wa != wb) and not (ha and hb and ha != hb)


def same_hand(a: str, b: str) -> bool:
    """The camera's ``same`` test: the same hand key, and win claims that agree."""
    return _key_parts(a)[0] == _key_parts(b)[0] and claims_agree(a, b)


def near_hand(a: str, b: str) -> bool:
    """The camera's ``near`` test: hand keys a re-read apart
    (:func:`tilecam.tables.scoring_bridge.reread_of`), and win claims that agree."""
    return claims_agree(a, b) and reread_of(_key_parts(a)[0], _key_parts(b)[0])


@dataclass(frozen=True)
class FrameResult:
    """The answer to one frame: ``status`` is ``waiting``, ``recorded`` (this frame
    recorded the hand), ``already_recorded`` or ``stale`` (its ``seq`` not after the last
    frame counted: :func:`is_stale`; it counted for nothing); ``streak``/``needed`` frames;
    ``complete``: the frame showed a complete hand (one the recognizer called complete
    and whose notation parses)."""

    status: str
    streak: int
    needed: int
    hand_text: str | None
    complete: bool
    recorded: sheet.Recorded | None = None
    hand_number: int | None = None
    #: Why the recording frame's image was not kept (a full disk, an unwritable data
    #: folder): the hand is recorded without it. None when kept or not to be kept.
    image_error: str | None = None
    #: What the frame showed of the table: ``tiles``; with none, ``table`` (the surface
    #: learned around its tiles: the table seen empty), ``unlearned`` (no surface learned
    #: yet: taken for the table seen empty, as before), ``elsewhere`` (a lit view of
    #: something else: not the table), ``unreadable`` (the table's part too dark for a
    #: colour) or ``dark``; the last three count neither as the table seen empty nor as a
    #: frame without a hand. None: a frame with no tiles whose surface was not measured.
    view: str | None = None
    #: :attr:`view` in words, with the figures it was judged by.
    view_note: str | None = None
    #: With ``recorded``/``already_recorded``: hand :attr:`hand_number` as the sheet has it
    #: now (its latest revision), beside :attr:`hand_text`, what this frame read.
    recorded_hand: str | None = None
    #: Only on the frame that held hand :attr:`hand_number` for a referee
    #: (:func:`tilecam.tables.sheet.hold_for_review`): the held revision's note.
    held_for_review: str | None = None
    #: The greatest ``seq`` the table's camera counted, after this frame (None: no frame
    #: with a ``seq`` yet).
    last_seq: int | None = None


def _stale(table_id: int, seq: int, last_seq: int, streak: int, needed: int) -> FrameResult:
    """The answer to a stale frame (:func:`is_stale`): the camera's run as it stands."""
    return FrameResult("stale", streak, needed, None, False, view_note=(
        f"frame seq {seq} is not after the last frame counted (seq {last_seq}): a frame "
        "sent again or delivered late, it counted for nothing; a camera that started its "
        f"count again says so with POST /v1/tables/{table_id}/camera/restart"),
        last_seq=last_seq)


def restart_seq(sf: sessionmaker[Session], table_id: int) -> int | None:
    """Forget the last frame ``seq`` the table's camera counted (:attr:`Memory.last_seq`),
    so that its next frame counts whatever its ``seq``: a camera that restarted and counts
    from 0 again, or whose clock went back, or a table stuck behind a ``seq`` sent by
    mistake (every later frame was answered ``stale``). Nothing else of the camera's
    memory changes: a hand it recorded is still known, so a restart does not let that
    hand's frames record it again. Returns the ``seq`` forgotten (None: there was none).
    :class:`tilecam.tables.sheet.NotFound` for no such table."""

    def work(session: Session) -> int | None:
        sheet.get_table(session, table_id)
        state = sheet.camera_state(session, table_id)
        memory = Memory.from_text(state.recorded_signature)
        forgotten, memory.last_seq = memory.last_seq, None
        state.recorded_signature = memory.to_text()
        return forgotten

    return sheet.transaction(sf, work)


def stale_frame(sf: sessionmaker[Session], table_id: int, seq: int | None,
                needed: int) -> FrameResult | None:
    """The answer to a frame numbered ``seq`` when it is stale (:func:`is_stale`) as the
    table's camera stands now, read without a lock — so that a stale frame is not read
    (recognition is the costly part); :func:`process_frame` asks again under the camera's
    lock. None: not stale (or no ``seq``)."""
    if seq is None:
        return None
    with sf() as session:
        state = session.scalar(select(CameraState).where(CameraState.table_id == table_id))
        if state is None:
            return None
        last = Memory.from_text(state.recorded_signature).last_seq
        if last is None or not is_stale(seq, last):
            return None
        return _stale(table_id, seq, last, int(state.streak or 0), needed)


@dataclass
class Memory:
    """What a table's camera remembers of the hands on the sheet between frames, kept as
    JSON in ``camera_states.recorded_signature`` (:meth:`to_text`; a value stored before
    the seventy-fourth session, one key, reads as one hand of unknown number)."""

    #: every hand the camera took as recorded since the table was last seen cleared: its
    #: frame key (:func:`frame_key`) and its number on the sheet (None: not known)
    hands: list[tuple[str, int | None]] = field(default_factory=list)
    #: how many hands the sheet held when the camera last saw the table cleared: the hands
    #: after them are this one's, whoever recorded them; None: never seen cleared (only the
    #: sheet's last hand may be this one's)
    cleared_after: int | None = None
    #: (hand number, frame key) of each reading a hand was held for a referee for
    held: list[tuple[int, str]] = field(default_factory=list)
    #: the greatest ``seq`` of the frames the camera counted (:func:`is_stale`); None: no
    #: frame with a ``seq`` yet
    last_seq: int | None = None

    @classmethod
    def from_text(cls, text: str | None) -> Memory:
        """The memory stored as ``text`` (:meth:`to_text`, or an older single key).

        >>> Memory.from_text('123m456m789m123p55p|E>S').hands
        [('123m456m789m123p55p|E>S', None)]
        >>> m = Memory([("A|E>S", 1), ("B", 2)], 0, [(1, "A2|E>S")], last_seq=7)
        >>> Memory.from_text(m.to_text()) == m
        True
        """
        if not text:
            return cls()
        if not text.startswith("{"):  # one key, as stored before (hand notation)
            return cls([(text, None)])
        try:
            data = json.loads(text)
            hands = [(str(k), None if n is None else int(n)) for k, n in data["hands"]]
            held = [(int(n), str(k)) for n, k in data.get("held", [])]
            after = data.get("cleared_after")
            seq = data.get("seq")
            return cls(hands, None if after is None else int(after), held,
                       None if seq is None else int(seq))
        except (ValueError, TypeError, KeyError) as exc:
            log.warning("tilecam: a camera's remembered hands do not read (%s): forgotten",
                        exc)
            return cls()

    def to_text(self) -> str | None:
        """The memory as stored (None when there is nothing to remember)."""
        if (not self.hands and self.cleared_after is None and not self.held
                and self.last_seq is None):
            return None
        data: dict[str, Any] = {"v": 1, "hands": [list(h) for h in self.hands],
                                "cleared_after": self.cleared_after,
                                "held": [list(h) for h in self.held]}
        if self.last_seq is not None:  # an older tilecam reads past it
            data["seq"] = self.last_seq
        return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


#: The greatest frame ``seq`` taken (a signed 64-bit integer, as JSON and the databases
#: keep it exactly): milliseconds since 1970 fit it for millions of years.
MOST_SEQ = 2**63 - 1


def is_stale(seq: int | None, last_seq: int | None) -> bool:
    """Whether a frame numbered ``seq`` by its camera is stale: not after the last frame
    the table's camera counted (``last_seq``, :attr:`Memory.last_seq`) — a frame sent
    again after its answer was lost, or one a store-and-forward camera delivers late.
    Such a frame counts for nothing: not in the run of frames of a hand, not as the
    table seen cleared (until the seventy-seventh session a hand's frames delivered after
    the clear recorded, and paid, the hand a second time). A frame without ``seq``, or the
    first with one, is never stale.

    >>> is_stale(5, 7), is_stale(7, 7), is_stale(8, 7), is_stale(None, 7), is_stale(0, None)
    (True, True, False, False, False)
    """
    return seq is not None and last_seq is not None and seq <= last_seq


def _sheet_hand(hands: Sequence[Hand], key: str, rules: str,
                cleared_after: int | None, gap: bool) -> int | None:
    """The number of the hand on the sheet that a frame's ``key`` shows, among those
    recorded since the table was last seen cleared (``cleared_after``; never seen cleared:
    the sheet's last hand alone) by any source — a referee's, an automatic table's, a
    photo's, or the camera's own as a referee corrected it — that count (not voided, not
    ruled a false claim: a referee's word that the hand scores nothing, which a camera
    still showing the tiles does not undo): the same hand (its tiles as
    the rules score them, a win claim that agrees), or its tiles read otherwise (within
    :data:`~tilecam.tables.scoring_bridge.REREAD_TILES`) — for a hand the camera did not
    record, always; for the camera's own, only with no ``gap`` since (as
    :func:`tilecam.tables.stability.step` judges its own records). None: no such hand."""
    first = len(hands) if cleared_after is None else cleared_after + 1
    for hand in reversed(hands[max(first, 1) - 1:]):
        rev = hand.revisions[-1]
        if not rev.hand_text or rev.outcome in ("void", "false_claim"):
            continue  # no hand, or one that counts for nothing (a referee's void or ruling)
        try:
            theirs = frame_key(score_key(rev.hand_text, rules, rev.context), report_of(rev))
        except ValueError:  # a stored hand the rules no longer parse: not this one
            continue
        if same_hand(key, theirs):
            return int(hand.number)
        if (hand.source != "camera" or not gap) and near_hand(key, theirs):
            return int(hand.number)
    return None


def _shown_number(session: Session, table_id: int, numbers: Mapping[str, int | None],
                  key: str) -> int | None:
    """The number of the recorded hand a frame was taken for (its ``key``, which the camera
    remembers with the number: ``numbers``) — not the sheet's last hand, nor the camera's
    last one: a still hand seen again after a misreading recorded as another is the first
    hand. A key remembered without a number (stored before the seventy-fourth session):
    the camera's last hand, as answered then (:func:`tilecam.tables.sheet.last_camera_number`)."""
    number = numbers.get(key)
    return number if number is not None else sheet.last_camera_number(session, table_id)


def process_frame(
    sf: sessionmaker[Session],
    table_id: int,
    reading: FrameReading,
    image: bytes,
    needed: int,
    report: HandReport,
    data_dir: Path,
    store: bool = True,
    review_below: float = 0.0,
    seq: int | None = None,
) -> FrameResult:
    """Advance the table's camera with one frame; record the hand when it is revealed.

    ``seq``: the frame's number from its camera (None: not numbered). A frame whose
    ``seq`` is not after the greatest one counted is ``stale`` (:func:`is_stale`) and
    changes nothing; otherwise it becomes the greatest.

    ``report`` carries what came with the frame (winner, discarder, win flags); its
    hand is replaced by the recognized one, parsed as the table's rules read it under the
    frame's context (:func:`tilecam.tables.scoring_bridge.normalize_hand`: a Xiamen
    gold's stand-ins). ``image`` is the frame as sent; with ``store`` it is kept as the
    recorded hand's image reference, under a name that ends as its format (``.jpg``,
    ``.png`` …: :data:`PHOTO_SUFFIX`). A win read with a score confidence under
    ``review_below`` is recorded ``pending`` for a referee.

    A hand is recorded once, whoever records it: a frame whose hand is one of the hands
    the camera recorded since the table was last seen cleared (:class:`Memory`), or one
    on the sheet since then (posted by a referee, an automatic table or a photo while
    the camera was part-way through its frames: :func:`_sheet_hand`, read under the
    sheet's lock in the transaction that would record it), is answered
    ``already_recorded`` with that hand's number. When the camera reads a hand it
    recorded otherwise (within a few tiles of it, no gap since) for ``needed`` frames in
    a row, the record is held for a referee
    (:func:`tilecam.tables.sheet.hold_for_review`), once for each such reading.
    """
    from vision.imageio import sniff_format

    suffix = PHOTO_SUFFIX.get(sniff_format(image) or "", ".jpg")
    rel = Path("frames") / f"table-{table_id}" / f"{uuid.uuid4().hex}{suffix}"
    target = data_dir / rel
    wrote = False

    def work(session: Session) -> FrameResult:
        nonlocal wrote
        table = sheet.get_table(session, table_id)
        rules = str(table.rules)
        # the hand as the table's rules read it under the frame's context (a Xiamen meld
        # of the gold's kind is 白板 standing in)
        hand_text = None
        if reading.hand:
            try:
                hand_text = normalize_hand(reading.hand, rules, report.context)
            except ValueError:
                hand_text = None  # the recognizer's hand does not parse: not a hand this frame
        complete = reading.complete and hand_text is not None
        # frames are alike when the score is: a flower read 2f in one and 7f in the next
        # is one hand under MCR (scoring_bridge.score_key), recorded once
        # … and carry what the frame says of the win, which a recorded hand must agree with
        key = (frame_key(score_key(hand_text, rules, report.context), report)
               if hand_text is not None else None)
        state = sheet.camera_state(session, table_id)
        memory = Memory.from_text(state.recorded_signature)
        if seq is not None and memory.last_seq is not None and is_stale(seq, memory.last_seq):
            return _stale(table_id, seq, memory.last_seq, int(state.streak or 0), needed)
        if seq is not None:
            memory.last_seq = seq
        seen, state.surface = _look(state.surface, reading)
        shows = reading.view if seen is None or seen.view == TILES else seen.shows_table
        frame = Reading(key, complete, reading.tiles, shows)
        view, note = (seen.view, seen.note) if seen is not None else (None, None)
        numbers = dict(memory.hands)
        gap = (state.quiet_streak or 0) >= needed  # the hand put away since the last record
        watch = Watch(signature=state.signature, streak=state.streak,
                      empty_streak=state.empty_streak, recorded=[k for k, _ in memory.hands],
                      frames_seen=state.frames_seen, quiet_streak=state.quiet_streak or 0)
        watch, decision = step(watch, frame, needed, near=near_hand, same=same_hand)
        if watch.empty_streak >= needed:  # the table seen cleared: later hands are new
            memory.cleared_after = sheet.last_number(session, table_id)
            memory.held = []
        number: int | None = None
        held: str | None = None
        if decision == "record":
            assert key is not None
            sheet.lock_sheet(session, table_id)  # as a hand posted now would take it
            number = _sheet_hand(sheet.hands_of(session, table_id), key, rules,
                                 memory.cleared_after, gap)
            if number is not None:  # recorded by another (a referee …) meanwhile
                decision = "recorded"
        elif decision == "recorded":
            assert watch.matched is not None
            number = _shown_number(session, table_id, numbers, watch.matched)
            if (watch.differs and watch.streak >= needed and number is not None
                    and hand_text is not None and key is not None
                    and (number, key) not in memory.held):
                memory.held = [*memory.held, (number, key)][-MOST_REMEMBERED:]
                apart = tiles_apart(_key_parts(key)[0], _key_parts(watch.matched)[0])
                held = sheet.hold_for_review(
                    session, table, number, hand_text,
                    f"after recording this hand the camera read its tiles as {hand_text} "
                    f"for {watch.streak} frames in a row ({apart} tile"
                    f"{'' if apart == 1 else 's'} apart)")

        def remember(key_: str | None, number_: int | None) -> None:
            if key_ is not None and number_ is not None:
                numbers[key_] = number_
            memory.hands = [(k, numbers.get(k)) for k in watch.recorded]
            state.recorded_signature = memory.to_text()
            state.signature, state.streak = watch.signature, watch.streak
            state.empty_streak = watch.empty_streak
            state.frames_seen, state.quiet_streak = watch.frames_seen, watch.quiet_streak
            from tilecam.db.models import utcnow

            state.updated_at = utcnow()

        if decision != "record":
            status = "already_recorded" if decision == "recorded" else "waiting"
            remember(key, number)
            session.flush()
            return FrameResult(status, watch.streak, needed, hand_text, complete,
                               hand_number=number, view=view, view_note=note,
                               recorded_hand=(None if number is None else
                                              sheet.current_text(session, table_id, number)),
                               held_for_review=held, last_seq=memory.last_seq)
        image_error = _keep(target, image, table_id, "the frame image") if store else None
        wrote = store and image_error is None
        full = replace(report, hand=hand_text, recognized=dict(reading.recognized),
                       image_ref=rel.as_posix() if wrote else None)
        recorded = sheet.insert_hand(session, table, full, "camera", "camera",
                                     review_below=review_below)
        remember(key, recorded.hand.number)
        session.flush()
        return FrameResult("recorded", watch.streak, needed, hand_text, complete, recorded,
                           recorded.hand.number, image_error, view, note,
                           recorded_hand=recorded.revision.hand_text,
                           last_seq=memory.last_seq)

    try:
        return sheet.transaction(sf, work)
    except BaseException:
        if wrote:
            target.unlink(missing_ok=True)
        raise


class AlreadyRecorded(sheet.Conflict):
    """A photo — or a table's hand posted without ``number`` (:func:`record_posted_hand`)
    — shows a hand already on the sheet (:func:`photo_shows`), or a second win of the deal
    (:func:`photo_deal_hand`): nothing is recorded (answered 409 ``already_recorded``, the
    message naming the hand)."""

    def __init__(self, message: str, number: int, recorded_hand: str | None) -> None:
        super().__init__(message, "already_recorded")
        self.number = number
        self.recorded_hand = recorded_hand


#: Who recorded a hand, by its ``source``, in an ``already_recorded`` answer's words.
RECORDED_BY = {"camera": "by the table's camera", "photo": "from a photo",
               "table": "by the table", "referee": "by a referee"}


def _cleared_after(session: Session, table: GameTable) -> int | None:
    """:attr:`Memory.cleared_after` of ``table``'s camera (None: no camera, or one that
    never saw the table cleared) — read, not locked nor made: a frame locks its camera's
    state before the sheet."""
    state = session.scalar(select(CameraState).where(CameraState.table_id == table.id))
    return None if state is None else Memory.from_text(state.recorded_signature).cleared_after


def photo_shows(hands: Sequence[Hand], key: str, rules: str,
                cleared_after: int | None) -> Hand | None:
    """The hand among ``hands`` (the sheet's, read by the caller under the sheet's lock in
    the transaction that would record the photo) a photo's reading shows, if any (``key``:
    its :func:`frame_key`, the tiles parsed as the table's ``rules`` read them, with the
    photo's fields) — the camera's own rule (:func:`_sheet_hand`): among the hands since
    the table's camera last saw it cleared (``cleared_after``, :func:`_cleared_after`; a
    table without a camera, or whose camera never saw it cleared: the sheet's last hand
    alone), one that counts (not voided, not
    ruled a false claim) whose tiles are the photo's as the rules score them, or within
    :data:`~tilecam.tables.scoring_bridge.REREAD_TILES` of them, with a win claim that
    agrees. A camera's hand within those tiles counts whatever the camera saw since (no
    ``gap``): a phone held over the table to take the photo hides the hand from the
    camera, which is no sign that it was put away. None: a hand of its own — or, where
    the table was seen cleared, a second win of the deal (:func:`photo_deal_hand`)."""
    number = _sheet_hand(hands, key, rules, cleared_after, gap=False)
    return None if number is None else hands[number - 1]


@dataclass(frozen=True)
class DealHand:
    """The win already recorded in the deal a photo would win again
    (:func:`photo_deal_hand`): the hand, how many tiles its tiles and the photo's are
    apart as the rules score them (:func:`~tilecam.tables.scoring_bridge.tiles_apart`),
    and whether their win claims agree (:func:`claims_agree`)."""

    hand: Hand
    apart: int
    agrees: bool


def photo_deal_hand(hands: Sequence[Hand], key: str, rules: str,
                    cleared_after: int | None) -> DealHand | None:
    """The win a photo's complete hand (``key`` as :func:`photo_shows` takes it) would be
    a second one of, in one deal: where the table's camera has seen it cleared
    (``cleared_after``, :attr:`Memory.cleared_after`), a hand recorded
    since — by the camera, a photo, a referee or the table — that stands (not voided, not
    ruled a false claim; the hand's tiles on the sheet), with no drawn deal recorded after
    it (which says a deal ended since). Asked when the photo shows none of them
    (:func:`photo_shows`): its reading is more than
    :data:`~tilecam.tables.scoring_bridge.REREAD_TILES` tiles from each, or its win claim
    contradicts theirs. Under every rule set here a deal has one win (MCR's 截和 and
    Zhenjiang's 无一炮双响 give a discard to one claimant; a Xiamen win ends the deal),
    so a second complete hand before the table is seen cleared is far likelier that
    hand misread (glare, a bad photo) than a new one. Of several, the nearest in tiles,
    the latest of those as near. None where no hand stands since the table was seen
    cleared, or where its camera never saw it cleared, or there is no camera: there no
    deal's end is seen, and a far reading is taken for a new hand, as the camera takes
    its own (:mod:`tilecam.tables.stability`)."""
    if cleared_after is None:
        return None
    best: DealHand | None = None
    for hand in reversed(hands[max(cleared_after, 0):]):
        rev = hand.revisions[-1]
        if rev.outcome in ("void", "false_claim"):
            continue  # counts for nothing: a referee's void or ruling (the hand plays on)
        if (rev.outcome == "pending" and rev.legal is False
                and str(hand.source) not in sheet.READ_FROM_IMAGES):
            # a declared win the scorer finds none (错和/诈和, 诈胡), posted by the table
            # or a referee and awaiting the ruling: the deal plays on (or, Xiamen, is
            # dealt again), so it is no win of the deal; a reading of a camera's or a
            # photo's refused for its context may be this win misread, and counts
            continue
        if rev.outcome == "draw" or not rev.hand_text:
            break  # a drawn deal recorded since: the hands before it were earlier deals'
        try:
            theirs = frame_key(score_key(rev.hand_text, rules, rev.context), report_of(rev))
        except ValueError:  # a stored hand the rules no longer parse: not compared
            continue
        apart = tiles_apart(_key_parts(key)[0], _key_parts(theirs)[0])
        if best is None or apart < best.apart:
            best = DealHand(hand, apart, claims_agree(key, theirs))
    return best


def _won(told: HandReport) -> str:
    """How a hand was won, as an ``already_recorded`` message puts it after its tiles
    (``, won by S off E``; empty where the report says nothing of it).

    >>> _won(HandReport(winner="S", discarder="E")), _won(HandReport(self_drawn=True))
    (', won by S off E', ' self-drawn')
    """
    return (f", won by {told.winner}" if told.winner else "") + (
        " self-drawn" if told.self_drawn else f" off {told.discarder}" if told.discarder
        else "")


def _already_recorded(table: GameTable, shown: Hand, hand_text: str) -> AlreadyRecorded:
    """The refusal of a photo that shows hand ``shown`` (:func:`photo_shows`)."""
    rev = shown.revisions[-1]
    by = RECORDED_BY.get(str(shown.source), f"by {shown.source}")
    seen = "" if rev.hand_text == hand_text else f"; the photo reads {hand_text}"
    return AlreadyRecorded(
        f"the photo shows hand {shown.number} of table {table.id}, already recorded {by} "
        f"({rev.hand_text}{_won(report_of(rev))}{seen}): nothing was recorded. If it is a "
        "new hand with the same tiles, send the photo again with new_hand=true",
        int(shown.number), rev.hand_text)


#: Who recorded a hand, by its ``source``, as the subject of a second win's refusal.
RECORDER = {"camera": "the table's camera", "photo": "a photo", "table": "the table",
            "referee": "a referee"}


def _how_far(deal: DealHand) -> str:
    """How far a second win's reading is from the deal's hand, in a refusal's words
    ("the same tiles", "3 tiles apart, won otherwise" …)."""
    apart = ("the same tiles" if deal.apart == 0 else
             f"{deal.apart} tile{'' if deal.apart == 1 else 's'} apart")
    return apart if deal.agrees else apart + ", won otherwise"


def _second_win(table: GameTable, deal: DealHand, hand_text: str,
                report: HandReport) -> AlreadyRecorded:
    """The refusal of a photo that would be a second win of the deal
    (:func:`photo_deal_hand`)."""
    shown = deal.hand
    rev = shown.revisions[-1]
    who = RECORDER.get(str(shown.source), str(shown.source))
    apart = _how_far(deal)
    # the tiles are a referee's, not the recorder's (a later reseat keeps them)
    corrected = any(r.action == "correct" for r in shown.revisions)
    return AlreadyRecorded(
        f"{who} recorded hand {shown.number} of table {table.id} ({rev.hand_text}"
        f"{_won(report_of(rev))}{', as a referee corrected it' if corrected else ''}) "
        f"since the table was last seen cleared; this photo reads {hand_text}"
        f"{_won(report)}, {apart}: nothing was recorded (one deal has one win) — if it is "
        "a new hand, post it with new_hand=true"
        f"{'' if corrected else '; to fix the recorded hand, a referee corrects it'}",
        int(shown.number), rev.hand_text)


@dataclass(frozen=True)
class PhotoResult:
    """A hand recorded from one photo (:func:`record_photo`): the hand (``created`` False
    for a repeat of a hand recorded with that ``number``), and why the photo was not kept
    where it could not be (the hand is recorded without it)."""

    recorded: sheet.Recorded
    image_error: str | None = None


#: The file name ending a photo or a camera frame is kept under, by the format its header
#: names (:func:`vision.imageio.sniff_format`).
PHOTO_SUFFIX = {"jpeg": ".jpg", "png": ".png", "webp": ".webp", "bmp": ".bmp",
                "tiff": ".tif"}


def record_photo(
    sf: sessionmaker[Session],
    table_id: int,
    reading: FrameReading,
    image: bytes,
    image_format: str,
    report: HandReport,
    data_dir: Path,
    *,
    source: str,
    author: str,
    number: int | None = None,
    store: bool = True,
    review_below: float = 0.0,
    new_hand: bool = False,
) -> PhotoResult:
    """Record the hand one photo shows (``POST /v1/tables/{id}/photos``): read once, no
    run of frames, in one transaction with the photo kept under ``data_dir/frames/`` as
    its image reference (``store``). ``reading`` must be a complete hand (the route
    refuses a photo without one). ``number`` makes a re-send idempotent as a posted hand's
    (:func:`tilecam.tables.sheet.insert_hand`: the same hand again is answered with the
    one recorded, and its photo is not kept twice; other content is a conflict). A win
    read unsure is recorded pending for a referee, as a camera's is
    (:data:`tilecam.tables.sheet.READ_FROM_IMAGES`). The camera's frames are left as they
    were: a table's camera and photos of it do not mix their runs.

    A photo of a hand already on the sheet — the camera's, a referee's, the table's, an
    earlier photo's (a phone re-sending it without ``number``) — is not recorded again:
    :class:`AlreadyRecorded` naming it (:func:`photo_shows`), nothing written, the photo
    not kept; and nor is, where the camera has seen the table cleared, a photo of another
    complete hand while one recorded since then stands — a second win of one deal,
    :class:`AlreadyRecorded` naming the recorded hand and how far apart the two read
    (:func:`photo_deal_hand`). ``new_hand`` records it all the same (a new hand). A
    ``number`` already on the sheet is left to :func:`tilecam.tables.sheet.insert_hand`
    (the re-send answered with the hand, or a conflict). A new hand at a table that
    records none — closed, withdrawn (:func:`tilecam.tables.sheet.refuse_closed`) or its
    session over — is that :class:`~tilecam.tables.sheet.Conflict` before any
    ``already_recorded``, whose advice (``new_hand``) could not help there."""
    assert reading.hand is not None
    suffix = PHOTO_SUFFIX.get(image_format.lower(), ".img")
    rel = Path("frames") / f"table-{table_id}" / f"photo-{uuid.uuid4().hex}{suffix}"
    target = data_dir / rel
    wrote = False

    def work(session: Session) -> PhotoResult:
        nonlocal wrote
        table = sheet.get_table(session, table_id)
        # parsed as the table's rules read it (a Xiamen gold's stand-ins)
        hand_text = normalize_hand(str(reading.hand), str(table.rules), report.context)
        sheet.lock_sheet(session, table_id)  # before the sheet's hands are counted
        if number is None or number > sheet.last_number(session, table_id):  # a new hand
            # a closed or withdrawn table's 409 first: already_recorded's "send it again
            # with new_hand=true" would only meet it next (review of session 75)
            sheet.refuse_closed(session, table)
            hands = sheet.hands_of(session, table_id)
            shown: Hand | None = None
            deal: DealHand | None = None
            if not new_hand:  # the photo's reading, and the camera's clear, read once
                rules = str(table.rules)
                key = frame_key(score_key(hand_text, rules, report.context), report)
                cleared_after = _cleared_after(session, table)
                shown = photo_shows(hands, key, rules, cleared_after)
                if shown is None:
                    deal = photo_deal_hand(hands, key, rules, cleared_after)
            if shown is not None or deal is not None:
                # a session over records no new hand either: say so, not new_hand=true
                sheet.refuse_no_place(table, hands)
                if shown is not None:
                    raise _already_recorded(table, shown, hand_text)
                assert deal is not None
                raise _second_win(table, deal, hand_text, report)
        image_error = _keep(target, image, table_id, "the photo") if store else None
        wrote = store and image_error is None
        full = replace(report, hand=hand_text, recognized=dict(reading.recognized),
                       image_ref=rel.as_posix() if wrote else None)
        recorded = sheet.insert_hand(session, table, full, source, author, number,
                                     review_below=review_below)
        if not recorded.created:  # a repeat: the hand keeps its first photo
            if wrote:
                target.unlink(missing_ok=True)
            wrote, image_error = False, None
        session.flush()
        return PhotoResult(recorded, image_error)

    try:
        return sheet.transaction(sf, work)
    except BaseException:
        if wrote:
            target.unlink(missing_ok=True)
        raise



class SettingsRefused(sheet.Conflict):
    """A table whose stored settings the scorer refuses
    (:func:`tilecam.tables.sheet.refused_settings`: Xiamen ``chip_stack`` 0, stored before
    the seventy-fifth session) can record no win: a camera frame, a photo or a posted win
    there is refused at once (answered 409 ``table_settings_refused``), before its image
    is read — the fault is the table's, not the frame's, and the same for every frame."""

    def __init__(self, message: str) -> None:
        super().__init__(message, "table_settings_refused")


def refuse_settings(table: GameTable, done: str) -> None:
    """:class:`SettingsRefused` when the scorer refuses ``table``'s stored settings as the
    sheet scores a win under them, saying ``done`` (``"this camera frame was not read"``
    …) and what a referee can do (:func:`tilecam.tables.sheet.refused_settings`: a
    table's settings cannot be changed — ``PATCH`` takes its name, players and
    ``withdrawn`` only)."""
    # as a posted win is checked: the table's version before a settings version stored
    # beside it (sheet.scored_settings)
    if (refused := sheet.refused_settings(table)) is not None:
        raise SettingsRefused(f"{done}: {refused}")


def _posted_shows(table: GameTable, shown: Hand, hand_text: str) -> AlreadyRecorded:
    """The refusal of a hand posted without ``number`` that is hand ``shown``
    (:func:`photo_shows`)."""
    rev = shown.revisions[-1]
    by = RECORDED_BY.get(str(shown.source), f"by {shown.source}")
    seen = "" if rev.hand_text == hand_text else f"; the post gives {hand_text}"
    return AlreadyRecorded(
        f"the hand posted without number is hand {shown.number} of table {table.id}, "
        f"already recorded {by} ({rev.hand_text}{_won(report_of(rev))}{seen}): nothing was "
        f"recorded. Post it with number={shown.number} to be answered with that record, "
        "or, if it is a new hand with the same tiles, with new_hand=true",
        int(shown.number), rev.hand_text)


def _posted_second_win(table: GameTable, deal: DealHand, hand_text: str,
                       report: HandReport) -> AlreadyRecorded:
    """The refusal of a hand posted without ``number`` that would be a second win of the
    deal (:func:`photo_deal_hand`)."""
    shown = deal.hand
    rev = shown.revisions[-1]
    who = RECORDER.get(str(shown.source), str(shown.source))
    apart = _how_far(deal)
    return AlreadyRecorded(
        f"{who} recorded hand {shown.number} of table {table.id} ({rev.hand_text}"
        f"{_won(report_of(rev))}) since the table was last seen cleared; the hand posted "
        f"without number gives {hand_text}{_won(report)}, {apart}: nothing was recorded "
        f"(one deal has one win). Post it with number={shown.number} if it is that hand "
        "(a referee corrects a record read wrong), or with new_hand=true if it is a new hand",
        int(shown.number), rev.hand_text)


def record_posted_hand(sf: sessionmaker[Session], table_id: int, report: HandReport,
                       source: str, author: str, number: int | None = None,
                       new_hand: bool = False) -> sheet.Recorded:
    """Record a hand posted in notation (``POST /v1/tables/{id}/hands``) in one
    transaction, as :func:`tilecam.tables.sheet.record_hand` does — and, for a win posted
    by the table's own key (``source`` ``table``) without ``number`` at a table with a
    camera, held to the rule a photo is held to (:func:`record_photo`): a hand on the
    sheet since the table was last seen cleared (:func:`photo_shows`) or, where the camera
    has seen it cleared, a second win of the deal (:func:`photo_deal_hand`) is
    :class:`AlreadyRecorded`, nothing written, unless ``new_hand``. Until the
    seventy-seventh session an automatic table posting, without ``number``, the hand its
    camera had recorded recorded (and paid) it twice. With ``number`` a re-send is
    answered with the record (idempotent, as before); a referee's post is his word and is
    not checked; a drawn hand has no tiles to compare. A win at a table whose stored
    settings the scorer refuses is :class:`SettingsRefused` first
    (:func:`refuse_settings`)."""

    if report.outcome != "win":
        return sheet.record_hand(sf, table_id, report, source, author, number)
    with sf() as session:  # what decides the way: read, not locked (neither goes back)
        table = sheet.get_table(session, table_id)
        if number is None or number > sheet.last_number(session, table_id):
            refuse_settings(table, "this win was not recorded")  # a re-send: as before
        state = session.scalar(select(CameraState).where(CameraState.table_id == table_id))
        has_camera = state is not None and bool(state.frames_seen)
    if not (has_camera and source == "table" and number is None and not new_hand
            and report.hand):
        return sheet.record_hand(sf, table_id, report, source, author, number)

    def work(session: Session) -> sheet.Recorded:
        table = sheet.get_table(session, table_id)
        refusal = _posted_again(session, table, report)
        # the post's own faults first (a hand the scorer refuses: 400; the table closed,
        # its session over: 409 conflict), as they are answered to a new hand
        recorded = sheet.insert_hand(session, table, report, source, author, number)
        if refusal is not None:
            raise refusal  # nothing written: the transaction is rolled back
        return recorded

    return sheet.transaction(sf, work)


def _posted_again(session: Session, table: GameTable,
                  report: HandReport) -> AlreadyRecorded | None:
    """The refusal of a win posted without ``number`` at a table with a camera (one that
    sent a frame) that is a hand on the sheet since the table was last seen cleared, or a
    second win of the deal (the photo rule: :func:`photo_shows`, :func:`photo_deal_hand`),
    read under the sheet's lock; None when it is neither, or its hand does not parse
    (:func:`tilecam.tables.sheet.insert_hand` refuses it). A table with no camera is not
    asked (:func:`record_posted_hand`): an automatic table alone may win with the same
    tiles two deals running, and its re-send is made safe by ``number``."""
    state = session.scalar(select(CameraState).where(CameraState.table_id == table.id))
    if state is None:  # pragma: no cover - a table is made with its camera's state
        return None
    rules = str(table.rules)
    try:
        hand_text = normalize_hand(str(report.hand), rules, report.context)
        key = frame_key(score_key(hand_text, rules, report.context), report)
    except ValueError:
        return None
    sheet.lock_sheet(session, table.id)  # before the sheet's hands are counted
    hands = sheet.hands_of(session, table.id)
    cleared_after = Memory.from_text(state.recorded_signature).cleared_after
    shown = photo_shows(hands, key, rules, cleared_after)
    if shown is not None:
        return _posted_shows(table, shown, hand_text)
    deal = photo_deal_hand(hands, key, rules, cleared_after)
    return None if deal is None else _posted_second_win(table, deal, hand_text, report)


def _keep(target: Path, image: bytes, table_id: int, what: str) -> str | None:
    """Write ``image`` (its bytes) to ``target``; None when kept, else why not — the hand
    matters more than its picture, so it is recorded all the same (logged)."""
    try:
        _write(target, image)
    except OSError as exc:
        why = f"{what} was not kept: {exc.strerror or exc}: {target}"
        log.warning("tilecam: table %d: %s", table_id, why)
        return why
    return None

def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    with open(tmp, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)
