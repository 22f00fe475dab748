"""A hand's ``context`` holds its rule set's own fields (Xiamen's gold, Zhenjiang's 百搭 …),
never one of ``scoring.score``'s own parameters (``flowers``, ``self_drawn``,
``seat_wind``, ``kong`` … 12 in all), which the sheet gives the scorer itself from the
report's fields, the table's rules and the hand's place.

Rule checked (security review finding 4): such a key is refused with 400
``invalid_context`` naming it and the field that gives it — on a table's hand, a
referee's correction, a win without a winner, a drawn hand and a camera frame — as
``/v1/recognize`` refuses it in ``rule_context``; ``tilecam watch --context`` (and a
``--fields`` file) refuse it before the first frame, naming the option; and the sheet's
scorer (``scoring_bridge._score``) raises a ``ValueError`` naming it, never the
``TypeError`` of a keyword given twice (which was a 500 ``internal_error``, and a camera
run that never recorded its hands).
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Iterator
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
from tilecam.api.routes.events import domain_error
from tilecam.cli import main
from tilecam.commands import watch
from tilecam.tables import scoring_bridge as bridge
from tilecam.tables.flow import Place
from tilecam.tables.scoring_bridge import HandReport, evaluate

HAND = "123m456m789m123p55p 3f"  # an MCR win of 26 fan self-drawn (清龙, 不求人 …)
#: ``scoring.score``'s own parameters, read off its signature here.
SCORE_PARAMETERS = sorted(
    name for name, p in inspect.signature(scoring.score).parameters.items()
    if p.kind is not inspect.Parameter.VAR_KEYWORD)
#: What the message names for each: the field (or why none) to give it with instead.
NAMED_FIELD = {"seat_wind": "field winner", "discarder": "field discarder",
               "hand": "field hand", "rules": "rule set", "version": "rule version",
               "settings": "rule settings", "prevalent_wind": "round's wind",
               **{k: f"field {k}" for k in ("self_drawn", "last_of_kind", "kong",
                                             "last_wall_tile", "flowers")}}
#: A value of the right kind for each (the refusal must not depend on the value).
VALUE = {"hand": HAND, "rules": "mcr", "version": "mil-2015", "settings": {},
         "seat_wind": "E", "prevalent_wind": "E", "discarder": 1, "flowers": 1,
         "self_drawn": True, "last_of_kind": True, "kong": True, "last_wall_tile": True}


@pytest.fixture
def setup(tmp_path: Path) -> Iterator[tuple[TestClient, FakeCamera]]:
    app, cam = make_app(database_url("sqlite", tmp_path), tmp_path / "data")
    for client in client_for(app):
        yield client, cam


def _refused(r: Any, key: str, gives: str | None = None) -> str:
    """The message of a 400 ``invalid_context`` that names ``key`` and what gives it
    (``gives``; default :data:`NAMED_FIELD`'s)."""
    assert r.status_code == 400, r.text
    error = r.json()["error"]
    assert error["code"] == "invalid_context", error
    assert f"may not set {key}" in error["message"], error
    assert (gives or NAMED_FIELD[key]) in error["message"], error
    return str(error["message"])


def test_the_reserved_keys_are_the_scorer_s_own_parameters() -> None:
    """Rule: the keys refused are exactly ``scoring.score``'s named parameters (12), and
    every one has its advice in the service and in ``tilecam watch``."""
    assert len(SCORE_PARAMETERS) == 12
    assert sorted(bridge.score_parameters()) == SCORE_PARAMETERS
    assert sorted(bridge.REPORT_GIVES) == sorted(bridge.FRAME_GIVES) == SCORE_PARAMETERS
    assert sorted({**watch.CONTEXT_FIELD_FOR, **watch.CONTEXT_NOT_GIVEN}) == SCORE_PARAMETERS
    assert set(NAMED_FIELD) == set(VALUE) == set(SCORE_PARAMETERS)


@pytest.mark.parametrize("rules", ["mcr", "xiamen", "zhenjiang"])
@pytest.mark.parametrize("key", SCORE_PARAMETERS)
def test_a_table_s_hand_whose_context_sets_a_scorer_parameter_is_400_invalid_context(
    setup: tuple[TestClient, FakeCamera], rules: str, key: str
) -> None:
    """Rule: POST /hands refuses the key (400 invalid_context naming the field to use),
    under every rule set — it was a 500 — and records nothing."""
    client, _ = setup
    t, k = new_table(client, rules=rules)
    r = client.post(f"/v1/tables/{t}/hands", headers=bearer(k),
                    json={"hand": HAND, "winner": "S", "self_drawn": True,
                          "context": {key: VALUE[key]}})
    _refused(r, key)
    assert client.get(f"/v1/tables/{t}/hands", headers=bearer(k)).json()["hands"] == []


def test_the_message_names_every_key_and_a_rule_field_beside_them_is_no_excuse(
    setup: tuple[TestClient, FakeCamera]
) -> None:
    client, _ = setup
    t, k = new_table(client, rules="xiamen")
    r = client.post(f"/v1/tables/{t}/hands", headers=bearer(k),
                    json={"hand": HAND, "winner": "S", "self_drawn": True,
                          "context": {"gold": "9s", "seat_wind": "S", "flowers": 1}})
    message = _refused(r, "flowers")
    assert "may not set seat_wind" in message and "field winner" in message
    assert "gold" not in message
    # a caller without the table's key hears 401, not what its body holds
    r = client.post(f"/v1/tables/{t}/hands", json={"hand": HAND, "context": {"kong": True}})
    assert r.status_code == 401, r.text


def test_a_win_without_its_winner_a_drawn_hand_and_a_correction_are_refused_alike(
    setup: tuple[TestClient, FakeCamera]
) -> None:
    """Rule: every JSON report is checked — a win without a winner (scored for each seat
    to see it is a hand), a drawn hand, and a referee's correction, which leaves the
    recorded hand as it was."""
    client, _ = setup
    t, k = new_table(client)
    _refused(client.post(f"/v1/tables/{t}/hands", headers=bearer(k),
                         json={"hand": HAND, "context": {"kong": True}}), "kong")
    _refused(client.post(f"/v1/tables/{t}/hands", headers=bearer(k),
                         json={"outcome": "draw", "context": {"last_of_kind": True}}),
             "last_of_kind")
    r = client.post(f"/v1/tables/{t}/hands", headers=bearer(k), json={"outcome": "draw"})
    assert r.status_code == 201, r.text
    _refused(client.post(f"/v1/tables/{t}/hands/1/corrections", headers=admin(),
                         json={"hand": HAND, "winner": "S", "self_drawn": True,
                               "context": {"flowers": 1}, "reason": "a win, not a draw"}),
             "flowers")
    hand = client.get(f"/v1/tables/{t}/hands/1", headers=bearer(k)).json()
    assert hand["outcome"] == "draw" and len(hand["history"]) == 1
    # the same correction with the field is taken
    r = client.post(f"/v1/tables/{t}/hands/1/corrections", headers=admin(),
                    json={"hand": HAND, "winner": "S", "self_drawn": True, "flowers": 1,
                          "reason": "a win, not a draw"})
    assert r.status_code == 201 and r.json()["outcome"] == "win", r.text


@pytest.mark.parametrize("key", SCORE_PARAMETERS)
def test_a_camera_frame_whose_context_sets_a_scorer_parameter_is_400_before_it_is_read(
    setup: tuple[TestClient, FakeCamera], key: str
) -> None:
    """Rule: a frame's context (the rule set's fields, given to the recognizer) may not
    set a win flag, seat or flowers: the frame's own fields give them, and the hand is
    recorded with those — refused at once, counting for nothing (it was a 500 on the
    frame that should record the hand, so a camera never recorded one)."""
    client, cam = setup
    t, k = new_table(client)
    cam.show(120, HAND)
    r = client.post(f"/v1/tables/{t}/frames", headers=bearer(k),
                    files={"image": ("f.jpg", frame(120), "image/jpeg")},
                    data={"winner": "S", "context": json.dumps({key: VALUE[key]})})
    message = _refused(r, key, "read from the image" if key == "hand" else None)
    assert message.startswith("field context may not set")
    assert cam.calls == 0


def test_a_self_drawn_camera_win_is_recorded_self_drawn_from_the_frame_s_field(
    setup: tuple[TestClient, FakeCamera]
) -> None:
    """What a camera meaning ``--context self_drawn=true`` gets with the field instead:
    the hand recorded once, a settled self-drawn win (every other seat pays), its context
    saying so; the recognizer's context keeps only rule fields."""
    client, cam = setup
    t, k = new_table(client)
    cam.show(120, HAND)
    refused = client.post(f"/v1/tables/{t}/frames", headers=bearer(k),
                          files={"image": ("f.jpg", frame(120), "image/jpeg")},
                          data={"winner": "S", "context": '{"self_drawn": true}'})
    _refused(refused, "self_drawn")
    statuses = []
    for _ in range(3):
        r = client.post(f"/v1/tables/{t}/frames", headers=bearer(k),
                        files={"image": ("f.jpg", frame(120), "image/jpeg")},
                        data={"winner": "S", "self_drawn": "true"})
        assert r.status_code == 200, r.text
        statuses.append(r.json()["status"])
    assert statuses == ["waiting", "waiting", "recorded"]
    hand = r.json()["recorded"]
    assert hand["outcome"] == "win" and hand["winner"]["seat"] == "S"
    assert hand["context"]["self_drawn"] is True
    assert sorted(v < 0 for v in hand["settlement"]) == [False, True, True, True]
    assert all(set(c) <= {"dealer"} for c in cam.contexts)


def _place() -> Place:
    return Place(number=1, round=1, hand_in_round=1, prevalent_wind="E", dealer=0)


@pytest.mark.parametrize("key", SCORE_PARAMETERS)
def test_the_sheet_s_scorer_raises_a_value_error_naming_the_key_never_type_error(
    key: str
) -> None:
    """Rule (the backstop in ``_score``, for a report made otherwise than by a request):
    ``ContextClash``, a ``ValueError`` the routes answer 400; a camera's reading
    (lenient) is held pending saying why, as any hand its scorer refuses."""
    report = HandReport(hand=HAND, winner="S", self_drawn=True, context={key: VALUE[key]})
    with pytest.raises(bridge.ContextClash, match=f"may not set {key}") as caught:
        evaluate(report, _place(), "mcr", None, {})
    assert isinstance(caught.value, ValueError)
    assert domain_error(caught.value).status_code == 400
    held = evaluate(report, _place(), "mcr", None, {}, lenient=True)
    assert held.outcome == "pending" and f"may not set {key}" in (held.note or "")


def test_a_win_without_its_winner_reaches_the_backstop_for_each_seat_alike() -> None:
    """``_check_some_winner`` scores the hand for each seat: the clash is raised, not
    taken for a hand that scores for no seat."""
    report = HandReport(hand=HAND, context={"seat_wind": "N"})
    with pytest.raises(bridge.ContextClash, match="may not set seat_wind"):
        evaluate(report, _place(), "zhenjiang", None, {})


# tilecam watch


@pytest.mark.parametrize("key", SCORE_PARAMETERS)
def test_watch_context_refuses_a_scorer_parameter_naming_the_option(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], key: str
) -> None:
    """Rule: ``tilecam watch --context self_drawn=true`` stops before the source is
    opened (exit 2), naming the option that gives it — every frame would be refused."""
    value = json.dumps(VALUE[key]) if not isinstance(VALUE[key], str) else VALUE[key]
    code = main(["watch", "--table", "1", "--key", "k", "--source",
                 str(tmp_path / "no.mp4"), "--context", f"{key}={value}"])
    err = capsys.readouterr().err
    assert code == 2 and f"--context may not set {key}" in err, err
    assert "cannot open video source" not in err
    option = watch.CONTEXT_FIELD_FOR.get(key)
    if option is not None:
        assert f"use --{option.replace('_', '-')}" in err


