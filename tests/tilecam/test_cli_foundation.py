"""The CLI front door: discovered subcommands, help, exit codes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tilecam.cli import build_parser, main


def test_help_lists_serve() -> None:
    text = build_parser().format_help()
    assert "serve" in text


def test_no_command_prints_help_and_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    assert "usage: tilecam" in capsys.readouterr().out


def test_version_names_the_package_the_model_and_python(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """`tilecam --version` says which model photos are read with (name@version, as every
    reading names it), read from the manifest alone; a folder without one says so."""
    import json
    import platform

    from tilecam import __version__

    (tmp_path / "manifest.json").write_text(json.dumps(
        {"name": "tiles", "version": "2026-12-06.1", "detector": {"file": "d.onnx"}}))
    monkeypatch.setenv("TILECAM_MODEL_DIR", str(tmp_path))
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out.strip() == (
        f"tilecam {__version__} (model tiles@2026-12-06.1; Python {platform.python_version()})")
    monkeypatch.setenv("TILECAM_MODEL_DIR", str(tmp_path / "empty"))
    with pytest.raises(SystemExit):
        main(["--version"])
    assert f"(model none in {tmp_path / 'empty'};" in capsys.readouterr().out


def test_console_entry_point_runs() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "tilecam.cli", "--help"], capture_output=True, text=True, check=True
    )
    assert "COMMAND" in out.stdout


def test_closed_pipe_ends_quietly_without_a_traceback() -> None:
    """`tilecam ... | head` closes the pipe early: exit quietly, no BrokenPipeError traceback."""
    code = (
        "import sys; from tilecam.cli import main\n"
        "sys.exit(main(['rules', 'list']))\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # the reader is gone before the first line is written
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) in (0, 141)
    assert "Traceback" not in err and "BrokenPipeError" not in err


def test_an_output_folder_that_is_a_file_is_a_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`tilecam dataset synth --out FILE`: the folder cannot be made — exit 2 with the
    path named, no traceback (the bad-input promise for paths the user gives)."""
    from vision.synth.art import available_sets

    if not available_sets():
        pytest.skip("no tile art installed (../shared/tileart): synth cannot render")
    taken = tmp_path / "taken"
    taken.write_text("a file, not a folder")
    # one installed set named: --art default adds a note on stderr first where one of its
    # sets (fluffy, from ../shared) is missing
    assert main(["dataset", "synth", "--out", str(taken), "--count", "1", "--quiet",
                 "--art", available_sets()[0]]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tilecam dataset: error: not a directory: ")
    assert str(taken) in err and "Traceback" not in err


@pytest.mark.parametrize(("error", "code", "text"), [
    (PermissionError(13, "Permission denied", "/srv/out"), 2, "permission denied: /srv/out"),
    (OSError(28, "No space left on device", "/srv/out/x.jpg"), 1,
     "no space left on device: /srv/out/x.jpg"),
])
def test_a_file_system_error_in_a_command_is_one_line_with_its_path(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    error: OSError, code: int, text: str,
) -> None:
    """A path the user gave that cannot be used exits 2 (bad input), a failing disk 1."""
    from tilecam.commands import rules

    def fail(_args: object) -> int:
        raise error

    monkeypatch.setattr(rules, "run_list", fail)
    assert main(["rules", "list"]) == code
    assert capsys.readouterr().err == f"tilecam rules: error: {text}\n"


def test_a_missing_batch_file_is_named_without_an_errno(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "hands.txt"
    assert main(["score", "--batch", str(missing)]) == 2
    assert capsys.readouterr().err == (
        f"tilecam score: error: no such file or directory: {missing}\n")


def test_a_bad_setting_in_the_environment_is_named_in_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`TILECAM_PORT=abc tilecam serve`: exit 2 naming the variable, its value and the
    rule — a negative upload limit or a zero rate is refused the same way, before the
    service starts."""
    from tilecam.settings import get_settings

    monkeypatch.setenv("TILECAM_PORT", "abc")
    monkeypatch.setenv("TILECAM_MAX_UPLOAD_BYTES", "-5")
    get_settings.cache_clear()
    try:
        assert main(["serve"]) == 2
    finally:
        get_settings.cache_clear()
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("tilecam serve: error: bad setting: ")
    assert "TILECAM_PORT='abc': input should be a valid integer" in err
    assert "TILECAM_MAX_UPLOAD_BYTES='-5': input should be greater than or equal to 1" in err


def test_cli_top_level_help_says_waits_gives_a_hand_that_drew_its_discards(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    waits = " ".join(out.split("    waits", 1)[1].split("    watch", 1)[0].split())
    assert "for a hand that drew, each discard with what it then waits on" in waits
