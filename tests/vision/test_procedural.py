"""Procedural tile art (vision/synth/procedural.py): every code drawn in every style,
seeded, each face distinct, the traditional colours where the style keeps them, and a
clear error when no CJK font is installed."""

from __future__ import annotations

from itertools import combinations
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("PIL", reason="procedural art needs Pillow (dev extra)")

from vision.classes import CLASSES
from vision.synth import procedural as proc
from vision.synth.art import ArtError, load_art

FONTS = proc.usable_fonts()
needs_font = pytest.mark.skipif(
    not FONTS, reason="no CJK font installed (apt-get install fonts-noto-cjk)")
CODES = [c for c in CLASSES if c != "back"]


@pytest.fixture(scope="module")
def faces() -> dict[str, list[np.ndarray]]:
    if not FONTS:
        pytest.skip("no CJK font installed (apt-get install fonts-noto-cjk)")
    return proc.procedural_faces(styles=6, seed=3)


@needs_font
def test_every_code_has_one_portrait_face_per_style(faces: dict[str, list[np.ndarray]]) -> None:
    assert sorted(faces) == sorted(CODES)
    for code in CODES:
        assert len(faces[code]) == 6
        for face in faces[code]:
            assert face.dtype == np.uint8 and face.ndim == 3 and face.shape[2] == 3
            assert face.shape[0] == proc.FACE_H and 110 <= face.shape[1] < face.shape[0]


@needs_font
def test_same_seed_same_faces_other_seed_other_faces(
        faces: dict[str, list[np.ndarray]]) -> None:
    again = proc.procedural_faces(styles=6, seed=3, fonts=FONTS)
    other = proc.procedural_faces(styles=6, seed=4, fonts=FONTS)
    assert all(np.array_equal(a, b) for c in CODES for a, b in zip(faces[c], again[c],
                                                                    strict=True))
    assert any(a.shape != b.shape or not np.array_equal(a, b)
               for c in CODES for a, b in zip(faces[c], other[c], strict=True))


@needs_font
def test_every_code_looks_different_from_every_other_in_a_style(
        faces: dict[str, list[np.ndarray]]) -> None:
    """Within one style no two codes share a face (the numeral, the count or the character
    tells them apart)."""
    for s in range(6):
        for a, b in combinations(CODES, 2):
            fa, fb = faces[a][s], faces[b][s]
            w = min(fa.shape[1], fb.shape[1])
            diff = np.abs(fa[:, :w].astype(int) - fb[:, :w].astype(int)).mean()
            assert diff > 1.0, (s, a, b, diff)


def _red(face: np.ndarray) -> np.ndarray:
    f = face.astype(int)
    return (f[..., 0] > 140) & (f[..., 0] - f[..., 1] > 70) & (f[..., 0] - f[..., 2] > 60)


def _green(face: np.ndarray) -> np.ndarray:
    f = face.astype(int)
    return (f[..., 1] > 80) & (f[..., 1] - f[..., 0] > 40) & (f[..., 1] - f[..., 2] > 10)


