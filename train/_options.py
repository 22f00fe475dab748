"""Command-line helpers shared by scripts of ``train/`` (``export.py``,
``classifier/run_settings.py``).

``train/`` is a folder of scripts, not a package, and its name is also that of
``train/train.py`` and ``train/classifier/train.py``: a script puts its own folder first
on ``sys.path`` when it runs, and the tests load the scripts under names of their own
(``_train_script_<name>``, ``tests/train/conftest.py``). So this file is not imported by
name — no folder joins ``sys.path`` for it — but run from its path, as
``runpy.run_path(path)["given_options"]``, which works alike for a script run as
``python train/export.py``, imported from ``train/classifier/`` or loaded by a test.
"""

from __future__ import annotations

import argparse


def given_options(ap: argparse.ArgumentParser, argv: list[str]) -> set[str]:
    """The ``dest`` of every option given on the command line ``argv`` (abbreviations and
    ``--opt=value`` included), as opposed to those left at their defaults; ``ap``'s
    defaults are as they were afterwards.

    >>> ap = argparse.ArgumentParser()
    >>> _ = ap.add_argument("--lr", type=float, default=0.1)
    >>> _ = ap.add_argument("--seed", type=int, default=0)
    >>> given_options(ap, ["--se=0"]), ap.get_default("seed")
    ({'seed'}, 0)
    """
    saved = {id(a): a.default for a in ap._actions}
    try:
        for a in ap._actions:
            a.default = argparse.SUPPRESS
        return set(vars(ap.parse_args(argv)))
    finally:
        for a in ap._actions:
            a.default = saved[id(a)]
