"""Names and tile traits of sets and tiles, precomputed as tables (indices 0..33).

>>> set_text(0, 0), set_text(1, 27), set_text(3, 13)
('123m', 'EEE', '55p')
"""

from __future__ import annotations

from functools import cache

from scoring import tiles as T
from scoring.mcr.decompose import CHOW, KONG, PAIR, PUNG

TERMINAL_OR_HONOUR: tuple[bool, ...] = tuple(T.is_terminal_or_honour(i) for i in range(34))
REVERSIBLE: frozenset[int] = frozenset(
    [T.index(f"{r}p") for r in (1, 2, 3, 4, 5, 8, 9)]
    + [T.index(f"{r}s") for r in (2, 4, 5, 6, 8, 9)]
    + [T.index("P")]
)
"""推不倒: tiles that look the same upside down (1234589p, 245689s, white dragon)."""
GREEN: frozenset[int] = frozenset([T.index(f"{r}s") for r in (2, 3, 4, 6, 8)] + [T.index("F")])
"""绿一色 tiles: 23468s and the green dragon."""
WIND_TILES = range(27, 31)
DRAGON_TILES = range(31, 34)


@cache
def set_text(kind: int, tile: int) -> str:
    """Notation of a set: chow ``123m``, pung ``555p``, kong ``EEEE``, pair ``55p``."""
    if kind == CHOW:
        return "".join(str(tile % 9 + 1 + k) for k in range(3)) + T.SUITS[tile // 9]
    n = {PUNG: 3, KONG: 4, PAIR: 2}[kind]
    code = T.code(tile)
    if tile >= 27:
        return code * n
    return code[0] * n + code[1]


def set_tiles(kind: int, tile: int) -> tuple[int, ...]:
    """Tile indices in a set."""
    if kind == CHOW:
        return (tile, tile + 1, tile + 2)
    return (tile,) * {PUNG: 3, KONG: 4, PAIR: 2}[kind]


def knitted_text(seq: tuple[int, ...]) -> tuple[str, ...]:
    """The 组合龙 as its three knitted parts (``147m``, ``258p``, ``369s``)."""
    parts: list[str] = []
    for suit in range(3):
        ranks = [i % 9 + 1 for i in seq if i // 9 == suit]
        parts.append("".join(str(r) for r in ranks) + T.SUITS[suit])
    return tuple(parts)
