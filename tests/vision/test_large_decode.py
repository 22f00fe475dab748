"""A large photo is read from its picture reduced (vision.imageio.load_for_reading: a JPEG
decoded reduced, other inputs halved) when its tiles are big enough there, from the photo
itself when they are small, and every box comes back in the photo's pixels — EXIF
orientation applied (vision.recognize.recognize)."""

from __future__ import annotations

import dataclasses
import struct

import cv2
import numpy as np
import pytest

import scoring
from vision.detections import Detections
from vision.imageio import READ_MIN_LONG_SIDE, ImageError, halved, load_for_reading, load_image
from vision.layout_scene import SceneBuilder
from vision.preprocess import letterbox
from vision.recognize import recognize
from vision.straighten import apply_affine, boxes_back, from_reduced, straight_region
from vision.zoom import FINE_TILE_PX, big_enough

HAND = ["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "E", "E", "E", "N", "N"]


def _with_exif_orientation(jpeg: bytes, orientation: int) -> bytes:
    """Insert an APP1 Exif segment holding only the Orientation tag (0x0112)."""
    ifd = struct.pack(">H", 1) + struct.pack(">HHIHH", 0x0112, 3, 1, orientation, 0)
    tiff = b"MM\x00*" + struct.pack(">I", 8) + ifd + struct.pack(">I", 0)
    payload = b"Exif\x00\x00" + tiff
    return jpeg[:2] + b"\xff\xe1" + struct.pack(">H", len(payload) + 2) + payload + jpeg[2:]


def _red_blobs(image: np.ndarray) -> np.ndarray:
    """Boxes ``(n, 4)`` xyxy (pixel edges) of the red patches of ``image``, left to right
    then top to bottom."""
    mask = ((image[..., 2] > 150) & (image[..., 1] < 100) & (image[..., 0] < 100))
    n, _, stats, _ = cv2.connectedComponentsWithStats(mask.astype(np.uint8))
    boxes = [(x, y, x + w, y + h) for x, y, w, h, area in stats[1:n] if area >= 16]
    return np.array(sorted(boxes), np.float32).reshape(-1, 4)


class RedTiles:
    """A detector that finds the red patches of the picture it is given (boxes in its
    pixels, ``image_size`` its size) and reads them as :data:`HAND` left to right; it
    keeps the size of each picture it was given."""

    def __init__(self) -> None:
        self.seen: list[tuple[int, int]] = []

    def __call__(self, image: np.ndarray) -> Detections:
        self.seen.append((int(image.shape[1]), int(image.shape[0])))
        boxes = _red_blobs(image)
        codes = [HAND[i % len(HAND)] for i in range(len(boxes))]
        return Detections.from_lists(boxes.tolist(), codes,
                                     image_size=(int(image.shape[1]), int(image.shape[0])))


def _row_photo(width: int, height: int, tile: tuple[int, int], count: int = 14) -> np.ndarray:
    """A grey ``width × height`` photo with a row of ``count`` red tiles ``tile`` = (w, h)
    px across its middle."""
    img = np.full((height, width, 3), 128, np.uint8)
    tw, th = tile
    x0, y0 = (width - count * (tw + tw // 8)) // 2, (height - th) // 2
    for i in range(count):
        x = x0 + i * (tw + tw // 8)
        img[y0 : y0 + th, x : x + tw] = (30, 30, 220)
    return img


def _jpeg(img: np.ndarray) -> bytes:
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 95])
    assert ok
    return buf.tobytes()


# ------------------------------------------------------------------ halved
def test_only_a_photo_of_twice_the_reading_side_is_halved() -> None:
    """READ_MIN_LONG_SIDE: a 4032 × 3024 photo is read at 2016 × 1512, an 8000 px one at
    2000 (halved twice); 1280 × 960 and 3839 px photos as they are (the same array)."""
    for shape in ((960, 1280, 3), (2000, 3839, 3), (1, 8000, 3)):
        img = np.zeros(shape, np.uint8)
        assert halved(img) is img
    assert halved(np.zeros((3024, 4032, 3), np.uint8)).shape == (1512, 2016, 3)
    assert halved(np.zeros((4032, 3024, 3), np.uint8)).shape == (2016, 1512, 3)
    assert halved(np.zeros((2 * READ_MIN_LONG_SIDE, 10, 3), np.uint8)).shape == (
        READ_MIN_LONG_SIDE, 5, 3)
    assert halved(np.zeros((5000, 8000, 3), np.uint8)).shape == (1250, 2000, 3)


@pytest.mark.parametrize("size", [(512, 384), (384, 288), (640, 480)])
def test_the_detector_input_from_the_halved_picture_is_the_photos(size: tuple[int, int]) -> None:
    """halved takes the steps vision.preprocess.shrink takes first: the detector's input
    made from the halved picture is the one made from the photo, pixel for pixel (an odd
    side too)."""
    rng = np.random.default_rng(3)
    for w, h in ((4032, 3024), (4031, 3023)):
        photo = rng.integers(0, 256, (h, w, 3), np.uint8)
        a, lb_a = letterbox(photo, size)
        b, _ = letterbox(halved(photo), size)
        assert np.array_equal(a, b)
        assert lb_a.size == size


def test_big_enough_asks_for_three_tiles_of_the_fine_size_in_the_reduced_picture() -> None:
    side = 2 * FINE_TILE_PX
    b = np.array([[0, 0, side, side * 1.3], [side, 0, 2 * side, side * 1.3],
                  [2 * side, 0, 3 * side, side * 1.3]], np.float32)
    assert big_enough(b, 2.0)
    assert not big_enough(b, 2.01)
    assert not big_enough(b[:2], 1.0)
    assert not big_enough(np.zeros((0, 4), np.float32), 1.0)


# ------------------------------------------------------------------ recognize
def test_a_small_photo_is_read_as_it_is() -> None:
    det = RedTiles()
    recognize(_row_photo(1280, 960, (60, 80)), "mcr", detector=det)
    assert det.seen == [(1280, 960)]


def test_a_large_photo_of_big_tiles_is_read_once_from_its_halved_picture() -> None:
    """Tiles 200 × 260 px in a 4032 × 3024 photo (100 × 130 in its halved picture, over
    FINE_TILE_PX): one detection, of the halved picture; the boxes come back in the
    photo's pixels."""
    photo = _row_photo(4032, 3024, (200, 260))
    det = RedTiles()
    r = recognize(photo, "mcr", detector=det)
    assert det.seen == [(2016, 1512)]
    assert r.detections.image_size == (4032, 3024)
    truth = _red_blobs(photo)
    assert len(r.detections) == len(truth) == 14
    assert np.abs(np.sort(r.detections.boxes, axis=0) - np.sort(truth, axis=0)).max() <= 2.0
    assert max(t["box"][2] for t in r.tiles()) > 3000  # photo pixels, not the picture's


def test_a_large_photo_of_small_tiles_is_read_from_the_photo_itself() -> None:
    """Tiles 80 × 104 px in a 4032 × 3024 photo are 40 px across in its halved picture,
    under FINE_TILE_PX: the photo itself is detected again and that reading is kept."""
    assert 40 < FINE_TILE_PX <= 100
    photo = _row_photo(4032, 3024, (80, 104))
    det = RedTiles()
    r = recognize(photo, "mcr", detector=det)
    assert det.seen == [(2016, 1512), (4032, 3024)]
    assert np.array_equal(np.sort(r.detections.boxes, axis=0),
                          np.sort(_red_blobs(photo), axis=0))


def test_a_photo_with_no_tile_found_in_its_halved_picture_is_read_whole() -> None:
    det = RedTiles()
    r = recognize(np.full((3024, 4032, 3), 128, np.uint8), "mcr", detector=det)
    assert det.seen == [(2016, 1512), (4032, 3024)]
    assert len(r.detections) == 0 and r.detections.image_size == (4032, 3024)


@pytest.mark.parametrize("orientation", [6, 8, 3])
def test_an_exif_turned_large_jpeg_gives_boxes_in_the_photo_as_shown(orientation: int) -> None:
    """A 4032 × 3024 JPEG whose EXIF orientation turns it (6, 8: a quarter turn to
    3024 × 4032; 3: a half turn): the halved picture is the photo as shown, halved, and
    the boxes are the tiles' in the photo as shown (load_image's pixels)."""
    stored = np.full((3024, 4032, 3), 128, np.uint8)
    for i in range(14):  # a column of tiles lying sideways in the stored pixels
        y = 100 + i * 205
        stored[y : y + 190, 1800 : 2060] = (30, 30, 220)
    data = _with_exif_orientation(_jpeg(stored), orientation)
    shown = load_image(data)
    quarter = orientation in (6, 8)
    assert shown.shape[:2] == ((4032, 3024) if quarter else (3024, 4032))
    det = RedTiles()
    r = recognize(data, "mcr", detector=det)
    h, w = shown.shape[:2]
    assert det.seen == [(w // 2, h // 2)]
    assert r.detections.image_size == (w, h)
    truth = _red_blobs(shown)
    assert len(truth) == len(r.detections) == 14
    got = np.array(sorted(map(tuple, r.detections.boxes.tolist())), np.float32)
    assert np.abs(got - truth).max() <= 2.0
    assert [t["box"] for t in r.tiles()] == [[round(float(v), 1) for v in b]
                                             for b in r.detections.boxes]


def test_a_tilted_large_photo_is_turned_level_from_its_halved_picture() -> None:
    """The level re-read (vision.straighten) of a large photo read from its halved
    picture cuts its region from that picture — about half the side of the region cut
    from the photo (1377 × 4062 at 40°) — and still gives the boxes back in the photo's pixels."""
    if "mcr" not in scoring.rule_sets():
        pytest.skip("the MCR rule set is not in scoring yet")
    scene = SceneBuilder().standing("123m456p789sN").meld("EEE", sideways=1).win("N")
    tilted = scene.detections(tilt_deg=40.0, scale=5.0, origin=(1000.0, 1000.0))
    tilted = tilted.select([i for i in range(len(tilted)) if i != 4])  # the 5p missed
    size = (4032, 3024)
    assert tilted.boxes[:, 2:].max(axis=0).tolist() < list(size)
    tilted = dataclasses.replace(tilted, image_size=size)  # boxes in the photo's pixels
    level = scene.detections()
    photo = np.zeros((size[1], size[0], 3), np.uint8)
    seen: list[tuple[int, ...]] = []

    def stand_in(image: np.ndarray) -> Detections:
        seen.append(image.shape)
        return tilted if len(seen) == 1 else level

    r = recognize(photo, "zhenjiang", {"indicator": "C"}, detector=stand_in)
    assert seen[0] == (1512, 2016, 3)
    whole, _ = straight_region(photo, tilted.boxes, 40.0)  # the layout measures about 40°
    assert seen[1][0] <= 0.55 * whole.shape[0] and seen[1][1] <= 0.55 * whole.shape[1]
    assert r.hand_text == "[EEE,2]123m456p789sNN"
    assert any("turned level" in n for n in r.notes)
    assert r.detections.image_size == size
    assert (r.detections.boxes >= 0).all()
    assert (r.detections.boxes[:, [0, 2]] <= size[0]).all()
    assert (r.detections.boxes[:, [1, 3]] <= size[1]).all()


def test_a_region_cut_from_the_halved_picture_maps_from_the_photos_pixels() -> None:
    """from_reduced: the map of a region cut from the halved picture, taken from the
    photo's own pixels, puts the photo's boxes where the halved picture's boxes go, and
    boxes_back brings them back to the photo's pixels."""
    photo = np.zeros((3024, 4032, 3), np.uint8)
    boxes = np.array([[1200, 800, 1400, 1060], [1400, 900, 1600, 1160]], np.float32)
    region, a = straight_region(halved(photo), boxes / 2, 30.0)
    whole = from_reduced(a, (2.0, 2.0))
    assert np.allclose(apply_affine(whole, boxes), apply_affine(a, boxes / 2), atol=1e-3)
    back = boxes_back(apply_affine(whole, boxes), whole, (4032, 3024))
    assert (back[:, :2] <= boxes[:, :2] + 1).all() and (back[:, 2:] >= boxes[:, 2:] - 1).all()
    assert region.shape[0] < 3024 and region.shape[1] < 4032


def test_given_detections_of_a_large_photo_are_kept_as_given() -> None:
    """detections= (the caller's detection of the photo) are never scaled."""
    photo = _row_photo(4032, 3024, (200, 260))
    given = RedTiles()(photo)
    det = RedTiles()
    r = recognize(photo, "mcr", detector=det, detections=given)
    assert det.seen == []
    assert np.array_equal(r.detections.boxes, given.boxes)


# ------------------------------------------------------------------ load_for_reading
def _noisy(width: int, height: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    small = rng.integers(0, 256, (height // 16 + 1, width // 16 + 1, 3), np.uint8)
    return cv2.resize(small, (width, height), interpolation=cv2.INTER_LINEAR)


def test_a_large_jpeg_is_decoded_reduced_and_whole_only_when_asked() -> None:
    img = _noisy(4032, 3024)
    data = _jpeg(img)
    photo = load_for_reading(data)
    assert photo.reduced and photo.size == (4032, 3024)
    assert photo.picture.shape == (1512, 2016, 3)
    reduced = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_REDUCED_COLOR_2)
    assert reduced is not None and np.array_equal(photo.picture, reduced)
    assert photo._pixels is None  # not decoded whole yet
    assert np.array_equal(photo.pixels, load_image(data))


@pytest.mark.parametrize("orientation", [6, 8])
def test_a_turned_large_jpeg_has_its_size_as_shown(orientation: int) -> None:
    data = _with_exif_orientation(_jpeg(_noisy(4032, 3024)), orientation)
    photo = load_for_reading(data)
    assert photo.size == (3024, 4032) and photo.picture.shape == (2016, 1512, 3)
    assert photo.pixels.shape == load_image(data).shape == (4032, 3024, 3)


def test_arrays_pngs_and_small_jpegs_are_halved_or_kept_as_they_are() -> None:
    img = _noisy(4032, 3024, 1)
    ok, png = cv2.imencode(".png", img)
    assert ok
    for src in (img, png.tobytes()):
        photo = load_for_reading(src)
        assert photo.size == (4032, 3024)
        assert np.array_equal(photo.pixels, img)
        assert np.array_equal(photo.picture, halved(img))
    small = _jpeg(_noisy(1280, 960))
    photo = load_for_reading(small)
    assert not photo.reduced and photo.picture is photo.pixels
    assert np.array_equal(photo.picture, load_image(small))


def test_a_jpeg_whose_reduced_sides_would_not_tell_its_orientation_is_decoded_whole() -> None:
    """3842 × 3841 halves to 1921 × 1921 (libjpeg rounds up): whether EXIF turned it
    could not be read from the reduced picture, so the JPEG is decoded whole and halved."""
    data = _with_exif_orientation(_jpeg(_noisy(3842, 3841, 2)), 6)
    photo = load_for_reading(data)
    shown = load_image(data)
    assert photo.size == (3841, 3842)
    assert np.array_equal(photo.pixels, shown)
    assert np.array_equal(photo.picture, halved(shown))


def test_a_cut_jpeg_is_refused_by_the_reduced_decode_too() -> None:
    data = _jpeg(_noisy(4032, 3024, 3))
    with pytest.raises(ImageError, match="truncated"):
        load_for_reading(data[: len(data) // 2])


def test_reading_a_large_jpeg_of_big_tiles_never_decodes_it_whole(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import vision.imageio as imageio

    data = _jpeg(_row_photo(4032, 3024, (200, 260)))
    imageio._dry_source_fails()  # its own small decodes, once
    decoded: list[tuple[int, ...]] = []
    real = imageio._imdecode

    def counting(buf: bytes | np.ndarray, flag: int) -> np.ndarray | None:
        out = real(buf, flag)
        if out is not None:
            decoded.append(out.shape)
        return out

    monkeypatch.setattr(imageio, "_imdecode", counting)
    det = RedTiles()
    r = recognize(data, "mcr", detector=det)
    assert det.seen == [(2016, 1512)]
    assert decoded and all(shape[:2] == (1512, 2016) for shape in decoded)
    assert r.detections.image_size == (4032, 3024)
    small = _jpeg(_row_photo(4032, 3024, (80, 104)))  # small tiles: decoded whole then
    decoded.clear()
    recognize(small, "mcr", detector=RedTiles())
    assert (3024, 4032, 3) in decoded
