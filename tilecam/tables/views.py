"""JSON views of the score sheet's rows for the API (plain dicts, no ORM objects)."""

from __future__ import annotations

from datetime import UTC
from typing import Any

from tilecam.db.models import Event, GameTable, Hand, HandRevision, Penalty
from tilecam.tables import flow, sheet
from tilecam.tables.settlement import (
    money_apart,
    payment_receiver,
    revision_money,
    revision_seats,
)


def _iso(value: Any) -> str | None:
    """ISO 8601 with the UTC offset. Every time is stored in UTC (``models.utcnow``), but
    SQLite hands it back without its zone; it is UTC all the same.

    >>> from datetime import datetime
    >>> _iso(datetime(2026, 12, 5, 22, 31))
    '2026-12-05T22:31:00+00:00'
    """
    if value is None:
        return None
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return str(value.isoformat())


def event_view(event: Event) -> dict[str, Any]:
    return {
        "id": event.id,
        "name": event.name,
        "rules": event.rules,
        "version": event.version,
        "created_at": _iso(event.created_at),
    }


def table_view(table: GameTable, next_place: flow.Place | None = None, *,
               with_next: bool = False) -> dict[str, Any]:
    """The table and its players, and whether a referee closed it (``closed_at``,
    ``close_reason``) or withdrew it; ``with_next``: also ``next_hand``, the place of the
    next hand (``next_place``; None once the session is over or the table closed).
    ``settings_refused``: the error every win there is answered with when the scorer
    refuses the table's stored settings (:func:`tilecam.tables.sheet.refused_settings`:
    settings stored by an older tilecam), so that an operator sees it before the first
    frame; None when it takes them."""
    out: dict[str, Any] = {
        "id": table.id,
        "event_id": table.event_id,
        "name": table.name,
        "rules": table.rules,
        "version": table.version,
        "settings": table.rule_settings,
        "settings_refused": _settings_refused(table),
        "players": [{"position": p.position, "name": p.name} for p in table.players],
        "created_at": _iso(table.created_at),
        # the referee closed the sheet (time called): no more hands; when and why, and
        # after a reopening the record of closings too (tilecam.tables.closings)
        "closed_at": _iso(table.closed_at),
        "close_reason": table.close_reason,
        # left out of the event's standings (a table opened by mistake), history kept
        "withdrawn": bool(table.withdrawn),
    }
    if with_next:
        out["next_hand"] = None if next_place is None else place_view(table, next_place)
    return out


def _settings_refused(table: GameTable) -> str | None:
    """What the scorer's refusal of ``table``'s stored settings says, or None."""
    refused = sheet.refused_settings(table)
    return None if refused is None else str(refused)


def place_view(table: GameTable, place: flow.Place) -> dict[str, Any]:
    """Where a hand falls: round, winds, dealer, who holds each seat wind, the dealer's
    streak (``dealer_repeats``: hands in a row before it the dealer won and dealt again,
    连庄; ``drawn_hands``: drawn hands in a row before it, 臭庄) and, when an earlier hand
    is held pending where its winner decides who deals next, ``assumed_after``: that
    hand's number (the deal was taken to pass after a hand whose winner is not known, and
    to stay with the dealer, streak unchanged, after a win held pending, so this place may
    move when a referee settles it); ``barred``: the
    players who may not win this hand (停和: a false claim earlier in it, or a referee's
    ``bar`` penalty)."""
    names = [p.name for p in table.players]
    out: dict[str, Any] = {
        "number": place.number,
        "round": place.round,
        "hand_in_round": place.hand_in_round,
        "prevalent_wind": place.prevalent_wind,
        "dealer": names[place.dealer],
        "seats": {w: names[pos] for w, pos in place.seat_winds().items()},
        "dealer_repeats": place.repeats,
        "drawn_hands": place.draws,
    }
    if place.assumed_after is not None:
        out["assumed_after"] = place.assumed_after
    if place.stacks is not None:  # Xiamen: chips each player has before the hand (课)
        out["chips"] = {names[i]: c for i, c in enumerate(place.stacks)}
    if place.barred:  # 停和: a false claim earlier in this hand, or a referee's bar
        winds = place.seat_winds()
        out["barred"] = [{"seat": w, "player": names[winds[w]]} for w in place.barred]
    return out


