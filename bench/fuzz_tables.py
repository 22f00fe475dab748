"""Random referee and automatic-table sessions against the score-sheet API, checked
against a model of the sheet kept here (the bad-input and no-lost-data promises for
tables).

Each seed opens an event with one table per rule set (MCR, Xiamen, Zhenjiang) — half the
tables with random rule-set settings (:func:`random_settings`; now and then ones that must
be refused: unknown, negative, of the wrong type or past 10⁹) — and sends
a random sequence of the table endpoints: hands posted by the table key or the admin key
(random MCR wins from :func:`scoring.mcr.samples.random_win`, draws, hands under 8 fan,
malformed notation, impossible seats, re-sends of a recorded ``number`` with the same or
other content, places out of order, a hand past the session's end), referee corrections
and voids, rulings that a hand was a false claim (错和/诈和; now and then the claimant then
declares a win again in the hand played on), penalties and their voids, and bursts of
camera frames (``POST .../frames``, read by a
scripted camera in the recognizer's place: the hand on the table, that hand re-read a tile
or a flower otherwise, a hand not complete, play, an empty table, a new hand, notation
that does not parse, seats that contradict each other). After every request:

* the answer is a result or a clear JSON error (no 5xx, an ``error`` object on 4xx); a
  player's name or a hand's note holding U+0000 (which PostgreSQL cannot store) is 422;
* where the model knows the answer it must match: a re-send of the same content is
  ``200`` with ``created`` false, other content at a recorded place, a place out of
  order, a hand past the session's end, voiding a void hand or penalty are ``409``; a
  hand or penalty that
  does not exist is ``404``;
* a refused request changes nothing; an accepted one changes exactly its hand or
  penalty;
* a frame's answer (``waiting``, ``recorded`` with the next place, ``already_recorded``
  with the place of the camera's own hand) follows :class:`CameraModel`, the camera rule
  as the README states it; a frame with contradicting seats is 400 and one that would
  record a hand past the session's end 409, both changing nothing; a recorded hand is the
  frame's hand, from
  the camera, with its frame kept, and settled only when the camera was sure (score
  confidence 0.5 or more) and knew who pays;

and after every few requests the sheet is read back and compared with the model:

* every hand's current revision, its revision count and the seats, round wind and
  dealer's streak of its place (:func:`model_places`, the deal as the README states it:
  MCR the rotation of seed 003 written out here, 东南走之字, 西北转上, no consecutive
  dealership; Xiamen 连庄 and 臭庄; Zhenjiang 黄牌庄家不变 and four rounds);
* after a correction, void or false-claim ruling that moves the deal, every later hand
  it moves (and no other) scored again: one ``reseat`` revision, seated as the model
  says, the same winner seat, a pending hand still pending, a false claim's penalty on
  whoever holds the claimant's seat now;
* a false claim (MCR, Zhenjiang; Xiamen refuses it, 400): the claimant pays the penalty
  to each other player — MCR 10 for 错和 and 20 for 诈和, Zhenjiang its 诈胡 chips, or the
  referee's points — the record takes no place of the deal (the next record is dealt by
  the same dealer; MCR's 16 places do not count it), and the claimant's win in the hand
  played on is never settled (停和);
* a settled Xiamen win's 底: 8, or the dealer's 16 doubled for each hand in a row the
  dealer won before and each drawn hand in a row before (the streak the sheet fills in;
  the table's settings change each number), and no payer paying more chips than they
  have (unless the table's ``cap_at_stack`` is off);
* an MCR win's points, from its total: 8 + total from each other player on a self-draw,
  8 + total from the discarder and 8 from the two others on a discard (8: the table's
  ``base_points``), never under the table's ``min_fan``; every hand sums to 0; draws,
  voids and pending hands score 0;
* penalties: 10 (错和) or 20 (诈和) to each other player on MCR, Xiamen 诈胡 in money apart
  from the chips (unless the referee says otherwise), a deduction from the
  offender only, a void penalty counts 0;
* ``/standings`` (totals, hand and penalty points, wins, self-draws, dealt-in, the
  pending, void and false-claim lists, ranks; a false claim's penalty among the penalty
  points), ``/sheet.csv`` and the event's standings agree with
  the model and with each other.

Usage::

    .venv/bin/python bench/fuzz_tables.py [--seed 0] [--steps 300] [--database postgres]

Exit status 1 when anything failed (each failure printed), else 0.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import io
import json
import random
import shutil
import sys
import tempfile
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
for _path in (REPO, REPO / "bench"):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

from fuzz_inputs import (  # noqa: E402  (bench/)
    ADMIN_KEY,
    Failures,
    check_response,
    random_hand,
    throwaway_app,
)

WINDS = ("E", "S", "W", "N")
#: Round seats (E, S, W, N of the round) → round-1 position, rounds 1-4 (seed 003).
ROUND_SEATS = ((0, 1, 2, 3), (1, 0, 3, 2), (2, 3, 1, 0), (3, 2, 0, 1))
MCR_PENALTY = {"wrong_win": 10, "false_win": 20}
#: the deductions (罚分) an MCR referee may take (seed 003 二、罚分: 7种罚分)
MCR_DEDUCTIONS = (5, 10, 20, 30, 40, 50, 60)
RULES = ("mcr", "xiamen", "zhenjiang")
#: How the deal goes on, written out from the README: (the dealer deals again after
#: winning 连庄, after a drawn hand or a void one, rounds in a session or None). MCR
#: follows the fixed schedule of :func:`seat_positions`.
DEALS = {"mcr": (False, False, 4), "xiamen": (True, True, None), "zhenjiang": (False, True, 4)}
#: The most hands a sheet takes when its deal can stay (README).
MOST_HANDS = 400
#: Chips each Xiamen player has at the start of a 课 (seed 000's 100筹码).
XIAMEN_STACK = 100
#: The largest setting a table takes (README): one beyond it is refused when the table
#: is opened.
MOST_SETTING = 10**9


def seat_positions(number: int) -> dict[str, int]:
    """Seat wind of hand ``number`` (1-16) → round-1 position: the dealer (E) is the
    player in the round seat ``hand_in_round - 1``, the others follow in play order.

    >>> seat_positions(6)
    {'E': 0, 'S': 3, 'W': 2, 'N': 1}
    """
    rnd, k = divmod(number - 1, 4)
    seats = ROUND_SEATS[rnd]
    return {w: seats[(k + j) % 4] for j, w in enumerate(WINDS)}


@dataclass(frozen=True)
class ModelPlace:
    """Where the model puts a hand: seat wind → position, the round's wind, and the
    dealer's streak (hands in a row won and dealt again, drawn hands in a row before)."""

    seats: dict[str, int]
    prevalent: str
    repeats: int
    draws: int
    round: int
    #: Xiamen: chips each position has before the hand in the current 课; None elsewhere
    stacks: tuple[int, ...] | None = None
    #: the hand's place in the deal (1, 2, …): a record ruled a false claim takes none
    index: int = 1
    #: seats that may not win this hand (停和): a false claim earlier in it, or a
    #: referee's bar on this record or an earlier one of the hand
    barred: tuple[str, ...] = ()


