"""Draw a recognition: tiles coloured by role, melds outlined with their notation, the
winning tile marked, corrected tiles in red (``9p>6p``), a meld whose claim source is
unsure marked ``?``, and a panel below the photo with the hand, the fan list and the
total (or the waits, or why it cannot be scored).

Text is drawn with OpenCV's Hershey font, so fan names are the English ones.

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

import cv2
import numpy as np
import numpy.typing as npt

from vision.annotate import BGR, annotate
from vision.layout import FLOWER, IGNORED, MELD, STANDING, WINNING
from vision.recognize import Recognition

ROLE_COLORS: dict[str, BGR] = {
    STANDING: (60, 200, 60),
    MELD: (230, 160, 40),
    FLOWER: (200, 80, 200),
    WINNING: (0, 200, 255),
    IGNORED: (150, 150, 150),
}
CORRECTED: BGR = (40, 40, 230)


def panel_lines(rec: Recognition) -> list[str]:
    """The text of the panel below the photo, one string per line (ASCII)."""
    lines = [f"hand: {rec.hand_text or '-'}   rules: {rec.rules}"]
    for c in rec.correction.best.changes:
        lines.append(f"corrected tile {c.tile}: {c.before} -> {c.after} (x{c.ratio:.1f})")
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
    return [line.encode("ascii", "replace").decode() for line in lines]


def render(image: npt.NDArray[np.uint8], rec: Recognition) -> npt.NDArray[np.uint8]:
    """The annotated BGR image (the photo plus a text panel below it)."""
    det = rec.detections
    changed = {c.tile: c for c in rec.correction.best.changes}
    labels, colors = [], []
    for i in range(len(det)):
        code = rec.codes[i]
        if i in changed:
            labels.append(f"{changed[i].before}>{code}")
            colors.append(CORRECTED)
        else:
            labels.append("win " + code if rec.roles[i] == WINNING else code)
            colors.append(ROLE_COLORS.get(rec.roles[i], ROLE_COLORS[IGNORED]))
    out = annotate(image, det, labels=labels, colors=colors)
    h, w = out.shape[:2]
    thick = max(1, round(max(h, w) / 400))
    scale = max(0.4, max(h, w) / 1600)
    for m, lay in zip(rec.melds_json(), rec.layout.melds, strict=False):
        idx = m["detections"]
        if not idx:
            continue
        b = det.boxes[idx]
        pad = 3 * thick
        x1, y1 = int(b[:, 0].min()) - pad, int(b[:, 1].min()) - pad
        x2, y2 = int(b[:, 2].max()) + pad, int(b[:, 3].max()) + pad
        cv2.rectangle(out, (x1, y1), (x2, y2), ROLE_COLORS[MELD], thick + 1, cv2.LINE_AA)
        text = m["notation"] + (" ?" if lay.claim_unclear else "")
        cv2.putText(out, text, (max(0, x1), min(h - 2, y2 + int(22 * scale))),
                    cv2.FONT_HERSHEY_SIMPLEX, scale, ROLE_COLORS[MELD], thick, cv2.LINE_AA)
    if rec.layout.winning is not None:
        x1, y1, x2, y2 = (int(v) for v in det.boxes[rec.layout.winning])
        pad = 4 * thick
        cv2.rectangle(out, (x1 - pad, y1 - pad), (x2 + pad, y2 + pad), ROLE_COLORS[WINNING],
                      thick + 2, cv2.LINE_AA)
    lines = panel_lines(rec)
    line_h = int(30 * scale) + 6
    panel = np.full((line_h * len(lines) + 12, w, 3), 255, np.uint8)
    for k, text in enumerate(lines):
        cv2.putText(panel, text, (8, line_h * (k + 1)), cv2.FONT_HERSHEY_SIMPLEX, scale,
                    (20, 20, 20), max(1, thick - 1 if thick > 1 else 1), cv2.LINE_AA)
    return np.ascontiguousarray(np.vstack([out, panel]))
