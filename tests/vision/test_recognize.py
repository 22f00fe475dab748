"""Detections → a scored hand (``recognize_detections``), photo → result with a stand-in
detector (``recognize``), and ``tilecam recognize`` with its JSON."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

import scoring
from tilecam.cli import main
from vision.detections import Detections
from vision.layout_scene import SceneBuilder
from vision.recognize import Recognition, recognize, recognize_detections

ZJ = {"indicator": "C"}  # Zhenjiang: 百搭 (wild) is F


def needs_mcr() -> None:
    if "mcr" not in scoring.rule_sets():
        pytest.skip("the MCR rule set is not in scoring yet")


def won_scene() -> SceneBuilder:
    return SceneBuilder().standing("123m456p789sN").meld("EEE", sideways=1).win("N")


def test_json_has_the_fields_of_issue_6() -> None:
    r = recognize_detections(won_scene().detections(), "zhenjiang", ZJ)
    out = r.to_dict()
    for key in ("image", "tiles", "hand", "melds", "corrections", "alternatives", "score"):
        assert key in out
    assert "waits" not in out and "unscorable" not in out
    assert set(out["tiles"][0]) == {"code", "box", "confidence", "rotation", "face_down", "role",
                                    "order"}
    assert out["hand"] == "[EEE,2]123m456p789sNN"
    assert out["melds"][0]["claimed_from"] == 2 and out["melds"][0]["kind"] == "pung"
    assert [t["role"] for t in out["tiles"]].count("winning") == 1
    json.dumps(out)  # JSON-ready


def test_each_tile_says_its_place_in_the_standing_row_whatever_the_detector_order() -> None:
    """RULES.md notation: the last standing tile is the winning tile when none is set
    apart, so a client rebuilding the hand from ``tiles`` (the phone page after a tap
    correction) needs the row's order, not the detector's: ``order`` gives it."""
    dets = SceneBuilder().standing("EEE7777p666p44p8p8p").meld("123m", sideways=0).detections()
    shuffled = dets.select(np.random.default_rng(3).permutation(len(dets)))
    r = recognize_detections(shuffled, "mcr", {})
    assert r.hand is not None and r.hand.standing[-1] == "8p"
    tiles = r.to_dict()["tiles"]
    ordered = sorted((t for t in tiles if t["order"] is not None), key=lambda t: t["order"])
    assert [t["code"] for t in ordered] == list(r.hand.standing)
    assert [t["order"] for t in ordered] == list(range(len(r.hand.standing)))
    assert all(t["order"] is None for t in tiles if t["role"] == "meld")
    assert [t["code"] for t in tiles] != [t["code"] for t in ordered] + ["1m", "2m", "3m"]


def test_flowers_are_left_out_under_rules_that_play_without_them() -> None:
    """Zhenjiang plays without flowers (seed 001): a bonus tile lying apart in the photo
    is left out of the hand with a note, and the hand is scored (it was "not a winning
    hand" while the scorer refused the flower); under MCR it is the hand's flower."""
    scene = won_scene().flowers("7f")
    r = recognize_detections(scene.detections(), "zhenjiang", ZJ)
    assert r.score is not None and r.hand_text == "[EEE,2]123m456p789sNN"
    assert any("plays without flowers" in n and "7f" in n for n in r.notes)
    assert "flower" not in [t["role"] for t in r.to_dict()["tiles"]]
    needs_mcr()
    mcr = recognize_detections(scene.detections(), "mcr", {"self_drawn": True})
    assert mcr.hand_text is not None and mcr.hand_text.endswith("7f")


def test_a_flower_read_inside_the_hand_row_is_its_likeliest_kind_under_rules_without_flowers(
) -> None:
    """Zhenjiang plays 136 tiles, no flowers (seed 001): a tile read as a flower between
    two tiles of the hand's row is a hand tile misread, read as its likeliest kind (8s
    here) with a correction saying so; it was left out with the flowers and the hand came
    out a tile short. Without a kind among its alternatives it is left out as before, and
    under MCR, which plays flowers, the reading is unchanged."""
    def scene(alternative: str | None) -> SceneBuilder:
        b = SceneBuilder().standing("123m456p7s").standing("1f")
        b.uncertain([("1f", 0.6), (alternative, 0.35)] if alternative else [("1f", 1.0)])
        return b.standing("9sNN").meld("EEE", sideways=1)

    r = recognize_detections(scene("8s").detections(), "zhenjiang", ZJ)
    assert r.score is not None and r.hand_text == "[EEE,2]123m456p789sNN"
    [c] = r.to_dict()["corrections"]
    assert (c["from"], c["to"]) == ("1f", "8s")
    assert any("inside the hand's row" in n for n in r.notes)
    bare = recognize_detections(scene(None).detections(), "zhenjiang", ZJ)
    assert bare.hand_text == "[EEE,2]123m456p79sNN" and bare.score is None
    assert any("plays without flowers" in n and "1f" in n for n in bare.notes)
    needs_mcr()
    mcr = recognize_detections(scene("8s").detections(), "mcr", {})
    assert mcr.hand_text == "[EEE,2]123m456p79sNN1f" and not mcr.to_dict()["corrections"]


def test_the_json_names_the_model_that_read_the_photo() -> None:
    """A reading says which model made it (the detector's meta["model"], name@version),
    so a hand recorded from a camera frame keeps it; tile boxes given without one (an
    automatic table's) say null."""
    dets = won_scene().detections()
    assert recognize_detections(dets, "zhenjiang", ZJ).to_dict()["model"] is None
    dets.meta["model"] = "tilecam-tiles-yolo11n@2026-12-05.35"
    out = recognize_detections(dets, "zhenjiang", ZJ).to_dict()
    assert out["model"] == "tilecam-tiles-yolo11n@2026-12-05.35"


def test_corrected_tiles_carry_their_new_code() -> None:
    b = SceneBuilder().standing("5555p").standing("5p").uncertain([("5p", 0.7), ("6p", 0.25)])
    b.standing("7p123sEEEN").win("N")
    out = recognize_detections(b.detections(), "zhenjiang", ZJ).to_dict()
    [c] = out["corrections"]
    assert (c["from"], c["to"]) == ("5p", "6p")
    assert out["tiles"][c["tile"]]["code"] == "6p"
    assert out["tiles"][c["tile"]]["confidence"] == pytest.approx(0.25)


def test_reading_confidence_is_the_product_of_the_final_codes_probabilities() -> None:
    """Honest uncertainty: the hand-level figure multiplies each tile's probability of its
    final code, so a corrected tile counts with its (lower) new probability."""
    d = won_scene().detections()
    out = recognize_detections(d, "zhenjiang", ZJ).to_dict()
    assert out["reading_confidence"] == pytest.approx(float(np.prod(d.topk_probs[:, 0])), abs=1e-4)

    b = SceneBuilder().standing("5555p").standing("5p").uncertain([("5p", 0.7), ("6p", 0.25)])
    b.standing("7p123sEEEN").win("N")
    d = b.detections()
    r = recognize_detections(d, "zhenjiang", ZJ)
    [c] = r.correction.best.changes
    others = np.delete(d.topk_probs[:, 0], c.tile)
    assert r.reading_confidence == pytest.approx(0.25 * float(np.prod(others)), rel=1e-6)
    assert recognize_detections(Detections.empty(), "zhenjiang", ZJ).reading_confidence == 0.0


def test_a_waiting_hand_gets_its_waits() -> None:
    b = SceneBuilder().standing("123m456p789sEEEN")
    out = recognize_detections(b.detections(), "zhenjiang", ZJ).to_dict()
    assert "waits" in out and "score" not in out


def test_a_hand_of_the_wrong_size_is_unscorable_with_the_reason() -> None:
    b = SceneBuilder().standing("123m456p789s")
    out = recognize_detections(b.detections(), "zhenjiang", ZJ).to_dict()
    assert "9 tiles found" in out["unscorable"]


def test_all_face_down_kong_needs_its_kind() -> None:
    b = SceneBuilder().standing("123m456p789sN").concealed_kong("W", all_down=True).win("N")
    out = recognize_detections(b.detections(), "zhenjiang", ZJ).to_dict()
    assert "face down" in out["unscorable"]
    ctx = {**ZJ, "hidden_kongs": ["W"]}
    out = recognize_detections(b.detections(), "zhenjiang", ctx).to_dict()
    assert out["hand"] == "[WWWW]123m456p789sNN" and "score" in out


def test_no_tiles() -> None:
    out = recognize_detections(Detections.empty(), "zhenjiang", ZJ).to_dict()
    assert out["tiles"] == [] and "0 tiles found" in out["unscorable"]


def test_unknown_rules_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="unknown rules"):
        recognize_detections(won_scene().detections(), "nosuchrules")


