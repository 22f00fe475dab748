"""Every reading (拆分) of a winning hand's standing tiles, table-driven and cached.

Tiles are indices 0..33 (see :mod:`scoring.tiles`); a hand is a count vector of
length 34. A set is a tuple ``(kind, tile, concealed)``: ``kind`` one of
:data:`CHOW` (``tile`` = its lowest tile), :data:`PUNG`, :data:`KONG`, :data:`PAIR`.

Each suit is split on its own: :func:`suit_readings` lists every way to cut one suit's
9 counts into chows, pungs and at most one pair, cached per count pattern
(``functools.lru_cache``), so a hand costs four cached look-ups and a small product.

Forms: ``basic`` (4 sets + pair), ``seven_pairs``, ``thirteen_orphans``,
``honors_knitted`` (全不靠/七星不靠) and ``knitted`` (组合龙 + a set + a pair).

>>> suit_readings((3, 1, 1, 0, 0, 0, 0, 0, 0))  # 11123: chow 123 and pair 11
((((0, 0),), 0),)
"""

from __future__ import annotations

from functools import lru_cache
from itertools import permutations
from typing import NamedTuple

CHOW, PUNG, KONG, PAIR = 0, 1, 2, 3

SUIT_CACHE = 1 << 17
"""Entries kept per per-suit cache: a bound, so arbitrary input cannot grow memory without
limit (a session of ordinary hands uses a few thousand)."""

Set = tuple[int, int, bool]
"""``(kind, tile, concealed)``."""

SuitReading = tuple[tuple[tuple[int, int], ...], int]
"""One suit's reading: ``((kind, rank0), ...)`` sets and the pair's rank0 (-1: none)."""

ORPHANS: tuple[int, ...] = (0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33)
"""The 13 terminal and honour kinds of 十三幺."""

KNITTED: tuple[tuple[int, ...], ...] = tuple(
    tuple(sorted(suit * 9 + start + 3 * k for suit, start in zip(range(3), order, strict=True)
                 for k in range(3)))
    for order in permutations((0, 1, 2))
)
"""The six 组合龙 (knitted straights): 147/258/369 spread over the three suits."""


class Reading(NamedTuple):
    """One reading of a complete hand.

    ``sets``: the melds and standing sets, the pair last (for ``seven_pairs`` the seven
    pairs; empty for ``thirteen_orphans`` and ``honors_knitted``). ``knitted``: the nine
    tile indices of the 组合龙 in ``knitted`` (and ``honors_knitted``) forms.
    """

    form: str
    sets: tuple[Set, ...]
    knitted: tuple[int, ...] = ()


@lru_cache(maxsize=SUIT_CACHE)
def suit_readings(counts: tuple[int, ...]) -> tuple[SuitReading, ...]:
    """All splits of one numbered suit (9 counts) into chows, pungs and at most one pair.

    Each split once: ``((kind, rank0) sorted, pair rank0 or -1)``.
    """
    found: set[SuitReading] = set()
    work = list(counts)

    def walk(sets: list[tuple[int, int]], pair: int) -> None:
        i = 0
        while i < 9 and work[i] == 0:
            i += 1
        if i == 9:
            found.add((tuple(sorted(sets)), pair))
            return
        if work[i] >= 3:
            work[i] -= 3
            sets.append((PUNG, i))
            walk(sets, pair)
            sets.pop()
            work[i] += 3
        if pair < 0 and work[i] >= 2:
            work[i] -= 2
            walk(sets, i)
            work[i] += 2
        if i <= 6 and work[i + 1] and work[i + 2]:
            work[i] -= 1
            work[i + 1] -= 1
            work[i + 2] -= 1
            sets.append((CHOW, i))
            walk(sets, pair)
            sets.pop()
            work[i] += 1
            work[i + 1] += 1
            work[i + 2] += 1

    walk([], -1)
    return tuple(sorted(found))


@lru_cache(maxsize=SUIT_CACHE)
def honour_reading(counts: tuple[int, ...]) -> SuitReading | None:
    """The only reading of the 7 honour counts (pungs and at most one pair), or None.

    Five of a kind (a pung and its pair) only arises when a wait is probed on a kind whose
    four copies the hand holds — the formal wait (:mod:`scoring.mcr.waits`), as for the
    suits."""
    sets: list[tuple[int, int]] = []
    pair = -1
    for i, n in enumerate(counts):
        if n == 3:
            sets.append((PUNG, i))
        elif n in (2, 5):
            if n == 5:
                sets.append((PUNG, i))
            if pair >= 0:
                return None
            pair = i
        elif n:
            return None
    return tuple(sets), pair


