"""边张 / 坎张 / 单钓将 in a 组合龙 hand (seed 003 #77-79: "且整手牌只听这一种牌", the whole
hand waits on one kind only; #35: 组合龙 "可视为三副特殊顺子").

Every version judges them on the whole hand's formal wait and never on a tile inside the
组合龙. The MIL offline ruling (RULES.md: the reference calculator judges the part outside
the 组合龙) gives the same fans on every 组合龙 win: when the winning tile lies outside the
组合龙, the 组合龙 is already complete before it, and the 4 tiles beside it admit no other
reading (no second knitted straight, no 4 sets + pair, 七对, 十三幺 or 全不靠 can use 9
isolated knitted tiles). ``test_whole_hand_wait_equals_the_part_outside`` checks that claim
on a sample of all 组合龙 wins against an independent outside-part rule; the cases pin
hands in notation, each checked against the reference (pymahjonggb) when it is installed.
"""

from __future__ import annotations

import random
from typing import Any, NamedTuple

import pytest

import scoring
from scoring.mcr.decompose import KNITTED
from scoring.mcr.fans import FANS
from scoring.tiles import code

VERSIONS = ("98-strict", "98-supplement", "wmo-2006", "mil-2015")
WAIT_FANS = ("edge_wait", "closed_wait", "single_wait")


class Case(NamedTuple):
    why: str
    hand: str
    self_drawn: bool
    fans: dict[str, int]  # the full mil-2015 table; its total is checked too
    total: int


CASES = [
    Case("边张: 12p waits on 3p only", "147m258p369s12pEE3p", False,
         {"knitted_straight": 1, "concealed_hand": 1, "edge_wait": 1}, 15),
    Case("坎张 on 2p, which is also a 组合龙 tile (counted: one 2p lies outside)",
         "147m258p369s13pEE2p", True,
         {"knitted_straight": 1, "fully_concealed_hand": 1, "closed_wait": 1}, 17),
    Case("单钓将 beside a concealed chow", "147m258p369s123sEE", False,
         {"knitted_straight": 1, "concealed_hand": 1, "single_wait": 1}, 15),
    Case("单钓将 on 1m, pair tile and 组合龙 tile at once", "147m258p369s123s1m1m", False,
         {"knitted_straight": 1, "concealed_hand": 1, "all_chows": 1, "single_wait": 1}, 17),
    Case("winning on a 组合龙 tile (9s, the only wait): no wait fan",
         "147m258p36s123sEE9s", False, {"knitted_straight": 1, "concealed_hand": 1}, 14),
    Case("23s waits on 1s and 4s: no 边张", "147m258p369s23sEE1s", True,
         {"knitted_straight": 1, "fully_concealed_hand": 1}, 16),
    Case("9s: 组合龙 tile and end of 789s; 78s+EE also waits on 6s (369s + 678s): no 边张",
         "147m258p36s789sEE9s", False,
         {"knitted_straight": 1, "concealed_hand": 1}, 14),
    Case("claimed chow, 单钓将 on the pair", "[123s,1]147m258p369sEE", False,
         {"knitted_straight": 1, "single_wait": 1}, 13),
    Case("claimed chow, 单钓将 on 1m, also a 组合龙 tile", "[123s,1]147m258p369s1m1m", True,
         {"knitted_straight": 1, "all_chows": 1, "single_wait": 1, "self_drawn": 1}, 16),
    Case("claimed chow 123s, 2s2s pair: 单钓将 (a claimed chow gives no 坎张)",
         "[123s,1]147m258p369s2s2s", False,
         {"knitted_straight": 1, "all_chows": 1, "single_wait": 1}, 15),
    Case("claimed chow, winning on a 组合龙 tile: no wait fan", "[123s,1]147m258p36sEE9s",
         False, {"knitted_straight": 1}, 12),
    Case("claimed pung, 单钓将", "[555s,2]147m258p369sCC", False,
         {"knitted_straight": 1, "single_wait": 1}, 13),
    Case("concealed kong, 单钓将 (门前清: a concealed kong is no claim)",
         "[EEEE]147m258p369sCC", False,
         {"knitted_straight": 1, "all_types": 1, "prevalent_wind": 1, "seat_wind": 1,
          "concealed_hand": 1, "concealed_kong": 1, "single_wait": 1}, 27),
]  # fmt: skip


def _fans(score: Any) -> dict[str, int]:
    by_en = {f.en: f.id for f in FANS.values()}
    return {by_en[f.en]: f.count for f in score.fans}


def _expected(case: Case) -> dict[str, int]:
    return {f: n for f, n in case.fans.items() if n}


