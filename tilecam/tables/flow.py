"""Who deals each hand of a table's session, and which player holds each seat wind.

The rule set's :class:`scoring.rulesets.base.Deal` says how the deal goes on;
:func:`places` follows it over the hands recorded so far. MCR (seed 003) is the fixed
schedule below, :func:`place`: 4 rounds (圈) of 4 hands (盘), no consecutive dealership,
and the seat rotation between rounds, 东南走之字, 西北转上. Xiamen keeps the deal with
a dealer who wins (连庄) or after a drawn hand (臭庄), Zhenjiang after a drawn hand.

Players are numbered by ``position``, the seat they take for round 1 (0 = East,
1 = South, 2 = West, 3 = North). The rotation, from the seed:

- before round 2 (南圈): East and South swap, West and North swap;
- before round 3 (西圈): East and South (of round 2) go to the opposite seats,
  West goes to South, North goes to East;
- before round 4 (北圈): East and South swap, West and North swap.

So every player sits East, South, West and North once. Within a round the deal
passes every hand (不设连庄) to the next seat counter-clockwise (East, South, West,
North); the dealer's seat wind (门风) is East and the others follow in play order.

>>> round_seating(1)
{'E': 0, 'S': 1, 'W': 2, 'N': 3}
>>> round_seating(2)
{'E': 1, 'S': 0, 'W': 3, 'N': 2}
>>> round_seating(3)
{'E': 2, 'S': 3, 'W': 1, 'N': 0}
>>> round_seating(4)
{'E': 3, 'S': 2, 'W': 0, 'N': 1}
>>> place(6)
Place(number=6, round=2, hand_in_round=2, prevalent_wind='S', dealer=0)
>>> place(6).seat_winds()
{'E': 0, 'S': 3, 'W': 2, 'N': 1}
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from scoring.rulesets.base import Deal

#: Winds in play order (counter-clockwise): each is the next player's (下家) of the one before.
WINDS: tuple[str, ...] = ("E", "S", "W", "N")
ROUNDS = 4
HANDS_PER_ROUND = 4
HANDS_PER_SESSION = ROUNDS * HANDS_PER_ROUND
#: The outcome of a record ruled a false claim (错和, 诈和) where the rule set plays the
#: hand on after one: a record of the sheet but no hand of the deal (:class:`DealWalk`).
FALSE_CLAIM = "false_claim"
#: The most hands a table's sheet takes when its deal can stay with a dealer (Xiamen,
#: Zhenjiang) or its session has no fixed end (Xiamen plays by time).
MOST_HANDS = 400


def _rotate(seating: dict[str, int], moves: dict[str, str]) -> dict[str, int]:
    """Move the player in seat ``k`` to seat ``moves[k]``."""
    out = {moves[seat]: player for seat, player in seating.items()}
    return {w: out[w] for w in WINDS}


#: Seat changes before rounds 2, 3 and 4 (from seat → to seat), seed 003.
ROTATIONS: tuple[dict[str, str], ...] = (
    {"E": "S", "S": "E", "W": "N", "N": "W"},
    {"E": "W", "S": "N", "W": "S", "N": "E"},
    {"E": "S", "S": "E", "W": "N", "N": "W"},
)


def round_seating(round_number: int) -> dict[str, int]:
    """Seat (E/S/W/N of the round) → player position, for round 1-4."""
    if not 1 <= round_number <= ROUNDS:
        raise ValueError(f"round {round_number} does not exist: a session has rounds 1-{ROUNDS}")
    seating = {w: i for i, w in enumerate(WINDS)}
    for moves in ROTATIONS[: round_number - 1]:
        seating = _rotate(seating, moves)
    return seating


def seat_order(round_number: int) -> tuple[int, ...]:
    """Player positions in seats E, S, W, N of round 1-4 (:func:`round_seating` in wind
    order)."""
    seating = round_seating(round_number)
    return tuple(seating[w] for w in WINDS)


@dataclass(frozen=True)
class Place:
    """Where hand ``number`` falls in the session and who deals it."""

    number: int
    round: int
    hand_in_round: int
    #: The round's wind (圈风).
    prevalent_wind: str
    #: Player position of the dealer (庄家).
    dealer: int
    #: Player position in each seat of the round (E, S, W, N of its first hand).
    seating: tuple[int, ...] = field(default=(0, 1, 2, 3), repr=False)
    #: Hands of this dealer's streak (the hands just before this one that the dealer kept
    #: the deal after) that the dealer won and so dealt again (连庄).
    repeats: int = field(default=0, repr=False)
    #: Drawn hands of this dealer's streak (臭庄), after each of which the dealer dealt again.
    draws: int = field(default=0, repr=False)
    #: The first earlier hand held pending (its winner not known, or its win not ruled
    #: yet) where the winner decides who deals next (a dealer who wins deals again): the
    #: deal was taken to pass after a hand whose winner is not known, and to stay with the
    #: dealer, streak unchanged, after a win held pending (:func:`_next_deal`), so this
    #: place may move when a referee settles that hand. None when every earlier hand says
    #: who deals next.
    assumed_after: int | None = field(default=None, repr=False)
    #: Chips each player (by position) has before this hand in the current 课, where the
    #: rule set plays with chip stacks (Xiamen: 100 each); None elsewhere. Set by the
    #: sheet (:func:`tilecam.tables.places.places_of`), which knows the hands' payments.
    stacks: tuple[int, ...] | None = field(default=None, repr=False)
    #: Seat winds of the players who may not win this hand (停和, seed 003): who made a
    #: false claim earlier in it, where the rule set plays the hand on after one
    #: (:class:`scoring.rulesets.base.Deal`'s ``goes_on_after_false_claim``), and whom a
    #: referee barred from it (:meth:`DealWalk.bar`).
    barred: tuple[str, ...] = field(default=(), repr=False)

    def seat_winds(self) -> dict[str, int]:
        """Seat wind (门风) of this hand → player position; ``"E"`` is the dealer."""
        order = list(self.seating)
        start = order.index(self.dealer)
        return {w: order[(start + i) % 4] for i, w in enumerate(WINDS)}

    def wind_of(self, player: int) -> str:
        """Seat wind of player ``position`` in this hand."""
        for wind, pos in self.seat_winds().items():
            if pos == player:
                return wind
        raise ValueError(f"player position {player} is not 0-3")


def place(number: int) -> Place:
    """The place of hand ``number`` (1-based) in the MCR 4×4 session."""
    if not 1 <= number <= HANDS_PER_SESSION:
        raise ValueError(
            f"hand {number} does not exist: a session has hands 1-{HANDS_PER_SESSION}"
        )
    rnd, k = divmod(number - 1, HANDS_PER_ROUND)
    order = seat_order(rnd + 1)
    return Place(number=number, round=rnd + 1, hand_in_round=k + 1,
                 prevalent_wind=WINDS[rnd], dealer=order[k], seating=order)


@dataclass(frozen=True)
class Played:
    """What the deal needs of a recorded hand: its ``outcome`` (``win``, ``draw``,
    ``pending``, ``void`` or ``false_claim``) and the seat wind of its ``winner`` (the
    claimant of a false claim; None when not known)."""

    outcome: str
    winner: str | None = None


def _seating(deal: Deal, round_number: int) -> tuple[int, ...]:
    if deal.seat_changes and round_number <= ROUNDS:
        return seat_order(round_number)
    return (0, 1, 2, 3)


def _next_deal(deal: Deal, hand: Played, repeats: int, draws: int) -> tuple[bool, int, int]:
    """Whether the dealer of ``hand`` deals the next hand too, and the next hand's
    ``repeats`` and ``draws``. A void hand (struck from the sheet) is dealt again when the
    rule set deals again after a draw, counting for neither; a pending hand with no
    winner is taken to pass the deal. Where the winner decides who deals next (a dealer
    who wins deals again: Xiamen) a win held pending — not ruled yet: not a legal win
    (诈胡), the camera unsure, a seat unknown — is not taken to stand: the same dealer
    deals again with the same streak, as after 诈胡 (seed 000: 庄家不下庄，也不调庄从新开牌),
    until a referee settles it. The streak counts both while the dealer keeps the
    deal (seed 000: each 连庄 doubles the 底, each 臭庄 doubles it again), whatever their
    order; until the sixty-fourth session a dealer's win cleared the drawn hands, so a
    draw followed by a dealer win gave the next hand half the 底 of the other order."""
    if hand.outcome == "pending" and hand.winner is not None and deal.stays_on_dealer_win:
        return True, repeats, draws  # a held win is no 连庄 nor a pass: dealt again
    if hand.outcome in ("win", "pending") and hand.winner is not None:
        if hand.winner == "E" and deal.stays_on_dealer_win:
            return True, repeats + 1, draws
        return False, 0, 0
    if hand.outcome == "draw" and deal.stays_on_draw:
        return True, repeats, draws + 1
    if hand.outcome == "void" and deal.stays_on_draw:
        return True, repeats, draws
    return False, 0, 0


class DealWalk:
    """The deal followed hand by hand: :meth:`place` is the place of the next hand,
    :meth:`advance` records what that hand did. The deal passes counter-clockwise after
    each hand unless ``deal`` keeps it; a round ends when it has passed all four seats.
    A false claim (outcome ``false_claim``, where ``deal.goes_on_after_false_claim``)
    is a record of its own but no hand of the deal: the next record is the same hand
    played on, at the same seats and streak, its claimant ``barred`` from winning it.
    A caller that changes a hand before advancing past it (a referee's correction scored
    again, :func:`tilecam.tables.sheet.correct_hand`) reads every later place in one walk.

    >>> from scoring.rulesets.base import Deal
    >>> walk = DealWalk(Deal(stays_on_dealer_win=True, rounds=None))
    >>> walk.place().dealer, walk.advance(Played("win", "E")), walk.place().repeats
    (0, None, 1)
    >>> walk = DealWalk(Deal(goes_on_after_false_claim=True))
    >>> walk.advance(Played("false_claim", "S"))
    >>> p = walk.place(); p.number, p.hand_in_round, p.dealer, p.barred
    (2, 1, 0, ('S',))
    """

    def __init__(self, deal: Deal) -> None:
        self.deal = deal
        self._number, self._round, self._seat, self._in_round = 1, 1, 0, 1
        self._repeats = self._draws = 0
        self._assumed: int | None = None
        self._barred: tuple[str, ...] = ()

    def place(self) -> Place:
        """The place of the hand not yet advanced past."""
        seating = _seating(self.deal, self._round)
        return Place(number=self._number, round=self._round, hand_in_round=self._in_round,
                     prevalent_wind=WINDS[(self._round - 1) % 4], dealer=seating[self._seat],
                     seating=seating, repeats=self._repeats, draws=self._draws,
                     assumed_after=self._assumed, barred=self._barred)

    def bar(self, wind: str) -> None:
        """Bar seat ``wind`` from winning the hand at :meth:`place` (a referee's 停和): it
        stays barred on that hand's later records (after a false claim) until the hand
        ends.

        >>> from scoring.rulesets.base import Deal
        >>> walk = DealWalk(Deal(goes_on_after_false_claim=True))
        >>> walk.bar("W"); walk.advance(Played("false_claim", "S")); walk.place().barred
        ('W', 'S')
        >>> walk.advance(Played("win", "E")); walk.place().barred
        ()
        """
        if wind not in WINDS:
            raise ValueError(f"{wind!r} is not a seat wind (E, S, W or N)")
        if wind not in self._barred:
            self._barred = (*self._barred, wind)

    def advance(self, hand: Played) -> None:
        """Record what the hand at :meth:`place` did; the walk moves to the next hand (or,
        after a false claim the hand is played on after, to the next record of it)."""
        if hand.outcome == FALSE_CLAIM and self.deal.goes_on_after_false_claim:
            self._number += 1
            if hand.winner is not None and hand.winner not in self._barred:
                self._barred = (*self._barred, hand.winner)
            return
        self._barred = ()
        if (self._assumed is None and self.deal.stays_on_dealer_win
                and hand.outcome == "pending"):
            # who won, and whether the win stands, decides who deals next
            self._assumed = self._number
        stays, self._repeats, self._draws = _next_deal(self.deal, hand, self._repeats,
                                                       self._draws)
        self._number += 1
        self._in_round += 1
        if not stays:
            self._seat += 1
            if self._seat == 4:
                self._round, self._seat, self._in_round = self._round + 1, 0, 1


def places(deal: Deal, played: Sequence[Played]) -> list[Place]:
    """The places of the hands recorded so far (``played``, in sheet order) and of the
    next one: ``len(played) + 1`` places (:class:`DealWalk`).

    >>> from scoring.rulesets.base import Deal
    >>> xiamen = Deal(stays_on_dealer_win=True, stays_on_draw=True, rounds=None)
    >>> ps = places(xiamen, [Played("win", "E"), Played("draw"), Played("win", "S")])
    >>> [(p.number, p.dealer, p.repeats, p.draws) for p in ps]
    [(1, 0, 0, 0), (2, 0, 1, 0), (3, 0, 1, 1), (4, 1, 0, 0)]
    >>> places(Deal(rounds=4, seat_changes=True), [Played("win", "E")] * 5)[5] == place(6)
    True
    """
    walk = DealWalk(deal)
    out = [walk.place()]
    for hand in played:
        walk.advance(hand)
        out.append(walk.place())
    return out


def session_over(deal: Deal, at: Place) -> bool:
    """Whether place ``at`` lies past the session's end: past its ``rounds`` rounds, or
    past :data:`MOST_HANDS`."""
    return at.number > MOST_HANDS or (deal.rounds is not None and at.round > deal.rounds)


def most_hands(deal: Deal) -> int:
    """The highest hand number a session of ``deal`` can reach: ``rounds`` × 4 when the
    deal never stays with a dealer, else :data:`MOST_HANDS`."""
    if deal.rounds is not None and not (deal.stays_on_dealer_win or deal.stays_on_draw):
        return min(MOST_HANDS, deal.rounds * HANDS_PER_ROUND)
    return MOST_HANDS


def offset(from_wind: str, to_wind: str) -> int:
    """Seat offset of ``to_wind`` seen from ``from_wind``: 1 left (上家), 2 opposite, 3 right.

    >>> offset("E", "N"), offset("E", "W"), offset("E", "S")
    (1, 2, 3)
    """
    a, b = WINDS.index(from_wind), WINDS.index(to_wind)
    d = (a - b) % 4
    if d == 0:
        raise ValueError(f"{to_wind} is the same seat as {from_wind}")
    return d


def wind_at_offset(from_wind: str, seat_offset: int) -> str:
    """The seat wind at ``seat_offset`` (1 left, 2 opposite, 3 right) from ``from_wind``.

    >>> wind_at_offset("S", 1), wind_at_offset("S", 3)
    ('E', 'W')
    """
    return WINDS[(WINDS.index(from_wind) - seat_offset) % 4]
