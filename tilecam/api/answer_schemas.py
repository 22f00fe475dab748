"""The answers of the score, event and table endpoints, as pydantic models (v2).

Documentation and checking only: no route validates, filters or converts what it answers
with these models — the routes answer their views' JSON (:mod:`tilecam.tables.views`,
:mod:`tilecam.tables.standings`, ``Score.to_dict()``) as it is, and
:mod:`tilecam.api.openapi` publishes these models as those answers' schemas in
``GET /openapi.json`` and ``/docs``. ``tests/tilecam/test_openapi_answers.py`` checks
real answers against the published schemas and against these models.

Conventions, as a client reads them:

- a field typed ``X | None`` is always present and may be ``null``;
- a field made with :func:`absent` is left out of the answer where it does not apply
  (it is never ``null``); its description says when it is there;
- every other field is always present;
- ``extra="allow"``: a later version may add fields; a client ignores the ones it does
  not know.

>>> PaymentOut.model_validate({"payer": "left", "amount": 36, "bonus": 50}).bonus
50
>>> PaymentOut.model_validate({"payer": "discarder", "amount": 40}).bonus is None
True
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.json_schema import SkipJsonSchema

Wind = Literal["E", "S", "W", "N"]
#: What a penalty's ``kind`` may be (as ``POST /v1/tables/{id}/penalties`` takes it).
PenaltyKind = Literal["wrong_win", "false_win", "deduction", "payment", "bar", "warning",
                      "disqualification", "empty_claim", "early_draw", "slow_pung"]
#: A hand revision's ``outcome``.
Outcome = Literal["win", "draw", "pending", "void", "false_claim"]
#: Why a hand revision exists.
Action = Literal["record", "correct", "void", "false_claim", "reseat", "review"]

#: Player name → a whole number (points, chips or money), one entry per player.
PER_PLAYER = "player name → {what}, one entry for each of the table's four players"
TIME = "ISO 8601 date and time with its UTC offset"


def _no_default(schema: dict[str, Any]) -> None:
    """Drop the ``default: null`` pydantic writes for a field that is left out instead."""
    schema.pop("default", None)


def absent(description: str, **extra: Any) -> Any:
    """A field the answer leaves out (never ``null``) where it does not apply: optional in
    the schema, with neither ``null`` nor a default; declared ``X | SkipJsonSchema[None]``
    so the model can say "not there" as ``None``."""
    return Field(None, description=description, json_schema_extra=_no_default, **extra)


def _own_examples(schema: dict[str, Any], model: type[Any]) -> None:
    """Publish a model's own ``EXAMPLES`` (not those of a model it extends, which would not
    fit it) as its schema's ``examples``."""
    own = vars(model).get("EXAMPLES")
    if own:
        schema["examples"] = own


class Answer(BaseModel):
    """Base of the answer models: fields a later version adds are allowed (and kept in
    ``model_extra``, which the answer tests require to be empty). A model's ``EXAMPLES``
    are published with its schema."""

    model_config = ConfigDict(extra="allow", json_schema_extra=_own_examples)


# --- scores ----------------------------------------------------------------------------


class FanOut(Answer):
    """One scoring element of a score: a fan (MCR) or a regional rule set's item (底,
    金, 自摸 …)."""

    zh: str = Field(description="its Chinese name", examples=["清龙"])
    en: str = Field(description="its English name", examples=["Pure Straight"])
    value: int = Field(description="points of one occurrence")
    count: int = Field(description="occurrences")
    sets: list[list[str]] = Field(description="for each occurrence, the sets or tiles "
                                  "(notation such as \"567p\") that form it; may be empty",
                                  examples=[[["123m", "456m", "789m"]]])


class PaymentOut(Answer):
    """One payment to the winner."""

    payer: str = Field(description="who pays: a seat seen from the winner (left, "
                       "opposite, right), or a role (discarder; other: each other loser)")
    amount: int = Field(description="what the payer pays, in the settlement's unit; "
                        "negative where the claimant of a false win pays (诈胡)")
    bonus: int | SkipJsonSchema[None] = absent(
        "Xiamen only: bonus money paid on top of the chips, outside them (课外); negative "
        "where a false win's claimant pays it")


