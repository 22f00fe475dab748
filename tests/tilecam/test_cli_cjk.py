"""The command line with Chinese in and out (the seventy-sixth session's i18n review,
findings 1, 2, 4, 5 and 7): a meld number such as ``²`` is the hand's error, not
``int()``'s; a hand typed on a Chinese keyboard scores; a stdout that cannot encode
Chinese (cp1252: an English Windows redirect) gets escapes, exit 0, and an encoding
error is never called bad input; ``tilecam score``'s fan table lines up by the width on
screen of its Chinese names; ``tilecam waits`` names each tile in Chinese."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from scoring.tiles import ZH_NAMES
from tilecam.cli import main
from tilecam.commands.score import display_width

#: 三色三步高 不求人 平和 断幺: names of 5, 3 and 2 characters (the tab gave 16, 8, 8)
MIXED = "234m345p456s67s88p5s"


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


# ---------------------------------------------------------- 1. meld numbers, 2. input

@pytest.mark.parametrize("command", [
    ["score", "[123m,²]456p789s11pEE9s"],
    ["waits", "[123m,①]456p789s11pEE"],
    ["score", "--batch", "-"],
])
def test_a_meld_number_that_is_no_ascii_digit_is_the_hands_error(
        command: list[str], capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Before: ``error: invalid literal for int() with base 10: '²'``."""
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(
        io.BytesIO("[123m,²]456p789s11pEE9s\n".encode()), encoding="utf-8"))
    code, out, err = run(command, capsys)
    assert code == 2 and "int()" not in out + err
    assert re.search(r"'[²①]' at position 7 after the comma is not a digit", out + err)


def test_a_hand_typed_on_a_chinese_keyboard_scores(capsys: pytest.CaptureFixture[str]) -> None:
    hand = "【EEE，2】［SSSS，1］ＷＷＷＮＮ５５ｐＮ"
    code, out, _ = run(["score", hand, "--self-drawn", "--json"], capsys)
    assert code == 0 and json.loads(out)["total"] == 98
    code, out, _ = run(["waits", "１２３ｍ４５６ｐ７８９ｓ１１２２ｚ", "--json"], capsys)
    assert code == 0 and [w["tile"] for w in json.loads(out)["waits"]] == ["E", "S"]


# ------------------------------------------------------ 4. a stdout that has no Chinese

def cp1252_stdout(monkeypatch: pytest.MonkeyPatch) -> io.TextIOWrapper:
    stream = io.TextIOWrapper(io.BytesIO(), encoding="cp1252")  # errors="strict"
    monkeypatch.setattr(sys, "stdout", stream)
    return stream


