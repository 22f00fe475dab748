"""Rule sets, one module each, discovered at first use.

A module here that defines ``RULE_SET`` (a :class:`scoring.rulesets.base.RuleSet`
instance) is registered under ``RULE_SET.name``; helper modules without it are skipped.
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache

from scoring.hand import HandError
from scoring.rulesets.base import RuleSet


@cache
def _registry() -> dict[str, RuleSet]:
    found: dict[str, RuleSet] = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name.startswith("_") or info.name == "base":
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        rule_set = getattr(module, "RULE_SET", None)
        if isinstance(rule_set, RuleSet):
            if rule_set.name in found:
                raise RuntimeError(f"two rule sets are named {rule_set.name!r}")
            found[rule_set.name] = rule_set
    return found


def rule_sets() -> dict[str, RuleSet]:
    """All registered rule sets, by name."""
    return dict(_registry())


def get_rule_set(name: str) -> RuleSet:
    """The rule set called ``name``; HandError listing the known ones otherwise."""
    registry = _registry()
    try:
        return registry[name]
    except (KeyError, TypeError):
        known = ", ".join(sorted(registry))
        raise HandError(f"unknown rules {name!r} (known: {known})") from None
