"""Draw a recognition: tiles coloured by role, melds outlined with their notation, the
winning tile marked (``win 8m``; ``win? 8m``, dashed, for the row's last standing tile the
scorer took when none was set apart), corrected tiles in red (``9p>6p #1``, the number
the panel's line refers to), a meld whose claim source is unsure marked ``?``, and a
panel below the photo with the hand, the fan list and the total (or the waits, or why it
cannot be scored) and a colour legend.

Every outline is drawn before every label, and the labels (on filled backgrounds, sized
from the tiles) are placed so that they do not hide each other (:func:`vision.annotate.draw`).
Text is drawn with OpenCV's Hershey font, which has ASCII only: the panel's text is made
ASCII by :func:`ascii_text` (fan names are the English ones) and wrapped to the width.

>>> import numpy as np
>>> from vision.layout_scene import SceneBuilder
>>> from vision.recognize import recognize_detections
>>> d = SceneBuilder().standing("123m456p789sNN").win("N").detections()
>>> r = recognize_detections(d, rules="zhenjiang", context={"indicator": "E"})
>>> out = render(np.zeros((400, 900, 3), np.uint8), r)
>>> out.shape[1], out.shape[0] > 400
(900, True)
"""

from __future__ import annotations

import re
import unicodedata

import cv2
import numpy as np
import numpy.typing as npt

from vision.annotate import BGR, FONT, Label, Outline, Rect, draw, style_for
from vision.layout import FLOWER, IGNORED, MELD, STANDING, WINNING
from vision.recognize import OTHER_WINNING_SCORES, UNMARKED_WINNING_NOTE, Recognition

#: Role colours (BGR), none of them the amber that means "unsure" in a detect image
#: (:func:`vision.annotate.confidence_color`); green and red keep their sense there:
#: green nothing to check (standing here, sure there), red a reading to check
#: (corrected here, doubtful there).
ROLE_COLORS: dict[str, BGR] = {
    STANDING: (60, 200, 60),
    MELD: (220, 120, 30),
    FLOWER: (200, 80, 200),
    WINNING: (255, 230, 0),
    IGNORED: (150, 150, 150),
}
CORRECTED: BGR = (40, 40, 230)
#: The label background of a winning tile the scorer took as the row's last one.
TAKEN_WINNING: BGR = (255, 245, 170)
#: What the legend calls each colour, in its order.
LEGEND_NAMES = {STANDING: "standing", MELD: "meld", FLOWER: "flower", WINNING: "winning",
                IGNORED: "ignored"}
PANEL_INK: BGR = (20, 20, 20)

#: ASCII for the Chinese terms the rule sets' titles, fan names and messages use outside
#: parentheses (a term with an English gloss in parentheses after it gives the gloss).
GLOSSARY = {
    "百搭": "wild", "脱搭": "no wild", "金": "gold", "白板": "white dragon",
    "天胡": "heavenly win", "天和": "heavenly win", "杠上开花": "kong replacement win",
    "杠开": "kong replacement win", "抢杠和": "robbing the kong", "抢杠": "robbing a kong",
    "诈胡": "false win", "臭庄": "dead wall", "三金倒": "three golds", "和绝张": "last of its kind",
    "明杠": "melded kong", "暗杠": "concealed kong", "底": "base", "水": "water",
    "全不靠": "lesser honors and knitted tiles", "七星不靠": "greater honors and knitted tiles",
    "组合龙": "knitted straight", "打首搭": "first wild discard",
    "碰后打搭": "wild discard after a pung",
}
_PUNCT = {"—": "-", "–": "-", "−": "-", "→": "->", "↔": "<->", "×": "x", "≥": ">=",
          "≤": "<=", "≈": "~", "±": "+/-", "…": "...", "·": ".", "°": " deg", "、": ",",
          "，": ",", "；": ";", "：": ":", "（": "(", "）": ")", "‘": "'", "’": "'",
          "“": '"', "”": '"'}
_CJK = "\u2e80-\u9fff\uf900-\ufaff"
_CJK_RUN = re.compile(f"[{_CJK}]+")
_GLOSSED = re.compile(f"([{_CJK}]+) ?\\(([^(){_CJK}]*)\\)")  # 和绝张 (last of its kind)
_PARENS = re.compile(r"\(([^()]*)\)")