@lru_cache(maxsize=SUIT_CACHE)
def suit_status(counts: tuple[int, ...]) -> int:
    """Bit 1: the suit splits into sets only; bit 2: into sets and one pair."""
    status = 0
    for _, pair in suit_readings(counts):
        status |= 2 if pair >= 0 else 1
    return status


@lru_cache(maxsize=SUIT_CACHE)
def honour_status(counts: tuple[int, ...]) -> int:
    """:func:`suit_status` for the 7 honour counts."""
    reading = honour_reading(counts)
    if reading is None:
        return 0
    return 2 if reading[1] >= 0 else 1


def split_counts(counts: list[int]) -> tuple[tuple[int, ...], ...]:
    """The count vector as (m, p, s, honours) tuples."""
    return (tuple(counts[0:9]), tuple(counts[9:18]), tuple(counts[18:27]), tuple(counts[27:34]))


def is_basic_complete(parts: tuple[tuple[int, ...], ...]) -> bool:
    """True when the split counts form sets plus exactly one pair."""
    st = (suit_status(parts[0]), suit_status(parts[1]), suit_status(parts[2]),
          honour_status(parts[3]))  # fmt: skip
    if not (st[0] and st[1] and st[2] and st[3]):
        return False
    return any(st[j] & 2 and all(st[k] & 1 for k in range(4) if k != j) for j in range(4))


@lru_cache(maxsize=SUIT_CACHE)
def suit_sets(part: tuple[int, ...], suit: int) -> tuple[tuple[tuple[Set, ...], int], ...]:
    """:func:`suit_readings` (or :func:`honour_reading` for ``suit`` 3) with absolute tile
    indices: ``(concealed sets, pair tile or -1)`` per reading; empty when none."""
    base = suit * 9
    if suit == 3:
        reading = honour_reading(part)
        found: tuple[SuitReading, ...] = () if reading is None else (reading,)
    elif not any(part):
        found = (((), -1),)
    else:
        found = suit_readings(part)
    return tuple(
        (tuple((k, base + t, True) for k, t in sets), -1 if pair < 0 else base + pair)
        for sets, pair in found
    )


def basic_readings(counts: list[int]) -> list[tuple[Set, ...]]:
    """Every split of the standing counts into concealed sets and one pair (last)."""
    per = [
        suit_sets(tuple(counts[0:9]), 0),
        suit_sets(tuple(counts[9:18]), 1),
        suit_sets(tuple(counts[18:27]), 2),
        suit_sets(tuple(counts[27:34]), 3),
    ]
    if not (per[0] and per[1] and per[2] and per[3]):
        return []
    out: list[tuple[Set, ...]] = []
    hon_sets, hon_pair = per[3][0]
    for sm, pm in per[0]:
        for sp, pp in per[1]:
            if pm >= 0 and pp >= 0:
                continue
            for ss, ps in per[2]:
                pair = -1
                n = 0
                for p in (pm, pp, ps, hon_pair):
                    if p >= 0:
                        pair = p
                        n += 1
                if n == 1:
                    out.append(sm + sp + ss + hon_sets + ((PAIR, pair, True),))
    return out


class PartInfo(NamedTuple):
    """Cached facts of one suit's counts (or the 7 honour counts)."""

    even: bool
    """every count is 0, 2 or 4 (seven pairs)"""
    knit: tuple[int, int, int]
    """how many of 147 / 258 / 369 are present"""
    most: int
    """the largest count"""
    terminal_only: bool
    """a numbered suit holding only 1s and 9s (honours: True)"""
    pairs: int
    """pairs it holds (four of a kind is two)"""