def revision_view(rev: HandRevision, table: GameTable, number: int) -> dict[str, Any]:
    """One revision; its ``winner``/``discarder`` name the players who held those seats
    when it was scored (a later revision may seat them otherwise: ``reseat``)."""
    names = [p.name for p in table.players]
    winds = revision_seats(rev, number)

    def seat(w: str | None) -> dict[str, str] | None:
        return None if w is None else {"seat": w, "player": names[winds[w]]}

    out = {
        "revision": rev.revision,
        "action": rev.action,
        "outcome": rev.outcome,
        "hand": rev.hand_text,
        "winner": seat(rev.winner),
        "discarder": seat(rev.discarder),
        "context": rev.context,
        "rules": rev.rules,
        "version": rev.version,
        "total": rev.total,
        "legal": rev.legal,
        "score": rev.score,
        "points": {names[i]: int(v) for i, v in enumerate(rev.settlement)},
        "settlement": [int(v) for v in rev.settlement],
        "recognized": rev.recognized,
        "image_ref": rev.image_ref,
        "note": rev.note,
        "author": rev.author,
        "created_at": _iso(rev.created_at),
    }
    if money_apart(table.rules):  # Xiamen's bonus money, paid apart from the chips
        out["money"] = {names[i]: v for i, v in enumerate(revision_money(rev, number))}
    return out


def fans_view(score: Any) -> list[dict[str, Any]] | None:
    """The fans of a revision's stored score (``HandRevision.score``, the scorer's
    answer as it was recorded: nothing is scored again), each ``{"zh", "en", "value",
    "count"}`` — the score's own, less the sets that form them (``GET …/hands/{n}``
    has those); None where nothing was scored (a draw, a hand the scorer refused).

    >>> fans_view({"fans": [{"zh": "清一色", "en": "Full Flush", "value": 24, "count": 1,
    ...                      "sets": [["123m"]]}]})
    [{'zh': '清一色', 'en': 'Full Flush', 'value': 24, 'count': 1}]
    >>> fans_view(None) is None
    True
    """
    fans = score.get("fans") if isinstance(score, dict) else None
    if not isinstance(fans, list):
        return None
    return [{"zh": f.get("zh", ""), "en": f.get("en", ""), "value": f.get("value", 0),
             "count": _count(f.get("count"))} for f in fans if isinstance(f, dict)]


def _count(value: Any) -> int:
    """A saved fan's ``count``: 1 where it is missing, null or not a whole number (no
    tilecam wrote such a score, but the sheet's CSV failed on one, 500).

    >>> _count(2), _count(None), _count("2"), _count(True)
    (2, 1, 1, 1)
    """
    return value if isinstance(value, int) and not isinstance(value, bool) else 1


def fans_text(fans: list[dict[str, Any]] | None) -> str:
    """:func:`fans_view`'s fans on one line, as the sheet's CSV writes them: each fan's
    Chinese and English names and its value — ``value×count`` for a fan counted more
    than once, as the phone page writes it —, ``; `` between; empty where none.

    >>> fans_text([{"zh": "清一色", "en": "Full Flush", "value": 24, "count": 1},
    ...            {"zh": "幺九刻", "en": "Pung of Terminals or Honors", "value": 1,
    ...             "count": 2}])
    '清一色 Full Flush 24; 幺九刻 Pung of Terminals or Honors 1×2'
    """
    return "; ".join(
        f"{f['zh']} {f['en']} {f['value']}" + (f"×{f['count']}" if f["count"] > 1 else "")
        for f in fans or ())


def hand_view(hand: Hand, table: GameTable, place: flow.Place, history: bool = False,
              current: HandRevision | None = None) -> dict[str, Any]:
    """The hand's ``place`` (as the sheet's deal gives it now) and current revision (and
    every revision with ``history``: ``hand.revisions`` as loaded, which
    :func:`tilecam.tables.sheet.hands_of` leaves at the current one —
    :func:`tilecam.tables.sheet.load_history` loads them all)."""
    rev = current or hand.revisions[-1]
    out = {"table_id": table.id, **place_view(table, place), "source": hand.source,
           "created_at": _iso(hand.created_at), **revision_view(rev, table, hand.number)}
    if history:  # each revision with the seats it was scored with (who sat where then)
        names = [p.name for p in table.players]
        out["history"] = [
            {**revision_view(r, table, hand.number),
             "seats": {w: names[p] for w, p in revision_seats(r, hand.number).items()}}
            for r in hand.revisions]
    return out


def penalty_view(pen: Penalty, table: GameTable) -> dict[str, Any]:
    names = [p.name for p in table.players]
    return {
        "id": pen.id,
        "table_id": pen.table_id,
        "player": names[pen.player],
        "position": pen.player,
        "hand": pen.hand_number,
        "kind": pen.kind,
        "points": pen.points,
        "deltas": {names[i]: int(v) for i, v in enumerate(pen.deltas)},
        # a payment's receiver: the one player its deltas pay
        "to": None if (paid := payment_receiver(pen.kind, pen.deltas)) is None else names[paid],
        "money": bool(pen.money),  # the deltas are money apart from the points
        "reason": pen.reason,
        "author": pen.author,
        "created_at": _iso(pen.created_at),
        "void": pen.voided_at is not None,
        "voided_at": _iso(pen.voided_at),
        "void_reason": pen.void_reason,
        # a repeat offence's step changed since it was booked: from, to and why
        "rebooked": pen.rebooked,
        "request_id": pen.request_id,  # the client's name for the request that booked it
    }
