"""What every reading rule must reach (vision.rewrite.WinTest)."""

from __future__ import annotations

from vision.layout_scene import SceneBuilder


def test_a_rule_s_new_layout_may_not_force_a_win_by_overriding_a_sure_tile() -> None:
    """Never override strong evidence to force a win: a rule that lays the hand out
    otherwise (a tile judged sideways again, a weak box taken, ...) is taken only when its
    win is at most ``CorrectParams.max_win_ratio`` times less probable than the hand as
    laid out needed — even when its layout makes the change a physical necessity (a meld
    that is a set only if a sure tile is read as another). Measured on false win claims
    (``--near-miss``): such layouts scored 2 of 200 held-out-art scenes as wins by reading
    a tile of p 0.98 as one of p 0.0001. Here the pung [EES] needs S (p 0.98) read as E
    (p 0.002, within ``vision.correct.SURE_MAX_RATIO``): as laid out that is a physical
    necessity, and the test allows it; for a rule's new layout it would force the win,
    and the test refuses it."""
    from vision.correct import winning_shape_check
    from vision.layout import analyze
    from vision.rewrite import WinTest

    b = SceneBuilder().standing("123m456p789sN").meld("EEE", sideways=1)
    d = b.uncertain([("S", 0.98), ("E", 0.002)]).win("N").detections()
    lay = analyze(d)
    assert [len(m.detections) for m in lay.melds] == [3]
    assert WinTest("mcr", 14, winning_shape_check("mcr")).wins(d, lay) is None
    as_laid = WinTest("mcr", 14, winning_shape_check("mcr"), base_ratio=lambda: 490.0).wins(d, lay)
    assert as_laid is not None and as_laid.best.winning
    assert [(c.before, c.after) for c in as_laid.best.changes] == [("S", "E")]
