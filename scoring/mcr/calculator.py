"""Fan calculation for one MCR win: every reading is scored, the highest total is kept
(就高不就低).

A result is a table ``fan id -> list of occurrences``; each occurrence names the sets
(or tiles) that form it. Fan values come from :mod:`scoring.mcr.fans`, with the
version's kong values (:mod:`scoring.mcr.versions`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache, lru_cache

from scoring.mcr.combos import chow_fans, pung_fans
from scoring.mcr.decompose import CHOW, KONG, PAIR, PUNG, Reading, Set, readings
from scoring.mcr.fans import FANS
from scoring.mcr.sets import (
    TERMINAL_OR_HONOUR,
    knitted_text,
    set_text,
)
from scoring.mcr.versions import (
    FORCED_CONCEALED,
    SEVEN_PAIRS_TRAIT_FANS,
    VOIDED_SUIT_HONOUR_FANS,
    Version,
)
from scoring.mcr.waits import formal_waits
from scoring.tiles import code, index

Table = dict[str, list[tuple[str, ...]]]
"""fan id -> one entry per occurrence, each the sets/tiles forming it."""


@dataclass
class Win:
    """Everything about one win the fan checks read (tile indices 0..33).

    ``counts``: standing tiles with the winning tile (length 34); ``before``: without it;
    ``all_counts``: standing + melds; ``melds``: meld sets; ``claimed``: melds claimed
    from others (concealed kongs excluded); ``seat``/``prevalent``: wind tile indices.
    """

    counts: list[int]
    before: list[int]
    all_counts: list[int]
    win: int
    melds: tuple[Set, ...]
    claimed: int
    self_drawn: bool
    last_of_kind: bool
    kong: bool
    last_wall_tile: bool
    seat: int
    prevalent: int
    version: Version
    _single: bool | None = field(default=None, repr=False)
    _masks: tuple[tuple[int, int, int], tuple[int, ...]] | None = field(default=None, repr=False)

    def single_wait(self) -> bool:
        """True when the hand before the winning tile formally waits on one kind only."""
        if self._single is None:
            self._single = len(formal_waits(self.before, len(self.melds), stop_at=2)) == 1
        return self._single

    @property
    def hog(self) -> bool:
        """True when some kind has all four copies in the hand (四归一 candidates)."""
        return 4 in self.all_counts

    def masks(self) -> tuple[tuple[int, int, int], tuple[int, ...]]:
        """Rank masks of m, p, s and the presence (0/1) of the 7 honours in the hand."""
        if self._masks is None:
            c = self.all_counts
            m = [0, 0, 0]
            for i in range(27):
                if c[i]:
                    m[i // 9] |= 2 << (i % 9)
            self._masks = (
                (m[0], m[1], m[2]),
                tuple(1 if n else 0 for n in c[27:34]),
            )
        return self._masks


def fan_value(fan_id: str, version: Version) -> int:
    """Value of one occurrence of ``fan_id`` under ``version``."""
    if fan_id == "two_melded_kongs":
        return version.two_melded_kongs
    if fan_id == "two_concealed_kongs":
        return version.two_concealed_kongs
    if fan_id == "concealed_kong_and_melded_kong":
        return version.concealed_kong_and_melded_kong
    return FANS[fan_id].value


@cache
def _values(version: Version) -> dict[str, int]:
    return {f: fan_value(f, version) for f in FANS}


def table_total(table: Table, version: Version) -> int:
    """Sum of a fan table's values."""
    values = _values(version)
    total = 0
    for f, occ in table.items():
        total += values[f] * len(occ)
    return total


def _add(table: Table, fan_id: str, sets: tuple[str, ...]) -> None:
    table.setdefault(fan_id, []).append(sets)


