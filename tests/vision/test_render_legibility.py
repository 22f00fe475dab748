"""The recognize image (vision/render.py) can be read: the winning tile the scorer took is
marked when none was set apart, no label hides another or is crossed by an outline,
labels follow the tiles' size, the panel is ASCII (no '?' for Chinese) and wrapped to the
image's width, meld notations sit on a background clear of their outline, a corrected
tile is numbered on the picture and in the panel, and a legend says what the colours are."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from drawing_calls import Recorder, overlapping

from vision.annotate import AMBER
from vision.layout import MELD, WINNING
from vision.layout_scene import SceneBuilder
from vision.recognize import Recognition, recognize_detections
from vision.render import ROLE_COLORS, panel_lines, render

ZJ = {"indicator": "C"}


def drawn(monkeypatch: pytest.MonkeyPatch, r: Recognition, shape: tuple[int, int] | None = None
          ) -> tuple[Recorder, np.ndarray, tuple[int, int]]:
    w, h = r.detections.image_size or (1000, 400)
    h, w = shape or (h, w)
    rec = Recorder(monkeypatch)
    out = render(np.full((h, w, 3), 90, np.uint8), r)
    return rec, out, (h, w)


def meld_scene() -> Recognition:
    d = SceneBuilder().standing("123m456p789sN").meld("EEE", sideways=1).win("N").detections()
    return recognize_detections(d, "zhenjiang", ZJ)


def taken_scene() -> Recognition:
    d = SceneBuilder().standing("123m456p789sNNNEE").detections()
    r = recognize_detections(d, "mcr", {})
    assert r.winning_tile == "E" and r.layout.winning is None  # scored on the last tile
    return r


def test_the_winning_tile_taken_from_the_row_is_marked(monkeypatch: pytest.MonkeyPatch) -> None:
    """No tile set apart: the scorer took the row's last standing tile; the picture
    outlines it (dashed, in the winning colour) as ``win? E`` and the panel says so (HEAD
    marked no tile, so a user could not tell which one the score hung on)."""
    r = taken_scene()
    rec, out, _ = drawn(monkeypatch, r)
    photo = rec.images()[0]
    assert any(c.text == "win? E" for c in rec.texts(photo))
    last = r.layout.standing[-1]
    x1, y1, x2, y2 = (int(v) for v in r.detections.boxes[last])
    ring = out[max(0, y1 - 12):y2 + 13, max(0, x1 - 12):x2 + 13].reshape(-1, 3)
    assert (ring == ROLE_COLORS[WINNING]).all(axis=1).any()
    lines = panel_lines(r)
    assert any(line.startswith("winning tile: E") and "not set apart" in line for line in lines)
    assert any("on another winning tile it would score" in line for line in lines)


@pytest.mark.parametrize("scene", ["meld", "taken", "corrected"])
def test_labels_neither_overlap_nor_are_crossed(monkeypatch: pytest.MonkeyPatch,
                                                scene: str) -> None:
    """Outlines first, labels last: no meld or winning outline runs through a label, no
    label covers another, all inside the photo (HEAD drew the meld and winning outlines
    after the labels, through them)."""
    r = {"meld": meld_scene, "taken": taken_scene, "corrected": corrected_scene}[scene]()
    rec, _, (h, w) = drawn(monkeypatch, r)
    photo = rec.images()[0]
    texts = rec.texts(photo)
    assert rec.hidden(photo, (h, w)) == []
    labels = [c.rect for c in rec.calls if c.image == photo and c.kind == "fill"]
    assert overlapping(labels) == []
    assert all(min(x1, y1) >= 0 and x2 <= w and y2 <= h for x1, y1, x2, y2 in labels)
    shown = " ".join(c.text for c in texts)
    assert all(code in shown for code in r.codes)


def test_text_size_follows_the_tiles(monkeypatch: pytest.MonkeyPatch) -> None:
    """The same scene in a 1000-wide and a 4000-wide image gets labels of one size;
    tiles twice as large get labels about twice as large."""
    def label_scale(scale: float, shape: tuple[int, int]) -> float:
        d = SceneBuilder().standing("123m456p789sN").win("N").detections(scale=scale)
        r = recognize_detections(d, "zhenjiang", ZJ)
        rec, _, _ = drawn(monkeypatch, r, shape)
        return max(c.scale for c in rec.texts(rec.images()[0]))

    small, big = label_scale(1.0, (600, 1000)), label_scale(1.0, (3000, 4000))
    assert small == pytest.approx(big)
    assert label_scale(2.0, (3000, 4000)) == pytest.approx(2 * big, rel=0.05)


@pytest.mark.parametrize("rules,ctx,hand,width", [
    ("mcr", {}, "123m456p789sN", 640),
    ("xiamen", {"gold": "1s"}, "123m456p789sN", 1280),
    ("zhenjiang", {"indicator": "E"}, "123m456p789sN", 200),
])
def test_panel_is_ascii_and_fits_the_width(monkeypatch: pytest.MonkeyPatch, rules: str,
                                           ctx: dict[str, Any], hand: str, width: int) -> None:
    """The rule set's title (国标, 厦门, 百搭) comes out as ASCII, not '??', and every panel
    line is wrapped to the image's width (HEAD drew '(MCR, ??)' and cut lines off)."""
    r = recognize_detections(SceneBuilder().standing(hand).detections(), rules=rules,
                             context=ctx)
    rec, out, _ = drawn(monkeypatch, r, (480, width))
    assert out.shape[1] == width
    for c in rec.calls:
        if c.kind == "text":
            assert c.text.isascii() and "??" not in c.text and "(?" not in c.text, c.text
    panel = rec.images()[-1]
    assert all(c.rect[2] <= width for c in rec.texts(panel))
    assert rec.hidden(panel, out.shape) == []
    text = " ".join(panel_lines(r))
    assert {"mcr": "(MCR)", "xiamen": "(gold wild)", "zhenjiang": "(wild)"}[rules] in text


