"""Tile codes: the 34 kinds, the 8 bonus tiles, and their integer indices.

Codes follow ``../shared/rules/RULES.md``: ``1m``-``9m`` characters (万), ``1p``-``9p``
dots (饼), ``1s``-``9s`` bamboo (条), honours ``E S W N`` (winds 东南西北) and
``C F P`` (dragons 中 red, 发 green, 白 white); bonus tiles ``1f``-``8f``
(春夏秋冬 梅兰菊竹).

Tenhou order ``1z``-``7z`` is E S W N P F C, so ``5z`` is white (``P``) and ``7z`` is
red (``C``). Some tools number the dragons differently; tilecam always uses Tenhou's.

Every kind has an index 0..33 (``m`` 0-8, ``p`` 9-17, ``s`` 18-26, E S W N 27-30,
C F P 31-33); the engine works on indices and count vectors of length 34.

>>> index("5p"), code(31), tenhou_honour("5z")
(13, 'C', 'P')
>>> is_terminal_or_honour(index("9s")), is_terminal_or_honour(index("5s"))
(True, False)
"""

from __future__ import annotations

SUITS: tuple[str, ...] = ("m", "p", "s")
"""The numbered suits in index order."""

WINDS: tuple[str, ...] = ("E", "S", "W", "N")
"""Winds in seat order: east, south, west, north."""

DRAGONS: tuple[str, ...] = ("C", "F", "P")
"""Dragons: red (中), green (发), white (白)."""

HONOURS: tuple[str, ...] = WINDS + DRAGONS

TENHOU_HONOURS: tuple[str, ...] = ("E", "S", "W", "N", "P", "F", "C")
"""Honour code for Tenhou ``1z``..``7z`` (index 0 is ``1z``)."""

KINDS: tuple[str, ...] = tuple(f"{r}{s}" for s in SUITS for r in range(1, 10)) + HONOURS
"""The 34 tile kinds, in index order."""

FLOWERS: tuple[str, ...] = tuple(f"{n}f" for n in range(1, 9))
"""Bonus tiles: 1f-4f spring..winter, 5f-8f plum, orchid, chrysanthemum, bamboo."""

NUM_KINDS = 34
COPIES = 4

ZH_NAMES: dict[str, str] = {
    **{f"{r}m": f"{'一二三四五六七八九'[r - 1]}万" for r in range(1, 10)},
    **{f"{r}p": f"{'一二三四五六七八九'[r - 1]}饼" for r in range(1, 10)},
    **{f"{r}s": f"{'一二三四五六七八九'[r - 1]}条" for r in range(1, 10)},
    "E": "东", "S": "南", "W": "西", "N": "北", "C": "中", "F": "发", "P": "白",
    "1f": "春", "2f": "夏", "3f": "秋", "4f": "冬",
    "5f": "梅", "6f": "兰", "7f": "菊", "8f": "竹",
}  # fmt: skip

_INDEX: dict[str, int] = {c: i for i, c in enumerate(KINDS)}

WIND_INDEX: dict[str, int] = {w: i for i, w in enumerate(WINDS)}


def index(tile: str) -> int:
    """Index 0..33 of a kind code (``"5p"`` -> 13). Raises ``KeyError`` for others."""
    return _INDEX[tile]


def code(i: int) -> str:
    """Kind code of index ``i`` (0..33)."""
    return KINDS[i]


def is_kind(tile: str) -> bool:
    """True for one of the 34 kind codes (flowers are not kinds)."""
    return tile in _INDEX


def is_flower(tile: str) -> bool:
    """True for a bonus tile code ``1f``-``8f``."""
    return tile in FLOWERS


def tenhou_honour(tile: str) -> str:
    """Honour code for a Tenhou ``Nz`` code (``"5z"`` -> ``"P"``). Raises ``KeyError``."""
    if len(tile) != 2 or tile[1] != "z" or tile[0] not in "1234567":
        raise KeyError(tile)
    return TENHOU_HONOURS[int(tile[0]) - 1]


def suit_of(i: int) -> int:
    """Suit number of index ``i``: 0 m, 1 p, 2 s, 3 honours."""
    return i // 9 if i < 27 else 3


def rank_of(i: int) -> int:
    """Rank 1..9 of a numbered index, 0 for honours."""
    return i % 9 + 1 if i < 27 else 0


def is_honour(i: int) -> bool:
    """True for winds and dragons."""
    return i >= 27


def is_terminal(i: int) -> bool:
    """True for a 1 or 9 of a suit."""
    return i < 27 and i % 9 in (0, 8)


def is_terminal_or_honour(i: int) -> bool:
    """True for 幺九 tiles: terminals and honours."""
    return i >= 27 or i % 9 in (0, 8)


def sort_key(tile: str) -> int:
    """Sort key for codes: kinds by index, then flowers."""
    if tile in _INDEX:
        return _INDEX[tile]
    return NUM_KINDS + FLOWERS.index(tile)
