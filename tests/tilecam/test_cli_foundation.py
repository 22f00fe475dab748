"""The CLI front door: discovered subcommands, help, exit codes."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tilecam.cli import build_parser, main


def test_help_lists_serve() -> None:
    text = build_parser().format_help()
    assert "serve" in text


def test_no_command_prints_help_and_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    assert "usage: tilecam" in capsys.readouterr().out


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
