"""Waits (听牌) and shanten (向听) of a hand one tile short of a win.

:func:`formal_waits` lists every tile kind that completes the hand under any reading
(4 sets + pair, seven pairs, thirteen orphans, 全不靠, 组合龙), INCLUDING kinds whose
four copies the player already holds: that is the formal wait that decides 边张, 坎张
and 单钓将. :func:`shanten` says how many tile changes a hand is from ready.

>>> from scoring.tiles import index
>>> c = [0] * 34
>>> for t in "1m 2m 3m 4m 4m 4m 4m 6m 7m 8m 4p 5p 6p".split(): c[index(t)] += 1
>>> [i for i in formal_waits(c, 0)]
[0, 3]
"""

from __future__ import annotations

from functools import lru_cache

from scoring.mcr.decompose import (
    KNITTED,
    ORPHANS,
    SUIT_CACHE,
    honour_status,
    is_basic_complete,
    knitted_have,
    part_infos,
    suit_status,
)


@lru_cache(maxsize=SUIT_CACHE)
def _suit_additions(part: tuple[int, ...], honours: bool) -> tuple[tuple[int, int], ...]:
    """For one suit: (rank0, status after adding that tile) for every tile that could
    matter (held or within two ranks of a held tile); status as in ``suit_status``."""
    out = []
    size = len(part)
    for r in range(size):
        if honours:
            near = part[r] > 0
        else:
            near = any(part[k] for k in range(max(0, r - 2), min(size, r + 3)))
        if not near:
            continue
        added = list(part)
        added[r] += 1
        st = honour_status(tuple(added)) if honours else suit_status(tuple(added))
        if st:
            out.append((r, st))
    return tuple(out)


def basic_waits(counts: list[int], stop_at: int = 34) -> list[int]:
    """Kinds that complete ``counts`` (3n+1 tiles) as sets plus one pair.

    Kinds whose four copies are all in ``counts`` count too (the formal wait). Stops after
    ``stop_at`` waits.
    """
    parts = (tuple(counts[0:9]), tuple(counts[9:18]), tuple(counts[18:27]), tuple(counts[27:34]))
    base = (suit_status(parts[0]), suit_status(parts[1]), suit_status(parts[2]),
            honour_status(parts[3]))  # fmt: skip
    bad = [k for k in range(4) if not base[k]]
    if len(bad) > 1:
        return []
    out: list[int] = []
    for s in range(4):
        if bad and bad[0] != s:
            continue
        others = [base[k] for k in range(4) if k != s]
        if not all(others):
            continue
        # completing suit s: either s takes the pair and the others are sets only,
        # or s is sets only and exactly one other suit takes the pair
        others_sets = all(st & 1 for st in others)
        pair_elsewhere = any(
            others[j] & 2 and all(others[k] & 1 for k in range(3) if k != j) for j in range(3)
        )
        for r, st in _suit_additions(parts[s], s == 3):
            if (st & 2 and others_sets) or (st & 1 and pair_elsewhere):
                out.append(s * 9 + r)
                if len(out) >= stop_at:
                    return out
    return out


