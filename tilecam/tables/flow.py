"""MCR competition flow (seed 003): 4 rounds (圈) of 4 hands (盘), no consecutive dealership,
and the seat rotation between rounds, 东南走之字, 西北转上.

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

from dataclasses import dataclass

#: Winds in play order (counter-clockwise): each is the next player's (下家) of the one before.
WINDS: tuple[str, ...] = ("E", "S", "W", "N")
ROUNDS = 4
HANDS_PER_ROUND = 4
HANDS_PER_SESSION = ROUNDS * HANDS_PER_ROUND


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


@dataclass(frozen=True)
class Place:
    """Where hand ``number`` (1-16) falls in the session and who deals it."""

    number: int
    round: int
    hand_in_round: int
    #: The round's wind (圈风).
    prevalent_wind: str
    #: Player position of the dealer (庄家).
    dealer: int

    def seat_winds(self) -> dict[str, int]:
        """Seat wind (门风) of this hand → player position; ``"E"`` is the dealer."""
        seating = round_seating(self.round)
        order = [seating[w] for w in WINDS]
        start = self.hand_in_round - 1
        return {w: order[(start + i) % 4] for i, w in enumerate(WINDS)}

    def wind_of(self, player: int) -> str:
        """Seat wind of player ``position`` in this hand."""
        for wind, pos in self.seat_winds().items():
            if pos == player:
                return wind
        raise ValueError(f"player position {player} is not 0-3")


def place(number: int) -> Place:
    """The place of hand ``number`` (1-based) in the 4×4 session."""
    if not 1 <= number <= HANDS_PER_SESSION:
        raise ValueError(
            f"hand {number} does not exist: a session has hands 1-{HANDS_PER_SESSION}"
        )
    rnd, k = divmod(number - 1, HANDS_PER_ROUND)
    seating = round_seating(rnd + 1)
    dealer = seating[WINDS[k]]
    return Place(number=number, round=rnd + 1, hand_in_round=k + 1,
                 prevalent_wind=WINDS[rnd], dealer=dealer)


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
