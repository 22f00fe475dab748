"""The shell scripts of ``train/`` and CI parse (``bash -n``): they run on machines where a
syntax error costs a whole lent-GPU call or a CI run."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCRIPTS = sorted([*REPO.glob("train/**/*.sh"), REPO / ".ci" / "run"])


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: str(p.relative_to(REPO)))
def test_script_parses(script: Path) -> None:
    run = subprocess.run(["bash", "-n", str(script)], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr


def test_the_scripts_are_found() -> None:
    names = {p.name for p in SCRIPTS}
    assert {"prepare.sh", "run.sh", "pipeline.sh", "run"} <= names


def test_prepare_packs_only_sets_it_makes() -> None:
    """``train/gpu/prepare.sh`` step 5 packs ``--synth "$G/NAME:N"`` sets; each must be made
    in step 2 (``synth "$G/NAME" ...``), or a bare machine's pack fails after minutes of work."""
    text = (REPO / "train" / "gpu" / "prepare.sh").read_text()
    made = set(re.findall(r'^synth "\$G/([\w-]+)"', text, flags=re.M))
    packed = set(re.findall(r'--(?:val-)?synth "\$G/([\w-]+):', text))
    assert packed, "no --synth sets found in prepare.sh"
    assert packed <= made, f"packed but never made: {sorted(packed - made)}"
    assert {"synth-train-p-c", "synth-train-pict-b"} <= packed


#: What ``train/gpu/prepare.sh`` packs for a lent GPU (``.gpu/data.tgz``, the ultralytics
#: wheel, ``start.pt`` and the font), KiB, as rebuilt at WebP quality 50 in the
#: seventy-seventh session (data.tgz 23,045 KiB; 2,051 KiB left with the tree then, 33,674
#: KiB). The seventy-fifth's, at quality 55, was 31,548 KiB and left that tree 314 KiB;
#: the sixty-ninth's 32,075 KiB and the sixty-fourth's, at quality 60, 33,838 KiB. Where
#: the pack is built (``.gpu/``) its own size is used instead.
GPU_PACK_KIB = 29_811
#: The packed files the device call carries (model card step 22's ``carry``).
GPU_PACK_FILES = (".gpu/data.tgz", ".gpu/whl", ".gpu/start.pt", ".gpu/Arial.ttf")
#: What the device tool carries in all: the working tree and the packed files, KiB.
DEVICE_CARRY_KIB = 64 * 1024
#: Room the tree and the pack must leave under DEVICE_CARRY_KIB, KiB: the tracked tree grew
#: about 1.9 MiB a day over the seventy-sixth and seventy-seventh sessions (31,064 KiB on
#: 2026-12-06 09:24, 33,629 KiB on 2026-12-07 18:02), so a pack that only just fits fails
#: the lent call of a session a few hours later; this warns while there is time to rebuild.
GROWTH_ROOM_KIB = 512

needs_git = pytest.mark.skipif(shutil.which("git") is None or not (REPO / ".git").exists(),
                               reason="needs git and the repository's history")


def _tree_kib() -> int:
    """Bytes of the tracked files (what the device tool sends of the tree), in KiB."""
    files = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True,
                           check=True).stdout.split(b"\0")
    tree = sum((REPO / f.decode()).stat().st_size for f in files
               if f and (REPO / f.decode()).is_file())
    return tree // 1024


def _pack_kib() -> int:
    """The GPU pack's size in KiB: measured where ``.gpu/`` is built, else GPU_PACK_KIB."""
    if not all((REPO / p).exists() for p in GPU_PACK_FILES):
        return GPU_PACK_KIB
    return sum(f.stat().st_size for p in GPU_PACK_FILES
               for f in ([REPO / p] if (REPO / p).is_file() else (REPO / p).rglob("*"))
               if f.is_file()) // 1024


@needs_git
def test_the_tracked_tree_leaves_room_for_the_gpu_pack() -> None:
    """The tree travels to a lent GPU with the pack, 64 MiB in all: the sixty-fourth
    session found them 140 KiB over, which would have cost the next lent machine's call.
    When this fails the tree has grown: rebuild the pack smaller (``rm -r .gpu/data
    .gpu/data.tgz; QUALITY=45 bash train/gpu/prepare.sh``, or fewer N_SYNTH / N_TABLE) and
    lower GPU_PACK_KIB."""
    tree, pack = _tree_kib(), _pack_kib()
    assert tree + pack < DEVICE_CARRY_KIB, (
        f"tree {tree} KiB + pack {pack} KiB passes {DEVICE_CARRY_KIB} KiB")


@needs_git
def test_the_gpu_pack_leaves_room_for_the_tree_to_grow() -> None:
    """At least GROWTH_ROOM_KIB stays free under the 64 MiB with the pack: the seventy-fifth
    session's pack (31,548 KiB) left 314 KiB with the seventy-seventh's tree, a few hours
    of its growth. When this fails, rebuild the pack smaller as above."""
    tree, pack = _tree_kib(), _pack_kib()
    room = DEVICE_CARRY_KIB - tree - pack
    assert room >= GROWTH_ROOM_KIB, (
        f"tree {tree} KiB + pack {pack} KiB leave {room} KiB of {DEVICE_CARRY_KIB} KiB, "
        f"under the {GROWTH_ROOM_KIB} KiB the tree grows in a few hours")
