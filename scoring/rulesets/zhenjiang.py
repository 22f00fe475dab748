"""Zhenjiang (镇江) rules: 136 tiles, no flowers, no chow, the 百搭 wild tile.

A win is four sets and a pair, 14 tiles counting each kong as 3 (concealed sequences
are fine; only the chow *claim* does not exist), by self-draw or on a discard.

百搭: ``wild=`` the kind, or ``indicator=`` the turned-up tile (正搭): the 百搭 is the next
rank of the same kind (9 → 1), E → S → W → N → E, C → F → P → C. Every copy of that kind
in the standing tiles is wild, for any kind including its own. A 百搭 in a meld, or the
discarded 百搭 a player wins on, is just its own face.

Scores are multiples of the base chip (see :mod:`scoring.rulesets.zhenjiang_settings`).
``Score.total``: base chips one payer pays for the win (the discarder, on a discard).
Discards of a 百搭 during the hand (打首搭, 碰后打搭) are transfers between players,
reported in ``details["events"]`` with every seat's net in ``details["net"]``; a score
sheet books them with the win's payments, and in a drawn hand on their own
(:meth:`Zhenjiang.draw_transfers`). Each names a discarded tile of the 百搭 kind (a seat
named for both may have made one discard): more than its 4 tiles, counting the winner's
own, is a HandError.

Self-drawn (``Score.self_drawn``: nobody deals in, no discarder pays for it): the
``self_drawn`` flag (自摸, 杠开 off a kong's replacement tile), and 天胡 (``tian_hu``:
the dealer's win on the deal) with the flag or without; robbing a kong (抢杠, ``kong``
without ``self_drawn``) is a discard win, paid by the konger (:func:`_win_of`).
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from scoring import tiles as T
from scoring.hand import Hand, HandError
from scoring.regional.wild_hand import (
    check_robbed_tile,
    check_tile_count,
    counts_and_wilds,
    kind_of,
    meld_text,
    next_kind,
    set_text,
)
from scoring.rulesets.base import (
    SEAT_NAMES,
    Deal,
    Payment,
    RuleSet,
    Score,
    ScoredFan,
    Settlement,
    Waits,
    WinContext,
    trial_waits,
)
from scoring.rulesets.zhenjiang_settings import CONTEXT, SEATS, SETTINGS
from scoring.wild import best_reading, decompositions, is_complete, shanten, shanten_after_draws

WILD = "百搭"
OTHERS = ("left", "opposite", "right")


def wild_from_indicator(indicator: str) -> str:
    """百搭 kind for an indicator tile (正搭): the next rank of the same kind.

    >>> [wild_from_indicator(t) for t in ("9m", "N", "P", "5p", "C")]
    ['1m', 'E', 'C', '6p', 'F']
    """
    return T.code(next_kind(kind_of(indicator, "the 百搭 indicator")))


@dataclass(frozen=True)
class Transfer:
    """``payer`` pays ``amount`` chips to ``payee`` (seats: winner, left, opposite, right)."""

    payer: str
    payee: str
    amount: int
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {"from": self.payer, "to": self.payee, "amount": self.amount, "reason": self.reason}


def event_transfers(
    settings: Mapping[str, Any], first_wild_discard: str, wild_after_pung: tuple[str, ...],
    seats: Sequence[str] = SEATS,
) -> list[Transfer]:
    """打首搭 and 碰后打搭: the discarding seat gets the setting's base chips from each
    other seat. ``seats``: the four seats' names (default: seen from the winner; a drawn
    hand names them by wind).

    >>> s = {k: v.default for k, v in SETTINGS.items()}
    >>> [t.to_dict()["amount"] for t in event_transfers(s, "left", ())]
    [6, 6, 6]
    >>> [(t.payer, t.payee) for t in event_transfers(s, "", ("S",), "ESWN")]
    [('E', 'S'), ('W', 'S'), ('N', 'S')]
    """
    base = int(settings["base_chip"])
    out = []
    events = [(first_wild_discard, "first_wild_discard", "打首搭")] if first_wild_discard else []
    events += [(seat, "wild_after_pung", "碰后打搭") for seat in wild_after_pung]
    if (least := least_discards(first_wild_discard, wild_after_pung)) > T.COPIES:
        raise HandError(_too_many_discards(least))
    for seat, key, zh in events:
        for other in seats:
            if other != seat:
                out.append(Transfer(other, seat, int(settings[key]) * base, zh))
    return out


def least_discards(first_wild_discard: str, wild_after_pung: Sequence[str]) -> int:
    """The fewest 百搭 discards the named events can be: one per 碰后打搭 seat named,
    and the 打首搭 — unless its seat is also named for a 碰后打搭, which may have been the
    same discard (whether one discard is named in both is an open reading of seed 001,
    ``docs/regional-rules.md``: so a count is refused only when no reading allows it).

    >>> least_discards("left", ("left", "right")), least_discards("left", ("right",))
    (2, 2)
    >>> least_discards("", ("left", "left", "right", "opposite", "right"))
    5
    """
    first = 1 if first_wild_discard and first_wild_discard not in wild_after_pung else 0
    return first + len(wild_after_pung)


def _too_many_discards(discards: int, wild: str = "") -> str:
    return (f"{discards} discards of the 百搭{f' {wild}' if wild else ''} (打首搭 "
            f"first_wild_discard and 碰后打搭 wild_after_pung, one for each seat named, a "
            f"seat named in both counted once) "
            f"cannot be: the 百搭 kind has only {T.COPIES} tiles")


def net(payments: tuple[Payment, ...], transfers: list[Transfer]) -> dict[str, int]:
    """Every seat's net chips: the win's payments to the winner plus the transfers (an
    unknown discarder appears as ``discarder``)."""
    out = dict.fromkeys(SEATS, 0)
    for p in payments:
        out["winner"] += p.amount
        out[p.payer] = out.get(p.payer, 0) - p.amount
    for t in transfers:
        out[t.payee] += t.amount
        out[t.payer] -= t.amount
    return out


@dataclass(frozen=True)
class _Win:
    """The win as Zhenjiang sees it (``self_drawn``: the flag, or 天胡 — each other player
    pays; the score's ``self_drawn``)."""

    wild: int
    self_drawn: bool
    tian_hu: bool
    kong_win: str  # "", "melded" or "concealed"
    first_wild_discard: str
    wild_after_pung: tuple[str, ...]


class Zhenjiang(RuleSet):
    """镇江: 百搭 wild tile, pung and kong but no chow, no flowers."""

    name = "zhenjiang"
    title = "Zhenjiang (镇江, 百搭 wild)"
    hand_size = 14

    setting_table = SETTINGS
    context_table = CONTEXT
    seat_context: ClassVar[tuple[str, ...]] = ("first_wild_discard", "wild_after_pung")
    tile_context: ClassVar[tuple[str, ...]] = ("wild", "indicator")
    #: a 杠开 or 抢杠 (kong) won self-drawn or on a discard; no flowers, no winds, no
    #: 海底 or 和绝张 in seed 001
    win_fields: ClassVar[tuple[str, ...]] = ("self_drawn", "kong", "discarder")
    #: seed 001: 诈胡：罚6倍底钱，一将牌结束后结算，扶牌后牌局继续，诈胡者不得成牌
    false_claim: ClassVar[str] = (
        "诈胡 (penalty false_win); the hand goes on and the claimant may not win it (seed "
        "001): rule this hand a false claim (the hand that ends it is then recorded at its "
        "place), or correct it with how it ended")
    false_claim_kinds: ClassVar[Mapping[str, str]] = {"false_win": "诈胡"}
    #: seed 001: after a drawn hand the dealer deals again (黄牌庄家不变); four rounds make
    #: a session (四圈为一将); after a 诈胡 扶牌后牌局继续
    deal: ClassVar[Deal] = Deal(stays_on_draw=True, rounds=4, goes_on_after_false_claim=True)
    game: ClassVar[Mapping[str, Any]] = {
        "tiles": 136,
        "claims": ["pung", "kong"],
        "flowers": False,
        "wild": "百搭: the next rank after the indicator (9→1, E→S→W→N→E, C→F→P→C)",
        "winning_shape": "four sets and a pair (14 tiles, a kong counted as 3)",
        "wins": "self-draw or discard; no double win (nearest claimant)",
    }

    def score(self, hand: Hand, context: WinContext, settings: Mapping[str, Any]) -> Score:
        _check_hand(hand, context)
        check_tile_count(hand, (self.hand_size,), "Zhenjiang")
        win = _win_of(hand, context)
        robbed = context.kong and not win.self_drawn  # 抢杠: a discard win here
        if robbed:  # the discarder's seat known or not
            check_robbed_tile(hand, None, "百搭")  # a 百搭 melded is its own face
        transfers = event_transfers(settings, win.first_wild_discard, win.wild_after_pung)
        counts, wilds = counts_and_wilds(hand.standing, win.wild)
        winning = T.index(hand.standing[-1])
        own_face = not win.self_drawn and winning == win.wild
        if own_face:  # the discarded (or robbed) 百搭 is its own face, not wild
            counts[winning] += 1
            wilds -= 1
        # 打搭放冲 (打: discarding) a 百搭; one robbed from a kong was added, not discarded
        deal_in = own_face and not robbed
        # the first reading (in decompositions' order) alone: four 百搭 make thousands
        first = best_reading(counts, wilds, free_face=win.wild)
        if first is None:
            own = ("robbed from a kong" if robbed else "won on a discard") if own_face else ""
            return _false_win(hand, win, settings, transfers, own, wilds)
        # 脱搭: no 百搭 needed as a wild (a 百搭 used as its own face counts as none).
        natural = list(counts)
        natural[win.wild] += wilds
        no_wild = wilds == 0 or is_complete(natural, 0)
        # Show a reading without wilds when there is one (脱搭: each 百搭 as its own face),
        # else the first (with wilds held every reading uses one).
        reading = first
        if no_wild and wilds:
            reading = next(r for r in decompositions(natural, 0)
                           if not any(s.uses_wild for s in r))
        sets = tuple(meld_text(m) for m in hand.melds) + tuple(set_text(s, WILD) for s in reading)
        main = _win_items(win, no_wild, settings)
        fans = [ScoredFan(main.zh, main.en, main.value, 1, (sets,))]
        if deal_in:
            extra = int(settings["wild_deal_in"])
            fans.append(
                ScoredFan("打搭放冲", "Won on a Discarded 百搭", extra, 1, ((T.code(winning),),))
            )
        base = int(settings["base_chip"])
        per_payer = sum(f.points for f in fans) * base
        settlement = _settle(per_payer, win, context)
        details: dict[str, Any] = {
            "wild": T.code(win.wild),
            "no_wild": no_wild,
            "reading": [s.to_dict() for s in reading],
            "reading_text": [set_text(s, WILD) for s in reading],
            "events": [t.to_dict() for t in transfers],
            "net": net(settlement.payments, transfers),
        }
        return Score(self.name, None, per_payer, True, tuple(fans), settlement, details,
                     self_drawn=win.self_drawn)

    def shape_context(self, hand: Hand, context: WinContext) -> WinContext | None:
        """The 百搭 and the win's origin: a 百搭 won on a discard, or robbed from a kong
        (``kong`` and not self-drawn), is its own face, not wild (seed 001; :meth:`score`'s
        ``own_face``), so which tiles win depends on it; a self-drawn win (天胡 too) is
        asked as one, without the rest (a 杠开 with no kong, 打首搭 …: the score's to say)."""
        base = super().shape_context(hand, context)
        if base is None or context.self_drawn or context.extra.get("tian_hu"):
            return base
        return dataclasses.replace(base, self_drawn=False, kong=context.kong)

    def check_context(self, context: WinContext, settings: Mapping[str, Any]) -> None:
        """The 百搭, which every answer needs (a score and the waits alike): ``indicator``
        or ``wild`` given, a tile, the two agreeing. What a win's fields say of each other
        (天胡, the seats of ``wild_after_pung``, which a score sheet names by seat wind) is
        :meth:`score`'s to check: the waits take only the 百搭 discards named, as tiles
        gone (:func:`_wilds_gone`, for any hand, ready or not). A flower count is refused
        too: the rules play 136 tiles, none of them a flower."""
        _wild_of(context.extra)
        self.refuse_flowers(context.flowers)

    def settle(
        self,
        hand: Hand,
        total: int,
        legal: bool,
        context: WinContext,
        settings: Mapping[str, Any],
    ) -> Settlement:
        """Payments for a win worth ``total`` chips per payer (the discarder on a discard)."""
        win = _win_of(hand, context)
        if not legal:
            amount = int(settings["false_win"]) * int(settings["base_chip"])
            return _false_win_settlement(amount)
        return _settle(total, win, context)

    def draw_transfers(
        self, context: Mapping[str, Any], settings: Mapping[str, Any] | None = None
    ) -> list[dict[str, Any]]:
        """打首搭 and 碰后打搭 in a drawn hand: paid whether or not anyone wins (seed 001
        lists them apart from the wins), so a drawn hand pays them too. ``context``'s
        ``first_wild_discard`` is a seat wind, ``wild_after_pung`` comma-separated
        seat winds; its other fields are checked and otherwise unused.

        >>> [(t["from"], t["to"], t["amount"]) for t in Zhenjiang().draw_transfers(
        ...     {"first_wild_discard": "W", "indicator": "3p"})]
        [('E', 'W', 6), ('S', 'W', 6), ('N', 'W', 6)]
        """
        fields = {k: v for k, v in context.items() if k not in self.seat_context}
        self.resolve_context(fields)  # names an unknown field or a bad value
        first = str(context.get("first_wild_discard") or "").strip()
        if first and first not in T.WINDS:
            raise HandError(f"first_wild_discard {first!r}: in a drawn hand give the seat wind "
                            "of the player who discarded it (E, S, W or N)")
        after = _seats(str(context.get("wild_after_pung") or ""), T.WINDS,
                       "a seat wind (E, S, W or N; a drawn hand has no winner to name seats "
                       "from)")
        moves = event_transfers(self.resolve_settings(settings), first, after, T.WINDS)
        return [t.to_dict() for t in moves]

    def waits(self, hand: Hand, context: WinContext, settings: Mapping[str, Any]) -> Waits:
        _check_hand(hand, context)
        wild = _wild_of(context.extra)
        self.check_one_short(hand, "Zhenjiang waits")
        gone = _wilds_gone(hand, wild, context.extra)  # refused for any hand, ready or not
        counts, wilds = counts_and_wilds(hand.standing, wild)
        distance = shanten(counts, wilds)
        text = str(hand)
        if distance:
            return Waits(self.name, None, text, distance)
        held = super().held(hand, context)
        held[wild] += gone
        found = trial_waits(self, hand, held, context, settings,
                            extra={"tian_hu": False}, keep_flowers=False)
        return Waits(self.name, None, text, 0, found)

    def draw_shanten(self, hand: Hand, draws: Sequence[str], context: WinContext,
                     settings: Mapping[str, Any]) -> tuple[int, ...]:
        """By the shape alone (:func:`scoring.wild.shanten`, the 百搭 wild), without the
        waits' trial wins."""
        _check_hand(hand, context)
        wild = _wild_of(context.extra)
        self.check_one_short(hand, "Zhenjiang draws")
        return shanten_after_draws(*counts_and_wilds(hand.standing, wild), wild, draws)

    def wild_kinds(self, context: WinContext) -> frozenset[str]:
        """The 百搭's kind."""
        return frozenset({T.code(_wild_of(context.extra))})

    def held(self, hand: Hand, context: WinContext,
             seen: Sequence[int] | None = None) -> list[int]:
        """The tiles as written, the 百搭 discards named (as the waits count them) and
        ``seen``, the tiles seen elsewhere (:meth:`RuleSet.held`). The named 百搭
        discards lie among the tiles seen: the 百搭 kind's tiles seen elsewhere are the
        more of the two counts, so a 百搭 discard named and listed in ``seen`` counts once."""
        wild = _wild_of(context.extra)
        out = super().held(hand, context, seen)
        out[wild] += max(0, _wilds_gone(hand, wild, context.extra) - (seen[wild] if seen else 0))
        return out


def _wild_of(extra: Mapping[str, Any]) -> int:
    wild, indicator = extra.get("wild"), extra.get("indicator")
    if wild is None and indicator is None:
        raise HandError(
            "Zhenjiang needs the 百搭: pass indicator=TILE (正搭, e.g. indicator=1m) or wild=KIND"
        )
    kinds = set()
    if wild is not None:
        kinds.add(kind_of(str(wild), "the 百搭"))
    if indicator is not None:
        kinds.add(T.index(wild_from_indicator(str(indicator))))
    if len(kinds) > 1:
        raise HandError(
            f"wild={wild} and indicator={indicator} disagree: the 百搭 is the rank after "
            "the indicator"
        )
    return kinds.pop()


def _check_hand(hand: Hand, context: WinContext) -> None:
    if hand.flowers or context.flowers:
        raise HandError("Zhenjiang plays 136 tiles without flowers: remove the flowers")
    for m in hand.melds:
        if m.kind == "chow":
            raise HandError(
                f"chow meld {''.join(m.tiles)}: Zhenjiang has no chow claim (pung and kong only)"
            )


def _seats(text: str, allowed: tuple[str, ...] = SEATS,
           what: str = "a seat (winner, left, opposite, right)") -> tuple[str, ...]:
    """``wild_after_pung``'s comma-separated seats, each one of ``allowed``."""
    seats = tuple(s.strip() for s in text.split(",") if s.strip())
    for s in seats:
        if s not in allowed:
            raise HandError(f"wild_after_pung: {s!r} is not {what}")
    return seats


def _win_of(hand: Hand, context: WinContext) -> _Win:
    extra = context.extra
    wild = _wild_of(extra)
    tian_hu = bool(extra["tian_hu"])
    self_drawn = context.self_drawn
    first_wild = str(extra["first_wild_discard"])
    after_pung = _seats(str(extra["wild_after_pung"]))
    if tian_hu:
        if not extra["dealer"]:
            raise HandError("天胡 is the dealer's win on the deal: pass dealer=true")
        if context.discarder is not None or hand.melds:
            raise HandError("天胡 is won on the deal: no discarder and no melds")
        if context.kong:
            raise HandError("天胡 is won on the 14 tiles of the deal, not off a kong's "
                            "replacement tile: drop kong=true")
        if first_wild or after_pung:
            raise HandError("天胡 is won before anyone discards: no 打首搭 "
                            "(first_wild_discard) or 碰后打搭 (wild_after_pung)")
        self_drawn = True
    # 碰牌后打搭: a claimed pung, or one a kong was added to later (a kong claimed
    # straight from a discard, 大明杠, is followed by a replacement draw, not a pung)
    claimed = sum(1 for m in hand.melds if m.kind == "pung" or m.added)
    if after_pung.count("winner") > claimed:
        raise HandError(
            f"wild_after_pung names the winner {after_pung.count('winner')} time(s), but the "
            f"hand shows {claimed} claimed pung(s) (a kong added to one included): each "
            "碰后打搭 follows a pung")
    _check_wild_copies(hand, wild, context, self_drawn, first_wild, after_pung)
    kong_win = ""
    if context.kong and self_drawn and not tian_hu:
        kongs = {"concealed" if m.concealed else "melded" for m in hand.melds if m.kind == "kong"}
        wanted = str(extra["kong_type"])
        if not kongs:
            raise HandError("杠开 (kong=true, self-drawn) needs a kong among the melds")
        if wanted == "auto":
            if len(kongs) > 1:
                raise HandError(
                    "杠开: the hand has melded and concealed kongs; pass kong_type=melded "
                    "or kong_type=concealed"
                )
            wanted = kongs.pop()
        elif wanted not in kongs:
            raise HandError(f"杠开 off a {wanted} kong, but the hand shows no {wanted} kong")
        kong_win = wanted
    return _Win(
        wild,
        self_drawn,
        tian_hu,
        kong_win,
        first_wild,
        after_pung,
    )


def _taken_discards(hand: Hand, wild: int, first: str, after: Sequence[str],
                    won_from: int | None = None, won_on_wild: bool = False) -> int:
    """How many of the named 百搭 discards (打首搭 ``first``, 碰后打搭 ``after``, seats seen
    from the winner) may be tiles the hand itself took: the discard each claimed meld of
    the 百搭 kind was made with (a pung, a kong claimed from a discard, a kong added to a
    claimed pung; a concealed kong's were all drawn), and with ``won_on_wild`` the 百搭
    discard won on (打搭放冲) — each matched to a discard named for the seat it came from
    (the meld's ``claimed_from``, ``won_from`` for the win: 1 left, 2 opposite, 3 right;
    unknown: any seat but the winner's), a name matched once.

    >>> from scoring.hand import Meld
    >>> pung = Hand((Meld("pung", ("2m",) * 3, 1),), ("S",))
    >>> _taken_discards(pung, 1, "left", ()), _taken_discards(pung, 1, "opposite", ())
    (1, 0)
    """
    names = Counter(after)
    if first and first not in names:
        names[first] += 1
    sources: list[str | None] = [
        SEATS[m.claimed_from] if m.claimed_from in (1, 2, 3) else None
        for m in hand.melds if not m.concealed and any(T.index(t) == wild for t in m.tiles)]
    if won_on_wild:
        sources.append(SEATS[won_from] if won_from in (1, 2, 3) else None)
    taken = 0
    for seat in sorted(sources, key=lambda x: x is None):  # known seats first
        if seat is None:
            seat = next((n for n in names if n != "winner" and names[n] > 0), None)
        if seat is not None and names[seat] > 0:
            names[seat] -= 1
            taken += 1
    return taken


def _wilds_gone(hand: Hand, wild: int, extra: Mapping[str, Any]) -> int:
    """How many tiles of the 百搭 kind the named 百搭 discards (``extra``'s 打首搭 and
    碰后打搭) took out of play beside those the waiting ``hand`` holds
    (:func:`_wild_copies_gone`)."""
    first = str(extra.get("first_wild_discard") or "")
    return _wild_copies_gone(hand, wild, first, _seats(str(extra.get("wild_after_pung") or "")))


def _check_wild_copies(hand: Hand, wild: int, context: WinContext, self_drawn: bool,
                       first: str, after: Sequence[str]) -> None:
    """HandError when the 百搭 discards named (打首搭, 碰后打搭) and the 百搭 kind's tiles
    the winner holds come to more than the 4 tiles of the kind (seed 001: 136 tiles, "翻了
    一万, 那二万是百搭": the indicator is a tile of the kind before the 百搭, so all four
    of the 百搭 kind are in play, wild standing or their own face in a meld). A tile the
    winner took may also be one of those discards (:func:`_taken_discards`): the
    winning discard when it is a 百搭 (one robbed from a kong was added to a pung, not
    discarded) and the discard each claimed meld of the kind was made with, when a
    discard is named for the seat it came from."""
    won_on_wild = (not self_drawn and not context.kong and bool(hand.standing)
                   and T.index(hand.standing[-1]) == wild)
    _wild_copies_gone(hand, wild, first, after, winner=True, won_from=context.discarder,
                      won_on_wild=won_on_wild)


def _wild_copies_gone(hand: Hand, wild: int, first: str, after: Sequence[str], *,
                      winner: bool = False, won_from: int | None = None,
                      won_on_wild: bool = False) -> int:
    """The named 百搭 discards (打首搭 ``first``, 碰后打搭 ``after``) that are not tiles
    ``hand`` took (:func:`_taken_discards`, with ``won_from``/``won_on_wild`` for a win);
    HandError when they and the 百搭 kind's tiles the hand holds (standing and in melds)
    come to more than the kind's 4 tiles. ``winner``: ``hand`` is a win (the message
    says so)."""
    discards = least_discards(first, after)
    if discards > T.COPIES:
        raise HandError(_too_many_discards(discards, T.code(wild)))
    held = sum(1 for t in (*hand.standing, *(t for m in hand.melds for t in m.tiles))
               if T.index(t) == wild)
    taken = _taken_discards(hand, wild, first, after, won_from, won_on_wild)
    if held + discards - taken > T.COPIES:
        who, took = (("the winner", "the winner took (won on or claimed)") if winner
                     else ("the hand", "the hand claimed"))
        raise HandError(
            f"the 百搭 {T.code(wild)} has only {T.COPIES} tiles, but {who} holds {held} "
            f"(standing and in melds) and at least {discards} discard(s) of it are named "
            f"(打首搭 first_wild_discard, 碰后打搭 wild_after_pung)"
            + (f", {taken} of them a tile {took} from that seat" if taken else "")
            + f": {held + discards - taken} tiles cannot be")
    return discards - taken


def _win_items(win: _Win, no_wild: bool, settings: Mapping[str, Any]) -> ScoredFan:
    """The win's scoring item (exactly one applies)."""
    if win.tian_hu:
        return ScoredFan("天胡", "Heavenly Win", int(settings["tian_hu"]))
    if win.kong_win:
        if not no_wild:
            return ScoredFan("杠开", "Out on a Kong Replacement, with 百搭",
                             int(settings["kong_win_with_wild"]))
        key = f"kong_win_no_wild_{win.kong_win}"
        zh = "脱搭明杠杠开" if win.kong_win == "melded" else "脱搭暗杠杠开"
        en = f"Out on a {win.kong_win.title()} Kong Replacement, No 百搭 (脱搭)"
        return ScoredFan(zh, en, int(settings[key]))
    if win.self_drawn:
        return ScoredFan("自摸", "Self-Drawn", int(settings["win_self_drawn"]))
    return ScoredFan("冲", "Won on a Discard", int(settings["win_discard"]))


def _settle(per_payer: int, win: _Win, context: WinContext) -> Settlement:
    if win.self_drawn:
        payments = tuple(Payment(seat, per_payer) for seat in OTHERS)
        note = f"each other player pays {per_payer}"
    else:
        payer = SEAT_NAMES[context.discarder] if context.discarder else "discarder"
        payments = (Payment(payer, per_payer),)
        note = f"the discarder pays {per_payer} (no double win: nearest claimant only)"
    return Settlement("chips", payments, note)


def _false_win_settlement(amount: int) -> Settlement:
    payments = tuple(Payment(seat, -amount) for seat in OTHERS)
    return Settlement(
        "chips", payments, f"诈胡 (false win): the claimant pays {amount} to each other player"
    )


def _false_win(
    hand: Hand, win: _Win, settings: Mapping[str, Any], transfers: list[Transfer],
    own: str = "", wilds: int = 0,
) -> Score:
    """诈胡: the hand is not complete. ``own``: how the winning 百搭 came when it is its own
    face ("won on a discard", "robbed from a kong"; '' otherwise), ``wilds``: the 百搭 then
    left to play as wilds, so the reason names the tiles as they were read.

    >>> from scoring.notation import parse_hand
    >>> s = {k: v.default for k, v in SETTINGS.items()}
    >>> w = _Win(T.index("2m"), False, False, "", "", ())
    >>> _false_win(parse_hand("111p456789m123pS2m"), w, s, [], "won on a discard"
    ...            ).details["reason"]  # doctest: +NORMALIZE_WHITESPACE
    'not complete: the tiles do not form four sets and a pair with the winning 2m as its own
    face (a 百搭 won on a discard is not wild); a declared win is 诈胡'
    """
    amount = int(settings["false_win"]) * int(settings["base_chip"])
    settlement = _false_win_settlement(amount)
    code = T.code(win.wild)
    if own:
        others = f" and the other {code} (百搭) as wilds" if wilds else ""
        reason = (
            f"not complete: the tiles do not form four sets and a pair with the winning {code} "
            f"as its own face (a 百搭 {own} is not wild){others}; a declared win is 诈胡"
        )
    else:
        reason = (
            f"not complete: the tiles do not form four sets and a pair with {code} "
            "(百搭) as wilds; a declared win is 诈胡"
        )
    return Score(
        "zhenjiang",
        None,
        0,
        False,
        (),
        settlement,
        {
            "reason": reason,
            "wild": T.code(win.wild),
            "events": [t.to_dict() for t in transfers],
            "net": net(settlement.payments, transfers),
        },
        self_drawn=win.self_drawn,  # the win as claimed (a 天胡 claimed included)
    )


RULE_SET = Zhenjiang()
