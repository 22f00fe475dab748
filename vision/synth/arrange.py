"""Where tiles lie on the table (millimetres), as real tables show them.

- :func:`layout_hand`: one player's hand laid out for scoring (seed 003, 鸣牌的摆放):
  the standing tiles in a row, the winning tile set apart at its right, exposed melds
  with the claimed tile turned sideways (chow: the claimed tile; pung and melded kong:
  the left tile when claimed from the left, a middle one from opposite, the right one
  from the right), an added kong's extra tile sideways beyond the claimed one, concealed
  kongs with both end tiles face down, bonus tiles in their own group. Arrangements
  ``inline`` (one row: bonus, standing, winning, melds), ``two-rows`` (melds and bonus
  in a second row beyond the standing row) and ``melds-left``.
- :func:`layout_extras`: other tiles around a hand (face-down walls, a pile, discards,
  an opposite player's meld upside down), role ``other``.
- :func:`layout_closeup`: a few random tiles (every class, ``back`` included).

No two tiles overlap (tested). Coordinates: ``x`` to the player's right, ``y`` away
from the player; a tile's glyph points to ``+y`` at yaw 0.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from vision.classes import BACK, BONUS, CLASSES
from vision.synth.art import ArtSet
from vision.synth.hands import SynthHand, SynthMeld, tile_sort_key
from vision.synth.render import TileBox


@dataclass
class Placed:
    """A tile on the table with its ground-truth role."""

    box: TileBox
    role: str  # standing | winning | meld | flower | other
    meld: int | None = None
    sideways: bool = False
    claimed: bool = False
    added: bool = False


class _Row:
    """Place tiles left to right along ``+x`` with their near edge at ``y0``."""

    def __init__(self, w: float, h: float, rng: np.random.Generator, y0: float = 0.0) -> None:
        self.w, self.h, self.rng = w, h, rng
        self.x = 0.0
        self.y0 = y0
        self.tiles: list[Placed] = []

    def gap(self, tiles: float) -> None:
        self.x += tiles * self.w

    def put(self, code: str, role: str, *, sideways: bool = False, face_down: bool = False,
            meld: int | None = None, claimed: bool = False, added_beyond: bool = False) -> None:
        jitter = np.clip(self.rng.normal(0, 0.4, 2), -0.3, 0.3)
        yaw_j = self.rng.normal(0, 1.2)
        if sideways:
            yaw = 90.0 if self.rng.random() < 0.7 else -90.0
            cx = self.x + self.h / 2
            cy = self.y0 + self.w / 2
            if added_beyond:
                cx -= self.h + 0.4  # same column as the previous (claimed) tile
                cy += self.w + 0.8
            else:
                self.x += self.h + 0.4
        else:
            yaw = 0.0
            cx, cy = self.x + self.w / 2, self.y0 + self.h / 2
            self.x += self.w + 0.4
        tb = TileBox(code, cx + jitter[0], cy + jitter[1], yaw + yaw_j, face_down=face_down)
        self.tiles.append(Placed(tb, role, meld, sideways, claimed, added_beyond))


def _meld_tiles(m: SynthMeld, rng: np.random.Generator) -> list[tuple[str, bool, bool, bool]]:
    """The meld's tiles left to right: (code, sideways, face_down, added_beyond)."""
    tiles = sorted(m.tiles, key=tile_sort_key)
    if m.kind == "kong" and m.claimed_from is None:
        return [(t, False, i in (0, 3) and not m.face_up, False) for i, t in enumerate(tiles)]
    if m.kind == "chow":
        idx = m.claimed_index or 0
        return [(t, i == idx, False, False) for i, t in enumerate(tiles)]
    src = m.claimed_from or 1
    n = 3 if (m.kind == "pung" or m.added) else 4
    if src == 1:
        idx = 0
    elif src == 3:
        idx = n - 1
    else:
        idx = 1 if n == 3 else int(rng.integers(1, 3))
    out = [(t, i == idx, False, False) for i, t in enumerate(tiles[:n])]
    if m.added:
        out.insert(idx + 1, (tiles[3], True, False, True))
    return out


