"""``tilecam waits``: what a hand one tile short of a win waits on, and the score of each.

Example::

    tilecam waits 1112345678999m       # nine gates: waits on every 1m-9m
    tilecam waits 123m456p789s1122z --json
    tilecam waits 1112345678999m1p     # a hand that drew (14 tiles): what to discard
    tilecam waits 123m456p789s1122z --seen EES   # the tiles seen elsewhere are not left
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping
from typing import Any

import scoring
import scoring.tiles
from scoring import Discards, Score, Waits
from scoring.hand import TooManyCopies
from scoring.notation import fold_width
from scoring.tiles import ZH_NAMES
from tilecam.commands.score import (
    WAITS_OPTIONS,
    add_rules_arguments,
    check_context_first,
    display_width,
    pad,
    rule_context,
    settings_of,
)


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
        "says so first, on a discard or only self-drawn: score it with tilecam score). A "
        "discard that leaves it ready in form only — no copy left of any wait, each held, "
        "discarded or seen (--seen) — ranks after those ready with a live wait and before "
        "those one tile from ready.",
    )
    p.add_argument("hand", help="hand notation without the winning tile (or a hand that "
                   "drew, to see what to discard)")
    p.add_argument("--seen", action="append", metavar="TILES",
                   help="tiles seen elsewhere — others' discards and melds, not your own — "
                   "in the notation (e.g. 5p5pEEE9s; repeatable): the tiles left of each "
                   "wait and useful draw do not count them, and a wait with none left is "
                   "dead (0 left, no score); a wait whose other three copies are in sight "
                   "(these, your own melds, the copy a hand that drew discards) and none "
                   "held standing is scored 和绝张 (MCR: last of its kind; without --seen "
                   "none is, and --seen '' says nothing is seen). A wild seen counts as its "
                   "kind; bonus tiles are ignored (no hand waits on one)")
    add_rules_arguments(p)
    p.set_defaults(func=run)


#: What a hand ready in form only is told (形式听牌): every wait dead.
IN_FORM_ONLY = ("ready in form only: no copy is left of what it waits on (each held, "
                "discarded or seen), so it cannot win until a draw changes its wait")


def seen_note(seen: str) -> str:
    """The words that say which tiles seen elsewhere were counted (empty when none)."""
    return f" (tiles seen elsewhere: {seen})" if seen else ""


def named(tile: str) -> str:
    """A tile's code with its Chinese name (:data:`scoring.tiles.ZH_NAMES`), as the page
    shows a tile: ``5s 五条``.

    >>> named("5s"), named("E"), named("1f")
    ('5s 五条', 'E 东', '1f 春')
    """
    zh = ZH_NAMES.get(tile)
    return f"{tile} {zh}" if zh else tile


#: The terminal columns of the widest :func:`named` kind (``5s 五条``): the column of
#: tiles in ``tilecam waits`` is padded to it.
NAMED_WIDTH = max(display_width(named(t)) for t in scoring.tiles.KINDS)


def useful_line(tile: str, count: int, useful: list[tuple[str, int]]) -> str:
    """One discard below ready with its useful draws (有效牌): ``count`` tiles in all, and
    each kind with its copies left, each tile with its Chinese name (:func:`named`), as
    ``tilecam waits`` and ``tilecam recognize`` print them.

    >>> useful_line("5s", 8, [("8s", 4), ("E", 2)])
    '  discard 5s 五条   8 useful draw(s): 8s 八条 (4), E 东 (2)'
    >>> useful_line("E", 0, [])
    '  discard E 东      0 useful draw(s): none left'
    """
    draws = ", ".join(f"{named(t)} ({n})" for t, n in useful) or "none left"
    return f"  discard {pad(named(tile), NAMED_WIDTH)} {count:>3} useful draw(s): {draws}"


def format_waits(w: Waits) -> str:
    """Human-readable wait analysis: each tile waited on with its Chinese name
    (:func:`named`)."""
    if not w.ready:
        return (f"{w.hand}: not ready, {w.shanten} tile(s) from ready (shanten {w.shanten})"
                + seen_note(w.seen))
    lines = [f"{w.hand}: ready, waits on {len(w.waits)} kind(s)" + seen_note(w.seen)]
    for t in w.waits:
        parts = [f"  {pad(named(t.tile), NAMED_WIDTH)}  {t.remaining} left"]
        for label, s in (("discard", t.discard), ("self-drawn", t.self_drawn)):
            if s is None:
                parts.append(f"{label}: -")
            else:
                legal = "" if s.legal else " (below minimum)"
                parts.append(f"{label}: {s.total}{legal}")
        lines.append(";  ".join(parts))
    if w.waits and not w.live:
        lines.append(f"  ({IN_FORM_ONLY})")
    return "\n".join(lines)


def _scores(t: Any, discarded: str, hand: scoring.Hand) -> str:
    if not t.remaining:  # no copy left to win on: no score (scoring.discards)
        kind = scoring.tiles.index(t.tile)
        read_as = dict(hand.melded_as)  # a Xiamen meld's tile of the gold's kind is a 白板
        held = sum(scoring.tiles.index(c) == kind
                   for c in (*hand.standing,
                             *(read_as.get(c, c) for m in hand.melds for c in m.tiles)))
        if kind == scoring.tiles.index(discarded):
            return "its last copy is this discard"
        if held >= scoring.tiles.COPIES:
            return "the hand holds all four"
        return "the others are held or seen"
    parts = []
    for label, s in (("discard", t.discard), ("self-drawn", t.self_drawn)):
        if s is not None:
            parts.append(f"{label} {s.total}" + ("" if s.legal else " (below minimum)"))
    return ", ".join(parts) or "-"


def format_discards(d: Discards, hand: scoring.Hand | None = None) -> str:
    """Human-readable discard analysis (何切) of a hand that drew: the discards that leave
    it ready with their waits, best first; when none leaves it ready with a tile left to
    win on, those that leave it ready in form only (every wait dead: no copy left), which
    rank first, then those nearest to ready with their useful draws (有效牌), the most
    first; each tile with its Chinese name (:func:`named`). ``hand``: the hand analysed,
    as the rules read its meld tiles (:func:`scoring.stand_ins`); else ``d.hand``
    parsed."""
    hand = scoring.parse_hand(d.hand) if hand is None else hand
    ready = d.ready_after
    form_only = tuple(x for x in ready if not x.live)
    lines = []
    after: list[str] = []  # the discards below ready, told after those ready in form only
    if not any(x.live for x in ready):
        below = [x for x in d.discards if not x.waits.ready]
        near = min((x.waits.shanten for x in below), default=0)
        best = [x for x in below if x.waits.shanten == near]
        head = f"{d.hand}: no discard leaves it ready"
        if form_only:  # they rank first; the nearest below ready are told after them
            lines.append(f"{head} with a tile left to win on" + seen_note(d.seen))
            lines.append(f"  {len(form_only)} leave(s) it ready in form only (best first; "
                         "most draws change a dead wait into a live one):")
            head, out = "  below ready, the best are", after
        else:
            head, out = f"{head}; the best are", lines
        note = "" if form_only else seen_note(d.seen)
        if not best:
            if not form_only:
                lines.append(f"{d.hand}: no discard leaves it ready" + note)
        elif any(x.useful is None for x in best):  # rules that count no shape alone
            out.append(f"{head} {near} tile(s) from ready (shanten {near}): "
                       f"discard {' or '.join(named(x.tile) for x in best)}" + note)
        else:
            out.append(f"{head} {near} tile(s) from ready (shanten {near}), "
                       "the most useful draws first:" + note)
            after.extend(useful_line(x.tile, x.useful_draws,
                                     [(u.tile, u.remaining) for u in x.useful or ()])
                         for x in best)
        further = len(below) - len(best)
        if further:
            after.append(f"  ({further} other discard(s) leave it further from ready)")
        ready = form_only
    else:
        lines.append(f"{d.hand}: {len(ready)} discard(s) leave it ready (best first)"
                     + seen_note(d.seen))
    for x in ready:
        waits = "; ".join(f"{named(t.tile)} ({t.remaining} left: {_scores(t, x.tile, hand)})"
                          for t in x.waits.waits)
        live = [t for t in x.waits.waits if t.remaining]
        wins = any(s is not None and s.legal for t in live for s in (t.discard, t.self_drawn))
        note = ("" if wins else "  — no wait makes a legal win" if live
                else f"  — {IN_FORM_ONLY}")
        lines.append(f"  discard {pad(named(x.tile), NAMED_WIDTH)} waits on {waits}{note}")
    return "\n".join(lines + after)


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


def _parse(args: argparse.Namespace) -> scoring.Hand:
    """The hand of ``args``, its meld tiles read as the rules read them under the context
    given (:func:`scoring.stand_ins`: a Xiamen meld's tile of the gold's kind is a 白板,
    so a hand may hold it and four golds); rules or a context that are none are refused
    after the hand's own errors, by the analysis."""
    from tilecam.tables.scoring_bridge import stand_ins

    context: dict[str, Any] = dict(rule_context(args, WAITS_CONTEXT))
    try:  # a context the rules refuse reads the meld tiles as written
        return scoring.parse_hand(args.hand, melded_as=stand_ins(args.rules, context))
    except TooManyCopies:  # counted as written: a context that is none says so first
        scoring.check_context(args.rules, **context)
        raise


