"""Random complete hands (four sets and a pair) and their bracket notation.

The notation is the one of ``../shared/rules/RULES.md``: melds in brackets first, then
the standing tiles with the winning tile last. ``[123m,2]`` chow whose 2nd tile was
claimed, ``[555p,3]`` pung claimed from seat offset 3, ``[EEEE]`` concealed kong,
``[EEEE,1]`` melded kong, ``[EEEE,5]``-``[EEEE,7]`` kong added to a pung claimed from 1-3.

>>> m = SynthMeld("chow", ("1m", "2m", "3m"), claimed_from=1, claimed_index=1)
>>> meld_notation(m)
'[123m,2]'
>>> meld_notation(SynthMeld("kong", ("E",) * 4, claimed_from=2, added=True))
'[EEEE,6]'
>>> tiles_notation(["1m", "2m", "3m", "5p", "5p", "E", "E", "4m"])
'123m55pEE4m'
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from vision.classes import BONUS, KINDS

SUIT_ORDER = {"m": 0, "p": 1, "s": 2}
HONOUR_ORDER = {h: i for i, h in enumerate("ESWNCFP")}


@dataclass(frozen=True)
class SynthMeld:
    """A meld as laid on the table. ``claimed_from``: seat offset 1 left, 2 opposite,
    3 right (``None`` = concealed kong); ``claimed_index``: which tile (0-based, in the
    sorted tiles) was claimed, for chows; ``added``: kong added to a claimed pung;
    ``face_up``: a concealed kong laid as four face-up tiles (as many players show a
    kong) instead of with face-down ends."""

    kind: str
    tiles: tuple[str, ...]
    claimed_from: int | None = None
    claimed_index: int | None = None
    added: bool = False
    face_up: bool = False


@dataclass
class SynthHand:
    """A hand: exposed melds, standing tiles (winning tile last) and bonus tiles.
    ``waiting``: a hand one tile short (听), no tile set apart: ``standing`` holds the
    standing tiles alone, in players' order, and there is no winning tile."""

    melds: list[SynthMeld]
    standing: list[str]
    flowers: list[str] = field(default_factory=list)
    waiting: bool = False

    @property
    def winning_tile(self) -> str | None:
        return None if self.waiting else self.standing[-1]

    def notation(self) -> str:
        """The hand in bracket notation (bonus tiles are not part of it; a waiting hand's
        13 tiles, a kong counting 3)."""
        return "".join(meld_notation(m) for m in self.melds) + tiles_notation(self.standing)


def tile_sort_key(code: str) -> tuple[int, int]:
    """Players' order: characters, dots, bamboo, then winds and dragons."""
    if code[-1] in SUIT_ORDER and code[0].isdigit():
        return SUIT_ORDER[code[-1]], int(code[0])
    return 3, HONOUR_ORDER.get(code, 9)


def tiles_notation(tiles: list[str] | tuple[str, ...]) -> str:
    """Tiles in order, runs of one suit sharing the suit letter; honours as letters."""
    out: list[str] = []
    run: list[str] = []
    suit = ""
    for t in tiles:
        s = t[-1] if t[0].isdigit() else ""
        if s != suit and run:
            out.append("".join(run) + suit)
            run = []
        suit = s
        run.append(t[0] if s else t)
    if run:
        out.append("".join(run) + suit)
    return "".join(out)


def meld_notation(m: SynthMeld) -> str:
    body = tiles_notation(sorted(m.tiles, key=tile_sort_key))
    if m.kind == "chow":
        return f"[{body},{(m.claimed_index or 0) + 1}]"
    if m.claimed_from is None:
        return f"[{body}]"
    return f"[{body},{m.claimed_from + (4 if m.added else 0)}]"


