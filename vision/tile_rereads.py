"""Boxes and sideways judgements read again so that a hand wins as laid out.

Rules of :func:`vision.recognize.recognize_detections` for what the detector and the
layout get wrong about whole tiles: a box lying across two tiles (:func:`drop_straddling_box`),
a tile whose sideways judgement was close (:func:`flip_unclear_sideways`), one box over a
kong's sideways tile and the tile added on it (:func:`split_stacked_box`), and a back read
for a blank white dragon or the other way (:func:`reread_back_or_white`). Each keeps its
reading only when the hand then **wins** (:class:`vision.rewrite.WinTest`).
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING

import numpy as np

from vision.classes import BACK, CLASSES
from vision.correct import Correction
from vision.detections import Detections
from vision.layout import Layout, LayoutParams, analyze, read_sides
from vision.layout_stack import split_stack, stacked_boxes
from vision.rewrite import REREAD_RATIO, Rewrite, WinTest, box_text, promote, rereads

if TYPE_CHECKING:
    pass


#: A hand box covered this much (over the smaller area) by another box may straddle two
#: tiles (:func:`drop_straddling_box`); real neighbours overlap far less.
STRADDLE_COVER = 0.55


#: Most such boxes one hand tries to leave out.
MAX_STRADDLE_TRIED = 3


def drop_straddling_box(
    dets: Detections, layout: Layout, params: LayoutParams, test: WinTest
) -> Rewrite | None:
    """A hand one tile over its size whose extra may be a box lying across two touching
    tiles (half of each; the detector's commonest extra box in a row): a hand box that
    another box covers by at least :data:`STRADDLE_COVER` is left out — most covered
    first, at most :data:`MAX_STRADDLE_TRIED` — only if the corrected reading then
    **wins** with exactly ``test.hand_size`` tiles. The rewrite's detections lack that
    box; a note gives its code, score and box. Otherwise None."""
    from vision.postprocess import box_cover

    if layout.tile_count != test.hand_size + 1 or len(dets) < 2:
        return None
    covers = []
    for i in layout.hand_detections:
        others = np.delete(dets.boxes, i, axis=0)
        cover = float(box_cover(dets.boxes[i], others).max())
        if cover >= STRADDLE_COVER:
            covers.append((cover, i))
    for cover, i in sorted(covers, reverse=True)[:MAX_STRADDLE_TRIED]:
        trial = dets.select([k for k in range(len(dets)) if k != i])
        t_lay = analyze(trial, params)
        result = test.wins(trial, t_lay)
        if result is None:
            continue
        note = (
            f"left out a box ({dets.codes[i]}, score {float(dets.confidences[i]):.2f}, box "
            f"{box_text(dets.boxes[i])}) lying {cover:.0%} over another: the hand had one "
            "tile too many"
        )
        return Rewrite(trial, t_lay, (note,), result)
    return None


#: A tile's sideways judgement is tried the other way only when its log-odds lie this
#: close to the layout's threshold (:func:`flip_unclear_sideways`).
MAX_FLIP_MARGIN = 5.0


#: The most unsure tiles tried alone ...
MAX_FLIP_TRIED = 6


#: ... and the most unsure of them tried two at a time (each trial is a layout: bounded).
MAX_FLIP_PAIRED = 3


def flip_unclear_sideways(
    dets: Detections, layout: Layout, params: LayoutParams, test: WinTest
) -> Rewrite | None:
    """A hand that does not win as laid out, where the layout was unsure which tiles lie
    sideways (faces that look alike turned a quarter — 白, 3p, 8p — in rows at a slant,
    where the box shape says little): the hand's tiles whose sideways log-odds lie within
    :data:`MAX_FLIP_MARGIN` of the threshold — the :data:`MAX_FLIP_TRIED` closest alone,
    the :data:`MAX_FLIP_PAIRED` closest two at a time — are judged the other way, cheapest
    first, and the first layout whose corrected reading **wins** with ``test.hand_size``
    tiles is taken, with a note per tile (a layout without the hand's tile count is not
    corrected). None when the hand already wins, or no such reading exists."""
    margins = dict(layout.side_margins)
    hand = set(layout.hand_detections)
    unsure = sorted((abs(m), i) for i, m in margins.items()
                    if i in hand and abs(m) <= MAX_FLIP_MARGIN)[:MAX_FLIP_TRIED]
    if not unsure or test.wins(dets, layout) is not None:
        return None
    trials: list[tuple[float, tuple[int, ...]]] = [(cost, (i,)) for cost, i in unsure]
    trials += [(a + b, (i, j))
               for (a, i), (b, j) in itertools.combinations(unsure[:MAX_FLIP_PAIRED], 2)]
    sides = read_sides(dets, params)  # the frame, rows and sideways calls: read once
    for _, tiles in sorted(trials):
        t_lay = analyze(dets, params, flip=frozenset(tiles), sides=sides)
        result = test.wins(dets, t_lay)
        if result is None:
            continue
        notes = tuple(
            f"read {dets.codes[i]} (box {box_text(dets.boxes[i])}) as lying "
            f"{'upright' if margins[i] > 0 else 'sideways'}: its shape and face left it "
            f"unclear (log-odds {margins[i]:+.1f}) and the hand wins only so"
            for i in tiles
        )
        return Rewrite(dets, t_lay, notes, result)
    return None


#: Most boxes :func:`split_stacked_box` tries as two stacked tiles (deepest first).
MAX_STACKS_TRIED = 2


def split_stacked_box(
    dets: Detections, layout: Layout, params: LayoutParams, test: WinTest
) -> Rewrite | None:
    """A box over a kong's sideways tile and the tile added on it (加杠), which the
    detector often sees as one tile (:mod:`vision.layout_stack`: a box reaching across
    its row further than one tile can, past its neighbours on one side only, beside two
    tiles of one kind): read as those two tiles, of the pair's kind, and kept only if the
    layout then lays an added kong there and the hand **wins** with exactly
    ``test.hand_size`` tiles — also when the reading as laid out wins (most often with the
    box as the third tile of a concealed pung: one tile's box cannot take that shape).
    Otherwise None (the other rules then run as before)."""
    stacks = stacked_boxes(dets, params.row_link_gap, params.row_overlap)[:MAX_STACKS_TRIED]
    for s in stacks:
        trial = split_stack(dets, s)
        t_lay = analyze(trial, params)
        if not any(m.added and s.tile in m.detections for m in t_lay.melds):
            continue
        result = test.wins(trial, t_lay)
        if result is None:
            continue
        before = dets.codes[s.tile]
        p_before = float(dets.topk_probs[s.tile, 0])
        p_after = float(trial.topk_probs[s.tile, 0])
        change = Correction(s.tile, before, s.code, p_before, p_after)
        note = (f"tile {s.tile} ({before}, p {p_before:.2f}) is one box over two tiles, a "
                f"kong's sideways tile and the tile added on it (its box {s.across:.2f} times "
                f"as deep across the row as the tiles beside it, {s.beyond:.2f} of a tile "
                f"past them on one side): read as two {s.code} (p {p_after:.2f}, the pair "
                f"beside it), tile {len(trial) - 1} the added one")
        # a box read as the pair's kind already is split, not read otherwise: no change
        # of code to list ("6m instead of 6m"); the note says what was done
        return Rewrite(trial, t_lay, (note,), result, (change,) if before != s.code else ())
    return None


#: Most tiles :func:`reread_back_or_white` re-reads one at a time before all together.
MAX_BACK_WHITE = 4


def reread_back_or_white(
    dets: Detections, layout: Layout, params: LayoutParams, test: WinTest
) -> Rewrite | None:
    """A tile's back and a blank white dragon (白, plain in many sets) look alike, and
    the layout decides on face-down tiles before the correction reads codes (a run of
    backs is a concealed kong; a back elsewhere is dropped). When the reading as laid
    out makes no win, a hand-row tile read as one of the two with the other within
    :data:`REREAD_RATIO` of it is read as the other — and a back outside a concealed
    kong, which cannot stand among a shown hand's tiles, whenever P is among its
    alternatives at all — one at a time, most probable first, then all of them — and
    kept only if the hand then **wins** with
    exactly ``test.hand_size`` tiles. When the reading as laid out wins already, that
    correction is returned unchanged (so it is not searched twice). Otherwise None."""
    pair = {CLASSES.index(BACK): CLASSES.index("P"), CLASSES.index("P"): CLASSES.index(BACK)}
    rows = {d for r in layout.rows for d in r.detections}
    in_melds = {d for m in layout.melds for d in m.detections}
    options: list[tuple[float, int, int]] = []
    for i in sorted(rows):
        top = int(dets.topk_ids[i, 0])
        if top not in pair:
            continue
        # a back in the hand's rows outside a concealed kong cannot be one (the layout
        # dropped it): any white-dragon reading of it is worth trying
        stray_back = top == pair[CLASSES.index("P")] and i not in in_melds
        for j in range(1, dets.topk_ids.shape[1]):
            pr = float(dets.topk_probs[i, j])
            if int(dets.topk_ids[i, j]) == pair[top] and pr > 0 and (
                stray_back or pr * REREAD_RATIO >= float(dets.topk_probs[i, 0])
            ):
                options.append((pr, i, j))
                break
    if not options:
        return None
    as_is = test.wins(dets, layout)
    if as_is is not None:
        return Rewrite(dets, layout, (), as_is)
    options.sort(reverse=True)
    tries = [[o] for o in options[:MAX_BACK_WHITE]]
    if len(options) > 1:
        tries.append(options)
    for picks in tries:
        trial = promote(dets, [(i, j) for _, i, j in picks])
        t_lay = analyze(trial, params)
        result = test.wins(trial, t_lay)
        if result is None:
            continue
        changes, notes = rereads(
            dets, trial, [(pr, i) for pr, i, _ in picks],
            "a tile's back and a blank white dragon look alike", as_flower=False)
        return Rewrite(trial, t_lay, notes, result, changes)
    return None
