"""Camera side of tilecam: image → tile detections → layout → hand.

Stages are plain functions over one :class:`vision.detections.Detections` container.
The public names are imported lazily (``import vision`` stays cheap; onnxruntime is
loaded only when a detector is):

- :func:`detect`, :func:`load_detector` (:mod:`vision.detect`)
- :class:`Detections` (:mod:`vision.detections`)
- :func:`recognize`, :class:`Recognition` (:mod:`vision.recognize`)

>>> import vision
>>> vision.Detections.__name__
'Detections'
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from vision.detect import Detector, detect, load_detector
    from vision.detections import Detections
    from vision.recognize import Recognition, recognize

__all__ = ["Detections", "Detector", "Recognition", "detect", "load_detector", "recognize"]

_LAZY = {
    "detect": "vision.detect",
    "load_detector": "vision.detect",
    "Detector": "vision.detect",
    "Detections": "vision.detections",
    "recognize": "vision.recognize",
    "Recognition": "vision.recognize",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'vision' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(list(globals()) + __all__)
