"""The score sheet in the database: events, tables, recorded hands, corrections, penalties.

Every write is one transaction. A hand's place is unique per ``(table, number)``
in the database, so two processes (or a camera and an automatic table) that try
to record the same place at once cannot both succeed: the loser retries and
finds the place taken. Hand content is append-only (:class:`HandRevision`).
"""

from __future__ import annotations

import logging
import time
import unicodedata
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.orm import Session, selectinload, sessionmaker
from sqlalchemy.orm.attributes import set_committed_value

from tilecam.db.engine import WRITE, first_line, lasting_fault, sql_fault
from tilecam.db.models import (
    CameraState,
    Event,
    GameTable,
    Hand,
    HandRevision,
    Penalty,
    Player,
    Round,
    utcnow,
)
from tilecam.tables import closings, flow
from tilecam.tables.false_claims import Ruling, claim_kind
from tilecam.tables.keys import hash_key, new_key, new_view_key
from tilecam.tables.offences import earlier_offences, offence_points, rebooked_steps
from tilecam.tables.places import (
    PlaceWalk,
    deal_of,
    hand_records,
    moved,
    next_place_of,
    places_of,
    report_of,
    why_moved,
)
from tilecam.tables.scoring_bridge import (
    DealerClash,
    Evaluation,
    HandReport,
    context_clash,
    evaluate,
    reading_context,
)
from tilecam.tables.settlement import (
    MCR_PENALTY_POINTS,
    NO_POINTS,
    REPEAT_OFFENCES,
    money_apart,
    payment_receiver,
    penalty_deltas,
)

log = logging.getLogger("tilecam.tables")

T = TypeVar("T")


#: The machine codes of a :class:`Conflict` (the ``code`` of its 409 answer), and when
#: each is raised: a client acts on the code, not on the message's English.
CONFLICT_CODES: dict[str, str] = {
    "conflict": "the request contradicts what is recorded (no more specific code)",
    "name_taken": "another table of the event has that name",
    "table_closed": "the table is closed: it records no more hands until a referee "
                    "reopens it",
    "table_withdrawn": "the table is withdrawn from its event: it records no more hands",
    "session_over": "the table has recorded every hand of its session",
    "already_closed": "the table is closed already",
    "not_closed": "the table is not closed: there is nothing to reopen",
    "players_fixed": "the table's sheet holds hands or penalties: its players may not "
                     "change",
    "number_taken": "that hand number is recorded already with other content",
    "already_recorded": "the hand a photo shows, or a win a table posts without a "
                        "number, is on the sheet already (the message names it)",
    "out_of_order": "that hand number is not the table's next",
    "table_settings_refused": "the table's stored settings score no win (a Xiamen "
                              "chip_stack 0 of an older tilecam): nothing is read or "
                              "recorded there",
    "outcome_unstated": "a correction of a void or ruled hand must say its outcome or "
                        "its tiles",
    "already_void": "the hand or penalty is void already",
    "false_claim_ruled": "the hand is ruled a false claim: it takes no void, and its "
                         "claimant's penalty is booked already",
    "already_ruled": "the hand is ruled a false claim already",
    "not_a_win": "only a declared win can be ruled a false claim",
    "request_id_taken": "that request_id booked another penalty already",
    "already_disqualified": "the player is disqualified already",
    "already_barred": "the player may not win that hand already",
}


class Conflict(ValueError):
    """The request contradicts what is recorded (answered 409). ``code`` (one of
    :data:`CONFLICT_CODES`; ``conflict`` by default) is the answer's machine code.

    >>> exc = Conflict("table 3 is closed", "table_closed")
    >>> str(exc), exc.code, Conflict("x").code
    ('table 3 is closed', 'table_closed', 'conflict')
    """

    def __init__(self, message: str, code: str = "conflict") -> None:
        super().__init__(message)
        self.code = code


class NotFound(LookupError):
    """No such event, table, hand or penalty (answered 404)."""


class RulesError(ValueError):
    """An unknown rule set, or a version or setting it does not have (answered 400
    ``invalid_context``, as ``/v1/score`` and ``/v1/recognize`` answer them)."""


def transaction(sf: sessionmaker[Session], work: Callable[[Session], T], attempts: int = 5) -> T:
    """Run ``work`` in one transaction, retrying on a uniqueness race or a busy database.
    A database that cannot be reached at all (no statement ran), or that fails for a
    reason no retry mends (a read-only file, :func:`tilecam.db.engine.lasting_fault`),
    is not tried again: the error goes up at once (answered 503
    ``database_unavailable``); nor is SQL that is wrong (SQLite's "no such column":
    :func:`tilecam.db.engine.sql_fault`), a tilecam bug answered 500.
    On SQLite the transaction begins ``IMMEDIATE`` (:data:`tilecam.db.engine.WRITE`):
    writers queue for the write lock; reads elsewhere begin deferred. A failure of the
    commit itself is not tried again (it may have been recorded) and is marked
    ``tilecam_at_commit``, so the answer says to look before sending it again."""
    for attempt in range(1, attempts + 1):
        with sf() as session:
            committing = False
            try:
                with session.begin():
                    session.connection(execution_options={WRITE: True})  # SQLite: IMMEDIATE
                    done = work(session)
                    session.flush()  # a constraint's race shows here, and is tried again
                    committing = True  # leaving the block commits
                return done
            except (IntegrityError, OperationalError) as exc:
                if committing and isinstance(exc, OperationalError):  # the commit's own
                    # failure: it may have been recorded
                    setattr(exc, "tilecam_at_commit", True)  # noqa: B010
                    raise
                unreachable = isinstance(exc, OperationalError) and exc.statement is None
                lasting = isinstance(exc, OperationalError) and lasting_fault(first_line(exc))
                if attempt == attempts or unreachable or lasting or sql_fault(exc):
                    raise
                log.info("tilecam: transaction retry %d after %s", attempt, type(exc).__name__)
                time.sleep(0.01 * attempt)
    raise AssertionError("unreachable")  # pragma: no cover


# --- events and tables -------------------------------------------------------------------


def check_rules(rules: str, version: str | None, settings: dict[str, Any]) -> None:
    """:class:`RulesError` unless ``rules``/``version``/``settings`` name a rule set the
    scorer has, with a version and settings it has."""
    import scoring

    try:
        scoring.resolved_settings(scoring.get_rule_set(rules), version, settings)
    except scoring.HandError as exc:
        raise RulesError(str(exc)) from None


def scored_settings(table: GameTable) -> dict[str, Any]:
    """``table``'s stored settings as the scorer is given them: a settings ``version``
    stored beside the table's own version left out (a table of the seventy-second
    session's, stored before such a clash was refused, is scored under its event's
    version, as :func:`tilecam.tables.scoring_bridge.evaluate` scores it)."""
    return {k: v for k, v in (table.rule_settings or {}).items()
            if not (k == "version" and table.version is not None)}


def refused_settings(table: GameTable) -> RulesError | None:
    """The error to answer, in place of the scorer's, when the scorer refuses ``table``'s
    stored settings (:func:`check_rules`, given :func:`scored_settings`, as a win is
    scored) — settings stored before it refused them, as Xiamen ``chip_stack`` 0 with
    ``cap_at_stack`` on (refused since the seventy-fifth session: every win paid 0) —
    else None. The scorer's own advice ("give chip_stack 1 or more") cannot be followed
    at such a table, since a table's settings cannot be changed: the error says what a
    referee can do instead. Its sheet still reads as recorded
    (:func:`tilecam.tables.places.chip_stack`); nothing is changed here. A settings
    ``version`` that differs from the table's (stored before the seventy-second
    session's review) is not refused: a win there is scored under the table's version.
    Before the seventy-seventh session it was, for a photo's or a camera's win only."""
    try:
        check_rules(str(table.rules), table.version, scored_settings(table))
    except RulesError as exc:
        why, _, advice = str(exc).partition("; ")
        new = f" made with settings this tilecam takes ({advice})" if advice else ""
        return RulesError(
            f"table {table.id} keeps settings {dict(table.rule_settings or {})} stored by an "
            f"older tilecam, which this one refuses ({why}); a table's settings cannot be "
            "changed, so no win at this table can be scored or corrected, nor a penalty "
            "take its default amount: a referee may void a hand (POST /v1/tables/"
            f"{table.id}/hands/N/void), record or correct a drawn hand given no gold, "
            "give a penalty's points (and money) in the request, and close this table (POST "
            f"/v1/tables/{table.id}/close) to play on at a new one (POST /v1/events/"
            f"{table.event_id}/tables){new}")
    return None


def create_event(session: Session, name: str, rules: str, version: str | None) -> Event:
    """A new event (rules checked against the scorer's registry; its name as kept:
    :func:`kept_name`)."""
    if not visible(name):
        raise ValueError("an event needs a name")
    kept = kept_name(name, "an event's name")
    check_rules(rules, version, {})
    event = Event(name=kept, rules=rules, version=version)
    session.add(event)
    session.flush()
    return event


