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

from collections.abc import Mapping, Sequence
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


# --------------------------------------------------------------- the first best reading
#: A bound on the sets still to place (:func:`_most`), compared as a tuple:
#: ``(0, kind, wild copies)``: pungs only from that pung on, in reading order (by kind,
#: then by wild copies), chows any; ``(1, *faces, *wild_faces)``: no pung, and chows only
#: from that chow on.
_ANY: tuple[int, ...] = (0, -1, 0)
_CHOWS_ONLY: tuple[int, ...] = (1,)

#: Every chow with a natural tile, in reading order: (faces, wild faces).
_CHOWS: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...] = tuple(
    ((first, first + 1, first + 2), wild_faces)
    for first in range(27)
    if first % 9 <= 6
    for wild_faces in sorted(
        tuple(f for b, f in enumerate((first, first + 1, first + 2)) if mask >> b & 1)
        for mask in range(7)
    )
)


#: The chows of :data:`_CHOWS` that hold each kind, in the same order.
_CHOWS_THROUGH: tuple[tuple[tuple[tuple[int, ...], tuple[int, ...]], ...], ...] = tuple(
    tuple(c for c in _CHOWS if k in c[0]) for k in range(T.NUM_KINDS))


def best_reading(
    counts: Sequence[int],
    wilds: int = 0,
    *,
    free_face: int | None = None,
    pair: bool = True,
    weights: Sequence[int] | None = None,
) -> Decomposition | None:
    """The reading :func:`decompositions` lists first among those whose pungs weigh the
    most (``weights``: 34 non-negative ints, a pung of kind ``k`` weighing
    ``weights[k]``, pairs and chows nothing; default all 0: the first reading of all), or
    None when the hand is not complete — with two wilds or more, without listing the
    readings.

    A hand with wilds may have thousands of readings (17 tiles with four wilds: over
    2,000), while a scorer shows one (Zhenjiang the first, Xiamen the first with the most
    水). It is built set by set in the order :func:`decompositions` sorts readings in
    (the pair, then the pungs by kind and wild copies, then the chows, and a chow sorts
    before any pung in the same place): each time the least set with which the rest can
    still be placed at the best weight, asked of :func:`_most` (memoised, suit by suit).
    With one wild or none the readings are few, and listing them is quicker.

    >>> c = [0] * 34
    >>> c[0] = c[1] = c[2] = 3  # 111222333m and two wilds: 34 readings
    >>> first = best_reading(c, 2)
    >>> first == decompositions(c, 2)[0], [str(s) for s in first]
    (True, ['pair 1m 1m', 'chow 1m 2m 3m', 'chow 1m(wild) 2m 3m', 'chow 1m(wild) 2m 3m'])
    >>> [str(s) for s in best_reading(c, 2, weights=[1] * 34)]  # the most pungs
    ['pair 1m 1m', 'pung 1m 1m(wild) 1m(wild)', 'pung 2m 2m 2m', 'pung 3m 3m 3m']
    """
    key = _check(counts, wilds)
    if not _size_ok(key, wilds, pair):
        return None
    face = 0 if free_face is None else free_face
    if not 0 <= face < T.NUM_KINDS:
        raise ValueError(f"free_face must be a kind index 0..33, got {face}")
    weight = (0,) * T.NUM_KINDS if weights is None else tuple(int(w) for w in weights)
    if len(weight) != T.NUM_KINDS or any(w < 0 for w in weight):
        raise ValueError(f"weights must be {T.NUM_KINDS} numbers, none negative")
    if wilds <= 1:  # a few readings (each natural reading, the wild in one place): listed
        listed = decompositions(key, wilds, free_face=face, pair=pair)
        worth = [sum(weight[s.kind] for s in r if s.shape == "pung") for r in listed]
        return listed[worth.index(max(worth))] if listed else None
    left = _most(key, wilds, pair, face, weight, _ANY)
    if left is None:
        return None
    sets: list[WildSet] = []
    rest, spare = key, wilds
    if pair:
        rest, spare = _least_pair(rest, spare, face, weight, left, sets)
    floor = _ANY
    # a chow in this place sorts before any pung: pungs only while the rest needs one
    while _most(rest, spare, False, face, weight, _CHOWS_ONLY) != left:
        rest, spare, floor = _least_pung(rest, spare, face, weight, left, floor, sets)
        left -= weight[sets[-1].kind]
    floor = _CHOWS_ONLY
    while spare or any(rest):
        rest, spare, floor = _least_chow(rest, spare, face, weight, floor, sets)
    return tuple(sets)


