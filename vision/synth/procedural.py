"""Procedural tile art: faces drawn from CJK fonts and simple shapes, many styles per code.

The installed tile sets number about ten; a classifier trained on them learns those
glyph styles and stumbles on a set it never saw. This module draws *styles* instead:
each style picks a font, ink colours, numeral form, dot and bamboo drawing, border and
background, and draws every face with them the way most real sets are organised —

- characters (``m``): a Chinese numeral over 萬 (or 万) in red, sometimes an Arabic
  corner index;
- winds ``E S W N``: 東 南 西 北 (or simplified), sometimes a corner letter;
- dragons: 中 red, 發/発/发 green, 白 a blank face or a framed rectangle;
- dots (``p``): concentric-ring coins in the traditional arrangements and colours
  (6p and 7p: green above, red below);
- bamboo (``s``): jointed sticks in their arrangements (1s a stick or a bird shape);
- seasons ``1f``-``4f`` (春 夏 秋 冬) and flowers ``5f``-``8f`` (梅 蘭 菊 竹): the
  character and/or a corner numeral 1-4, beside a random petals-and-stem picture (set
  ``procedural``) or, in the ``pictorial`` sets, a picture from a wider repertoire —
  seasonal scenes, branches, potted plants, on tinted or framed panels, in free colours
  or shades of one hue — since what a bonus tile shows varies most from set to set.

So the classifier is pushed to read what identifies a tile in any set — the numeral,
the character, the count and colours of coins and sticks — rather than one drawing.

Faces are ``(160, W, 3)`` uint8 RGB (:data:`vision.synth.art.FACE_HEIGHT`), portrait,
upright, ``W`` ≈ 0.72–0.8 × 160, one variant per style (:func:`load_procedural`, set
name ``procedural``). Needs Pillow (a ``cairosvg`` dependency, ``dev``/``train`` extras)
and CJK fonts (Debian ``fonts-noto-cjk``, ``fonts-arphic-ukai``, ``fonts-arphic-uming``,
``fonts-wqy-zenhei``, ``fonts-wqy-microhei``, ``fonts-ipafont-*``; any one will do, more
give more styles). The faces depend on the fonts installed, so the same seed draws the
same faces only with the same fonts.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import cv2
import numpy as np
import numpy.typing as npt

from vision.classes import BONUS, CLASSES
from vision.synth.art import FACE_HEIGHT

Image = npt.NDArray[np.uint8]
RGB = tuple[int, int, int]

#: Font files tried, with the face index inside a ``.ttc`` collection (traditional
#: Chinese or Japanese faces where a collection has several).
FONT_CANDIDATES: tuple[tuple[str, int], ...] = (
    ("/usr/share/fonts/opentype/noto/NotoSerifCJK-Regular.ttc", 3),
    ("/usr/share/fonts/opentype/noto/NotoSerifCJK-Bold.ttc", 3),
    ("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc", 3),
    ("/usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc", 3),
    ("/usr/share/fonts/truetype/arphic/ukai.ttc", 2),
    ("/usr/share/fonts/truetype/arphic/uming.ttc", 2),
    ("/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc", 0),
    ("/usr/share/fonts/truetype/wqy/wqy-microhei.ttc", 0),
    ("/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf", 0),
    ("/usr/share/fonts/opentype/ipafont-mincho/ipam.ttf", 0),
    ("/usr/share/fonts/opentype/ipafont-gothic/ipag.ttf", 0),
)
#: Every character a face may draw; a font lacking any of them is not used (Droid Sans
#: Fallback, for one, has the CJK characters but no Latin digits or letters).
NEEDED = "一二三四五六七八九萬万東东南西北中發発发白春夏秋冬梅蘭菊竹0123456789ESWN"

NUMERALS = "一二三四五六七八九"
WINDS = {"E": "東", "S": "南", "W": "西", "N": "北"}
WINDS_SIMPLE = {"E": "东", "S": "南", "W": "西", "N": "北"}
BONUS_CHARS = {"1f": "春", "2f": "夏", "3f": "秋", "4f": "冬",
               "5f": "梅", "6f": "蘭", "7f": "菊", "8f": "竹"}

SCALE = 2  # faces are drawn at twice the size, then area-reduced (anti-aliasing)
FACE_H = FACE_HEIGHT  # every art set's face height

#: Dot (coin) centres in face fractions (x, y), and the traditional colour of each.
_DOTS: dict[int, list[tuple[float, float, str]]] = {
    1: [(0.5, 0.5, "r")],
    2: [(0.5, 0.28, "g"), (0.5, 0.72, "b")],
    3: [(0.26, 0.22, "b"), (0.5, 0.5, "r"), (0.74, 0.78, "g")],
    4: [(0.3, 0.28, "b"), (0.7, 0.28, "g"), (0.3, 0.72, "g"), (0.7, 0.72, "b")],
    5: [(0.27, 0.22, "b"), (0.73, 0.22, "g"), (0.5, 0.5, "r"), (0.27, 0.78, "g"),
        (0.73, 0.78, "b")],
    6: [(0.3, 0.18, "g"), (0.7, 0.18, "g"), (0.3, 0.52, "r"), (0.7, 0.52, "r"),
        (0.3, 0.82, "r"), (0.7, 0.82, "r")],
    7: [(0.22, 0.14, "g"), (0.5, 0.24, "g"), (0.78, 0.34, "g"), (0.3, 0.6, "r"),
        (0.7, 0.6, "r"), (0.3, 0.85, "r"), (0.7, 0.85, "r")],
    8: [(x, y, "b") for y in (0.14, 0.38, 0.62, 0.86) for x in (0.3, 0.7)],
    9: [(x, y, c) for y, c in ((0.2, "b"), (0.5, "r"), (0.8, "g"))
        for x in (0.22, 0.5, 0.78)],
}
#: Bamboo sticks: centre (x, y), tilt in degrees, colour.
_STICKS: dict[int, list[tuple[float, float, float, str]]] = {
    2: [(0.5, 0.28, 0, "g"), (0.5, 0.72, 0, "g")],
    3: [(0.5, 0.28, 0, "g"), (0.3, 0.72, 0, "g"), (0.7, 0.72, 0, "g")],
    4: [(0.3, 0.28, 0, "g"), (0.7, 0.28, 0, "g"), (0.3, 0.72, 0, "g"), (0.7, 0.72, 0, "g")],
    5: [(0.25, 0.28, 0, "g"), (0.75, 0.28, 0, "g"), (0.5, 0.5, 0, "r"),
        (0.25, 0.72, 0, "g"), (0.75, 0.72, 0, "g")],
    6: [(x, y, 0, "g") for y in (0.28, 0.72) for x in (0.22, 0.5, 0.78)],
    7: [(0.5, 0.16, 0, "r"), *((x, y, 0, "g") for y in (0.5, 0.84) for x in (0.22, 0.5, 0.78))],
    8: [(0.17, 0.28, 0, "g"), (0.39, 0.28, 25, "g"), (0.61, 0.28, -25, "g"),
        (0.83, 0.28, 0, "g"), (0.17, 0.72, 0, "g"), (0.39, 0.72, -25, "g"),
        (0.61, 0.72, 25, "g"), (0.83, 0.72, 0, "g")],
    9: [(x, y, 0, c) for y in (0.17, 0.5, 0.83)
        for x, c in ((0.22, "g"), (0.5, "r"), (0.78, "b"))],
}


class ProceduralArtError(RuntimeError):
    """Pillow or every CJK font is missing."""


def _pil() -> Any:
    try:
        from PIL import Image as PILImage
        from PIL import ImageDraw, ImageFont
    except ImportError:
        raise ProceduralArtError(
            "procedural tile art needs Pillow: pip install 'tilecam[dev]'") from None
    return PILImage, ImageDraw, ImageFont


def _missing_glyph_mask(font: Any) -> bytes:
    return bytes(font.getmask("\U0010fffd"))


def usable_fonts(candidates: tuple[tuple[str, int], ...] = FONT_CANDIDATES
                 ) -> list[tuple[str, int]]:
    """The candidate fonts installed here that draw every character of :data:`NEEDED`."""
    _, _, image_font = _pil()
    out: list[tuple[str, int]] = []
    for path, index in candidates:
        if not Path(path).exists():
            continue
        try:
            font = image_font.truetype(path, 40, index=index)
        except OSError:
            try:
                font = image_font.truetype(path, 40)
                index = 0
            except OSError:
                continue
        tofu = _missing_glyph_mask(font)
        if all(bytes(font.getmask(ch)) != tofu for ch in NEEDED):
            out.append((path, index))
    return out


@dataclass
class Style:
    """One drawn tile set: a font and the colours and forms every face shares."""

    font: tuple[str, int]
    ground: RGB
    red: RGB
    green: RGB
    blue: RGB
    ink: RGB
    width: int               # face width in px at FACE_H (before SCALE)
    numeral_ink: str         # "ink" | "blue" | "red"
    simple_wan: bool         # 万 instead of 萬
    corner_index: bool       # small Arabic index / letter in the top-left corner
    border: RGB | None       # a thin frame inside the face edge
    coin_rings: int          # rings in a coin (1-3)
    coin_spokes: bool        # small dots around the coin's centre
    free_colours: bool       # coins and sticks in random colours, not the traditional
    white_dragon: str        # "blank" | "frame" | "double"
    bird: bool               # 1s drawn as a bird (else one big stick)
    bonus_char: float        # chance a bonus face shows its character
    bonus_arabic: bool       # bonus numeral as 1-4 (else 一-四)
    group_colours: bool      # seasons' numeral and character red, flowers' blue
    glyph_scale: float       # how much of its box a glyph fills
    weight: int              # stroke width for shapes, px at SCALE
    pictures: str = "flower"  # bonus pictures: "flower" (petals and stem) | "varied"

    def colour(self, key: str) -> RGB:
        return {"r": self.red, "g": self.green, "b": self.blue, "k": self.ink}[key]


def _jitter(rng: np.random.Generator, base: RGB, amount: int) -> RGB:
    v = np.clip(np.asarray(base) + rng.integers(-amount, amount + 1, 3), 0, 255)
    return (int(v[0]), int(v[1]), int(v[2]))


def random_style(rng: np.random.Generator, fonts: list[tuple[str, int]],
                 pictures: str = "flower") -> Style:
    """Draw one style; every field from ``rng`` (``pictures`` as given)."""
    ground_base = [(238, 236, 225), (246, 244, 236), (232, 226, 204), (240, 240, 240),
                   (226, 232, 220)][int(rng.integers(0, 5))]
    return Style(
        font=fonts[int(rng.integers(0, len(fonts)))],
        ground=_jitter(rng, ground_base, 8),
        red=_jitter(rng, (200, 35, 40), 30),
        green=_jitter(rng, (30, 130, 70), 30),
        blue=_jitter(rng, (35, 60, 160), 30),
        ink=_jitter(rng, (30, 30, 40), 20),
        width=int(rng.integers(115, 129)),
        numeral_ink=["ink", "ink", "blue", "red"][int(rng.integers(0, 4))],
        simple_wan=bool(rng.random() < 0.15),
        corner_index=bool(rng.random() < 0.3),
        border=_jitter(rng, (120, 140, 150), 40) if rng.random() < 0.25 else None,
        coin_rings=int(rng.integers(1, 4)),
        coin_spokes=bool(rng.random() < 0.5),
        free_colours=bool(rng.random() < 0.25),
        white_dragon=["blank", "frame", "frame", "double"][int(rng.integers(0, 4))],
        bird=bool(rng.random() < 0.6),
        bonus_char=float(rng.uniform(0.6, 1.0)),
        bonus_arabic=bool(rng.random() < 0.6),
        group_colours=bool(rng.random() < 0.5),
        glyph_scale=float(rng.uniform(0.78, 0.95)),
        weight=int(rng.integers(3, 7)),
        pictures=pictures,
    )


class _Face:
    """A face being drawn at :data:`SCALE` × size with PIL."""

    def __init__(self, style: Style, rng: np.random.Generator) -> None:
        pil, draw_mod, font_mod = _pil()
        self.style, self.rng, self._font_mod = style, rng, font_mod
        self.w, self.h = style.width * SCALE, FACE_H * SCALE
        self.img = pil.new("RGB", (self.w, self.h), style.ground)
        self.draw = draw_mod.Draw(self.img)
        self._fonts: dict[int, Any] = {}
        if style.border is not None:
            m = int(self.w * 0.05)
            self.draw.rounded_rectangle((m, m, self.w - m, self.h - m), radius=3 * m,
                                        outline=style.border, width=max(2, style.weight - 2))

    def font(self, size: int) -> Any:
        if size not in self._fonts:
            path, index = self.style.font
            self._fonts[size] = self._font_mod.truetype(path, size, index=index)
        return self._fonts[size]

    def text(self, chars: str, box: tuple[float, float, float, float], colour: RGB,
             hollow: RGB | None = None) -> None:
        """Draw ``chars`` fitted inside ``box`` (fractions x0, y0, x1, y1), centred; with
        ``hollow`` the strokes are outlined in ``colour`` and filled with ``hollow``."""
        x0, y0, x1, y1 = (box[0] * self.w, box[1] * self.h, box[2] * self.w, box[3] * self.h)
        bw, bh = (x1 - x0) * self.style.glyph_scale, (y1 - y0) * self.style.glyph_scale
        probe = self.font(100)
        left, top, right, bottom = probe.getbbox(chars)
        size = max(8, int(100 * min(bw / max(1, right - left), bh / max(1, bottom - top))))
        font = self.font(size)
        left, top, right, bottom = font.getbbox(chars)
        dx = self.rng.normal(0, 0.02) * self.w
        dy = self.rng.normal(0, 0.02) * self.h
        x = (x0 + x1) / 2 - (left + right) / 2 + dx
        y = (y0 + y1) / 2 - (top + bottom) / 2 + dy
        if hollow is None:
            self.draw.text((x, y), chars, font=font, fill=colour)
        else:
            self.draw.text((x, y), chars, font=font, fill=hollow,
                           stroke_width=max(1, size // 14), stroke_fill=colour)

    def coin(self, cx: float, cy: float, radius: float, colour: RGB) -> None:
        """A dot tile's coin: rings of ``colour``, a centre, optional spokes."""
        x, y, r = cx * self.w, cy * self.h, radius * self.w
        st, wgt = self.style, self.style.weight
        for k in range(st.coin_rings):
            rr = r * (1 - k * 0.28)
            self.draw.ellipse((x - rr, y - rr, x + rr, y + rr), outline=colour,
                              width=max(2, int(wgt * (1.3 if k == 0 else 1))))
        cr = r * 0.22
        self.draw.ellipse((x - cr, y - cr, x + cr, y + cr), fill=colour)
        if st.coin_spokes and r > 8 * SCALE:
            for i in range(8):
                a = i * math.pi / 4
                px, py = x + math.cos(a) * r * 0.55, y + math.sin(a) * r * 0.55
                d = max(2.0, r * 0.09)
                self.draw.ellipse((px - d, py - d, px + d, py + d), fill=colour)

    def stick(self, cx: float, cy: float, length: float, tilt: float, colour: RGB) -> None:
        """A bamboo stick: a rounded bar with three joints, ``length`` as a face fraction."""
        x, y = cx * self.w, cy * self.h
        half, thick = length * self.h / 2, self.w * 0.075
        a = math.radians(tilt)
        ux, uy = math.sin(a), -math.cos(a)  # along the stick, upward
        p0 = (x - ux * half, y - uy * half)
        p1 = (x + ux * half, y + uy * half)
        self.draw.line((p0, p1), fill=colour, width=int(thick))
        for end in (p0, p1):
            self.draw.ellipse((end[0] - thick / 2, end[1] - thick / 2,
                               end[0] + thick / 2, end[1] + thick / 2), fill=colour)
        dark = tuple(int(c * 0.55) for c in colour)
        for f in (-0.5, 0.0, 0.5):
            jx, jy = x + ux * half * f, y + uy * half * f
            nx, ny = -uy * thick * 0.7, ux * thick * 0.7
            self.draw.line(((jx - nx, jy - ny), (jx + nx, jy + ny)), fill=dark,
                           width=max(2, int(thick * 0.25)))
        light = tuple(min(255, int(c + (255 - c) * 0.5)) for c in colour)
        self.draw.line(((p0[0], p0[1]), (p1[0], p1[1])), fill=light,
                       width=max(1, int(thick * 0.12)))

    def bird(self) -> None:
        """A stylised bird for 1s: body, head, beak, tail fan, legs."""
        s, w, h = self.style, self.w, self.h
        body = (0.28 * w, 0.38 * h, 0.7 * w, 0.66 * h)
        self.draw.ellipse(body, fill=s.green, outline=s.ink, width=2)
        self.draw.ellipse((0.55 * w, 0.26 * h, 0.75 * w, 0.4 * h), fill=s.red,
                          outline=s.ink, width=2)
        self.draw.polygon(((0.74 * w, 0.32 * h), (0.86 * w, 0.34 * h), (0.74 * w, 0.37 * h)),
                          fill=s.ink)
        for i in range(5):
            a = math.radians(200 + i * 18)
            tip = (0.32 * w + math.cos(a) * 0.3 * w, 0.5 * h + math.sin(a) * 0.28 * h)
            self.draw.line(((0.32 * w, 0.52 * h), tip), fill=[s.blue, s.red, s.green][i % 3],
                           width=s.weight + 2)
        for lx in (0.45, 0.55):
            self.draw.line(((lx * w, 0.65 * h), (lx * w, 0.8 * h)), fill=s.ink, width=s.weight)

    def picture(self, box: tuple[float, float, float, float]) -> None:
        """A random flower-ish picture: a stem and petals, inside ``box`` fractions."""
        rng, s = self.rng, self.style
        x0, y0, x1, y1 = (box[0] * self.w, box[1] * self.h, box[2] * self.w, box[3] * self.h)
        stem_x = rng.uniform(x0 + 0.3 * (x1 - x0), x1 - 0.3 * (x1 - x0))
        self.draw.line(((stem_x, y1), (stem_x + rng.uniform(-20, 20), y0 + 0.3 * (y1 - y0))),
                       fill=s.green, width=s.weight)
        for _ in range(int(rng.integers(1, 4))):
            cx, cy = rng.uniform(x0, x1), rng.uniform(y0, y0 + 0.6 * (y1 - y0))
            pr = rng.uniform(0.05, 0.12) * self.w
            petal = [s.red, s.blue, (220, 160, 40), (200, 90, 160)][int(rng.integers(0, 4))]
            n = int(rng.integers(4, 8))
            for i in range(n):
                a = 2 * math.pi * i / n
                px, py = cx + math.cos(a) * pr, cy + math.sin(a) * pr
                self.draw.ellipse((px - pr * 0.6, py - pr * 0.6, px + pr * 0.6, py + pr * 0.6),
                                  fill=petal)
            self.draw.ellipse((cx - pr * 0.35, cy - pr * 0.35, cx + pr * 0.35, cy + pr * 0.35),
                              fill=(230, 200, 60))

    def varied_picture(self, box: tuple[float, float, float, float]) -> None:
        """A bonus tile's picture from a wider repertoire than :meth:`picture`, as real
        sets print them: a seasonal scene (sky, sun or moon, clouds, hills, water), a
        branch with blossom or leaves, or a potted plant; on a tinted panel or the bare
        face, sometimes framed, in a free palette or shades of one hue."""
        rng = self.rng
        x0, y0, x1, y1 = (box[0] * self.w, box[1] * self.h, box[2] * self.w, box[3] * self.h)
        mono = rng.random() < 0.4
        hue = np.array([(70, 120, 200), (200, 160, 60), (190, 80, 90), (60, 140, 90),
                        (120, 90, 170), (90, 90, 90)][int(rng.integers(0, 6))], float)

        def col(base: RGB, light: float = 0.0) -> RGB:
            c = hue * rng.uniform(0.6, 1.1) if mono else np.array(base, float)
            c = c + (255 - c) * light
            return (int(np.clip(c[0], 0, 255)), int(np.clip(c[1], 0, 255)),
                    int(np.clip(c[2], 0, 255)))

        if rng.random() < 0.5:
            self.draw.rectangle((x0, y0, x1, y1), fill=col((150, 190, 230), 0.6))
        kind = int(rng.integers(0, 3))
        w, h = x1 - x0, y1 - y0
        lw = max(2, self.style.weight)
        if kind == 0:  # scene: sun or moon, clouds, hills or water
            r = rng.uniform(0.08, 0.16) * w
            cx, cy = rng.uniform(x0 + r, x1 - r), rng.uniform(y0 + r, y0 + 0.4 * h)
            self.draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=col((220, 80, 50)))
            for _ in range(int(rng.integers(1, 4))):
                cx, cy = rng.uniform(x0, x1), rng.uniform(y0, y0 + 0.5 * h)
                for _ in range(int(rng.integers(2, 5))):
                    rx, ry = rng.uniform(0.08, 0.18) * w, rng.uniform(0.04, 0.08) * h
                    ox = cx + rng.uniform(-0.12, 0.12) * w
                    self.draw.ellipse((ox - rx, cy - ry, ox + rx, cy + ry),
                                      fill=col((245, 245, 250), 0.3),
                                      outline=col((90, 110, 150)), width=lw // 2)
            base = y0 + rng.uniform(0.55, 0.8) * h
            if rng.random() < 0.5:  # hills
                pts = [(x0, y1)]
                for i in range(int(rng.integers(2, 5)) * 2 + 1):
                    pts.append((x0 + w * i / 8, base - rng.uniform(0, 0.25) * h * (i % 2)))
                pts.append((x1, y1))
                self.draw.polygon(pts, fill=col((90, 140, 80)))
            else:  # water
                for k in range(int(rng.integers(2, 5))):
                    yy = base + k * 0.07 * h
                    for i in range(5):
                        xa = x0 + w * i / 5
                        self.draw.arc((xa, yy, xa + w / 5, yy + 0.06 * h), 180, 360,
                                      fill=col((50, 90, 170)), width=lw)
        elif kind == 1:  # branch with blossom or leaves
            pts = [(rng.uniform(x0, x0 + 0.3 * w), y1)]
            for _ in range(int(rng.integers(3, 6))):
                px, py = pts[-1]
                pts.append((float(np.clip(px + rng.uniform(-0.1, 0.3) * w, x0, x1)),
                            py - rng.uniform(0.12, 0.25) * h))
            self.draw.line(pts, fill=col((100, 70, 40)), width=lw + 2)
            blossom = rng.random() < 0.6
            for px, py in pts[1:]:
                for _ in range(int(rng.integers(1, 4))):
                    bx = px + rng.uniform(-0.12, 0.12) * w
                    by = py + rng.uniform(-0.08, 0.08) * h
                    br = rng.uniform(0.04, 0.08) * w
                    if blossom:
                        self.draw.ellipse((bx - br, by - br, bx + br, by + br),
                                          fill=col((235, 150, 170)), outline=col((180, 60, 90)),
                                          width=lw // 2)
                    else:
                        self.draw.ellipse((bx - br * 1.6, by - br * 0.6, bx + br * 1.6,
                                           by + br * 0.6), fill=col((70, 150, 70)))
        else:  # plant in a pot or vase
            pw = rng.uniform(0.3, 0.5) * w
            cx = (x0 + x1) / 2 + rng.uniform(-0.1, 0.1) * w
            top = y1 - rng.uniform(0.2, 0.35) * h
            self.draw.polygon(((cx - pw / 2, top), (cx + pw / 2, top), (cx + pw / 3, y1),
                               (cx - pw / 3, y1)), fill=col((60, 90, 160)))
            for _ in range(int(rng.integers(3, 7))):
                tx = cx + rng.uniform(-0.4, 0.4) * w
                ty = y0 + rng.uniform(0.05, 0.5) * h
                self.draw.line(((cx, top), (tx, ty)), fill=col((50, 130, 60)), width=lw)
                fr = rng.uniform(0.04, 0.09) * w
                self.draw.ellipse((tx - fr, ty - fr, tx + fr, ty + fr),
                                  fill=col([(220, 180, 40), (210, 70, 80), (240, 240, 240)][
                                      int(rng.integers(0, 3))]))
        if rng.random() < 0.4:
            self.draw.rectangle((x0, y0, x1, y1), outline=col((120, 90, 60)), width=lw)

    def corner(self, label: str, colour: RGB) -> None:
        self.text(label, (0.04, 0.02, 0.3, 0.2), colour)

    def array(self) -> Image:
        arr = np.asarray(self.img, np.uint8)
        out = cv2.resize(arr, (self.style.width, FACE_H), interpolation=cv2.INTER_AREA)
        return np.ascontiguousarray(out, np.uint8)


def _suit_colour(style: Style, rng: np.random.Generator, traditional: str) -> RGB:
    if style.free_colours:
        return style.colour("rgbk"[int(rng.integers(0, 4))])
    return style.colour(traditional)


def draw_face(code: str, style: Style, rng: np.random.Generator) -> Image:
    """One face of ``code`` in ``style``: ``(160, style.width, 3)`` uint8 RGB, upright."""
    if code not in CLASSES or code == "back":
        raise ValueError(f"no face for tile code {code!r}")
    f = _Face(style, rng)
    if code[0].isdigit() and code[1] == "m":
        _characters(f, int(code[0]))
    elif code in WINDS:
        _wind(f, code, rng)
    elif code in ("C", "F", "P"):
        _dragon(f, code, rng)
    elif code[1] == "p":
        _dots(f, int(code[0]), rng)
    elif code[1] == "s":
        _bamboo(f, int(code[0]), rng)
    else:  # 1f..8f
        _bonus(f, code, rng)
    return f.array()


def _characters(f: _Face, n: int) -> None:
    """萬 ``n``: its numeral over 萬 (万 in simplified styles)."""
    s = f.style
    numeral_ink = {"ink": s.ink, "blue": s.blue, "red": s.red}[s.numeral_ink]
    f.text(NUMERALS[n - 1], (0.1, 0.06, 0.9, 0.46), numeral_ink)
    f.text("万" if s.simple_wan else "萬", (0.1, 0.46, 0.9, 0.94), s.red)
    if s.corner_index:
        f.corner(str(n), numeral_ink)


def _wind(f: _Face, code: str, rng: np.random.Generator) -> None:
    """A wind: its character in one of three inks."""
    s = f.style
    chars = WINDS_SIMPLE if s.simple_wan else WINDS
    f.text(chars[code], (0.08, 0.12, 0.92, 0.88), [s.ink, s.blue, s.green][
        int(rng.integers(0, 3))])
    if s.corner_index:
        f.corner(code, s.red)


def _dragon(f: _Face, code: str, rng: np.random.Generator) -> None:
    """中 in red, 發 in green (in one of its written forms), 白 blank or framed."""
    s = f.style
    if code == "C":
        f.text("中", (0.08, 0.12, 0.92, 0.88), s.red)
    elif code == "F":
        f.text(["發", "發", "発", "发"][int(rng.integers(0, 4))], (0.08, 0.12, 0.92, 0.88),
               s.green)
    elif s.white_dragon != "blank":
        m = 0.16
        f.draw.rectangle((m * f.w, m * f.h * 0.8, (1 - m) * f.w, (1 - m * 0.8) * f.h),
                         outline=s.blue, width=s.weight + 2)
        if s.white_dragon == "double":
            m2 = m + 0.07
            f.draw.rectangle((m2 * f.w, m2 * f.h * 0.85, (1 - m2) * f.w,
                              (1 - m2 * 0.85) * f.h), outline=s.blue, width=s.weight)


def _dots(f: _Face, n: int, rng: np.random.Generator) -> None:
    """筒 ``n``: its coins where a set puts them."""
    s = f.style
    radius = {1: 0.36, 2: 0.19, 3: 0.17, 4: 0.17, 5: 0.15}.get(n, 0.13)
    if n in (8, 9):
        radius = 0.12
    for x, y, c in _DOTS[n]:
        f.coin(x, y, radius, _suit_colour(s, rng, c))
    if s.corner_index and n > 1:
        f.corner(str(n), s.red)


def _bamboo(f: _Face, n: int, rng: np.random.Generator) -> None:
    """條 ``n``: its sticks; 1s a bird or one long stick."""
    s = f.style
    if n == 1:
        if s.bird:
            f.bird()
        else:
            f.stick(0.5, 0.5, 0.72, 0, s.green)
    else:
        length = {2: 0.36, 3: 0.36, 4: 0.36, 5: 0.34}.get(n, 0.27)
        for x, y, tilt, c in _STICKS[n]:
            f.stick(x, y, length, tilt, _suit_colour(s, rng, c))
    if s.corner_index:
        f.corner(str(n), s.red)


def _bonus(f: _Face, code: str, rng: np.random.Generator) -> None:
    """A season or flower (``1f``..``8f``): a picture with its numeral and/or character."""
    s = f.style
    n = int(code[0])
    number = str((n - 1) % 4 + 1) if s.bonus_arabic else NUMERALS[(n - 1) % 4]
    show_char = rng.random() < s.bonus_char
    show_number = not show_char or rng.random() < 0.85
    # where numeral and character go: a corner numeral with the character across the
    # top or at the foot, or both in one column down a side (as many Hong Kong sets)
    layout = int(rng.integers(0, 5))
    column = layout >= 3 and show_char and show_number
    draw_picture = f.varied_picture if s.pictures == "varied" else f.picture
    if column:
        side = (0.64, 0.98) if layout == 3 else (0.02, 0.36)
        draw_picture((0.12, 0.12, 0.64, 0.95) if layout == 3 else (0.36, 0.12, 0.9, 0.95))
    else:
        draw_picture((0.1, 0.25, 0.9, 0.95) if show_char else (0.1, 0.1, 0.9, 0.95))
    if s.group_colours:
        num_colour = s.red if n <= 4 else s.blue
        char_colour = num_colour
    else:
        num_colour = [s.red, s.blue, s.ink][int(rng.integers(0, 3))]
        char_colour = [s.ink, s.red, s.blue, s.green][int(rng.integers(0, 4))]
    if column:
        f.text(number, (side[0], 0.02, side[1], 0.24), num_colour)
        f.text(BONUS_CHARS[code], (side[0], 0.26, side[1], 0.5), char_colour)
        return
    if show_number:
        # varied sets: sometimes only a small numeral in the corner, as some
        # sets mark which season or flower a picture is
        small = s.pictures == "varied" and rng.random() < 0.4
        f.text(number, (0.04, 0.02, 0.2, 0.13) if small else (0.04, 0.02, 0.34, 0.24),
               num_colour)
    if show_char:
        where = layout % 3
        box = [(0.55, 0.03, 0.96, 0.3), (0.3, 0.03, 0.7, 0.3),
               (0.3, 0.62, 0.7, 0.95)][where]
        if not show_number and where == 0:
            box = (0.3, 0.03, 0.7, 0.3)
        f.text(BONUS_CHARS[code], box, char_colour)


#: Corners a numbered set prints its small numeral in (fractions x0, y0, x1, y1 of a box
#: about a fifth of the face wide), with how often a style picks each.
NUMBER_CORNERS: tuple[tuple[tuple[float, float, float, float], float], ...] = (
    ((0.04, 0.02, 0.26, 0.17), 0.5),   # top left
    ((0.74, 0.02, 0.96, 0.17), 0.3),   # top right
    ((0.04, 0.83, 0.26, 0.98), 0.1),   # bottom left
    ((0.74, 0.83, 0.96, 0.98), 0.1),   # bottom right
)


def numbered_bonus_faces(style: Style, rng: np.random.Generator,
                         corner: int | None = None, hollow: float = 0.0,
                         grow: float = 0.0, drift: float = 0.0) -> dict[str, Image]:
    """The eight bonus faces of a *numbered* set in ``style``: the four seasons share one
    picture and the four flowers another, and a small numeral (1-4 or 一-四, per the
    style's ``bonus_arabic``) in one corner is all that tells the four of a group apart —
    as sets whose seasons and flowers are one design each mark them. The numeral's ink is
    the style's red, blue or ink, or a dark shade of a random hue (low contrast on a
    tinted picture); the groups share it or not. With the chance ``style.bonus_char`` a
    face also carries its character (春…竹) small beside the numeral.

    ``corner`` picks the corner (an index of :data:`NUMBER_CORNERS`); by default it is
    drawn by the corners' weights. With the chance ``hollow`` the numerals are outlined
    in their ink and filled with a pale tint of it (as cartoon-like sets draw them); with
    ``grow`` > 0 the numeral's box is enlarged by up to that share of itself, away from
    its corner; with ``drift`` > 0 it is moved inwards from its corner by up to that
    share of the face's width and of its height. All three default to the plain small
    solid numeral in the corner (and draw nothing from ``rng`` then).

    Returns ``{code: (160, W, 3) uint8 RGB}`` for ``1f``…``8f``. Draws from ``rng`` only
    (the shared pictures from seeds drawn from it), so other styles' faces are unchanged.
    """
    boxes = [b for b, _ in NUMBER_CORNERS]
    weights = np.array([w for _, w in NUMBER_CORNERS])
    if corner is None:
        corner = int(rng.choice(len(boxes), p=weights / weights.sum()))
    where = boxes[corner]
    if grow > 0:
        x0, y0, x1, y1 = where
        g = float(rng.uniform(0, grow))
        dx, dy = (x1 - x0) * g, (y1 - y0) * g
        where = (x0 if x0 < 0.5 else x0 - dx, y0 if y0 < 0.5 else y0 - dy,
                 x1 + dx if x0 < 0.5 else x1, y1 + dy if y0 < 0.5 else y1)
    if drift > 0:
        x0, y0, x1, y1 = where
        mx, my = rng.uniform(0, drift, 2)
        mx, my = (mx if x0 < 0.5 else -mx), (my if y0 < 0.5 else -my)
        where = (x0 + mx, y0 + my, x1 + mx, y1 + my)
    outline = hollow > 0 and rng.random() < hollow
    picture_seeds = [int(rng.integers(0, 2**31)) for _ in range(2)]
    full = rng.random() < 0.6  # the picture fills the face, numeral on top of it

    def ink() -> RGB:
        if rng.random() < 0.5:
            return [style.red, style.blue, style.ink][int(rng.integers(0, 3))]
        hue = rng.uniform(0, 255, 3)
        return tuple(int(v) for v in hue * rng.uniform(0.25, 0.6))  # type: ignore[return-value]

    shared = rng.random() < 0.5
    inks = [ink()] * 2 if shared else [ink(), ink()]
    tint = float(rng.uniform(0.6, 0.9)) if outline else 0.0  # the hollow fill: mostly ground
    fills: list[RGB | None] = [
        cast(RGB, tuple(int(g * tint + c * (1 - tint))
                        for g, c in zip(style.ground, i, strict=True)))
        if outline else None for i in inks]
    with_char = rng.random() < 0.5
    out: dict[str, Image] = {}
    for code in BONUS:
        n = int(code[0])
        group = 0 if n <= 4 else 1
        f = _Face(style, np.random.default_rng(picture_seeds[group]))
        draw_picture = f.varied_picture if style.pictures == "varied" else f.picture
        draw_picture((0.06, 0.05, 0.94, 0.95) if full else (0.1, 0.22, 0.9, 0.95))
        f.rng = rng
        number = str((n - 1) % 4 + 1) if style.bonus_arabic else NUMERALS[(n - 1) % 4]
        f.text(number, where, inks[group], fills[group])
        if with_char and rng.random() < style.bonus_char:
            x0, y0, x1, y1 = where
            below = (x0, min(y1 + 0.01, 0.8), x1, min(y1 + 0.16, 0.97)) if y0 < 0.5 else \
                (x0, max(y0 - 0.16, 0.02), x1, y0 - 0.01)
            f.text(BONUS_CHARS[code], below, inks[group])
        out[code] = f.array()
    return out


def procedural_faces(styles: int = 24, seed: int = 0,
                     fonts: list[tuple[str, int]] | None = None,
                     pictures: str = "flower") -> dict[str, list[Image]]:
    """Faces of every tile code (not ``back``) in ``styles`` random styles; ``pictures``
    is the bonus faces' repertoire (:attr:`Style.pictures`).

    Returns ``{code: [face per style]}``; raises :class:`ProceduralArtError` when no
    usable CJK font is installed.
    """
    fonts = usable_fonts() if fonts is None else fonts
    if not fonts:
        raise ProceduralArtError(
            "procedural tile art needs a CJK font (e.g. apt-get install fonts-noto-cjk "
            "fonts-arphic-ukai); none of these is installed: "
            + ", ".join(p for p, _ in FONT_CANDIDATES))
    rng = np.random.default_rng(seed)
    out: dict[str, list[Image]] = {c: [] for c in CLASSES if c != "back"}
    for _ in range(styles):
        style = random_style(rng, fonts, pictures)
        for code in out:
            out[code].append(draw_face(code, style, rng))
    return out
