"""Sort a dataset split's unmatched detections by how they disagree with the labels, and
draw contact sheets of them for review by eye.

``tilecam eval`` counts every detection without a label at IoU ≥ 0.5 as a false
positive and every unmatched label as a miss. On the hk photos many of those are not
model errors: Roboflow's rotated copies carry loose axis-aligned labels (a detection
overlaps its label at IoU 0.2–0.5), and some photos leave tiles unlabelled (fanned
flowers, tiles at the back of the table). This tool splits the unmatched detections into

* ``loose``: IoU 0.2–0.5 with a label no detection matched (label geometry);
* ``duplicate``: IoU ≥ 0.5 with a label another detection took;
* ``inside``: more than half of the box inside a label;
* ``no label``: none of these — a tile the labels leave out, or a real false positive;

and the unmatched labels into ``loose`` (a detection at IoU 0.2–0.5) and ``missed``.
``--sheet OUT.png`` draws the ``no label`` detections (``--missed-sheet`` the missed
labels, ``--misread-sheet`` the detections matched to a label of another code, marked
``label>read``), 96 px each with the code read, for counting by eye; the figures in
``models/README.md`` ("Label audit") come from these sheets.

usage: .venv/bin/python train/audit_labels.py DATASET_DIR [--split val]
           [--copies all|originals] [--model-dir models] [--sheet OUT.png]
           [--missed-sheet OUT.png] [--misread-sheet OUT.png]
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from vision.classes import CLASSES  # noqa: E402
from vision.detect import load_detector  # noqa: E402
from vision.evaluate import load_dataset, match, original_copies  # noqa: E402
from vision.postprocess import iou_matrix  # noqa: E402

TILE = 96  # contact-sheet cell, px
PER_ROW = 12


def _cover(a: npt.NDArray[np.float32], b: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """Share of each box of ``a`` ``(n, 4)`` inside each box of ``b`` ``(m, 4)``: ``(n, m)``."""
    x1 = np.maximum(a[:, None, 0], b[None, :, 0])
    y1 = np.maximum(a[:, None, 1], b[None, :, 1])
    x2 = np.minimum(a[:, None, 2], b[None, :, 2])
    y2 = np.minimum(a[:, None, 3], b[None, :, 3])
    inter = np.clip(x2 - x1, 0, None) * np.clip(y2 - y1, 0, None)
    area = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    return inter / np.maximum(area[:, None], 1e-6)


def sort_unmatched(
    labels: npt.NDArray[np.float32],
    boxes: npt.NDArray[np.float32],
    scores: npt.NDArray[np.float32],
) -> tuple[dict[int, str], dict[int, str]]:
    """How each unmatched detection and each unmatched label disagree, at IoU 0.5.

    ``labels`` ``(m, 4)`` and ``boxes`` ``(n, 4)`` xyxy pixels, ``scores`` ``(n,)``. Returns
    ``{detection index: kind}`` (``duplicate``, ``loose``, ``inside`` or ``no label``, see
    the module doc) and ``{label index: kind}`` (``loose`` or ``missed``).

    >>> lab = np.array([[0, 0, 10, 10], [20, 0, 30, 10]], np.float32)
    >>> det = np.array([[0, 0, 10, 10], [22, 0, 34, 12], [50, 0, 60, 10]], np.float32)
    >>> sort_unmatched(lab, det, np.array([0.9, 0.8, 0.7], np.float32))
    ({1: 'loose', 2: 'no label'}, {1: 'loose'})
    """
    m = match(labels, boxes, scores, 0.5)
    taken = {int(g) for g in m if g >= 0}
    det_kinds: dict[int, str] = {}
    label_kinds: dict[int, str] = {}
    iou = iou_matrix(boxes, labels) if len(labels) and len(boxes) else None
    cover = _cover(boxes, labels) if iou is not None else None
    for i in (int(i) for i in np.flatnonzero(m < 0)):
        if iou is None or cover is None:
            det_kinds[i] = "no label"
            continue
        best = int(iou[i].argmax())
        if iou[i, best] >= 0.5:
            det_kinds[i] = "duplicate"
        elif iou[i, best] >= 0.2 and best not in taken:
            det_kinds[i] = "loose"
        elif cover[i].max() > 0.5:
            det_kinds[i] = "inside"
        else:
            det_kinds[i] = "no label"
    for g in (g for g in range(len(labels)) if g not in taken):
        near = iou is not None and bool((iou[:, g] >= 0.2).any())
        label_kinds[g] = "loose" if near else "missed"
    return det_kinds, label_kinds


def misreads(
    matched: npt.NDArray[np.int64],
    label_ids: npt.NDArray[np.int64],
    det_ids: npt.NDArray[np.int64],
) -> list[tuple[int, str, str]]:
    """Detections matched to a label of another code: ``(detection index, label code,
    code read)``. ``matched`` ``(n,)`` is :func:`vision.evaluate.match`'s output (label
    index or -1 per detection); ``label_ids`` ``(m,)`` and ``det_ids`` ``(n,)`` are class
    ids of :data:`vision.classes.CLASSES`.

    >>> misreads(np.array([1, -1, 0]), np.array([4, 3]), np.array([4, 7, 3]))
    [(0, '4m', '5m'), (2, '5m', '4m')]
    """
    out = []
    for i, g in enumerate(matched.tolist()):
        if g >= 0 and int(label_ids[g]) != int(det_ids[i]):
            out.append((i, CLASSES[int(label_ids[g])], CLASSES[int(det_ids[i])]))
    return out


def _cell(image: npt.NDArray[np.uint8], box: npt.NDArray[np.float32], text: str) -> np.ndarray:
    h, w = image.shape[:2]
    x1, y1, x2, y2 = (int(v) for v in box)
    pad = max(4, (x2 - x1) // 6)
    crop = image[max(0, y1 - pad) : min(h, y2 + pad), max(0, x1 - pad) : min(w, x2 + pad)]
    cell = cv2.resize(crop, (TILE, TILE)) if crop.size else np.zeros((TILE, TILE, 3), np.uint8)
    cv2.putText(cell, text, (2, 12), cv2.FONT_HERSHEY_SIMPLEX, 0.4, (0, 0, 255), 1)
    return cell


def _sheet(cells: list[np.ndarray], path: Path) -> None:
    if not cells:
        print(f"{path}: nothing to draw")
        return
    blank = np.zeros((TILE, TILE, 3), np.uint8)
    rows = [cells[i : i + PER_ROW] for i in range(0, len(cells), PER_ROW)]
    grid = np.vstack([np.hstack(r + [blank] * (PER_ROW - len(r))) for r in rows])
    cv2.imwrite(str(path), grid)
    print(f"{path}: {len(cells)} cells, {PER_ROW} a row, in dataset order")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dataset", type=Path)
    ap.add_argument("--split", default="val")
    ap.add_argument("--copies", choices=("all", "originals"), default="all")
    ap.add_argument("--model-dir", default=None)
    ap.add_argument("--sheet", type=Path, help="contact sheet of the 'no label' detections")
    ap.add_argument("--missed-sheet", type=Path, help="contact sheet of the missed labels")
    ap.add_argument(
        "--misread-sheet", type=Path, help="contact sheet of the boxes matched to another code"
    )
    args = ap.parse_args()

    samples = load_dataset(args.dataset, args.split)
    if args.copies == "originals":
        samples = original_copies(samples)
    detector = load_detector(args.model_dir)
    det_kinds: Counter[str] = Counter()
    gt_kinds: Counter[str] = Counter()
    no_label: list[np.ndarray] = []
    missed: list[np.ndarray] = []
    misread: list[np.ndarray] = []
    confusions: Counter[tuple[str, str]] = Counter()
    n_labels = n_dets = 0
    for sample in samples:
        image = cv2.imread(str(sample.image))
        if image is None:
            continue
        gt = np.asarray(sample.boxes(image.shape[1], image.shape[0]), np.float32).reshape(-1, 4)
        det = detector(image)
        n_labels += len(gt)
        n_dets += len(det.boxes)
        by_box, by_label = sort_unmatched(gt, det.boxes, det.confidences)
        matched = match(gt, det.boxes, det.confidences, 0.5)
        for i, true, read in misreads(matched, sample.class_ids, det.class_ids):
            confusions[true, read] += 1
            misread.append(_cell(image, det.boxes[i], f"{true}>{read} {det.confidences[i]:.2f}"))
        for i, kind in by_box.items():
            det_kinds[kind] += 1
            if kind == "no label":
                code = CLASSES[int(det.class_ids[i])]
                no_label.append(_cell(image, det.boxes[i], f"{code} {det.confidences[i]:.2f}"))
        for g, kind in by_label.items():
            gt_kinds[kind] += 1
            if kind == "missed":
                missed.append(_cell(image, gt[g], CLASSES[int(sample.class_ids[g])]))
    print(f"{len(samples)} images, {n_labels} labels, {n_dets} detections")
    print(f"unmatched detections at IoU 0.5: {sum(det_kinds.values())} {dict(det_kinds)}")
    print(f"unmatched labels at IoU 0.5: {sum(gt_kinds.values())} {dict(gt_kinds)}")
    pairs = ", ".join(f"{t}>{r} {n}" for (t, r), n in confusions.most_common(12))
    print(f"misread boxes (matched, another code): {sum(confusions.values())}; {pairs}")
    if args.sheet:
        _sheet(no_label, args.sheet)
    if args.missed_sheet:
        _sheet(missed, args.missed_sheet)
    if args.misread_sheet:
        _sheet(misread, args.misread_sheet)


if __name__ == "__main__":
    main()
