"""Boxes the detector scored under its threshold (``Detections.weak``), taken back by rule.

A weak box is taken as a tile only where the rules or the layout say one is: a hand short
of tiles that then wins (:func:`complete_from_weak`), a flower the layout lays among the
hand's flowers (:func:`take_weak_flowers`), a tile added to a claimed pung
(:func:`take_weak_added_tile`). :func:`below_threshold_as_weak` hands these rules the
flowers and face-down tiles a manifest kept from a lower score. Each rule is one step of
:func:`vision.recognize.recognize_detections`.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from vision.classes import BACK, BONUS, BONUS_IDS, CLASSES
from vision.detections import Detections
from vision.layout import (
    FLOWER,
    MELD,
    STANDING,
    WINNING,
    Layout,
    LayoutParams,
    analyze,
    bonus_alternative,
)
from vision.rewrite import Rewrite, WinTest, box_text, promote

if TYPE_CHECKING:
    import numpy.typing as npt


#: Most weakly seen tiles one hand may take (:func:`complete_from_weak`).
MAX_WEAK_TAKEN = 2


#: A weak box lying this much over a kept box of the same code (over the smaller area) is
#: a second look at that tile (:func:`second_look`).
SECOND_LOOK_COVER = 0.45


def second_look(weak: Detections, i: int, kept: Detections) -> bool:
    """Whether weak box ``i`` is a second look at a tile ``kept`` already holds: it lies
    :data:`SECOND_LOOK_COVER` or more over a kept box (over the smaller area) that reads
    the same code. Touching tiles overlap far less, except in rows tilted near 45°, where
    the axis-aligned boxes of neighbours overlap much — but a missed neighbour seldom
    reads the same face as the tile it overlaps (a real photo's missed tiles lay 70 % and
    85 % over their neighbours, read as other codes)."""
    from vision.postprocess import box_cover

    if not len(kept):
        return False
    same = kept.class_ids == weak.class_ids[i]
    return bool((same & (box_cover(weak.boxes[i], kept.boxes) >= SECOND_LOOK_COVER)).any())


def complete_from_weak(
    dets: Detections, layout: Layout, params: LayoutParams, test: WinTest
) -> Rewrite | None:
    """A hand short of tiles takes boxes the detector saw too weakly to keep, when the
    rules say so: a box of ``dets.weak`` is added only if the layout then puts it in the
    hand (not among other rows), and the additions end only in a **winning** reading with
    exactly ``test.hand_size`` tiles (the correction's best). Otherwise None: a hand that
    is short for real (waiting, or a tile hidden) is never filled by a guess. Candidates
    are tried best score first, at most :data:`MAX_WEAK_TAKEN`; a second look at a tile
    already seen (:func:`second_look`) is never taken. The rewrite's detections have the
    taken boxes appended after the others, and a note per taken tile."""
    weak = dets.weak
    hand_size = test.hand_size
    short = hand_size - layout.tile_count
    if weak is None or not len(weak) or not 1 <= short <= MAX_WEAK_TAKEN:
        return None
    base, lay, notes = dets, layout, []
    untried = [i for i in np.argsort(-weak.confidences, kind="stable").tolist()
               if not second_look(weak, i, dets)]
    while lay.tile_count < hand_size and untried:
        for j, i in enumerate(untried):
            trial = base.join(weak.select([i]))
            t_lay = analyze(trial, params)
            role = t_lay.roles(len(trial))[-1]
            if role in (STANDING, MELD, WINNING) and t_lay.tile_count == lay.tile_count + 1:
                notes.append(
                    f"took a weakly seen tile ({weak.codes[i]}, score "
                    f"{float(weak.confidences[i]):.2f}, box {box_text(weak.boxes[i])}) to "
                    "complete the hand"
                )
                base, lay = trial, t_lay
                del untried[j]
                break
        else:
            break
    result = test.wins(base, lay)
    return None if result is None else Rewrite(base, lay, tuple(notes), result)


#: Most weakly seen flowers one picture may take (:func:`take_weak_flowers`).
MAX_WEAK_FLOWERS = 4


def take_weak_flowers(
    dets: Detections, layout: Layout, params: LayoutParams
) -> tuple[Detections, Layout, tuple[str, ...]]:
    """Flowers the detector saw too weakly to keep: a box of ``dets.weak`` whose top-k
    holds a bonus code with probability at least ``params.flower_alt_p`` is added when the
    layout then lays it among the hand's flowers, where they lie already
    (:func:`_laid_with_the_flowers`: not alone beside a hand whose flowers lie elsewhere,
    as dice beside the row lie), and nothing else changes (the same tile count). A
    flower is never part of the hand's shape, so this needs no win; flowers of an
    unfamiliar set are what the detector scores lowest (on held-out art 17 of the 40
    scenes whose boxes miss a hand tile miss only a flower, and a weak box lies on it).
    A weak box lying :data:`WEAK_FLOWER_COVER` or more over a kept box is a second look at
    tiles already seen and never taken (a box straddling two flowers of the row read as a
    third) — unless it reads a flower for sure that none of the boxes it lies over reads
    (:func:`_beside_other_faces`: boxes of tiles laid touching in rows tilted well off
    the picture's edges lie that much over each other). So is one whose likeliest bonus
    code is a flower already kept and read at top-1 ≥ :data:`WEAK_FLOWER_SURE_P` (each
    flower shows once: a second look at it, or dice and discards). Best score first, at most
    :data:`MAX_WEAK_FLOWERS`; the taken boxes are appended after the others and leave
    ``weak``, with a note each. Returns the detections, their layout and the notes
    (unchanged and empty when none is taken)."""
    weak = dets.weak
    if weak is None or not len(weak):
        return dets, layout, ()
    shown = _surely_read_flowers(dets)  # kept, then also those taken here
    maybe = [
        i for i in np.argsort(-weak.confidences, kind="stable").tolist()
        if bonus_alternative(weak, i, params.flower_alt_p)
        and _likeliest_bonus(weak, i) not in shown
    ]
    taken: list[int] = []
    notes: list[str] = []
    kept = len(dets)  # the detector's kept boxes: those before the taken ones
    for i in maybe[: 2 * MAX_WEAK_FLOWERS]:
        if _likeliest_bonus(weak, i) in shown or (
                _over_kept(weak.boxes[i], dets) and not _beside_other_faces(weak, i, dets)):
            continue
        trial = dets.join(weak.select([i]))
        t_lay = analyze(trial, params)
        if (t_lay.roles(len(trial))[-1] != FLOWER or t_lay.tile_count != layout.tile_count
                or not _laid_with_the_flowers(layout, t_lay, len(trial) - 1, kept)):
            continue
        notes.append(
            f"took a weakly seen flower ({weak.codes[i]}, score "
            f"{float(weak.confidences[i]):.2f}, box {box_text(weak.boxes[i])})"
        )
        dets, layout = trial, t_lay
        shown = _surely_read_flowers(dets)
        taken.append(i)
        if len(taken) == MAX_WEAK_FLOWERS:
            break
    if taken:
        rest = np.ones(len(weak), bool)
        rest[taken] = False
        dets = replace(dets, weak=weak.select(rest))
    return dets, layout, tuple(notes)


def _laid_with_the_flowers(before: Layout, after: Layout, k: int, kept: int) -> bool:
    """Whether detection ``k``, laid among the flowers by ``after``, lies where the hand's
    flowers lie. A player lays all the flowers in one place: in line at the end of the
    hand's row, or in a row of flowers apart. So a weak box is laid with them when its row
    holds a tile the detector kept (a detection index below ``kept``) or a flower
    ``before`` lays already; a weak box in a row of its own is a flower only while
    ``before`` lays none (a lone flower set apart), not beside a hand whose flowers lie
    elsewhere — dice beside the row look like that (hk-photos val ``hand_052``: a die
    read 8f taken beside a hand whose 7f lay at the row's end)."""
    if not before.flowers:
        return True
    return any(k in row.detections
               and any(d != k and (d < kept or d in before.flowers) for d in row.detections)
               for row in after.rows)


#: A weak box lying this much over a kept box (over the smaller area) is a second look at
#: kept tiles, not a flower of its own (:func:`take_weak_flowers`).
WEAK_FLOWER_COVER = 0.55


#: A kept flower read at least this surely (top-1) is not taken a second time from a weak
#: box (:func:`take_weak_flowers`; on the training photos 5 copies gained, none lost).
WEAK_FLOWER_SURE_P = 0.9


def _beside_other_faces(weak: Detections, i: int, kept: Detections) -> bool:
    """Whether weak box ``i``, lying :data:`WEAK_FLOWER_COVER` or more over boxes of
    ``kept``, is a tile beside them rather than a second look at them: it reads a flower
    at top-1 ≥ :data:`WEAK_FLOWER_SURE_P`, and no box it lies that much over reads that
    flower. A second look at a tile reads that tile's face (as :func:`second_look` asks of
    weak tiles); the axis-aligned boxes of tiles laid touching in rows tilted well off
    the picture's edges lie over each other as much, and their faces differ (hk-photos
    val ``396293123…5040``, rows at 24°: a 5f lying 0.60 over the 6f beside it; training
    photos ``hand_024`` at 41° and ``hand_071`` at 33°: a 1f)."""
    from vision.postprocess import box_cover

    code = weak.codes[i]
    if code not in BONUS or float(weak.topk_probs[i, 0]) < WEAK_FLOWER_SURE_P:
        return False
    over = np.flatnonzero(box_cover(weak.boxes[i], kept.boxes) >= WEAK_FLOWER_COVER)
    return all(kept.codes[int(k)] != code for k in over)


def _surely_read_flowers(dets: Detections) -> set[str]:
    """The bonus codes of ``dets``' tiles read at top-1 ≥ :data:`WEAK_FLOWER_SURE_P`."""
    return {dets.codes[i] for i in range(len(dets))
            if dets.codes[i] in BONUS and float(dets.topk_probs[i, 0]) >= WEAK_FLOWER_SURE_P}


def _likeliest_bonus(dets: Detections, i: int) -> str | None:
    """The likeliest bonus code among tile ``i``'s top-k readings, or None."""
    for c in dets.topk_ids[i].tolist():
        if int(c) in BONUS_IDS:
            return CLASSES[int(c)]
    return None


def _over_kept(box: npt.NDArray[np.float32], dets: Detections) -> bool:
    """Whether ``box`` lies :data:`WEAK_FLOWER_COVER` or more over a box of ``dets``."""
    from vision.postprocess import box_cover

    return bool(len(dets) and float(box_cover(box, dets.boxes).max()) >= WEAK_FLOWER_COVER)


#: A weak box reading a claimed pung's kind at least this probably may be its added tile
#: (:func:`take_weak_added_tile`).
WEAK_ADDED_P = 0.1


def take_weak_added_tile(
    dets: Detections, layout: Layout, params: LayoutParams, test: WinTest
) -> Rewrite | None:
    """A tile added to a claimed pung (加杠) that the detector saw too weakly to keep: a box
    of ``dets.weak`` whose top-k gives the pung's kind at least :data:`WEAK_ADDED_P`, that
    is no second look at a tile already kept (:func:`second_look`), is taken — read as that
    kind — only if the layout then lays it on the pung's sideways tile as an added kong and
    the hand **wins** with exactly ``test.hand_size`` tiles (a kong counts 3, so the hand
    is not short without it: also when the reading as laid out wins). The box is appended
    after the others, with a note. Otherwise None."""
    weak = dets.weak
    if weak is None or not len(weak):
        return None
    codes = dets.codes
    for m in layout.melds:
        if (m.sideways is None or m.added or m.concealed or len(m.detections) != 3
                or len({codes[i] for i in m.detections}) != 1):
            continue
        kind = codes[m.detections[0]]
        base = m.detections[m.sideways]
        cid = CLASSES.index(kind)
        for i in range(len(weak)):
            hit = np.flatnonzero(weak.topk_ids[i] == cid)
            if (not len(hit) or float(weak.topk_probs[i, hit[0]]) < WEAK_ADDED_P
                    or second_look(weak, i, dets)):
                continue
            trial = dets.join(promote(weak, [(i, int(hit[0]))]).select([i]))
            t_lay = analyze(trial, params)
            added = len(trial) - 1
            if not any(k.added and added in k.detections and base in k.detections
                       for k in t_lay.melds):
                continue
            result = test.wins(trial, t_lay)
            if result is None:
                continue
            note = (f"took a weakly seen tile ({kind}, p {float(weak.topk_probs[i, hit[0]]):.2f}, "
                    f"score {float(weak.confidences[i]):.2f}, box {box_text(weak.boxes[i])}) "
                    f"lying on the sideways tile of a claimed pung of {kind}: an added kong")
            return Rewrite(trial, t_lay, (note,), result)
    return None


def below_threshold_as_weak(dets: Detections) -> Detections:
    """``dets`` with the flowers and seasons scored under the detector's own threshold
    (``meta["conf"]``; kept by the manifest's lower ``bonus_conf``) moved back among the
    weak boxes, best score first as the detector orders them: a hand takes a weakly seen
    flower only by :func:`take_weak_flowers`, which asks the layout to lay it among the
    hand's flowers. Face-down tiles kept under the threshold go back too (a weakly seen
    back in a row is as often the gap between two tiles, and it would make a concealed
    kong of its neighbours). A kind kept under the threshold — by ``row_fill``, where a
    row of the tiles found goes on — stays a tile. Unchanged without ``meta["conf"]``
    (detections built by hand) or when every tile reaches it.

    >>> d = Detections.from_lists([(0, 0, 9, 12), (20, 0, 29, 12), (40, 0, 49, 12),
    ...                            (60, 0, 69, 12)], ["5p", "3f", "6p", "back"],
    ...                           [0.9, 0.35, 0.3, 0.3])
    >>> d.meta["conf"] = 0.4
    >>> moved = below_threshold_as_weak(d)
    >>> moved.codes, moved.weak.codes
    (['5p', '6p'], ['3f', 'back'])
    """
    from vision.detect import detection_scores

    conf = dets.meta.get("conf")
    if conf is None or not len(dets):
        return dets
    scores = detection_scores(dets)
    below = (scores < float(conf)) & np.array([c in BONUS or c == BACK for c in dets.codes],
                                              bool)
    if not below.any():
        return dets
    moved = dets.select(below)
    weak = moved if dets.weak is None or not len(dets.weak) else dets.weak.join(moved)
    order = np.argsort(-detection_scores(weak), kind="stable")
    return replace(dets.select(~below), weak=weak.select(order))
