"""Rows far off the photo's edges are read again from the photo turned level
(vision.straighten; README "Reading a hand")."""

from __future__ import annotations

import numpy as np
import pytest

from vision.detections import Detections
from vision.layout_geometry import canonical_frame
from vision.straighten import apply_affine, boxes_back, detections_back, straight_region


def test_region_holds_the_tiles_turned_level() -> None:
    img = np.zeros((960, 1280, 3), np.uint8)
    # three tile centres on a line rising 40 degrees to the right (image y grows down)
    t = np.radians(40)
    centres = [(600 + k * 50 * np.cos(t), 500 - k * 50 * np.sin(t)) for k in range(3)]
    boxes = np.array([[x - 20, y - 20, x + 20, y + 20] for x, y in centres], np.float32)
    tilt = canonical_frame(boxes, np.zeros(3, np.int64)).tilt_deg  # as the layout measures
    assert abs(abs(tilt) - 40) < 1
    region, a = straight_region(img, boxes, tilt)
    turned = apply_affine(a, boxes)
    cy = (turned[:, 1] + turned[:, 3]) / 2
    assert np.ptp(cy) < 1.0  # the row is level
    h, w = region.shape[:2]
    assert (turned[:, :2] >= 0).all() and (turned[:, 2] <= w).all() and (turned[:, 3] <= h).all()


def test_boxes_come_back_around_the_originals() -> None:
    img = np.zeros((480, 640, 3), np.uint8)
    boxes = np.array([[300, 200, 330, 240], [340, 200, 370, 240]], np.float32)
    _, a = straight_region(img, boxes, 35.0)
    back = boxes_back(apply_affine(a, boxes), a, (640, 480))
    assert (back[:, :2] <= boxes[:, :2] + 1e-3).all() and (back[:, 2:] >= boxes[:, 2:] - 1e-3).all()
    centres = (back[:, :2] + back[:, 2:]) / 2
    assert np.allclose(centres, (boxes[:, :2] + boxes[:, 2:]) / 2, atol=1e-3)


def test_detections_back_keeps_everything_but_the_boxes() -> None:
    img = np.zeros((480, 640, 3), np.uint8)
    d = Detections.from_lists([[300, 200, 330, 240], [340, 200, 370, 240]], ["1m", "2m"])
    region, a = straight_region(img, d.boxes, 30.0)
    found = Detections.from_lists(apply_affine(a, d.boxes).tolist(), ["1m", "2m"],
                                  image_size=(region.shape[1], region.shape[0]))
    back = detections_back(found, a, (640, 480))
    assert back.codes == ["1m", "2m"] and back.image_size == (640, 480)
    assert (back.boxes[:, 2:] <= np.array([640, 480])).all()


@pytest.mark.parametrize("tilt", [0.0, 44.0, -44.0])
def test_no_boxes_gives_the_whole_turned_photo(tilt: float) -> None:
    img = np.zeros((100, 200, 3), np.uint8)
    region, a = straight_region(img, np.zeros((0, 4), np.float32), tilt)
    assert region.shape[0] >= 100 * 0.7 and region.shape[2] == 3 and a.shape == (2, 3)


def test_a_turned_region_is_never_larger_than_the_size_limit() -> None:
    """A photo near the size limit turned with its tiles spread to the corners: the
    turned canvas was 1.2× the photo's pixels, and ``recognize`` refused a 36 MP photo
    as "image array is too large: 6703×6459" (a canvas the user never gave). The region
    is shrunk to the limit (``max_pixels``; default the photo limit), its boxes still
    map back, and a region under the limit is left as it is."""
    img = np.zeros((600, 600, 3), np.uint8)
    boxes = np.array([[0, 0, 40, 60], [560, 540, 600, 600], [0, 540, 40, 600]], np.float32)
    region, a = straight_region(img, boxes, 30.0, max_pixels=600 * 600)
    assert region.shape[0] * region.shape[1] <= 600 * 600
    back = boxes_back(apply_affine(a, boxes), a, (600, 600))
    assert np.all(back[:, :2] <= boxes[:, :2] + 1) and np.all(back[:, 2:] >= boxes[:, 2:] - 1)
    whole, _ = straight_region(img, boxes, 30.0)  # under the 40 MP limit: not shrunk
    assert whole.shape[0] * whole.shape[1] > 600 * 600