#: Characters that show nothing and mean nothing in a name (a zero-width space, a word
#: joiner, a byte-order mark, a soft hyphen, bidi marks and controls): left out of a name
#: when it is kept and compared. Joiners that shape a script or an emoji (ZWJ, ZWNJ) and
#: emoji tag characters are kept.
_NOTHING = frozenset("\u200b\u2060\ufeff\u00ad\u180e\u200e\u200f\u202a\u202b\u202c"
                     "\u202d\u202e\u2066\u2067\u2068\u2069")
#: Letters and symbols that render blank (Hangul fillers, the braille blank).
_BLANK = frozenset("\u115f\u1160\u3164\uffa0\u2800")


def tidy_name(text: str) -> str:
    """A name as the sheet keeps and compares it: characters that show and mean nothing
    out (:data:`_NOTHING`), then Unicode NFC (``é`` typed as one character or as ``e``
    and an accent is one name), outer spaces off.

    >>> tidy_name(" Zoe\u200b\u0301 ") == "Zo\u00e9"
    True
    >>> tidy_name("Coder \U0001f469\u200d\U0001f4bb") == "Coder \U0001f469\u200d\U0001f4bb"
    True
    """
    kept = "".join(ch for ch in text if ch not in _NOTHING)
    return unicodedata.normalize("NFC", kept).strip()


#: The most characters an event's, a table's or a player's name has as kept
#: (:func:`tidy_name`), as the database's columns hold them.
MOST_NAME_CHARS = 200


def kept_name(name: str, what: str) -> str:
    """``name`` as kept (:func:`tidy_name`); ValueError naming ``what`` when it is
    longer than :data:`MOST_NAME_CHARS` so. The bound counts the name as kept — Unicode
    NFC can make one character typed two (a composition exclusion: ``\\u0958`` is kept
    as ``\\u0915\\u093c``), or two typed one (``e`` and a combining accent) — so every
    database takes or refuses a name alike, in these words (before the seventy-fifth
    session's review a name checked as typed could be refused by PostgreSQL in its own
    words, or stored longer by SQLite).

    >>> kept_name("e\\u0301" * 200, "a table's name") == "\\u00e9" * 200
    True
    >>> kept_name("\\u0958" * 101, "a table's name")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: a table's name may have at most 200 characters as kept (...: this one has 202)
    """
    kept = tidy_name(name)
    _check_kept_length(kept, what)
    return kept


def _check_kept_length(kept: str, what: str) -> None:
    """ValueError naming ``what`` when the name ``kept`` (as kept: :func:`tidy_name`) is
    longer than :data:`MOST_NAME_CHARS`."""
    if len(kept) > MOST_NAME_CHARS:
        raise ValueError(f"{what} may have at most {MOST_NAME_CHARS} characters as kept "
                         f"(Unicode NFC: this one has {len(kept)})")


def visible(text: str) -> bool:
    """Whether ``text`` shows anything: some character besides spaces, invisible format
    characters and letters that render blank (a zero-width space is no name).

    >>> visible("\u200b "), visible("\u3164"), visible("Ann")
    (False, False, True)
    """
    return any(not ch.isspace() and unicodedata.category(ch) != "Cf" and ch not in _BLANK
               for ch in text)


def create_table(
    session: Session,
    event: Event,
    name: str,
    players: Sequence[str],
    rules: str | None = None,
    version: str | None = None,
    rule_settings: dict[str, Any] | None = None,
) -> tuple[GameTable, str]:
    """A new table of ``event`` with four players (East, South, West, North for round 1).

    Returns the table and its API key; only the key's hash is stored, so this is
    the one time the key can be shown.
    """
    name = _table_name(name)
    players = player_names(players)
    rules = rules or event.rules
    if version is None and rules == event.rules:
        version = event.version
    settings = dict(rule_settings or {})
    check_rules(rules, version, settings)
    _name_free(session, event.id, name)
    key = new_key()
    table = GameTable(event_id=event.id, name=name.strip(), rules=rules, version=version,
                      rule_settings=settings, key_hash=hash_key(key))
    session.add(table)
    session.flush()
    for pos, pname in enumerate(players):
        session.add(Player(table_id=table.id, position=pos, name=pname.strip()))
    session.add(CameraState(table_id=table.id, streak=0, empty_streak=0, frames_seen=0))
    session.flush()
    return table, key


def _table_name(name: str) -> str:
    """A table's name as kept (:func:`kept_name`); ValueError when it shows nothing or
    is too long so."""
    if not visible(name):
        raise ValueError("a table needs a name")
    return kept_name(name, "a table's name")


def player_names(players: Sequence[str]) -> list[str]:
    """A table's four player names as kept (:func:`tidy_name`), in their round-1 seats;
    ValueError naming what is wrong (not four, one empty, two alike, one too long)."""
    if len(players) != 4:
        raise ValueError(f"a table needs four player names (East, South, West, North), "
                         f"not {len(players)}")
    names = [tidy_name(p) for p in players]
    if blank := [i + 1 for i, p in enumerate(names) if not visible(p)]:
        raise ValueError(f"player name {blank[0]} of 4 is empty: each player needs a name")
    if len(set(names)) != 4:
        raise ValueError("the four player names must differ")
    for i, name in enumerate(names):
        _check_kept_length(name, f"player name {i + 1} of 4")
    return names


def _name_free(session: Session, event_id: int, name: str,
               table_id: int | None = None) -> None:
    """:class:`Conflict` when another table of the event (not ``table_id``) has ``name``."""
    taken = session.scalar(
        select(GameTable.id).where(GameTable.event_id == event_id, GameTable.name == name,
                                   GameTable.id != (table_id or 0)))
    if taken is not None:
        raise Conflict(f"event {event_id} already has a table named {name!r}", "name_taken")


def refuse_closed(session: Session, table: GameTable) -> None:
    """:class:`Conflict` when ``table`` records no new hand: the referee closed it (time
    called: :func:`close_table`) or withdrew it (:func:`update_table`). Read from the
    database under the sheet's lock, so a close that committed a moment ago counts."""
    closed_at, text, withdrawn = session.execute(
        select(GameTable.closed_at, GameTable.close_reason, GameTable.withdrawn)
        .where(GameTable.id == table.id)).one()
    if closed_at is not None:
        reason, _ = closings.split(text, True)  # the close that stands, not the record
        raise Conflict(f"table {table.id} is closed ({reason}): it records no more hands; "
                       "a referee may still correct, void and penalise what it holds, or "
                       f"reopen it (POST /v1/tables/{table.id}/reopen)", "table_closed")
    if withdrawn:
        raise Conflict(f"table {table.id} is withdrawn from its event: it records no more "
                       "hands", "table_withdrawn")


def refuse_no_place(table: GameTable, hands: Sequence[Hand]) -> flow.Place:
    """The place of the hand after ``hands`` (the table's, all of them: :func:`hands_of`);
    :class:`Conflict` when the session is over and the sheet records no new hand."""
    place = next_place_of(table, hands)
    if place is None:
        raise Conflict(f"table {table.id} has recorded all {len(hands)} hands of the session",
                       "session_over")
    return place


def close_table(sf: sessionmaker[Session], table_id: int, author: str,
                reason: str) -> GameTable:
    """The referee closes the table's sheet (the session's time called, seed 000/001:
    当比赛已到规定时间…比赛结束，按已取得的分数计算成绩): no hand is recorded after it (409),
    its standings say ``complete`` and ``closed``; what it holds may still be corrected,
    voided and penalised. Closing a closed table is a :class:`Conflict`. The reason is
    kept on one line with who closed it, before the record of earlier closings, if the
    table was reopened (:mod:`tilecam.tables.closings`)."""
    if not closings.one_line(reason):
        raise ValueError("closing a table needs a reason")

    def work(session: Session) -> GameTable:
        lock_sheet(session, table_id)
        table = get_table(session, table_id)
        session.refresh(table)
        if table.closed_at is not None:
            raise Conflict(f"table {table_id} is already closed "
                           f"({closings.current_reason(table)})", "already_closed")
        table.close_reason = closings.closed_text(table, reason, author)
        table.closed_at = utcnow()
        session.flush()
        return table

    return transaction(sf, work)


def reopen_table(sf: sessionmaker[Session], table_id: int, author: str,
                 reason: str) -> GameTable:
    """The referee reopens a table's sheet closed by mistake (or time called too early):
    it records hands again where it stood — the hands recorded before stay, the next
    hand's place and the standings go on from them — and its standings no longer say
    ``closed``. Nothing is deleted: the close it undoes (when, why, by whom) and the
    reopening (when, ``reason``, ``author``) are kept in the table's record of closings
    (:mod:`tilecam.tables.closings`), which the sheet shows. A table that is not closed
    is a :class:`Conflict` (a withdrawn one is brought back by ``withdrawn: false``)."""
    if not closings.one_line(reason):
        raise ValueError("reopening a table needs a reason")

    def work(session: Session) -> GameTable:
        lock_sheet(session, table_id)
        table = get_table(session, table_id)
        session.refresh(table)
        if table.closed_at is None:
            record = closings.closings(table)
            last = f" (it was {record[-1].line()})" if record else ""
            withdrawn = (f"; it is withdrawn from its event: PATCH /v1/tables/{table_id} "
                         '{"withdrawn": false} brings it back') if table.withdrawn else ""
            raise Conflict(f"table {table_id} is not closed: there is nothing to "
                           f"reopen{last}{withdrawn}", "not_closed")
        now = utcnow()
        table.close_reason = closings.reopened_text(table, reason, author, now)
        table.closed_at = None
        session.flush()
        return table

    return transaction(sf, work)


