"""What the sixty-ninth session's audit of the command line found (/tmp/s69/review_cli.md),
each a test that fails on the code before it: a ``--context`` key that a named option sets
(a TypeError traceback, a batch cut short), a batch that ignored the command line's
options, ``recognize``'s ``--flowers`` against the flowers a photo shows, figures at
another IoU labelled mAP50, ``eval``'s ``data.yaml`` ``path:`` and ``--split`` taken as
they came, conflicting options resolved silently, a settlement never shown, a
``--hidden-kong`` that names no kong, ``watch``'s reprs and late checks, model paths
misnamed, the photo's name normalised, and a win given as a hand that drew."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from tilecam.cli import main

NO_PHOTO = "no-such-photo.jpg"  # a check that names an option, not this file, came first
WIN = "555666777p5556s7s"  # a 48-fan self-drawn win (46 on a discard)


def one_error(capsys: pytest.CaptureFixture[str], *words: str) -> str:
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    for word in words:
        assert word in err, err
    return err


# ---------------------------------------------------------------- 1. --context clashes

@pytest.mark.parametrize("command, key, option", [
    (["score", WIN], "self_drawn", "--self-drawn"),
    (["score", WIN], "seat_wind", "--seat"),
    (["score", WIN], "kong", "--kong"),
    (["score", WIN], "version", "--version"),
    (["score", WIN], "rules", "--rules"),
    (["waits", "123m456p789s1122z"], "flowers", "--flowers"),
    (["waits", "123m456p789s1122z"], "hand", "HAND"),
    (["waits", "1112345678999m1p"], "flowers", "--flowers"),
    (["recognize", NO_PHOTO], "rules", "--rules"),
    (["recognize", NO_PHOTO], "flowers", "--flowers"),
    (["recognize", NO_PHOTO], "discarder", "--discarder"),
    (["recognize", NO_PHOTO], "settings", "--set"),
    (["recognize", NO_PHOTO], "version", "--version"),
    (["recognize", NO_PHOTO], "hand", "IMAGE"),
])
def test_a_context_key_that_a_named_option_sets_is_refused_naming_the_option(
    command: list[str], key: str, option: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: a TypeError traceback and exit 1 (score, waits, recognize --context rules),
    a misleading message (recognize flowers/discarder/settings) or a silent bypass of
    --version (recognize --context version=)."""
    assert main([*command, "--context", f"{key}=2"]) == 2
    one_error(capsys, f"--context may not set {key}", option)


def test_a_batch_line_with_a_bad_context_key_is_its_error_and_the_batch_goes_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sheet = tmp_path / "b.txt"
    sheet.write_text(f"{WIN} --self-drawn\n{WIN} --context kong=1\n{WIN} --self-drawn\n")
    assert main(["score", "--batch", str(sheet), "--json"]) == 2
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert len(lines) == 3
    assert lines[1] == {"error": "line 2: --context may not set kong; use --kong"}
    assert lines[0]["total"] == lines[2]["total"] == 48
    # the same key on the command line is its one error, before any line
    assert main(["score", "--batch", str(sheet), "--context", "kong=1"]) == 2
    one_error(capsys, "--context may not set kong", "--kong")


# ---------------------------------------------------------------- 2. batch defaults

def test_a_batch_takes_the_command_lines_options_for_every_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: --self-drawn, --version and --set next to --batch were silently ignored."""
    sheet = tmp_path / "one.txt"
    sheet.write_text(f"{WIN}\n{WIN} --version wmo-2006 --set min_fan=8\n")
    assert main(["score", "--batch", str(sheet), "--json", "--self-drawn",
                 "--version", "98-strict", "--set", "min_fan=100"]) == 0
    first, second = (json.loads(x) for x in capsys.readouterr().out.splitlines())
    assert first["version"] == "98-strict" and first["total"] == 48 and not first["legal"]
    assert second["version"] == "wmo-2006" and second["legal"]  # the line's own on top


def test_a_batch_under_rules_the_lines_cannot_meet_says_so_for_each_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sheet = tmp_path / "one.txt"
    sheet.write_text(f"{WIN}\n")
    assert main(["score", "--batch", str(sheet), "--rules", "zhenjiang"]) == 2
    assert "Zhenjiang needs the 百搭" in capsys.readouterr().out


def test_a_lines_own_json_is_refused_when_the_batch_prints_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: accepted and ignored."""
    sheet = tmp_path / "one.txt"
    sheet.write_text(f"{WIN} --json\n")
    assert main(["score", "--batch", str(sheet)]) == 2
    assert "--json on a line" in capsys.readouterr().out
    assert main(["score", "--batch", str(sheet), "--json"]) == 0


