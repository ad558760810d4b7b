"""Championship schedules: the actor that moves a championship on (filled in with the championship service)."""

from __future__ import annotations


def declare(workers) -> None:
    """Declare the championship actors on ``workers`` (none yet: tables only)."""
