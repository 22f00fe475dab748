"""Turn a scored hand into the score sheet: points for each player, and penalties.

Payments come from the rule set's own settlement (``Score.settlement``): MCR pays
8 + total from each of the three others on a self-draw, and 8 + total from the
discarder plus 8 from each other player on a discard (seed 003, 别人和牌时…也要支付8分底分);
Xiamen and Zhenjiang pay as their rule sets say. This module only places those
payments on the sheet's players.

Penalties (seed 003, 六、错和与诈和的处理): 错和 (``wrong_win``, a win declared below
8 fan, or on a tile that is not a winning one) pays 10 to each other player;
诈和 (``false_win``, declared while not even ready) pays 20 to each; a
``deduction`` (违例罚分 5-60) is taken from the offender's score only; a ``bar`` (停和),
a ``warning`` (警告) and a ``disqualification`` (停赛) move no points; a repeat offence
takes the step of its repeat (0 at the first).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from tilecam.tables.flow import WINDS, place, wind_at_offset

if TYPE_CHECKING:
    from tilecam.db.models import HandRevision

#: Payer names of ``scoring.Payment`` that are seats relative to the winner.
PAYER_OFFSETS = {"left": 1, "opposite": 2, "right": 3}

#: Points each other player receives, by penalty kind, for MCR tables (seed 003).
MCR_PENALTY_POINTS = {"wrong_win": 10, "false_win": 20}

#: Rulings a referee books without points (seed 003, 处罚): ``bar`` (停和, 取消本盘和牌的权利:
#: the player may not win the hand), ``warning`` (警告) and ``disqualification`` (停赛,
#: 取消继续参加本次比赛的资格: the player takes no rank in the standings).
NO_POINTS = {"bar": "停和", "warning": "警告", "disqualification": "停赛"}

#: Offences the sheet books at the step of their repeat in a hand, where the rule set has
#: them (:mod:`tilecam.tables.offences`): the offender loses the step's points, none at
#: the first (a warning).
REPEAT_OFFENCES = ("empty_claim", "early_draw", "slow_pung")


def place_payments(
    payments: Sequence[Mapping[str, Any]],
    winner: str,
    discarder: str | None,
    seat_winds: Mapping[str, int],
) -> list[int]:
    """Points by player position (four ints, summing to 0) for a win by seat ``winner``.

    ``payments``: ``[{"payer", "amount"}]`` from ``Settlement.to_dict()``; a payer is
    ``left``/``opposite``/``right`` (seen from the winner), ``discarder``, or
    ``other``/``others`` (each non-discarding loser). ``seat_winds``: seat wind →
    player position for this hand.

    >>> winds = {"E": 0, "S": 1, "W": 2, "N": 3}
    >>> place_payments([{"payer": "discarder", "amount": 40}, {"payer": "other", "amount": 8},
    ...                 {"payer": "other", "amount": 8}], "S", "W", winds)
    [-8, 56, -40, -8]
    >>> place_payments([{"payer": p, "amount": 20} for p in ("left", "opposite", "right")],
    ...                "E", None, winds)
    [60, -20, -20, -20]
    """
    if winner not in WINDS:
        raise ValueError(f"winner {winner!r} is not a seat wind (E, S, W or N)")
    deltas = [0, 0, 0, 0]
    win_pos = seat_winds[winner]
    others = [w for w in WINDS if w not in (winner, discarder)]
    other_iter = iter(others)
    paid_by_other: dict[str, int] = {}
    for payment in payments:
        payer, amount = str(payment["payer"]), int(payment["amount"])
        if payer in PAYER_OFFSETS:
            wind = wind_at_offset(winner, PAYER_OFFSETS[payer])
        elif payer == "discarder":
            if discarder is None:
                raise ValueError("the settlement names a discarder but none was given")
            wind = discarder
        elif payer in ("other", "others", "each"):
            if payer == "other":
                try:
                    wind = next(other_iter)
                except StopIteration:
                    raise ValueError("the settlement names too many 'other' payers") from None
            else:
                for w in others:
                    paid_by_other[w] = paid_by_other.get(w, 0) + amount
                continue
        else:
            raise ValueError(f"unknown payer {payer!r} in the rule set's settlement")
        deltas[seat_winds[wind]] -= amount
        deltas[win_pos] += amount
    for wind, amount in paid_by_other.items():
        deltas[seat_winds[wind]] -= amount
        deltas[win_pos] += amount
    return deltas


#: Seat names of a rule set's transfers (``details["events"]``), seen from the winner.
SEAT_OFFSETS = {"winner": 0, **PAYER_OFFSETS}


def place_transfers(
    transfers: Sequence[Mapping[str, Any]],
    winner: str | None,
    seat_winds: Mapping[str, int],
) -> list[int]:
    """Points by player position (four ints, summing to 0) for chips passing between
    players apart from a win's payments (Zhenjiang's 打首搭 and 碰后打搭:
    ``details["events"]`` of its score, :meth:`RuleSet.draw_transfers` in a drawn hand).

    ``transfers``: ``[{"from", "to", "amount"}]``; a seat is a seat wind, or
    ``winner``/``left``/``opposite``/``right`` seen from ``winner``.

    >>> winds = {"E": 0, "S": 1, "W": 2, "N": 3}
    >>> place_transfers([{"from": w, "to": "left", "amount": 6}
    ...                  for w in ("winner", "opposite", "right")], "S", winds)
    [18, -6, -6, -6]
    >>> place_transfers([{"from": "E", "to": "N", "amount": 2}], None, winds)
    [-2, 0, 0, 2]
    """
    deltas = [0, 0, 0, 0]
    for move in transfers:
        amount = int(move["amount"])
        deltas[seat_winds[_seat_wind(str(move["from"]), winner)]] -= amount
        deltas[seat_winds[_seat_wind(str(move["to"]), winner)]] += amount
    return deltas


def _seat_wind(seat: str, winner: str | None) -> str:
    """The wind of ``seat``: a seat wind itself, or a seat seen from ``winner``."""
    if seat in WINDS:
        return seat
    if seat not in SEAT_OFFSETS:
        raise ValueError(f"unknown seat {seat!r} in the rule set's transfers")
    if winner is None:
        raise ValueError(f"a transfer names the seat {seat!r} seen from a winner, but the "
                         "hand has none: give seat winds (E, S, W or N)")
    return wind_at_offset(winner, SEAT_OFFSETS[seat])


def money_deltas(
    score: Mapping[str, Any] | None,
    winner: str | None,
    discarder: str | None,
    seat_winds: Mapping[str, int],
) -> list[int]:
    """Money paid apart from the points, by player position (four ints summing to 0),
    from a stored score's payments' ``bonus`` (Xiamen: 游金 50 from each payer …); all 0
    when the score names none or the hand has no winner.

    >>> winds = {"E": 0, "S": 1, "W": 2, "N": 3}
    >>> paid = [{"payer": p, "amount": 36, "bonus": 50} for p in ("left", "opposite", "right")]
    >>> money_deltas({"settlement": {"payments": paid}}, "S", None, winds)
    [-50, 150, -50, -50]
    """
    payments = ((score or {}).get("settlement") or {}).get("payments") or []
    bonus = [{"payer": p["payer"], "amount": int(p.get("bonus") or 0)} for p in payments]
    if winner is None or not any(b["amount"] for b in bonus):
        return [0, 0, 0, 0]
    return place_payments(bonus, winner, discarder, seat_winds)


def money_apart(rules: str) -> bool:
    """Whether a table of ``rules`` keeps money apart from its points (a column of its own
    in the sheet: :attr:`scoring.rulesets.base.RuleSet.money_apart`)."""
    import scoring

    return bool(scoring.get_rule_set(rules).money_apart)


def revision_seats(rev: HandRevision, number: int) -> dict[str, int]:
    """Seat wind → player position that revision ``rev`` of hand ``number`` was scored
    with: its own record (``seats``, migration 0005), else — a revision stored before —
    the MCR schedule's place of ``number``, which every table used then."""
    if rev.seats:
        return {str(w): int(p) for w, p in rev.seats.items()}
    return place(number).seat_winds()


