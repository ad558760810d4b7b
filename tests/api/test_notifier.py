"""The live streams' LISTEN connection comes back after PostgreSQL drops it (a restart, a failover)."""

from __future__ import annotations

import asyncio

import pytest

from services.eventstore import CHANNEL
from services.eventstore.listen import Listener

pytestmark = pytest.mark.asyncio


async def test_the_listener_listens_again_after_its_connection_is_terminated(database_url, connect):
    listener = Listener()
    await listener.start(database_url)
    try:
        admin = await connect()
        wake = listener.follow("table-t1")
        pid = listener.pid
        assert await admin.fetchval("SELECT pg_terminate_backend($1)", pid)   # what a restart does to it
        await asyncio.wait_for(asyncio.shield(wake.wait()), 30)   # woken on reconnect: it may have missed appends
        assert listener.listening and listener.pid != pid
        assert wake.take() == (True, None)                        # a wake naming no version: read to know

        await admin.execute(f"NOTIFY {CHANNEL}")
        await asyncio.wait_for(wake.wait(), 30)                   # notifications arrive again
    finally:
        await listener.stop()