def update_table(sf: sessionmaker[Session], table_id: int, *, name: str | None = None,
                 players: Sequence[str] | None = None,
                 withdrawn: bool | None = None) -> GameTable:
    """The referee changes what is safe to change of a table: its ``name`` at any time
    (unique in its event), its ``players`` (four names in their round-1 seats) only while
    its sheet holds no hand and no penalty — after that each hand and penalty names
    them —, and whether it is ``withdrawn`` from its event's standings (kept, with its
    history: nothing recorded is deleted; a withdrawn table records no new hand)."""

    def work(session: Session) -> GameTable:
        lock_sheet(session, table_id)
        table = get_table(session, table_id)
        if name is not None:
            kept = _table_name(name)
            _name_free(session, table.event_id, kept, table.id)
            table.name = kept
        if players is not None:
            names = player_names(players)
            if names != [p.name for p in table.players]:
                recorded = session.scalar(select(func.count(Hand.id))
                                          .where(Hand.table_id == table_id))
                booked = session.scalar(select(func.count(Penalty.id))
                                        .where(Penalty.table_id == table_id))
                if recorded or booked:
                    raise Conflict(
                        f"table {table_id} holds {recorded} hand(s) and {booked} "
                        "penalty(ies), each naming its players: the players may change only "
                        "before the first hand (open a new table for other players)",
                        "players_fixed")
                for player, new in zip(table.players, names, strict=True):
                    player.name = new
        if withdrawn is not None:
            table.withdrawn = withdrawn
        session.flush()
        return table

    return transaction(sf, work)


def get_event(session: Session, event_id: int) -> Event:
    event = session.get(Event, event_id)
    if event is None:
        raise NotFound(f"no event {event_id}")
    return event


def get_table(session: Session, table_id: int) -> GameTable:
    table = session.get(GameTable, table_id, options=[selectinload(GameTable.players)])
    if table is None:
        raise NotFound(f"no table {table_id}")
    return table


def mint_view_key(session: Session, table: GameTable) -> str:
    """A new viewing key for ``table`` (reads its sheet only), replacing any before it;
    only its hash is stored, so this is the one time it can be shown."""
    key = new_view_key()
    table.view_key_hash = hash_key(key)
    session.flush()
    return key


def mint_table_key(session: Session, table: GameTable) -> str:
    """A new key for ``table`` (its camera or automatic table records hands with it),
    replacing the one before, which stops working at once; only its hash is stored, so
    this is the one time it can be shown."""
    key = new_key()
    table.key_hash = hash_key(key)
    session.flush()
    return key


def table_for_view_key(session: Session, key: str) -> GameTable | None:
    """The table whose viewing key hashes to ``hash_key(key)``, if any."""
    return session.scalar(select(GameTable).where(GameTable.view_key_hash == hash_key(key)))


def table_for_key(session: Session, key: str) -> GameTable | None:
    """The table whose key hashes to ``hash_key(key)``, if any."""
    return session.scalar(select(GameTable).where(GameTable.key_hash == hash_key(key)))


# --- hands ---------------------------------------------------------------------------------


def last_camera_number(session: Session, table_id: int) -> int | None:
    """The place of the hand the table's camera recorded last (None when it recorded
    none): the hand a camera still showing it is told about. Hands posted by an
    automatic table or a referee after it do not move it."""
    top = session.scalar(select(func.max(Hand.number))
                         .where(Hand.table_id == table_id, Hand.source == "camera"))
    return None if top is None else int(top)


def last_number(session: Session, table_id: int) -> int:
    """How many hands the table's sheet holds (its last hand's number; 0 for none)."""
    top = session.scalar(select(func.max(Hand.number)).where(Hand.table_id == table_id))
    return 0 if top is None else int(top)


def current_text(session: Session, table_id: int, number: int) -> str | None:
    """Hand ``number``'s notation in its latest revision (None: no such hand, or a drawn
    hand given without one) — what a camera still showing it is told was recorded."""
    return session.scalars(
        select(HandRevision.hand_text).join(Hand, Hand.id == HandRevision.hand_id)
        .where(Hand.table_id == table_id, Hand.number == number)
        .order_by(HandRevision.revision.desc()).limit(1)).first()


def lock_sheet(session: Session, table_id: int) -> None:
    """Hold the table's row for this transaction (PostgreSQL ``FOR UPDATE``; SQLite
    takes the database's write lock anyway), so writers of one sheet go one at a time:
    a hand's place follows from the hands before it, which a correction in another
    transaction could otherwise change unseen."""
    session.execute(select(GameTable.id).where(GameTable.id == table_id).with_for_update())


def next_place(session: Session, table: GameTable) -> flow.Place | None:
    """The place the next hand of ``table`` takes; None when the session is over."""
    return next_place_of(table, hands_of(session, table.id))


def _round_row(session: Session, table_id: int, place: flow.Place) -> Round:
    row = session.scalar(
        select(Round).where(Round.table_id == table_id, Round.number == place.round)
    )
    if row is None:
        row = Round(table_id=table_id, number=place.round, prevalent_wind=place.prevalent_wind,
                    seating=dict(zip(flow.WINDS, place.seating, strict=True)))
        session.add(row)
        session.flush()
    return row


#: The largest total or payment a sheet records (the database keeps a hand's total in a
#: 32-bit column): beyond it a hand is refused with the reason, not stored cut short.
MOST_POINTS = 2**31 - 1


def check_report_context(table: GameTable, report: HandReport) -> None:
    """:class:`RulesError` (400 ``invalid_context``, as ``/v1/score`` and a camera frame
    answer it) naming what is wrong with a report's rule-set context on its own, whatever
    the hand: a field the rules do not have or a value that is none (MCR given a gold, a
    gold that is no tile code) and, for a win, what the rules need whatever the hand (the
    Xiamen gold, the Zhenjiang 百搭: :meth:`scoring.rulesets.base.RuleSet.check_context`),
    or a ``dealer`` against the winner's seat. A drawn hand needs no gold or 百搭; one
    given (a field of the rule set's ``tile_context``) is checked as a win's is — a tile
    code, the gold and the indicator agreeing — and its other fields as the rule set
    reads them (before the seventy-fifth session's review a drawn hand's ``{"gold":
    "zz"}`` was recorded). Seat fields given as seat winds are read as the scorer reads
    them (from the winner's seat: :func:`tilecam.tables.scoring_bridge.reading_context`;
    a drawn hand's are the rule set's to check, by seat wind). Before the seventy-fourth
    session these were 400 ``invalid_hand`` on a table's hands and corrections."""
    import scoring
    from vision.flower_count import check_flowers

    if context_clash(report.context) is not None:  # the scorer names it (ContextClash)
        return
    rules = str(table.rules)
    rule_set = scoring.get_rule_set(rules)
    settings = scored_settings(table)
    try:
        # flowers under rules without them (Zhenjiang), in /v1/score's words, whatever
        # the outcome (was 400 invalid_hand "remove the flowers", as of flowers written
        # in the hand)
        check_flowers(rules, report.flowers)
        if report.outcome == "win":
            scoring.check_context(rules, version=table.version, settings=settings,
                                  **reading_context(report, rules))
            return
        fields = {k: v for k, v in report.context.items() if k not in rule_set.seat_context}
        if any(fields.get(k) is not None for k in rule_set.tile_context):
            scoring.check_context(rules, version=table.version, settings=settings, **fields)
        else:
            rule_set.resolve_context(fields)
    except scoring.HandError as exc:
        # settings stored before the scorer refused them: say what a referee can do
        raise refused_settings(table) or RulesError(str(exc)) from None


def _evaluate(table: GameTable, place: flow.Place, report: HandReport,
              lenient: bool = False, review_below: float = 0.0) -> Evaluation:
    if not lenient:  # a camera's frame was checked so before it was read
        check_report_context(table, report)
    elif report.outcome == "win" and (bad := refused_settings(table)) is not None:
        # a photo's or a camera's win at a table whose stored settings the scorer refuses:
        # the same 400 as a posted win, not a pending hand whose note gives the scorer's
        # advice to change a setting no route changes
        raise bad
    try:  # the evaluation's own words only: the report's note is added by _revision
        ev = evaluate(replace(report, note=None), place, table.rules, table.version,
                      table.rule_settings or {}, lenient=lenient, review_below=review_below)
    except DealerClash as exc:  # a dealer flag against the seats: 400 invalid_context,
        raise RulesError(str(exc)) from None  # as a camera frame's is
    largest = max([abs(ev.total or 0), *(abs(int(v)) for v in ev.settlement)])
    if largest > MOST_POINTS:
        raise ValueError(
            f"hand {place.number} scores {largest:,} (total or one payment), more than the "
            f"sheet records ({MOST_POINTS:,}): check the table's settings "
            f"{table.rule_settings or {}} and the dealer's streak ({place.repeats} wins, "
            f"{place.draws} drawn hands)")
    return ev


