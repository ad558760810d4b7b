"""Balut (البلوت), the five-dice game of seed 004, beside the card game: rules in docs/balut.md.

``game`` is the decider (``step``, ``legal_actions``, ``fold``), ``views`` what a seat sees, ``dice`` the
``balut-dice/1`` derivation of a turn's dice from a committed seed, ``scoring`` the rows, ``profiles`` the
rule switches, ``record`` and ``audit`` the ``balut-game/1`` game record, ``bots`` the simple and strong
policies. Like the card game: stdlib and msgspec only, no I/O, no clock, no hidden randomness.
"""
