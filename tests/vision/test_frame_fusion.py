"""Frames of one still scene read together (``vision/frame_fusion.py``): a table camera's
readings averaged over the frames that show the same tiles in the same places."""

from __future__ import annotations

import numpy as np
import pytest

from vision.classes import class_id
from vision.detections import Detections
from vision.frame_fusion import FrameMemory, fuse, same_scene


def frame(readings: list[list[tuple[str, float]]], shift: float = 0.0,
          size: tuple[int, int] = (640, 480)) -> Detections:
    """One tile per reading list, in a row 40 px apart (moved ``shift`` px right)."""
    n, k = len(readings), max(len(r) for r in readings)
    boxes = np.array([[20 + 40 * i + shift, 100, 56 + 40 * i + shift, 150] for i in range(n)],
                     np.float32).reshape(-1, 4)
    ids = np.zeros((n, k), np.int64)
    probs = np.zeros((n, k), np.float32)
    for i, r in enumerate(readings):
        for j, (code, p) in enumerate(r):
            ids[i, j], probs[i, j] = class_id(code), p
    return Detections(boxes, ids[:, 0].copy(), probs[:, 0].copy(), np.zeros(n, np.int64),
                      ids, probs, size)


def test_a_flower_flipping_between_frames_is_read_by_its_mean() -> None:
    """A season read 3f 0.5 / 4f 0.4, then 4f 0.6 / 3f 0.3, then 4f 0.5 / 3f 0.4: the mean
    says 4f (0.5 against 0.4); the sure tile beside it stays as read."""
    a = frame([[("5p", 0.99), ("6p", 0.01)], [("3f", 0.5), ("4f", 0.4)]])
    b = frame([[("5p", 0.98), ("6p", 0.02)], [("4f", 0.6), ("3f", 0.3)]], shift=1.5)
    c = frame([[("5p", 0.97), ("6p", 0.03)], [("4f", 0.5), ("3f", 0.4)]], shift=-1.0)
    out = fuse(a, [b, c])
    assert out.codes == ["5p", "4f"]
    assert out.topk_probs[1].tolist() == pytest.approx([0.5, 0.4], abs=1e-6)
    assert np.array_equal(out.boxes, a.boxes) and out.meta["fused_frames"] == 3
    assert fuse(a, []) is a


def test_a_box_with_no_partner_keeps_its_own_reading() -> None:
    """A frame where the second tile is missing adds nothing to it; a code outside a
    frame's top-k counts 0 there (5p: 0.9 and 0; 6p: 0.1 and 0.7)."""
    a = frame([[("5p", 0.9), ("6p", 0.1)], [("3f", 0.5), ("4f", 0.4)]])
    b = frame([[("6p", 0.7), ("9p", 0.3)]])
    out = fuse(a, [b])
    assert out.codes == ["5p", "3f"]
    assert out.topk_probs[0].tolist() == pytest.approx([0.45, 0.4], abs=1e-6)
    assert out.topk_probs[1].tolist() == pytest.approx([0.5, 0.4], abs=1e-6)


def test_frames_of_another_scene_are_not_the_same_scene() -> None:
    two = [[("5p", 0.9)], [("3f", 0.5)]]
    assert same_scene(frame(two), frame(two, shift=2.0))
    assert not same_scene(frame(two), frame(two, shift=30.0))  # the tiles moved
    assert not same_scene(frame(two), frame([*two, [("1m", 0.9)]] * 2))  # more tiles
    assert not same_scene(frame(two), frame(two, size=(1280, 960)))
    assert not same_scene(frame(two), Detections.empty((640, 480), 2))


def test_memory_reads_a_still_scene_together_and_forgets_a_changed_one() -> None:
    """Three frames in all: the third is read with the first two; a frame of other tiles
    starts afresh; each camera has its own frames; 1 frame: each alone."""
    mem = FrameMemory(3)
    a = frame([[("3f", 0.5), ("4f", 0.4)]])
    b = frame([[("4f", 0.6), ("3f", 0.3)]])
    c = frame([[("4f", 0.5), ("3f", 0.4)]])
    assert mem.read("t1", a).codes == ["3f"]
    assert mem.read("t2", b).codes == ["4f"]  # another table's frame
    assert mem.read("t1", b).codes == ["4f"]  # 0.5 / 0.35
    assert mem.read("t1", c).meta["fused_frames"] == 3
    moved = frame([[("1m", 0.6), ("2m", 0.4)]], shift=200.0)
    assert mem.read("t1", moved).meta.get("fused_frames") is None
    assert mem.remember("t1", moved) == [moved]
    alone = FrameMemory(1)
    alone.read("t", a)
    assert alone.read("t", b) is b
    with pytest.raises(ValueError, match="at least 1"):
        FrameMemory(0)
