"""Real-photo preparation: class mapping, mirrored-copy repair, split by stem.

Fixtures are small generated "photos" (chiral glyphs on textured tiles) and their
copies under right-angle rotations and flips, as the Roboflow export made them.
"""

from __future__ import annotations

import os
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt
import pytest

from vision.classes import class_id
from vision.data.handedness import HandednessCue
from vision.data.photos import (
    CopyDecision,
    Labels,
    ParityMatcher,
    decide_stem,
    flip_labels,
    format_labels,
    group_copies,
    hk_code,
    original_copy,
    prepare_photos,
    read_class_names,
    read_labels,
    reference_photos,
    rotate_labels_cw,
    source_stem,
    split_stems,
)
from vision.data.relabel import TURNED_CORNERS, cut_to_picture, fill_corners

REPO = Path(__file__).resolve().parents[2]
SHARED = Path(os.environ.get("TILECAM_SHARED", REPO.parent / "shared"))
HK = SHARED / "datasets" / "hk-photos"
NAMES = ["sc1", "sd7", "hwe", "bf1", "bs4"]
Image = npt.NDArray[np.uint8]


def _scene(seed: int, size: int = 256) -> tuple[Image, Labels]:
    """A textured table with 4 'tiles' carrying chiral glyphs; labels in hk ids."""
    rng = np.random.default_rng(seed)
    noise = rng.integers(0, 255, (size // 8, size // 8, 3), dtype=np.uint8)
    image = cv2.resize(noise, (size, size), interpolation=cv2.INTER_CUBIC)
    rows = []
    for i, text in enumerate(["7", "R", "F", "4"]):
        x0, y0 = 20 + 55 * i, 60 + 30 * (i % 2)
        cv2.rectangle(image, (x0, y0), (x0 + 44, y0 + 60), (235, 235, 235), -1)
        cv2.putText(image, text, (x0 + 8, y0 + 45), cv2.FONT_HERSHEY_SIMPLEX, 1.3, (20, 40, 160), 3)
        cv2.putText(image, text, (x0 + 2, y0 + 12), cv2.FONT_HERSHEY_PLAIN, 0.8, (0, 0, 0), 1)
        rows.append([i % len(NAMES), (x0 + 22) / size, (y0 + 30) / size, 44 / size, 60 / size])
    return image, np.array(rows, np.float64)


def _flip_v(labels: Labels) -> Labels:
    out = labels.copy()
    out[:, 2] = 1.0 - out[:, 2]
    return out


#: name suffix -> (image transform, label transform, mirrored?)
COPIES = {
    "a": (lambda im: im, lambda lb: lb, False),
    "b": (lambda im: cv2.flip(im, 1), flip_labels, True),
    "c": (lambda im: cv2.rotate(im, cv2.ROTATE_180), lambda lb: _flip_v(flip_labels(lb)), False),
    "d": (lambda im: cv2.flip(im, 0), _flip_v, True),
    "e": (lambda im: cv2.rotate(im, cv2.ROTATE_90_CLOCKWISE), rotate_labels_cw, False),
}


def _write_hk(root: Path, stems: int = 3) -> dict[str, tuple[Image, Labels]]:
    (root / "images").mkdir(parents=True)
    (root / "labels").mkdir(parents=True)
    (root / "classes.yaml").write_text(f"nc: {len(NAMES)}\nnames: {NAMES}\n")
    originals = {}
    for s in range(stems):
        image, labels = _scene(s)
        stem = f"photo{s}_jpg"
        originals[stem] = (image, labels)
        for key, (tf_image, tf_labels, _) in COPIES.items():
            name = f"{stem}.rf.{key}{s}"
            cv2.imwrite(str(root / "images" / f"{name}.png"), tf_image(image))
            (root / "labels" / f"{name}.txt").write_text(format_labels(tf_labels(labels)))
    return originals


def _oracle(originals: dict[str, tuple[Image, Labels]]):  # type: ignore[no-untyped-def]
    """A scorer that knows the un-mirrored originals: best match under a right angle."""

    def score(image: Image, labels: Labels) -> float:
        best = -1e9
        for original, _ in originals.values():
            candidate = original
            for _ in range(4):
                if candidate.shape == image.shape:
                    diff = np.abs(candidate.astype(np.float32) - image.astype(np.float32))
                    best = max(best, -float(diff.mean()))
                candidate = cv2.rotate(candidate, cv2.ROTATE_90_CLOCKWISE)
        return best

    return score


def test_hk_class_names_map_to_tile_codes() -> None:
    assert [hk_code(n) for n in ("sc1", "sd9", "sb5", "hwn", "hdg", "hdw")] == [
        "1m",
        "9p",
        "5s",
        "N",
        "F",
        "P",
    ]
    # seasons are 1f-4f, flowers (plum, orchid, chrysanthemum, bamboo) are 5f-8f
    assert [hk_code(n) for n in ("bs1", "bs4", "bf1", "bf4")] == ["1f", "4f", "5f", "8f"]
    with pytest.raises(ValueError, match="unknown hk-photos class"):
        hk_code("xx1")


def test_read_labels_maps_ids_and_turns_polygons_into_boxes(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_text("1 0.5 0.5 0.2 0.1\n2 0.1 0.1 0.3 0.1 0.3 0.3 0.1 0.3\n")
    labels = read_labels(path, NAMES)
    assert labels[:, 0].tolist() == [class_id("7p"), class_id("E")]
    np.testing.assert_allclose(labels[1, 1:], [0.2, 0.2, 0.2, 0.2])


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("9 0.5 0.5 0.1 0.1", "out of range"),
        ("0 0.5 x 0.1 0.1", "not numbers"),
        ("0 0.5 0.5 0.1", "expected 5 values"),
        ("0 nan 0.5 0.1 0.1", "not a finite number"),
        ("0 0.5 0.5 inf 0.1", "not a finite number"),
        ("0 1.7 0.5 0.1 0.1", "centre outside the image"),
        ("0 0.5 -0.01 0.1 0.1", "centre outside the image"),
        ("0 0.5 0.5 -0.2 0.1", "no width or height"),
        ("0 0.5 0.5 0.1 0", "no width or height"),
        ("0 0.1 0.1 0.3 0.1 1.2 0.3 0.1 0.3", "polygon point outside the image"),
        ("0 0.1 0.1 0.1 0.1 0.1 0.1", "no width or height"),
    ],
)
def test_read_labels_rejects_bad_lines(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "bad.txt"
    path.write_text("1 0.5 0.5 0.2 0.1\n" + text + "\n")
    with pytest.raises(ValueError, match=f"bad.txt:2: .*{message}"):
        read_labels(path, NAMES)


def test_read_labels_allows_rounding_at_the_edge(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_text("1 1.0004 0.5 0.2 0.1\n2 -0.0004 0.1 0.3 0.1 0.3 0.3 0.1 0.3\n")
    assert len(read_labels(path, NAMES)) == 2


def test_an_unknown_class_name_is_named_with_classes_yaml_up_front(tmp_path: Path) -> None:
    """classes.yaml naming a class with no tile code is refused when it is read, naming
    the file, not once a label row uses the class."""
    (tmp_path / "classes.yaml").write_text("names: ['sc1', 'xyz', 'hwe', 'q9']\n")
    with pytest.raises(ValueError, match=r"classes\.yaml: unknown hk-photos class name\(s\) "
                                         r"'xyz', 'q9'"):
        read_class_names(tmp_path)


def test_stem_is_the_name_before_rf() -> None:
    assert source_stem("IMG_1_jpg.rf.abc.jpg") == "IMG_1_jpg"


def test_split_by_stem_is_deterministic_and_disjoint() -> None:
    stems = [f"s{i}" for i in range(50)]
    train, val = split_stems(stems, 0.2, 3)
    assert (train, val) == split_stems(reversed(stems), 0.2, 3)
    assert len(val) == 10 and train.isdisjoint(val) and train | val == set(stems)
    with pytest.raises(ValueError, match="val_fraction"):
        split_stems(stems, 1.0, 0)


def test_parity_separates_mirror_images_from_rotations() -> None:
    image, _ = _scene(7)
    h, w = image.shape[:2]
    tilted = cv2.warpAffine(image, cv2.getRotationMatrix2D((w / 2, h / 2), 30, 0.9), (w, h))
    copies = [tf(image) for tf, _, _ in COPIES.values()] + [tilted, cv2.flip(tilted, 0)]
    parities = [p[0] for p in ParityMatcher().parities(copies)]
    assert parities == [0, 1, 0, 1, 0, 0, 1]


def test_prepare_flips_mirrored_copies_back(tmp_path: Path) -> None:
    originals = _write_hk(tmp_path / "hk")
    counts = prepare_photos(
        tmp_path / "hk", tmp_path / "out", val_fraction=0.34, scorer=_oracle(originals)
    )
    assert counts["images"] == 15 and counts["mirrored"] == 6 and counts["fixed"] == 6
    assert counts["val_stems"] == 1 and counts["train_stems"] == 2
    score = _oracle(originals)
    for split in ("train", "val"):
        for path in (tmp_path / "out" / "images" / split).iterdir():
            image = cv2.imread(str(path))
            assert score(image, np.zeros((0, 5))) > -1.0, f"{path.name} is still mirrored"
    # the hflipped copy "b" becomes the original again, labels included
    stem = "photo0_jpg"
    split = "val" if any((tmp_path / "out/labels/val").glob(f"{stem}*")) else "train"
    fixed = np.loadtxt(tmp_path / "out" / "labels" / split / f"{stem}.rf.b0.txt", ndmin=2)
    expected = originals[stem][1].copy()
    expected[:, 0] = [class_id(hk_code(NAMES[int(c)])) for c in expected[:, 0]]
    np.testing.assert_allclose(fixed, expected, atol=1e-5)
    # copies of one stem never straddle the split
    for stem in originals:
        where = {p.parent.name for p in (tmp_path / "out/images").rglob(f"{stem}.rf.*")}
        assert len(where) == 1
    data = (tmp_path / "out" / "data.yaml").read_text()
    assert "nc: 43" in data and "  42: 'back'" in data
    assert (tmp_path / "out" / "mirror.csv").read_text().count("\n") == 16


def test_prepare_drop_leaves_mirrored_copies_out(tmp_path: Path) -> None:
    originals = _write_hk(tmp_path / "hk", stems=2)
    counts = prepare_photos(
        tmp_path / "hk", tmp_path / "out", mirrored="drop", scorer=_oracle(originals)
    )
    assert counts["images"] == 6 and counts["dropped"] == 4
    names = sorted(p.name for p in (tmp_path / "out/images").rglob("*.png"))
    assert all(n.split(".rf.")[1][0] in "ace" for n in names)


def test_a_second_split_into_the_same_folder_leaves_no_photo_in_both(tmp_path: Path) -> None:
    """Prepared again with another split (seed or val share), a stem that moves from val
    to train must not stay in val too: a val photo the model trained on."""
    originals = _write_hk(tmp_path / "hk", stems=4)
    out = tmp_path / "out"
    for seed in (0, 1, 2, 3):
        prepare_photos(tmp_path / "hk", out, val_fraction=0.5, seed=seed,
                       scorer=_oracle(originals))
        train = {p.name for p in (out / "images/train").iterdir()}
        val = {p.name for p in (out / "images/val").iterdir()}
        assert train.isdisjoint(val) and len(train | val) == 20
        labels = {p.name for p in (out / "labels/train").iterdir()}
        assert labels.isdisjoint(p.name for p in (out / "labels/val").iterdir())


def test_prepare_rejects_a_folder_that_is_not_hk_photos(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="images/ and labels/"):
        prepare_photos(tmp_path, tmp_path / "out", scorer=lambda im, lb: 0.0)
    with pytest.raises(ValueError, match="mirrored must be"):
        prepare_photos(tmp_path, tmp_path / "out", mirrored="flip")


def _turn(image: Image, labels: Labels, degrees: float) -> tuple[Image, Labels]:
    """Rotate about the centre (the export's ±45° turns); boxes enclose the turned boxes."""
    h, w = image.shape[:2]
    m = cv2.getRotationMatrix2D((w / 2, h / 2), degrees, 1.0)
    out = cv2.warpAffine(image, m, (w, h))
    rows = []
    for c, cx, cy, bw, bh in labels:
        corners = np.array(
            [
                [cx - bw / 2, cy - bh / 2],
                [cx + bw / 2, cy - bh / 2],
                [cx + bw / 2, cy + bh / 2],
                [cx - bw / 2, cy + bh / 2],
            ]
        )
        pts = (np.c_[corners * [w, h], np.ones(4)] @ m.T) / [w, h]
        x0, y0 = pts.min(0)
        x1, y1 = pts.max(0)
        rows.append([c, (x0 + x1) / 2, (y0 + y1) / 2, x1 - x0, y1 - y0])
    return out, np.array(rows)


def _write_roboflow_like(root: Path, tie: bool = False) -> None:
    """One stem: the un-augmented original plus turned, flipped copies (looser boxes)."""
    (root / "images").mkdir(parents=True)
    (root / "labels").mkdir(parents=True)
    (root / "classes.yaml").write_text(f"names: {NAMES}\n")
    image, labels = _scene(3)
    copies = {"a": (image, labels)}
    if tie:
        copies["b"] = (cv2.flip(image, 1), flip_labels(labels))
    else:
        turned = _turn(image, labels, 20)
        copies["b"] = (cv2.flip(turned[0], 1), flip_labels(turned[1]))
    turned = _turn(image, labels, -25)
    copies["c"] = (cv2.rotate(turned[0], cv2.ROTATE_180), _flip_v(flip_labels(turned[1])))
    turned = _turn(image, labels, 30)
    copies["d"] = (cv2.flip(turned[0], 0), _flip_v(turned[1]))
    for key, (im, lb) in copies.items():
        cv2.imwrite(str(root / "images" / f"p_jpg.rf.{key}.png"), im)
        (root / "labels" / f"p_jpg.rf.{key}.txt").write_text(format_labels(lb))


def test_by_default_the_original_copy_names_the_real_handedness(tmp_path: Path) -> None:
    _write_roboflow_like(tmp_path / "hk")
    counts = prepare_photos(tmp_path / "hk", tmp_path / "out", val_fraction=0.0)
    assert (counts["mirrored"], counts["fixed"], counts["ambiguous"]) == (2, 2, 0)
    rows = (tmp_path / "out" / "mirror.csv").read_text().splitlines()[1:]
    mirrored = {r.split(",")[0][9]: r.split(",")[7] for r in rows}
    assert mirrored == {"a": "0", "b": "1", "c": "0", "d": "1"}


def test_a_tie_between_mirror_images_is_left_out(tmp_path: Path) -> None:
    _write_roboflow_like(tmp_path / "hk", tie=True)
    counts = prepare_photos(tmp_path / "hk", tmp_path / "out", val_fraction=0.0)
    assert counts["ambiguous"] == 4 and counts["images"] == 0


def _read_out(out: Path, name: str) -> Labels:
    return np.loadtxt(next(out.rglob(f"labels/*/{name}.txt")), ndmin=2)


def test_copies_get_the_originals_labels_carried_across(tmp_path: Path) -> None:
    """Labels of turned copies: the export's are off the tiles (shifted here by a fifth
    of the image); the prepared copy's are the original's boxes mapped through the
    copy's homography — the turned tiles' enclosing boxes, as the test turns them."""
    _write_roboflow_like(tmp_path / "hk")
    labels_dir = tmp_path / "hk" / "labels"
    truth = {}
    for key in "bcd":
        path = labels_dir / f"p_jpg.rf.{key}.txt"
        good = np.loadtxt(path, ndmin=2)
        truth[key] = good
        bad = good.copy()
        bad[:, 1] = np.clip(bad[:, 1] + 0.2, 0, 1)
        path.write_text(format_labels(bad))
    counts = prepare_photos(tmp_path / "hk", tmp_path / "out", val_fraction=0.0)
    assert (counts["mapped"], counts["unaligned"], counts["images"]) == (3, 0, 4)
    out = tmp_path / "out"
    for key in "bcd":  # b and d were mirrored: flipped back, labels with them
        got = _read_out(out, f"p_jpg.rf.{key}")
        want = truth[key] if key == "c" else flip_labels(truth[key])
        want[:, 0] = [class_id(hk_code(NAMES[int(c)])) for c in want[:, 0]]
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, atol=0.01)  # 2.5 px of 256
    cache = (out / "labels.csv").read_text().splitlines()
    assert len(cache) == 4 and cache[0].startswith("name,original,inliers")
    # a re-run reuses the cached alignments and writes the same labels
    again = prepare_photos(tmp_path / "hk", out, val_fraction=0.0)
    assert again == counts
    np.testing.assert_allclose(_read_out(out, "p_jpg.rf.d"), got, atol=1e-6)


def test_a_tile_the_exports_cut_moved_into_the_fill_is_not_labelled_there(
    tmp_path: Path,
) -> None:
    """Fill cut: a copy the export cut before turning it (here its right 70 px blacked
    out, then turned 20° with black corners) shows three of the original's four tiles;
    the fourth, carried across into the black fill, is dropped (``fill_dropped``), and
    ``cut_fill=False`` keeps it."""
    root = tmp_path / "hk"
    (root / "images").mkdir(parents=True)
    (root / "labels").mkdir(parents=True)
    (root / "classes.yaml").write_text(f"names: {NAMES}\n")
    image, labels = _scene(3)
    cut = image.copy()
    cut[:, -70:] = 0
    turned, turned_labels = _turn(cut, labels, 20)
    for key, (im, lb) in {"a": (image, labels), "x": (turned, turned_labels)}.items():
        cv2.imwrite(str(root / "images" / f"p_jpg.rf.{key}.png"), im)
        (root / "labels" / f"p_jpg.rf.{key}.txt").write_text(format_labels(lb))
    counts = prepare_photos(root, tmp_path / "out", val_fraction=0.0)
    assert (counts["images"], counts["fill_dropped"]) == (2, 1)
    got = _read_out(tmp_path / "out", "p_jpg.rf.x")
    assert len(got) == 3 and got[:, 1].max() < 0.75  # the right-hand tile is gone
    assert len(_read_out(tmp_path / "out", "p_jpg.rf.a")) == 4  # the original keeps all
    kept = prepare_photos(root, tmp_path / "kept", val_fraction=0.0, cut_fill=False)
    assert kept["fill_dropped"] == 0 and len(_read_out(tmp_path / "kept", "p_jpg.rf.x")) == 4


def test_a_dark_copy_the_fill_flood_runs_through_keeps_its_labels() -> None:
    """Fill cut guard: in a copy darkened to near black (an exposure change), the flood
    from the black corners runs over the picture; past half the copy it is not the
    export's fill, and no box is cut or dropped."""
    dark = np.full((100, 100, 3), 3, np.uint8)
    dark[40:60, 40:60] = 14  # a tile, barely lighter than the table
    lb = np.array([[1, 0.5, 0.5, 0.2, 0.2], [2, 0.1, 0.1, 0.1, 0.1]])
    kept, dropped, cut = cut_to_picture(lb, dark)
    assert (dropped, cut) == (0, 0) and np.array_equal(kept, lb)


def test_a_copy_that_does_not_align_with_its_original_is_left_out(tmp_path: Path) -> None:
    _write_roboflow_like(tmp_path / "hk")
    other, _ = _scene(11)  # another photo under this stem's name: no homography fits
    cv2.imwrite(
        str(tmp_path / "hk" / "images" / "p_jpg.rf.c.png"), cv2.GaussianBlur(other, (0, 0), 6)
    )
    counts = prepare_photos(tmp_path / "hk", tmp_path / "out", val_fraction=0.0)
    assert counts["unaligned"] == 1 and counts["images"] == 3
    assert not list((tmp_path / "out").rglob("p_jpg.rf.c.*"))
    export = prepare_photos(
        tmp_path / "hk", tmp_path / "out2", val_fraction=0.0, labels_from="export"
    )
    assert export["unaligned"] == 0 and export["images"] == 4


def test_labels_from_is_checked(tmp_path: Path) -> None:
    _write_roboflow_like(tmp_path / "hk")
    with pytest.raises(ValueError, match="labels_from must be"):
        prepare_photos(tmp_path / "hk", tmp_path / "out", labels_from="copy")
    with pytest.raises(ValueError, match="needs mirrored copies fixed"):
        prepare_photos(tmp_path / "hk", tmp_path / "out", mirrored="keep")


def test_copies_without_labels_are_left_out(tmp_path: Path) -> None:
    originals = _write_hk(tmp_path / "hk", stems=1)
    (tmp_path / "hk" / "labels" / "photo0_jpg.rf.e0.txt").write_text("")
    counts = prepare_photos(
        tmp_path / "hk", tmp_path / "out", val_fraction=0.0, scorer=_oracle(originals)
    )
    assert counts["unlabelled"] == 1 and counts["images"] == 4


#: hk-photos copies whose handedness was checked by eye (corner indices such as
#: 2 3 4 7 E S W N and the characters read the right way round, or mirrored).
CHECKED_BY_EYE = {
    "hand_134_jpg.rf.1287b6cb68377dc9edddb5a9739b6dc9.jpg": False,
    "IMG_20231107_225846_jpg.rf.398f49090b963f79b7675621b96b9844.jpg": False,
    "410097547_746163494032501_7805330429065975025_n_jpg.rf.3fcdd3a17a47cc1ed22477e54b29e03b.jpg": (
        False
    ),
    "367362342_966412384458625_1506370883166840771_n_jpg.rf.6962770da1e1abb074651cd328e2c448.jpg": (
        False
    ),
    "367362342_966412384458625_1506370883166840771_n_jpg.rf.73ed3e298312f3b9dd1d1390c84a5c45.jpg": (
        True
    ),
}


@pytest.fixture(scope="module")
def hk_cue() -> HandednessCue:
    """The cross-photo cue on hk-photos, as the build makes it (about 30 s)."""
    refs = reference_photos(group_copies(HK / "images"), HK / "labels", read_class_names(HK))
    return HandednessCue((stem, cv2.imread(str(path))) for stem, path in refs)


def _judge_real(stem: str,
                cue: HandednessCue) -> tuple[list[Image], list[Labels], list[CopyDecision]]:
    names = read_class_names(HK)
    paths = group_copies(HK / "images")[stem]
    images = [cv2.imread(str(p)) for p in paths]
    labels = [read_labels(HK / "labels" / (p.stem + ".txt"), names) for p in paths]
    decisions = decide_stem([p.name for p in paths], images, labels, ParityMatcher(), cue=cue)
    return images, labels, decisions


@pytest.mark.skipif(not HK.is_dir(), reason=f"hk-photos not found at {HK}")
def test_real_photos_mirrored_copies_match_the_eye(hk_cue: HandednessCue) -> None:
    for name, mirrored in CHECKED_BY_EYE.items():
        _, _, found = _judge_real(source_stem(name), hk_cue)
        decisions = {d.name: d for d in found}
        assert not decisions[name].ambiguous
        assert decisions[name].mirrored is mirrored, name


#: hk-photos stems none of whose copies is un-augmented, whose tightest copy (the one the
#: box rule took as the original) is mirrored: checked by eye (session 73: the letters
#: Ǝ Ƨ И and 北 南 of honor_family_001, the index digits 1 2 3 6 of hand_111 read the
#: right way round only in the flipped image).
MIRRORED_TIGHTEST = ("honor_family_001_jpg", "hand_111_jpg")


@pytest.mark.skipif(not HK.is_dir(), reason=f"hk-photos not found at {HK}")
@pytest.mark.parametrize("stem", MIRRORED_TIGHTEST)
def test_real_photos_whose_tightest_copy_is_mirrored_are_turned_round(
    stem: str, hk_cue: HandednessCue,
) -> None:
    images, labels, decisions = _judge_real(stem, hk_cue)
    found = original_copy(labels)
    assert found is not None
    tightest = found[0]
    assert fill_corners(images[tightest]) >= TURNED_CORNERS  # no copy as taken
    assert decisions[tightest].judged_by == "cue" and not decisions[tightest].ambiguous
    assert decisions[tightest].mirrored


# ---------------------------------------------------------------- label fixes
def test_a_label_fix_on_the_original_reaches_every_copy(tmp_path: Path) -> None:
    """A bonus tile's wrong label (one of each flower in a set: two labels of one code
    are one too many) is corrected on the original; the copies' labels are carried from
    it, so every copy gets the fix. A fix whose row holds another code is skipped."""
    from vision.classes import CLASSES
    from vision.data.label_fixes import LabelFix

    _write_roboflow_like(tmp_path / "hk")
    fix = LabelFix("p_jpg.rf.a.png", 3, "5f", "3f", "test: the tile shows 3 秋")
    wrong = LabelFix("p_jpg.rf.a.png", 4, "5f", "3f", "test: row 4 is a 4f")
    counts = prepare_photos(tmp_path / "hk", tmp_path / "fixed", val_fraction=0.0,
                            label_fixes=[fix, wrong])
    assert (counts["label_fixes"], counts["label_fixes_skipped"]) == (1, 1)
    plain = prepare_photos(tmp_path / "hk", tmp_path / "plain", val_fraction=0.0,
                           label_fixes=())
    assert (plain["label_fixes"], plain["label_fixes_skipped"]) == (0, 0)
    for key in "abcd":
        got = _read_out(tmp_path / "fixed", f"p_jpg.rf.{key}")
        was = _read_out(tmp_path / "plain", f"p_jpg.rf.{key}")
        changed = np.flatnonzero(got[:, 0] != was[:, 0])
        assert len(changed) == 1, key
        assert CLASSES[int(was[changed[0], 0])] == "5f"
        assert CLASSES[int(got[changed[0], 0])] == "3f"
        np.testing.assert_allclose(got[:, 1:], was[:, 1:])


def test_shipped_label_fixes_name_bonus_tiles_and_change_them() -> None:
    from vision.classes import BONUS, CLASSES
    from vision.data.label_fixes import LABEL_FIXES

    assert LABEL_FIXES
    for f in LABEL_FIXES:
        assert f.was in CLASSES and f.now in CLASSES and f.was != f.now and f.why
        assert (f.was in BONUS) == (f.now in BONUS)
    assert len({(f.copy, f.row) for f in LABEL_FIXES}) == len(LABEL_FIXES)


@pytest.mark.skipif(not HK.is_dir(), reason=f"hk-photos not found at {HK}")
def test_shipped_label_fixes_match_the_exported_labels() -> None:
    """Each fix's row in the export's label file holds the code it corrects, and with the
    fix the photo names no bonus code twice and no kind more than four times."""
    from collections import Counter

    from vision.classes import BONUS, CLASSES
    from vision.data.label_fixes import LABEL_FIXES, apply_label_fixes

    names = read_class_names(HK)
    for copy in {f.copy for f in LABEL_FIXES}:
        path = HK / "labels" / (Path(copy).stem + ".txt")
        labels = read_labels(path, names)
        fixed, applied, skipped = apply_label_fixes(copy, labels)
        assert skipped == 0 and applied == sum(f.copy == copy for f in LABEL_FIXES)
        bonus = Counter(CLASSES[int(c)] for c in fixed[:, 0] if CLASSES[int(c)] in BONUS)
        kinds = Counter(CLASSES[int(c)] for c in fixed[:, 0] if CLASSES[int(c)] not in BONUS)
        assert max(bonus.values(), default=1) == 1, (copy, bonus)
        assert max(kinds.values(), default=4) <= 4, (copy, kinds)


def test_a_folder_holding_another_dataset_is_not_written_into(tmp_path: Path) -> None:
    """`dataset photos --out` naming a folder with images or labels no photos build wrote
    (a synthetic set) is refused before anything is written; a photos build — its mark
    made before the first image, so an interrupted one too — is taken up again."""
    _write_roboflow_like(tmp_path / "hk")
    other = tmp_path / "synth"
    (other / "images" / "train").mkdir(parents=True)
    (other / "images" / "train" / "s.jpg").write_bytes(b"not ours")
    with pytest.raises(ValueError, match="no `tilecam dataset photos` run wrote"):
        prepare_photos(tmp_path / "hk", other, val_fraction=0.0)
    assert sorted(p.name for p in other.rglob("*")) == ["images", "s.jpg", "train"]
    out = tmp_path / "out"
    first = prepare_photos(tmp_path / "hk", out, val_fraction=0.0)
    (out / "mirror.csv").unlink()  # as if interrupted before the end: the mark is there
    assert prepare_photos(tmp_path / "hk", out, val_fraction=0.0) == first


# ------------------------------------------------------------ bad inputs, fixes by photo
def test_a_truncated_jpeg_is_refused_naming_the_file(tmp_path: Path) -> None:
    """OpenCV decodes a JPEG cut short (no end-of-image marker) without an error, the
    missing rows grey: the build must stop and name the file, not copy it with labels."""
    _write_roboflow_like(tmp_path / "hk")
    images = tmp_path / "hk" / "images"
    for png in images.glob("*.png"):
        ok, data = cv2.imencode(".jpg", cv2.imread(str(png)))
        assert ok
        blob = data.tobytes()
        png.with_suffix(".jpg").write_bytes(blob[: len(blob) * 2 // 3] if "rf.a" in png.name
                                            else blob)
        png.unlink()
    with pytest.raises(ValueError, match=r"p_jpg\.rf\.a\.jpg: truncated JPEG"):
        prepare_photos(tmp_path / "hk", tmp_path / "out", val_fraction=0.0)


def test_a_label_fix_for_another_copy_of_the_photo_is_counted_as_skipped(
    tmp_path: Path,
) -> None:
    """A fix is looked up by its photo: listed for a copy that is not the one taken as the
    original (its rows are another file's), or for a copy not there, it is skipped and
    counted, not silently ignored."""
    from vision.data.label_fixes import LabelFix

    _write_roboflow_like(tmp_path / "hk")
    fixes = [LabelFix("p_jpg.rf.a.png", 3, "5f", "3f", "the original: applied"),
             LabelFix("p_jpg.rf.b.png", 3, "5f", "3f", "a turned copy: not the original"),
             LabelFix("p_jpg.rf.zz.png", 3, "5f", "3f", "a copy not in this export"),
             LabelFix("q_jpg.rf.a.png", 3, "5f", "3f", "another photo: not this build's")]
    counts = prepare_photos(tmp_path / "hk", tmp_path / "out", val_fraction=0.0,
                            label_fixes=fixes)
    assert (counts["label_fixes"], counts["label_fixes_skipped"]) == (1, 2)


# --------------------------------------------------- which group is real: the photo cue
GLYPHS = "7RF4JLPQGK2359E"


def _table(seed: int, size: int = 320, glyphs: bool = True) -> tuple[Image, Labels]:
    """A textured table with 12 tiles carrying chiral glyphs drawn from one 'set' (so
    that other photos share them, as photos of one tile set do); labels in hk ids."""
    rng = np.random.default_rng(seed)
    noise = rng.integers(0, 255, (size // 8, size // 8, 3), dtype=np.uint8)
    image = cv2.resize(noise, (size, size), interpolation=cv2.INTER_CUBIC)
    rows = []
    for k, g in enumerate(rng.permutation(len(GLYPHS))[:12]):
        x0, y0 = 14 + 75 * (k % 4), 20 + 100 * (k // 4)
        cv2.rectangle(image, (x0, y0), (x0 + 56, y0 + 76), (235, 235, 235), -1)
        if glyphs:
            text = GLYPHS[g]
            cv2.putText(image, text, (x0 + 10, y0 + 58), cv2.FONT_HERSHEY_SIMPLEX, 1.6,
                        (20, 40, 160), 3)
            cv2.putText(image, text, (x0 + 3, y0 + 14), cv2.FONT_HERSHEY_PLAIN, 0.9,
                        (0, 0, 0), 1)
        rows.append([k % len(NAMES), (x0 + 28) / size, (y0 + 38) / size, 56 / size,
                     76 / size])
    return image, np.array(rows, np.float64)


def _mirror(copy: tuple[Image, Labels]) -> tuple[Image, Labels]:
    return cv2.flip(copy[0], 1), flip_labels(copy[1])


def _write_copies(root: Path, stem: str, copies: dict[str, tuple[Image, Labels]]) -> None:
    (root / "images").mkdir(parents=True, exist_ok=True)
    (root / "labels").mkdir(parents=True, exist_ok=True)
    (root / "classes.yaml").write_text(f"names: {NAMES}\n")
    for key, (im, lb) in copies.items():
        cv2.imwrite(str(root / "images" / f"{stem}.rf.{key}.png"), im)
        (root / "labels" / f"{stem}.rf.{key}.txt").write_text(format_labels(lb))


def _write_set_photos(root: Path, glyphs: bool = True) -> tuple[Image, Labels]:
    """Four photos whose un-augmented original is kept (``kept<i>``: copy ``a`` as taken,
    a mirrored turned copy, a turned copy), and one (``turned``) none of whose copies
    shows it as taken: all four turned (the export's black fill in the corners), the
    tightest of them (``a``, turned least) and ``c`` mirrored. Returns ``turned``'s
    photo as taken."""
    for i in range(4):
        photo = _table(i)
        c = _turn(*photo, -25)
        _write_copies(root, f"kept{i}_jpg", {
            "a": photo,
            "b": _mirror(_turn(*photo, 20)),
            "c": (cv2.rotate(c[0], cv2.ROTATE_90_CLOCKWISE), rotate_labels_cw(c[1])),
        })
    photo = _table(9, glyphs=glyphs)
    a = _turn(*photo, 8)
    b = _turn(*photo, 20)
    c = _turn(*photo, -25)
    d = _turn(*photo, 30)
    _write_copies(root, "turned_jpg", {
        "a": _mirror(a),
        "b": (cv2.rotate(b[0], cv2.ROTATE_90_CLOCKWISE), rotate_labels_cw(b[1])),
        "c": (cv2.flip(c[0], 0), _flip_v(c[1])),
        "d": (cv2.rotate(d[0], cv2.ROTATE_180), _flip_v(flip_labels(d[1]))),
    })
    return photo


def _mirror_column(out: Path, stem: str) -> dict[str, str]:
    import csv

    with (out / "mirror.csv").open() as fh:
        return {r["name"].split(".rf.")[1][0]: r["mirrored"] for r in csv.DictReader(fh)
                if r["stem"] == stem}


def test_a_photo_with_no_untouched_copy_is_turned_round_by_the_photo_cue(
    tmp_path: Path,
) -> None:
    """The tightest copy of ``turned`` is itself turned (fill corners) and mirrored: the
    box rule alone would keep its group and flip the right-handed copies into mirror
    images. Matched against the kept photos' originals and their mirror images, its
    copies read mirrored: ``a`` and ``c`` are flipped back."""
    photo = _write_set_photos(tmp_path / "hk")
    counts = prepare_photos(tmp_path / "hk", tmp_path / "out", val_fraction=0.0)
    out = tmp_path / "out"
    assert _mirror_column(out, "turned_jpg") == {"a": "1", "b": "0", "c": "1", "d": "0"}
    assert counts["ambiguous"] == 0
    fixed = cv2.imread(str(next(out.rglob("images/*/turned_jpg.rf.a.png"))))
    want = _turn(*photo, 8)[0]
    assert np.abs(fixed.astype(int) - want).mean() < 1.0  # the photo as taken, turned 8°
    rows = (out / "mirror.csv").read_text().splitlines()
    assert rows[0].endswith(",cue,judged_by")
    assert all(r.endswith(",cue") for r in rows[1:] if r.startswith("turned_jpg"))
    assert all(r.endswith(",original") for r in rows[1:] if r.startswith("kept"))


def test_a_turned_photo_the_cue_cannot_read_is_left_out(tmp_path: Path) -> None:
    """No glyph of the set on ``turned``: the cue finds too few matches, and a photo
    with no copy as taken is left out as ambiguous rather than guessed."""
    _write_set_photos(tmp_path / "hk", glyphs=False)
    counts = prepare_photos(tmp_path / "hk", tmp_path / "out", val_fraction=0.0)
    assert counts["ambiguous"] == 4
    assert not list((tmp_path / "out").rglob("images/*/turned_jpg*"))
    assert len(list((tmp_path / "out").rglob("images/*/kept*"))) == 12


@pytest.mark.parametrize("old_columns", [True, False])
def test_a_build_judged_before_the_cue_is_judged_again_with_its_labels(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, old_columns: bool,
) -> None:
    """A build from before the cue (``turned`` judged by the tightest copy; mirror.csv
    without the cue's columns, or made with ``cue=False``) taken up again: the stem is
    judged again from the cached parities, turned round, and its copies' alignments
    (found on the images as they were turned then) are found again: the labels equal a
    fresh build's."""
    import vision.data.photos as photos

    _write_set_photos(tmp_path / "hk")
    fresh = tmp_path / "fresh"
    prepare_photos(tmp_path / "hk", fresh, val_fraction=0.0)
    old = tmp_path / "old"
    prepare_photos(tmp_path / "hk", old, val_fraction=0.0, cue=False)  # the rule before it
    assert _mirror_column(old, "turned_jpg") == {"a": "0", "b": "1", "c": "0", "d": "1"}
    if old_columns:
        lines = (old / "mirror.csv").read_text().splitlines()
        (old / "mirror.csv").write_text("".join(",".join(r.split(",")[:9]) + "\n"
                                                for r in lines))
    monkeypatch.setattr(photos.ParityMatcher, "parities",
                        lambda *a: pytest.fail("cached parities recomputed"))
    prepare_photos(tmp_path / "hk", old, val_fraction=0.0)
    assert _mirror_column(old, "turned_jpg") == {"a": "1", "b": "0", "c": "1", "d": "0"}
    for key in "abcd":
        np.testing.assert_allclose(_read_out(old, f"turned_jpg.rf.{key}"),
                                   _read_out(fresh, f"turned_jpg.rf.{key}"), atol=1e-6)


def _filled(corners: int, size: int = 64) -> Image:
    """A textured image with ``corners`` of its corners filled black (the export's fill)."""
    image = np.random.default_rng(1).integers(60, 255, (size, size, 3), dtype=np.uint8)
    for ys, xs in [(slice(0, 8), slice(0, 8)), (slice(0, 8), slice(-8, None)),
                   (slice(-8, None), slice(0, 8)), (slice(-8, None), slice(-8, None))][:corners]:
        image[ys, xs] = 0
    return image


@pytest.mark.parametrize(
    ("corners", "margins", "mirrored", "ambiguous", "judged_by"),
    [
        # no fill: the tightest copy is the original as taken; the cue is not asked
        (0, None, [0, 1, 0], False, "original"),
        # turned and clearly mirrored (copy 0 reads mirrored, copy 1 as taken)
        (4, [-1.5, 1.2, -0.9], [1, 0, 1], False, "cue"),
        # turned and clearly as taken
        (3, [1.5, -1.2, None], [0, 1, 0], False, "cue"),
        # turned, the cue unclear or silent: left out
        (4, [0.4, 0.1, -0.2], [0, 1, 0], True, "cue"),
        (3, [None, None, None], [0, 1, 0], True, "cue"),
        # a dark corner or two: the cue overrules the tightest copy only when clear
        (2, [-1.5, 1.2, -0.9], [1, 0, 1], False, "cue"),
        (1, [0.4, 0.1, -0.2], [0, 1, 0], False, "original"),
    ],
)
def test_the_cue_decides_where_no_copy_is_untouched(
    corners: int, margins: list[float | None] | None, mirrored: list[int], ambiguous: bool,
    judged_by: str,
) -> None:
    from vision.data.photos import judge_stem

    labels = [np.array([[0, 0.5, 0.5, 0.1, 0.1]]), np.array([[0, 0.5, 0.5, 0.2, 0.2]]),
              np.array([[0, 0.5, 0.5, 0.3, 0.3]])]  # copy 0 the tightest
    images = [_filled(corners), _filled(0), _filled(0)]
    parities = [(0, -1, -1), (1, 5, 80), (0, 90, 4)]

    def cue() -> list[float | None]:
        if margins is None:
            pytest.fail("the cue was asked for a photo whose original is kept")
        return margins

    got = judge_stem(["s.rf.0", "s.rf.1", "s.rf.2"], images, labels, parities, cue=cue)
    assert [int(d.mirrored) for d in got] == mirrored
    assert all(d.ambiguous is ambiguous and d.judged_by == judged_by for d in got)
    assert [d.cue for d in got] == (margins or [None] * 3)


def test_a_turned_photo_without_a_cue_is_ambiguous() -> None:
    from vision.data.photos import judge_stem

    labels = [np.array([[0, 0.5, 0.5, 0.1, 0.1]]), np.array([[0, 0.5, 0.5, 0.2, 0.2]])]
    got = judge_stem(["s.rf.0", "s.rf.1"], [_filled(4), _filled(0)], labels,
                     [(0, -1, -1), (1, 5, 80)])
    assert all(d.ambiguous for d in got)


def test_the_cue_reads_handedness_from_other_photos_and_leaves_a_photo_out_of_its_own() -> None:
    cue = HandednessCue((f"s{i}", _table(i)[0]) for i in range(4))
    photo = _table(5)[0]
    turned = cv2.rotate(photo, cv2.ROTATE_90_CLOCKWISE)
    for image in (photo, turned):
        right = cue.margin(image)
        assert right is not None and right > 1.0
        mirrored = cue.margin(cv2.flip(image, 1))
        assert mirrored is not None and mirrored < -1.0
    own, _ = _table(1)
    with_own, without = cue.counts(own), cue.counts(own, exclude="s1")
    assert with_own[0] > 5 * without[0] > 0  # its own photo matched almost every keypoint
    assert HandednessCue([]).margin(photo) is None  # no references: no verdict


def test_the_photos_command_can_leave_the_cue_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    """``tilecam dataset photos --no-cue`` builds as before the cue (for comparison): the
    turned photo keeps its tightest copy's group, recorded as ``tightest``."""
    import json

    from tilecam.cli import main

    _write_set_photos(tmp_path / "hk")
    args = ["dataset", "photos", "--src", str(tmp_path / "hk"), "--val-fraction", "0.2",
            "--quiet", "--out"]
    assert main([*args, str(tmp_path / "plain"), "--no-cue"]) == 0
    assert json.loads(capsys.readouterr().out)["images"] == 16
    assert _mirror_column(tmp_path / "plain", "turned_jpg") == {"a": "0", "b": "1", "c": "0",
                                                                "d": "1"}
    rows = (tmp_path / "plain" / "mirror.csv").read_text().splitlines()
    assert all(r.endswith(",tightest") for r in rows if r.startswith("turned_jpg"))
    assert main([*args, str(tmp_path / "cue")]) == 0
    assert _mirror_column(tmp_path / "cue", "turned_jpg") == {"a": "1", "b": "0", "c": "1",
                                                              "d": "0"}
