"""``GET /v1/rules``: the rule sets, their versions and settings, and the tile codes."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from fastapi import APIRouter, Response

import scoring
from scoring.tiles import ZH_NAMES
from tilecam.api.schemas import RulesOut
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


@cache
def _rules_json() -> bytes:
    return json.dumps(rules_document(), ensure_ascii=False).encode("utf-8")


@router.get("/rules", responses={200: {"model": RulesOut,
                                      "description": "rule sets, versions, settings, tiles"}})
async def rules() -> Response:
    """Rule sets and the 43 tile codes. Each rule set: name, title, hand size, versions,
    settings with defaults and descriptions, rule-specific ``context`` fields, the
    general ``win_fields`` it reads, how the ``deal`` passes (``stays_on_dealer_win``,
    ``rounds`` …), ``seat_context``, ``money_apart``, ``score_alike``, the ``penalties``
    a referee may book, and for regional sets the game's shape (``tiles``, ``claims``,
    ``flowers``, ``wild``, ``winning_shape``, ``wins``)."""
    return Response(_rules_json(), media_type="application/json")