def joined_notes(*parts: str | None) -> str | None:
    """A revision's note from its parts, in order, each once: a part left out only when
    it is the same as a part kept, or as one of a kept part's "; "-separated pieces (a
    held win's note carried into the next revision) — never because a kept part
    contains its words (a referee's reason "2 flowers" beside a table's remark "scored
    2 flowers" is kept); None when all are empty.

    >>> joined_notes("打首搭: N gets 18", "table 4: wall ran out", None)
    '打首搭: N gets 18; table 4: wall ran out'
    >>> joined_notes(None, " ", None) is None
    True
    >>> joined_notes("scored 2 flowers", "2 flowers")
    'scored 2 flowers; 2 flowers'
    >>> joined_notes("held: why; remark", "remark", "held: why")
    'held: why; remark'
    """
    out: list[str] = []
    seen: set[str] = set()  # the whole parts kept, and each "; " piece of them
    for part in parts:
        text = (part or "").strip()
        if text and text not in seen:
            out.append(text)
            seen.add(text)
            seen.update(piece.strip() for piece in text.split("; "))
    return "; ".join(out) or None


def _revision(hand: Hand, number: int, action: str, table: GameTable, report: HandReport,
              ev: Evaluation, author: str, said: str | None, place: flow.Place) -> HandRevision:
    """A revision of ``hand`` scored from ``report`` (``ev``). Its note keeps every part:
    the evaluation's words (a drawn hand's 打首搭 transfer, why a win is held pending), then
    the report's own note (a table's remark), then ``said``, why this revision exists (a
    referee's reason, a reseat's cause) — appended, not in place of the others (before
    the seventy-fourth session a reseat or a correction replaced them)."""
    return HandRevision(
        hand_id=hand.id, revision=number, action=action, outcome=ev.outcome,
        hand_text=ev.hand, recognized=dict(report.recognized) if report.recognized else None,
        image_ref=report.image_ref, context=report.win_context(), winner=report.winner,
        discarder=report.discarder, rules=table.rules,
        version=(ev.score or {}).get("version") or table.version, total=ev.total,
        legal=ev.legal, score=ev.score, settlement=ev.settlement, seats=place.seat_winds(),
        note=joined_notes(ev.note, report.note, said), report_note=report.note,
        author=author,
    )


#: The fields a revision carries from the one before when only some change
#: (:func:`next_revision`).
_CARRIED = ("outcome", "hand_text", "recognized", "image_ref", "context", "winner",
            "discarder", "rules", "version", "total", "legal", "score", "settlement", "seats",
            "note", "report_note")


def next_revision(last: HandRevision, *, action: str, author: str,
                  **changes: Any) -> HandRevision:
    """The revision after ``last``: its content, with ``changes`` laid over it."""
    fields = {name: getattr(last, name) for name in _CARRIED}
    fields.update(changes)
    return HandRevision(hand_id=last.hand_id, revision=last.revision + 1, action=action,
                        author=author, **fields)


#: The sources of hands read from an image — a camera's frames, a photo posted once
#: (``POST /v1/tables/{id}/photos``) — which a referee checks: a hand the scorer refuses
#: is recorded pending with why instead of refused, and an unsure reading is held.
READ_FROM_IMAGES = ("camera", "photo")


@dataclass
class Recorded:
    """A recorded hand and its current revision; ``created`` is False for a repeat post.
    A correction also says which of the report's fields (:data:`REPORT_FIELDS`) it
    ``changed`` from the last revision, and which it left out and so ``kept``."""

    hand: Hand
    revision: HandRevision
    created: bool
    changed: tuple[str, ...] | None = None
    kept: tuple[str, ...] | None = None


def insert_hand(session: Session, table: GameTable, report: HandReport, source: str,
                author: str, number: int | None = None, review_below: float = 0.0) -> Recorded:
    """Record ``report`` as a new hand in this transaction.

    ``review_below``: a camera's win read with a lower score confidence is recorded
    ``pending`` (:func:`tilecam.tables.scoring_bridge.evaluate`).
    ``number`` None takes the next place. A given ``number`` that is already recorded
    with the same content returns that hand (``created`` False: a client re-sending a
    hand it is not sure was stored); with other content it is a :class:`Conflict`. A
    closed or withdrawn table records no new hand (:func:`refuse_closed`).
    """
    lock_sheet(session, table.id)
    hands = hands_of(session, table.id)
    nxt = len(hands) + 1
    if number is not None:
        existing = hands[number - 1] if 1 <= number <= len(hands) else None
        if existing is not None:
            if _same_report(first_revision(session, existing), report, str(table.rules)):
                return Recorded(existing, existing.revisions[-1], False)
            raise Conflict(
                f"hand {number} of table {table.id} is already recorded with other content; "
                "a referee can correct it", "number_taken")
        if number != nxt:
            raise Conflict(f"hand {number} is out of order: the next hand of table "
                           f"{table.id} is {nxt}", "out_of_order")
    number = nxt
    refuse_closed(session, table)
    place = refuse_no_place(table, hands)
    camera = source in READ_FROM_IMAGES
    ev = _evaluate(table, place, report, lenient=camera,
                   review_below=review_below if camera else 0.0)
    rnd = _round_row(session, table.id, place)
    hand = Hand(table_id=table.id, round_id=rnd.id, number=number,
                hand_in_round=place.hand_in_round, dealer=place.dealer, source=source)
    session.add(hand)
    session.flush()  # IntegrityError here when another process took this place
    rev = _revision(hand, 1, "record", table, report, ev, author, None, place)
    session.add(rev)
    session.flush()
    return Recorded(hand, rev, True)


#: The revision a camera adds to a hand it recorded when it later reads the same tiles
#: otherwise, stably (:func:`hold_for_review`).
REVIEW = "review"


def hold_for_review(session: Session, table: GameTable, number: int, reading: str,
                    why: str) -> str | None:
    """Hold hand ``number`` — a camera's record — for a referee, in this transaction: the
    camera read its tiles otherwise (``reading``, notation), stably, after recording it
    (``why``, the camera's words). A new revision (action ``review``, author ``camera``):
    outcome ``pending``, no points moved, its note saying what was read and what that
    reading scores at the hand's place. A referee settles it with a correction: the
    tiles it shows, or no field at all to confirm the record as it is. Returns the note,
    or None when nothing is held: not a camera's record, a referee's revision on it (a
    correction, a void, a false-claim ruling: his word stands), or a reading that scores
    as the record does (the same outcome, total, fans and points) — a settled hand whose
    score that reading would not change is left settled."""
    lock_sheet(session, table.id)
    hands = hands_of(session, table.id)
    if not 1 <= number <= len(hands):
        return None
    hand = hands[number - 1]
    last = hand.revisions[-1]
    if (hand.source != "camera" or last.action not in ("record", "reseat", REVIEW)
            or last.outcome not in ("win", "pending") or last.hand_text is None):
        return None
    before = places_of(table, hands)
    report = replace(report_of(last), hand=reading)
    try:
        ev: Evaluation | None = _evaluate(table, before[number - 1], report, lenient=True)
    except ValueError:
        ev = None
    if ev is not None and last.outcome == "win" and (
            ev.outcome, ev.total, list(ev.settlement), _fans(ev.score)) == (
            last.outcome, last.total, list(last.settlement), _fans(last.score)):
        return None
    if ev is None or ev.total is None:
        scores = "which the scorer does not score"
    else:
        scores = f"which scores {ev.total} ({ev.outcome})"
    note = (f"held for a referee: {why}, {scores}; the record scores "
            f"{'nothing' if last.total is None else last.total} — correct the hand with the "
            "tiles it shows, or with no field to confirm it as recorded")
    rev = next_revision(last, action=REVIEW, author="camera", outcome="pending",
                        settlement=[0, 0, 0, 0], note=joined_notes(last.note, note))
    hand.revisions.append(rev)
    session.flush()
    _reseat(session, table, hands, before, number, "camera")
    return note


def _fans(score: Mapping[str, Any] | None) -> list[str]:
    """A stored score's fans (scoring items), to compare two scores by: each item's
    fields but the sets it was found in (the 5p pair read 8p scores the same 单钓将) and
    its English name (the seventy-sixth session wrote the regional ones in Title Case: a
    record scored before is the same score)."""
    return sorted(repr(sorted((k, repr(v)) for k, v in f.items() if k not in ("sets", "en")))
                  if isinstance(f, Mapping) else repr(f)
                  for f in (score or {}).get("fans") or ())


def _same_report(rev: HandRevision, report: HandReport, rules: str) -> bool:
    from tilecam.tables.scoring_bridge import normalize_hand

    try:  # parsed as the table's rules read it (a Xiamen gold's stand-ins)
        text = normalize_hand(report.hand, rules, report.context) if report.hand else None
    except ValueError:
        return False
    return (rev.outcome in (report.outcome, "pending") and rev.hand_text == text
            and rev.winner == report.winner and rev.discarder == report.discarder
            and rev.context == report.win_context())


def record_hand(sf: sessionmaker[Session], table_id: int, report: HandReport, source: str,
                author: str, number: int | None = None) -> Recorded:
    """Record a reported hand in its own transaction (retried on a race for the place)."""

    def work(session: Session) -> Recorded:
        table = get_table(session, table_id)
        return insert_hand(session, table, report, source, author, number)

    return transaction(sf, work)


