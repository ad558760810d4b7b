"""The webhook sender (services/webhooks/sender.py) in each worker process that consumes the "projections"
queue, on the process's event loop: one process delivers, the others stand by (the sender's lock), and a
sender that lost its database starts again after a pause."""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging

import asyncpg
import dramatiq
from dramatiq.asyncio import get_event_loop_thread

from services.eventstore.migrations import migrate
from services.webhooks.sender import WebhookSender

log = logging.getLogger("baloot.workers")
RESTART_SECONDS = 5.0


class WebhookWorker(dramatiq.Middleware):
    def __init__(self, database_url: str):
        self.database_url = database_url
        self._future: concurrent.futures.Future | None = None

    def after_worker_boot(self, broker, worker):
        only = getattr(worker, "consumer_whitelist", None)
        if only and "projections" not in only:
            return
        self._future = asyncio.run_coroutine_threadsafe(self._run(), get_event_loop_thread().loop)

    def before_worker_shutdown(self, broker, worker):
        if self._future is not None:
            self._future.cancel()
            self._future = None

    async def _run(self) -> None:
        while True:
            try:
                pool = await asyncpg.create_pool(self.database_url, min_size=1, max_size=4)
            except (OSError, asyncpg.PostgresError) as exc:
                log.warning("webhooks: no database (%r); trying again in %ss", exc, RESTART_SECONDS)
                await asyncio.sleep(RESTART_SECONDS)
                continue
            sender = WebhookSender(pool)
            try:
                await migrate(pool)
                await sender.run()
            except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
                log.warning("webhooks: lost the database (%r); starting again in %ss", exc, RESTART_SECONDS)
            except Exception:                   # never a sender gone for good: logged, and started again
                log.exception("webhooks: the sender failed; starting again in %ss", RESTART_SECONDS)
            finally:
                await sender.close()
                await pool.close()
            await asyncio.sleep(RESTART_SECONDS)
