"""A table camera tells "no tiles on this table's surface" from "not looking at the table".

The rule (README "Camera frames", ``tilecam/tables/surface.py``): the camera learns the
surface it sees around the tiles in frames where it reads tiles (colour as chromaticity,
unchanged by the light's brightness, and texture); once learned, a lit frame with no
tiles counts as the table seen empty (a new deal may begin) only where it shows that
surface. A frame of a wall, the floor or a shirt counts neither as the table seen empty
nor as a frame without a hand (``view: elsewhere``), like a dark frame; a camera that has
not learned the surface yet behaves as before and says so (``view: unlearned``). The
surface is kept with the camera's state in the database (migration 0009).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import inspect, text
from test_tables_helpers import bearer, client_for, database_url, make_app, new_table

from tilecam.db import make_engine, upgrade
from tilecam.db.migrate import alembic_config, current_revision
from tilecam.tables.camera import FrameReading
from tilecam.tables.surface import (
    SurfaceModel,
    judge,
    learn,
    sample_frame,
    surroundings,
    tile_boxes,
)

U8 = npt.NDArray[np.uint8]
HAND = "123m456m789m123p55p 3f"
W, H = 640, 480
#: fourteen tiles in a row (pixels), a revealed hand
TILES = [(150 + 24 * i, 200, 172 + 24 * i, 232) for i in range(14)]


# scenes: a green felt table, and lit views that are not it


def felt(light: float = 1.0, seed: int = 0, colour: tuple[int, int, int] = (45, 125, 50)) -> U8:
    """A felt table, green unless ``colour`` (BGR) says otherwise, with sensor grain and a
    soft vignette, lit × ``light``."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    shade = 1.0 - 0.25 * (((xx - W / 2) / W) ** 2 + ((yy - H / 2) / H) ** 2)
    img = np.array(colour, np.float32)[None, None, :] * shade[..., None]
    img = img + rng.normal(0, 6, (H, W, 3))
    return np.asarray(np.clip(img * light + rng.normal(0, 2, (H, W, 3)), 0, 255), np.uint8)


def with_tiles(table: U8) -> U8:
    """``table`` with the hand's tiles (ivory faces, a dark mark, a shadow) on it."""
    img = table.copy()
    for x0, y0, x1, y1 in TILES:
        img[y0 + 3:y1 + 3, x0 + 2:x1 + 2] = (img[y0 + 3:y1 + 3, x0 + 2:x1 + 2] * 0.6)
        img[y0:y1, x0:x1] = (200, 225, 235)
        img[y0 + 8:y1 - 8, x0 + 6:x1 - 6] = (40, 40, 160)
    return img


def wall(light: float = 1.0) -> U8:
    """A beige painted wall (BGR) with a gentle light gradient."""
    ramp = np.linspace(0.85, 1.1, H, dtype=np.float32)[:, None, None]
    img = np.array([175, 200, 222], np.float32)[None, None, :] * ramp * np.ones((1, W, 1))
    return np.clip(img * light, 0, 255).astype(np.uint8)


