"""Synthetic tile photos with exact labels (``tilecam dataset synth``).

Modules, one job each:

- :mod:`vision.synth.art` — tile art sets (face textures per tile code), cached rasters
- :mod:`vision.synth.hands` — random complete hands and their bracket notation
- :mod:`vision.synth.render` — 3D tile bodies, pinhole camera, painting
- :mod:`vision.synth.scene` — table layouts (hand rows, melds, kongs, flowers) → one photo
- :mod:`vision.synth.photometric` — table surfaces, lighting, glare, blur, noise
- :mod:`vision.synth.writer` — YOLO data set writer with per-image ground truth

Rendering SVG art needs ``cairosvg`` (``dev``/``train`` extras); it is not a runtime
dependency of tilecam.
"""