class SettlementOut(Answer):
    """Who pays the winner what: the rule set's own settlement of the score."""

    EXAMPLES: ClassVar[list[dict[str, Any]]] = [
        {"unit": "points", "winner": 99, "note": "self-drawn: each other player pays 8 + total",
         "payments": [{"payer": p, "amount": 33} for p in ("left", "opposite", "right")]},
        {"unit": "chips", "winner": 108, "note": "游金: each payer pays (底 + 水) 9 × 4 chips "
         "+ 50 bonus outside the chips",
         "payments": [{"payer": p, "amount": 36, "bonus": 50}
                      for p in ("left", "opposite", "right")]},
    ]

    unit: Literal["points", "chips"] = Field(description="points (MCR match points) or "
                                             "chips (Xiamen, Zhenjiang)")
    winner: int = Field(description="what the winner receives: the sum of the payments "
                        "(negative where the claimant of a false win pays, 诈胡)")
    payments: list[PaymentOut] = Field(description="empty where nobody pays (a win under "
                                       "the rules' minimum)")
    note: str = Field(description="how the payments were worked out")


class WildSetOut(Answer):
    """One set (or the pair) of a regional hand's reading, wild tiles placed."""

    shape: str = Field(description="pair, chow, pung …")
    tiles: list[str] = Field(description="the tile codes the set stands for")
    wild: list[str] = Field(description="the codes that wild tiles (金, 百搭) supply")


class TransferOut(Answer):
    """Zhenjiang: chips passing apart from the win (打首搭, 碰后打搭); seats seen from the
    winner (winner, left, opposite, right), or seat winds in a drawn hand."""

    model_config = ConfigDict(populate_by_name=True)

    payer: str = Field(alias="from", description="the seat that pays")
    to: str = Field(description="the seat paid")
    amount: int
    reason: str = Field(examples=["打首搭"])


class ScoreDetailsOut(Answer):
    """What a rule set adds to its score (absent from MCR's legal wins). Each field is
    there only under the rule set (and outcome) its description names."""

    EXAMPLES: ClassVar[list[dict[str, Any]]] = [
        {"reason": "4 fan before flowers, 8 needed"},
        {"wild": "1s", "no_wild": True, "reading": [{"shape": "pair", "tiles": ["5p", "5p"],
                                                     "wild": []}],
         "reading_text": ["55p"], "events": [], "net": {"winner": 3, "left": -1,
                                                        "opposite": -1, "right": -1}},
    ]

    reason: str | SkipJsonSchema[None] = absent(
        "a score that is no legal win (legal false): why — MCR under the minimum fan, "
        "Xiamen or Zhenjiang not a winning hand (诈胡)")
    win: str | SkipJsonSchema[None] = absent("Xiamen: the kind of win (self_drawn, "
                                             "discard, you_jin …)")
    win_zh: str | SkipJsonSchema[None] = absent("Xiamen, a legal win: its Chinese name")
    win_en: str | SkipJsonSchema[None] = absent("Xiamen, a legal win: its English name")
    gold: str | SkipJsonSchema[None] = absent("Xiamen: the gold (金) tile code")
    unit: int | SkipJsonSchema[None] = absent("Xiamen, a legal win: 底 + 水, chips per "
                                              "payer before the multiplier")
    water: int | SkipJsonSchema[None] = absent("Xiamen, a legal win: 水, the unit less "
                                               "the 底")
    multiplier: int | SkipJsonSchema[None] = absent("Xiamen, a legal win: the kind of "
                                                    "win's multiplier")
    bonus_per_payer: int | SkipJsonSchema[None] = absent(
        "Xiamen, a legal win: bonus money each payer pays outside the chips")
    kill_three: bool | SkipJsonSchema[None] = absent("Xiamen, a legal win: 杀三")
    wild: str | SkipJsonSchema[None] = absent("Zhenjiang: the 百搭 (wild) tile code")
    no_wild: bool | SkipJsonSchema[None] = absent("Zhenjiang, a win: 脱搭 (no 百搭 "
                                                  "needed as a wild)")
    reading: list[WildSetOut] | SkipJsonSchema[None] = absent(
        "Xiamen and Zhenjiang, a win: the reading scored, the pair first")
    reading_text: list[str] | SkipJsonSchema[None] = absent(
        "Xiamen and Zhenjiang, a win: the reading in notation")
    events: list[TransferOut] | SkipJsonSchema[None] = absent(
        "Zhenjiang: 打首搭 and 碰后打搭 transfers (the win context's first_wild_discard, "
        "wild_after_pung)")
    net: dict[str, int] | SkipJsonSchema[None] = absent(
        "Zhenjiang: each seat's net chips, payments and transfers together (winner, left, "
        "opposite, right; discarder where its seat is unknown)")


