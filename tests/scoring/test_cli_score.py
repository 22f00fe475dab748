"""``tilecam score`` and ``tilecam waits``: text, JSON, batch, errors exit 2."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tilecam.cli import main


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_score_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["score", "[EEE,2][SSSS,1]WWWNN55pN", "--self-drawn", "--json"], capsys)
    d = json.loads(out)
    assert code == 0 and d["total"] == 98 and d["rules"] == "mcr" and d["version"] == "mil-2015"


def test_score_text_names_fans_and_sets(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["score", "555666777p5556s7s", "--self-drawn"], capsys)
    assert code == 0 and "一色三同顺" in out and "567p 567p 567p" in out and "total 48" in out


def test_score_flags_and_version(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(["score", "1133m5577p99sEECC", "--self-drawn", "--version", "wmo-2006",
                        "--seat", "S", "--prevalent", "W", "--flowers", "2", "--json"], capsys)
    d = json.loads(out)
    assert {f["zh"] for f in d["fans"]} == {"七对", "五门齐", "不求人", "花牌"}
    assert d["total"] == 36


def test_bad_hand_exits_2_with_the_problem(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["score", "123q"], capsys)
    assert code == 2 and "unknown character 'q'" in err


def test_batch_json_lines_go_on_after_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    batch = tmp_path / "hands.txt"
    batch.write_text(
        "555666777p5556s7s --self-drawn\n# comment\n\n123x\n19m19s19pESWNCFPP --bogus\n"
        "11223344556677s --self-drawn\n",
        encoding="utf-8",
    )
    code, out, _ = run(["score", "--batch", str(batch), "--json"], capsys)
    lines = [json.loads(line) for line in out.splitlines()]
    assert code == 2 and len(lines) == 4  # every line done; the failed ones make it 2
    assert lines[0]["total"] == 48 and lines[3]["total"] == 89
    assert "line 4" in lines[1]["error"] and "unknown character" in lines[1]["error"]
    assert "--bogus" in lines[2]["error"]


def test_batch_reads_a_windows_file_and_a_line_that_is_not_text_is_one_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A file saved by Notepad (a BOM, CRLF line ends) reads as written; a line of bytes
    that are not UTF-8 is an error object for that line, and the batch goes on."""
    batch = tmp_path / "hands.txt"
    batch.write_bytes(b"\xef\xbb\xbf555666777p5556s7s --self-drawn\r\n\xde\xad\xbe\xef\r\n"
                      b"11223344556677s --self-drawn\r\n")
    code, out, err = run(["score", "--batch", str(batch), "--json"], capsys)
    lines = [json.loads(line) for line in out.splitlines()]
    assert code == 2 and err == ""
    assert [line.get("total") for line in lines] == [48, None, 89]
    assert lines[1] == {"error": "line 2: not UTF-8 text"}


def test_a_batch_with_no_bad_line_exits_0(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    batch = tmp_path / "hands.txt"
    batch.write_text("555666777p5556s7s --self-drawn\n# comment\n", encoding="utf-8")
    code, out, _ = run(["score", "--batch", str(batch)], capsys)
    assert code == 0 and "total" in out.lower()


def test_set_and_context_reach_the_rule_set(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["score", "11m222p345678s99s1m", "--set", "min_fan=5", "--json"], capsys)
    assert code == 0 and json.loads(out)["legal"] is True
    code, _, err = run(["score", "11m222p345678s99s1m", "--set", "oops"], capsys)
    assert code == 2 and "not KEY=VALUE" in err
    code, _, err = run(["score", "11m222p345678s99s1m", "--context", "x=1"], capsys)
    assert code == 2 and "no context field 'x'" in err


def test_waits_text_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["waits", "1112345678999m"], capsys)
    assert code == 0 and "ready, waits on 9 kind(s)" in out
    code, out, _ = run(["waits", "123m456p789sESWN", "--json"], capsys)
    assert json.loads(out)["shanten"] == 2


def test_waits_says_when_no_copy_is_left_of_any_tile_waited_on(
        capsys: pytest.CaptureFixture[str]) -> None:
    """The formal wait on a kind whose four copies the hand holds is listed with 0 left;
    when every wait is such, the text says the hand is ready in form only."""
    code, out, _ = run(["waits", "234p567p789pFFFF"], capsys)
    assert code == 0 and re.search(r"F 发 +0 left", out) and "ready in form only" in out
    code, out, _ = run(["waits", "666778899mFFFF"], capsys)  # 6m is still there to draw
    assert code == 0 and re.search(r"6m 六万 +1 left", out) and "ready in form only" not in out
