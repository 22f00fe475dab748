"""Speed of a long Xiamen score sheet through the API: posting hands, a referee's
correction of the first hand that moves the deal for every later one (each scored again:
``reseat``), the standings and the hand list.

Under Xiamen the deal stays with a dealer who wins or whose hand is drawn, and each 课's
chips carry from hand to hand, so a correction of hand 1 can move every hand after it;
this bench measures that worst case on one sheet of ``--hands`` hands (at most 400, the
most a sheet takes). Hands: a self-drawn win by a random seat, one in ten a drawn hand;
the correction turns hand 1 into a drawn hand.

Usage::

    .venv/bin/python bench/sheet_bench.py [--hands 200] [--seed 0] [--database postgres] [--json]
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
for _path in (REPO, REPO / "bench"):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

from fuzz_inputs import ADMIN_KEY, throwaway_app  # noqa: E402  (bench/)

WIN = "123m456m789m123p456p55s"  # five sets and a pair, gold 9s: no gold held


def timed(call: Any) -> tuple[Any, float]:
    """``call()`` and its wall time in ms."""
    t0 = time.perf_counter()
    out = call()
    return out, (time.perf_counter() - t0) * 1000


def sheet_bench(hands: int, seed: int = 0, database: str = "sqlite") -> dict[str, Any]:
    """Build one Xiamen sheet of ``hands`` hands and time the requests (ms)."""
    from _deps import fastapi_test_client

    from tilecam.db.testing import fresh_postgres_database

    TestClient = fastapi_test_client()

    rng = random.Random(seed)
    folder = Path(tempfile.mkdtemp(prefix="tilecam-sheet-bench-"))
    url = fresh_postgres_database() if database == "postgres" else None
    app = throwaway_app(folder, load_model=False, database_url=url)
    admin = {"Authorization": f"Bearer {ADMIN_KEY}"}
    try:
        with TestClient(app) as client:
            event = client.post("/v1/events", json={"name": "bench", "rules": "xiamen"},
                                headers=admin).json()
            table = client.post(f"/v1/events/{event['id']}/tables", headers=admin, json={
                "name": "T1", "players": ["Ann", "Bo", "Cai", "Dan"], "rules": "xiamen"}).json()
            base = f"/v1/tables/{table['id']}"
            post_ms = []
            for _ in range(hands):
                body: dict[str, Any] = {"hand": WIN, "winner": rng.choice("ESWN"),
                                        "self_drawn": True, "context": {"gold": "9s"}}
                if rng.random() < 0.1:
                    body = {"outcome": "draw"}
                r, ms = timed(lambda b=body: client.post(f"{base}/hands", json=b, headers=admin))
                if r.status_code != 201:
                    raise SystemExit(f"bench: posting a hand gave {r.status_code}: {r.text}")
                post_ms.append(ms)
            r, correct_ms = timed(lambda: client.post(
                f"{base}/hands/1/corrections", headers=admin,
                json={"outcome": "draw", "reason": "bench: the hand was drawn"}))
            if r.status_code != 201:
                raise SystemExit(f"bench: the correction gave {r.status_code}: {r.text}")
            listed, list_ms = timed(lambda: client.get(f"{base}/hands", headers=admin).json())
            _, standings_ms = timed(lambda: client.get(f"{base}/standings", headers=admin))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return {
        "hands": hands,
        "database": database,
        "post_ms_first_10": round(sum(post_ms[:10]) / max(1, len(post_ms[:10])), 1),
        "post_ms_last_10": round(sum(post_ms[-10:]) / max(1, len(post_ms[-10:])), 1),
        "correct_first_ms": round(correct_ms),
        "reseated": sum(h["action"] == "reseat" for h in listed["hands"]),
        "list_ms": round(list_ms),
        "standings_ms": round(standings_ms),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=200, help="hands on the sheet (2-400)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--database", choices=("sqlite", "postgres"), default="sqlite")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args(argv)
    if not 2 <= args.hands <= 400:
        ap.error("--hands must be 2-400 (a sheet takes at most 400)")
    out = sheet_bench(args.hands, args.seed, args.database)
    if args.json:
        print(json.dumps(out))
    else:
        print(f"{out['hands']} hands on one Xiamen sheet ({out['database']}): posting a hand "
              f"{out['post_ms_first_10']} ms (first 10) → {out['post_ms_last_10']} ms (last 10); "
              f"correcting hand 1 {out['correct_first_ms']} ms ({out['reseated']} hands scored "
              f"again); hand list {out['list_ms']} ms; standings {out['standings_ms']} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