def revision_money(rev: HandRevision, number: int) -> list[int]:
    """A hand revision's money apart from the points, by player position: its score's
    bonus money for a settled win (seated as the revision was scored), else 0 each (a
    draw, a void hand, a pending one until a referee settles it)."""
    if rev.outcome != "win":
        return [0, 0, 0, 0]
    return money_deltas(rev.score, rev.winner, rev.discarder, revision_seats(rev, number))


def payment_receiver(kind: str, deltas: Sequence[int]) -> int | None:
    """The position of the one player a ``payment`` (包赔) pays, from its ``deltas``
    (:func:`penalty_deltas`); None for other kinds.

    >>> payment_receiver("payment", [0, 150, 0, -150]), payment_receiver("deduction", [-5, 0, 0, 0])
    (1, None)
    """
    if kind != "payment":
        return None
    return next((i for i, v in enumerate(deltas) if int(v) > 0), None)


def penalty_deltas(kind: str, offender: int, points_each: int,
                   to: int | None = None) -> list[int]:
    """Points by player position for a penalty on player ``offender``.

    ``wrong_win``/``false_win``: the offender pays ``points_each`` to each other
    player; ``deduction``: the offender loses ``points_each``, nobody gains; ``payment``
    (包赔): the offender pays ``points_each`` to player ``to`` alone — what a rule makes
    one player make good to another (Xiamen 诈胡的重判: a false win in the round of a
    游金 pays that player's gains); ``bar``, ``warning``, ``disqualification``: nothing; a
    repeat offence (:data:`REPEAT_OFFENCES`): its step's ``points_each`` taken, 0 at a
    warning.

    >>> penalty_deltas("wrong_win", 2, 10)
    [10, 10, -30, 10]
    >>> penalty_deltas("deduction", 0, 5)
    [-5, 0, 0, 0]
    >>> penalty_deltas("payment", 3, 150, to=1)
    [0, 150, 0, -150]
    >>> penalty_deltas("bar", 1, 0)
    [0, 0, 0, 0]
    >>> penalty_deltas("empty_claim", 1, 0), penalty_deltas("empty_claim", 1, 10)
    ([0, 0, 0, 0], [0, -10, 0, 0])
    """
    if not 0 <= offender <= 3:
        raise ValueError(f"player position {offender} is not 0-3")
    if (to is not None) != (kind == "payment"):
        raise ValueError("a payment penalty names the player paid (to), and only a payment")
    if kind in REPEAT_OFFENCES and points_each >= 0:
        kind = "deduction" if points_each else "warning"
    if kind in NO_POINTS:
        if points_each:
            raise ValueError(f"a {kind} ({NO_POINTS[kind]}) moves no points: book a "
                             "deduction or a payment apart")
        return [0, 0, 0, 0]
    if points_each <= 0:
        raise ValueError(f"penalty points must be positive, not {points_each}")
    if kind == "deduction":
        out = [0, 0, 0, 0]
        out[offender] = -points_each
        return out
    if kind == "payment":
        assert to is not None
        if not 0 <= to <= 3 or to == offender:
            raise ValueError(f"a payment goes to another player than the one paying, not {to}")
        out = [0, 0, 0, 0]
        out[offender], out[to] = -points_each, points_each
        return out
    if kind not in ("wrong_win", "false_win"):
        raise ValueError(f"unknown penalty {kind!r} (wrong_win, false_win, deduction, "
                         f"payment, {', '.join(NO_POINTS)} or {', '.join(REPEAT_OFFENCES)})")
    out = [points_each] * 4
    out[offender] = -3 * points_each
    return out