def _one_of(hands: Sequence[Hand], table_id: int, number: int) -> Hand:
    """Hand ``number`` of the table's loaded ``hands`` (:func:`hands_of`: 1, 2, … in order)."""
    if not 1 <= number <= len(hands):
        raise NotFound(f"table {table_id} has no hand {number}")
    return hands[number - 1]


#: The fields of a hand's report (:class:`HandReport`) a referee's correction gives:
#: those it leaves out keep the last revision's values (:func:`merged_report`).
REPORT_FIELDS = ("outcome", "hand", "winner", "discarder", "self_drawn", "last_of_kind",
                 "kong", "last_wall_tile", "flowers", "context", "note")
#: What a win has and a drawn hand has not: a correction that makes a win a drawn hand
#: drops those it leaves out instead of keeping them.
WIN_ONLY = ("hand", "winner", "discarder", "self_drawn", "last_of_kind", "kong",
            "last_wall_tile", "flowers")


def merged_report(last: HandReport, report: HandReport,
                  given: Collection[str]) -> HandReport:
    """A correction's report: the fields of ``report`` named in ``given`` laid over
    ``last`` (the hand's last revision, :func:`tilecam.tables.places.report_of`), so that
    a field left out keeps its value — a winner corrected alone keeps the flowers, the
    kong and the table's note. How the win was won is taken as one: a ``discarder``
    given ends a self-draw the correction leaves out, ``self_drawn`` true given drops a
    discarder left out, a winner cleared (null) drops his discarder; a winner given who
    was the last revision's discarder needs the discarder given too (ValueError). A win
    made a drawn hand leaves the win's own fields (:data:`WIN_ONLY`) it does not give at
    their defaults; a drawn hand given a winner, a discarder or a self-draw (and no
    ``outcome``) is a win. The camera's reading and image are always the last revision's.

    >>> won = HandReport(hand="123m456m789m234p55s", winner="E", discarder="S", flowers=2)
    >>> merged_report(won, HandReport(winner="W"), {"winner"}).flowers
    2
    >>> merged_report(won, HandReport(outcome="draw"), {"outcome"}).winner is None
    True
    """
    merged = replace(last, **{name: getattr(report, name) for name in REPORT_FIELDS
                              if name in given})
    if "outcome" not in given and merged.outcome == "draw" and (
            report.winner is not None or report.discarder is not None or report.self_drawn):
        merged = replace(merged, outcome="win")  # a drawn hand given its winner: a win
    # how the win was won is one thing: a discarder given ends a self-draw left out, a
    # self-draw given a discarder left out, a winner cleared his discarder left out
    if "discarder" in given and report.discarder is not None and "self_drawn" not in given:
        merged = replace(merged, self_drawn=False)
    if "self_drawn" in given and report.self_drawn and "discarder" not in given:
        merged = replace(merged, discarder=None)
    if "winner" in given and report.winner is None and "discarder" not in given:
        merged = replace(merged, discarder=None)
    if ("discarder" not in given and merged.discarder is not None
            and merged.discarder == merged.winner):
        raise ValueError(f"the winner given, {merged.winner}, was the discarder of the hand's "
                         "last revision: give the discarder too (or self_drawn true)")
    if merged.outcome == "draw" and last.outcome != "draw":
        bare = HandReport()
        merged = replace(merged, **{name: getattr(bare, name) for name in WIN_ONLY
                                    if name not in given})
    return merged


def _report_value(report: HandReport, name: str, rules: str) -> Any:
    """A report field as a correction compares it (a hand in the scorer's notation, parsed
    as the table's ``rules`` read it under the report's context)."""
    value = getattr(report, name)
    if name == "hand" and value:
        from tilecam.tables.scoring_bridge import normalize_hand

        try:
            return normalize_hand(value, rules, report.context)
        except ValueError:
            return value
    if name == "context":
        return dict(value)
    return value


#: The outcomes of a referee's ruling that a correction changes only when it says what
#: the hand becomes: its ``outcome``, or the tiles of a win (:func:`refuse_unstated_outcome`).
RULED = ("void", flow.FALSE_CLAIM)


def refuse_unstated_outcome(table_id: int, number: int, outcome: str) -> None:
    """Refuse (:class:`Conflict`, 409) a correction that says neither ``outcome`` nor the
    hand's tiles (``hand``) on a hand whose last revision is ``void`` or ``false_claim``
    (:data:`RULED`): laid over the record's content it would score the hand again — a
    void hand scoring, a false claim's ruling and its penalty undone — when the referee
    only gave a reason or a detail (``flowers``, a winner). Such a hand keeps its state
    unless the correction says what it becomes: ``"outcome": "win"`` (the rest as
    recorded) or ``"draw"``, or the hand as won (``hand``: the tiles, as a correction of
    the fifty-ninth to seventy-third sessions gave them, which always made a win). A
    reason alone on a void or ruled hand has nothing to record (the void's and the
    ruling's reasons are in the history)."""
    if outcome not in RULED:
        return
    what = ("void" if outcome == "void" else
            "ruled a false claim (its penalty stands)")
    undo = ("reinstates it" if outcome == "void" else "undoes the ruling and its penalty")
    raise Conflict(
        f"hand {number} of table {table_id} is {what}: a correction that gives neither "
        f"\"outcome\" nor the hand's tiles would score it again, so it is refused — give "
        f"\"outcome\": \"win\" (the rest as recorded) or \"draw\", or the \"hand\" as "
        f"won, which {undo}; the hand keeps its state otherwise", "outcome_unstated")


def correct_hand(sf: sessionmaker[Session], table_id: int, number: int, report: HandReport,
                 author: str, reason: str | None,
                 given: Collection[str] | None = None) -> Recorded:
    """A referee's correction: a new revision of hand ``number`` (the old ones stay).

    ``given``: the report's fields the referee gave (:data:`REPORT_FIELDS`); those left
    out keep the last revision's values (:func:`merged_report`). None: ``report`` is the
    hand's full new content, every field as it says. A void hand or a false claim's
    record is corrected only by a correction that gives ``outcome`` or ``hand``
    (:func:`refuse_unstated_outcome`, 409). The :class:`Recorded` says which fields the
    correction ``changed`` (``outcome`` whenever the revision's outcome differs from the
    last one's: void → win, false_claim → win, pending → win, win → pending) and which it
    ``kept`` (left out and unchanged)."""
    if reason is not None and not reason.strip():
        raise ValueError("a correction needs a reason")

    def work(session: Session) -> Recorded:
        table = get_table(session, table_id)
        lock_sheet(session, table_id)
        hands = hands_of(session, table_id)
        hand = _one_of(hands, table_id, number)
        last = hand.revisions[-1]
        if given is not None and "outcome" not in given and (
                "hand" not in given or report.hand is None):
            refuse_unstated_outcome(table_id, number, last.outcome)
        was = report_of(last)
        if given is not None:
            report_ = merged_report(was, report, given)
        elif report.recognized is None and last.recognized is not None:
            report_ = _with(report, recognized=last.recognized, image_ref=last.image_ref)
        else:
            report_ = report
        before = places_of(table, hands)
        # a correction left pending keeps why (not a legal win, a seat unknown), and the
        # report's note, beside the referee's reason
        ev = _evaluate(table, before[number - 1], report_)
        rev = _revision(hand, last.revision + 1, "correct", table, report_, ev, author,
                        reason, before[number - 1])
        hand.revisions.append(rev)
        session.flush()
        _reseat(session, table, hands, before, number, author)
        if last.outcome == flow.FALSE_CLAIM and rev.outcome != flow.FALSE_CLAIM:
            _rebook_offences(table, hands, f"hand {number}'s false-claim ruling undone by "
                             f"a correction (by {author})", _in_hands_of(hands, number))
        # the outcome as recorded (void, false_claim, pending, win, draw), not as the
        # reports read it: a report has no void, false claim or held win
        changed = tuple(name for name in REPORT_FIELDS
                        if (name == "outcome" and last.outcome != rev.outcome)
                        or _report_value(was, name, str(table.rules))
                        != _report_value(report_, name, str(table.rules)))
        # left out and left as they were: a field the correction changed by itself (a
        # self-draw ended by a discarder given, a win's fields dropped by a draw) is not kept
        kept = tuple(name for name in REPORT_FIELDS
                     if given is not None and name not in given and name not in changed)
        return Recorded(hand, rev, True, changed, kept)

    return transaction(sf, work)


def _with(report: HandReport, **changes: Any) -> HandReport:
    return replace(report, **changes)


