"""Offences whose penalty grows with each repeat in one hand (seed 003 处罚: 空吃/空碰/空杠,
摸牌 before the discard, 碰牌 after 3 seconds — 一盘之内，第一次警告，第二次罚5分，第三次罚10分，
第四次罚20分，以此类推).

The rule set holds the table (:attr:`scoring.rulesets.base.RuleSet.repeat_offences`,
``repeat_offence_points``); the sheet counts a player's earlier offences of the kind in
the same hand — its records, which a false claim the hand is played on after chains
(:func:`tilecam.tables.places.hand_records`) — and books the next step
(:func:`offence_points`). A step follows the offences that count: when one of them is
made void, or a ruling changes which records are one hand (a false claim ruled, or
undone by a correction), :func:`rebooked_steps` says which later offences take another
step. Plain functions over loaded rows; no queries.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from tilecam.db.models import Hand, Penalty
from tilecam.tables.places import hand_records
from tilecam.tables.settlement import REPEAT_OFFENCES

if TYPE_CHECKING:
    from scoring.rulesets.base import RuleSet


def offence_points(rule_set: RuleSet, count: int) -> int:
    """Points of a player's ``count``-th offence of one kind in a hand (1-based): the
    rule set's table, then each step double the one before (以此类推) up to the largest
    deduction the rules allow.

    >>> from scoring import get_rule_set
    >>> [offence_points(get_rule_set("mcr"), n) for n in range(1, 8)]
    [0, 5, 10, 20, 40, 60, 60]
    """
    table = rule_set.repeat_offence_points
    if count < 1 or not table:
        raise ValueError(f"no offence {count} under these rules")
    if count <= len(table):
        return table[count - 1]
    points = table[-1] << (count - len(table))  # doubled at each step past the table
    return min(points, max(rule_set.deductions)) if rule_set.deductions else points


def earlier_offences(penalties: Sequence[Penalty], kind: str, player: int,
                     records: range) -> int:
    """How many offences of ``kind`` by ``player`` the sheet holds (not void) in the
    hand of ``records`` (:func:`tilecam.tables.places.hand_records`)."""
    return sum(1 for p in penalties if p.kind == kind and p.player == player
               and p.voided_at is None and p.hand_number in records)


def rebooked_steps(rule_set: RuleSet, penalties: Sequence[Penalty],
                   hands: Sequence[Hand], moved: Callable[[Penalty], bool] | None = None
                   ) -> list[tuple[Penalty, int, int]]:
    """The repeat offences (not void) whose points the sheet now books otherwise:
    ``(penalty, count, points)``, ``count`` its place among the player's offences of
    the kind in its hand, in the order they were booked (``Penalty.id``), counting only
    those not void, over the hand's records as ``hands`` (the table's records in sheet
    order, revisions loaded) now chain them (:func:`tilecam.tables.places.hand_records`).
    ``moved``: only those it takes (the ones the event at hand can move; an offence left
    at another step by a sheet before rebooking keeps it until an event of its hand)."""
    if not rule_set.repeat_offence_points:
        return []
    seen: dict[tuple[str, int, int], int] = {}
    out: list[tuple[Penalty, int, int]] = []
    for pen in sorted(penalties, key=lambda p: p.id):
        if (pen.kind not in REPEAT_OFFENCES or pen.voided_at is not None
                or pen.hand_number is None):
            continue
        first = hand_records(hands, pen.hand_number).start  # the hand, by its first record
        key = (pen.kind, pen.player, first)
        seen[key] = count = seen.get(key, 0) + 1
        points = offence_points(rule_set, count)
        if points != pen.points and (moved is None or moved(pen)):
            out.append((pen, count, points))
    return out
