"""The rules: pure and deterministic (no I/O, no clock, no hidden randomness), even at import. How their hot
modules load (compiled, or from their sources) is the services' concern (``services/compiled.py``)."""
