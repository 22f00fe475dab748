"""Camera side of tilecam: image → tile detections → layout → hand.

Stages are plain functions over one :class:`vision.detections.Detections` container.
"""
