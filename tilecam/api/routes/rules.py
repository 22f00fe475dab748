"""``GET /v1/rules``: the rule sets, their versions and settings, and the tile codes."""

from __future__ import annotations

from functools import cache
from typing import Any

from fastapi import APIRouter

import scoring
from scoring.tiles import ZH_NAMES
from vision.classes import BACK, BONUS, CLASSES, KINDS

router = APIRouter(prefix="/v1", tags=["scoring"])


@cache
def rules_document() -> dict[str, Any]:
    """Every rule set's ``describe()`` (versions are the ``version`` setting's choices),
    plus the tile codes a client needs for pickers."""
    sets = []
    for _name, rule_set in sorted(scoring.rule_sets().items(), key=lambda item: item[0]):
        info = rule_set.describe()
        version = info["settings"].get("version")
        info["versions"] = list(version.get("choices") or []) if version else []
        info["default_version"] = version["default"] if version else None
        sets.append(info)
    return {
        "default": "mcr",
        "rule_sets": sets,
        "tiles": {
            "kinds": list(KINDS),
            "flowers": list(BONUS),
            "back": BACK,
            "classes": list(CLASSES),
            "zh": {**ZH_NAMES, BACK: "背"},
        },
    }


@router.get("/rules")
async def rules() -> dict[str, Any]:
    """Rule sets (name, title, hand size, versions, settings with defaults and
    descriptions, rule-specific context fields) and the 43 tile codes."""
    return rules_document()
