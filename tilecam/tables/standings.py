"""Standings from the score sheet: per table and per event, and the sheet as CSV.

A hand counts with its latest revision (a void or pending hand counts zero; a record
ruled a false claim counts its penalty among the penalty points); penalties count unless
voided. Players are ranked by total points; equal totals
share a rank. An event ranks each player once per rule set: the player's lines at the
event's tables of one rule set summed (one name across its tables, as the sheet compares
names: :class:`EventLine`) — never MCR points with Xiamen or Zhenjiang chips —, each rule
set's players ranked apart, a withdrawn table left out. A win counts as self-drawn as
its score settled it — the score's own
``self_drawn`` (Xiamen's 游金 or 抢杠自摸, a Zhenjiang 天胡, with the report's
``self_drawn`` or without), or for a score stored by an older version, which lacks it,
the reading by win-type names (:func:`tilecam.tables.scoring_bridge.scored_self_drawn`)
—, and only a win on a discard deals its discarder in (the konger of a Xiamen 抢杠自摸
pays as the others do).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from sqlalchemy.orm import Session

from tilecam.db.models import Event, GameTable, Hand, HandRevision, Penalty
from tilecam.tables import closings, places, sheet
from tilecam.tables.flow import FALSE_CLAIM
from tilecam.tables.scoring_bridge import scored_self_drawn
from tilecam.tables.settlement import (
    REPEAT_OFFENCES,
    money_apart,
    revision_money,
    revision_seats,
)
from tilecam.tables.views import fans_text, fans_view


@dataclass
class PlayerLine:
    """One player's line in the standings."""

    table_id: int
    table: str
    position: int
    name: str
    hand_points: int = 0
    penalty_points: int = 0
    wins: int = 0
    self_drawn_wins: int = 0
    dealt_in: int = 0
    #: money paid apart from the points (Xiamen's bonus money, 课外); not in ``total``
    money: int = 0
    #: the referee's warnings (警告, and repeat offences booked at their first step) and
    #: 停和 rulings (``bar``) on the player, not void — what a referee weighs next (seed
    #: 003: 第二次违例犯规…可以给予罚分、停和)
    warnings: int = 0
    bars: int = 0
    #: the referee's 停赛 (a ``disqualification`` not void): the player takes no rank
    disqualified: bool = False
    #: 1 = most points (equal totals share a rank); None for a disqualified player
    rank: int | None = 0

    @property
    def total(self) -> int:
        return self.hand_points + self.penalty_points

    def to_dict(self) -> dict[str, Any]:
        return {
            "rank": self.rank,
            "table_id": self.table_id,
            "table": self.table,
            "position": self.position,
            "player": self.name,
            "total": self.total,
            "hand_points": self.hand_points,
            "penalty_points": self.penalty_points,
            "wins": self.wins,
            "self_drawn_wins": self.self_drawn_wins,
            "dealt_in": self.dealt_in,
            "money": self.money,
            "warnings": self.warnings,
            "bars": self.bars,
            "disqualified": self.disqualified,
        }


@dataclass
class TableStandings:
    """A table's standings and the state of its sheet."""

    table: GameTable
    players: list[PlayerLine]
    hands_recorded: int
    hands_settled: int
    hands_pending: list[int] = field(default_factory=list)
    hands_void: list[int] = field(default_factory=list)
    #: Records ruled a false claim (错和, 诈和), the hand played on after them.
    false_claims: list[int] = field(default_factory=list)
    #: The next hand's number; None once the sheet takes no hand (its rounds played, the
    #: table closed or withdrawn).
    next_hand: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "table_id": self.table.id,
            "table": self.table.name,
            "rules": self.table.rules,
            "hands_recorded": self.hands_recorded,
            "hands_settled": self.hands_settled,
            "hands_pending": self.hands_pending,
            "hands_void": self.hands_void,
            "false_claims": self.false_claims,
            # a withdrawn table (opened by mistake) takes no hand but did not end its
            # session: it is ``withdrawn``, never ``complete``
            "complete": self.next_hand is None and not self.table.withdrawn,
            "next_hand": self.next_hand,
            "closed": self.table.closed_at is not None,
            "withdrawn": bool(self.table.withdrawn),
            "players": [p.to_dict() for p in sorted(self.players, key=_rank_order)],
        }