def _gloss(m: re.Match[str]) -> str:
    """A Chinese term with parentheses after it: the gloss they hold, or, when they hold
    settings (``kong=true``) and :data:`GLOSSARY` knows the term, its translation with
    them."""
    term, inside = m.group(1), m.group(2)
    if "=" in inside and term in GLOSSARY:
        return f"{GLOSSARY[term]} ({inside})"
    return inside


def ascii_text(text: str) -> str:
    """``text`` as ASCII for the Hershey font, with no '?' for what it cannot draw: a
    Chinese term glossed in parentheses gives the gloss, a parenthesised list drops its
    Chinese items, a term of :data:`GLOSSARY` is translated, other Chinese is left out,
    accents and punctuation are simplified.

    >>> ascii_text("a Chinese Official (MCR, 国标) hand")
    'a Chinese Official (MCR) hand'
    >>> ascii_text("Xiamen (厦门, 金 gold wild)")
    'Xiamen (gold wild)'
    >>> ascii_text("out on a concealed kong replacement, no 百搭 (脱搭)")
    'out on a concealed kong replacement, no wild'
    >>> ascii_text("和绝张 (last of its kind) cannot happen — 3 × 2")
    'last of its kind cannot happen - 3 x 2'
    >>> ascii_text("杠开 (kong=true, self-drawn) needs a kong")
    'kong replacement win (kong=true, self-drawn) needs a kong'
    """
    if text.isascii():
        return text
    for k, v in _PUNCT.items():
        text = text.replace(k, v)
    text = _GLOSSED.sub(_gloss, text)

    def strip_items(m: re.Match[str]) -> str:
        if not _CJK_RUN.search(m.group(1)):
            return m.group(0)
        items = [_CJK_RUN.sub("", item).strip() for item in m.group(1).split(",")]
        kept = [item for item in items if item]
        return f"({', '.join(kept)})" if kept else ""

    text = _PARENS.sub(strip_items, text)
    for k in sorted(GLOSSARY, key=len, reverse=True):
        text = text.replace(k, f" {GLOSSARY[k]} ")
    text = _CJK_RUN.sub(" ", text)
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    text = re.sub(r"\s+", " ", text)
    text = re.sub(r"\s+([,;:)])", r"\1", text).replace("( ", "(").replace("()", "")
    return text.strip()


def taken_winning(rec: Recognition) -> int | None:
    """The detection the scorer took as the winning tile when none was set apart (the
    row's last standing tile, :func:`vision.recognize._score_unmarked_winning`), or None."""
    lay = rec.layout
    if rec.winning_tile is None or lay.winning is not None or not lay.standing:
        return None
    i = lay.standing[-1]
    return i if rec.codes[i] == rec.winning_tile else None


def _other_winning_scores(rec: Recognition) -> str | None:
    """The note's "on another tile it would score: …" list, or None."""
    for note in rec.notes:
        if note.startswith(UNMARKED_WINNING_NOTE):
            _, sep, rest = note.partition(OTHER_WINNING_SCORES)
            return rest if sep else None
    return None


