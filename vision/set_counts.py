"""One mahjong set in view: each flower or season once, each kind at most four times.

A set holds four copies of each of the 34 kinds and one of each of the 8 bonus tiles
(RULES.md). A frame that shows one set — a hand, a table — can therefore never show a
second 梅 or a fifth 5m, however the tiles lie. When the readings' top-1 codes break
that, the most probable joint reading that keeps it is taken instead:

    maximise  Σ_i log p_i(code_i)   subject to   #{i : code_i = c} ≤ capacity(c)

over the detections in conflict (those read as an over-full code, and those holding a
code one of them could move to), each choosing among its ``k`` most probable codes. It
is an assignment problem (codes expanded into one slot per copy), solved exactly by
:func:`assign`. Face-down tiles (``back``) have no limit.

The reading of every tile involved is then its probabilities with the codes the
others fill set to 0 and renormalised, so its top-1 is the code it was assigned and its
alternatives are codes it could still be.

>>> from vision.classes import class_id
>>> p = np.full((2, 43), 1e-4, np.float32)
>>> p[0, class_id("7f")], p[0, class_id("5f")] = 0.90, 0.05
>>> p[1, class_id("7f")], p[1, class_id("5f")] = 0.60, 0.35
>>> q, changed = within_one_set(p)
>>> [CLASSES[i] for i in q.argmax(axis=1)], changed.tolist()
(['7f', '5f'], [1])
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from vision.classes import BONUS, CLASSES

F32 = npt.NDArray[np.float32]
I64 = npt.NDArray[np.int64]

#: Copies of each class of :data:`vision.classes.CLASSES` in one set, ``(43,)``; a
#: face-down tile (``back``) can be any of them: no limit (the number of classes).
CAPACITY: I64 = np.array(
    [1 if c in BONUS else (10**6 if c == "back" else 4) for c in CLASSES], np.int64
)
#: Cost of leaving a tile on an over-full code when none of its ``k`` codes has room
#: (a nat penalty far above any probability ratio the readers give).
_STUCK = 50.0


def assign(cost: npt.NDArray[np.float64]) -> I64:
    """Column of each row minimising the summed ``cost (n, m)`` with ``n <= m``, each
    column used at most once (shortest augmenting paths with potentials, O(n² m)).

    >>> assign(np.array([[1.0, 2.0], [1.0, 9.0]])).tolist()
    [1, 0]
    """
    n, m = cost.shape
    if n > m:
        raise ValueError(f"assign needs rows <= columns, got {n} x {m}")
    inf = float("inf")
    u = np.zeros(n + 1)
    v = np.zeros(m + 1)
    owner = np.zeros(m + 1, np.int64)  # owner[j]: row (1-based) holding column j; 0 none
    way = np.zeros(m + 1, np.int64)
    for i in range(1, n + 1):
        owner[0] = i
        j0 = 0
        minv = np.full(m + 1, inf)
        used = np.zeros(m + 1, bool)
        while True:
            used[j0] = True
            i0 = owner[j0]
            free = ~used[1:]
            reduced = cost[i0 - 1] - u[i0] - v[1:]
            better = free & (reduced < minv[1:])
            minv[1:][better] = reduced[better]
            way[1:][better] = j0
            cand = np.where(free, minv[1:], inf)
            j1 = int(cand.argmin()) + 1
            delta = cand[j1 - 1]
            u[owner[used]] += delta
            v[used] -= delta
            minv[1:][free] -= delta
            j0 = j1
            if owner[j0] == 0:
                break
        while j0:
            j1 = way[j0]
            owner[j0] = owner[j1]
            j0 = j1
    rows = np.zeros(n, np.int64)
    for j in range(1, m + 1):
        if owner[j]:
            rows[owner[j] - 1] = j - 1
    return rows


def _conflict_rows(top: I64, options: I64, capacity: I64) -> npt.NDArray[np.bool_]:
    """Rows whose reading may change: those on an over-full code, and, transitively,
    the rows on a full code one of those could move to."""
    count = np.bincount(top, minlength=len(capacity))
    involved = count[top] > capacity[top]
    frontier = involved.copy()
    while frontier.any():
        reach = np.unique(options[frontier])
        full = reach[count[reach] >= capacity[reach]]
        grown = involved | np.isin(top, full)
        frontier = grown & ~involved
        involved = grown
    return involved


def within_one_set(probs: F32, k: int = 5, capacity: I64 = CAPACITY) -> tuple[F32, I64]:
    """``probs (n, C)`` read as one set's tiles (see module doc): returns the
    probabilities ``(n, C)`` — rows not in conflict unchanged — and the rows whose top-1
    code changed, ``(r,)``. ``k``: codes each tile may take (its most probable ones)."""
    probs = np.asarray(probs, np.float32)
    if not len(probs):
        return probs, np.zeros(0, np.int64)
    top = probs.argmax(axis=1).astype(np.int64)
    count = np.bincount(top, minlength=len(capacity))
    if not (count > capacity).any():
        return probs, np.zeros(0, np.int64)
    k = max(1, min(k, probs.shape[1]))
    options = np.argsort(-probs, axis=1, kind="stable")[:, :k].astype(np.int64)
    rows = np.flatnonzero(_conflict_rows(top, options, capacity))
    codes = np.unique(options[rows])
    outside = count - np.bincount(top[rows], minlength=len(capacity))
    room = np.minimum(capacity[codes] - outside[codes], len(rows)).clip(0)
    slot_code = np.repeat(codes, room)
    log_p = -np.log(np.maximum(probs[rows][:, slot_code], 1e-12).astype(np.float64))
    allowed = (options[rows][:, :, None] == slot_code[None, None, :]).any(axis=1)
    cost = np.where(allowed, log_p, np.inf)
    # a way out for every row: keep its top-1 code at a penalty (used only when stuck)
    stuck = np.full((len(rows), len(rows)), np.inf)
    np.fill_diagonal(stuck, -np.log(np.maximum(probs[rows, top[rows]], 1e-12)) + _STUCK)
    cost = np.concatenate([cost, stuck], axis=1)
    cost[~np.isfinite(cost)] = 1e9
    cols = assign(cost)
    chosen = np.where(
        cols < len(slot_code), slot_code[np.minimum(cols, len(slot_code) - 1)], top[rows]
    )
    final = top.copy()
    final[rows] = chosen
    full = np.bincount(final, minlength=len(capacity))
    out = probs.copy()
    for r, c in zip(rows.tolist(), chosen.tolist(), strict=True):
        others = full.copy()
        others[c] -= 1
        taken = (others >= capacity) & (np.arange(len(capacity)) != c)
        row = out[r].copy()
        row[taken[: len(row)]] = 0.0
        total = float(row.sum())
        if total > 0:
            out[r] = row / total
    changed = rows[chosen != top[rows]]
    return out, changed.astype(np.int64)
