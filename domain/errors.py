"""A command the rules refuse, in every decider of the platform (both games, the table, the daily deal)."""

from __future__ import annotations


class DomainError(Exception):
    """A refused command: ``rule`` is a stable id, ``message`` says it in a referee's words; ``details`` (when
    given) holds what the message names as data (the seat, the card, the cards held), so that a page can say
    the refusal in its own language instead of showing the English words."""

    def __init__(self, rule: str, message: str, details: dict | None = None):
        super().__init__(f"{rule}: {message}")
        self.rule = rule
        self.message = message
        self.details = details
