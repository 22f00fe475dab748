"""A score sheet settles a hand as its score does, not as a report's flags say (settlement
review of the seventy-third session, /tmp/s73/report_settle.md F1-F3, F6):

* the dealer is the winner's seat (E deals every hand of a sheet): a ``dealer`` flag
  against it is refused (400 ``invalid_context``) from a table, a referee or a camera
  frame, and a hand stored with one before goes ``pending`` when it is scored again;
* a win self-drawn by its type (Xiamen 游金, 双游, 三金倒, 天和, ``win`` 自摸, a robbed
  kong — 抢杠自摸, seed 000 以自摸论 —; Zhenjiang 天胡) is settled without the
  ``self_drawn`` flag, and counts as self-drawn in the standings and the CSV — the
  konger of a 抢杠自摸 deals nobody in;
* Xiamen's 诈胡 penalty is half a 课 (seed 000: 支付各家每人半课的钱（课外）): half the
  table's ``chip_stack`` unless set.

Since the seventy-fourth session the score says whether its win is self-drawn
(``Score.self_drawn``, each rule set's own reading) and the sheet takes it from there; the
reading by win-type names (:data:`~tilecam.tables.scoring_bridge.SELF_DRAWN_WINS`, 天胡)
is kept only for scores stored by an older version, which lack the field.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from test_tables_helpers import (
    FakeCamera,
    admin,
    bearer,
    client_for,
    database_url,
    frame,
    make_app,
    new_table,
)

import scoring
from tilecam.tables import scoring_bridge
from tilecam.tables.flow import offset

#: A Xiamen discard-shaped win with no gold held (底 only): 8 a payer, 16 the dealer's.
PLAIN = "123m456m789m234p567p11s"


@pytest.fixture
def setup(tmp_path: Path) -> Iterator[tuple[TestClient, FakeCamera]]:
    app, cam = make_app(database_url("sqlite", tmp_path), tmp_path / "data")
    for client in client_for(app):
        yield client, cam


def post_hand(client: TestClient, table: int, key: str, body: Mapping[str, Any]) -> Any:
    return client.post(f"/v1/tables/{table}/hands", headers=bearer(key), json=dict(body))


def base_of(view: Mapping[str, Any]) -> int:
    """A Xiamen hand's 底 (its first scoring item)."""
    fan = view["score"]["fans"][0]
    assert fan["zh"] == "底"
    return int(fan["value"])


# --- F1: the dealer is the winner's seat ---------------------------------------------------


@pytest.mark.parametrize(("rules", "body", "says"), [
    ("xiamen", {"hand": PLAIN, "winner": "S", "discarder": "W",
                "context": {"gold": "9s", "dealer": True}}, "seat S is not"),
    ("xiamen", {"hand": PLAIN, "winner": "E", "discarder": "W",
                "context": {"gold": "9s", "dealer": False}}, "seat E is this"),
    # 天胡 is the dealer's win on the deal (seed 001): a non-dealer's is no 天胡
    ("zhenjiang", {"hand": "123m456m789m234pEE", "winner": "S", "self_drawn": True,
                   "context": {"indicator": "1m", "tian_hu": True, "dealer": True}},
     "seat S is not"),
])
def test_a_dealer_flag_against_the_winners_seat_is_refused_as_invalid_context(
        setup: tuple[TestClient, FakeCamera], rules: str, body: dict[str, Any],
        says: str) -> None:
    """Seat E deals every hand of a sheet: a report saying the winner in S deals (or that
    E does not) was settled as given — S paid the dealer's 底 16, the dealer 8, a
    non-dealer's 天胡 12 from each — and is now a 400 invalid_context naming the seat,
    from a table and from a referee's correction alike; nothing is recorded."""
    client, _ = setup
    t, k = new_table(client, rules=rules)
    r = post_hand(client, t, k, body)
    assert r.status_code == 400, r.text
    assert r.json()["error"]["code"] == "invalid_context"
    message = r.json()["error"]["message"]
    assert "dealer" in message and says in message and "leave dealer out" in message
    assert client.get(f"/v1/tables/{t}/standings", headers=bearer(k)).json()[
        "hands_recorded"] == 0
    # a referee's correction of a recorded hand is refused so too
    fine = {**body, "context": {k_: v for k_, v in body["context"].items() if k_ != "dealer"}}
    if rules == "zhenjiang":  # a non-dealer's 天胡 is refused without the flag as well
        fine = {"hand": "123m456m789m234pEE", "winner": "S", "self_drawn": True,
                "context": {"indicator": "1m"}}
    assert post_hand(client, t, k, fine).status_code == 201
    r = client.post(f"/v1/tables/{t}/hands/1/corrections", headers=admin(),
                    json={**body, "reason": "the dealer won"})
    assert r.status_code == 400 and r.json()["error"]["code"] == "invalid_context", r.text


