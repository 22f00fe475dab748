"""The detector's 43 classes and their tile codes (see ``../shared/rules/RULES.md``).

Order: characters ``1m``-``9m``, dots ``1p``-``9p``, bamboo ``1s``-``9s``,
honours ``E S W N C F P`` (C red, F green, P white dragon), bonus tiles
``1f``-``8f`` (spring, summer, autumn, winter, plum, orchid, chrysanthemum,
bamboo), and ``back`` for a face-down tile (not a tile kind).

>>> len(CLASSES)
43
>>> CLASSES[0], CLASSES[27], CLASSES[34], CLASSES[42]
('1m', 'E', '1f', 'back')
>>> class_id("5p")
13
"""

from __future__ import annotations

SUITED: tuple[str, ...] = tuple(f"{r}{s}" for s in "mps" for r in range(1, 10))
HONOURS: tuple[str, ...] = ("E", "S", "W", "N", "C", "F", "P")
BONUS: tuple[str, ...] = tuple(f"{r}f" for r in range(1, 9))
BACK = "back"

#: The 34 tile kinds, in class order.
KINDS: tuple[str, ...] = SUITED + HONOURS
#: All 43 detector classes, in class order.
CLASSES: tuple[str, ...] = KINDS + BONUS + (BACK,)
#: The kinds told apart by a written character — the characters and the winds: the
#: codes of the shipped glyph reader (``models/tiles-glyph.onnx``).
GLYPHS: tuple[str, ...] = SUITED[:9] + HONOURS[:4]

_INDEX = {code: i for i, code in enumerate(CLASSES)}
#: The class indices of the eight bonus tiles (flowers and seasons).
BONUS_IDS: frozenset[int] = frozenset(_INDEX[code] for code in BONUS)


def class_id(code: str) -> int:
    """The class index of a tile code; raises ``ValueError`` for an unknown code."""
    try:
        return _INDEX[code]
    except KeyError:
        known = ", ".join(CLASSES)
        raise ValueError(f"unknown tile code {code!r}; expected one of {known}") from None
