"""Wild tiles in hand decomposition: sets and a pair with any number of wild copies.

A *wild* (Xiamen 金, Zhenjiang 百搭) stands in for any of the 34 kinds, its own included.
The functions here work on plain count vectors: ``counts`` is a sequence of 34 ints in
the kind order of :mod:`scoring.tiles` (``1m``-``9m`` 0-8, ``1p``-``9p`` 9-17, ``1s``-``9s``
18-26, then the seven honours 27-33, which never form a chow); ``wilds`` is how many wild
copies are held besides those natural tiles. A complete hand is ``n`` sets (chow or
pung) and one pair, ``3n + 2`` tiles in all.

A wild may stand for a copy beyond the four that exist (it is a stand-in, not a physical
copy), so completeness is exactly: *some substitution of the wilds makes a complete
natural hand*. Sets made only of wilds are read as the wild kind's own face
(``free_face``), the reading a player would announce.

The search is memoised on ``(remaining counts, wilds left, pair still needed)`` and always
places the lowest remaining natural tile first, so its cost grows with the number of
distinct placements of the natural tiles, never as ``34 ** wilds``.

>>> c = [0] * 34
>>> for i in (0, 1, 9, 10, 11, 27, 27):  # 1m 2m 1p 2p 3p E E + one wild
...     c[i] += 1
>>> is_complete(c, 1)
True
>>> [str(s) for s in decompositions(c, 1)[0]]
['pair E E', 'chow 1m 2m 3m(wild)', 'chow 1p 2p 3p']
>>> is_complete(c, 0)
False
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from scoring import tiles as T

SetShape = Literal["pair", "pung", "chow"]

_SHAPE_ORDER = {"pair": 0, "pung": 1, "chow": 2}


@dataclass(frozen=True, order=True)
class WildSet:
    """One set (or the pair) of a decomposition.

    ``faces``: the kind index (0..33) each of its tiles stands for, sorted (2 for a pair,
    3 for a chow or pung). ``wild_faces``: the faces supplied by wild copies (a sub-multiset
    of ``faces``, sorted; empty when the set is natural).
    """

    shape: SetShape
    faces: tuple[int, ...]
    wild_faces: tuple[int, ...] = ()

    @property
    def uses_wild(self) -> bool:
        """True when at least one tile of the set is a wild copy."""
        return bool(self.wild_faces)

    @property
    def natural_faces(self) -> tuple[int, ...]:
        """The faces filled by natural tiles (``faces`` minus ``wild_faces``)."""
        rest = list(self.faces)
        for f in self.wild_faces:
            rest.remove(f)
        return tuple(rest)

    @property
    def kind(self) -> int:
        """The lowest face: the kind of a pair/pung, the first tile of a chow."""
        return self.faces[0]

    def codes(self) -> tuple[str, ...]:
        """Tile codes of the faces (``("1m", "2m", "3m")``)."""
        return tuple(T.code(f) for f in self.faces)

    def __str__(self) -> str:
        marks = list(self.wild_faces)
        parts = []
        for f in reversed(self.faces):  # mark the last copies: "pair 1m 1m(wild)"
            if f in marks:
                marks.remove(f)
                parts.append(f"{T.code(f)}(wild)")
            else:
                parts.append(T.code(f))
        return f"{self.shape} {' '.join(reversed(parts))}"

    def to_dict(self) -> dict[str, object]:
        """JSON-ready form: shape, tile codes, and the codes supplied by wilds."""
        return {
            "shape": self.shape,
            "tiles": list(self.codes()),
            "wild": [T.code(f) for f in self.wild_faces],
        }


Decomposition = tuple[WildSet, ...]
"""The pair and the sets of one reading, sorted (pair first)."""


def _check(counts: Sequence[int], wilds: int) -> tuple[int, ...]:
    if len(counts) != T.NUM_KINDS:
        raise ValueError(f"counts must have {T.NUM_KINDS} entries, got {len(counts)}")
    if any(c < 0 for c in counts) or wilds < 0:
        raise ValueError("tile counts and the number of wilds must not be negative")
    return tuple(int(c) for c in counts)


def _size_ok(counts: tuple[int, ...], wilds: int, pair: bool) -> bool:
    return (sum(counts) + wilds) % 3 == (2 if pair else 0)


def is_complete(counts: Sequence[int], wilds: int = 0, *, pair: bool = True) -> bool:
    """True if the natural ``counts`` (length 34) plus ``wilds`` wild copies form sets and
    exactly one pair (any number of sets, ``3n + 2`` tiles); with ``pair=False``, sets
    only (``3n`` tiles)."""
    key = _check(counts, wilds)
    if not _size_ok(key, wilds, pair):
        return False
    return _complete(key, wilds, pair)


def decompositions(
    counts: Sequence[int], wilds: int = 0, *, free_face: int | None = None, pair: bool = True
) -> list[Decomposition]:
    """Every distinct reading of a complete hand as sets plus one pair (empty list when
    the hand is not complete), each sorted with the pair first; with ``pair=False``,
    readings as sets only.

    ``free_face``: the kind a set made only of wilds stands for (default: the lowest kind,
    ``1m``; rule sets pass the wild kind itself).
    """
    key = _check(counts, wilds)
    if not _size_ok(key, wilds, pair):
        return []
    face = 0 if free_face is None else free_face
    if not 0 <= face < T.NUM_KINDS:
        raise ValueError(f"free_face must be a kind index 0..33, got {face}")
    found = _readings(key, 0, wilds, pair, face)
    return sorted(found)


def completing_kinds(counts: Sequence[int], wilds: int = 0) -> list[int]:
    """Kind indices whose addition (as a natural tile) makes the hand complete: the waits
    of a ready hand of ``3n + 1`` tiles. With a wild held this may be all 34 kinds."""
    key = _check(counts, wilds)
    out = []
    for k in range(T.NUM_KINDS):
        trial = list(key)
        trial[k] += 1
        if is_complete(trial, wilds):
            out.append(k)
    return out


def _first(counts: tuple[int, ...], start: int) -> int:
    for i in range(start, T.NUM_KINDS):
        if counts[i]:
            return i
    return -1


def _take(counts: tuple[int, ...], taken: dict[int, int]) -> tuple[int, ...]:
    out = list(counts)
    for i, n in taken.items():
        out[i] -= n
    return tuple(out)


def _chows_through(i: int) -> list[int]:
    """First indices of the chows that contain kind ``i`` (none for honours)."""
    if i >= 27:
        return []
    r = i % 9
    return [i - p for p in (0, 1, 2) if 0 <= r - p <= 6]


def _options(
    counts: tuple[int, ...], i: int, wilds: int, pair: bool
) -> list[tuple[WildSet, tuple[int, ...], int, bool]]:
    """Every way to place the lowest natural tile ``i``: (set, counts after, wilds after,
    pair still needed). Kinds below ``i`` are exhausted, so they can only come from wilds."""
    c = counts[i]
    out: list[tuple[WildSet, tuple[int, ...], int, bool]] = []
    if pair:
        for nat in (2, 1):
            need = 2 - nat
            if c >= nat and wilds >= need:
                s = WildSet("pair", (i, i), (i,) * need)
                out.append((s, _take(counts, {i: nat}), wilds - need, False))
    for nat in (3, 2, 1):
        need = 3 - nat
        if c >= nat and wilds >= need:
            s = WildSet("pung", (i, i, i), (i,) * need)
            out.append((s, _take(counts, {i: nat}), wilds - need, pair))
    for first in _chows_through(i):
        faces = (first, first + 1, first + 2)
        # Faces below i must be wild; i itself is natural; faces above may be either.
        fixed_wild = [f for f in faces if f < i]
        above = [f for f in faces if f > i]
        for mask in range(1 << len(above)):
            wild_faces = list(fixed_wild)
            taken = {i: 1}
            ok = True
            for b, f in enumerate(above):
                if mask >> b & 1:
                    wild_faces.append(f)
                elif counts[f] > 0:
                    taken[f] = 1
                else:
                    ok = False
                    break
            if not ok or len(wild_faces) > wilds:
                continue
            s = WildSet("chow", faces, tuple(sorted(wild_faces)))
            out.append((s, _take(counts, taken), wilds - len(wild_faces), pair))
    return out


@lru_cache(maxsize=1 << 16)
def _complete(counts: tuple[int, ...], wilds: int, pair: bool) -> bool:
    i = _first(counts, 0)
    if i < 0:
        return wilds % 3 == (2 if pair else 0) and (wilds >= 2 or not pair)
    return any(_complete(rest, w, p) for _s, rest, w, p in _options(counts, i, wilds, pair))


@lru_cache(maxsize=1 << 14)
def _readings(
    counts: tuple[int, ...], start: int, wilds: int, pair: bool, face: int
) -> frozenset[Decomposition]:
    i = _first(counts, start)
    if i < 0:
        if pair:
            if wilds < 2 or (wilds - 2) % 3:
                return frozenset()
            sets = [WildSet("pair", (face, face), (face, face))]
            wilds -= 2
        else:
            if wilds % 3:
                return frozenset()
            sets = []
        sets += [WildSet("pung", (face,) * 3, (face,) * 3)] * (wilds // 3)
        return frozenset({tuple(sets)})
    if not _complete(counts, wilds, pair):
        return frozenset()
    found: set[Decomposition] = set()
    for s, rest, w, p in _options(counts, i, wilds, pair):
        for tail in _readings(rest, i, w, p, face):
            found.add(tuple(sorted((s, *tail), key=_set_key)))
    return frozenset(found)


def _set_key(s: WildSet) -> tuple[int, tuple[int, ...], tuple[int, ...]]:
    return (_SHAPE_ORDER[s.shape], s.faces, s.wild_faces)


def shanten(counts: Sequence[int], wilds: int = 0) -> int:
    """Tiles from ready (向听) of a hand of ``3n + 1`` tiles (naturals plus wilds): 0 when
    ready, else the fewest natural tiles that must be exchanged before it is ready.

    A hand is ready iff adding one wild completes it, so exchanging ``k`` naturals makes it
    ready iff the kept naturals plus ``3n + 2 - kept - wilds`` wilds are complete; this
    returns ``naturals - (most naturals n sets and a pair can keep)``.
    """
    key = _check(counts, wilds)
    total = sum(key) + wilds
    if total % 3 != 1:
        raise ValueError(f"shanten needs 3n + 1 tiles, got {total}")
    return sum(key) - _kept(key, total // 3, True)


@lru_cache(maxsize=1 << 15)
def _kept(counts: tuple[int, ...], sets: int, pair: bool) -> int:
    """Most natural tiles that ``sets`` sets and (if ``pair``) a pair can use, the other
    places filled by wilds."""
    i = _first(counts, 0)
    if i < 0 or (sets == 0 and not pair):
        return 0
    best = _kept(_take(counts, {i: counts[i]}), sets, pair)  # exchange every copy of i
    c = counts[i]
    if pair:
        nat = min(c, 2)
        best = max(best, nat + _kept(_take(counts, {i: nat}), sets, False))
    if sets:
        nat = min(c, 3)
        best = max(best, nat + _kept(_take(counts, {i: nat}), sets - 1, pair))
        for first in _chows_through(i):
            upper = [f for f in (first, first + 1, first + 2) if f > i and counts[f] > 0]
            for mask in range(1 << len(upper)):
                taken = {i: 1} | {f: 1 for b, f in enumerate(upper) if mask >> b & 1}
                best = max(best, len(taken) + _kept(_take(counts, taken), sets - 1, pair))
    return best
