"""Hand notation: the bracket format of RULES.md and Tenhou-style tile strings.

A hand string is melds in brackets, then the standing tiles; the LAST standing tile is
the winning tile. Tiles are written in groups, digits then a suit letter (``123m``,
``55p``, ``1z`` Tenhou honours, ``12f`` flowers), or honour letters ``E S W N C F P``.
A ``0`` rank is Tenhou's red five and reads as ``5``. Spaces are ignored.

Melds: ``[123m,2]`` chow, 2nd tile claimed (``[123m]`` claimed tile unknown);
``[555p,3]`` pung claimed from seat offset 3 (1 left, 2 opposite, 3 right);
``[EEEE]`` concealed kong; ``[EEEE,1]`` melded kong; ``[EEEE,5]``-``[EEEE,7]`` kong
added to a pung claimed from 1-3. Flowers anywhere in the string go to ``Hand.flowers``.

A Chinese keyboard's forms of the notation's characters read as them, one character for
one (:func:`fold_width`, not NFKC: ``²`` and ``①`` are no digits), so an error's position
is that of the text as typed: full-width ``［１２３ｍ，２］`` (U+FF01-U+FF5E), ``【`` ``】``
(the bracket keys in Chinese mode), ``、`` read as the comma, and the ideographic space.

>>> h = parse_hand("[EEE,2][SSSS,1]WWWNN55pN")
>>> [m.kind for m in h.melds], h.standing[-1]
(['pung', 'kong'], 'N')
>>> format_hand(parse_hand("123m456p11z 1f"))
'123m456pEE1f'
>>> format_hand(parse_hand("555666777p5556s7s"))
'555666777p5556s7s'
>>> parse_hand("12x")
Traceback (most recent call last):
...
scoring.hand.HandError: unknown character 'x' at position 3 of '12x'
>>> parse_hand("【EEE，2】［SSSS，1］ＷＷＷＮＮ５５ｐＮ") == parse_hand("[EEE,2][SSSS,1]WWWNN55pN")
True
>>> parse_hand("【123m，²】456p")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
scoring.hand.HandError: meld 【123m，²】 ... '²' at position 7 after the comma is not a digit (0-9)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from scoring import tiles as T
from scoring.hand import Hand, HandError, Meld, normalize_code

_SUIT_LETTERS = "mpszf"
_DIGITS = "0123456789"  # ASCII only: str.isdigit() is true of '²' and '①' too

#: :func:`fold_width`'s table: each character to the one ASCII character it reads as.
_FOLD: dict[int, str] = {
    **{c: chr(c - 0xFEE0) for c in range(0xFF01, 0xFF5F)},  # full-width ASCII: ［１ｍ，］
    0x3000: " ",  # ideographic space
    0x3010: "[", 0x3011: "]",  # 【 】: the [ ] keys of a Chinese input method
    0x3001: ",",  # 、 ideographic comma
}  # fmt: skip


def fold_width(text: str) -> str:
    """``text`` with a Chinese keyboard's forms of the notation's characters written as
    ASCII, one character for one (so positions in it are positions in ``text``).

    >>> fold_width("【123ｍ，２】４５６p　E、")
    '[123m,2]456p E,'
    """
    return text.translate(_FOLD)


def _tile_groups(text: str, offset: int, whole: str) -> list[str]:
    """Codes of a run of tile groups (``123m55pEE``); ``offset`` places errors in ``whole``.
    ``text`` is read as :func:`fold_width` writes it; errors name its characters as given."""
    out: list[str] = []
    pending: list[tuple[str, str, int]] = []  # (digit, as given, position)
    for n, given in enumerate(text):
        pos = offset + n + 1
        ch = fold_width(given)
        if ch.isspace():
            continue
        if ch in _DIGITS:
            pending.append((ch, given, pos))
        elif ch in _SUIT_LETTERS:
            if not pending:
                raise HandError(
                    f"suit letter {given!r} at position {pos} of {whole!r} has no ranks")
            for digit, as_given, dpos in pending:
                try:
                    out.append(normalize_code(digit + ch))
                except HandError:
                    raise HandError(f"unknown tile code {as_given + given!r} at position "
                                    f"{dpos} of {whole!r}") from None
            pending = []
        elif ch == "]":
            raise HandError(f"{given!r} at position {pos} of {whole!r} has no matching '['")
        elif ch in T.HONOURS:
            if pending:
                digits = "".join(g for _, g, _ in pending)
                raise HandError(
                    f"ranks {digits!r} before {given!r} at position {pos} of {whole!r} need a "
                    "suit"
                )
            out.append(ch)
        else:
            raise HandError(f"unknown character {given!r} at position {pos} of {whole!r}")
    if pending:
        digits = "".join(g for _, g, _ in pending)
        raise HandError(f"ranks {digits!r} at the end of {whole!r} need a suit letter (m p s z f)")
    return out


def _parse_meld(body: str, offset: int, whole: str) -> Meld:
    """One bracketed meld; ``body`` is the text between the brackets as given, from
    ``whole``'s index ``offset`` on (read as :func:`fold_width` writes it)."""
    shown = whole[offset - 1 : offset + len(body) + 1]
    if not shown.isprintable():  # a control character typed in: escaped, as in whole!r
        shown = repr(shown)[1:-1]
    where = f"meld {shown} at position {offset} of {whole!r}"
    folded = fold_width(body)  # one for one: its positions are those of body
    comma = folded.find(",")
    number: int | None = None
    if comma >= 0:
        after = folded[comma + 1 :]
        digits = after.strip()
        if not digits:
            raise HandError(f"{where}: no number after the comma")
        bad = next((i for i, c in enumerate(digits) if c not in _DIGITS), None)
        if bad is not None:
            at = comma + 1 + len(after) - len(after.lstrip()) + bad  # its index in body
            raise HandError(f"{where}: {body[at]!r} at position {offset + at + 1} after the "
                            "comma is not a digit (0-9)")
        number = int(digits)
    codes = _tile_groups(body if comma < 0 else body[:comma], offset, whole)
    if any(T.is_flower(c) for c in codes):
        raise HandError(f"{where}: flowers are never part of a set")
    idx = sorted(T.index(c) for c in codes)
    if len(idx) == 3 and len(set(idx)) == 1:
        if number is None or number not in (1, 2, 3):
            raise HandError(f"{where}: a pung needs the seat offset it was claimed from (1-3)")
        return Meld("pung", tuple(codes), claimed_from=number)
    if len(idx) == 4 and len(set(idx)) == 1:
        if number is None:
            return Meld("kong", tuple(codes))
        if number in (1, 2, 3):
            return Meld("kong", tuple(codes), claimed_from=number)
        if number in (5, 6, 7):
            return Meld("kong", tuple(codes), claimed_from=number - 4, added=True)
        raise HandError(f"{where}: a kong takes no number (concealed), 1-3 or 5-7 (added)")
    if len(idx) == 3:
        if number is not None and number not in (1, 2, 3):
            raise HandError(f"{where}: the claimed tile of a chow is 1, 2 or 3")
        return Meld("chow", tuple(codes), 1, None if number is None else number - 1)
    raise HandError(f"{where} is not a chow, pung or kong")


