"""Zhenjiang (镇江) settings and win-context fields, defaults from seed
``001_4aedc3dc57c602f8.txt`` (scores in multiples of the base chip, 底牌).

The seed's scoring list (记分方式) survives only in part: items 1 (打首搭 6), 5 (杠开 5 / 8 /
9), 9 (天胡 12), 10 (打搭放冲 +1), 11 (诈胡 6) and 碰后打搭 2. The value of an ordinary win
(items 2-4, 6-8 are lost; the seed also says the amounts "may be set freely") is a
setting with default 1.
"""

from __future__ import annotations

from scoring.rulesets.base import Setting

SEATS = ("winner", "left", "opposite", "right")


def _s(
    name: str, default: object, description: str, choices: tuple[object, ...] | None = None
) -> tuple[str, Setting]:
    return name, Setting(name, default, description, choices)


SETTINGS: dict[str, Setting] = dict(
    [
        _s("base_chip", 1, "value of one base chip (底牌) in the chips you count"),
        _s("win_discard", 1,
           "an ordinary win on a discard (冲): the discarder pays this many base chips "
           "(not in the surviving seed text; chosen default)"),
        _s("win_self_drawn", 1,
           "an ordinary self-drawn win (自摸): each other player pays this many base chips "
           "(not in the surviving seed text; chosen default)"),
        _s("tian_hu", 12, "天胡 (dealer wins on the deal): each other player pays"),
        _s("kong_win_with_wild", 5, "杠开 (self-drawn off a kong) using a 百搭 (有搭): each pays"),
        _s("kong_win_no_wild_melded", 8, "杠开 without a 百搭 (脱搭) off a melded kong: each pays"),
        _s("kong_win_no_wild_concealed", 9,
           "杠开 without a 百搭 (脱搭) off a concealed kong: each pays"),
        _s("wild_deal_in", 1,
           "打搭放冲: winning on a discarded 百搭, the discarder pays this more"),
        _s("first_wild_discard", 6,
           "打首搭: whoever discards the hand's first 百搭 gets this from each other player"),
        _s("wild_after_pung", 2,
           "碰后打搭: discarding a 百搭 right after a pung gets this from each other player"),
        _s("false_win", 6, "诈胡 (false win): the claimant pays this to each other player"),
    ]
)
"""Every Zhenjiang setting (multiples of the base chip unless stated)."""

CONTEXT: dict[str, Setting] = dict(
    [
        _s("wild", None, "the 百搭 (wild) kind, e.g. 2m; or give indicator"),
        _s("indicator", None,
           "正搭: the tile turned up after the deal; the 百搭 is the next rank of its kind"),
        _s("dealer", False, "the winner is the dealer (庄家)"),
        _s("tian_hu", False, "天胡: the dealer wins on the 14 tiles of the deal"),
        _s("kong_type", "auto",
           "杠开: the kong whose replacement tile won: melded or concealed "
           "(auto: the kind of kong the hand shows, when there is only one kind)",
           ("auto", "melded", "concealed")),
        _s("first_wild_discard", "",
           "打首搭: who discarded this hand's first 百搭 (winner, left, opposite, right)",
           ("", *SEATS)),
        _s("wild_after_pung", "",
           "碰后打搭: comma-separated seats that discarded a 百搭 right after a pung, once "
           "per time (e.g. winner,left)"),
    ]
)
"""Zhenjiang win-context fields (``score(..., rules="zhenjiang", indicator="9m")``)."""
