"""The live streams' LISTEN connection comes back after PostgreSQL drops it (a restart, a failover)."""

from __future__ import annotations

import asyncio

import pytest

from services.api.streams import Notifier
from services.eventstore import CHANNEL

pytestmark = pytest.mark.asyncio


async def test_the_notifier_listens_again_after_its_connection_is_terminated(database_url, connect):
    notifier = Notifier()
    await notifier.start(database_url)
    try:
        admin = await connect()
        pid = notifier._conn.get_server_pid()
        assert await admin.fetchval("SELECT pg_terminate_backend($1)", pid)   # what a restart does to it
        before = notifier.waiter("t1")
        await asyncio.wait_for(asyncio.shield(before.wait()), 30)   # woken on reconnect: it may have missed appends
        assert notifier.listening and notifier._conn.get_server_pid() != pid

        after = notifier.waiter("t1")
        await admin.execute(f"NOTIFY {CHANNEL}")
        await asyncio.wait_for(after.wait(), 30)                     # notifications arrive again
    finally:
        await notifier.stop()