def _win_flag_fans(w: Win, table: Table) -> None:
    win_text = (code(w.win),)
    if w.last_of_kind:
        _add(table, "last_tile", win_text)
    if w.last_wall_tile:
        _add(table, "last_tile_draw" if w.self_drawn else "last_tile_claim", win_text)
    if w.kong:
        _add(table, "out_with_replacement_tile" if w.self_drawn else "robbing_the_kong", win_text)
    if w.self_drawn:
        _add(table, "self_drawn", win_text)


ALL: tuple[str, ...] = ("*",)
"""Occurrence sentinel: the fan is formed by every set of the reading."""

HandFans = tuple[tuple[str, tuple[str, ...]], ...]

_SIMPLE_RANKS = 0b0111111100  # bits 2..8: ranks 2-8
_TERMINAL_RANKS = 0b1000000010  # ranks 1 and 9
_REVERSIBLE_RANKS = (0, 0b1100111110, 0b1101110100)  # m none, p 1234589, s 245689
_GREEN_RANKS = (0, 0, 0b0101011100)  # s 23468


def suit_fans(masks: tuple[int, int, int], honours: tuple[int, ...]) -> HandFans:
    """无字, 缺一门, 混一色, 清一色, 五门齐 (``masks``: rank masks of m, p, s)."""
    winds = any(honours[0:4])
    dragons = any(honours[4:7])
    n_suits = (masks[0] != 0) + (masks[1] != 0) + (masks[2] != 0)
    out: list[tuple[str, tuple[str, ...]]] = []
    if not (winds or dragons):
        out.append(("no_honors", ALL))
    if n_suits == 2:
        out.append(("one_voided_suit", ALL))
    elif n_suits == 1:
        out.append(("half_flush" if winds or dragons else "full_flush", ALL))
    elif n_suits == 3 and winds and dragons:
        out.append(("all_types", ALL))
    return tuple(out)


def trait_fans(masks: tuple[int, int, int], honours: tuple[int, ...]) -> HandFans:
    """断幺, 推不倒, 绿一色, 字一色, 清幺九, 混幺九."""
    any_honour = any(honours)
    terminals = any(m & _TERMINAL_RANKS for m in masks)
    simples_present = any(m & _SIMPLE_RANKS for m in masks)
    out: list[tuple[str, tuple[str, ...]]] = []
    simples = not any_honour and not terminals
    if simples:
        out.append(("all_simples", ALL))
    if all(masks[s] & ~_REVERSIBLE_RANKS[s] == 0 for s in range(3)) and not any(
        honours[0:6]
    ):
        out.append(("reversible_tiles", ALL))
    if all(masks[s] & ~_GREEN_RANKS[s] == 0 for s in range(3)) and not any(
        n for k, n in enumerate(honours) if k != 5
    ):
        out.append(("all_green", ALL))
    if simples:
        return tuple(out)
    if not any(masks):
        out.append(("all_honors", ALL))
    elif not simples_present:
        out.append(("all_terminals_and_honors" if any_honour else "all_terminals", ALL))
    return tuple(out)


def rank_fans(masks: tuple[int, int, int], honours: tuple[int, ...]) -> HandFans:
    """全大, 全中, 全小, 大于五, 小于五 (numbered tiles only)."""
    if any(honours):
        return ()
    ranks = masks[0] | masks[1] | masks[2]
    if ranks & ~0b11110 == 0:
        return (("lower_four" if ranks & 0b10000 else "lower_tiles", ALL),)
    if ranks & ~0b1111000000 == 0:
        return (("upper_four" if ranks & 0b1000000 else "upper_tiles", ALL),)
    if ranks & ~0b1110000 == 0:
        return (("middle_tiles", ALL),)
    return ()


@lru_cache(maxsize=65536)
def hand_fans(masks: tuple[int, int, int], honours: tuple[int, ...]) -> HandFans:
    """:func:`suit_fans` + :func:`trait_fans` + :func:`rank_fans`, cached (they depend on
    the rank masks and which honours are present only)."""
    return suit_fans(masks, honours) + trait_fans(masks, honours) + rank_fans(masks, honours)


