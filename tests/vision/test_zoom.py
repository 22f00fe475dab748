"""Where the second detector pass looks (vision.zoom): plain box geometry."""

from __future__ import annotations

import numpy as np

from vision.zoom import chained_to, grid_cells, touches_inner_edge, zoom_region


def test_every_tile_shorter_than_the_overlap_lies_whole_in_some_grid_cell() -> None:
    rng = np.random.default_rng(7)
    width, height = 1280, 960
    cells = grid_cells((width, height), 2)
    side = 0.125 * min(width, height) - 1  # shorter than the overlap on both axes
    for _ in range(500):
        x, y = rng.uniform(0, width - side), rng.uniform(0, height - side)
        box = (x, y, x + side, y + side)
        assert any(c[0] <= box[0] and c[1] <= box[1] and box[2] <= c[2] and box[3] <= c[3]
                   for c in cells)


def test_grid_cells_cover_the_frame_and_stay_inside_it() -> None:
    for n in (2, 3):
        cells = grid_cells((1000, 700), n)
        assert len(cells) == n * n
        assert min(c[0] for c in cells) == 0 and min(c[1] for c in cells) == 0
        assert max(c[2] for c in cells) == 1000 and max(c[3] for c in cells) == 700


def test_a_tile_cut_by_a_cell_side_inside_the_frame_is_dropped_but_not_at_the_frame_edge() -> None:
    cell = (0, 0, 720, 540)  # top-left cell: its left and top sides are the frame's
    boxes = np.array([[0, 100, 40, 150],      # at the frame's left edge: whole
                      [690, 100, 719, 150],   # at the cell's right side, inside the frame
                      [300, 520, 340, 539]],  # at the cell's bottom side
                     np.float32)
    assert touches_inner_edge(boxes, cell, (1280, 960)).tolist() == [False, True, True]


def test_zoom_region_needs_three_small_tiles_and_stays_in_the_frame() -> None:
    row = np.array([[2, 2, 22, 32], [22, 2, 42, 32], [42, 2, 62, 32]], np.float32)
    assert zoom_region(row[:2], (1280, 960), 0.4, below=24) is None  # two tiles: no region
    x1, y1, x2, y2 = zoom_region(row, (1280, 960), 0.4, below=24) or (0, 0, 0, 0)
    assert (x1, y1) == (0, 0)  # grown past the frame's corner, clipped
    assert x2 == 62 + 45 and y2 == 32 + 45  # 1.5 median tile lengths (30 px) past the row
    assert zoom_region(row, (1280, 960), 0.4, below=0) is None  # disabled


def test_a_row_chains_along_but_a_far_tile_does_not_join() -> None:
    seeds = np.array([[0, 0, 10, 14]], np.float32)
    row = np.array([[12 * k, 0, 12 * k + 10, 14] for k in range(1, 8)], np.float32)
    far = np.array([[400, 0, 410, 14]], np.float32)
    got = chained_to(seeds, np.concatenate([far, row]), reach=3.0)
    assert len(got) == 8 and 400 not in got[:, 0]


def test_grid_cells_of_a_one_pixel_strip_are_not_empty() -> None:
    """A 1 px tall (or wide) frame still gives cells of at least 1 px on each side."""
    for size in ((4000, 1), (1, 4000), (1, 1), (3, 2)):
        for n in (2, 3):
            cells = grid_cells(size, n)
            assert len(cells) == n * n
            for x1, y1, x2, y2 in cells:
                assert 0 <= x1 < x2 <= size[0] and 0 <= y1 < y2 <= size[1]


def test_a_strip_is_cut_along_its_length_into_distinct_cells_that_cover_it() -> None:
    """grid_shape: frames up to 2:1 keep the n × n grid; a longer strip gets cells about
    4:3 along it, at most 16, each given once (a 1 px strip's two rows are one), and
    they still cover it."""
    from vision.zoom import grid_shape

    assert grid_shape((1920, 1080), 2) == (2, 2) and grid_shape((1000, 2000), 2) == (2, 2)
    for size in ((8000, 1000), (1000, 8000), (4000, 1), (3000, 1000)):
        shape = grid_shape(size, 2)
        cells = grid_cells(size, 2, shape=shape)
        assert 2 < len(cells) <= 16 and len(set(cells)) == len(cells)
        assert min(c[0] for c in cells) == 0 and max(c[2] for c in cells) == size[0]
        assert min(c[1] for c in cells) == 0 and max(c[3] for c in cells) == size[1]
        if min(size) > 100:  # no cell much longer than the 16-cell cap makes it (8:1: 2.2)
            assert all(max(x2 - x1, y2 - y1) <= 2.5 * min(x2 - x1, y2 - y1)
                       for x1, y1, x2, y2 in cells)
