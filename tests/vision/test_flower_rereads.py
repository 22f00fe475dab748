"""Flowers read as kinds, re-read as flowers (vision.flower_rereads): tiles set apart,
a hand over its size, a win made by a flower read as its winning tile — end to end
through ``recognize_detections``."""

from __future__ import annotations

from vision.detections import Detections
from vision.layout_scene import SceneBuilder
from vision.recognize import recognize_detections


def _flowers_apart_read_as(first: list[tuple[str, float]],
                           second: list[tuple[str, float]]) -> Detections:
    """A won hand, and in a row nearer the camera two flowers (2f, 5f) read as given."""
    b = SceneBuilder().standing("123m456p789s11sEE").win("E").row()
    return b.flowers("2f").uncertain(first).standing("5f").uncertain(second).detections()


def test_flowers_set_apart_but_read_as_kinds_are_read_as_the_flowers_they_may_be() -> None:
    """Flowers (花牌) are laid apart from the hand; read as kinds (a pale season picture as
    白, a flower as dots) they were left out of the hand and lost their fans. Each tile the
    layout ignores whose top-k gives a bonus code ≥ 0.05 is read as that flower when the
    layout then lays it with the flowers and the hand is unchanged; listed in corrections."""
    d = _flowers_apart_read_as([("P", 0.6), ("2f", 0.2)], [("7p", 0.5), ("5f", 0.08)])
    r = recognize_detections(d, "mcr")
    assert r.hand is not None and sorted(r.hand.flowers) == ["2f", "5f"]
    assert r.score is not None and r.hand_text.startswith("123m456p789")
    assert list(r.roles[-2:]) == ["flower", "flower"]
    changes = {(c["from"], c["to"], c["p_to"]) for c in r.to_dict()["corrections"]}
    assert changes == {("P", "2f", 0.2), ("7p", "5f", 0.08)}
    assert sum("set apart from the hand" in n for n in r.notes) == 2


def test_two_tiles_set_apart_are_never_read_as_one_flower() -> None:
    """Each flower exists once: two set-apart tiles whose only flower reading is the same
    5f are not both read as 5f (that would make the hand unscorable); the hand is still
    scored."""
    d = _flowers_apart_read_as([("P", 0.6), ("5f", 0.2)], [("7p", 0.5), ("5f", 0.1)])
    r = recognize_detections(d, "mcr")
    assert r.hand is not None and r.score is not None
    assert r.hand.flowers.count("5f") <= 1
    assert r.unscorable is None


def test_a_tile_set_apart_without_a_likely_flower_reading_stays_out_of_the_hand() -> None:
    """No bonus code in its top-k, or one under 0.05: the tile stays ignored — here with
    a surely read kind (P 0.9) in its group, which no flower reading is left for, so the
    doubtful 7p beside it is not taken either (tests/vision/test_flower_runs.py)."""
    d = _flowers_apart_read_as([("P", 0.9), ("C", 0.05)], [("7p", 0.5), ("5f", 0.03)])
    r = recognize_detections(d, "mcr")
    assert r.hand is not None and r.hand.flowers == ()
    assert list(r.roles[-2:]) == ["ignored", "ignored"]
    assert not r.to_dict()["corrections"]


def test_a_hand_one_tile_over_reads_its_doubtful_tile_as_the_flower_it_may_be() -> None:
    """A flower of an unfamiliar set read as a kind makes the hand one tile too many; when
    that tile's flower reading is within 10x of its kind reading and makes the hand a
    win, it is read as the flower (and said in notes)."""
    b = SceneBuilder().standing("123m456p789s11sE").standing("7p")
    b.uncertain([("7p", 0.5), ("5f", 0.3)]).standing("E").win("E")
    r = recognize_detections(b.detections(), "mcr")
    assert r.hand is not None and r.hand.flowers == ("5f",)
    assert r.score is not None
    assert any(n.startswith("read tile") and "as a flower (5f" in n for n in r.notes)
    [change] = [c for c in r.to_dict()["corrections"] if c["to"] == "5f"]
    assert change["from"] == "7p" and change["p_from"] == 0.5 and change["p_to"] == 0.3


def test_a_hand_two_tiles_over_reads_both_doubtful_tiles_as_the_flowers_they_may_be() -> None:
    """Two flowers read as kinds make the hand two tiles too many: the likeliest pair of
    flower readings (each within 10x) that makes the hand a win is taken, both listed."""
    b = SceneBuilder().standing("123m456p789s11sE").standing("7p")
    b.uncertain([("7p", 0.5), ("5f", 0.3)]).standing("P").uncertain([("P", 0.6), ("2f", 0.1)])
    b.standing("E").win("E")
    r = recognize_detections(b.detections(), "mcr")
    assert r.hand is not None and sorted(r.hand.flowers) == ["2f", "5f"]
    assert r.score is not None
    assert sum("two tiles too many" in n for n in r.notes) == 2
    changes = {(c["from"], c["to"]) for c in r.to_dict()["corrections"]}
    assert {("7p", "5f"), ("P", "2f")} <= changes


