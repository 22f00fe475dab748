"""What the seventy-sixth session's Chinese-input fixes left (report_cjkfix.md): digits
that ``str.isdigit()`` takes and ``int()`` fails on or misreads (``²``, ``①``, a Chinese
keyboard's ``２``) in ``tilecam watch``'s ``--source`` and ``TILECAM_PORT`` and in the
API's Content-Length; ``tilecam recognize`` naming each tile in Chinese as ``tilecam
waits`` does; ``tilecam waits --seen`` saying that it scores 和绝张.
"""

from __future__ import annotations

import asyncio
import json
import logging
from types import SimpleNamespace

import pytest
from starlette.requests import ClientDisconnect, Request

import scoring
from tilecam.api.errors import _client_disconnect_handler
from tilecam.api.upload import BODY_CLOCK
from tilecam.cli import main
from tilecam.commands import watch
from tilecam.commands.recognize import describe

#: Digits to str.isdigit() that are no ASCII digits: superscript, circled, full-width,
#: Arabic-Indic.
NOT_ASCII = ["²", "①", "２", "٢", "１２"]


# ---------------------------------------------------------- tilecam watch --source


@pytest.mark.parametrize("source", NOT_ASCII)
def test_a_source_of_digits_that_are_not_ascii_is_no_camera(source: str) -> None:
    """``is_live("²")`` was True (the file read by wall clock, reconnected as a camera)
    and ``open_source("²")`` failed in ``int()``: only ASCII digits name a camera."""
    assert watch.camera_index(source) is None
    assert not watch.is_live(source)


@pytest.mark.parametrize("source", ["0", "1", "12"])
def test_a_source_of_ascii_digits_is_a_camera(source: str) -> None:
    assert watch.camera_index(source) == int(source) and watch.is_live(source)


@pytest.mark.parametrize("source", ["²", "２"])
def test_watch_names_a_source_it_cannot_open_and_how_a_camera_is_given(
        source: str, capsys: pytest.CaptureFixture[str]) -> None:
    """``tilecam watch --source ²`` said ``invalid literal for int() with base 10: '²'``;
    now it cannot open the source, and says how a camera is numbered."""
    code = main(["watch", "--source", source, "--table", "1", "--key", "k",
                 "--server", "http://127.0.0.1:8899"])
    err = capsys.readouterr().err
    assert code == 2
    assert "invalid literal" not in err
    assert f"cannot open video source {source!r} (not a readable file, device or stream; " \
           "a camera is given by its index in ASCII digits (0-9), e.g. --source 0)" in err


def test_a_missing_file_gets_no_camera_hint() -> None:
    with pytest.raises(ValueError, match=r"\(not a readable file, device or stream\)$"):
        watch.open_source("no-such-video.mp4")


# ---------------------------------------------------------- TILECAM_PORT


@pytest.mark.parametrize("port", NOT_ASCII)
def test_a_port_of_digits_that_are_not_ascii_is_refused_in_the_watch_s_words(
        port: str) -> None:
    """``TILECAM_PORT=²`` gave ``int()``'s error instead of the watch's own."""
    with pytest.raises(ValueError) as caught:
        watch.default_server({"TILECAM_PORT": port})
    assert str(caught.value).startswith(
        f"TILECAM_PORT={port!r} is not a port (a whole number 0-65535): ")


def test_watch_with_tilecam_port_superscript_says_it_is_not_a_port(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("TILECAM_PORT", "²")
    code = main(["watch", "--source", "x.mp4", "--table", "1", "--key", "k"])
    err = capsys.readouterr().err
    assert code == 2 and "TILECAM_PORT='²' is not a port" in err, err


# ---------------------------------------------------------- the API's Content-Length


def _dropped(declared: bytes, received: int) -> Request:
    """A request whose client went away after ``received`` bytes of a body it said was
    ``declared`` long (Starlette reads header bytes as Latin-1: b"\\xb2" is ``²``)."""
    return Request({
        "type": "http", "method": "POST", "path": "/v1/recognize", "raw_path": b"/",
        "query_string": b"", "headers": [(b"content-length", declared)],
        "client": ("203.0.113.9", 5000), "server": ("testserver", 80),
        BODY_CLOCK: SimpleNamespace(received=received)})


@pytest.mark.parametrize(("declared", "said"), [
    (b"5000", "1,000 of 5,000 bytes read; "),
    (b"\xb2", "1,000 bytes read; "),  # ²: was int()'s ValueError in the handler
    (b"\xb9\xb2", "1,000 bytes read; "),  # ¹²
])
def test_a_dropped_upload_s_content_length_is_read_as_ascii_digits_only(
        declared: bytes, said: str, caplog: pytest.LogCaptureFixture) -> None:
    """The disconnect handler logged ``int(declared)`` of any Content-Length that
    ``isdigit()`` took: ``²`` raised in the handler. (The server in front, h11, refuses
    such a header before the app sees it: this checks the handler alone.)"""
    with caplog.at_level(logging.WARNING):
        asyncio.run(_client_disconnect_handler(_dropped(declared, 1000), ClientDisconnect()))
    [line] = [r.getMessage() for r in caplog.records]
    assert f"read ({said}nothing done" in line


# ---------------------------------------------------------- tilecam recognize's text


def _reading(hand: str, **analysis: object) -> dict[str, object]:
    return {"image": "x.jpg", "tiles": [], "hand": hand, "melds": [], "corrections": [],
            "alternatives": [], "notes": [], **analysis}


def test_recognize_names_each_tile_a_ready_hand_waits_on() -> None:
    """``waits on: 1s E`` listed codes alone where ``tilecam waits`` names them."""
    w = scoring.waits("123m456p789s11sEE").to_dict()
    text = describe(_reading("123m456p789s11sEE", waits=w)).splitlines()
    assert "waits on: 1s 一条, E 东" in text


def test_recognize_names_each_discard_and_its_waits_as_tilecam_waits_does(
        capsys: pytest.CaptureFixture[str]) -> None:
    """A hand that drew with discards that leave it ready: each discard and wait named,
    the discard's column as wide as tilecam waits makes it."""
    hand = "[EEE,2]123m456p789sN1s"
    text = describe(_reading(hand, unscorable="shown as no win",
                             discards=scoring.discards(hand).to_dict())).splitlines()
    assert main(["waits", hand]) == 0
    waits = capsys.readouterr().out.splitlines()
    assert "  discard N 北    waits on 1s 一条" in text
    assert "  discard 1s 一条 waits on N 北" in text
    column = [line.index("waits on") for line in waits if line.startswith("  discard")]
    assert {line.index("waits on") for line in text if line.startswith("  discard")} == set(
        column)


# ---------------------------------------------------------- tilecam waits --seen


def test_waits_seen_help_says_a_wait_in_sight_is_scored_last_of_its_kind(
        capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["waits", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert ("a wait whose other three copies are in sight (these, your own melds, the "
            "copy a hand that drew discards) and none held standing is scored 和绝张 "
            "(MCR: last of its kind; without --seen none is") in help_text


def test_waits_seen_scores_last_of_its_kind_as_its_help_says(
        capsys: pytest.CaptureFixture[str]) -> None:
    """3m: one in the chow, two seen: 和绝张 counted (7 on a discard, 3 without)."""
    assert main(["waits", "[345m,1]45m789s123sEE", "--seen", "3m，3m", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    [three] = [w for w in out["waits"] if w["tile"] == "3m"]
    assert three["remaining"] == 1
    assert "和绝张" in [f["zh"] for f in three["discard"]["fans"]]
