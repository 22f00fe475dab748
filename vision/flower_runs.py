"""Flowers of an unfamiliar set read as kinds, found by where they lie and how many tiles
the hand has too many.

A player lays their flowers (花牌, bonus tiles ``1f``–``8f``) together: apart from the
hand, or at one end of a row. On a set the classifier never saw, their pictures read as
whatever kind looks nearest (a pale season as a white dragon, a plant as dots), weakly,
and often with no bonus code among the tile's alternatives at all, so no rule that asks
the top-k for a flower takes them. What still says they are flowers: the hand shows more
tiles than it can hold, and the extra ones are doubtful readings lying together at a
row's end or beside a tile read as a flower.

:func:`flower_runs` finds such tiles in the layout's rows, :func:`doubtful_apart` the
doubtful readings the layout left out of the hand; :func:`as_flowers` reads chosen tiles
as bonus codes. The rules that use them are :func:`vision.flower_rereads.reread_flower_runs`
(which asks for a win with exactly the hand's size before it keeps anything) and
:func:`vision.flower_rereads.reread_doubtful_apart_flowers` (which keeps the hand as it is).

>>> from vision.layout_scene import SceneBuilder
>>> from vision.layout import analyze
>>> d = SceneBuilder().standing("PP123m456p789s11s").win("1s").detections()
>>> probs = d.topk_probs.copy(); probs[:2, 0] = 0.3
>>> d = d.__class__(d.boxes, d.class_ids, d.confidences, d.rotations, d.topk_ids, probs)
>>> flower_runs(d, analyze(d), weak_p=0.7)
[[0, 1]]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from vision.classes import BACK, BONUS, BONUS_IDS, CLASSES
from vision.detections import Detections
from vision.layout import FLOWER, IGNORED, STANDING, WINNING, Layout


def flower_runs(
    dets: Detections, layout: Layout, weak_p: float, fair_p: float = 0.0, bonus_p: float = 1.0
) -> list[list[int]]:
    """Runs of hand tiles that may be flowers read as kinds, each ordered from where it
    starts outward: from a row's end inward, or from a tile read as a flower outward
    either way, through standing (or winning) face-up *doubtful* readings — top-1
    probability below ``weak_p``, or below ``fair_p`` with at least ``bonus_p`` of it on
    bonus codes (summed over the top-k); a run stops at the first tile that is not one.
    Tiles read as flowers inside a run are passed over. Detection indices; a tile is in
    at most one run (the first found)."""
    roles = layout.roles(len(dets))
    codes = dets.codes

    def doubtful(i: int) -> bool:
        if roles[i] not in (STANDING, WINNING) or codes[i] == BACK or codes[i] in BONUS:
            return False
        p1 = float(dets.topk_probs[i, 0])
        return p1 < weak_p or (p1 < fair_p and bonus_probability(dets, i) >= bonus_p)

    runs: list[list[int]] = []
    taken: set[int] = set()

    def walk(order: Sequence[int]) -> None:
        run: list[int] = []
        for i in order:
            if roles[i] == FLOWER:
                continue
            if not doubtful(i) or i in taken:
                break
            run.append(i)
        if run:
            runs.append(run)
            taken.update(run)

    for row in layout.rows:
        tiles = list(row.detections)
        walk(tiles)
        walk(tiles[::-1])
        for k, i in enumerate(tiles):
            if roles[i] == FLOWER:
                walk(tiles[k + 1:])
                walk(tiles[:k][::-1])
    return runs


def doubtful_apart(dets: Detections, layout: Layout, weak_p: float) -> list[int]:
    """Face-up tiles the layout left out of the hand (role ``ignored``) read as kinds with
    a top-1 probability below ``weak_p``, weakest first (detection indices)."""
    roles = layout.roles(len(dets))
    out = [i for i, role in enumerate(roles)
           if role == IGNORED and dets.codes[i] != BACK and dets.codes[i] not in BONUS
           and float(dets.topk_probs[i, 0]) < weak_p]
    return sorted(out, key=lambda i: float(dets.topk_probs[i, 0]))


def run_choices(runs: Sequence[Sequence[int]], count: int, limit: int) -> list[list[int]]:
    """Ways to take ``count`` tiles from ``runs`` with each run giving a prefix (the tiles
    nearest where it starts), at most ``limit`` of them, in a stable order.

    >>> run_choices([[1, 2], [7]], 2, 10)
    [[1, 2], [1, 7]]
    """
    out: list[list[int]] = []

    def rec(k: int, left: int, picked: list[int]) -> None:
        if len(out) >= limit:
            return
        if left == 0:
            out.append(sorted(picked))
            return
        if k == len(runs):
            return
        for take in range(min(left, len(runs[k])), -1, -1):
            rec(k + 1, left - take, [*picked, *runs[k][:take]])

    rec(0, count, [])
    return out


def completes_a_set(dets: Detections, layout: Layout, i: int, tiles: Sequence[int]) -> bool:
    """Whether tile ``i`` is likelier a tile of the pung or kong beside it than a flower:
    the two tiles next to it on one side of its row (staying in the hand: none of
    ``tiles``, none laid among the flowers) read the same kind, ``i``'s top-1 or top-2
    reading is that kind, and that reading has more probability than ``i``'s bonus codes
    together (:func:`bonus_probability`). A player lays a flower apart from the hand or at
    a row's end, never as the fourth tile of a kong laid out; a tile read between ``E``
    and ``N`` beside ``NNN`` completes the kong.

    >>> from vision.layout_scene import SceneBuilder
    >>> from vision.layout import analyze
    >>> b = SceneBuilder().standing("666s222s777m88sNNNE")
    >>> d = b.uncertain([("E", 0.63), ("N", 0.37)]).detections()
    >>> completes_a_set(d, analyze(d), 14, [14]), completes_a_set(d, analyze(d), 10, [10])
    (True, False)
    """
    roles = layout.roles(len(dets))
    row = next((list(r.detections) for r in layout.rows if i in r.detections), [])
    if not row:
        return False
    bonus_p = bonus_probability(dets, i)
    likeliest = {CLASSES[int(c)] for c, p in zip(dets.topk_ids[i, :2].tolist(),
                                                dets.topk_probs[i, :2].tolist(), strict=True)
                 if p > bonus_p}
    k = row.index(i)
    for side in (row[k + 1:k + 3], row[max(0, k - 2):k][::-1]):
        if (len(side) == 2 and not set(side) & set(tiles)
                and all(roles[d] != FLOWER for d in side)
                and dets.codes[side[0]] == dets.codes[side[1]] in likeliest):
            return True
    return False


def bonus_probability(dets: Detections, i: int) -> float:
    """Tile ``i``'s probability of being any bonus tile, summed over its top-k."""
    return float(sum(p for c, p in zip(dets.topk_ids[i].tolist(), dets.topk_probs[i].tolist(),
                                       strict=True) if int(c) in BONUS_IDS))