class _Ranked(Protocol):
    """A standings line: a table's (:class:`PlayerLine`) or an event's (:class:`EventLine`)."""

    rank: int | None

    @property
    def total(self) -> int: ...

    @property
    def disqualified(self) -> bool: ...


def _rank(lines: Sequence[_Ranked]) -> None:
    """Rank ``lines`` by total (equal totals share a rank); a disqualified player (停赛)
    takes none and the others rank among themselves."""
    for line in lines:
        if line.disqualified:
            line.rank = None
    ordered = sorted((p for p in lines if not p.disqualified), key=lambda p: -p.total)
    for i, line in enumerate(ordered):
        if i and line.total == ordered[i - 1].total:
            line.rank = ordered[i - 1].rank
        else:
            line.rank = i + 1


def _rank_order(line: PlayerLine) -> tuple[bool, int, int, int]:
    """The order lines are listed in: by rank, the disqualified last; then by table and
    seat."""
    return (line.rank is None, line.rank or 0, line.table_id, line.position)


def current(hand: Hand) -> HandRevision:
    """The hand's latest revision."""
    return hand.revisions[-1]


def table_standings(session: Session, table: GameTable,
                    hands: Sequence[Hand] | None = None) -> TableStandings:
    """Standings of one table; ``hands``: its hands when the caller has them loaded
    (:func:`tilecam.tables.sheet.hands_of`)."""
    lines = [PlayerLine(table.id, table.name, p.position, p.name) for p in table.players]
    by_pos = {line.position: line for line in lines}
    if hands is None:
        hands = sheet.hands_of(session, table.id)
    nxt = places.next_place_of(table, hands)
    out = TableStandings(table, lines, hands_recorded=len(hands), hands_settled=0,
                         next_hand=None if nxt is None else nxt.number)
    for hand in hands:
        rev = current(hand)
        if rev.outcome == "void":
            out.hands_void.append(hand.number)
            continue
        if rev.outcome == "pending":
            out.hands_pending.append(hand.number)
            continue
        if rev.outcome == FALSE_CLAIM:
            out.false_claims.append(hand.number)
            for pos, pts in enumerate(rev.settlement):
                by_pos[pos].penalty_points += int(pts)
            continue
        out.hands_settled += 1
        for pos, pts in enumerate(rev.settlement):
            by_pos[pos].hand_points += int(pts)
        for pos, money in enumerate(revision_money(rev, hand.number)):
            by_pos[pos].money += money
        if rev.outcome == "win" and rev.winner:
            winds = revision_seats(rev, hand.number)
            winner = by_pos[winds[rev.winner]]
            winner.wins += 1
            if scored_self_drawn(rev.score, rev.context or {}):
                winner.self_drawn_wins += 1
            elif rev.discarder:
                by_pos[winds[rev.discarder]].dealt_in += 1
    for pen in sheet.penalties_of(session, table.id):
        if pen.voided_at is not None:
            continue
        line = by_pos[pen.player]
        line.warnings += pen.kind == "warning" or (pen.kind in REPEAT_OFFENCES
                                                    and not pen.points)
        line.bars += pen.kind == "bar"
        line.disqualified |= pen.kind == "disqualification"
        for pos, pts in enumerate(pen.deltas):
            if pen.money:  # Xiamen 诈胡: money apart from the points
                by_pos[pos].money += int(pts)
            else:
                by_pos[pos].penalty_points += int(pts)
    _rank(lines)
    return out


#: The counts a player's event line sums over the player's table lines.
SUMMED = ("hand_points", "penalty_points", "wins", "self_drawn_wins", "dealt_in", "money",
          "warnings", "bars")