def _least_pair(
    counts: tuple[int, ...], wilds: int, face: int, weight: tuple[int, ...], left: int,
    sets: list[WildSet],
) -> tuple[tuple[int, ...], int]:
    """Append to ``sets`` the least pair beside which the rest makes ``left``; the rest."""
    for k in range(T.NUM_KINDS):
        for need in (0, 1, 2):  # wild copies in it: 5p 5p < 5p 5p(wild) < two wilds
            nat = 2 - need
            if counts[k] < nat or wilds < need or (not nat and k != face):
                continue
            rest = _take(counts, {k: nat})
            if _most(rest, wilds - need, False, face, weight, _ANY) == left:
                sets.append(WildSet("pair", (k, k), (k,) * need))
                return rest, wilds - need
    raise AssertionError("a complete hand has a pair")  # pragma: no cover


def _least_pung(
    counts: tuple[int, ...], wilds: int, face: int, weight: tuple[int, ...], left: int,
    floor: tuple[int, ...], sets: list[WildSet],
) -> tuple[tuple[int, ...], int, tuple[int, ...]]:
    """Append to ``sets`` the least pung from ``floor`` on with which the rest makes
    ``left``; the rest and the new floor."""
    for k in range(max(floor[1], 0), T.NUM_KINDS):
        for need in (0, 1, 2, 3):
            nat = 3 - need
            bound = (0, k, need)
            if bound < floor or counts[k] < nat or wilds < need or (not nat and k != face):
                continue
            rest = _take(counts, {k: nat})
            after = _most(rest, wilds - need, False, face, weight, bound)
            if after is not None and after + weight[k] == left:
                sets.append(WildSet("pung", (k, k, k), (k,) * need))
                return rest, wilds - need, bound
    raise AssertionError("some pung makes the weight left")  # pragma: no cover


def _least_chow(
    counts: tuple[int, ...], wilds: int, face: int, weight: tuple[int, ...],
    floor: tuple[int, ...], sets: list[WildSet],
) -> tuple[tuple[int, ...], int, tuple[int, ...]]:
    """Append to ``sets`` the least chow from ``floor`` on with which the rest is chows
    too; the rest and the new floor. The least chow holds the lowest natural tile left
    (chows that start above it leave it out, and one below it is of wilds alone)."""
    i = _first(counts, 0)
    for faces, wild_faces in _CHOWS_THROUGH[i] if i >= 0 else ():
        bound = (1, *faces, *wild_faces)
        natural = [f for f in faces if f not in wild_faces]
        if bound < floor or len(wild_faces) > wilds or not all(counts[f] for f in natural):
            continue
        rest = _take(counts, dict.fromkeys(natural, 1))
        if _most(rest, wilds - len(wild_faces), False, face, weight, bound) is not None:
            sets.append(WildSet("chow", faces, wild_faces))
            return rest, wilds - len(wild_faces), bound
    raise AssertionError("the rest is chows")  # pragma: no cover


#: The suits' places in a count vector: (first kind, kinds, honours).
_SUITS = ((0, 9, False), (9, 9, False), (18, 9, False), (27, 7, True))


@lru_cache(maxsize=1 << 14)
def _most(
    counts: tuple[int, ...], wilds: int, pair: bool, face: int, weight: tuple[int, ...],
    floor: tuple[int, ...],
) -> int | None:
    """The most pung weight among the readings of ``counts`` and ``wilds`` (with the pair
    when ``pair``; sets of wilds alone are of ``face``) whose sets keep within ``floor``
    (see :data:`_ANY`); None when there is none.

    A set with a natural tile keeps to that tile's suit, so each suit is asked on its own
    (:func:`_suit_most`: what it can make with each number of wilds, with the pair or
    not; cached, and a hand one tile from another shares all but one suit's answer), and
    the wilds left over make sets of ``face`` alone."""
    made: dict[tuple[int, int], int] = {(0, 0): 0}  # (wilds used, pairs) -> most weight
    for first, size, honours in _SUITS:
        part = counts[first:first + size]
        if not any(part):
            continue
        local = _suit_floor(floor, first, size, part)
        can = _suit_most(part, honours, wilds, local, weight[first:first + size])
        joined: dict[tuple[int, int], int] = {}
        for (used, pairs), value in made.items():
            for more, has_pair, gain in can:
                key = (used + more, pairs + has_pair)
                if key[0] <= wilds and key[1] <= pair and joined.get(key, -1) < value + gain:
                    joined[key] = value + gain
        if not joined:
            return None
        made = joined
    best: int | None = None
    for (used, pairs), value in made.items():
        spare = wilds - used - (2 if pair and not pairs else 0)
        if spare < 0 or spare % 3 or (spare and (0, face, 3) < floor):
            continue
        value += spare // 3 * weight[face]
        if best is None or value > best:
            best = value
    return best