def test_watch_fields_file_context_refuses_a_scorer_parameter_naming_the_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Rule: a ``--fields`` file's context is checked alike before the first frame,
    naming the frame field to write instead; its rule fields (the gold) are no fault."""
    fields = tmp_path / "hand.json"
    fields.write_text(json.dumps({"winner": "S", "context": {"gold": "9s", "flowers": 2}}))
    code = main(["watch", "--table", "1", "--key", "k", "--source",
                 str(tmp_path / "no.mp4"), "--fields", str(fields)])
    err = capsys.readouterr().err
    assert code == 2 and "context may not set flowers; use the field flowers" in err, err
    assert "gold" not in err  # a rule field goes as context, on the command line too
    assert watch.context_option(["gold=5m", "tian_hu=true"]) == {"gold": "5m", "tian_hu": True}


def test_watch_does_not_hint_a_missing_context_for_a_refused_key() -> None:
    """A server's ``invalid_context`` for a key the context may not set is no rule field
    missing: the watch's stop message does not tell the camera to add one."""
    refusals = watch.Refusals(1)
    message = "field context may not set kong: give it as the field kong"
    with pytest.raises(ValueError) as caught:
        refusals.answered(400, {"error": {"code": "invalid_context", "message": message}},
                          1, 0)
    assert message in str(caught.value) and "gold=5m" not in str(caught.value)
