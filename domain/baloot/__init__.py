"""Saudi Baloot (بلوت), the card game, and the French Belote profiles: rules in docs/rules.md.

By phase: ``cards`` (ints 0-31, masks), ``bidding`` (Hokum, Sun, Ashkal), ``doubling``, ``play`` (tricks,
projects, Baloot, Sawa), ``result`` and ``scoring`` (Kaboot, Qayd), ``deal`` (one deal's decider, its state
in ``dealstate``), ``game`` (deals to the target); ``events`` its commands and events, ``profiles`` its
rule switches, ``shuffle`` the seeded deck; ``views`` what a seat or a spectator sees; ``handrecord`` and
``audit`` the ``baloot-hand/1`` record; ``daily`` boards and duplicate scoring; ``bots`` three levels;
``seam`` what it gives the platform. Stdlib and msgspec only: no I/O, no clock, no hidden randomness.
"""
