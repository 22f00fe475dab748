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

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

Wind = Literal["E", "S", "W", "N"]


def nul_at(value: Any, path: str = "") -> str | None:
    """Where in the JSON value ``value`` a string (a value or a key) holds U+0000, as a
    dotted path (``""`` for ``value`` itself), or None.

    >>> nul_at({"players": ["Ann", "B" + chr(0) + "o"]})
    'players.1'
    >>> nul_at({"name": "Spring open"}) is None
    True
    """
    if isinstance(value, str):
        return path if "\x00" in value else None
    if isinstance(value, dict):
        items: Any = value.items()
    elif isinstance(value, list | tuple):
        items = enumerate(value)
    else:
        return None
    for key, item in items:
        here = f"{path}.{key}" if path else str(key)
        if isinstance(key, str) and "\x00" in key:
            return here
        if (found := nul_at(item, here)) is not None:
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
    """Why ``value`` (a JSON value) cannot be stored in a score sheet — a string in it
    holds U+0000, which PostgreSQL cannot store — naming where; None when it can.

    >>> nul_problem({"note": "seen" + chr(0)})
    'note holds the NUL character (U+0000), which a score sheet cannot store'
    """
    where = nul_at(value)
    if where is None:
        return None
    return (f"{where or 'the body'} holds the NUL character (U+0000), which a score sheet "
            "cannot store")


class StoredIn(BaseModel):
    """A request body the score sheet stores: no string in it (a name, a note, a reason, a
    context value) may hold the NUL character U+0000, which PostgreSQL cannot store — a
    422 naming where it is, on either database, so a sheet moved between them keeps
    the same text."""

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


class WinContext(BaseModel):
    """How the hand was won and the table situation (all optional)."""

    model_config = ConfigDict(extra="forbid")

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


class WaitsRequest(HandRequest):
    """``POST /v1/waits``: a hand one tile short of a win (13 tiles in MCR)."""


class FanOut(BaseModel):
    """One fan of a score."""

    zh: str
    en: str
    value: int
    count: int
    sets: list[Any]


class ScoreOut(BaseModel):
    """The score of a hand: the same JSON as ``tilecam score --json``."""

    model_config = ConfigDict(extra="allow")

    total: int
    legal: bool
    rules: str
    version: str | None = None
    fans: list[FanOut]
    settlement: Any = None


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
    400: {"model": ErrorOut, "description": "missing, empty, corrupt or truncated image"},
    413: {"model": ErrorOut, "description": "image over the byte or pixel limit"},
    415: {"model": ErrorOut, "description": "not an image / wrong content type"},
    503: {"model": ErrorOut, "description": "no model loaded, busy, or timed out"},
}


class RecognizeOptions(WinContext):
    """Form fields (or query parameters) of ``POST /v1/recognize``."""

    win: bool | None = Field(
        None, description="the hand is shown as a win (true) or waiting (false); default by count"
    )
    hidden_kongs: str | None = Field(
        None, max_length=40, description="kinds of kongs shown all face down, e.g. 'E 5p'"
    )
