"""Xiamen (厦门) settings and win-context fields: every regional number, with the seed's
default (seed ``000_9e6e3314f1efc731.txt`` and ``../shared/rules/RULES.md``).

Money is in chips (筹码). ``unit = 底 + 水``; each payer pays ``unit × multiplier`` chips;
bonus money (游金奖 …) is paid on top and reported apart from the chips.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from scoring.hand import HandError
from scoring.rulesets.base import Setting

WIN_TYPES: dict[str, str] = {
    "plain": "plain",
    "discard": "discard",
    "平胡": "discard",
    "平和": "discard",
    "self_drawn": "self_drawn",
    "自摸": "self_drawn",
    "you_jin": "you_jin",
    "游金": "you_jin",
    "shuang_you": "shuang_you",
    "双游": "shuang_you",
    "san_you": "san_you",
    "三游": "san_you",
    "three_golds": "three_golds",
    "三金倒": "three_golds",
    "tian_ting": "tian_ting",
    "天听": "tian_ting",
    "tian_he": "tian_he",
    "天和": "tian_he",
}
"""Accepted ``win=`` values (English and Chinese) → canonical win type."""

WIN_NAMES: dict[str, tuple[str, str]] = {
    "discard": ("平胡", "Discard Win"),
    "self_drawn": ("自摸", "Self-Drawn"),
    "you_jin": ("游金", "Gold Tour"),
    "shuang_you": ("双游", "Double Gold Tour"),
    "san_you": ("三游", "Triple Gold Tour"),
    "three_golds_opening": ("三金倒(起手)", "Three Golds at the Opening"),
    "three_golds_later": ("三金倒", "Three Golds"),
    "tian_ting": ("天听", "Ready at the Deal"),
    "tian_he": ("天和", "Heavenly Win"),
}
"""Scored win type → (中文, English)."""


def _s(name: str, default: object, description: str, choices: tuple[object, ...] | None = None
       ) -> tuple[str, Setting]:
    return name, Setting(name, default, description, choices)


SETTINGS: dict[str, Setting] = dict(
    [
        _s("base_nondealer", 8, "底 (base) of a non-dealer winner, chips"),
        _s("base_dealer", 16, "底 of the dealer (庄家) winner, chips"),
        _s("dealer_repeat_factor", 2,
           "the dealer's 底 is multiplied by this for each consecutive dealership (连庄)"),
        _s("drawn_hand_factor", 2,
           "the dealer's 底 is multiplied by this for each drawn hand (臭庄) before this one"),
        _s("drawn_hand_tiles", 16,
           "臭庄: these last wall tiles are kept back; nobody has won when the tile before "
           "them is drawn (and discarded): the hand is drawn"),
        _s("water_gold", 1, "水 for each gold (金) held at the win"),
        _s("water_flower", 1, "水 for each flower or season"),
        _s("water_flower_set", 4,
           "extra 水 for all four seasons 春夏秋冬, and again for all four flowers 梅兰菊竹 "
           "(from the flower codes; flowers given as a count: 8 are both sets, 7 one, 4-6 "
           "none counted, the settlement note says so)"),
        _s("water_honour_pung", 1, "水 for a melded pung of an honour (a melded number pung: 0)"),
        _s("water_concealed_triplet", 1, "水 for a concealed triplet of a number tile"),
        _s("water_concealed_triplet_honour", 2, "水 for a concealed triplet of an honour"),
        _s("water_melded_kong", 2, "水 for a melded kong of a number tile"),
        _s("water_melded_kong_honour", 3, "水 for a melded kong of an honour"),
        _s("water_concealed_kong", 3, "水 for a concealed kong of a number tile"),
        _s("water_concealed_kong_honour", 4, "水 for a concealed kong of an honour"),
        _s("mult_discard", 1, "multiplier of a discard win (平胡)"),
        _s("mult_self_drawn", 2, "multiplier of a self-drawn win (自摸)"),
        _s("mult_you_jin", 4, "multiplier of 游金"),
        _s("mult_shuang_you", 8, "multiplier of 双游"),
        _s("mult_san_you", 12, "multiplier of 三游 (some rooms use 16)"),
        _s("mult_three_golds_opening", 4, "multiplier of 三金倒 at the opening (起手)"),
        _s("mult_three_golds_later", 3, "multiplier of 三金倒 after the opening"),
        _s("mult_tian_ting", 4, "multiplier of 天听 (scores as 游金)"),
        _s("mult_tian_he", 4, "multiplier of 天和"),
        _s("bonus_you_jin", 50, "bonus money per payer for 游金 (outside the chips)"),
        _s("bonus_shuang_you", 100, "bonus money per payer for 双游"),
        _s("bonus_san_you", 150, "bonus money per payer for 三游"),
        _s("bonus_three_golds_opening", 50,
           "bonus per payer for 三金倒 at the opening (it takes the 游金 bonus)"),
        _s("bonus_three_golds_later", 0, "bonus per payer for a later 三金倒 (none)"),
        _s("bonus_tian_ting", 0,
           "bonus per payer for 天听 (the seed scores it 'as 游金' in 番 only: none)"),
        _s("bonus_tian_he", 0, "bonus per payer for 天和"),
        _s("bonus_kill_three", 100,
           "杀三 bonus per payer when the win empties all three other players' chips"),
        _s("false_win_money", 50,
           "诈胡 (false win): the claimant pays each other player half a 课, outside the "
           "chips; unless set, half of chip_stack rounded down (50 at the default 100)"),
        _s("chip_stack", 100,
           "chips each player starts a 课 with (seed 000: 100筹码; 杀三 empties all three); "
           "at least 1 while cap_at_stack is on (0 would cap every payment at 0); 0 with "
           "cap_at_stack=false: no 课, wins paid in full, never 杀三"),
        _s("cap_at_stack", True, "a payer pays at most the chips they have left"),
        _s("san_you_kills_three", True,
           "三游 is 杀三 by itself (seed: 无需再计算水数自然杀三): each payer pays all their "
           "chips; false: (底 + 水) × mult_san_you like the other wins"),
        _s("three_golds_later", True,
           "三金倒 may be declared after the opening, until 臭庄 (else only at the opening)"),
        _s("discard_payers", "all",
           "who pays a discard win: all three others (RULES.md) or only the discarder",
           ("all", "discarder")),
    ]
)
"""Every Xiamen setting: name → Setting (default from the seed)."""

CONTEXT: dict[str, Setting] = dict(
    [
        _s("gold", None, "the gold (金) kind, e.g. 5m; or give indicator"),
        _s("indicator", None,
           "the tile turned up from the wall end; its kind is the gold (same as gold=)"),
        _s("dealer", False, "the winner is the dealer (庄家)"),
        _s("win", "plain",
           "win type: plain (a discard win, or 自摸 with self_drawn), discard 平胡, "
           "self_drawn 自摸, you_jin 游金, "
           "shuang_you 双游, san_you 三游, three_golds 三金倒, tian_ting 天听, tian_he 天和",
           tuple(WIN_TYPES)),
        _s("opening", False,
           "三金倒 declared at the opening (起手), before any discard: on the dealt tiles, "
           "17 for the dealer, 16 for the others, nothing melded"),
        _s("dealer_repeats", 0,
           "consecutive dealerships (连庄) of this hand's dealer before it: they double the "
           "dealer's 底 when the dealer wins; a non-dealer's 底 stays base_nondealer"),
        _s("drawn_hands", 0,
           "drawn hands (臭庄) of the dealer's streak before this one (each doubles the "
           "dealer's 底; a non-dealer's 底 stays base_nondealer)"),
        _s("wall_left", -1,
           "wall tiles left at the win, after the winning tile was drawn (-1: unknown); "
           "fewer than drawn_hand_tiles is past the draw (臭庄)"),
        _s("chips_left", -1, "chips the left player has before paying (-1: a full stack)"),
        _s("chips_opposite", -1, "chips the opposite player has (-1: a full stack)"),
        _s("chips_right", -1, "chips the right player has (-1: a full stack)"),
    ]
)
"""Xiamen win-context fields (``score(..., rules="xiamen", gold="5m", win="游金")``)."""


def with_half_stack_false_win(given: Mapping[str, Any] | None,
                              resolved: dict[str, Any]) -> dict[str, Any]:
    """``resolved`` (the settings checked and laid over the defaults) with the 诈胡 money
    following the stake when ``given`` does not set it: ``false_win_money`` is half a 课
    (seed 000: 支付各家每人半课的钱（课外）), half of ``chip_stack`` rounded down — 50 at
    the default 100, 30 at 60 or 61, and at least 1 (a stake of 1 chip still has a 诈胡
    to pay). Set, it is kept as given.

    >>> def resolved(**given):
    ...     out = {k: v.default for k, v in SETTINGS.items()} | given
    ...     return with_half_stack_false_win(given, out)["false_win_money"]
    >>> resolved(), resolved(chip_stack=60), resolved(chip_stack=61), resolved(chip_stack=1)
    (50, 30, 30, 1)
    >>> resolved(chip_stack=60, false_win_money=50), resolved(false_win_money=0)
    (50, 0)
    """
    if not given or "false_win_money" not in given:
        resolved["false_win_money"] = max(1, int(resolved["chip_stack"]) // 2)
    return resolved


def check_chip_stack(resolved: Mapping[str, Any]) -> None:
    """HandError for ``chip_stack`` 0 while ``cap_at_stack`` is on: each payer would pay
    at most the 0 chips of his stack, so no win would pay anything (a whole score sheet
    of zeros). Seed 000 plays every 课 with its 100筹码 and knows no game without them; a
    stake of 1 or more, or ``cap_at_stack=false`` (wins paid in full, no cap; with
    ``chip_stack`` 0 there is then no 课 and never a 杀三), is taken.

    >>> check_chip_stack({"chip_stack": 0, "cap_at_stack": False})
    >>> check_chip_stack({"chip_stack": 0, "cap_at_stack": True})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    scoring.hand.HandError: setting chip_stack=0 with cap_at_stack=true: ...
    """
    if int(resolved["chip_stack"]) == 0 and bool(resolved["cap_at_stack"]):
        raise HandError(
            "setting chip_stack=0 with cap_at_stack=true: every payer would pay at most the "
            "0 chips of his stack, so no win would pay anything; give chip_stack 1 or more "
            "(the chips a player starts a 课 (round) with, 100 in seed 000), or "
            "cap_at_stack=false to pay wins in full without rounds or 杀三 (emptying all "
            "three)")