def test_a_sure_kind_is_not_read_as_a_flower_to_force_a_win() -> None:
    b = SceneBuilder().standing("123m456p789s11sE").standing("7p")
    b.uncertain([("7p", 0.95), ("5f", 0.04)]).standing("E").win("E")
    r = recognize_detections(b.detections(), "mcr")
    assert not any("as a flower" in n for n in r.notes)
    assert r.score is None


def _waiting_with_a_flower_read_as_a_kind() -> Detections:
    """A hand one tile short (听), 123m456p789s11sEE (waits on 1s and E), and apart in a
    row of its own a flower the detector read as 3p (p 0.30; bonus codes 0.35 in all;
    E 0.10): 14 tiles, the lone one taken for the winning tile set apart."""
    b = SceneBuilder().standing("123m456p789s11sEE").row().standing("3p")
    return b.uncertain([("3p", 0.3), ("4f", 0.2), ("7f", 0.15), ("E", 0.1)]).detections()


def test_a_win_made_only_by_changing_a_likely_flower_is_read_as_a_waiting_hand() -> None:
    """Never force a win: the correction would read the lone 3p as E (p 0.10, a pung of
    E: a win), but the tile is likelier a flower (0.35) than that E, so with no win
    claimed it is read as its likeliest flower and the hand as waiting, with its waits;
    said in notes and corrections."""
    d = _waiting_with_a_flower_read_as_a_kind()
    r = recognize_detections(d, "mcr")
    assert r.score is None and r.waits is not None
    assert sorted(w.tile for w in r.waits.waits) == ["1s", "E"]
    assert r.hand is not None and r.hand.flowers == ("4f",)
    assert any("as a flower (4f, p 0.35 as any flower)" in n for n in r.notes)
    assert [(c.before, c.after) for c in r.correction.best.changes] == [("3p", "4f")]


def test_a_claimed_win_or_a_tile_unlikely_a_flower_keeps_the_win() -> None:
    """The rule judges only a win inferred from the tile count: a win the user claims is
    read as before (the correction's own 10x bound); and a tile whose bonus codes are
    less likely than the kind that makes the win stays that kind."""
    d = _waiting_with_a_flower_read_as_a_kind()
    claimed = recognize_detections(d, "mcr", {"claim_win": True})
    assert claimed.score is not None and claimed.hand_text == "123m456p78911sEEE"
    b = SceneBuilder().standing("123m456p789s11sEE").row().standing("3p")
    d = b.uncertain([("3p", 0.3), ("E", 0.2), ("4f", 0.15)]).detections()
    r = recognize_detections(d, "mcr")
    assert r.score is not None and not any("as any flower" in n for n in r.notes)


class _LaidOut:
    """A stand-in layout: the first ``flowers`` tiles laid as flowers, the rest ignored."""

    def __init__(self, flowers: int) -> None:
        self.flowers = list(range(flowers))
        self.hand_detections: list[int] = []
        self.tile_count = 0

    def roles(self, n: int) -> list[str]:
        from vision.layout import FLOWER, IGNORED

        return [FLOWER if i in self.flowers else IGNORED for i in range(n)]


def test_more_codes_among_the_flowers_than_bonus_codes_leaves_nothing_to_re_read() -> None:
    """Each of the eight bonus tiles exists once. When the tiles laid among the flowers
    already show ten codes (eight bonus codes and two kinds), no doubtful tile set apart
    can be read as a flower: nothing is re-read — not an error (the count of free codes
    once came out negative and sliced the doubtful tiles the wrong way)."""
    from vision.flower_rereads import reread_doubtful_apart_flowers
    from vision.layout import LayoutParams

    laid = ["1f", "2f", "3f", "4f", "5f", "6f", "7f", "8f", "5m", "C"]
    doubtful = ["3p", "4p", "5p", "6p", "7p"]
    codes = laid + doubtful
    boxes = [(40.0 * i, 0.0, 40.0 * i + 36, 50.0) for i in range(len(codes))]
    conf = [0.95] * len(laid) + [0.3] * len(doubtful)
    d = Detections.from_lists(boxes, codes, conf, image_size=(800, 100))
    layout = _LaidOut(len(laid))
    out, out_layout, notes, changes = reread_doubtful_apart_flowers(
        d, layout, LayoutParams())  # type: ignore[arg-type]
    assert out is d and out_layout is layout
    assert notes == () and changes == ()
