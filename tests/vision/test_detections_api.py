"""The Detections container as a Python API (session 73 review "detectin"): the top-k
records list no filler alternatives, the doc says what ``confidences`` is, containers
compare and hash without raising, ``select`` takes what it says, and the constructor
refuses top-k ids that would crash or mislead later."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import vision.detections
from vision import postprocess as pp
from vision.classes import CLASSES, class_id
from vision.detections import RECORD_DECIMALS, Detections
from vision.manifest import MANIFEST, default_model_dir


def _two() -> Detections:
    return Detections.from_lists([(0, 0, 10, 14), (12, 0, 22, 14)], ["5p", "E"])


def _one(**fields: object) -> Detections:
    base: dict[str, object] = dict(
        boxes=np.zeros((1, 4), np.float32), class_ids=np.zeros(1, np.int64),
        confidences=np.ones(1, np.float32), rotations=np.zeros(1, np.int64),
        topk_ids=np.zeros((1, 1), np.int64), topk_probs=np.ones((1, 1), np.float32))
    return Detections(**{**base, **fields})  # type: ignore[arg-type]


# ----------------------------------------------------------------------------- F1 top-k records
def _sure_flower_as_the_detector_makes_it() -> Detections:
    """A 7f both networks are sure of: every class both put under the fusion's floor ties
    at one near-zero probability, and the stable top-k lists those in class order."""
    n = len(CLASSES)
    det = np.zeros((1, n), np.float32)
    det[0, class_id("7f")] = 0.97
    det[0, class_id("8f")] = 0.03
    cls = np.zeros((1, n), np.float32)
    cls[0, class_id("7f")] = 1.0
    ids, probs = pp.top_k(pp.fuse(det, cls), 5)
    return Detections(boxes=np.array([[0, 0, 10, 14]], np.float32), class_ids=ids[:, 0].copy(),
                      confidences=np.array([0.95], np.float32),
                      rotations=np.zeros(1, np.int64), topk_ids=ids, topk_probs=probs)


def test_records_leave_out_the_alternatives_tied_at_the_fusion_floor() -> None:
    """F1: a sure 7f was listed with 1m, 2m, 3m as its alternatives, each ``p`` 0.0."""
    d = _sure_flower_as_the_detector_makes_it()
    ids = [CLASSES[int(i)] for i in d.topk_ids[0]]
    assert ids == ["7f", "8f", "1m", "2m", "3m"]  # 8f at ~3e-6, then the filler, tied
    assert d.topk_probs[0, 2] == d.topk_probs[0, 3] == d.topk_probs[0, 4]
    topk = d.to_records()[0]["topk"]
    assert topk == [{"code": "7f", "p": 1.0}]  # none of them prints other than 0.0
    # the arrays the layout and the correction read keep the full top-k
    assert d.topk_ids.shape == (1, 5) and d.topk_probs.shape == (1, 5)


def test_records_keep_real_alternatives_and_always_the_first() -> None:
    d = Detections.from_lists(
        [(0, 0, 10, 14), (12, 0, 22, 14)], ["6p", "C"], [0.5, 0.0],
        topk=[[("6p", 0.6), ("9p", 0.3), ("2f", 0.00006), ("1m", 0.00004)], [("C", 0.0)]])
    rec = d.to_records()
    assert [a["code"] for a in rec[0]["topk"]] == ["6p", "9p", "2f"]  # 0.00006 prints 0.0001
    assert rec[1]["topk"] == [{"code": "C", "p": 0.0}]  # the tile's own code, even at 0
    assert RECORD_DECIMALS == 4


def test_the_shipped_detector_lists_no_alternative_that_prints_as_zero() -> None:
    """F1 end to end on a rendered hand (what ``POST /v1/detect`` returns)."""
    if not (default_model_dir() / MANIFEST).is_file():
        pytest.skip("no shipped model")
    try:
        from vision.synth.art import ArtError, default_sets, load_art
        from vision.synth.scene import SceneOptions, render_scene
        art = load_art(default_sets()[0])
    except (ImportError, ArtError, IndexError) as exc:
        pytest.skip(f"no synthetic scenes here ({exc})")
    from vision.detect import load_detector

    opts = SceneOptions(width=1280, height=960, hand_prob=1.0, extras_prob=0.0, min_tile_px=40)
    image = render_scene(art, np.random.default_rng([2026, 0]), opts).image[..., ::-1]
    det = load_detector(default_model_dir()).detect(np.ascontiguousarray(image))
    assert len(det) > 5
    records = det.to_records()
    assert all(alt["p"] > 0 for r in records for alt in r["topk"][1:])
    assert all(r["topk"][0]["code"] == r["code"] for r in records)


# ----------------------------------------------------------------------------- F2 docs
def test_the_doc_says_confidences_is_the_tile_score_times_the_top1_probability() -> None:
    """F2: the table said "probability of the top-1 class"; the detector gives
    score × p1 (``meta["confidence"] == "score*p1"``)."""
    doc = vision.detections.__doc__ or ""
    row = doc[doc.index("\nconfidences"):doc.index("\nrotations ")]
    assert "probability of the top-1 class" not in row
    assert "score" in row and "top-1 probability" in row and "score*p1" in row


# ----------------------------------------------------------------------------- F3 eq / select
def test_containers_compare_and_hash_by_identity_without_raising() -> None:
    """F3: ``==``, ``hash`` and ``in`` raised (numpy's ambiguous truth value)."""
    a, b = _two(), _two()
    assert a == a and a != b
    assert a in [b, a] and a not in [b]
    assert len({a, b, a}) == 2
    assert hash(a) == hash(a)


def test_recognitions_compare_and_hash_by_identity_without_raising() -> None:
    from vision.layout_scene import SceneBuilder
    from vision.recognize import recognize_detections

    dets = SceneBuilder().standing("123m456p789s").standing("EE").detections()
    r1 = recognize_detections(dets, rules="mcr")
    r2 = dataclasses.replace(r1)  # the same fields, another object
    assert r1 == r1 and r1 != r2
    assert r1 in [r2, r1] and len({r1, r2}) == 2


@pytest.mark.parametrize(("index", "codes"), [
    ([], []),
    (np.array([], np.int64), []),
    ((), []),
    (0, ["1m"]),
    (-1, ["3m"]),
    (np.int64(1), ["2m"]),
    (slice(0, 2), ["1m", "2m"]),
    (slice(None, None, -1), ["3m", "2m", "1m"]),
    ([2, 0], ["3m", "1m"]),
    ([True, False, True], ["1m", "3m"]),
    (np.array([False] * 3), []),
])
def test_select_takes_masks_row_numbers_slices_and_one_row(index: object, codes: list[str]) -> None:
    """F3: ``[]`` (a comprehension that kept nothing), a slice and an int raised."""
    d = Detections.from_lists([(0, 0, 1, 1), (5, 5, 6, 6), (9, 9, 10, 10)], ["1m", "2m", "3m"])
    s = d.select(index)  # type: ignore[arg-type]
    assert s.codes == codes
    assert s.boxes.shape == (len(codes), 4) and s.topk_ids.shape == (len(codes), 1)


@pytest.mark.parametrize(("index", "why"), [
    ([True, False], "one entry per row"),
    (True, "one entry per row"),
    (3, "past the 3 rows"),
    ([0, -4], "past the 3 rows"),
    ([0.5], "row numbers"),
    ("a", "row numbers"),
    ([[0, 1]], "row numbers"),
])
def test_select_refuses_what_it_cannot_take_with_an_index_error(index: object, why: str) -> None:
    d = Detections.from_lists([(0, 0, 1, 1), (5, 5, 6, 6), (9, 9, 10, 10)], ["1m", "2m", "3m"])
    with pytest.raises(IndexError, match=why):
        d.select(index)  # type: ignore[arg-type]


# ----------------------------------------------------------------------------- F4 constructor
@pytest.mark.parametrize(("fields", "why"), [
    ({"topk_ids": np.array([[99]])}, "topk_ids out of range: tile 0 holds \\[99\\]"),
    ({"topk_ids": np.array([[-1]])}, "topk_ids out of range"),
    ({"topk_ids": np.array([[5]])}, "tile 0: topk_ids column 0 \\(6m\\) is not its class \\(1m\\)"),
    ({"topk_ids": np.zeros((1, 0), np.int64), "topk_probs": np.zeros((1, 0), np.float32)},
     "k ≥ 1"),
    ({"class_ids": np.array([1.5])}, "class_ids must hold integers"),
    ({"rotations": ["0"]}, "rotations must hold integers"),
    ({"boxes": [[0, 0, 1]]}, "boxes must have shape \\(n, 4\\)"),
    ({"boxes": [[0, 0, 1, 1], [0, 0]]}, "boxes must be an array of numbers"),
    ({"confidences": [None]}, "confidences must hold real numbers"),
])
def test_the_constructor_refuses_fields_that_do_not_fit(fields: dict[str, object],
                                                        why: str) -> None:
    """F4: out-of-range top-k ids built and crashed ``to_records`` (99) or named another
    tile (-1 read as ``back``; a column 0 of 6m on a 1m tile)."""
    with pytest.raises(ValueError, match=why):
        _one(**fields)


def test_the_constructor_takes_lists_and_converts_to_the_documented_dtypes() -> None:
    """F4: a list of boxes raised AttributeError; float64 boxes were kept as float64."""
    d = _one(boxes=[[0, 0, 1, 1]], class_ids=[0], confidences=[1],
             rotations=np.array([0], np.int32), topk_ids=[[0]], topk_probs=np.ones((1, 1)),
             rotation_probs=[[1, 0, 0, 0]])
    dtypes = [d.boxes.dtype, d.class_ids.dtype, d.confidences.dtype, d.rotations.dtype,
              d.topk_ids.dtype, d.topk_probs.dtype, d.rotation_probs.dtype]  # type: ignore[union-attr]
    assert dtypes == [np.float32, np.int64, np.float32, np.int64, np.int64, np.float32, np.float32]
    assert d.codes == ["1m"]
    empty = _one(boxes=np.zeros((0, 4)), class_ids=[], confidences=[], rotations=[],
                 topk_ids=np.zeros((0, 1)), topk_probs=np.zeros((0, 1)))
    assert len(empty) == 0 and empty.class_ids.dtype == np.int64
    assert Detections.empty(k=0).topk_ids.shape == (0, 1)  # a width the constructor takes


def test_arrays_of_the_documented_dtypes_are_kept_as_they_are() -> None:
    """No copy of what the detector passes in (it builds many containers a frame)."""
    boxes = np.zeros((1, 4), np.float32)
    assert _one(boxes=boxes).boxes is boxes


def test_from_lists_refuses_an_empty_topk_and_names_mismatched_lengths() -> None:
    """F4: ``topk=[[]]`` built a container of top-k width 0 (``join`` then refused it);
    two codes and one box said "cannot reshape array of size 4 into shape (2,4)"."""
    with pytest.raises(ValueError, match="tile 0: topk is empty"):
        Detections.from_lists([(0, 0, 1, 1)], ["5p"], topk=[[]])
    with pytest.raises(ValueError, match="2 codes but 1 boxes"):
        Detections.from_lists([(0, 0, 1, 1)], ["5p", "E"])
    with pytest.raises(ValueError, match="1 codes but 2 confidences, 0 topk"):
        Detections.from_lists([(0, 0, 1, 1)], ["5p"], [0.5, 0.5], topk=[])