@dataclass
class EventLine:
    """A player's line in the event's standings: the sum of the player's lines at the
    event's tables of one rule set (``rules``; :data:`SUMMED`), ranked by its total among
    the event's lines of that rule set — a table's points are in its rules' units (MCR
    points, Xiamen or Zhenjiang chips), so a player at tables of two rule sets has a line
    for each, never one total of mixed units. A player is one name across the
    event's tables, as the sheet keeps and compares names (:func:`sheet.tidy_name`: the
    same letters, spaces at either end, invisible characters and Unicode forms aside);
    two people of one name are one line, and one person under two spellings two lines —
    a referee fixes a name with ``PATCH /v1/tables/{id}`` before the table's first
    hand. A disqualification (停赛) at any table takes the player's rank."""

    name: str
    #: the rule set of every table the line sums (its points' unit)
    rules: str = ""
    lines: list[PlayerLine] = field(default_factory=list)
    #: 1 = most points among the event's lines of ``rules`` (equal totals share a rank);
    #: None for a disqualified player
    rank: int | None = 0

    def _sum(self, what: str) -> int:
        return sum(int(getattr(line, what)) for line in self.lines)

    @property
    def total(self) -> int:
        return self._sum("hand_points") + self._sum("penalty_points")

    @property
    def disqualified(self) -> bool:
        return any(line.disqualified for line in self.lines)

    @property
    def first_seat(self) -> tuple[int, int]:
        """(table id, position) of the player's first seat: the order of equal ranks."""
        return min((line.table_id, line.position) for line in self.lines)

    def to_dict(self) -> dict[str, Any]:
        return {
            "rank": self.rank,
            "player": self.name,
            "rules": self.rules,
            "total": self.total,
            **{what: self._sum(what) for what in SUMMED},
            "disqualified": self.disqualified,
            "tables": len(self.lines),
            # each table's line, as that table's standings give it (its rank there), with
            # its table's rules
            "lines": [{**line.to_dict(), "rules": self.rules} for line in sorted(
                self.lines, key=lambda x: (x.table_id, x.position))],
        }


def event_standings(session: Session, event: Event) -> dict[str, Any]:
    """Every player of the event ranked by total points — a player's lines at the
    event's tables of one rule set summed into one (:class:`EventLine`: a multi-session
    event seats a player at a table per session) — with each table's state. The lines
    of each rule set are ranked apart (MCR points and Xiamen chips are not one unit),
    the event's own rule set listed first. A withdrawn table (a table opened by
    mistake) is listed with its state and counts for nobody."""
    tables = [table_standings(session, t) for t in event.tables]
    players: dict[tuple[str, str], EventLine] = {}
    for t in tables:
        if t.table.withdrawn:
            continue
        rules = str(t.table.rules)
        for line in t.players:
            key = (sheet.tidy_name(line.name), rules)
            players.setdefault(key, EventLine(line.name, rules)).lines.append(line)
    ranked = list(players.values())
    for rules in {p.rules for p in ranked}:
        _rank([p for p in ranked if p.rules == rules])
    return {
        "event_id": event.id,
        "event": event.name,
        "tables": [
            {k: v for k, v in t.to_dict().items() if k != "players"} for t in tables
        ],
        "players": [p.to_dict() for p in sorted(
            ranked, key=lambda p: (p.rules != event.rules, p.rules, p.rank is None,
                                   p.rank or 0, p.first_seat))],
    }


def _cell(value: Any) -> Any:
    """Text that a spreadsheet would run as a formula gets a leading apostrophe."""
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return value


#: What every CSV the service serves begins with: the UTF-8 byte-order mark (U+FEFF).
#: Excel on Windows opens a double-clicked ``.csv`` without it in the system's legacy
#: code page (GBK/cp936 on Chinese Windows, cp1252 on English Windows), and every Chinese
#: name on the sheet comes out garbled (review "i18n" of session 76, finding 3); with it,
#: Excel reads UTF-8. Python readers take it off with ``encoding="utf-8-sig"``.
BOM = "\ufeff"


def _csv(rows: list[list[Any]]) -> str:
    """``rows`` as CSV text, after :data:`BOM` (served as ``text/csv; charset=utf-8``)."""
    buf = io.StringIO()
    buf.write(BOM)
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerows([[_cell(v) for v in row] for row in rows])
    return buf.getvalue()


