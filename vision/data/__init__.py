"""Training data preparation: real photos (:mod:`vision.data.photos`).

Synthetic scenes live in :mod:`vision.synth`. Nothing here is needed at run time.
"""
