"""The 81 fans of Chinese Official mahjong (seed 003) as a data table.

Each :class:`FanDef` has its number in the rulebook (1-81; 0 for the version-only
combination 明暗杠), an id, the Chinese and English names, its value (mil-2015; versions
change a few, see :mod:`scoring.mcr.versions`), its 不计 list (ids of fans it implies and
that are therefore not counted again, 不重复原则), and its definition from the seed.

Per-set exclusions ("组成大三元的三副刻子不计幺九刻": the pungs that form a fan do not
also count 幺九刻) are in ``claims_pungs``: the fan takes those pungs away from 幺九刻.

>>> FANS["big_four_winds"].value, FANS["big_four_winds"].zh
(88, '大四喜')
>>> len([f for f in FANS.values() if f.number])
81
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class FanDef:
    """One fan: ``value`` in fan (番) per occurrence, ``excludes`` its 不计 list (fan ids),
    ``repeatable`` whether it may count more than once (可复计)."""

    number: int
    id: str
    zh: str
    en: str
    value: int
    excludes: tuple[str, ...]
    definition: str
    repeatable: bool = False
    claims_pungs: bool = False


def _f(
    number: int,
    fan_id: str,
    zh: str,
    en: str,
    value: int,
    excludes: str,
    definition: str,
    repeatable: bool = False,
    claims_pungs: bool = False,
) -> FanDef:
    return FanDef(
        number, fan_id, zh, en, value, tuple(excludes.split()), definition, repeatable,
        claims_pungs,
    )


FAN_LIST: tuple[FanDef, ...] = (
    # 88
    _f(1, "big_four_winds", "大四喜", "Big Four Winds", 88,
       "big_three_winds all_pungs prevalent_wind seat_wind pung_of_terminals_or_honors",
       "四副风刻(杠)：东南西北", claims_pungs=True),
    _f(2, "big_three_dragons", "大三元", "Big Three Dragons", 88,
       "two_dragon_pungs dragon_pung", "中发白三副刻子(杠)", claims_pungs=True),
    _f(3, "all_green", "绿一色", "All Green", 88, "half_flush",
       "只由23468条及发组成；无发可计清一色"),
    _f(4, "nine_gates", "九莲宝灯", "Nine Gates", 88,
       "full_flush fully_concealed_hand concealed_hand no_honors",
       "立牌为一种花色1112345678999，见本花色任何一张成和；减计幺九刻×1"),
    _f(5, "four_kongs", "四杠", "Four Kongs", 88, "all_pungs single_wait", "四副杠"),
    _f(6, "seven_shifted_pairs", "连七对", "Seven Shifted Pairs", 88,
       "full_flush seven_pairs fully_concealed_hand concealed_hand no_honors single_wait",
       "一种花色序数相连的七个对子"),
    _f(7, "thirteen_orphans", "十三幺", "Thirteen Orphans", 88,
       "all_terminals_and_honors all_types fully_concealed_hand concealed_hand single_wait",
       "三种序数牌的1、9，七种字牌及其中一对"),
    # 64
    _f(8, "all_terminals", "清幺九", "All Terminals", 64,
       "all_pungs outside_hand double_pung pung_of_terminals_or_honors no_honors",
       "只由序数牌1、9组成"),
    _f(9, "little_four_winds", "小四喜", "Little Four Winds", 64,
       "big_three_winds pung_of_terminals_or_honors",
       "三副风刻(杠)，第四种风牌作将", claims_pungs=True),
    _f(10, "little_three_dragons", "小三元", "Little Three Dragons", 64,
       "two_dragon_pungs dragon_pung", "两副箭刻(杠)，第三种箭牌作将", claims_pungs=True),
    _f(11, "all_honors", "字一色", "All Honors", 64,
       "all_pungs outside_hand pung_of_terminals_or_honors", "只由字牌组成"),
    _f(12, "four_concealed_pungs", "四暗刻", "Four Concealed Pungs", 64,
       "all_pungs fully_concealed_hand concealed_hand", "四副暗刻(暗杠)"),
    _f(13, "pure_terminal_chows", "一色双龙会", "Pure Terminal Chows", 64,
       "seven_pairs full_flush all_chows pure_double_chow two_terminal_chows no_honors",
       "一种花色123、789各两副，本花色5作将"),
    # 48
    _f(14, "quadruple_chow", "一色四同顺", "Quadruple Chow", 48,
       "pure_triple_chow pure_shifted_pungs tile_hog pure_double_chow",
       "一种花色四副相同的顺子"),
    _f(15, "four_pure_shifted_pungs", "一色四节高", "Four Pure Shifted Pungs", 48,
       "pure_triple_chow pure_shifted_pungs all_pungs",
       "一种花色四副依次递增1的刻子(杠)"),
    # 32
    _f(16, "four_pure_shifted_chows", "一色四步高", "Four Pure Shifted Chows", 32,
       "pure_shifted_chows short_straight two_terminal_chows",
       "一种花色四副依次递增1或2的顺子"),
    _f(17, "three_kongs", "三杠", "Three Kongs", 32, "", "三副杠"),
    _f(18, "all_terminals_and_honors", "混幺九", "All Terminals and Honors", 32,
       "all_pungs outside_hand pung_of_terminals_or_honors", "只由字牌与序数牌1、9组成"),
    # 24
    _f(19, "seven_pairs", "七对", "Seven Pairs", 24, "concealed_hand single_wait",
       "七个对子"),
    _f(20, "greater_honors_and_knitted_tiles", "七星不靠", "Greater Honors and Knitted Tiles",
       24, "lesser_honors_and_knitted_tiles all_types fully_concealed_hand concealed_hand",
       "七种字牌各一张，加147/258/369不同花色中的七张"),
    _f(21, "all_even_pungs", "全双刻", "All Even Pungs", 24, "all_pungs all_simples no_honors",
       "2468的刻子(杠)与将"),
    _f(22, "full_flush", "清一色", "Full Flush", 24, "no_honors", "只由一种花色的序数牌组成"),
    _f(23, "pure_triple_chow", "一色三同顺", "Pure Triple Chow", 24,
       "pure_shifted_pungs pure_double_chow", "一种花色三副相同的顺子"),
    _f(24, "pure_shifted_pungs", "一色三节高", "Pure Shifted Pungs", 24, "pure_triple_chow",
       "一种花色三副依次递增1的刻子(杠)"),
    _f(25, "upper_tiles", "全大", "Upper Tiles", 24, "upper_four no_honors",
       "只由序数牌789组成"),
    _f(26, "middle_tiles", "全中", "Middle Tiles", 24, "all_simples no_honors",
       "只由序数牌456组成"),
    _f(27, "lower_tiles", "全小", "Lower Tiles", 24, "lower_four no_honors",
       "只由序数牌123组成"),
    # 16
    _f(28, "pure_straight", "清龙", "Pure Straight", 16, "short_straight two_terminal_chows",
       "一种花色123、456、789三副顺子"),
    _f(29, "three_suited_terminal_chows", "三色双龙会", "Three-Suited Terminal Chows", 16,
       "all_chows two_terminal_chows mixed_double_chow no_honors",
       "两种花色的123、789，第三种花色5作将"),
    _f(30, "pure_shifted_chows", "一色三步高", "Pure Shifted Chows", 16, "",
       "一种花色三副依次递增1或2的顺子"),
    _f(31, "all_five", "全带五", "All Fives", 16, "all_simples no_honors",
       "每副顺子、刻子、将都有5"),
    _f(32, "triple_pung", "三同刻", "Triple Pung", 16, "double_pung",
       "三种花色序数相同的三副刻子(杠)"),
    _f(33, "three_concealed_pungs", "三暗刻", "Three Concealed Pungs", 16, "",
       "三副暗刻(暗杠)"),
    # 12
    _f(34, "lesser_honors_and_knitted_tiles", "全不靠", "Lesser Honors and Knitted Tiles", 12,
       "all_types fully_concealed_hand concealed_hand",
       "147/258/369不同花色及字牌中的任何14张单张"),
    _f(35, "knitted_straight", "组合龙", "Knitted Straight", 12, "",
       "一种花色147、另一种258、第三种369"),
    _f(36, "upper_four", "大于五", "Upper Four", 12, "no_honors", "只由序数牌6789组成"),
    _f(37, "lower_four", "小于五", "Lower Four", 12, "no_honors", "只由序数牌1234组成"),
    _f(38, "big_three_winds", "三风刻", "Big Three Winds", 12, "",
       "三副风刻(杠)", claims_pungs=True),
    # 8
    _f(39, "mixed_straight", "花龙", "Mixed Straight", 8, "",
       "三种花色的123、456、789三副顺子"),
    _f(40, "reversible_tiles", "推不倒", "Reversible Tiles", 8, "one_voided_suit",
       "只由1234589饼、245689条、白板组成"),
    _f(41, "mixed_triple_chow", "三色三同顺", "Mixed Triple Chow", 8, "mixed_double_chow",
       "三种花色序数相同的三副顺子"),
    _f(42, "mixed_shifted_pungs", "三色三节高", "Mixed Shifted Pungs", 8, "",
       "三种花色序数依次递增1的三副刻子(杠)"),
    _f(43, "chicken_hand", "无番和", "Chicken Hand", 8, "", "数不出任何其他番种(花牌除外)"),
    _f(44, "last_tile_draw", "妙手回春", "Last Tile Draw", 8, "self_drawn",
       "自摸牌墙上最后一张牌成和"),
    _f(45, "last_tile_claim", "海底捞月", "Last Tile Claim", 8, "",
       "牌墙已摸完，和本局打出的最后一张牌"),
    _f(46, "out_with_replacement_tile", "杠上开花", "Out with Replacement Tile", 8,
       "self_drawn", "和开杠后摸进的牌"),
    _f(47, "robbing_the_kong", "抢杠和", "Robbing the Kong", 8, "last_tile",
       "和他家明刻加杠的那张牌"),
    # 6
    _f(48, "all_pungs", "碰碰和", "All Pungs", 6, "", "四副刻子(杠)与将"),
    _f(49, "half_flush", "混一色", "Half Flush", 6, "one_voided_suit",
       "一种花色的序数牌及字牌"),
    _f(50, "mixed_shifted_chows", "三色三步高", "Mixed Shifted Chows", 6, "",
       "三种花色序数依次递增1的三副顺子"),
    _f(51, "all_types", "五门齐", "All Types", 6, "", "万条饼风箭齐全"),
    _f(52, "melded_hand", "全求人", "Melded Hand", 6, "single_wait",
       "吃碰明杠四次，和他家打出的牌"),
    _f(53, "two_concealed_kongs", "双暗杠", "Two Concealed Kongs", 6, "concealed_kong",
       "两副暗杠"),
    _f(54, "two_dragon_pungs", "双箭刻", "Two Dragons Pungs", 6, "dragon_pung",
       "两副箭刻(杠)", claims_pungs=True),
    # 4
    _f(55, "outside_hand", "全带幺", "Outside Hand", 4, "", "每副顺子、刻子、将都有幺九牌"),
    _f(56, "fully_concealed_hand", "不求人", "Fully Concealed Hand", 4, "self_drawn",
       "没有吃碰明杠，自摸和"),
    _f(57, "two_melded_kongs", "双明杠", "Two Melded Kongs", 4, "melded_kong", "两副明杠"),
    _f(58, "last_tile", "和绝张", "Last Tile", 4, "", "和牌池桌面已亮明3张的牌的最后一张"),
    # 2
    _f(59, "dragon_pung", "箭刻", "Dragon Pung", 2, "",
       "中发白的刻子(杠)；不计幺九刻", repeatable=True, claims_pungs=True),
    _f(60, "prevalent_wind", "圈风刻", "Prevalent Wind", 2, "",
       "与圈风相同的风刻(杠)；不计幺九刻", claims_pungs=True),
    _f(61, "seat_wind", "门风刻", "Seat Wind", 2, "",
       "与门风相同的风刻(杠)；不计幺九刻", claims_pungs=True),
    _f(62, "concealed_hand", "门前清", "Concealed Hand", 2, "",
       "没有吃碰明杠，和他家打出的牌"),
    _f(63, "all_chows", "平和", "All Chows", 2, "no_honors", "四副顺子、序数牌作将"),
    _f(64, "tile_hog", "四归一", "Tile Hog", 2, "", "四张相同的牌未开杠", repeatable=True),
    _f(65, "double_pung", "双同刻", "Double Pung", 2, "", "两种花色序数相同的两副刻子",
       repeatable=True),
    _f(66, "two_concealed_pungs", "双暗刻", "Two Concealed Pungs", 2, "", "两副暗刻(暗杠)"),
    _f(67, "concealed_kong", "暗杠", "Concealed Kong", 2, "", "一副暗杠"),
    _f(68, "all_simples", "断幺", "All Simples", 2, "no_honors", "没有序数牌1、9及字牌"),
    # 1
    _f(69, "pure_double_chow", "一般高", "Pure Double Chow", 1, "",
       "一种花色两副相同的顺子", repeatable=True),
    _f(70, "mixed_double_chow", "喜相逢", "Mixed Double Chow", 1, "",
       "两种花色序数相同的两副顺子", repeatable=True),
    _f(71, "short_straight", "连六", "Short Straight", 1, "",
       "一种花色序数相连的两副顺子(6张)", repeatable=True),
    _f(72, "two_terminal_chows", "老少副", "Two Terminal Chows", 1, "",
       "一种花色的123、789两副顺子", repeatable=True),
    _f(73, "pung_of_terminals_or_honors", "幺九刻", "Pung of Terminals or Honors", 1, "",
       "幺九牌的刻子(杠)，每副1番", repeatable=True),
    _f(74, "melded_kong", "明杠", "Melded Kong", 1, "", "一副明杠"),
    _f(75, "one_voided_suit", "缺一门", "One Voided Suit", 1, "", "只有两种花色的序数牌"),
    _f(76, "no_honors", "无字", "No Honors", 1, "", "没有字牌"),
    _f(77, "edge_wait", "边张", "Edge Wait", 1, "",
       "听123的3或789的7，且整手牌只听这一种牌"),
    _f(78, "closed_wait", "坎张", "Closed Wait", 1, "",
       "听顺子中间的一张，且整手牌只听这一种牌"),
    _f(79, "single_wait", "单钓将", "Single Wait", 1, "",
       "钓单张作将，且整手牌只听这一种牌"),
    _f(80, "self_drawn", "自摸", "Self-Drawn", 1, "", "自己摸进牌成和"),
    _f(81, "flower_tiles", "花牌", "Flower Tiles", 1, "", "每花1番，不计在起和番内",
       repeatable=True),
    # not one of the 81: the value of one melded + one concealed kong (version table)
    _f(0, "concealed_kong_and_melded_kong", "明暗杠", "Concealed Kong and Melded Kong", 5,
       "concealed_kong melded_kong", "一副明杠与一副暗杠(版本表的组合番值)"),
)  # fmt: skip

FANS: dict[str, FanDef] = {f.id: f for f in FAN_LIST}
"""Fan definitions by id."""

ORDER: dict[str, int] = {f.id: n for n, f in enumerate(FAN_LIST)}
"""Display order: by value tier as in the rulebook."""
