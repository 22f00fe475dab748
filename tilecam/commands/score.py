"""``tilecam score``: score a winning hand (MCR by default, any registered rule set).

Examples::

    tilecam score "[EEE,2][SSSS,1]WWWNN55pN" --self-drawn
    tilecam score 555666777p5556s7s --self-drawn --json
    tilecam score --batch hands.txt --json      # one "HAND [flags]" per line
    tilecam score --batch hands.txt --rules xiamen --context gold=5p   # every line's defaults
    tilecam score HAND --rules xiamen --set base_dealer=16 --context gold=5p
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import unicodedata
from typing import Any, BinaryIO, TextIO

import scoring
from scoring import HandError, Score
from scoring.notation import fold_width


def parse_pairs(items: list[str] | None, what: str) -> dict[str, str]:
    """``["a=1", "b=x"]`` -> ``{"a": "1", "b": "x"}``; HandError naming a malformed item."""
    out: dict[str, str] = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise HandError(f"{what} {item!r} is not KEY=VALUE")
        out[key.strip()] = value.strip()
    return out


#: The named options of ``score`` (and ``recognize``): a ``--context`` key may not set
#: what one of them sets (a second value of a keyword argument, before a TypeError).
NAMED_OPTIONS = {
    "hand": "the HAND argument",
    "rules": "--rules",
    "version": "--version",
    "settings": "--set",
    "seat_wind": "--seat",
    "prevalent_wind": "--prevalent",
    "flowers": "--flowers",
    "self_drawn": "--self-drawn",
    "last_of_kind": "--last-of-kind",
    "kong": "--kong",
    "last_wall_tile": "--last-wall-tile",
    "discarder": "--discarder",
}

#: Those that ``waits`` has (a win's flags are no context field of a wait).
WAITS_OPTIONS = {k: NAMED_OPTIONS[k] for k in ("hand", "rules", "version", "settings",
                                               "seat_wind", "prevalent_wind", "flowers")}


def rule_context(args: argparse.Namespace,
                 named: dict[str, str] | None = None) -> dict[str, str]:
    """The ``--context`` pairs; HandError naming the option to use for a key that a named
    option sets (``--context self_drawn=1``: use --self-drawn).

    >>> rule_context(argparse.Namespace(rule_context=["indicator=1m"]))
    {'indicator': '1m'}
    >>> rule_context(argparse.Namespace(rule_context=["seat_wind=S"]))
    Traceback (most recent call last):
    ...
    scoring.hand.HandError: --context may not set seat_wind; use --seat
    """
    pairs = parse_pairs(args.rule_context, "--context")
    named = NAMED_OPTIONS if named is None else named
    for key in pairs:
        if key in named:
            raise HandError(f"--context may not set {key}; use {named[key]}")
    return pairs


def settings_of(args: argparse.Namespace) -> dict[str, str]:
    """The ``--set`` pairs; HandError when ``--set version=`` and ``--version`` are both
    given (one would silently win over the other)."""
    settings = parse_pairs(args.settings, "--set")
    if "version" in settings and args.rules_version is not None:
        raise HandError(f"--version {args.rules_version} and --set version="
                        f"{settings['version']} both give the rule version: give one")
    return settings


def add_rules_arguments(p: argparse.ArgumentParser) -> None:
    """Options shared by ``score`` and ``waits``: rule set, version, settings, context."""
    names = sorted(scoring.rule_sets())
    p.add_argument(
        "--rules", default="mcr", choices=names, help="rule set (default mcr)"
    )
    p.add_argument(
        "--version", dest="rules_version", default=None, metavar="V",
        help="rule version, e.g. 98-strict, 98-supplement, wmo-2006, mil-2015 (MCR default)",
    )  # fmt: skip
    p.add_argument(
        "--set", dest="settings", action="append", metavar="KEY=VALUE",
        help="a rule-set setting (repeatable); see the rule set's settings",
    )  # fmt: skip
    p.add_argument(
        "--context", dest="rule_context", action="append", metavar="KEY=VALUE",
        help="rule-specific win context (repeatable), e.g. a wild-tile indicator",
    )  # fmt: skip
    p.add_argument("--seat", default="E", choices=list("ESWN"), help="seat wind (default E)")
    p.add_argument(
        "--prevalent", default="E", choices=list("ESWN"), help="prevalent wind (default E)"
    )
    p.add_argument("--flowers", type=int, default=0, help="number of flowers (0-8)")
    p.add_argument("--json", action="store_true", help="print JSON")


def add_win_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--self-drawn", action="store_true", help="won on a self-drawn tile (自摸)")
    p.add_argument("--last-of-kind", action="store_true", help="last tile of its kind (和绝张)")
    p.add_argument(
        "--kong", action="store_true",
        help="kong win: 杠上开花 when self-drawn, 抢杠和 on another player's added kong",
    )  # fmt: skip
    p.add_argument(
        "--last-wall-tile", action="store_true",
        help="last tile of the wall (妙手回春 self-drawn, 海底捞月 on a discard)",
    )  # fmt: skip
    p.add_argument(
        "--discarder", type=int, choices=(1, 2, 3), default=None,
        help="seat offset of the discarder (1 left, 2 opposite, 3 right) for the settlement",
    )  # fmt: skip


class _LineParser(argparse.ArgumentParser):
    """Argument parser for one batch line: raises instead of exiting."""

    def error(self, message: str) -> Any:
        raise HandError(message)


def _hand_parser() -> argparse.ArgumentParser:
    """Parser of one batch line: ``HAND [flags]``."""
    p = _LineParser(prog="batch line", add_help=False, exit_on_error=False)
    p.add_argument("hand")
    add_win_flags(p)
    add_rules_arguments(p)
    return p


def register(sub: Any) -> None:
    p = sub.add_parser(
        "score",
        help="score a winning hand (last standing tile is the winning tile)",
        description="Score a winning hand. Notation: melds in brackets first ([123m,2] chow, "
        "[555p,3] pung from seat 3, [EEEE] concealed kong, [EEEE,1] melded, [EEEE,5] added), "
        "then standing tiles, the last one winning; Tenhou 1z-7z = E S W N P F C.",
    )
    p.add_argument("hand", nargs="?", help="hand notation, e.g. 555666777p5556s7s")
    p.add_argument(
        "--batch", metavar="FILE",
        help="score one 'HAND [flags]' per line of FILE ('-' for stdin); the options given "
        "with --batch hold for every line and a line's own flags go on top (its --rules, "
        "--version, --seat… replace them, its --set and --context pairs are added; a flag "
        "such as --self-drawn given with --batch cannot be taken back by a line; --json is "
        "the whole batch's); a bad line prints an error object and the batch goes on (the "
        "exit code is then 2, as detect's)",
    )  # fmt: skip
    add_win_flags(p)
    add_rules_arguments(p)
    p.set_defaults(func=run)


def check_context_first(kwargs: dict[str, Any]) -> None:
    """Refuse a win context that cannot be on its own — an unknown version or setting, a
    rule-specific field that is none, the Xiamen gold or Zhenjiang 百搭 not given,
    flowers under rules without them — before the hand is read (HandError), as
    ``POST /v1/score`` and ``/v1/waits`` do (their 400 ``invalid_context`` comes before
    ``invalid_hand``): a command whose hand and context are both wrong names the same
    problem as the service. ``kwargs``: those of :func:`scoring.score` or
    :func:`scoring.waits` (``seen`` aside).

    >>> check_context_first({"rules": "xiamen", "gold": "9s", "seat_wind": "S"})
    >>> check_context_first({"rules": "zhenjiang", "wild": "W", "flowers": 1})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    scoring.hand.HandError: Zhenjiang plays 136 tiles without flowers: flowers=1 cannot be ...
    """
    scoring.check_context(**{k: v for k, v in kwargs.items() if k != "seen"})


def score_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    """The keyword arguments of :func:`scoring.score` that an argument namespace gives."""
    return dict(
        rules=args.rules,
        version=args.rules_version,
        self_drawn=args.self_drawn,
        last_of_kind=args.last_of_kind,
        kong=args.kong,
        last_wall_tile=args.last_wall_tile,
        seat_wind=args.seat,
        prevalent_wind=args.prevalent,
        flowers=args.flowers,
        discarder=args.discarder,
        settings=settings_of(args),
        **rule_context(args),
    )


def score_args(args: argparse.Namespace) -> Score:
    """Score the hand an argument namespace describes (HandError on bad input: the win
    context's own mistakes first, then the hand's, as ``POST /v1/score`` answers)."""
    kwargs = score_kwargs(args)
    check_context_first(kwargs)
    return scoring.score(args.hand, **kwargs)


def display_width(text: str) -> int:
    """Columns ``text`` takes in a terminal: 2 for each East Asian wide or full-width
    character (汉字, ［), 1 for the others.

    >>> display_width("平和"), display_width("5s 五条"), display_width("All Chows")
    (4, 7, 9)
    """
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def pad(text: str, width: int) -> str:
    """``text`` with spaces after it to fill ``width`` terminal columns (``f"{t:<{w}}"``
    by :func:`display_width`: a Chinese name lines up as an English one does).

    >>> pad("平和", 10) + "|", pad("三色三步高", 10) + "|"
    ('平和      |', '三色三步高|')
    """
    return text + " " * max(0, width - display_width(text))


def format_score(hand: str, s: Score) -> str:
    """Human-readable result: one line per fan with the sets that form it (the Chinese
    names padded by their width on screen, so that the English ones line up)."""
    # the hand as typed, a Chinese keyboard's characters as the notation reads them
    lines = [f"{fold_width(hand)}   ({s.rules}{' ' + s.version if s.version else ''})"]
    width = max((len(f.en) for f in s.fans), default=0)
    zh_width = max((display_width(f.zh) for f in s.fans), default=0)
    for f in s.fans:
        count = f" x{f.count}" if f.count > 1 else ""
        sets = "; ".join(" ".join(occ) for occ in f.sets)
        lines.append(f"  {pad(f.zh, zh_width)}  {f.en:<{width}} {f.value:>3}{count:<4} {sets}")
    lines.append(f"total {s.total}" + ("" if s.legal else "  (NOT a legal win)"))
    lines.extend(settlement_lines(s.settlement, s.details))
    return "\n".join(lines)


def _paid(payer: str, amount: int, bonus: int) -> str:
    """One payer's part: chips (or points; a negative amount is received, e.g. by the
    others from a Zhenjiang false claimant), and money apart from them (Xiamen's bonus:
    paid to the winner, or — negative — received, e.g. from a false claimant).

    >>> _paid("left", 6, 0), _paid("left", -6, 0), _paid("right", 8, -4)
    ('left 6', 'left receives 6', 'right 8 (receives 4 apart)')
    """
    part = f"{payer} {amount}" if amount >= 0 else f"{payer} receives {-amount}"
    if bonus > 0:
        return f"{part} (+ {bonus} bonus apart)"
    if bonus < 0:
        return f"{part} (receives {-bonus} apart)"
    return part


def settlement_lines(st: Any, details: Any) -> list[str]:
    """The settlement as text: who pays the winner what (with money apart from it), the
    rules' own transfers (Zhenjiang 打首搭 / 碰后打搭) and each seat's net when the rules
    report them, and the note."""
    lines = []
    if st.payments:
        paid = ", ".join(_paid(p.payer, p.amount, int(getattr(p, "bonus", 0) or 0))
                         for p in st.payments)
        lines.append(f"settlement ({st.unit}): winner {st.winner_receives:+d}; pays: {paid}")
    events = (details or {}).get("events") or []
    if events:
        lines.append("  transfers: " + "; ".join(
            f"{e['from']} → {e['to']} {e['amount']} ({e['reason']})" for e in events))
    net = (details or {}).get("net")
    if net:
        lines.append("  net: " + ", ".join(f"{seat} {amount:+d}" for seat, amount in net.items()))
    if st.note:
        lines.append(f"  {st.note}")
    return lines


def _run_batch(path: str, as_json: bool, out: TextIO,
               defaults: argparse.Namespace | None = None) -> int:
    """Score each line of ``path``; ``defaults``: the command line's options, which every
    line starts from (its own flags on top)."""
    parser = _hand_parser()
    if defaults is not None:
        dests = {a.dest for a in parser._actions} - {"hand", "help"}
        parser.set_defaults(**{d: getattr(defaults, d) for d in dests if hasattr(defaults, d)})
    # read as bytes and decoded line by line: a line that is not UTF-8 is one bad line
    stream: BinaryIO = sys.stdin.buffer if path == "-" else open(path, "rb")  # noqa: SIM115
    failed = 0
    try:
        for number, raw in enumerate(stream, 1):
            try:
                text = raw.decode("utf-8").strip().lstrip("\ufeff")  # a BOM (Notepad)
                if not text or text.startswith("#"):
                    continue
                # an ideographic space (a Chinese keyboard's) parts words as a space does
                args = parser.parse_args(shlex.split(text.replace("\u3000", " ")))
                if args.json and not as_json:  # the output is the whole batch's
                    raise HandError("--json on a line: give it with --batch (it is the whole "
                                    "batch's output)")
                result = score_args(args)
            except (ValueError, argparse.ArgumentError) as exc:  # HandError is a ValueError
                why = "not UTF-8 text" if isinstance(exc, UnicodeDecodeError) else exc
                message = f"line {number}: {why}"
                failed += 1
                print(json.dumps({"error": message}, ensure_ascii=False) if as_json
                      else f"error: {message}", file=out)  # fmt: skip
                continue
            if as_json:
                print(json.dumps(result.to_dict(), ensure_ascii=False), file=out)
            else:
                print(format_score(args.hand, result), file=out)
    finally:
        if path != "-":
            stream.close()
    return 2 if failed else 0


def run(args: argparse.Namespace) -> int:
    if args.batch:
        if args.hand:
            raise HandError("give either a HAND or --batch FILE, not both")
        rule_context(args)  # the command line's own mistakes: once, before any line
        settings_of(args)
        return _run_batch(args.batch, args.json, sys.stdout, defaults=args)
    if not args.hand:
        raise HandError("no hand given (tilecam score HAND, or --batch FILE)")
    result = score_args(args)
    if args.json:
        print(json.dumps(result.to_dict(), ensure_ascii=False))
    else:
        print(format_score(args.hand, result))
    return 0
