"""The synthetic data generator: labels match its own geometry, seeds decide everything,
glyphs are never mirrored, the CLI writes what it says."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.classes import CLASSES
from vision.synth.art import ArtError, ArtSet, load_art
from vision.synth.hands import is_winning, near_miss, random_hand, tile_sort_key, waiting_hand
from vision.synth.render import TileBox
from vision.synth.scene import (
    Placed,
    SceneOptions,
    SceneResult,
    layout_closeup,
    layout_extras,
    layout_hand,
    render_scene,
)


def _art(name: str) -> ArtSet:
    try:
        return load_art(name)
    except ArtError as exc:
        pytest.skip(f"art set {name} unavailable: {exc}")


def _any_art() -> ArtSet:
    for name in ("xmahjongg-real", "gnome-smooth", "fluffy", "kmahjongg-default"):
        try:
            return load_art(name)
        except ArtError:
            continue
    pytest.skip("no tile art installed (apt-get install xmahjongg gnome-mahjongg, or ../shared)")


def _synthetic_art() -> ArtSet:
    """A tiny art set drawn here: each face a distinct flat colour plus a marker in its
    top-left quarter (so mirroring or turning is visible). Needs nothing installed."""
    faces = {}
    rng = np.random.default_rng(7)
    for code in CLASSES[:-1]:
        face = np.full((64, 48, 3), 230, np.uint8)
        face[8:56, 6:42] = rng.integers(40, 200, 3)
        face[4:20, 4:16] = (255, 0, 0)  # marker: top-left
        faces[code] = [face]
    return ArtSet("test-colours", faces)


def _hand_scene(art: ArtSet, seed: list[int], size: tuple[int, int] = (256, 256),
                **options: float) -> SceneResult:
    """A hand scene with nothing else on the table, with these :class:`SceneOptions`."""
    w, h = size
    opts = SceneOptions(width=w, height=h, hand_prob=1.0, extras_prob=0.0, **options)
    return render_scene(art, np.random.default_rng(seed), opts)


def _off_makes_no_draw(art: ArtSet, seed: list[int], option: str,
                       size: tuple[int, int] = (256, 256)) -> SceneResult:
    """Check that ``option`` at 0 makes no draw — the scene is the one made without it, so
    older sets come out the same — and return that scene."""
    plain = _hand_scene(art, seed, size)
    same = _hand_scene(art, seed, size, **{option: 0.0})
    assert np.array_equal(plain.image, same.image) and plain.truth == same.truth
    return plain


SCENES = 24


@pytest.fixture(scope="module")
def scenes() -> list[SceneResult]:
    art = _synthetic_art()
    opts = SceneOptions(width=320, height=320)
    return [render_scene(art, np.random.default_rng([11, i]), opts) for i in range(SCENES)]


def test_every_box_encloses_its_tiles_pixels(scenes: list[SceneResult]) -> None:
    for r in scenes:
        for t in r.truth["tiles"]:
            ys, xs = np.nonzero(r.index == t["id"])
            if len(xs) == 0:
                continue  # fully hidden behind other tiles
            x1, y1, x2, y2 = t["box"]
            assert xs.min() >= np.floor(x1) - 1 and xs.max() <= np.ceil(x2) + 1
            assert ys.min() >= np.floor(y1) - 1 and ys.max() <= np.ceil(y2) + 1


def test_every_painted_tile_has_a_box_and_no_box_leaves_the_image(
    scenes: list[SceneResult],
) -> None:
    for r in scenes:
        ids = {t["id"] for t in r.truth["tiles"]}
        painted = set(np.unique(r.index).tolist()) - {-1}
        assert painted <= ids
        for t in r.truth["tiles"]:
            x1, y1, x2, y2 = t["box"]
            assert 0 <= x1 < x2 <= r.truth["width"] and 0 <= y1 < y2 <= r.truth["height"]


def test_sideways_meld_tiles_are_labelled_turned_a_quarter(scenes: list[SceneResult]) -> None:
    seen = 0
    for r in scenes:
        roll = r.truth["camera"]["roll_deg"]
        # near 45 degrees off (roll jitter + azimuth + perspective) a label may
        # legitimately flip; check the clear cases
        if (min(abs(roll - a) for a in (0, 90, 180, 270, 360)) > 15
                or r.truth["camera"]["elevation_deg"] < 65):
            continue
        base = round(roll / 90) % 4 * 90
        for t in r.truth["tiles"]:
            if t["role"] == "meld" and not t["face_down"]:
                assert ((t["rotation"] - base) % 180 == 90) == t["sideways"], (roll, t)
                seen += 1
    assert seen > 0


def test_rotation_labels_follow_the_camera_roll(scenes: list[SceneResult]) -> None:
    checked = 0
    for r in scenes:
        roll = r.truth["camera"]["roll_deg"]
        # near 45 degrees off (roll jitter + azimuth + perspective) a label may
        # legitimately flip; check the clear cases
        if (min(abs(roll - a) for a in (0, 90, 180, 270, 360)) > 15
                or r.truth["camera"]["elevation_deg"] < 65):
            continue
        base = round(roll / 90) % 4 * 90
        for t in r.truth["tiles"]:
            if t["role"] in ("standing", "winning") and not t["upright_on_edge"]:
                assert t["rotation"] == base, (roll, t)
                checked += 1
    assert checked > 0


def test_same_seed_same_scene_other_seed_other_scene() -> None:
    art = _synthetic_art()
    opts = SceneOptions(width=256, height=256)
    a = render_scene(art, np.random.default_rng([5, 3]), opts)
    b = render_scene(art, np.random.default_rng([5, 3]), opts)
    c = render_scene(art, np.random.default_rng([6, 3]), opts)
    assert np.array_equal(a.image, b.image) and a.truth == b.truth
    assert not np.array_equal(a.image, c.image)


def test_glyphs_are_not_mirrored() -> None:
    """An upright face seen from straight above keeps its marker top-left (a mirror would
    put it top-right)."""
    art = _synthetic_art()
    checked = 0
    for i in range(80):
        if checked >= 6:
            break
        r = render_scene(art, np.random.default_rng([21, i]),
                         SceneOptions(width=320, height=320, hand_prob=0.0,
                                      min_tile_px=80, max_tile_px=120))
        for t in r.truth["tiles"]:
            roll = r.truth["camera"]["roll_deg"]
            if (t["face_down"] or t["rotation"] != 0 or r.truth["camera"]["elevation_deg"] < 80
                    or min(roll, 360 - roll) > 12):
                continue
            mask = r.index == t["id"]
            ys, xs = np.nonzero(mask)
            if len(xs) < 400:
                continue
            red = mask & (r.image[..., 0] > 150) & (r.image[..., 1] < 90) & (r.image[..., 2] < 90)
            ry, rx = np.nonzero(red)
            if len(rx) < 5:
                continue
            cx, cy = (xs.min() + xs.max()) / 2, (ys.min() + ys.max()) / 2
            assert rx.mean() < cx and ry.mean() < cy
            checked += 1
    assert checked >= 3


def test_hand_truth_matches_its_tiles(scenes: list[SceneResult]) -> None:
    for r in scenes:
        t = r.truth
        if t["scene"] != "hand":
            continue
        standing = [x["code"] for x in t["tiles"] if x["role"] == "standing"]
        winning = [x["code"] for x in t["tiles"] if x["role"] == "winning"]
        assert standing + winning == t["standing"]
        assert winning == [t["winning_tile"]]
        for m in t["melds"]:
            codes = sorted((t["tiles"][i]["code"] for i in m["tile_ids"]), key=tile_sort_key)
            assert codes == m["tiles"]
            downs = [t["tiles"][i]["face_down"] for i in m["tile_ids"]]
            assert any(downs) == m["concealed"]
            claimed = [t["tiles"][i] for i in m["tile_ids"] if t["tiles"][i]["claimed"]]
            assert len(claimed) == (0 if m["concealed"] else 1)


def test_random_hands_are_complete_and_respect_copy_counts() -> None:
    rng = np.random.default_rng(0)
    for _ in range(200):
        h = random_hand(rng)
        tiles = [t for m in h.melds for t in m.tiles] + h.standing
        kongs = sum(1 for m in h.melds if m.kind == "kong")
        assert len(tiles) == 14 + kongs
        assert max(tiles.count(t) for t in set(tiles)) <= 4
        assert len(set(h.flowers)) == len(h.flowers)


def test_face_up_kongs_are_concealed_kongs_laid_all_face_up_and_off_by_default() -> None:
    """--face-up-kongs P lays a concealed kong as four face-up tiles (truth: still a
    concealed kong, ``face_up``); at 0 no draw is made, so older sets come out the same."""
    from vision.synth.arrange import _meld_tiles

    plain = [random_hand(np.random.default_rng([5, i])) for i in range(300)]
    same = [random_hand(np.random.default_rng([5, i]), face_up_kongs=0.0) for i in range(300)]
    assert [h.notation() for h in plain] == [h.notation() for h in same]
    up = [random_hand(np.random.default_rng([5, i]), face_up_kongs=1.0) for i in range(300)]
    concealed = [m for h in up for m in h.melds if m.kind == "kong" and m.claimed_from is None]
    assert concealed and all(m.face_up for m in concealed)
    rng = np.random.default_rng(0)
    assert not any(down for _, _, down, _ in _meld_tiles(concealed[0], rng))
    hidden = [m for h in plain for m in h.melds if m.kind == "kong" and m.claimed_from is None]
    assert hidden and not any(m.face_up for m in hidden)
    assert [down for _, _, down, _ in _meld_tiles(hidden[0], rng)] == [True, False, False, True]


def test_turned_hands_leave_tiles_either_way_up_and_are_off_by_default() -> None:
    """--turned-hands P: a hand's face-up tiles lie either way up, as players leave them
    (some of its upright tiles' glyphs point down in the truth, the hand is the same);
    at 0 no draw is made, so older sets come out the same."""
    from vision.synth.scene import turn_either_way

    art = _any_art()
    plain = _off_makes_no_draw(art, [7, 2], "turned_hands")
    turned = _hand_scene(art, [7, 2], turned_hands=1.0)
    assert turned.truth["hand"] == plain.truth["hand"]
    assert [t["code"] for t in turned.truth["tiles"]] == [t["code"] for t in plain.truth["tiles"]]
    # The draws move the camera too, so compare the hand row's tiles with each other:
    # unturned they all lie one way; turned they lie either way up (two rotations 180° apart).
    def row(scene: SceneResult) -> list[int]:
        return [t["rotation"] for t in scene.truth["tiles"]
                if t["role"] in ("standing", "winning") and not t["face_down"]]

    assert len(set(row(plain))) == 1
    ways = sorted(set(row(turned)))
    assert len(ways) == 2 and (ways[1] - ways[0]) == 180
    assert min(row(turned).count(w) for w in ways) >= 2
    yaws = set()
    for seed in range(20):  # face-down tiles and tiles standing on edge keep their yaw
        placed = [Placed(TileBox("1m", 0, 0, 0.0), "standing"),
                  Placed(TileBox("2m", 30, 0, 0.0, face_down=True), "meld"),
                  Placed(TileBox("3m", 60, 0, 0.0, standing=True), "standing")]
        turn_either_way(placed, np.random.default_rng(seed))
        yaws.add(placed[0].box.yaw)
        assert placed[1].box.yaw == placed[2].box.yaw == 0.0
    assert yaws == {0.0, 180.0}


def test_near_miss_hands_are_one_tile_off_a_win_and_keep_melds_flowers_and_copy_counts(
) -> None:
    """--near-miss: a false win claim is the complete hand with one standing tile swapped
    for another kind; the 14 tiles have no winning shape, no kind is held a fifth time,
    and the melds and bonus tiles are the hand's. Both the tile set apart for the win and
    the other standing tiles get swapped."""
    rng = np.random.default_rng(11)
    swapped_last = swapped_other = 0
    for _ in range(150):
        hand = random_hand(rng)
        assert is_winning(hand)
        miss = near_miss(rng, hand)
        assert not is_winning(miss)
        assert miss.melds == hand.melds and miss.flowers == hand.flowers
        lost = Counter(hand.standing) - Counter(miss.standing)
        gained = Counter(miss.standing) - Counter(hand.standing)
        assert sum(lost.values()) == sum(gained.values()) == 1
        tiles = Counter(miss.standing) + Counter(t for m in miss.melds for t in m.tiles)
        assert max(tiles.values()) <= 4
        if miss.standing[:-1] == hand.standing[:-1]:
            swapped_last += 1
        else:
            swapped_other += 1
            rest = miss.standing[:-1]
            assert rest == sorted(rest, key=tile_sort_key)  # players' order kept
    assert swapped_last > 30 and swapped_other > 30


def test_near_miss_scenes_say_they_do_not_win_and_are_off_by_default() -> None:
    """A scene's truth says whether its hand wins (``wins``); at ``near_miss`` 0 no draw
    is made, so older sets come out the same; at 1 the hand is a false claim."""
    art = _any_art()
    plain = _off_makes_no_draw(art, [9, 1], "near_miss")
    assert plain.truth["wins"] is True
    miss = _hand_scene(art, [9, 1], near_miss=1.0)
    assert miss.truth["wins"] is False and miss.truth["hand"] != plain.truth["hand"]
    codes = Counter(t["code"] for t in miss.truth["tiles"] if t["role"] != "flower")
    import scoring

    hand = scoring.parse_hand(miss.truth["hand"])
    assert codes == Counter(t for m in hand.melds for t in m.tiles) + Counter(hand.standing)


def test_waiting_scenes_show_the_hand_one_tile_short_with_its_waits() -> None:
    """--waiting: a hand one tile short (听) — the tile set apart for the win taken away,
    every tile standing, none with the winning role; the truth gives its waits (the tile
    taken away among them) and says it does not win. Off (0) makes no draw."""
    import scoring

    art = _any_art()
    plain = _off_makes_no_draw(art, [4, 2], "waiting", size=(320, 240))
    assert "waiting" not in plain.truth
    short = _hand_scene(art, [4, 2], (320, 240), waiting=1.0)
    t = short.truth
    assert t["waiting"] is True and t["wins"] is False and t["winning_tile"] is None
    assert t["shanten"] == 0 and plain.truth["winning_tile"] in t["waits"]
    roles = Counter(x["role"] for x in t["tiles"])
    assert roles["winning"] == 0 and roles["standing"] == len(t["standing"])
    assert t["standing"] == sorted(t["standing"], key=tile_sort_key)
    hand = scoring.parse_hand(t["hand"])
    assert sum(min(len(m.tiles), 3) for m in hand.melds) + len(hand.standing) == 13
    waits = scoring.waits(t["hand"], rules="mcr")
    assert sorted(w.tile for w in waits.waits) == sorted(t["waits"])


def test_a_waiting_near_miss_hand_may_be_not_ready() -> None:
    """A false claim with its last tile taken away is ready (the original hand less its
    winning tile) or, when another tile was swapped, usually not."""
    import scoring

    rng = np.random.default_rng(5)
    shanten = Counter[int]()
    for _ in range(60):
        w = waiting_hand(near_miss(rng, random_hand(rng)))
        assert w.waiting and w.winning_tile is None
        shanten[scoring.waits(w.notation(), rules="mcr").shanten] += 1
    assert shanten[0] > 0 and sum(n for k, n in shanten.items() if k > 0) > 0


def test_hand_notation_parses_with_the_scorer() -> None:
    scoring = pytest.importorskip("scoring")
    rng = np.random.default_rng(1)
    for _ in range(50):
        h = random_hand(rng)
        parsed = scoring.parse_hand(h.notation())
        assert list(parsed.standing) == h.standing
        assert len(parsed.melds) == len(h.melds)
        for pm, m in zip(parsed.melds, h.melds, strict=True):
            assert pm.kind == m.kind and pm.claimed_from == m.claimed_from
            assert pm.added == m.added


def test_installed_art_renders_every_code() -> None:
    art = _any_art()
    assert len(art.codes) >= 34
    for code in art.codes:
        face = art.faces[code][0]
        assert face.ndim == 3 and face.shape[0] > face.shape[1]


@pytest.mark.parametrize(
    ("name", "n_codes", "left_out"),
    [("xmahjongg-dorothys", 42, ()), ("xmahjongg-dorwhite", 42, ()),
     ("xmahjongg-gnome", 34, ("1f", "5f")), ("xmahjongg-gnome2", 34, ("1f", "8f"))],
)
def test_xmahjongg_sheets_cut_whole_faces_without_the_bevel(
    name: str, n_codes: int, left_out: tuple[str, ...]
) -> None:
    """Each sheet cell is cut to the tile's face: portrait, and its four corners (the
    median over the set's faces, so a numeral drawn in one corner does not count) the
    face's own ivory — a cut that kept the drawn bevel or outline would show its brown,
    grey or black there; sheets whose bonus tiles carry no number leave them out."""
    art = _art(name)
    assert len(art.codes) == n_codes and not set(left_out) & set(art.codes)
    faces = [art.faces[code][0] for code in art.codes]
    assert all(f.shape[0] > f.shape[1] for f in faces)
    ivory = np.array(art.ivory, np.float32)
    for ys, xs in ((slice(2, 6), slice(2, 6)), (slice(2, 6), slice(-6, -2)),
                   (slice(-6, -2), slice(2, 6)), (slice(-6, -2), slice(-6, -2))):
        corner = np.median([f[ys, xs].reshape(-1, 3).mean(0) for f in faces], axis=0)
        assert np.abs(corner - ivory).max() < 30, (ys, xs, corner, ivory)
    faces = [art.faces[c][0] for c in ("1m", "2m")]
    assert faces[0].shape != faces[1].shape or np.abs(
        faces[0].astype(int) - faces[1].astype(int)).mean() > 3


def test_gnome_postmodern_seasons_are_its_weather_faces_and_flowers_its_flower_faces() -> None:
    """RULES.md codes: 1f-4f seasons, 5f-8f flowers. gnome-mahjongg's postmodern sheet
    draws the seasons as blue weather pictures (sun, snow, rain) in the columns where
    other themes put the flowers, and its flowers as yellow-brown ones after the white
    dragon (checked by eye; until 2026-11-30 these were swapped, which mislabelled the
    held-out validation sets' bonus tiles)."""
    art = _art("gnome-postmodern")
    for i in range(1, 9):
        r, _, b = art.faces[f"{i}f"][0].reshape(-1, 3).astype(float).mean(0)
        assert (b > r + 10) if i <= 4 else (r > b + 10), (i, r, b)


def test_cli_writes_n_images_labels_and_truth(tmp_path: Path) -> None:
    from tilecam.cli import main

    art = _any_art()
    out = tmp_path / "synth"
    rc = main(["dataset", "synth", "--out", str(out), "--count", "3", "--seed", "4",
               "--art", art.name, "--imgsz", "256", "--quiet"])
    assert rc == 0
    images = sorted((out / "images").glob("*.jpg"))
    labels = sorted((out / "labels").glob("*.txt"))
    truths = sorted((out / "truth").glob("*.json"))
    assert len(images) == len(labels) == len(truths) == 3
    for lab, tr in zip(labels, truths, strict=True):
        rows = [line.split() for line in lab.read_text().splitlines() if line.strip()]
        truth = json.loads(tr.read_text())
        assert len(rows) == len(truth["tiles"]) > 0
        for row, tile in zip(rows, truth["tiles"], strict=True):
            assert CLASSES[int(row[0])] == tile["label"]
            assert all(0.0 <= float(v) <= 1.0 for v in row[1:])
    assert "names:" in (out / "data.yaml").read_text()


def test_cli_rejects_bad_options(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tilecam.cli import main

    assert main(["dataset", "synth", "--out", str(tmp_path), "--count", "0"]) == 2
    assert "--count" in capsys.readouterr().err
    assert main(["dataset", "synth", "--out", str(tmp_path), "--art", "no-such-set"]) == 2
    assert "unknown art set" in capsys.readouterr().err
    assert main(["dataset", "synth", "--out", str(tmp_path), "--imgsz", "1", "2", "3"]) == 2
    assert main(["dataset", "synth", "--out", str(tmp_path), "--turned-hands", "1.5"]) == 2
    assert "--turned-hands must be between 0 and 1" in capsys.readouterr().err
    assert main(["dataset", "synth", "--out", str(tmp_path), "--near-miss", "-0.1"]) == 2
    assert "--near-miss must be between 0 and 1" in capsys.readouterr().err
    assert main(["dataset", "synth", "--out", str(tmp_path), "--waiting", "2"]) == 2
    assert "--waiting must be between 0 and 1" in capsys.readouterr().err


def test_photos_command_names_a_missing_source(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tilecam.cli import main

    missing = tmp_path / "no-photos"
    assert main(["dataset", "photos", "--src", str(missing), "--out", str(tmp_path / "o")]) == 2
    assert str(missing) in capsys.readouterr().err


def test_same_seed_gives_the_same_files_with_any_worker_count(tmp_path: Path) -> None:
    from tilecam.cli import main

    art = _any_art()
    for name, workers in (("a", "1"), ("b", "2")):
        assert main(["dataset", "synth", "--out", str(tmp_path / name), "--count", "2",
                     "--seed", "9", "--art", art.name, "--imgsz", "192", "--quiet",
                     "--workers", workers]) == 0
    for sub in ("images/000001.jpg", "labels/000001.txt", "truth/000001.json"):
        assert (tmp_path / "a" / sub).read_bytes() == (tmp_path / "b" / sub).read_bytes()


def _footprints_overlap(placed: list[Placed], w: float, h: float) -> bool:
    """Whether two tiles' footprints on the table overlap by more than ~1.5 mm."""
    pts = np.vstack([np.vstack(p.box.corners(w, h, 20.0))[:, :2] for p in placed])
    origin = pts.min(0) - 5
    size = np.ceil((pts.max(0) - origin + 5) * 2).astype(int)
    taken = np.zeros((size[1], size[0]), np.uint8)
    for p in placed:
        corners = np.vstack(p.box.corners(w, h, 20.0))[:, :2]
        hull = cv2.convexHull(((corners - origin) * 2).astype(np.int32))
        mask = np.zeros_like(taken)
        cv2.fillConvexPoly(mask, hull, 1)
        mask = cv2.erode(mask, np.ones((7, 7), np.uint8))
        if (taken & mask).any():
            return True
        taken |= mask
    return False


def test_a_face_down_tile_is_never_painted_like_the_sets_blank_white_dragon() -> None:
    """A painted back keeps clear of the set's face colour and of its 白's face: no ivory
    back at all (real backs are coloured), no green back on a jade set, no black back where
    白 is dark, and no back picture that looks like a blank face of the set."""
    from vision.synth.paint import BACK_COLOURS, back_colours_for, back_picture_for

    def art(ivory: tuple[int, int, int], white: tuple[int, int, int],
            back: tuple[int, int, int] | None = None) -> ArtSet:
        face = np.full((160, 120, 3), ivory, np.uint8)
        face[40:120, 30:90] = white
        pic = None if back is None else np.full((160, 120, 3), back, np.uint8)
        return ArtSet("t", {"P": [face]}, back=pic, ivory=ivory)

    assert all(min(c) < 200 for c in BACK_COLOURS)
    jade_set = back_colours_for(art((34, 104, 74), (34, 104, 74)))
    assert (40, 120, 70) not in jade_set and (30, 80, 150) not in jade_set
    assert (220, 170, 40) in jade_set
    dark_white = art((240, 238, 230), (30, 30, 30), back=(35, 35, 35))
    assert (40, 40, 40) not in back_colours_for(dark_white)
    assert set(back_colours_for(dark_white)) < set(BACK_COLOURS)
    assert back_picture_for(dark_white) is None
    framed = art((240, 238, 230), (240, 238, 230), back=(30, 80, 150))
    assert back_picture_for(framed) is framed.back
    assert set(back_colours_for(framed)) == set(BACK_COLOURS)


def test_tiles_never_overlap_on_the_table() -> None:
    art = _synthetic_art()
    w, h = 26.0, 36.0
    for i in range(150):
        rng = np.random.default_rng([17, i])
        if i % 3 == 0:
            placed = layout_closeup(rng, art, w, h)
        else:
            placed, _ = layout_hand(random_hand(rng), rng, w, h)
            xs = [p.box.x for p in placed]
            ys = [p.box.y for p in placed]
            placed += layout_extras(rng, art, w, h, (min(xs), min(ys), max(xs), max(ys)))
        assert not _footprints_overlap(placed, w, h), i


def test_a_table_never_shows_more_tiles_than_one_set_has() -> None:
    """Rule (RULES.md: 4 of each kind, 1 of each flower and season): the tiles around a
    hand are drawn from what the set has left, so no scene shows a fifth 5m or a second
    梅 — the detector's one-set rule (vision.set_counts) holds on every generated table."""
    art = _synthetic_art()
    w, h = 26.0, 36.0
    for i in range(200):
        rng = np.random.default_rng([18, i])
        placed, _ = layout_hand(random_hand(rng), rng, w, h)
        xs = [p.box.x for p in placed]
        ys = [p.box.y for p in placed]
        placed += layout_extras(rng, art, w, h, (min(xs), min(ys), max(xs), max(ys)),
                                on_table=[p.box.code for p in placed])
        counts = Counter(p.box.code for p in placed)
        assert all(n <= (1 if c.endswith("f") else 4) for c, n in counts.items()), (i, counts)


def test_extras_keep_their_layout_when_a_code_is_replaced() -> None:
    """The set's limit changes codes only: the same seed lays the extras at the same
    places whatever the hand on the table."""
    art = _synthetic_art()
    extent = (0.0, 0.0, 400.0, 40.0)
    free = layout_extras(np.random.default_rng(5), art, 26.0, 36.0, extent)
    full = layout_extras(np.random.default_rng(5), art, 26.0, 36.0, extent,
                         on_table=[c for c in art.codes for _ in range(3)])
    assert [(p.box.x, p.box.y, p.box.yaw) for p in free] == [
        (p.box.x, p.box.y, p.box.yaw) for p in full]


def test_a_closeup_shows_tiles_of_one_set() -> None:
    """Rule (RULES.md): a few tiles lined up for a photo come from one set too."""
    art = _synthetic_art()
    for i in range(300):
        placed = layout_closeup(np.random.default_rng([19, i]), art, 26.0, 36.0)
        counts = Counter(p.box.code for p in placed)
        assert all(n <= (1 if c.endswith("f") else 4) for c, n in counts.items()), (i, counts)


def test_overwrite_replaces_only_a_set_the_generator_wrote(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 5, never lost data: ``--overwrite`` removed the ``images/`` and ``labels/``
    of any folder — a user's photos and their labels too. It replaces only a set this
    command wrote (its manifest, or the marker it writes before its first image)."""
    from tilecam.cli import main

    art = _any_art()
    out = tmp_path / "photos"
    (out / "images").mkdir(parents=True)
    (out / "labels").mkdir()
    (out / "images" / "IMG_0001.jpg").write_bytes(b"a photo")
    (out / "labels" / "IMG_0001.txt").write_text("0 .5 .5 .1 .1\n")
    base = ["dataset", "synth", "--out", str(out), "--art", art.name, "--imgsz", "128",
            "--quiet", "--count", "1"]
    assert main([*base, "--overwrite"]) == 2
    assert "that no synth run wrote" in capsys.readouterr().err
    assert (out / "images" / "IMG_0001.jpg").read_bytes() == b"a photo"
    assert (out / "labels" / "IMG_0001.txt").is_file()


def test_cli_will_not_mix_a_new_set_into_an_old_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Writing a set where one is already would leave the old images beside the new
    under the new manifest (3 images, "images": 1). It is refused unless --overwrite,
    which replaces the set's own files and leaves anything else in the folder."""
    from tilecam.cli import main

    art = _any_art()
    out = tmp_path / "synth"
    base = ["dataset", "synth", "--out", str(out), "--art", art.name, "--imgsz", "128",
            "--quiet"]
    assert main([*base, "--count", "3", "--seed", "1"]) == 0
    (out / "notes.txt").write_text("mine")
    assert main([*base, "--count", "1", "--seed", "2"]) == 2
    err = capsys.readouterr().err
    assert f"{out} already holds a set (3 images; " in err and "--overwrite" in err
    assert len(list((out / "images").glob("*.jpg"))) == 3  # untouched
    for bad in (["--art", "no-such-set"], ["--imgsz", "10"], ["--imgsz", "5000", "300"],
                ["--seed", "-1"]):
        assert main([*base, "--count", "1", "--seed", "2", *bad,
                     "--overwrite"]) == 2, bad  # a bad option removes nothing
        assert len(list((out / "images").glob("*.jpg"))) == 3, bad
    assert "--seed must be 0 or more, got -1" in capsys.readouterr().err
    assert main([*base, "--count", "1", "--seed", "2", "--overwrite"]) == 0
    for sub in ("images", "labels", "truth"):
        assert len(list((out / sub).iterdir())) == 1
    assert json.loads((out / "manifest.json").read_text())["images"] == 1
    assert (out / "notes.txt").read_text() == "mine"


def test_boxes_sit_on_their_painted_pixels_not_half_a_pixel_off(
    scenes: list[SceneResult],
) -> None:
    """Issue 5 (labels against the generator's own geometry): boxes are in pixel-edge
    coordinates, as YOLO's (pixel i covers [i, i + 1)). The projection's pixel-centre
    coordinates put every label 0.5 px up and left of its painted tile; the mean offset
    of a whole tile's box from its painted extent is now under a quarter pixel."""
    dx, dy = [], []
    for r in scenes:
        for t in r.truth["tiles"]:
            ys, xs = np.nonzero(r.index == t["id"])
            if len(xs) < 50:
                continue
            x1, y1, x2, y2 = t["box"]
            dx.append((xs.min() + xs.max() + 1) / 2 - (x1 + x2) / 2)
            dy.append((ys.min() + ys.max() + 1) / 2 - (y1 + y2) / 2)
    assert len(dx) > 20
    assert abs(float(np.mean(dx))) < 0.25 and abs(float(np.mean(dy))) < 0.25, (
        np.mean(dx), np.mean(dy))


def test_a_known_set_not_installed_is_named_so_and_default_says_what_it_leaves_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 5 (seeded, reproducible sets): without the shared CC0 faces, ``--art fluffy``
    was "unknown", and ``--art default`` left fluffy out silently, so the same command
    made other images than where it is installed."""
    from tilecam.cli import main
    from vision.synth.art import available_sets

    monkeypatch.setenv("TILECAM_SHARED", str(tmp_path / "nowhere"))
    if "fluffy" in available_sets():
        pytest.skip("fluffy is found without TILECAM_SHARED")
    if not available_sets():
        pytest.skip("no tile art installed at all")
    out = tmp_path / "s"
    assert main(["dataset", "synth", "--out", str(out), "--count", "1", "--art", "fluffy",
                 "--quiet"]) == 2
    assert "art set 'fluffy' is not installed here" in capsys.readouterr().err
    assert main(["dataset", "synth", "--out", str(out), "--count", "1", "--imgsz", "128",
                 "--quiet"]) == 0
    assert "the default art leaves out fluffy (not installed" in capsys.readouterr().err
