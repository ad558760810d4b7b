"""Small helpers for event store tests."""

from __future__ import annotations

import asyncio
from typing import Any

import asyncpg

from services.eventstore import NewEvent


def events(*values: Any, event_type: str = "noted") -> list[NewEvent]:
    """One raw event per value, with data {"v": value}."""
    return [NewEvent(event_type=event_type, data={"v": v}) for v in values]


async def wait_until_blocked(observer: asyncpg.Connection, pid: int, timeout: float = 5.0) -> None:
    """Wait until backend `pid` is waiting on a lock (observed in pg_stat_activity, not guessed)."""
    async def blocked() -> None:
        while not await observer.fetchval(
                "SELECT wait_event_type = 'Lock' FROM pg_stat_activity WHERE pid = $1", pid):
            await asyncio.sleep(0.01)
    await asyncio.wait_for(blocked(), timeout)