# ---------------------------------------------------------------- 4/5. recognize options

def test_recognize_refuses_flowers_under_rules_without_them_before_the_photo(
    capsys: pytest.CaptureFixture[str]
) -> None:
    """README: a context the scorer refuses whatever the hand is exit 2 before the photo
    is read (before: the photo was read, "not scored", exit 0)."""
    assert main(["recognize", NO_PHOTO, "--rules", "zhenjiang", "--context", "indicator=1m",
                 "--flowers", "2"]) == 2
    err = one_error(capsys, "without flowers", "--flowers 2")
    assert NO_PHOTO not in err


def _photo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, scene: Any) -> str:
    """A blank photo whose detector answer is ``scene``'s boxes."""
    dets = scene.detections()
    width, height = dets.image_size
    path = tmp_path / "hand.png"
    cv2.imwrite(str(path), np.full((height, width, 3), 200, np.uint8))
    import vision.detect

    monkeypatch.setattr(vision.detect, "detect", lambda *a, **k: dets)
    return str(path)


def _won_scene(flowers: str = "") -> Any:
    from vision.layout_scene import SceneBuilder

    scene = SceneBuilder().standing("123m456p789sN").meld("EEE", sideways=1).win("N")
    return scene.flowers(flowers) if flowers else scene


def test_recognize_refuses_a_flower_count_that_differs_from_the_photos(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: every reading was impossible and an unrelated one was printed, exit 0."""
    photo = _photo(tmp_path, monkeypatch, _won_scene("2f 5f"))
    assert main(["recognize", photo, "--flowers", "1"]) == 2
    one_error(capsys, "--flowers 1", "shows 2 flower", "2f 5f")
    assert main(["recognize", photo, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["hand"].endswith("25f")


def test_recognize_counts_the_flowers_given_for_a_photo_that_shows_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    photo = _photo(tmp_path, monkeypatch, _won_scene())
    assert main(["recognize", photo, "--json"]) == 0
    plain = json.loads(capsys.readouterr().out)["score"]
    assert main(["recognize", photo, "--json", "--flowers", "3"]) == 0
    counted = json.loads(capsys.readouterr().out)["score"]
    assert counted["total"] == plain["total"] + 3


# ---------------------------------------------------------------- 6. eval labels

def _dataset(root: Path, yaml: str = "names: ['1m']\n") -> Path:
    (root / "images" / "val").mkdir(parents=True)
    (root / "labels" / "val").mkdir(parents=True)
    cv2.imwrite(str(root / "images" / "val" / "a.jpg"), np.full((64, 64, 3), 128, np.uint8))
    (root / "labels" / "val" / "a.txt").write_text("")
    (root / "data.yaml").write_text(yaml)
    return root


def test_eval_names_its_ap_figures_by_the_iou_used(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: mAP50 / AP50 / "map50" for figures measured at --iou 0.9."""
    data = _dataset(tmp_path / "ds")
    assert main(["eval", str(data), "--iou", "0.9"]) == 0
    text = capsys.readouterr().out
    assert "mAP@0.9 " in text and "AP50" not in text and "mAP50" not in text
    assert main(["eval", str(data), "--iou", "0.9", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert "map" in out and "map50" not in out and out["iou"] == 0.9
    assert all("ap50" not in m for m in out["per_class"].values())
    assert main(["eval", str(data), "--json"]) == 0  # at 0.5: as it always was
    assert "map50" in json.loads(capsys.readouterr().out)


def test_eval_label_helpers_keep_iou_0_5_as_it_was() -> None:
    from tilecam.commands.eval import label_iou, label_iou_text

    assert label_iou({"map50": 1.0, "per_class": {}}, 0.5) == {"map50": 1.0, "per_class": {}}
    assert label_iou_text("mAP50 0.9\nclass  AP50", 0.5) == "mAP50 0.9\nclass  AP50"


# ---------------------------------------------------------------- 10/11. eval dataset

def test_eval_names_data_yaml_for_a_path_that_is_no_folder_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: a TypeError traceback (path: 7), a decode error not naming the file."""
    data = _dataset(tmp_path / "ds", "names: ['1m']\npath: 7\n")
    assert main(["eval", str(data)]) == 2
    one_error(capsys, "data.yaml", "'path'", "7")
    (data / "data.yaml").write_bytes(b"names: ['1m']\n\xff\xfe\n")
    assert main(["eval", str(data)]) == 2
    one_error(capsys, "data.yaml", "UTF-8")


def test_eval_says_when_data_yaml_sends_it_to_another_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: a copy of a dataset silently evaluated the original, reported as the copy."""
    original = _dataset(tmp_path / "original")
    copy = _dataset(tmp_path / "copy", f"names: ['1m']\npath: {original}\nval: images/val\n")
    assert main(["eval", str(copy), "--json"]) == 0
    captured = capsys.readouterr()
    assert "outside" in captured.err and str(original) in captured.err
    assert json.loads(captured.out)["images_dir"] == str(original / "images" / "val")


@pytest.mark.parametrize("split", ["", "../..", "val/../.."])
def test_eval_refuses_a_split_that_is_no_splits_name(
    split: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: '' evaluated train and val together, '../..' walked out of the dataset."""
    data = _dataset(tmp_path / "ds")
    assert main(["eval", str(data), "--split", split]) == 2
    one_error(capsys, "--split")


# ---------------------------------------------------------------- 12. conflicts

@pytest.mark.parametrize("command", [
    ["score", WIN], ["waits", "123m456p789s1122z"], ["recognize", NO_PHOTO],
])
def test_version_and_a_version_setting_together_are_refused(
    command: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: --version silently won over --set version=."""
    assert main([*command, "--version", "98-strict", "--set", "version=wmo-2006"]) == 2
    one_error(capsys, "--version 98-strict", "version=wmo-2006")


@pytest.mark.parametrize("art, words", [
    ("default,-fluffyy", ["-fluffyy", "removes nothing"]),
    ("", ["--art is empty"]),
])
def test_synth_refuses_an_art_that_says_nothing_or_removes_nothing(
    art: str, words: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: a removal with a typo was ignored (fluffy kept), '' meant default."""
    out = tmp_path / "out"
    assert main(["dataset", "synth", "--out", str(out), "--count", "1", f"--art={art}"]) == 2
    one_error(capsys, *words)
    assert not out.exists()


# ---------------------------------------------------------------- 13/14/17. recognize output

def test_recognize_text_shows_the_settlement_as_score_does() -> None:
    """Before: only the fans and the total, so --discarder changed nothing visible."""
    from tilecam.commands.recognize import describe

    result = {
        "image": "x.jpg", "tiles": [], "hand": "h", "melds": [], "corrections": [],
        "alternatives": [], "notes": [],
        "score": {"fans": [], "legal": True, "total": 11, "settlement": {
            "unit": "points", "winner": 35, "note": "discard: the discarder pays 8 + total",
            "payments": [{"payer": "left", "amount": 8}, {"payer": "opposite", "amount": 19},
                         {"payer": "right", "amount": 8}]}},
    }
    text = describe(result)
    assert "settlement (points): winner +35; pays: left 8, opposite 19, right 8" in text
    assert "the discarder pays 8 + total" in text


def test_a_hidden_kong_kind_with_no_face_down_kong_gets_a_note(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: silently ignored."""
    photo = _photo(tmp_path, monkeypatch, _won_scene())
    assert main(["recognize", photo, "--json", "--hidden-kong", "5p"]) == 0
    notes = json.loads(capsys.readouterr().out)["notes"]
    assert any("--hidden-kong" in n and "5p not used" in n for n in notes), notes


def test_recognize_json_names_the_photo_as_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: './x.png' came back as 'x.png' (detect echoes the argument as given)."""
    photo = _photo(tmp_path, monkeypatch, _won_scene())
    monkeypatch.chdir(tmp_path)
    assert main(["recognize", "./" + Path(photo).name, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["image"] == "./hand.png"


# ---------------------------------------------------------------- 15. watch

def test_watch_says_why_the_server_did_not_answer_in_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: "<urlopen error [Errno 111] Connection refused>"."""
    import urllib.error

    from tilecam.commands import watch

    monkeypatch.setattr(watch, "frames",
                        lambda *a, **k: (f for f in [np.zeros((8, 8, 3), np.uint8)]))

    def refused(*a: Any, **k: Any) -> Any:
        raise urllib.error.URLError(ConnectionRefusedError(111, "Connection refused"))

    monkeypatch.setattr(watch, "post_frame", refused)
    assert main(["watch", "--table", "1", "--source", "x", "--key", "k",
                 "--retries", "0"]) == 2
    err = one_error(capsys, "connection refused")
    assert "urlopen" not in err and "Errno" not in err


@pytest.mark.parametrize("options, words", [
    (["--server", "http://[::1"], ["--server"]),
    (["--quality", "0"], ["--quality"]),
    (["--every", "nan"], ["--every"]),
])
def test_watch_checks_its_options_before_the_camera(
    options: list[str], words: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: the URL error did not name --server, --quality was checked only after the
    source gave a frame, --every nan was taken (only the first frame would be posted)."""
    assert main(["watch", "--table", "1", "--source", "no-such-video.mp4", "--key", "k",
                 *options]) == 2
    err = one_error(capsys, *words)
    assert "no-such-video" not in err


# ---------------------------------------------------------------- 16. model paths

def test_a_folder_where_a_model_file_belongs_is_named_as_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: "manifest.json is missing" / "model file not found" for a folder there."""
    (tmp_path / "m" / "manifest.json").mkdir(parents=True)
    (tmp_path / "dir.onnx").mkdir()
    data = _dataset(tmp_path / "ds")
    assert main(["recognize", NO_PHOTO, "--model-dir", str(tmp_path / "m")]) == 2
    one_error(capsys, "manifest.json is a folder")
    assert main(["eval", str(data), "--model-dir", str(tmp_path / "m")]) == 2
    one_error(capsys, "manifest.json is a folder")
    assert main(["eval", str(data), "--weights", str(tmp_path / "dir.onnx")]) == 2
    one_error(capsys, "is a folder", "--weights")


# ---------------------------------------------------------------- 18. waits on a win

def test_waits_on_a_hand_that_is_already_a_win_says_so_first(
    capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: the discards alone, as if the hand were no win."""
    assert main(["waits", WIN]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "this hand is a win" in lines[0] and "tilecam score" in lines[0]
    assert "discard" in "\n".join(lines[1:])
    assert main(["waits", WIN, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["win"] is True
    assert main(["waits", "1112345678999m1p", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["win"] is False


def test_waits_names_both_sizes_it_takes(capsys: pytest.CaptureFixture[str]) -> None:
    """Before (Xiamen, 14 tiles): only the 16 of a waiting hand, not the 17 that drew."""
    assert main(["waits", "1112345678999m1p", "--rules", "xiamen", "--context", "gold=5p"]) == 2
    one_error(capsys, "16", "17")


def test_score_text_shows_the_money_each_rule_set_moves(capsys: pytest.CaptureFixture[str]) -> None:
    """Regional review F3: the text output showed only the chips paid to the winner —
    not Zhenjiang's 打首搭 transfers and each seat's net (winner +21 here, it said +3),
    not Xiamen's bonus apart from the chips, and a false claim's 50 to each other player
    read "pays 0"."""
    assert main(["score", "--rules", "zhenjiang", "--context", "indicator=C", "--self-drawn",
                 "--context", "first_wild_discard=winner", "[EEE,2]123m456p789sNN"]) == 0
    out = capsys.readouterr().out
    assert "transfers: left → winner 6 (打首搭)" in out
    assert "net: winner +21, left -7, opposite -7, right -7" in out
    assert main(["score", "--rules", "xiamen", "--context", "gold=9s", "--self-drawn",
                 "--context", "win=you_jin", "123m456m789p111s234s9s5m"]) == 0
    assert "left 40 (+ 50 bonus apart)" in capsys.readouterr().out
    assert main(["score", "--rules", "xiamen", "--context", "gold=5m", "--discarder", "2",
                 "123m456m789p11s234s5m5m5m"]) == 0
    assert "left 0 (receives 50 apart)" in capsys.readouterr().out
