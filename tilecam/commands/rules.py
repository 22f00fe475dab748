"""``tilecam rules``: list the rule sets, and show one rule set's settings and context.

``tilecam rules list`` prints each rule set's name, hand size and title;
``tilecam rules show NAME [--json]`` prints every setting with its default and
description, then the rule-specific win-context fields (``--context KEY=VALUE``).
"""

from __future__ import annotations

import argparse
import json
from typing import Any


def register(sub: Any) -> None:
    p = sub.add_parser("rules", help="list the rule sets and show their settings")
    rsub = p.add_subparsers(dest="rules_command", metavar="ACTION")
    lp = rsub.add_parser("list", help="list the rule sets")
    lp.add_argument("--json", action="store_true", help="print JSON")
    lp.set_defaults(func=run_list)
    sp = rsub.add_parser("show", help="every setting of one rule set, with default and meaning")
    sp.add_argument("name", help="rule set name (see `tilecam rules list`)")
    sp.add_argument("--json", action="store_true", help="print JSON")
    sp.set_defaults(func=run_show)
    p.set_defaults(func=run_list)


def run_list(args: argparse.Namespace) -> int:
    """Print the registered rule sets."""
    from scoring import rule_sets

    found = rule_sets()
    if getattr(args, "json", False):
        out = [
            {"name": r.name, "title": r.title, "hand_size": r.hand_size}
            for _, r in sorted(found.items())
        ]
        print(json.dumps(out, ensure_ascii=False, indent=2))
        return 0
    for name, r in sorted(found.items()):
        print(f"{name:<12} {r.hand_size:>2} tiles  {r.title}")
    return 0


def run_show(args: argparse.Namespace) -> int:
    """Print one rule set's settings and context fields (HandError for an unknown name)."""
    from scoring import get_rule_set

    rule_set = get_rule_set(args.name)
    info = rule_set.describe()
    if args.json:
        print(json.dumps(with_versions(info), ensure_ascii=False, indent=2))
        return 0
    print(f"{info['name']}: {info['title']} ({info['hand_size']} tiles in a winning hand)")
    standard = {"name", "title", "hand_size", "settings", "context"}
    for key, value in info.items():
        if key == "penalties":
            print("\n".join(_penalty_lines(value, rule_set.false_claim, info["settings"])))
        elif key not in standard:
            text = ", ".join(map(_text, value)) if isinstance(value, list) else _text(value)
            text = text or "(none)"
            print(f"  {key.replace('_', ' ')}: {text}")
    for heading, key, flag in (
        ("settings", "settings", "--set"),
        ("win context", "context", "--context"),
    ):
        table: dict[str, dict[str, Any]] = info[key]
        print(f"\n{heading} ({flag} KEY=VALUE):")
        if not table:
            print("  (none)")
            continue
        width = max(len(k) for k in table)
        if bounds := _number_bounds(table):
            print(f"  (numbers: {bounds})")
        for name, s in table.items():
            default = _text(s["default"])
            choices = f" [{', '.join(_text(c) for c in s['choices'])}]" if "choices" in s else ""
            print(f"  {name:<{width}}  {default:>6}  {s['description']}{choices}")
    return 0


def with_versions(info: dict[str, Any]) -> dict[str, Any]:
    """A rule set's ``describe()`` with ``versions`` (the ``version`` setting's choices,
    ``[]`` for a rule set without versions) and ``default_version`` (its default, or
    None) added, as ``GET /v1/rules`` gives each rule set: ``rules show NAME --json`` is
    that rule set's entry there.

    >>> info = with_versions({"settings": {"version": {"default": "b", "choices": ["a", "b"]}}})
    >>> info["versions"], info["default_version"]
    (['a', 'b'], 'b')
    >>> with_versions({"settings": {}})
    {'settings': {}, 'versions': [], 'default_version': None}
    """
    version = info["settings"].get("version")
    return {**info, "versions": list(version.get("choices") or []) if version else [],
            "default_version": version["default"] if version else None}


#: The penalties a table's referee books under any rules (``POST
#: /v1/tables/{id}/penalties``), beside those the rule set lists.
ANY_RULES_PENALTIES = ("wrong_win, false_win (with points where the rules set none), deduction, "
                       "payment, bar 停和, warning 警告, disqualification 停赛")


#: A rule set whose hand is not played on after a false claim (Xiamen: the dealer deals
#: it again) takes no false-claim ruling of the hand.
NO_RULINGS = "none (a false claim is no ruling of the hand here)"