def random_hand(
    rng: np.random.Generator, *, bonus: bool = True, max_tries: int = 50,
    face_up_kongs: float = 0.0,
) -> SynthHand:
    """A random complete hand with 0-4 exposed melds (kongs always exposed) and, when
    ``bonus``, 0-4 bonus tiles. Copy counts never exceed 4 per kind. A concealed kong is
    laid face up (:attr:`SynthMeld.face_up`) with probability ``face_up_kongs`` (drawn
    only when above 0, so sets made without it are unchanged)."""
    for _ in range(max_tries):
        left = Counter({k: 4 for k in KINDS})
        sets: list[tuple[str, tuple[str, ...]]] = []
        ok = True
        for _ in range(4):
            kind = str(rng.choice(["chow", "pung", "kong"], p=[0.5, 0.38, 0.12]))
            for _ in range(20):
                if kind == "chow":
                    suit = str(rng.choice(list("mps")))
                    start = int(rng.integers(1, 8))
                    tiles = tuple(f"{start + i}{suit}" for i in range(3))
                else:
                    k = str(rng.choice(KINDS))
                    tiles = (k,) * (4 if kind == "kong" else 3)
                need = Counter(tiles)
                if all(left[t] >= c for t, c in need.items()):
                    left -= need
                    sets.append((kind, tiles))
                    break
            else:
                ok = False
        pairs = [k for k in KINDS if left[k] >= 2]
        if not ok or not pairs:
            continue
        pair = str(rng.choice(pairs))
        n_exposed = int(rng.choice([0, 1, 2, 3, 4], p=[0.3, 0.25, 0.2, 0.15, 0.1]))
        order = rng.permutation(4)
        melds: list[SynthMeld] = []
        standing: list[str] = [pair, pair]
        for rank, i in enumerate(order):
            kind, tiles = sets[int(i)]
            if kind == "kong":
                style = str(rng.choice(["concealed", "melded", "added"], p=[0.35, 0.4, 0.25]))
                src = None if style == "concealed" else int(rng.integers(1, 4))
                up = src is None and face_up_kongs > 0 and bool(rng.random() < face_up_kongs)
                melds.append(SynthMeld("kong", tiles, src, None, style == "added", up))
            elif rank < n_exposed:
                if kind == "chow":
                    melds.append(SynthMeld("chow", tiles, 1, int(rng.integers(0, 3))))
                else:
                    melds.append(SynthMeld("pung", tiles, int(rng.integers(1, 4))))
            else:
                standing += list(tiles)
        win_i = int(rng.integers(0, len(standing)))
        winning = standing.pop(win_i)
        standing.sort(key=tile_sort_key)
        flowers: list[str] = []
        if bonus:
            n = int(rng.choice([0, 1, 2, 3, 4], p=[0.35, 0.25, 0.2, 0.12, 0.08]))
            flowers = sorted(str(f) for f in rng.choice(BONUS, size=n, replace=False))
        return SynthHand(melds, [*standing, winning], flowers)
    raise RuntimeError("could not draw a hand")  # pragma: no cover - needs 50 failures


def is_winning(hand: SynthHand) -> bool:
    """True if ``hand`` has an MCR winning shape (:func:`vision.correct.mcr_winning_shape`:
    four sets and a pair, seven pairs, thirteen orphans, knitted hands)."""
    from scoring import parse_hand
    from vision.correct import mcr_winning_shape

    return mcr_winning_shape(parse_hand(hand.notation()))


def near_miss(rng: np.random.Generator, hand: SynthHand, max_tries: int = 50) -> SynthHand:
    """A copy of the complete ``hand`` made one tile short of a win: a false claim, as a
    referee must catch it. With probability 1/2 the tile set apart for the win is swapped
    (the drawn or claimed tile is not one the hand waits on), else another standing tile;
    the new kind keeps every kind at most 4 times and the 14 tiles have no winning shape
    (:func:`is_winning`). Melds and bonus tiles are kept.

    >>> rng = np.random.default_rng(1)
    >>> miss = near_miss(rng, random_hand(rng))
    >>> is_winning(miss), len(miss.standing) + sum(min(len(m.tiles), 3) for m in miss.melds)
    (False, 14)
    """
    held = Counter(hand.standing) + Counter(t for m in hand.melds for t in m.tiles)
    for _ in range(max_tries):
        last = len(hand.standing) - 1
        i = last if rng.random() < 0.5 else int(rng.integers(0, len(hand.standing)))
        old = hand.standing[i]
        new = str(rng.choice([k for k in KINDS if k != old and held[k] < 4]))
        standing = list(hand.standing)
        standing[i] = new
        if i != last:  # the standing tiles but the last stay in players' order
            standing = [*sorted(standing[:last], key=tile_sort_key), standing[last]]
        miss = SynthHand(list(hand.melds), standing, list(hand.flowers))
        if not is_winning(miss):
            return miss
    raise RuntimeError("could not make a near-miss hand")  # pragma: no cover


def waiting_hand(hand: SynthHand) -> SynthHand:
    """``hand`` without the tile set apart for the win: the hand one tile short, as a
    player shows it while waiting (听) — the standing tiles in players' order, nothing set
    apart. A complete hand gives a ready hand (it waits at least on the tile taken away);
    a :func:`near_miss` hand may give one that is not ready.

    >>> rng = np.random.default_rng(1)
    >>> hand = random_hand(rng)
    >>> w = waiting_hand(hand)
    >>> w.waiting, w.winning_tile, len(w.standing) == len(hand.standing) - 1
    (True, None, True)
    """
    standing = sorted(hand.standing[:-1], key=tile_sort_key)
    return SynthHand(list(hand.melds), standing, list(hand.flowers), waiting=True)