def void_hand(sf: sessionmaker[Session], table_id: int, number: int, author: str,
              reason: str) -> Recorded:
    """A referee voids hand ``number``: it keeps its place and scores nothing from now on."""
    if not reason.strip():
        raise ValueError("voiding a hand needs a reason")

    def work(session: Session) -> Recorded:
        table = get_table(session, table_id)
        lock_sheet(session, table_id)
        hands = hands_of(session, table_id)
        before = places_of(table, hands)
        hand = _one_of(hands, table_id, number)
        last = hand.revisions[-1]
        if last.outcome == "void":
            raise Conflict(f"hand {number} of table {table_id} is already void", "already_void")
        if last.outcome == flow.FALSE_CLAIM:
            raise Conflict(f"hand {number} of table {table_id} is ruled a false claim, which "
                           "takes no place of the deal, and a void would give it one: to "
                           "undo the ruling, correct it with the hand as claimed "
                           "(\"outcome\": \"win\")", "false_claim_ruled")
        rev = next_revision(last, action="void", author=author, outcome="void",
                            settlement=[0, 0, 0, 0], note=reason.strip())
        hand.revisions.append(rev)
        session.flush()
        _reseat(session, table, hands, before, number, author)
        return Recorded(hand, rev, True)

    return transaction(sf, work)


def rule_false_claim(sf: sessionmaker[Session], table_id: int, number: int, author: str,
                     reason: str, kind: str | None = None,
                     points: int | None = None) -> Recorded:
    """A referee rules hand ``number`` — a win declared — a false claim (错和, 诈和) where
    the table's rules play the hand on after one (MCR seed 003, Zhenjiang seed 001): a
    new revision, outcome ``false_claim``, whose points are the claimant's penalty
    (``kind`` and ``points``; by default the kind :func:`claim_kind` tells and the rule
    set's points, :func:`default_penalty`). The record then takes no place of the deal:
    the next record is the same hand played on, its claimant barred from winning it
    (停和), and every later record is scored again at its place (:func:`_reseat`). A
    correction giving ``outcome`` or the hand as claimed undoes the ruling with its
    penalty (the record is a hand of the deal again; one giving neither is refused,
    :func:`refuse_unstated_outcome`);
    a void is refused (:func:`void_hand`: it would give the record a place)."""
    import scoring

    if not reason.strip():
        raise ValueError("ruling a false claim needs a reason")

    def work(session: Session) -> Recorded:
        table = get_table(session, table_id)
        rule_set = scoring.get_rule_set(table.rules)
        if not deal_of(table).goes_on_after_false_claim:
            raise ValueError(f"under {table.rules} a false claim does not leave the hand to "
                             f"be played on: {rule_set.false_claim}")
        lock_sheet(session, table_id)
        hands = hands_of(session, table_id)
        before = places_of(table, hands)
        hand = _one_of(hands, table_id, number)
        last = hand.revisions[-1]
        if last.outcome == flow.FALSE_CLAIM:
            raise Conflict(f"hand {number} of table {table_id} is already ruled a false claim "
                           "(to change its penalty, correct it with the hand as claimed and "
                           "rule again: the correction gives \"outcome\": \"win\")",
                           "already_ruled")
        if last.outcome not in ("win", "pending"):
            raise Conflict(f"hand {number} is {last.outcome}: only a declared win can be "
                           "ruled a false claim (correct it first)", "not_a_win")
        if last.winner is None:
            raise ValueError(f"the claimant's seat of hand {number} is not known: correct "
                             "the hand with its winner first")
        kinds = rule_set.false_claim_kinds
        kind_, ruling = _claim_penalty(table, kinds, last, number, kind)
        pts = points if points is not None else default_penalty(table, kind_)[0]
        place = before[number - 1]
        winds = place.seat_winds()
        deltas = _claim_deltas(winds[last.winner], pts)
        if (largest := max(abs(d) for d in deltas)) > MOST_POINTS:
            raise ValueError(f"a {kind_} penalty of {pts:,} points moves {largest:,} from one "
                             f"player, more than the sheet records ({MOST_POINTS:,})")
        why = f" — {ruling.why}" if ruling else ""
        note = (f"{reason.strip()}; ruled a false claim: {kinds[kind_]} ({kind_}), {pts} "
                f"to each other player{why}; the hand is played on at this place and seat "
                f"{last.winner} may not win it (停和)")
        rev = next_revision(last, action="false_claim", author=author,
                            outcome=flow.FALSE_CLAIM, settlement=deltas, seats=winds, note=note)
        hand.revisions.append(rev)
        session.flush()
        _reseat(session, table, hands, before, number, author)
        _rebook_offences(table, hands, f"hand {number} ruled a false claim (by {author}): "
                         f"the hand played on after it is the same hand",
                         _in_hands_of(hands, number))
        return Recorded(hand, rev, True)

    return transaction(sf, work)


def _claim_deltas(claimant: int, points: int) -> list[int]:
    """A ruled false claim's points by player position: the claimant (a position) pays
    ``points`` to each other player (错和 and 诈和 alike); 0 where a table sets its penalty
    to 0 (Zhenjiang ``false_win``): a ruling without points."""
    return penalty_deltas("wrong_win", claimant, points, None) if points else [0] * 4


def _claim_penalty(table: GameTable, kinds: Mapping[str, str], last: HandRevision,
                   number: int, kind: str | None) -> tuple[str, Ruling | None]:
    """The penalty kind a ruling of hand ``number`` (its current revision ``last``)
    books: the referee's ``kind`` (one of the rule set's ``kinds``), else the one its
    record tells (:func:`claim_kind`, with why); ValueError naming the kinds to choose
    from when neither is there."""
    if kind is not None:
        if kind not in kinds:
            raise ValueError(f"a false claim under {table.rules} draws {' or '.join(kinds)}, "
                             f"not {kind!r}")
        return kind, None
    ruling = claim_kind(table.rules, last.hand_text, last.total, last.legal, last.version,
                        last.context)
    if ruling is None:
        why = ("it is a legal win, which is a false claim only on the referee's word"
               if last.legal else "its record does not tell which (no hand, or tiles the "
               "scorer refused for another reason than the shape)")
        raise ValueError(f"name the penalty ({' or '.join(kinds)}) to rule hand {number} a "
                         f"false claim: {why}")
    return ruling.kind, ruling


def _reseat(session: Session, table: GameTable, hands: Sequence[Hand],
            before: Sequence[flow.Place], changed: int, author: str,
            since: int | None = None, cause: str | None = None) -> list[int]:
    """After hand ``changed`` got a new revision, score again, in sheet order, every later
    hand whose place the change moved (who deals it, and so which player holds each seat
    wind; the dealer's streak; the chips the players have before it, which a hand scored
    again can move in turn; who may not win it, where that is its winner): a new
    revision each (action ``reseat``), the report as it stood. ``before``: the places the
    hands were scored at. A pending hand stays pending (a referee settles it); a void one
    stays void. ``hands``: the table's hands, hand ``changed``'s new revision among its
    revisions. A referee's 停和 or its void moves no hand but who may not win: ``since``
    is then the first hand to look at (default: the one after ``changed``) and ``cause``
    the note where that is what moved. Returns the hands scored again."""
    names = [p.name for p in table.players]
    rescored: list[int] = []
    first = changed + 1 if since is None else since
    walk = PlaceWalk(table)  # each hand's place from the hands before it, as they now are
    for hand in hands:
        old, new = before[hand.number - 1], walk.place()
        if (hand.number >= first and hand.revisions[-1].outcome != "void"
                and moved(old, new) and _matters(hand.revisions[-1], old, new)):
            why = (cause if cause is not None and old.barred != new.barred
                   else why_moved(changed, old, new, names))
            note = f"{why}; scored again"
            hand.revisions.append(_rescored(session, table, hand, old, new, note, author))
            rescored.append(hand.number)
        walk.advance(hand)  # the hands after it read its current revision (its chips)
    session.flush()
    return rescored


def _matters(last: HandRevision, old: flow.Place, new: flow.Place) -> bool:
    """Whether a record whose place moved from ``old`` to ``new`` scores otherwise: any
    move but one of who may not win the hand alone, which matters only to a win (or a
    held one) of a player barred at one place and not at the other."""
    if moved(replace(old, barred=new.barred), new):
        return True
    return (last.outcome in ("win", "pending") and last.winner is not None
            and (last.winner in old.barred) != (last.winner in new.barred))


def _rescored(session: Session, table: GameTable, hand: Hand, old: flow.Place,
              new: flow.Place, note: str, author: str) -> HandRevision:
    """Hand's ``reseat`` revision: its last report, scored at place ``old``, scored again
    at place ``new``; a pending hand stays pending (a win held only because its winner
    was barred after a false claim says it may count now), one the scorer now refuses
    becomes pending with why; a false claim keeps its ruling and penalty."""
    last = hand.revisions[-1]
    if flow.session_over(deal_of(table), new):
        note += " — it now lies past the end of the session"
    if last.outcome == flow.FALSE_CLAIM:  # the same penalty on whoever holds the seat now
        assert last.winner is not None  # a ruling needs the claimant's seat
        pts = max(int(d) for d in last.settlement)
        winds = new.seat_winds()
        deltas = _claim_deltas(winds[last.winner], pts)
        ruling = _ruling_of(session, hand)
        return next_revision(last, action="reseat", author=author, seats=winds,
                             settlement=deltas, note=f"{note}; {ruling.note}")
    report = report_of(last)
    try:
        ev = _evaluate(table, new, report, lenient=hand.source in READ_FROM_IMAGES)
    except ValueError as exc:
        ev = Evaluation("pending", last.hand_text, None, None, None, [0, 0, 0, 0],
                        f"the scorer refused this hand: {exc}")
    if last.outcome == "pending" and ev.outcome == "win":
        held = last.note
        if last.winner in old.barred and last.winner not in new.barred:
            held = (f"seat {last.winner} is no longer barred from winning this hand (no false "
                    "claim or bar before it now): a referee confirms the win (a correction) "
                    "before it counts")
        ev = Evaluation("pending", ev.hand, ev.total, ev.legal, ev.score, [0, 0, 0, 0], held)
    return _revision(hand, last.revision + 1, "reseat", table, report, ev, author, note, new)


