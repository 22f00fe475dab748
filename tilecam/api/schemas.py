"""Request and response models of the HTTP API (pydantic v2).

Requests are strict about their shape: an unknown field (a typo such as
``selfdrawn``) or a value of the wrong JSON type is a 422 error naming the field.
Tile codes themselves are checked by :mod:`scoring` (a 400 ``invalid_hand`` naming the
code and where it is).

>>> ScoreRequest.model_validate({"hand": "[EEE,2][SSSS,1]WWWNN55pN", "self_drawn": True}).rules
'mcr'
>>> ScoreRequest.model_validate({"standing": ["1m"] * 2, "melds": [
...     {"kind": "pung", "tiles": ["E", "E", "E"], "claimed_from": 2}]}).melds[0].kind
'pung'
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from tilecam.api.answer_schemas import FanOut as FanOut
from tilecam.api.answer_schemas import FrameOut as FrameOut
from tilecam.api.answer_schemas import ScoreOut as ScoreOut
from tilecam.api.answer_schemas import SheetOut as SheetOut

Wind = Literal["E", "S", "W", "N"]


def shown(text: str) -> str:
    """``text`` as a message may carry it: a character that is not Unicode text (a lone
    UTF-16 surrogate, which JSON's ``\\ud800`` escape can send) written as its escape,
    so that the answer naming it can itself be sent as UTF-8.

    >>> print(shown("gold" + chr(0xD800)))
    gold\\ud800
    """
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def not_text(text: str) -> bool:
    """Whether ``text`` holds a character UTF-8 cannot encode (a lone UTF-16 surrogate,
    U+D800 to U+DFFF): no database stores it as text, and no answer could return it.

    >>> not_text(chr(0xD800)), not_text("\U0001F600"), not_text("Zoë")
    (True, False, False)
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _unstorable(text: str) -> str | None:
    """What keeps the string ``text`` out of a score sheet, or None."""
    if "\x00" in text:
        return "nul"
    return "surrogate" if not_text(text) else None


def unstorable_at(value: Any, path: str = "") -> tuple[str, str] | None:
    """Where in the JSON value ``value`` a string (a value or a key) cannot be stored —
    it holds U+0000 (``"nul"``), or a character that is not Unicode text, a lone UTF-16
    surrogate (``"surrogate"``) — as ``(dotted path, what)`` (path ``""`` for ``value``
    itself), or None. Looks without recursion into nothing but lists and objects.

    >>> unstorable_at({"players": ["Ann", "B" + chr(0) + "o"]})
    ('players.1', 'nul')
    >>> unstorable_at({"context": {"gold": chr(0xD800)}})
    ('context.gold', 'surrogate')
    >>> unstorable_at({"name": "Spring open"}) is None
    True
    """
    if isinstance(value, str):
        what = _unstorable(value)
        return None if what is None else (path, what)
    if isinstance(value, dict):
        items: Any = value.items()
    elif isinstance(value, list | tuple):
        items = enumerate(value)
    else:
        return None
    for key, item in items:
        here = f"{path}.{key}" if path else str(key)
        if isinstance(key, str) and (what := _unstorable(key)) is not None:
            return here, what
        if (found := unstorable_at(item, here)) is not None:
            return found
    return None


def context_shape_problem(context: dict[str, Any]) -> str | None:
    """Why a hand's win ``context`` (a JSON object) cannot be one, naming the field: each
    field's value is a plain value (text, number, true/false, null) or a list of them
    (``hidden_kongs``) — nothing nested deeper, which no rule set reads and which every
    read of the sheet would have to return (nested a few hundred levels, it could not be
    returned at all). None when it is fine. Looks without recursion.

    >>> context_shape_problem({"gold": "5m", "hidden_kongs": ["E"]}) is None
    True
    >>> context_shape_problem({"gold": {"kind": ["5m"]}})
    'context.gold is a JSON object: a context field holds a plain value or a list of them'
    >>> context_shape_problem({"hidden_kongs": [["E"]]})
    'context.hidden_kongs.0 is a list: a context field holds a plain value or a list of them'
    """
    rule = "a context field holds a plain value or a list of them"
    for key, value in context.items():
        if isinstance(value, dict):
            return f"context.{key} is a JSON object: {rule}"
        for index, item in enumerate(value) if isinstance(value, list) else ():
            if isinstance(item, dict | list):
                kind = "a JSON object" if isinstance(item, dict) else "a list"
                return f"context.{key}.{index} is {kind}: {rule}"
    return None


def nul_problem(value: Any) -> str | None:
    """Why ``value`` (a JSON value) cannot be stored in a score sheet, naming where; None
    when it can: a string in it (a value or a key) holds U+0000, which PostgreSQL cannot
    store, or a character that is not Unicode text — a lone UTF-16 surrogate, which
    JSON's ``\\ud800`` escape can send and Python's JSON reader lets through — which
    neither database can store as text nor any answer return (before the seventy-fifth
    session such a context value was recorded, then every read of the hand answered 500).

    >>> nul_problem({"note": "seen" + chr(0)})
    'note holds the NUL character (U+0000), which a score sheet cannot store'
    >>> nul_problem({"context": {"gold": chr(0xD800)}})  # doctest: +ELLIPSIS
    'context.gold holds a character that is not Unicode text (a lone UTF-16 surrogate...'
    """
    found = unstorable_at(value)
    if found is None:
        return None
    where, what = shown(found[0]) or "the body", found[1]
    if what == "nul":
        return f"{where} holds the NUL character (U+0000), which a score sheet cannot store"
    return (f"{where} holds a character that is not Unicode text (a lone UTF-16 surrogate, "
            "U+D800 to U+DFFF, such as the JSON escape \\ud800 unpaired), which a score "
            "sheet cannot store")


class StoredIn(BaseModel):
    """A request body the score sheet stores: no string in it (a name, a note, a reason, a
    context value or key) may hold the NUL character U+0000, which PostgreSQL cannot
    store, or a lone UTF-16 surrogate, which is not Unicode text (:func:`nul_problem`) —
    a 422 naming where it is, on either database, before anything is written, so a sheet
    moved between them keeps the same text."""

    @model_validator(mode="before")
    @classmethod
    def _no_nul(cls, data: Any) -> Any:
        if (problem := nul_problem(data)) is not None:
            raise ValueError(problem)
        return data


#: A tile code such as ``5p``, ``E``, ``3f`` (Tenhou ``1z``-``7z`` is accepted too).
TileCode = str
SettingValue = bool | int | float | str


class MeldIn(BaseModel):
    """One exposed set (or concealed kong) of a structured hand (strict, as the hand
    request: ``"claimed_from": "2"`` is a 422)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    kind: Literal["chow", "pung", "kong"]
    tiles: list[TileCode] = Field(min_length=3, max_length=4, description="tile codes, any order")
    claimed_from: int | None = Field(
        None, ge=1, le=3, description="seat offset 1 left, 2 opposite, 3 right; null = concealed"
    )
    claimed_index: int | None = Field(
        None, ge=0, le=2, description="chow only: which tile (0-based, sorted) was claimed"
    )
    added: bool = Field(False, description="kong made by adding a tile to a claimed pung")


#: A table hand's field names (``POST /v1/tables/{id}/hands``) that a request of
#: :class:`WinContext` (``/v1/score``, ``/v1/waits``, ``/v1/recognize``) gives otherwise.
TABLE_HAND_NAMES = {
    "context": "context: this endpoint takes the rule set's win context as rule_context "
               "(context is a table hand's name for it)",
    "winner": "winner: this endpoint takes the winner's seat wind as seat_wind (winner is a "
              "table hand's name for it)",
}
#: The reverse: :class:`WinContext`'s names in a table hand (``tilecam.api.routes.tables``).
SCORE_NAMES = {
    "rule_context": "rule_context: a table's hand takes the rule set's win context as "
                    "context (rule_context is /v1/score's name for it)",
    "seat_wind": "seat_wind: a table's hand gives the winner's seat wind as winner (E = the "
                 "hand's dealer)",
    "prevalent_wind": "prevalent_wind: a table's hand takes the round's wind from the score "
                      "sheet; leave it out",
}
WINDS = ("E", "S", "W", "N")


def named_otherwise(data: Any, names: Mapping[str, str], table_hand: bool) -> str | None:
    """What a request body (``data``, as sent) calls by another endpoint's name — a field
    of ``names`` it holds while it lacks the one it meant, or a ``discarder`` given that
    other way (``table_hand``: this body is a table's hand, whose discarder is a seat wind;
    else a seat offset 1-3) — as the 422's message; None when nothing is recognisably so.

    >>> named_otherwise({"discarder": 2}, SCORE_NAMES, True)  # doctest: +ELLIPSIS
    "discarder: a table's hand names the discarder by seat wind (E, S, W or N; ...
    >>> named_otherwise({"discarder": "S"}, TABLE_HAND_NAMES, False)  # doctest: +ELLIPSIS
    "discarder: this endpoint takes the discarder as a seat offset from the winner ...
    >>> named_otherwise({"rule_context": {}, "context": {}}, SCORE_NAMES, True)
    """
    if not isinstance(data, Mapping):
        return None
    said = [text for name, text in names.items() if name in data and not (
        name in ("context", "rule_context") and {"context", "rule_context"} <= set(data))]
    discarder = data.get("discarder")
    if table_hand and discarder in (1, 2, 3, "1", "2", "3") and type(discarder) is not bool:
        said.append("discarder: a table's hand names the discarder by seat wind (E, S, W or "
                    "N; E = the hand's dealer), not by a seat offset from the winner as "
                    "/v1/score does")
    if not table_hand and isinstance(discarder, str) and discarder.upper() in WINDS:
        said.append("discarder: this endpoint takes the discarder as a seat offset from the "
                    "winner (1 left, 2 opposite, 3 right), not a seat wind as a table's hand "
                    "does")
    return "; ".join(said) or None


class WinContext(BaseModel):
    """How the hand was won and the table situation (all optional)."""

    model_config = ConfigDict(extra="forbid")

    @model_validator(mode="before")
    @classmethod
    def _table_hand_names(cls, data: Any) -> Any:
        """A 422 that names this endpoint's field where a table hand's name was given
        (:data:`TABLE_HAND_NAMES`), rather than pydantic's "Extra inputs are not
        permitted"."""
        if (problem := named_otherwise(data, TABLE_HAND_NAMES, table_hand=False)) is not None:
            raise ValueError(problem)
        return data

    rules: str = Field("mcr", max_length=40, description="rule set name, see GET /v1/rules")
    version: str | None = Field(None, max_length=40, description="rule version (MCR)")
    settings: dict[str, SettingValue] | None = Field(
        None, description="rule-set settings by name (see GET /v1/rules)"
    )
    self_drawn: bool = False
    last_of_kind: bool = Field(False, description="和绝张: the other three copies are visible")
    kong: bool = Field(False, description="杠上开花 when self-drawn, 抢杠和 on a discard")
    last_wall_tile: bool = Field(False, description="妙手回春 / 海底捞月")
    seat_wind: Wind = "E"
    prevalent_wind: Wind = "E"
    discarder: int | None = Field(
        None, ge=1, le=3, description="seat offset (1-3) of the discarder; null = unknown"
    )
    rule_context: dict[str, SettingValue] = Field(
        default_factory=dict,
        description="extra win context a rule set asks for (e.g. the Xiamen gold indicator)",
    )


class HandRequest(WinContext):
    """A hand as notation (``hand``) or as structured tiles (``standing``, ``melds``).

    Strict: JSON says what type a value is, so ``"self_drawn": "yes"`` or ``"discarder":
    "2"`` is a 422 naming the field, not read as true or 2 (the form fields of
    ``/v1/recognize``, all strings, are :class:`RecognizeOptions`, read laxly)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    hand: str | None = Field(
        None,
        max_length=200,
        description="bracket or Tenhou notation; the last standing tile is the winning tile",
        examples=["[EEE,2][SSSS,1]WWWNN55pN"],
    )
    standing: list[TileCode] | None = Field(
        None, max_length=20, description="concealed tiles; with a win the last is the winning tile"
    )
    melds: list[MeldIn] = Field(default_factory=list, max_length=6)
    winning_tile: TileCode | None = Field(
        None, description="appended to standing (structured hands only)"
    )
    flowers: int | list[TileCode] = Field(
        0, description="number of flowers, or their codes 1f-8f"
    )

    @model_validator(mode="after")
    def _one_hand(self) -> HandRequest:
        structured = self.standing is not None or self.melds or self.winning_tile is not None
        if self.hand is not None and structured:
            raise ValueError(
                "give the hand either as 'hand' (notation) or as 'standing'/'melds', not both"
            )
        if self.hand is None and self.standing is None:
            raise ValueError("no hand: give 'hand' (notation) or 'standing' (list of tile codes)")
        if isinstance(self.flowers, int) and not 0 <= self.flowers <= 8:
            raise ValueError(f"flowers must be 0 to 8, got {self.flowers}")
        if isinstance(self.flowers, list) and len(self.flowers) > 8:
            raise ValueError(f"at most 8 flowers, got {len(self.flowers)}")
        return self


class ScoreRequest(HandRequest):
    """``POST /v1/score``: a winning hand and its win context."""


#: The tiles seen elsewhere, in the notation or as tile codes: a table holds 136 to 144
#: tiles, and a notation string at most a few characters for each.
SeenTiles = (Annotated[str, Field(max_length=600)]
             | Annotated[list[TileCode], Field(max_length=144)])


class WaitsRequest(HandRequest):
    """``POST /v1/waits``: a hand one tile short of a win (13 tiles in MCR), or one that
    drew (14), and the tiles the player sees elsewhere (``seen``)."""

    seen: SeenTiles | None = Field(
        None,
        description="tiles seen elsewhere — others' discards and melds (not the hand's own) "
        "— in the notation ('1m1m5pEE', '115m E, E') or as tile codes: each kind's tiles "
        "left (a wait's remaining, a useful draw's) are 4 less the hand's and these; a "
        "wait with none left is listed with 0 left and no score; a wait whose other three "
        "copies are in sight (these, the hand's melds, the discarded copy) and none held "
        "standing is scored as MCR 和绝张 (none without seen). A wild seen (the Xiamen "
        "gold, the Zhenjiang 百搭) counts as its kind; the Zhenjiang 百搭 discards named in "
        "rule_context are among these (that kind counts the more of the two). Bonus tiles "
        "are ignored (no hand waits on one), refused under rules without them (Zhenjiang). "
        "A kind seen more often than the 4 copies less the hand's is a 400 invalid_hand "
        "naming the kind and both counts",
        examples=["5p5pEEE9s"],
    )


class ErrorDetail(BaseModel):
    code: str
    message: str


class ErrorOut(BaseModel):
    """Every error answer: ``{"error": {"code", "message"}}``."""

    error: ErrorDetail


#: ``responses=`` for routes, so /docs shows the error shape.
ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorOut, "description": "bad input (the message names it)"},
    422: {"model": ErrorOut, "description": "request of the wrong shape or types"},
}

#: ``responses=`` for routes that take an image.
IMAGE_ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorOut, "description": "missing, empty, corrupt or truncated image "
          "(missing_image, empty_image, invalid_image), or a field given twice"},
    408: {"model": ErrorOut, "description": "request_timeout: the upload did not arrive in "
          "time"},
    413: {"model": ErrorOut, "description": "image over the byte or pixel limit"},
    415: {"model": ErrorOut, "description": "not an image / wrong content type"},
    503: {"model": ErrorOut, "description": "no model loaded, busy, or timed out"},
}


#: What ``flowers`` means with a photo (``POST /v1/recognize``, ``tilecam recognize
#: --flowers``: :mod:`vision.flower_count`).
PHOTO_FLOWERS_DOC = (
    "flowers of a photo that shows none (0-8 bonus tiles, set aside off-camera): the photo "
    "is read without the count first and read with it only when it shows no flower; the "
    "flowers a photo shows are read from it and counted, and a count that differs from "
    "them is refused (400); rules played without flowers (Zhenjiang) refuse any count "
    "(400 invalid_context, before the photo is decoded)"
)


class RecognizeOptions(WinContext):
    """Form fields (or query parameters) of ``POST /v1/recognize``."""

    win: bool | None = Field(
        None, description="the hand is shown as a win (true) or waiting (false); default by count"
    )
    hidden_kongs: str | None = Field(
        None, max_length=40, description="kinds of kongs shown all face down, e.g. 'E 5p'"
    )
    flowers: int = Field(0, ge=0, le=8, description=PHOTO_FLOWERS_DOC)


# --- Answers documented for /docs only -------------------------------------------------
# The models below are given as ``responses={200: {"model": ...}}``: FastAPI uses them for
# the OpenAPI description alone and never validates or filters a real answer with them
# (the routes answer the scorer's and recognizer's ``to_dict()`` JSON as it is).
# ``extra="allow"``: an answer may carry fields a newer version adds. The score, event and
# table answers are in :mod:`tilecam.api.answer_schemas` (published by
# :mod:`tilecam.api.openapi`).


class _Doc(BaseModel):
    model_config = ConfigDict(extra="allow")


class BriefScoreOut(_Doc):
    """A wait's best score: ``{"total", "legal", "fans"}``."""

    total: int
    legal: bool
    fans: list[FanOut]


class WaitTileOut(_Doc):
    """One tile a ready hand waits on; a score is null where that win is impossible (no
    copy left: a kind the hand holds four of, whose last copy a discard lets go, or whose
    other copies are seen elsewhere: a dead wait)."""

    tile: str
    remaining: int = Field(description="copies not in the hand itself nor seen elsewhere "
                           "(nor, for a discard of a hand that drew, the tile discarded)")
    discard: BriefScoreOut | None = Field(description="best score won on a discard")
    self_drawn: BriefScoreOut | None = Field(description="best score won self-drawn")


class WaitsOut(_Doc):
    """A hand one tile short of a win: ``Waits.to_dict()``."""

    rules: str
    version: str | None
    hand: str
    ready: bool
    live: bool = Field(description="ready with a copy left of a wait to win on (有效听牌); "
                       "false when not ready, or ready in form only (形式听牌: every wait "
                       "dead, each copy held or seen)")
    shanten: int = Field(description="0 when ready (in form only too), else tile changes "
                         "from ready")
    waits: list[WaitTileOut] = Field(description="empty unless ready")
    seen: str = Field(description="the tiles seen elsewhere counted (notation, kinds in "
                      "order; bonus tiles left out); empty when none were given")


class UsefulDrawOut(_Doc):
    """A kind whose draw brings what a discard keeps a tile nearer to ready (有效牌)."""

    tile: str
    remaining: int = Field(description="copies left: 4 less the hand's, its melds', the "
                           "discard's and those seen elsewhere")


class DiscardOut(_Doc):
    """One discard of a hand that drew, with the waits of what is kept, or its useful
    draws when that is not ready."""

    tile: str
    ready: bool
    live: bool = Field(description="what is kept is ready with a copy left of a wait; "
                       "false when it is not ready or ready in form only (every wait dead), "
                       "which ranks as one tile from ready, after the others one from ready")
    shanten: int = Field(description="by the shape: 0 when what is kept is ready, in form "
                         "only too")
    waits: list[WaitTileOut]
    useful: list[UsefulDrawOut] = Field(description="what is kept not ready: each kind "
                                        "whose draw lowers its shanten (有效牌); else empty")
    useful_draws: int | None = Field(description="the copies left of the useful kinds in "
                                     "all, which rank discards of one shanten; null when "
                                     "none are counted (what is kept is ready)")


class WinWayOut(_Doc):
    """The hand as it stands scored as a win one way (on a discard, or self-drawn)."""

    total: int
    legal: bool


class DiscardsOut(_Doc):
    """A hand of a win's size (it drew and must discard): ``Discards.to_dict()``."""

    rules: str
    version: str | None
    hand: str
    win: bool = Field(description="the hand as it stands is a win already (a winning "
                      "shape, legal or under the rules' minimum)")
    win_total: int | None = Field(description="that win's total; null when it is no win")
    win_on_discard: WinWayOut | None = Field(description="that win on a discard; null when "
                                             "the rules refuse it or it is no win")
    win_self_drawn: WinWayOut | None = Field(description="that win self-drawn (a hand may "
                                             "win self-drawn only); null when the rules "
                                             "refuse it or it is no win")
    shanten: int = Field(description="the least of the discards' by shape (0: a discard "
                         "leaves it ready, if only in form: see each discard's live)")
    discards: list[DiscardOut] = Field(description="every distinct discard, best first: "
                                       "shanten (ready in form only counts as 1, after the "
                                       "others), then useful draws, then the live waits")
    seen: str = Field(description="the tiles seen elsewhere counted, as in WaitsOut")


class SettingOut(_Doc):
    """A rule-set setting or context field: default, description, type and bounds."""

    default: Any = None
    description: str
    type: str
    choices: list[Any] | None = None
    minimum: float | None = None
    maximum: float | None = None


class DealOut(_Doc):
    """How the deal passes between hands at a table."""

    stays_on_dealer_win: bool
    stays_on_draw: bool
    rounds: int | None
    seat_changes: bool
    goes_on_after_false_claim: bool


class RulePenaltiesOut(_Doc):
    """What a score sheet's referee may book under these rules."""

    false_claim_kinds: dict[str, str]
    deductions: list[int]
    repeat_offences: dict[str, str]
    repeat_offence_points: list[int]


class RuleSetOut(_Doc):
    """One rule set's ``describe()``; regional sets add their game's shape (``tiles``,
    ``claims``, ``flowers``, ``wild``, ``winning_shape``, ``wins``)."""

    name: str
    title: str
    hand_size: int
    settings: dict[str, SettingOut]
    context: dict[str, SettingOut] = Field(description="rule-specific win-context fields")
    score_alike: list[list[str]] = Field(description="tile codes the score never tells apart")
    money_apart: bool = Field(description="payments carry money apart from points/chips")
    deal: DealOut
    seat_context: list[str] = Field(description="context fields naming seats")
    win_fields: list[str] = Field(description="the general win-context fields these rules read")
    penalties: RulePenaltiesOut
    versions: list[str]
    default_version: str | None
    tiles: int | None = Field(None, description="tiles in the set (regional rules)")
    claims: list[str] | None = None
    flowers: bool | None = None
    wild: str | None = None
    winning_shape: str | None = None
    wins: str | None = None


class TileCodesOut(_Doc):
    kinds: list[str]
    flowers: list[str]
    back: str
    classes: list[str]
    zh: dict[str, str]


class RulesOut(_Doc):
    """``GET /v1/rules``."""

    default: str
    rule_sets: list[RuleSetOut]
    tiles: TileCodesOut


class DetectedTileOut(_Doc):
    code: str
    box: list[float] = Field(description="x1, y1, x2, y2 in pixels of the rotated image")
    confidence: float = Field(description="the detector's tile score times the top-1 "
                              "code's probability, 0..1")
    rotation: int
    face_down: bool
    topk: list[Any] = Field(description="the detector's alternatives, best first: the "
                            "tile's own code always, others only where their probability "
                            "is at least 0.00005 (it prints as 0 below that)")


class DetectOut(_Doc):
    """``POST /v1/detect``: the tiles found, no layout."""

    image_size: list[int] = Field(description="[width, height]")
    tiles: list[DetectedTileOut]
    meta: dict[str, Any]


class RecognizedTileOut(DetectedTileOut):
    role: str = Field(description="standing / meld / flower / winning / ignored")
    order: int | None = None


class RecognizedMeldOut(_Doc):
    notation: str
    kind: str
    tiles: list[str]
    claimed_from: int | None
    claimed_index: int | None
    added: bool
    concealed: bool


class RecognizeOut(_Doc):
    """``POST /v1/recognize``: ``Recognition.to_dict()``. Exactly one of ``score`` (a win),
    ``waits`` or ``unscorable`` is present (``waits`` and ``unscorable`` may come
    together); a hand that drew and must discard has ``unscorable`` and ``discards``."""

    image: str
    image_size: list[int] = Field(description="[width, height]")
    rules: str
    tiles: list[RecognizedTileOut] = Field(description="one per detection, final codes")
    hand: str | None = Field(description="the hand in notation; null when no hand could be "
                             "built (unscorable says why) or no tile was read")
    winning_tile: str | None
    melds: list[RecognizedMeldOut] = Field(description="the hand's melds; empty when no hand "
                                           "could be built — the tiles' role still says how "
                                           "they were laid out")
    corrections: list[dict[str, Any]]
    alternatives: list[dict[str, Any]] = Field(description="other readings within 4× of "
                                               "the chosen one's probability")
    reading_confidence: float
    hand_confidence: float | None
    score_confidence: float | None
    score: ScoreOut | None = Field(None, description="present for a win")
    waits: WaitsOut | None = Field(None, description="present for a hand one tile short")
    unscorable: str | None = Field(None, description="why it cannot be scored")
    discards: DiscardsOut | None = Field(None, description="a hand that drew: each discard")
    notes: list[str]
    ms: dict[str, float] = Field(description="milliseconds per step")
    model: str | None = Field(description="name@version of the model that read the photo")
    annotated_jpeg: str | None = Field(None, description="with ?annotate=1: a data URL")


def errors(*codes: int | tuple[int, str]) -> dict[int | str, dict[str, Any]]:
    """``responses=`` documenting error answers (``{"error": {"code", "message"}}``) by
    status, each with the codes it may carry; a ``(status, text)`` pair sets the text.

    >>> errors(404)[404]["description"]
    'not_found: no such table, event, hand or penalty'
    """
    out: dict[int | str, dict[str, Any]] = {}
    for item in codes:
        status, text = item if isinstance(item, tuple) else (item, ERROR_TEXTS[item])
        out[status] = {"model": ErrorOut, "description": text}
    return out


#: What each error status of the table and event routes means.
ERROR_TEXTS: dict[int, str] = {
    400: "invalid_request, invalid_hand or invalid_context (the message names it)",
    401: "unauthorized: no key, or a key that is not valid (WWW-Authenticate: Bearer)",
    403: "forbidden: a key of another kind or another table; admin_disabled: the "
         "service was started without TILECAM_ADMIN_KEY in its environment",
    404: "not_found: no such table, event, hand or penalty",
    409: "the request contradicts what is recorded: the error's code says how (each "
         "operation names the codes it answers)",
    413: "payload_too_large / image_too_large: over the byte or pixel limit",
    415: "unsupported_media_type: the body is not sent as JSON "
         "(Content-Type: application/json)",
    422: "invalid_request: a request of the wrong shape or types (the message names "
         "each field)",
    429: "rate_limited: too many requests for this key; keys_refused: too many refused "
         "keys from this address, and this request's key is refused too; see Retry-After",
    503: "database_unavailable or busy: nothing was recorded; Retry-After where trying "
         "again may help",
}
