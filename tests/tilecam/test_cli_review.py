"""What the sixty-fifth session's audit of the command line found, each a test that fails
on the code before it: a traceback from a database URL that is none, options refused
only after the photo was read (or never), a confidence for a blank photo, an evaluation
of the wrong kind of model reported as unreadable images, a result thrown away when its
picture could not be written, camera options taken as they came, a dict printed raw."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tilecam.cli import main

NO_PHOTO = "no-such-photo.jpg"  # a check that names an option, not this file, came first


def one_error(capsys: pytest.CaptureFixture[str], *words: str) -> str:
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    for word in words:
        assert word in err, err
    return err


@pytest.mark.parametrize("url", ["bogus", "postgresql://u@host:notaport/db", "mysql://a@b/c"])
@pytest.mark.parametrize("action", ["current", "upgrade"])
def test_db_with_a_url_that_is_none_is_one_line_and_exit_2(
    url: str, action: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: an ArgumentError traceback (then an UnboundLocalError on upgrade)."""
    assert main(["db", action, "--url", url]) == 2
    one_error(capsys, "database URL")


def test_serve_refuses_a_database_url_that_is_none_before_it_starts(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: the service started and answered every table request 503 "try again"."""
    from tilecam.settings import get_settings

    monkeypatch.setenv("TILECAM_DATABASE_URL", "bogus")
    get_settings.cache_clear()
    try:
        assert main(["serve", "--port", "0"]) == 2
    finally:
        get_settings.cache_clear()
    one_error(capsys, "TILECAM_DATABASE_URL")


@pytest.mark.parametrize("options, words", [
    (["--set", "min_fan=abc"], ["min_fan"]),
    (["--set", "foo=1"], ["foo"]),
    (["--version", "bogus"], ["bogus"]),
    (["--rules", "xiamen", "--set", "base_dealer=-1"], ["base_dealer"]),
    (["--annotate", "out.gif"], ["--annotate", ".jpg"]),
])
def test_recognize_refuses_bad_options_before_the_photo(
    options: list[str], words: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """README: a refused context is "CLI: exit 2 before the photo is read" (before, a bad
    setting or version read the photo, printed "not scored" and exited 0; an annotated
    picture that could not be written threw the reading away after the work)."""
    assert main(["recognize", NO_PHOTO, *options]) == 2
    err = one_error(capsys, *words)
    assert NO_PHOTO not in err


def test_recognize_refuses_a_folder_as_its_annotated_picture(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "pic.jpg"
    folder.mkdir()
    assert main(["recognize", NO_PHOTO, "--annotate", str(folder)]) == 2
    one_error(capsys, "it is a folder")


def test_a_blank_photo_is_not_trusted_to_be_scored_right() -> None:
    """No tiles lies outside the score fit, which gave 0.9995 for a blank photo: it takes
    the hand confidence (about 0)."""
    from vision.detections import Detections
    from vision.manifest import default_model_dir, read_manifest
    from vision.recognize import recognize_detections

    calibration = read_manifest(default_model_dir())[2]["calibration"]
    rec = recognize_detections(Detections.empty(), "mcr", calibration=calibration)
    assert rec.score_confidence == rec.hand_confidence
    assert rec.score_confidence is not None and rec.score_confidence < 0.01


def test_eval_refuses_a_limit_that_measures_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    for limit in ("0", "-1"):
        assert main(["eval", "no-such-set", "--limit", limit]) == 2
        one_error(capsys, "--limit")


def test_evaluating_the_wrong_kind_of_model_is_one_error_not_unreadable_images() -> None:
    """A detector output that does not fit the manifest is the model's fault: it stops
    the evaluation (before, every image was "unreadable", F1 0 and exit 0)."""
    import numpy as np

    from vision.evaluate import Sample, evaluate
    from vision.manifest import ModelError

    def detect(image: object) -> object:
        raise ModelError("detector output shape (1, 172) does not match the manifest")

    with pytest.raises(ModelError):
        evaluate([Sample(Path("a.jpg"), np.zeros((0, 5)))], detect)


@pytest.mark.parametrize("options, words", [
    (["--server", "localhost:8791"], ["http://"]),
    (["--max-frames", "-1"], ["--max-frames"]),
    (["--max-side", "0"], ["--max-side"]),
    (["--table", "-2"], ["--table"]),
])
def test_watch_refuses_options_it_cannot_use_at_once(
    options: list[str], words: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: a server URL without its scheme was retried as a server down (20 s with
    the default retries); --max-frames -1 stopped after one frame."""
    base = ["watch", "--table", "1", "--key", "k", "--source", "no-such-video.avi"]
    assert main([*base, *options]) == 2
    one_error(capsys, *words)


def test_rules_show_prints_the_deal_in_words(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "show", "mcr"]) == 0
    deal = next(line for line in capsys.readouterr().out.splitlines() if "deal:" in line)
    assert "{" not in deal and "rounds 4" in deal and "goes on after false claim true" in deal


def test_a_reading_under_0_7_asks_for_a_check() -> None:
    """README: the page and `tilecam recognize` ask for a check below 0.7."""
    from tilecam.commands.recognize import describe

    base = {"image": "p.jpg", "tiles": [{"role": "standing"}], "hand": "1m", "melds": [],
            "corrections": [], "alternatives": [], "notes": [], "score_confidence": None}
    assert "check the tiles" in describe({**base, "hand_confidence": 0.62})
    assert "check the tiles" not in describe({**base, "hand_confidence": 0.93})
    assert json.dumps(base)  # the fake result is plain JSON, as to_dict() gives


def test_a_context_field_is_named_as_one(capsys: pytest.CaptureFixture[str]) -> None:
    """A bad value of a rule set's win-context field was called a "setting"."""
    assert main(["score", "123m456m789m123p45p1s9s9s", "--rules", "xiamen",
                 "--context", "gold=5m", "--context", "dealer=maybe"]) == 2
    one_error(capsys, "context field dealer='maybe': expected bool")


def test_preparing_the_photos_says_how_far_it_has_got(
    capsys: pytest.CaptureFixture[str]
) -> None:
    """`tilecam dataset photos` takes minutes: a line every 50 stems and at the end."""
    from tilecam.commands.dataset import stem_progress

    assert list(stem_progress(str(i) for i in range(120))) == [str(i) for i in range(120)]
    lines = capsys.readouterr().err.splitlines()
    assert [line.split(" stems")[0] for line in lines] == [
        "photos: 50/120", "photos: 100/120", "photos: 120/120"]


def test_small_messages_name_the_thing_once_and_rightly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """detect names a bad image once (was "zero.jpg: empty image file: zero.jpg"); eval
    given a file says it is one (was "dataset folder not found"); db --url "" is refused
    (it fell back to the default database without a word)."""
    zero = tmp_path / "zero.jpg"
    zero.write_bytes(b"")
    assert main(["detect", str(zero)]) == 2
    assert one_error(capsys, "empty image file").count(str(zero)) == 1
    assert main(["eval", str(zero)]) == 2
    one_error(capsys, "is a file")
    assert main(["db", "current", "--url", ""]) == 2
    one_error(capsys, "--url is empty")