def tile_hog_fans(counts: list[int], kongs: tuple[int, ...]) -> HandFans:
    """四归一: four copies of a kind that are not a kong, named by the kind alone (``1m``:
    the four copies lie in several sets, and ``1111m`` would read as a kong)."""
    return tuple(("tile_hog", (code(i),)) for i in range(34) if counts[i] == 4 and i not in kongs)


def _extend(table: Table, fans: HandFans) -> None:
    for fan_id, occ in fans:
        table.setdefault(fan_id, []).append(occ)


def _set_tile(text: str) -> int:
    """The tile index of a pung's or kong's notation (``"2222m"`` -> 1, ``"EEE"`` -> 27),
    so the sets a fan names run in tile order, as the decomposition does.

    >>> [_set_tile(t) for t in ("2222m", "555p", "EEEE")]
    [1, 13, 27]
    """
    return index(text[0] + text[-1] if text[-1] in "mps" else text[0])


def _kong_fans(
    melded_kongs: list[str], concealed_kongs: list[str], concealed_pungs: list[str],
    version: Version, table: Table,
) -> None:  # fmt: skip
    """三杠/四杠, the kong fans and the concealed-pung fans, by the version table."""
    mk, ck = len(melded_kongs), len(concealed_kongs)
    kongs = mk + ck
    melded_kongs = sorted(melded_kongs, key=_set_tile)  # every kong fan names its kongs
    concealed_kongs = sorted(concealed_kongs, key=_set_tile)  # in tile order
    every_concealed = tuple(sorted(concealed_kongs + concealed_pungs, key=_set_tile))
    all_kongs = tuple(sorted(melded_kongs + concealed_kongs, key=_set_tile))
    if kongs == 4:
        _add(table, "four_kongs", all_kongs)
    elif kongs == 3:
        _add(table, "three_kongs", all_kongs)
    many = kongs >= 3
    kong_fans = not many or version.kong_fans_with_many_kongs
    two_concealed_kongs = False
    if kong_fans:
        if not many and mk == 2:
            _add(table, "two_melded_kongs", tuple(melded_kongs))
        elif not many and mk == 1 and ck == 1:
            _add(table, "concealed_kong_and_melded_kong", all_kongs)
        elif ck == 2:
            _add(table, "two_concealed_kongs", tuple(concealed_kongs))
            two_concealed_kongs = True
        elif not many and mk == 1:
            _add(table, "melded_kong", tuple(melded_kongs))
        elif ck == 1:
            _add(table, "concealed_kong", tuple(concealed_kongs))
    n = ck + len(concealed_pungs)
    if n == 2 and not two_concealed_kongs:
        _add(table, "two_concealed_pungs", every_concealed)
    elif n == 3:
        _add(table, "three_concealed_pungs", every_concealed)
    elif n == 4:
        _add(table, "four_concealed_pungs", every_concealed)


def _concealment_fans(w: Win, table: Table, everything: tuple[str, ...]) -> None:
    """不求人 / 门前清 / 全求人 by the number of claimed melds."""
    if w.claimed == 0:
        _add(table, "fully_concealed_hand" if w.self_drawn else "concealed_hand", everything)
    elif w.claimed == 4 and not w.self_drawn:
        _add(table, "melded_hand", everything)


def _wait_fans(w: Win, concealed_sets: list[tuple[int, int]], table: Table) -> None:
    """边张 / 坎张 / 单钓将 by the winning tile's place (the caller checked the single wait)."""
    win = w.win
    edge = closed = single = ""
    for kind, tile in concealed_sets:
        if kind == CHOW and tile <= win <= tile + 2:
            if win == tile + 1:
                closed = closed or set_text(kind, tile)
            else:
                edge = edge or set_text(kind, tile)
        elif kind == PAIR and tile == win:
            single = set_text(kind, tile)
    if edge:
        _add(table, "edge_wait", (edge,))
    elif closed:
        _add(table, "closed_wait", (closed,))
    elif single:
        _add(table, "single_wait", (single,))