def test_a_fan_name_with_chinese_is_drawn_in_english(monkeypatch: pytest.MonkeyPatch) -> None:
    """The Zhenjiang kong-replacement fan's English name holds 百搭 (脱搭)."""
    d = SceneBuilder().concealed_kong("5s").standing("123m456p78sNN").win("9s").detections()
    r = recognize_detections(d, rules="zhenjiang",
                             context={"indicator": "E", "self_drawn": True, "kong": True})
    assert any(not f.en.isascii() for f in r.score.fans)  # type: ignore[union-attr]
    rec, _, _ = drawn(monkeypatch, r, (500, 900))
    texts = [c.text for c in rec.calls if c.kind == "text"]
    assert all(t.isascii() and "??" not in t for t in texts)
    assert any("Out on a Concealed Kong Replacement, No wild: " in t for t in texts)


def test_meld_notation_on_a_background_clear_of_its_outline(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``[EEE,2]`` is written on a filled background of the meld colour, and the meld's
    outline does not run through it (HEAD wrote it as thin text on the photo, its top
    under the outline's bottom line)."""
    r = meld_scene()
    rec, _, (h, w) = drawn(monkeypatch, r)
    photo = rec.images()[0]
    calls = [c for c in rec.calls if c.image == photo]
    k = next(i for i, c in enumerate(calls) if c.kind == "text" and c.text.startswith("[EEE,2]"))
    t = calls[k].rect
    fill = next(c for c in reversed(calls[:k]) if c.kind == "fill")
    assert fill.color == ROLE_COLORS[MELD]
    f = fill.rect
    assert f[0] <= t[0] and f[1] <= t[1] and t[2] <= f[2] and t[3] <= f[3]
    outline = next(c for c in calls if c.kind == "rect" and c.color == ROLE_COLORS[MELD]
                   and c.thick > 0 and (c.rect[2] - c.rect[0]) > 100)
    band = np.zeros((h, w), np.uint8)
    rec.rect(band, outline.rect[:2], outline.rect[2:], 1, outline.thick)
    assert not band[t[1]:t[3], t[0]:t[2]].any()


def corrected_scene() -> Recognition:
    b = SceneBuilder().standing("123m456p789sEEEN").win("N").uncertain([("S", 0.6), ("N", 0.35)])
    r = recognize_detections(b.detections(), "zhenjiang", ZJ)
    [c] = r.correction.best.changes
    assert (c.before, c.after) == ("S", "N") and r.roles[c.tile] == WINNING
    return r


def test_a_corrected_tile_is_numbered_and_keeps_its_win_prefix(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The corrected winning tile reads ``win S>N #1`` on the picture and ``corrected #1``
    in the panel, which names no detection index the picture does not show (HEAD: label
    ``S>N``, panel ``corrected tile 14``)."""
    r = corrected_scene()
    rec, _, _ = drawn(monkeypatch, r)
    photo = rec.images()[0]
    texts = [c.text for c in rec.texts(photo)]
    k = texts.index("win S>N")
    assert texts[k + 1].strip() == "#1"
    lines = panel_lines(r)
    assert any(line.startswith("corrected #1: S -> N") for line in lines)
    assert not any("tile 1" in line for line in lines)


def test_legend_and_colours_that_do_not_contradict_detect(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The panel ends with a legend of the colours used; no role colour is near the
    detect image's amber ('unsure'): HEAD's winning colour was that amber."""
    rec, _, _ = drawn(monkeypatch, corrected_scene())
    legend = {c.text for c in rec.texts(rec.images()[-1])}
    assert {"standing", "winning", "corrected"} <= legend
    rec, _, _ = drawn(monkeypatch, meld_scene())
    assert {"standing", "meld", "winning"} <= {c.text for c in rec.texts(rec.images()[-1])}
    for role, color in ROLE_COLORS.items():
        assert np.abs(np.subtract(color, AMBER)).sum() > 100, role


def test_wrap_ends_on_a_width_narrower_than_a_character() -> None:
    """Diff review: an indented line on a picture a few pixels wide grew forever (its
    four spaces put back, at most three characters cut a line) — a photo under 28 px
    wide with a scored hand never came back from ``render``. Every line now takes at
    least one character of the text."""
    import threading

    from vision.render import wrap

    out: list[list[str]] = []
    worker = threading.Thread(target=lambda: out.append(
        wrap("  Pung of Terminals or Honors: 1", 5, 0.4, 1)), daemon=True)
    worker.start()
    worker.join(10)
    assert out, "wrap did not end"
    lines = out[0]
    assert "".join(line.strip() for line in lines) == "PungofTerminalsorHonors:1"


def _scorer_messages() -> list[tuple[str, str]]:
    """``(where, text)`` of every string in the rules engine's ``raise`` statements: the
    texts a recognize panel may print as why a hand cannot be scored."""
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "scoring"
    out = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Raise):
                out += [(f"{path.name}:{c.lineno}", c.value) for c in ast.walk(node)
                        if isinstance(c, ast.Constant) and isinstance(c.value, str)]
    return out


def test_every_chinese_term_of_a_scorer_message_reaches_the_panel_in_english() -> None:
    """A term is glossed in parentheses after it, is an item of a parenthesised list
    beside English ones, or is in the glossary; none is dropped from the sentence
    (``全不靠/七星不靠 or 组合龙`` printed as ``/ or``)."""
    from vision.render import _CJK_RUN, GLOSSARY

    dropped = []
    for where, text in _scorer_messages():
        for m in _CJK_RUN.finditer(text):
            before = text[:m.start()]
            if (m.group(0) in GLOSSARY or text[m.end():].lstrip().startswith("(")
                    or before.count("(") > before.count(")")):
                continue
            dropped.append(f"{where} {m.group(0)}")
    assert len(_scorer_messages()) > 100  # the walk found the engine's messages
    assert not dropped, f"add these to vision.render.GLOSSARY: {dropped}"


def test_a_term_glossed_with_settings_keeps_its_name() -> None:
    from vision.render import ascii_text

    assert ascii_text("杠上开花 (kong=true, self-drawn) needs a kong among the melds") == (
        "kong replacement win (kong=true, self-drawn) needs a kong among the melds")
    assert ascii_text("和绝张 (last of its kind) cannot happen") == (
        "last of its kind cannot happen")