def bonus_codes_read(dets: Detections, layout: Layout) -> set[str]:
    """The codes no tile may be re-read as a flower with: those of the tiles ``layout``
    lays among the flowers (a kind laid there counts against the eight too), and every
    bonus code a face-up tile of ``dets`` is read as (top-1) wherever it lies — each
    flower is in the set once, and a row of real flowers the layout left out of the hand
    (role ``ignored``) joins the flowers once a doubtful tile beside it is re-read."""
    return {dets.codes[i] for i in layout.flowers} | {c for c in dets.codes if c in BONUS}


def as_flowers(dets: Detections, tiles: Sequence[int], used: set[str]) -> Detections:
    """``dets`` with each of ``tiles`` read as a bonus code none of ``used`` nor another
    of ``tiles`` holds: its likeliest bonus alternative in its top-k, else the first free
    code in class order (which flower is then not read, only that it is one). The code
    goes to the front of the tile's top-k with the probability the top-k gave it (0 when
    it had none); the last alternative drops out. Raises ``ValueError`` when more tiles
    are asked for than bonus codes are free (there are eight)."""
    free = set(BONUS) - used
    if len(tiles) > len(free):
        raise ValueError(
            f"{len(tiles)} tiles as flowers, but only {len(free)} bonus codes are free")
    ids, probs = dets.topk_ids.copy(), dets.topk_probs.copy()
    class_ids = dets.class_ids.copy()
    for i in tiles:
        alts = [(float(p), CLASSES[int(c)]) for c, p in zip(ids[i].tolist(), probs[i].tolist(),
                                                            strict=True)
                if CLASSES[int(c)] in free]
        code = max(alts)[1] if alts else next(b for b in BONUS if b in free)
        free.discard(code)
        cid = CLASSES.index(code)
        row_ids, row_p = ids[i].tolist(), probs[i].tolist()
        if cid in row_ids:
            j = row_ids.index(cid)
            p = row_p.pop(j)
            row_ids.pop(j)
        else:
            p = 0.0
            row_ids.pop()
            row_p.pop()
        ids[i] = np.array([cid, *row_ids], ids.dtype)
        probs[i] = np.array([p, *row_p], probs.dtype)
        class_ids[i] = cid
    return replace(dets, class_ids=class_ids, topk_ids=ids, topk_probs=probs)