def test_a_dealer_flag_that_agrees_with_the_seats_is_taken(
        setup: tuple[TestClient, FakeCamera]) -> None:
    """Xiamen 底 (seed 000): 16 for the dealer (seat E), 8 for another; a flag that says
    what the seats say changes nothing, and a flag left out is filled from the seat."""
    client, _ = setup
    t, k = new_table(client, rules="xiamen")
    seen = []
    for winner, flag in (("E", True), ("S", False), ("E", None)):
        context: dict[str, Any] = {"gold": "9s"}
        if flag is not None:
            context["dealer"] = flag
        r = post_hand(client, t, k, {"hand": PLAIN, "winner": winner, "self_drawn": True,
                                     "context": context})
        assert r.status_code == 201 and r.json()["outcome"] == "win", r.text
        seen.append(base_of(r.json()))
    # hand 1: the dealer's win (连庄); hand 2: S's, which passes the deal; hand 3: the new
    # dealer's, with no streak
    assert seen == [16, 8, 16]


def test_a_camera_frame_whose_dealer_flag_is_against_its_winner_is_refused(
        setup: tuple[TestClient, FakeCamera]) -> None:
    """A frame's context reaches the recognizer as the sheet reads it: a ``dealer`` given
    against the frame's winner is a 400 invalid_context at once (before, the frame was
    read with it and its hand settled with the dealer's 底); nothing is recorded."""
    client, cam = setup
    t, k = new_table(client, rules="xiamen")
    h = cam.show(150, PLAIN, tiles=17)
    for _ in range(3):
        r = client.post(f"/v1/tables/{t}/frames", headers=bearer(k),
                        files={"image": ("f.jpg", frame(h), "image/jpeg")},
                        data={"winner": "S", "self_drawn": "true",
                              "context": '{"gold": "9s", "dealer": true}'})
        assert r.status_code == 400, r.text
        assert r.json()["error"]["code"] == "invalid_context"
        assert "seat S is not this hand's dealer" in r.json()["error"]["message"]
    assert client.get(f"/v1/tables/{t}/standings", headers=bearer(k)).json()[
        "hands_recorded"] == 0
    assert scoring_bridge.reading_context(
        scoring_bridge.HandReport(winner="E", context={"gold": "9s", "dealer": True}),
        "xiamen") == {"gold": "9s", "dealer": True}


def _trusting_winner_context(context: Mapping[str, Any], rule_set: Any,
                             winner: str) -> dict[str, Any]:
    """``_winner_context`` as it was before the sheet refused a dealer flag: the flag
    given was taken as it stood (to store such a hand, as an older sheet holds one)."""
    extra = dict(context)
    for name in rule_set.seat_context:
        if name in extra:
            extra[name] = scoring_bridge._seats_from_winner(extra[name], winner)
    if "dealer" in rule_set.context_fields() and "dealer" not in extra:
        extra["dealer"] = winner == "E"
    return extra