def parse_hand(text: str, *,
               melded_as: Iterable[tuple[str, str]] | Mapping[str, str] = ()) -> Hand:
    """Parse bracket notation or a Tenhou-style string into a :class:`Hand`.

    Checks syntax and copy counts (at most 4 of a kind), not the hand size.
    Raises :class:`HandError` naming the problem and its position. ``melded_as``: the
    meld tiles written as a kind that are another tile, as the rules read them
    (:attr:`Hand.melded_as`; :func:`scoring.stand_ins` gives the rules' own), counted
    as the tiles they are.

    >>> parse_hand("[555m,1]5555m", melded_as={"5m": "P"}).melded_as  # gold 5m: PPP, 4 golds
    (('5m', 'P'),)
    """
    if not isinstance(text, str):
        raise HandError(f"a hand string is needed, not {type(text).__name__}")
    if not text.strip():
        raise HandError("empty hand string")
    folded = fold_width(text)  # one for one: positions in it are positions in text
    melds: list[Meld] = []
    loose: list[str] = []
    pos = 0
    while pos < len(folded):
        ch = folded[pos]
        if ch == "[":
            end = folded.find("]", pos)
            if end < 0:
                raise HandError(f"{text[pos]!r} at position {pos + 1} of {text!r} is never closed")
            if loose and any(not T.is_flower(c) for c in loose):
                raise HandError(
                    f"meld at position {pos + 1} of {text!r} comes after standing tiles; "
                    "write melds first"
                )
            melds.append(_parse_meld(text[pos + 1 : end], pos + 1, text))
            pos = end + 1
            continue
        if ch == "]":
            raise HandError(f"{text[pos]!r} at position {pos + 1} of {text!r} has no matching '['")
        end = folded.find("[", pos)
        end = len(folded) if end < 0 else end
        loose.extend(_tile_groups(text[pos:end], pos, text))
        pos = end
    standing = tuple(c for c in loose if not T.is_flower(c))
    flowers = tuple(c for c in loose if T.is_flower(c))
    return Hand.from_tiles(standing, melds, None, flowers, melded_as=melded_as)


