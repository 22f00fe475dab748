"""Camera side of tilecam: image → tile detections → layout → hand.

Stages are plain functions over one :class:`vision.detections.Detections` container.
The public names are imported lazily (``import vision`` stays cheap; onnxruntime is
loaded only when a detector is):

- :func:`detect`, :func:`load_detector`, :class:`Detector` (:mod:`vision.detect`)
- :class:`Detections` (:mod:`vision.detections`)
- :func:`recognize`, :class:`Recognition` (:mod:`vision.recognize`)

``detect`` and ``recognize`` are also the names of their submodules. Python binds a
package attribute to the submodule once it is imported, so those two submodules are made
*callable*: ``vision.detect(image)`` calls :func:`vision.detect.detect` and
``vision.detect.Detector`` still works, whatever was imported first.

>>> import vision
>>> vision.Detections.__name__
'Detections'
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from vision.detect import Detector, detect, load_detector
    from vision.detections import Detections
    from vision.recognize import Recognition, recognize

__all__ = ["Detections", "Detector", "Recognition", "detect", "load_detector", "recognize"]

_LAZY = {
    "load_detector": "vision.detect",
    "Detector": "vision.detect",
    "Detections": "vision.detections",
    "Recognition": "vision.recognize",
}
#: Submodules that share their name with their main function.
_CALLABLE_SUBMODULES = frozenset({"detect", "recognize"})


class _CallableModule(types.ModuleType):
    """A submodule that forwards calls to its same-named function."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return getattr(self, self.__name__.rpartition(".")[2])(*args, **kwargs)


class _Package(types.ModuleType):
    """The ``vision`` package: makes ``detect``/``recognize`` callable when bound."""

    def __setattr__(self, name: str, value: Any) -> None:
        if (
            name in _CALLABLE_SUBMODULES
            and isinstance(value, types.ModuleType)
            and value.__name__ == f"{__name__}.{name}"
        ):
            value.__class__ = _CallableModule
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package


def __getattr__(name: str) -> Any:
    if name in _CALLABLE_SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")  # bound (callable) on import
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'vision' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(list(globals()) + __all__)