class ScoreOut(Answer):
    """The score of a hand: ``Score.to_dict()``, the same JSON as ``tilecam score
    --json``."""

    total: int = Field(description="MCR: fan with flowers; Xiamen: chips from each payer; "
                       "Zhenjiang: chips one payer pays (the discarder on a discard); 0 for "
                       "a regional hand that is no win")
    legal: bool = Field(description="the win meets the rules' minimum (false: 错和 / 诈胡)")
    rules: str = Field(examples=["mcr"])
    version: str | None = Field(description="the rule version (MCR); null for rule sets "
                                "without versions", examples=["mil-2015"])
    fans: list[FanOut]
    settlement: SettlementOut
    self_drawn: bool | SkipJsonSchema[None] = absent(
        "the win is one without a discard (自摸) as the rule set scores and settles it — "
        "nobody deals in (no discarder pays for it) — whatever the self_drawn flag alone says "
        "(Xiamen 游金, 双游, 三游, 三金倒, 天和 and a robbed kong, 抢杠自摸; Zhenjiang 天胡; "
        "MCR: the flag, a robbed kong 抢杠和 being a discard win); for a score that is no "
        "legal win, the win as claimed. In every score this version makes; absent only "
        "from a hand revision's score stored by an older version")
    details: ScoreDetailsOut | SkipJsonSchema[None] = absent(
        "the rule set's own details: Xiamen and Zhenjiang scores, and any score that is no "
        "legal win (its reason)")


# --- the score sheet ---------------------------------------------------------------------


class SeatPlayerOut(Answer):
    """A seat wind of a hand and the player who held it."""

    seat: Wind = Field(description="seat wind of the hand (E = the dealer)")
    player: str = Field(description="the player's name")


class SeatsOut(Answer):
    """Seat wind → the name of the player holding it in that hand (E = the dealer)."""

    E: str
    S: str
    W: str
    N: str


class PlaceOut(Answer):
    """Where a hand falls in the table's deal."""

    EXAMPLES: ClassVar[list[dict[str, Any]]] = [
        {"number": 2, "round": 1, "hand_in_round": 2, "prevalent_wind": "E", "dealer": "Bo",
         "seats": {"E": "Bo", "S": "Cai", "W": "Dan", "N": "Ann"}, "dealer_repeats": 0,
         "drawn_hands": 0},
    ]

    number: int = Field(description="the hand's number on the sheet, from 1")
    round: int = Field(description="the round (圈), from 1")
    hand_in_round: int = Field(description="the hand within its round, from 1")
    prevalent_wind: Wind = Field(description="the round's wind (圈风)")
    dealer: str = Field(description="the dealer's name (seat wind E)")
    seats: SeatsOut
    dealer_repeats: int = Field(description="hands in a row before it the dealer won and "
                                "dealt again (连庄)")
    drawn_hands: int = Field(description="drawn hands in a row before it (臭庄)")
    assumed_after: int | SkipJsonSchema[None] = absent(
        "only while an earlier hand is held pending where its winner decides who deals "
        "next: that hand's number (this place may move when a referee settles it)")
    chips: dict[str, int] | SkipJsonSchema[None] = absent(
        "Xiamen only: " + PER_PLAYER.format(what="the chips the player has before the hand "
                                            "(课)"))
    barred: list[SeatPlayerOut] | SkipJsonSchema[None] = absent(
        "only where some player may not win this hand (停和: a false claim earlier in it, "
        "or a referee's bar): those players")


