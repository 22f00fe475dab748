"""``tilecam waits``: what a hand one tile short of a win waits on, and the score of each.

Example::

    tilecam waits 1112345678999m       # nine gates: waits on every 1m-9m
    tilecam waits 123m456p789s1122z --json
    tilecam waits 1112345678999m1p     # a hand that drew (14 tiles): what to discard
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping
from typing import Any

import scoring
import scoring.tiles
from scoring import Discards, Score, Waits
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
        "gets each discard with the waits of what is kept, best first; when no discard "
        "leaves it ready, those nearest to ready with their useful draws (有效牌: the tiles "
        "left whose draw brings it nearer), the most first (and, when it is a win already, "
        "says so first, on a discard or only self-drawn: score it with tilecam score).",
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


def _scores(t: Any, discarded: str) -> str:
    if not t.remaining:  # no copy left to win on: no score (scoring.discards)
        same = scoring.tiles.index(t.tile) == scoring.tiles.index(discarded)
        return "its last copy is this discard" if same else "the hand holds all four"
    parts = []
    for label, s in (("discard", t.discard), ("self-drawn", t.self_drawn)):
        if s is not None:
            parts.append(f"{label} {s.total}" + ("" if s.legal else " (below minimum)"))
    return ", ".join(parts) or "-"


def format_discards(d: Discards) -> str:
    """Human-readable discard analysis (何切) of a hand that drew: the discards that leave
    it ready with their waits, best first; else those nearest to ready with their useful
    draws (有效牌), the most first."""
    ready = d.ready_after
    if not ready:
        best = [x for x in d.discards if x.waits.shanten == d.shanten]
        if any(x.useful is None for x in best):  # rules that count no shape alone
            return (f"{d.hand}: no discard leaves it ready; the best are {d.shanten} tile(s) "
                    f"from ready (shanten {d.shanten}): discard "
                    f"{' or '.join(x.tile for x in best)}")
        lines = [f"{d.hand}: no discard leaves it ready; the best are {d.shanten} tile(s) "
                 f"from ready (shanten {d.shanten}), the most useful draws first:"]
        for x in best:
            draws = ", ".join(f"{u.tile} ({u.remaining})" for u in x.useful or ()) or "none left"
            lines.append(f"  discard {x.tile:<3} {x.useful_draws:>3} useful draw(s): {draws}")
        further = len(d.discards) - len(best)
        if further:
            lines.append(f"  ({further} other discard(s) leave it further from ready)")
        return "\n".join(lines)
    lines = [f"{d.hand}: {len(ready)} discard(s) leave it ready (best first)"]
    for x in ready:
        waits = "; ".join(f"{t.tile} ({t.remaining} left: {_scores(t, x.tile)})"
                          for t in x.waits.waits)
        live = [t for t in x.waits.waits if t.remaining]
        wins = any(s is not None and s.legal for t in live for s in (t.discard, t.self_drawn))
        note = ("" if wins else "  — no wait makes a legal win" if live
                else "  — ready in form only: no copy is left of what it waits on")
        lines.append(f"  discard {x.tile:<3} waits on {waits}{note}")
    return "\n".join(lines)


def _way(s: Score | None) -> str:
    """One way of winning as ``tilecam waits`` names it: its total, and why it is no
    legal win where it is none."""
    if s is None:
        return "refused by the rules"
    if s.legal:
        return f"total {s.total}"
    reason = s.details.get("reason") if isinstance(s.details, Mapping) else None
    return f"total {s.total}, no legal win" + (f" ({reason})" if reason else "")


def format_win(hand: str, d: Discards) -> str | None:
    """The line that says a hand that drew is a win already — on a discard, self-drawn
    or either — with the total each way; None when it is no win."""
    if d.win is None:
        return None
    on_discard, self_drawn = d.win_on_discard, d.win_self_drawn
    ways = f"on a discard: {_way(on_discard)}; self-drawn: {_way(self_drawn)}"
    legal_discard = on_discard is not None and on_discard.legal
    legal_drawn = self_drawn is not None and self_drawn.legal
    if legal_discard and legal_drawn:
        what, option = "a win on a discard or self-drawn", ""
    elif legal_drawn:
        what, option = "a win only self-drawn", " --self-drawn"
    elif legal_discard:
        what, option = "a win only on a discard", ""
    else:
        what, option = "a winning shape but no legal win", ""
    return (f"{hand}: this hand is {what} ({ways}): score it with tilecam score{option}; "
            "what to discard instead:")


def run(args: argparse.Namespace) -> int:
    hand = scoring.parse_hand(args.hand)
    kwargs: dict[str, Any] = dict(
        rules=args.rules,
        version=args.rules_version,
        seat_wind=args.seat,
        prevalent_wind=args.prevalent,
        flowers=args.flowers,
        settings=settings_of(args),
        **rule_context(args, WAITS_OPTIONS),
    )
    if scoring.drew(hand, args.rules):  # 14 in MCR: what to discard; 13: the waits
        drew = scoring.discards(hand, **kwargs)
        if args.json:
            print(json.dumps(drew.to_dict(), ensure_ascii=False))
        else:
            win = format_win(args.hand, drew)  # a win already: tilecam score scores it
            if win is not None:
                print(win)
            print(format_discards(drew))
        return 0
    result = scoring.waits(hand, **kwargs)
    if args.json:
        print(json.dumps(result.to_dict(), ensure_ascii=False))
    else:
        print(format_waits(result))
    return 0
