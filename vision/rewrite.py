"""What a reading rule works with: the win it must reach and the rewrite it returns.

The rules of :func:`vision.recognize.recognize_detections` that change what was read —
taking weakly seen boxes (:mod:`vision.weak_boxes`), re-reading tiles as flowers
(:mod:`vision.flower_rereads`), leaving out, turning or splitting boxes
(:mod:`vision.tile_rereads`) — each try new detections and their layout and keep them only
when they pass a :class:`WinTest`; what they keep is a :class:`Rewrite`. The same win
asked again of the same tiles (a hand read twice, with and without kongs laid face up)
is answered from the corrections kept a moment (:class:`RecentCorrections`). The
helpers here move a tile's alternative reading to the front (:func:`promote`) and write
the corrections and notes of re-read tiles (:func:`rereads`).
"""

from __future__ import annotations

import functools
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from vision.correct import Correction, CorrectionResult, CorrectParams, correct
from vision.detections import Detections
from vision.layout import Layout

if TYPE_CHECKING:
    import numpy.typing as npt


@dataclass(frozen=True)
class WinTest:
    """What a rule that changes the tiles must reach: a **winning** corrected reading of
    exactly ``hand_size`` tiles under ``rules`` (:func:`vision.correct.correct` with the
    win claimed) that the scorer can take — not one whose kong is all face down with no
    kind given (a rule's guess must not end in "turn one tile face up") — and that
    overrides no more of what was read than a win may: at most ``max_ratio`` (default
    :attr:`CorrectParams.max_win_ratio`) times less probable than ``base_ratio()``, the
    ratio the hand *as laid out* needs to be physically possible (1 when its top-1 reading
    is; asked only when a win goes past ``max_ratio``). It is
    :func:`vision.correct.correct`'s own rule for a win, kept across the rule's new
    layout: the guess is made only so the hand wins, so codes its layout makes a physical
    necessity (a meld that is not a set until a surely read tile is read as another) count
    as forcing the win — the error a false win claim shows. ``melded_as``: the rules'
    stand-ins (:attr:`vision.layout.Layout.melded_as`), given to each rule's layout —
    :func:`vision.layout.analyze`'s own, which knows no rules — so that it reads a shown
    meld's tiles as the rules do (a Xiamen hand holding the four golds beside a chow
    ``[456m]`` of 4m 白板 6m, gold 5m, is no "5 copies of 5m")."""

    rules: str
    hand_size: int
    is_winning: Any
    hidden_kinds: Sequence[str] = ()
    base_ratio: Callable[[], float] = lambda: 1.0
    max_ratio: float = CorrectParams.max_win_ratio
    melded_as: tuple[tuple[str, str], ...] = ()

    def wins(self, dets: Detections, layout: Layout) -> CorrectionResult | None:
        """The correction of ``layout`` when its best reading is such a win, else None
        (the correction itself taken from :data:`CORRECTIONS` when the same question was
        asked a moment before)."""
        if self.melded_as:
            layout = replace(layout, melded_as=self.melded_as)
        if layout.tile_count != self.hand_size:
            return None
        result = CORRECTIONS.correct(dets, layout, self)
        if not result.best.winning:
            return None
        if result.best.ratio > self.max_ratio and (
            result.best.ratio > self.max_ratio * self.base_ratio()
        ):
            return None
        from scoring.hand import HandError

        try:
            layout.hand(result.best.codes, self.hidden_kinds)
        except HandError:
            return None
        return result


#: How many corrections :data:`CORRECTIONS` keeps, per thread: a reading asks a dozen
#: or so (each rule's tries), so the last reading's all stay while the one before is
#: being read again.
RECENT_CORRECTIONS = 64


class RecentCorrections:
    """The last :data:`RECENT_CORRECTIONS` corrections :meth:`WinTest.wins` ran in this
    thread, by what they were asked of, so that the same question asked again is not
    searched again. :func:`vision.recognize.recognize_detections` reads a hand over its
    size that holds four alike twice (without, then with, kongs laid as four face-up
    tiles), and each time its rules try the same re-readings: the same tiles read as
    flowers (:func:`vision.flower_rereads.reread_flower_runs`), the same layout, the same
    win claimed. Under Xiamen each such correction scores every reading it looks at
    (up to ``CorrectParams.max_readings``, and again by the tiles alone when none wins),
    so the second reading cost as much again: fuzz seed 177 item 838, 60 tiles, took
    ~3 s of CPU (seventy-eighth session).

    The key is everything :func:`vision.correct.correct` reads: the detections' codes,
    confidences and top-k (their bytes), the layout (its equality, and its
    ``melded_as``, which equality leaves out), the rules, the hand size, the kinds of
    hidden kongs and the win predicate (its ``key`` when it has one,
    :func:`vision.correct.winning_shape_check`; else the predicate itself) — so an answer
    kept is the answer the search would give. A question whose key cannot be hashed is
    searched each time."""

    def __init__(self, size: int = RECENT_CORRECTIONS) -> None:
        self.size = size
        self._local = threading.local()

    def _kept(self) -> OrderedDict[Any, CorrectionResult]:
        kept = getattr(self._local, "kept", None)
        if kept is None:
            kept = self._local.kept = OrderedDict()
        return kept

    def clear(self) -> None:
        """Forget this thread's corrections."""
        self._kept().clear()

    def correct(self, dets: Detections, layout: Layout, test: WinTest) -> CorrectionResult:
        """:func:`vision.correct.correct` of ``dets`` laid out as ``layout`` with the win
        of ``test`` claimed (its rules, hand size, predicate and hidden kongs), kept."""
        key = _question(dets, layout, test)
        kept = self._kept()
        if key is not None and key in kept:
            kept.move_to_end(key)
            return kept[key]
        result = correct(dets, layout, rules=test.rules, claim_win=True,
                         hand_size=test.hand_size, is_winning=test.is_winning,
                         hidden_kinds=test.hidden_kinds)
        if key is not None:
            kept[key] = result
            while len(kept) > self.size:
                kept.popitem(last=False)
        return result