def hands_of(session: Session, table_id: int) -> list[Hand]:
    """The table's hands in sheet order, each with its **latest revision only** loaded:
    ``hand.revisions`` is ``[current]`` — all that the place walk, the standings, the
    sheet, the CSV and a hand's current view read, and what a write appends to (each
    hand's content in ``revisions[-1]``, as before). A hand's earlier revisions are loaded
    only where they are shown or needed (:func:`load_history`, :func:`first_revision`,
    :func:`_ruling_of`): a referee's correction of an early hand of a long sheet gives
    most later hands a revision more, and loading and decoding every revision's JSON on
    each read made every request of such a sheet cost in proportion to its history
    (0.3-0.7 s at 400 hands and 2,500 revisions, soak review of session 73)."""
    hands = list(session.scalars(
        select(Hand).where(Hand.table_id == table_id).order_by(Hand.number)))
    top = (select(HandRevision.hand_id, func.max(HandRevision.revision).label("revision"))
           .join(Hand, Hand.id == HandRevision.hand_id).where(Hand.table_id == table_id)
           .group_by(HandRevision.hand_id).subquery())
    latest = {rev.hand_id: rev for rev in session.scalars(
        select(HandRevision).join(top, (HandRevision.hand_id == top.c.hand_id)
                                  & (HandRevision.revision == top.c.revision)))}
    for hand in hands:
        set_committed_value(hand, "revisions", [latest[hand.id]])
    return hands


def load_history(session: Session, hand: Hand) -> Hand:
    """``hand`` with every revision loaded in ``hand.revisions`` (oldest first), where its
    history is shown (``GET …/hands/{n}``, the answer to a referee's write)."""
    set_committed_value(hand, "revisions", list(session.scalars(
        select(HandRevision).where(HandRevision.hand_id == hand.id)
        .order_by(HandRevision.revision))))
    return hand


def first_revision(session: Session, hand: Hand) -> HandRevision:
    """The hand's first revision (its record as reported: what a repeat post of the hand
    is compared with)."""
    first = session.scalars(select(HandRevision).where(HandRevision.hand_id == hand.id)
                            .order_by(HandRevision.revision).limit(1)).first()
    assert first is not None  # a hand is recorded with its first revision
    return first


def _ruling_of(session: Session, hand: Hand) -> HandRevision:
    """The revision that ruled the hand a false claim last (action ``false_claim``): the
    loaded ones first (a ruling of this transaction), else the database's."""
    loaded = next((r for r in reversed(hand.revisions) if r.action == "false_claim"), None)
    if loaded is not None:
        return loaded
    ruling = session.scalars(
        select(HandRevision).where(HandRevision.hand_id == hand.id,
                                   HandRevision.action == "false_claim")
        .order_by(HandRevision.revision.desc()).limit(1)).first()
    assert ruling is not None  # a false claim's revisions follow its ruling
    return ruling


# --- penalties -----------------------------------------------------------------------------


def add_penalty(sf: sessionmaker[Session], table_id: int, player: int, kind: str,
                points: int | None, hand_number: int | None, reason: str | None,
                author: str, money: bool | None = None, to: int | None = None,
                request_id: str | None = None) -> tuple[Penalty, bool]:
    """Record a penalty. MCR defaults: 错和 10 and 诈和 20 to each other player; a
    ``payment`` (包赔) goes from ``player`` to player ``to`` alone, its points given; a
    ``deduction`` takes one of the rule set's fixed amounts where it has them (MCR:
    :attr:`scoring.rulesets.base.RuleSet.deductions`).

    ``bar`` (停和), ``warning`` (警告) and ``disqualification`` (停赛: the player takes no
    rank in the standings; once per player) move no points. A bar names the record of the
    hand (``hand_number``: recorded, or the hand in play) from which its player may not
    win that hand; a win of theirs recorded there is scored again and held ``pending``
    (:func:`_reseat`), as is one recorded later.

    ``money``: the penalty is money paid apart from the points (counted in the
    standings' ``money``, not the ranked total); None: as the rule set pays it (Xiamen
    诈胡 in money, :func:`default_penalty`), points otherwise.

    ``request_id``: the client's name for this request. Sent again, it finds the penalty
    it booked (:attr:`Penalty.request_id`; also when it has been made void since)
    instead of booking another — for the same content (player, kind, hand, reason and
    the points, receiver and money given); other content under the same name is a
    :class:`Conflict`.
    Returns the penalty and whether this call booked it.
    """

    def work(session: Session) -> tuple[Penalty, bool]:
        table = get_table(session, table_id)
        # one writer at a time: a bar scores recorded hands again, an offence's step and a
        # second disqualification follow from the penalties booked before
        lock_sheet(session, table_id)
        if request_id is not None:
            booked = next((p for p in table.penalties if p.request_id == request_id), None)
            if booked is not None:
                paid = payment_receiver(booked.kind, booked.deltas)
                if ((booked.player, booked.kind, booked.hand_number, booked.reason)
                        != (player, kind, hand_number, reason)
                        or (points is not None and points != booked.points)
                        or (to is not None and booked.kind == "payment" and to != paid)
                        or (money is not None and money != bool(booked.money))):
                    raise Conflict(
                        f"request_id {request_id!r} booked penalty {booked.id} already (a "
                        f"{booked.kind} of {table.players[booked.player].name}, hand "
                        f"{booked.hand_number}): give another request_id for another "
                        "penalty", "request_id_taken")
                return booked, False
        if kind in NO_POINTS or kind in REPEAT_OFFENCES:
            pts, in_money = _no_points(table, kind, points, money, hand_number)
        else:
            pts, in_money = _penalty_points(table, kind, points, money)
        hands: list[Hand] = []
        if hand_number is not None:
            # the sheet's records (more than the session's places where false claims took
            # none), and the hand in play unless the session is over
            hands = hands_of(session, table_id)
            most = len(hands) + (next_place_of(table, hands) is not None)
            if not 1 <= hand_number <= most:
                raise ValueError(
                    f"hand {hand_number} is not on the sheet: it has {len(hands)} hand(s)"
                    + (f", and hand {most} is in play" if most > len(hands) else
                       ", and the session is over"))
            _not_ruled_already(hands, hand_number, player, kind)
            if kind in REPEAT_OFFENCES:  # the step of this repeat in the hand
                pts = _offence_step(table, kind, player, hands, hand_number)
        deltas = penalty_deltas(kind, player, pts, to)
        if (largest := max(abs(d) for d in deltas)) > MOST_POINTS:
            raise ValueError(f"a {kind} penalty of {pts:,} points moves {largest:,} from one "
                             f"player, more than the sheet records ({MOST_POINTS:,}): check "
                             f"the table's settings {table.rule_settings or {}} or give the "
                             "points")
        before = places_of(table, hands) if kind == "bar" else []
        _not_twice(table, kind, player, hands, hand_number, before)
        pen = Penalty(table_id=table_id, player=player, hand_number=hand_number, kind=kind,
                      points=pts, deltas=deltas, money=in_money, reason=reason,
                      author=author, request_id=request_id)
        table.penalties.append(pen)
        session.flush()
        if kind == "bar" and hand_number is not None:
            why = (f"{table.players[player].name} may not win this hand from hand "
                   f"{hand_number} on (停和, penalty {pen.id}"
                   + (f": {reason.strip()}" if reason and reason.strip() else "") + ")")
            _reseat(session, table, hands, before, hand_number, author, since=hand_number,
                    cause=why)
        return pen, True

    return transaction(sf, work)


def _not_twice(table: GameTable, kind: str, player: int, hands: Sequence[Hand],
               hand_number: int | None, places: Sequence[flow.Place]) -> None:
    """Refuse (:class:`Conflict`) a second disqualification of a player not made void,
    and a bar on a player who may not win that hand already at one of its records (a
    bar, or their false claim: ``places`` of the sheet's records)."""
    name = table.players[player].name
    if kind == "disqualification" and any(
            p.kind == kind and p.player == player and p.voided_at is None
            for p in table.penalties):
        raise Conflict(f"{name} is disqualified already (停赛)", "already_disqualified")
    if kind == "bar" and hand_number is not None and any(
            places[n - 1].wind_of(player) in places[n - 1].barred
            for n in hand_records(hands, hand_number)):
        raise Conflict(f"{name} may not win hand {hand_number} already (停和: a false claim "
                       "or a bar in it)", "already_barred")