def _winds(pung_tiles: list[tuple[int, str]], w: Win, table: Table) -> None:
    for tile, text in pung_tiles:
        if tile == w.prevalent:
            _add(table, "prevalent_wind", (text,))
        if tile == w.seat:
            _add(table, "seat_wind", (text,))


_EXCLUDES = {f.id: f.excludes for f in FANS.values()}
_FORCED = frozenset(FORCED_CONCEALED)


def _finish(table: Table, w: Win, yaojiu: list[str], self_drawn_text: tuple[str, ...]) -> Table:
    """Apply 不计 lists, version rules and the 幺九刻 bookkeeping; returns the final table."""
    v = w.version
    present = set(table)
    forced = [f for f in FORCED_CONCEALED if f in present] if present & _FORCED else []
    if forced and w.self_drawn:
        if v.forced_concealed_self_draw == "self_drawn":
            table.pop("fully_concealed_hand", None)
            if "self_drawn" not in table:
                table["self_drawn"] = [self_drawn_text]
        else:
            table.pop("self_drawn", None)
            table["fully_concealed_hand"] = [ALL]  # 不求人 names the whole hand, as always
        present = set(table)
    dropped = _version_dropped(present, v)
    for f, lower in RANK_BELOW.items():  # 98-strict 七对: 全大 not counted leaves 大于五
        if f in dropped:
            table[lower] = table[f]
            present.add(lower)
    removed = _not_counted(present, v, bool(forced))
    for f in removed:
        table.pop(f, None)
    if yaojiu and "pung_of_terminals_or_honors" not in removed:
        _terminal_or_honour_pungs(table, yaojiu)
    return table


#: 全大 / 全小 and the fan of the same ranks one step down (大于五 / 小于五), which
#: :func:`rank_fans` leaves out beside them: counted when the version does not count
#: the upper one (98-strict 七对).
RANK_BELOW = {"upper_tiles": "upper_four", "lower_tiles": "lower_four"}


def _version_dropped(present: set[str], v: Version) -> set[str]:
    """The ``present`` fans rule version ``v`` does not count on this hand: 98-strict
    does not combine 七对 with 绿一色, 字一色, 清幺九, 混幺九, 全大, 全中 or 全小."""
    if v.seven_pairs_take_trait_fans or "seven_pairs" not in present:
        return set()
    return present.intersection(SEVEN_PAIRS_TRAIT_FANS)


def _not_counted(present: set[str], v: Version, forced: bool) -> set[str]:
    """The fans that the ``present`` ones leave uncounted (不计) under rule version ``v``:
    each counted fan's own exclusion list, with the version's exceptions, and the fans
    the version does not count (:func:`_version_dropped`) — whose exclusion lists then do
    not apply (不重复: a fan not counted implies nothing). ``forced``: a fan that implies a
    concealed self-draw is present."""
    dropped = _version_dropped(present, v)
    counted = present - dropped
    removed: set[str] = set(dropped)
    for f in counted:
        excl = _EXCLUDES[f]
        if excl:
            removed.update(excl)
    if forced and v.forced_concealed_self_draw == "fully_concealed_hand":
        removed.discard("fully_concealed_hand")
    if "all_green" in counted and v.all_green_counts_half_flush:
        removed.discard("half_flush")
    if "all_terminals" in counted:
        if v.all_terminals_count_double_pung:
            removed.discard("double_pung")
        if not v.all_terminals_count_triple_pung:
            removed.add("triple_pung")
    if not v.honour_fans_count_voided_suit and counted.intersection(VOIDED_SUIT_HONOUR_FANS):
        removed.add("one_voided_suit")
    return removed