def _suit_floor(floor: tuple[int, ...], first: int, size: int,
                part: tuple[int, ...]) -> tuple[int, ...]:
    """``floor`` (kind indices) seen from the suit of kinds ``first`` to
    ``first + size - 1`` (ranks 0 to ``size - 1``) holding ``part``."""
    if len(floor) > 1:
        low = floor[1]
        if low < first:
            floor = _ANY if floor[0] == 0 else _CHOWS_ONLY
        elif low >= first + size:  # past this suit: none of its sets of that shape
            floor = (0, size, 0) if floor[0] == 0 else (1, size, 0, 0)
        else:
            floor = (floor[0], *(x - first for x in floor[1:]))
    return _rank_floor(next((r for r, n in enumerate(part) if n), -1), floor)


def _rank_floor(i: int, floor: tuple[int, ...]) -> tuple[int, ...]:
    """``floor`` (ranks) as it bears on a suit's tiles whose lowest is of rank ``i`` (-1:
    none): one that every set they can hold keeps within is none (so that their answers
    are cached once)."""
    if i < 0:
        return _ANY
    if floor[0] == 0:
        return _ANY if (floor[1], floor[2]) <= (i, 0) else floor  # no pung below rank i
    return _CHOWS_ONLY if len(floor) > 1 and floor[1] < i - 2 else floor  # nor such a chow


@lru_cache(maxsize=1 << 14)
def _suit_most(
    part: tuple[int, ...], honours: bool, wilds: int, floor: tuple[int, ...],
    weight: tuple[int, ...],
) -> tuple[tuple[int, int, int], ...]:
    """What one suit's natural tiles ``part`` (by rank) can make, all of them in sets (and
    one pair, or none) of their suit within ``floor`` (ranks, as :func:`_rank_floor`
    gives it): (wilds used, at most ``wilds``; 1 with the pair, else 0; the most pung
    weight) for each that can be."""
    if not any(part):
        return ((0, 0, 0),)
    best: dict[tuple[int, int], int] = {}
    for shape, key, rest, low, need, pairs in _suit_moves(part, honours):
        if need > wilds or (shape and key < floor):  # the pair is bound by no floor
            continue
        gain = weight[key[1]] if shape == 1 else 0
        for used, has_pair, value in _suit_most(rest, honours, wilds,
                                                _rank_floor(low, floor), weight):
            made = (used + need, has_pair + pairs)
            if made[0] <= wilds and made[1] <= 1 and best.get(made, -1) < value + gain:
                best[made] = value + gain
    return tuple((used, has_pair, value) for (used, has_pair), value in sorted(best.items()))


@lru_cache(maxsize=1 << 14)
def _suit_moves(
    part: tuple[int, ...], honours: bool
) -> tuple[tuple[int, tuple[int, ...], tuple[int, ...], int, int, int], ...]:
    """Every set of its suit that can hold ``part``'s lowest tile: (0 pair, 1 pung or 2
    chow; its place in reading order as a bound of :data:`_ANY`'s form, by rank; the
    tiles left and the lowest rank among them, -1 for none; wild copies in it; 1 for the
    pair, else 0)."""
    i = next(r for r, n in enumerate(part) if n)
    out: list[tuple[int, tuple[int, ...], tuple[int, ...], int, int, int]] = []

    def take(ranks: list[int]) -> tuple[tuple[int, ...], int]:
        rest = list(part)
        for r in ranks:
            rest[r] -= 1
        return tuple(rest), next((r for r, n in enumerate(rest) if n), -1)

    for nat in (2, 1):
        if part[i] >= nat:
            out.append((0, (), *take([i] * nat), 2 - nat, 1))
    for nat in (3, 2, 1):
        if part[i] >= nat:
            out.append((1, (0, i, 3 - nat), *take([i] * nat), 3 - nat, 0))
    for low in range(max(0, i - 2), min(i, len(part) - 3) + 1) if not honours else ():
        faces = (low, low + 1, low + 2)
        above = [f for f in faces if f > i]
        for mask in range(1 << len(above)):
            wild_faces = [f for f in faces if f < i] + [
                f for b, f in enumerate(above) if mask >> b & 1]
            natural = [f for f in faces if f not in wild_faces]
            if all(part[f] for f in natural):
                out.append((2, (1, *faces, *wild_faces), *take(natural), len(wild_faces), 0))
    return tuple(out)


