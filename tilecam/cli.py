"""The ``tilecam`` command line.

Each subcommand is a module in :mod:`tilecam.commands` that defines
``register(subparsers) -> None``; the module adds its parser and sets
``func`` (``Callable[[argparse.Namespace], int]``) as the parser default.
Commands are discovered, so adding one never touches this file.

Exit codes: 0 success, 2 bad input (a clear message on stderr, also for a path given
that cannot be used), 1 other failure (a file-system error such as a full disk: one line
too, never a traceback).

Output that the terminal's encoding cannot write (Chinese fan and tile names on an
English Windows redirect, cp1252) is written escaped (``\\u5e73\\u548c``), not refused:
:func:`escape_unwritable`.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import pkgutil
import sys
from collections.abc import Sequence

from tilecam import __version__, commands


class UserError(Exception):
    """A problem with what the user asked for; printed without a traceback, exit 2."""


def build_parser() -> argparse.ArgumentParser:
    """Build the top-level parser with every discovered subcommand."""
    parser = argparse.ArgumentParser(
        prog="tilecam",
        description="Photograph a mahjong hand and get its score.",
    )
    parser.add_argument("--version", action=_Version, nargs=0, default=argparse.SUPPRESS,
                        help="tilecam's version, the model it reads photos with, and Python's")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{commands.__name__}.{info.name}")
        module.register(sub)
    return parser


class _Version(argparse.Action):
    """``--version``: print :func:`version_text` and exit (read only when asked, so that
    other commands start without reading the model's manifest)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: object, option_string: str | None = None) -> None:
        print(version_text())
        parser.exit()


def version_text() -> str:
    """``tilecam --version``: the package, the model photos are read with by default
    (``TILECAM_MODEL_DIR`` or the shipped one, named as readings name it) and Python.

    >>> version_text().startswith(f"tilecam {__version__} (model ")
    True
    """
    import platform

    from vision.manifest import default_model_dir, shipped_model_name

    model = shipped_model_name() or f"none in {default_model_dir()}"
    return f"tilecam {__version__} (model {model}; Python {platform.python_version()})"


def escape_unwritable(*streams: object) -> None:
    r"""Have each text stream write a character its encoding cannot as a backslash escape
    (``errors="backslashreplace"``, as Python's stderr already does) instead of raising
    UnicodeEncodeError: ``tilecam score … > out.txt`` on a cp1252 console then writes
    ``\u5e73\u548c`` for 平和 and its exit code stays 0. A stream set to anything but
    ``strict`` (``surrogateescape``: undecodable bytes round-trip), or that cannot be
    reconfigured (a test's or an embedding program's), is left as it is.

    >>> import io
    >>> out = io.TextIOWrapper(io.BytesIO(), encoding="cp1252")
    >>> escape_unwritable(out)
    >>> print("平和 All Chows", file=out)
    >>> out.flush(); out.buffer.getvalue()
    b'\\u5e73\\u548c All Chows\n'
    """
    for stream in streams:
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is None or getattr(stream, "errors", None) != "strict":
            continue
        with contextlib.suppress(AttributeError, OSError, ValueError):  # closed, detached…
            reconfigure(errors="backslashreplace")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the process exit code."""
    escape_unwritable(sys.stdout, sys.stderr)
    try:  # importing every command takes a moment: Ctrl-C then is no traceback either
        parser = build_parser()
        args = parser.parse_args(argv)
    except KeyboardInterrupt:
        return 130
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except UnicodeEncodeError as exc:  # a ValueError, but no mistake of the user's
        print(f"tilecam {args.command}: error: {_encode_error_text(exc)}", file=sys.stderr)
        return 1
    except (UserError, ValueError, FileNotFoundError) as exc:
        text = _os_error_text(exc) if isinstance(exc, OSError) else str(exc)
        print(f"tilecam {args.command}: error: {text}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # the reader went away (`tilecam detect --json ... | head`)
        _silence_stdout()
        return 141  # 128 + SIGPIPE, as a shell reports a killed pipe writer
    except OSError as exc:  # a path given that cannot be written or read, a full disk…
        print(f"tilecam {args.command}: error: {_os_error_text(exc)}", file=sys.stderr)
        return 2 if isinstance(exc, _PATH_ERRORS) else 1


#: Errors that come from a path the user gave (exit 2, bad input); other OSErrors exit 1.
_PATH_ERRORS = (NotADirectoryError, IsADirectoryError, PermissionError, FileExistsError)


def _encode_error_text(exc: UnicodeEncodeError) -> str:
    """One line for text that could not be encoded (written to a stream that
    :func:`escape_unwritable` could not set), with how to have the output in UTF-8.

    >>> try:
    ...     "平和".encode("cp1252")
    ... except UnicodeEncodeError as exc:
    ...     print(_encode_error_text(exc))  # doctest: +ELLIPSIS
    'charmap' codec can't encode ... (where the output cannot take them: set PYTHONUTF8=1 ...)
    """
    return (f"{exc} (where the output cannot take them: set PYTHONUTF8=1 or "
            "PYTHONIOENCODING=utf-8)")


def _os_error_text(exc: OSError) -> str:
    """One line for an OSError: what went wrong and the path, without the errno.

    >>> _os_error_text(NotADirectoryError(20, "Not a directory", "/etc/passwd/images"))
    'not a directory: /etc/passwd/images'
    >>> _os_error_text(OSError("disk trouble"))
    'disk trouble'
    """
    if exc.strerror is None:
        return str(exc)
    what = exc.strerror[:1].lower() + exc.strerror[1:]
    return f"{what}: {exc.filename}" if exc.filename is not None else what


def _silence_stdout() -> None:
    """Point stdout at /dev/null so that Python's final flush does not raise again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (AttributeError, OSError, ValueError):  # not a real file (tests, embedding)
        pass


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
