"""Where each hand of a table's sheet falls, read from its recorded hands.

The rule set's deal (:class:`scoring.rulesets.base.Deal`) and the hands' current
revisions give every hand's place (:func:`tilecam.tables.flow.places`); where the rule set
plays with chip stacks (Xiamen's 课) the sheet adds the chips each player has before the
hand (:func:`places_of`). :func:`moved` says whether a hand scored at one place scores
otherwise at another — when a referee's correction moves it
(:func:`tilecam.tables.sheet.correct_hand` scores it again) — and :func:`why_moved` says
why, for the note. Plain functions over loaded rows; no queries.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from tilecam.db.models import GameTable, Hand, HandRevision
from tilecam.tables import flow
from tilecam.tables.scoring_bridge import HandReport

if TYPE_CHECKING:
    from scoring.rulesets.base import Deal


def deal_of(table: GameTable) -> Deal:
    """How the deal goes on at ``table`` (its rule set's :class:`scoring.rulesets.base.Deal`)."""
    import scoring

    return scoring.get_rule_set(str(table.rules)).deal


def played(hand: Hand) -> flow.Played:
    """What the deal needs of a recorded hand: its current outcome and winner seat."""
    rev = hand.revisions[-1]
    return flow.Played(rev.outcome, rev.winner)


class PlaceWalk:
    """A table's places followed hand by hand, as :func:`places_of` gives them:
    :meth:`place` is the place of the next hand — with, where the rule set plays with
    chip stacks (:func:`chip_stack`), the chips each player has before it (``stacks``) —
    and :meth:`advance` reads a recorded hand's current revision. Every 课 starts with
    full stacks, each settled win's chips move them, and the hand after one that leaves a
    player with none starts the next 课. A referee's 停和 (a ``bar`` penalty naming a
    record) bars its player from winning the hand from that record on (:func:`bars_of`)."""

    def __init__(self, table: GameTable) -> None:
        self._deal = flow.DealWalk(deal_of(table))
        self._full = chip_stack(table)  # None: no chip stacks at this table
        self._stacks = [self._full or 0] * 4
        self._bars = bars_of(table)
        self._number = 1
        self._apply_bars()

    def _apply_bars(self) -> None:
        barred = self._bars.get(self._number)
        if not barred:  # most records: no place to build
            return
        place = self._deal.place()
        for player in barred:
            self._deal.bar(place.wind_of(player))

    def place(self) -> flow.Place:
        """The place of the hand not yet advanced past."""
        place = self._deal.place()
        return place if self._full is None else replace(place, stacks=tuple(self._stacks))

    def advance(self, hand: Hand) -> None:
        """Record ``hand`` (its current revision) at :meth:`place`; on to the next hand. A
        win held pending whose winner may not win the hand (停和) tells nobody's win: the
        deal goes on as after a pending hand whose winner is not known."""
        done = played(hand)
        if done.outcome == "pending" and done.winner in self._deal.place().barred:
            done = flow.Played("pending", None)
        self._deal.advance(done)
        self._number += 1
        self._apply_bars()
        if self._full is None:
            return
        rev = hand.revisions[-1]
        if rev.outcome == "win":
            self._stacks = [s + int(d) for s, d in zip(self._stacks, rev.settlement,
                                                        strict=True)]
        if min(self._stacks) <= 0:
            self._stacks = [self._full] * 4


def bars_of(table: GameTable) -> dict[int, list[int]]:
    """The table's 停和 rulings in force: record number → the positions of the players a
    referee barred from winning the hand at that record (``bar`` penalties not void)."""
    out: dict[int, list[int]] = {}
    for pen in table.penalties:
        if pen.kind == "bar" and pen.voided_at is None and pen.hand_number is not None:
            out.setdefault(pen.hand_number, []).append(pen.player)
    return out


def hand_records(hands: Sequence[Hand], number: int) -> range:
    """The record numbers of the hand that record ``number`` belongs to: records ruled a
    false claim (the hand played on after them) chain it to the record after.
    ``hands``: the table's records in sheet order; ``number`` may be the hand in play
    (``len(hands) + 1``)."""
    def claim(n: int) -> bool:
        return 1 <= n <= len(hands) and hands[n - 1].revisions[-1].outcome == flow.FALSE_CLAIM

    first, last = number, number
    while claim(first - 1):
        first -= 1
    while claim(last):
        last += 1
    return range(first, last + 1)


def places_of(table: GameTable, hands: Sequence[Hand]) -> list[flow.Place]:
    """The places of the table's recorded ``hands`` (all of them, in sheet order) and of
    the next hand (:class:`PlaceWalk`): ``len(hands) + 1`` places."""
    walk = PlaceWalk(table)
    out = [walk.place()]
    for hand in hands:
        walk.advance(hand)
        out.append(walk.place())
    return out


def next_place_of(table: GameTable, hands: Sequence[Hand]) -> flow.Place | None:
    """The place of the hand after the table's recorded ``hands`` (all of them, in sheet
    order, as :func:`places_of` takes them); None once the session is over."""
    return next_of(table, places_of(table, hands))


def next_of(table: GameTable, where: Sequence[flow.Place]) -> flow.Place | None:
    """The next hand's place from the table's places as :func:`places_of` gave them (its
    last); None once the session is over — its rounds played, or the table closed (time
    called) or withdrawn by the referee."""
    if table.closed_at is not None or table.withdrawn:
        return None
    return None if flow.session_over(deal_of(table), where[-1]) else where[-1]


def chip_stack(table: GameTable) -> int | None:
    """The chips each player starts a 课 with, where the table's rule set plays with chip
    stacks — it has the ``chips_left`` context field (what the left payer has) and a
    ``chip_stack`` setting (Xiamen: 100, seed 000's 100筹码) — else None.

    A table's settings are checked when it is made (:func:`tilecam.tables.sheet.
    check_rules`). Settings stored before the scorer refused them (Xiamen ``chip_stack=0``
    with ``cap_at_stack`` on, which paid every win 0 chips: refused since the
    seventy-fifth session) still give their stake here, so the sheet, its places and its
    standings read as before; scoring a win or a penalty's default amount at such a table
    is refused (400 ``invalid_context``, never a 500), naming the setting and what a
    referee can do instead (:func:`tilecam.tables.sheet.refused_settings`)."""
    import scoring

    rule_set = scoring.get_rule_set(str(table.rules))
    if "chips_left" not in rule_set.context_fields():
        return None
    stored = dict(table.rule_settings or {})
    try:
        resolved = rule_set.resolve_settings(stored)
    except scoring.HandError:  # stored before a check the scorer has now
        resolved = {name: s.default for name, s in rule_set.settings().items()} | stored
    stake = resolved.get("chip_stack")
    return stake if isinstance(stake, int) and not isinstance(stake, bool) else None


def report_of(rev: HandRevision) -> HandReport:
    """The report a stored revision was scored from (to score it again at a new place, or
    to lay a correction's fields over): its content and the note it came with
    (``report_note``: none for a revision stored before migration 0010). A void revision
    of a drawn hand (no hand, no winner) is a drawn hand's report."""
    ctx = dict(rev.context or {})
    flags = {k: ctx.pop(k) for k in ("self_drawn", "last_of_kind", "kong", "last_wall_tile",
                                     "flowers") if k in ctx}
    drawn = rev.outcome == "draw" or (rev.outcome == "void" and rev.hand_text is None
                                      and rev.winner is None)
    return HandReport(outcome="draw" if drawn else "win", hand=rev.hand_text,
                      winner=rev.winner, discarder=rev.discarder, context=ctx,
                      recognized=rev.recognized, image_ref=rev.image_ref,
                      note=rev.report_note, **flags)


def moved(a: flow.Place, b: flow.Place) -> bool:
    """Whether a hand scored at place ``a`` may score otherwise at ``b``: who holds each
    seat, the round's wind, the dealer's streak, the players' chips or who may not win
    it (``barred``: a false claim or a referee's 停和 earlier in the hand) differ."""
    return (a.seat_winds() != b.seat_winds() or a.prevalent_wind != b.prevalent_wind
            or a.repeats != b.repeats or a.draws != b.draws or a.stacks != b.stacks
            or a.barred != b.barred)


def why_moved(changed: int, old: flow.Place, new: flow.Place, names: Sequence[str]) -> str:
    """What of a later hand's place hand ``changed`` moved, for its ``reseat`` note:
    the dealer, the seats, the dealer's streak, the chips or who may not win it
    (``names``: the players)."""
    if old.dealer != new.dealer:
        return (f"hand {changed} changed who deals after it: this hand's dealer is "
                f"{names[new.dealer]} (was {names[old.dealer]})")
    if old.seat_winds() != new.seat_winds() or old.prevalent_wind != new.prevalent_wind:
        return f"hand {changed} changed this hand's seats"
    if (old.repeats, old.draws) != (new.repeats, new.draws):
        return (f"hand {changed} changed the dealer's streak: {new.repeats} won, "
                f"{new.draws} drawn before this hand (was {old.repeats}, {old.draws})")
    if old.barred != new.barred:
        barred = ", ".join(names[new.seat_winds()[w]] for w in new.barred) or "nobody"
        return (f"hand {changed} changed who may not win this hand (停和): {barred}")
    stacks = ", ".join(f"{n} {c}" for n, c in zip(names, new.stacks or (), strict=False))
    return f"hand {changed} changed the chips the players have before this hand ({stacks})"
