"""Grid cards: the factor grid's schema and its expansion into factor cards.

Also the Heuresis presets, and writing configurations out as cards (``scmspec synth``).
"""