@pytest.mark.parametrize("case", CASES, ids=[c.hand for c in CASES])
def test_knitted_wait_case_under_mil_2015(case: Case) -> None:
    s = scoring.score(case.hand, self_drawn=case.self_drawn)
    assert _fans(s) == _expected(case), case.why
    assert s.total == case.total


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("case", CASES, ids=[c.hand for c in CASES])
def test_knitted_wait_is_the_same_in_every_version(case: Case, version: str) -> None:
    s = scoring.score(case.hand, version=version, self_drawn=case.self_drawn)
    waits = {f: n for f, n in _fans(s).items() if f in WAIT_FANS}
    assert waits == {f: n for f, n in _expected(case).items() if f in WAIT_FANS}, case.why


@pytest.mark.parametrize("case", CASES, ids=[c.hand for c in CASES])
def test_knitted_wait_case_matches_the_reference(case: Case) -> None:
    pytest.importorskip("MahjongGB")
    from oracle_differences import reference_score

    ctx = {"self_drawn": case.self_drawn}
    total, fans = reference_score(scoring.parse_hand(case.hand), ctx)
    assert (total, dict(fans)) == (case.total, _expected(case)), case.why


def _set_and_pair(tiles: list[int]) -> bool:
    """True when ``tiles`` (tile indices, 3n + 2 of them) are n sets and one pair."""
    counts = [tiles.count(i) for i in range(34)]
    return any(counts[p] >= 2 and _sets_only([*counts[:p], counts[p] - 2, *counts[p + 1:]])
               for p in range(34))  # fmt: skip


def _sets_only(counts: list[int]) -> bool:
    i = next((k for k in range(34) if counts[k]), None)
    if i is None:
        return True
    if counts[i] >= 3:
        rest = list(counts)
        rest[i] -= 3
        if _sets_only(rest):
            return True
    if i < 27 and i % 9 <= 6 and counts[i + 1] and counts[i + 2]:
        rest = list(counts)
        for k in range(3):
            rest[i + k] -= 1
        return _sets_only(rest)
    return False


def _outside_part_wait(seq: tuple[int, ...], outside: list[int], win: int) -> bool:
    """The MIL ruling, written apart from the engine: a wait fan is possible when the
    winning tile is in the part outside the 组合龙 and that part, before it, waits on
    one kind only (formally: a kind whose four copies are held counts too)."""
    if win not in outside:
        return False
    before = list(outside)
    before.remove(win)
    waits = [y for y in range(34) if _set_and_pair([*before, y])]
    return len(waits) == 1


def _random_knitted_win(rng: random.Random) -> tuple[str, tuple[int, ...], list[int], int]:
    """A random 组合龙 win: (notation, knitted tiles, tiles outside the 组合龙 in the
    standing hand, winning tile); the fourth set is concealed, claimed or a kong."""
    while True:
        seq = rng.choice(KNITTED)
        kind = rng.choice(["chow", "pung", "kong"])
        t = rng.choice([s * 9 + r for s in range(3) for r in range(7)]) if kind == "chow" \
            else rng.randrange(34)  # fmt: skip
        fourth = [t, t + 1, t + 2] if kind == "chow" else [t] * (3 if kind == "pung" else 4)
        pair = [rng.randrange(34)] * 2
        tiles = [*seq, *fourth, *pair]
        if max(tiles.count(i) for i in set(tiles)) > 4:
            continue
        form = rng.choice(["concealed", "claimed"] if kind != "kong" else ["kong", "claimed"])
        outside = pair if form != "concealed" else [*fourth, *pair]
        standing = [*seq, *outside]
        win = rng.choice(standing)
        rest = list(standing)
        rest.remove(win)
        text = "".join(code(i) for i in sorted(rest)) + code(win)
        if form == "claimed":
            text = f"[{''.join(code(i)[0] for i in fourth)}{code(t)[1:]},1]" + text
        elif form == "kong":
            text = f"[{''.join(code(i)[0] for i in fourth)}{code(t)[1:]}]" + text
        return text, seq, outside, win


def test_whole_hand_wait_equals_the_part_outside() -> None:
    """1,500 random 组合龙 wins (seed 77): tilecam counts a wait fan exactly when the MIL
    outside-part rule allows one, in every version; at least 200 of them count one."""
    rng = random.Random(77)
    counted = 0
    for _ in range(1500):
        text, seq, outside, win = _random_knitted_win(rng)
        expected = _outside_part_wait(seq, outside, win)
        counted += expected
        for version in ("mil-2015", "98-strict"):
            fans = _fans(scoring.score(text, version=version, self_drawn=rng.random() < 0.5))
            if "knitted_straight" not in fans:
                continue  # another reading scored higher
            assert sum(fans.get(f, 0) for f in WAIT_FANS) == expected, (text, version)
    assert counted >= 200
