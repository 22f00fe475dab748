"""Synthetic tile photos with exact labels (``tilecam dataset synth``).

Modules, one job each:

- :mod:`vision.synth.art` — tile art sets (face textures per tile code), cached rasters
- :mod:`vision.synth.hands` — random complete hands and their bracket notation
- :mod:`vision.synth.render` — 3D tile bodies, pinhole camera, canvas
- :mod:`vision.synth.arrange` — table layouts (hand rows, melds, kongs, flowers, extras)
- :mod:`vision.synth.paint` — tile bodies and shadows on the canvas
- :mod:`vision.synth.scene` — one photo: arrange → camera → table → paint → effects → truth
- :mod:`vision.synth.photometric` — table surfaces, lighting, glare, blur, noise
- :mod:`vision.synth.writer` — YOLO data set writer with per-image ground truth

Rendering SVG art needs ``cairosvg`` (``dev``/``train`` extras); it is not a runtime
dependency of tilecam.
"""