@needs_font
def test_characters_write_wan_in_red_under_the_numeral() -> None:
    """萬 (the character suit's sign) is red and sits in the lower half of the face."""
    rng = np.random.default_rng(0)
    for _ in range(5):
        style = proc.random_style(rng, FONTS)
        face = proc.draw_face("5m", style, rng)
        red = _red(face)
        h = face.shape[0]
        assert red[h // 2:].sum() > 150
        if style.numeral_ink != "red":
            assert red[h // 2:].sum() > 5 * red[: int(h * 0.4)].sum()


@needs_font
def test_six_dots_are_green_above_and_red_below_in_traditional_colours() -> None:
    rng = np.random.default_rng(1)
    seen = 0
    while seen < 3:
        style = proc.random_style(rng, FONTS)
        if style.free_colours or style.corner_index:
            continue
        face = proc.draw_face("6p", style, rng)
        h = face.shape[0]
        top, bottom = slice(0, int(h * 0.33)), slice(int(h * 0.38), h)
        assert _green(face[top]).sum() > 3 * _red(face[top]).sum()
        assert _red(face[bottom]).sum() > 3 * _green(face[bottom]).sum()
        seen += 1


def test_no_cjk_font_is_a_clear_error() -> None:
    with pytest.raises(proc.ProceduralArtError, match="CJK font"):
        proc.procedural_faces(styles=1, fonts=[])


def test_a_font_without_the_characters_is_not_used() -> None:
    """A Latin font lacks the CJK characters; Droid Sans Fallback lacks the digits and
    letters of corner indices — either would draw empty boxes on a face."""
    fonts = [Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"),
             Path("/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf")]
    fonts = [f for f in fonts if f.exists()]
    if not fonts:
        pytest.skip("neither DejaVuSans nor Droid Sans Fallback is installed")
    assert proc.usable_fonts(tuple((str(f), 0) for f in fonts)) == []


def test_draw_face_rejects_the_back_and_unknown_codes() -> None:
    rng = np.random.default_rng(0)
    style = proc.random_style(rng, [("unused", 0)])
    for code in ("back", "0m", "X"):
        with pytest.raises(ValueError, match="no face"):
            proc.draw_face(code, style, rng)


@needs_font
def test_procedural_is_an_art_set_the_generator_can_load() -> None:
    try:
        art = load_art("procedural")
    except ArtError as exc:  # pragma: no cover - fonts present but Pillow broken
        pytest.skip(str(exc))
    assert art.name == "procedural" and art.has_bonus and len(art.codes) == 42
    assert all(len(v) == 24 for v in art.faces.values())
    assert min(art.ivory) > 180


@needs_font
def test_procedural_n_names_other_styles() -> None:
    """``procedural-<n>`` draws 24 other styles (style seed n); ``procedural`` is seed 0."""
    base, other = load_art("procedural"), load_art("procedural-1")
    assert other.name == "procedural-1" and other.codes == base.codes
    assert any(a.shape != b.shape or not np.array_equal(a, b)
               for a, b in zip(base.faces["5m"], other.faces["5m"], strict=True))


@needs_font
def test_pictorial_n_gives_bonus_faces_more_picture_than_procedural_n() -> None:
    """``pictorial-<n>``: the same kind of styles, but the seasons and flowers carry the
    varied pictures (scenes, branches, plants on tinted or framed panels), which cover
    more of the face than the petals-and-stem picture of ``procedural-<n>``."""
    plain, varied = load_art("procedural-7"), load_art("pictorial-7")
    assert varied.name == "pictorial-7" and varied.codes == plain.codes

    def inked(art_faces: list[np.ndarray]) -> float:
        shares = []
        for f in art_faces:
            ground = f[2, f.shape[1] // 2].astype(int)
            shares.append(float((np.abs(f.astype(int) - ground).sum(axis=2) > 60).mean()))
        return float(np.mean(shares))

    bonus = [c for c in CODES if c.endswith("f")]
    assert np.mean([inked(varied.faces[c]) for c in bonus]) > 1.3 * np.mean(
        [inked(plain.faces[c]) for c in bonus])


def test_procedural_art_without_fonts_is_a_clear_art_error(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(proc, "usable_fonts", lambda *a, **k: [])
    for name in ("procedural", "procedural-2"):
        with pytest.raises(ArtError, match="CJK font"):
            load_art(name)


@needs_font
def test_a_numbered_set_tells_the_four_of_a_group_apart_only_by_the_corner() -> None:
    """Numbered bonus art (the bonus reader's close-ups): seasons share one picture and
    flowers another, so faces of one group differ only where the numeral (and character)
    is drawn; the two groups' pictures differ."""
    for seed in range(6):
        rng = np.random.default_rng(seed)
        style = proc.random_style(rng, FONTS, "varied")
        faces = proc.numbered_bonus_faces(style, rng)
        assert sorted(faces) == ["1f", "2f", "3f", "4f", "5f", "6f", "7f", "8f"]
        h, w = faces["1f"].shape[:2]
        for group in (("1f", "2f", "3f", "4f"), ("5f", "6f", "7f", "8f")):
            for a, b in combinations(group, 2):
                diff = np.abs(faces[a].astype(int) - faces[b].astype(int)).max(axis=2) > 40
                assert diff.any(), f"seed {seed}: {a} and {b} drawn alike"
                ys, xs = np.nonzero(diff)
                # the numeral's corner box with the character beside it: a quarter of the
                # width and a third of the height at most
                assert xs.max() - xs.min() <= 0.3 * w and ys.max() - ys.min() <= 0.36 * h, \
                    f"seed {seed}: {a} and {b} differ outside a corner"
        assert (np.abs(faces["1f"].astype(int) - faces["5f"].astype(int)).max(axis=2) > 40
                ).mean() > 0.02


@needs_font
def test_a_numbered_sets_corner_can_be_chosen_and_its_numeral_drawn_hollow_or_larger() -> None:
    """Numbered bonus art for the numeral reader: the corner is the caller's when given;
    ``hollow`` outlines the numeral and fills it pale (another face than the solid
    one), ``grow`` enlarges it (the faces of a group differ over at least as much); the
    defaults draw the plain solid numeral exactly as before (nothing more drawn from
    ``rng``)."""
    style = proc.random_style(np.random.default_rng(3), FONTS, "varied")
    plain = proc.numbered_bonus_faces(style, np.random.default_rng(4))
    again = proc.numbered_bonus_faces(style, np.random.default_rng(4), None, 0.0, 0.0)
    assert all(np.array_equal(plain[c], again[c]) for c in plain)
    for corner in range(len(proc.NUMBER_CORNERS)):
        faces = proc.numbered_bonus_faces(style, np.random.default_rng(5), corner)
        h, w = faces["1f"].shape[:2]
        diff = np.abs(faces["1f"].astype(int) - faces["2f"].astype(int)).max(axis=2) > 40
        ys, xs = np.nonzero(diff)
        x0, y0, x1, y1 = proc.NUMBER_CORNERS[corner][0]
        assert x0 - 0.1 <= xs.mean() / w <= x1 + 0.1 and y0 - 0.1 <= ys.mean() / h <= y1 + 0.1
    solid = proc.numbered_bonus_faces(style, np.random.default_rng(6), 0, 0.0, 0.0)
    hollow = proc.numbered_bonus_faces(style, np.random.default_rng(6), 0, 1.0, 0.0)
    big = proc.numbered_bonus_faces(style, np.random.default_rng(6), 0, 0.0, 1.0)

    def changed(faces: dict[str, np.ndarray]) -> np.ndarray:
        return np.abs(faces["1f"].astype(int) - faces["4f"].astype(int)).max(axis=2) > 40

    assert not np.array_equal(solid["1f"], hollow["1f"])
    assert changed(big).sum() >= changed(solid).sum()
    # drift: the numeral of the top-left corner moves right and down, never out of the face
    for seed in range(3):
        moved = proc.numbered_bonus_faces(style, np.random.default_rng(seed), 0, 0.0, 0.0, 0.3)
        still = proc.numbered_bonus_faces(style, np.random.default_rng(seed), 0, 0.0, 0.0, 0.0)
        ys, xs = np.nonzero(changed(moved))
        y0, x0 = np.nonzero(changed(still))
        assert xs.mean() + ys.mean() >= x0.mean() + y0.mean()
        assert xs.max() < moved["1f"].shape[1] and ys.max() < moved["1f"].shape[0]