def panel_lines(rec: Recognition) -> list[str]:
    """The text of the panel below the photo, one string per line (ASCII, not wrapped)."""
    lines = [f"hand: {rec.hand_text or '-'}   rules: {rec.rules}"]
    if (taken := taken_winning(rec)) is not None:
        lines.append(f"winning tile: {rec.codes[taken]} (marked win?): not set apart, taken "
                     "as the last standing tile of the row")
        if (others := _other_winning_scores(rec)) is not None and rec.score is not None:
            lines.append(f"  on another winning tile it would score: {others}")
    for k, c in enumerate(rec.correction.best.changes, start=1):
        lines.append(f"corrected #{k}: {c.before} -> {c.after} (x{c.ratio:.1f})")
    for a in rec.alternatives:
        r = float(a["ratio"])
        how = f"x{r:.1f} less likely" if r >= 1 else f"x{1 / max(r, 1e-9):.1f} more likely"
        win = "" if a["winning"] else ", no win"
        lines.append(f"close reading ({how}{win}): {a['hand']}")
    for m, lay in zip(rec.melds_json(), rec.layout.melds, strict=False):
        if lay.claim_unclear:
            lines.append(f"claim source unsure: {m['notation']} (which tile lies sideways)")
    if rec.score is not None:
        for f in rec.score.fans:
            count = f" x{f.count}" if f.count > 1 else ""
            lines.append(f"  {f.en}{count}: {f.points}")
        legal = "" if rec.score.legal else " (below the minimum)"
        lines.append(f"total: {rec.score.total}{legal}")
    if rec.waits is not None:
        if rec.waits.ready:
            tiles = " ".join(w.tile for w in rec.waits.waits)
            lines.append(f"waits on: {tiles}")
        else:
            lines.append(f"not ready: {rec.waits.shanten} tile(s) from ready")
    if rec.unscorable:
        lines.append(f"not scored: {rec.unscorable}")
    return [ascii_text(line) for line in lines]


def legend(rec: Recognition) -> list[tuple[BGR, str]]:
    """The colours the picture of ``rec`` uses and what they mean, in a fixed order."""
    used = set(rec.roles)
    out = [(ROLE_COLORS[role], name) for role, name in LEGEND_NAMES.items() if role in used]
    if taken_winning(rec) is not None:
        out.append((TAKEN_WINNING, "win? taken as winning"))
    if rec.correction.best.changes:
        out.append((CORRECTED, "corrected"))
    return out


def wrap(text: str, width: int, scale: float, thick: int) -> list[str]:
    """``text`` cut into lines no wider than ``width`` pixels, at spaces where it can
    (a word wider than the line is cut where it must); the lines after the first are
    indented by two spaces.

    >>> wrap("waits on: 1m 4m 7m", 100, 0.4, 1)
    ['waits on: 1m 4m', '  7m']
    """
    def fits(s: str) -> bool:
        return cv2.getTextSize(s, FONT, scale, thick)[0][0] <= width

    lines: list[str] = []
    indent = text[: len(text) - len(text.lstrip(" "))]
    line = indent
    for word in text.lstrip(" ").split(" "):
        trial = f"{line} {word}" if line.strip() else (line + word)
        if fits(trial):
            line = trial
            continue
        if line.strip():
            lines.append(line)
            line = indent + "  " + word
        else:
            line = trial
        while not fits(line) and len(line.strip()) > 1:  # a word longer than a line
            # cut past the line's leading spaces, at least one character of the word a
            # line (the spaces put back before the rest must not outgrow what is cut)
            head = len(line) - len(line.lstrip(" "))
            cut = max([k for k in range(head + 1, len(line)) if fits(line[:k])],
                      default=head + 1)
            lines.append(line[:cut])
            line = indent + "  " + line[cut:]
    if line.strip() or not lines:
        lines.append(line)
    return lines


def _pad(rect: Rect, by: float) -> Rect:
    return rect[0] - by, rect[1] - by, rect[2] + by, rect[3] + by


def _box(rec: Recognition, i: int) -> Rect:
    x1, y1, x2, y2 = (float(v) for v in rec.detections.boxes[i])
    return x1, y1, x2, y2


