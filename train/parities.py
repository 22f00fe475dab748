"""Compute the SIFT parity of every hk-photos copy once and cache it as JSON.

usage: .venv/bin/python train/parities.py [SRC] [OUT.json]
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.data.photos import compute_parities, group_copies


def main() -> None:
    """Compute and write the parities (arguments: see the module doc)."""
    src = Path(sys.argv[1] if len(sys.argv) > 1 else "../shared/datasets/hk-photos")
    out = Path(sys.argv[2] if len(sys.argv) > 2 else "datasets/build/parity.json")
    done = 0

    def progress(stems: Iterable[str]) -> Iterator[str]:
        nonlocal done
        for s in stems:
            done += 1
            if done % 20 == 0:
                print(f"{done} stems", flush=True)
            yield s

    parities = compute_parities(group_copies(src / "images"), progress=progress)
    out.write_text(json.dumps(parities, indent=0))
    print(f"wrote {out}: {len(parities)} copies")


if __name__ == "__main__":
    main()
