"""A command the rules refuse, in every decider of the platform (both games, the table, the daily deal)."""

from __future__ import annotations


class DomainError(Exception):
    """A refused command: ``rule`` is a stable id, ``message`` says it in a referee's words."""

    def __init__(self, rule: str, message: str):
        super().__init__(f"{rule}: {message}")
        self.rule = rule
        self.message = message