def render(image: npt.NDArray[np.uint8], rec: Recognition) -> npt.NDArray[np.uint8]:
    """The annotated BGR image (the photo plus a text panel below it, as wide as the
    photo)."""
    det = rec.detections
    out = np.ascontiguousarray(image.copy())
    style = style_for(det.boxes, out.shape)
    t = style.line
    changed = {c.tile: (k, c) for k, c in enumerate(rec.correction.best.changes, start=1)}
    win, taken = rec.layout.winning, taken_winning(rec)
    fills = [CORRECTED if i in changed else ROLE_COLORS.get(rec.roles[i], ROLE_COLORS[IGNORED])
             for i in range(len(det))]
    outlines = [Outline(_box(rec, i), fills[i], t) for i in range(len(det))]
    anchors = [_box(rec, i) for i in range(len(det))]
    first: list[Label] = []
    melds: list[Label] = []
    for m, lay in zip(rec.melds_json(), rec.layout.melds, strict=False):
        idx = m["detections"]
        if not idx:
            continue
        b = np.asarray(det.boxes[idx], np.float64)
        rect = _pad((b[:, 0].min(), b[:, 1].min(), b[:, 2].max(), b[:, 3].max()), 2 * t)
        outlines.append(Outline(rect, ROLE_COLORS[MELD], t + 1))
        for i in idx:  # its tiles' labels go outside the outline, across the meld
            x1, y1, x2, y2 = anchors[i]
            across = rect[2] - rect[0] >= rect[3] - rect[1]
            anchors[i] = (x1, rect[1], x2, rect[3]) if across else (rect[0], y1, rect[2], y2)
        text = ascii_text(m["notation"] + (" ?" if lay.claim_unclear else ""))
        melds.append(Label(text, rect, ROLE_COLORS[MELD], below_first=True))
    for i, dashed in ((win, False), (taken, True)):
        if i is not None:
            anchors[i] = _pad(_box(rec, i), 3 * t)
            outlines.append(Outline(anchors[i], ROLE_COLORS[WINNING], t + (0 if dashed else 1),
                                    dashed=dashed))
    labels: dict[int, Label] = {}
    for i in range(len(det)):
        prefix = "win " if i == win else "win? " if i == taken else ""
        text, small, fill = rec.codes[i], "", fills[i]
        if i in changed:
            text, small = f"{changed[i][1].before}>{text}", f" #{changed[i][0]}"
        elif i == taken:
            fill = TAKEN_WINNING
        labels[i] = Label(ascii_text(prefix + text), anchors[i], fill, small)
    # the winning tile and the corrected ones get the best places, then the melds'
    # notations, then the other tiles left to right, the ignored ones last
    for i in (win, taken, *changed):
        if i is not None and i in labels:
            first.append(labels.pop(i))
    rest = sorted(labels, key=lambda i: (rec.roles[i] == IGNORED, anchors[i][0], anchors[i][1]))
    draw(out, outlines, [*first, *melds, *(labels[i] for i in rest)], style, det.boxes)
    return np.ascontiguousarray(np.vstack([out, _panel(rec, out.shape[1])]))


def _panel(rec: Recognition, w: int) -> npt.NDArray[np.uint8]:
    """The white panel: :func:`panel_lines` wrapped to ``w``, then the :func:`legend`."""
    scale = max(0.4, w / 1600)
    thick = max(1, round(scale * 1.6))
    (_, th), base = cv2.getTextSize("Ag", FONT, scale, thick)
    line_h = th + base + max(4, round(10 * scale))
    margin = max(4, round(8 * scale))
    rows = [wrapped for line in panel_lines(rec)
            for wrapped in wrap(line, w - 2 * margin, scale, thick)]
    # the legend: a swatch and a name per colour, as many to a row as fit
    entries = legend(rec)
    sw = th
    legend_rows: list[list[tuple[BGR, str, int]]] = [[]]
    x = margin
    for color, name in entries:
        tw = cv2.getTextSize(name, FONT, scale, thick)[0][0]
        need = sw + margin // 2 + tw + 2 * margin
        if legend_rows[-1] and x + need - margin > w - margin:
            legend_rows.append([])
            x = margin
        legend_rows[-1].append((color, name, x))
        x += need
    n_legend = len(legend_rows) if entries else 0
    panel = np.full((line_h * (len(rows) + n_legend) + 2 * margin, w, 3), 255, np.uint8)
    for k, text in enumerate(rows):
        cv2.putText(panel, text, (margin, margin + line_h * k + th), FONT, scale, PANEL_INK,
                    thick, cv2.LINE_AA)
    for k, row in enumerate(legend_rows[:n_legend]):
        y = margin + line_h * (len(rows) + k) + th
        for color, name, x in row:
            cv2.rectangle(panel, (x, y - th), (x + sw, y), color, cv2.FILLED)
            cv2.rectangle(panel, (x, y - th), (x + sw, y), PANEL_INK, 1)
            cv2.putText(panel, name, (x + sw + margin // 2, y), FONT, scale, PANEL_INK, thick,
                        cv2.LINE_AA)
    return panel
