"""The application layer's refusals, with no HTTP in them: the API maps each kind to its status.

Every refusal carries a stable rule id (``unknown_table``, ``stale_version``...) and a detail in words, as
the domain's ``DomainError`` and ``ChampionshipRuleError`` do; ``extra`` holds facts a client may use (the
version a stale writer should reload to, when a window closed).
"""

from __future__ import annotations

from typing import Any


class ServiceError(Exception):
    def __init__(self, rule: str, detail: str, **extra: Any):
        super().__init__(detail)
        self.rule, self.detail, self.extra = rule, detail, extra


class NotFound(ServiceError):
    """No such table, championship, match or invitation."""


class Forbidden(ServiceError):
    """The caller has no part in what he asks for (a player checking in for another match)."""


class Conflict(ServiceError):
    """The request cannot be done in the state the stream is in (a cancelled table, a closed window...)."""


class StaleVersion(Conflict):
    """The stream moved past the version the caller decided on: reload and decide again."""


class Invalid(ServiceError):
    """Input the application layer's own rules refuse (a login with a space in it): ``field`` names it."""


class Unprocessable(ServiceError):
    """A document the caller sent holds mistakes, each named in ``errors`` (a file's lines): nothing was done."""


class TooSoon(ServiceError):
    """Too many attempts (wrong passwords from one address): the next is allowed ``retry_after`` seconds on."""

    def __init__(self, rule: str, detail: str, retry_after: float):
        super().__init__(rule, detail)
        self.retry_after = retry_after
