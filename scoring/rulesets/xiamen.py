"""Xiamen (厦门) rules: 144 tiles, 16-tile hands, the gold (金) wild tile.

Hand size: every player wins with five sets and a pair, 17 tiles counting each kong as 3
(the dealer's 17 at the deal are the same count; a non-dealer has 17 after drawing the
winning tile). 三金倒 at the opening is declared on the dealt tiles (the dealer's 17, a
non-dealer's 16, nothing melded); 三游 may be written as its 16 tiles (the lone gold).

The gold: ``gold=`` (or ``indicator=``, the tile turned up: its kind is the gold). Copies
of the gold kind in the standing tiles are wild for any kind, their own included. 白板
(``P``) stands for the gold's face (not wild); golds are never melded, so a meld tile of
the gold's kind (or a ``P`` in a meld) is a 白板 standing in. The copies are counted as the
tiles are (:meth:`Xiamen.stand_ins`, ``Hand.melded_as``): gold 5m, ``[555m,1]`` is three
白板, so four golds 5m may stand beside it, and at most one ``P`` (four 白板 in all).
When 白板 is itself the gold nothing stands in for it: a ``P`` in a meld is a gold melded,
a :class:`HandError` (:func:`_meld_faces`). :meth:`Xiamen.unmelded_faces` names the faces
no meld shows (the gold's), for a reader of photos.

Robbing a kong (``kong=True`` without ``self_drawn``) counts as self-drawn (抢杠自摸);
``kong=True`` with ``self_drawn`` is 杠上开花, off a kong among the melds.

Self-drawn (``Score.self_drawn``: nobody deals in, no discarder pays for it): the
``self_drawn`` flag, a robbed kong (抢杠自摸, seed 000: 以自摸论, with or without the
konger's seat), ``win=自摸``, and the win types won without a discard whatever the flag
says — 游金, 双游, 三游, 三金倒 and 天和; 天听 is won either way (self-drawn with
``self_drawn`` or ``kong``, else on a discard); ``win=平胡``/``discard`` is a discard win
(:func:`_win_of`).

Money: ``unit = 底 + 水``, each of the three others pays ``unit × multiplier`` chips, plus
bonus money reported apart (see :mod:`scoring.rulesets.xiamen_money`). ``Score.total`` is
the chips one payer pays; ``Score.fans`` lists the unit's items (底 and each 水).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, ClassVar

from scoring import tiles as T
from scoring.hand import Hand, HandError, Meld
from scoring.regional.wild_hand import (
    check_robbed_tile,
    check_tile_count,
    counts_and_wilds,
    kind_of,
    meld_text,
    set_text,
)
from scoring.rulesets.base import (
    SEAT_NAMES,
    Deal,
    RuleSet,
    Score,
    ScoredFan,
    Settlement,
    Waits,
    WinContext,
    trial_waits,
    with_seen,
)
from scoring.rulesets.xiamen_money import (
    FLOWER_SET,
    SEASONS,
    SET_WATER_KEYS,
    ChipPayment,
    base,
    flower_set_note,
    flower_water,
    multiplier,
    payments,
    set_water,
)
from scoring.rulesets.xiamen_settings import (
    CONTEXT,
    SETTINGS,
    WIN_NAMES,
    WIN_TYPES,
    check_chip_stack,
    with_half_stack_false_win,
)
from scoring.wild import (
    Decomposition,
    WildSet,
    best_reading,
    decompositions,
    shanten,
    shanten_after_draws,
)

WHITE = T.index("P")
SEATS = ("left", "opposite", "right")
GOLD = "金"


@dataclass(frozen=True)
class _Win:
    """The win as Xiamen sees it: gold kind, scored win type, who pays (``self_drawn``:
    each other player, as on a self-draw — the score's ``self_drawn``)."""

    gold: int
    kind: str  # a key of WIN_NAMES
    self_drawn: bool
    dealer: bool


class Xiamen(RuleSet):
    """厦门: 金 (gold) wild tile, 游金/双游/三游, 三金倒, money as (底 + 水) × multiplier."""

    name = "xiamen"
    title = "Xiamen (厦门, 金 gold wild)"
    hand_size = 17

    setting_table = SETTINGS
    context_table = CONTEXT
    #: 水 counts each bonus tile, plus all four seasons and all four flowers: which
    #: group a bonus tile is in matters, not which of its group
    score_alike = (SEASONS, FLOWER_SET)
    money_apart: ClassVar[bool] = True
    tile_context: ClassVar[tuple[str, ...]] = ("gold", "indicator")
    #: self-drawn or on a discard, 抢杠 (kong), the flowers' 水; no winds, 海底 or 和绝张
    #: in seed 000 (the dealer is the context field ``dealer``)
    win_fields: ClassVar[tuple[str, ...]] = ("self_drawn", "kong", "flowers", "discarder")
    shape_free_wins: ClassVar[frozenset[str]] = frozenset(
        name for name, kind in WIN_TYPES.items() if kind in ("three_golds", "san_you"))
    #: seed 000: the dealer deals again after winning (连庄) and after a drawn hand (臭庄);
    #: a session lasts a set time (3 hours), not a number of rounds
    deal: ClassVar[Deal] = Deal(stays_on_dealer_win=True, stays_on_draw=True, rounds=None)
    #: seed 000: 诈胡 … 当轮游戏结束庄家不下庄，吔不调庄从新开牌
    false_claim: ClassVar[str] = (
        "诈胡 (penalty false_win, paid outside the chips); the dealer deals the hand again "
        "(seed 000): void this hand")
    game: ClassVar[Mapping[str, Any]] = {
        "tiles": 144,
        "claims": ["chow", "pung", "kong"],
        "flowers": True,
        "wild": "金 gold: the indicator's kind; 白板 plays as the gold's face",
        "winning_shape": "five sets and a pair (17 tiles, a kong counted as 3)",
        "wins": "discard (holding no gold) or self-draw; 游金/双游/三游, 三金倒, 天听, 天和",
    }

    def resolve_settings(self, given: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The settings, with ``false_win_money`` half of ``chip_stack`` unless given
        (:func:`~scoring.rulesets.xiamen_settings.with_half_stack_false_win`); HandError
        for ``chip_stack=0`` with the payment cap on, which would pay no win anything
        (:func:`~scoring.rulesets.xiamen_settings.check_chip_stack`)."""
        resolved = with_half_stack_false_win(given, super().resolve_settings(given))
        check_chip_stack(resolved)
        return resolved

    # ------------------------------------------------------------------ scoring
    def stand_ins(self, extra: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
        """A meld's tile of the gold's kind is a 白板 (``P``) standing in (none when 白板 is
        the gold, or no gold is given: :meth:`check_context` refuses that)."""
        try:
            gold = _gold_of(extra)
        except HandError:
            return ()
        return _stand_ins(gold)

    def unmelded_faces(self, extra: Mapping[str, Any]) -> frozenset[str]:
        """The tile faces no meld shows under the context fields ``extra``: the gold's
        (golds are never melded, seed 000: 金打出后其它玩家不能吃、碰、杠该金牌). Gold 5m:
        a meld shows the 白板 standing in (the notation writes it 5m, :meth:`stand_ins`),
        never a 5m face; gold P: no 白板 in any meld (nothing stands in for it). Empty when
        no gold is given (:meth:`check_context` refuses that). A reader of photos names a
        meld showing such a face (:func:`vision.correct.gold_in_meld_problem`).

        >>> x = Xiamen()
        >>> x.unmelded_faces({"gold": "5m"}), x.unmelded_faces({"indicator": "P"})
        (frozenset({'5m'}), frozenset({'P'}))
        >>> x.unmelded_faces({})
        frozenset()
        """
        try:
            return frozenset({T.code(_gold_of(extra))})
        except HandError:
            return frozenset()

    def score(self, hand: Hand, context: WinContext, settings: Mapping[str, Any]) -> Score:
        win = _win_of(context)
        hand = _as_held(hand, win.gold)
        melds = _meld_faces(hand, win.gold)
        _check_deal(hand, win, context)
        if context.kong and not context.self_drawn:  # 抢杠, the discarder's seat known or not
            check_robbed_tile(hand, win.gold, "gold (金)",
                              {} if win.gold == WHITE else {win.gold: WHITE})
        # the listed flowers against flowers=, before the legality check: the same
        # contradiction is the same HandError whether or not the hand is a legal win
        flowers = context.flower_count(hand)
        reason = _illegal_reason(hand, win, context, settings)
        if reason:
            return _illegal(reason, win, settings)
        # 三金倒 wins whatever the other tiles are: no reading is needed.
        readings = ([()] if win.kind.startswith("three_golds")
                    else _readings(hand, win, settings))
        if not readings:
            if win.kind in ("you_jin", "shuang_you", "san_you"):
                why = (
                    f"not a {WIN_NAMES[win.kind][0]} hand: after setting aside one gold and the "
                    "drawn tile, the rest is not five sets"
                )
            else:
                why = "not complete: the tiles do not form five sets and a pair, golds as wilds"
            return _illegal(why, win, settings)
        items, reading = _best_water(hand, win, melds, readings, settings)
        golds = _golds(hand, win.gold)
        flower_items = flower_water(settings, hand.flowers, flowers)
        # Each gold's occurrence shows the set it stands in ("23p+金(1p)"); 三金倒, with
        # no reading, shows each gold alone ("金(5m)"), as a lone 三游 gold is shown.
        used = [(_set_text(st, win.gold),) for st in reading for _ in st.wild_faces]
        gold_sets = (tuple(used) if len(used) == golds
                     else ((f"{GOLD}({T.code(win.gold)})",),) * golds)
        gold_items = (
            [ScoredFan(GOLD, "Gold Held", int(settings["water_gold"]), golds, gold_sets)]
            if golds
            else []
        )
        extra = context.extra
        bottom = base(
            settings,
            dealer=win.dealer,
            repeats=int(extra["dealer_repeats"]),
            drawn=int(extra["drawn_hands"]),
        )
        fans = (
            ScoredFan("底", "Base (Dealer)" if win.dealer else "Base", bottom),
            *gold_items,
            *flower_items,
            *items,
        )
        unit = sum(f.points for f in fans)
        settlement, kill, bonus_each = _settle(win, unit, context, settings)
        settlement = _with_flower_note(settlement, settings, hand.flowers, flowers)
        zh, en = WIN_NAMES[win.kind]
        details: dict[str, Any] = {
            "win": win.kind,
            "win_zh": zh,
            "win_en": en,
            "gold": T.code(win.gold),
            "unit": unit,
            "water": unit - bottom,
            "multiplier": multiplier(settings, win.kind),
            "bonus_per_payer": bonus_each,
            "kill_three": kill,
            "reading": [s.to_dict() for s in reading],
            "reading_text": [_set_text(s, win.gold) for s in reading],
        }
        return Score(
            rules=self.name,
            version=None,
            total=unit * multiplier(settings, win.kind),
            legal=True,
            fans=tuple(f for f in fans if f.count),
            settlement=settlement,
            details=details,
            self_drawn=win.self_drawn,
        )

    def settle(
        self,
        hand: Hand,
        total: int,
        legal: bool,
        context: WinContext,
        settings: Mapping[str, Any],
    ) -> Settlement:
        """Payments for a win whose chips per payer are ``total`` (``unit × multiplier``)."""
        if not legal:
            return _false_win_settlement(settings, "not a legal win")
        win = _win_of(context)
        times = multiplier(settings, win.kind)
        unit, rest = divmod(total, times) if times else (0, total)
        if rest:
            raise HandError(
                f"total {total} is not a multiple of the {win.kind} multiplier "
                f"{multiplier(settings, win.kind)}"
            )
        return _with_flower_note(_settle(win, unit, context, settings)[0], settings,
                                 hand.flowers, context.flower_count(hand))

    def check_context(self, context: WinContext, settings: Mapping[str, Any]) -> None:
        """The gold (金), which every answer needs (a score and the waits alike): ``gold``
        or ``indicator`` given, a suit or honour tile, the two agreeing. Whether the win
        type fits the other fields is :meth:`score`'s to check: the waits take none."""
        _gold_of(context.extra)

    def shape_context(self, hand: Hand, context: WinContext) -> WinContext | None:
        """The gold, and the win type where it has a shape of its own (游金, 双游, 三游:
        five sets beside a gold paired with the drawn tile, or a lone gold); None for a
        win on a discard whose winning tile is the gold (seed 000: a discarded gold cannot
        be claimed or won on). A gold *held* on a discard win stays a winning shape: the
        score says why it is not legal (sixty-eighth session). A context the scorer
        refuses is asked as the default (the score says what is wrong)."""
        base = super().shape_context(hand, context)
        try:
            win = _win_of(context)
        except HandError:
            return base
        on_discard = win.kind == "discard" or (win.kind == "tian_ting" and not win.self_drawn)
        if on_discard and hand.standing and T.index(hand.standing[-1]) == win.gold:
            return None
        if base is None or win.kind not in ("you_jin", "shuang_you", "san_you"):
            return base
        return dataclasses.replace(base, extra={**base.extra, "win": context.extra["win"]})

    def win_counts(self, context: Mapping[str, Any]) -> tuple[int, ...]:
        """17, and the counts of :data:`_SIZES` for the win type given (三游: 16 or 17; 三金倒
        at the opening: 16 for a non-dealer); 17 alone for a context it cannot read.

        >>> x = Xiamen()
        >>> x.win_counts({"gold": "5m", "win": "三游"}), x.win_counts({"win": "三金倒",
        ...     "opening": True}), x.win_counts({"self_drawn": True})
        ((16, 17), (16,), (17,))
        """
        fields = self.context_fields()
        try:
            extra = self.resolve_context({k: v for k, v in context.items() if k in fields})
            kind = WIN_TYPES[str(extra["win"])]
        except (HandError, KeyError):
            return (self.hand_size,)
        if kind == "three_golds":
            kind = "three_golds_opening" if extra["opening"] else "three_golds_later"
        found = _SIZES.get((kind, bool(extra["dealer"]))) or _SIZES.get((kind, None))
        return found[0] if found else (self.hand_size,)

    # ------------------------------------------------------------------ waits
    def waits(self, hand: Hand, context: WinContext, settings: Mapping[str, Any]) -> Waits:
        gold = _gold_of(context.extra)
        hand = _as_held(hand, gold)  # the trial wins keep it: a meld's 5m is no gold's copy
        _meld_faces(hand, gold)
        self.check_one_short(hand, "Xiamen waits")
        counts, wilds = counts_and_wilds(hand.standing, gold, _face_map(gold))
        distance = shanten(counts, wilds)
        text = str(hand)
        if distance:
            return Waits(self.name, None, text, distance)
        held = _physical_counts(hand, gold)
        found = trial_waits(self, hand, held, context, settings,
                            extra={"win": "plain", "opening": False}, keep_flowers=True)
        return Waits(self.name, None, text, 0, found)

    def draw_shanten(self, hand: Hand, draws: Sequence[str], context: WinContext,
                     settings: Mapping[str, Any]) -> tuple[int, ...]:
        """By the shape alone (:func:`scoring.wild.shanten`: golds wild, 白板 as the
        gold's face), without the waits' trial wins."""
        gold = _gold_of(context.extra)
        hand = _as_held(hand, gold)
        _meld_faces(hand, gold)
        self.check_one_short(hand, "Xiamen draws")
        face = _face_map(gold)  # a 白板 drawn is the gold's face
        return shanten_after_draws(*counts_and_wilds(hand.standing, gold, face), gold, draws,
                                   face)

    def wild_kinds(self, context: WinContext) -> frozenset[str]:
        """The gold's kind."""
        return frozenset({T.code(_gold_of(context.extra))})

    def held(self, hand: Hand, context: WinContext,
             seen: Sequence[int] | None = None) -> list[int]:
        """The physical tiles (a meld's tile of the gold's kind is a 白板 standing in),
        and ``seen``, the tiles seen elsewhere as they lie (a gold seen is of the gold's
        kind; a 白板 in another's meld is a ``P``): :meth:`RuleSet.held`."""
        gold = _gold_of(context.extra)
        return with_seen(_physical_counts(_as_held(hand, gold), gold), seen)


# ---------------------------------------------------------------------- helpers
def _gold_of(extra: Mapping[str, Any]) -> int:
    gold, indicator = extra.get("gold"), extra.get("indicator")
    if gold is None and indicator is None:
        raise HandError(
            "Xiamen needs the gold (金): pass gold=KIND or indicator=TILE (e.g. gold=5m)"
        )
    kinds = {
        name: kind_of(str(v), "the gold indicator" if name == "indicator" else "the gold")
        for name, v in (("gold", gold), ("indicator", indicator))
        if v is not None
    }
    if len(set(kinds.values())) > 1:
        raise HandError(
            f"gold={gold} and indicator={indicator} disagree: the indicator's kind is the gold"
        )
    return next(iter(kinds.values()))


def _win_of(context: WinContext) -> _Win:
    extra = context.extra
    gold = _gold_of(extra)
    for key in ("dealer_repeats", "drawn_hands"):
        if int(extra[key]) < 0:
            raise HandError(f"{key} must be 0 or more, got {extra[key]}")
    raw = str(extra["win"])
    kind = WIN_TYPES[raw]
    dealer = bool(extra["dealer"])
    # 抢杠自摸: robbing a kong (kong=true on another player's tile) counts as self-drawn.
    self_drawn = context.self_drawn or context.kong
    if kind in ("you_jin", "shuang_you", "san_you", "three_golds", "tian_he"):
        # a 游金 that robs a kong (kong=true) is taken with or without the konger's seat,
        # as 抢杠自摸 is (win=自摸 or plain); the others are refused with a kong elsewhere
        if context.discarder is not None and not (kind == "you_jin" and context.kong):
            raise HandError(f"{raw} is won without a discard: it has no discarder")
        self_drawn = True
    if kind == "tian_he" and not dealer:
        raise HandError("天和 (tian_he) is the dealer's win on the deal: pass dealer=true")
    if kind == "self_drawn":
        # 抢杠自摸 (seed 000: 对抢杠胡牌的…以自摸论): robbing a kong is a 自摸 whose
        # "discarder" is the player who made the kong, as with win=plain; a self-draw off
        # the wall (self_drawn=true: WinContext refuses a discarder) has none
        if context.discarder is not None and not context.kong:
            raise HandError(f"win={raw} is self-drawn: it has no discarder (unless it robs "
                            "a kong, kong=true: then the konger's seat)")
        self_drawn = True
    elif kind == "discard" and self_drawn:
        raise HandError(f"win={raw} is a discard win, but self_drawn/kong says self-drawn")
    if kind == "plain":
        kind = "self_drawn" if self_drawn else "discard"
    elif kind == "three_golds":
        kind = "three_golds_opening" if extra["opening"] else "three_golds_later"
    if extra["opening"] and not kind.startswith("three_golds"):
        raise HandError("opening=true only describes 三金倒 (win=three_golds)")
    return _Win(gold, kind, self_drawn, dealer)


def _stand_ins(gold: int) -> tuple[tuple[str, str], ...]:
    """``Hand.melded_as`` under the gold ``gold``: a meld's tile of its kind is a 白板."""
    return () if gold == WHITE else ((T.code(gold), "P"),)


def _as_held(hand: Hand, gold: int) -> Hand:
    """``hand`` with its meld tiles read as the tiles they are (:func:`_stand_ins`): its
    copies counted again so (HandError for more than 4 白板, the stand-ins among them),
    and a hand made from it (a trial win on a gold) may hold four golds beside them."""
    melded_as = _stand_ins(gold)
    if hand.melded_as == melded_as:
        return hand
    return dataclasses.replace(hand, melded_as=melded_as)


def _face_map(gold: int) -> dict[int, int]:
    """白板 plays as the gold's face (unless the gold is 白板 itself)."""
    return {} if gold == WHITE else {WHITE: gold}


def _set_text(s: WildSet, gold: int) -> str:
    """A reading's set as the hand holds it: a gold as ``金(face)``, a 白板 as ``P`` in
    the place of the gold's face it plays (gold 5m: ``4mP6m``, ``P+金(5m)``; gold E:
    ``PPP``). Every standing tile of the gold's kind is a gold, so a natural face of
    that kind in a reading is a 白板."""
    return set_text(s, GOLD, {} if gold == WHITE else {gold: "P"})


def _meld_faces(hand: Hand, gold: int) -> list[Meld]:
    """Melds as the faces they show (a ``P`` in a meld is a 白板 standing for the gold);
    checks that no more 白板 are used than exist and that no gold is melded."""
    out = []
    whites = sum(1 for t in hand.standing if T.index(t) == WHITE) if gold != WHITE else 0
    for m in hand.melds:
        faces = tuple(T.code(gold) if T.index(t) == WHITE else t for t in m.tiles)
        if gold == WHITE and any(T.index(t) == WHITE for t in m.tiles):
            raise HandError(
                f"meld {meld_text(m)}: 白板 is the gold here, and golds are never melded"
            )
        whites += sum(1 for t in faces if T.index(t) == gold)
        out.append(Meld(m.kind, faces, m.claimed_from, m.claimed_index, m.added) if
                   faces != m.tiles else m)
    if whites > T.COPIES:
        raise HandError(
            f"the hand uses {whites} 白板 (standing P, and meld tiles of the gold's kind "
            f"{T.code(gold)}, which are 白板 standing in): there are only 4"
        )
    return out


def _golds(hand: Hand, gold: int) -> int:
    return sum(1 for t in hand.standing if T.index(t) == gold)


def _physical_counts(hand: Hand, gold: int) -> list[int]:
    held = [0] * T.NUM_KINDS
    for t in hand.standing:
        held[T.index(t)] += 1
    for m in hand.melds:
        for t in m.tiles:
            i = T.index(t)
            held[WHITE if (i == gold and gold != WHITE) else i] += 1
    return held


#: Tiles a win is declared on (RULES.md: the dealer is dealt 17, the others 16): 三游 is
#: won by discarding the third gold with no tile drawn after it (seed 000): 16, one gold
#: left alone (17: the gold's partner written as the last tile, as before the sixty-fourth
#: session); 三金倒 at the opening on the dealt tiles; a later one on the draw of the third
#: gold (a gold is never claimed); every other win on 17.
_SIZES: dict[tuple[str, bool | None], tuple[tuple[int, ...], str]] = {
    ("san_you", None): ((16, 17), "Xiamen"),
    ("three_golds_opening", True): ((17,), "Xiamen 三金倒 at the opening, on the dealer's "
                                           "17 dealt tiles"),
    ("three_golds_opening", False): ((16,), "Xiamen 三金倒 at the opening, on a non-dealer's "
                                            "16 dealt tiles"),
    ("three_golds_later", None): ((17,), "Xiamen 三金倒 after the opening, on the draw of "
                                         "the third gold"),
}
"""(win type, dealer or None for either) → tile counts allowed, and the check's title."""

#: Wins on the tiles of the deal (seed 000: 天和：庄家起手就和牌; 起手三个金时三金倒): nothing
#: claimed, no kong declared, no replacement tile drawn.
_ON_THE_DEAL = {"tian_he": "天和 (tian_he)", "three_golds_opening": "三金倒 at the opening"}


#: 双游 and 三游 are won with no kong to rob or to draw a replacement for (seed 000):
#: after the 双游 gold is discarded "其他各家每人最后再摸一张牌无需出牌，若摸到花或杠时不再补牌"
#: and the 双游 player's one draw wins ("摸到一张牌后不能三游,那么系统强行双游和牌"); 三游 is
#: won by discarding the third gold, after which "其他各家不再摸牌".
_NO_KONG = {
    "shuang_you": ("双游 (shuang_you) is won on the 双游 player's one draw after the others "
                   "each draw once and replace no flower or kong (seed 000: 若摸到花或杠时不再"
                   "补牌…摸到一张牌后不能三游,那么系统强行双游和牌)"),
    "san_you": ("三游 (san_you) is won by discarding the third gold, with no tile drawn "
                "after it (seed 000: 则将金打出其他各家不再摸牌)"),
}

#: The wall a hand can have (seed 000: 全副牌…144张; RULES.md: the dealer is dealt 17, the
#: others 16): 144 - (17 + 3 × 16) = 79 tiles are left after the deal, and a win leaves
#: no more (the turned-up gold indicator is counted as still in the wall, as the copy limit
#: counts it). A win on the tiles of the deal (天和, 三金倒 at the opening: before any
#: discard, so before anyone's draw) comes after the flowers dealt were replaced from the
#: wall, at most one tile for each of the 8 flowers: 79 - 8 = 71 left at least.
WALL_TILES = 144
DEALT_TILES = 17 + 3 * 16
MOST_WALL_LEFT = WALL_TILES - DEALT_TILES  # 79
LEAST_WALL_AT_THE_DEAL = MOST_WALL_LEFT - len(T.FLOWERS)  # 71


def _check_deal(hand: Hand, win: _Win, context: WinContext) -> None:
    """HandError for a hand or context that cannot happen: the tile count for the win
    type, a win on the deal with melds or off a kong, 杠上开花 with no kong, 双游 or 三游
    with a kong, a wall larger than the deal leaves (or than the deal's, for a win on it)."""
    sizes, title = (_SIZES.get((win.kind, win.dealer)) or _SIZES.get((win.kind, None))
                    or ((17,), "Xiamen"))
    check_tile_count(hand, sizes, title)
    if not hand.standing:
        raise HandError("Xiamen: the hand has no standing tiles (the last is the winning tile)")
    name = _ON_THE_DEAL.get(win.kind)
    if name and hand.melds:
        raise HandError(f"{name} is won on the tiles of the deal: no melds "
                        f"({' '.join(meld_text(m) for m in hand.melds)})")
    if name and context.kong:
        raise HandError(f"{name} is won on the tiles of the deal, not off a kong: "
                        "drop kong=true")
    if win.kind in _NO_KONG and context.kong:
        raise HandError(f"{_NO_KONG[win.kind]}: it cannot rob a kong or be won off a "
                        "kong's replacement tile: drop kong=true")
    wall = int(context.extra.get("wall_left", -1))
    if wall > MOST_WALL_LEFT:
        raise HandError(f"wall_left={wall} cannot be: of the {WALL_TILES} tiles, "
                        f"{DEALT_TILES} are dealt (17 to the dealer, 16 to each other "
                        f"player), so at most {MOST_WALL_LEFT} are left in the wall")
    if name and 0 <= wall < LEAST_WALL_AT_THE_DEAL:
        raise HandError(f"{name} is won on the tiles of the deal, before anyone draws: "
                        f"the wall then holds {MOST_WALL_LEFT} tiles less one for each "
                        f"flower replaced (at most {len(T.FLOWERS)}), not wall_left={wall}")
    if context.kong and context.self_drawn and not any(m.kind == "kong" for m in hand.melds):
        raise HandError("杠上开花 (kong=true, self-drawn) needs a kong among the melds")


def _illegal_reason(
    hand: Hand, win: _Win, context: WinContext, settings: Mapping[str, Any]
) -> str:
    """Why this cannot be a Xiamen win ('' when the shape check may go ahead)."""
    wall = int(context.extra.get("wall_left", -1))
    # 16 kept back (seed: 当牌墙里剩下16张牌时如果没有人和牌，即臭庄): the tile that leaves
    # 16 is the last one drawn, and may still win; fewer left is past the draw
    if 0 <= wall < int(settings["drawn_hand_tiles"]):
        return (
            f"臭庄: {wall} wall tiles left is past the draw (the last "
            f"{settings['drawn_hand_tiles']} are kept back): the hand was already drawn"
        )
    golds = _golds(hand, win.gold)
    winning = T.index(hand.standing[-1])
    if win.kind == "discard" or (win.kind == "tian_ting" and not win.self_drawn):
        if winning == win.gold:
            return "a discarded gold (金) cannot be claimed or won on"
        if golds:
            return (
                f"holding {golds} gold(s) ({T.code(win.gold)}) forbids winning on a discard: "
                "self-draw only"
            )
    if win.kind.startswith("three_golds"):
        if golds < 3:
            return f"三金倒 needs three golds ({T.code(win.gold)}); the hand holds {golds}"
        if win.kind == "three_golds_later" and not settings["three_golds_later"]:
            return "三金倒 after the opening is off (setting three_golds_later=false)"
    if win.kind in ("you_jin", "shuang_you", "san_you") and golds < 1:
        return f"{WIN_NAMES[win.kind][0]} needs a gold in the pair; the hand holds none"
    return ""


def _readings(hand: Hand, win: _Win, settings: Mapping[str, Any]) -> list[Decomposition]:
    """The readings :func:`_best_water` chooses from (none: no winning shape). A
    self-drawn win's 水 is its melds' and its triplets' (all concealed), so of its
    readings only the one chosen is given: the first with the most triplets' 水
    (:func:`~scoring.wild.best_reading`; four golds make thousands of readings)."""
    counts, wilds = counts_and_wilds(hand.standing, win.gold, _face_map(win.gold))
    if win.kind not in ("you_jin", "shuang_you", "san_you"):
        if win.self_drawn:
            triplets = _triplet_water(set_water(settings, "concealed_triplet", 0),
                                      set_water(settings, "concealed_triplet", T.index("E")))
            best = best_reading(counts, wilds, free_face=win.gold, weights=triplets)
            return [] if best is None else [best]
        return decompositions(counts, wilds, free_face=win.gold)
    if win.kind == "san_you" and hand.tile_count == 16:  # a lone gold: five sets beside it
        rest = list(counts)
        lone = WildSet("pair", (win.gold,), (win.gold,))  # half a pair: one gold
        sets = decompositions(rest, wilds - 1, free_face=win.gold, pair=False)
        return [(lone, *r) for r in sets] if wilds >= 1 else []
    # 游金: the pair is a gold and the drawn tile (any tile, a gold included).
    drawn = T.index(hand.standing[-1])
    face = _face_map(win.gold).get(drawn, drawn)
    rest = list(counts)
    if drawn == win.gold:
        pair = WildSet("pair", (win.gold, win.gold), (win.gold, win.gold))
        spare = wilds - 2
    else:
        rest[face] -= 1
        pair = WildSet("pair", (face, face), (face,))
        spare = wilds - 1
    if spare < 0:
        return []
    sets = decompositions(rest, spare, free_face=win.gold, pair=False)
    return [(pair, *r) for r in sets]


@lru_cache(maxsize=64)
def _triplet_water(number: int, honour: int) -> tuple[int, ...]:
    """水 of a concealed triplet of each kind: ``number`` for a number tile, ``honour``
    for an honour."""
    return tuple(honour if T.is_honour(k) else number for k in range(T.NUM_KINDS))


def _best_water(
    hand: Hand,
    win: _Win,
    melds: Sequence[Meld],
    readings: Sequence[Decomposition],
    settings: Mapping[str, Any],
) -> tuple[list[ScoredFan], Decomposition]:
    """水 of the sets (melds, then the reading with the most 水: 就高), and that reading.
    ``melds``: the hand's melds as the faces they play (:func:`_meld_faces`), which
    decide the 水; each is shown as the hand writes it (``[PPP,1]``: ``PPP``)."""
    meld_items: list[tuple[str, int, str]] = []
    for m, written in zip(melds, hand.melds, strict=True):
        kind = T.index(m.tiles[0])
        if m.kind == "pung":
            meld_items.append(("melded_pung", kind, meld_text(written)))
        elif m.kind == "kong":
            t = "concealed_kong" if m.concealed else "melded_kong"
            meld_items.append((t, kind, meld_text(written)))
    winning = T.index(hand.standing[-1])
    winning_face = _face_map(win.gold).get(winning, winning)
    best: tuple[int, list[tuple[str, int, str]], Decomposition] | None = None
    for reading in readings:
        items = list(meld_items)
        on_discard = not win.self_drawn
        elsewhere = on_discard and any(
            s.shape != "pung" and winning_face in s.natural_faces for s in reading
        )
        claimed = False
        for s in reading:
            if s.shape != "pung":
                continue
            t = "concealed_triplet"
            if on_discard and not elsewhere and not claimed and winning_face in s.natural_faces:
                t, claimed = "melded_pung", True  # the discard completed this triplet
            items.append((t, s.kind, _set_text(s, win.gold)))
        water = sum(set_water(settings, t, k) for t, k, _ in items)
        if best is None or water > best[0]:
            best = (water, items, reading)
    assert best is not None
    fans: list[ScoredFan] = []
    for set_type, (_n, _h, zh, en) in SET_WATER_KEYS.items():
        for honour in (False, True):
            group = [
                text
                for t, k, text in best[1]
                if t == set_type and T.is_honour(k) == honour
            ]
            value = set_water(settings, set_type, T.index("E") if honour else 0)
            if group and value:
                label_zh = zh if set_type == "melded_pung" else zh + ("(字)" if honour else "")
                label_en = en + (" of Honours" if honour and set_type != "melded_pung" else "")
                fans.append(
                    ScoredFan(label_zh, label_en, value, len(group), tuple((g,) for g in group))
                )
    return fans, best[2]


def _settle(
    win: _Win, unit: int, context: WinContext, settings: Mapping[str, Any]
) -> tuple[Settlement, bool, int]:
    """Payments of a win worth ``unit`` (底 + 水); also 杀三 and the bonus per payer."""
    payers: tuple[str, ...] = SEATS
    on_discard = win.kind == "discard" or (win.kind == "tian_ting" and not win.self_drawn)
    if on_discard and settings["discard_payers"] == "discarder":
        payers = (SEAT_NAMES[context.discarder],) if context.discarder else ("discarder",)
    stacks = {}
    for seat in SEATS:
        have = int(context.extra[f"chips_{seat}"])
        if have >= 0:
            stacks[seat] = have
    paid, kill = payments(settings, unit=unit, win=win.kind, payers=payers, stacks=stacks)
    zh, _en = WIN_NAMES[win.kind]
    if win.kind == "san_you" and settings["san_you_kills_three"] and len(payers) == 3:
        note = (f"{zh}: " + ("杀三 by itself — " if kill else "")
                + "each payer pays all the chips he has"
                + ("" if settings["cap_at_stack"] else
                   f", or (底 + 水) {unit} × {multiplier(settings, win.kind)} if more")
                + (f" + {paid[0].bonus} bonus outside the chips" if paid[0].bonus else "")
                + ("" if kill else " (no 杀三: a payer had no chips to lose)"))
        return Settlement("chips", tuple(paid), note), kill, paid[0].bonus
    note = (
        f"{zh}: each payer pays (底 + 水) {unit} × {multiplier(settings, win.kind)} chips"
        + (f" + {paid[0].bonus} bonus outside the chips" if paid and paid[0].bonus else "")
        + (" (杀三)" if kill else "")
        + (
            "; capped at the chips the payer has left"
            if any(p.amount < unit * multiplier(settings, win.kind) for p in paid)
            else ""
        )
    )
    return Settlement("chips", tuple(paid), note), kill, (paid[0].bonus if paid else 0)


def _with_flower_note(settlement: Settlement, settings: Mapping[str, Any],
                      flowers: Sequence[str], count: int) -> Settlement:
    """``settlement`` with its note saying that the flowers' full sets were not counted,
    where a count alone cannot tell them (:func:`~scoring.rulesets.xiamen_money.
    flower_set_note`): the score is the least the hand can be worth, and says so."""
    note = flower_set_note(settings, flowers, count)
    return dataclasses.replace(settlement, note=f"{settlement.note}; {note}") if note else \
        settlement


def _false_win_settlement(settings: Mapping[str, Any], reason: str) -> Settlement:
    """诈胡: the claimant pays each other player ``false_win_money`` outside the chips
    (a negative bonus: money from the would-be winner)."""
    money = int(settings["false_win_money"])
    paid = tuple(ChipPayment(seat, 0, -money) for seat in SEATS) if money else ()
    note = f"{reason}: 诈胡, the claimant pays {money} to each other player outside the chips"
    return Settlement("chips", paid, note)


def _illegal(reason: str, win: _Win, settings: Mapping[str, Any]) -> Score:
    return Score(
        rules="xiamen",
        version=None,
        total=0,
        legal=False,
        fans=(),
        settlement=_false_win_settlement(settings, f"not a legal win ({reason})"),
        details={"reason": reason, "win": win.kind, "gold": T.code(win.gold)},
        self_drawn=win.self_drawn,  # the win as claimed
    )


RULE_SET = Xiamen()
