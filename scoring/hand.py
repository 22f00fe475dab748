"""The hand as data: melds (claimed or concealed-kong sets), standing tiles, flowers.

``Hand`` and ``Meld`` are frozen dataclasses of tile codes (see :mod:`scoring.tiles`).
Constructors validate codes, meld shapes and copy counts (at most 4 of a kind across
melds and standing tiles) and raise :class:`HandError` naming the problem. They do
NOT check the number of tiles: that depends on the rule set (14 or 17 for a win).

A meld's tile may be written as the kind it plays while it is another tile: under Xiamen
rules a meld's tile of the gold's kind is a 白板 (``P``) standing in. ``Hand.melded_as``
says so (written kind → the tile it is, set by the rules: :meth:`RuleSet.stand_ins
<scoring.rulesets.base.RuleSet.stand_ins>`), and the copies are counted as the tiles are:

>>> pung = Meld.pung("5m", 1)
>>> Hand((pung,), ("5m", "5m"))
Traceback (most recent call last):
...
scoring.hand.TooManyCopies: 5 copies of 5m: there are only 4 of each tile
>>> Hand((pung,), ("5m", "5m"), melded_as={"5m": "P"}).standing  # the pung is 3 白板
('5m', '5m')
>>> Hand((pung,), ("P", "P"), melded_as={"5m": "P"})  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
scoring.hand.TooManyCopies: 5 copies of P (白板): there are only 4 of each tile (2 standing, ...

>>> h = Hand.from_tiles(["1m", "1m"], melds=[Meld.chow("1m", claimed_index=1)], winning_tile="1m")
>>> h.standing, h.winning_tile, h.melds[0].tiles
(('1m', '1m', '1m'), '1m', ('1m', '2m', '3m'))
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from scoring import tiles as T


class HandError(ValueError):
    """A hand, notation or win context that cannot be scored; the message names why."""


class TooManyCopies(HandError):
    """More copies of a tile than there are (4), as the hand's meld tiles are read
    (:attr:`Hand.melded_as`): under rules that read a meld's tile as another (a Xiamen
    gold's stand-ins) the same written hand may be fine once the rules' context is known."""


class NotAWinningHand(HandError):
    """Tiles that make a hand of the right size but no winning shape: a win declared on
    them is a false claim (错和, 诈和), not bad input."""


MELD_KINDS = ("chow", "pung", "kong")


def normalize_code(tile: str, where: str = "") -> str:
    """Canonical code for ``tile`` (accepts Tenhou ``1z``-``7z``); HandError otherwise."""
    if T.is_kind(tile) or T.is_flower(tile):
        return tile
    try:
        return T.tenhou_honour(tile)
    except KeyError:
        pass
    if len(tile) == 2 and tile[0] == "0" and tile[1] in "mps":
        return "5" + tile[1]
    suffix = f" {where}" if where else ""
    raise HandError(f"unknown tile code {tile!r}{suffix}")


@dataclass(frozen=True)
class Meld:
    """One exposed set, or a concealed kong.

    ``kind``: ``"chow"``, ``"pung"`` or ``"kong"``. ``tiles``: codes, sorted (3, or 4 for a
    kong). ``claimed_from``: seat offset of the player the tile came from (1 left/上家,
    2 opposite/对家, 3 right/下家); ``None`` for a concealed kong. ``claimed_index``: for
    a chow, which tile (0-based, in sorted order) was claimed, ``None`` if unknown.
    ``added``: a kong made by adding a drawn tile to a claimed pung (加杠).
    """

    kind: str
    tiles: tuple[str, ...]
    claimed_from: int | None = None
    claimed_index: int | None = None
    added: bool = False

    def __post_init__(self) -> None:
        if self.kind not in MELD_KINDS:
            raise HandError(f"unknown meld kind {self.kind!r} (use chow, pung or kong)")
        codes = tuple(normalize_code(t, "in a meld") for t in self.tiles)
        if any(T.is_flower(t) for t in codes):
            raise HandError(f"flower in meld {''.join(codes)}: flowers are never part of a set")
        codes = tuple(sorted(codes, key=T.sort_key))
        object.__setattr__(self, "tiles", codes)
        text = "".join(codes)
        idx = [T.index(t) for t in codes]
        if self.kind == "chow":
            ok = (
                len(idx) == 3
                and idx[0] < 27
                and idx[1] == idx[0] + 1
                and idx[2] == idx[0] + 2
                and idx[0] % 9 <= 6
            )
            if not ok:
                raise HandError(f"chow {text} is not three consecutive tiles of one suit")
            if self.claimed_from is None:
                object.__setattr__(self, "claimed_from", 1)
            if self.claimed_from != 1:
                raise HandError(f"chow {text} can only be claimed from the left (offset 1)")
            if self.claimed_index is not None and self.claimed_index not in (0, 1, 2):
                raise HandError(f"chow {text}: claimed tile index must be 0, 1 or 2")
        else:
            size = 3 if self.kind == "pung" else 4
            if len(idx) != size or len(set(idx)) != 1:
                raise HandError(f"{self.kind} {text} is not {size} tiles of one kind")
            if self.claimed_index is not None:
                raise HandError(f"{self.kind} {text}: claimed_index is only for chows")
            if self.kind == "pung" and self.claimed_from is None:
                raise HandError(
                    f"pung {text} as a meld needs the seat it was claimed from (1-3); "
                    "a concealed pung belongs in the standing tiles"
                )
        if self.claimed_from is not None and self.claimed_from not in (1, 2, 3):
            raise HandError(f"meld {text}: claimed_from must be 1, 2 or 3 (seat offset)")
        if self.added and (self.kind != "kong" or self.claimed_from is None):
            raise HandError(f"meld {text}: only a claimed kong can be an added kong")

    @property
    def concealed(self) -> bool:
        """True for a concealed kong (暗杠)."""
        return self.claimed_from is None

    @classmethod
    def chow(cls, first: str, claimed_index: int | None = None) -> Meld:
        """A claimed chow starting at ``first`` (``Meld.chow("3p")`` is 345p)."""
        i = T.index(normalize_code(first))
        if i >= 27 or i % 9 > 6:
            raise HandError(f"no chow starts at {first}")
        return cls("chow", tuple(T.code(i + k) for k in range(3)), 1, claimed_index)

    @classmethod
    def pung(cls, tile: str, claimed_from: int) -> Meld:
        """A pung of ``tile`` claimed from seat offset ``claimed_from`` (1-3)."""
        return cls("pung", (tile,) * 3, claimed_from)

    @classmethod
    def kong(cls, tile: str, claimed_from: int | None = None, added: bool = False) -> Meld:
        """A kong of ``tile``: concealed when ``claimed_from`` is None."""
        return cls("kong", (tile,) * 4, claimed_from, None, added)


#: Full Chinese names of the tiles a stand-in may be, for the copy count's message.
_FULL_NAMES = {"P": "白板", "F": "发财", "C": "红中"}


@dataclass(frozen=True)
class Hand:
    """A hand: ``melds``, ``standing`` (concealed tiles; for a win the LAST is the winning
    tile) and ``flowers`` (bonus tiles ``1f``-``8f``).

    ``melded_as``: the meld tiles written as one kind that are another tile — pairs
    (written kind, the tile it is), given as such pairs or a mapping; empty unless rules
    say so (Xiamen, gold 5m: ``{"5m": "P"}``, a meld's 5m is a 白板 standing in). The
    copy count counts such a meld tile as the tile it is, not as written (a claimed pung
    ``[555m,1]`` of 白板 beside four golds 5m is five 5m written, four 5m and three P
    held). It describes how the tiles are read, not the tiles: hands that differ only in
    it are equal, and the notation does not show it."""

    melds: tuple[Meld, ...] = ()
    standing: tuple[str, ...] = ()
    flowers: tuple[str, ...] = field(default=())
    melded_as: tuple[tuple[str, str], ...] = field(default=(), kw_only=True, compare=False,
                                                  repr=False)

    def __post_init__(self) -> None:
        melds = tuple(self.melds)
        for m in melds:
            if not isinstance(m, Meld):
                raise HandError(f"not a meld: {m!r}")
        standing = tuple(normalize_code(t, f"at standing tile {n + 1}")
                         for n, t in enumerate(self.standing))
        for n, t in enumerate(standing):
            if T.is_flower(t):
                raise HandError(f"flower {t} at standing tile {n + 1}: put flowers in flowers")
        flowers = tuple(normalize_code(t, "in flowers") for t in self.flowers)
        for t in flowers:
            if not T.is_flower(t):
                raise HandError(f"{t} in flowers is not a bonus tile (1f-8f)")
        dup = [t for t, n in Counter(flowers).items() if n > 1]
        if dup:
            raise HandError(f"flower {dup[0]} appears twice (there is one of each)")
        object.__setattr__(self, "melds", melds)
        object.__setattr__(self, "standing", standing)
        object.__setattr__(self, "flowers", tuple(sorted(flowers, key=T.sort_key)))
        melded_as = _stand_ins(self.melded_as)
        object.__setattr__(self, "melded_as", melded_as)
        read_as = dict(melded_as)
        counts = Counter(standing)
        stood_in: Counter[tuple[str, str]] = Counter()  # (written, tile) of stand-ins
        for m in melds:
            for t in m.tiles:
                counts[read_as.get(t, t)] += 1
                if t in read_as:
                    stood_in[t, read_as[t]] += 1
        for t, n in counts.items():
            if n > T.COPIES:
                raise TooManyCopies(_too_many(t, n, standing.count(t), stood_in))

    @classmethod
    def from_tiles(
        cls,
        standing: Iterable[str],
        melds: Iterable[Meld] = (),
        winning_tile: str | None = None,
        flowers: Iterable[str] = (),
        *,
        melded_as: Iterable[tuple[str, str]] | Mapping[str, str] = (),
    ) -> Hand:
        """Build a hand from codes. ``winning_tile``, when given, is appended to the
        standing tiles (so it is the last one, the winning tile); ``melded_as``: as
        :class:`Hand` takes it."""
        tiles = list(standing)
        if winning_tile is not None:
            tiles.append(winning_tile)
        return cls(tuple(melds), tuple(tiles), tuple(flowers),
                   melded_as=_stand_ins(melded_as))

    @property
    def winning_tile(self) -> str | None:
        """The last standing tile (the winning tile of a complete hand), or None."""
        return self.standing[-1] if self.standing else None

    @property
    def tile_count(self) -> int:
        """Tiles for the hand size, counting each kong as 3 (a win has 14 in MCR)."""
        return len(self.standing) + 3 * len(self.melds)

    def counts(self) -> list[int]:
        """Count vector (length 34) of the standing tiles."""
        c = [0] * T.NUM_KINDS
        for t in self.standing:
            c[T.index(t)] += 1
        return c

    def __str__(self) -> str:
        from scoring.notation import format_hand

        return format_hand(self)


def _stand_ins(given: Iterable[tuple[str, str]] | Mapping[str, str]
               ) -> tuple[tuple[str, str], ...]:
    """``Hand.melded_as`` as stored: (written kind, the tile it is) pairs, codes checked
    and normalized, in kind order; HandError for a code that is no tile kind, a written
    kind given twice, or a tile written as itself."""
    pairs = list(given.items()) if isinstance(given, Mapping) else list(given)
    out: dict[str, str] = {}
    for pair in pairs:
        if not (isinstance(pair, tuple) and len(pair) == 2
                and all(isinstance(t, str) for t in pair)):
            raise HandError(f"melded_as: {pair!r} is not a pair of tile codes "
                            "(written kind, the tile it is)")
        written, tile = (normalize_code(t, "in melded_as") for t in pair)
        if not (T.is_kind(written) and T.is_kind(tile)):
            raise HandError(f"melded_as: {written} as {tile}: both must be tile kinds")
        if written == tile or out.get(written, tile) != tile:
            raise HandError(f"melded_as: {written} as {tile}: a meld tile written {written} "
                            "is one other tile")
        out[written] = tile
    return tuple(sorted(out.items(), key=lambda p: T.sort_key(p[0])))


def _too_many(tile: str, n: int, standing: int,
              stood_in: Counter[tuple[str, str]]) -> str:
    """The copy count's message: ``n`` tiles of ``tile`` held, ``standing`` of them
    standing; ``stood_in`` counts the meld tiles written as another kind that are
    stand-ins (``Hand.melded_as``), named when some are of ``tile``."""
    msg = f"{n} copies of {tile}: there are only 4 of each tile"
    ins = sorted((w, k) for (w, t), k in stood_in.items() if t == tile)
    if not ins:
        return msg
    name = f" ({_FULL_NAMES[tile]})" if tile in _FULL_NAMES else ""
    as_is = n - standing - sum(k for _, k in ins)
    parts = [f"{standing} standing"] * bool(standing) + [f"{as_is} in melds"] * bool(as_is)
    parts += [f"{k} in melds written {w}, each a {tile} standing in" for w, k in ins]
    return f"{n} copies of {tile}{name}: there are only 4 of each tile ({', '.join(parts)})"