def test_a_stored_hand_whose_dealer_flag_is_against_its_seat_goes_pending_when_scored_again(
        setup: tuple[TestClient, FakeCamera], monkeypatch: pytest.MonkeyPatch) -> None:
    """A hand recorded before the sheet refused a dealer flag against the seats keeps its
    record; when a correction before it moves its place and it is scored again, the
    scorer's refusal holds it ``pending`` with the reason, for the referee to correct, as
    any hand the scorer now refuses (it is not settled on the flag, nor taken from the
    seat without a word)."""
    client, _ = setup
    t, k = new_table(client, rules="xiamen")
    assert post_hand(client, t, k, {"hand": PLAIN, "winner": "E", "self_drawn": True,
                                    "context": {"gold": "9s"}}).status_code == 201
    with monkeypatch.context() as m:
        m.setattr(scoring_bridge, "_winner_context", _trusting_winner_context)
        r = post_hand(client, t, k, {"hand": PLAIN, "winner": "S", "discarder": "W",
                                     "context": {"gold": "9s", "dealer": True}})
    assert r.status_code == 201 and r.json()["outcome"] == "win"
    # the old sheet paid a non-dealer the dealer's 底, doubled by the streak (连庄)
    assert base_of(r.json()) == 32
    # hand 1 was the dealer's win (连庄); corrected to S's, the deal passes: hand 2 moves
    r = client.post(f"/v1/tables/{t}/hands/1/corrections", headers=admin(), json={
        "hand": PLAIN, "winner": "S", "self_drawn": True, "context": {"gold": "9s"},
        "reason": "S won"})
    assert r.status_code == 201, r.text
    second = client.get(f"/v1/tables/{t}/hands/2", headers=bearer(k)).json()
    assert second["outcome"] == "pending" and second["revision"] == 2
    assert "context dealer=true, but the winner's seat S is not" in second["note"]
    assert set(second["points"].values()) == {0}


# --- F2: a win self-drawn by its type needs no flag ------------------------------------------


SELF_DRAWN_BY_TYPE = [
    ("xiamen", {"hand": "123m456m789m234p567p9s3p", "winner": "S",
                "context": {"gold": "9s", "win": "游金"}}),
    ("xiamen", {"hand": "123m456m789m234p567p9s3p", "winner": "S",
                "context": {"gold": "9s", "win": "双游"}}),
    ("xiamen", {"hand": "123m456m789m234p55p9s9s9s", "winner": "S",
                "context": {"gold": "9s", "win": "三金倒"}}),
    ("xiamen", {"hand": PLAIN, "winner": "E", "context": {"gold": "9s", "win": "天和"}}),
    ("xiamen", {"hand": PLAIN, "winner": "S", "context": {"gold": "9s", "win": "自摸"}}),
    # 抢杠自摸 (seed 000: 对抢杠胡牌的…以自摸论), the konger's seat not given
    ("xiamen", {"hand": "[555p,1]123m456m789m99p67s5s", "winner": "S", "kong": True,
                "context": {"gold": "9s"}}),
    ("xiamen", {"hand": "123m456m789m234p11s567p", "winner": "S", "kong": True,
                "context": {"gold": "9s", "win": "天听"}}),
    ("zhenjiang", {"hand": "123m456m789m234pEE", "winner": "E",
                   "context": {"indicator": "1m", "tian_hu": True}}),
]


SELF_DRAWN_IDS = ["游金", "双游", "三金倒", "天和", "自摸", "抢杠自摸", "天听 抢杠", "天胡"]


@pytest.mark.parametrize(("rules", "body"), SELF_DRAWN_BY_TYPE, ids=SELF_DRAWN_IDS)
def test_a_win_self_drawn_by_its_type_is_settled_without_the_self_drawn_flag(
        setup: tuple[TestClient, FakeCamera], rules: str, body: dict[str, Any]) -> None:
    """The scorer settles these wins as self-drawn (each other player pays); the sheet
    held them pending, "discarder unknown for a win on a discard", when the report left
    out ``"self_drawn": true``. Now each is settled as the scorer settles it and counted
    as the winner's self-drawn win."""
    client, _ = setup
    t, k = new_table(client, rules=rules)
    r = post_hand(client, t, k, body)
    assert r.status_code == 201, r.text
    view = r.json()
    assert view["outcome"] == "win", view["note"]
    context = {"dealer": body["winner"] == "E", **body["context"]}
    want = scoring.score(body["hand"], rules=rules, kong=body.get("kong", False),
                         seat_wind=body["winner"], **context).settlement
    paid = [p.amount for p in want.payments]
    assert len(paid) == 3 and len(set(paid)) == 1  # each of the three pays alike
    winner = view["winner"]["player"]
    assert view["points"] == {n: 3 * paid[0] if n == winner else -paid[0]
                              for n in view["points"]}
    st = client.get(f"/v1/tables/{t}/standings", headers=bearer(k)).json()
    line = {p["player"]: p for p in st["players"]}
    assert (line[winner]["wins"], line[winner]["self_drawn_wins"]) == (1, 1)
    assert sum(p["dealt_in"] for p in st["players"]) == 0