class RevisionCoreOut(Answer):
    """A hand revision's content (less the scorer's full answer and the camera's reading)."""

    revision: int = Field(description="the revision's number, from 1")
    action: Action = Field(description="record (the first), correct, void, false_claim "
                           "(referee), reseat (scored again where an earlier hand's change "
                           "moved it), or review (held pending by the camera: it read the "
                           "recorded tiles otherwise afterwards, see note)")
    outcome: Outcome = Field(description="win; draw (荒庄); pending (not settled: the winner "
                             "unknown, not a legal win, a barred winner or an unsure camera "
                             "reading — a referee decides, see note); void; false_claim (a "
                             "declared win ruled 错和/诈和: settlement holds the penalty)")
    hand: str | None = Field(description="the hand in notation, winning tile last; null "
                             "for a drawn hand given without one",
                             examples=["123456789m1235p5p"])
    winner: SeatPlayerOut | None = Field(description="null for a draw or an unknown winner")
    discarder: SeatPlayerOut | None = Field(description="null for a self-draw, a draw or "
                                            "an unknown discarder")
    context: dict[str, Any] = Field(
        description="the win context scored: self_drawn, last_of_kind, kong, "
        "last_wall_tile, flowers, and the rule set's own fields (e.g. Xiamen gold, "
        "Zhenjiang indicator); each a plain value or a list of them",
        examples=[{"self_drawn": True, "last_of_kind": False, "kong": False,
                   "last_wall_tile": False, "flowers": 0, "gold": "9s"}])
    rules: str
    version: str | None = Field(description="the rule version scored; null where the rule "
                                "set has none or nothing was scored")
    total: int | None = Field(description="the score's total; null where nothing was "
                              "scored (a draw, an unknown winner, a hand the scorer refused)")
    legal: bool | None = Field(description="whether the score is a legal win; null where "
                               "nothing was scored")
    points: dict[str, int] = Field(description=PER_PLAYER.format(
        what="the points (chips) this revision moves; zeros for a pending or void hand"))
    settlement: list[int] = Field(min_length=4, max_length=4, description="the same points "
                                  "by player position 0-3 (round-1 seats East, South, "
                                  "West, North)")
    image_ref: str | None = Field(description="the camera frame the hand was read from "
                                  "(a path under the data folder); null when none was kept")
    note: str | None = Field(description="why this revision exists or why it is pending")
    author: str = Field(description="who wrote it: table:ID, camera or referee",
                        examples=["table:1"])
    created_at: datetime = Field(description="when this revision was written (" + TIME + ")")
    money: dict[str, int] | SkipJsonSchema[None] = absent(
        "only under rules that pay money apart from the chips (Xiamen): " + PER_PLAYER.format(
            what="the bonus money this revision moves, outside the points"))


class RevisionOut(RevisionCoreOut):
    """A hand revision with the scorer's full answer and the camera's reading."""

    score: ScoreOut | None = Field(description="the scorer's full answer; null where "
                                   "nothing was scored")
    recognized: dict[str, Any] | None = Field(
        description="the camera's reading of the frame that recorded the hand "
        "(Recognition.to_dict(), as tilecam recognize --json); null for a hand not read by "
        "a camera")


class HistoryRevisionOut(RevisionOut):
    """One revision of a hand's history, with the seats it was scored with."""

    seats: SeatsOut = Field(description="who held each seat wind when this revision was "
                            "scored (a later revision may seat them otherwise: reseat)")


class SheetHandOut(PlaceOut, RevisionCoreOut):
    """A hand in the whole sheet: its place and current revision, less ``score`` and
    ``recognized`` (``GET /v1/tables/{id}/hands/{n}`` has them)."""

    table_id: int
    source: Literal["camera", "photo", "table", "referee"] = Field(
        description="who reported it: camera (its frames), photo (one photo, POST "
        "/v1/tables/{id}/photos), table (automatic table) or referee")


class SheetFanOut(Answer):
    """One of a hand's fans on the whole sheet: the stored score's fan (:class:`FanOut`)
    less the sets that form it."""

    zh: str = Field(description="its Chinese name", examples=["清一色"])
    en: str = Field(description="its English name", examples=["Full Flush"])
    value: int = Field(description="points of one occurrence (MCR: fan)")
    count: int = Field(description="occurrences")


class SheetRowOut(SheetHandOut):
    """A hand in the whole sheet, with its score's fans."""

    fans: list[SheetFanOut] | None = Field(
        description="the fans of the score stored with the hand's current revision (the "
        "scorer's answer when it was recorded, as GET /v1/tables/{id}/hands/{n} has it in "
        "score.fans, less each fan's sets), by name and value; null where nothing was "
        "scored (a draw, a hand the scorer refused). A false claim's are those of the win "
        "as claimed; a void hand's, those it had before the void")


class HandOut(SheetHandOut, RevisionOut):
    """A hand at its place in the sheet's deal, with its current revision."""


class HandWithHistoryOut(HandOut):
    """A hand with its current revision and every revision (record, corrections, void,
    false claim, reseat), oldest first."""

    history: list[HistoryRevisionOut]


class NewHandOut(HandOut):
    """A hand recorded by ``POST /v1/tables/{id}/hands``."""

    created: bool = Field(description="true: recorded now (201); false: a repeat of a hand "
                          "already recorded (200), answered with what was recorded")