#: The named options that ``--context`` may not set in ``tilecam waits``.
WAITS_CONTEXT = {**WAITS_OPTIONS, "seen": "--seen"}


def run(args: argparse.Namespace) -> int:
    kwargs: dict[str, Any] = dict(
        rules=args.rules,
        version=args.rules_version,
        seat_wind=args.seat,
        prevalent_wind=args.prevalent,
        flowers=args.flowers,
        settings=settings_of(args),
        **rule_context(args, WAITS_CONTEXT),
    )
    if args.seen:
        kwargs["seen"] = " ".join(args.seen)
    # the context's own mistakes before the hand's, as POST /v1/waits answers
    check_context_first(kwargs)
    hand = _parse(args)
    if scoring.drew(hand, args.rules):  # 14 in MCR: what to discard; 13: the waits
        drew = scoring.discards(hand, **kwargs)
        if args.json:
            print(json.dumps(drew.to_dict(), ensure_ascii=False))
        else:
            win = format_win(fold_width(args.hand), drew)  # a win already: tilecam score scores it
            if win is not None:
                print(win)
            print(format_discards(drew, hand))
        return 0
    result = scoring.waits(hand, **kwargs)
    if args.json:
        print(json.dumps(result.to_dict(), ensure_ascii=False))
    else:
        print(format_waits(result))
    return 0
