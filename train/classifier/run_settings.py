"""The settings a crop-classifier run (``train.py``) keeps in its ``last.pt``, and how
``--resume`` restores them (no torch here, so the checks are tested in the main suite).

A resumed run goes on as it was started: each setting the command line leaves out is the
run's own, and one given with another value is refused unless ``--change-settings`` says
the change is meant (a new leg from the run's state, such as the model card's warm
restarts with a new ``--seed``). ``--steps``, ``--minutes``, ``--threads`` and
``--eval-every`` are not settings of the run: they may change on every resume.
"""

from __future__ import annotations

import argparse
import runpy
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

#: what decides the run's training (hyperparameters, augmentation, the network's shape)
SETTINGS = ("lr", "batch", "seed", "style", "view", "motion", "motion_px", "teacher_clean",
            "distill_only", "real_share", "balance", "codes", "teacher", "distill",
            "teacher_size", "width", "stem_stride", "factors")
#: the crops it reads: a change is reported, not refused (files move)
DATA = ("real", "synth", "val")

#: the options given on the command line, not left at their defaults (``--resume`` keeps
#: the run's own for the rest): ``train/_options.py``, shared with ``train/export.py`` and
#: run from its path (``train`` is no package; a folder put on ``sys.path`` for it would
#: make ``import train`` find a script)
given_options: Callable[[argparse.ArgumentParser, list[str]], set[str]] = runpy.run_path(
    str(Path(__file__).resolve().parents[1] / "_options.py"))["given_options"]


def _plain(value: Any) -> Any:
    """``value`` as JSON-like data (paths as text, tuples as lists) for comparing."""
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def run_settings(args: argparse.Namespace) -> dict[str, Any]:
    """The settings and data of a run (``args``), as stored in its ``last.pt``.

    >>> run_settings(argparse.Namespace(lr=1e-3, motion_px=(3.0, 13.0), teacher=None,
    ...                                 real=Path("r.npz")))["motion_px"]
    [3.0, 13.0]
    """
    return {k: _plain(getattr(args, k)) for k in (*SETTINGS, *DATA) if hasattr(args, k)}


def _flag(key: str) -> str:
    return "--" + key.replace("_", "-")


def restore_settings(
    saved: Mapping[str, Any] | None,
    args: argparse.Namespace,
    given: set[str],
    change: bool = False,
    checkpoint: str = "last.pt",
) -> list[str]:
    """Put the run's own settings ``saved`` (from its ``last.pt``) into ``args`` for
    ``--resume``; returns the notes to print. A setting in ``given`` (the command line)
    with another value is an error naming each one, unless ``change``. A checkpoint from
    before settings were stored (``saved`` None) keeps the command line's, with a note.

    >>> ns = argparse.Namespace(lr=3e-3, style=0.0, seed=0, real=Path("a.npz"))
    >>> restore_settings({"lr": 1e-3, "style": 0.3, "seed": 0, "real": "a.npz"}, ns, set())
    ["resumed with the run's own --lr 0.001, --style 0.3"]
    >>> (ns.lr, ns.style)
    (0.001, 0.3)
    """
    if saved is None:
        return [f"{checkpoint} stores no settings (made before they were kept): the run goes "
                "on with this command line's (repeat every option of the run)"]
    restored, differ, notes = [], [], []
    for key in SETTINGS:
        if key not in saved or not hasattr(args, key):
            continue
        mine, theirs = _plain(getattr(args, key)), saved[key]
        if mine == theirs:
            continue
        if key in given:
            differ.append(f"{_flag(key)} {mine} (the run's: {theirs})")
            continue
        value = theirs
        if key == "motion_px" or (key == "factors" and theirs is not None):
            value = tuple(theirs)
        elif key == "teacher" and theirs is not None:
            value = Path(theirs)
        setattr(args, key, value)
        restored.append(f"{_flag(key)} {theirs}")
    if differ and not change:
        raise SystemExit(
            f"--resume: {checkpoint} was run with other settings than {', '.join(differ)}; "
            "drop those options to go on as the run was started, or add --change-settings "
            "to continue its state with the new ones (a new leg)")
    if differ:
        notes.append(f"--change-settings: the run goes on with {', '.join(differ)}")
    if restored:
        notes.append(f"resumed with the run's own {', '.join(restored)}")
    for key in DATA:
        if key in saved and hasattr(args, key) and _plain(getattr(args, key)) != saved[key]:
            notes.append(f"note: {_flag(key)} differs from the run's ({saved[key]})")
    return notes


def resume_checkpoint(out: Path) -> Path:
    """``out/last.pt`` for ``--resume``; exits naming the folder when it is not there (a
    typo in ``--out`` or a copy that failed would otherwise start a new run)."""
    last = out / "last.pt"
    if not last.is_file():
        raise SystemExit(f"--resume: no {last} (nothing to continue in {out}); check --out, "
                         "or drop --resume to start a new run there")
    return last