class HandRecordedOut(Answer):
    """A hand write committed whose reading back failed (the database busy): the write
    stands — do not send it again; read the hand at the URL ``view_error`` names."""

    table_id: int
    number: int = Field(description="the hand's number on the sheet")
    recorded: Literal[True]
    view_error: str = Field(description="why it could not be read back, and where to read it")


class NewHandRecordedOut(HandRecordedOut):
    """:class:`HandRecordedOut` of ``POST /v1/tables/{id}/hands``."""

    created: bool = Field(description="as in a full answer")


#: A hand report's fields, as a correction names them (``changed``, ``kept``).
ReportField = Literal["outcome", "hand", "winner", "discarder", "self_drawn", "last_of_kind",
                      "kong", "last_wall_tile", "flowers", "context", "note"]
CHANGED = ("the report's fields whose value this correction changed from the hand's last "
           "revision; `outcome` whenever the hand's recorded outcome changed (a void hand "
           "or a false claim's record reinstated, a win held pending confirmed, a win "
           "held pending)")
KEPT = ("the report's fields the correction left out and left unchanged (a field the "
        "correction changed by itself — a self-draw ended by a discarder given, a win's "
        "fields dropped by `outcome` draw — is in `changed`, not here)")


class CorrectedHandOut(HandWithHistoryOut):
    """A hand corrected by a referee (``POST …/hands/{n}/corrections``), with what the
    correction changed."""

    changed: list[ReportField] = Field(description=CHANGED)
    kept: list[ReportField] = Field(description=KEPT)


class CorrectedHandRecordedOut(HandRecordedOut):
    """:class:`HandRecordedOut` of a correction."""

    changed: list[ReportField] = Field(description=CHANGED)
    kept: list[ReportField] = Field(description=KEPT)


PHOTO_IMAGE_ERROR = ("only where the photo could not be kept (the hand is recorded without "
                     "it)")


class PhotoHandOut(NewHandOut):
    """A hand recorded from one photo (``POST /v1/tables/{id}/photos``)."""

    image_error: str | SkipJsonSchema[None] = absent(PHOTO_IMAGE_ERROR)


class PhotoHandRecordedOut(NewHandRecordedOut):
    """:class:`HandRecordedOut` of ``POST /v1/tables/{id}/photos``."""

    image_error: str | SkipJsonSchema[None] = absent(PHOTO_IMAGE_ERROR)


class PenaltyOut(Answer):
    """A referee's ruling on a player (a penalty, 停和, warning or disqualification)."""

    EXAMPLES: ClassVar[list[dict[str, Any]]] = [
        {"id": 1, "table_id": 1, "player": "Ann", "position": 0, "hand": 3,
         "kind": "payment", "points": 5, "deltas": {"Ann": -5, "Bo": 5, "Cai": 0, "Dan": 0},
         "to": "Bo", "money": False, "reason": "包赔", "author": "referee",
         "created_at": "2026-05-01T09:30:00+00:00", "void": False, "voided_at": None,
         "void_reason": None, "rebooked": None, "request_id": "pen-3-ann"},
    ]

    id: int
    table_id: int
    player: str = Field(description="the offender's name")
    position: int = Field(ge=0, le=3, description="the offender's position 0-3 (round-1 "
                          "seat)")
    hand: int | None = Field(description="the hand it happened in (a bar: the hand the "
                             "player may not win); null when not given")
    kind: PenaltyKind = Field(description="wrong_win (错和), false_win (诈和), deduction, "
                              "payment (包赔), bar (停和), warning (警告), disqualification "
                              "(停赛), or a repeat offence (empty_claim, early_draw, "
                              "slow_pung)")
    points: int = Field(description="the points booked (0 for a bar, a warning, a "
                        "disqualification, a repeat offence's first step)")
    deltas: dict[str, int] = Field(description=PER_PLAYER.format(
        what="what the penalty moves (0 each while it moves nothing; as booked even when "
        "void)"))
    to: str | None = Field(description="a payment's receiver; null for other kinds")
    money: bool = Field(description="the deltas are money apart from the points (Xiamen "
                        "诈胡), counted in the standings' money")
    reason: str | None
    author: str = Field(description="who booked it", examples=["referee"])
    created_at: datetime = Field(description=TIME)
    void: bool = Field(description="voided: kept in the sheet, counted as zero")
    voided_at: datetime | None = Field(description="when it was voided (" + TIME + "); null "
                                       "while it counts")
    void_reason: str | None
    rebooked: str | None = Field(description="a repeat offence booked again at another "
                                 "step: a line per change; null while it keeps its step")
    request_id: str | None = Field(description="the client's name for the request that "
                                   "booked it; null when none was given")


