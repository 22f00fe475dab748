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
        print(json.dumps(info, ensure_ascii=False, indent=2))
        return 0
    print(f"{info['name']}: {info['title']} ({info['hand_size']} tiles in a winning hand)")
    standard = {"name", "title", "hand_size", "settings", "context"}
    for key, value in info.items():
        if key not in standard:
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