def layout_hand(hand: SynthHand, rng: np.random.Generator, w: float, h: float
                ) -> tuple[list[Placed], str]:
    """Table positions (mm) of a hand's tiles and the arrangement's name."""
    arrangement = str(rng.choice(["inline", "two-rows", "melds-left"], p=[0.45, 0.35, 0.2]))
    near = _Row(w, h, rng)
    far = _Row(w, h, rng, y0=h * rng.uniform(1.15, 1.8))

    def melds(row: _Row) -> None:
        for mi, m in enumerate(hand.melds):
            for code, side, down, beyond in _meld_tiles(m, rng):
                row.put(code, "meld", sideways=side, face_down=down, meld=mi,
                        claimed=side and not beyond, added_beyond=beyond)
            row.gap(rng.uniform(0.3, 1.0))

    def flowers(row: _Row) -> None:
        for f in hand.flowers:
            row.put(f, "flower")
        if hand.flowers:
            row.gap(rng.uniform(0.6, 1.5))

    def standing(row: _Row) -> None:
        if hand.waiting:  # one tile short: nothing set apart, no draw for a gap
            for t in hand.standing:
                row.put(t, "standing")
            return
        for t in hand.standing[:-1]:
            row.put(t, "standing")
        row.gap(rng.uniform(0.35, 1.2))
        row.put(hand.standing[-1], "winning")

    if arrangement == "inline":
        flowers(near)
        standing(near)
        near.gap(rng.uniform(0.8, 1.6))
        melds(near)
    elif arrangement == "two-rows":
        standing(near)
        flowers(far)
        melds(far)
        if rng.random() < 0.5:  # right-align the far row
            shift = near.x - far.x
            for p in far.tiles:
                p.box.x += shift
    else:
        melds(near)
        near.gap(rng.uniform(0.5, 1.2))
        standing(near)
        flowers(far)
    return near.tiles + far.tiles, arrangement


def _copies_left(on_table: Iterable[str]) -> Counter[str]:
    """What one set has left once ``on_table`` is laid out: 4 of each kind, 1 of each
    bonus tile (RULES.md), less the codes already placed."""
    left = Counter({c: (1 if c in BONUS else 4) for c in CLASSES if c != BACK})
    left.subtract(Counter(on_table))
    return left


def _take(code: str, left: Counter[str], codes: list[str], n: int = 1) -> str:
    """``code`` when the set has ``n`` more of it, else the next code of ``codes`` (in
    order, round) that has; the copies are taken from ``left``. The random draw that
    chose ``code`` stays the same, so a scene keeps its layout when a code is replaced."""
    start = codes.index(code)
    for i in range(len(codes)):
        c = codes[(start + i) % len(codes)]
        if left[c] >= n:
            left[c] -= n
            return c
    return code  # the set is used up (never on a hand's table): keep the drawn code


