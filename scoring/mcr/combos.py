"""Fans formed by combining sets (chows with chows, pungs with pungs).

The principles of seed 003 decide how sets combine: a fan made of 3 or 4 sets takes
precedence and its sets are not split again (不拆移); an unused set combines once with a
used one (套算一次); sets that formed a fan do not form the same fan again (不得相同),
so n chows give at most n-1 two-chow fans, and every chow with no partner lowers that
limit. When the limit is exceeded, repeated fans are dropped first, starting from
老少副, then 连六, 喜相逢, 一般高.

Set arguments are sorted tuples of tile indices: a chow's lowest tile, a pung's tile.
Each function returns ``(fan id, indices of the sets used)`` pairs and is cached by its
argument (the same chows always combine the same way).

>>> chow_fans((0, 0, 18, 18))  # 123m 123m 123s 123s
(('pure_double_chow', (0, 1)), ('mixed_double_chow', (0, 2)), ('pure_double_chow', (2, 3)))
"""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations

Found = list[tuple[str, tuple[int, ...]]]
FoundT = tuple[tuple[str, tuple[int, ...]], ...]

TWO_CHOW_ORDER = ("pure_double_chow", "mixed_double_chow", "short_straight", "two_terminal_chows")
"""Two-chow fans in the order a spare chow takes them, and in reverse the order they are
dropped when too many."""


def two_chow_fan(a: int, b: int) -> str | None:
    """一般高 / 喜相逢 / 连六 / 老少副 for chows starting at ``a`` and ``b``."""
    if a // 9 != b // 9:
        return "mixed_double_chow" if a % 9 == b % 9 else None
    d = a - b if a > b else b - a
    if d == 3:
        return "short_straight"
    if d == 6:
        return "two_terminal_chows"
    if d == 0:
        return "pure_double_chow"
    return None


def three_chow_fan(a: int, b: int, c: int) -> str | None:
    """The fan of three chows (sorted starts): 三色三步高, 三色三同顺, 花龙, 清龙, 一色三步高,
    一色三同顺."""
    sa, sb, sc = a // 9, b // 9, c // 9
    ra, rb, rc = a % 9, b % 9, c % 9
    if sa != sb and sa != sc and sb != sc:
        lo, mid, hi = sorted((ra, rb, rc))
        if lo + 1 == mid and mid + 1 == hi:
            return "mixed_shifted_chows"
        if lo == hi:
            return "mixed_triple_chow"
        if (lo, mid, hi) == (0, 3, 6):
            return "mixed_straight"
        return None
    if sa == sb == sc:
        if (ra, rb, rc) == (0, 3, 6):
            return "pure_straight"
        step = rb - ra
        if step in (1, 2) and rc - rb == step:
            return "pure_shifted_chows"
        if ra == rc:
            return "pure_triple_chow"
    return None


def four_chow_fan(t: list[int]) -> str | None:
    """一色四步高 or 一色四同顺 for four sorted chow starts."""
    if t[0] // 9 != t[3] // 9:
        return None
    step = t[1] - t[0]
    if step in (1, 2) and t[2] - t[1] == step and t[3] - t[2] == step:
        return "four_pure_shifted_chows"
    if t[0] == t[3]:
        return "quadruple_chow"
    return None


def _pairwise(t: list[int], limit: int) -> Found:
    pairs = []
    for i, j in combinations(range(len(t)), 2):
        fan = two_chow_fan(t[i], t[j])
        if fan is not None:
            pairs.append((fan, (i, j)))
    count = {f: sum(1 for p in pairs if p[0] == f) for f in TWO_CHOW_ORDER}
    total = len(pairs)
    keep_at_most = 1
    while total > limit and keep_at_most >= 0:
        for fan in reversed(TWO_CHOW_ORDER):
            while count[fan] > keep_at_most and total > limit:
                count[fan] -= 1
                total -= 1
        keep_at_most -= 1
    out: Found = []
    for fan, used in pairs:
        if count[fan] > 0:
            count[fan] -= 1
            out.append((fan, used))
    return out


