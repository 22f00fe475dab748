"""Seeded random winning MCR hands, for the differential test and the benchmark.

Every hand is complete (14 tiles, kongs counted as 3) with a consistent win context:
melded chows, pungs and kongs (concealed, melded, added), seven pairs, thirteen
orphans, 全不靠/七星不靠 and 组合龙 hands, honours, flowers and win flags. Draws are
biased towards one suit and honours so that the big fans appear often enough.

>>> hands = random_wins(3, seed=1)
>>> all(h.tile_count == 14 for h, _ in hands)
True
"""

from __future__ import annotations

import random
from typing import Any

from scoring import tiles as T
from scoring.hand import Hand, Meld
from scoring.mcr.decompose import KNITTED, ORPHANS

Context = dict[str, Any]


def _pick_tile(rng: random.Random, left: list[int], need: int, favour: int) -> int | None:
    """A kind with at least ``need`` copies left, favouring suit ``favour`` (3 = honours)."""
    for _ in range(30):
        r = rng.random()
        if r < 0.45:
            i = favour * 9 + rng.randrange(9) if favour < 3 else 27 + rng.randrange(7)
        elif r < 0.65:
            i = 27 + rng.randrange(7)
        else:
            i = rng.randrange(34)
        if left[i] >= need:
            return i
    return None


def _basic(rng: random.Random, left: list[int]) -> tuple[list[Meld], list[str]] | None:
    favour = rng.randrange(4)
    kong_rate = 0.6 if rng.random() < 0.04 else 0.08
    melds: list[Meld] = []
    standing: list[str] = []
    for _ in range(4):
        kind = rng.choices(("chow", "pung", "kong"), (0.55, 0.45 - kong_rate, kong_rate))[0]
        if kind == "chow":
            for _ in range(30):
                i = rng.randrange(27) if rng.random() < 0.5 else favour * 9 + rng.randrange(9)
                if i >= 27 or i % 9 > 6:
                    continue
                if left[i] and left[i + 1] and left[i + 2]:
                    break
            else:
                return None
            tiles = [i, i + 1, i + 2]
        else:
            size = 3 if kind == "pung" else 4
            j = _pick_tile(rng, left, size, favour)
            if j is None:
                return None
            tiles = [j] * size
        for t in tiles:
            left[t] -= 1
        codes = tuple(T.code(t) for t in tiles)
        if kind == "kong":
            r = rng.random()
            if r < 0.4:
                melds.append(Meld("kong", codes))
            else:
                melds.append(Meld("kong", codes, rng.randint(1, 3), added=r > 0.75))
        elif rng.random() < 0.3:
            if kind == "chow":
                melds.append(Meld("chow", codes, 1, rng.randrange(3)))
            else:
                melds.append(Meld("pung", codes, rng.randint(1, 3)))
        else:
            standing.extend(codes)
    pair = _pick_tile(rng, left, 2, favour)
    if pair is None:
        return None
    left[pair] -= 2
    standing.extend([T.code(pair)] * 2)
    return melds, standing


def _seven_pairs(rng: random.Random, left: list[int]) -> list[str]:
    favour = rng.randrange(4)
    out: list[str] = []
    if rng.random() < 0.1:
        suit = rng.randrange(3)
        start = rng.randrange(3)
        return [T.code(suit * 9 + start + k) for k in range(7) for _ in range(2)]
    while len(out) < 14:
        i = _pick_tile(rng, left, 2, favour)
        if i is None:
            i = next(k for k in range(34) if left[k] >= 2)
        left[i] -= 2
        out.extend([T.code(i)] * 2)
    return out


def _orphans(rng: random.Random) -> list[str]:
    tiles = [T.code(i) for i in ORPHANS]
    tiles.append(T.code(rng.choice(ORPHANS)))
    return tiles


def _honors_knitted(rng: random.Random) -> list[str]:
    seq = rng.choice(KNITTED)
    pool = list(seq) + list(range(27, 34))
    return [T.code(i) for i in rng.sample(pool, 14)]


def _knitted(rng: random.Random, left: list[int]) -> tuple[list[Meld], list[str]] | None:
    seq = rng.choice(KNITTED)
    for i in seq:
        left[i] -= 1
    standing = [T.code(i) for i in seq]
    melds: list[Meld] = []
    r = rng.random()
    if r < 0.6:
        for _ in range(30):
            i = rng.randrange(27)
            if i % 9 <= 6 and left[i] and left[i + 1] and left[i + 2]:
                break
        else:
            return None
        tiles = [i, i + 1, i + 2]
    else:
        j = _pick_tile(rng, left, 3, 3)
        if j is None:
            return None
        tiles = [j] * 3
    for t in tiles:
        left[t] -= 1
    codes = tuple(T.code(t) for t in tiles)
    if rng.random() < 0.25:
        if len(set(codes)) == 3:
            melds.append(Meld("chow", codes, 1, rng.randrange(3)))
        else:
            melds.append(Meld("pung", codes, rng.randint(1, 3)))
    else:
        standing.extend(codes)
    pair = _pick_tile(rng, left, 2, 3)
    if pair is None:
        return None
    standing.extend([T.code(pair)] * 2)
    return melds, standing


def _context(rng: random.Random, hand: Hand) -> Context:
    win = hand.standing[-1]
    before = hand.standing[:-1].count(win)
    in_melds = sum(m.tiles.count(win) for m in hand.melds)
    self_drawn = rng.random() < 0.5
    ctx: Context = {
        "self_drawn": self_drawn,
        "seat_wind": rng.choice(T.WINDS),
        "prevalent_wind": rng.choice(T.WINDS),
        "flowers": rng.choice((0, 0, 0, 1, 2, 3)),
        "last_wall_tile": rng.random() < 0.05,
    }
    # the last copy is necessarily the last of its kind when the melds show the other three
    ctx["last_of_kind"] = before == 0 and (in_melds == 3 or rng.random() < 0.1)
    if rng.random() < 0.08:
        has_kong = any(m.kind == "kong" for m in hand.melds)
        robbable = before == 0 and in_melds == 0 and not ctx["last_wall_tile"]  # no 海底
        if (self_drawn and has_kong) or (not self_drawn and robbable):
            ctx["kong"] = True
    return ctx


def random_win(rng: random.Random) -> tuple[Hand, Context]:
    """One random winning hand and its win context."""
    while True:
        left = [T.COPIES] * T.NUM_KINDS
        r = rng.random()
        melds: list[Meld] = []
        if r < 0.8:
            made = _basic(rng, left)
            if made is None:
                continue
            melds, standing = made
        elif r < 0.9:
            standing = _seven_pairs(rng, left)
        elif r < 0.93:
            standing = _orphans(rng)
        elif r < 0.96:
            standing = _honors_knitted(rng)
        else:
            made = _knitted(rng, left)
            if made is None:
                continue
            melds, standing = made
        rng.shuffle(standing)
        hand = Hand(tuple(melds), tuple(standing))
        return hand, _context(rng, hand)


def random_wins(n: int, seed: int = 0) -> list[tuple[Hand, Context]]:
    """``n`` random winning hands with contexts, the same for the same ``seed``."""
    rng = random.Random(seed)
    return [random_win(rng) for _ in range(n)]