def format_tiles(codes: tuple[str, ...] | list[str]) -> str:
    """Write codes in groups, keeping their order (``["1m","2m","E"]`` -> ``12mE``)."""
    out: list[str] = []
    digits: list[str] = []
    suit = ""
    for c in codes:
        if len(c) == 2:
            if c[1] != suit and digits:
                out.append("".join(digits) + suit)
                digits = []
            suit = c[1]
            digits.append(c[0])
        else:
            if digits:
                out.append("".join(digits) + suit)
                digits, suit = [], ""
            out.append(c)
    if digits:
        out.append("".join(digits) + suit)
    return "".join(out)


def format_meld(meld: Meld) -> str:
    """Bracket text of a meld (``[123m,2]``, ``[555p,3]``, ``[EEEE]``, ``[EEEE,5]``)."""
    body = format_tiles(meld.tiles)
    if meld.kind == "chow":
        return f"[{body}]" if meld.claimed_index is None else f"[{body},{meld.claimed_index + 1}]"
    if meld.claimed_from is None:
        return f"[{body}]"
    return f"[{body},{meld.claimed_from + (4 if meld.added else 0)}]"


def canonical_hand(hand: Hand) -> str:
    """``hand``'s notation in one order whatever the order its tiles were given in: melds
    by their notation, the standing tiles before the winning (last) one sorted — two
    readings of one hand read the same.

    >>> canonical_hand(parse_hand("[EEE,1]423m1m")) == canonical_hand(parse_hand("[EEE,1]234m1m"))
    True
    """
    melds = "".join(sorted(format_meld(m) for m in hand.melds))
    standing = [*sorted(hand.standing[:-1], key=T.sort_key), *hand.standing[-1:]]
    body = format_tiles(standing[:-1]) + format_tiles(standing[-1:])
    return melds + body + format_tiles(sorted(hand.flowers, key=T.sort_key))


def format_hand(hand: Hand, winning_tile: bool = True) -> str:
    """Bracket notation of ``hand``; the winning (last) tile is written as its own group
    unless ``winning_tile`` is False (a hand still waiting).

    ``parse_hand(format_hand(h), melded_as=h.melded_as) == h`` for every hand (the
    notation does not show how the rules read a meld's tiles: :attr:`Hand.melded_as`).
    """
    melds = "".join(format_meld(m) for m in hand.melds)
    standing = hand.standing
    if winning_tile:
        body = format_tiles(standing[:-1])
        if standing:
            body += format_tiles(standing[-1:])
    else:
        body = format_tiles(standing)
    flowers = format_tiles(hand.flowers)
    return melds + body + flowers
