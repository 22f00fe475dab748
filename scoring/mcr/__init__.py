"""Chinese Official (MCR, 国标) engine: decomposition, the 81 fans, versions, waits.

The rule set itself (the ``rules="mcr"`` entry point) is :mod:`scoring.rulesets.mcr`.
"""