@pytest.mark.parametrize(("rules", "body"), [
    ("xiamen", {"hand": PLAIN, "winner": "S", "context": {"gold": "9s"}}),
    ("xiamen", {"hand": PLAIN, "winner": "S", "context": {"gold": "9s", "win": "天听"}}),
    ("zhenjiang", {"hand": "123m456m789m234pEE", "winner": "S",
                   "context": {"indicator": "1m"}}),
    ("mcr", {"hand": "123m456m789m55p123p", "winner": "S", "kong": True}),  # 抢杠和
])
def test_a_win_on_a_discard_without_its_discarder_is_still_held(
        setup: tuple[TestClient, FakeCamera], rules: str, body: dict[str, Any]) -> None:
    """A plain win, a 天听 won on a discard, a Zhenjiang or MCR win (MCR's 抢杠和 is paid by
    the konger) reported without self_drawn or a discarder is a win on a discard whose
    discarder is unknown: pending, for a referee."""
    client, _ = setup
    t, k = new_table(client, rules=rules)
    r = post_hand(client, t, k, body)
    assert r.status_code == 201, r.text
    assert r.json()["outcome"] == "pending"
    assert r.json()["note"].startswith("discarder unknown for a win on a discard")


# --- F3: 抢杠自摸 is a self-draw in the standings and the CSV --------------------------------


def test_xiamen_robbing_a_kong_counts_as_self_drawn_not_a_deal_in_by_the_konger(
        setup: tuple[TestClient, FakeCamera]) -> None:
    """Xiamen 抢杠自摸 (seed 000: 以自摸论) with the konger's seat: each of the three pays
    ×2 as on a self-draw, so the standings count it among the winner's self-drawn wins
    and the konger deals nobody in (before: self_drawn_wins 0, the konger's dealt_in 1, the
    CSV's self_drawn "no")."""
    client, _ = setup
    t, k = new_table(client, rules="xiamen")
    r = post_hand(client, t, k, {"hand": "[555p,1]123m456m789m99p67s5s", "winner": "S",
                                 "kong": True, "discarder": "E", "context": {"gold": "9s"}})
    assert r.status_code == 201 and r.json()["outcome"] == "win", r.text
    assert r.json()["score"]["details"]["win"] == "self_drawn"
    assert r.json()["points"] == {"Ann0": -16, "Bo0": 48, "Cai0": -16, "Dan0": -16}
    st = client.get(f"/v1/tables/{t}/standings", headers=bearer(k)).json()
    line = {p["player"]: (p["wins"], p["self_drawn_wins"], p["dealt_in"])
            for p in st["players"]}
    assert line == {"Ann0": (0, 0, 0), "Bo0": (1, 1, 0), "Cai0": (0, 0, 0), "Dan0": (0, 0, 0)}
    rows = list(csv.reader(io.StringIO(
        client.get(f"/v1/tables/{t}/sheet.csv", headers=bearer(k)).content.decode("utf-8-sig"))))
    row = dict(zip(rows[0], rows[1], strict=False))
    assert (row["winner"], row["discarder"], row["self_drawn"]) == ("Bo0", "Ann0", "yes")