def _no_points(table: GameTable, kind: str, points: int | None, money: bool | None,
               hand_number: int | None) -> tuple[int, bool]:
    """A ruling the referee gives no points (``bar``, ``warning``, ``disqualification``; a
    repeat offence, whose points the sheet works out: :func:`_offence_step`): 0 points for
    now, not money; ValueError when points or money are given, when a bar or an offence
    names no hand, or when the table's rules have no such offence."""
    import scoring

    rule_set = scoring.get_rule_set(table.rules)
    if kind in REPEAT_OFFENCES and kind not in rule_set.repeat_offences:
        raise ValueError(f"under {table.rules} no penalty grows with repeats (no {kind}): "
                         "book a warning or a deduction")
    name = NO_POINTS.get(kind) or rule_set.repeat_offences[kind]
    if points is not None or money:
        steps = ", ".join(str(p) for p in rule_set.repeat_offence_points[1:])
        why = (f"the sheet books the step of the repeat in the hand (warning, then {steps} …)"
               if kind in REPEAT_OFFENCES else "book a deduction or a payment apart")
        raise ValueError(f"a {kind} ({name}) takes no points: {why}")
    if hand_number is None and kind not in ("warning", "disqualification"):
        raise ValueError(f"a {kind} ({name}) names the hand it happened in (hand)")
    return 0, False


def _offence_step(table: GameTable, kind: str, player: int, hands: Sequence[Hand],
                  hand_number: int) -> int:
    """The points of ``player``'s offence of ``kind`` in the hand of record
    ``hand_number``: the step after the ones the sheet holds in that hand (seed 003:
    warning, 5, 10, 20, 以此类推)."""
    import scoring

    count = 1 + earlier_offences(table.penalties, kind, player,
                                 hand_records(hands, hand_number))
    return offence_points(scoring.get_rule_set(table.rules), count)


def _penalty_points(table: GameTable, kind: str, points: int | None,
                    money: bool | None) -> tuple[int, bool]:
    """A penalty's points and whether they are money apart from the points: the
    referee's ``points`` (a deduction one of the rule set's fixed amounts, where it has
    them) or the rule set's default (:func:`default_penalty`); ValueError naming what is
    wrong."""
    import scoring

    default_money = False
    if points is None:
        pts, default_money = default_penalty(table, kind)
    else:
        pts = points
    in_money = default_money if money is None else money
    if default_money and not in_money:
        raise ValueError(f"give the points of a {kind} penalty paid in chips: the rules' "
                         f"{pts} is money paid apart from the chips")
    if in_money and not money_apart(str(table.rules)):
        raise ValueError(f"a {table.rules} table keeps no money apart from its points: "
                         "give the penalty in points")
    fixed = scoring.get_rule_set(table.rules).deductions
    if kind == "deduction" and fixed and pts not in fixed:
        raise ValueError(f"a deduction (罚分) under {table.rules} takes "
                         f"{', '.join(map(str, fixed[:-1]))} or {fixed[-1]} points, not {pts}")
    return pts, in_money


def _not_ruled_already(hands: Sequence[Hand], number: int, player: int, kind: str) -> None:
    """Refuse (:class:`Conflict`) a 错和/诈和 penalty on the claimant of hand ``number``
    when that record is ruled a false claim: the ruling booked the penalty already."""
    if kind not in ("wrong_win", "false_win") or number > len(hands):
        return
    rev = hands[number - 1].revisions[-1]
    if rev.outcome == flow.FALSE_CLAIM and rev.winner is not None and rev.seats \
            and int(rev.seats[rev.winner]) == player:
        raise Conflict(f"hand {number} is ruled a false claim, which booked this player's "
                       "penalty already: correct the ruling instead of adding another",
                       "false_claim_ruled")


def default_penalty(table: GameTable, kind: str) -> tuple[int, bool]:
    """What each other player gets for a penalty when the referee gives no points, and
    whether it is money paid apart from the points.

    MCR (seed 003): 错和 10, 诈和 20 points. A rule set with a ``false_win`` setting
    (Zhenjiang 诈胡: 6 base chips to each) uses it, times ``base_chip`` when it has one; one
    with ``false_win_money`` (Xiamen 诈胡: half of ``chip_stack`` to each unless the
    table sets it, 50 at the default stake, outside the chips, 课外) pays that in money.
    Otherwise the referee must give the points (ValueError). Settings the scorer now
    refuses are :class:`RulesError` (400 ``invalid_context``: :func:`refused_settings`;
    before the seventy-fifth session's review a ``HandError``, 400 ``invalid_hand``).
    """
    if table.rules == "mcr" and kind in MCR_PENALTY_POINTS:
        return MCR_PENALTY_POINTS[kind], False
    if kind == "false_win":
        import scoring

        rule_set = scoring.get_rule_set(table.rules)
        try:
            resolved = rule_set.resolve_settings(table.rule_settings or {})
        except scoring.HandError as exc:  # settings stored before the scorer refused them
            raise refused_settings(table) or RulesError(str(exc)) from None
        if "false_win" in resolved:
            return int(resolved["false_win"]) * int(resolved.get("base_chip", 1)), False
        if "false_win_money" in resolved:
            return int(resolved["false_win_money"]), True
    if kind == "payment":
        raise ValueError("give the points of a payment (what the player pays the other)")
    raise ValueError(f"give the penalty points for a {kind!r} penalty on a {table.rules} table")


def void_penalty(sf: sessionmaker[Session], table_id: int, penalty_id: int, author: str,
                 reason: str) -> Penalty:
    """Mark a penalty void (it stays in the sheet, counted as zero). Voiding a ``bar``
    scores its hand's records again (:func:`_reseat`): a win held because of it stays
    pending for a referee to confirm."""
    if not reason.strip():
        raise ValueError("voiding a penalty needs a reason")

    def work(session: Session) -> Penalty:
        lock_sheet(session, table_id)  # before the penalty is read: one void of it wins
        pen = session.get(Penalty, penalty_id)
        if pen is None or pen.table_id != table_id:
            raise NotFound(f"table {table_id} has no penalty {penalty_id}")
        if pen.voided_at is not None:
            raise Conflict(f"penalty {penalty_id} is already void", "already_void")
        bar = pen.kind == "bar" and pen.hand_number is not None
        if bar or pen.kind in REPEAT_OFFENCES:
            table = get_table(session, table_id)
            hands = hands_of(session, table_id)
            before = places_of(table, hands) if bar else []
        pen.voided_at = utcnow()
        pen.void_reason = f"{reason.strip()} (by {author})"
        session.flush()
        if pen.kind in REPEAT_OFFENCES and pen.hand_number is not None:
            # the player's later ones of the kind in that hand step down
            first = hand_records(hands, pen.hand_number).start
            _rebook_offences(
                table, hands, f"penalty {pen.id}, an earlier {pen.kind}, made void (by "
                f"{author}: {reason.strip()})",
                lambda q: (q.kind, q.player) == (pen.kind, pen.player) and q.id > pen.id
                and q.hand_number is not None
                and hand_records(hands, q.hand_number).start == first)
        if bar:
            assert pen.hand_number is not None
            why = (f"the 停和 of {table.players[pen.player].name} from hand "
                   f"{pen.hand_number} (penalty {pen.id}) is void: {reason.strip()}")
            _reseat(session, table, hands, before, pen.hand_number, author,
                    since=pen.hand_number, cause=why)
        return pen

    return transaction(sf, work)


def _rebook_offences(table: GameTable, hands: Sequence[Hand], cause: str,
                     moved: Callable[[Penalty], bool]) -> list[Penalty]:
    """Book again the repeat offences whose step ``cause`` changed — an earlier one made
    void, a false claim ruled or undone, which changes which records are one hand
    (:func:`tilecam.tables.offences.rebooked_steps`), of those ``moved`` takes (the ones
    the event can move): their new points and deltas, and a line in ``rebooked`` with the
    points from and to and why. ``hands``: the table's records in sheet order with their
    revisions as they now are. Returns those changed."""
    import scoring

    changed = rebooked_steps(scoring.get_rule_set(table.rules), table.penalties, hands,
                             moved)
    for pen, count, points in changed:
        line = (f"{pen.points} → {points} points (offence {count} of its kind by this "
                f"player in the hand): {cause}")
        pen.rebooked = f"{pen.rebooked}\n{line}" if pen.rebooked else line
        pen.points, pen.deltas = points, penalty_deltas(pen.kind, pen.player, points)
    return [pen for pen, _, _ in changed]


def _in_hands_of(hands: Sequence[Hand], number: int) -> Callable[[Penalty], bool]:
    """Whether a penalty names a record of the hand (or hands) record ``number`` and the
    one after it now belong to: what a false-claim ruling at ``number``, or its undoing,
    joins or parts."""
    records = {*hand_records(hands, number), *hand_records(hands, number + 1)}
    return lambda q: q.hand_number in records


def penalties_of(session: Session, table_id: int) -> list[Penalty]:
    return list(session.scalars(
        select(Penalty).where(Penalty.table_id == table_id).order_by(Penalty.id)
    ))


# --- camera frames -------------------------------------------------------------------------


def camera_state(session: Session, table_id: int) -> CameraState:
    """The table's camera state, locked for update (PostgreSQL; SQLite locks the database)."""
    state = session.scalar(
        select(CameraState).where(CameraState.table_id == table_id).with_for_update()
    )
    if state is None:
        state = CameraState(table_id=table_id, streak=0, empty_streak=0, frames_seen=0)
        session.add(state)
        session.flush()
    return state