class NewPenaltyOut(PenaltyOut):
    """A penalty booked by ``POST /v1/tables/{id}/penalties``."""

    created: bool = Field(description="true: booked now (201); false: the request_id was "
                          "booked before (200), answered with that penalty")


class PenaltyRecordedOut(Answer):
    """A penalty write committed whose reading back failed (the database busy): the write
    stands — do not send it again; ``GET /v1/tables/{id}/penalties`` shows it."""

    id: int
    table_id: int
    recorded: Literal[True]
    view_error: str


class NewPenaltyRecordedOut(PenaltyRecordedOut):
    """:class:`PenaltyRecordedOut` of ``POST /v1/tables/{id}/penalties``."""

    created: bool


class HandsOut(Answer):
    """``GET /v1/tables/{id}/hands``: every hand of the sheet with its current revision."""

    table_id: int
    hands: list[HandOut] = Field(description="in sheet order")


class PenaltiesOut(Answer):
    """``GET /v1/tables/{id}/penalties``: every penalty, void ones too, as booked."""

    penalties: list[PenaltyOut]


# --- events, tables, standings ---------------------------------------------------------


class EventOut(Answer):
    """An event."""

    id: int
    name: str
    rules: str = Field(examples=["mcr"])
    version: str | None = Field(description="the rule version; null: the rule set's "
                                "default")
    created_at: datetime = Field(description=TIME)


class EventsOut(Answer):
    """``GET /v1/events``: every event, oldest first."""

    events: list[EventOut]


class PlayerOut(Answer):
    """A player of a table."""

    position: int = Field(ge=0, le=3, description="round-1 seat: 0 East, 1 South, 2 West, "
                          "3 North")
    name: str


class TableOut(Answer):
    """A table and its players."""

    id: int
    event_id: int
    name: str
    rules: str
    version: str | None = Field(description="the rule version; null: the rule set's "
                                "default")
    settings: dict[str, Any] = Field(description="the rule-set settings the table was "
                                     "opened with (GET /v1/rules lists them); {} for the "
                                     "defaults")
    settings_refused: str | None = Field(
        description="null while the scorer takes the table's settings; "
        "else the message a win at the table (a camera frame, a photo, a posted hand, a "
        "correction) is refused with: settings stored by an older tilecam that this one "
        "refuses, which cannot be changed; it says what a referee can do (void a hand, "
        "close the table and play on at a new one)")
    players: list[PlayerOut] = Field(min_length=4, max_length=4)
    created_at: datetime = Field(description=TIME)
    closed_at: datetime | None = Field(description="when a referee closed the sheet (time "
                                       "called: no more hands); null while open")
    close_reason: str | None = Field(description="why it was closed, and by whom; null "
                                     "while open unless it was reopened: then also the "
                                     "record of its closes and reopenings, a line each "
                                     "('closed <time>: <reason> (by …)', 'reopened "
                                     "<time>: …'), oldest first, after the close that "
                                     "stands")
    withdrawn: bool = Field(description="left out of the event's standings and recording no "
                            "new hand (a table opened by mistake), its history kept")


class TableWithNextOut(TableOut):
    """A table with the place of its next hand."""

    next_hand: PlaceOut | None = Field(description="where the next hand falls; null once "
                                       "the session is over (its rounds played)")


class NewTableOut(TableWithNextOut):
    """A table just created, with its keys (shown only now)."""

    api_key: str = Field(description="the table's key (tc_…): records hands and frames")
    view_key: str = Field(description="the table's viewing key (tv_…): reads the sheet")


class EventWithTablesOut(EventOut):
    """An event and its tables."""

    tables: list[TableOut]