def _terminal_or_honour_pungs(table: Table, yaojiu: list[str]) -> None:
    """幺九刻 for each terminal or honour pung (``yaojiu``, notation) that no wind fan
    already counts; 九莲宝灯 counts one of them."""
    spare = list(yaojiu)
    claimed: list[str] = []
    for f in ("big_three_winds", "little_four_winds", "prevalent_wind", "seat_wind"):
        for occ in table.get(f, ()):
            claimed.extend(occ)
    for text in claimed:
        if text in spare:
            spare.remove(text)
    if "nine_gates" in table and spare:
        spare.pop()
    for text in spare:
        _add(table, "pung_of_terminals_or_honors", (text,))


def basic_fans(reading: Reading, w: Win) -> Table:
    """Fans of a 4 sets + pair reading."""
    table: Table = {}
    sets = reading.sets
    win = w.win
    pair = sets[-1][1]
    held = _HeldSets.of(sets, w)
    pungs = held.pungs
    if pungs:
        _kong_fans(held.melded_kongs, held.concealed_kongs, held.concealed_pungs, w.version,
                   table)
        if len(pungs) == 4 and "four_kongs" not in table and "four_concealed_pungs" not in table:
            table["all_pungs"] = [ALL]
    yaojiu = []
    for t, text in pungs:
        if t >= 31:
            _add(table, "dragon_pung", (text,))
        elif TERMINAL_OR_HONOUR[t]:
            yaojiu.append(text)
    if len(held.chows) > 1:
        _chow_group_fans(held.chows, pair, table)
    if len(pungs) > 1:
        for fan, used in pung_fans(tuple(t for t, _ in pungs)):
            _add(table, fan, tuple(pungs[i][1] for i in used))
    if not w.melds and win < 27:
        s = win // 9 * 9
        if w.before[s : s + 9] == [3, 1, 1, 1, 1, 1, 1, 1, 3]:
            table["nine_gates"] = [ALL]
    _concealment_fans(w, table, ALL)
    _win_flag_fans(w, table)
    _pair_fans(len(held.chows), pair, table)
    _pack_trait_fans(sets, table, ALL)
    masks, honours = w.masks()
    _extend(table, hand_fans(masks, honours))
    if w.hog:
        _extend(table, tile_hog_fans(w.all_counts, tuple(t for k, t, _ in sets if k == KONG)))
    if "melded_hand" not in table and "four_kongs" not in table:
        positioned = held.win_in_concealed_chow or pair == win
        if positioned and w.single_wait():
            _wait_fans(w, [(k, t) for k, t, c in sets[len(w.melds) :]], table)
    if "big_four_winds" not in table:
        winds = [p for p in pungs if 27 <= p[0] <= 30]
        if winds:
            _winds(winds, w, table)
    _finish(table, w, yaojiu, (code(win),))
    if not table:
        table["chicken_hand"] = [ALL]
    return table


@dataclass(frozen=True)
class _HeldSets:
    """The four sets of a reading by kind: chows (first tile, sorted), pungs and kongs
    (first tile and notation, sorted), the kongs melded and concealed, the pungs that
    count as concealed, and whether the winning tile completes a concealed chow."""

    chows: list[int]
    pungs: list[tuple[int, str]]
    melded_kongs: list[str]
    concealed_kongs: list[str]
    concealed_pungs: list[str]
    win_in_concealed_chow: bool

    @classmethod
    def of(cls, sets: tuple[Set, ...], w: Win) -> _HeldSets:
        win = w.win
        chows: list[int] = []
        melded_kongs: list[str] = []
        concealed_kongs: list[str] = []
        pung_list: list[tuple[int, bool]] = []
        pungs: list[tuple[int, str]] = []
        win_in_concealed_chow = False
        for k, t, c in sets:
            if k == CHOW:
                chows.append(t)
                if c and t <= win <= t + 2:
                    win_in_concealed_chow = True
            elif k == PUNG:
                pung_list.append((t, c))
            elif k == KONG:
                text = set_text(k, t)
                (concealed_kongs if c else melded_kongs).append(text)
                pungs.append((t, text))
        # a pung completed by a discard is exposed unless the tile fits a concealed chow
        expose = not w.self_drawn and not win_in_concealed_chow
        concealed_pungs: list[str] = []
        for t, c in pung_list:
            text = set_text(PUNG, t)
            if c and not (expose and t == win):
                concealed_pungs.append(text)
            pungs.append((t, text))
        return cls(sorted(chows), sorted(pungs), melded_kongs, concealed_kongs,
                   concealed_pungs, win_in_concealed_chow)


