"""Tile codes and hand notation: bracket melds, Tenhou strings, flowers, round trips, and
clear HandErrors; property tests: parsing never does anything but return or HandError."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring import Hand, HandError, Meld, format_hand, parse_hand
from scoring.tiles import FLOWERS, KINDS


def test_tenhou_honours_are_e_s_w_n_p_f_c() -> None:
    assert parse_hand("1234567z").standing == ("E", "S", "W", "N", "P", "F", "C")


def test_bracket_melds_and_claim_sources() -> None:
    h = parse_hand("[123m,2][555p,3][EEEE][SSSS,1][WWWW,6]NN")
    chow, pung, concealed, melded, added = h.melds
    assert (chow.kind, chow.claimed_from, chow.claimed_index) == ("chow", 1, 1)
    assert (pung.kind, pung.claimed_from) == ("pung", 3)
    assert concealed.kind == "kong" and concealed.concealed
    assert melded.claimed_from == 1 and not melded.added
    assert added.claimed_from == 2 and added.added
    assert h.standing == ("N", "N")


def test_flowers_go_to_hand_flowers() -> None:
    h = parse_hand("123m456p789s1f123sEE8f")
    assert h.flowers == ("1f", "8f") and len(h.standing) == 14


def test_last_standing_tile_is_the_winning_tile() -> None:
    assert parse_hand("555666777p5556s7s").winning_tile == "7s"


def test_from_tiles_builds_the_same_hand() -> None:
    built = Hand.from_tiles(
        ["W", "W", "W", "N", "N", "5p", "5p"],
        melds=[Meld.pung("E", 2), Meld.kong("S", 1)],
        winning_tile="N",
    )
    assert built == parse_hand("[EEE,2][SSSS,1]WWWNN55pN")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("123x", "unknown character 'x' at position 4"),
        ("11111m", "5 copies of 1m"),
        ("[124m,1]", "not three consecutive"),
        ("[555p]", "seat offset"),
        ("[EEEE,4]", "1-3 or 5-7"),
        ("123", "need a suit letter"),
        ("12E", "before 'E'"),
        ("[123m", "never closed"),
        ("123m]", "no matching"),
        ("1f1f", "appears twice"),
        ("9f", "unknown tile code '9f'"),
        ("", "empty"),
        ("123m[456p,1]", "write melds first"),
    ],
)
def test_bad_notation_names_the_problem(text: str, message: str) -> None:
    with pytest.raises(HandError, match=message.replace("(", r"\(").replace("[", r"\[")):
        parse_hand(text)


TILE = st.sampled_from(KINDS)


@st.composite
def hands(draw: st.DrawFn) -> Hand:
    melds = []
    for _ in range(draw(st.integers(0, 4))):
        kind = draw(st.sampled_from(["chow", "pung", "kong"]))
        if kind == "chow":
            suit = draw(st.sampled_from("mps"))
            first = draw(st.integers(1, 7))
            melds.append(Meld.chow(f"{first}{suit}", draw(st.sampled_from([None, 0, 1, 2]))))
        elif kind == "pung":
            melds.append(Meld.pung(draw(TILE), draw(st.integers(1, 3))))
        else:
            seat = draw(st.sampled_from([None, 1, 2, 3]))
            melds.append(Meld.kong(draw(TILE), seat, seat is not None and draw(st.booleans())))
    standing = draw(st.lists(TILE, max_size=14))
    flowers = draw(st.lists(st.sampled_from(FLOWERS), unique=True, max_size=8))
    try:
        hand = Hand(tuple(melds), tuple(standing), tuple(flowers))
    except HandError:  # too many copies: keep a small valid hand
        hand = Hand()
    return hand if hand.melds or hand.standing or hand.flowers else Hand((), ("1m",), ())


@given(hands())
@settings(max_examples=300, deadline=None)
def test_format_then_parse_round_trips(hand: Hand) -> None:
    assert parse_hand(format_hand(hand)) == hand


@given(st.text(alphabet="0123456789mpszfESWNCFP[],  x", max_size=40))
@settings(max_examples=500, deadline=None)
def test_parser_returns_a_hand_or_raises_hand_error(text: str) -> None:
    try:
        hand = parse_hand(text)
    except HandError:
        return
    assert isinstance(hand, Hand)


@given(st.text(max_size=30))
@settings(max_examples=300, deadline=None)
def test_parser_on_any_text(text: str) -> None:
    try:
        hand = parse_hand(text)
    except HandError:
        return
    assert parse_hand(format_hand(hand)) == hand


@given(st.text(alphabet="0123456789mpszESWNCFP[],f", max_size=30), st.booleans())
@settings(max_examples=300, deadline=None)
def test_scoring_any_text_gives_a_score_or_hand_error(text: str, self_drawn: bool) -> None:
    import scoring

    try:
        s = scoring.score(text, self_drawn=self_drawn)
    except HandError:
        return
    assert s.total >= 8 or not s.legal
