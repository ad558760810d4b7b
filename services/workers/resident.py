"""Resident loops in each worker process that consumes the "projections" queue, on the process's event loop:
the webhook sender (services/webhooks/sender.py; one process delivers, the others stand by on its lock) and
the fair-play analyser (services/fairplay/analyser.py; every such process analyses, sharing the queue) and the
evaluation bar's evaluator (services/evaluation.py; the watched deals, at most a share of a core). Each
starts again after a pause when it lost its database or failed, logged, never left stopped."""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import os

import asyncpg
import dramatiq
from dramatiq.asyncio import get_event_loop_thread

from services.eventstore.migrations import migrate

log = logging.getLogger("baloot.workers")
RESTART_SECONDS = 5.0


class Resident(dramatiq.Middleware):
    """Runs ``await self.start(pool)`` (an object with ``run()`` and ``close()``) on a pool of its own."""

    name = "resident"
    pool_size = 4

    def __init__(self, database_url: str):
        self.database_url = database_url
        self._future: concurrent.futures.Future | None = None

    async def start(self, pool: asyncpg.Pool):
        raise NotImplementedError

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
                pool = await asyncpg.create_pool(self.database_url, min_size=1, max_size=self.pool_size)
            except (OSError, asyncpg.PostgresError) as exc:
                log.warning("%s: no database (%r); trying again in %ss", self.name, exc, RESTART_SECONDS)
                await asyncio.sleep(RESTART_SECONDS)
                continue
            loop = None
            try:
                await migrate(pool)
                loop = await self.start(pool)
                await loop.run()
            except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
                log.warning("%s: lost the database (%r); starting again in %ss", self.name, exc, RESTART_SECONDS)
            except Exception:                   # never gone for good: logged, and started again
                log.exception("%s: failed; starting again in %ss", self.name, RESTART_SECONDS)
            finally:
                if loop is not None:
                    await loop.close()
                await pool.close()
            await asyncio.sleep(RESTART_SECONDS)


class WebhookWorker(Resident):
    name = "webhooks"

    async def start(self, pool: asyncpg.Pool):
        from services.webhooks.sender import WebhookSender
        return WebhookSender(pool)


class FairPlayWorker(Resident):
    """The analyser, with the server secret (``secret``, None: the configured one) to re-derive the cards; not
    started where ``BALOOT_FAIRPLAY_PROCESSES`` is 0 (a worker kept for play alone: the deals wait, queued, for
    an analyser elsewhere or ``baloot fairplay``)."""

    name = "fairplay"

    def after_worker_boot(self, broker, worker):
        from services.fairplay.analyser import PROCESSES_ENV
        if os.environ.get(PROCESSES_ENV, "1").strip() != "0":
            super().after_worker_boot(broker, worker)

    def __init__(self, database_url: str, secret: bytes | None = None):
        super().__init__(database_url)
        self.secret = secret

    async def start(self, pool: asyncpg.Pool):
        from services.fairplay.analyser import FairPlayAnalyser
        from services.platform import Platform
        return FairPlayAnalyser(pool, (await Platform.on(pool, secret=self.secret)).tables)


class EvaluationWorker(FairPlayWorker):
    """The evaluation bar's evaluator (services/evaluation.py), with the server secret; not started where
    ``BALOOT_EVALUATION_PROCESSES`` is 0."""

    name = "evaluation"

    def after_worker_boot(self, broker, worker):
        from services.evaluation import PROCESSES_ENV
        if os.environ.get(PROCESSES_ENV, "1").strip() != "0":
            Resident.after_worker_boot(self, broker, worker)

    async def start(self, pool: asyncpg.Pool):
        from services.evaluation import Evaluator
        from services.platform import Platform
        return Evaluator(pool, (await Platform.on(pool, secret=self.secret)).tables)
