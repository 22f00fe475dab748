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