class StandingOut(Answer):
    """One player's line in the standings."""

    EXAMPLES: ClassVar[list[dict[str, Any]]] = [
        {"rank": 1, "table_id": 1, "table": "T1", "position": 1, "player": "Bo",
         "total": 108, "hand_points": 108, "penalty_points": 0, "wins": 1,
         "self_drawn_wins": 1, "dealt_in": 0, "money": 150, "warnings": 0, "bars": 0,
         "disqualified": False},
    ]

    rank: int | None = Field(description="1 = most points (equal totals share a rank); "
                             "null for a disqualified player")
    table_id: int
    table: str = Field(description="the table's name")
    position: int = Field(ge=0, le=3, description="round-1 seat 0-3")
    player: str
    total: int = Field(description="hand_points + penalty_points: what ranks")
    hand_points: int = Field(description="points from the hands that count")
    penalty_points: int = Field(description="penalties and false-claim rulings, not void")
    wins: int = Field(description="wins settled")
    self_drawn_wins: int = Field(description="of them self-drawn")
    dealt_in: int = Field(description="wins on this player's discard")
    money: int = Field(description="money paid apart from the points (Xiamen bonus "
                       "money); not in the total; 0 under other rules")
    warnings: int = Field(description="warnings (and repeat offences at their first "
                          "step), not void")
    bars: int = Field(description="停和 rulings, not void")
    disqualified: bool = Field(description="停赛: takes no rank")


class TableStateOut(Answer):
    """The state of a table's sheet."""

    table_id: int
    table: str = Field(description="the table's name")
    rules: str
    hands_recorded: int = Field(description="hand records, of every outcome")
    hands_settled: int = Field(description="wins and draws that count")
    hands_pending: list[int] = Field(description="numbers of the hands a referee must settle")
    hands_void: list[int] = Field(description="numbers of the void hands")
    false_claims: list[int] = Field(description="numbers of the records ruled a false claim")
    complete: bool = Field(description="the session is over: its rounds played, or the "
                           "table closed; false for a withdrawn table (see withdrawn)")
    next_hand: int | None = Field(description="the next hand's number; null once complete "
                                  "or while withdrawn")
    closed: bool = Field(description="a referee closed the sheet (time called)")
    withdrawn: bool = Field(description="left out of the event's standings")


class TableStandingsOut(TableStateOut):
    """``GET /v1/tables/{id}/standings``: points per player, ranks, the sheet's state."""

    players: list[StandingOut] = Field(description="by rank, the disqualified last")


class EventTableLineOut(StandingOut):
    """A player's line at one of the event's tables, with that table's rules."""

    EXAMPLES: ClassVar[list[dict[str, Any]]] = [
        {**StandingOut.EXAMPLES[0], "money": 0, "rules": "mcr"},
    ]

    rules: str = Field(description="the table's rule set: the unit of its points")


class EventPlayerOut(Answer):
    """A player's line in an event's standings: the player's lines at the event's tables
    of one rule set summed (a player is one name across the event's tables, as the sheet
    compares names: spaces at either end, invisible characters and Unicode forms aside).
    A player at tables of two rule sets has a line for each: MCR points and Xiamen or
    Zhenjiang chips are never added together."""

    EXAMPLES: ClassVar[list[dict[str, Any]]] = [
        {"rank": 1, "player": "Bo", "rules": "mcr", "total": 108, "hand_points": 108,
         "penalty_points": 0, "wins": 1, "self_drawn_wins": 1, "dealt_in": 0, "money": 0,
         "warnings": 0, "bars": 0, "disqualified": False, "tables": 1,
         "lines": EventTableLineOut.EXAMPLES},
    ]

    rank: int | None = Field(description="1 = most points among the event's lines of the "
                             "same rules (equal totals share a rank); null for a player "
                             "disqualified at any of those tables")
    player: str
    rules: str = Field(description="the rule set of the tables this line sums: the unit "
                       "of its points (each rule set's lines are ranked apart)")
    total: int = Field(description="hand_points + penalty_points over the event's tables "
                       "of these rules: what ranks")
    hand_points: int = Field(description="points from the hands that count, every table")
    penalty_points: int = Field(description="penalties and false-claim rulings, not void")
    wins: int = Field(description="wins settled")
    self_drawn_wins: int = Field(description="of them self-drawn")
    dealt_in: int = Field(description="wins on this player's discard")
    money: int = Field(description="money paid apart from the points (Xiamen bonus "
                       "money); not in the total")
    warnings: int = Field(description="warnings (and repeat offences at their first "
                          "step), not void")
    bars: int = Field(description="停和 rulings, not void")
    disqualified: bool = Field(description="停赛 at some table: takes no rank")
    tables: int = Field(description="the tables (seats) the player's lines come from")
    lines: list[EventTableLineOut] = Field(description="the player's line at each table, "
                                           "as that table's standings give it (its rank "
                                           "there), with the table's rules")


