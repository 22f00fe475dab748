"""``seen`` and the rule context's tile fields typed on a Chinese keyboard read as hand
notation reads them (:func:`scoring.notation.fold_width`, one character for one): ``，``
and ``、`` end a group as ``,`` does, ``【555p】`` is the meld in brackets it looks like,
full-width ranks and letters are ASCII's; an error quotes the text as typed, at its own
position. Before, ``seen`` was checked for brackets and split at commas before folding
(``12m，3p`` was "unknown character '，'"), and ``gold=５p`` was "not a tile code"."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import scoring
from scoring import HandError
from scoring.notation import fold_width

READY = "123m456p789s1122z"  # waits on E and S


def seen_of(seen: object) -> str:
    return scoring.waits(READY, seen=seen).seen  # type: ignore[arg-type]


@pytest.mark.parametrize(("typed", "ascii"), [
    ("12m，3p", "12m,3p"),
    ("12m、3p", "12m,3p"),
    ("１２ｍ　３ｐ", "12m 3p"),
    ("1，5m", "1,5m"),  # the comma ends the group: no 1m, an error either way
    ("ＥＥ、Ｓ", "EE,S"),
    ("5p，，5p", "5p,,5p"),
])
def test_seen_typed_on_a_chinese_keyboard_reads_as_its_ascii(typed: str, ascii: str) -> None:
    try:
        want = seen_of(ascii)
    except HandError as exc:
        with pytest.raises(HandError) as caught:
            seen_of(typed)
        # the same error at the same position, quoting the text as typed
        assert str(caught.value) == str(exc).replace(repr(ascii), repr(typed))
        return
    assert seen_of(typed) == want


def test_a_comma_typed_in_chinese_mode_ends_a_group() -> None:
    assert seen_of("12m，3p") == "12m3p"
    assert seen_of("1m、2m　３ｐ") == "12m3p"
    w = scoring.waits(READY, seen="E，E")
    assert [(t.tile, t.remaining) for t in w.waits] == [("E", 0), ("S", 2)]


@pytest.mark.parametrize("seen", ["【555p】", "555p】", "【555p", "［555p］"])
def test_a_meld_in_chinese_brackets_gets_the_brackets_advice(seen: str) -> None:
    """``【555p】`` was "unknown character '【'" where ``[555p]`` is told to drop them."""
    with pytest.raises(HandError) as caught:
        seen_of(seen)
    assert str(caught.value) == (
        f"seen: give the tiles alone, in groups ({seen!r}: write a meld seen as its tiles, "
        "e.g. 555p, without brackets)")


@pytest.mark.parametrize(("seen", "message"), [
    ("12m，x", "seen: unknown character 'x' at position 5 of '12m，x'"),
    ("12m，²p", "seen: unknown character '²' at position 5 of '12m，²p'"),
    ("１２ｍ，８ｚ", "seen: unknown tile code '８ｚ' at position 5 of '１２ｍ，８ｚ'"),
    ("ＥＥ、１", "seen: ranks '１' at the end of 'ＥＥ、１' need a suit letter (m p s z f)"),
    ("3p、ｍ", "seen: suit letter 'ｍ' at position 4 of '3p、ｍ' has no ranks"),
])
def test_a_seen_error_quotes_the_text_as_typed_at_its_position(seen: str,
                                                                 message: str) -> None:
    with pytest.raises(HandError) as caught:
        seen_of(seen)
    assert str(caught.value) == message


def test_seen_as_tile_codes_folds_each_and_quotes_a_bad_one_as_given() -> None:
    assert seen_of(["５p", "Ｅ", "　1m "]) == "1m5pE"
    with pytest.raises(HandError, match=r"^seen: unknown tile code '５x' \(seen tile 2\)$"):
        seen_of(["5p", "５x"])
    with pytest.raises(HandError, match=r"^seen: unknown tile code '²p' \(seen tile 1\)$"):
        seen_of(["²p"])


def test_the_discards_of_a_hand_that_drew_read_seen_alike() -> None:
    hand = "[345m,1]45m789s123sEE3m"
    assert scoring.discards(hand, seen="3m、") == scoring.discards(hand, seen="3m,")


#: What may be typed for seen: tile groups, commas and spaces.
SEEN_TEXT = st.text(alphabet="0123456789mpszESWNCFPf, x[]", max_size=14)


def _full_width(text: str) -> str:
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)


@given(SEEN_TEXT)
def test_seen_written_full_width_reads_as_the_ascii(text: str) -> None:
    """Any seen text written full-width gives the same tiles, or the same error at the
    same position (the message quoting what was typed), as in ASCII."""
    wide = _full_width(text)
    assert fold_width(wide) == text
    try:
        want = seen_of(text)
    except HandError as exc:
        want = str(exc)
    try:
        got = seen_of(wide)
    except HandError as exc:
        got = fold_width(str(exc))  # the message's own words are ASCII
    assert got == want


# ---------------------------------------------------------- the rule context's tiles


@pytest.mark.parametrize("gold", ["５p", "５ｐ", "　5p", "5p\u3000"])
def test_the_gold_typed_full_width_is_the_gold(gold: str) -> None:
    hand = "123m456m789p11s234s5m6m7m"
    typed = scoring.score(hand, rules="xiamen", gold=gold, self_drawn=True)
    ascii = scoring.score(hand, rules="xiamen", gold="5p", self_drawn=True)
    assert typed.to_dict() == ascii.to_dict()


@pytest.mark.parametrize("field", [{"indicator": "８ｓ"}, {"wild": "９ｓ"},
                                   {"indicator": "8s", "wild": "　９s"}])
def test_the_zhenjiang_wild_typed_full_width_is_the_wild(field: dict[str, Any]) -> None:
    s = scoring.score("111p456m789m123pEE", rules="zhenjiang", self_drawn=True, **field)
    assert s.details["wild"] == "9s" and s.legal


@pytest.mark.parametrize(("field", "message"), [
    ({"gold": "²p"}, "the gold '²p' is not a tile code"),
    ({"gold": "５x"}, "the gold '５x' is not a tile code"),
    ({"indicator": "①m"}, "the gold indicator '①m' is not a tile code"),
])
def test_a_context_tile_that_is_none_is_quoted_as_typed(field: dict[str, Any],
                                                         message: str) -> None:
    with pytest.raises(HandError) as caught:
        scoring.score("123m456m789p11s234s5m6m7m", rules="xiamen", self_drawn=True, **field)
    assert str(caught.value) == message