def table_sheet_csv(session: Session, table: GameTable) -> str:
    """The table's score sheet: one row per hand (current revision), then penalties, each
    close of the sheet and each reopening (rows ``closed`` and ``reopened``, oldest first:
    the time, the reason and who gave it in ``note``), totals. Every header is unique: a
    player's columns are ``points NAME`` (and, where the rules keep money apart, ``money
    NAME``), whatever the players are named. A hand's ``fans`` are those of the score
    stored with it (nothing scored again), by Chinese and English name and value, ``; ``
    between (:func:`tilecam.tables.views.fans_text`: ``清一色 Full Flush 24; 自摸
    Self-Drawn 1``); a false claim's are the win's as claimed, which its empty ``total``
    says did not count. The text begins with the UTF-8 byte-order mark (:data:`BOM`), for
    Excel."""
    names = [p.name for p in table.players]
    money = money_apart(table.rules)  # Xiamen: four columns of bonus money after the points
    # a penalty's player and points have their own columns (until the seventy-fourth
    # session they went in winner and total, and a filter on winner counted them as wins);
    # each player's points are "points NAME", as their money is "money NAME" — headed by
    # the bare name until the seventy-fifth session, a player named "points", "hand" or
    # "total" gave two columns one header, and a reader by header read the wrong one
    head = ["row", "hand", "round", "prevalent_wind", "dealer", "outcome", "hand_notation",
            "winner", "discarder", "self_drawn", "total", "fans", "revision", "note", "player",
            "points", *[f"points {n}" for n in names],
            *([f"money {n}" for n in names] if money else [])]
    rows: list[list[Any]] = [head]
    hands = sheet.hands_of(session, table.id)
    for hand, place in zip(hands, places.places_of(table, hands), strict=False):
        rev = current(hand)
        winds = revision_seats(rev, hand.number)
        rows.append([
            "hand", hand.number, place.round, place.prevalent_wind,
            names[place.dealer], rev.outcome, rev.hand_text or "",
            names[winds[rev.winner]] if rev.winner else "",
            names[winds[rev.discarder]] if rev.discarder else "",
            "yes" if scored_self_drawn(rev.score, rev.context or {}) else "no",
            # a false claim's points are its penalty: the claimed hand's total would read
            # as their score
            "" if rev.total is None or rev.outcome == FALSE_CLAIM else rev.total,
            fans_text(fans_view(rev.score)), rev.revision, rev.note or "", "", "",
            *rev.settlement, *(revision_money(rev, hand.number) if money else []),
        ])
    pens: list[Penalty] = sheet.penalties_of(session, table.id)
    for pen in pens:
        deltas = [0, 0, 0, 0] if pen.voided_at else [int(d) for d in pen.deltas]
        paid = ([0] * 4 + deltas if pen.money else deltas + [0] * 4) if money else deltas
        rows.append([
            "penalty", pen.hand_number or "", "", "", "",
            f"{pen.kind} (void)" if pen.voided_at else pen.kind, "", "", "", "", "", "", "",
            pen.reason or "", names[pen.player], pen.points, *paid,
        ])
    # each close of the sheet and each reopening, oldest first (the close that stands now
    # last), when, why and by whom in its note: a table closed by mistake and reopened
    # shows both, its hands before and after kept
    for closing in closings.closings(table):
        row: list[Any] = [""] * len(head)
        row[0] = closing.action
        row[head.index("note")] = (closing.reason if closing.at is None
                                   else f"{closing.at}: {closing.reason}")
        rows.append(row)
    st = table_standings(session, table, hands)
    totals = {p.position: p.total for p in st.players}
    kept = {p.position: p.money for p in st.players}
    rows.append(["total", *[""] * head.index("points"),
                 *[totals[i] for i in range(4)], *([kept[i] for i in range(4)] if money else [])])
    return _csv(rows)


def event_standings_csv(session: Session, event: Event) -> str:
    """The event's standings as CSV: a row per player and rule set (:class:`EventLine`)
    — rank (among that rule set's rows), player, the tables played (names, ``; ``
    between), points and counts summed, and last the rows' ``rules`` (the points'
    unit). It begins with the UTF-8 byte-order mark (:data:`BOM`), for Excel."""
    data = event_standings(session, event)
    rows: list[list[Any]] = [["rank", "player", "tables", "total", *SUMMED, "disqualified",
                              "rules"]]
    for p in data["players"]:
        rows.append([p["rank"], p["player"], "; ".join(x["table"] for x in p["lines"]),
                     p["total"], *(p[what] for what in SUMMED),
                     "yes" if p["disqualified"] else "", p["rules"]])
    return _csv(rows)
