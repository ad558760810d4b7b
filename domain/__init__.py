"""The rules: pure and deterministic (no I/O, no clock, no hidden randomness). Its hot modules load compiled
when they were built (``domain/compiled.py``)."""

from domain.compiled import install as _install

_install()