def layout_extras(rng: np.random.Generator, art: ArtSet, w: float, h: float,
                  extent: tuple[float, float, float, float],
                  on_table: Iterable[str] = ()) -> list[Placed]:
    """Other tiles around a hand: a face-down wall, discards, an opposite meld row.

    Drawn from what one set has left beside ``on_table`` (the hand's codes): no fifth
    copy of a kind, no second flower, as on a real table."""
    x0, _, x1, y1 = extent
    out: list[Placed] = []
    codes = list(art.codes)
    left = _copies_left(on_table)

    def draw() -> str:
        return _take(str(rng.choice(codes)), left, codes)
    far_y = y1 + h * rng.uniform(1.5, 4)
    if rng.random() < 0.5:  # wall segments, face down, lengthwise along x
        for _ in range(int(rng.integers(1, 3))):
            n = int(rng.integers(4, 14))
            sx = rng.uniform(x0 - 2 * w, max(x0, x1 - n * w))
            for i in range(n):
                out.append(Placed(TileBox(draw(), sx + i * (w + 0.3), far_y,
                                          rng.normal(0, 1), face_down=True), "other"))
            far_y += h * rng.uniform(1.1, 1.6)
    if rng.random() < 0.25:  # a pile of tiles pushed together, any way up
        n = int(rng.integers(6, 20))
        cx = rng.uniform(x0, x1)
        pile = [Placed(TileBox(draw(), cx + rng.normal(0, 2 * w),
                               far_y + h + abs(rng.normal(0, 1.5 * h)), rng.uniform(0, 360),
                               face_down=bool(rng.random() < 0.3)), "other") for _ in range(n)]
        _separate(pile, math.hypot(w, h))  # any yaw: keep diagonals apart
        lift = far_y + math.hypot(w, h) / 2 + 1 - min(p.box.y for p in pile)
        for p in pile:
            p.box.y += max(0.0, lift)
        out += pile
        far_y = max(p.box.y for p in pile) + h * 1.3
    if rng.random() < 0.6:  # discards in rows, a little untidy, mostly facing the player
        n = int(rng.integers(2, 9))
        cols = int(rng.integers(3, 7))
        sx = rng.uniform(x0, max(x0 + 1, x1 - cols * w))
        x, row = sx, 0
        for i in range(n):
            if i and i % cols == 0:
                x, row = sx, row + 1
            yaw = float(rng.choice([0, 90, 180, 270])) if rng.random() < 0.3 else 180.0
            across = h if yaw in (90.0, 270.0) else w
            jx, jy = np.clip(rng.normal(0, 0.8, 2), -1.2, 1.2)
            out.append(Placed(TileBox(draw(), x + across / 2 + jx,
                                      far_y + row * (h + 4.0) + jy, yaw + rng.normal(0, 2)),
                              "other"))
            x += across + 4.0
        far_y += (h + 4.0) * ((n - 1) // cols + 1) + h * 0.5
    if rng.random() < 0.4:  # opposite player's meld, seen upside down
        kinds = [c for c in codes if c not in BONUS]
        k = _take(str(rng.choice(kinds)), left, kinds, 3)
        for i in range(3):
            out.append(Placed(TileBox(k, x1 - i * (w + 0.4), far_y + h / 2, 180 + rng.normal(0, 1)),
                              "other"))
    return out


def layout_closeup(rng: np.random.Generator, art: ArtSet, w: float, h: float) -> list[Placed]:
    """A few random tiles (``back`` included): rows of touching tiles (like tiles lined
    up for a photo), a small grid, or scattered — from one set (no fifth copy of a kind,
    no second flower)."""
    codes = [*art.codes, BACK]
    faces = list(art.codes)
    left = _copies_left(())
    out: list[Placed] = []
    mode = str(rng.choice(["rows", "grid", "scattered"], p=[0.5, 0.25, 0.25]))
    group_yaw = float(rng.choice([0, 90, 180, 270], p=[0.55, 0.15, 0.15, 0.15]))
    cells: list[tuple[float, float]] = []
    if mode == "rows":
        y = 0.0
        for _ in range(int(rng.integers(1, 5))):
            n = int(rng.integers(2, 10))
            x0 = rng.uniform(-1.5, 1.5) * w
            cells += [(x0 + c * (w + 0.4), y) for c in range(n)]
            y += h * rng.uniform(1.05, 2.0)
    elif mode == "grid":
        cols, rows = int(rng.integers(2, 5)), int(rng.integers(1, 5))
        cells = [(c * (w + 0.5), r * (h + 0.5)) for r in range(rows) for c in range(cols)]
    else:
        cells = [(rng.uniform(0, 4 * w), rng.uniform(0, 3 * h)) for _ in range(rng.integers(2, 9))]
    c_, s_ = math.cos(math.radians(group_yaw)), math.sin(math.radians(group_yaw))
    for x, y in cells:
        code = str(rng.choice(codes))
        down = code == BACK
        if down:
            code = str(rng.choice(art.codes))
        code = _take(code, left, faces)
        if mode == "scattered":
            yaw = float(rng.choice([0, 90, 180, 270])) + rng.normal(0, 10)
        else:
            x, y = x * c_ - y * s_, x * s_ + y * c_
            yaw = group_yaw + rng.normal(0, 1.5)
        out.append(Placed(TileBox(code, x, y, yaw, face_down=down), "other"))
    if mode == "scattered":  # push overlapping tiles apart (simple relaxation)
        _separate(out, math.hypot(w, h))
    return out


def _separate(tiles: list[Placed], dist: float) -> None:
    for _ in range(30):
        moved = False
        for i, a in enumerate(tiles):
            for b in tiles[i + 1 :]:
                dx, dy = b.box.x - a.box.x, b.box.y - a.box.y
                d = math.hypot(dx, dy)
                if d < dist:
                    push = (dist - d) / 2 + 0.1
                    ux, uy = (dx / d, dy / d) if d > 1e-6 else (1.0, 0.0)
                    a.box.x -= ux * push
                    a.box.y -= uy * push
                    b.box.x += ux * push
                    b.box.y += uy * push
                    moved = True
        if not moved:
            return
