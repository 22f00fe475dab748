"""tilecam app layer: the ``tilecam`` command line and the HTTP service.

The rules engine lives in :mod:`scoring`, the camera side in :mod:`vision`.
"""

__version__ = "0.1.0"