def seven_pairs_waits(counts: list[int]) -> list[int]:
    """The wait of a 13-tile seven-pairs hand (six pairs and a single), if any."""
    if sum(counts) != 13 or sum(n // 2 for n in counts) != 6:
        return []
    return [i for i, n in enumerate(counts) if n % 2]


def thirteen_orphans_waits(counts: list[int]) -> list[int]:
    """Waits of a 13-tile thirteen-orphans hand."""
    if sum(counts) != 13 or any(counts[i] for i in range(34) if i not in ORPHANS):
        return []
    missing = [i for i in ORPHANS if not counts[i]]
    if not missing:
        return list(ORPHANS)
    if len(missing) == 1 and any(counts[i] == 2 for i in ORPHANS):
        return missing
    return []


def honors_knitted_waits(counts: list[int]) -> list[int]:
    """Waits of a 13-tile 全不靠 / 七星不靠 hand."""
    if sum(counts) != 13 or any(n > 1 for n in counts):
        return []
    numbered = [i for i in range(27) if counts[i]]
    out: set[int] = set()
    for seq in KNITTED:
        if all(i in seq for i in numbered):
            out.update(i for i in list(seq) + list(range(27, 34)) if not counts[i])
    return sorted(out)


def knitted_waits(counts: list[int], n_melds: int) -> list[int]:
    """Waits of a hand that completes as 组合龙 + a set + a pair."""
    if n_melds > 1:
        return []
    out: set[int] = set()
    for seq in KNITTED:
        have = sum(1 for i in seq if counts[i])
        if have < 8:
            continue
        rest = list(counts)
        missing = [i for i in seq if not rest[i]]
        for i in seq:
            if rest[i]:
                rest[i] -= 1
        if missing:
            split = (tuple(rest[0:9]), tuple(rest[9:18]), tuple(rest[18:27]), tuple(rest[27:34]))
            if is_basic_complete(split):
                out.add(missing[0])
        else:
            out.update(basic_waits(rest))
    return sorted(out)


def formal_waits(counts: list[int], n_melds: int, stop_at: int = 34) -> list[int]:
    """Every kind that completes the hand (``counts``: standing tiles, 13 - 3*melds) under
    any reading, held-out kinds included. With ``stop_at``, may stop once that many are
    found (enough to tell a single wait from several)."""
    waits = set(basic_waits(counts, stop_at))
    if len(waits) >= stop_at or n_melds > 1:
        return sorted(waits)
    info = part_infos(counts)
    if n_melds == 0:
        if sum(i.pairs for i in info) == 6:
            waits.update(seven_pairs_waits(counts))
        if all(i.terminal_only for i in info):
            waits.update(thirteen_orphans_waits(counts))
        if all(i.most <= 1 for i in info):
            waits.update(honors_knitted_waits(counts))
    if max(knitted_have(info)) >= 8:
        waits.update(knitted_waits(counts, n_melds))
    return sorted(waits)


@lru_cache(maxsize=SUIT_CACHE)
def _suit_blocks(counts: tuple[int, ...], honours: bool) -> tuple[tuple[int, int, int], ...]:
    """Pareto set of (sets, partial sets, pair 0/1) one suit can hold at once (a second
    pair counts as a partial set)."""
    best = {(m, t + max(0, q - 1), min(q, 1)) for m, t, q in _blocks(counts, honours)}
    pruned = [b for b in best if not any(o != b and o[0] >= b[0] and o[1] >= b[1] and o[2] >= b[2]
                                         for o in best)]
    return tuple(sorted(pruned))


# smaller than SUIT_CACHE: each entry is a whole Pareto set, and 1 << 17 of them doubled
# a waits worker's memory (338 against 156 MB after 12,000 hands, session 73)
@lru_cache(maxsize=1 << 14)
def _blocks(counts: tuple[int, ...], honours: bool) -> frozenset[tuple[int, int, int]]:
    """Pareto set of (sets, partial sets, pairs) the tiles ``counts`` (of one suit) hold
    at once, its lowest tile placed first (or left alone) and the rest memoised: what is
    left of a suit after its lowest tile is shared by many hands (a hand one tile apart,
    the readings of one hand)."""
    i = next((k for k, n in enumerate(counts) if n), -1)
    if i < 0:
        return frozenset({(0, 0, 0)})
    size = len(counts)
    found: set[tuple[int, int, int]] = set()

    def take(taken: tuple[int, ...], dm: int, dt: int, dq: int) -> None:
        rest = list(counts)
        for k in taken:
            rest[k] -= 1
        for m, t, q in _blocks(tuple(rest), honours):
            found.add((m + dm, t + dt, q + dq))

    if counts[i] >= 3:
        take((i, i, i), 1, 0, 0)
    if not honours and i + 2 < size and counts[i + 1] and counts[i + 2]:
        take((i, i + 1, i + 2), 1, 0, 0)
    if counts[i] >= 2:
        take((i, i), 0, 0, 1)
    if not honours and i + 1 < size and counts[i + 1]:
        take((i, i + 1), 0, 1, 0)
    if not honours and i + 2 < size and counts[i + 2]:
        take((i, i + 2), 0, 1, 0)
    take((i,), 0, 0, 0)
    return frozenset(b for b in found if not any(
        o != b and o[0] >= b[0] and o[1] >= b[1] and o[2] >= b[2] for o in found))


def basic_shanten(counts: list[int], n_melds: int) -> int:
    """Shanten of the 4 sets + pair form (-1: complete, 0: ready)."""
    parts = [_suit_blocks(tuple(counts[0:9]), False), _suit_blocks(tuple(counts[9:18]), False),
             _suit_blocks(tuple(counts[18:27]), False), _suit_blocks(tuple(counts[27:34]), True)]
    best = 8
    for a in parts[0]:
        for b in parts[1]:
            for c in parts[2]:
                for d in parts[3]:
                    m = min(4, a[0] + b[0] + c[0] + d[0] + n_melds)  # a fifth set is spare
                    t = a[1] + b[1] + c[1] + d[1]
                    p = a[2] + b[2] + c[2] + d[2]
                    if p > 1:
                        t += p - 1
                        p = 1
                    if m + t > 4:
                        t = 4 - m
                    best = min(best, 8 - 2 * m - t - p)
    return best


def special_shanten(counts: list[int]) -> int:
    """Shanten of seven pairs, thirteen orphans and 全不靠 (concealed hands only)."""
    seven = 6 - min(sum(n // 2 for n in counts), 7)  # four of a kind is two pairs in MCR
    orphan_kinds = sum(1 for i in ORPHANS if counts[i])
    orphan_pair = any(counts[i] >= 2 for i in ORPHANS)
    orphans = 13 - orphan_kinds - (1 if orphan_pair else 0)
    knitted = 13 - max(
        sum(1 for i in seq if counts[i]) + sum(1 for i in range(27, 34) if counts[i])
        for seq in KNITTED
    )
    return min(seven, orphans, knitted)


def knitted_shanten(counts: list[int], n_melds: int) -> int:
    """Shanten of 组合龙 + a set + a pair."""
    if n_melds > 1:
        return 8
    best = 8
    for seq in KNITTED:
        rest = list(counts)
        have = 0
        for i in seq:
            if rest[i]:
                rest[i] -= 1
                have += 1
        best = min(best, (9 - have) + basic_shanten(rest, n_melds + 3))
    return best


def shanten(counts: list[int], n_melds: int) -> int:
    """Tile changes to ready over every form: 0 ready, -1 complete."""
    best = basic_shanten(counts, n_melds)
    if n_melds == 0 and best > 0:
        best = min(best, special_shanten(counts))
    if n_melds <= 1 and best > 0:
        best = min(best, knitted_shanten(counts, n_melds))
    return best

