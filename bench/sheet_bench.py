"""Speed of a long Xiamen score sheet through the API: posting hands, a referee's
correction of the first hand that moves the deal for every later one (each scored again:
``reseat``), the standings and the hand list.

Under Xiamen the deal stays with a dealer who wins or whose hand is drawn, and each 课's
chips carry from hand to hand, so a correction of hand 1 can move every hand after it;
this bench measures that worst case on one sheet of ``--hands`` hands (at most 400, the
most a sheet takes). Hands: a self-drawn win by a random seat, one in ten a drawn hand;
the correction turns hand 1 into a drawn hand.

``--corrections K`` then corrects one of the first three hands K times more (a drawn
hand, a win, in turn: each moves the hands after it, which are scored again, so the
sheet's revisions grow by about a sheet's length each time, as a referee's corrections
grew them in the soak review of session 73) and times the reads of the corrected sheet:
the table (its next hand), a hand with its history, the standings, the whole sheet, the
hand list and a hand sent again (the sheet is read to place it).

Usage::

    .venv/bin/python bench/sheet_bench.py [--hands 200] [--corrections 8] [--seed 0]
        [--database postgres] [--json]
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


def median_ms(call: Any, repeat: int = 3) -> float:
    """The median wall time of ``repeat`` calls of ``call`` (ms)."""
    return sorted(timed(call)[1] for _ in range(repeat))[repeat // 2]


def sheet_bench(hands: int, seed: int = 0, database: str = "sqlite",
                corrections: int = 0) -> dict[str, Any]:
    """Build one Xiamen sheet of ``hands`` hands and time the requests (ms); with
    ``corrections``, correct early hands that many times more and time the reads of the
    corrected sheet (``corrected``)."""
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
            bodies: list[dict[str, Any]] = []
            for _ in range(hands):
                body: dict[str, Any] = {"hand": WIN, "winner": rng.choice("ESWN"),
                                        "self_drawn": True, "context": {"gold": "9s"}}
                if rng.random() < 0.1:
                    body = {"outcome": "draw"}
                bodies.append(body)
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
            corrected = (correct_more(client, base, admin, bodies, corrections, rng)
                         if corrections else None)
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
        **({"corrected": corrected} if corrected else {}),
    }


def correct_more(client: Any, base: str, admin: dict[str, str],
                 bodies: list[dict[str, Any]], corrections: int,
                 rng: random.Random) -> dict[str, Any]:
    """Correct one of the sheet's first three hands ``corrections`` times (a drawn hand
    and a win in turn: each moves every hand after it) and time the corrected sheet's
    reads (ms, median of 3)."""
    correct_ms = []
    for k in range(corrections):
        body: dict[str, Any] = ({"outcome": "draw"} if k % 2 else
                                {"hand": WIN, "winner": rng.choice("ESWN"),
                                 "self_drawn": True, "context": {"gold": "9s"}})
        r, ms = timed(lambda b=body: client.post(
            f"{base}/hands/{rng.randint(1, min(3, len(bodies)))}/corrections",
            headers=admin, json={**b, "reason": "bench: corrected"}))
        if r.status_code != 201:
            raise SystemExit(f"bench: a correction gave {r.status_code}: {r.text}")
        correct_ms.append(ms)
    listed = client.get(f"{base}/hands", headers=admin).json()["hands"]
    last = len(bodies)

    def get(path: str) -> Any:
        return lambda: client.get(f"{base}{path}", headers=admin)

    def again() -> Any:
        r = client.post(f"{base}/hands", headers=admin, json={**bodies[-1], "number": last})
        if r.status_code != 200:
            raise SystemExit(f"bench: sending hand {last} again gave {r.status_code}: {r.text}")
        return r

    return {
        "corrections": corrections,
        "revisions": sum(h["revision"] for h in listed),
        "correct_ms_median": round(sorted(correct_ms)[len(correct_ms) // 2]),
        "table_ms": round(median_ms(get("")), 1),
        "hand_history_ms": round(median_ms(get("/hands/1")), 1),
        "standings_ms": round(median_ms(get("/standings")), 1),
        "sheet_ms": round(median_ms(get("/sheet")), 1),
        "list_ms": round(median_ms(get("/hands")), 1),
        "post_again_ms": round(median_ms(again), 1),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=200, help="hands on the sheet (2-400)")
    ap.add_argument("--corrections", type=int, default=0, help="correct early hands this "
                    "many times more, then time the corrected sheet's reads")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--database", choices=("sqlite", "postgres"), default="sqlite")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args(argv)
    if not 2 <= args.hands <= 400:
        ap.error("--hands must be 2-400 (a sheet takes at most 400)")
    if args.corrections < 0:
        ap.error("--corrections must be 0 or more")
    out = sheet_bench(args.hands, args.seed, args.database, args.corrections)
    if args.json:
        print(json.dumps(out))
    else:
        print(f"{out['hands']} hands on one Xiamen sheet ({out['database']}): posting a hand "
              f"{out['post_ms_first_10']} ms (first 10) → {out['post_ms_last_10']} ms (last 10); "
              f"correcting hand 1 {out['correct_first_ms']} ms ({out['reseated']} hands scored "
              f"again); hand list {out['list_ms']} ms; standings {out['standings_ms']} ms")
        if "corrected" in out:
            c = out["corrected"]
            print(f"after {c['corrections']} more corrections of early hands "
                  f"({c['revisions']} revisions; a correction {c['correct_ms_median']} ms): "
                  f"table {c['table_ms']} ms, hand 1 with its history "
                  f"{c['hand_history_ms']} ms, standings {c['standings_ms']} ms, whole "
                  f"sheet {c['sheet_ms']} ms, hand list {c['list_ms']} ms, a hand sent "
                  f"again {c['post_again_ms']} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
