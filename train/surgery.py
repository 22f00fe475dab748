"""Head surgery: mahjong-detector's 34-class YOLO11n → a 43-class YOLO11n for tilecam.

Builds ``yolo11n.yaml`` with nc=43, copies every weight whose shape matches (backbone,
neck, box branch cv2), and in each Detect classification branch (``cv3[i][2]``, a 1x1
conv with one output row per class) copies the learned rows of the 34 known kinds from
their old index to their tilecam index (:data:`vision.classes.CLASSES`). The 8 bonus
tiles and ``back`` keep ultralytics' fresh initialisation.

usage: .venv-train/bin/python train/surgery.py SRC.pt OUT.pt
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ultralytics import YOLO

from vision.classes import CLASSES, class_id
from vision.data.photos import ALIAS_CODES


def main(src: str, out: str) -> None:
    old = YOLO(src)
    old_names = old.names
    new = YOLO("yolo11n.yaml")
    new.model.yaml["nc"] = len(CLASSES)
    from ultralytics.nn.tasks import DetectionModel

    model = DetectionModel("yolo11n.yaml", nc=len(CLASSES), verbose=False)
    old_sd = old.model.float().state_dict()
    new_sd = model.state_dict()
    mapping = {}  # new row -> old row
    for i, name in old_names.items():
        code = ALIAS_CODES.get(name, name)
        mapping[class_id(code)] = int(i)
    copied = rows = 0
    for key, value in new_sd.items():
        if key not in old_sd:
            continue
        ov = old_sd[key]
        if ov.shape == value.shape:
            new_sd[key] = ov.clone()
            copied += 1
        elif ".cv3." in key and ov.shape[0] == len(old_names) and value.shape[0] == len(CLASSES):
            fresh = value.clone()
            for new_row, old_row in mapping.items():
                fresh[new_row] = ov[old_row]
                rows += 1
            new_sd[key] = fresh
            print(f"class rows copied in {key}: {len(mapping)} of {len(CLASSES)}")
    model.load_state_dict(new_sd)
    model.names = dict(enumerate(CLASSES))
    new.model = model
    new.ckpt = {"model": model, "train_args": {}}
    new.save(out)
    print(f"tensors copied: {copied}, class rows: {rows}; saved {out}")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