@lru_cache(maxsize=SUIT_CACHE)
def part_info(part: tuple[int, ...]) -> PartInfo:
    """:class:`PartInfo` of one suit's counts, cached by count pattern."""
    numbered = len(part) == 9
    knit = (
        tuple(sum(1 for k in range(3) if part[start + 3 * k]) for start in range(3))
        if numbered
        else (0, 0, 0)
    )
    return PartInfo(
        all(n % 2 == 0 for n in part),
        (knit[0], knit[1], knit[2]),
        max(part),
        not numbered or not any(part[1:8]),
        sum(n // 2 for n in part),
    )


def part_infos(counts: list[int]) -> tuple[PartInfo, PartInfo, PartInfo, PartInfo]:
    """:func:`part_info` of m, p, s and the honours."""
    return (
        part_info(tuple(counts[0:9])),
        part_info(tuple(counts[9:18])),
        part_info(tuple(counts[18:27])),
        part_info(tuple(counts[27:34])),
    )


ORDERS: tuple[tuple[int, ...], ...] = tuple(permutations((0, 1, 2)))
"""For each 组合龙 in :data:`KNITTED`: which pattern (0 = 147, 1 = 258, 2 = 369) each suit
holds."""


def knitted_have(info: tuple[PartInfo, ...]) -> list[int]:
    """For each 组合龙 of :data:`KNITTED`, how many of its nine tiles are present."""
    return [info[0].knit[o[0]] + info[1].knit[o[1]] + info[2].knit[o[2]] for o in ORDERS]


def knitted_in(
    counts: list[int], info: tuple[PartInfo, ...] | None = None
) -> tuple[int, ...] | None:
    """The first 组合龙 whose nine tiles all appear in ``counts``, or None."""
    if info is None:
        info = part_infos(counts)
    for have, seq in zip(knitted_have(info), KNITTED, strict=True):
        if have == 9:
            return seq
    return None


def is_seven_pairs(counts: list[int], info: tuple[PartInfo, ...] | None = None) -> bool:
    """Seven pairs (four of a kind counts as two pairs) in 14 standing tiles."""
    if info is None:
        info = part_infos(counts)
    return all(i.even for i in info) and sum(i.pairs for i in info) == 7


def is_thirteen_orphans(counts: list[int]) -> bool:
    """The 13 orphans, one of them paired."""
    return sum(counts) == 14 and all(counts[i] for i in ORPHANS) and sum(
        counts[i] for i in ORPHANS
    ) == 14


def honors_knitted(counts: list[int]) -> tuple[int, ...] | None:
    """For 全不靠/七星不靠: the 组合龙 whose tiles hold all numbered tiles, or None."""
    if sum(counts) != 14 or max(counts) > 1:
        return None
    numbered = [i for i in range(27) if counts[i]]
    if not 7 <= len(numbered) <= 9:
        return None
    for seq in KNITTED:
        if all(i in seq for i in numbered):
            return seq
    return None


def readings(counts: list[int], melds: tuple[Set, ...]) -> list[Reading]:
    """All readings of a complete hand: standing ``counts`` (win tile included) + ``melds``.

    Special forms come first. A 组合龙 form is read as in the reference rulebook: when it
    exists, the basic form is not tried (a hand cannot be both).
    """
    out: list[Reading] = []
    n_melds = len(melds)
    info = part_infos(counts)
    if n_melds <= 1:
        seq = knitted_in(counts, info)
        if seq is not None:
            rest = list(counts)
            for i in seq:
                rest[i] -= 1
            for r in basic_readings(rest):
                sets = melds + r
                if len(sets) == 2:
                    out.append(Reading("knitted", sets, seq))
            if out:
                return out
    if n_melds == 0:
        if is_seven_pairs(counts, info):
            pairs: list[Set] = []
            for i, n in enumerate(counts):
                pairs.extend([(PAIR, i, True)] * (n // 2))
            out.append(Reading("seven_pairs", tuple(pairs)))
        elif all(i.terminal_only for i in info) and is_thirteen_orphans(counts):
            return [Reading("thirteen_orphans", ())]
        elif all(i.most <= 1 for i in info):
            hk = honors_knitted(counts)
            if hk is not None:
                return [Reading("honors_knitted", (), hk)]
    basic = basic_readings(counts)
    if len(basic) > 1:
        basic.sort(key=_reading_order)
    for r in basic:
        if len(r) + n_melds == 5:
            out.append(Reading("basic", melds + r))
    return out


_SUIT_ORDER = (0, 2, 1, 3)


def _reading_order(reading: tuple[Set, ...]) -> list[tuple[int, int, int]]:
    """Order in which readings are tried; the first of equal totals is kept.

    Sets sorted by tile in the order characters, bamboo, dots, honours (pungs before
    chows), compared lexicographically: the order the reference calculator finds them,
    so ties between readings with different fans resolve the same way.
    """
    keys = [
        (_SUIT_ORDER[t // 9] if t < 27 else 3, t % 9 if t < 27 else t - 27, 0 if k == PUNG else 1)
        for k, t, _ in reading
        if k != PAIR
    ]
    keys.sort()
    return keys
