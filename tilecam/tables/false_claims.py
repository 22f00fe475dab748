"""A win declared that is none — 错和 or 诈和 — where the rules play the hand on after it.

Seed 003 (六、错和与诈和的处理) and seed 001 (诈胡): the claimant pays the penalty, may not
win the hand (停和) and the same hand is played on (该盘继续比赛). On a score sheet the
claim is a record of its own that takes no place of the deal
(:class:`tilecam.tables.flow.DealWalk`): the record that follows is the hand's real end.
This module says which penalty a claim draws when the referee does not name it.

MCR tells the penalties apart by how far the claimed hand is from a win (seed 003):

- 错和 (``wrong_win``, 10 to each): a winning shape short of the 8 fan (起和分);
- 和错牌 (same penalty as 错和): ready, but the claimed tile is none of its waits;
- 诈和 (``false_win``, 20 to each): one tile short of ready (尚差一张牌才能听牌);
- 有意诈和 (two or more tiles short): disqualification, which the ruling does not book;
  it books 诈和 and says so (the referee books the ``disqualification`` penalty apart).

A rule set with one kind (Zhenjiang 诈胡) always books that one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Ruling:
    """The penalty ``kind`` a false claim draws and ``why`` (text for the note)."""

    kind: str
    why: str


def claim_kind(rules: str, hand_text: str | None, total: int | None,
               legal: bool | None, version: str | None = None,
               context: Mapping[str, Any] | None = None) -> Ruling | None:
    """The penalty a false claim of ``hand_text`` (notation, the claimed tile last) draws
    under ``rules``, from what the scorer made of it (``total`` None: it refused the hand;
    ``legal``); None when it cannot be told (no hand, a hand the scorer found legal, tile
    counts that make no hand, a winning tile the scorer refused for another reason such
    as an impossible win context; under a rule set of one penalty, any hand the scorer
    refused) — the referee names it then: ruling a legal win a false claim is the
    referee's word, never inferred. ``context``: the hand's rule-set context, which says
    how the rules read its meld tiles (:func:`tilecam.tables.scoring_bridge.stand_ins`).

    >>> claim_kind("mcr", "123m456p789s11z23z4z", None, None).kind  # 诈和: 1 short of ready
    'false_win'
    >>> claim_kind("mcr", "123m456p789s11z22z3z", None, None).kind  # waits 1z 2z: 和错牌
    'wrong_win'
    >>> claim_kind("mcr", "123m234p789s11z23p1p", 3, False).why
    'a winning shape short of the minimum fan (错和)'
    >>> claim_kind("mcr", "123456789m1235p5p", None, None) is None  # 5p wins: not 和错牌
    True
    >>> claim_kind("zhenjiang", "111m222p333s44z5z67z", 0, False).kind  # no win: 诈胡
    'false_win'
    >>> claim_kind("zhenjiang", "111m222p333s44z5z67z", None, None) is None  # refused
    True
    """
    import scoring

    rule_set = scoring.get_rule_set(rules)
    kinds = rule_set.false_claim_kinds
    if not kinds or legal:
        return None
    if len(kinds) == 1:  # when the scorer made a hand of it, short of a win (legal False)
        return (Ruling(next(iter(kinds)), f"{rule_set.title} has one penalty for a false "
                       "claim") if legal is False else None)
    if hand_text is None:
        return None
    if total is not None:
        return Ruling("wrong_win", "a winning shape short of the minimum fan (错和)")
    try:  # parsed as the rules read it under the hand's context (stand-ins)
        from tilecam.tables.scoring_bridge import stand_ins

        hand = scoring.parse_hand(hand_text, melded_as=stand_ins(rules, context))
        if not hand.standing:
            return None
        scoring.score(hand, rules=rules, version=version)
        return None  # the tiles form a win: the scorer refused the claim for something else
    except scoring.NotAWinningHand:
        pass
    except ValueError:
        return None
    try:
        short = scoring.Hand(hand.melds, hand.standing[:-1], hand.flowers,
                             melded_as=hand.melded_as)
        waits = scoring.waits(short, rules=rules, version=version)
    except ValueError:
        return None
    tile = hand.standing[-1]
    if waits.ready:
        return Ruling("wrong_win", f"ready, but {tile} is none of its waits (和错牌, "
                                   "penalized as 错和)")
    if waits.shanten == 1:
        return Ruling("false_win", f"one tile short of ready without {tile} (诈和)")
    return Ruling("false_win", f"{waits.shanten} tiles short of ready without {tile}: seed "
                               "003 rules that 有意诈和 (disqualification: book it apart, "
                               "penalty kind disqualification); booked as 诈和")
