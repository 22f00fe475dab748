"""vision.level_reread: which readings of a tilted photo are read again turned level, and
which level readings replace them (the recognize-level cases are in test_recognize.py)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from vision import level_reread as lr


def reading(*, win: bool = True, tilt: float = 0.0, unclear: bool = False,
            confidence: float | None = 0.9, flowers: int = 0, answer: bool = True) -> Any:
    """A stand-in for a Recognition: what the policy reads of one (``answer``: a reading
    that is no win gives its waits)."""
    melds = [SimpleNamespace(claim_unclear=unclear)]
    hand = SimpleNamespace(flowers=("1f",) * flowers)
    return SimpleNamespace(score=object() if win else None, hand=hand,
                           waits=object() if answer and not win else None, discards=None,
                           layout=SimpleNamespace(tilt_deg=tilt, melds=melds),
                           hand_confidence=confidence, reading_confidence=0.99)


@pytest.mark.parametrize(("rec", "may_win", "expected"), [
    (reading(win=False, tilt=-6.0), True, "no win"),       # 5° or more, no win
    (reading(win=False, tilt=4.0), True, None),            # rows nearly level
    (reading(win=False, tilt=30.0), False, None),          # told it is no win: its waits
    # told it is no win, and the tilted tiles give no answer (no hand, a count no hand
    # has): read level, taken when that gives waits or discards (CLI review 7)
    (reading(win=False, tilt=30.0, answer=False), False, "no answer"),
    (reading(win=False, tilt=4.0, answer=False), False, None),
    (reading(tilt=25.0, unclear=True), True, "unclear"),   # a claim source unclear, 20°+
    (reading(tilt=15.0, unclear=True), True, None),
    (reading(tilt=25.0, confidence=0.3), True, "doubtful"),  # under 0.4, 20°+
    (reading(tilt=25.0, confidence=0.5), True, None),
    (reading(tilt=25.0, confidence=None), True, None),      # uncalibrated: reading conf 0.99
])
def test_which_readings_are_read_again_level(rec: Any, may_win: bool, expected: str) -> None:
    assert lr.reason(rec, boxes=14, hand_size=14, may_win=may_win) == expected


def test_a_photo_of_fewer_than_a_hand_less_four_tiles_is_not_read_again() -> None:
    """STRAIGHTEN_TILES_SHORT: 10 boxes may still make a won MCR hand (14) level; 9 not."""
    rec = reading(win=False, tilt=30.0)
    assert lr.reason(rec, boxes=10, hand_size=14, may_win=True) == "no win"
    assert lr.reason(rec, boxes=9, hand_size=14, may_win=True) is None


def test_which_level_readings_replace_the_first() -> None:
    first = reading(tilt=25.0, confidence=0.3, flowers=2)
    assert not lr.take("no win", first, reading(win=False))
    assert lr.take("no win", first, reading(unclear=True, confidence=0.1))  # any win
    assert lr.take("unclear", first, reading())
    assert not lr.take("unclear", first, reading(unclear=True))
    assert lr.take("doubtful", first, reading(confidence=0.6, flowers=2))
    assert not lr.take("doubtful", first, reading(confidence=0.2, flowers=2))  # less sure
    assert not lr.take("doubtful", first, reading(confidence=0.6, flowers=1))  # lost a flower
    assert not lr.take("doubtful", first, reading(confidence=0.6, flowers=2, unclear=True))
    # told no win: the level reading is taken when it gives an answer (waits, discards)
    assert lr.take("no answer", reading(win=False, answer=False), reading(win=False))
    assert not lr.take("no answer", reading(win=False, answer=False),
                       reading(win=False, answer=False))
