"""MCR rule versions as data: every row of the seed's version table (seed 003, 注).

Four presets: ``98-strict`` (98严格版), ``98-supplement`` (98增补版), ``wmo-2006``
(世界麻将组织2006版) and ``mil-2015`` (国际麻将联盟2015版, the default).

>>> VERSIONS["wmo-2006"].two_concealed_kongs
8
>>> VERSIONS["mil-2015"].forced_concealed_self_draw
'self_drawn'
"""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_VERSION = "mil-2015"


@dataclass(frozen=True)
class Version:
    """One rule version.

    - ``two_melded_kongs`` / ``concealed_kong_and_melded_kong`` / ``two_concealed_kongs``:
      fan values of 双明杠 / 明暗杠 / 双暗杠.
    - ``forced_concealed_self_draw``: what a self-drawn win of a hand that is necessarily
      concealed (七对, 全不靠, 七星不靠, 十三幺, 四暗刻, 连七对, 九莲宝灯) counts:
      ``"self_drawn"`` (自摸) or ``"fully_concealed_hand"`` (不求人).
    - ``seven_pairs_take_trait_fans``: 绿一色, 字一色, 清幺九, 混幺九, 全大, 全中, 全小
      combine with 七对.
    - ``honour_fans_count_voided_suit``: 大三元, 小三元, 三风刻, 一色四同顺, 一色四节高 also
      count 缺一门.
    - ``all_green_counts_half_flush``: 绿一色 with 发 also counts 混一色.
    - ``all_terminals_count_double_pung`` / ``..._triple_pung``: 清幺九 also counts
      双同刻 / 三同刻.
    - ``kong_fans_with_many_kongs``: beside 三杠/四杠, concealed kongs also count
      暗杠/双暗杠 (98, WMO); when False (MIL) they only count as concealed pungs.

    No field for 边张/坎张/单钓将 in a 组合龙 hand: the MIL ruling (judge the part outside
    the 组合龙) and the formal wait of the whole hand agree on every such hand, so all
    versions share one rule (``calculator.knitted_fans``).
    """

    name: str
    title: str
    two_melded_kongs: int
    concealed_kong_and_melded_kong: int
    two_concealed_kongs: int
    forced_concealed_self_draw: str
    seven_pairs_take_trait_fans: bool
    honour_fans_count_voided_suit: bool
    all_green_counts_half_flush: bool
    all_terminals_count_double_pung: bool
    all_terminals_count_triple_pung: bool
    kong_fans_with_many_kongs: bool


VERSIONS: dict[str, Version] = {
    v.name: v
    for v in (
        Version("98-strict", "98严格版", 4, 3, 6, "self_drawn",
                False, False, False, False, False, True),
        Version("98-supplement", "98增补版", 4, 5, 6, "self_drawn",
                True, True, False, False, False, True),
        Version("wmo-2006", "世界麻将组织2006版", 4, 6, 8, "fully_concealed_hand",
                True, True, True, True, True, True),
        Version("mil-2015", "国际麻将联盟2015版", 4, 5, 6, "self_drawn",
                True, True, False, False, True, False),
    )
}  # fmt: skip
"""The four presets by name."""

FORCED_CONCEALED: tuple[str, ...] = (
    "seven_pairs",
    "lesser_honors_and_knitted_tiles",
    "greater_honors_and_knitted_tiles",
    "thirteen_orphans",
    "four_concealed_pungs",
    "seven_shifted_pairs",
    "nine_gates",
)
"""必然门前清的番种: fans whose hands are necessarily concealed."""

SEVEN_PAIRS_TRAIT_FANS: tuple[str, ...] = (
    "all_green",
    "all_honors",
    "all_terminals",
    "all_terminals_and_honors",
    "upper_tiles",
    "middle_tiles",
    "lower_tiles",
)
"""Fans that combine with 七对 except under 98-strict."""

VOIDED_SUIT_HONOUR_FANS: tuple[str, ...] = (
    "big_three_dragons",
    "little_three_dragons",
    "big_three_winds",
    "quadruple_chow",
    "four_pure_shifted_pungs",
)
"""Fans that count 缺一门 beside them except under 98-strict."""

KONG_ROWS: tuple[tuple[str, dict[str, str]], ...] = (
    ("三杠(1):暗杠*1+明杠*2",
     {"98-strict": "三杠+暗杠", "98-supplement": "三杠+暗杠", "wmo-2006": "三杠+暗杠",
      "mil-2015": "三杠"}),
    ("三杠(2):暗杠*1+明杠*2+暗刻",
     {"98-strict": "三杠+暗杠+双暗刻", "98-supplement": "三杠+暗杠+双暗刻",
      "wmo-2006": "三杠+暗杠+双暗刻", "mil-2015": "三杠+双暗刻"}),
    ("三杠(3):暗杠*2+明杠*1",
     {"98-strict": "三杠+双暗杠", "98-supplement": "三杠+双暗杠", "wmo-2006": "三杠+双暗杠",
      "mil-2015": "三杠+双暗刻"}),
    ("三杠(4):暗杠*2+明杠*1+暗刻*1",
     {"98-strict": "三杠+双暗杠+三暗刻", "98-supplement": "三杠+双暗杠+三暗刻",
      "wmo-2006": "三杠+双暗杠+三暗刻", "mil-2015": "三杠+三暗刻"}),
    ("四杠(1):暗杠*1+明杠*3",
     {"98-strict": "四杠+暗杠", "98-supplement": "四杠+暗杠", "wmo-2006": "四杠+暗杠",
      "mil-2015": "四杠"}),
    ("四杠(2):暗杠*2+明杠*2",
     {"98-strict": "四杠+双暗杠", "98-supplement": "四杠+双暗杠", "wmo-2006": "四杠+双暗杠",
      "mil-2015": "四杠+双暗刻"}),
)  # fmt: skip
"""The seed's 三杠/四杠 combination rows, verbatim (kong fans each version counts)."""


def get_version(name: str) -> Version:
    """The preset called ``name``; ``KeyError`` otherwise."""
    return VERSIONS[name]