def test_mcr_robbing_a_kong_is_still_a_deal_in_by_the_konger(
        setup: tuple[TestClient, FakeCamera]) -> None:
    """MCR's 抢杠和 is a win on the konger's tile, paid by him as the discarder: dealt in."""
    client, _ = setup
    t, k = new_table(client, rules="mcr")
    r = post_hand(client, t, k, {"hand": "123m456m789m55p123p", "winner": "S", "kong": True,
                                 "discarder": "E"})
    assert r.status_code == 201 and r.json()["outcome"] == "win", r.text
    st = client.get(f"/v1/tables/{t}/standings", headers=bearer(k)).json()
    line = {p["player"]: (p["self_drawn_wins"], p["dealt_in"]) for p in st["players"]}
    assert line["Bo0"] == (0, 0) and line["Ann0"] == (0, 1)
    rows = list(csv.reader(io.StringIO(
        client.get(f"/v1/tables/{t}/sheet.csv", headers=bearer(k)).content.decode("utf-8-sig"))))
    assert dict(zip(rows[0], rows[1], strict=False))["self_drawn"] == "no"


# --- F6: Xiamen 诈胡 is half a 课 -------------------------------------------------------------


@pytest.mark.parametrize(("settings", "each"), [
    ({}, 50), ({"chip_stack": 60}, 30), ({"chip_stack": 61}, 30),
    ({"chip_stack": 60, "false_win_money": 50}, 50), ({"chip_stack": 200}, 100)])
def test_xiamen_false_win_penalty_is_half_the_tables_chip_stack_unless_set(
        setup: tuple[TestClient, FakeCamera], settings: dict[str, int], each: int) -> None:
    """Seed 000: 诈胡 — 支付各家每人半课的钱（课外）. The referee's false_win penalty on a
    Xiamen table pays each other player half a 课 in money: half the table's chip_stack,
    rounded down (it stayed 50 on a 60-chip table); a false_win_money set is kept."""
    client, _ = setup
    t, _k = new_table(client, rules="xiamen", settings=settings)
    p = client.post(f"/v1/tables/{t}/penalties", headers=admin(),
                    json={"player": "Bo0", "kind": "false_win"})
    assert p.status_code == 201, p.text
    assert (p.json()["points"], p.json()["money"]) == (each, True)
    assert p.json()["deltas"] == {"Ann0": each, "Bo0": -3 * each, "Cai0": each,
                                  "Dan0": each}


def test_every_xiamen_win_type_is_self_drawn_or_may_be_won_on_a_discard() -> None:
    """Each win type the Xiamen scorer names (``details["win"]``) is one the sheet's legacy
    reading knows (for scores stored without ``self_drawn``): self-drawn by its type
    (:data:`~tilecam.tables.scoring_bridge.SELF_DRAWN_WINS`), a discard win, or 天听, won
    either way. A score made now says it itself (``Score.self_drawn``), a new type too."""
    from scoring.rulesets.xiamen_settings import WIN_NAMES

    assert set(WIN_NAMES) == scoring_bridge.SELF_DRAWN_WINS | {"discard", "tian_ting"}


# --- the score says whether its win is self-drawn (seventy-fourth session) -----------------


#: Wins on a discard that the sheet holds pending without their discarder (as
#: ``test_a_win_on_a_discard_without_its_discarder_is_still_held``), and wins with one.
ON_A_DISCARD = [
    ("xiamen", {"hand": PLAIN, "winner": "S", "context": {"gold": "9s"}}),
    ("xiamen", {"hand": PLAIN, "winner": "S", "discarder": "N",
                "context": {"gold": "9s", "win": "天听"}}),
    ("zhenjiang", {"hand": "123m456m789m234pEE", "winner": "S", "discarder": "W",
                   "context": {"indicator": "1m"}}),
    ("zhenjiang", {"hand": "123m456m789m55p234p", "winner": "S", "kong": True,
                   "context": {"indicator": "1m"}}),  # 抢杠: a discard win
    ("mcr", {"hand": "123m456m789m55p123p", "winner": "S", "kong": True}),  # 抢杠和
    ("mcr", {"hand": "123m456m789m55p123p", "winner": "S", "self_drawn": True, "kong": False,
             "last_wall_tile": True}),  # 妙手回春: self-drawn by the flag
]