@pytest.mark.parametrize("command", [
    ["score", MIXED], ["score", MIXED, "--json"], ["waits", "234m345p456s67s88p"],
    ["waits", "1112345678999m1p"], ["rules", "show", "zhenjiang"],
])
def test_chinese_on_a_cp1252_stdout_is_escaped_and_the_command_succeeds(
        command: list[str], monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    stream = cp1252_stdout(monkeypatch)
    assert main(command) == 0
    stream.flush()
    written = stream.buffer.getvalue()  # type: ignore[attr-defined]
    assert b"\\u" in written and capsys.readouterr().err == ""


def test_the_batch_goes_on_past_its_first_line_on_a_cp1252_stdout(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Before: the batch stopped at its first line, with exit 2 (a "bad hand")."""
    stream = cp1252_stdout(monkeypatch)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(
        io.BytesIO(f"{MIXED}\n555666777p5556s7s --self-drawn\n".encode()), encoding="utf-8"))
    assert main(["score", "--batch", "-"]) == 0
    stream.flush()
    text = stream.buffer.getvalue().decode("cp1252")  # type: ignore[attr-defined]
    assert "total 12" in text and "total 48" in text


def test_a_cp1252_process_stdout_is_escaped_with_exit_0() -> None:
    """As ``PYTHONIOENCODING=cp1252 tilecam score … > out.txt`` (before: no output, exit
    2 and "error: 'charmap' codec can't encode characters")."""
    env = {**os.environ, "PYTHONIOENCODING": "cp1252", "PYTHONUTF8": "0"}
    proc = subprocess.run([sys.executable, "-m", "tilecam.cli", "score", MIXED],
                          capture_output=True, env=env, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    assert b"\\u5e73\\u548c" in proc.stdout and b"All Chows" in proc.stdout  # 平和


class _Cp1252Only(io.StringIO):
    """A stdout that cannot be reconfigured and refuses what cp1252 cannot encode."""

    def write(self, text: str) -> int:
        text.encode("cp1252")
        return super().write(text)


def test_an_encoding_error_is_no_user_error(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Exit 1 with how to get UTF-8 — not exit 2, which says the hand was bad."""
    monkeypatch.setattr(sys, "stdout", _Cp1252Only())
    assert main(["score", MIXED]) == 1
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "PYTHONUTF8=1" in err and "codec" in err


def test_a_stream_set_other_than_strict_is_left_as_it_is() -> None:
    from tilecam.cli import escape_unwritable

    stream = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="surrogateescape")
    escape_unwritable(stream, object())  # and one that cannot be reconfigured
    assert stream.errors == "surrogateescape"


# ------------------------------------------------------------- 5. the fan table's columns

def test_the_fan_tables_english_names_start_in_one_column_whatever_the_chinese_width(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["score", MIXED, "--self-drawn"], capsys)
    rows = [line for line in out.splitlines() if line.startswith("  ") and "  " in line[2:]]
    assert code == 0 and "\t" not in out and len(rows) == 4
    columns = set()
    for row, en in zip(rows, ["Mixed Shifted Chows", "Fully Concealed Hand", "All Chows",
                              "All Simples"], strict=True):
        assert en in row
        columns.add(display_width(row[: row.index(en)]))
    assert len(columns) == 1, out


# --------------------------------------------------------- 7. waits names tiles in Chinese

def test_waits_names_each_tile_waited_on_in_chinese(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["waits", "234m345p456s67s88p"], capsys)
    lines = out.splitlines()
    assert code == 0 and "5s 五条" in lines[1] and "8s 八条" in lines[2]
    assert len({display_width(line[: line.index(" left")]) for line in lines[1:]}) == 1


def test_waits_names_each_discard_and_wait_of_a_hand_that_drew(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["waits", "123m456p789s11pEES"], capsys)
    assert code == 0 and "discard S 南" in out and "1p 一饼 (2 left" in out
    assert "E 东 (2 left" in out


def test_waits_names_the_useful_draws_in_chinese(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["waits", "[EEE,2]123p456p1111mE"], capsys)
    useful = [line for line in out.splitlines() if "useful draw(s):" in line]
    assert code == 0 and useful[0].startswith("  discard 1p 一饼 ")
    assert "1p 一饼 (3), 4p 四饼 (3), 7p 七饼 (4)" in useful[0]
    assert len({line.index("useful draw") for line in useful}) == 1  # same column
    assert "discard 1m 一万 waits on E 东 (0 left" in out


def test_every_tile_named_is_the_rules_pages_name(capsys: pytest.CaptureFixture[str]) -> None:
    """One table of names (scoring.tiles.ZH_NAMES, which /v1/rules serves to the page)."""
    code, out, _ = run(["waits", "1112345678999m"], capsys)
    assert code == 0
    for rank in range(1, 10):
        assert f"{rank}m {ZH_NAMES[f'{rank}m']}" in out


def test_an_ideographic_space_parts_a_batch_line_as_a_space_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """tilecam score --batch splits a line as a shell would; the space a Chinese keyboard
    types (U+3000) between the hand and a flag parts them too, not read into the hand."""
    batch = tmp_path / "hands.txt"
    batch.write_text("123m456p789s123sEE\u3000--self-drawn\n", encoding="utf-8")
    assert main(["score", "--batch", str(batch), "--json"]) == 0
    assert json.loads(capsys.readouterr().out.splitlines()[0])["self_drawn"] is True


def test_the_text_header_shows_a_chinese_keyboard_hand_in_the_notation(
    capsys: pytest.CaptureFixture[str]
) -> None:
    """tilecam score and tilecam waits head their text with the hand: one typed on a
    Chinese keyboard (【EEE，2】１２３ｍ…) is shown as the notation reads it, beside the
    lines in standard notation, not as typed."""
    typed = "【EEE，2】１２３ｍ456p789s99s"
    assert main(["score", typed]) == 0
    assert capsys.readouterr().out.splitlines()[0].startswith("[EEE,2]123m456p789s99s   (mcr")
    assert main(["waits", typed]) == 0
    assert capsys.readouterr().out.startswith("[EEE,2]123m456p789s99s: this hand is a win")
