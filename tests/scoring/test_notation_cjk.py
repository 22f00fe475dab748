"""Hand notation typed on a Chinese keyboard, and digits that are no ASCII digits (the
seventy-sixth session's i18n review, findings 1 and 2): a meld number such as ``²`` or
``①`` is a HandError naming it and its position (before: ``int()``'s ValueError, a 500
from /v1/score and /v1/waits); full-width forms (U+FF01-U+FF5E), 【】, 、 and the
ideographic space read as the ASCII they stand for, one character for one, so errors
still point into the text as typed."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import scoring
from scoring import HandError, format_hand, parse_hand
from scoring.notation import fold_width

ASCII_HAND = "[EEE,2][SSSS,1]WWWNN55pN"  # 95 on a discard, 98 self-drawn


def wide(text: str) -> str:
    """``text`` with each printable ASCII character as its full-width form."""
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)


# ------------------------------------------- 1. a meld number is ASCII digits 0-9 only

@pytest.mark.parametrize(("hand", "shown", "position"), [
    ("[123m,²]456p789s11pEE9s", "²", 7),    # superscript two: isdigit(), no int()
    ("[123m,①]456p789s11pEE9s", "①", 7),    # circled one: the same
    ("[123m,٢]456p789s11pEE9s", "٢", 7),    # Arabic-Indic two: int() took it as 2
    ("[123m, 1²]456p789s11pEE9s", "²", 9),  # after a digit and a space
    ("[EEE，③]WWW", "③", 6),                 # after a full-width comma
])
def test_a_meld_number_that_is_no_ascii_digit_is_a_hand_error_naming_it(
        hand: str, shown: str, position: int) -> None:
    with pytest.raises(HandError) as exc:
        parse_hand(hand)
    assert f"{shown!r} at position {position} after the comma is not a digit" in str(exc.value)
    assert hand[position - 1] == shown


@pytest.mark.parametrize(("call", "hand"), [
    (scoring.score, "[123m,²]456p789s11pEE9s"),
    (scoring.waits, "[123m,²]456p789s11pEE"),
    (scoring.discards, "[123m,²]456p789s11pEE9s"),
])
def test_score_waits_and_discards_refuse_a_meld_number_with_a_hand_error(
        call: Callable[[str], object], hand: str) -> None:
    """The API's /v1/score and /v1/waits turn a HandError into a 400 (a ValueError was a
    500: "internal error (ValueError); this is a tilecam bug")."""
    with pytest.raises(HandError, match="'²' at position 7"):
        call(hand)


def test_a_meld_with_nothing_after_its_comma_says_so() -> None:
    with pytest.raises(HandError, match="no number after the comma"):
        parse_hand("[123m, ]456p")


@pytest.mark.parametrize("hand", ["²m", "①②③m", "12²m"])
def test_a_rank_is_an_ascii_digit_not_nfkc(hand: str) -> None:
    """NFKC would read ``²`` as 2 and ``①`` as 1; the notation takes neither as a rank."""
    with pytest.raises(HandError, match="unknown character"):
        parse_hand(hand)


# ------------------------------------ 2. a Chinese keyboard's forms read as the ASCII

@pytest.mark.parametrize("hand", [
    "【EEE，2】【SSSS，1】WWWNN55pN",  # Chinese mode: [ ] , are 【 】 ，
    "[EEE，2][SSSS，1]WWWNN55pN",
    "［EEE,2］［SSSS,1］WWWNN55pN",    # full-width mode
    "[EEE,2][SSSS,1]ＷＷＷＮＮ５５ｐＮ",
    "[EEE,２][SSSS,１]WWWNN55pN",
    "【EEE、2】【SSSS、1】WWWNN55pN",  # 、 read as the comma
    "[EEE,2]　[SSSS,1]　WWWNN　55pN",  # ideographic spaces are spaces
    wide(ASCII_HAND),
])
def test_full_width_and_chinese_punctuation_read_as_the_ascii_notation(hand: str) -> None:
    assert parse_hand(hand) == parse_hand(ASCII_HAND)
    assert scoring.score(hand).total == 95


def test_full_width_digits_and_suits_read_as_ranks_and_suits() -> None:
    assert format_hand(parse_hand("１２３ｍ４５６ｐ７８９ｓ１ｚ０ｍ")) == "123m456p789sE5m"


@pytest.mark.parametrize(("hand", "message"), [
    ("【EEE，x】WWW", "'x' at position 6 after the comma is not a digit"),
    ("ＷＷＸ", "unknown character 'Ｘ' at position 3 of 'ＷＷＸ'"),
    ("１２３", "ranks '１２３' at the end of '１２３' need a suit letter"),
    ("１２Ｅ", "ranks '１２' before 'Ｅ' at position 3"),
    ("８ｚ", "unknown tile code '８ｚ' at position 1 of '８ｚ'"),
    ("ｍ", "suit letter 'ｍ' at position 1"),
    ("【123m", "'【' at position 1 of '【123m' is never closed"),
    ("123m】", "'】' at position 5 of '123m】' has no matching '\\['"),
    ("【123ｍ，2】】", "'】' at position 9 of '【123ｍ，2】】' has no matching"),
    ("【１２４m，1】", "not three consecutive"),
    ("　　ｘ", "unknown character 'ｘ' at position 3"),
])
def test_errors_name_the_character_as_typed_at_its_position(hand: str, message: str) -> None:
    with pytest.raises(HandError, match=message):
        parse_hand(hand)


def test_a_meld_error_quotes_the_meld_as_typed() -> None:
    with pytest.raises(HandError, match="meld 【555p】 at position 1 of '【555p】EE'"):
        parse_hand("【555p】EE")


@given(st.text(max_size=40))
@settings(max_examples=300, deadline=None)
def test_fold_width_is_one_character_for_one_and_idempotent(text: str) -> None:
    folded = fold_width(text)
    assert len(folded) == len(text) and fold_width(folded) == folded
    assert all(a == b for a, b in zip(text, folded, strict=True) if a.isascii())


@given(st.text(alphabet="0123456789mpszfESWNCFP[],  ", max_size=30))
@settings(max_examples=300, deadline=None)
def test_a_hand_in_full_width_parses_as_the_same_hand_or_the_same_error(text: str) -> None:
    """Whatever the ASCII text gives — a hand, or an error at a position — its full-width
    form gives the same (the error naming the full-width character)."""
    try:
        expected = parse_hand(text)
    except HandError as exc:
        with pytest.raises(HandError) as got:
            parse_hand(wide(text))
        assert _positions(str(got.value)) == _positions(str(exc))
        return
    assert parse_hand(wide(text)) == expected


def _positions(message: str) -> list[str]:
    return re.findall(r"position \d+", message)


def test_a_meld_error_shows_a_control_character_escaped() -> None:
    """Notation errors never pass a typed control character (an escape sequence) to the
    terminal raw: the meld quoted in the message is escaped as the whole hand is."""
    with pytest.raises(HandError) as err:
        parse_hand("[12\x1b3m,1x]456m789sEEE")
    assert "\x1b" not in str(err.value) and "meld [12\\x1b3m,1x] at position 1" in str(err.value)
