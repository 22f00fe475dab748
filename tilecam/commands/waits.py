"""``tilecam waits``: what a hand one tile short of a win waits on, and the score of each.

Example::

    tilecam waits 1112345678999m       # nine gates: waits on every 1m-9m
    tilecam waits 123m456p789s1122z --json
    tilecam waits 1112345678999m1p     # a hand that drew (14 tiles): what to discard
"""

from __future__ import annotations

import argparse
import json
from typing import Any

import scoring
from scoring import Discards, Waits
from tilecam.commands.score import WAITS_OPTIONS, add_rules_arguments, rule_context, settings_of


def register(sub: Any) -> None:
    p = sub.add_parser(
        "waits",
        help="tiles a hand one short of a win waits on (or how far from ready it is), or "
        "for a hand that drew, each discard with what it then waits on",
        description="Wait analysis: for a ready hand (13 tiles in MCR, kongs counted as 3) "
        "every tile that completes it (kinds whose four copies you hold included: the formal "
        "wait) with the best score on a discard and self-drawn; otherwise the shanten. "
        "A hand of a win's size that is no win (14 tiles in MCR: it drew and must discard) "
        "gets each discard with the waits of what is kept, best first (and, when it is a "
        "win already, says so first: score it with tilecam score).",
    )
    p.add_argument("hand", help="hand notation without the winning tile (or a hand that "
                   "drew, to see what to discard)")
    add_rules_arguments(p)
    p.set_defaults(func=run)


def format_waits(w: Waits) -> str:
    """Human-readable wait analysis."""
    if not w.ready:
        return f"{w.hand}: not ready, {w.shanten} tile(s) from ready (shanten {w.shanten})"
    lines = [f"{w.hand}: ready, waits on {len(w.waits)} kind(s)"]
    for t in w.waits:
        parts = [f"  {t.tile:<3} {t.remaining} left"]
        for label, s in (("discard", t.discard), ("self-drawn", t.self_drawn)):
            if s is None:
                parts.append(f"{label}: -")
            else:
                legal = "" if s.legal else " (below minimum)"
                parts.append(f"{label}: {s.total}{legal}")
        lines.append(";  ".join(parts))
    if w.waits and not any(t.remaining for t in w.waits):
        lines.append("  (ready in form only: the hand holds every copy of what it waits on)")
    return "\n".join(lines)


def _scores(t: Any) -> str:
    parts = []
    for label, s in (("discard", t.discard), ("self-drawn", t.self_drawn)):
        if s is not None:
            parts.append(f"{label} {s.total}" + ("" if s.legal else " (below minimum)"))
    return ", ".join(parts) or "-"


def format_discards(d: Discards) -> str:
    """Human-readable discard analysis (何切) of a hand that drew."""
    ready = d.ready_after
    if not ready:
        best = [x.tile for x in d.discards if x.waits.shanten == d.shanten]
        return (f"{d.hand}: no discard leaves it ready; the best are {d.shanten} tile(s) "
                f"from ready (shanten {d.shanten}): discard {' or '.join(best)}")
    lines = [f"{d.hand}: {len(ready)} discard(s) leave it ready (best first)"]
    for x in ready:
        waits = "; ".join(f"{t.tile} ({t.remaining} left: {_scores(t)})" for t in x.waits.waits)
        wins = any(s is not None and s.legal for t in x.waits.waits
                   for s in (t.discard, t.self_drawn))
        lines.append(f"  discard {x.tile:<3} waits on {waits}"
                     + ("" if wins else "  — no wait makes a legal win"))
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    hand = scoring.parse_hand(args.hand)
    rule_set = scoring.get_rule_set(args.rules)
    kwargs: dict[str, Any] = dict(
        rules=args.rules,
        version=args.rules_version,
        seat_wind=args.seat,
        prevalent_wind=args.prevalent,
        flowers=args.flowers,
        settings=settings_of(args),
        **rule_context(args, WAITS_OPTIONS),
    )
    size = rule_set.hand_size
    if hand.tile_count not in (size - 1, size):
        raise scoring.HandError(
            f"wrong number of tiles: {hand.tile_count} (a {rule_set.title} hand one tile "
            f"short of a win holds {size - 1}, to see its waits; a hand that drew holds "
            f"{size}, to see what to discard; each kong counted as 3)")
    if hand.tile_count == size:
        drew = scoring.discards(hand, **kwargs)
        win = drew.win  # a win already: tilecam score scores it
        if args.json:
            print(json.dumps(drew.to_dict(), ensure_ascii=False))
        else:
            if win is not None:
                below = "" if win.legal else ", below the minimum to win"
                print(f"{args.hand}: this hand is a win (total {win.total} on its last tile"
                      f"{below}): score it with tilecam score; what to discard instead:")
            print(format_discards(drew))
        return 0
    result = scoring.waits(hand, **kwargs)
    if args.json:
        print(json.dumps(result.to_dict(), ensure_ascii=False))
    else:
        print(format_waits(result))
    return 0