def _question(dets: Detections, layout: Layout, test: WinTest) -> tuple[Any, ...] | None:
    """What :meth:`RecentCorrections.correct` keeps a correction by (see there), or None
    when it cannot be hashed."""
    arrays = tuple((a.dtype.str, a.shape, a.tobytes()) for a in (
        dets.class_ids, dets.confidences, dets.topk_ids, dets.topk_probs))
    check = getattr(test.is_winning, "key", None) or test.is_winning
    key = (arrays, layout, layout.melded_as, test.rules, test.hand_size,
           tuple(test.hidden_kinds), check)
    try:
        hash(key)
    except TypeError:
        return None
    return key


#: The corrections :meth:`WinTest.wins` asked for last (per thread).
CORRECTIONS = RecentCorrections()


def box_text(box: Any) -> str:
    """An xyxy box as notes write it, in whole pixels: ``"x1,y1,x2,y2"``.

    >>> box_text([10.4, 20.6, 39.5, 61.0])
    '10,21,40,61'
    """
    return ",".join(str(round(float(v))) for v in box)


@dataclass(frozen=True)
class Rewrite:
    """What a reading-changing rule made of the hand: the detections and their layout,
    the notes saying what it did, the tiles it re-read (listed with the corrections), and
    the winning correction it checked — the one the recognition then reports."""

    dets: Detections
    layout: Layout
    notes: tuple[str, ...]
    result: CorrectionResult
    changes: tuple[Correction, ...] = ()


def as_laid_ratio(
    dets: Detections, layout: Layout, rules: str, size: int, check: Any,
    hidden: Sequence[str],
) -> Callable[[], float]:
    """How many times less probable than the top-1 reading the most probable physically
    possible reading of ``layout`` is (:func:`vision.correct.correct`, no win claimed),
    worked out on the first call only (:attr:`WinTest.base_ratio`)."""

    @functools.cache
    def ratio() -> float:
        as_laid = correct(dets, layout, rules=rules, claim_win=False, hand_size=size,
                          is_winning=check, hidden_kinds=hidden)
        return as_laid.best.ratio

    return ratio


#: A tile is re-read (as a flower, or a back as a white dragon and back) only when that
#: reading is at most this many times less probable than its top reading (the
#: correction's ``max_win_ratio``).
REREAD_RATIO = 10.0


def index_of_box(dets: Detections, box: npt.NDArray[np.float32]) -> int:
    """The index of the detection with exactly this box, or -1."""
    hit = np.flatnonzero((dets.boxes == box).all(axis=1))
    return int(hit[0]) if len(hit) else -1


def rereads(
    dets: Detections, trial: Detections, picks: Sequence[tuple[float, int]], why: str,
    as_flower: bool = True,
) -> tuple[tuple[Correction, ...], tuple[str, ...]]:
    """The :class:`Correction` and the note of each re-read tile: ``picks`` are
    ``(probability of the new reading, tile)``, ``trial`` holds the new codes, ``why``
    ends each note."""
    changes = tuple(
        Correction(i, dets.codes[i], trial.codes[i], float(dets.topk_probs[i, 0]), pr)
        for pr, i in picks
    )
    notes = tuple(
        f"read tile {c.tile} ({c.before}, p {c.p_before:.2f}) as "
        + (f"a flower ({c.after}, p {c.p_after:.2f})" if as_flower
           else f"{c.after} (p {c.p_after:.2f})")
        + f": {why}"
        for c in changes
    )
    return changes, notes


def promote(dets: Detections, picks: Sequence[tuple[int, int]]) -> Detections:
    """``dets`` with, for each ``(tile, k)`` of ``picks``, the tile's k-th alternative
    moved to the front of its top-k (so it becomes the tile's code).

    >>> d = Detections.from_lists([(0, 0, 9, 12), (10, 0, 19, 12)], ["6p", "C"],
    ...                           topk=[[("6p", 0.6), ("9p", 0.3), ("2f", 0.1)], [("C", 1.0)]])
    >>> p = promote(d, [(0, 2)])
    >>> p.codes, [round(float(x), 1) for x in p.topk_probs[0]]
    (['2f', 'C'], [0.1, 0.6, 0.3])
    """
    ids, probs = dets.topk_ids.copy(), dets.topk_probs.copy()
    for i, j in picks:
        ids[i] = np.concatenate([ids[i, j:j + 1], np.delete(ids[i], j)])
        probs[i] = np.concatenate([probs[i, j:j + 1], np.delete(probs[i], j)])
    class_ids = dets.class_ids.copy()
    class_ids[[i for i, _ in picks]] = ids[[i for i, _ in picks], 0]
    return replace(dets, class_ids=class_ids, topk_ids=ids, topk_probs=probs)