def floor() -> U8:
    """Wooden floorboards (BGR): brown with grain along the boards and seams."""
    rng = np.random.default_rng(3)
    grain = cv2.resize(rng.standard_normal((H, W // 24)).astype(np.float32), (W, H))
    img = np.array([95, 140, 190], np.float32)[None, None, :] + grain[..., None] * 14
    img[::60] *= 0.7
    return np.asarray(np.clip(img, 0, 255), np.uint8)


def shirt() -> U8:
    """A blue-and-white striped shirt (BGR)."""
    img = np.zeros((H, W, 3), np.uint8)
    stripes = (np.arange(W) // 18) % 2 == 0
    img[:, stripes] = (170, 90, 40)
    img[:, ~stripes] = (235, 235, 235)
    return img


def learned(frames: int = 3) -> SurfaceModel:
    model = None
    for seed in range(frames):
        model = learn(model, sample_frame(with_tiles(felt(seed=seed)), TILES))
    assert model is not None
    return model


BLUE_BACKS = (150, 95, 30)


def backs(table: U8, rows: tuple[int, ...] = (165, 245), colour: tuple[int, int, int] = BLUE_BACKS,
          ) -> U8:
    """``table`` with walls of face-down tiles the recognizer does not box: at each y in
    ``rows``, two rows of 18 backs (``colour``, BGR) with an ivory edge, along the hand."""
    img = table.copy()
    for top in rows:
        for row in range(2):
            for i in range(18):
                x, y = 130 + 22 * i, top + 15 * row
                img[y:y + 14, x:x + 21] = colour
                img[y:y + 3, x:x + 21] = (215, 230, 240)
    return img


def heap(table: U8) -> U8:
    """``table`` with its tiles turned face down and pushed together to be shuffled: 140
    backs scattered over the hand's place (about three fifths of it covered)."""
    img = table.copy()
    rng = np.random.default_rng(0)
    for _ in range(140):
        x, y = int(rng.integers(120, 500)), int(rng.integers(150, 280))
        img[y:y + 14, x:x + 22] = BLUE_BACKS
        img[y:y + 2, x:x + 22] = (215, 230, 240)
    return img


def cast(image: U8, blue: float, green: float, red: float) -> U8:
    """``image`` under light of another colour: each channel scaled."""
    gains = np.array([blue, green, red], np.float32)
    return np.asarray(np.clip(image.astype(np.float32) * gains, 0, 255), np.uint8)


def grey_world(image: U8, strength: float = 0.5) -> U8:
    """``image`` as a camera's automatic white balance leaves it: each channel scaled
    towards the mean of all three (the grey world), at ``strength``."""
    means = image.reshape(-1, 3).mean(axis=0)
    return cast(image, *(1 + strength * (means.mean() / means - 1)))


def taught(frames: list[U8], boxes: list[tuple[int, int, int, int]] = TILES) -> SurfaceModel:
    model = None
    for frame in frames:
        model = learn(model, sample_frame(frame, boxes))
    assert model is not None
    return model


# the surface: learned, judged


def test_a_cleared_table_is_the_table_and_a_dimmed_lamp_does_not_change_that() -> None:
    """Rule: the surface is compared by chromaticity and relative texture, which a lamp
    dimmed to a third (or brightened) leaves as they were."""
    model = learned()
    for light in (1.0, 0.6, 0.33, 1.25):
        verdict = judge(model, sample_frame(felt(light, seed=9)))
        assert verdict.view == "table" and verdict.shows_table, (light, verdict)


def test_a_wall_the_floor_or_a_shirt_is_not_the_table() -> None:
    """Rule: a lit frame with no tiles that does not show the learned surface is a view of
    something else: not a cleared table, and the answer says so."""
    model = learned()
    for name, view in (("wall", wall()), ("dim wall", wall(0.4)), ("floor", floor()),
                       ("shirt", shirt())):
        verdict = judge(model, sample_frame(view))
        assert verdict.view == "elsewhere" and not verdict.shows_table, (name, verdict)
        assert "not looking at the table surface it saw before" in verdict.note


def test_an_arm_over_part_of_the_cleared_table_is_still_the_table() -> None:
    """Rule: part of the table covered (a forearm over a fifth of its area) still shows
    enough of the surface."""
    model = learned()
    view = felt(seed=5)
    cv2.line(view, (0, 150), (W, 330), (120, 160, 215), 60)
    assert judge(model, sample_frame(view)).view == "table"


def test_a_cleared_table_is_the_table_after_learning_face_down_tiles_around_the_hand() -> None:
    """Rule: what the recognizer does not box around the hand — walls of face-down tiles
    above and below it, standing hands seen from behind — is learned with the surface,
    but never counts against the bare table: the colour compared is the share of the
    frame's colour that is the surface's (the surface's shares up to 2.5 times), learned
    from smooth pixels only, and a frame plainer than the surface is not another one.
    Before: the cleared felt was 4-10× plainer than the learned clutter, ``elsewhere``."""
    for rows in ((165,), (165, 245), (160, 245, 265)):
        model = taught([backs(with_tiles(felt(seed=s)), rows) for s in range(3)])
        for name, view in (("cleared", felt(seed=9)), ("walls built again", backs(felt(seed=9))),
                           ("cleared, dimmed", felt(0.4, seed=8))):
            verdict = judge(model, sample_frame(view))
            assert verdict.view == "table", (rows, name, verdict)


def test_face_down_tiles_pushed_together_on_the_table_are_the_table() -> None:
    """Rule: tiles turned face down and pushed together to be shuffled (the gap after a
    hand) cover part of the table: they lower the share of the frame's colour that is
    the table's only by the share they cover, and their edges, busy as they are, are
    not the table's colour, so its texture is not judged by them. Before: ``elsewhere``
    (colour 48 %, texture 7.5×)."""
    verdict = judge(learned(), sample_frame(heap(felt(seed=9))))
    assert verdict.view == "table", verdict


def test_a_colour_cast_or_auto_white_balance_leaves_the_cleared_table_the_table() -> None:
    """Rule: the colours are compared after a one-bin blur, the surface's shares taken up
    to 2.5 times, so a cast of 20 % (warm or cool) on a wooden table or 30 % on a green
    one, and a close framing whose automatic white balance (grey world, half strength)
    shifts the cleared table's colour against the frames with the hand, leave it the
    table. Before: a wooden table under R×1.2/B÷1.2 and the close framings of a green and
    a blue felt were ``elsewhere`` (colour 39-47 %)."""
    wood = (60, 110, 170)
    model = taught([with_tiles(felt(seed=s, colour=wood)) for s in range(3)])
    for gains in ((1 / 1.2, 1.0, 1.2), (1.2, 1.0, 1 / 1.2)):
        assert judge(model, sample_frame(cast(felt(seed=9, colour=wood), *gains))).view == "table"
    model = learned()
    for gains in ((1 / 1.3, 1.0, 1.3), (1.3, 1.0, 1 / 1.3), (1.0, 1.3, 1.0)):
        assert judge(model, sample_frame(cast(felt(seed=9), *gains))).view == "table", gains
    close = [(20 + 43 * i, 150, 62 + 43 * i, 330) for i in range(14)]  # the hand fills 40 %

    def hand(table: U8) -> U8:
        img = table.copy()
        for x0, y0, x1, y1 in close:
            img[y0:y1, x0:x1] = (200, 225, 235)
            img[y0 + 40:y1 - 40, x0 + 8:x1 - 8] = (40, 40, 160)
        return img

    for colour in ((45, 125, 50), (140, 70, 40), wood):  # green, blue felt, wood
        model = taught([grey_world(hand(felt(seed=s, colour=colour))) for s in range(3)], close)
        verdict = judge(model, sample_frame(grey_world(felt(seed=9, colour=colour))))
        assert verdict.view == "table", (colour, verdict)


def test_a_dark_mat_at_a_fixed_exposure_is_never_unreadable_once_learned() -> None:
    """Rule: one readable threshold for learning and judging — a frame teaches the surface
    only where 30 % of it has a readable colour, and is judged where half that does —
    so a dark mat seen at a fixed exposure is either learned and then judged the table,
    or never learned (``unlearned``: the table, as before), never ``unreadable``. Before:
    a navy mat at level 0.2 taught the surface (a twentieth was enough) and every
    cleared frame at that exposure was ``unreadable``: the table never seen cleared."""

    def mat(level: float, seed: int) -> U8:
        rng = np.random.default_rng(seed)
        img = np.full((H, W, 3), (40, 25, 20), np.float32) * level
        return np.clip(img + rng.normal(0, 3, (H, W, 3)), 0, 255).astype(np.uint8)

    seen = set()
    for level in (0.15, 0.2, 0.22, 0.25, 0.3, 0.4, 0.6, 1.0):
        model = None
        for seed in range(3):
            model = learn(model, sample_frame(with_tiles(mat(level, seed)), TILES))
        verdict = judge(model, sample_frame(mat(level, 9)))
        assert verdict.shows_table, (level, verdict)
        seen.add(verdict.view)
    assert seen == {"unlearned", "table"}


def test_a_wall_the_floor_or_a_shirt_is_still_not_the_table_after_learning_clutter() -> None:
    """Rule: the leniency has a bound — a surface learned with walls of blue face-down
    tiles around the hand still tells a beige wall, floorboards and a blue-and-white
    striped shirt from the table: most of their colour is none the table had."""
    model = taught([backs(with_tiles(felt(seed=s)), (160, 245, 265)) for s in range(3)])
    for name, view in (("wall", wall()), ("dim wall", wall(0.4)), ("floor", floor()),
                       ("shirt", shirt())):
        verdict = judge(model, sample_frame(view))
        assert verdict.view == "elsewhere", (name, verdict)


def test_a_camera_that_never_saw_the_table_counts_an_empty_frame_as_before() -> None:
    """Rule: no false "not the table" before the surface is learned — from two frames with
    tiles — a lit frame with no tiles is taken for the table seen empty, and said so."""
    never = judge(None, sample_frame(wall()))
    once = judge(learned(frames=1), sample_frame(wall()))
    for verdict in (never, once):
        assert verdict.view == "unlearned" and verdict.shows_table
        assert "not yet learned the table's surface" in verdict.note


def test_a_table_too_dark_for_its_colour_is_no_view_of_it() -> None:
    """Rule: a frame lit somewhere (not dark by the dark-frame test) whose table part is
    too dark for a colour says nothing of the table."""
    view = (felt(seed=2) * 0.05).astype(np.uint8)
    view[:20, :20] = 255  # a lamp in the corner
    assert judge(learned(), sample_frame(view)).view == "unreadable"


def test_a_camera_moved_to_another_table_learns_the_new_surface() -> None:
    """Rule: frames with tiles on another surface (a new cloth, the camera moved) replace
    half of the model each, so after two the new table's empty surface is the table."""
    model: SurfaceModel | None = learned()
    blue = felt(seed=4, colour=(140, 70, 40))  # a blue cloth
    assert judge(model, sample_frame(blue)).view == "elsewhere"
    for _ in range(2):
        model = learn(model, sample_frame(with_tiles(blue), TILES))
    assert model is not None and judge(model, sample_frame(blue)).view == "table"


def test_frames_with_few_tiles_or_no_boxes_teach_nothing() -> None:
    """Rule: only a frame with four tiles or more, with boxes, teaches the surface; tiles
    without a usable box (missing, malformed, NaN, outside the frame) are left out."""
    boxes = tile_boxes([{"box": [1, 2, 30, 40]}, {}, {"box": "1,2,3,4"}, {"box": [1, 2]},
                        {"box": [float("nan"), 0, 5, 5]}, {"box": [700, 10, 720, 30]},
                        {"box": [30, 40, 1, 2]}, "tile", None], W, H)
    assert boxes == [(1.0, 2.0, 30.0, 40.0), (1.0, 2.0, 30.0, 40.0)]
    few = sample_frame(with_tiles(felt()), TILES[:3])
    assert not few.teaches and learn(None, few) is None
    model = learned()
    assert learn(model, few) is model


def test_the_tiles_surroundings_lie_in_the_frame() -> None:
    x0, y0, x1, y1 = surroundings([(0.0, 0.0, 20.0, 30.0), (600.0, 440.0, 640.0, 480.0)],
                                  W, H)
    assert (x0, y0, x1, y1) == (0.0, 0.0, 1.0, 1.0)
    with pytest.raises(ValueError, match="BGR image"):
        sample_frame(np.zeros((4, 4, 2), np.uint8))
    with pytest.raises(ValueError, match="uint8"):
        sample_frame(np.zeros((4, 4, 3), np.float32))


def test_a_stored_surface_reads_back_and_a_corrupt_one_is_learned_again() -> None:
    """Rule: the model is stored as JSON; one that cannot be read is dropped (the camera
    learns it again from its next frames with tiles), never an error."""
    model = learned()
    back = SurfaceModel.from_json(model.to_json())
    assert back is not None and back.frames == model.frames
    assert np.abs(back.hist - model.hist).max() < 1e-4
    assert back.region == pytest.approx(model.region, abs=1e-5)
    assert len(model.to_json()) < 4000
    for bad in ("", None, "{", "[]", '{"v": 2}', '{"v": 1, "bins": 16}',
                '{"v":1,"bins":16,"hist":[[0,-1]],"detail":0,"region":[0,0,1,1],"frames":2}',
                '{"v":1,"bins":16,"hist":[[999,1]],"detail":0,"region":[0,0,1,1],"frames":2}',
                '{"v":1,"bins":16,"hist":[[1,1]],"detail":"x","region":[0,0,1,1],"frames":2}',
                '{"v":1,"bins":16,"hist":[[1,1]],"detail":0,"region":[0,0,1],"frames":2}',
                '{"v":1,"bins":16,"hist":[[1,1]],"detail":0,"region":[1,0,0,1],"frames":2}',
                '{"v":1,"bins":16,"hist":[[1,1]],"detail":0,"region":[0,0,2,1],"frames":2}',
                '{"v":1,"bins":16,"hist":[[1,1]],"detail":0,"region":[0,0,1,1],"frames":0}',
                '{"v":1,"bins":16,"hist":[[-1,1]],"detail":0,"region":[0,0,1,1],"frames":2}',
                '{"v":1,"bins":16,"hist":[[1,NaN]],"detail":0,"region":[0,0,1,1],"frames":2}',
                '{"v":1,"bins":16,"hist":[[1,1e309]],"detail":0,"region":[0,0,1,1],"frames":2}',
                "x" * 30_000):
        assert SurfaceModel.from_json(bad) is None


# through the API: the camera's frames


#: hands that a frame's corner names (a pure-colour dot, BGR) to :class:`SurfaceCamera`
ONE_TILE_ON = "123m456m789m234p55p 3f"  # one tile from HAND: a re-read, or the next hand
FAR = "111m444m789m123p55p 3f"  # four tiles from HAND: another hand
MARKS = {(0, 255, 0): ONE_TILE_ON, (255, 0, 255): FAR}


def named(image: U8, hand: str) -> U8:
    """``image`` with the dot in its corner that makes :class:`SurfaceCamera` read
    ``hand`` from its tiles."""
    out = image.copy()
    out[0:12, 0:12] = next(mark for mark, h in MARKS.items() if h == hand)
    return out


class SurfaceCamera:
    """A fake recognizer that finds the tiles (by the red mark on each face) in a frame:
    ``hand`` when it finds any (another hand where the frame's corner names one:
    :func:`named`), with each tile's box, as :func:`vision.recognize` answers."""

    def __init__(self, boxes: bool = True) -> None:
        self.boxes = boxes

    def __call__(self, image: np.ndarray, rules: str, context: Any) -> FrameReading:
        marks = cv2.inRange(image, (0, 0, 120), (90, 90, 200))
        _, _, stats, _ = cv2.connectedComponentsWithStats(marks)
        found = [s for s in stats[1:] if s[cv2.CC_STAT_AREA] >= 40]
        if not found:
            return FrameReading(None, False, 0, {"hand": None, "tiles": []})
        tiles = [{"box": [float(x - 6), float(y - 8), float(x + w + 6), float(y + h + 8)]}
                 if self.boxes else {} for x, y, w, h, _ in found]
        corner = tuple(int(v) for v in image[5, 5])
        hand = next((h for mark, h in MARKS.items()
                     if max(abs(a - b) for a, b in zip(mark, corner, strict=True)) < 60), HAND)
        return FrameReading(hand, True, len(tiles), {"hand": hand, "tiles": tiles})


def jpeg(image: U8) -> bytes:
    ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 90])
    assert ok
    return buf.tobytes()


@pytest.fixture
def api(tmp_path: Path) -> Iterator[tuple[TestClient, SurfaceCamera, str]]:
    url = database_url("sqlite", tmp_path)
    app, _ = make_app(url, tmp_path / "data", store_frames=False)
    cam = SurfaceCamera()
    from tilecam.tables.access import frame_reader

    app.dependency_overrides[frame_reader] = lambda: cam
    for client in client_for(app):
        yield client, cam, url


def post(client: TestClient, t: int, k: str, images: list[bytes]) -> list[dict[str, Any]]:
    out = []
    for image in images:
        r = client.post(f"/v1/tables/{t}/frames", headers=bearer(k),
                        files={"image": ("f.jpg", image, "image/jpeg")},
                        data={"winner": "E", "self_drawn": "true"})
        assert r.status_code == 200, r.text
        out.append(r.json())
    return out


def numbers(client: TestClient, t: int, k: str) -> list[int]:
    hands = client.get(f"/v1/tables/{t}/hands", headers=bearer(k)).json()["hands"]
    return [h["number"] for h in hands]


HAND_FRAME = jpeg(with_tiles(felt()))


def test_a_camera_turned_onto_a_wall_does_not_let_the_same_hand_be_recorded_again(
    api: tuple[TestClient, SurfaceCamera, str],
) -> None:
    """Rule: the camera learned the felt around the hand; three frames of a lit wall are
    not the table cleared (``view: elsewhere``, the run of frames broken, the sheet
    unchanged), so the hand still in view when the camera is turned back is the hand
    recorded, not a hand dealt again. Before: the wall counted as a cleared table and the
    hand was recorded a second time."""
    client, _, _ = api
    t, k = new_table(client)
    got = post(client, t, k, [HAND_FRAME] * 4 + [jpeg(wall())] * 3 + [HAND_FRAME] * 4)
    assert [g["status"] for g in got].count("recorded") == 1
    assert [g["status"] for g in got[-4:]] == ["already_recorded"] * 4
    assert numbers(client, t, k) == [1]
    away = got[4:7]
    assert all(g["view"] == "elsewhere" and g["status"] == "waiting" for g in away)
    assert "not looking at the table surface it saw before" in away[0]["view_note"]
    assert got[0]["view"] == "tiles"


def test_the_table_cleared_under_a_dimmed_lamp_lets_the_same_hand_be_dealt_again(
    api: tuple[TestClient, SurfaceCamera, str],
) -> None:
    """Rule: the learned surface with no tiles, the lamp dimmed to 40 %, is the table seen
    empty (``view: table``): the same hand after it is a new hand, recorded."""
    client, _, _ = api
    t, k = new_table(client)
    empty = jpeg(felt(0.4, seed=7))
    got = post(client, t, k, [HAND_FRAME] * 4 + [empty] * 3 + [HAND_FRAME] * 3)
    assert [g["view"] for g in got[4:7]] == ["table"] * 3
    assert got[-1]["status"] == "recorded" and numbers(client, t, k) == [1, 2]


def test_the_felt_cleared_after_a_hand_beside_a_wall_of_face_down_tiles_lets_the_next_be_recorded(
    api: tuple[TestClient, SurfaceCamera, str],
) -> None:
    """Rule: a camera that posts only the revealed hands and the cleared table, whose
    learned surface took in walls of face-down tiles beside the hand (not boxed), sees
    the bare felt as the table cleared (``view: table``), so the next hand — one tile
    from the last — is recorded. Before (the review's scenario): the felt was
    ``elsewhere`` (texture 4.4× apart), the next hand ``already_recorded`` five times and
    never recorded: one hand on the sheet where there were two."""
    client, _, _ = api
    t, k = new_table(client)
    hand_a = jpeg(backs(with_tiles(felt(seed=1)), (165,)))
    hand_b = jpeg(named(backs(with_tiles(felt(seed=2)), (165,)), ONE_TILE_ON))
    got = post(client, t, k, [hand_a] * 4 + [jpeg(felt(seed=9))] * 5 + [hand_b] * 5)
    assert [g["view"] for g in got[4:9]] == ["table"] * 5
    assert [g["status"] for g in got].count("recorded") == 2
    assert numbers(client, t, k) == [1, 2]
    hands = client.get(f"/v1/tables/{t}/hands", headers=bearer(k)).json()["hands"]
    assert hands[0]["hand"] != hands[1]["hand"]


def test_after_a_view_elsewhere_another_hand_is_recorded_but_not_the_same_tiles_read_again(
    api: tuple[TestClient, SurfaceCamera, str],
) -> None:
    """Rule (the camera's state, unchanged): frames ``elsewhere`` count as no gap after a
    recorded hand, and need not — a hand more than two tiles from it is recorded at once,
    gap or none, while one within two tiles (which the still hand, read again after the
    camera turns back, may be) is not: a camera turned onto a wall and back onto the
    hand does not record it twice."""
    client, _, _ = api
    t, k = new_table(client)
    away = [jpeg(wall())] * 3
    near = jpeg(named(with_tiles(felt()), ONE_TILE_ON))
    far = jpeg(named(with_tiles(felt()), FAR))
    got = post(client, t, k, [HAND_FRAME] * 4 + away + [near] * 4 + away + [far] * 3)
    assert [g["view"] for g in got[4:7]] == ["elsewhere"] * 3
    assert [g["status"] for g in got[7:11]] == ["already_recorded"] * 4
    assert got[-1]["status"] == "recorded" and numbers(client, t, k) == [1, 2]


def test_a_camera_that_never_learned_the_surface_behaves_as_before_and_says_so(
    api: tuple[TestClient, SurfaceCamera, str],
) -> None:
    """Rule: a recognizer that gives no tile boxes teaches no surface; a lit frame with no
    tiles is then the table seen empty, as before (``view: unlearned``)."""
    client, cam, _ = api
    cam.boxes = False
    t, k = new_table(client)
    got = post(client, t, k, [HAND_FRAME] * 4 + [jpeg(wall())] * 3 + [HAND_FRAME] * 3)
    assert [g["view"] for g in got[4:7]] == ["unlearned"] * 3
    assert "not yet learned the table's surface" in got[4]["view_note"]
    assert numbers(client, t, k) == [1, 2]


def test_a_dark_frame_says_it_is_dark(api: tuple[TestClient, SurfaceCamera, str]) -> None:
    client, _, _ = api
    t, k = new_table(client)
    [got] = post(client, t, k, [jpeg(np.zeros((H, W, 3), np.uint8))])
    assert got["view"] == "dark" and "no view of the table" in got["view_note"]


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_the_surface_is_kept_with_the_camera_state_in_the_database(
    backend: str, tmp_path: Path,
) -> None:
    """Rule: the learned surface lives in ``camera_states.surface`` (not in a process's
    memory): a service restarted on the same database still knows it."""
    url = database_url(backend, tmp_path)
    app, _ = make_app(url, tmp_path / "data", store_frames=False)
    from tilecam.tables.access import frame_reader

    app.dependency_overrides[frame_reader] = SurfaceCamera
    for client in client_for(app):
        t, k = new_table(client)
        post(client, t, k, [HAND_FRAME] * 4)
    engine = make_engine(url)
    with engine.connect() as conn:
        stored = conn.execute(text("SELECT surface FROM camera_states WHERE table_id = :t"),
                              {"t": t}).scalar_one()
    engine.dispose()
    model = SurfaceModel.from_json(stored)
    assert model is not None and model.frames == 4
    again, _ = make_app(url, tmp_path / "data", store_frames=False)
    again.dependency_overrides[frame_reader] = SurfaceCamera
    for client in client_for(again):
        [got] = post(client, t, k, [jpeg(wall())])
        assert got["view"] == "elsewhere"


def test_a_corrupt_stored_surface_is_learned_again_not_an_error(
    api: tuple[TestClient, SurfaceCamera, str],
) -> None:
    """Rule: a stored surface that cannot be read is no 500: the camera counts as not
    having learned it and learns it again from its next frames with tiles."""
    client, _, url = api
    t, k = new_table(client)
    post(client, t, k, [HAND_FRAME] * 3)
    engine = make_engine(url)
    with engine.begin() as conn:
        conn.execute(text("UPDATE camera_states SET surface = '{not json' WHERE table_id = :t"),
                     {"t": t})
    engine.dispose()
    [got] = post(client, t, k, [jpeg(wall())])
    assert got["view"] == "unlearned"
    post(client, t, k, [HAND_FRAME] * 2)
    [got] = post(client, t, k, [jpeg(wall())])
    assert got["view"] == "elsewhere"


# the migration


def test_migration_0009_adds_the_surface_column_and_takes_it_away(tmp_path: Path) -> None:
    """Rule: migration 0009 adds ``camera_states.surface`` (null for existing cameras,
    which then behave as before until they learn it) and its downgrade removes it, the
    cameras' other state kept both ways."""
    from alembic import command

    engine = make_engine(database_url("sqlite", tmp_path))
    upgrade(engine, "0008_penalty_request_id")
    with engine.begin() as conn:
        conn.execute(text("INSERT INTO events (id, name, rules, created_at) "
                          "VALUES (1, 'e', 'mcr', CURRENT_TIMESTAMP)"))
        conn.execute(text("INSERT INTO event_tables (id, event_id, name, rules, rule_settings, "
                          "key_hash, created_at) VALUES (1, 1, 't', 'mcr', '{}', :h, "
                          "CURRENT_TIMESTAMP)"), {"h": "0" * 64})
        conn.execute(text("INSERT INTO camera_states (table_id, streak, empty_streak, "
                          "quiet_streak, frames_seen, signature, updated_at) "
                          "VALUES (1, 2, 0, 0, 7, 'x', CURRENT_TIMESTAMP)"))
    assert "surface" not in {c["name"] for c in inspect(engine).get_columns("camera_states")}
    upgrade(engine, "0009_camera_surface")
    assert current_revision(engine) == "0009_camera_surface"
    with engine.connect() as conn:
        row = conn.execute(text("SELECT streak, frames_seen, signature, surface "
                                "FROM camera_states")).one()
    assert tuple(row) == (2, 7, "x", None)
    command.downgrade(alembic_config(engine), "0008_penalty_request_id")
    assert "surface" not in {c["name"] for c in inspect(engine).get_columns("camera_states")}
    with engine.connect() as conn:
        assert conn.execute(text("SELECT frames_seen FROM camera_states")).scalar_one() == 7
    engine.dispose()


def test_the_surface_json_is_small_and_plain() -> None:
    data = json.loads(learned().to_json())
    assert set(data) == {"v", "bins", "hist", "detail", "region", "frames"}
    assert all(isinstance(i, int) and 0 < v <= 1 for i, v in data["hist"])