class EventStandingsOut(Answer):
    """``GET /v1/events/{id}/standings``: every player of the event ranked, a player's
    tables of one rule set summed and each rule set's lines ranked apart (the event's own
    rules first); a withdrawn table counts for nobody."""

    event_id: int
    event: str = Field(description="the event's name")
    tables: list[TableStateOut]
    players: list[EventPlayerOut] = Field(description="by rules (the event's first), then "
                                          "by rank among them, the "
                                          "disqualified last")


class ViewKeyOut(Answer):
    """A table's new viewing key, shown only now."""

    table_id: int
    view_key: str = Field(description="tv_…: reads the sheet, records nothing")


class CameraRestartOut(Answer):
    """The table's camera started its frame count again (``POST …/camera/restart``)."""

    table_id: int
    forgotten_seq: int | None = Field(
        description="the last frame seq the table had counted, now forgotten (null: none "
        "was counted): the next frame counts whatever its seq")


class TableKeyOut(Answer):
    """A table's new key, shown only now (the one before stops working)."""

    table_id: int
    api_key: str = Field(description="tc_…: records the table's hands and frames")


class FrameOut(Answer):
    """``POST /v1/tables/{id}/frames``: what the camera frame showed."""

    status: Literal["waiting", "recorded", "already_recorded", "stale"] = Field(
        description="waiting (not yet stable or complete), recorded (this frame recorded "
        "the hand), already_recorded (the hand shown was recorded before) or stale (its "
        "seq is not greater than the last one counted: a frame sent again or delivered "
        "late, not read, counted for nothing; view_note names the last seq counted)")
    streak: int = Field(description="frames in a row that showed this hand")
    needed: int = Field(description="frames in a row needed to record it")
    hand: str | None = Field(description="the hand read, in notation; null when none")
    complete: bool = Field(description="the frame showed a complete hand")
    tiles: int = Field(description="tiles detected in the frame")
    hand_number: int | None = Field(description="recorded: the hand's number; "
                                    "already_recorded: the number of the hand the frame "
                                    "shows (one the camera recorded since the table was "
                                    "last seen cleared, or one a referee, an automatic "
                                    "table or a photo recorded meanwhile); else null")
    recorded_hand: str | SkipJsonSchema[None] = absent(
        "only with status recorded or already_recorded: hand hand_number as the sheet has "
        "it now (its latest revision), beside hand, what this frame read — they differ "
        "where the camera reads the recorded tiles otherwise (when it does so for the "
        "stable frame count and that reading scores otherwise, the hand is held pending "
        "for a referee: revision action review) or a referee corrected them")

    recorded: HandOut | HandRecordedOut | SkipJsonSchema[None] = absent(
        "only with status recorded: the hand recorded now")
    image_error: str | SkipJsonSchema[None] = absent(
        "only where the recording frame's image could not be kept (the hand is recorded "
        "without it)")
    view: Literal["tiles", "table", "unlearned", "elsewhere", "unreadable", "dark"] | None = (
        Field(description="what the frame showed of the table: tiles; with none, table (the "
              "surface the camera learned around the tiles: the table seen cleared), "
              "unlearned (no surface learned yet: taken for the table cleared, as before), "
              "elsewhere (a lit view of something else, e.g. a wall: not the table), "
              "unreadable (the table's part too dark for a colour) or dark (a dark frame); "
              "elsewhere, unreadable and dark leave the table as it was; null: not judged"))
    view_note: str | None = Field(description="view in words, with the figures it was "
                                  "judged by")


class SheetOut(Answer):
    """``GET /v1/tables/{id}/sheet``: the whole sheet in one answer."""

    table: TableWithNextOut = Field(description="as GET /v1/tables/{id}")
    standings: TableStandingsOut = Field(description="as GET /v1/tables/{id}/standings")
    hands: list[SheetRowOut] = Field(description="as GET /v1/tables/{id}/hands, less each "
                                     "hand's score and recognized, plus the score's fans")
    penalties: list[PenaltyOut] = Field(description="as GET /v1/tables/{id}/penalties")


# --- health --------------------------------------------------------------------------------


class HealthOut(Answer):
    """``GET /healthz``: the process is up."""

    status: Literal["ok"]


class ReadyOut(Answer):
    """``GET /readyz``: the tile detector is loaded."""

    status: Literal["ready"]
    model: str | None = Field(description="name@version of the loaded model (what every "
                              "reading's model says); null when it has no name",
                              examples=["tiles-yolo@2026.05"])
    model_dir: str = Field(description="the folder the model was loaded from")
    load_s: float | None = Field(description="seconds the model took to load")
    recognize_concurrency: int = Field(description="recognitions run at once")
