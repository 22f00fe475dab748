"""Build :class:`~vision.detections.Detections` for a hand laid out on a table, without
an image: for tests, benchmarks and automatic tables that know where tiles lie.

Each row is laid out in its owner's reading order (left to right): standing tiles
upright, melds with the claimed tile sideways, concealed kongs with face-down ends,
a winning tile set apart, flowers apart. Rows can be seen upside down (from across the
table); the whole scene can be turned by 90° steps, tilted, scaled and jittered.

Tile codes in strings: ``"123m456p"`` style runs, honours ``ESWNCFP``, bonus tiles
``"1f"``, and ``"X"`` for a face-down tile.

>>> d = SceneBuilder().standing("123m").meld("555p", sideways=0).row().detections()
>>> d.codes, d.rotations.tolist()
(['1m', '2m', '3m', '5p', '5p', '5p'], [0, 0, 0, 270, 0, 0])
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from vision.classes import BACK
from vision.detections import Detections


def split_codes(text: str) -> list[str]:
    """``"123m45pEEX1f"`` → ``['1m','2m','3m','4p','5p','E','E','back','1f']``."""
    out: list[str] = []
    digits: list[str] = []
    for ch in text.replace(" ", ""):
        if ch.isdigit():
            digits.append(ch)
        elif ch in "mpsf":
            if not digits:
                raise ValueError(f"suit letter {ch!r} without ranks in {text!r}")
            out.extend(f"{d}{ch}" for d in digits)
            digits = []
        elif ch in "ESWNCFP":
            out.append(ch)
        elif ch == "X":
            out.append(BACK)
        else:
            raise ValueError(f"unexpected {ch!r} in tile string {text!r}")
    if digits:
        raise ValueError(f"ranks without a suit letter at the end of {text!r}")
    return out


@dataclass
class _Tile:
    code: str
    x: float  # centre, owner's frame, in tile widths
    y: float
    sideways: bool
    topk: list[tuple[str, float]] | None = None
    turned: bool = False  # lying upside down in its row (a glyph turned 180°)


@dataclass
class SceneBuilder:
    """Lay tiles out row by row (see module doc). Sizes in pixels: ``tile_w`` the short
    side, ``tile_h`` the long side; ``gap`` the space between groups in tile widths."""

    tile_w: float = 40.0
    tile_h: float = 54.0
    gap: float = 0.8
    sideways_rotation: int = 270
    _rows: list[tuple[list[_Tile], bool]] = field(default_factory=list)
    _cur: list[_Tile] = field(default_factory=list)
    _x: float = 0.0

    # ------------------------------------------------------------ row content
    def _put(self, code: str, sideways: bool = False, gap: float = 0.0) -> _Tile:
        if self._cur or self._x:
            self._x += gap
        width = self.tile_h / self.tile_w if sideways else 1.0
        # sideways tiles lie along the near edge of the row
        y = (self.tile_h - self.tile_w) / (2 * self.tile_w) if sideways else 0.0
        t = _Tile(code, self._x + width / 2, y, sideways)
        self._x += width
        self._cur.append(t)
        return t

    def standing(self, tiles: str, apart: bool = False) -> SceneBuilder:
        """Upright tiles continuing the row (after a gap when ``apart``)."""
        for k, c in enumerate(split_codes(tiles)):
            self._put(c, gap=self.gap if apart and k == 0 else 0.0)
        return self

    def sideways(self, tile: str) -> SceneBuilder:
        """One tile lying sideways right in the row, with no gap (e.g. a misread)."""
        self._put(split_codes(tile)[0], sideways=True)
        return self

    def win(self, tile: str) -> SceneBuilder:
        """The winning tile, set apart from what comes before."""
        return self.standing(tile, apart=True)

    def meld(self, tiles: str, sideways: int | None = 0, added: str | None = None) -> SceneBuilder:
        """A claimed set after a gap, tile ``sideways`` (0-based) turned sideways.
        ``added``: a fourth tile (code) stacked on the sideways tile (加杠); with
        ``beside`` in front of the code (``"beside:5p"``) it lies sideways next to it."""
        codes = split_codes(tiles)
        for k, c in enumerate(codes):
            t = self._put(c, sideways=k == sideways, gap=self.gap if k == 0 else 0.0)
            if added and k == sideways:
                if added.startswith("beside:"):
                    self._put(added.split(":", 1)[1], sideways=True)
                else:
                    top = _Tile(added, t.x, t.y - 1.0, True)
                    self._cur.append(top)
        return self

    def concealed_kong(self, tile: str, all_down: bool = False) -> SceneBuilder:
        """A concealed kong after a gap: ends face down (or all four)."""
        for k in range(4):
            down = all_down or k in (0, 3)
            self._put("X" if down else tile, gap=self.gap if k == 0 else 0.0)
            if down:
                self._cur[-1].code = BACK
        return self

    def flowers(self, tiles: str) -> SceneBuilder:
        """Bonus tiles after a gap."""
        for k, c in enumerate(split_codes(tiles)):
            self._put(c, gap=self.gap if k == 0 else 0.0)
        return self

    def uncertain(self, readings: Sequence[tuple[str, float]]) -> SceneBuilder:
        """Give the last tile placed these top-k readings (best first); its code becomes
        the first one."""
        t = self._cur[-1]
        t.topk = list(readings)
        t.code = readings[0][0]
        return self

    def turned(self, *positions: int) -> SceneBuilder:
        """Turn these tiles of the current row (0-based, in the order laid) 180° in
        place: tiles left either way up, as players often leave them.

        >>> d = SceneBuilder().standing("123m").turned(1).row().detections()
        >>> d.rotations.tolist()
        [0, 180, 0]
        """
        for k in positions:
            if not 0 <= k < len(self._cur):
                raise ValueError(f"no tile {k} in the current row of {len(self._cur)}")
            self._cur[k].turned = not self._cur[k].turned
        return self

    def row(self, upside_down: bool = False) -> SceneBuilder:
        """Finish the current row; ``upside_down``: seen from across the table. Rows are
        laid far to near: the first row is the furthest from the camera."""
        self._rows.append((self._cur, upside_down))
        self._cur = []
        self._x = 0.0
        return self

    # ------------------------------------------------------------ rendering
    def detections(
        self,
        *,
        turn: int = 0,
        tilt_deg: float = 0.0,
        jitter: float = 0.0,
        scale: float = 1.0,
        confidence: float = 0.98,
        seed: int = 0,
        row_spacing: float = 1.5,
        perspective: float = 0.0,
        origin: tuple[float, float] = (200.0, 200.0),
    ) -> Detections:
        """Axis-aligned boxes of the scene. ``turn``: the whole scene turned clockwise by
        0/90/180/270; ``tilt_deg``: a further clockwise tilt; ``jitter``: noise on
        centres and sides, in tile widths (standard deviation); ``row_spacing``: distance
        between rows in tile heights; ``perspective``: how much smaller things at the
        top of the picture look than at its bottom, per picture size (0.3 = 30% over
        a distance equal to the picture's larger side), applied to tile corners."""
        if self._cur:
            self.row()
        rng = np.random.default_rng(seed)
        w, h = self.tile_w * scale, self.tile_h * scale
        boxes, codes, rots, topk = [], [], [], []
        ang = math.radians(turn + tilt_deg)
        c, s = math.cos(ang), math.sin(ang)
        rects = []  # per tile: 4 corners in the picture, before perspective
        for r, (tiles, upside) in enumerate(self._rows):
            if not tiles:
                continue
            x_mid = (min(t.x for t in tiles) + max(t.x for t in tiles)) / 2
            for t in tiles:
                lx, ly = (t.x - x_mid) * w, t.y * w
                rot = (self.sideways_rotation if t.sideways else 0) + (180 if t.turned else 0)
                if upside:
                    lx, ly, rot = -lx, -ly, (rot + 180) % 360
                ly += r * row_spacing * h
                if jitter:
                    lx += float(rng.normal(0, jitter * w))
                    ly += float(rng.normal(0, jitter * w))
                tw, th = (h, w) if t.sideways else (w, h)
                if jitter:
                    tw *= 1 + float(rng.normal(0, jitter))
                    th *= 1 + float(rng.normal(0, jitter))
                corners = []
                for dx, dy in ((-1, -1), (1, -1), (1, 1), (-1, 1)):
                    px, py = lx + dx * tw / 2, ly + dy * th / 2
                    corners.append((c * px - s * py, s * px + c * py))
                rects.append(corners)
                codes.append(t.code)
                rots.append((rot + turn) % 360)
                topk.append(t.topk or [(t.code, confidence)])
        if rects and perspective:
            pts = np.asarray(rects, np.float64)  # (n, 4, 2)
            y0, y1 = pts[..., 1].min(), pts[..., 1].max()
            # the picture's depth span: its larger side (a camera looking down at a slant)
            span = max(y1 - y0, pts[..., 0].max() - pts[..., 0].min(), 1.0)
            # depth grows towards the top of the picture: far tiles look smaller
            depth = 1.0 + perspective * (y1 - pts[..., 1]) / span
            xm = (pts[..., 0].min() + pts[..., 0].max()) / 2
            pts[..., 0] = xm + (pts[..., 0] - xm) / depth
            pts[..., 1] = y1 - (y1 - pts[..., 1]) / depth
            rects = pts.tolist()
        for corners in rects:
            xs = [p[0] for p in corners]
            ys = [p[1] for p in corners]
            boxes.append((min(xs), min(ys), max(xs), max(ys)))
        arr = np.asarray(boxes, np.float64).reshape(-1, 4)
        if len(arr):
            arr[:, [0, 2]] += origin[0] - arr[:, 0].min()
            arr[:, [1, 3]] += origin[1] - arr[:, 1].min()
        size = (
            (int(arr[:, 2].max() + origin[0]), int(arr[:, 3].max() + origin[1]))
            if len(arr)
            else None
        )
        return Detections.from_lists(
            arr.tolist(),
            codes,
            [tk[0][1] for tk in topk],
            rots,
            topk,
            image_size=size,
        )


@dataclass(frozen=True)
class RandomScene:
    """A random hand laid out as players do, with the hand it shows.

    ``hand``: RULES.md notation (melds, standing tiles, the winning tile last when
    ``winning_apart``, flowers); ``hidden_kinds``: kinds of kongs shown all face down;
    ``render``: keyword arguments for :meth:`SceneBuilder.detections`."""

    builder: SceneBuilder
    hand: str
    winning_apart: bool
    hidden_kinds: tuple[str, ...]
    render: dict[str, float]

    def detections(self) -> Detections:
        return self.builder.detections(**self.render)  # type: ignore[arg-type]


def _kind_text(codes: Sequence[str]) -> str:
    """Codes written one after another (``['1m', 'E']`` → ``'1mE'``); split_codes reads it."""
    return "".join(codes)


def random_scene(rng: np.random.Generator, hand_size: int = 14,
                 turned: float = 0.0) -> RandomScene:
    """A random hand (copy counts respected; the shape need not be a win) laid out with
    random melds of every kind and claim source, face-down kongs, flowers, a winning tile
    set apart or not, melds beside or in front of the standing row, seen from either side
    of the table, turned, tilted, in perspective and jittered. With probability
    ``turned`` the hand's face-up tiles lie either way up (each turned 180° with
    probability 1/2, as players leave them); at 0 no draw is made."""
    from vision.classes import BONUS, KINDS

    wall = _Wall([k for k in KINDS for _ in range(4)])
    rng.shuffle(wall.tiles)
    melds_text: list[str] = []
    actions: list[tuple[str, dict[str, object]]] = []
    hidden: list[str] = []
    n_melds = int(rng.choice([0, 1, 2, 3, 4], p=[0.3, 0.3, 0.2, 0.12, 0.08]))
    for _ in range(n_melds):
        meld = _random_meld(rng, wall)
        if meld is not None:
            melds_text.append(meld[0])
            actions.append(meld[1])
            if meld[2] is not None:
                hidden.append(meld[2])
    n_standing = hand_size - 3 * len(melds_text)
    standing = [wall.tiles.pop() for _ in range(n_standing)]
    apart = bool(rng.random() < 0.85)
    shown = sorted(standing[:-1], key=KINDS.index) if apart else list(standing)
    if apart:
        shown.append(standing[-1])
    flowers = sorted(rng.choice(list(BONUS), size=int(rng.choice([0, 0, 1, 2, 3])),
                                replace=False).tolist(), key=BONUS.index)
    b = _laid_out(rng, actions, shown, apart, flowers)
    render = {
        "turn": int(rng.choice([0, 90, 180, 270])),
        "tilt_deg": float(rng.uniform(-20, 20)),
        "jitter": float(rng.uniform(0, 0.04)),
        "perspective": float(rng.uniform(0, 0.3)),
        "scale": float(rng.uniform(0.5, 2.0)),
        "seed": int(rng.integers(0, 2**31)),
    }
    if turned > 0 and rng.random() < turned:
        for tiles, _ in b._rows:
            for t in tiles:
                if t.code != BACK and rng.random() < 0.5:
                    t.turned = True
    hand = "".join(melds_text) + _kind_text(shown) + _kind_text(flowers)
    return RandomScene(b, hand, apart, tuple(hidden), render)


@dataclass
class _Wall:
    """The tiles left to draw from (tile codes, shuffled)."""

    tiles: list[str]

    def take(self, code: str, n: int) -> bool:
        """Take ``n`` copies of ``code``; False (nothing taken) when fewer are left."""
        if self.tiles.count(code) < n:
            return False
        for _ in range(n):
            self.tiles.remove(code)
        return True


def _random_meld(
    rng: np.random.Generator, wall: _Wall,
) -> tuple[str, tuple[str, dict[str, object]], str | None] | None:
    """One random meld taken from ``wall``: ``(its notation, how SceneBuilder lays it,
    the kind of a concealed kong shown all face down or None)``, or None when the wall
    lacks its tiles."""
    from vision.classes import KINDS

    kind = str(rng.choice(["chow", "pung", "kong", "added", "concealed"],
                          p=[0.35, 0.3, 0.12, 0.1, 0.13]))
    if kind == "chow":
        suit = str(rng.choice(list("mps")))
        start = int(rng.integers(1, 8))
        codes = [f"{start + k}{suit}" for k in range(3)]
        if not all(wall.take(c, 1) for c in codes):
            return None
        side = int(rng.integers(0, 3))
        text = f"{start}{start + 1}{start + 2}{suit}"
        return f"[{text},{side + 1}]", ("meld", {"tiles": text, "sideways": side}), None
    code = str(rng.choice(list(KINDS)))
    size = 3 if kind == "pung" else 4
    if not wall.take(code, size):
        return None
    body = code * size if len(code) == 1 else code[0] * size + code[1]
    if kind == "pung":
        side = int(rng.integers(0, 3))
        return f"[{body},{side + 1}]", ("meld", {"tiles": body, "sideways": side}), None
    if kind == "kong":
        side = int(rng.integers(0, 4))
        return (f"[{body},{(1, 2, 2, 3)[side]}]", ("meld", {"tiles": body, "sideways": side}),
                None)
    if kind == "added":
        side = int(rng.integers(0, 3))
        beside = bool(rng.random() < 0.3)
        three = body[:-2] + body[-1] if len(code) == 2 else code * 3
        added = ("beside:" if beside else "") + code
        return (f"[{body},{side + 5}]",
                ("meld", {"tiles": three, "sideways": side, "added": added}), None)
    all_down = bool(rng.random() < 0.3)
    return f"[{body}]", ("kong", {"tile": code, "all_down": all_down}), code if all_down else None


def _laid_out(rng: np.random.Generator, actions: list[tuple[str, dict[str, object]]],
              shown: list[str], apart: bool, flowers: list[str]) -> SceneBuilder:
    """The scene's rows far to near: flowers and melds "in front" (a random choice) lie
    beyond the standing row, the others beside it; the winning tile set apart when
    ``apart`` (the last of ``shown``)."""
    b = SceneBuilder(sideways_rotation=int(rng.choice([90, 270])),
                     gap=float(rng.uniform(0.5, 1.2)))
    upside = bool(rng.random() < 0.3)
    melds_in_front = bool(rng.random() < 0.4) and bool(actions)
    flowers_row = bool(rng.random() < 0.5) and bool(flowers)

    def lay_melds() -> None:
        for what, kw in actions:
            if what == "meld":
                b.meld(**kw)  # type: ignore[arg-type]
            else:
                b.concealed_kong(**kw)  # type: ignore[arg-type]

    if flowers_row:
        b.flowers("".join(flowers)).row(upside_down=upside)
    if melds_in_front:
        lay_melds()
        b.row(upside_down=upside)
    b.standing(_kind_text(shown[:-1] if apart else shown))
    if apart:
        b.win(shown[-1])
    if not melds_in_front:
        lay_melds()
    if flowers and not flowers_row:
        b.flowers("".join(flowers))
    b.row(upside_down=upside)
    return b
