"""Xiamen (厦门) money as pure functions: 水 items, 底, multiplier, bonus and payments.

``unit = 底 + 水``; each of the three others pays ``unit × multiplier`` chips (capped at the
chips they have when ``cap_at_stack``), plus the win's bonus money, which is reported apart
from the chips. 杀三: the win empties all three payers' chips; it adds its own bonus.

>>> s = {k: v.default for k, v in SETTINGS.items()}
>>> base(s, dealer=False), base(s, dealer=True, repeats=1), base(s, dealer=True, repeats=1, drawn=1)
(8, 32, 64)
>>> paid, kill = payments(s, unit=10, win="self_drawn", payers=("left", "opposite", "right"))
>>> [(p.payer, p.amount, p.bonus) for p in paid], kill
([('left', 20, 0), ('opposite', 20, 0), ('right', 20, 0)], False)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from scoring import tiles as T
from scoring.hand import HandError
from scoring.rulesets.base import Payment, ScoredFan
from scoring.rulesets.xiamen_settings import SETTINGS

SEASONS = ("1f", "2f", "3f", "4f")
FLOWER_SET = ("5f", "6f", "7f", "8f")

SET_WATER_KEYS: dict[str, tuple[str, str, str, str]] = {
    # set type: (setting for number tiles, setting for honours, 中文, English)
    "melded_pung": ("", "water_honour_pung", "碰(字)", "Melded Honour Pung"),
    "concealed_triplet": (
        "water_concealed_triplet", "water_concealed_triplet_honour", "暗刻", "Concealed Triplet"
    ),
    "melded_kong": ("water_melded_kong", "water_melded_kong_honour", "明杠", "Melded Kong"),
    "concealed_kong": (
        "water_concealed_kong", "water_concealed_kong_honour", "暗杠", "Concealed Kong"
    ),
}

MULTIPLIER_KEY: dict[str, str] = {
    "discard": "mult_discard",
    "self_drawn": "mult_self_drawn",
    "you_jin": "mult_you_jin",
    "shuang_you": "mult_shuang_you",
    "san_you": "mult_san_you",
    "three_golds_opening": "mult_three_golds_opening",
    "three_golds_later": "mult_three_golds_later",
    "tian_ting": "mult_tian_ting",
    "tian_he": "mult_tian_he",
}

BONUS_KEY: dict[str, str] = {
    "you_jin": "bonus_you_jin",
    "shuang_you": "bonus_shuang_you",
    "san_you": "bonus_san_you",
    "three_golds_opening": "bonus_three_golds_opening",
    "three_golds_later": "bonus_three_golds_later",
    "tian_ting": "bonus_tian_ting",
    "tian_he": "bonus_tian_he",
}


@dataclass(frozen=True)
class ChipPayment(Payment):
    """A payer's chips to the winner (``amount``) and the bonus money paid on top of them
    (``bonus``, outside the chips)."""

    bonus: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {"payer": self.payer, "amount": self.amount, "bonus": self.bonus}


#: The largest 底 computed (2⁵³ - 1, the largest whole number a JSON reader keeps exact): a
#: dealer's streak that would double it past this is refused rather than worked out.
MOST_BASE = 2**53 - 1


def base(settings: Mapping[str, Any], *, dealer: bool, repeats: int = 0, drawn: int = 0) -> int:
    """底 of the winner: the non-dealer's, or the dealer's doubled (by the factor settings)
    for each consecutive dealership (连庄) and each drawn hand (臭庄) before this one.

    HandError when the dealer's 底 would pass :data:`MOST_BASE` (the factors are raised
    step by step, so a streak of a million never builds a million-digit number):

    >>> s = {"base_dealer": 16, "dealer_repeat_factor": 2, "drawn_hand_factor": 2}
    >>> base(s, dealer=True, repeats=2, drawn=1)
    128
    >>> base(s, dealer=True, repeats=10**6)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    scoring.hand.HandError: the dealer's 底 (16 × 2 for each of 1000000 ...) passes 9,007,...
    """
    if not dealer:
        return int(settings["base_nondealer"])
    out = int(settings["base_dealer"])
    for factor, times in ((int(settings["dealer_repeat_factor"]), repeats),
                          (int(settings["drawn_hand_factor"]), drawn)):
        for _ in range(times):
            if out == 0 or factor == 1:
                break
            out *= factor
            if out > MOST_BASE:
                raise HandError(
                    f"the dealer's 底 ({settings['base_dealer']} × "
                    f"{settings['dealer_repeat_factor']} for each of {repeats} dealerships in "
                    f"a row × {settings['drawn_hand_factor']} for each of {drawn} drawn hands) "
                    f"passes {MOST_BASE:,} chips: check the settings and the streak")
    return out


def flower_water(
    settings: Mapping[str, Any], flowers: Sequence[str], count: int
) -> list[ScoredFan]:
    """水 items for flowers: ``count`` flowers at ``water_flower`` each, plus
    ``water_flower_set`` for all four seasons and again for all four flowers.

    The full sets are read from the flower codes in ``flowers``. Given as a count alone
    (no codes), a set is counted only where the count proves it (RULES.md Xiamen 水: a full
    set of four flowers or four seasons +4): 8 bonus tiles are both sets, as the 8 codes
    are; 7 hold exactly one (the group missing a tile is the other). 4 to 6 may hold one
    or none: no set is counted, and :func:`flower_set_note` says so.

    >>> s = {k: v.default for k, v in SETTINGS.items()}
    >>> [(f.zh, f.points) for f in flower_water(s, (), 8)]
    [('花', 8), ('四季', 4), ('四花', 4)]
    >>> [(f.zh, f.points) for f in flower_water(s, (), 7)]
    [('花', 7), ('四季/四花', 4)]
    >>> [(f.zh, f.points) for f in flower_water(s, (), 6)]
    [('花', 6)]
    """
    items: list[ScoredFan] = []
    if count:
        sets = tuple((f,) for f in flowers)
        items.append(ScoredFan("花", "Flower", int(settings["water_flower"]), count, sets))
    value = int(settings["water_flower_set"])
    groups = ((SEASONS, "四季", "All Four Seasons"), (FLOWER_SET, "四花", "All Four Flowers"))
    if not flowers and count == len(SEASONS) + len(FLOWER_SET):  # every bonus tile
        return [*items, *(ScoredFan(zh, en, value, 1, (group,)) for group, zh, en in groups)]
    if not flowers and count == len(SEASONS) + len(FLOWER_SET) - 1:  # one group lacks one
        return [*items, ScoredFan("四季/四花", "All Four Seasons or All Four Flowers",
                                  value, 1, ())]
    have = set(flowers)
    for group, zh, en in groups:
        if have.issuperset(group):
            items.append(ScoredFan(zh, en, value, 1, (group,)))
    return items


def flower_set_note(settings: Mapping[str, Any], flowers: Sequence[str], count: int) -> str:
    """What the score must say when its flowers' full sets are not known: ``count``
    flowers given as a count alone (no codes in ``flowers``), 4 to 6 of them, which may
    or may not hold all four seasons or all four flowers; '' otherwise (codes given, a
    count that proves its sets or can hold none, or ``water_flower_set`` 0).
    :func:`flower_water` counts no set for such a count: the least it can be worth.

    >>> s = {k: v.default for k, v in SETTINGS.items()}
    >>> print(flower_set_note(s, (), 5))  # doctest: +ELLIPSIS
    5 flowers given as a count: a full set of four seasons (1f-4f) or four flowers ...
    >>> flower_set_note(s, (), 3), flower_set_note(s, (), 7), flower_set_note(s, SEASONS, 4)
    ('', '', '')
    """
    value = int(settings["water_flower_set"])
    if flowers or not value or not len(SEASONS) <= count < len(SEASONS) + len(FLOWER_SET) - 1:
        return ""
    return (f"{count} flowers given as a count: a full set of four seasons (1f-4f) or four "
            f"flowers (5f-8f), +{value} 水 each, cannot be told from a count and was not "
            "counted; list the flowers' codes after the tiles (e.g. \"… 1f2f3f4f5f\") to "
            "score it")


def set_water(settings: Mapping[str, Any], set_type: str, kind: int) -> int:
    """水 of one set: ``set_type`` in melded_pung / concealed_triplet / melded_kong /
    concealed_kong, ``kind`` its kind index (honours score more)."""
    number_key, honour_key, _zh, _en = SET_WATER_KEYS[set_type]
    key = honour_key if T.is_honour(kind) else number_key
    return int(settings[key]) if key else 0


def multiplier(settings: Mapping[str, Any], win: str) -> int:
    """Multiplier of a scored win type (see ``MULTIPLIER_KEY``)."""
    return int(settings[MULTIPLIER_KEY[win]])


def bonus(settings: Mapping[str, Any], win: str) -> int:
    """Bonus money per payer of a scored win type (0 for plain wins)."""
    key = BONUS_KEY.get(win)
    return int(settings[key]) if key else 0


def payments(
    settings: Mapping[str, Any],
    *,
    unit: int,
    win: str,
    payers: Sequence[str],
    stacks: Mapping[str, int] | None = None,
) -> tuple[list[ChipPayment], bool]:
    """Each payer's chips (``unit × multiplier``, capped at their stack when
    ``cap_at_stack``) and bonus. 杀三 (every one of three payers, each holding chips,
    emptied) adds ``bonus_kill_three`` to each bonus. A 三游 with ``san_you_kills_three``
    is 杀三 whatever it is worth (seed 000: "无需再计算水数自然杀三"): each payer pays all
    the chips they have (uncapped: the more of those and ``unit × multiplier``); a payer
    with none is not emptied by it, so no 杀三. ``stacks``: chips each payer has (default
    ``chip_stack``). Returns the payments and whether the win is 杀三.

    >>> s = {k: v.default for k, v in SETTINGS.items()}
    >>> big = {"left": 150, "opposite": 200, "right": 120}
    >>> [(p.payer, p.amount, p.bonus) for p in payments(s, unit=9, win="san_you",
    ...                                                 payers=("left", "opposite", "right"),
    ...                                                 stacks=big)[0]]
    [('left', 150, 250), ('opposite', 200, 250), ('right', 120, 250)]
    """
    owed = unit * multiplier(settings, win)
    extra = bonus(settings, win)
    full = int(settings["chip_stack"])
    left = {p: (stacks or {}).get(p, full) for p in payers}
    cap = bool(settings["cap_at_stack"])
    always = win == "san_you" and bool(settings["san_you_kills_three"]) and len(payers) == 3
    # 杀三 empties three players: each had chips to lose (同时清空了其他玩家的100筹码)
    kill_three = (len(payers) == 3 and all(left[p] > 0 for p in payers)
                  and (always or all(owed >= left[p] for p in payers)))
    if kill_three:
        extra += int(settings["bonus_kill_three"])
    out = []
    for p in payers:
        chips = min(owed, left[p]) if cap else owed
        if always:  # all his chips; uncapped, never less than the win is worth
            chips = left[p] if cap else max(owed, left[p])
        out.append(ChipPayment(p, chips, extra))
    return out, kill_three


__all__ = [
    "SETTINGS",
    "ChipPayment",
    "base",
    "bonus",
    "flower_set_note",
    "flower_water",
    "multiplier",
    "payments",
    "set_water",
]