def _scored(rules: str, body: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The score's JSON of a reported hand (as the sheet scores it: the dealer from the
    winner's seat, the discarder as a seat offset) and the win context stored with it."""
    report = scoring_bridge.HandReport(
        hand=body["hand"], winner=body["winner"], discarder=body.get("discarder"),
        self_drawn=body.get("self_drawn", False), kong=body.get("kong", False),
        last_wall_tile=body.get("last_wall_tile", False), context=body.get("context", {}))
    rule_set = scoring.get_rule_set(rules)
    context = scoring_bridge._winner_context(report.context, rule_set, body["winner"])
    discarder = (None if report.discarder is None
                 else offset(body["winner"], report.discarder))
    score = scoring.score(report.hand or "", rules=rules, self_drawn=report.self_drawn,
                          kong=report.kong, last_wall_tile=report.last_wall_tile,
                          seat_wind=body["winner"], discarder=discarder, **context)
    return score.to_dict(), report.win_context()


@pytest.mark.parametrize(("rules", "body"), SELF_DRAWN_BY_TYPE + ON_A_DISCARD)
def test_the_scores_self_drawn_is_what_the_sheet_read_from_names_before(
        rules: str, body: dict[str, Any]) -> None:
    """Behaviour kept: for every hand the sheet's tests settle, the score's own
    ``self_drawn`` says what the sheet read before from the report's flag, Xiamen's win
    type and Zhenjiang's 天胡 item (the legacy reading, kept for older stored scores)."""
    score, context = _scored(rules, body)
    assert isinstance(score["self_drawn"], bool)
    legacy = {k: v for k, v in score.items() if k != "self_drawn"}
    assert scoring_bridge.scored_self_drawn(legacy, context) is score["self_drawn"]
    assert scoring_bridge.scored_self_drawn(score, context) is score["self_drawn"]
    want = (rules, body) in SELF_DRAWN_BY_TYPE or body.get("self_drawn", False)
    assert score["self_drawn"] is want


@pytest.mark.parametrize(("score", "context", "drawn"), [
    # the score's field decides, whatever the names and the flags say
    ({"self_drawn": True, "details": {"win": "tian_ting"}, "fans": []}, {}, True),
    ({"self_drawn": True, "details": {"win": "a_type_named_later"}}, {}, True),
    ({"self_drawn": False, "details": {"win": "you_jin"}}, {"kong": True}, False),
    ({"self_drawn": False, "fans": [{"zh": "天胡"}]}, {}, False),
], ids=["天听 by the field", "a new win type", "field over 游金's name", "field over 天胡"])
def test_scored_self_drawn_takes_the_scores_own_field_first(
        score: dict[str, Any], context: dict[str, Any], drawn: bool) -> None:
    assert scoring_bridge.scored_self_drawn(score, context) is drawn


@pytest.mark.parametrize(("score", "context", "drawn"), [
    # a score an older version stored (no self_drawn field), or none: read by the names
    ({"details": {"win": "you_jin"}, "fans": []}, {}, True),
    ({"details": {"win": "self_drawn"}}, {"kong": True}, True),  # 抢杠自摸
    ({"details": {"win": "tian_ting"}}, {"kong": True}, True),
    ({"details": {"win": "tian_ting"}}, {}, False),
    ({"fans": [{"zh": "天胡", "en": "heavenly win"}]}, {}, True),
    ({"fans": [{"zh": "冲"}]}, {}, False),
    ({"fans": [{"zh": "抢杠和"}]}, {"kong": True}, False),  # MCR: the konger pays
    ({"fans": [{"zh": "自摸"}]}, {"self_drawn": True}, True),
    (None, {"self_drawn": True}, True),
    (None, {}, False),
    ({"self_drawn": None, "details": {"win": "you_jin"}}, {}, True),  # no bool: no field
], ids=["游金", "抢杠自摸", "天听 抢杠", "天听 discard", "天胡", "冲", "MCR 抢杠和", "flag",
        "no score flag", "no score", "not a bool"])
def test_scored_self_drawn_of_a_score_stored_without_the_field_reads_the_names(
        score: dict[str, Any] | None, context: dict[str, Any], drawn: bool) -> None:
    assert scoring_bridge.scored_self_drawn(score, context) is drawn


def _sheet_self_drawn(client: TestClient, t: int, k: str) -> tuple[Any, ...]:
    """The winner's (wins, self_drawn_wins), the players' dealt_in, and the CSV's
    self_drawn of the table's first hand."""
    st = client.get(f"/v1/tables/{t}/standings", headers=bearer(k)).json()
    wins = [(p["wins"], p["self_drawn_wins"]) for p in st["players"] if p["wins"]]
    dealt_in = sum(p["dealt_in"] for p in st["players"])
    rows = list(csv.reader(io.StringIO(
        client.get(f"/v1/tables/{t}/sheet.csv", headers=bearer(k)).content.decode("utf-8-sig"))))
    return wins, dealt_in, dict(zip(rows[0], rows[1], strict=False))["self_drawn"]


def test_the_sheet_settles_by_the_scores_self_drawn_not_the_win_types_name(
        setup: tuple[TestClient, FakeCamera], monkeypatch: pytest.MonkeyPatch) -> None:
    """A 游金 reported without the flag is settled as self-drawn because its score says
    so: with its win type under a name the table layer does not know (a type renamed or
    added later), the sheet still settles it, counts it self-drawn and writes "yes" —
    before, the table layer knew it only by the name ``you_jin`` and held it pending."""
    client, _ = setup
    t, k = new_table(client, rules="xiamen")
    to_dict = scoring.Score.to_dict

    def renamed(self: scoring.Score) -> dict[str, Any]:
        out = to_dict(self)
        if out.get("details", {}).get("win") == "you_jin":
            out["details"] = {**out["details"], "win": "you_jin_by_another_name"}
        return out

    monkeypatch.setattr(scoring.Score, "to_dict", renamed)
    r = post_hand(client, t, k, {"hand": "123m456m789m234p567p9s3p", "winner": "S",
                                 "context": {"gold": "9s", "win": "游金"}})
    assert r.status_code == 201, r.text
    view = r.json()
    assert view["outcome"] == "win", view["note"]
    assert view["score"]["self_drawn"] is True
    assert view["score"]["details"]["win"] == "you_jin_by_another_name"
    assert _sheet_self_drawn(client, t, k) == ([(1, 1)], 0, "yes")


@pytest.mark.parametrize(("rules", "body", "drawn"), [
    *((rules, body, True) for rules, body in SELF_DRAWN_BY_TYPE),
    ("mcr", {"hand": "123m456m789m55p123p", "winner": "S", "kong": True, "discarder": "E"},
     False),
    ("xiamen", {"hand": PLAIN, "winner": "S", "discarder": "E", "context": {"gold": "9s"}},
     False),
], ids=[*SELF_DRAWN_IDS, "MCR 抢杠和", "Xiamen discard"])
def test_a_score_stored_by_an_older_version_without_self_drawn_is_read_by_its_names(
        setup: tuple[TestClient, FakeCamera], monkeypatch: pytest.MonkeyPatch, rules: str,
        body: dict[str, Any], drawn: bool) -> None:
    """A hand revision recorded by a version whose scores had no ``self_drawn`` keeps its
    score as stored: the standings and the CSV read it by the win type's name, Zhenjiang's
    天胡 item and the report's flags, as that version did."""
    client, _ = setup
    t, k = new_table(client, rules=rules)
    to_dict = scoring.Score.to_dict

    def older(self: scoring.Score) -> dict[str, Any]:
        out = to_dict(self)
        del out["self_drawn"]
        return out

    with monkeypatch.context() as m:
        m.setattr(scoring.Score, "to_dict", older)
        r = post_hand(client, t, k, body)
    assert r.status_code == 201 and r.json()["outcome"] == "win", r.text
    stored = client.get(f"/v1/tables/{t}/hands/1", headers=bearer(k)).json()
    assert "self_drawn" not in stored["score"]  # as the older version stored it
    assert _sheet_self_drawn(client, t, k) == (
        [(1, int(drawn))], int(not drawn), "yes" if drawn else "no")
