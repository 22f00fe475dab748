"""Flowers read as kinds, re-read as flowers by where they lie and how the hand counts.

Flowers of a set the models never saw are their weakest reading: the classifier calls
them white dragons, dots or winds. These rules of
:func:`vision.recognize.recognize_detections` re-read such tiles as bonus codes when the
layout then lays them among the flowers and the hand is what the rules need (a win with
the right tile count, or the same hand): a win made by a flower read as its winning tile
(:func:`flower_not_win`), tiles set apart from the hand (:func:`reread_set_apart_flowers`,
:func:`reread_doubtful_apart_flowers`), and a hand over its size (:func:`reread_extra_as_flower`,
:func:`reread_flower_runs`; :mod:`vision.flower_runs` finds the runs). Each flower is in the
set once, so no tile is re-read as a code another tile is read as, wherever it lies
(:func:`vision.flower_runs.bonus_codes_read`), and a flower with no code left to take — a
misread flower next to the real one it was read as — is read as a free one
(:func:`reread_flowers_read_twice`). Under rules played
without flowers the other way round: a tile read as a flower inside a row
(:func:`reread_row_flowers_as_kinds`), or apart where it makes a claimed win
(:func:`reread_apart_flower_as_kind`), is read as its kind.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from vision.classes import BACK, BONUS, BONUS_IDS, CLASSES
from vision.correct import SURE_MAX_RATIO, SURE_P, Correction, CorrectionResult
from vision.detections import Detections
from vision.flower_runs import bonus_codes_read
from vision.layout import FLOWER, IGNORED, MELD, STANDING, WINNING, Layout, LayoutParams, analyze
from vision.rewrite import REREAD_RATIO, Rewrite, WinTest, promote, rereads

if TYPE_CHECKING:
    pass


def _flower_alternative(dets: Detections, i: int) -> tuple[int, float] | None:
    """The likeliest bonus code among tile ``i``'s alternatives (not its top-1): its
    position in the top-k and its probability, or None."""
    for j in range(1, dets.topk_ids.shape[1]):
        if int(dets.topk_ids[i, j]) in BONUS_IDS:
            return j, float(dets.topk_probs[i, j])
    return None


def flower_not_win(
    dets: Detections, layout: Layout, result: CorrectionResult, params: LayoutParams,
    hand_size: int,
) -> tuple[Detections, Correction] | None:
    """A win made by reading a doubtful winning tile as another kind, where the tile is
    likelier a flower: a hand one tile short (听) with a flower lying apart that the
    detector read as a kind shows as many tiles as a won hand, and the layout takes that
    lone tile for the winning tile set apart; the correction then reads it as whatever
    kind completes the hand. Never force a win: when the tile the layout took for the
    winning one (``layout.winning``) was changed by the winning reading from one kind to
    another, and has at least as much probability of being a bonus tile (any, summed over
    its top-k) as of being the kind that made the win, it is read as its likeliest bonus
    code — kept only if the layout then lays it among the flowers and the hand is one tile
    short (``hand_size`` - 1). Returns those detections and the change, or None. Measured
    on hands shown waiting (``tilecam dataset synth --waiting``, README "Hands that do not
    win"); used only when the win was inferred from the tile count, not claimed."""
    i = layout.winning
    c = next((c for c in result.best.changes if c.tile == i), None)
    if i is None or c is None or c.before in BONUS or c.after in BONUS:
        return None
    p_bonus = float(sum(p for cid, p in zip(dets.topk_ids[i].tolist(),
                                              dets.topk_probs[i].tolist(), strict=True)
                        if int(cid) in BONUS_IDS))
    alt = _flower_alternative(dets, i)
    if alt is None or p_bonus < c.p_after:
        return None
    j, _ = alt
    change = Correction(i, c.before, CLASSES[int(dets.topk_ids[i, j])], c.p_before, p_bonus)
    trial = promote(dets, [(i, j)])
    t_lay = analyze(trial, params)
    if t_lay.roles(len(trial))[i] != FLOWER or t_lay.tile_count != hand_size - 1:
        return None
    return trial, change


#: A tile left out of the hand is re-read as a flower (:func:`reread_set_apart_flowers`)
#: when its top-k gives a bonus code at least this probability (chosen on the choice
#: sets; 0.1, the layout's ``flower_alt_p``, took fewer of them).
SET_APART_FLOWER_P = 0.05


def reread_set_apart_flowers(
    dets: Detections, layout: Layout, params: LayoutParams
) -> tuple[Detections, Layout, tuple[str, ...], tuple[Correction, ...]]:
    """Flowers read as kinds and so left out of the hand: tiles the layout ignores (apart
    from the hand, in no meld) whose top-k holds a bonus code at
    :data:`SET_APART_FLOWER_P` or more are read as that flower (no two as one flower, none
    as a flower already read; likeliest readings first), all together, and kept
    only if the layout then lays them among the flowers, lays no other tile read as a kind
    there, **and** the hand itself is the same
    detections with the same tile count (a flower is no part of the hand's shape, so this
    needs no win). Why: on an unfamiliar set the classifier reads whole rows of flowers set
    apart as white dragons or dots (held-out art: 6 of the 13 scenes whose only misread
    tiles were flowers read as kinds had them all ignored). Returns the detections, their
    layout, a note and a :class:`Correction` per re-read tile (unchanged and empty when
    none is kept)."""
    options: list[tuple[float, int, int]] = []
    for i, role in enumerate(layout.roles(len(dets))):
        if role != IGNORED or dets.codes[i] in BONUS or dets.codes[i] == BACK:
            continue
        options += [(float(dets.topk_probs[i, j]), i, j) for j in range(1, dets.topk_ids.shape[1])
                    if int(dets.topk_ids[i, j]) in BONUS_IDS
                    and dets.topk_probs[i, j] >= SET_APART_FLOWER_P]
    # each flower exists once: likeliest readings first, none a flower already read
    # (anywhere: a real flower ignored beside them joins the flowers with them)
    used = bonus_codes_read(dets, layout)
    chosen: dict[int, int] = {}
    for _, i, j in sorted(options, reverse=True):
        code = CLASSES[int(dets.topk_ids[i, j])]
        if i not in chosen and code not in used:
            chosen[i] = j
            used.add(code)
    kept = _laid_as_flowers(dets, layout, params, sorted(chosen),
                            lambda tiles: promote(dets, [(i, chosen[i]) for i in tiles]))
    if kept is None:
        return dets, layout, (), ()
    tiles, trial, t_lay = kept
    changes, notes = rereads(
        dets, trial, [(float(dets.topk_probs[i, chosen[i]]), i) for i in tiles],
        "set apart from the hand, it may be a flower")
    return trial, t_lay, notes, changes


def _laid_as_flowers(
    dets: Detections, layout: Layout, params: LayoutParams, tiles: list[int],
    read: Callable[[list[int]], Detections],
) -> tuple[list[int], Detections, Layout] | None:
    """The tiles of ``tiles`` (ignored by ``layout``, or laid among its flowers with no
    bonus code they may take: :func:`reread_flowers_read_twice`) that, read as flowers by ``read``
    (tiles → detections with their new codes), the layout lays among the flowers while
    the hand stays the same detections with the same tile count and no tile read as a
    kind lies among the flowers: those it does not lay there are dropped and the rest
    tried again. Returns the tiles, the detections and their layout, or None."""
    hand = sorted(layout.hand_detections)
    while tiles:
        trial = read(tiles)
        t_lay = analyze(trial, params)
        if t_lay.tile_count != layout.tile_count or sorted(t_lay.hand_detections) != hand:
            return None
        t_roles = t_lay.roles(len(trial))
        if any(t_roles[i] == FLOWER and trial.codes[i] not in BONUS and i not in layout.flowers
               for i in range(len(trial))):
            return None  # a kind now laid among the flowers that no flower reading is left for
        laid = [i for i in tiles if t_roles[i] == FLOWER]
        if len(laid) == len(tiles):
            return tiles, trial, t_lay
        tiles = laid  # try again with only those the layout took for flowers
    return None


def reread_doubtful_apart_flowers(
    dets: Detections, layout: Layout, params: LayoutParams
) -> tuple[Detections, Layout, tuple[str, ...], tuple[Correction, ...]]:
    """Flowers of an unfamiliar set set apart and read as kinds with no bonus code among
    their alternatives (which :func:`reread_set_apart_flowers` needs): tiles the layout
    ignores whose top-1 probability is below :data:`FLOWER_RUN_WEAK_P`
    (:func:`vision.flower_runs.doubtful_apart`; weakest first, no more than bonus codes
    are free) are read as bonus codes (:func:`vision.flower_runs.as_flowers`), all
    together, kept on the same conditions: the layout lays each among the flowers (those
    it does not are dropped and the rest tried again), lays no tile read as a kind there,
    and the hand is the same detections with the same tile count. Which flower each is
    was not read, and the notes say so. Returns the detections, their layout, a note and
    a :class:`Correction` per re-read tile (unchanged and empty when none is kept)."""
    from vision.flower_runs import as_flowers, doubtful_apart

    # every flower read, the ignored ones too: a row of flowers the layout left out for a
    # doubtful tile in it joins the flowers with that tile (its 1f is no free code)
    used = bonus_codes_read(dets, layout)
    # a tile read as a kind among the flowers counts against the eight too; never below
    # none (a negative slice would keep all but the last few)
    room = max(0, len(BONUS) - len(used))
    doubtful = doubtful_apart(dets, layout, FLOWER_RUN_WEAK_P)[:room]
    kept = _laid_as_flowers(dets, layout, params, doubtful,
                            lambda tiles: as_flowers(dets, tiles, used))
    if kept is None:
        return dets, layout, (), ()
    tiles, trial, t_lay = kept
    changes, notes = _guessed_flowers(
        dets, trial, tiles, "set apart from the hand and read doubtfully, it lies with the "
        "flowers", show_p=False)
    return trial, t_lay, notes, changes


def _guessed_flowers(
    dets: Detections, trial: Detections, tiles: Sequence[int], why: str, show_p: bool
) -> tuple[tuple[Correction, ...], tuple[str, ...]]:
    """The :class:`Correction` and the note of each of ``tiles`` that ``trial`` reads as a
    flower by :func:`vision.flower_runs.as_flowers` (its new probability: the bonus codes'
    together in its top-k; ``show_p``: the note gives it). ``why`` ends each note, and a
    tile given a free code adds that which flower was not read."""
    from vision.flower_runs import bonus_probability

    changes = tuple(
        Correction(i, dets.codes[i], trial.codes[i], float(dets.topk_probs[i, 0]),
                   bonus_probability(dets, i))
        for i in sorted(tiles)
    )
    notes = tuple(
        f"read tile {c.tile} ({c.before}, p {c.p_before:.2f}) as a flower ("
        + (f"{c.after}, p {c.p_after:.2f} as any flower" if show_p else c.after)
        + f"): {why}"
        + ("" if float(trial.topk_probs[c.tile, 0]) > 0 else "; which flower was not read")
        for c in changes
    )
    return changes, notes


def flower_options(dets: Detections, i: int) -> list[str]:
    """The bonus codes the correction may read tile ``i`` (laid among the flowers) as:
    its own code when it is one, and each bonus code of its top-k with a probability —
    for a tile read at :data:`vision.correct.SURE_P` or more, only those at most
    :data:`vision.correct.SURE_MAX_RATIO` times less probable (strong evidence)."""
    top = float(dets.topk_probs[i, 0])
    out = [dets.codes[i]] if dets.codes[i] in BONUS else []
    for c, p in zip(dets.topk_ids[i].tolist(), dets.topk_probs[i].tolist(), strict=True):
        code = CLASSES[int(c)]
        if (int(c) in BONUS_IDS and p > 0 and code not in out
                and (top < SURE_P or p * SURE_MAX_RATIO >= top)):
            out.append(code)
    return out


def flowers_with_no_free_code(dets: Detections, layout: Layout) -> tuple[list[int], set[str]]:
    """Tiles ``layout`` lays among the flowers that no reading of the correction can make
    a flower of their own, and the codes the others take. Each flower is in the set once,
    so the correction reads the flowers as distinct bonus codes, each tile one of its
    :func:`flower_options`; when no such reading exists (two tiles read 4f and neither
    has another bonus code among its alternatives; a kind laid there whose flower
    alternatives the others hold) it finds none and the hand is refused. The tiles are
    matched to codes surest reading first (top-1 probability; an augmenting path may move
    a matched tile to another of its options), so the weakest readings are the ones left
    over; a tile read at :data:`vision.correct.SURE_P` or more left over is not returned
    (strong evidence keeps its problem, as in the correction). Returns the tiles left over
    (detection indices) and the codes held: the matched ones and every bonus code a
    tile anywhere is read as (:func:`vision.flower_runs.bonus_codes_read`)."""
    tiles = sorted((i for i in layout.flowers if dets.codes[i] != BACK),
                   key=lambda i: -float(dets.topk_probs[i, 0]))
    options = {i: flower_options(dets, i) for i in tiles}
    owner: dict[str, int] = {}

    def place(i: int, seen: set[str]) -> bool:
        """Match tile ``i`` to a code, moving matched tiles along augmenting paths."""
        for code in options[i]:
            if code in seen:
                continue
            seen.add(code)
            if code not in owner or place(owner[code], seen):
                owner[code] = i
                return True
        return False

    left = [i for i in tiles if not place(i, set())]
    # in float32, as the probabilities are: float32(0.9) is under the float 0.9, and a
    # tile read "0.90" is read sure
    stuck = [i for i in left if dets.topk_probs[i, 0] < np.float32(SURE_P)]
    return stuck, set(owner) | bonus_codes_read(dets, layout)


def reread_flowers_read_twice(
    dets: Detections, layout: Layout, params: LayoutParams
) -> tuple[Detections, Layout, tuple[str, ...], tuple[Correction, ...]]:
    """A misread flower next to a real one: a flower read as the code of another flower
    in the photo (1f read 4f beside the real 4f, the numerals the classifier confuses
    most), or a kind laid among the flowers whose only bonus alternatives are flowers
    read elsewhere, has no reading the correction may take — each flower is in the set
    once, and a tile among the flowers may only become a bonus code its top-k gives — so
    the whole hand was refused ("flower 4f appears twice"). Only when the correction has
    no reading at all: the tiles left over when the flowers are matched to distinct codes
    surest first (:func:`flowers_with_no_free_code`; none read at
    :data:`vision.correct.SURE_P` or more) are read as
    free bonus codes (:func:`vision.flower_runs.as_flowers`; at most as many as are free),
    kept on the set-apart rules' conditions: the layout still lays each among the flowers,
    lays no other kind there, and the hand is the same detections with the same tile
    count. Under MCR every flower is 1 fan, so the score does not depend on which; the
    note says which flower was not read. Returns the detections, their layout, a note and
    a :class:`Correction` per re-read tile (unchanged and empty when none is kept)."""
    from vision.flower_runs import as_flowers

    stuck, held = flowers_with_no_free_code(dets, layout)
    stuck = stuck[:max(0, len(BONUS) - len(held & set(BONUS)))]
    kept = _laid_as_flowers(dets, layout, params, stuck,
                            lambda tiles: as_flowers(dets, tiles, held))
    if kept is None:
        return dets, layout, (), ()
    tiles, trial, t_lay = kept
    changes: tuple[Correction, ...] = ()
    notes: tuple[str, ...] = ()
    for i in tiles:
        why = (f"{dets.codes[i]} is read surer on another tile, each flower is in the set "
               "once, and its alternatives give no other flower" if dets.codes[i] in BONUS
               else "laid among the flowers, and its flower alternatives are read on "
               "other tiles")
        c, n = _guessed_flowers(dets, trial, [i], why, show_p=False)
        changes, notes = (*changes, *c), (*notes, *n)
    return trial, t_lay, notes, changes


#: Most flower readings :func:`reread_extra_as_flower` pairs up when a hand is two over.
MAX_EXTRA_OPTIONS = 6


def reread_extra_as_flower(
    dets: Detections, layout: Layout, params: LayoutParams, test: WinTest
) -> Rewrite | None:
    """A hand one or two tiles over its size whose extra tiles may be flowers read as
    kinds: hand tiles whose top-k holds a bonus code at most :data:`REREAD_RATIO` times
    less probable than their reading are read as those flowers — as many as the hand is
    over, the most probable first (pairs among the :data:`MAX_EXTRA_OPTIONS` likeliest) —
    only if the layout then lays each among the flowers and the corrected reading **wins**
    with exactly ``test.hand_size`` tiles; otherwise None. (Flowers of an unfamiliar set
    are the classifier's weakest reading: on held-out art 10 of 14 hands one tile over
    were a flower read as a kind.) The rewrite's detections have the tiles' codes and
    top-k order changed; the re-reads are its changes, with a note each."""
    over = layout.tile_count - test.hand_size
    if over not in (1, 2):
        return None
    options: list[tuple[float, int, int]] = []
    for i, role in enumerate(layout.roles(len(dets))):
        if role not in (STANDING, MELD, WINNING):
            continue
        alt = _flower_alternative(dets, i)
        if alt is not None and alt[1] > 0 and alt[1] * REREAD_RATIO >= dets.topk_probs[i, 0]:
            options.append((alt[1], i, alt[0]))
    options.sort(reverse=True)
    combos = sorted(itertools.combinations(options[:MAX_EXTRA_OPTIONS], over),
                    key=lambda combo: -math.prod(pr for pr, _, _ in combo))
    for combo in combos:
        trial = promote(dets, [(i, j) for _, i, j in combo])
        t_lay = analyze(trial, params)
        t_roles = t_lay.roles(len(trial))
        if any(t_roles[i] != FLOWER for _, i, _ in combo):
            continue
        result = test.wins(trial, t_lay)
        if result is None or any(result.best.codes[i] not in BONUS for _, i, _ in combo):
            continue
        too_many = "one tile" if over == 1 else "two tiles"
        changes, notes = rereads(dets, trial, [(pr, i) for pr, i, _ in combo],
                                  f"the hand had {too_many} too many")
        return Rewrite(trial, t_lay, notes, result, changes)
    return None


#: A hand tile is a doubtful reading, which :func:`reread_flower_runs` may take for a
#: flower, when its top-1 probability is below this.
FLOWER_RUN_WEAK_P = 0.7


#: ... or when its top-1 is below ``FLOWER_RUN_FAIR_P`` and its top-k gives the bonus
#: codes together at least ``FLOWER_RUN_BONUS_P``.
FLOWER_RUN_FAIR_P = 0.9


FLOWER_RUN_BONUS_P = 0.03


#: Most tiles the hand may be over for :func:`reread_flower_runs` (as many flowers).
FLOWER_RUN_MAX_OVER = 4


#: Most ways of choosing the tiles :func:`reread_flower_runs` tries.
FLOWER_RUN_TRIES = 12


#: Most of those tries :func:`reread_flower_runs` corrects with the win claimed
#: (:meth:`vision.rewrite.WinTest.wins`: each scores up to ``CorrectParams.max_readings``
#: readings, under Xiamen and Zhenjiang twice when none wins): the first that the layout
#: lays as flowers and leaves a hand of the win's size. A bound on the work, not a
#: reading rule: on the held-out art (200 scenes) and the hk-photos val set (390 photos)
#: no call corrected more than one (seventy-eighth session), while fuzz seed 177 item 838,
#: 60 random tiles under Xiamen, corrected six in each of its two readings (~3 s of CPU).
FLOWER_RUN_SEARCHES = 2


def reread_flower_runs(
    dets: Detections, layout: Layout, params: LayoutParams, test: WinTest
) -> Rewrite | None:
    """A hand 1–:data:`FLOWER_RUN_MAX_OVER` tiles over its size whose extra tiles may be
    flowers of an unfamiliar set read as kinds (:mod:`vision.flower_runs`): doubtful
    readings (top-1 below :data:`FLOWER_RUN_WEAK_P`, or below :data:`FLOWER_RUN_FAIR_P`
    with :data:`FLOWER_RUN_BONUS_P` on bonus codes together) lying together at a row's end or
    beside a tile read as a flower are read as bonus codes — as many as the hand is over,
    nearest the run's start first, weakest choice first — only if the layout then lays
    each among the flowers and the corrected reading **wins** with exactly
    ``test.hand_size`` tiles; otherwise None. No choice takes a tile that completes the
    pung or kong beside it (:func:`vision.flower_runs.completes_a_set`: ``NNN`` and a tile
    read ``E`` at .63, ``N`` at .37, is a kong, not three and a flower). A re-read tile
    with no bonus code in its top-k gets a free one, and its note says which flower it is
    was not read. Of the
    :data:`FLOWER_RUN_TRIES` choices, the first :data:`FLOWER_RUN_SEARCHES` that pass the
    layout's test are corrected (a bound on the work)."""
    from vision.flower_runs import as_flowers, completes_a_set, flower_runs, run_choices

    over = layout.tile_count - test.hand_size
    used = bonus_codes_read(dets, layout)
    if not 1 <= over <= min(FLOWER_RUN_MAX_OVER, len(BONUS) - len(used)):
        return None
    runs = flower_runs(dets, layout, FLOWER_RUN_WEAK_P, FLOWER_RUN_FAIR_P, FLOWER_RUN_BONUS_P)
    if sum(len(r) for r in runs) < over:
        return None
    choices = [c for c in run_choices(runs, over, 4 * FLOWER_RUN_TRIES)
               if not any(completes_a_set(dets, layout, i, c) for i in c)]
    choices.sort(key=lambda c: sum(float(dets.topk_probs[i, 0]) for i in c))
    searched = 0
    for tiles in choices[:FLOWER_RUN_TRIES]:
        trial = as_flowers(dets, tiles, used)
        t_lay = analyze(trial, params)
        t_roles = t_lay.roles(len(trial))
        if any(t_roles[i] != FLOWER for i in tiles) or t_lay.tile_count != test.hand_size:
            continue  # (a hand of another size is no win: WinTest.wins asks nothing)
        if searched == FLOWER_RUN_SEARCHES:
            break
        searched += 1
        result = test.wins(trial, t_lay)
        if result is None or any(result.best.codes[i] not in BONUS for i in tiles):
            continue
        changes, notes = _guessed_flowers(
            dets, trial, tiles, f"the hand had {over} too many tiles, and this doubtful "
            "reading lies with the flowers or at a row's end", show_p=True)
        return Rewrite(trial, t_lay, notes, result, changes)
    return None


#: Least probability a kind needs among the alternatives of a tile read as a flower inside
#: the hand's row, under rules without flowers, to be read instead
#: (:func:`reread_row_flowers_as_kinds`).
ROW_FLOWER_KIND_P = 0.05


def flowers_inside_rows(layout: Layout) -> list[int]:
    """The tiles ``layout`` lays among its flowers that lie *inside* a row of the hand:
    with a tile of the hand (standing, melded or winning) on both sides of it in the row's
    reading order (detection indices, in row order). A flower of the set lies apart from
    the hand, at a row's end or in a row of its own — not between two of its tiles."""
    hand = set(layout.hand_detections)
    flowers = set(layout.flowers)
    out = []
    for row in layout.rows:
        placed = [k for k, d in enumerate(row.detections) if d in hand]
        if len(placed) < 2:
            continue
        out += [d for k, d in enumerate(row.detections)
                if d in flowers and placed[0] < k < placed[-1]]
    return out


def reread_row_flowers_as_kinds(
    dets: Detections, layout: Layout, params: LayoutParams
) -> tuple[Detections, Layout, tuple[str, ...], tuple[Correction, ...]]:
    """Under rules played without flowers (Zhenjiang's 136 tiles): a tile read as a flower
    inside a row of the hand (:func:`flowers_inside_rows`) is a tile of the hand misread,
    so its likeliest kind among its alternatives (at :data:`ROW_FLOWER_KIND_P` or more) is
    read instead — all such tiles together, kept only if the layout then lays each in the
    hand and the hand gains exactly those tiles. Before, such a tile was left out with the
    flowers the rules do not play, and the hand came out a tile short. Call it only for
    such rules: under MCR a flower may lie anywhere. Returns the detections, their
    layout, a note and a :class:`Correction` per re-read tile (unchanged and empty when
    none is kept)."""
    picks: list[tuple[int, int]] = []
    for i in flowers_inside_rows(layout):
        kinds = [j for j in range(1, dets.topk_ids.shape[1])
                 if int(dets.topk_ids[i, j]) not in BONUS_IDS
                 and CLASSES[int(dets.topk_ids[i, j])] != BACK
                 and dets.topk_probs[i, j] >= ROW_FLOWER_KIND_P]
        if kinds:  # top-k is ordered: the first kind is the likeliest
            picks.append((i, kinds[0]))
    if not picks:
        return dets, layout, (), ()
    trial = promote(dets, picks)
    t_lay = analyze(trial, params)
    tiles = {i for i, _ in picks}
    in_hand = set(t_lay.hand_detections)
    if (not tiles <= in_hand or in_hand != set(layout.hand_detections) | tiles
            or t_lay.tile_count != layout.tile_count + len(tiles)):
        return dets, layout, (), ()
    changes, notes = rereads(
        dets, trial, [(float(dets.topk_probs[i, j]), i) for i, j in picks],
        "read as a flower inside the hand's row, under rules played without flowers",
        as_flower=False)
    return trial, t_lay, notes, changes


def likeliest_kinds(dets: Detections, tiles: Sequence[int]) -> list[tuple[float, int, int]]:
    """For each of ``tiles`` read as a flower or season (top-1), its likeliest kind among
    its alternatives (not a bonus tile, not a back): ``(ratio, tile, k)`` with ``ratio``
    the flower's probability over that kind's and ``k`` the kind's index in the tile's
    top-k; a tile whose alternatives hold no kind with a probability is left out. Sorted
    by ratio, likeliest re-read first."""
    picks: list[tuple[float, int, int]] = []
    for i in tiles:
        if int(dets.topk_ids[i, 0]) not in BONUS_IDS:
            continue
        for j in range(1, dets.topk_ids.shape[1]):
            cid, p = int(dets.topk_ids[i, j]), float(dets.topk_probs[i, j])
            if cid in BONUS_IDS or CLASSES[cid] == BACK:
                continue
            if p > 0:  # the likeliest kind only (top-k is ordered)
                picks.append((float(dets.topk_probs[i, 0]) / p, i, j))
            break
    return sorted(picks)


def reread_apart_flower_as_kind(
    dets: Detections, layout: Layout, params: LayoutParams, test: WinTest,
    apart: Sequence[int],
) -> Rewrite | None:
    """Under rules played without flowers (Zhenjiang's 136 tiles), a win claimed and the
    hand one tile short (``test.hand_size`` - 1): a tile read as a flower that the layout
    laid apart with the flowers (``apart``; they are left out of the hand:
    :func:`vision.recognize.without_flowers`) — the winning tile set apart, say — is a
    tile of the set misread, as one inside a row is
    (:func:`reread_row_flowers_as_kinds`), so its likeliest kind among its alternatives
    is read instead when the layout then lays it in the hand (standing or as the winning
    tile), the hand gaining exactly that tile, and that reading wins
    (:meth:`WinTest.wins`) within ``test.max_ratio`` all told: the flower's probability
    over the kind's times the winning correction's own ratio (the correction may read
    the tile as another of its kinds). Tried likeliest first; None when none wins
    (seventy-sixth session; before, such a tile was left out and the claimed win
    reported as none). Only for a claimed win: a flower apart from a hand one tile short
    is as often a stray bonus tile beside a waiting hand."""
    # the other flowers are left out of the hand as before (the caller says so)
    return flower_as_kind_win(
        dets, layout, params, test, apart,
        "read as a flower apart from the hand, under rules played without flowers, where "
        "it makes the claimed win", without_flowers=True)


def flower_as_kind_win(
    dets: Detections, layout: Layout, params: LayoutParams, test: WinTest,
    tiles: Sequence[int], why: str, *, without_flowers: bool = False,
) -> Rewrite | None:
    """A claimed win one tile short (``test.hand_size`` - 1) made by reading one of
    ``tiles`` (read as flowers) as its likeliest kind (:func:`likeliest_kinds`), likeliest
    first: kept when the layout then lays that tile in the hand (standing or winning), the
    hand gaining exactly it, and the reading wins (:meth:`WinTest.wins`; with
    ``without_flowers`` the layout's other flowers are left out of the hand) within
    ``test.max_ratio`` all told. The change is noted with ``why``; None when none wins."""
    if layout.tile_count != test.hand_size - 1:
        return None
    hand = set(layout.hand_detections)
    for ratio, i, j in likeliest_kinds(dets, tiles):
        if ratio > test.max_ratio:
            break
        trial = promote(dets, [(i, j)])
        t_lay = replace(analyze(trial, params), melded_as=layout.melded_as)
        if (t_lay.roles(len(trial))[i] not in (STANDING, WINNING)
                or set(t_lay.hand_detections) != hand | {i}):
            continue
        result = test.wins(trial, replace(t_lay, flowers=()) if without_flowers else t_lay)
        if result is None or ratio * result.best.ratio > test.max_ratio:
            continue
        changes, notes = rereads(dets, trial, [(float(dets.topk_probs[i, j]), i)], why,
                                 as_flower=False)
        return Rewrite(trial, t_lay, notes, result, changes)
    return None
