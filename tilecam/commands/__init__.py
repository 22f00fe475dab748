"""Subcommands of ``tilecam``: one module each, discovered by :mod:`tilecam.cli`."""