def model_places(rules: str, hands: list[HandState],
                 stack: int | None = XIAMEN_STACK,
                 bars: Mapping[int, Sequence[int]] | None = None) -> list[ModelPlace]:
    """The places of ``hands`` (hands 1..n in order) and of the next hand, from the deal
    as the README states it: after each hand the deal passes counter-clockwise unless
    the rule set keeps it (Xiamen: the dealer won, or a drawn or void hand; Zhenjiang: a
    drawn or void hand); a pending hand with no winner is taken to pass it. ``stack``:
    the chips each Xiamen player starts a 课 with. A record ruled a false claim (MCR,
    Zhenjiang: the hand is played on) takes no place: the record after it is the same
    hand, its claimant barred from winning it. ``bars``: record number → the positions a
    referee barred (停和) from winning the hand from that record on."""
    bars = bars or {}
    barred: tuple[str, ...] = ()  # seats that made a false claim in the hand played on
    if rules == "mcr":
        out, n = [], 1
        for i in range(len(hands) + 1):
            # past the session's end (a correction can move a hand there) the deal goes on:
            # a fifth round, East's, the players in their round-1 seats (README)
            seats = (seat_positions(n) if n <= 16 else
                     {w: ((n - 1) % 4 + j) % 4 for j, w in enumerate(WINDS)})
            barred = _with_bars(barred, bars.get(i + 1, ()), seats)
            out.append(ModelPlace(seats, WINDS[(n - 1) // 4 % 4], 0, 0, (n - 1) // 4 + 1,
                                  index=n, barred=barred))
            if i < len(hands) and hands[i].outcome == "false_claim":
                barred = _barred(barred, hands[i].winner)
            elif i < len(hands):
                n, barred = n + 1, ()
        return out
    on_win, on_draw, _ = DEALS[rules]
    out, passes, repeats, draws, index = [], 0, 0, 0, 1
    full = XIAMEN_STACK if stack is None else stack
    stacks = [full] * 4 if rules == "xiamen" else None
    for i in range(len(hands) + 1):
        dealer = passes % 4
        rnd = passes // 4 + 1
        barred = _with_bars(barred, bars.get(i + 1, ()),
                            {w: (dealer + j) % 4 for j, w in enumerate(WINDS)})
        out.append(ModelPlace({w: (dealer + j) % 4 for j, w in enumerate(WINDS)},
                              WINDS[(rnd - 1) % 4], repeats, draws, rnd,
                              None if stacks is None else tuple(stacks), index, barred))
        if i == len(hands):
            break
        hand = hands[i]
        if hand.outcome == "false_claim":  # the same hand is played on
            barred = _barred(barred, hand.winner)
            continue
        # a win held because its winner may not win the hand (停和) tells nobody's win
        winner = None if hand.outcome == "pending" and hand.winner in barred else hand.winner
        index, barred = index + 1, ()
        if stacks is not None:  # a 课: 100 chips each; a settled win moves them; when a
            if hand.outcome == "win":  # player has none left the next 课 starts afresh
                stacks = [c + p for c, p in zip(stacks, hand.points, strict=True)]
            if min(stacks) <= 0:
                stacks = [full] * 4
        if hand.outcome == "pending" and winner and on_win:
            stays = True  # a win held pending (诈胡 …) is not taken to stand: dealt again
        elif hand.outcome in ("win", "pending") and winner:
            stays = on_win and winner == "E"
            repeats, draws = (repeats + 1, draws) if stays else (0, 0)  # the streak keeps both
        elif hand.outcome in ("draw", "void") and on_draw:
            stays = True
            draws += hand.outcome == "draw"
        else:
            stays, repeats, draws = False, 0, 0
        passes += not stays
    return out


def each_pays(offender: int, each: int) -> list[int]:
    """错和/诈和 as the README states it: the offender (a position) pays ``each`` to every
    other player.

    >>> each_pays(2, 10)
    [10, 10, -30, 10]
    """
    return [-3 * each if p == offender else each for p in range(4)]


def _barred(barred: tuple[str, ...], claimant: str | None) -> tuple[str, ...]:
    """The seats barred after one more false claim, by ``claimant`` (None: not known)."""
    return barred if claimant is None or claimant in barred else (*barred, claimant)


def _with_bars(barred: tuple[str, ...], positions: Sequence[int],
               seats: Mapping[str, int]) -> tuple[str, ...]:
    """The seats barred once the players at ``positions`` are barred too (``seats``:
    seat wind → position at the hand)."""
    for pos in positions:
        wind = next(w for w, p in seats.items() if p == pos)
        barred = barred if wind in barred else (*barred, wind)
    return barred


def model_hand_records(table: TableState, number: int) -> range:
    """The records of the hand record ``number`` belongs to, told from the sheet's start:
    each record is a hand of the deal but one ruled a false claim, which the hand played
    on shares with the record after it (the hand in play is record ``len(hands) + 1``)."""
    hand_of: dict[int, int] = {}
    hand = 0
    for n in range(1, len(table.hands) + 2):
        hand_of[n] = hand
        hand += not (n in table.hands and table.hands[n].outcome == "false_claim")
    same = [n for n, h in hand_of.items() if h == hand_of[number]]
    return range(same[0], same[-1] + 1)


def offence_step(count: int) -> int:
    """MCR's points for a player's ``count``-th offence of a kind in one hand (seed 003:
    a warning, then 5, 10, 20, doubling on up to the largest deduction, 60)."""
    return ([0, 5, 10, 20] + [min(60, 20 << n) for n in range(1, count)])[count - 1]


def model_over(rules: str, place: ModelPlace, number: int) -> bool:
    """Whether the next hand, at ``place``, lies past the session's end."""
    rounds = DEALS[rules][2]
    if rules == "mcr":
        return place.index > 16
    return number > MOST_HANDS or (rounds is not None and place.round > rounds)


@dataclass
class HandState:
    """The model of one recorded hand: its current revision as the API answered it."""

    outcome: str
    points: list[int]
    revisions: int
    winner: str | None
    discarder: str | None
    self_drawn: bool
    first: dict[str, Any]  # the body first posted (for re-sends); {} for a camera's hand
    #: money apart from the points (Xiamen's bonus), by position; 0 each elsewhere
    money: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    #: what the scorer made of the hand: its total (None: refused) and legality
    total: int | None = None
    legal: bool | None = None


@dataclass
class TableState:
    """The model of one table's sheet."""

    id: int
    rules: str
    key: str
    names: list[str]
    hands: dict[int, HandState] = field(default_factory=dict)
    #: penalty id → (deltas by position, void, paid in money apart from the points)
    penalties: dict[int, tuple[list[int], bool, bool]] = field(default_factory=dict)
    camera: CameraModel = field(default_factory=lambda: CameraModel())
    #: hands after which the fuzzer moves on to a new table where the session has no end
    #: (Xiamen plays for a set time: a few dozen hands)
    played_for: int = 10**9
    #: the rule-set settings the table was opened with (:func:`random_settings`)
    settings: dict[str, Any] = field(default_factory=dict)
    #: the referee's 停和 rulings: penalty id → (record number, position, void); each is
    #: among ``penalties`` too (no points)
    bars: dict[int, tuple[int, int, bool]] = field(default_factory=dict)
    #: offences whose penalty grows with repeats in a hand: penalty id → (kind, position,
    #: record number, void); each is among ``penalties`` too
    offences: dict[int, tuple[str, int, int, bool]] = field(default_factory=dict)
    #: warnings (警告, and offences booked at their first step): penalty id → position
    warnings: dict[int, int] = field(default_factory=dict)
    #: 停赛: penalty id → position (void as its penalty is)
    disqualified: dict[int, int] = field(default_factory=dict)

    def rebook(self) -> None:
        """Every offence not void at the step of its repeat in its hand, counting the
        offences of the kind by the player booked before it and not void, over the
        records as they now chain (an earlier one made void, a false claim ruled or
        undone: the sheet books such offences again)."""
        seen: dict[tuple[str, int, int], int] = {}
        for pid in sorted(self.offences):
            kind, pos, number, void = self.offences[pid]
            if void:
                continue
            key = (kind, pos, model_hand_records(self, number).start)
            seen[key] = count = seen.get(key, 0) + 1
            each = offence_step(count)
            self.penalties[pid] = ([-each if i == pos else 0 for i in range(4)], False, False)
            if each == 0:
                self.warnings[pid] = pos
            else:
                self.warnings.pop(pid, None)

    def live_disqualified(self) -> set[int]:
        """The positions of the players disqualified (停赛) and not made void."""
        return {pos for pid, pos in self.disqualified.items() if not self.penalties[pid][1]}

    def setting(self, name: str) -> Any:
        """The table's value of the setting ``name`` (given, else the rule set's)."""
        from scoring.rulesets import get_rule_set

        return get_rule_set(self.rules).resolve_settings(self.settings)[name]

    def places(self) -> list[ModelPlace]:
        """The model's places of the recorded hands and of the next one."""
        stack = self.setting("chip_stack") if self.rules == "xiamen" else None
        bars: dict[int, list[int]] = {}
        for number, pos, void in self.bars.values():
            if not void:
                bars.setdefault(number, []).append(pos)
        return model_places(self.rules, [self.hands[n] for n in sorted(self.hands)], stack,
                            bars)

    def over(self) -> bool:
        """Whether the session is over (the next hand would lie past its end)."""
        return model_over(self.rules, self.places()[-1], len(self.hands) + 1)


@dataclass
class CameraModel:
    """The model of a table camera, from the rule as documented (README, "Camera
    frames"; ``tilecam.tables.stability``), kept as the frames it was sent rather than
    as the service's counters: a hand is recorded when its frame makes ``needed``
    frames in a row of the same complete hand (the same as the rules score it) that is
    not the hand recorded last, nor — with no gap of ``needed`` frames without a
    complete hand since that record — within a few tiles of it; the hand recorded last
    is forgotten once the table is seen empty ``needed`` frames in a row."""

    #: every frame the service took: (key of its complete hand or None, tiles seen)
    frames: list[tuple[str | None, int]] = field(default_factory=list)
    #: index in ``frames`` of the frame that recorded the last camera hand, and that hand
    recorded_at: int | None = None
    recorded: str | None = None
    recorded_number: int | None = None
    #: the hand on the table now: the body its frames come with (notation, seats, flags)
    scene: dict[str, Any] | None = None

    def decide(self, key: str | None, tiles: int, needed: int) -> str:
        """``record``, ``already_recorded`` or ``waiting`` for one more frame."""
        from tilecam.tables.scoring_bridge import reread_of

        if key is None:
            return "waiting"
        frames = [*self.frames, (key, tiles)]
        since = frames[self.recorded_at + 1:] if self.recorded_at is not None else frames
        recorded = None if self.recorded is None or _run_of(
            since, lambda f: f[1] == 0) >= needed else self.recorded
        if key == recorded:
            return "already_recorded"
        if recorded is not None:  # the recorded hand read again: it was never put away
            seen = [i for i, f in enumerate(since) if f[0] == recorded]
            since = since[seen[-1] + 1:] if seen else since
        gap = _run_of(since, lambda f: f[0] is None) >= needed
        if recorded is not None and not gap and reread_of(key, recorded):
            return "already_recorded"
        streak = 0
        for k, _ in reversed(frames):
            if k != key:
                break
            streak += 1
        return "record" if streak >= needed else "waiting"


def _run_of(frames: list[tuple[str | None, int]], test: Any) -> int:
    """The longest run of consecutive ``frames`` passing ``test``."""
    best = run = 0
    for f in frames:
        run = run + 1 if test(f) else 0
        best = max(best, run)
    return best


class SheetRun:
    """One seeded run: a client, the model, the failures."""

    def __init__(self, client: Any, rng: random.Random, failures: Failures,
                 seed: int = 0) -> None:
        self.client = client
        self.rng = rng
        #: the draws of the NUL probes, apart, so that they leave ``rng``'s sequence (and
        #: the runs that tests replay with planted bugs) as it was
        self.nul_rng = random.Random(f"nul {seed}")
        # Zhenjiang's 打首搭 / 碰后打搭 in a hand's context (sixty-fourth session): drawn from
        # a stream of their own, so the other draws of a seed stay as they were
        self.event_rng = random.Random(f"events {seed}")
        # false claims ruled by the referee (sixty-fifth session): a stream of their own
        self.claim_rng = random.Random(f"claims {seed}")
        # a referee's 停和 and warnings (sixty-sixth session): a stream of their own too
        self.bar_rng = random.Random(f"bars {seed}")
        self.failures = failures
        self.admin = {"Authorization": f"Bearer {ADMIN_KEY}"}
        self.answers: Counter[str] = Counter()
        self.camera = ScriptedCamera()
        self.jpeg = _tiny_jpeg()
        self.data_dir = Path(".")
        self.needed = 3  # the service's stable frame count (Settings.stable_frames)
        self.review_below = 0.5  # Settings.camera_review_below

    def call(self, name: str, method: str, path: str, headers: dict[str, str],
             body: Any = None) -> Any:
        response = self.client.request(method, path, headers=headers, json=body)
        # names read "table RULES OPERATION ...": count the answers by operation
        self.answers[f"{' '.join(name.split(' ')[2:4])} {response.status_code}"] += 1
        check_response(self.failures, f"{name} {json.dumps(body)[:160]}", response)
        return response

    def expect(self, name: str, response: Any, status: int,
               body: dict[str, Any] | None = None) -> bool:
        """Whether the answer has ``status`` (a failure noted when not); a ``body`` the
        schema refuses (flowers outside 0-8) must be answered 422 first."""
        if body is not None and not 0 <= body.get("flowers", 0) <= 8:
            status = 422
        if response.status_code != status:
            self.failures.add(f"{name}: expected {status}, got {response.status_code} "
                              f"{response.text[:200]}")
            return False
        return True

    # --- bodies -------------------------------------------------------------------------

    def win_body(self, table: TableState) -> dict[str, Any]:
        """A random MCR win in notation with seats and flags (legal or not under the
        table's rules; roughly one in six has an odd part)."""
        from scoring.mcr.samples import random_win
        from scoring.notation import format_hand

        rng = self.rng
        if table.rules == "mcr":
            hand, ctx = random_win(rng)
        elif table.rules == "xiamen" and rng.random() < 0.25:
            hand, ctx = you_jin_win(rng)
        else:
            hand, ctx = wild_win(rng, table.rules)
        winner = rng.choice(WINDS)
        body: dict[str, Any] = {"hand": format_hand(hand), "winner": winner,
                                "self_drawn": bool(ctx["self_drawn"])}
        if not body["self_drawn"]:
            body["discarder"] = rng.choice([w for w in WINDS if w != winner])
        for flag in ("last_of_kind", "kong", "last_wall_tile"):
            if ctx.get(flag):
                body[flag] = True
        if ctx["flowers"]:
            body["flowers"] = ctx["flowers"]
        if table.rules != "mcr":
            body["context"] = ctx["context"]
        if table.rules == "zhenjiang" and self.event_rng.random() < 0.4:
            body["context"] = {**body["context"],
                               **wild_discards(self.event_rng, winner, wild_room(hand, ctx))}
        r = rng.random()
        if r < 0.05:
            body["hand"] = random_hand(rng)
        elif r < 0.08:
            body.pop("winner")
        elif r < 0.11 and "discarder" in body:
            body["discarder"] = winner
        elif r < 0.13:
            body["discarder"] = rng.choice([w for w in WINDS if w != winner])
            body["self_drawn"] = True
        elif r < 0.15:
            body["flowers"] = rng.choice((9, -1))
        elif r < 0.17 and not body["self_drawn"]:
            body.pop("discarder")
        return body

    def hand_body(self, table: TableState) -> dict[str, Any]:
        r = self.rng.random()
        if r < 0.1:
            draw: dict[str, Any] = {"outcome": "draw"}
            if table.rules == "zhenjiang" and self.event_rng.random() < 0.5:
                draw["context"] = wild_discards(self.event_rng, None)  # 打首搭 / 碰后打搭
            return draw
        if r < 0.13:
            return {"outcome": "draw", "winner": self.rng.choice(WINDS)}
        if r < 0.16:  # 平和, 喜相逢, 单钓将: 4 fan, under 8 on MCR
            return {"hand": "[234m,1]456p678s234s99m", "winner": "S", "discarder": "E"}
        return self.win_body(table)

    # --- operations ---------------------------------------------------------------------

    def post_hand(self, table: TableState, body: dict[str, Any] | None = None) -> None:
        rng = self.rng
        body = self.hand_body(table) if body is None else body
        headers = self.admin if rng.random() < 0.3 else {
            "Authorization": f"Bearer {table.key}"}
        nxt = len(table.hands) + 1
        expected: int | None = None
        if rng.random() < 0.5:
            body["number"] = nxt
        elif rng.random() < 0.15:
            body["number"] = rng.choice((nxt + 1, nxt + rng.randint(2, 5)))
            expected = 409
        if table.over():
            expected = 409
        if self.nul_rng.random() < 0.03:  # text a sheet cannot store (U+0000): refused first
            body["note"] = "seen\x00 twice"
            expected = 422
        name = f"table {table.rules} post hand {nxt}"
        response = self.call(name, "POST", f"/v1/tables/{table.id}/hands", headers, body)
        if expected is not None:
            self.expect(name, response, expected, body)
        if response.status_code in (200, 201) and self.expect(name, response, 201):
            view = response.json()
            if view.get("number") != nxt:
                self.failures.add(f"{name}: recorded as hand {view.get('number')}")
            table.hands[nxt] = self.state_of(table, view, body)
            self.check_hand_view(table, nxt, view, body)

    def resend(self, table: TableState) -> None:
        """Re-send a recorded hand's first body: the same (200, nothing changes) or other
        content (409)."""
        posted = sorted(n for n, h in table.hands.items() if h.first)
        if not posted:  # a camera's hand was sent as frames, not a body to re-send
            return
        number = self.rng.choice(posted)
        state = table.hands[number]
        body = dict(state.first, number=number)
        same = self.rng.random() < 0.6
        if not same:
            body = dict(self.win_body(table), number=number)
            if _same_content(body, state.first):
                return
        name = f"table {table.rules} re-send hand {number} ({'same' if same else 'other'})"
        response = self.call(name, "POST", f"/v1/tables/{table.id}/hands",
                             {"Authorization": f"Bearer {table.key}"}, body)
        if same and self.expect(name, response, 200):
            view = response.json()
            if view.get("created") is not False:
                self.failures.add(f"{name}: created is {view.get('created')!r}")
            if view.get("revision") != state.revisions:
                self.failures.add(f"{name}: revision {view.get('revision')}, model "
                                  f"{state.revisions}")
        elif not same:
            self.expect(name, response, 409, body)

    def correct(self, table: TableState) -> None:
        rng = self.rng
        number = rng.choice([*table.hands, len(table.hands) + 1, 17])
        # the hand's full content: a field a correction leaves out keeps its value, and
        # the model scores the body as the whole hand
        body = {**FULL_REPORT, **self.hand_body(table), "reason": "referee looked again"}
        name = f"table {table.rules} correct hand {number}"
        response = self.call(name, "POST", f"/v1/tables/{table.id}/hands/{number}/corrections",
                             self.admin, body)
        if number not in table.hands:
            self.expect(name, response, 404, body)
            return
        if response.status_code == 201:
            view = response.json()
            old = table.hands[number]
            new = self.state_of(table, view, body)
            new.first = old.first
            if new.revisions != old.revisions + 1:
                self.failures.add(f"{name}: revision {new.revisions} after {old.revisions}")
            before = table.places()
            table.hands[number] = new
            table.rebook()  # a ruling undone: the hand played on is a hand of its own
            self.check_hand_view(table, number, view, body)
            self.check_reseats(table, number, before)

    def void(self, table: TableState) -> None:
        if not table.hands:
            return
        number = self.rng.choice(sorted(table.hands))
        state = table.hands[number]
        name = f"table {table.rules} void hand {number}"
        response = self.call(name, "POST", f"/v1/tables/{table.id}/hands/{number}/void",
                             self.admin, {"reason": "misdeal"})
        if state.outcome in ("void", "false_claim"):  # a void would give a claim a place
            self.expect(name, response, 409)
        elif self.expect(name, response, 201):
            before = table.places()
            table.hands[number] = HandState("void", [0, 0, 0, 0], state.revisions + 1,
                                            state.winner, state.discarder, state.self_drawn,
                                            state.first, [0, 0, 0, 0])
            self.check_reseats(table, number, before)

    def false_claim(self, table: TableState) -> None:
        """The referee rules a hand a false claim (错和/诈和): where the rules play the hand
        on (MCR, Zhenjiang) the record keeps the claimant's penalty — MCR 10 (错和) or 20
        (诈和) to each other player, Zhenjiang its 诈胡 chips — and takes no place of the
        deal; Xiamen (the hand is dealt again) refuses it; so does a draw, a void hand, a
        claim already ruled, a claimant not known, or a penalty the rules do not have."""
        rng = self.claim_rng
        number = (len(table.hands) if table.hands and rng.random() < 0.7
                  else rng.choice([*table.hands, len(table.hands) + 1]))
        body: dict[str, Any] = {"reason": "ruled by the referee"}
        if rng.random() < 0.6:
            body["kind"] = rng.choice(("wrong_win", "false_win"))
        if rng.random() < 0.3:
            body["points"] = rng.randint(1, 40)
        name = f"table {table.rules} false-claim hand {number}"
        response = self.call(name, "POST",
                             f"/v1/tables/{table.id}/hands/{number}/false-claim", self.admin,
                             body)
        state = table.hands.get(number)
        kind = body.get("kind")
        if table.rules == "xiamen":  # the hand is dealt again: no ruling to make
            self.expect(name, response, 400)
            return
        if state is None:
            self.expect(name, response, 404)
            return
        if state.outcome not in ("win", "pending"):  # a draw, a void, a claim ruled
            self.expect(name, response, 409)
            return
        if state.winner is None or (table.rules == "zhenjiang" and kind == "wrong_win"):
            self.expect(name, response, 400)
            return
        if kind is None and state.legal:  # a legal win: a false claim on the referee's word
            self.expect(name, response, 400)
            return
        if kind is None and state.total is None and response.status_code != 201:
            return  # a reading the scorer refused: the record may not tell which penalty
        if not self.expect(name, response, 201):
            return
        view = response.json()
        place = table.places()[number - 1]
        if kind is None and table.rules == "mcr" and state.total is not None:
            kind = "wrong_win"  # a winning shape short of the minimum: 错和
        got = [int(view["points"][n]) for n in table.names]
        if "points" in body:
            each = body["points"]
        elif table.rules == "zhenjiang":
            each = table.setting("false_win") * table.setting("base_chip")
        elif kind is None:  # a reading the scorer refused: 和错牌 (10) or 诈和 (20)
            each = 10 if 10 in got else 20
        else:
            each = MCR_PENALTY[kind]
        claimant = place.seats[state.winner]
        model = each_pays(claimant, each)
        if (view.get("outcome"), view.get("revision"), got) != (
                "false_claim", state.revisions + 1, model):
            self.failures.add(f"{name} {body}: {view.get('outcome')} rev "
                              f"{view.get('revision')} {got}, model false_claim rev "
                              f"{state.revisions + 1} {model}")
        self.answers[f"false claim ruled ({table.rules})"] += 1
        before = table.places()
        table.hands[number] = dataclasses.replace(self.state_of(table, view, state.first),
                                                  first=state.first)
        table.rebook()  # the hand played on is this one: its offences count together
        self.check_place(name, view, place, table)
        self.check_reseats(table, number, before)
        if rng.random() < 0.8 and number == len(table.hands):
            # the claimant declares a win again in the hand played on: 停和, held pending
            saved, self.rng = self.rng, rng
            try:
                body = self.win_body(table)
                for _ in range(3):  # a plain legal-looking win (no odd part) now and then
                    if "winner" in body and 0 <= body.get("flowers", 0) <= 8:
                        break
                    body = self.win_body(table)
                body["winner"] = state.winner
                if body.get("discarder") == state.winner:
                    body["discarder"] = next(w for w in WINDS if w != state.winner)
                self.post_hand(table, body)
                after = table.hands.get(number + 1)
                self.answers["claimant's win in the hand played on: "
                             f"{after.outcome if after else 'not recorded'}"] += 1
            finally:
                self.rng = saved

    def check_reseats(self, table: TableState, changed: int, before: list[ModelPlace]) -> None:
        """After hand ``changed`` got a new revision: every later hand that the model's
        deal now places otherwise (seats, round wind or the dealer's streak) and that is
        not void must have been scored again (one ``reseat`` revision, seated as the model
        says, the same winner seat, a pending hand still pending); every other hand must
        be as it was (the sheet check compares their revisions)."""
        for number in sorted(n for n in table.hands if n > changed):
            # in sheet order: a hand scored again moves the chips of the hands after it
            old, new = before[number - 1], table.places()[number - 1]
            state = table.hands[number]
            moved = (old.seats, old.prevalent, old.repeats, old.draws, old.stacks) != (
                new.seats, new.prevalent, new.repeats, new.draws, new.stacks)
            # who may not win the hand matters to a win (or a held one) of one seat alone
            moved = moved or (state.outcome in ("win", "pending") and state.winner is not None
                              and (state.winner in old.barred) != (state.winner in new.barred))
            if state.outcome == "void" or not moved:
                continue
            self.answers["reseat (hands scored again)"] += 1
            name = f"table {table.rules} hand {number} after hand {changed} changed"
            view = self.client.get(f"/v1/tables/{table.id}/hands/{number}",
                                   headers=self.admin).json()
            seats = {w: table.names[p] for w, p in new.seats.items()}
            winner = (view.get("winner") or {}).get("seat")
            if (view.get("revision"), view.get("action"), view.get("seats"), winner) != (
                    state.revisions + 1, "reseat", seats, state.winner):
                self.failures.add(f"{name}: revision {view.get('revision')} "
                                  f"{view.get('action')} seats {view.get('seats')} winner "
                                  f"{winner}, model {state.revisions + 1} reseat {seats} "
                                  f"{state.winner}")
            if state.outcome == "pending" and view.get("outcome") != "pending":
                self.failures.add(f"{name}: a pending hand became {view.get('outcome')}")
            if state.outcome == "false_claim" and state.winner is not None:
                each = max(state.points)  # the same penalty, on whoever holds the seat
                model = each_pays(new.seats[state.winner], each)
                got = [int(view["points"][n]) for n in table.names]
                if (view.get("outcome"), got) != ("false_claim", model):
                    self.failures.add(f"{name}: false claim reads {view.get('outcome')} "
                                      f"{got}, model {model}")
                table.hands[number] = dataclasses.replace(
                    self.state_of(table, view, state.first), first=state.first)
                continue
            table.hands[number] = dataclasses.replace(
                self.state_of(table, view, state.first), first=state.first)
            # the hand's current content (a correction may have replaced the first body)
            body = ({"outcome": "draw", "context": view["context"]} if state.outcome == "draw" else
                    {"hand": view["hand"], "winner": state.winner, "discarder": state.discarder,
                     "self_drawn": state.self_drawn, "context": view["context"]})
            self.check_hand_view(table, number, view, body)

    def penalty(self, table: TableState) -> None:
        rng = self.rng
        kind = rng.choice(("wrong_win", "false_win", "deduction", "payment"))
        player: int | str = rng.randrange(4)
        pos = int(player)
        if rng.random() < 0.5:
            player = table.names[pos]
        body: dict[str, Any] = {"player": player, "kind": kind}
        if rng.random() < 0.5 or kind in ("deduction", "payment"):
            body["points"] = rng.randint(1, 60)
        to = rng.choice([i for i in range(4) if i != pos])
        if kind == "payment":  # now and then one to the payer himself, or to nobody
            r = rng.random()
            body["to"] = (pos if r < 0.05 else None if r < 0.1 else
                          table.names[to] if r < 0.55 else to)
            if body["to"] is None:
                body.pop("to")
        elif rng.random() < 0.05:
            body["to"] = to
        if rng.random() < 0.4:
            body["hand"] = rng.randint(1, 18)
        if rng.random() < 0.1:
            body["money"] = rng.random() < 0.5
        name = f"table {table.rules} penalty"
        response = self.call(name, "POST", f"/v1/tables/{table.id}/penalties", self.admin,
                             body)
        # money apart: Xiamen only; its 诈胡 is paid so unless the referee says otherwise
        money = body.get("money", table.rules == "xiamen" and kind == "false_win"
                          and "points" not in body)
        if money and table.rules != "xiamen":
            self.expect(name, response, 400)
        if (kind == "payment") != ("to" in body) or body.get("to") in (pos, table.names[pos]):
            self.expect(name, response, 400, body)  # a payment names another player; only it
        if (table.rules == "mcr" and kind == "deduction"
                and body["points"] not in MCR_DEDUCTIONS):
            self.expect(name, response, 400, body)  # seed 003: 5, 10, 20 … 60 points
        if response.status_code != 201:
            return
        if response.json().get("money") is not money:
            self.failures.add(f"{name} {body}: money {response.json().get('money')}, "
                              f"model {money}")
        each = body.get("points") or (MCR_PENALTY[kind] if table.rules == "mcr" else None)
        view = response.json()
        if each is None:  # a rule set's own default (Zhenjiang 诈胡): take the answer's
            each = view["points"]
        if kind == "payment":
            paid = body["to"] if isinstance(body["to"], int) else table.names.index(body["to"])
            deltas = [-each if i == pos else each if i == paid else 0 for i in range(4)]
            if view.get("to") != table.names[paid]:
                self.failures.add(f"{name} {body}: paid to {view.get('to')}")
        elif kind == "deduction":
            deltas = [-each if i == pos else 0 for i in range(4)]
        else:
            deltas = each_pays(pos, each)
        got = [view["deltas"][n] for n in table.names]
        if got != deltas:
            self.failures.add(f"{name} {body}: deltas {got}, model {deltas}")
        table.penalties[view["id"]] = (deltas, False, bool(money))

    def bar(self, table: TableState) -> None:
        """A referee's 停和 (``bar``: the player may not win the hand from the record named
        on), a warning (警告), or a bar made void. Neither moves points; a bar holds the
        player's win there pending (its record scored again when recorded already, and
        again when the bar is void: then it stays pending for the referee); a bar names a
        hand on the sheet or in play, a player not barred from it already, and no points."""
        rng = self.bar_rng
        live = [pid for pid, (_, _, void) in table.bars.items() if not void]
        if live and rng.random() < 0.3:
            pid = rng.choice(live)
            number, pos, _ = table.bars[pid]
            name = f"table {table.rules} void bar {pid}"
            before = table.places()
            response = self.call(name, "POST", f"/v1/tables/{table.id}/penalties/{pid}/void",
                                 self.admin, {"reason": "appeal upheld"})
            if self.expect(name, response, 200):
                table.bars[pid] = (number, pos, True)
                table.penalties[pid] = ([0, 0, 0, 0], True, False)
                self.answers["bar made void"] += 1
                self.check_reseats(table, number - 1, before)
            return
        r = rng.random()
        kind = ("bar" if r < 0.5 else "warning" if r < 0.6 else
                "disqualification" if r < 0.65 else
                rng.choice(("empty_claim", "early_draw", "slow_pung")))
        offence = kind in ("empty_claim", "early_draw", "slow_pung")
        pos = rng.randrange(2 if offence else 4)  # offences: two players, to see repeats
        r = rng.random()
        number = (len(table.hands) + 1 if r < (0.8 if offence else 0.5) else
                  max(1, len(table.hands)) if r < 0.9 else
                  rng.randint(1, len(table.hands) + 2))
        # an offence is often repeated in the hand (the scale of seed 003 then shows)
        for _ in range(rng.randint(1, 5) if offence else 1):
            body: dict[str, Any] = {"player": table.names[pos] if rng.random() < 0.5 else pos,
                                    "kind": kind, "hand": number, "reason": "错碰"}
            if rng.random() < 0.05:
                body["points"] = 5
            if rng.random() < 0.05:
                body.pop("hand")
            self.ruling(table, body, pos, number)

    def ruling(self, table: TableState, body: dict[str, Any], pos: int, number: int) -> None:
        """Book the ruling ``body`` (:meth:`bar`) on player ``pos`` at record ``number``;
        its answer against the model."""
        kind = body["kind"]
        offence = kind in ("empty_claim", "early_draw", "slow_pung")
        name = f"table {table.rules} {kind} hand {body.get('hand')}"
        before = table.places()
        response = self.call(name, "POST", f"/v1/tables/{table.id}/penalties", self.admin,
                             body)
        most = len(table.hands) + (not table.over())
        if "points" in body or (kind not in ("warning", "disqualification")
                                and "hand" not in body) or not (
                1 <= number <= most) or (offence and table.rules != "mcr"):
            self.expect(name, response, 400, body)
            return
        if kind == "disqualification" and pos in table.live_disqualified():
            self.expect(name, response, 409, body)  # 停赛 once
            return
        def barred_at(n: int) -> bool:
            at = before[n - 1]
            return next(w for w, p in at.seats.items() if p == pos) in at.barred

        if kind == "bar" and any(barred_at(n) for n in model_hand_records(table, number)):
            self.expect(name, response, 409, body)  # barred from the hand already
            return
        if not self.expect(name, response, 201, body):
            return
        view = response.json()
        each = 0
        if offence:  # seed 003: a warning, then 5, 10, 20, doubling up to 60, in one hand
            records = model_hand_records(table, number)
            count = 1 + sum(1 for o_kind, o_pos, o_hand, void in table.offences.values()
                            if (o_kind, o_pos) == (kind, pos) and not void
                            and o_hand in records)
            each = offence_step(count)
            table.offences[view["id"]] = (kind, pos, number, False)
        deltas = [-each if i == pos else 0 for i in range(4)]
        got = (view.get("kind"), view.get("points"), [view["deltas"][n] for n in table.names])
        if got != (kind, each, deltas):
            self.failures.add(f"{name} {body}: {got}, model ({kind}, {each}, {deltas})")
        table.penalties[view["id"]] = (deltas, False, False)
        if kind == "warning" or (offence and each == 0):
            table.warnings[view["id"]] = pos
        if kind == "disqualification":
            table.disqualified[view["id"]] = pos
        self.answers[kind if not offence else f"{kind} step {each}"] += 1
        if kind == "bar":
            table.bars[view["id"]] = (number, pos, False)
            was = table.hands.get(number)
            self.check_reseats(table, number - 1, before)
            if was and was.outcome == "win" and table.hands[number].outcome == "pending":
                self.answers["bar held a recorded win"] += 1

    def frames(self, table: TableState) -> None:
        """A few camera frames in a row (a camera sends them a second apart)."""
        for _ in range(self.rng.randint(1, 5)):
            self.frame(table)

    def frame(self, table: TableState) -> None:
        """One camera frame (:func:`scripted_frame`) sent with its scene's seats; its
        answer and any hand it records against :class:`CameraModel`."""
        from tilecam.tables.camera import FrameReading

        rng, cam = self.rng, table.camera
        if cam.scene is None or rng.random() < 0.12:
            cam.scene = self.win_body(table)
            cam.scene.pop("flowers", None)
            cam.scene.pop("number", None)
        scene = cam.scene
        shown = scripted_frame(rng, scene["hand"], table.rules)
        self.camera.next = FrameReading(shown.hand, shown.complete, shown.tiles,
                                        shown.recognized)
        fields = frame_fields(scene)
        seats_ok = not scene.get("discarder") or (
            scene.get("winner") not in (None, scene["discarder"]) and not scene["self_drawn"])
        decision = cam.decide(shown.key, shown.tiles, self.needed) if seats_ok else "refused"
        name = f"table {table.rules} frame {decision}"
        response = self.client.post(
            f"/v1/tables/{table.id}/frames", headers={"Authorization": f"Bearer {table.key}"},
            data=fields, files={"image": ("frame.jpg", self.jpeg, "image/jpeg")})
        self.answers[f"frame {decision} {response.status_code}"] += 1
        check_response(self.failures, f"{name} {shown.hand} {fields}", response)
        nxt = len(table.hands) + 1
        if decision == "refused" or (decision == "record" and table.over()):
            # seats that contradict each other: 400 on every frame; past the session's end: 409
            self.expect(name, response, 400 if decision == "refused" else 409)
            return  # refused: the frame changed nothing
        if (decision == "record" and response.status_code == 400
                and "more than the sheet records" in response.text):
            return  # the table's settings make the hand too large to keep: nothing changed
        if response.status_code != 200:
            self.failures.add(f"{name} {shown.hand}: {response.status_code} "
                              f"{response.text[:200]}")
            return
        got = response.json()
        want = ("recorded" if decision == "record" else decision, shown.text,
                shown.key is not None,
                {"record": nxt, "already_recorded": cam.recorded_number}.get(decision))
        if (got["status"], got["hand"], got["complete"], got["hand_number"]) != want:
            self.failures.add(f"{name} {shown.hand}: answered {got['status']} {got['hand']} "
                              f"complete={got['complete']} hand {got['hand_number']}, model "
                              f"{want[0]} {want[1]} complete={want[2]} hand {want[3]}")
        cam.frames.append((shown.key, shown.tiles))
        if decision == "record" and got["status"] == "recorded":
            cam.recorded_at, cam.recorded, cam.recorded_number = (
                len(cam.frames) - 1, shown.key, nxt)
            body = {k: v for k, v in scene.items() if k != "context"} | {"hand": shown.text}
            events = {k: v for k, v in (scene.get("context") or {}).items()
                      if k in ("first_wild_discard", "wild_after_pung")}
            if events:  # Zhenjiang's 打首搭 / 碰后打搭 reach the sheet from a camera too
                body["context"] = events
            table.hands[nxt] = self.state_of(table, got["recorded"], body)
            table.hands[nxt].first = {}
            self.check_camera_hand(table, nxt, got["recorded"], body, shown.recognized)
            self.check_hand_view(table, nxt, got["recorded"], body)

    def check_camera_hand(self, table: TableState, number: int, view: dict[str, Any],
                          body: dict[str, Any], recognized: dict[str, Any]) -> None:
        """A hand the camera recorded: its source, notation, kept frame, and held for a
        referee when the seats or the reading's confidence call for it."""
        name = f"table {table.rules} camera hand {number}"
        if (view.get("source"), view.get("hand")) != ("camera", body["hand"]):
            self.failures.add(f"{name}: source {view.get('source')} hand {view.get('hand')}")
        ref = view.get("image_ref")
        if not ref or not (self.data_dir / ref).is_file():
            self.failures.add(f"{name}: frame not kept ({ref})")
        unsure = recognized.get("score_confidence", 1.0) < self.review_below
        # a win is settled when the camera is sure and it knows who pays: the winner, and
        # the discarder unless self-drawn
        known = bool(body.get("winner") and (body.get("self_drawn") or body.get("discarder")))
        if view["outcome"] == "win" and (unsure or not known):
            self.failures.add(f"{name}: settled with confidence "
                              f"{recognized.get('score_confidence')}, seats {body}")
        barred = body.get("winner") in table.places()[number - 1].barred  # 停和
        if view["outcome"] == "pending" and not unsure and known and view.get("legal") \
                and not barred:
            self.failures.add(f"{name}: a legal, sure win with its seats left pending: "
                              f"{body} ({view.get('note')})")

    def void_penalty(self, table: TableState) -> None:
        ids = sorted(p for p in table.penalties if p not in table.bars)  # bars: :meth:`bar`
        # and an id no penalty has (past every id: one past the others' could be a bar's)
        pid = self.rng.choice([*ids, max([*table.penalties, 0]) + 100])
        name = f"table {table.rules} void penalty {pid}"
        response = self.call(name, "POST", f"/v1/tables/{table.id}/penalties/{pid}/void",
                             self.admin, {"reason": "appeal upheld"})
        if pid not in table.penalties:
            self.expect(name, response, 404)
        elif table.penalties[pid][1]:
            self.expect(name, response, 409)
        elif self.expect(name, response, 200):
            table.penalties[pid] = (table.penalties[pid][0], True, table.penalties[pid][2])
            if pid in table.offences:
                table.offences[pid] = (*table.offences[pid][:3], True)
                table.rebook()  # the later ones of its hand step down

    # --- the model's view of an answer --------------------------------------------------

    def state_of(self, table: TableState, view: dict[str, Any],
                 body: dict[str, Any]) -> HandState:
        """The model's hand from an answered hand view (points in the table's order)."""
        winner = (view.get("winner") or {}).get("seat")
        discarder = (view.get("discarder") or {}).get("seat")
        points = [int(view["points"][n]) for n in table.names]
        money = [int(view.get("money", {}).get(n, 0)) for n in table.names]
        return HandState(view["outcome"], points, int(view["revision"]), winner, discarder,
                         bool(view["context"].get("self_drawn")), dict(body), money,
                         view.get("total"), view.get("legal"))

    def check_hand_view(self, table: TableState, number: int, view: dict[str, Any],
                        body: dict[str, Any]) -> None:
        """One answered hand against the rules the model knows."""
        name = f"table {table.rules} hand {number}"
        place = table.places()[number - 1]
        self.check_place(name, view, place, table)
        points, money = table.hands[number].points, table.hands[number].money
        if sum(points) != 0 or sum(money) != 0:
            self.failures.add(f"{name}: points {points} or money {money} do not sum to 0")
        if ("money" in view) != (table.rules == "xiamen"):
            self.failures.add(f"{name}: money {view.get('money')} on a {table.rules} table")
        if view["outcome"] != "win" and any(money):
            self.failures.add(f"{name}: a {view['outcome']} hand pays money {money}")
        outcome = view["outcome"]
        if outcome == "false_claim":
            return  # its penalty is checked where it is ruled (:meth:`false_claim`)
        if outcome == "win" and body.get("winner") in place.barred:
            self.failures.add(f"{name}: seat {body.get('winner')} may not win this hand (停和: "
                              "a false claim or a bar earlier in it) but its win was settled")
        events = (zhenjiang_events(table, body, place) if table.rules == "zhenjiang"
                  and outcome in ("win", "draw") else [0, 0, 0, 0])
        if any(events):
            self.answers[f"zhenjiang 打首搭/碰后打搭 ({outcome})"] += 1
        if outcome != "win":
            if points != events:
                self.failures.add(f"{name}: a {outcome} hand scores {points}, model {events} "
                                  f"(打首搭/碰后打搭 of {body.get('context')})")
            if body.get("outcome") != "draw" and outcome == "draw":
                self.failures.add(f"{name}: a win body was recorded as a draw")
            return
        if body.get("outcome") == "draw":
            self.failures.add(f"{name}: a draw body was recorded as a win")
        if view.get("legal") is not True or view["winner"]["seat"] != body.get("winner"):
            self.failures.add(f"{name}: settled win with legal={view.get('legal')} winner "
                              f"{view.get('winner')} for body winner {body.get('winner')}")
            return
        if table.rules == "xiamen":
            self.check_xiamen_base(name, view, body, place, table)
        if table.rules == "mcr":
            self.check_mcr_payments(name, view, body, place, table, points)
        if table.rules == "zhenjiang":  # the win's own part: only the winner gains (a
            # table's settings may make a win worth 0)
            win_part = [p - e for p, e in zip(points, events, strict=True)]
            at = place.seats[body["winner"]]
            if win_part[at] < 0 or any(v > 0 for i, v in enumerate(win_part) if i != at):
                self.failures.add(f"{name}: points {points} less the 打首搭/碰后打搭 "
                                  f"{events} leave {win_part}: not a win's payments")

    def check_place(self, name: str, view: dict[str, Any], place: ModelPlace,
                    table: TableState) -> None:
        """A hand's place in the deal: its seats, the chips before it (a payer pays no
        more than those under ``cap_at_stack``), the wind and the dealer's streak."""
        seats = {w: table.names[p] for w, p in place.seats.items()}
        if view.get("seats") != seats:
            self.failures.add(f"{name}: seats {view.get('seats')}, model {seats}")
        chips = (None if place.stacks is None else
                 {table.names[i]: c for i, c in enumerate(place.stacks)})
        if view.get("chips") != chips:
            self.failures.add(f"{name}: chips before it {view.get('chips')}, model {chips}")
        if place.stacks is not None and view["outcome"] == "win":
            if ((view.get("score") or {}).get("details") or {}).get("kill_three"):
                self.answers["xiamen 杀三 (kill three)"] += 1
            points = [int(view["points"][n]) for n in table.names]
            paid = [i for i in range(4) if points[i] < 0 and -points[i] > place.stacks[i]]
            if paid and table.setting("cap_at_stack"):
                self.failures.add(f"{name}: {paid} paid more than their chips "
                                  f"{place.stacks}: {points}")
        if (view.get("prevalent_wind"), view.get("dealer_repeats"), view.get("drawn_hands")) != (
                place.prevalent, place.repeats, place.draws):
            self.failures.add(f"{name}: wind and streak {view.get('prevalent_wind')} "
                              f"{view.get('dealer_repeats')} {view.get('drawn_hands')}, model "
                              f"{place.prevalent} {place.repeats} {place.draws}")

    def check_mcr_payments(self, name: str, view: dict[str, Any], body: dict[str, Any],
                           place: ModelPlace, table: TableState, points: list[int]) -> None:
        """A settled MCR win: at least the table's minimum fan (起和), and each payer's
        points — base + total from the discarder or from all on a self-draw, base from
        the others — from the table's own settings."""
        total = int(view["total"])
        least, base = table.setting("min_fan"), table.setting("base_points")
        if total < least:
            self.failures.add(f"{name}: MCR win of {total} fan settled (起和 {least})")
        model = [0, 0, 0, 0]
        positions = place.seats
        win_pos = positions[body["winner"]]
        for w, pos in positions.items():
            if pos == win_pos:
                continue
            pay = (base + total if body.get("self_drawn") or w == body.get("discarder")
                   else base)
            model[pos] -= pay
            model[win_pos] += pay
        if points != model:
            self.failures.add(f"{name}: points {points}, model {model} (total {total}, "
                              f"winner {body['winner']}, discarder {body.get('discarder')})")

    def check_xiamen_base(self, name: str, view: dict[str, Any], body: dict[str, Any],
                          place: ModelPlace, table: TableState) -> None:
        """A settled Xiamen win's 底 (RULES.md): 8 for a non-dealer; the dealer's 16,
        doubled for each hand in a row the dealer won before (连庄) and each drawn hand
        in a row before (臭庄) — the streak the sheet fills in when the report leaves it
        out. A table's settings change each of these numbers."""
        ctx = body.get("context") or {}
        if any(k in ctx for k in ("dealer", "dealer_repeats", "drawn_hands")):
            return
        fans = (view.get("score") or {}).get("fans") or []
        base = [int(f["value"]) for f in fans if f.get("zh") == "底"]
        if dealer_streak := place.repeats + place.draws:
            self.answers[f"xiamen dealer streak {dealer_streak}"] += 1
        dealer = body.get("winner") == "E"
        want = (table.setting("base_dealer")
                * table.setting("dealer_repeat_factor") ** place.repeats
                * table.setting("drawn_hand_factor") ** place.draws
                if dealer else table.setting("base_nondealer"))
        if base != [want]:
            self.failures.add(f"{name}: 底 {base}, model {want} (dealer {dealer}, "
                              f"streak {place.repeats} won, {place.draws} drawn)")

    # --- the sheet read back ------------------------------------------------------------

    def check_sheet(self, table: TableState) -> dict[str, int]:
        """Hands, standings and CSV of ``table`` against the model; its totals by name."""
        name = f"table {table.rules} sheet"
        hands = self.client.get(f"/v1/tables/{table.id}/hands", headers=self.admin).json()
        got = {h["number"]: h for h in hands["hands"]}
        if sorted(got) != sorted(table.hands):
            self.failures.add(f"{name}: hands {sorted(got)}, model {sorted(table.hands)}")
            return {}
        hand_pts = dict.fromkeys(table.names, 0)
        money = dict.fromkeys(table.names, 0)
        wins = dict.fromkeys(table.names, 0)
        drawn = dict.fromkeys(table.names, 0)
        dealt = dict.fromkeys(table.names, 0)
        pending, void, claims = [], [], []
        claim_pts = dict.fromkeys(table.names, 0)
        places = table.places()
        for number, state in sorted(table.hands.items()):
            view = got[number]
            points = [int(view["points"][n]) for n in table.names]
            if (view["outcome"], view["revision"], points) != (state.outcome, state.revisions,
                                                               state.points):
                self.failures.add(f"{name}: hand {number} reads {view['outcome']} rev "
                                  f"{view['revision']} {points}, model {state.outcome} rev "
                                  f"{state.revisions} {state.points}")
            if state.outcome == "pending":
                pending.append(number)
            elif state.outcome == "void":
                void.append(number)
            elif state.outcome == "false_claim":
                claims.append(number)
            for n, p, m in zip(table.names, state.points, state.money, strict=True):
                if state.outcome == "false_claim":  # the claimant's penalty
                    claim_pts[n] += p
                    continue
                hand_pts[n] += p
                money[n] += m if state.outcome == "win" else 0
            if state.outcome == "win" and state.winner:
                positions = places[number - 1].seats
                winner = table.names[positions[state.winner]]
                wins[winner] += 1
                drawn[winner] += state.self_drawn
                if state.discarder:
                    dealt[table.names[positions[state.discarder]]] += 1
        pen_pts = dict(claim_pts)
        for deltas, voided, in_money in table.penalties.values():
            for n, d in zip(table.names, deltas, strict=True):
                (money if in_money else pen_pts)[n] += 0 if voided else d
        totals = {n: hand_pts[n] + pen_pts[n] for n in table.names}
        warned = [sum(1 for pid, p in table.warnings.items() if p == pos
                      and not table.penalties[pid][1]) for pos in range(4)]
        barred = [sum(1 for _, p, void in table.bars.values() if p == pos and not void)
                  for pos in range(4)]
        st = self.client.get(f"/v1/tables/{table.id}/standings", headers=self.admin).json()
        lines = {p["player"]: p for p in st["players"]}
        out = table.live_disqualified()  # 停赛: no rank; the others rank among themselves
        for pos, n in enumerate(table.names):
            line = lines[n]
            rank = None if pos in out else 1 + sum(
                totals[m] > totals[n] for i, m in enumerate(table.names) if i not in out)
            model = (totals[n], hand_pts[n], pen_pts[n], wins[n], drawn[n], dealt[n],
                     rank, money[n], warned[pos], barred[pos])
            shown = (line["total"], line["hand_points"], line["penalty_points"], line["wins"],
                     line["self_drawn_wins"], line["dealt_in"], line["rank"], line["money"],
                     line["warnings"], line["bars"])
            if shown != model:
                self.failures.add(f"{name}: standings of {n} {shown}, model {model}")
        if (st["hands_pending"], st["hands_void"], st["false_claims"],
                st["hands_recorded"]) != (pending, void, claims, len(table.hands)):
            self.failures.add(f"{name}: pending/void/false claims/recorded "
                              f"{st['hands_pending']} {st['hands_void']} {st['false_claims']} "
                              f"{st['hands_recorded']}, model {pending} {void} {claims} "
                              f"{len(table.hands)}")
        if st["hands_settled"] != len(table.hands) - len(pending) - len(void) - len(claims):
            self.failures.add(f"{name}: hands_settled {st['hands_settled']}")
        self.check_csv(table, totals, [money[n] for n in table.names])
        return totals

    def check_csv(self, table: TableState, totals: dict[str, int],
                  model_money: list[int]) -> None:
        """``/sheet.csv`` against the model: each hand's points (and Xiamen money), the
        penalties' rows and the totals (``totals`` by name, ``model_money`` by position)."""
        name = f"table {table.rules} sheet"
        text = self.client.get(f"/v1/tables/{table.id}/sheet.csv", headers=self.admin).text
        rows = list(csv.reader(io.StringIO(text)))
        # the four players' points end each row; a Xiamen sheet adds four money columns
        money_cols = 4 if table.rules == "xiamen" else 0
        end = len(rows[0]) - money_cols

        def read(row: list[str]) -> tuple[list[int], list[int]]:
            return ([int(v) for v in row[end - 4:end]],
                    [int(v) for v in row[end:]] or [0, 0, 0, 0])

        if read(rows[-1]) != ([totals[n] for n in table.names], model_money):
            self.failures.add(f"{name}: CSV totals {read(rows[-1])}, model "
                              f"{[totals[n] for n in table.names]} {model_money}")
        hand_rows = [r for r in rows[1:] if r[0] == "hand"]
        for r in hand_rows:
            state = table.hands[int(r[1])]
            if read(r) != (state.points, state.money):
                self.failures.add(f"{name}: CSV hand {r[1]} {read(r)}")
        pen_rows = [r for r in rows[1:] if r[0] == "penalty"]
        if len(hand_rows) != len(table.hands) or len(pen_rows) != len(table.penalties):
            self.failures.add(f"{name}: CSV has {len(hand_rows)} hands, {len(pen_rows)} "
                              f"penalties")


#: A hand report's every field at its default (``POST …/corrections`` keeps the last
#: revision's value of a field left out): a correction the model scores as full content.
FULL_REPORT: dict[str, Any] = {
    "outcome": "win", "hand": None, "winner": None, "discarder": None, "self_drawn": False,
    "last_of_kind": False, "kong": False, "last_wall_tile": False, "flowers": 0,
    "context": {}, "note": None}


def random_settings(rng: random.Random, rules: str) -> dict[str, Any]:
    """Rule-set settings a table may be opened with: each setting of ``rules`` left out
    (the default) or, one time in four, a value of its type — a choice, a flipped flag,
    or a number from 0, 1, the default, twice it, a few times it and (rarely) 10⁹, the
    largest a setting takes, or 10¹², which must be refused."""
    from scoring.rulesets import get_rule_set

    out: dict[str, Any] = {}
    for name, setting in get_rule_set(rules).settings().items():
        default = setting.default
        if default is None or rng.random() >= 0.25:
            continue
        if setting.choices:
            out[name] = rng.choice(setting.choices)
        elif isinstance(default, bool):
            out[name] = not default
        elif isinstance(default, int):
            out[name] = rng.choice((0, 1, default, 2 * default, rng.randint(0, 5 * default + 5),
                                    rng.choice((10**9, 10**12)) if rng.random() < 0.1
                                    else default))
    return out


def bad_settings(rng: random.Random, rules: str) -> dict[str, Any]:
    """Settings a table must be refused with (400): an unknown name, a negative number,
    a word where a number goes, or a value outside a setting's choices."""
    from scoring.rulesets import get_rule_set

    numbers = [n for n, s in get_rule_set(rules).settings().items()
               if isinstance(s.default, int) and not isinstance(s.default, bool)]
    kind = rng.randrange(3)
    if kind == 0:
        return {"no_such_setting": 1}
    if kind == 1:
        return {rng.choice(numbers): rng.choice((-1, "many", [8], {"a": 1}))}
    choices = {n: s for n, s in get_rule_set(rules).settings().items() if s.choices}
    name = rng.choice(sorted(choices)) if choices else rng.choice(numbers)
    return {name: "no such choice"}


def random_sets(rng: random.Random, count: int) -> list[str]:
    """The tiles of ``count`` random sets: a chow (six in ten where a run fits) or a pung
    of a random kind each."""
    from scoring import tiles as T

    out: list[str] = []
    for _ in range(count):
        i = rng.randrange(34)
        run = i < 27 and i % 9 <= 6 and rng.random() < 0.6
        out += [T.code(i), T.code(i + 1), T.code(i + 2)] if run else [T.code(i)] * 3
    return out


def wild_discards(rng: random.Random, winner: str | None, room: int = 4) -> dict[str, str]:
    """Zhenjiang's 打首搭 and 碰后打搭 for a hand's context, seats as winds: who discarded
    the first 百搭 (any seat, or none), and up to two who discarded one after a pung
    (never the ``winner``, whose hand may show no pung) — at most ``room`` discards in
    all (the copies of the 百搭 the winner's hand does not hold; the draws are drawn as
    before, then cut, so the random sequence does not change)."""
    out = {}
    first = rng.random() < 0.7
    if first:
        out["first_wild_discard"] = rng.choice(WINDS)
    others = [w for w in WINDS if w != winner]
    after = rng.sample(others, rng.randrange(3))
    if first and room < 1:
        del out["first_wild_discard"]
    after = after[:max(0, room - (1 if "first_wild_discard" in out else 0))]
    if after:
        out["wild_after_pung"] = ",".join(after)
    return out


def wild_room(hand: Any, ctx: dict[str, Any]) -> int:
    """How many 百搭 can have been discarded beside a Zhenjiang ``hand``: the 4 copies
    less those it holds, standing or in its melds (the 百搭 from ``ctx``'s ``indicator``
    or ``wild``). A copy the winner took from a discard could be one of them too; it is
    left out, so the count stays possible however the hand was won."""
    from scoring.rulesets.zhenjiang import wild_from_indicator

    context = ctx.get("context") or {}
    wild = context.get("wild") or (wild_from_indicator(context["indicator"])
                                   if context.get("indicator") else None)
    if wild is None:
        return 4
    held = list(hand.standing) + [t for m in hand.melds for t in m.tiles]
    return max(0, 4 - held.count(wild))


def zhenjiang_events(table: TableState, body: dict[str, Any], place: ModelPlace) -> list[int]:
    """Points by player position for a Zhenjiang hand's 打首搭 and 碰后打搭 (seed 001):
    the seat that discarded the 百搭 gets the setting's base chips from each other seat,
    won or drawn."""
    ctx = body.get("context") or {}
    base = int(table.setting("base_chip"))
    seats = [(ctx.get("first_wild_discard") or "", "first_wild_discard")]
    seats += [(w.strip(), "wild_after_pung")
              for w in str(ctx.get("wild_after_pung") or "").split(",")]
    out = [0, 0, 0, 0]
    for seat, key in seats:
        if seat not in WINDS:
            continue
        amount = int(table.setting(key)) * base
        for w, pos in place.seats.items():
            out[pos] += 3 * amount if w == seat else -amount
    return out


def wild_win(rng: random.Random, rules: str) -> tuple[Any, dict[str, Any]]:
    """A random winning shape for a wild-tile table, with the context
    :meth:`SheetRun.win_body` reads: Xiamen 5 sets and a pair (17 tiles) with the gold
    (金) and flowers; Zhenjiang 4 sets and a pair (14 tiles, pungs and kongs claimed, no
    flowers) with its 百搭 indicator. A few tiles are then the wild kind, so the wild
    readings are exercised."""
    from scoring import tiles as T
    from scoring.hand import Hand, Meld
    from scoring.rulesets.zhenjiang import wild_from_indicator

    sets = 5 if rules == "xiamen" else 4
    indicator = rng.choice(T.KINDS)
    wild = indicator if rules == "xiamen" else wild_from_indicator(indicator)
    melds: list[Meld] = []
    if rules == "zhenjiang" and rng.random() < 0.4:
        kind = rng.choice(T.KINDS)
        melds.append(Meld.kong(kind, rng.choice((None, 1, 2, 3))) if rng.random() < 0.5
                     else Meld("pung", (kind,) * 3, rng.randint(1, 3)))
    while True:
        standing = [rng.choice(T.KINDS)] * 2 + random_sets(rng, sets - len(melds))
        for _ in range(rng.randrange(3)):
            standing[rng.randrange(len(standing))] = wild
        rng.shuffle(standing)
        tiles = standing + [t for m in melds for t in m.tiles]
        if all(tiles.count(t) <= 4 for t in tiles):
            break
    flowers = tuple(rng.sample(T.FLOWERS, rng.randrange(3))) if rules == "xiamen" else ()
    context = {"gold": indicator} if rules == "xiamen" else {"indicator": indicator}
    ctx = {"self_drawn": rng.random() < 0.5, "flowers": 0, "context": context}
    return Hand(tuple(melds), tuple(standing), flowers), ctx


@dataclass
class ScriptedFrame:
    """What the scripted camera reads from one frame: ``hand`` (notation or None),
    ``complete`` (the recognizer's flag), ``tiles`` seen, the recognizer's answer; and
    what the sheet should make of it: ``text`` (the notation normalized, None when it
    does not parse) and ``key`` (the complete hand as the rules score it, or None)."""

    hand: str | None
    complete: bool
    tiles: int
    recognized: dict[str, Any]
    text: str | None
    key: str | None


def scripted_frame(rng: random.Random, hand: str, rules: str) -> ScriptedFrame:
    """One frame of a table showing ``hand``: the hand (often), that hand read otherwise
    (a flower or a tile), a hand not complete, play (no hand), an empty table, or
    notation the scorer cannot parse; one in five says how sure its score is."""
    from tilecam.tables.scoring_bridge import normalize_hand, score_key

    r = rng.random()
    shown: str | None = hand
    complete, tiles = True, 14
    if r < 0.1:
        shown = reread(rng, hand)
    elif r < 0.2:
        complete, tiles = False, 13
    elif r < 0.3:
        shown, complete, tiles = None, False, rng.randint(20, 80)
    elif r < 0.45:
        shown, complete, tiles = None, False, 0
    elif r < 0.48:
        shown = "123m45" + rng.choice(("x", "p9", "m[", ""))
    try:
        text = normalize_hand(shown) if shown else None
    except ValueError:
        text = None
    key = score_key(text, rules) if text is not None and complete else None
    recognized: dict[str, Any] = {"hand": shown, "tiles": [{}] * tiles}
    if rng.random() < 0.2:
        recognized["score_confidence"] = round(rng.uniform(0.2, 1.0), 2)
    return ScriptedFrame(shown, complete, tiles, recognized, text, key)


def frame_fields(scene: dict[str, Any]) -> dict[str, str]:
    """The form fields a camera sends with a frame of ``scene``: its seats and win flags
    (true ones only) and, at a wild-tile table, its context as JSON."""
    fields = {k: ("true" if v is True else str(v)) for k, v in scene.items()
              if k in ("winner", "discarder", "self_drawn", "last_of_kind", "kong",
                       "last_wall_tile") and v is not False}
    if "context" in scene:
        fields["context"] = json.dumps(scene["context"])
    return fields


class ScriptedCamera:
    """The frame reader the fuzzer puts in the service's place: it answers each frame
    with the reading :meth:`SheetRun.frame` set before sending it."""

    def __init__(self) -> None:
        from tilecam.tables.camera import FrameReading

        self.next = FrameReading(None, False, 0)

    def __call__(self, image: Any, rules: str, context: Any) -> Any:
        return self.next


def _tiny_jpeg() -> bytes:
    import cv2
    import numpy as np

    ok, buf = cv2.imencode(".jpg", np.full((48, 64, 3), 90, np.uint8))
    assert ok
    return bytes(buf.tobytes())


def reread(rng: random.Random, hand: str) -> str:
    """``hand`` read otherwise by a camera: a flower added or one standing tile's code
    changed (a digit of a suit run); as given when neither applies."""
    if rng.random() < 0.4:
        return hand + (" " if " " not in hand else "") + rng.choice("12345678") + "f"
    digits = [i for i, c in enumerate(hand) if c.isdigit() and "[" not in hand[:i]]
    if not digits:
        return hand
    i = rng.choice(digits)
    return hand[:i] + str(int(hand[i]) % 9 + 1) + hand[i + 1:]


def you_jin_win(rng: random.Random) -> tuple[Any, dict[str, Any]]:
    """A Xiamen 游金 win (five sets, then a gold and the drawn tile as the pair; self-drawn),
    which pays bonus money apart from the chips (the sheet's ``money``)."""
    from scoring import tiles as T
    from scoring.hand import Hand

    gold = rng.choice(T.KINDS)
    while True:
        standing = random_sets(rng, 5)
        drawn = rng.choice([t for t in T.KINDS if t != gold])
        rng.shuffle(standing)
        tiles = [*standing, gold, drawn]
        if gold not in standing and all(tiles.count(t) <= 4 for t in tiles):
            break
    ctx = {"self_drawn": True, "flowers": 0,
           "context": {"gold": gold, "win": "you_jin"}}
    return Hand((), tuple(tiles)), ctx


def _same_content(a: dict[str, Any], b: dict[str, Any]) -> bool:
    keys = set(a) | set(b)
    return all(a.get(k) == b.get(k) for k in keys - {"number"})


def fuzz_tables(seed: int, steps: int, database: str = "sqlite") -> Failures:
    """One seeded run (see the module doc) on a fresh ``sqlite`` or ``postgres``
    database (a private server, :mod:`tilecam.db.testing`)."""
    from _deps import fastapi_test_client

    from tilecam.db.testing import fresh_postgres_database

    TestClient = fastapi_test_client()

    failures = Failures()
    folder = Path(tempfile.mkdtemp(prefix="tilecam-fuzz-tables-"))
    url = fresh_postgres_database() if database == "postgres" else None
    app = throwaway_app(folder, load_model=False, database_url=url)
    rng = random.Random(seed)
    with TestClient(app, raise_server_exceptions=False) as client:
        from tilecam.tables.access import frame_reader

        run = SheetRun(client, rng, failures, seed)
        app.dependency_overrides[frame_reader] = lambda: run.camera
        run.data_dir = folder / "data"
        event = client.post("/v1/events", json={"name": f"fuzz {seed}", "rules": "mcr"},
                            headers=run.admin).json()

        def new_table(rules: str) -> TableState:
            names = [f"{rules[:2]}{len(tables)}-{i}" for i in range(4)]
            if rng.random() < 0.3:
                names[rng.randrange(4)] = "=SUM(A1)"  # a name a spreadsheet would run
            body = {"name": f"{rules} {len(tables)}", "players": names, "rules": rules}

            def refused(what: str, settings: dict[str, Any]) -> None:
                name = f"table {rules} {what}"
                run.expect(name, run.call(name, "POST", f"/v1/events/{event['id']}/tables",
                                          run.admin, {**body, "settings": settings}), 400, body)

            if rng.random() < 0.1:
                refused("bad settings", bad_settings(rng, rules))
            if run.nul_rng.random() < 0.05:  # a player's name a sheet cannot store (U+0000)
                nul = {**body, "players": [*names[:3], names[3] + "\x00"]}
                run.expect(f"table {rules} NUL name", run.call(
                    f"table {rules} NUL name", "POST", f"/v1/events/{event['id']}/tables",
                    run.admin, nul), 422, body)
            settings = random_settings(rng, rules) if rng.random() < 0.5 else {}
            if any(isinstance(v, int) and v > MOST_SETTING for v in settings.values()):
                refused("settings past 10^9", settings)
                settings = {k: v for k, v in settings.items()
                            if not isinstance(v, int) or v <= MOST_SETTING}
            if (rules == "xiamen" and settings.get("chip_stack") == 0
                    and settings.get("cap_at_stack", True)):  # no win would pay: refused
                refused("chip_stack 0 with the payment cap", settings)
                settings["cap_at_stack"] = False
            t = client.post(f"/v1/events/{event['id']}/tables", headers=run.admin,
                            json={**body, "settings": settings}).json()
            played_for = rng.randint(20, 60) if rules == "xiamen" else 10**9
            return TableState(t["id"], rules, t["api_key"], names, played_for=played_for,
                              settings=settings)

        tables: list[TableState] = []
        for rules in RULES:
            tables.append(new_table(rules))
        playing = list(tables)
        ops = ((run.post_hand, 10), (run.resend, 3), (run.correct, 3), (run.void, 1),
               (run.penalty, 2), (run.void_penalty, 1), (run.frames, 6))
        for step in range(steps):
            table = rng.choice(playing)
            op = rng.choices([o for o, _ in ops], [w for _, w in ops])[0]
            op(table)
            if run.claim_rng.random() < 0.08:  # a stream of its own: the seeds' other
                run.false_claim(table)  # draws as before
            if run.bar_rng.random() < 0.06:  # 停和 and warnings: a stream of their own too
                run.bar(table)
            if (table.over() or len(table.hands) >= table.played_for) and rng.random() < 0.2:
                tables.append(new_table(table.rules))
                playing[playing.index(table)] = tables[-1]
            if step % 10 == 9 or step == steps - 1:
                by_table = [run.check_sheet(t) for t in tables]
                ev = client.get(f"/v1/events/{event['id']}/standings",
                                headers=run.admin).json()
                # a player's line sums the player's table lines, kept as its detail
                got = {(x["table_id"], x["player"]): x["total"] for p in ev["players"]
                       for x in p["lines"]}
                if any(p["total"] != sum(x["total"] for x in p["lines"])
                       for p in ev["players"]):
                    failures.add(f"event standings: a player's total is not the sum of "
                                 f"the player's lines: {ev['players']}")
                want = {(t.id, n): v for t, totals in zip(tables, by_table, strict=True)
                        for n, v in totals.items()}
                if all(by_table) and got != want:
                    failures.add(f"event standings {got}, tables {want}")
        recorded = sum(len(t.hands) for t in tables)
    shutil.rmtree(folder, ignore_errors=True)
    outcomes = Counter(f"{t.rules} {h.outcome}" for t in tables for h in t.hands.values())
    print(f"tables seed {seed}: {steps} requests, {len(tables)} tables, {recorded} hands "
          f"recorded ({', '.join(f'{k} ×{v}' for k, v in sorted(outcomes.items()))}), "
          f"{sum(len(t.penalties) for t in tables)} penalties, "
          f"{sum(any(h.money) for t in tables for h in t.hands.values())} hands paying money "
          "apart; "
          f"{len(failures.items)} failures")
    print("answers: " + ", ".join(f"{k} ×{v}" for k, v in sorted(run.answers.items())))
    return failures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--database", choices=("sqlite", "postgres"), default="sqlite",
                        help="the service's database: a fresh SQLite file (default) or a "
                        "database on a private PostgreSQL server started here")
    args = parser.parse_args(argv)
    return 1 if fuzz_tables(args.seed, args.steps, args.database).items else 0


if __name__ == "__main__":
    sys.exit(main())