def test_bad_win_flag_is_a_clear_error() -> None:
    """A context error is a HandError (the service answers it 400 invalid_context)."""
    with pytest.raises(scoring.HandError, match="claim_win"):
        recognize_detections(won_scene().detections(), "zhenjiang", {**ZJ, "claim_win": "yes"})


def test_a_string_win_is_the_rule_sets_win_type() -> None:
    """Xiamen's ``win`` context field (游金 ...) passes through; a bool ``win`` claims a win
    (false: no win, so a hand of 17 gets its discards)."""
    b = SceneBuilder().standing("123m456p789s111sEEEN").win("N")
    ctx = {"self_drawn": True, "win": "plain", "gold": "C"}
    r = recognize_detections(b.detections(), "xiamen", ctx)
    assert r.score is not None
    r = recognize_detections(b.detections(), "xiamen", {"win": False, "gold": "C"})
    assert r.score is None and r.unscorable and "shown as no win: 17 tiles" in r.unscorable
    assert r.discards is not None and r.discards.rules == "xiamen"


def test_mcr_win_scored_with_claim_sources() -> None:
    needs_mcr()
    b = SceneBuilder().standing("22m").meld("EEE", sideways=1).meld("SSSS", sideways=0)
    b.standing("WWWNN5p").win("N")
    r = recognize_detections(b.detections(), "mcr", {"self_drawn": True})
    assert scoring.format_hand(r.hand) is not None
    # RULES.md: [EEE,2][SSSS,1]WWWNN55pN self-drawn is 98 fan
    b = SceneBuilder().meld("EEE", sideways=1).meld("SSSS", sideways=0)
    b.standing("WWWNN55p").win("N")
    r = recognize_detections(b.detections(), "mcr", {"self_drawn": True})
    assert r.hand_text == "[EEE,2][SSSS,1]WWWNN55pN"
    assert r.score is not None and r.score.total == 98


def test_a_kong_shown_face_up_is_scored_as_concealed_with_the_claimed_score_noted() -> None:
    """Four face-up F with none sideways in a hand one tile over its size: no other rule
    makes the hand a win, so the four are read as a kong — scored as concealed (暗杠),
    the note giving the score had it been claimed (明杠)."""
    needs_mcr()
    b = SceneBuilder().standing("FFFF").standing("999s555m123p8s", apart=True).win("8s")
    r = recognize_detections(b.detections(), "mcr")
    assert r.hand_text == "[FFFF]999s555m123p8s8s"
    assert r.score is not None
    claimed = scoring.score(scoring.parse_hand("[FFFF,2]123p555m999s8s8s")).total
    assert claimed < r.score.total
    assert any(f"if claimed (明杠) the hand would score {claimed}" in n for n in r.notes)
    [meld] = r.to_dict()["melds"]
    assert meld["face_up"] and meld["concealed"]