def _penalty_lines(penalties: dict[str, Any], false_claim: str,
                   settings: dict[str, dict[str, Any]]) -> list[str]:
    """``rules show``'s lines for the ``penalties`` of ``describe()`` — what a score
    sheet's referee may book: the rule set's word on a false claim (``false_claim``) and
    the default of its ``false_win`` penalty (a setting), the false-claim rulings, the
    deductions (none listed: any points), the repeat offences with their steps
    (:func:`tilecam.tables.offences.offence_points`); an empty list is said in words,
    never as "(none)" for the whole (Xiamen books a ``false_win`` all the same).

    >>> lines = _penalty_lines({"false_claim_kinds": {}, "deductions": [],
    ...     "repeat_offences": {}, "repeat_offence_points": []}, "诈胡 (false_win)",
    ...     {"false_win_money": {"default": 50}})
    >>> lines[1][lines[1].index(";"):]
    '; a false_win penalty pays each other player false_win_money (default 50) apart from the chips'
    >>> lines[2:5]  # doctest: +NORMALIZE_WHITESPACE
    ['    false-claim rulings: none (a false claim is no ruling of the hand here)',
     '    deductions: any points the referee gives', '    repeat offences: none']
    """
    claim = false_claim
    if "false_win_money" in settings:
        claim += (f"; a false_win penalty pays each other player false_win_money (default "
                  f"{settings['false_win_money']['default']}) apart from the chips")
    elif "false_win" in settings:
        times = " × base_chip" if "base_chip" in settings else ""
        claim += (f"; a false_win penalty pays each other player false_win{times} (default "
                  f"{settings['false_win']['default']})")
    kinds = penalties["false_claim_kinds"]
    rulings = ", ".join(f"{kind} {name}" for kind, name in kinds.items())
    deductions: list[int] = penalties["deductions"]
    fixed = (f"{', '.join(map(str, deductions[:-1]))} or {deductions[-1]} points"
             if len(deductions) > 1 else f"{deductions[0]} points" if deductions
             else "any points the referee gives")
    offences = penalties["repeat_offences"]
    steps: list[int] = penalties["repeat_offence_points"]
    repeats = "none"
    if offences and steps:
        said = [("a warning" if p == 0 else f"{p}") for p in steps]
        most = max(deductions) if deductions else None
        more: list[int] = []  # the steps past the table: each double the one before, up to `most`
        while len(more) < 2 and (most is None or (more or steps)[-1] < most):
            more.append(min(2 * (more or steps)[-1], most or 2 * (more or steps)[-1]))
        upto = f", up to {most}" if most is not None else ""
        named = ", ".join(f"{kind} {name}" for kind, name in offences.items())
        repeats = (f"{named}: in one hand {', then '.join(said)}, then "
                   f"{', '.join(map(str, more))} … points (each step double the one "
                   f"before{upto})")
    return [
        "  penalties (a table's referee books them: POST /v1/tables/{id}/penalties):",
        f"    false claim: {claim}",
        f"    false-claim rulings: {rulings or NO_RULINGS}",
        f"    deductions: {fixed}",
        f"    repeat offences: {repeats}",
        f"    kinds under any rules: {ANY_RULES_PENALTIES}",
    ]


def _number_bounds(table: dict[str, dict[str, Any]]) -> str:
    """What the number fields of ``table`` take, from their ``minimum``/``maximum``
    (``GET /v1/rules``): e.g. "whole, 0 to 1,000,000,000"; "" when there are none.

    A negative minimum is a default that says "not known" (:class:`scoring.rulesets.base.Setting`).

    >>> _number_bounds({"a": {"type": "integer", "minimum": 0, "maximum": 10**9},
    ...                 "b": {"type": "integer", "minimum": -1, "maximum": 10**9}})
    'whole, 0 to 1,000,000,000; -1 (not known) for b'
    """
    numbers = {n: s for n, s in table.items() if "maximum" in s}
    if not numbers:
        return ""
    whole = all(s["type"] == "integer" for s in numbers.values())
    most = max(s["maximum"] for s in numbers.values())
    text = f"{'whole, ' if whole else ''}0 to {most:,}"
    unknown: dict[int, list[str]] = {}
    for name, s in numbers.items():
        if s["minimum"] < 0:
            unknown.setdefault(s["minimum"], []).append(name)
    return "; ".join([text, *(f"{low} (not known) for {', '.join(names)}"
                             for low, names in sorted(unknown.items()))])


def _text(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "true" if value else "false"
    if value == "":
        return '""'
    if isinstance(value, list):  # a group of codes, e.g. one of score_alike
        return " ".join(map(_text, value))
    if isinstance(value, dict):  # e.g. the deal: "rounds 4, seat changes true"
        parts = {k.replace("_", " "): _text(v) for k, v in value.items()}
        if not any(parts.values()):  # e.g. Xiamen's penalties: none modelled
            return ""
        return ", ".join(f"{k} {v or 'none'}" for k, v in parts.items())
    return str(value)
