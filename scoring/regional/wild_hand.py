"""A :class:`~scoring.hand.Hand` seen through a wild tile: indicator → wild kind, the
standing tiles as natural counts plus wild copies, and readings as notation.

Kind indices are those of :mod:`scoring.tiles` (0..33).

>>> [T.code(next_kind(T.index(t))) for t in ("9m", "N", "P", "5p")]
['1m', 'E', 'C', '6p']
>>> set_text(WildSet("chow", (3, 4, 5), (5,)), "金")
'45m+金(6m)'
>>> set_text(WildSet("chow", (3, 4, 5), (5,)), "金", {4: "P"})  # a 白板 playing as 5m
'4mP+金(6m)'
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from scoring import tiles as T
from scoring.hand import Hand, HandError, Meld, normalize_code
from scoring.notation import fold_width
from scoring.wild import WildSet

WINDS_CYCLE = ("E", "S", "W", "N")
DRAGONS_CYCLE = ("C", "F", "P")


def next_kind(i: int) -> int:
    """The kind after ``i``: next rank in its suit (9 → 1), E → S → W → N → E,
    C → F → P → C."""
    if i < 27:
        return i - i % 9 + (i % 9 + 1) % 9
    code = T.code(i)
    cycle = WINDS_CYCLE if code in WINDS_CYCLE else DRAGONS_CYCLE
    return T.index(cycle[(cycle.index(code) + 1) % len(cycle)])


def kind_of(tile: str, what: str) -> int:
    """Kind index of a tile code given as ``what`` (e.g. "the gold indicator"), a Chinese
    keyboard's full-width characters read as in hand notation
    (:func:`~scoring.notation.fold_width`); HandError for flowers and unknown codes.

    >>> T.code(kind_of("５p", "the gold")), T.code(kind_of("　Ｅ ", "the 百搭"))
    ('5p', 'E')
    >>> kind_of("²p", "the gold")
    Traceback (most recent call last):
    ...
    scoring.hand.HandError: the gold '²p' is not a tile code
    """
    try:
        code = normalize_code(fold_width(tile).strip())
    except HandError:
        raise HandError(f"{what} {tile!r} is not a tile code") from None
    if T.is_flower(code):
        raise HandError(
            f"{what} {code} is a flower: flowers are replaced, never turned up as {what}"
        )
    return T.index(code)


def counts_and_wilds(
    standing: Iterable[str], wild_kind: int, face_of: Mapping[int, int] | None = None
) -> tuple[list[int], int]:
    """Natural count vector (34) and number of wild copies among ``standing`` tiles.
    ``face_of`` maps a physical kind to the kind it plays as (Xiamen: white → gold face)."""
    counts = [0] * T.NUM_KINDS
    wilds = 0
    for t in standing:
        i = T.index(t)
        if i == wild_kind:
            wilds += 1
        else:
            counts[(face_of or {}).get(i, i)] += 1
    return counts, wilds


def check_tile_count(hand: Hand, sizes: tuple[int, ...], title: str) -> None:
    """HandError unless standing + 3 per meld is one of ``sizes``."""
    n = hand.tile_count
    if n not in sizes:
        want = " or ".join(str(s) for s in sizes)
        raise HandError(
            f"{title}: a winning hand has {want} tiles (each kong counted as 3), this one has {n}"
        )


def check_robbed_tile(hand: Hand, wild_kind: int | None, wild_name: str,
                      melded_as: Mapping[int, int] | None = None) -> None:
    """HandError when a win robbing a kong (抢杠: ``kong`` with a discarder, the last
    standing tile the one robbed) cannot happen: the robbed tile is another player's
    fourth copy, added to his claimed pung, so the winner holds no other copy of it
    (standing or in a meld; physical tiles, as written), and, where wilds are never
    melded (Xiamen's golds; ``wild_kind``, named ``wild_name``; None where a wild melded
    is its own face, as Zhenjiang's 百搭), it is no wild: none is added to a pung.
    ``melded_as``: the physical kind of a meld tile written as another (Xiamen: a meld tile
    of the gold's kind is a 白板).

    >>> from scoring.notation import parse_hand
    >>> check_robbed_tile(parse_hand("123m456m789m234p567p9s5s"), 27, "金")
    >>> check_robbed_tile(parse_hand("123m456m789m234p567p99s"), 27, "金")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    scoring.hand.HandError: 抢杠 (robbing a kong) cannot happen: the winner holds another 9s ...
    """
    robbed = hand.standing[-1]
    kind = T.index(robbed)
    if wild_kind is not None and kind == wild_kind:
        raise HandError(f"抢杠 (robbing a kong) cannot happen on {robbed}: it is the "
                        f"{wild_name}, which is never melded, so no one adds it to a pung")
    as_of = melded_as or {}
    held = sum(1 for t in hand.standing[:-1] if T.index(t) == kind) + sum(
        1 for m in hand.melds for t in m.tiles
        if as_of.get(T.index(t), T.index(t)) == kind)
    if held:
        raise HandError(f"抢杠 (robbing a kong) cannot happen: the winner holds another "
                        f"{robbed} (the robbed tile is another player's fourth copy, added "
                        "to his pung)")


def meld_text(m: Meld) -> str:
    """Compact notation of a meld's faces: ``555p``, ``EEEE``."""
    return _compact([T.index(t) for t in m.tiles])


def set_text(s: WildSet, wild_name: str, shown: Mapping[int, str] | None = None) -> str:
    """Compact notation of a reading's set, wild copies shown with what they stand for:
    ``45m+金(6m)``; a natural set is just ``456m``. ``shown`` maps a natural face to the
    code of the tile that plays it, written in its place (Xiamen, gold 5m: ``{5m: "P"}``,
    a 白板 playing as the gold's face: ``4mP6m``, ``PPP``)."""
    natural = _compact(list(s.natural_faces), shown) if s.natural_faces else ""
    wild = "+".join(f"{wild_name}({T.code(f)})" for f in s.wild_faces)
    if natural and wild:
        return f"{natural}+{wild}"
    return natural or wild


def _compact(faces: list[int], shown: Mapping[int, str] | None = None) -> str:
    codes = [(shown or {}).get(f) or T.code(f) for f in sorted(faces)]
    if all(c[-1] == codes[0][-1] and len(c) == 2 for c in codes):
        return "".join(c[0] for c in codes) + codes[0][-1]
    return "".join(codes)