def _chow_group_fans(chows: list[int], pair: int, table: Table) -> None:
    """Fans of two or more chows (``chows``: first tiles, sorted): 一色双龙会 and 三色双龙会
    (four chows 123 123 789 789 around a pair of 5s), which take every chow fan, else
    :func:`chow_fans`."""
    if len(chows) == 4 and pair < 27 and pair % 9 == 4:
        ranks = sorted(t % 9 for t in chows)
        if ranks == [0, 0, 6, 6]:
            suits = [t // 9 for t in chows]
            if all(s == pair // 9 for s in suits):
                table["pure_terminal_chows"] = [ALL]
                return
            if pair // 9 not in suits and len(set(suits)) == 2 and len(set(chows)) == 4:
                table["three_suited_terminal_chows"] = [ALL]
                return
    for fan, used in chow_fans(tuple(chows)):
        _add(table, fan, tuple(set_text(CHOW, chows[i]) for i in used))


def _pair_fans(n_chows: int, pair: int, table: Table) -> None:
    """Fans the pair completes: 平和 (four chows, a suit pair), 小三元 (two dragon pungs
    and a dragon pair) and 小四喜 (three wind pungs and a wind pair), each taking the
    pung fan it grows from."""
    if n_chows == 4:
        if pair < 27:
            table["all_chows"] = [ALL]
    elif pair >= 31 and "two_dragon_pungs" in table:
        occ = table.pop("two_dragon_pungs")[0]
        _add(table, "little_three_dragons", (*occ, set_text(PAIR, pair)))
    elif 27 <= pair <= 30 and "big_three_winds" in table:
        occ = table.pop("big_three_winds")[0]
        _add(table, "little_four_winds", (*occ, set_text(PAIR, pair)))


def _pack_trait_fans(sets: tuple[Set, ...], table: Table, everything: tuple[str, ...]) -> None:
    """全带幺, 全带五, 全双刻 from the five sets."""
    outside = fives = evens = 0
    for k, t, _ in sets:
        if t >= 27:
            outside += 1
            continue
        r = t % 9
        if k == CHOW:
            if r in (0, 6):
                outside += 1
            elif r in (2, 3, 4):
                fives += 1
        else:
            if r in (0, 8):
                outside += 1
            elif r == 4:
                fives += 1
            elif r in (1, 3, 5, 7):
                evens += 1
    if outside == 5:
        _add(table, "outside_hand", everything)
    elif fives == 5:
        _add(table, "all_five", everything)
    elif evens == 5:
        _add(table, "all_even_pungs", everything)


def knitted_fans(reading: Reading, w: Win) -> Table:
    """Fans of 组合龙 + a set + a pair."""
    table: Table = {}
    seq = reading.knitted
    fourth, pair = reading.sets[0], reading.sets[1]
    k4, t4, c4 = fourth
    dragon_text = knitted_text(seq)
    everything = ALL
    _add(table, "knitted_straight", dragon_text)
    yaojiu: list[str] = []
    pungs: list[tuple[int, str]] = []
    if k4 == CHOW:
        if pair[1] < 27:
            _add(table, "all_chows", everything)
    else:
        text = set_text(k4, t4)
        if k4 == KONG:
            _kong_fans([] if c4 else [text], [text] if c4 else [], [], w.version, table)
        pungs.append((t4, text))
        if t4 >= 31:
            _add(table, "dragon_pung", (text,))
        elif TERMINAL_OR_HONOUR[t4]:
            yaojiu.append(text)
    _win_flag_fans(w, table)
    if not w.melds or (k4 == KONG and c4):
        _add(table, "fully_concealed_hand" if w.self_drawn else "concealed_hand", everything)
    masks, honours = w.masks()
    _extend(table, suit_fans(masks, honours))
    _extend(table, tile_hog_fans(w.all_counts, (t4,) if k4 == KONG else ()))
    win = w.win
    # 边/嵌/钓 by the whole hand's formal wait, never on a tile inside the 组合龙. This is
    # also the MIL ruling (judge the part outside the 组合龙): before the winning tile the
    # 组合龙 is complete whenever the winning tile is outside it, and no other reading or
    # knitted straight fits the 4 tiles beside it, so the two waits are the same kinds.
    if (win not in seq or w.counts[win] > 1) and w.single_wait():
        _wait_fans(w, [(k, t) for k, t, c in reading.sets if c], table)
    _winds([p for p in pungs if 27 <= p[0] <= 30], w, table)
    return _finish(table, w, yaojiu, (code(win),))


def special_fans(reading: Reading, w: Win) -> Table:
    """Fans of 七对, 十三幺, 全不靠 and 七星不靠."""
    table: Table = {}
    counts = w.counts
    if reading.form == "seven_pairs":
        pairs = [t for _, t, _ in reading.sets]
        everything = ALL
        masks, honours = w.masks()
        if pairs[0] < 27 and pairs[6] // 9 == pairs[0] // 9 and all(
            pairs[i + 1] == pairs[i] + 1 for i in range(6)
        ):
            _add(table, "seven_shifted_pairs", everything)
            _extend(table, trait_fans(masks, honours))
        else:
            _add(table, "seven_pairs", everything)
            _extend(table, suit_fans(masks, honours))
            _extend(table, trait_fans(masks, honours))
            _extend(table, rank_fans(masks, honours))
            _extend(table, tile_hog_fans(counts, ()))
    elif reading.form == "thirteen_orphans":
        tiles = tuple(code(i) for i in range(34) for _ in range(counts[i]))
        _add(table, "thirteen_orphans", tiles)
    else:
        tiles = tuple(code(i) for i in range(34) if counts[i])
        if all(counts[i] for i in range(27, 34)):
            _add(table, "greater_honors_and_knitted_tiles", tiles)
        else:
            _add(table, "lesser_honors_and_knitted_tiles", tiles)
            if sum(counts[0:27]) == 9:
                _add(table, "knitted_straight", knitted_text(reading.knitted))
    _win_flag_fans(w, table)
    return _finish(table, w, [], (code(w.win),))


def reading_texts(reading: Reading, w: Win) -> tuple[str, ...]:
    """Every set of a reading as text (what :data:`ALL` stands for)."""
    if reading.form in ("basic", "seven_pairs"):
        return tuple(set_text(k, t) for k, t, _ in reading.sets)
    if reading.form == "knitted":
        return knitted_text(reading.knitted) + tuple(set_text(k, t) for k, t, _ in reading.sets)
    return tuple(code(i) for i in range(34) for _ in range(w.counts[i]))


def reading_tables(w: Win) -> list[tuple[Table, Reading]]:
    """The fan table (before flowers) of every reading of the hand, in reading order."""
    out = []
    for reading in readings(w.counts, w.melds):
        if reading.form == "basic":
            table = basic_fans(reading, w)
        elif reading.form == "knitted":
            table = knitted_fans(reading, w)
        else:
            table = special_fans(reading, w)
        out.append((table, reading))
    return out


def best_table(w: Win) -> tuple[Table, Reading] | None:
    """The highest-scoring reading's fan table (before flowers), or None if no reading.

    就高不就低: the highest total wins; of equal totals the first reading is kept.
    """
    tables = reading_tables(w)
    if len(tables) == 1:
        return tables[0]
    best: tuple[Table, Reading] | None = None
    best_total = -1
    for table, reading in tables:
        total = table_total(table, w.version)
        if total > best_total:
            best, best_total = (table, reading), total
    return best

