"""Chinese Official mahjong (MCR, 国标): 81 fans, four rule versions, 8-fan minimum.

>>> RULE_SET.score(parse_hand("19m19s19pESWNCFPP"), WinContext(), RULE_SET.resolve_settings()).total
88
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from scoring import tiles as T
from scoring.hand import Hand, HandError
from scoring.mcr import engine
from scoring.mcr.versions import DEFAULT_VERSION, VERSIONS
from scoring.mcr.waits import shanten as shape_shanten
from scoring.notation import format_hand, parse_hand
from scoring.rulesets.base import (
    Deal,
    RuleSet,
    Score,
    Setting,
    Settlement,
    Waits,
    WaitTile,
    WinContext,
)

__all__ = ["RULE_SET", "McrRuleSet", "parse_hand"]


_SETTINGS: dict[str, Setting] = {
    "version": Setting(
        "version",
        DEFAULT_VERSION,
        "rule version preset: "
        + ", ".join(f"{v.name} ({v.title})" for v in VERSIONS.values()),
        tuple(VERSIONS),
    ),
    "min_fan": Setting(
        "min_fan", engine.MIN_FAN, "fan needed before flowers for a legal win (起和番)"
    ),
    "base_points": Setting(
        "base_points", 8, "points each losing player pays on top of the total (底分)"
    ),
}
_DEFAULTS = {k: v.default for k, v in _SETTINGS.items()}


class McrRuleSet(RuleSet):
    """MCR (国标麻将) with the version presets of seed 003."""

    name = "mcr"
    title = "Chinese Official (MCR, 国标)"
    hand_size = engine.HAND_SIZE
    #: 花牌: each bonus tile is one fan, whichever it is
    score_alike = (T.FLOWERS,)
    #: seed 003: 4 rounds of 4 hands, the deal passes every hand (不设连庄), seats change
    #: between rounds (东南走之字, 西北转上)
    #: seed 003 六、错和与诈和的处理: after a false claim 该盘继续比赛
    deal = Deal(rounds=4, seat_changes=True, goes_on_after_false_claim=True)
    #: seed 003, 六、错和与诈和的处理: 停和, the penalty, 该盘继续比赛
    false_claim: ClassVar[str] = (
        "错和 (penalty wrong_win) or 诈和 (false_win) as the referee rules; the hand goes on "
        "(seed 003) and the claimant may not win it: rule this hand a false claim (the "
        "hand that ends it is then recorded at its place), or correct it with how it ended")
    false_claim_kinds: ClassVar[Mapping[str, str]] = {"wrong_win": "错和", "false_win": "诈和"}
    #: seed 003 二、罚分 (二)违例: 分别扣除5分、10分、20分、30分、40分、50分、60分7种罚分
    deductions: ClassVar[tuple[int, ...]] = (5, 10, 20, 30, 40, 50, 60)
    #: seed 003 三、空吃、空碰、空杠, 四、摸牌, 五、碰牌: 一盘之内，第一次警告，第二次罚5分，
    #: 第三次罚10分，第四次罚20分，以此类推
    repeat_offences: ClassVar[Mapping[str, str]] = {
        "empty_claim": "空吃/空碰/空杠", "early_draw": "摸牌 (上家未打出牌)",
        "slow_pung": "碰牌 (超过3秒)"}
    repeat_offence_points: ClassVar[tuple[int, ...]] = (0, 5, 10, 20)

    def settings(self) -> Mapping[str, Setting]:
        return _SETTINGS

    def resolve_settings(self, given: Mapping[str, Any] | None = None) -> dict[str, Any]:
        if not given:
            return dict(_DEFAULTS)
        return super().resolve_settings(given)

    def score(self, hand: Hand, context: WinContext, settings: Mapping[str, Any]) -> Score:
        version = str(settings["version"])
        min_fan = int(settings["min_fan"])
        result = engine.score_hand(hand, context, version, min_fan)
        settlement = engine.settle(
            result.total, result.legal, context, int(settings["base_points"]), result.base,
            min_fan,
        )
        return _score(self.name, version, result, settlement, min_fan, context)

    def settle(
        self,
        hand: Hand,
        total: int,
        legal: bool,
        context: WinContext,
        settings: Mapping[str, Any],
    ) -> Settlement:
        flowers = context.flower_count(hand)
        return engine.settle(
            total, legal, context, int(settings["base_points"]), total - flowers,
            int(settings["min_fan"]),
        )

    def waits(self, hand: Hand, context: WinContext, settings: Mapping[str, Any]) -> Waits:
        version = str(settings["version"])
        min_fan = int(settings["min_fan"])
        s, waits, results = engine.wait_analysis(hand, context, version, min_fan)
        full: list[WaitTile] = []
        for w, (on_discard, on_draw) in zip(waits, results, strict=True):
            full.append(
                WaitTile(
                    w.tile,
                    w.remaining,
                    self._as_score(on_discard, version, context, settings),
                    self._as_score(on_draw, version, context, settings, self_drawn=True),
                )
            )
        return Waits(self.name, version, format_hand(hand, winning_tile=False), s, tuple(full))

    def draw_shanten(self, hand: Hand, draws: Sequence[str], context: WinContext,
                     settings: Mapping[str, Any]) -> tuple[int, ...]:
        """By the shape alone (:func:`scoring.mcr.waits.shanten`, every MCR form), without
        the waits' trial wins."""
        if len(hand.melds) > 4:
            raise HandError(f"{len(hand.melds)} melds: a hand has at most 4 sets besides the "
                            "pair")
        self.check_one_short(hand, "MCR draws")
        counts, melds = hand.counts(), len(hand.melds)
        out = []
        for tile in draws:
            k = T.index(tile)
            counts[k] += 1
            out.append(max(0, shape_shanten(counts, melds)))
            counts[k] -= 1
        return tuple(out)

    def _as_score(
        self,
        result: engine.McrResult | None,
        version: str,
        context: WinContext,
        settings: Mapping[str, Any],
        self_drawn: bool = False,
    ) -> Score | None:
        if result is None:
            return None
        ctx = WinContext(self_drawn=self_drawn, seat_wind=context.seat_wind,
                         prevalent_wind=context.prevalent_wind)  # fmt: skip
        settlement = engine.settle(
            result.total, result.legal, ctx, int(settings["base_points"]), result.base,
            int(settings["min_fan"]),
        )
        return _score(self.name, version, result, settlement, int(settings["min_fan"]), ctx)


def is_self_drawn(context: WinContext) -> bool:
    """Whether an MCR win is self-drawn (:attr:`Score.self_drawn`): its ``self_drawn``
    flag, which decides both its fans — 自摸, or 不求人 for a concealed hand, 杠上开花 and
    妙手回春 (which count no 自摸 of their own) — and its settlement (each other player
    pays 8 + total: :func:`scoring.mcr.engine.settle`). Robbing a kong (抢杠和, ``kong``
    without ``self_drawn``) is a win on the konger's tile, paid by him as the discarder:
    not self-drawn.

    >>> [is_self_drawn(WinContext(self_drawn=drawn, kong=True)) for drawn in (True, False)]
    [True, False]
    """
    return context.self_drawn


def _score(name: str, version: str, result: engine.McrResult, settlement: Settlement,
           min_fan: int, context: WinContext) -> Score:
    """The rule set's Score of an engine result; an illegal one says why in ``details``."""
    details = {} if result.legal else {"reason": engine.illegal_reason(result.base, min_fan)}
    return Score(name, version, result.total, result.legal, result.fans, settlement, details,
                 self_drawn=is_self_drawn(context))


RULE_SET = McrRuleSet()
