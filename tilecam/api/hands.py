"""From an API hand request to the scorer's call: the :class:`scoring.Hand` and the
keyword arguments of :func:`scoring.score` / :func:`scoring.waits`.

A problem with the win context on its own — an unknown rule set, version or setting, a
rule-specific field that is none, a self-draw with a discarder, a Xiamen gold not given —
is a 400 ``invalid_context`` (as on ``/v1/recognize``), checked before the hand; every
problem with the hand, or with what the context says of it (a 杠开 with no kong), is a
400 ``invalid_hand``. Both :class:`~tilecam.api.errors.ApiError` messages are the
scorer's own (they name the tile code, the position, the impossible context).

>>> from tilecam.api.schemas import ScoreRequest
>>> hand, kw = hand_and_context(ScoreRequest(standing=["1m", "1m"], winning_tile="1m",
...     flowers=["2f"], self_drawn=True))
>>> hand.standing, hand.flowers, kw["self_drawn"], kw["flowers"]
(('1m', '1m', '1m'), ('2f',), True, 0)
"""

from __future__ import annotations

from typing import Any

import scoring
from tilecam.api.errors import ApiError
from tilecam.api.schemas import HandRequest, WinContext

#: Keyword names of scoring.score that a rule_context entry must not shadow.
_RESERVED = frozenset(
    {
        "hand", "rules", "version", "self_drawn", "last_of_kind", "kong", "last_wall_tile",
        "seat_wind", "prevalent_wind", "flowers", "discarder", "settings",
    }
)  # fmt: skip


def invalid_hand(exc: Exception) -> ApiError:
    """The 400 answer for a :class:`scoring.HandError`."""
    return ApiError(400, "invalid_hand", str(exc))


def build_hand(req: HandRequest) -> scoring.Hand:
    """The hand of ``req`` (notation or structured), flowers given as codes included, its
    meld tiles read as the rules read them under ``req.rule_context``
    (:func:`scoring.stand_ins`: a Xiamen meld's tile of the gold's kind is a 白板, so a
    hand may hold it and four golds)."""
    flower_codes = tuple(req.flowers) if isinstance(req.flowers, list) else ()
    try:
        melded_as = scoring.stand_ins(req.rules, **req.rule_context)
        if req.hand is not None:
            hand = scoring.parse_hand(req.hand, melded_as=melded_as)
            if flower_codes:
                hand = scoring.Hand(hand.melds, hand.standing, hand.flowers + flower_codes,
                                    melded_as=hand.melded_as)
            return hand
        melds = [
            scoring.Meld(m.kind, tuple(m.tiles), m.claimed_from, m.claimed_index, m.added)
            for m in req.melds
        ]
        return scoring.Hand.from_tiles(
            req.standing or (), melds=melds, winning_tile=req.winning_tile, flowers=flower_codes,
            melded_as=melded_as,
        )
    except scoring.HandError as exc:
        raise invalid_hand(exc) from None


def context_kwargs(ctx: WinContext, *, win: bool = True) -> dict[str, Any]:
    """Keyword arguments of :func:`scoring.score` (``win``) or :func:`scoring.waits`."""
    clash = sorted(_RESERVED.intersection(ctx.rule_context))
    if clash:
        raise ApiError(
            400,
            "invalid_context",
            f"rule_context may not set {', '.join(clash)}; give them as top-level fields",
        )
    kw: dict[str, Any] = {
        "rules": ctx.rules,
        "version": ctx.version,
        "seat_wind": ctx.seat_wind,
        "prevalent_wind": ctx.prevalent_wind,
        "settings": ctx.settings,
        **ctx.rule_context,
    }
    if win:
        kw.update(
            self_drawn=ctx.self_drawn,
            last_of_kind=ctx.last_of_kind,
            kong=ctx.kong,
            last_wall_tile=ctx.last_wall_tile,
            discarder=ctx.discarder,
        )
    return kw


def hand_and_context(req: HandRequest, *, win: bool = True) -> tuple[scoring.Hand, dict[str, Any]]:
    """``(hand, kwargs)`` ready for ``scoring.score(hand, **kwargs)`` (or ``waits``); the
    context checked first (400 ``invalid_context``), then the hand (400 ``invalid_hand``)."""
    kw = context_kwargs(req, win=win)
    kw["flowers"] = req.flowers if isinstance(req.flowers, int) else 0
    try:
        scoring.check_context(**kw)
        if isinstance(req.flowers, list) and req.flowers:  # the field as codes: the same check
            scoring.check_context(**{**kw, "flowers": len(req.flowers)})
    except scoring.HandError as exc:
        raise ApiError(400, "invalid_context", str(exc)) from None
    return build_hand(req), kw
