"""``tilecam detect`` and ``tilecam eval`` end to end with a stand-in model backend."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

import vision.detect as detect_module
from tilecam.cli import main
from tilecam.commands.detect import annotate_path

# 320×240 image → 640 input: scale 2, 80 px of padding on top.
ROWS = [
    [115, 200, 30, 40, 0.90, 0.05, 0.0],  # 1m at original (50, 50, 65, 70)
    [300, 200, 40, 30, 0.00, 0.10, 0.8],  # face-down tile lying sideways
    [50, 200, 30, 40, 0.10, 0.70, 0.0],  # 2m, leftmost
]


class FakeBackend:
    name = "fake"
    input_shape: tuple[int | None, ...] = (1, 3, 640, 640)

    def run(self, batch: np.ndarray) -> np.ndarray:
        return np.asarray(ROWS, np.float32).T[None]


@pytest.fixture
def model_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    d = tmp_path / "model"
    d.mkdir()
    (d / "det.onnx").write_bytes(b"stand-in")
    # the stand-in answers the same whatever it is shown, so it cannot take a zoom pass
    detector = {"file": "det.onnx", "imgsz": 640, "names": ["1m", "2m", "back"], "input": "rgb"}
    manifest = {"name": "fake", "detector": {**detector, "zoom": {"below_px": 0}}}
    (d / "manifest.json").write_text(json.dumps(manifest))
    monkeypatch.setattr(detect_module, "open_backend", lambda path, threads=None: FakeBackend())
    return d


@pytest.fixture
def photos(tmp_path: Path) -> list[Path]:
    paths = []
    for name in ("one.jpg", "two.png"):
        p = tmp_path / name
        cv2.imwrite(str(p), np.full((240, 320, 3), 90, np.uint8))
        paths.append(p)
    bad = tmp_path / "broken.jpg"
    bad.write_bytes(b"\xff\xd8\xff\xe0 truncated")
    return [paths[0], bad, paths[1]]


def test_detect_json_lines_in_argument_order(
    model_dir: Path, photos: list[Path], capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["detect", "--json", "--model-dir", str(model_dir), *map(str, photos)])
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert code == 2  # one bad image
    assert [x["image"] for x in lines] == [str(p) for p in photos]
    first = lines[0]
    assert set(first) == {"image", "width", "height", "ms", "model", "tiles"}
    assert (first["width"], first["height"], first["model"]) == (320, 240, "fake")
    assert [t["code"] for t in first["tiles"]] == ["2m", "1m", "back"]  # left to right
    assert set(first["tiles"][0]) == {"code", "box", "confidence", "rotation", "face_down"}
    assert first["tiles"][1]["box"] == [50.0, 50.0, 65.0, 70.0]
    assert first["tiles"][2]["face_down"] is True and first["tiles"][2]["rotation"] == 90
    assert "JPEG" in lines[1]["error"]
    assert lines[2]["tiles"] == first["tiles"]


def test_detect_text_and_annotate(
    model_dir: Path, photos: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "ann.jpg"
    good = [photos[0], photos[2]]
    code = main(["detect", "--model-dir", str(model_dir), "--annotate", str(out), *map(str, good)])
    text = capsys.readouterr().out
    assert code == 0
    assert "3 tiles" in text and "2m 1m back" in text
    for p in (tmp_path / "ann-1.jpg", tmp_path / "ann-2.jpg"):
        img = cv2.imread(str(p))
        assert img.shape == (240, 320, 3) and not (img == 90).all()


def test_detect_bad_options(
    model_dir: Path, photos: list[Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["detect", "--annotate", "/nonexistent/x.jpg", str(photos[0])]) == 2
    assert main(["detect", "--annotate", "x.gif", str(photos[0])]) == 2
    assert main(["detect", "--conf", "3", str(photos[0])]) == 2
    assert main(["detect", "--model-dir", str(photos[0].parent), str(photos[0])]) == 2
    err = capsys.readouterr().err
    assert "does not exist" in err and "end the name in" in err
    assert "manifest.json is missing" in err


def test_annotate_path_single_and_many() -> None:
    assert annotate_path(Path("o.png"), 0, 1) == Path("o.png")
    assert annotate_path(Path("o.png"), 0, 2) == Path("o-1.png")


def _one_photo_dataset(tmp_path: Path, names: list[str], labels: str) -> Path:
    """A YOLO dataset folder with one blank 320×240 val photo labelled ``labels``."""
    ds = tmp_path / "ds"
    (ds / "images" / "val").mkdir(parents=True)
    (ds / "labels" / "val").mkdir(parents=True)
    (ds / "data.yaml").write_text(f"names: {names!r}\n")
    cv2.imwrite(str(ds / "images" / "val" / "x.png"), np.zeros((240, 320, 3), np.uint8))
    (ds / "labels" / "val" / "x.txt").write_text(labels)
    return ds


def test_eval_cli_json(model_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # the fake model's tiles, in normalised cx cy w h
    ds = _one_photo_dataset(
        tmp_path, ["1m", "2m", "back"],
        "0 0.1797 0.25 0.0469 0.0833\n1 0.0781 0.25 0.0469 0.0833\n2 0.4688 0.25 0.0625 0.0625\n",
    )
    assert main(["eval", str(ds), "--json", "--model-dir", str(model_dir)]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["f1"] == 1.0 and rep["images_all_right"] == 1.0 and rep["map50"] == 1.0


@pytest.mark.parametrize(
    "code",
    [
        "import vision.detect as m; import vision; assert callable(vision.detect) and m.Detector",
        "import vision; f = vision.detect; import vision.detect as m; assert m is f and m.Detector",
        "from vision.detect import Detector; from vision import detect; assert callable(detect)",
    ],
)
def test_vision_detect_name_works_in_any_import_order(code: str) -> None:
    subprocess.run([sys.executable, "-c", code], check=True)


class BonusBackend(FakeBackend):
    """A 1m scored 0.9 and a 3f scored 0.35 (320×240 frame, as ``ROWS``)."""

    def run(self, batch: np.ndarray) -> np.ndarray:
        rows = [[115, 200, 30, 40, 0.9, 0.0], [50, 200, 30, 40, 0.0, 0.35]]
        return np.asarray(rows, np.float32).T[None]


@pytest.mark.parametrize("bonus_conf", [None, 0.3])
def test_eval_cli_keeps_flowers_from_the_manifests_bonus_conf(
    bonus_conf: float | None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``tilecam eval`` thresholds each box as the detector does: a box read as a flower
    and scored 0.35 counts as found with ``detector.bonus_conf`` 0.3, not without it."""
    d = tmp_path / "model"
    d.mkdir()
    (d / "det.onnx").write_bytes(b"stand-in")
    detector: dict[str, object] = {"file": "det.onnx", "imgsz": 640, "names": ["1m", "3f"],
                                   "input": "rgb", "conf": 0.4, "zoom": {"below_px": 0}}
    if bonus_conf is not None:
        detector["bonus_conf"] = bonus_conf
    (d / "manifest.json").write_text(json.dumps({"name": "fake", "detector": detector}))
    monkeypatch.setattr(detect_module, "open_backend", lambda path, threads=None: BonusBackend())
    ds = _one_photo_dataset(
        tmp_path, ["1m", "3f"], "0 0.1797 0.25 0.0469 0.0833\n1 0.0781 0.25 0.0469 0.0833\n"
    )
    assert main(["eval", str(ds), "--json", "--model-dir", str(d)]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["recall"] == (1.0 if bonus_conf is not None else 0.5)
    assert rep["precision"] == 1.0


# --------------------------------------------------------------------------- --annotate
# (the audit of session 67: F3, one picture that cannot be written stopped every image
# after it; F8, the photo itself could be written over)


def _three_photos(photos: list[Path]) -> list[Path]:
    third = photos[0].parent / "three.jpg"
    cv2.imwrite(str(third), np.full((240, 320, 3), 90, np.uint8))
    return [photos[0], photos[2], third]


def test_detect_annotate_one_picture_in_the_way_leaves_the_others_going_json(
    model_dir: Path, photos: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: two JSON lines, then one error for OUT-2 and the third image never read."""
    good = _three_photos(photos)
    (tmp_path / "ann-2.jpg").mkdir()  # a folder where image 2's picture goes
    argv = ["detect", "--json", "--model-dir", str(model_dir),
            "--annotate", str(tmp_path / "ann.jpg"), *map(str, good)]
    assert main(argv) == 2
    out, err = capsys.readouterr()
    lines = [json.loads(x) for x in out.splitlines()]
    assert [x["image"] for x in lines] == [str(p) for p in good]  # one line per image
    assert "error" not in lines[0] and "error" not in lines[2]
    assert lines[1]["error"] == (f"annotated image not written: cannot write "
                                 f"{tmp_path / 'ann-2.jpg'}: it is a folder")
    assert lines[1]["tiles"] == lines[0]["tiles"]  # the reading is kept
    assert err == ""
    for n in (1, 3):
        assert cv2.imread(str(tmp_path / f"ann-{n}.jpg")) is not None


def test_detect_annotate_one_picture_in_the_way_leaves_the_others_going_text(
    model_dir: Path, photos: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = _three_photos(photos)
    (tmp_path / "ann-2.jpg").mkdir()
    argv = ["detect", "--model-dir", str(model_dir), "--annotate", str(tmp_path / "ann.jpg"),
            *map(str, good)]
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert [line.split(":")[0] for line in out.splitlines() if not line.startswith(" ")] == [
        str(p) for p in good]
    assert out.count("annotated: ") == 2
    assert err.strip().splitlines() == [
        f"tilecam detect: error: {good[1]}: annotated image not written: cannot write "
        f"{tmp_path / 'ann-2.jpg'}: it is a folder"]


def test_detect_annotate_checks_the_numbered_names_not_the_one_given(
    model_dir: Path, photos: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: a folder named OUT.jpg refused the run, though only OUT-1/OUT-2 are written."""
    (tmp_path / "ann.jpg").mkdir()
    good = [photos[0], photos[2]]
    argv = ["detect", "--model-dir", str(model_dir), "--annotate", str(tmp_path / "ann.jpg"),
            *map(str, good)]
    assert main(argv) == 0, capsys.readouterr().err
    assert all((tmp_path / f"ann-{n}.jpg").is_file() for n in (1, 2))


def test_detect_annotate_names_the_real_cause_and_opencv_stays_quiet(
    model_dir: Path, photos: list[Path], tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """Before: OpenCV's "[ WARN ...] imwrite_(...): can't open file for writing" reached the
    terminal, then "the image could not be encoded there", and the second image was not
    read. Here OUT-1 is a link into a folder that does not exist."""
    (tmp_path / "ann-1.jpg").symlink_to(tmp_path / "gone" / "x.jpg")
    good = [photos[0], photos[2]]
    argv = ["detect", "--model-dir", str(model_dir), "--annotate", str(tmp_path / "ann.jpg"),
            *map(str, good)]
    assert main(argv) == 2
    out, err = capfd.readouterr()
    assert "WARN" not in err and "encoded" not in err
    assert f"cannot write {tmp_path / 'ann-1.jpg'}: no such file or directory" in err
    assert f"{good[1]}: 320×240" in out and (tmp_path / "ann-2.jpg").is_file()


def test_detect_annotate_refuses_a_folder_that_takes_no_file_before_the_work(
    model_dir: Path, photos: list[Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The folder is tried by making a file in it, not by os.access (which grants root
    everything, while /sys still says permission denied): here the making fails."""
    import tempfile

    def refuse(*args: object, **kwargs: object) -> tuple[int, str]:
        raise PermissionError(13, "Permission denied", str(tmp_path / ".tilecam-x.probe"))

    monkeypatch.setattr(tempfile, "mkstemp", refuse)
    loaded: list[object] = []
    monkeypatch.setattr(detect_module, "load_detector", lambda *a, **k: loaded.append(a))
    argv = ["detect", "--annotate", str(tmp_path / "ann.jpg"), str(photos[0]), str(photos[2])]
    assert main(argv) == 2
    assert not loaded  # refused before the model loads
    assert (f"--annotate: cannot write {tmp_path / 'ann-1.jpg'}: no file can be made in folder "
            f"{tmp_path}: permission denied") in capsys.readouterr().err


@pytest.mark.parametrize("how", ["same", "spelled otherwise", "hard link", "numbered"])
def test_detect_annotate_refuses_to_write_over_an_input_photo(
    how: str, model_dir: Path, photos: list[Path], tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    """Before: ``detect victim.jpg --annotate victim.jpg`` replaced the photo (exit 0)."""
    victim = photos[0]
    before = victim.read_bytes()
    images = [str(victim)]
    target = str(victim)
    if how == "spelled otherwise":
        (tmp_path / "sub").mkdir()
        monkeypatch.chdir(tmp_path / "sub")
        target = "../one.jpg"
    elif how == "hard link":
        target = str(tmp_path / "linked.jpg")
        (tmp_path / "linked.jpg").hardlink_to(victim)
    elif how == "numbered":  # OUT-2 of two images is the first image
        target = str(tmp_path / "o.jpg")
        victim = tmp_path / "o-2.jpg"
        victim.write_bytes(before)
        images = [str(photos[2]), str(victim)]
    argv = ["detect", "--model-dir", str(model_dir), "--annotate", target, *images]
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and "would replace the photo" in err
    assert victim.read_bytes() == before