@lru_cache(maxsize=65536)
def chow_fans(starts: tuple[int, ...]) -> FoundT:
    """Fans among the chows of a reading (``starts`` sorted). Indices refer to ``starts``."""
    return tuple(_chow_fans(list(starts)))


def _chow_fans(starts: list[int]) -> Found:
    n = len(starts)
    if n < 2:
        return []
    if n == 2:
        fan = two_chow_fan(starts[0], starts[1])
        return [(fan, (0, 1))] if fan else []
    if n == 4:
        fan = four_chow_fan(starts)
        if fan:
            return [(fan, (0, 1, 2, 3))]
    for trio in combinations(range(n), 3):
        fan = three_chow_fan(*(starts[i] for i in trio))
        if fan is None:
            continue
        out: Found = [(fan, trio)]
        if n == 4:
            spare = next(i for i in range(4) if i not in trio)
            partner: dict[str, int] = {}
            for i in trio:
                extra = two_chow_fan(starts[i], starts[spare])
                if extra is not None and extra not in partner:
                    partner[extra] = i
            for extra in TWO_CHOW_ORDER:
                if extra in partner:
                    out.append((extra, (partner[extra], spare)))
                    break
        return out
    if n == 3:
        return _pairwise(starts, 2)
    lonely = 0
    for i in range(4):
        if all(two_chow_fan(starts[i], starts[j]) is None for j in range(4) if j != i):
            lonely += 1
    limit = 3 - lonely
    return _pairwise(starts, limit) if limit > 0 else []


def two_pung_fan(a: int, b: int) -> str | None:
    """双同刻 or 双箭刻."""
    if a < 27 and b < 27:
        return "double_pung" if a % 9 == b % 9 else None
    if a >= 31 and b >= 31:
        return "two_dragon_pungs"
    return None


def three_pung_fan(a: int, b: int, c: int) -> str | None:
    """三色三节高, 三同刻, 一色三节高, 三风刻 or 大三元 (sorted tiles)."""
    if a < 27 and b < 27 and c < 27:
        sa, sb, sc = a // 9, b // 9, c // 9
        if sa != sb and sa != sc and sb != sc:
            lo, mid, hi = sorted((a % 9, b % 9, c % 9))
            if lo + 1 == mid and mid + 1 == hi:
                return "mixed_shifted_pungs"
            if lo == hi:
                return "triple_pung"
        elif sa == sb == sc and a + 1 == b and b + 1 == c:
            return "pure_shifted_pungs"
        return None
    if a >= 27 and c <= 30:
        return "big_three_winds"
    if (a, b, c) == (31, 32, 33):
        return "big_three_dragons"
    return None


@lru_cache(maxsize=65536)
def pung_fans(tiles: tuple[int, ...]) -> FoundT:
    """Fans among the pungs and kongs of a reading (``tiles`` sorted)."""
    return tuple(_pung_fans(list(tiles)))


def _pung_fans(tiles: list[int]) -> Found:
    n = len(tiles)
    if n < 2:
        return []
    if n == 4:
        if tiles[0] < 27 and tiles[0] // 9 == tiles[3] // 9 and tiles[3] - tiles[0] == 3 and (
            tiles[1] - tiles[0] == 1 and tiles[2] - tiles[1] == 1
        ):
            return [("four_pure_shifted_pungs", (0, 1, 2, 3))]
        if tiles == [27, 28, 29, 30]:
            return [("big_four_winds", (0, 1, 2, 3))]
    if n >= 3:
        for trio in combinations(range(n), 3):
            fan = three_pung_fan(*(tiles[i] for i in trio))
            if fan is None:
                continue
            out: Found = [(fan, trio)]
            if n == 4:
                spare = next(i for i in range(4) if i not in trio)
                for i in range(4):
                    if i == spare:
                        continue
                    extra = two_pung_fan(tiles[i], tiles[spare])
                    if extra is not None:
                        out.append((extra, (min(i, spare), max(i, spare))))
                        break
            return out
    out = []
    for i, j in combinations(range(n), 2):
        fan = two_pung_fan(tiles[i], tiles[j])
        if fan is not None:
            out.append((fan, (i, j)))
    return out