def shanten(counts: Sequence[int], wilds: int = 0) -> int:
    """Tiles from ready (向听) of a hand of ``3n + 1`` tiles (naturals plus wilds): 0 when
    ready, else the fewest natural tiles that must be exchanged before it is ready; of a
    hand of ``3n + 2`` (one that drew), its best discard's (0: a discard leaves it ready,
    a complete hand too).

    A hand is ready iff adding one wild completes it, so exchanging ``k`` naturals makes it
    ready iff the kept naturals plus ``3n + 2 - kept - wilds`` wilds are complete; this
    returns ``naturals - (most naturals n sets and a pair can keep)``. A hand of ``3n + 2``
    with ``d`` naturals that n sets and a pair cannot keep is complete when ``d`` is 0,
    and discarding one of them leaves a hand ``d - 1`` from ready (no discard does better:
    one fewer natural keeps at most as many).

    >>> c = [0] * 34
    >>> for i in (0, 1, 9, 10, 11, 27, 27, 30):  # 1m 2m 1p 2p 3p E E N: 8, one that drew
    ...     c[i] += 1
    >>> shanten(c)  # discard N: ready on 3m
    0
    >>> far = [0] * 34
    >>> for i in (0, 4, 8, 9, 13, 17, 18, 22):  # 1m 5m 9m 1p 5p 9p 1s 5s
    ...     far[i] += 1
    >>> shanten(far), min(shanten([n - (i == k) for i, n in enumerate(far)]) for k in
    ...                   (0, 4, 8, 9, 13, 17, 18, 22))
    (4, 4)
    """
    key = _check(counts, wilds)
    total = sum(key) + wilds
    if total % 3 == 0:
        raise ValueError(f"shanten needs 3n + 1 or 3n + 2 tiles, got {total}")
    return max(0, sum(key) - _kept_by_suit(key, total // 3) - (total % 3 == 2))


def shanten_after_draws(counts: list[int], wilds: int, wild: int, draws: Sequence[str],
                        face: Mapping[int, int] | None = None) -> tuple[int, ...]:
    """:func:`shanten` of the hand ``counts`` (naturals by kind) with ``wilds`` after it
    draws each tile of ``draws`` (codes), one for each: a tile of the ``wild`` kind drawn
    is one more wild, another counts as the kind ``face`` maps it to (Xiamen's 白板 as the
    gold's face), else its own. ``counts`` is left as given.

    >>> c = [0] * 34
    >>> for i in (0, 1, 9, 10, 11, 27, 27):  # 1m 2m 1p 2p 3p E E: one short, ready on 3m
    ...     c[i] += 1
    >>> shanten_after_draws(c, 0, 33, ["3m", "N", "C"])  # C is the wild
    (0, 0, 0)
    """
    out = []
    for tile in draws:
        k = T.index(tile)
        if k == wild:
            out.append(shanten(counts, wilds + 1))
            continue
        k = face.get(k, k) if face else k
        counts[k] += 1
        out.append(shanten(counts, wilds))
        counts[k] -= 1
    return tuple(out)


def _kept_by_suit(counts: tuple[int, ...], sets: int) -> int:
    """:func:`_kept` of ``sets`` sets and a pair, summed over the suits and the honours
    (no set or pair spans two of them), each one's tiles cached apart: a hand one tile
    apart from another shares three of its four."""
    free = [0] * (sets + 1)  # most naturals kept by at most m sets, the pair not placed
    paired = [-1] * (sets + 1)  # ... the pair placed
    for lo, size, _honours in _SUITS:
        part = counts[lo:lo + size]
        if not any(part):
            continue
        alone, with_pair = _suit_kept(lo, part, sets)
        paired = [max(max(paired[u] + alone[m - u], free[u] + with_pair[m - u])
                      for u in range(m + 1)) for m in range(sets + 1)]
        free = [max(free[u] + alone[m - u] for u in range(m + 1)) for m in range(sets + 1)]
    return max(free[sets], paired[sets])


@lru_cache(maxsize=1 << 14)
def _suit_kept(lo: int, part: tuple[int, ...], sets: int
               ) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """:func:`_kept` of one suit's ``part`` (kinds from ``lo``) by at most 0 … ``sets``
    sets, without and with a pair."""
    whole = (0,) * lo + part + (0,) * (T.NUM_KINDS - lo - len(part))
    return (tuple(_kept(whole, m, False) for m in range(sets + 1)),
            tuple(_kept(whole, m, True) for m in range(sets + 1)))


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
