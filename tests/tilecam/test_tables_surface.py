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
    return np.clip(img * light + rng.normal(0, 2, (H, W, 3)), 0, 255).astype(np.uint8)


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
    return np.clip(img, 0, 255).astype(np.uint8)


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
    model = learned()
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


class SurfaceCamera:
    """A fake recognizer that finds the tiles (by the red mark on each face) in a frame:
    ``hand`` when it finds any, with each tile's box, as :func:`vision.recognize` answers."""

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
        return FrameReading(HAND, True, len(tiles), {"hand": HAND, "tiles": tiles})


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
