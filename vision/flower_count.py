"""Flowers of a photo that shows none: a count given beside the photo.

A player may set the flowers (花, bonus tiles 1f-8f) aside off-camera. ``tilecam
recognize PHOTO --flowers N`` and ``POST /v1/recognize`` with the field ``flowers=N``
then say how many there are. The count is a number of tiles (0-8: there are eight
bonus tiles) and means the same in both:

* rules played without flowers (Zhenjiang: 136 tiles) refuse any count above 0,
  before the photo is decoded (:func:`check_flowers`);
* the photo is read without the count first (the detector run once); when that reading
  shows no flower it is read again from the same detections with the count in its win
  context, so the score counts N flowers;
* a photo that shows flowers keeps its own reading when it shows exactly N of them
  (the count only says what the photo says), and is refused when it shows another
  number (:class:`FlowerCountError`, naming both counts): the flowers a photo shows are
  read from it and counted, and the scorer would refuse every reading of it.

Both the command and the route call :func:`read_with_flowers`, so one photo and one
count give one score whichever is asked.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from vision.recognize import Recognition

#: The most flowers a hand can have: the eight bonus tiles 1f-8f (a count of tiles).
MAX_FLOWERS = 8


class FlowerCountError(ValueError):
    """A flower count given for a photo that shows another number of flowers.

    ``given``: the count given (tiles); ``shown``: the codes of the flowers the photo
    shows (their number is the count read from it)."""

    def __init__(self, given: int, shown: list[str], name: str = "flowers") -> None:
        self.given = given
        self.shown = list(shown)
        super().__init__(count_clash(given, self.shown, name))


def count_clash(given: int, shown: list[str], name: str = "flowers") -> str:
    """The refusal of a count ``given`` (tiles) for a photo that shows the flowers
    ``shown`` (codes), naming both counts; ``name``: how the count was given (the
    command's ``--flowers``, the field ``flowers``).

    >>> count_clash(1, ["2f", "5f"], "--flowers")  # doctest: +NORMALIZE_WHITESPACE
    '--flowers 1: the photo shows 2 flower(s) (2f 5f), which are read from it and
    counted: leave --flowers out (it is for a photo that shows no flower)'
    """
    return (f"{name} {given}: the photo shows {len(shown)} flower(s) ({' '.join(shown)}), "
            f"which are read from it and counted: leave {name} out (it is for a photo "
            "that shows no flower)")


def check_flowers(rules: str, flowers: int, name: str = "flowers") -> None:
    """Refuse a count of ``flowers`` (tiles) that rule set ``rules`` cannot take whatever
    the photo shows, before it is read: rules played without flowers (Zhenjiang) take
    none. Raises :class:`scoring.HandError` (a ``ValueError``) in the service's words,
    the count named as given (``name``: ``--flowers`` writes ``--flowers 2``, any other
    name ``flowers=2``, as ``POST /v1/score`` writes it).

    >>> check_flowers("mcr", 2)
    >>> check_flowers("zhenjiang", 0)
    >>> try:
    ...     check_flowers("zhenjiang", 2)
    ... except ValueError as exc:
    ...     print(exc)
    Zhenjiang plays 136 tiles without flowers: flowers=2 cannot be (leave it out)
    """
    import scoring

    given = f"{name} {flowers}" if name.startswith("-") else f"{name}={flowers}"
    scoring.get_rule_set(rules).refuse_flowers(flowers, given)


def shown_flowers(rec: Any) -> list[str]:
    """The flowers a reading (:class:`vision.recognize.Recognition`) shows, as codes:
    those of its hand, else those its layout set apart."""
    if rec.hand is not None:
        return list(rec.hand.flowers)
    return [rec.codes[i] for i in rec.layout.flowers]


def read_with_flowers(
    image: Any,
    rules: str,
    context: Mapping[str, Any],
    flowers: int,
    *,
    detector: Callable[[Any], Any] | None = None,
    name: str = "flowers",
) -> Recognition:
    """The reading of ``image`` (what :func:`vision.recognize.recognize` takes: a
    :class:`vision.imageio.Photo`, an array, a path) under ``rules`` and ``context``
    with ``flowers`` (a count of tiles, 0-8) for a photo that shows none (see the module
    doc). ``detector``: a loaded detector, or None for the shipped model. Raises
    :class:`FlowerCountError` when the photo shows another number of flowers; ``name``
    is how the count was given, for that message."""
    from vision.recognize import recognize

    ctx = {k: v for k, v in context.items() if k != "flowers"}
    if not flowers:
        return recognize(image, rules=rules, context=ctx, detector=detector)
    from vision.detect import detect

    dets = detector(image) if detector is not None else detect(image)
    rec = recognize(image, rules=rules, context=ctx, detector=detector, detections=dets)
    shown = shown_flowers(rec)
    if shown and len(shown) != flowers:
        raise FlowerCountError(flowers, shown, name)
    if shown:
        return rec
    return recognize(image, rules=rules, context={**ctx, "flowers": flowers},
                     detector=detector, detections=dets)