def test_a_hand_over_its_size_without_four_alike_is_read_once(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Speed (recognize ≤ 60 ms): the reading with kongs laid as four face-up tiles is a
    second pass over the whole hand, worth it only when four tiles read as one kind. A
    15-tile hand with none was read twice (62–77 ms for unsure tiles, twice the one
    pass); with four F it still is, and the kong is found (the test above)."""
    needs_mcr()
    import vision.recognize as rec

    calls: list[bool] = []
    once = rec._recognize_once

    def counted(dets: Detections, params: Any, given: Any) -> Recognition:
        calls.append(params.face_up_kongs)
        return once(dets, params, given)

    monkeypatch.setattr(rec, "_recognize_once", counted)
    b = SceneBuilder().standing("FFF").standing("999s555m123p8sN", apart=True).win("8s")
    r = recognize_detections(b.detections(), "mcr")
    assert r.score is None and calls == [False]
    calls.clear()
    b = SceneBuilder().standing("FFFF").standing("999s555m123p8s", apart=True).win("8s")
    assert recognize_detections(b.detections(), "mcr").score is not None
    assert calls == [False, True]


def test_a_face_up_kong_hand_with_a_context_it_cannot_take_gives_the_scorers_reason() -> None:
    """和绝张 (last of its kind) cannot be claimed on 8s while the hand holds another 8s: the
    kong's reading of the hand is a winning shape the scorer refuses for the context, and
    that is the reason given, with the kong kept — not the plain reading's "15 tiles"."""
    needs_mcr()
    b = SceneBuilder().standing("FFFF").standing("999s555m123p8s", apart=True).win("8s")
    r = recognize_detections(b.detections(), "mcr", {"last_of_kind": True})
    assert r.score is None and r.hand_text == "[FFFF]999s555m123p8s8s"
    assert r.unscorable is not None and "last of its kind" in r.unscorable


@pytest.mark.parametrize(("rules", "context", "says"), [
    ("zhenjiang", {}, "needs the 百搭"),
    ("zhenjiang", {"indicator": "xx"}, "not a tile code"),
    ("xiamen", {}, "needs the gold"),
    ("xiamen", {"gold": "1f"}, "gold"),
])
def test_a_regional_context_no_hand_can_be_scored_with_is_refused_before_the_photo(
    rules: str, context: dict[str, Any], says: str
) -> None:
    """RuleSet.check_context: a Zhenjiang 百搭 or a Xiamen gold not given or not a tile —
    the scorer refuses every hand so, won or waiting, so ``check_request`` (the CLI's exit
    2, the API's 400 invalid_context) refuses it before the detector runs, instead of
    reporting the photo as "not a winning hand"."""
    from vision.recognize import check_request

    with pytest.raises(scoring.HandError, match=says):
        check_request(rules, context)
    with pytest.raises(scoring.HandError, match=says):
        recognize_detections(won_scene().detections(), rules, context)


def test_a_regional_context_that_does_not_fit_the_hand_is_its_reason_not_no_win() -> None:
    """Zhenjiang 杠开 (kong=true, self-drawn) needs a kong among the melds: the hand read has
    none, and the scorer's reason is reported (it was "not a winning hand"); so is a 天胡
    without its dealer. A hand that is no win at all stays "not a winning hand", with the
    waits of its tiles without the one set apart, whatever the context."""
    for ctx, says in (({"kong": True, "self_drawn": True}, "杠开"),
                      ({"tian_hu": True}, "pass dealer=true"),
                      # a field the waits refuse as the score does: the shape is asked
                      # with what says what the tiles are alone (RuleSet.tile_context)
                      ({"wild_after_pung": "winner,winner"}, "names the winner 2 time")):
        r = recognize_detections(won_scene().detections(), "zhenjiang", {**ZJ, **ctx})
        assert r.score is None and r.unscorable is not None and says in r.unscorable
        assert r.refused_win
    ready = SceneBuilder().standing("123m456p789sN").meld("EEE", sideways=1).win("W")
    r = recognize_detections(ready.detections(), "zhenjiang",
                             {**ZJ, "kong": True, "self_drawn": True, "claim_win": True})
    assert r.unscorable is not None and r.unscorable.startswith("not a winning hand")
    assert r.waits is not None and not r.refused_win


def test_a_ready_hand_is_read_whatever_a_wins_fields_say() -> None:
    """The waits take none of a win's fields: a Zhenjiang 天胡 without its dealer, a
    Xiamen 游金 with a discarder are the score's to refuse, not a waiting photo's."""
    ready = SceneBuilder().standing("123m456p789sN").meld("EEE", sideways=1)
    r = recognize_detections(ready.detections(), "zhenjiang", {**ZJ, "tian_hu": True})
    assert r.waits is not None and r.unscorable is None


def test_a_flower_read_as_a_kind_is_mended_before_four_like_tiles_become_a_kong() -> None:
    """A hand one tile over that holds all four 1m (a pung and a chow) and a flower read
    as a kind: the flower reading makes the win, so no kong is read."""
    needs_mcr()
    b = SceneBuilder().standing("111123m456p789sE").standing("7p")
    b.uncertain([("7p", 0.5), ("5f", 0.3)]).win("E")
    r = recognize_detections(b.detections(), "mcr")
    assert r.score is not None and r.hand is not None
    assert r.hand.melds == () and r.hand.flowers == ("5f",)


def test_mcr_non_winning_hand_reported_with_waits() -> None:
    needs_mcr()
    b = SceneBuilder().standing("123m456s57pEEECC").win("9p")
    b.uncertain([("9p", 0.97), ("6p", 0.02)])
    out = recognize_detections(b.detections(), "mcr").to_dict()
    assert out["unscorable"].startswith("not a winning hand")
    assert "waits" in out and out["waits"]["ready"]
    assert [w["tile"] for w in out["waits"]["waits"]] == ["6p"]


def test_a_hand_of_a_wins_size_that_is_no_win_gets_its_discards() -> None:
    """A 14-tile MCR hand that drew (no tile set apart) and is no win: each discard that
    leaves it ready, with its waits, best first; ``unscorable`` says so. Before, a hand
    shown as no win (``win: false``) on 14 tiles got only "wrong number of tiles for a
    wait", and a claimed win that was none no waits at all. A winning shape told it is
    no win is "shown as no win", not "not a winning hand"."""
    needs_mcr()
    drew = SceneBuilder().standing("123m456p789sN1s").meld("EEE", sideways=1)
    for ctx in ({}, {"win": False}):
        out = recognize_detections(drew.detections(), "mcr", ctx).to_dict()
        assert "score" not in out and "waits" not in out
        assert out["unscorable"].startswith(
            "shown as no win" if ctx else "not a winning hand"), out["unscorable"]
        assert "discarding 1s or N" in out["unscorable"]
        ready = [(d["tile"], [w["tile"] for w in d["waits"]])
                 for d in out["discards"]["discards"] if d["ready"]]
        assert sorted(ready) == [("1s", ["N"]), ("N", ["1s"])]
    won = SceneBuilder().standing("123m456p789sNN").meld("EEE", sideways=1)
    out = recognize_detections(won.detections(), "mcr", {"win": False}).to_dict()
    assert out["unscorable"].startswith("shown as no win") and out["discards"]["shanten"] == 0
    assert "discards" not in recognize_detections(won.detections(), "mcr").to_dict()


def test_the_tiles_are_read_alike_whatever_the_claim() -> None:
    """A flower read as a kind (5p, 0.6; 1f, 0.35) makes the hand a tile over: re-read as
    the flower whether or not a win is claimed — told it is no win, the hand of 14 that
    drew gets its discards (CLI review 7: ``--no-win`` skipped the re-reading and left a
    15-tile hand, "wrong number of tiles for a wait")."""
    needs_mcr()
    b = SceneBuilder().standing("123m456p789sEEEN").standing("5p")
    b.uncertain([("5p", 0.6), ("1f", 0.35)]).win("N")
    for ctx in ({}, {"win": False}):
        r = recognize_detections(b.detections(), "mcr", ctx)
        assert r.hand_text == "123m456p789sEEENN1f", ctx
    assert r.discards is not None and r.unscorable is not None
    assert r.unscorable.startswith("shown as no win: 14 tiles")


def test_a_waiting_hand_with_a_kong_laid_flat_says_so_beside_its_discards() -> None:
    """Four 5p side by side in a hand of 14 that is no win: a hand that drew (its
    discards: 5p leaves it ready), or a waiting hand whose kong lies as four face-up
    tiles — the picture does not say; a note gives the kong's reading and its waits (it
    was only "not a winning hand"). Under Zhenjiang the note takes the rules' context."""
    needs_mcr()
    b = SceneBuilder().standing("5555p123mEE78s").meld("WWW", sideways=1)
    r = recognize_detections(b.detections(), "mcr", {})
    assert r.discards is not None and [d.tile for d in r.discards.ready_after] == ["5p"]
    [note] = [n for n in r.notes if "read as a kong" in n]
    assert "[5555p]" in note and note.endswith("waiting on 6s 9s")
    r = recognize_detections(b.detections(), "zhenjiang", ZJ)
    assert any("read as a kong" in n for n in r.notes)


def test_mcr_winning_tile_not_set_apart_is_the_last_standing_tile() -> None:
    needs_mcr()
    b = SceneBuilder().standing("123m456p789s11sEEE")
    r = recognize_detections(b.detections(), "mcr")
    assert r.score is not None and r.winning_tile == "E"
    assert r.hand_text is not None and r.hand_text.endswith("E")
    [note] = [n for n in r.notes if "not set apart" in n]
    assert "on another tile it would score" in note and "1m " in note


def test_winning_tile_not_set_apart_is_known_when_every_standing_tile_is_one_kind() -> None:
    """Four melds and a pair (单钓将): the win was on the pair's kind whichever copy it
    was, so the layout's unknown winning tile is deduced (role, note) and the hand is
    scored on it without "would score" guesses."""
    needs_mcr()
    b = SceneBuilder().standing("NN").meld("123m", 0).meld("456p", 0).meld("789s", 0)
    b.meld("EEE", 1)
    r = recognize_detections(b.detections(), "mcr")
    assert r.layout.winning is not None and r.roles[r.layout.winning] == "winning"
    assert r.score is not None and r.winning_tile == "N"
    assert any("every standing tile is N: won on N" in n for n in r.notes)
    assert not any("not set apart: scored on" in n for n in r.notes)


# ------------------------------------------------------------------ photo and CLI
def scene_and_image(tmp_path: Path) -> tuple[Detections, Path]:
    d = won_scene().detections()
    w, h = d.image_size or (1280, 960)
    img = np.full((h, w, 3), 90, np.uint8)
    path = tmp_path / "hand.png"
    cv2.imwrite(str(path), img)
    return d, path


def test_recognize_a_photo_with_a_given_detector(tmp_path: Path) -> None:
    d, path = scene_and_image(tmp_path)
    r = recognize(str(path), "zhenjiang", ZJ, detector=lambda image: d)
    assert r.image == str(path) and r.hand_text == "[EEE,2]123m456p789sNN"
    assert set(r.ms) >= {"load", "detect", "layout", "correct", "score"}


def test_cli_json_and_annotation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    d, path = scene_and_image(tmp_path)
    import vision.detect

    def fake_detect(image: Any, **kw: Any) -> Detections:
        return d

    monkeypatch.setattr(vision.detect, "detect", fake_detect)
    out_img = tmp_path / "out.jpg"
    argv = ["recognize", str(path), "--rules", "zhenjiang", "--context", "indicator=C",
            "--self-drawn", "--json", "--annotate", str(out_img)]
    assert main(argv) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["image"] == str(path) and result["hand"] == "[EEE,2]123m456p789sNN"
    assert result["score"]["total"] >= 1
    assert 0.0 < result["hand_confidence"] < 1.0  # the shipped model is calibrated
    shown = cv2.imread(str(out_img))
    assert shown is not None and shown.shape[0] > d.image_size[1]  # type: ignore[index]
    assert main(argv[:-3]) == 0
    text = capsys.readouterr().out
    assert "meld [EEE,2]: pung from opposite" in text and "total:" in text
    assert "hand confidence: " in text


def test_cli_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["recognize", str(tmp_path / "missing.jpg")]) == 2
    assert "no such image file" in capsys.readouterr().err
    folder = tmp_path / "photos.jpg"
    folder.mkdir()
    assert main(["recognize", str(folder)]) == 2
    assert "is a directory, not an image file" in capsys.readouterr().err
    bad = tmp_path / "bad.jpg"
    bad.write_bytes(b"not an image at all")
    assert main(["recognize", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "tilecam recognize: error:" in err and "Traceback" not in err
    _, path = scene_and_image(tmp_path)
    assert main(["recognize", str(path), "--context", "oops"]) == 2
    assert "KEY=VALUE" in capsys.readouterr().err
    assert main(["recognize", str(path), "--context", "hidden_kongs=5p"]) == 2
    assert "may not set hidden_kongs" in capsys.readouterr().err


def test_damaged_scenes_give_a_result_never_an_exception() -> None:
    """Random hands with missed tiles and misread rotations: always a result (scored,
    waits, or unscorable with a reason), never an exception."""
    needs_mcr()
    from vision.layout_scene import random_scene

    rng = np.random.default_rng(5)
    for _ in range(60):
        d = random_scene(rng).detections()
        keep = [i for i in range(len(d)) if rng.random() > 0.1] or [0]
        d = d.select(keep)
        rotations = d.rotations.copy()
        flip = rng.random(len(rotations)) < 0.1
        rotations[flip] = (rotations[flip] + 90) % 360
        d = Detections(d.boxes, d.class_ids, d.confidences, rotations, d.topk_ids, d.topk_probs)
        out = recognize_detections(d, "mcr", {"self_drawn": True}).to_dict()
        assert {"score", "waits", "unscorable"} & set(out)
        json.dumps(out)


def _a_tile_missed(tilt_deg: float = 40.0) -> tuple[Detections, Detections, np.ndarray]:
    """A won hand's detections with rows ``tilt_deg`` off the photo's edges and its 5p
    missed (no win), the same hand detected level (a win), and a black photo of the
    tilted scene's size."""
    b = won_scene()
    tilted = b.detections(tilt_deg=tilt_deg)
    tilted = tilted.select([i for i in range(len(tilted)) if i != 4])  # the 5p missed
    size = tilted.image_size or (1000, 800)
    return tilted, b.detections(), np.zeros((size[1], size[0], 3), np.uint8)


def test_rows_near_45_degrees_are_read_again_from_the_photo_turned_level() -> None:
    """A photo whose rows lie 40° off its edges, read as no win (a tile missed): the hand
    is read again from a second detection of the region turned level (vision.straighten),
    taken because it wins, its boxes given back in the photo's pixels, with a note."""
    needs_mcr()
    tilted, level, photo = _a_tile_missed()
    size = tilted.image_size or (1000, 800)
    seen: list[tuple[int, ...]] = []

    def stand_in(image: np.ndarray) -> Detections:
        seen.append(image.shape)
        return tilted if len(seen) == 1 else level

    r = recognize(photo, "zhenjiang", ZJ, detector=stand_in)
    assert len(seen) == 2 and seen[1] != photo.shape  # the turned region was detected
    assert r.hand_text == "[EEE,2]123m456p789sNN"
    assert any("read again from the photo turned level" in n for n in r.notes)
    assert "straighten" in r.ms
    assert r.detections.image_size == size
    assert (r.detections.boxes >= 0).all()
    assert (r.detections.boxes[:, [0, 2]] <= size[0]).all()
    assert (r.detections.boxes[:, [1, 3]] <= size[1]).all()


@pytest.mark.parametrize(("tilt", "calls"), [(3.0, 1), (10.0, 2), (18.0, 2)])
def test_a_reading_that_does_not_win_is_read_again_level_from_5_degrees(
    tilt: float, calls: int
) -> None:
    """STRAIGHTEN_DEG: a no-win reading (a tile missed) of rows 5° or more off the
    photo's edges gets a second detection turned level; nearer level it does not."""
    needs_mcr()
    tilted, level, _ = _a_tile_missed(tilt)
    r, n = _tilted_then_level(tilted, level)
    assert n == calls
    assert (r.score is not None) is (calls == 2)


def test_the_level_reading_is_detected_at_the_first_size_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """LEVEL_OTHER_SCALES: the shipped detector reads the photo at every input size and
    the level region (tiles cut large) at its first size alone; set, at every size."""
    needs_mcr()
    import vision.detect
    from vision import level_reread

    tilted, level, photo = _a_tile_missed()
    for every, asked in ((False, [True, False]), (True, [True, True])):
        monkeypatch.setattr(level_reread, "LEVEL_OTHER_SCALES", every)
        calls: list[bool] = []

        def fake_detect(image: Any, *, other_scales: bool = True,
                        calls: list[bool] = calls) -> Detections:
            calls.append(other_scales)
            return tilted if len(calls) == 1 else level

        monkeypatch.setattr(vision.detect, "detect", fake_detect)
        r = recognize(photo, "mcr")
        assert calls == asked and r.score is not None


def test_a_turned_reading_that_does_not_win_is_not_taken() -> None:
    needs_mcr()
    tilted, _, photo = _a_tile_missed()
    calls: list[int] = []

    def stand_in(image: np.ndarray) -> Detections:
        calls.append(1)
        return tilted  # the turned photo shows the same 13 tiles: no win either way

    r = recognize(photo, "zhenjiang", ZJ, detector=stand_in)
    assert len(calls) == 2 and r.score is None
    assert not any("turned level" in n for n in r.notes)
    assert "straighten" in r.ms  # the second look's time is still counted


@pytest.mark.parametrize("key", ["win", "claim_win"])
def test_a_tilted_photo_told_it_is_no_win_is_detected_once(key: str) -> None:
    """STRAIGHTEN_DEG is for readings that may win: with ``win`` (or ``claim_win``) false
    no reading wins, so the level reading, taken only when it wins, is not made — the
    same tilted scene without the flag is read again and wins."""
    needs_mcr()
    tilted, level, photo = _a_tile_missed()
    for told, calls in (({key: False}, 1), ({}, 2)):
        seen: list[int] = []

        def stand_in(image: np.ndarray, seen: list[int] = seen) -> Detections:
            seen.append(1)
            return tilted if len(seen) == 1 else level

        r = recognize(photo, "mcr", told or None, detector=stand_in)
        assert len(seen) == calls, told
        assert (r.score is not None) is (calls == 2)
        assert ("straighten" in r.ms) is (calls == 2)
    assert r.waits is None  # the unflagged reading won
    r = recognize(photo, "mcr", {key: False}, detector=lambda image: tilted)
    assert r.score is None and r.waits is not None  # told no win: its waits, as before


@pytest.mark.parametrize(("standing", "calls"), [("123m456p789s", 1), ("123m456p789sE", 2)])
def test_a_tilted_photo_of_a_few_tiles_is_detected_once(standing: str, calls: int) -> None:
    """STRAIGHTEN_TILES_SHORT: a no-win reading of 9 tiles (a won MCR hand's 14 less 5)
    is not read again turned level — a level reading cut around 9 tiles could not win;
    one of 10 is."""
    needs_mcr()
    tilted = SceneBuilder().standing(standing).detections(tilt_deg=40.0)
    seen: list[int] = []

    def stand_in(image: np.ndarray) -> Detections:
        seen.append(1)
        return tilted

    size = tilted.image_size or (1000, 800)
    r = recognize(np.zeros((size[1], size[0], 3), np.uint8), "mcr", detector=stand_in)
    assert len(seen) == calls and r.score is None


def test_a_level_photo_is_detected_once() -> None:
    d = won_scene().detections(tilt_deg=10.0)
    calls: list[int] = []

    def stand_in(image: np.ndarray) -> Detections:
        calls.append(1)
        return d

    r = recognize(np.zeros((800, 1000, 3), np.uint8), "zhenjiang", ZJ, detector=stand_in)
    assert len(calls) == 1 and "straighten" not in r.ms


def _sure(d: Detections, unsure: dict[int, list[float]] | None = None) -> Detections:
    """``d`` with a classifier's rotation probabilities: sure of each tile's rotation but
    the tiles of ``unsure``."""
    p = np.full((len(d), 4), 0.01, np.float32)
    p[np.arange(len(d)), (d.rotations // 90) % 4] = 0.97
    for i, row in (unsure or {}).items():
        p[i] = row
    return dataclasses.replace(d, rotations=(p.argmax(axis=1) * 90).astype(np.int64),
                               rotation_probs=p)


def _tilted_then_level(tilted: Detections, level: Detections) -> tuple[Recognition, int]:
    """``recognize`` with a stand-in detector that gives ``tilted`` for the photo and
    ``level`` for the photo turned level; returns the recognition and the detector calls."""
    seen: list[int] = []

    def stand_in(image: np.ndarray) -> Detections:
        seen.append(1)
        return tilted if len(seen) == 1 else level

    size = tilted.image_size or (1000, 800)
    r = recognize(np.zeros((size[1], size[0], 3), np.uint8), "mcr", detector=stand_in)
    return r, len(seen)


def test_a_win_with_an_unclear_claim_at_a_tilt_is_read_again_turned_level() -> None:
    """[555p,2] read as a win, but its sideways 5p and a neighbour both half look sideways
    in a photo tilted 25°: the level photo reads every claim clearly and is taken."""
    needs_mcr()
    b = SceneBuilder().standing("123456789m").meld("555p", sideways=1).standing("EE")
    tilted = _sure(b.detections(tilt_deg=25.0), {10: [0.55, 0.05, 0.35, 0.05],
                                                  9: [0.5, 0.3, 0.0, 0.2]})
    r, calls = _tilted_then_level(tilted, _sure(b.detections()))
    assert calls == 2 and r.score is not None
    assert any("turned level" in n for n in r.notes)
    assert not any("lies sideways in the meld" in n for n in r.notes)


def test_a_doubtful_win_at_a_tilt_is_read_again_turned_level() -> None:
    """A win whose tiles the model reads unsurely (reading confidence 0.9 ** 14 ≈ 0.23,
    under STRAIGHTEN_WIN_BELOW) in rows tilted 25°: the level photo reads it surely, with
    every claim clear, and is taken; a sure win at the same tilt is not read again."""
    needs_mcr()
    b = SceneBuilder().standing("123456789m").meld("555p", sideways=1).standing("EE")
    level = _sure(b.detections(confidence=0.999))
    r, calls = _tilted_then_level(_sure(b.detections(tilt_deg=25.0, confidence=0.9)), level)
    assert calls == 2 and r.score is not None
    assert any("turned level" in n for n in r.notes)
    assert r.reading_confidence > 0.9
    r, calls = _tilted_then_level(_sure(b.detections(tilt_deg=25.0, confidence=0.999)), level)
    assert calls == 1 and r.score is not None


def test_a_doubtful_win_is_not_replaced_by_a_level_reading_that_lost_a_flower() -> None:
    """The level photo is a crop around the hand's rows: a level reading that shows fewer
    flowers than the photo did (1 fan each in MCR) is not taken, however sure it is."""
    needs_mcr()
    hand = SceneBuilder().standing("123456789m").meld("555p", sideways=1).standing("EE")
    with_flower = SceneBuilder().standing("123456789m").meld("555p", sideways=1)
    with_flower = with_flower.standing("EE").flowers("3f")
    tilted = _sure(with_flower.detections(tilt_deg=25.0, confidence=0.9))
    r, calls = _tilted_then_level(tilted, _sure(hand.detections(confidence=0.999)))
    assert calls == 2 and r.score is not None
    assert not any("turned level" in n for n in r.notes)
    assert r.hand is not None and r.hand.flowers == ("3f",)


def test_a_tile_unclearly_judged_sideways_is_judged_again_when_the_hand_then_wins() -> None:
    """Rule (seed 003: a claimed kong shows one tile sideways): [9999p,2] laid out, but
    the classifier half takes one of its upright 9p for a sideways one — the layout
    splits the kong into [999p] and a loose 9p, 15 tiles, no win. That tile's judgement
    was close (log-odds +0.6 over the threshold); judged upright, the hand wins as laid
    out, and a note says which tile was read otherwise."""
    needs_mcr()
    b = SceneBuilder().standing("234m567p1sPPP").meld("9999p", sideways=1).win("1s")
    d = _sure(b.detections(), {13: [0.2, 0.4, 0.0, 0.4]})
    r = recognize_detections(d, "mcr")
    assert r.hand is not None and scoring.format_hand(r.hand) == "[9999p,2]234m567p1sPPP1s"
    assert r.score is not None
    assert any("as lying upright" in n and "wins only so" in n for n in r.notes)


def test_a_hand_that_wins_as_laid_out_is_not_judged_again() -> None:
    """Never force a reading: [PPP,3] whose sideways tile the layout reads as standing in
    rows tilted 38° still wins (a concealed pung), so no tile is judged the other way."""
    needs_mcr()
    b = SceneBuilder().standing("123m456p789sE").meld("PPP", sideways=2).win("E")
    d = b.detections(tilt_deg=38.0)
    side = [i for i in range(len(d)) if d.rotations[i] % 180 == 90]
    r = recognize_detections(_sure(d, {i: [0.6, 0.1, 0.2, 0.1] for i in side}), "mcr")
    assert r.score is not None
    assert not any("wins only so" in n for n in r.notes)


def test_the_layout_can_take_a_tile_s_sideways_judgement_the_other_way() -> None:
    from vision.layout import analyze

    b = SceneBuilder().standing("234m567p1sPPP").meld("9999p", sideways=1).win("1s")
    d = _sure(b.detections(), {13: [0.2, 0.4, 0.0, 0.4]})
    plain = analyze(d)
    assert 13 in plain.sideways and dict(plain.side_margins)[13] > 0
    again = analyze(d, flip=frozenset({13}))
    assert 13 not in again.sideways and 11 in again.sideways
    assert [len(m.detections) for m in again.melds] == [4]


def test_flips_read_with_one_side_reading_give_the_layouts_read_alone() -> None:
    """``read_sides`` once for the flips a rule tries (``flip_unclear_sideways``): each
    flip's layout is the one ``analyze`` reads from scratch, the shared reading is not
    changed by a flip, and a reading of other detections is not used."""
    from vision.layout import LayoutParams, analyze, read_sides

    b = SceneBuilder().standing("234m567p1sPPP").meld("9999p", sideways=1).win("1s")
    d = _sure(b.detections(), {13: [0.2, 0.4, 0.0, 0.4]})
    params = LayoutParams()
    sides = read_sides(d, params)
    before = dict(sides.sideways)
    for flip in (frozenset(), frozenset({13}), frozenset({11}), frozenset({11, 13})):
        assert analyze(d, params, flip=flip, sides=sides) == analyze(d, params, flip=flip)
    assert sides.sideways == before
    other = SceneBuilder().standing("123m456p789sEEE").win("S").row().detections()
    assert analyze(d, params, sides=read_sides(other, params)) == analyze(d, params)


def test_recognize_judges_unsure_sideways_tiles_again_last() -> None:
    """``recognize``: the reading without the rule first (no win: 15 tiles), then —
    nothing to straighten in a level photo — the reading with it, which wins and is
    taken; ``recognize_detections(..., flip_sideways=False)`` leaves the tile as judged."""
    needs_mcr()
    b = SceneBuilder().standing("234m567p1sPPP").meld("9999p", sideways=1).win("1s")
    d = _sure(b.detections(), {13: [0.2, 0.4, 0.0, 0.4]})
    plain = recognize_detections(d, "mcr", flip_sideways=False)
    assert plain.score is None and "15 tiles found" in (plain.unscorable or "")
    size = d.image_size or (1000, 800)
    r = recognize(np.zeros((size[1], size[0], 3), np.uint8), "mcr", detector=lambda _: d)
    assert r.score is not None and any("wins only so" in n for n in r.notes)
    assert r.ms["layout"] > 0


def test_no_sideways_second_reading_when_no_win_is_claimed() -> None:
    """The second reading looks for a win; with ``claim_win`` false the hand is read as
    laid out (its waits), and no tile is judged otherwise."""
    needs_mcr()
    b = SceneBuilder().standing("234m567p1sPPP").meld("9999p", sideways=1).win("1s")
    d = _sure(b.detections(), {13: [0.2, 0.4, 0.0, 0.4]})
    size = d.image_size or (1000, 800)
    r = recognize(np.zeros((size[1], size[0], 3), np.uint8), "mcr", {"claim_win": False},
                  detector=lambda _: d)
    assert r.score is None and not any("wins only so" in n for n in r.notes)


def test_cli_text_gives_the_score_confidence_when_it_differs() -> None:
    """Under MCR a reading unsure only of which flower it shows is unsure of its tiles,
    not of its score: the text says both; one line when they agree."""
    from tilecam.commands.recognize import describe

    base: dict[str, Any] = {"image": "x.jpg", "tiles": [{"role": "flower"}], "hand": "-",
                            "melds": [], "corrections": [], "alternatives": [], "notes": []}
    text = describe({**base, "hand_confidence": 0.21, "score_confidence": 0.86})
    assert "hand confidence: 21%" in text and "score confidence: 86%" in text
    same = describe({**base, "hand_confidence": 0.5, "score_confidence": 0.5})
    assert "hand confidence: 50%" in same and "score confidence" not in same


def test_alternatives_say_when_they_score_the_same_as_the_chosen_reading() -> None:
    """Issue 6, close readings with their scores: under MCR a reading that differs only
    in which flower a bonus tile is scores the same (``same_score``), one that reads a
    suit tile otherwise does not."""
    b = SceneBuilder().standing("123m456p78s").standing("9s")
    b.uncertain([("9s", 0.55), ("6s", 0.4)]).standing("11sEE").win("E").row()
    b.flowers("1f").uncertain([("1f", 0.5), ("2f", 0.45), ("5f", 0.05)])
    r = recognize_detections(b.detections(), "mcr")
    assert r.hand_text is not None and r.hand_text.endswith("1f")
    by_change = {tuple(c["to"] for c in a["corrections"]): a for a in r.alternatives}
    flower, suit = by_change[("2f",)], by_change[("6s",)]
    assert flower["same_score"] is True and flower["score"] == r.score.total
    assert suit["same_score"] is False
    assert r.to_dict()["alternatives"][0].keys() >= {"hand", "ratio", "score", "same_score"}


def test_cli_names_the_model_folder_as_detect_and_eval_do(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--model-dir` as `tilecam detect` and `tilecam eval` take it (`--model` still
    works): a folder without a model is a one-line error naming it."""
    _, path = scene_and_image(tmp_path)
    for flag in ("--model-dir", "--model"):
        assert main(["recognize", str(path), flag, str(tmp_path / "nothing")]) == 2
        err = capsys.readouterr().err
        assert err.startswith("tilecam recognize: error: no model in ")
        assert str(tmp_path / "nothing") in err


def test_unknown_rules_or_a_context_that_is_not_a_mapping_fail_before_detection() -> None:
    """The request is checked first: no detector time is spent on a call that cannot be
    scored, and the error says what is wrong."""
    calls: list[int] = []

    def detector(image: Any) -> Detections:
        calls.append(1)
        raise AssertionError("the detector should not run")

    frame = np.zeros((64, 64, 3), np.uint8)
    with pytest.raises(scoring.HandError, match=r"unknown rules 'nope' \(known: "):
        recognize(frame, rules="nope", detector=detector)
    with pytest.raises(TypeError, match="context must be a mapping of win-context fields"):
        recognize(frame, context=5, detector=detector)  # type: ignore[arg-type]
    assert calls == []


def test_a_second_winning_hand_close_to_the_chosen_one_is_an_alternative() -> None:
    """Issue 6 (two readings close: return both with their scores): 9p must be 6p for a
    win, and then an unsure 1s/4s (0.5/0.45) wins either way, 123s or 234s. The 234s
    hand, 1.11× less probable, was dropped for adding a change to the chosen one."""
    needs_mcr()
    b = (SceneBuilder().standing("123m").standing("9p").uncertain([("9p", 0.55), ("6p", 0.43)])
         .standing("57p").standing("1s").uncertain([("1s", 0.5), ("4s", 0.45)])
         .standing("23sEEEC").win("C"))
    r = recognize_detections(b.detections(), "mcr")
    assert r.score is not None and r.hand_text == "123m657p123sEEECC"
    wins = [a for a in r.to_dict()["alternatives"] if a["winning"]]
    assert [a["hand"] for a in wins] == ["123m657p423sEEECC"]
    assert wins[0]["score"] is not None and wins[0]["ratio"] < 4


def test_a_winning_alternative_is_scored_when_no_tile_is_set_apart() -> None:
    """Issue 6 (close readings with their scores): with the winning tile not set apart
    the chosen hand is scored on its last standing tile, but a winning alternative came
    back with ``score: null``."""
    needs_mcr()
    b = (SceneBuilder().standing("123m456p789p34sEE").standing("2s")
         .uncertain([("2s", 0.5), ("5s", 0.45)]).row())
    r = recognize_detections(b.detections(), "mcr")
    assert r.score is not None
    wins = [a for a in r.to_dict()["alternatives"] if a["winning"]]
    assert wins and all(a["score"] is not None for a in wins)


@pytest.mark.parametrize("p_gold", [0.6, 0.97])
def test_a_gold_held_on_a_discard_win_is_kept_and_the_score_says_why_it_is_not_legal(
        p_gold: float) -> None:
    """Issue 6 (never override evidence to force a win) and seed 000 (holding a gold, a
    player wins only by self-draw): the correction asked "is it a win?" with the whole
    context, so the held gold 9s (0.6, 7p 0.35) was re-read as 7p to make a legal discard
    win, and a sure one gave "not a winning hand" with waits holding the very tile it won
    on. The winning shape is now judged with the gold alone; the score says why."""
    b = (SceneBuilder().standing("123m456m789m234p56p").standing("9s")
         .uncertain([("9s", p_gold), ("7p", round(0.99 - p_gold, 2))]).standing("5s").win("5s"))
    r = recognize_detections(b.detections(), "xiamen", {"gold": "9s", "discarder": 1})
    assert not r.to_dict()["corrections"]
    assert r.score is not None and not r.score.legal
    assert "forbids winning on a discard" in r.score.details["reason"]
    drawn = recognize_detections(b.detections(), "xiamen", {"gold": "9s", "self_drawn": True})
    assert drawn.score is not None and drawn.score.legal and drawn.hand_text == r.hand_text


def test_two_unsure_tiles_read_each_as_the_other_are_the_same_hand_read_another_way() -> None:
    """Issue 6 (alternatives are other readings): 1s read 4s and 4s read 1s give the
    chosen hand again, written in another order; it was listed as another hand ("also
    possible"). It is written as the chosen hand: the page and the CLI then say "the
    same hand, read another way"."""
    needs_mcr()
    b = (SceneBuilder().standing("123m456p")
         .standing("1s").uncertain([("1s", 0.5), ("4s", 0.45)]).standing("23s")
         .standing("4s").uncertain([("4s", 0.5), ("1s", 0.45)]).standing("56sE").win("E"))
    r = recognize_detections(b.detections(), "mcr")
    hands = [a["hand"] for a in r.to_dict()["alternatives"]]
    assert hands and not any(
        h != r.hand_text and sorted(h) == sorted(r.hand_text or "")
        for h in hands if h is not None), hands


def test_a_photo_with_no_tiles_has_no_hand_notation() -> None:
    """An empty reading's ``hand`` is null, as for any other reading with no hand (it was
    "" — the schema says a string is the hand in notation)."""
    from vision.detections import Detections

    r = recognize_detections(Detections.empty((200, 150)), "mcr")
    assert r.hand_text is None and r.to_dict()["hand"] is None
